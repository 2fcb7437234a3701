//! Discounted total reward: `v*(s) = opt_a ( r(a) + γ Σ_t P(a, t) v*(t) )`, `0 ≤ γ < 1`
//! (Puterman, *Markov Decision Processes*, ch. 6).
//!
//! # Error bound
//! The Bellman operator `T` is monotone and `T(v + c·1) = Tv + γc·1`, so for any `v`, with
//! `d = Tv − v`, `Tv + γ/(1 − γ)·min d ≤ v* ≤ Tv + γ/(1 − γ)·max d` (MacQueen's bounds: J. MacQueen,
//! *J. Math. Anal. Appl.* 14, 1966; Puterman, *Markov Decision Processes*, 1994, §6.6.3). Every
//! result is certified by evaluating `Tv` once more at the end, whatever method produced `v`, with
//! an allowance for the rounding of that evaluation; the values reported are the middle of that
//! interval. Its width is the span of `d`, not its norm: value iteration's error along the
//! constant vector, which shrinks only by `γ` per sweep, costs nothing, so on a well-mixing model
//! the bound closes at the rate of the chain's second eigenvalue, not of `γ` (at `γ = 0.99`, tens
//! of sweeps instead of thousands). It is never wider than the contraction bound
//! `‖Tv − v‖∞ / (1 − γ)` (Puterman, Proposition 6.6.5).

use super::{MdpOptions, MdpSolution, Method, Optimum};
use crate::account;
use crate::exact::Rational;
use crate::interrupt;
use crate::linsolve::{Factored, SPARSE_FROM, SolveMethod};
use crate::model::Mdp;
use crate::sparse::{Affine, Direction};
use crate::{Error, Result};
use rayon::prelude::*;

/// The optimal expected discounted total reward `Σ_k γ^k r_k` from every state and an optimal
/// stationary policy. `rewards` has one entry per choice (length `m`), `0 ≤ gamma < 1`.
///
/// # Errors
/// [`Error::InvalidArgument`] for `gamma` outside `[0, 1)` or rewards of the wrong length or not
/// finite; [`Error::LimitReached`] if `options.max_iterations` is exhausted; [`Error::Singular`]
/// from a policy evaluation (it cannot for `γ < 1` in exact arithmetic); [`Error::Interrupted`] if
/// a stop is requested ([`crate::interrupt`], checked every sweep and round).
pub fn discounted(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    check(mdp, rewards, gamma)?;
    let (values, policy, iterations, method) = match options.method {
        Method::PolicyIteration => policy_iteration(mdp, rewards, gamma, optimum, options, None)?,
        Method::ValueIteration => match value_iteration(mdp, rewards, gamma, optimum, options, false)? {
            Swept::Certified(solved) => solved,
            Swept::Settled(_) => unreachable!("value iteration asked not to settle"),
        },
        // Small models: policy iteration (dense evaluations, answers to rounding). Larger ones:
        // value iteration, until its greedy policy settles while the bound still has far to go
        // and that policy's evaluation is cheap (the chain splits into small strongly connected
        // components, or is triangular plus low rank); then policy iteration from there.
        Method::Auto if mdp.n() <= AUTO_SPARSE_LIMIT => {
            policy_iteration(mdp, rewards, gamma, optimum, options, None)?
        }
        Method::Auto => match value_iteration(mdp, rewards, gamma, optimum, options, true)? {
            Swept::Certified(solved) => solved,
            Swept::Settled(settled) => {
                let sweeps = settled.sweeps;
                let (v, policy, rounds, pi) =
                    policy_iteration(mdp, rewards, gamma, optimum, options, Some(settled))?;
                let account::Method::PolicyIteration { evaluation } = pi else {
                    unreachable!("policy iteration reports itself")
                };
                let method = account::Method::ValueThenPolicyIteration {
                    sweeps,
                    rounds,
                    evaluation,
                };
                (v, policy, sweeps + rounds, method)
            }
        },
    };
    certify(
        mdp,
        rewards,
        gamma,
        |_| optimum.direction(),
        (values, policy, iterations, method),
    )
}

/// The discounted values of the two-player turn-based game on `mdp` (state `s` reduced in
/// `direction(s)`, its owner's: Shapley, "Stochastic games", PNAS 39, 1953), by Jacobi value
/// iteration from 0 certified by MacQueen's bounds, which hold for games as they do for MDPs: the
/// game's Bellman operator is monotone and `T(v + c·1) = Tv + γc·1` (module docs). Policy
/// iteration is not used (a game's strategies do not improve one side at a time the same way).
///
/// # Errors
/// As [`discounted`].
pub(crate) fn discounted_by(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    check(mdp, rewards, gamma)?;
    let limit = sweep_limit(mdp, options);
    let start = (vec![0.0; mdp.n()], vec![0u32; mdp.n()]);
    let solved = jacobi_sweeps(mdp, rewards, gamma, direction, options, start, 1..=limit)?;
    certify(mdp, rewards, gamma, direction, solved)
}

/// MacQueen's interval around `T v` for a solver's `v` (its middle the values reported), with the
/// rounding of the input added to the bound.
fn certify(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    (values, policy, iterations, method): Solved,
) -> Result<MdpSolution> {
    super::check_finite("discounted reward", &values)?;
    let (values, solve) = macqueen(mdp, rewards, gamma, direction, &values);
    super::check_finite("discounted reward", &values)?;
    Ok(MdpSolution {
        error_bound: solve + input_rounding(mdp, rewards, gamma, &values, solve),
        values,
        policy,
        iterations,
        method: account::Method::DiscountCertified { by: Box::new(method) },
    })
}

/// What rounding the written probabilities and rewards to `f64` can change in the optimal
/// discounted values `values` (within `solve` of the stored model's): every policy's values obey
/// `v = r + γPv`, so entrywise relative errors `η` in `γP` ([`entry_rounding`] of the longest
/// row, one more rounding for `γ`) and `u` in `r` move them by at most `(γη‖v‖∞ + u‖r‖∞)/(1 − γ)` (the perturbation bound of
/// Puterman, *Markov Decision Processes*, 1994, §6.2, on `‖P̃ − P‖∞ ≤ η`), and the optimum, a
/// maximum or minimum over policies, by no more.
///
/// [`entry_rounding`]: crate::numeric::entry_rounding
fn input_rounding(mdp: &Mdp, rewards: &[f64], gamma: f64, values: &[f64], solve: f64) -> f64 {
    let m = mdp.matrix();
    let longest = (0..mdp.choices()).map(|r| m.row(r).0.len()).max().unwrap_or(0);
    // One more rounding for the discount: γ rounded to f64 is γP with entries moved by `u`.
    let eta = crate::numeric::entry_rounding(longest + 1);
    let v_max = values.iter().fold(0.0f64, |a, v| a.max(v.abs())) + solve;
    let r_max = rewards.iter().fold(0.0f64, |a, r| a.max(r.abs()));
    (gamma * eta * v_max + f64::EPSILON / 2.0 * r_max) / (1.0 - gamma) * (1.0 + 4.0 * f64::EPSILON)
}

