//! One entry point for a two-player turn-based stochastic game's objectives, as [`crate::mdp::solve`]
//! is for MDPs: the floating-point solve with its certified bound, then, when asked, the exact
//! value from its strategies. The game is the row-grouped `mdp` with each state owned by the
//! maximiser (`maximiser[s]`) or the minimiser; the maximiser seeks the largest value.

use super::{long_run_exact, reach_bounds, reach_exact, total_reward_bounds, total_reward_exact};
use crate::exact::Rational;
use crate::mdp::{
    LongRunOptions, MdpOptions, MdpSolution, Objective, Solved, discounted_by, discounted_exact_from,
    finite_horizon_by, finite_horizon_exact_by, keep,
};
use crate::model::Mdp;
use crate::sparse::Direction;
use crate::{Error, Result};

/// Solves the game on `mdp` with owners `maximiser` (length `n`) for `objective`, with `rewards`
/// per choice (ignored by [`Objective::Reach`]); with `exact` (the exact rewards, or why there
/// are none) also its exact values from the floating-point strategies, a failure of the exact
/// solve reported in [`Solved::exact_refused`].
///
/// - [`Objective::Reach`] and [`Objective::Total`]: strategy iteration from both sides
///   ([`reach_bounds`], [`total_reward_bounds`]; Condon 1992, Hoffman & Karp 1966).
/// - [`Objective::Horizon`]: backward induction with each state reduced by its owner (Shapley,
///   "Stochastic games", PNAS 39, 1953), every stage's choices kept.
/// - [`Objective::Average`]: the gain by bracketed value iteration ([`super::long_run`]: the
///   stage increments bracket the gain; a game whose optimal play is not unichain, where the gain
///   could differ by state, is refused with [`Error::LimitReached`]); every state gets the gain.
/// - [`Objective::Discounted`]: Jacobi value iteration by owner certified by MacQueen's bounds
///   (they hold for games: the Bellman operator is monotone and shifts constants by `γ`); exact
///   values by evaluating the strategies found exactly and checking the Bellman equation (see
///   `discounted_exact_from`'s reasoning in `crate::mdp`), switching where it fails, at most 50
///   rounds.
///
/// # Errors
/// [`Error::InvalidArgument`] when `maximiser` is not of length `n`; the solvers' errors.
pub fn solve(
    mdp: &Mdp,
    maximiser: &[bool],
    objective: &Objective,
    rewards: &[f64],
    exact: Option<Result<Vec<Rational>>>,
    options: &MdpOptions,
) -> Result<Solved> {
    if maximiser.len() != mdp.n() {
        return Err(Error::arg(
            "maximiser",
            format!("{} owners for {} states", maximiser.len(), mdp.n()),
        ));
    }
    let direction = |s: usize| {
        if maximiser[s] {
            Direction::Max
        } else {
            Direction::Min
        }
    };
    let mut refused: Option<String> = None;
    let asked = exact.is_some();
    let exact_rewards = |refused: &mut Option<String>| exact.and_then(|r| keep(refused, r));
    let finite = |v: Vec<Rational>| v.into_iter().map(Some).collect::<Vec<_>>();
    let mut decisions = None;
    let (solution, exact_values) = match objective {
        Objective::Reach(target) => {
            let s = reach_bounds(mdp, maximiser, target, options)?;
            let x = if asked {
                keep(
                    &mut refused,
                    reach_exact(mdp, maximiser, target, &s.policy).map(finite),
                )
            } else {
                None
            };
            (s, x)
        }
        Objective::Total(target) => {
            let s = total_reward_bounds(mdp, maximiser, rewards, target, options)?;
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    total_reward_exact(mdp, maximiser, &r, target, &s.policy),
                )
            });
            (s, x)
        }
        Objective::Horizon { steps, discount } => {
            let gamma = discount.as_ref().filter(|g| **g != Rational::ONE);
            let g = gamma.map(crate::exact::Scalar::to_f64);
            let h = finite_horizon_by(mdp, rewards, *steps, g, direction)?;
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    finite_horizon_exact_by(mdp, &r, *steps, gamma, direction),
                )
            });
            let mut d = h.decisions;
            // The first stage's choices are the exact comparison's when there is one.
            let x = x.map(|(v, first)| {
                if let Some(stage) = d.first_mut() {
                    *stage = first;
                }
                finite(v)
            });
            let s = MdpSolution {
                values: h.values,
                policy: d.first().cloned().unwrap_or_else(|| vec![0; mdp.n()]),
                error_bound: h.error_bound,
                iterations: *steps,
                method: crate::account::Method::BackwardInduction,
            };
            decisions = Some(d);
            (s, x)
        }
        Objective::Average => {
            let lr = crate::mdp::long_run(
                mdp.matrix(),
                rewards,
                direction,
                &LongRunOptions {
                    max_stages: options.max_iterations.min(LongRunOptions::default().max_stages),
                    ..LongRunOptions::default()
                },
            )?;
            let s = MdpSolution {
                values: vec![lr.gain(); mdp.n()],
                policy: lr.choices.clone(),
                error_bound: (lr.gain_upper - lr.gain_lower) / 2.0 * (1.0 + 4.0 * f64::EPSILON),
                iterations: lr.stages,
                method: crate::account::Method::BracketedValueIteration,
            };
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    long_run_exact(mdp, maximiser, &r, &s.policy).map(|g| vec![Some(g); mdp.n()]),
                )
            });
            (s, x)
        }
        Objective::Discounted(gamma) => {
            let g = crate::exact::Scalar::to_f64(gamma);
            let s = discounted_by(mdp, rewards, g, direction, options)?;
            let x = exact_rewards(&mut refused).and_then(|r| {
                keep(
                    &mut refused,
                    discounted_exact_from(mdp, &r, gamma, direction, s.policy.clone(), Some(EXACT_ROUNDS))
                        .map(|(v, _)| finite(v)),
                )
            });
            (s, x)
        }
    };
    let (solution, exact_policy) = match &exact_values {
        Some(values) => (
            solution.with_exact(None, values.iter().map(Option::as_ref)),
            false,
        ),
        None => (solution, false),
    };
    crate::mdp::certified(Solved {
        solution,
        exact: exact_values,
        exact_policy,
        exact_refused: refused,
        bias: None,
        decisions,
    })
}

