//! Expected total reward until a target is reached (stochastic shortest path: Bertsekas &
//! Tsitsiklis, "An analysis of stochastic shortest path problems", Math. Oper. Res. 16(3), 1991;
//! Baier & Katoen, *Principles of Model Checking*, §10.6).
//!
//! Graph analysis first: minimising, a state from which no policy reaches the target with
//! probability 1 has value `+∞`; the other states keep only the choices that stay among such states
//! (a proper policy exists there and one is read off the attractor); maximising, `+∞` wherever
//! some policy misses the target with positive probability.
//!
//! Then the finite values component by component (the `topological` module: closed forms,
//! value iteration with a verified inductive upper bound, or policy iteration on a component's
//! own MDP). Should that fail, policy iteration on the whole model from the attractor policy
//! evaluates each policy on its Markov chain with [`AbsorbingChain`] (the same solver and
//! certificate as `kolmo analyze`) and improves greedily.

use super::{MdpOptions, MdpSolution, Optimum};
use crate::account;
use crate::analysis::AbsorbingChain;
use crate::graph::{choices_within, prob01_min, prob1e};
use crate::model::{Dtmc, Mdp, StateSet};
use crate::sparse::Affine;
use crate::{Error, Result, StateId};

/// The optimal expected total reward earned until `target` is first reached, from every state,
/// with an optimal policy. `rewards` has one entry per choice (length `m`), all `≥ 0` or all `≤ 0`
/// (then `−∞` replaces `+∞`); rewards of choices in target states are not earned.
///
/// The bound is the widest certified interval over the states, halved (the values are the
/// intervals' midpoints); under whole-model policy iteration, the policy evaluation's certified
/// bound plus `δ · t`, `δ` the remaining Bellman gap `‖T v − v‖∞` and `t` the longest expected
/// time to the target under the policy found.
///
/// # Errors
/// [`Error::InvalidArgument`] for rewards of the wrong length, negative or not finite, or a target
/// of the wrong size;
/// [`Error::LimitReached`] if the policy keeps changing past `options.max_iterations`.
pub fn total_reward(
    mdp: &Mdp,
    rewards: &[f64],
    target: &StateSet,
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    // Rewards that are all ≤ 0 (costs written as negative rewards): optimise the negated rewards
    // the other way and negate back, so that `+∞` becomes `−∞`.
    if rewards.iter().all(|r| *r <= 0.0) && rewards.iter().any(|r| *r < 0.0) {
        let negated: Vec<f64> = rewards.iter().map(|r| -r).collect();
        let flipped = match optimum {
            Optimum::Max => Optimum::Min,
            Optimum::Min => Optimum::Max,
        };
        let mut s = non_negative(mdp, &negated, target, flipped, options)?;
        s.values.iter_mut().for_each(|v| *v = -*v);
        return Ok(s);
    }
    non_negative(mdp, rewards, target, optimum, options)
}

