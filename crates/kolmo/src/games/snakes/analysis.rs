use super::{Board, Portal};
use crate::account::Method;
use crate::analysis::exact::{absorption_time_exact, distributions_exact};
use crate::analysis::{
    AbsorbingChain, AbsorptionTime, FundamentalMatrix, Quantile, Race, TimeDistribution,
    TimeDistributionOptions, absorption_time_distribution, distribution_after_limited, race,
};
use crate::exact::Rational;
use crate::games::BoardError;
use crate::graph::{forward_reachable, longest_distance, shortest_distance};
use crate::linsolve::SplitOperator as _;
use crate::linsolve::{KrylovOptions, MatrixFree, SolveMethod};
use crate::model::StateSet;
use crate::numeric::refine_pair;
use crate::{Error, Result};

pub use crate::account::MAX_ERROR_BOUND;

/// Boards from this many cells on solve for the expected rolls with the board's
/// [`BoardOperator`](super::BoardOperator) (no matrix) when the method is automatic and the
/// operator applies.
pub const MATRIX_FREE_FROM: u32 = 100_000;

/// What [`Board::analyze`] computes besides the always-present figures.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    /// Turns `k` at which to report `P(finished by turn k)`.
    pub turns: Vec<u64>,
    /// Quantile levels in `(0, 1]` of the number of rolls.
    pub quantiles: Vec<f64>,
    /// Number of players racing (1 = no race).
    pub players: usize,
    /// Build the full fundamental matrix `N = (I − Q)⁻¹`.
    pub fundamental: bool,
    /// Turns `k` at which to report the distribution of the token's cell.
    pub distribution_at: Vec<u64>,
    /// Computing the distribution of the number of rolls stops once the probability of a longer
    /// game is below this (default 1e-12).
    pub tail_tolerance: f64,
    /// ... or after this many turns (default: no limit but the work) ...
    pub max_turns: u64,
    /// ... or after this much work, turns × transitions (default 2·10⁹: a few seconds).
    pub max_work: u64,
    /// How `I − Q` is solved (default: chosen by the board's structure).
    pub method: SolveMethod,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        Self {
            turns: vec![20, 40, 60, 80],
            quantiles: vec![0.1, 0.5, 0.9],
            players: 1,
            fundamental: false,
            distribution_at: Vec::new(),
            tail_tolerance: 1e-12,
            max_turns: u64::MAX,
            max_work: 2_000_000_000,
            method: SolveMethod::Auto,
        }
    }
}

/// Expected use of one snake or ladder per game.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PortalUsage {
    /// The snake or ladder.
    pub portal: Portal,
    /// Expected number of times it is taken in one game.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub expected_uses: f64,
}