fn check(mdp: &Mdp, rewards: &[f64], gamma: f64) -> Result<()> {
    if !(0.0..1.0).contains(&gamma) {
        return Err(Error::arg("discount", format!("γ = {gamma}: from 0 to below 1")));
    }
    if rewards.len() != mdp.choices() || rewards.iter().any(|r| !r.is_finite()) {
        return Err(Error::arg(
            "rewards",
            format!(
                "{} finite rewards, one per choice ({} given)",
                mdp.choices(),
                rewards.len()
            ),
        ));
    }
    Ok(())
}

/// `r(a) + γ Σ_t P(a, t) v(t)` for row `a`, compensated (the kernel's row value).
fn q_value(mdp: &Mdp, rewards: &[f64], gamma: f64, v: &[f64], row: usize) -> f64 {
    mdp.matrix()
        .row_value(row, v, Affine::discounted(rewards, &gamma))
}

/// `T v` (the Bellman step, parallel, compensated) and its greedy policy.
fn bellman_step(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    v: &[f64],
) -> (Vec<f64>, Vec<u32>) {
    let (mut tv, mut policy) = (vec![0.0; mdp.n()], vec![0u32; mdp.n()]);
    mdp.matrix().multiply_and_reduce(
        direction,
        v,
        Affine::discounted(rewards, &gamma),
        &mut tv,
        &mut policy,
    );
    (tv, policy)
}

/// What a sweep changed: the smallest and the largest entry of `tv − v` (MacQueen's `min d` and
/// `max d`) and the largest `|tv|` and `|v|`, in one parallel pass.
#[derive(Clone, Copy)]
struct Changes {
    lo: f64,
    hi: f64,
    new_size: f64,
    old_size: f64,
}

/// [`Changes`] from `v` to `tv`.
fn change_range(tv: &[f64], v: &[f64]) -> Changes {
    use rayon::prelude::*;
    let none = Changes {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
        new_size: 0.0,
        old_size: 0.0,
    };
    let join = |a: Changes, b: Changes| Changes {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
        new_size: a.new_size.max(b.new_size),
        old_size: a.old_size.max(b.old_size),
    };
    tv.par_iter()
        .zip(v)
        .with_min_len(1 << 14)
        .fold(
            || none,
            |c, (t, x)| Changes {
                lo: c.lo.min(t - x),
                hi: c.hi.max(t - x),
                new_size: c.new_size.max(t.abs()),
                old_size: c.old_size.max(x.abs()),
            },
        )
        .reduce(|| none, join)
}

/// MacQueen's interval around `T v` (module docs): its middle, one value per state, and its
/// half-width, with the rounding of `T v`, of `d = Tv − v` and of the middle allowed for.
fn macqueen(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    v: &[f64],
) -> (Vec<f64>, f64) {
    let (mut tv, _) = bellman_step(mdp, rewards, gamma, direction, v);
    let Changes { lo, hi, old_size, .. } = change_range(&tv, v);
    if tv.is_empty() {
        return (tv, 0.0);
    }
    let scale = gamma / (1.0 - gamma);
    let shift = scale * (lo / 2.0 + hi / 2.0);
    tv.iter_mut().for_each(|t| *t += shift);
    let size = tv.iter().fold(0.0f64, |a, t| a.max(t.abs()));
    // Each computed q-value is within the allowance of the exact one, and so is each d's entry
    // (its subtraction is exact or within an ulp of values the allowance already scales with).
    let allowance = Allowance::new(mdp, rewards).of_size(old_size);
    let half = scale * (hi - lo) / 2.0 + allowance / (1.0 - gamma);
    (
        tv,
        // The shift's own rounding (γ/(1 − γ) and the product, a few ulps of the shift) and the
        // additions' (an ulp of each value), generously.
        (half + 4.0 * f64::EPSILON * (size + half + shift.abs())) * (1.0 + 4.0 * f64::EPSILON),
    )
}

/// `‖T v − v‖∞` plus an allowance for its rounding, and the greedy policy of `v` (the
/// contraction bound's ingredient, for the tests' comparison with MacQueen's).
#[cfg(test)]
fn bellman_gap(mdp: &Mdp, rewards: &[f64], gamma: f64, optimum: Optimum, v: &[f64]) -> (f64, Vec<u32>) {
    let (tv, policy) = bellman_step(mdp, rewards, gamma, |_| optimum.direction(), v);
    let gap = tv.iter().zip(v).fold(0.0f64, |g, (t, x)| g.max((t - x).abs()));
    let size = v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    (gap + Allowance::new(mdp, rewards).of_size(size), policy)
}

/// The policy of the best immediate rewards (the greedy policy of `v = 0`; the first choice on
/// ties), one pass over the rewards in parallel.
fn immediate_policy(mdp: &Mdp, rewards: &[f64], optimum: Optimum) -> Vec<u32> {
    let m = mdp.matrix();
    (0..mdp.n())
        .into_par_iter()
        .with_min_len(1 << 12)
        .map(|s| {
            let rows = m.group_rows(s);
            let first = rows.start;
            rows.fold((rewards[first], 0u32), |best, r| {
                if optimum.better(rewards[r], best.0) {
                    (rewards[r], (r - first) as u32)
                } else {
                    best
                }
            })
            .1
        })
        .collect()
}

/// What rounding may add to a computed Bellman gap: each q-value is a compensated (or plain) sum
/// of at most (row length + 1) products, each rounded once, of values up to `max |v| + max |r|`;
/// the model's part (widest row, largest reward) computed once.
struct Allowance {
    width: f64,
    r_max: f64,
}

impl Allowance {
    fn new(mdp: &Mdp, rewards: &[f64]) -> Self {
        let m = mdp.matrix();
        let width = (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0) as f64 + 2.0;
        let r_max = rewards.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        Self { width, r_max }
    }

    /// The allowance for values of largest magnitude `size`.
    fn of_size(&self, size: f64) -> f64 {
        2.0 * self.width * f64::EPSILON * (size + self.r_max)
    }
}

type Solved = (Vec<f64>, Vec<u32>, u64, account::Method);

/// Largest `sweeps × transitions` of value iteration (about a minute).
const MAX_SWEEP_WORK: u64 = 20_000_000_000;