fn non_negative(
    mdp: &Mdp,
    rewards: &[f64],
    target: &StateSet,
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    let n = mdp.n();
    let m = mdp.matrix();
    super::check_total_rewards(mdp, rewards)?;
    if target.universe() != n {
        return Err(Error::arg(
            "target",
            format!("a set over {} states for a model of {n}", target.universe()),
        ));
    }
    // Minimising: the states that can reach the target with probability 1 (Prob1E), the choices
    // that keep them there, and an attractor policy. Maximising, the maximiser may miss the
    // target: +∞ wherever some policy misses it with positive probability; elsewhere every policy
    // reaches it almost surely (and stays there).
    let (sure, allowed, mut policy) = if optimum == Optimum::Max {
        let (all_reach, avoid, avoid_policy) = prob01_min(mdp, target);
        let allowed = (0..n)
            .map(|s| {
                if all_reach.contains(s as StateId) {
                    (0..m.group_rows(s).len() as u32).collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let policy = missing_policy(mdp, target, &all_reach, &avoid, &avoid_policy);
        (all_reach, allowed, policy)
    } else {
        let (sure, policy) = prob1e(mdp, target);
        let allowed = choices_within(mdp, &sure);
        (sure, allowed, policy)
    };
    if let Some(b) = super::topological::total_reward_bounds(
        mdp, rewards, target, &sure, &allowed, &policy, optimum, options,
    ) {
        let mut values = vec![0.0; n];
        let mut bound = 0.0f64;
        for s in 0..n {
            if !sure.contains(s as StateId) {
                values[s] = f64::INFINITY;
            } else if !target.contains(s as StateId) {
                let (l, h) = (b.lo[s], b.hi[s]);
                values[s] = l + (h - l) / 2.0;
                // Half the interval, and the midpoint's own rounding.
                bound = bound.max((h - l) / 2.0 + f64::EPSILON * h);
                policy[s] = b.policy[s];
            }
        }
        return Ok(MdpSolution {
            values,
            policy,
            error_bound: bound,
            iterations: b.sweeps,
            method: account::Method::TopologicalValueIteration {
                cyclic: b.cyclic,
                sweeps: b.sweeps,
                by_policy_iteration: b.by_policy_iteration,
                rounds: b.rounds,
            },
        });
    }
    policy_iteration(mdp, rewards, target, &sure, &allowed, policy, optimum, options)
}

/// Policy iteration for the total reward until `target` over the `allowed` choices of the states
/// in `sure` (the others `+∞`), from `policy`, which must reach the target almost surely from
/// `sure`: each policy evaluated on its Markov chain by [`AbsorbingChain`], improved greedily.
/// The bound is the final evaluation's certified bound plus `δ · t`, `δ` the remaining Bellman
/// gap and `t` the longest expected time to the target under the policy found.
///
/// # Errors
/// [`Error::LimitReached`] if the policy keeps changing past `options.max_iterations`; as
/// [`AbsorbingChain::new`] and [`AbsorbingChain::expected_reward`]; [`Error::Interrupted`] if a
/// stop is requested ([`crate::interrupt`], checked every round).
#[allow(clippy::too_many_arguments)]
pub(super) fn policy_iteration(
    mdp: &Mdp,
    rewards: &[f64],
    target: &StateSet,
    sure: &StateSet,
    allowed: &[Vec<u32>],
    mut policy: Vec<u32>,
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    let n = mdp.n();
    let m = mdp.matrix();
    let row_of = |s: usize, choice: u32| m.group_rows(s).start + choice as usize;
    let q = |v: &[f64], row: usize| m.row_value(row, v, Affine::offset(rewards));
    for round in 1..=options.max_iterations {
        options.report(round, f64::NAN);
        crate::interrupt::check()?;
        let rows: Vec<usize> = (0..n).map(|s| row_of(s, policy[s])).collect();
        let chain = Dtmc::new(m.select_rows(&rows), mdp.initial().to_vec())?;
        let absorbing = AbsorbingChain::new(&chain, target)?;
        let r_pi: Vec<f64> = rows.iter().map(|&r| rewards[r]).collect();
        let (mut v, _, eval_bound) = absorbing.expected_reward(&r_pi)?;
        for s in (0..n).filter(|&s| !sure.contains(s as StateId)) {
            v[s] = f64::INFINITY;
        }
        if let Some(s) = (0..n).find(|&s| sure.contains(s as StateId) && !v[s].is_finite()) {
            return Err(Error::arg(
                "objective",
                format!(
                    "policy iteration reached a policy that misses the target from state {} (a cycle of zero reward?)",
                    mdp.state_name(s as StateId)
                ),
            ));
        }
        let mut changed = false;
        let mut gap = 0.0f64;
        for s in 0..n {
            if target.contains(s as StateId) || !sure.contains(s as StateId) {
                continue;
            }
            let current = q(&v, rows[s]);
            let tol = 1e-13 * (current.abs() + 1.0);
            let mut best = (current, policy[s]);
            for &c in &allowed[s] {
                let qa = q(&v, row_of(s, c));
                if optimum.better(qa, best.0) {
                    gap = gap.max((qa - v[s]).abs());
                    if (qa - current).abs() > tol {
                        best = (qa, c);
                    }
                }
            }
            gap = gap.max((current - v[s]).abs());
            if best.1 != policy[s] {
                policy[s] = best.1;
                changed = true;
            }
        }
        if !changed {
            let t = absorbing.absorption_time();
            crate::interrupt::check()?;
            let t_max = t
                .mean
                .iter()
                .filter(|x| x.is_finite())
                .fold(0.0f64, |a, x| a.max(*x));
            // For the model as written: each probability and reward within a relative η of its
            // stored value moves `Tv` by at most η(‖r‖∞ + ‖v‖∞), and the expected steps by the
            // growth factor of the entrywise bound.
            let m = mdp.matrix();
            let longest = (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0);
            let eta = crate::numeric::entry_rounding(longest);
            let finite = |x: &&f64| x.is_finite();
            let r_max = rewards.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            let v_max = v.iter().filter(finite).fold(0.0f64, |a, x| a.max(x.abs()));
            let stay = t_max * (1.0 + crate::numeric::perturbation_growth(t.mean.len(), eta));
            return Ok(MdpSolution {
                error_bound: eval_bound + (gap + eta * (r_max + v_max)) * stay,
                values: v,
                policy,
                iterations: round,
                method: account::Method::AttractorPolicyIteration {
                    evaluation: Box::new(t.method),
                },
            });
        }
    }
    Err(Error::LimitReached {
        what: "policy iteration",
        limit: options.max_iterations,
        message: "the policy kept changing".into(),
    })
}

/// Maximising: outside `all_reach`, a policy that misses the target with positive probability —
/// in `avoid` the choice that stays there, elsewhere a choice with a successor one step closer (by
/// breadth-first layers through non-target states) to `avoid`.
fn missing_policy(
    mdp: &Mdp,
    target: &StateSet,
    all_reach: &StateSet,
    avoid: &StateSet,
    avoid_policy: &[u32],
) -> Vec<u32> {
    let n = mdp.n();
    let m = mdp.matrix();
    let mut policy = vec![0u32; n];
    let mut layer: Vec<u32> = (0..n)
        .map(|s| if avoid.contains(s as StateId) { 0 } else { u32::MAX })
        .collect();
    for s in avoid.iter() {
        policy[s as usize] = avoid_policy[s as usize];
    }
    let mut d = 0;
    loop {
        let mut grew = false;
        for s in 0..n {
            if layer[s] != u32::MAX || target.contains(s as StateId) || all_reach.contains(s as StateId) {
                continue;
            }
            let group = m.group_rows(s);
            if let Some(r) = group
                .clone()
                .find(|&r| m.row(r).0.iter().any(|&t| layer[t as usize] == d))
            {
                layer[s] = d + 1;
                policy[s] = (r - group.start) as u32;
                grew = true;
            }
        }
        if !grew {
            return policy;
        }
        d += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Rational;

    /// 0: choice 0 (reward 1) → 1; choice 1 (reward 5) → 2 (target). 1: (reward 1) → 2 w.p. 1/2,
    /// back to 0 w.p. 1/2. 3: only → 3 (a trap). Min: from 1, v1 = 1 + v0/2, v0 = min(1 + v1, 5) ⇒
    /// with choice 0 v0 = 1 + 1 + v0/2 ⇒ v0 = 4, v1 = 3; the trap is +∞.
    #[test]
    fn shortest_path_with_a_trap() {
        let mdp = super::super::test_mdp(&[
            &[&[(1, 1.0)], &[(2, 1.0)]],
            &[&[(2, 0.5), (0, 0.5)]],
            &[&[(2, 1.0)]],
            &[&[(3, 1.0)]],
        ]);
        let rewards = [1.0, 5.0, 1.0, 0.0, 1.0];
        let target = StateSet::from_states(4, [2]);
        let s = total_reward(&mdp, &rewards, &target, Optimum::Min, &MdpOptions::default()).unwrap();
        assert!(
            (s.values[0] - 4.0).abs() <= s.error_bound.max(1e-15),
            "{:?}",
            s.values
        );
        assert!((s.values[1] - 3.0).abs() <= s.error_bound.max(1e-15));
        assert_eq!(s.values[2], 0.0);
        assert_eq!(s.values[3], f64::INFINITY);
        assert_eq!(s.policy[0], 0);
        assert!(s.error_bound < 1e-13);
        let (exact, policy) = super::super::total_reward_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&rewards).unwrap(),
            &target,
            Optimum::Min,
            &s.policy,
        )
        .unwrap();
        assert_eq!(
            exact[..3],
            [
                Some(Rational::from(4)),
                Some(Rational::from(3)),
                Some(Rational::ZERO)
            ]
        );
        assert_eq!(exact[3], None);
        assert_eq!(policy, s.policy);
        // Maximising: only the trap and state 3 miss; from 0 the policy "→ 1" (cycle) reaches the
        // goal surely too; max v0 = max(1 + v1, 5) with v1 = 1 + v0/2 ⇒ cycling gives v0 = 4 < 5.
        let max = total_reward(&mdp, &rewards, &target, Optimum::Max, &MdpOptions::default()).unwrap();
        assert!(
            (max.values[0] - 5.0).abs() <= max.error_bound.max(1e-15),
            "{:?}",
            max.values
        );
        assert!((max.values[1] - 3.5).abs() <= max.error_bound.max(1e-15));
        assert_eq!(max.values[3], f64::INFINITY);
        assert_eq!(max.policy[0], 1);
        // The same as costs (negative rewards): the signs flip, +∞ becomes −∞.
        let costs: Vec<f64> = rewards.iter().map(|r| -r).collect();
        let worst = total_reward(&mdp, &costs, &target, Optimum::Min, &MdpOptions::default()).unwrap();
        assert!(
            (worst.values[0] + 5.0).abs() <= worst.error_bound.max(1e-15),
            "{:?}",
            worst.values
        );
        assert_eq!(worst.values[3], f64::NEG_INFINITY);
        let mixed = [1.0, -1.0, 0.0, 0.0, 0.0];
        assert!(total_reward(&mdp, &mixed, &target, Optimum::Min, &MdpOptions::default()).is_err());
    }
}
