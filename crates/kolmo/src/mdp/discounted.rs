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
use crate::linsolve::Factored;
use crate::model::Mdp;
use crate::sparse::Affine;
use crate::{Error, Result};

/// The optimal expected discounted total reward `Σ_k γ^k r_k` from every state and an optimal
/// stationary policy. `rewards` has one entry per choice (length `m`), `0 ≤ gamma < 1`.
///
/// # Errors
/// [`Error::InvalidArgument`] for `gamma` outside `[0, 1)` or rewards of the wrong length or not
/// finite; [`Error::LimitReached`] if `options.max_iterations` is exhausted; [`Error::Singular`]
/// from a policy evaluation (it cannot for `γ < 1` in exact arithmetic).
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
            Swept::Certified(solved) | Swept::Settled(_, solved) => solved,
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
            Swept::Settled(policy, (_, _, sweeps, _)) => {
                let (v, policy, rounds, pi) =
                    policy_iteration(mdp, rewards, gamma, optimum, options, Some(policy))?;
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
    super::check_finite("discounted reward", &values)?;
    let (values, solve) = macqueen(mdp, rewards, gamma, optimum, &values);
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
fn bellman_step(mdp: &Mdp, rewards: &[f64], gamma: f64, optimum: Optimum, v: &[f64]) -> (Vec<f64>, Vec<u32>) {
    let (mut tv, mut policy) = (vec![0.0; mdp.n()], vec![0u32; mdp.n()]);
    mdp.matrix().multiply_and_reduce(
        |_| optimum.direction(),
        v,
        Affine::discounted(rewards, &gamma),
        &mut tv,
        &mut policy,
    );
    (tv, policy)
}

/// The smallest and the largest entry of `tv − v` (MacQueen's `min d` and `max d`).
fn change_range(tv: &[f64], v: &[f64]) -> (f64, f64) {
    tv.iter()
        .zip(v)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (t, x)| {
            (lo.min(t - x), hi.max(t - x))
        })
}

/// MacQueen's interval around `T v` (module docs): its middle, one value per state, and its
/// half-width, with the rounding of `T v`, of `d = Tv − v` and of the middle allowed for.
fn macqueen(mdp: &Mdp, rewards: &[f64], gamma: f64, optimum: Optimum, v: &[f64]) -> (Vec<f64>, f64) {
    let (mut tv, _) = bellman_step(mdp, rewards, gamma, optimum, v);
    let (lo, hi) = change_range(&tv, v);
    if tv.is_empty() {
        return (tv, 0.0);
    }
    let scale = gamma / (1.0 - gamma);
    let shift = scale * (lo / 2.0 + hi / 2.0);
    tv.iter_mut().for_each(|t| *t += shift);
    let size = tv.iter().fold(0.0f64, |a, t| a.max(t.abs()));
    // Each computed q-value is within the allowance of the exact one, and so is each d's entry
    // (its subtraction is exact or within an ulp of values the allowance already scales with).
    let allowance = rounding_allowance(mdp, rewards, v);
    let half = scale * (hi - lo) / 2.0 + allowance / (1.0 - gamma);
    (
        tv,
        // The shift's own rounding (γ/(1 − γ) and the product, a few ulps of the shift) and the
        // additions' (an ulp of each value), generously.
        (half + 4.0 * f64::EPSILON * (size + half + shift.abs())) * (1.0 + 4.0 * f64::EPSILON),
    )
}

/// `‖T v − v‖∞` plus an allowance for its rounding, and the greedy policy of `v`.
fn bellman_gap(mdp: &Mdp, rewards: &[f64], gamma: f64, optimum: Optimum, v: &[f64]) -> (f64, Vec<u32>) {
    let (tv, policy) = bellman_step(mdp, rewards, gamma, optimum, v);
    let gap = tv.iter().zip(v).fold(0.0f64, |g, (t, x)| g.max((t - x).abs()));
    (gap + rounding_allowance(mdp, rewards, v), policy)
}

/// What rounding may add to a computed Bellman gap of `v`: each q-value is a compensated sum of at
/// most (row length + 1) products, each rounded once, of values up to `max |v| + max |r|`.
fn rounding_allowance(mdp: &Mdp, rewards: &[f64], v: &[f64]) -> f64 {
    Allowance::new(mdp, rewards).of(v)
}