/// Beyond this many states, [`Method::Auto`] prefers value iteration to policy evaluations that
/// need a general sparse LU.
const AUTO_SPARSE_LIMIT: usize = 2_000;

/// The policy evaluation's matrix `I − γ P_π` for the choice rows `rows` (one per state), by rows,
/// columns increasing. The diagonal is (1 − γ) + γ·(the row's exit mass), never 1 − γ·p_ii, which
/// cancels when γ·p_ii is close to 1 (issue 15 §1; the idea of GTH).
fn evaluation_rows<'a>(
    mdp: &'a Mdp,
    gamma: f64,
    rows: &'a [usize],
) -> impl Fn(usize) -> EvaluationRow<'a> + Sync + 'a {
    let m = mdp.matrix();
    move |i: usize| {
        let (cols, vals) = m.row(rows[i]);
        let exit: f64 = cols
            .iter()
            .zip(vals)
            .filter(|(t, _)| **t as usize != i)
            .map(|(_, p)| p)
            .sum();
        EvaluationRow {
            diagonal: Some((1.0 - gamma) + gamma * exit),
            state: i as u32,
            entries: cols.iter().zip(vals.iter()).peekable(),
            gamma,
        }
    }
}

/// [`evaluation_rows`] as one CSR matrix (row pointers, columns, values), assembled in parallel.
fn evaluation_csr(mdp: &Mdp, gamma: f64, rows: &[usize]) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
    let row = evaluation_rows(mdp, gamma, rows);
    let [a] = crate::sparse::par_rows(
        rows.len(),
        0.0,
        || (),
        |_, i, sink: &mut crate::sparse::RowSink<'_, f64, 1>| row(i).for_each(|(j, x)| sink.push(0, j, x)),
    );
    a.into_arrays()
}

/// One row of [`evaluation_rows`]: the entries off the diagonal, `−γ p`, with the diagonal in its
/// place.
struct EvaluationRow<'a> {
    diagonal: Option<f64>,
    state: u32,
    entries: std::iter::Peekable<std::iter::Zip<std::slice::Iter<'a, u32>, std::slice::Iter<'a, f64>>>,
    gamma: f64,
}

impl Iterator for EvaluationRow<'_> {
    type Item = (u32, f64);

    fn next(&mut self) -> Option<(u32, f64)> {
        // The row's own entry (if any) is replaced by the diagonal.
        if self.entries.peek().is_some_and(|(t, _)| **t == self.state) {
            self.entries.next();
        }
        match self.entries.peek() {
            Some((t, _)) if **t < self.state || self.diagonal.is_none() => {
                self.entries.next().map(|(&t, &p)| (t, -self.gamma * p))
            }
            _ => self.diagonal.take().map(|d| (self.state, d)),
        }
    }
}

/// The choice row of each state under `policy`.
fn policy_rows(mdp: &Mdp, policy: &[u32]) -> Vec<usize> {
    let m = mdp.matrix();
    policy
        .iter()
        .enumerate()
        .map(|(s, &k)| m.group_rows(s).start + k as usize)
        .collect()
}

/// The policy evaluations `(I − γP_π) v = r_π` of a sequence of policies that differ in few
/// states: one factorisation for the policy `base`, and for the `k` states whose choice has
/// changed since, the Sherman–Morrison–Woodbury identity. With `A` the factored matrix,
/// `A' = A + E Dᵀ` the current one (`E` the unit columns of the changed states, `D` the
/// differences of their rows), `A'⁻¹ b = y − Z (I + DᵀZ)⁻¹ Dᵀ y`, `y = A⁻¹ b`, `Z = A⁻¹ E`
/// (W. W. Hager, "Updating the inverse of a matrix", SIAM Review 31(2), 1989): one solve per
/// changed state, kept while the policy changes again, and a dense `k × k` system — until `k`
/// passes [`Evaluation::limit`], when the current policy is factored afresh. Policy iteration's
/// later rounds change a handful of states, so they cost a few solves instead of a
/// factorisation each.
struct Evaluation {
    lu: Factored<f64>,
    /// The choice row of every state in the factored matrix.
    base: Vec<usize>,
    /// The states whose choice may differ from `base`, and `A⁻¹ e_s` for each.
    changed: Vec<usize>,
    z: Vec<Vec<f64>>,
    /// The factor of `I + DᵀZ` for the current rows (none while nothing has changed).
    correction: Option<Factored<f64>>,
    /// The current choice rows (`base` with the changes).
    rows: Vec<usize>,
}

/// Most values (`k · n`) the columns `Z` of an [`Evaluation`] may hold (64 MiB), and most columns.
const UPDATE_VALUES: usize = 1 << 23;
const UPDATE_COLUMNS: usize = 64;

impl Evaluation {
    /// The evaluation of the policy with choice rows `rows`, factored (`lu`, when the caller has
    /// it already).
    fn new(mdp: &Mdp, gamma: f64, rows: Vec<usize>, lu: Option<Factored<f64>>) -> Result<Self> {
        let lu = match lu {
            Some(lu) => lu,
            None => {
                let (row_ptr, cols, vals) = evaluation_csr(mdp, gamma, &rows);
                Factored::for_csr(mdp.n(), WHAT, SolveMethod::Auto, (&row_ptr, &cols, &vals))?
            }
        };
        Ok(Self {
            lu,
            base: rows.clone(),
            changed: Vec::new(),
            z: Vec::new(),
            correction: None,
            rows,
        })
    }

    /// Most changed states kept as a low-rank correction (none when the factorisation's solves
    /// are approximate: the identity needs exact ones).
    fn limit(&self) -> usize {
        if self.lu.is_iterative() {
            0
        } else {
            Self::columns(self.base.len())
        }
    }

    /// Most columns `Z` kept for `n` states.
    fn columns(n: usize) -> usize {
        (UPDATE_VALUES / n.max(1)).clamp(1, UPDATE_COLUMNS)
    }

    /// Moves to the policy with choice rows `rows`: a correction of the factored policy when few
    /// states differ from it, a new factorisation otherwise.
    fn update(&mut self, mdp: &Mdp, gamma: f64, rows: Vec<usize>) -> Result<()> {
        let fresh: Vec<usize> = (0..rows.len())
            .filter(|&s| rows[s] != self.base[s] && !self.changed.contains(&s))
            .collect();
        if self.changed.len() + fresh.len() > self.limit() {
            *self = Self::new(mdp, gamma, rows, None)?;
            return Ok(());
        }
        for s in fresh {
            let mut z = vec![0.0; rows.len()];
            z[s] = 1.0;
            self.lu.solve_in_place(&mut z);
            self.changed.push(s);
            self.z.push(z);
        }
        self.rows = rows;
        let k = self.changed.len();
        if k == 0 {
            self.correction = None;
            return Ok(());
        }
        // (I + DᵀZ)[i][j] = δ_ij + (row s_i of A' − row s_i of A) · z_j.
        let m: Vec<Vec<f64>> = (0..k)
            .map(|i| {
                (0..k)
                    .map(|j| {
                        f64::from(u8::from(i == j)) + self.difference(mdp, gamma, self.changed[i], &self.z[j])
                    })
                    .collect()
            })
            .collect();
        self.correction = Some(Factored::new(k, WHAT, |i| {
            m[i].iter().enumerate().map(|(j, &x)| (j as u32, x))
        })?);
        Ok(())
    }