/// Everything [`Board::analyze`] finds about a one-player game (and a race, with several players).
/// Times are in rolls (= turns of one player).
#[derive(Clone, Debug, serde::Serialize)]
pub struct BoardAnalysis {
    /// Expected number of rolls from the start.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub expected_rolls: f64,
    /// Variance of the number of rolls from the start, in rolls².
    #[serde(serialize_with = "crate::account::ser::number")]
    pub variance: f64,
    /// Standard deviation of the number of rolls from the start.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub std_dev: f64,
    /// Expected rolls for a token standing on each cell (no portal triggered), length `size + 1`;
    /// 0 for the last cell; `+∞` for cells that cannot finish almost surely.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub expected_rolls_by_cell: Vec<f64>,
    /// Variance of the number of rolls from each cell, length `size + 1`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub variance_by_cell: Vec<f64>,
    /// The expected-steps solve: residuals, error bound, method.
    pub solve: AbsorptionTime,
    /// The distribution of the number of rolls from the start.
    pub time: TimeDistribution,
    /// `(k, P(finished within k rolls))` for each requested `k`; `None` when `k` lies beyond a
    /// horizon at which the computation was stopped before converging.
    #[serde(serialize_with = "crate::account::ser::keyed")]
    pub finished_by: Vec<(u64, Option<f64>)>,
    /// `(level, quantile)` for each requested level, as far as the computation decides it
    /// ([`TimeDistribution::quantile_decided`]); level 1, the longest game, by graph search
    /// (`graph::longest_distance`: unbounded where a snake or an overshoot rule lets the token
    /// come back).
    pub quantiles: Vec<(f64, Quantile)>,
    /// Median number of rolls (`None` beyond the computed horizon).
    pub median: Option<u64>,
    /// Most likely number of rolls (`None` if the distribution was stopped before the most likely
    /// roll so far held more probability than the unfinished mass).
    pub mode: Option<u64>,
    /// Fewest rolls that can finish (by breadth-first search: exact even when its probability
    /// underflows).
    pub min_rolls: u64,
    /// Expected number of times the token stands on each cell before a roll (counting the
    /// start), length `size + 1`: row `initial_cell` of the fundamental matrix.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub visits: Vec<f64>,
    /// Residual of the expected-visits solve.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub visits_residual: f64,
    /// Expected uses of each snake and ladder per game, in the order of [`Board::portals`].
    pub portal_usage: Vec<PortalUsage>,
    /// `(k, distribution of the token's cell after k rolls)` for each requested `k`.
    #[serde(serialize_with = "crate::account::ser::keyed")]
    pub distributions: Vec<(u64, Vec<f64>)>,
    /// The race of `players` players, when `players > 1`.
    pub race: Option<Race>,
    /// The fundamental matrix, when requested.
    pub fundamental: Option<FundamentalMatrix>,
}

/// What can be said of a board on which the token can be trapped (Kemeny & Snell §3.3 with the
/// graph analysis of Baier & Katoen §10.1.1): the expected rolls are `+∞` from every cell that
/// does not finish almost surely, the game ends with some probability below 1, and its shortest
/// length is found by graph search. [`Board::trapped_analysis`] computes it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TrappedBoard {
    /// The cells reachable from the start from which the last cell is not reached with
    /// probability 1 (their expected rolls are `+∞`), ascending.
    pub trapped: Vec<u32>,
    /// Those of them from which the last cell cannot be reached at all, ascending.
    pub never_finish: Vec<u32>,
    /// `P(the game ever ends)` from the start.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub finish_probability: f64,
    /// `P(the game ever ends)` for a token standing on each cell (no portal triggered), length
    /// `size + 1`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub finish_probability_by_cell: Vec<f64>,
    /// Guaranteed bound on the absolute error of every finish probability
    /// ([`ReachProbability::error_bound`](crate::analysis::ReachProbability::error_bound)).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub finish_error_bound: f64,
    /// Expected rolls for a token standing on each cell, length `size + 1`: `+∞` where the last
    /// cell is not reached almost surely, 0 on the last cell.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub expected_rolls_by_cell: Vec<f64>,
    /// Guaranteed relative error of the finite entries of `expected_rolls_by_cell`.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub expected_rolls_error_bound: f64,
    /// `(k, P(finished within k rolls))` for each requested `k` (forward from the start).
    #[serde(serialize_with = "crate::account::ser::keyed")]
    pub finished_by: Vec<(u64, f64)>,
    /// Fewest rolls that can finish from the start, by breadth-first search; `None` if the last
    /// cell cannot be reached.
    pub min_rolls: Option<u64>,
}

/// [`TrappedBoard`]'s probabilities as exact fractions.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExactTrappedBoard {
    /// `P(the game ever ends)` from the start.
    #[serde(serialize_with = "crate::account::ser::scalar")]
    pub finish_probability: Rational,
    /// `P(the game ever ends)` from each cell, length `size + 1`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub finish_probability_by_cell: Vec<Rational>,
    /// `(k, P(finished within k rolls))` for each requested `k`.
    #[serde(serialize_with = "crate::account::ser::keyed")]
    pub finished_by: Vec<(u64, Rational)>,
}

