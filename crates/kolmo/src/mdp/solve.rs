//! One entry point for every MDP objective, in floating point and, when asked, in exact rational
//! arithmetic: the floating-point solve first, then the exact solver started from its policy
//! (policy iteration in rationals improves on it where ties hide a better choice). The command
//! line's `kolmo solve` and the Python package's `kolmo.solve` both go through [`solve`], so the
//! two report the same values, bounds, policies and the same reason when exact values are refused.

use super::{
    HorizonSolution, MdpOptions, MdpSolution, Optimum, average, bias, discounted, discounted_exact,
    finite_horizon, finite_horizon_exact, reach_probability, reach_probability_exact, total_reward,
    total_reward_exact,
};
use crate::Result;
use crate::exact::Rational;
use crate::model::{Mdp, StateSet};

/// What to optimise (Puterman, *Markov Decision Processes*, 1994: ch. 4 finite horizons, ch. 6
/// discounted, ch. 7 total reward, ch. 8–9 average reward; reachability as a total reward of 1
/// on entering the target, Baier & Katoen, *Principles of Model Checking*, 2008, §10.6).
#[derive(Clone, Debug)]
pub enum Objective {
    /// The probability of reaching the target states.
    Reach(StateSet),
    /// The expected total reward until the target states are reached.
    Total(StateSet),
    /// The expected discounted total reward over an infinite horizon, with the discount `γ` as an
    /// exact fraction in `[0, 1)` (the floating-point solve uses its nearest `f64`).
    Discounted(Rational),
    /// The expected total reward over `steps` steps, each step's future discounted by `discount`
    /// (`None` or 1: undiscounted).
    Horizon {
        /// The number of steps `k`.
        steps: u64,
        /// The discount, exactly.
        discount: Option<Rational>,
    },
    /// The long-run average reward per step (the gain).
    Average,
}

impl Objective {
    /// Whether the values are probabilities (their certified interval is kept inside `[0, 1]`).
    #[must_use]
    pub fn is_probability(&self) -> bool {
        matches!(self, Self::Reach(_))
    }

    /// Whether the objective reads rewards.
    #[must_use]
    pub fn needs_rewards(&self) -> bool {
        !self.is_probability()
    }
}

/// An MDP's solution for an [`Objective`], with what goes beside the values.
#[derive(Clone, Debug)]
pub struct Solved {
    /// Values, policy and certified bound. With exact values, each value is its exact value's
    /// nearest `f64` and the policy the exact solver's (see [`MdpSolution::with_exact`]).
    pub solution: MdpSolution,
    /// The exact values (length `n`; `None` for an infinite value, whose sign `solution.values`
    /// gives), when they were asked for and could be computed.
    pub exact: Option<Vec<Option<Rational>>>,
    /// Whether `solution.policy` is the exact solver's (exact values for a finite horizon are
    /// computed without improving its floating-point choices only when no policy comes back).
    pub exact_policy: bool,
    /// Why exact values were asked for and not given (the decimals still are, within their bound).
    pub exact_refused: Option<String>,
    /// With [`Objective::Average`]: the bias of the optimal policy when its chain is unichain
    /// (Puterman §8.2), else `None`.
    pub bias: Option<Vec<f64>>,
    /// With [`Objective::Horizon`]: `decisions[t][s]`, the optimal choice in `s` with `k − t`
    /// steps to go (only the first stage beyond [`super::MAX_STORED_DECISIONS`] entries); the
    /// first stage is the exact solver's when exact values were computed.
    pub decisions: Option<Vec<Vec<u32>>>,
}