    /// `(row s of A' − row s of A) · x`: the current policy's evaluation row of state `s` less
    /// the factored one's, applied to `x` (a column of `D` in the identity).
    fn difference(&self, mdp: &Mdp, gamma: f64, s: usize, x: &[f64]) -> f64 {
        let dot = |rows: &[usize]| {
            evaluation_rows(mdp, gamma, rows)(s)
                .map(|(j, a)| a * x[j as usize])
                .sum::<f64>()
        };
        dot(&self.rows) - dot(&self.base)
    }

    /// Solves `A' x = b` in place for the current policy.
    fn solve_in_place(&self, mdp: &Mdp, gamma: f64, b: &mut [f64]) {
        self.lu.solve_in_place(b);
        let Some(correction) = &self.correction else {
            return;
        };
        let mut w: Vec<f64> = self
            .changed
            .iter()
            .map(|&s| self.difference(mdp, gamma, s, b))
            .collect();
        correction.solve_in_place(&mut w);
        for (z, w) in self.z.iter().zip(&w) {
            b.iter_mut().zip(z).for_each(|(x, z)| *x -= w * z);
        }
    }
}

/// What a policy evaluation's errors call the system.
const WHAT: &str = "policy evaluation (I - γP)";

/// Policy iteration from `initial` (else the best immediate reward; with its evaluation's
/// factorisation when the caller has it): evaluate by a linear solve of `(I − γ P_π) v = r_π`
/// (one refinement step; later rounds by low-rank corrections, [`Evaluation`]), improve greedily
/// where a choice is better by more than rounding (Puterman §6.4), stop when the policy is
/// stable or MacQueen's bound around the evaluation already meets the precision.
fn policy_iteration(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    optimum: Optimum,
    options: &MdpOptions,
    initial: Option<Settled>,
) -> Result<Solved> {
    let n = mdp.n();
    let (mut policy, lu) = match initial {
        Some(Settled { policy, lu, .. }) => (policy, Some(lu)),
        None => (immediate_policy(mdp, rewards, optimum), None),
    };
    let mut evaluation = Evaluation::new(mdp, gamma, policy_rows(mdp, &policy), lu)?;
    let method = account::Method::PolicyIteration {
        evaluation: evaluation.lu.solver(),
    };
    for round in 1..=options.max_iterations {
        interrupt::check()?;
        if round > 1 {
            evaluation.update(mdp, gamma, policy_rows(mdp, &policy))?;
        }
        let rows = &evaluation.rows;
        let mut v: Vec<f64> = rows.iter().map(|&r| rewards[r]).collect();
        evaluation.solve_in_place(mdp, gamma, &mut v);
        // Refinement: v += (I − γP_π)⁻¹ (b − (I − γP_π) v), where b − (I − γP_π) v is
        // (r_π + γ P_π v) − v.
        // Not when the residual is already small enough that its correction, at most
        // residual/(1 − γ), stays far inside the precision (a direct solve's usual case).
        let mut e: Vec<f64> = (0..n)
            .into_par_iter()
            .with_min_len(1 << 12)
            .map(|i| q_value(mdp, rewards, gamma, &v, rows[i]) - v[i])
            .collect();
        let (residual, size) = e.iter().zip(&v).fold((0.0f64, 0.0f64), |(r, s), (e, x)| {
            (r.max(e.abs()), s.max(x.abs()))
        });
        if residual > (1.0 - gamma) * options.precision * size.max(1.0) / 16.0 {
            evaluation.solve_in_place(mdp, gamma, &mut e);
            v.iter_mut().zip(&e).for_each(|(x, d)| *x += d);
        }
        // Improve only where the greedy choice beats the current one by more than rounding.
        let (tv, greedy) = bellman_step(mdp, rewards, gamma, |_| optimum.direction(), &v);
        // Stop early when MacQueen's interval around `T v` is already within the precision (the
        // caller certifies `v` by that interval): the greedy policy of `v` is then as good as
        // the bound says, and another evaluation would only confirm it.
        let Changes { lo, hi, old_size, .. } = change_range(&tv, &v);
        let size = old_size.max(1.0);
        let certified = gamma / (1.0 - gamma) * (hi - lo) / 2.0 <= options.precision * size;
        let mut changed = false;
        for s in 0..n {
            if greedy[s] == policy[s] {
                continue;
            }
            let current = q_value(mdp, rewards, gamma, &v, rows[s]);
            if optimum.better(tv[s], current) && (tv[s] - current).abs() > 1e-13 * (current.abs() + 1.0) {
                policy[s] = greedy[s];
                changed = true;
            }
        }
        options.report(round, f64::NAN);
        if !changed || certified {
            return Ok((v, policy, round, method));
        }
    }
    Err(Error::LimitReached {
        what: "policy iteration",
        limit: options.max_iterations,
        message: "the policy kept changing".into(),
    })
}

/// A Gauss–Seidel sweep of the Bellman step over the states in `order`, in place: each state
/// takes the best choice against the values already updated (Puterman §6.3.3), so with successors
/// mostly before their predecessors in `order` an improvement travels along it in one sweep where
/// a Jacobi sweep moves it one state. A state's choice in `policy` changes only when the best beats
/// the current one by more than rounding. Returns the number of changed choices.
///
/// From the evaluation `w = v_π` it is also a policy improvement step (Puterman §6.4–6.5): the
/// sweep's values `w'` satisfy `v_π ≤ w' ≤ L_π' w'` (up to that rounding), so the new policy's
/// values are at least `w'`.
fn sweep_in_order(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    optimum: Optimum,
    order: &[u32],
    w: &mut [f64],
    policy: &mut [u32],
) -> usize {
    let m = mdp.matrix();
    let affine = Affine::discounted(rewards, &gamma);
    let mut changes = 0;
    for &s in order {
        let s = s as usize;
        let (best, k) = m.group_optimum(s, optimum.direction(), w, affine);
        if k != policy[s] {
            let current = m.row_value(m.group_rows(s).start + policy[s] as usize, w, affine);
            if optimum.better(best, current) && (best - current).abs() > 1e-13 * (current.abs() + 1.0) {
                policy[s] = k;
                changes += 1;
            }
        }
        w[s] = best;
    }
    changes
}