impl Board {
    /// The analysis of a board on which the token may be trapped ([`analyze`](Self::analyze)
    /// refuses those): the cells it can be trapped from, `P(the game ever ends)` from every cell
    /// (graph analysis, then `(I − Q)x = b` over the undecided cells), the expected rolls (`+∞`
    /// where a game may never end), `P(finished within k rolls)` for each `k` of `turns` (the
    /// distribution after `k` rolls, within `max_work` turns × transitions), and the fewest rolls
    /// that can finish. On a sound board `trapped` is empty and the probabilities are 1.
    ///
    /// # Errors
    /// [`Error::Singular`] only on numerical breakdown; [`Error::InvalidArgument`] if a turn of
    /// `turns` needs more than `max_work`.
    pub fn trapped_analysis(&self, turns: &[u64], max_work: u64) -> Result<TrappedBoard> {
        let dtmc = self.dtmc()?;
        let n = dtmc.n();
        let goal = StateSet::from_states(n, [self.size]);
        let reach = crate::analysis::reach_probability(&dtmc, &goal)?;
        let init = self.initial_cell();
        let reachable = forward_reachable(dtmc.matrix(), &[init]);
        let trapped = reachable
            .iter()
            .filter(|&c| !reach.qualitative.yes.contains(c))
            .collect();
        let never_finish = reachable
            .iter()
            .filter(|&c| reach.qualitative.no.contains(c))
            .collect();
        let time = AbsorbingChain::new(&dtmc, &goal)?;
        let (expected_rolls_by_cell, residual) = time.expected_steps();
        // A Krylov solve stopped by a stop request left NaN: report the stop.
        crate::interrupt::check()?;
        let expected_rolls_error_bound = if residual < 1.0 {
            residual / (1.0 - residual) + f64::EPSILON
        } else {
            f64::INFINITY
        };
        let mut initial = vec![0.0; n];
        initial[init as usize] = 1.0;
        let mut finished_by = Vec::with_capacity(turns.len());
        for &k in turns {
            let after = distribution_after_limited(&dtmc, &initial, k, max_work)?;
            finished_by.push((k, after[self.size as usize]));
        }
        Ok(TrappedBoard {
            trapped,
            never_finish,
            finish_probability: reach.values[init as usize],
            finish_error_bound: reach.error_bound,
            finish_probability_by_cell: reach.values,
            expected_rolls_by_cell,
            expected_rolls_error_bound,
            finished_by,
            min_rolls: shortest_distance(dtmc.matrix(), &[init], &goal),
        })
    }

    /// The exact counterpart of [`trapped_analysis`](Self::trapped_analysis)'s finish
    /// probabilities and `P(finished within k)` for each `k` of `turns`, in rational arithmetic on
    /// the die's probabilities as fractions.
    ///
    /// # Errors
    /// As [`reach_probability_exact`](crate::analysis::exact::reach_probability_exact) and
    /// [`distributions_exact`] (too much work for the turns asked).
    pub fn trapped_analysis_exact(&self, turns: &[u64]) -> Result<ExactTrappedBoard> {
        let dtmc = self.exact_dtmc()?;
        let goal = StateSet::from_states(dtmc.n(), [self.size]);
        let values = crate::analysis::exact::reach_probability_exact(&dtmc, &goal)?;
        let after = distributions_exact(&dtmc, self.initial_cell(), turns)?;
        Ok(ExactTrappedBoard {
            finish_probability: values[self.initial_cell() as usize].clone(),
            finish_probability_by_cell: values,
            finished_by: turns
                .iter()
                .zip(after)
                .map(|(&k, d)| (k, d[self.size as usize].clone()))
                .collect(),
        })
    }
}