/// [`rounding_allowance`] with the model's part (widest row, largest reward) computed once.
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

    fn of(&self, v: &[f64]) -> f64 {
        let scale = v.iter().fold(0.0f64, |a, x| a.max(x.abs())) + self.r_max;
        2.0 * self.width * f64::EPSILON * scale
    }
}

type Solved = (Vec<f64>, Vec<u32>, u64, account::Method);

/// Largest `sweeps × transitions` of value iteration (about a minute).
const MAX_SWEEP_WORK: u64 = 20_000_000_000;

/// Beyond this many states, [`Method::Auto`] prefers value iteration to policy evaluations that
/// need a general sparse LU.
const AUTO_SPARSE_LIMIT: usize = 2_000;

/// The policy evaluation's matrix `I − γ P_π` for the choice rows `rows` (one per state), by rows.
/// The diagonal is (1 − γ) + γ·(the row's exit mass), never 1 − γ·p_ii, which cancels when γ·p_ii
/// is close to 1 (issue 15 §1; the idea of GTH).
fn evaluation_rows<'a>(
    mdp: &'a Mdp,
    gamma: f64,
    rows: &'a [usize],
) -> impl Fn(usize) -> EvaluationRow<'a> + 'a {
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
            diagonal: Some((i as u32, (1.0 - gamma) + gamma * exit)),
            state: i as u32,
            entries: cols.iter().zip(vals.iter()),
            gamma,
        }
    }
}

/// One row of [`evaluation_rows`]: the diagonal, then the entries off it, `−γ p`.
struct EvaluationRow<'a> {
    diagonal: Option<(u32, f64)>,
    state: u32,
    entries: std::iter::Zip<std::slice::Iter<'a, u32>, std::slice::Iter<'a, f64>>,
    gamma: f64,
}

