//! Absorbing-chain analysis for a target set (Kemeny & Snell, *Finite Markov Chains*, 1960,
//! ch. III; Grinstead & Snell, *Introduction to Probability*, §11.2).
//!
//! The target states are made absorbing. Graph analysis first splits off the states that do not
//! reach the target with probability 1 ([`Qualitative`]): their expected steps are `+∞` and they
//! are named, never fed to a solver. On the remaining transient states `Q` is the transition
//! matrix restricted to them, `I − Q` is non-singular and
//! - expected steps `t` solve `(I − Q) t = 1`,
//! - the second moment `m₂` solves `(I − Q) m₂ = 2t − 1`, so `Var = m₂ − t²`,
//! - expected visits from a start `s` are row `s` of `N = (I − Q)⁻¹`: `(I − Q)ᵀ v = e_s`.
//!
//! Every solve reports its max-norm residual. For `t`, since `N ≥ 0` and `N·1 = t`, a computed
//! `t̂` with residual `r < 1` satisfies `|t̂ − t| ≤ r/(1 − r) · t̂` componentwise: that relative
//! bound is reported as [`AbsorptionTime::error_bound`].

use super::subsystem::Subsystem;
use crate::account::{Account, Guarantee, Method};
use crate::graph::Qualitative;
use crate::linsolve::{Factored, SolveMethod};
use crate::model::{Dtmc, StateSet};
use crate::{Error, Result, StateId};

/// The variance `m₂ − t²` of a time with mean `t` and second moment `m₂`, clamped at 0 against
/// round-off (a deterministic time has variance 0), and `+∞` where `m₂` or `t²` exceeds the range
/// of `f64` (the variance is then at least of that order: nearly closed chains).
#[must_use]
pub(crate) fn variance_of(m2: f64, t: f64) -> f64 {
    let square = t * t;
    if m2.is_finite() && square.is_finite() {
        (m2 - square).max(0.0)
    } else {
        f64::INFINITY
    }
}

/// A chain with a target set, factored once for all the absorbing-chain quantities.
#[derive(Debug)]
pub struct AbsorbingChain<'a> {
    dtmc: &'a Dtmc,
    target: StateSet,
    qualitative: Qualitative,
    transient: Subsystem,
    lu: Factored,
}

/// The absorption time `T` (steps until the target is first entered) from every state.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AbsorptionTime {
    /// `E[T]` from each state, in steps; length `n`; 0 on the target; `+∞` where the target is not
    /// reached with probability 1.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub mean: Vec<f64>,
    /// `Var[T]` from each state, in steps²; length `n`; 0 on the target; `+∞` as for `mean`, and
    /// where it exceeds the range of `f64`. `None` when not asked for (it costs a second solve).
    #[serde(serialize_with = "crate::account::ser::optional_scalars")]
    pub variance: Option<Vec<f64>>,
    /// Max-norm residual `‖(I − Q)t̂ − 1‖∞` of the expected-steps solve.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Max-norm residual `‖(I − Q)m̂₂ − (2t̂ − 1)‖∞` of the second-moment solve (with `variance`).
    #[serde(serialize_with = "crate::account::ser::optional_number")]
    pub second_moment_residual: Option<f64>,
    /// Guaranteed relative error of `mean` against the model as written: `r/(1 − r) + ε` for the
    /// residual `r` of the stored system (`+∞` if `r ≥ 1`; `ε` for the final rounding to `f64`),
    /// up to the rounding in evaluating the residual itself, combined with what the rounding of
    /// the input probabilities to `f64` can do
    /// ([`perturbation_growth`](crate::numeric::perturbation_growth) over the transient states:
    /// about `2k(m + 1)u` for `k` transient states and rows of up to `m` entries).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
    /// The states with `+∞` (not reaching the target almost surely), ascending.
    pub infinite: Vec<StateId>,
    /// How the numbers were obtained.
    pub method: Method,
}

impl AbsorptionTime {
    /// How `mean` was obtained: a direct (refined) solve whose residual certifies a relative
    /// error of `error_bound` in every component.
    #[must_use]
    pub fn account(&self) -> Account {
        Account {
            method: self.method.clone(),
            iterations: None,
            residual: self.residual,
            bound: self.error_bound,
            guarantee: Guarantee::RelativeError,
        }
    }
}