impl Board {
    /// Expected rolls (and their variance) for a token standing on each cell, `+∞` for cells from
    /// which the last cell is not reached with probability 1. Solves `(I − Q)E = 1` by the
    /// method [`AbsorbingChain`] chooses, or matrix-free (see
    /// [`absorption_time_matrix_free`](Self::absorption_time_matrix_free)) from
    /// [`MATRIX_FREE_FROM`] cells on.
    ///
    /// # Errors
    /// [`Error::Singular`] only on numerical breakdown.
    pub fn expected_rolls(&self) -> Result<AbsorptionTime> {
        if let Some(t) = self.matrix_free_if_it_pays(SolveMethod::Auto) {
            return Ok(t);
        }
        let dtmc = self.dtmc()?;
        let goal = StateSet::from_states(dtmc.n(), [self.size]);
        let mut t = AbsorbingChain::new(&dtmc, &goal)?.absorption_time();
        crate::interrupt::check()?;
        t.error_bound = self.with_rounded_input(t.error_bound);
        Ok(t)
    }

    /// The expected rolls and their variance from every cell, solved without a matrix: BiCGSTAB
    /// ([`MatrixFree`]) on the board's [`BoardOperator`](super::BoardOperator), refined with
    /// residuals in twice the working precision until `‖(I − Q)t̂ − 1‖∞` certifies about 1e-11
    /// relative (as the CSR path does), then the second moment `(I − Q)m₂ = 2t − 1` the same way.
    /// `None` when the operator does not apply (a die of more than
    /// [`MAX_OPERATOR_FACES`](super::MAX_OPERATOR_FACES) faces, or a cell that does not finish
    /// almost surely: use [`expected_rolls`](Self::expected_rolls), which reports those as `+∞`).
    ///
    /// The fields are those of [`AbsorbingChain::absorption_time`]; `infinite` is empty.
    ///
    /// # Complexity
    /// O(size · F) per product, about 25 products per solve on the harness's random boards; memory
    /// O(size) (a dozen vectors of `f64`), no matrix.
    #[must_use]
    pub fn absorption_time_matrix_free(&self) -> Option<AbsorptionTime> {
        let op = super::BoardOperator::new(self)?;
        let n = op.n();
        let solver = MatrixFree::new(op, KrylovOptions::default());
        let refined = |b: &[f64]| {
            refine_pair(
                b,
                |r, tolerance| {
                    solver.solve_to(r, tolerance);
                },
                |hi, lo, b, r| solver.operator().residual_pair(hi, Some(lo), b, r),
            )
        };
        let (mut mean, residual) = refined(&vec![1.0; n]);
        let rhs: Vec<f64> = mean.iter().map(|t| 2.0 * t - 1.0).collect();
        let (mut variance, second_moment_residual) = refined(&rhs);
        for (v, t) in variance.iter_mut().zip(&mean) {
            *v = crate::analysis::absorbing::variance_of(*v, *t);
        }
        mean.push(0.0);
        variance.push(0.0);
        let error_bound = self.with_rounded_input(if residual < 1.0 {
            residual / (1.0 - residual) + f64::EPSILON
        } else {
            f64::INFINITY
        });
        Some(AbsorptionTime {
            mean,
            variance: Some(variance),
            residual,
            second_moment_residual: Some(second_moment_residual),
            error_bound,
            infinite: Vec::new(),
            method: Method::MatrixFree {
                name: solver.describe(),
                n,
                explicit_rows: solver.operator().explicit_rows(),
                work: solver.work(),
            },
        })
    }

    /// The relative error bound `solve` of expected rolls (certified for the stored
    /// probabilities) combined with what the rounding of the die can do: its probabilities are
    /// `w_f / Σw` in `f64`, from weights themselves rounded from the file, and the one-step masses
    /// sums of them — relative errors within `γ_{2F+1}` (Higham, Lemma 3.1) — which
    /// [`perturbation_growth`](crate::numeric::perturbation_growth) carries through the `size`
    /// unknowns (O'Cinneide's entrywise argument).
    fn with_rounded_input(&self, solve: f64) -> f64 {
        let eta = crate::numeric::entry_rounding(2 * self.probabilities.len());
        let input = crate::numeric::perturbation_growth(self.size as usize, eta);
        solve + input + solve * input
    }