/// Rounds of exact strategy improvement before a discounted game's exact values are refused.
const EXACT_ROUNDS: u64 = 50;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::test_mdp;

    /// State 0 (max): reward 1 and stay, or reward 0 and go to 1. State 1 (min): reward 5 and go
    /// to 0, or reward 2 and stay (the game of `bellman`'s tests).
    fn game() -> (Mdp, Vec<bool>, Vec<f64>) {
        let mdp = test_mdp(&[&[&[(0, 1.0)], &[(1, 1.0)]], &[&[(0, 1.0)], &[(1, 1.0)]]]);
        (mdp, vec![true, false], vec![1.0, 0.0, 5.0, 2.0])
    }

    #[test]
    fn average_is_the_gain_of_optimal_play_with_its_exact_value() {
        let (mdp, max, r) = game();
        let s = solve(
            &mdp,
            &max,
            &Objective::Average,
            &r,
            Some(crate::exact::rationalize_rewards(&r)),
            &MdpOptions::default(),
        )
        .expect("solves");
        // Max leaves 0 (staying earns 1 per step); in 1 Min stays (2 per step) rather than cycle
        // through 0 (5 every other step). Gain 2 from both states.
        assert!(s.solution.values.iter().all(|v| (v - 2.0).abs() < 1e-12));
        let x = s.exact.expect("exact gain");
        assert!(
            x.iter()
                .all(|g| g.as_ref().map(ToString::to_string).as_deref() == Some("2"))
        );
    }

    #[test]
    fn horizon_reduces_each_state_by_its_owner() {
        let (mdp, max, r) = game();
        let s = solve(
            &mdp,
            &max,
            &Objective::Horizon {
                steps: 2,
                discount: None,
            },
            &r,
            Some(crate::exact::rationalize_rewards(&r)),
            &MdpOptions::default(),
        )
        .expect("solves");
        // V1 = (max(1, 0), min(5, 2)) = (1, 2); V2(0) = max(1 + 1, 0 + 2) = 2 (first choice on
        // the tie), V2(1) = min(5 + 1, 2 + 2) = 4.
        assert_eq!(s.solution.values, vec![2.0, 4.0]);
        let d = s.decisions.expect("stages");
        assert_eq!(d, vec![vec![0, 1], vec![0, 1]]);
        let x = s.exact.expect("exact");
        assert_eq!(x[1].as_ref().map(ToString::to_string).as_deref(), Some("4"));
    }

    #[test]
    fn discounted_game_values_solve_the_shapley_equations() {
        let (mdp, max, r) = game();
        let gamma = crate::exact::parse_exact("0.9").expect("decimal");
        let s = solve(
            &mdp,
            &max,
            &Objective::Discounted(gamma),
            &r,
            None,
            &MdpOptions::default(),
        )
        .expect("solves");
        // Min in y: staying gives 2/(1 − 0.9) = 20; going back gives 5 + 0.9 v(x). Max in x:
        // staying gives 1/(1 − 0.9) = 10, going gives 0.9 v(y). With v(y) = 20, v(x) = max(10,
        // 18) = 18, and 5 + 0.9 · 18 = 21.2 > 20, so Min stays: v = (18, 20).
        assert!((s.solution.values[0] - 18.0).abs() <= s.solution.error_bound);
        assert!((s.solution.values[1] - 20.0).abs() <= s.solution.error_bound);
        assert!(s.solution.error_bound < 1e-9);
        assert_eq!(s.solution.policy, vec![1, 1]);
    }
}