/// Expected number of visits to each state before absorption, from one start.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExpectedVisits {
    /// The start state.
    pub from: StateId,
    /// Expected visits (counting time 0) to each state; length `n`; 0 for target states and for
    /// states outside the transient set.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub visits: Vec<f64>,
    /// Max-norm residual `‖v̂ᵀ(I − Q) − e_fromᵀ‖∞` of the transposed solve.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
}

/// The fundamental matrix `N = (I − Q)⁻¹` of the transient states.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FundamentalMatrix {
    /// The transient states, in the order of `N`'s rows and columns (ascending ids), length `k`.
    pub states: Vec<StateId>,
    /// `N`, row-major, `k × k`: `N[i][j]` is the expected number of visits to `states[j]` from
    /// `states[i]`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub matrix: Vec<f64>,
    /// Max-norm residual `‖(I − Q)N̂ − I‖∞` (largest entry).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Guaranteed bound on every entry's absolute error `|N − N̂|` against the chain as written:
    /// with `E = (I − Q)N̂ − I`, `N̂ − N = N E`, so `|N̂ − N|_{ij} ≤ max|E| · (N 1)_i`, `N 1` being
    /// the expected steps (bounded by their own certified solve); `max|E|` is the computed
    /// residual plus its rounding (`(m + 2)u · 2 max N̂`, rows of at most `m` entries), and the
    /// written probabilities' rounding adds [`perturbation_growth`](crate::numeric::perturbation_growth)
    /// relative to each entry.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
}

impl FundamentalMatrix {
    /// Entry `(i, j)` of `N` by position.
    ///
    /// # Panics
    /// - panics if `i` or `j` is `>= states.len()`.
    #[must_use]
    #[track_caller]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let k = self.states.len();
        assert!(i < k && j < k);
        self.matrix[i * k + j]
    }
}

/// Largest number of transient states for which [`AbsorbingChain::fundamental`] builds the full
/// matrix.
pub const MAX_FUNDAMENTAL: usize = 5_000;

impl<'a> AbsorbingChain<'a> {
    /// Runs the graph analysis for `target` and sets up solves with `I − Q` over the states that
    /// reach it with probability 1, by the method [`Factored::new`] chooses: dense LU, a sparse
    /// triangular solve with a Woodbury correction when few columns hold entries below the
    /// diagonal, sparse LU for narrow bands, and otherwise (beyond 20,000 states with long-range
    /// transitions) BiCGSTAB with a Gauss–Seidel preconditioner, refined to a certified residual.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `target` does not range over the chain's states;
    /// [`Error::Singular`] if the factorisation breaks down numerically (it cannot in exact
    /// arithmetic after the graph analysis).
    ///
    /// # Complexity
    /// O(n + nnz) for the graph analysis; the factorisation is O(k³) dense (`k` transient states)
    /// or O(r·nnz + r³) for the triangular-plus-rank-`r` method, whichever is cheaper; O(nnz) to
    /// set up the iterative method, each of whose products costs O(nnz).
    pub fn new(dtmc: &'a Dtmc, target: &StateSet) -> Result<Self> {
        Self::with_method(dtmc, target, SolveMethod::Auto)
    }