/// Solves `mdp` for `objective` (seeking `optimum`) with `rewards` per choice (length
/// `mdp.choices()`; ignored by [`Objective::Reach`]). With `exact` (`Some`: the rewards as exact
/// fractions, or why there are none) the values are also computed in rational arithmetic on the
/// model's exact probabilities ([`Mdp::exact_matrix`]), starting from the floating-point policy;
/// a failure of the exact solve (probabilities that are not simple fractions, a model too large)
/// is reported in [`Solved::exact_refused`], never as an error of the whole solve. The average
/// objective has no exact solver: asking for one is refused with that reason.
///
/// # Errors
/// Those of the floating-point solvers: [`crate::Error::InvalidArgument`] for rewards of the
/// wrong length or a discount out of range, [`crate::Error::LimitReached`] when
/// `options.max_iterations` is reached, [`crate::Error::Uncertified`] when no bound closes.
pub fn solve(
    mdp: &Mdp,
    objective: &Objective,
    optimum: Optimum,
    rewards: &[f64],
    exact: Option<Result<Vec<Rational>>>,
    options: &MdpOptions,
) -> Result<Solved> {
    let mut refused: Option<String> = None;
    let asked = exact.is_some();
    // The exact rewards, or the reason they are missing kept for the report.
    let exact_rewards = |refused: &mut Option<String>| exact.and_then(|r| keep(refused, r));
    let finite = |(v, p): (Vec<Rational>, Vec<u32>)| (v.into_iter().map(Some).collect(), p);
    let mut bias_values = None;
    let mut decisions = None;
    let (solution, exact_pair) = match objective {
        Objective::Reach(target) => {
            let s = reach_probability(mdp, target, optimum, options)?;
            let x = if asked {
                keep(
                    &mut refused,
                    reach_probability_exact(mdp, target, optimum, &s.policy).map(finite),
                )
            } else {
                None
            };
            (s, x)
        }
        Objective::Total(target) => {
            let s = total_reward(mdp, rewards, target, optimum, options)?;
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    total_reward_exact(mdp, &r, target, optimum, &s.policy),
                )
            });
            (s, x)
        }
        Objective::Discounted(gamma) => {
            let s = discounted(mdp, rewards, gamma.to_f64().value(), optimum, options)?;
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    discounted_exact(mdp, &r, gamma, optimum).map(finite),
                )
            });
            (s, x)
        }
        Objective::Average => {
            let s = average(mdp, rewards, optimum, 1e-12, options.max_iterations)?;
            bias_values = bias(mdp, rewards, &s.policy)?;
            if asked {
                refused = Some(
                    "kolmo has no exact solver for the long-run average yet: the gain and bias are \
                     floating point, within the bound shown"
                        .into(),
                );
            }
            (s, None)
        }
        Objective::Horizon { steps, discount } => {
            // A discount of 1 is none.
            let gamma = discount.as_ref().filter(|g| **g != Rational::ONE);
            let h: HorizonSolution =
                finite_horizon(mdp, rewards, *steps, gamma.map(|g| g.to_f64().value()), optimum)?;
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    finite_horizon_exact(mdp, &r, *steps, gamma, optimum).map(finite),
                )
            });
            let s = MdpSolution {
                values: h.values,
                policy: h.decisions.first().cloned().unwrap_or_else(|| vec![0; mdp.n()]),
                error_bound: h.error_bound,
                iterations: *steps,
                method: crate::account::Method::BackwardInduction,
            };
            decisions = Some(h.decisions);
            (s, x)
        }
    };
    let (solution, exact_values, exact_policy) = match exact_pair {
        Some((values, policy)) => {
            // A finite horizon's first stage is the exact solver's too.
            if let Some(first) = decisions.as_mut().and_then(|d: &mut Vec<Vec<u32>>| d.first_mut()) {
                first.clone_from(&policy);
            }
            let s = solution.with_exact(Some(policy), values.iter().map(Option::as_ref));
            (s, Some(values), true)
        }
        None => (solution, None, false),
    };
    certified(Solved {
        solution,
        exact: exact_values,
        exact_policy,
        exact_refused: refused,
        bias: bias_values,
        decisions,
    })
}

/// `solved` if its bound is a number (exact values always are), else [`crate::Error::Uncertified`]:
/// a floating-point evaluation that overflowed or lost every digit gives no answer, never a
/// value with an infinite bound.
pub(crate) fn certified(solved: Solved) -> Result<Solved> {
    let s = &solved.solution;
    if s.error_bound.is_finite() && !s.values.iter().any(|v| v.is_nan()) {
        return Ok(solved);
    }
    Err(crate::Error::Uncertified {
        what: "the optimal values",
        bound: s.error_bound,
        residual: f64::NAN,
        hint: match &solved.exact_refused {
            Some(why) => format!("; no exact values either: {why}"),
            None => "; ask for the exact values (kolmo solve --exact, exact=True in Python)".into(),
        },
    })
}