impl Iterator for EvaluationRow<'_> {
    type Item = (u32, f64);

    fn next(&mut self) -> Option<(u32, f64)> {
        if let Some(d) = self.diagonal.take() {
            return Some(d);
        }
        self.entries
            .by_ref()
            .find(|(t, _)| **t != self.state)
            .map(|(&t, &p)| (t, -self.gamma * p))
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

/// Policy iteration from `initial` (else the best immediate reward): evaluate by a linear solve
/// of `(I − γ P_π) v = r_π` (one refinement step), improve greedily where a choice is better by
/// more than rounding (Puterman §6.4).
fn policy_iteration(
    mdp: &Mdp,
    rewards: &[f64],
    gamma: f64,
    optimum: Optimum,
    options: &MdpOptions,
    initial: Option<Vec<u32>>,
) -> Result<Solved> {
    let n = mdp.n();
    let mut policy = match initial {
        Some(policy) => policy,
        None => bellman_gap(mdp, rewards, 0.0, optimum, &vec![0.0; n]).1,
    };
    let mut method = None;
    for round in 1..=options.max_iterations {
        let rows = policy_rows(mdp, &policy);
        let lu = Factored::<f64>::new(
            n,
            "policy evaluation (I - γP)",
            evaluation_rows(mdp, gamma, &rows),
        )?;
        let mut v: Vec<f64> = rows.iter().map(|&r| rewards[r]).collect();
        lu.solve_in_place(&mut v);
        // Refinement: v += (I − γP_π)⁻¹ (b − (I − γP_π) v), where b − (I − γP_π) v is
        // (r_π + γ P_π v) − v.
        let mut e: Vec<f64> = (0..n)
            .map(|i| q_value(mdp, rewards, gamma, &v, rows[i]) - v[i])
            .collect();
        lu.solve_in_place(&mut e);
        v.iter_mut().zip(&e).for_each(|(x, d)| *x += d);
        let method = method.get_or_insert_with(|| account::Method::PolicyIteration {
            evaluation: lu.solver(),
        });
        // Improve only where the greedy choice beats the current one by more than rounding.
        let (tv, greedy) = bellman_step(mdp, rewards, gamma, optimum, &v);
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
        if !changed {
            return Ok((v, policy, round, method.clone()));
        }
    }
    Err(Error::LimitReached {
        what: "policy iteration",
        limit: options.max_iterations,
        message: "the policy kept changing".into(),
    })
}

/// How value iteration ended: certified, or (when asked to look for it) with a greedy policy that
/// has settled and is cheap to evaluate, with the sweeps so far.
enum Swept {
    Certified(Solved),
    Settled(Vec<u32>, Solved),
}

/// Sweeps without a policy change after which a settled policy is evaluated, and the sweeps the
/// bound must still be from the precision (at its current rate) for that to pay.
const SETTLED_SWEEPS: u32 = 4;
const SWEEPS_LEFT_TO_SWITCH: f64 = 30.0;

/// Value iteration from 0 (Jacobi sweeps, parallel), stopped when MacQueen's certified half-width
/// (module docs) is below `precision · max(‖v‖, 1)`.
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
    let (mut look, mut previous, mut settled, mut last_half) =
        (look_for_settled, vec![u32::MAX; n], 0u32, f64::INFINITY);
    // At most about a minute of sweeps, whatever the iteration limit.
    let limit = options
        .max_iterations
        .min((MAX_SWEEP_WORK / m.nnz().max(1) as u64).max(1));
    // Jacobi sweeps: each computes `Tv` whole, so `d = Tv − v` is exactly what MacQueen's bounds
    // need and every sweep is its own certificate (Gauss–Seidel's changes do not shift by a
    // constant under a constant error, so their span does not close the same way).
    let scale = gamma / (1.0 - gamma);
    let allowance = Allowance::new(mdp, rewards);
    let mut tv = vec![0.0; n];
    for sweep in 1..=limit {
        m.multiply_and_reduce(
            |_| optimum.direction(),
            &v,
            Affine::discounted(rewards, &gamma),
            &mut tv,
            &mut policy,
        );
        let (lo, hi) = change_range(&tv, &v);
        std::mem::swap(&mut v, &mut tv);
        let change = lo.abs().max(hi.abs());
        options.report(sweep, change);
        let size = v.iter().fold(1.0f64, |a, x| a.max(x.abs()));
        let half = scale * (hi - lo) / 2.0;
        // A sweep that changed nothing is a fixed point in floating point: more sweeps repeat it.
        // Stop there, or once the bound is down to what rounding alone may add (when γ is close
        // to 1 that floor, divided by 1 − γ, can exceed the precision asked for); the caller
        // certifies and reports the bound actually reached.
        let target = options.precision * size;
        if change == 0.0 || half <= target || half <= 2.0 * allowance.of(&v) / (1.0 - gamma) {
            return Ok(Swept::Certified((
                v,
                policy,
                sweep,
                account::Method::MacQueenValueIteration,
            )));
        }
        if look {
            settled = if policy == previous { settled + 1 } else { 0 };
            previous.copy_from_slice(&policy);
            // Sweeps still needed at the bound's latest rate of decrease.
            let rate = half / last_half;
            let left = if rate < 1.0 {
                (target / half).ln() / rate.ln()
            } else {
                f64::INFINITY
            };
            if settled >= SETTLED_SWEEPS && left > SWEEPS_LEFT_TO_SWITCH {
                let rows = policy_rows(mdp, &policy);
                if !Factored::<f64>::needs_general_sparse(n, &evaluation_rows(mdp, gamma, &rows)) {
                    return Ok(Swept::Settled(
                        policy,
                        (v, vec![], sweep, account::Method::MacQueenValueIteration),
                    ));
                }
                look = false;
            }
        }
        last_half = half;
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
    let pm = super::exact::exact_parts(mdp, rewards)?;
    let rounded: Vec<f64> = rewards.iter().map(|x| x.to_f64().value()).collect();
    check(mdp, &rounded, g)?;
    let start = discounted(mdp, &rounded, g, optimum, &MdpOptions::default())?;
    let m = mdp.matrix();
    let (row_ptr, cols, _) = m.as_parts();
    let r = rewards;
    let p = pm.as_parts().2;
    let q = |v: &[Rational], row: usize| pm.row_value(row, v, Affine::discounted(r, gamma));
    let n = mdp.n();
    let mut policy = start.policy;
    loop {
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
                if optimum.direction().better(&qa, &best) {
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