    /// [`absorption_time_matrix_free`](Self::absorption_time_matrix_free) when `method` is
    /// automatic and the board has at least [`MATRIX_FREE_FROM`] cells (and the operator applies).
    fn matrix_free_if_it_pays(&self, method: SolveMethod) -> Option<AbsorptionTime> {
        (method == SolveMethod::Auto && self.size >= MATRIX_FREE_FROM)
            .then(|| self.absorption_time_matrix_free())
            .flatten()
    }

    /// Expected rolls from the start (the value a judge asks for), building the chain once.
    ///
    /// # Errors
    /// [`Error::FrontEnd`] with [`BoardError::Trapped`] if the token can be trapped.
    pub fn expected_rolls_from_start(&self) -> Result<f64> {
        let (x, residual) = if let Some(t) = self.matrix_free_if_it_pays(SolveMethod::Auto) {
            (t.mean[self.initial_cell() as usize], t.residual)
        } else {
            let dtmc = self.dtmc()?;
            let goal = StateSet::from_states(dtmc.n(), [self.size]);
            let chain = self.absorbing_chain(&dtmc, &goal, SolveMethod::Auto, false)?;
            self.check_chain(&dtmc, &chain)?;
            let (mean, residual) = chain.expected_steps();
            (mean[self.initial_cell() as usize], residual)
        };
        // A Krylov solve stopped by a stop request left NaN: report the stop.
        crate::interrupt::check()?;
        let bound = self.with_rounded_input(if residual < 1.0 {
            residual / (1.0 - residual)
        } else {
            f64::INFINITY
        });
        if !(bound <= MAX_ERROR_BOUND && x.is_finite()) {
            return Err(Error::Uncertified {
                what: "expected rolls",
                bound,
                residual,
                hint: self.conditioning_hint(),
            });
        }
        Ok(x)
    }

    /// `Ok` if the expected rolls are finite and certified to [`MAX_ERROR_BOUND`] relative.
    ///
    /// # Errors
    /// [`Error::Uncertified`] if they are not; [`Error::Overflow`] if they are but their
    /// variance exceeds the range of `f64`.
    fn certify(&self, solve: &AbsorptionTime) -> Result<()> {
        let init = self.initial_cell() as usize;
        let ok = solve.error_bound <= MAX_ERROR_BOUND && solve.mean[init].is_finite();
        if ok && solve.variance.as_ref().is_some_and(|v| v[init].is_finite()) {
            return Ok(());
        }
        if ok {
            return Err(Error::Overflow {
                what: "the variance of the number of rolls",
            });
        }
        Err(Error::Uncertified {
            what: "expected rolls",
            bound: solve.error_bound,
            residual: solve.residual,
            hint: self.conditioning_hint(),
        })
    }

    /// Advice for an ill-conditioned board.
    fn conditioning_hint(&self) -> String {
        if self.probabilities.iter().any(|&p| p > 0.0 && p < 1e-12) {
            "; a die face has probability below 1e-12: drop that face, or try the exact analysis".into()
        } else {
            "; try the exact analysis".into()
        }
    }