/// `r`'s value, or `None` with its error kept in `refused` for the report.
pub(crate) fn keep<T>(refused: &mut Option<String>, r: Result<T>) -> Option<T> {
    r.map_err(|e| *refused = Some(e.to_string())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::test_mdp;

    // Puterman's two-state example (Markov Decision Processes, 1994, §3.1; ../shared/cases/08-mdp.md):
    // state 0 has a1 (stay w.p. 1/2, reward 5) and a2 (move to 1, reward 10); state 1 stays
    // with reward −1. At γ = 0.95 the optimal values are exact fractions the solver must give.
    fn two_state() -> (Mdp, Vec<f64>) {
        let mdp = test_mdp(&[&[&[(0, 0.5), (1, 0.5)], &[(1, 1.0)]], &[&[(1, 1.0)]]]);
        (mdp, vec![5.0, 10.0, -1.0])
    }

    #[test]
    fn discounted_exact_values_and_policy_come_with_the_floating_point_ones() {
        let (mdp, r) = two_state();
        let exact_r = crate::exact::rationalize_rewards(&r);
        let gamma: Rational = crate::exact::parse_exact("19/20").expect("fraction");
        let s = solve(
            &mdp,
            &Objective::Discounted(gamma),
            Optimum::Max,
            &r,
            Some(exact_r),
            &MdpOptions::default(),
        )
        .expect("solves");
        // v(1) = −1/(1 − 0.95) = −20; v(0) = max(5 + 0.95(v0 + v1)/2, 10 + 0.95 v1):
        // a1 gives v0 = (5 − 9.5)/(1 − 0.475) = −60/7 ≈ −8.571; a2 gives 10 − 19 = −9: a1 wins.
        let x = s.exact.expect("exact values");
        assert_eq!(x[1].as_ref().map(ToString::to_string).as_deref(), Some("-20"));
        assert_eq!(x[0].as_ref().map(ToString::to_string).as_deref(), Some("-60/7"));
        assert!(s.exact_policy && s.exact_refused.is_none());
        assert_eq!(s.solution.policy, vec![0, 0]);
        assert!((s.solution.values[0] + 60.0 / 7.0).abs() < 1e-14);
    }

    #[test]
    fn average_refuses_exact_values_with_a_reason_and_keeps_the_bias() {
        let (mdp, r) = two_state();
        let s = solve(
            &mdp,
            &Objective::Average,
            Optimum::Max,
            &r,
            Some(crate::exact::rationalize_rewards(&r)),
            &MdpOptions::default(),
        )
        .expect("solves");
        // Every policy ends in state 1 for ever: the gain is −1 everywhere.
        assert!(s.solution.values.iter().all(|v| (v + 1.0).abs() < 1e-9));
        assert!(s.exact.is_none());
        assert!(s.exact_refused.expect("a reason").contains("no exact solver"));
        assert!(s.bias.is_some());
    }

    #[test]
    fn horizon_keeps_every_stage_and_the_exact_first_stage() {
        let (mdp, r) = two_state();
        let s = solve(
            &mdp,
            &Objective::Horizon {
                steps: 3,
                discount: None,
            },
            Optimum::Max,
            &r,
            Some(crate::exact::rationalize_rewards(&r)),
            &MdpOptions::default(),
        )
        .expect("solves");
        // Three steps from state 0: a2 then −1, −1 gives 8; a1 gives 5 + (V2(0) + V2(1))/2 with
        // V2(0) = max(5 + (V1(0) + V1(1))/2, 10 − 1) = max(5 + 4.5, 9) = 9.5, V2(1) = −2:
        // 5 + 3.75 = 8.75. So V3(0) = 8.75 = 35/4, V3(1) = −3.
        let x = s.exact.expect("exact");
        assert_eq!(x[0].as_ref().map(ToString::to_string).as_deref(), Some("35/4"));
        assert_eq!(x[1].as_ref().map(ToString::to_string).as_deref(), Some("-3"));
        let d = s.decisions.expect("decisions");
        assert_eq!(d.len(), 3);
        assert_eq!(d[0][0], 0);
    }

    #[test]
    fn long_exact_horizons_are_refused_with_the_reason_and_the_decimals_kept() {
        let (mdp, r) = two_state();
        let s = solve(
            &mdp,
            &Objective::Horizon {
                steps: 100_000,
                discount: None,
            },
            Optimum::Max,
            &r,
            Some(crate::exact::rationalize_rewards(&r)),
            &MdpOptions::default(),
        )
        .expect("solves in floating point");
        assert!(s.exact.is_none());
        assert!(
            s.exact_refused
                .expect("a reason")
                .contains("too long for exact arithmetic")
        );
        // From state 1: −1 per step for 100,000 steps.
        assert_eq!(s.solution.values[1], -100_000.0);
    }

    #[test]
    fn an_overflowing_total_is_refused_not_printed() {
        // State 0 earns 1e308 per step and leaves for the target w.p. 1/10: 1e309 overflows.
        let mdp = test_mdp(&[&[&[(0, 0.9), (1, 0.1)]], &[&[(1, 1.0)]]]);
        let r = vec![1e308, 0.0];
        let target = StateSet::from_states(2, [1]);
        let e = solve(
            &mdp,
            &Objective::Total(target.clone()),
            Optimum::Max,
            &r,
            None,
            &MdpOptions::default(),
        );
        assert!(matches!(e, Err(crate::Error::Uncertified { .. })), "{e:?}");
        // Exact values answer: 10 times the reward (1e308 as stored, exactly).
        let x = solve(
            &mdp,
            &Objective::Total(target),
            Optimum::Max,
            &r,
            Some(crate::exact::rationalize_rewards(&r)),
            &MdpOptions::default(),
        );
        let stored = crate::exact::rationalize_rewards(&r).expect("finite")[0].clone();
        let exact = x.expect("exact values").exact.expect("given");
        assert_eq!(exact[0], Some(stored * Rational::from(10u64)));
    }
}