/// Whether the graph of `policy` (one choice per state) splits into strongly connected components
/// of fewer than [`SPARSE_FROM`] states each: then its evaluation is one pass of small solves,
/// and (as a guess for the model's other policies) policy iteration is cheap.
fn splits_small(mdp: &Mdp, policy: &[u32]) -> bool {
    if mdp.n() < SPARSE_FROM {
        return true;
    }
    let m = mdp.matrix();
    let sccs = crate::graph::sccs_of(mdp.n(), |s| m.row(m.group_rows(s).start + policy[s] as usize).0);
    sccs.largest() < SPARSE_FROM
}

/// How value iteration ended: certified, or (when asked to look for it) with a greedy policy that
/// has settled and is cheap to evaluate, with the sweeps so far.
enum Swept {
    Certified(Solved),
    Settled(Settled),
}

/// Where value iteration handed over to policy iteration: the settled policy, its evaluation's
/// factorisation, and the sweeps so far.
struct Settled {
    policy: Vec<u32>,
    lu: Factored<f64>,
    sweeps: u64,
}

/// Quiet sweeps (few policy changes) after which the policy is evaluated, and the sweeps the
/// bound must still be from the precision (at its current rate) for that to pay.
const SETTLED_SWEEPS: u32 = 2;

/// Most Gauss–Seidel sweeps spent looking for a policy to hand over to policy iteration.
const GAUSS_SEIDEL_SWEEPS: u64 = 20;

/// Value iteration from 0 (Jacobi sweeps, parallel), stopped when MacQueen's certified half-width
/// (module docs) is below `precision · max(‖v‖, 1)`. With `look_for_settled`, first up to
/// [`GAUSS_SEIDEL_SWEEPS`] Gauss–Seidel sweeps in depth-first finishing order, handing over to
/// policy iteration once their policy is quiet and cheap to evaluate — when the policy of the best
/// immediate rewards [`splits_small`] (a model whose policies have large strongly connected
/// components goes to Jacobi sweeps at once).
fn value_iteration(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    optimum: Optimum,
    options: &MdpOptions,
    look_for_settled: bool,
) -> Result<Swept> {
    let n = mdp.n();
    let m = mdp.matrix();
    let mut v = vec![0.0; n];
    let mut policy = vec![0u32; n];
    // A sweep is quiet when it changes no more states than policy iteration's later rounds
    // correct cheaply (Evaluation's low-rank updates).
    let quiet = Evaluation::columns(n);
    let limit = sweep_limit(mdp, options);
    // Looking for a policy to hand over: Gauss–Seidel sweeps in depth-first finishing order
    // (successors mostly first: values travel far in one sweep) until their policy is quiet,
    // then policy iteration if that policy is cheap to evaluate; otherwise Jacobi sweeps go on
    // from the values reached (MacQueen's bounds hold from any start).
    let mut done = 0u64;
    if look_for_settled && splits_small(mdp, &immediate_policy(mdp, rewards, optimum)) {
        let mut settled = 0u32;
        let order = crate::graph::finishing_order(m);
        for sweep in 1..=GAUSS_SEIDEL_SWEEPS.min(limit) {
            interrupt::check()?;
            let changes = sweep_in_order(mdp, rewards, gamma, optimum, &order, &mut v, &mut policy);
            done = sweep;
            options.report(sweep, f64::NAN);
            settled = if changes <= quiet { settled + 1 } else { 0 };
            if settled >= SETTLED_SWEEPS {
                let rows = policy_rows(mdp, &policy);
                let (row_ptr, cols, vals) = evaluation_csr(mdp, gamma, &rows);
                if let Some(lu) = Factored::new_if_cheap(n, WHAT, (&row_ptr, &cols, &vals))? {
                    return Ok(Swept::Settled(Settled {
                        policy,
                        lu,
                        sweeps: sweep,
                    }));
                }
                break;
            }
        }
    }
    let solved = jacobi_sweeps(
        mdp,
        rewards,
        gamma,
        |_| optimum.direction(),
        options,
        (v, policy),
        done + 1..=limit,
    )?;
    Ok(Swept::Certified(solved))
}

/// The sweeps value iteration may make: `options.max_iterations`, and at most about a minute's
/// worth whatever that limit.
fn sweep_limit(mdp: &Mdp, options: &MdpOptions) -> u64 {
    options
        .max_iterations
        .min((MAX_SWEEP_WORK / mdp.matrix().nnz().max(1) as u64).max(1))
}

/// Jacobi sweeps `v ← T v` (parallel, each state reduced in `direction(s)`) numbered `sweeps`,
/// each computing `Tv` whole, so that `d = Tv − v` is exactly what MacQueen's bounds need and every
/// sweep is its own certificate (Gauss–Seidel's changes do not shift by a constant under a
/// constant error, so their span does not close the same way),
/// from `(v, policy)`, stopped when MacQueen's certified half-width (module docs) is below
/// `precision · max(‖v‖, 1)`, or at the rounding floor, or at a fixed point: the values, the
/// greedy policy, the sweeps done and the method.
///
/// # Errors
/// [`Error::LimitReached`] after the last sweep of `sweeps`; [`Error::Interrupted`] if a stop is
/// requested ([`crate::interrupt`], checked every sweep).
fn jacobi_sweeps(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    options: &MdpOptions,
    (mut v, mut policy): (Vec<f64>, Vec<u32>),
    sweeps: std::ops::RangeInclusive<u64>,
) -> Result<Solved> {
    let m = mdp.matrix();
    let limit = *sweeps.end();
    let scale = gamma / (1.0 - gamma);
    let allowance = Allowance::new(mdp, rewards);
    let mut tv = vec![0.0; mdp.n()];
    for sweep in sweeps {
        interrupt::check()?;
        m.multiply_and_reduce(
            direction,
            &v,
            Affine::discounted(rewards, &gamma),
            &mut tv,
            &mut policy,
        );
        let Changes { lo, hi, new_size, .. } = change_range(&tv, &v);
        std::mem::swap(&mut v, &mut tv);
        let change = lo.abs().max(hi.abs());
        options.report(sweep, change);
        let size = new_size.max(1.0);
        let half = scale * (hi - lo) / 2.0;
        // A sweep that changed nothing is a fixed point in floating point: more sweeps repeat it.
        // Stop there, or once the bound is down to what rounding alone may add (when γ is close
        // to 1 that floor, divided by 1 − γ, can exceed the precision asked for); the caller
        // certifies and reports the bound actually reached.
        let target = options.precision * size;
        if change == 0.0 || half <= target || half <= 2.0 * allowance.of_size(new_size) / (1.0 - gamma) {
            return Ok((v, policy, sweep, account::Method::MacQueenValueIteration));
        }
    }
    Err(Error::LimitReached {
        what: "value iteration",
        limit,
        message: format!(
            "the guaranteed bound did not reach the precision (γ = {gamma} needs about {:.1e} sweeps)",
            (options.precision.ln() / gamma.ln()).abs()
        ),
    })
}