    /// The chain factored for the goal; a numerical breakdown is reported as uncertified, with
    /// advice. `all_finish`: every cell is known to finish almost surely (the board's operator
    /// checked it), so the graph analysis is skipped.
    fn absorbing_chain<'a>(
        &self,
        dtmc: &'a crate::model::Dtmc,
        goal: &StateSet,
        method: SolveMethod,
        all_finish: bool,
    ) -> Result<AbsorbingChain<'a>> {
        let chain = if all_finish {
            AbsorbingChain::almost_surely_absorbed(dtmc, goal, method)
        } else {
            AbsorbingChain::with_method(dtmc, goal, method)
        };
        chain.map_err(|e| match e {
            Error::Singular { .. } => Error::Uncertified {
                what: "expected rolls",
                bound: f64::NAN,
                residual: f64::NAN,
                hint: self.conditioning_hint(),
            },
            e => e,
        })
    }

    /// `Ok` unless a cell reachable from the start does not finish almost surely in `chain`.
    fn check_chain(&self, dtmc: &crate::model::Dtmc, chain: &AbsorbingChain<'_>) -> Result<()> {
        let reach = forward_reachable(dtmc.matrix(), &[self.initial_cell()]);
        self.refuse_trapped(reach.iter().filter(|&c| !chain.almost_sure(c)).collect())
    }

    /// `Ok` if `cells` is empty, else the error naming them.
    fn refuse_trapped(&self, cells: Vec<u32>) -> Result<()> {
        if cells.is_empty() {
            return Ok(());
        }
        let error = BoardError::Trapped {
            cells,
            size: self.size,
        };
        Err(error.into())
    }

    /// Cells reachable from the start from which the last cell is not reached with probability 1
    /// (where the token can be trapped), ascending. Empty on a sound board.
    ///
    /// # Errors
    /// None in practice (model construction errors only).
    pub fn trapped_cells(&self) -> Result<Vec<u32>> {
        let dtmc = self.dtmc()?;
        let goal = StateSet::from_states(dtmc.n(), [self.size]);
        let q = crate::graph::Qualitative::new(&dtmc, &goal);
        let reach = forward_reachable(dtmc.matrix(), &[self.initial_cell()]);
        Ok(reach.iter().filter(|&c| !q.yes.contains(c)).collect())
    }

    /// `Ok` unless the token can be trapped.
    ///
    /// # Errors
    /// [`Error::FrontEnd`] with [`BoardError::Trapped`] naming the trapping cells.
    pub fn check_not_trapped(&self) -> Result<()> {
        self.refuse_trapped(self.trapped_cells()?)
    }

    /// The full analysis of a one-player game from the start cell, and of a race when
    /// `options.players > 1`.
    ///
    /// Method: graph analysis, then dense LU of `I − Q` for expected rolls, their second moment and
    /// (transposed) the expected visits; the distribution of the number of rolls forward until the
    /// unfinished probability is below `options.tail_tolerance`; the race from that distribution.
    ///
    /// # Errors
    /// [`Error::Uncertified`] if the expected rolls' error bound exceeds [`MAX_ERROR_BOUND`];
    /// [`Error::LimitReached`] if several players race and the game-length distribution could not
    /// be computed to the tolerance within `options.max_work`;
    /// [`Error::Uncertified`] if the expected rolls' error bound exceeds [`MAX_ERROR_BOUND`];
    /// [`Error::LimitReached`] if several players race and the game-length distribution could not
    /// be computed to the tolerance within `options.max_work`;
    /// [`Error::FrontEnd`] with [`BoardError::Trapped`] if the token can be trapped (use
    /// [`expected_rolls`](Self::expected_rolls) for the per-cell values, `+∞` where trapped);
    /// [`Error::InvalidArgument`] for a quantile level outside `(0, 1]`, `players == 0`, a
    /// fundamental matrix too large to build, or a distribution after more turns than
    /// `options.max_work` allows; [`Error::TooLarge`] if no solver applies to a chain this size.
    pub fn analyze(&self, options: &AnalysisOptions) -> Result<BoardAnalysis> {
        if let Some(q) = options.quantiles.iter().find(|q| !(**q > 0.0 && **q <= 1.0)) {
            return Err(Error::arg("quantile", format!("{q} is not in (0, 1]")));
        }
        if options.players == 0 {
            return Err(Error::arg("players", "at least one player is needed"));
        }
        // The matrix-free solve first, before the chain is built: its work vectors are gone by
        // then (a lower peak of memory), and it applies only when every cell finishes almost
        // surely, which makes the chain's trap check unnecessary.
        let matrix_free = self.matrix_free_if_it_pays(options.method);
        let dtmc = self.dtmc()?;
        let n = dtmc.n();
        let goal = StateSet::from_states(n, [self.size]);
        let chain = self.absorbing_chain(&dtmc, &goal, options.method, matrix_free.is_some())?;
        let init = self.initial_cell();
        let solve = match matrix_free {
            Some(solve) => solve,
            None => {
                self.check_chain(&dtmc, &chain)?;
                let mut t = chain.absorption_time();
                t.error_bound = self.with_rounded_input(t.error_bound);
                t
            }
        };
        // A Krylov solve stopped by a stop request left NaN: report the stop.
        crate::interrupt::check()?;
        self.certify(&solve)?;
        let visits = chain.expected_visits(init)?;
        let fundamental = if options.fundamental {
            Some(chain.fundamental()?)
        } else {
            None
        };
        // The factored chain is done with: free it before the distributions need their memory.
        drop(chain);
        let mut initial = vec![0.0; n];
        initial[init as usize] = 1.0;
        let time = absorption_time_distribution(
            &dtmc,
            &initial,
            &goal,
            &TimeDistributionOptions {
                tail_tolerance: options.tail_tolerance,
                // The requested turns are computed exactly (within the work limit); beyond a
                // converged horizon P(finished by k) is 1 − tail, within the tolerance.
                min_steps: options.turns.iter().copied().max().unwrap_or(0),
                max_steps: options.max_turns,
                max_work: options.max_work,
            },
        )?;
        let race = if options.players > 1 {
            if !time.converged {
                return Err(Error::LimitReached {
                    what: "the game-length distribution needed for the players' race",
                    limit: time.horizon(),
                    message: format!(
                        "a game may still run after {} turns (probability {:.1e}); raise the work limit",
                        time.horizon(),
                        time.tail
                    ),
                });
            }
            Some(race(&time, options.players)?)
        } else {
            None
        };
        let mut distributions = Vec::new();
        for &k in &options.distribution_at {
            distributions.push((
                k,
                distribution_after_limited(&dtmc, &initial, k, options.max_work)?,
            ));
        }
        let portal_usage = self.portal_usage(&visits.visits);
        let variance = solve
            .variance
            .as_ref()
            .expect("the board's solves include the variance (certify checked it)");
        Ok(BoardAnalysis {
            expected_rolls: solve.mean[init as usize],
            variance: variance[init as usize],
            std_dev: variance[init as usize].sqrt(),
            expected_rolls_by_cell: solve.mean.clone(),
            variance_by_cell: variance.clone(),
            finished_by: options.turns.iter().map(|&k| (k, time.cdf_checked(k))).collect(),
            quantiles: options
                .quantiles
                .iter()
                .map(|&q| {
                    let quantile = if q == 1.0 {
                        longest_distance(dtmc.matrix(), &[init], &goal)
                            .map_or(Quantile::Unbounded, Quantile::At)
                    } else {
                        time.quantile_decided(q)
                    };
                    (q, quantile)
                })
                .collect(),
            median: time.median(),
            // Decided once no later roll can hold more probability than the most likely one so
            // far: a later P(T = t) is at most the unfinished mass.
            mode: (time.converged || time.pmf.iter().fold(0.0f64, |m, &p| m.max(p)) > time.tail)
                .then(|| time.mode()),
            min_rolls: shortest_distance(dtmc.matrix(), &[init], &goal)
                .expect("the goal is reached almost surely, so it is reachable"),
            visits: visits.visits,
            visits_residual: visits.residual,
            portal_usage,
            distributions,
            race,
            fundamental,
            solve,
            time,
        })
    }

    /// Expected uses of each portal per game, from the expected visits `visits` (length
    /// `size + 1`): a roll from cell `s` lands on entrance `u` with the probability of the faces
    /// that lead there, and `s` is rolled from `visits[s]` times on average; a portal on the start
    /// cell is taken once more, before the first roll.
    fn portal_usage(&self, visits: &[f64]) -> Vec<PortalUsage> {
        let mut landings = vec![0.0; self.size as usize + 1];
        for (s, &v) in visits.iter().enumerate() {
            if v == 0.0 {
                continue;
            }
            for (d, &p) in self.probabilities.iter().enumerate() {
                if let Some(u) = self.landing(s as u32, d as u32 + 1) {
                    landings[u as usize] += v * p;
                }
            }
        }
        if self.jump[self.start as usize] != self.start {
            landings[self.start as usize] += 1.0;
        }
        self.portals
            .iter()
            .map(|&portal| PortalUsage {
                portal,
                expected_uses: landings[portal.from as usize],
            })
            .collect()
    }
}