    /// As [`new`](Self::new), solving `I − Q` by `method` unless it is [`SolveMethod::Auto`]
    /// (the command line's `--method`). Iterative methods (BiCGSTAB, GMRES) are refined until the
    /// residual certifies about 1e-11 relative for expected steps; their work is in
    /// [`method`](Self::method).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_method(dtmc: &'a Dtmc, target: &StateSet, method: SolveMethod) -> Result<Self> {
        dtmc.check_set("target", target)?;
        let qualitative = Qualitative::new(dtmc, target);
        Self::with_qualitative(dtmc, target, method, qualitative)
    }

    /// As [`with_method`](Self::with_method) when every state is known to reach `target` with
    /// probability 1 (a model whose own structure proves it, such as a board whose every cell
    /// can finish): the graph analysis is skipped.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    ///
    /// # Panics
    /// - in debug builds, panics if a state does not reach the target almost surely.
    pub(crate) fn almost_surely_absorbed(
        dtmc: &'a Dtmc,
        target: &StateSet,
        method: SolveMethod,
    ) -> Result<Self> {
        dtmc.check_set("target", target)?;
        let n = dtmc.n();
        let qualitative = Qualitative {
            no: StateSet::empty(n),
            yes: StateSet::full(n),
            maybe: StateSet::empty(n),
        };
        debug_assert!({
            let q = Qualitative::new(dtmc, target);
            (&q.no, &q.yes, &q.maybe) == (&qualitative.no, &qualitative.yes, &qualitative.maybe)
        });
        Self::with_qualitative(dtmc, target, method, qualitative)
    }

    /// The chain for `target` given its graph analysis `qualitative`.
    fn with_qualitative(
        dtmc: &'a Dtmc,
        target: &StateSet,
        method: SolveMethod,
        qualitative: Qualitative,
    ) -> Result<Self> {
        let transient_set =
            StateSet::from_states(dtmc.n(), qualitative.yes.iter().filter(|&s| !target.contains(s)));
        let transient = Subsystem::new(dtmc, &transient_set);
        let lu = transient.factor_i_minus_q_with("expected steps (I - Q)", method)?;
        Ok(Self {
            dtmc,
            target: target.clone(),
            qualitative,
            transient,
            lu,
        })
    }

    /// How `I − Q` is solved (method, size, work so far), for reports.
    #[must_use]
    pub fn solve_method(&self) -> Method {
        Method::AbsorbingSolve {
            solver: self.lu.solver(),
        }
    }

    /// [`solve_method`](Self::solve_method) as its one-line description.
    #[must_use]
    pub fn method(&self) -> String {
        self.solve_method().to_string()
    }

    /// The graph analysis: states reaching the target with probability 0, 1, or in between.
    #[must_use]
    pub fn qualitative(&self) -> &Qualitative {
        &self.qualitative
    }

    /// The transient states (reaching the target almost surely, not in it), ascending.
    #[must_use]
    pub fn transient_states(&self) -> &[StateId] {
        &self.transient.states
    }

    /// The states that do not reach the target with probability 1, ascending.
    #[must_use]
    pub fn not_almost_sure(&self) -> Vec<StateId> {
        self.qualitative.yes.complement().to_vec()
    }

    /// Whether `s` reaches the target with probability 1.
    ///
    /// # Panics
    /// - panics if `s >= n`.
    #[must_use]
    #[track_caller]
    pub fn almost_sure(&self, s: StateId) -> bool {
        self.qualitative.yes.contains(s)
    }

    /// Expected number of steps to reach the target from every state: solves `(I − Q)t = 1`
    /// (length `n`; 0 on the target; `+∞` where the target is not reached almost surely).
    /// Returns the values and the max-norm residual.
    #[must_use]
    pub fn expected_steps(&self) -> (Vec<f64>, f64) {
        let ones = vec![1.0; self.transient.len()];
        let (t, residual) = self.transient.solve_refined(&self.lu, &ones);
        (self.scatter(&t), residual)
    }

    /// Values on the transient states (in subsystem order) spread to all `n` states: 0 on the
    /// target, `+∞` elsewhere.
    fn scatter(&self, x: &[f64]) -> Vec<f64> {
        let mut full = vec![f64::INFINITY; self.dtmc.n()];
        for s in self.target.iter() {
            full[s as usize] = 0.0;
        }
        for (i, &s) in self.transient.states.iter().enumerate() {
            full[s as usize] = x[i];
        }
        full
    }

    /// The probability, from every state, that the target is entered first at a state of `into`
    /// (a subset of the target): column sums of `B = N R` over `into` (Kemeny & Snell, Theorem
    /// 3.3.7; Grinstead & Snell, Theorem 11.6). Length `n`; 1 on `into`, 0 on the rest of the
    /// target; `NaN` where the target is not reached almost surely (use
    /// [`reach_probability`](super::reach_probability) there). Returns the values and the max-norm
    /// residual `r`; since `N ≥ 0`, every value is within `r · t̂ / (1 − r_t)` of the truth (`t̂`
    /// the expected steps, `r_t` their residual).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `into` does not range over the chain's states.
    pub fn absorption_probabilities(&self, into: &StateSet) -> Result<(Vec<f64>, f64)> {
        self.dtmc.check_set("absorbing set", into)?;
        let b = self.transient.probabilities_into(self.dtmc.matrix(), into);
        let (x, residual) = self.transient.solve_refined(&self.lu, &b);
        crate::interrupt::check()?;
        let mut full = vec![f64::NAN; self.dtmc.n()];
        for s in self.target.iter() {
            full[s as usize] = if into.contains(s) { 1.0 } else { 0.0 };
        }
        for (i, &s) in self.transient.states.iter().enumerate() {
            full[s as usize] = x[i];
        }
        Ok((full, residual))
    }

    /// The expected total reward earned before the target is entered, `rewards[s]` being earned
    /// at each visit to a transient state `s` (length `n`; the target's rewards are not earned):
    /// solves `(I − Q) x = r` (Kemeny & Snell §3.3; Storm's `R=? [F target]`). Length `n`; 0 on the
    /// target; `+∞` where the target is not reached almost surely. Returns the values, the
    /// max-norm residual `r`, and a guaranteed bound on each value's absolute error, `r · max t̂ /
    /// (1 − r_t)` (`t̂` the expected steps, `r_t` their residual; `(I − Q)⁻¹ ≥ 0` and
    /// `(I − Q)⁻¹ 1 = t`), plus what the rounding of the input probabilities and rewards to `f64`
    /// can do ([`perturbation_growth`](crate::numeric::perturbation_growth), relative on
    /// `(I − Q)⁻¹|r|`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `rewards` has the wrong length or a value that is not finite.
    pub fn expected_reward(&self, rewards: &[f64]) -> Result<(Vec<f64>, f64, f64)> {
        self.expected_reward_with(rewards, None)
    }

    /// [`expected_reward`](Self::expected_reward) given the expected steps `steps` of this chain
    /// (from [`absorption_time`](Self::absorption_time)): their solve is not repeated for the
    /// bound, and a reward that is the same `c > 0` on every transient state is `c · t` without a
    /// solve (its bound `c` times the steps' absolute one, plus the product's rounding).
    ///
    /// # Errors
    /// As [`expected_reward`](Self::expected_reward).
    pub fn expected_reward_with(
        &self,
        rewards: &[f64],
        steps: Option<&AbsorptionTime>,
    ) -> Result<(Vec<f64>, f64, f64)> {
        if rewards.len() != self.dtmc.n() || rewards.iter().any(|r| !r.is_finite()) {
            return Err(Error::arg("rewards", "one finite reward per state"));
        }
        let b: Vec<f64> = self
            .transient
            .states
            .iter()
            .map(|&s| rewards[s as usize])
            .collect();
        let known = steps.map(|t| {
            let t_max = self
                .transient
                .states
                .iter()
                .fold(0.0f64, |m, &s| m.max(t.mean[s as usize]));
            (t, t_max)
        });
        if let (Some((t, t_max)), Some(&c)) = (known, b.first())
            && c > 0.0
            && b.iter().all(|&r| r == c)
        {
            let values = t.mean.iter().map(|x| c * x).collect();
            let bound = c * t_max * t.error_bound * (1.0 + 2.0 * f64::EPSILON) + f64::EPSILON * c * t_max;
            return Ok((values, c * t.residual, bound));
        }
        let (x, residual) = self.transient.solve_refined(&self.lu, &b);
        crate::interrupt::check()?;
        let x_max = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let one_sign = b.iter().all(|&r| r >= 0.0) || b.iter().all(|&r| r <= 0.0);
        // The expected steps, when the bound needs them: N|r| ≤ max|r| · t.
        let steps = || {
            let (t, r_t) = self
                .transient
                .solve_refined(&self.lu, &vec![1.0; self.transient.len()]);
            (t.iter().fold(0.0f64, |m, v| m.max(*v)), r_t)
        };
        let r_max = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let (t_max, r_t) = match known {
            _ if residual == 0.0 && one_sign => (0.0, 0.0),
            Some((t, t_max)) => (t_max, t.residual),
            None => steps(),
        };
        // What the rounding of the input probabilities and rewards can do: relative on N|r|.
        let growth = self.transient.input_growth(true);
        let input = growth
            * if one_sign {
                x_max
            } else {
                r_max * t_max / (1.0 - r_t).max(0.0)
            };
        // + one rounding of each value to f64.
        let bound = x_max * f64::EPSILON
            + input
            + if residual == 0.0 {
                0.0
            } else if r_t < 1.0 {
                residual * t_max / (1.0 - r_t)
            } else {
                f64::INFINITY
            };
        Ok((self.scatter(&x), residual, bound))
    }

    /// The guaranteed relative error of expected steps whose solve left the max-norm residual
    /// `residual`, against the model as written: `r/(1 − r) + ε` (`ε` for the final rounding to
    /// `f64`) combined with what the rounding of the input probabilities can do
    /// ([`Subsystem::input_growth`]).
    pub(crate) fn steps_error_bound(&self, residual: f64) -> f64 {
        let solve = if residual < 1.0 {
            residual / (1.0 - residual) + f64::EPSILON
        } else {
            f64::INFINITY
        };
        let input = self.transient.input_growth(false);
        solve + input + solve * input
    }

    /// Mean and variance of the number of steps to reach the target from every state: solves
    /// `(I − Q)t = 1` and `(I − Q)m₂ = 2t − 1` on the factored matrix.
    #[must_use]
    pub fn absorption_time(&self) -> AbsorptionTime {
        self.absorption_time_with(true)
    }

    /// [`absorption_time`](Self::absorption_time), with the variances (a second solve) only when
    /// `variance` is set.
    #[must_use]
    pub fn absorption_time_with(&self, variance: bool) -> AbsorptionTime {
        let (mean, residual) = self.expected_steps();
        let (variance, second_moment_residual) = if variance {
            let rhs: Vec<f64> = self
                .transient
                .states
                .iter()
                .map(|&s| 2.0 * mean[s as usize] - 1.0)
                .collect();
            let (m2, second_moment_residual) = self.transient.solve_refined(&self.lu, &rhs);
            let mut variance = self.scatter(&m2);
            for &s in &self.transient.states {
                let v = &mut variance[s as usize];
                *v = variance_of(*v, mean[s as usize]);
            }
            (Some(variance), Some(second_moment_residual))
        } else {
            (None, None)
        };
        // A time beyond the range of f64 from a state that reaches the target surely is an
        // overflow, not the +∞ of a target missed: no bound holds for it.
        let overflow = self
            .transient
            .states
            .iter()
            .any(|&s| !mean[s as usize].is_finite());
        let error_bound = if overflow {
            f64::INFINITY
        } else {
            self.steps_error_bound(residual)
        };
        AbsorptionTime {
            mean,
            variance,
            residual,
            second_moment_residual,
            error_bound,
            infinite: self.not_almost_sure(),
            method: self.solve_method(),
        }
    }

    /// Expected visits to every state before absorption, starting from `from`: row `from` of the
    /// fundamental matrix, by one transposed solve `(I − Q)ᵀ v = e_from`.
    ///
    /// # Errors
    /// [`Error::NotAlmostSure`] if `from` does not reach the target with probability 1 (some
    /// expected visits are then infinite); [`Error::InvalidArgument`] if `from >= n`.
    pub fn expected_visits(&self, from: StateId) -> Result<ExpectedVisits> {
        let n = self.dtmc.n();
        if from as usize >= n {
            return Err(Error::arg(
                "start state",
                format!("{from} is not a state (0 to {})", n - 1),
            ));
        }
        if !self.almost_sure(from) {
            return Err(Error::NotAlmostSure {
                state: from,
                states: self.not_almost_sure(),
            });
        }
        let mut visits = vec![0.0; n];
        let Some(p) = self.transient.position(from) else {
            // `from` is a target state: absorbed at time 0, no visits.
            return Ok(ExpectedVisits {
                from,
                visits,
                residual: 0.0,
            });
        };
        let mut e = vec![0.0; self.transient.len()];
        e[p] = 1.0;
        let (v, residual) = self.transient.solve_transposed_refined(&self.lu, &e);
        crate::interrupt::check()?;
        for (i, &s) in self.transient.states.iter().enumerate() {
            visits[s as usize] = v[i];
        }
        Ok(ExpectedVisits {
            from,
            visits,
            residual,
        })
    }

    /// Expected visits to every state before absorption from the initial distribution `initial`
    /// (length `n`): `z = initial_T N` by one refined transposed solve. Length `n`; 0 off the
    /// transient states. Returns `z` and the max-norm residual `r` of `z (I − Q) = initial_T`; for
    /// any `b ≥ 0` with `N b ≤ 1` (such as one-step probabilities of entering part of the target),
    /// `|ẑ·b − z·b| ≤ r · k`, `k` the number of transient states.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `initial` has the wrong length; [`Error::NotAlmostSure`] if it
    /// puts mass on a state that does not reach the target with probability 1.
    pub fn expected_visits_from(&self, initial: &[f64]) -> Result<(Vec<f64>, f64)> {
        let n = self.dtmc.n();
        if initial.len() != n {
            return Err(Error::arg(
                "initial distribution",
                format!("length {} for {n} states", initial.len()),
            ));
        }
        if let Some(s) = (0..n as StateId).find(|&s| initial[s as usize] != 0.0 && !self.almost_sure(s)) {
            return Err(Error::NotAlmostSure {
                state: s,
                states: self.not_almost_sure(),
            });
        }
        let b: Vec<f64> = self
            .transient
            .states
            .iter()
            .map(|&s| initial[s as usize])
            .collect();
        let (z, residual) = self.transient.solve_transposed_refined(&self.lu, &b);
        crate::interrupt::check()?;
        let mut visits = vec![0.0; n];
        for (i, &s) in self.transient.states.iter().enumerate() {
            visits[s as usize] = z[i];
        }
        Ok((visits, residual))
    }

    /// The full fundamental matrix `N = (I − Q)⁻¹` over the transient states.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if there are more than [`MAX_FUNDAMENTAL`] transient states
    /// (use [`expected_visits`](Self::expected_visits) for one row).
    pub fn fundamental(&self) -> Result<FundamentalMatrix> {
        let k = self.transient.len();
        if k > MAX_FUNDAMENTAL {
            return Err(Error::arg(
                "fundamental matrix",
                format!("{k} transient states; the full matrix is built for at most {MAX_FUNDAMENTAL}"),
            ));
        }
        // Column j of N solves (I − Q) x = e_j.
        let mut matrix = vec![0.0; k * k];
        let mut col = vec![0.0; k];
        for j in 0..k {
            col.fill(0.0);
            col[j] = 1.0;
            self.lu.solve_in_place(&mut col);
            for (i, &x) in col.iter().enumerate() {
                matrix[i * k + j] = x;
            }
        }
        let mut residual = 0.0f64;
        let a = self.transient.i_minus_q();
        // (I − Q)N − I, row by row.
        let mut row = vec![0.0; k];
        for i in 0..k {
            row.fill(0.0);
            row[i] = -1.0;
            let (cols, vals) = a.row(i);
            for (&l, &a) in cols.iter().zip(vals) {
                let l = l as usize;
                for (r, x) in row.iter_mut().zip(&matrix[l * k..(l + 1) * k]) {
                    *r += a * x;
                }
            }
            residual = row.iter().fold(residual, |a, v| a.max(v.abs()));
        }
        let longest = (0..k).map(|i| a.row(i).0.len()).max().unwrap_or(0);
        let n_max = matrix.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        // The residual as computed, plus what computing it may have rounded away.
        let e_max = residual + (longest as f64 + 2.0) * f64::EPSILON * 2.0 * n_max;
        let time = self.absorption_time_with(false);
        let t_max = self
            .transient
            .states
            .iter()
            .fold(0.0f64, |m, &s| m.max(time.mean[s as usize]))
            * (1.0 + time.error_bound);
        let solve = e_max * t_max;
        let growth = crate::numeric::perturbation_growth(k, crate::numeric::entry_rounding(longest));
        let error_bound = (solve + growth * (n_max + solve)) * (1.0 + 4.0 * f64::EPSILON);
        Ok(FundamentalMatrix {
            states: self.transient.states.clone(),
            matrix,
            residual,
            error_bound: if error_bound.is_nan() {
                f64::INFINITY
            } else {
                error_bound
            },
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) use crate::model::walk;

    // Grinstead & Snell, Introduction to Probability, Examples 11.13-11.15 (published):
    // N = [[3/2, 1, 1/2], [1, 2, 1], [1/2, 1, 3/2]], t = (3, 4, 3), Var = (2N − I)t − t² = (8, 8, 8).
    /// Expected rewards given the expected steps: a varying reward by its solve, bounded without
    /// a second one (N r = (5, 8, 7) for r = (1, 2, 3) on the walk's inner states, from the
    /// fundamental matrix by hand); a constant reward is c·t, without a solve.
    #[test]
    fn expected_reward_given_the_steps() {
        let d = walk(0.5);
        let a = AbsorbingChain::new(&d, &StateSet::from_states(5, [0, 4])).unwrap();
        let t = a.absorption_time_with(false);
        assert!(t.variance.is_none() && t.second_moment_residual.is_none());
        for (r, want) in [
            ([0.0, 1.0, 2.0, 3.0, 0.0], [0.0, 5.0, 8.0, 7.0, 0.0]),
            ([9.0, 2.0, 2.0, 2.0, 9.0], [0.0, 6.0, 8.0, 6.0, 0.0]),
        ] {
            let (alone, _, b1) = a.expected_reward(&r).unwrap();
            let (given, _, b2) = a.expected_reward_with(&r, Some(&t)).unwrap();
            for ((x, y), w) in alone.iter().zip(&given).zip(want) {
                assert!((x - w).abs() <= b1 && (y - w).abs() <= b2, "{x} {y} vs {w}");
            }
            assert!(b2 < 1e-12, "{b2}");
        }
    }

    /// Leaving with probability 5e-324 per step takes 2^1074 steps on average, beyond `f64`:
    /// an overflow, certified by nothing, where +∞ would claim the target is missed.
    #[test]
    fn an_overflowing_time_has_no_bound() {
        let p = crate::sparse::from_rows(&[&[(0, 1.0), (1, 5e-324)], &[(1, 1.0)]]);
        let d = Dtmc::new(p, vec![0]).unwrap();
        let t = AbsorbingChain::new(&d, &StateSet::from_states(2, [1]))
            .unwrap()
            .absorption_time();
        assert!(t.mean[0].is_infinite() && t.infinite.is_empty(), "{t:?}");
        assert_eq!(t.error_bound, f64::INFINITY);
    }

    #[test]
    fn drunkards_walk() {
        let d = walk(0.5);
        let a = AbsorbingChain::new(&d, &StateSet::from_states(5, [0, 4])).unwrap();
        let t = a.absorption_time();
        let expect = [0.0, 3.0, 4.0, 3.0, 0.0];
        for (x, y) in t.mean.iter().zip(expect) {
            assert!((x - y).abs() < 1e-14, "{x} vs {y}");
        }
        for s in 1..4 {
            assert!((t.variance.as_ref().unwrap()[s] - 8.0).abs() < 1e-13);
        }
        assert!(t.residual < 1e-14 && t.error_bound < 1e-14);
        let n = a.fundamental().unwrap();
        assert_eq!(n.states, vec![1, 2, 3]);
        let expect = [1.5, 1.0, 0.5, 1.0, 2.0, 1.0, 0.5, 1.0, 1.5];
        for (x, y) in n.matrix.iter().zip(expect) {
            assert!(
                (x - y).abs() <= n.error_bound,
                "{x} vs {y}, bound {}",
                n.error_bound
            );
        }
        // Residual ~1e-16, expected steps 4, rows of 3: a bound of a few 1e-15, not a guess.
        assert!(n.error_bound > 0.0 && n.error_bound < 1e-13, "{}", n.error_bound);
        let v = a.expected_visits(1).unwrap();
        assert!((v.visits[1] - 1.5).abs() < 1e-14 && (v.visits[3] - 0.5).abs() < 1e-14);
        assert_eq!(v.visits[0], 0.0);
    }

    // Biased walk (right 2/3): t = (17/5, 18/5, 11/5) (Grinstead & Snell, Example 11.13, published
    // as decimals).
    #[test]
    fn biased_walk() {
        let d = walk(2.0 / 3.0);
        let a = AbsorbingChain::new(&d, &StateSet::from_states(5, [0, 4])).unwrap();
        let t = a.absorption_time();
        for (s, y) in [(1, 17.0 / 5.0), (2, 18.0 / 5.0), (3, 11.0 / 5.0)] {
            assert!((t.mean[s] - y).abs() < 1e-14);
        }
    }

    #[test]
    fn unreachable_target_is_infinite_not_a_crash() {
        let d = walk(0.5);
        // Target {4} only: from every inner state the walk may be absorbed at 0 instead.
        let a = AbsorbingChain::new(&d, &StateSet::from_states(5, [4])).unwrap();
        let t = a.absorption_time();
        assert_eq!(t.infinite, vec![0, 1, 2, 3]);
        assert!(t.mean[..4].iter().all(|x| x.is_infinite()));
        assert_eq!(t.mean[4], 0.0);
        let e = a.expected_visits(2).unwrap_err();
        assert!(matches!(e, Error::NotAlmostSure { state: 2, .. }), "{e}");
    }
}