/// The exact optimal discounted values and an optimal policy in rational arithmetic: policy
/// iteration whose evaluations and improvement tests are exact, started from the `f64` optimum's
/// policy (so usually one exact evaluation confirms it). The probabilities are the model's
/// [`exact_matrix`](Mdp::exact_matrix); `rewards` (one per choice, length `m`; from a model, its
/// [`Mdp::exact_rewards`]) and `gamma` are exact.
///
/// # Errors
/// As [`discounted`]; [`Error::InvalidDistribution`] if a probability is not a simple
/// fraction or a choice's fractions do not sum to exactly 1; [`Error::TooLarge`] beyond the exact
/// dense limit.
pub fn discounted_exact(
    mdp: &Mdp,
    rewards: &[Rational],
    gamma: &Rational,
    optimum: Optimum,
) -> Result<(Vec<Rational>, Vec<u32>)> {
    let g = gamma.to_f64().value();
    let rounded: Vec<f64> = rewards.iter().map(|x| x.to_f64().value()).collect();
    check(mdp, &rounded, g)?;
    let start = discounted(mdp, &rounded, g, optimum, &MdpOptions::default())?;
    discounted_exact_from(mdp, rewards, gamma, |_| optimum.direction(), start.policy, None)
}

/// Exact values of the discounted objective from the choices `policy` (one per state), each
/// state reduced in `direction(s)`: the policy is evaluated exactly (`v = r_π + γ P_π v`, verified
/// by a zero residual), then every state whose reduction finds a strictly better choice against
/// `v` switches to it, until none does. With one direction this is policy iteration, which
/// terminates (Puterman, Theorem 6.4.2). For a game (`direction` by owner) a strategy pair whose
/// values satisfy the Bellman equation exactly is optimal — the equation's solution is unique, `T`
/// being a contraction (Shapley 1953) — but simultaneous switches by both players need not
/// converge, so `rounds` bounds them.
///
/// # Errors
/// [`Error::LimitReached`] after `rounds` rounds without a fixed point; [`Error::Singular`] if an
/// exact evaluation does not verify (it cannot); [`Error::TooLarge`] from the factorisation.
pub(crate) fn discounted_exact_from(
    mdp: &Mdp,
    rewards: &[Rational],
    gamma: &Rational,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    mut policy: Vec<u32>,
    rounds: Option<u64>,
) -> Result<(Vec<Rational>, Vec<u32>)> {
    let pm = super::exact::exact_parts(mdp, rewards)?;
    let m = mdp.matrix();
    let (row_ptr, cols, _) = m.as_parts();
    let r = rewards;
    let p = pm.as_parts().2;
    let q = |v: &[Rational], row: usize| pm.row_value(row, v, Affine::discounted(r, gamma));
    let n = mdp.n();
    for _ in 0..rounds.unwrap_or(u64::MAX) {
        interrupt::check()?;
        let rows: Vec<usize> = (0..n)
            .map(|s| m.group_rows(s).start + policy[s] as usize)
            .collect();
        let lu = Factored::<Rational>::new(n, "exact policy evaluation (I - γP)", |i| {
            let row = rows[i];
            std::iter::once((i as u32, Rational::ONE))
                .chain((row_ptr[row]..row_ptr[row + 1]).map(|k| (cols[k], Rational::ZERO - gamma * &p[k])))
        })?;
        let mut v: Vec<Rational> = rows.iter().map(|&row| r[row].clone()).collect();
        lu.solve_in_place(&mut v);
        // The evaluation must satisfy v = r_π + γ P_π v exactly.
        if let Some(s) = (0..n).find(|&s| q(&v, rows[s]) != v[s]) {
            return Err(Error::Singular {
                what: "exact policy evaluation: the residual is not zero",
                row: s,
                pivot: 0.0,
            });
        }
        let mut changed = false;
        for s in 0..n {
            let group = m.group_rows(s);
            let mut best = v[s].clone();
            for row in group.clone() {
                let qa = q(&v, row);
                if direction(s).better(&qa, &best) {
                    best = qa;
                    policy[s] = (row - group.start) as u32;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok((v, policy));
        }
    }
    Err(Error::LimitReached {
        what: "exact values of a discounted game",
        limit: rounds.unwrap_or(u64::MAX),
        message: "the exact values kept showing better choices than the strategies found; no exact value"
            .into(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    /// MDPToolbox's forest example with S states, r1 = 4, r2 = 2, p = 0.1; choices (wait, cut).
    pub(crate) fn forest(states: usize) -> (Mdp, Vec<f64>) {
        let s_max = states - 1;
        let mut b = CsrBuilder::new(states);
        let mut rewards = Vec::new();
        for s in 0..states {
            b.new_row_group();
            // wait: burn to 0 with p, else grow (the oldest stays).
            b.add(0, 0.1);
            b.add((s + 1).min(s_max) as u32, 0.9);
            b.finish_row();
            rewards.push(if s == s_max { 4.0 } else { 0.0 });
            // cut: back to 0.
            b.add(0, 1.0);
            b.finish_row();
            rewards.push(if s == 0 {
                0.0
            } else if s == s_max {
                2.0
            } else {
                1.0
            });
        }
        (Mdp::new(b.build(), vec![0]).unwrap(), rewards)
    }

    /// The low-rank updates of a policy evaluation solve the changed policy's system as a fresh
    /// factorisation does (to rounding), through several rounds of changes, and past the limit
    /// of changed states (a fresh factorisation then).
    #[test]
    fn evaluation_updates_match_fresh_factorisations() {
        let (mdp, _) = crate::mdp::topological::tests::random_mdp(7, 300, false);
        let gamma = 0.95;
        let n = mdp.n();
        let b: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 2.5).collect();
        let mut policy = vec![0u32; n];
        let mut evaluation = Evaluation::new(&mdp, gamma, policy_rows(&mdp, &policy), None).unwrap();
        let choices = |s: usize| mdp.matrix().group_rows(s).len() as u32;
        let mut seen_update = false;
        for round in 0..8usize {
            // Change 1, 2, 4, ... states (cycling through their choices), some back again.
            for k in 0..(1usize << round).min(n) {
                let s = (k * 37 + round * 11) % n;
                policy[s] = (policy[s] + 1) % choices(s);
            }
            evaluation
                .update(&mdp, gamma, policy_rows(&mdp, &policy))
                .unwrap();
            seen_update |= !evaluation.changed.is_empty();
            let mut x = b.clone();
            evaluation.solve_in_place(&mdp, gamma, &mut x);
            let rows = policy_rows(&mdp, &policy);
            let fresh = Factored::<f64>::new(n, WHAT, evaluation_rows(&mdp, gamma, &rows)).unwrap();
            let mut y = b.clone();
            fresh.solve_in_place(&mut y);
            for (s, (x, y)) in x.iter().zip(&y).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                    "round {round}, state {s}: {x} vs {y}"
                );
            }
            assert!(evaluation.changed.len() <= evaluation.limit());
        }
        assert!(seen_update, "no round took the low-rank path");
    }

    /// The evaluation rows come with increasing columns and the diagonal in its place, whether
    /// the choice has a self-loop or not; the exit mass gives the diagonal.
    #[test]
    fn evaluation_rows_are_sorted_with_the_diagonal() {
        let (mdp, _) = forest(4);
        let gamma = 0.5;
        // State 0 cuts (to itself), the others wait: state 1 to 0 and 2, state 2 to 0 and 3,
        // state 3 to 0 and itself.
        let rows = policy_rows(&mdp, &[1, 0, 0, 0]);
        let row = evaluation_rows(&mdp, gamma, &rows);
        assert_eq!(row(0).collect::<Vec<_>>(), vec![(0, 0.5)]);
        assert_eq!(row(2).collect::<Vec<_>>(), vec![(0, -0.05), (2, 1.0), (3, -0.45)]);
        assert_eq!(row(3).collect::<Vec<_>>(), vec![(0, -0.05), (3, 0.55)]);
        let (ptr, cols, vals) = evaluation_csr(&mdp, gamma, &rows);
        assert_eq!(ptr, vec![0, 1, 4, 7, 9]);
        assert_eq!(cols, vec![0, 0, 1, 2, 0, 2, 3, 0, 3]);
        assert_eq!(vals[2], 1.0);
        assert_eq!(vals[5], 1.0);
    }

    // shared/cases/08-mdp.md — MDPToolbox's forest example, γ = 0.9: V* = (6561/250, 7371/250,
    // 8371/250) = (26.244, 29.484, 33.484), policy (wait, wait, wait) (published in MDPToolbox's
    // PolicyIteration docstring); exactly by rational policy iteration.
    #[test]
    fn forest_discounted() {
        let (mdp, r) = forest(3);
        for method in [Method::PolicyIteration, Method::ValueIteration] {
            let options = MdpOptions {
                method,
                ..MdpOptions::default()
            };
            let s = discounted(&mdp, &r, 0.9, Optimum::Max, &options).unwrap();
            for (x, y) in s.values.iter().zip([26.244, 29.484, 33.484]) {
                assert!(
                    (x - y).abs() <= s.error_bound.max(1e-12),
                    "{method:?}: {x} vs {y}"
                );
            }
            assert!(s.error_bound < 1e-10, "{method:?}: {}", s.error_bound);
            assert_eq!(s.policy, vec![0, 0, 0]);
        }
        let gamma = Rational::from(9) / Rational::from(10);
        let (v, policy) = discounted_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            &gamma,
            Optimum::Max,
        )
        .unwrap();
        let want = [6561, 7371, 8371].map(|x| Rational::from(x) / Rational::from(250));
        assert_eq!(v, want);
        assert_eq!(policy, vec![0, 0, 0]);
    }

    // γ = 0.99: the true optimum is 317.55… (issue 6; pymdptoolbox's value iteration returns 6.4).
    #[test]
    fn forest_discounted_099_is_the_true_optimum() {
        let (mdp, r) = forest(3);
        let pi = discounted(&mdp, &r, 0.99, Optimum::Max, &MdpOptions::default()).unwrap();
        let vi = discounted(
            &mdp,
            &r,
            0.99,
            Optimum::Max,
            &MdpOptions {
                method: Method::ValueIteration,
                ..MdpOptions::default()
            },
        )
        .unwrap();
        assert!(pi.values[0] > 317.55 && pi.values[0] < 317.56, "{:?}", pi.values);
        assert!((pi.values[0] - vi.values[0]).abs() <= pi.error_bound + vi.error_bound);
        let gamma = Rational::from(99) / Rational::from(100);
        let (v, _) = discounted_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            &gamma,
            Optimum::Max,
        )
        .unwrap();
        assert!((v[0].to_f64().value() - pi.values[0]).abs() <= pi.error_bound);
        // γ = 0.9999999999 (issue 15 §2): the f64 discount is off by about 1e-17, which moves
        // the values (about 3.24e10) by thousands — 32399992688 against the exact
        // 32399999993.52; the bound covers the discount's and the probabilities' rounding.
        let pi = discounted(&mdp, &r, 0.9999999999, Optimum::Max, &MdpOptions::default()).unwrap();
        let gamma = crate::exact::parse_exact("0.9999999999").unwrap();
        let rewards = crate::exact::rationalize_rewards(&r).unwrap();
        let (v, _) = discounted_exact(&mdp, &rewards, &gamma, Optimum::Max).unwrap();
        for (x, e) in pi.values.iter().zip(&v) {
            let error = (e.to_f64().value() - x).abs();
            assert!(
                error > 1.0 && error <= pi.error_bound,
                "{x} vs {e}: {error} > {}",
                pi.error_bound
            );
        }
    }

    // γ = 0.99999: rounding alone puts a floor of about 2e-9 relative under value iteration's
    // bound (the gap's rounding allowance divided by 1 − γ), above the default precision 1e-12.
    // Value iteration stops at that floor instead of sweeping until its limit, and its answer
    // agrees with the exact optimum within the bound it reports.
    #[test]
    fn value_iteration_stops_at_the_rounding_floor() {
        let (mdp, r) = forest(3);
        let options = MdpOptions {
            method: Method::ValueIteration,
            max_iterations: 10_000_000,
            ..MdpOptions::default()
        };
        let vi = discounted(&mdp, &r, 0.99999, Optimum::Max, &options).unwrap();
        assert!(vi.error_bound > 1e-12 * vi.values[2], "{}", vi.error_bound);
        assert!(vi.error_bound < 1e-7 * vi.values[2], "{}", vi.error_bound);
        let gamma = Rational::from(99_999) / Rational::from(100_000);
        let (v, _) = discounted_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            &gamma,
            Optimum::Max,
        )
        .unwrap();
        for (x, y) in vi.values.iter().zip(&v) {
            assert!((x - y.to_f64().value()).abs() <= vi.error_bound, "{x} vs {y}");
        }
    }

    /// MacQueen's interval holds against exact policy iteration on random MDPs (some with a
    /// choice that leaves its state with probability 2⁻²⁰, some with several closed classes), by
    /// both methods, both directions, γ = 0.9 and 0.99; the half-width is never wider than the
    /// contraction bound ‖Tv − v‖/(1 − γ) of the same values would be.
    #[test]
    fn macqueen_bounds_hold_against_exact_policy_iteration() {
        for seed in 0..40u64 {
            let (mdp, rewards) = crate::mdp::topological::tests::random_mdp(seed, 12, seed % 2 == 1);
            let exact_rewards = crate::exact::rationalize_rewards(&rewards).unwrap();
            for (gamma, exact_gamma) in [(0.9, (9, 10)), (0.99, (99, 100))] {
                let exact_gamma = Rational::from(exact_gamma.0) / Rational::from(exact_gamma.1);
                for optimum in [Optimum::Max, Optimum::Min] {
                    let (want, _) = discounted_exact(&mdp, &exact_rewards, &exact_gamma, optimum).unwrap();
                    for method in [Method::PolicyIteration, Method::ValueIteration] {
                        let options = MdpOptions {
                            method,
                            ..MdpOptions::default()
                        };
                        let s = discounted(&mdp, &rewards, gamma, optimum, &options).unwrap();
                        let (gap, _) = bellman_gap(&mdp, &rewards, gamma, optimum, &s.values);
                        assert!(s.error_bound <= gap / (1.0 - gamma) + 1e-9, "seed {seed}");
                        for (x, y) in s.values.iter().zip(&want) {
                            let y = y.to_f64().value();
                            assert!(
                                (x - y).abs() <= s.error_bound,
                                "seed {seed} γ {gamma} {optimum:?} {method:?}: {x} ± {} vs {y}",
                                s.error_bound
                            );
                        }
                    }
                }
            }
        }
    }

    /// On a well-mixing MDP (200 states, every choice 4 successors drawn from all states) at
    /// γ = 0.99, MacQueen's bounds close at the rate of the chains' second eigenvalue: value
    /// iteration certifies 1e-12 in well under the ln(1e-12)/ln(0.99) ≈ 2,750 sweeps the
    /// contraction bound needs, and agrees with policy iteration within both bounds.
    #[test]
    fn value_iteration_on_a_mixing_mdp_needs_few_sweeps() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let n = 200u32;
        let mut b = CsrBuilder::new(n as usize);
        let mut rewards = Vec::new();
        for _ in 0..n {
            b.new_row_group();
            for _ in 0..3 {
                for _ in 0..4 {
                    b.add(rng.random_range(0..n), 0.25);
                }
                b.finish_row();
                rewards.push(f64::from(rng.random_range(0..100u8)));
            }
        }
        let mdp = Mdp::new(b.build(), vec![0]).unwrap();
        let vi = discounted(
            &mdp,
            &rewards,
            0.99,
            Optimum::Max,
            &MdpOptions {
                method: Method::ValueIteration,
                ..MdpOptions::default()
            },
        )
        .unwrap();
        assert!(vi.iterations < 200, "{} sweeps", vi.iterations);
        assert!(vi.error_bound <= 1e-12 * 100.0 / 0.01, "{}", vi.error_bound);
        let pi = discounted(&mdp, &rewards, 0.99, Optimum::Max, &MdpOptions::default()).unwrap();
        for (x, y) in vi.values.iter().zip(&pi.values) {
            assert!((x - y).abs() <= vi.error_bound + pi.error_bound, "{x} vs {y}");
        }
    }

    /// The automatic choice on a forest of 20,000 states: value iteration until its greedy
    /// policy settles, then policy iteration from it (cheap: the policy's chain is triangular
    /// apart from two states), a couple of rounds where policy iteration from the myopic policy
    /// takes many more; same values as policy iteration alone within both bounds.
    #[test]
    fn auto_switches_from_value_to_policy_iteration_on_the_forest() {
        let (mdp, r) = forest(20_000);
        for gamma in [0.9, 0.99] {
            let auto = discounted(&mdp, &r, gamma, Optimum::Max, &MdpOptions::default()).unwrap();
            let account::Method::DiscountCertified { by } = &auto.method else {
                panic!("{}", auto.method)
            };
            let account::Method::ValueThenPolicyIteration { rounds, .. } = **by else {
                panic!("{}", auto.method)
            };
            let options = MdpOptions {
                method: Method::PolicyIteration,
                ..MdpOptions::default()
            };
            let pi = discounted(&mdp, &r, gamma, Optimum::Max, &options).unwrap();
            assert!(
                rounds <= 4 && rounds < pi.iterations,
                "{rounds} against {}",
                pi.iterations
            );
            assert!(auto.error_bound < 1e-12 * 50.0, "{}", auto.error_bound);
            for (x, y) in auto.values.iter().zip(&pi.values) {
                assert!((x - y).abs() <= auto.error_bound + pi.error_bound, "{x} vs {y}");
            }
            assert_eq!(auto.policy, pi.policy);
        }
    }

    // shared/cases/08-mdp.md — Puterman (1994) §3.1 two-state example: s1: a11 reward 5 → s1/s2
    // with 1/2 each, a12 reward 10 → s2; s2: a21 reward −1 → s2. β = 0.95: v* = (−60/7, −20), policy
    // (a11, a21) (Example 6.2.1); β = 0.9: v* = (1, −10), policy (a12, a21).
    #[test]
    fn puterman_two_state() {
        let mdp = super::super::test_mdp(&[&[&[(0, 0.5), (1, 0.5)], &[(1, 1.0)]], &[&[(1, 1.0)]]]);
        let r = [5.0, 10.0, -1.0];
        let s = discounted(&mdp, &r, 0.95, Optimum::Max, &MdpOptions::default()).unwrap();
        assert!(
            (s.values[0] + 60.0 / 7.0).abs() <= s.error_bound
                && (s.values[1] + 20.0).abs() <= s.error_bound.max(1e-14)
        );
        assert_eq!(s.policy, vec![0, 0]);
        let (v, policy) = discounted_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            &(Rational::from(19) / Rational::from(20)),
            Optimum::Max,
        )
        .unwrap();
        assert_eq!(
            v,
            vec![Rational::from(-60) / Rational::from(7), Rational::from(-20)]
        );
        assert_eq!(policy, vec![0, 0]);
        let (v, policy) = discounted_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            &(Rational::from(9) / Rational::from(10)),
            Optimum::Max,
        )
        .unwrap();
        assert_eq!(v, vec![Rational::from(1), Rational::from(-10)]);
        assert_eq!(policy, vec![1, 0]);
    }
}