/// The figures of [`Board::analyze_exact`], as exact fractions.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExactBoardAnalysis {
    /// Expected rolls from the start.
    #[serde(serialize_with = "crate::account::ser::scalar")]
    pub expected_rolls: Rational,
    /// Variance of the number of rolls from the start (rolls²).
    #[serde(serialize_with = "crate::account::ser::scalar")]
    pub variance: Rational,
    /// Expected rolls for a token standing on each cell, length `size + 1`; `None` = +∞.
    #[serde(serialize_with = "crate::account::ser::fractions_or_inf")]
    pub expected_rolls_by_cell: Vec<Option<Rational>>,
    /// Variance from each cell, length `size + 1`; `None` = +∞.
    #[serde(serialize_with = "crate::account::ser::fractions_or_inf")]
    pub variance_by_cell: Vec<Option<Rational>>,
    /// `(k, P(finished within k rolls))` for each requested `k`.
    #[serde(serialize_with = "crate::account::ser::keyed")]
    pub finished_by: Vec<(u64, Rational)>,
    /// `(k, distribution of the token's cell after k rolls)` for each requested `k`.
    #[serde(serialize_with = "crate::account::ser::keyed")]
    pub distributions: Vec<(u64, Vec<Rational>)>,
    /// How the numbers were obtained.
    pub method: Method,
}

impl Board {
    /// The exact counterparts of [`analyze`](Self::analyze)'s expected rolls, variance,
    /// `P(finished by k)` for `options.turns` and distributions for `options.distribution_at`: the
    /// same graph analysis and solvers in rational arithmetic, on the die's probabilities as
    /// fractions.
    ///
    /// # Errors
    /// [`Error::FrontEnd`] with [`BoardError::Trapped`] if the token can be trapped;
    /// [`Error::TooLarge`] for boards beyond the exact limits
    /// ([`MAX_EXACT_STATES`](crate::analysis::exact::MAX_EXACT_STATES) cells,
    /// [`MAX_EXACT_WORK`](crate::analysis::exact::MAX_EXACT_WORK) for distributions);
    /// [`Error::InvalidDistribution`] if the die's weights are not whole numbers and its
    /// probabilities not simple fractions (denominators up to 2²⁰).
    pub fn analyze_exact(&self, options: &AnalysisOptions) -> Result<ExactBoardAnalysis> {
        self.check_not_trapped()?;
        let dtmc = self.exact_dtmc()?;
        let goal = StateSet::from_states(dtmc.n(), [self.size]);
        let t = absorption_time_exact(&dtmc, &goal)?;
        let init = self.initial_cell();
        let mut steps: Vec<u64> = options.turns.clone();
        steps.extend(&options.distribution_at);
        let pis = distributions_exact(&dtmc, init, &steps)?;
        let (turn_pis, dist_pis) = pis.split_at(options.turns.len());
        let known = |v: &Option<Rational>| v.clone().expect("no reachable cell is trapped");
        Ok(ExactBoardAnalysis {
            expected_rolls: known(&t.mean[init as usize]),
            variance: known(&t.variance[init as usize]),
            finished_by: options
                .turns
                .iter()
                .zip(turn_pis)
                .map(|(&k, pi)| (k, pi[self.size as usize].clone()))
                .collect(),
            distributions: options
                .distribution_at
                .iter()
                .copied()
                .zip(dist_pis.iter().cloned())
                .collect(),
            expected_rolls_by_cell: t.mean,
            variance_by_cell: t.variance,
            method: t.method,
        })
    }
}
