//! Exact rational values of games, from the strategies the `f64` solvers found: both strategies
//! played out give a Markov chain, solved exactly; the values are then proved to be the game's
//! by an exact certificate at every state, else the strategies are improved where the exact
//! values show a better choice, and the certificate is tried again.
//!
//! # Certificates (`v` the exact values of the chain under the strategy pair `(σ, τ)`, `q(a)`
//! the value of choice `a` against `v`)
//! - Reachability: `v(s) ≥ q(a)` for every choice of the maximiser's states proves `v` at least
//!   the best the maximiser can do against `τ` (`v` is a super-fixed point of that MDP's Bellman
//!   operator, whose least fixed point is the value); `v(s) ≤ q(a)` at the minimiser's states and
//!   `v = 0` wherever the minimiser, against `σ`, can avoid the target forever proves `v` at most
//!   what `σ` guarantees (a play that never reaches the target ends in such states). Together:
//!   `v` is the game's value (Condon, "The complexity of stochastic games", 1992, for the
//!   operator; the graph analysis as in [`crate::graph::prob01_min`]).
//! - Total reward until the target (rewards `≥ 0`, `+∞` where the minimiser cannot force the
//!   target): the same two inequalities, with every strategy of the maximiser reaching the target
//!   almost surely against `τ` (then `v ≥ r + P v` bounds every such play's total), and `+∞`
//!   exactly off the minimiser's almost-sure set (exact graph analysis).
//! - Long-run average reward: the gain `g` and bias `h` of the chain (one closed class), with
//!   `g + h(s) ≥ q(a)` at the maximiser's states and `≤` at the minimiser's: then every state's
//!   value is `g` (the optimality equation of mean-payoff games; Filar & Vrieze, *Competitive
//!   Markov Decision Processes*, 1997, §5.3; Puterman 1994, Thm 8.4.1, for one player).

use super::strategy::{fixed, qualitative_strategy};
use crate::analysis::exact::{expected_reward_exact, reach_probability_exact as chain_reach_exact};
use crate::exact::Rational;
use crate::graph::{classes, prob01_min};
use crate::mdp::{exact_parts, policy_chain};
use crate::model::{Mdp, StateSet};
use crate::sparse::{Affine, Direction};
use crate::{Error, Result, StateId};

/// Rounds of exact improvement before refusing.
const ROUNDS: usize = 50;

/// The rows chosen by `strategy` (one choice per state).
fn rows_of(mdp: &Mdp, strategy: &[u32]) -> Vec<usize> {
    (0..mdp.n())
        .map(|s| mdp.matrix().group_rows(s).start + strategy[s] as usize)
        .collect()
}

/// The best choice of state `s` for its owner by `q` (`None`: +∞) and its value.
fn best(
    mdp: &Mdp,
    s: usize,
    maximiser: bool,
    q: impl Fn(usize) -> Option<Rational>,
) -> (Option<Rational>, u32) {
    let group = mdp.matrix().group_rows(s);
    let d = if maximiser { Direction::Max } else { Direction::Min };
    let mut out: (Option<Rational>, u32) = (q(group.start), 0);
    for row in group.clone().skip(1) {
        let x = q(row);
        let better = match (&x, &out.0) {
            (Some(a), Some(b)) => d.better(a, b),
            (None, Some(_)) => maximiser,
            (Some(_), None) => !maximiser,
            (None, None) => false,
        };
        if better {
            out = (x, (row - group.start) as u32);
        }
    }
    out
}

fn refused(what: &'static str) -> Error {
    Error::LimitReached {
        what,
        limit: ROUNDS as u64,
        message: "the exact values kept showing better choices than the strategies found; no exact value"
            .into(),
    }
}

/// The exact value of the reachability game (owners as [`super::reach_bounds`]) from `strategy`
/// (each state's owner's choice, e.g. the `f64` solution's), certified as the module docs say.
///
/// # Errors
/// As [`chain_reach_exact`] (too large, probabilities that are not simple fractions);
/// [`Error::LimitReached`] if 50 rounds of exact improvement do not give a certified value.
pub fn reach_exact(
    mdp: &Mdp,
    maximiser: &[bool],
    target: &StateSet,
    strategy: &[u32],
) -> Result<Vec<Rational>> {
    let p = mdp.exact_matrix()?;
    let n = mdp.n();
    let mut st = strategy.to_vec();
    for _ in 0..ROUNDS {
        crate::interrupt::check()?;
        let chain = policy_chain(mdp, &p, &rows_of(mdp, &st))?;
        let v = chain_reach_exact(&chain, target)?;
        // Where the minimiser can avoid the target forever against σ, the value must be 0.
        let (against_sigma, _) = fixed(mdp, |s| maximiser[s].then_some(st[s]))?;
        let (_, avoid, avoid_policy) = prob01_min(&against_sigma, target);
        let mut changed = false;
        let mut holds = true;
        for s in (0..n).filter(|&s| !target.contains(s as StateId)) {
            if avoid.contains(s as StateId) && v[s] != Rational::ZERO {
                holds = false;
                if !maximiser[s] && st[s] != avoid_policy[s] {
                    st[s] = avoid_policy[s];
                    changed = true;
                }
                continue;
            }
            let (b, c) = best(mdp, s, maximiser[s], |row| {
                Some(p.row_value(row, &v, Affine::product()))
            });
            let b = b.expect("finite");
            let better = if maximiser[s] { b > v[s] } else { b < v[s] };
            if better {
                holds = false;
                st[s] = c;
                changed = true;
            }
        }
        if holds {
            return Ok(v);
        }
        if !changed {
            break;
        }
    }
    Err(refused("exact values of a reachability game"))
}

/// The exact value of the game for the total reward until `target` (see
/// [`super::total_reward_bounds`]; `None` = ±∞), from `strategy`, certified as the module docs
/// say. `rewards` has one exact reward per choice, all `≥ 0` or all `≤ 0`.
///
/// # Errors
/// As [`expected_reward_exact`]; [`Error::InvalidArgument`] for rewards of the wrong length or of
/// both signs; [`Error::LimitReached`] if no certified value is found.
pub fn total_reward_exact(
    mdp: &Mdp,
    maximiser: &[bool],
    rewards: &[Rational],
    target: &StateSet,
    strategy: &[u32],
) -> Result<Vec<Option<Rational>>> {
    let p = exact_parts(mdp, rewards)?;
    let negative = rewards.iter().any(|r| *r < Rational::ZERO);
    if negative {
        if rewards.iter().any(|r| *r > Rational::ZERO) {
            return Err(Error::arg(
                "rewards",
                "rewards of both signs: the total until the target can be undefined",
            ));
        }
        let negated: Vec<Rational> = rewards.iter().map(|r| -r.clone()).collect();
        let swapped: Vec<bool> = maximiser.iter().map(|m| !m).collect();
        let v = total_reward_exact(mdp, &swapped, &negated, target, strategy)?;
        return Ok(v.into_iter().map(|x| x.map(|x| -x)).collect());
    }
    let n = mdp.n();
    let minimiser: Vec<bool> = maximiser.iter().map(|m| !m).collect();
    let (finite, _, _) = qualitative_strategy(mdp, &minimiser, target);
    let mut st = strategy.to_vec();
    for _ in 0..ROUNDS {
        crate::interrupt::check()?;
        let rows = rows_of(mdp, &st);
        let chain = policy_chain(mdp, &p, &rows)?;
        let r_pi: Vec<Rational> = rows.iter().map(|&row| rewards[row].clone()).collect();
        let v = expected_reward_exact(&chain, target, &r_pi)?;
        let known: Vec<Rational> = v.iter().map(|x| x.clone().unwrap_or(Rational::ZERO)).collect();
        let q = |row: usize| {
            p.row(row)
                .0
                .iter()
                .all(|&t| v[t as usize].is_some())
                .then(|| p.row_value(row, &known, Affine::offset(rewards)))
        };
        // Against τ, every strategy of the maximiser must reach the target almost surely.
        let (against_tau, _) = fixed(mdp, |s| (!maximiser[s]).then_some(st[s]))?;
        let (all_reach, _, _) = prob01_min(&against_tau, target);
        let mut holds = true;
        let mut changed = false;
        for s in (0..n).filter(|&s| finite.contains(s as StateId) && !target.contains(s as StateId)) {
            let Some(here) = &v[s] else {
                holds = false;
                continue;
            };
            if !all_reach.contains(s as StateId) {
                holds = false;
            }
            let (b, c) = best(mdp, s, maximiser[s], q);
            let better = match (&b, maximiser[s]) {
                (Some(b), true) => b > here,
                (None, true) => true,
                (Some(b), false) => b < here,
                (None, false) => false,
            };
            if better {
                holds = false;
                st[s] = c;
                changed = true;
            }
        }
        if holds {
            return Ok((0..n)
                .map(|s| {
                    if finite.contains(s as StateId) {
                        v[s].clone()
                    } else {
                        None
                    }
                })
                .collect());
        }
        if !changed {
            break;
        }
    }
    Err(refused("exact values of a reward game"))
}

/// The exact long-run average reward per step of the game (the same from every state) from
/// `strategy`, certified by the optimality equation as the module docs say. `rewards` has one
/// exact reward per choice.
///
/// # Errors
/// As [`expected_reward_exact`]; [`Error::InvalidArgument`] for rewards of the wrong length;
/// [`Error::LimitReached`] if the strategies leave several closed classes (the gain could differ
/// by state) or no certified value is found.
pub fn long_run_exact(
    mdp: &Mdp,
    maximiser: &[bool],
    rewards: &[Rational],
    strategy: &[u32],
) -> Result<Rational> {
    let p = exact_parts(mdp, rewards)?;
    let n = mdp.n();
    let mut st = strategy.to_vec();
    for _ in 0..ROUNDS {
        crate::interrupt::check()?;
        let rows = rows_of(mdp, &st);
        let chain = policy_chain(mdp, &p, &rows)?;
        let cls = classes(chain.matrix());
        let mut closed = cls.closed();
        let (Some(class), None) = (closed.next(), closed.next()) else {
            return Err(Error::LimitReached {
                what: "an exact long-run average of a game",
                limit: 1,
                message: "the strategies found leave several closed classes, whose gains may differ; no exact value".into(),
            });
        };
        let s0 = class.states[0];
        let at = StateSet::from_states(n, [s0]);
        let r_pi: Vec<Rational> = rows.iter().map(|&row| rewards[row].clone()).collect();
        // The gain: a cycle's expected reward over its expected length (renewal at s0).
        let ones = vec![Rational::ONE; n];
        let to_s0 = expected_reward_exact(&chain, &at, &ones)?;
        let earned = expected_reward_exact(&chain, &at, &r_pi)?;
        let row0 = rows[s0 as usize];
        let cycle = |x: &[Option<Rational>], first: &Rational| -> Rational {
            let (cols, vals) = p.row(row0);
            cols.iter().zip(vals).fold(first.clone(), |a, (&t, pr)| {
                a + pr * x[t as usize].clone().unwrap_or(Rational::ZERO)
            })
        };
        let g = cycle(&earned, &r_pi[s0 as usize]) / cycle(&to_s0, &Rational::ONE);
        let centred: Vec<Rational> = r_pi.iter().map(|r| r - &g).collect();
        let h: Vec<Rational> = expected_reward_exact(&chain, &at, &centred)?
            .into_iter()
            .map(|x| x.expect("one closed class: s0 is reached from everywhere"))
            .collect();
        let mut holds = true;
        let mut changed = false;
        for s in 0..n {
            let here = &g + &h[s];
            let (b, c) = best(mdp, s, maximiser[s], |row| {
                Some(p.row_value(row, &h, Affine::offset(rewards)))
            });
            let b = b.expect("finite");
            let better = if maximiser[s] { b > here } else { b < here };
            if better {
                holds = false;
                st[s] = c;
                changed = true;
            }
        }
        if holds {
            return Ok(g);
        }
        if !changed {
            break;
        }
    }
    Err(refused("an exact long-run average of a game"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::MdpOptions;
    use crate::sparse::CsrBuilder;

    /// A game whose values are fractions by hand: state 0 (maximiser) either moves to 1 or
    /// gambles (1/3 to the target 3, else 0); state 1 (minimiser) either gives 1/2 to the target
    /// and 1/2 back to 0, or 1/4 to the target and 3/4 to the sink 2. Value of 0: v0 = max(v1,
    /// 1/3), v1 = min(1/2 + v0/2, 1/4) = 1/4, so v0 = 1/3, v1 = 1/4.
    #[test]
    fn reachability_by_hand() {
        let mut b = CsrBuilder::new(4);
        b.new_row_group();
        b.add(1, 1.0);
        b.finish_row();
        b.add(3, 1.0 / 3.0);
        b.add(2, 2.0 / 3.0);
        b.finish_row();
        b.new_row_group();
        b.add(3, 0.5);
        b.add(0, 0.5);
        b.finish_row();
        b.add(3, 0.25);
        b.add(2, 0.75);
        b.finish_row();
        for s in [2, 3] {
            b.new_row_group();
            b.add(s, 1.0);
            b.finish_row();
        }
        let mdp = Mdp::new(b.build(), vec![0]).unwrap();
        let maximiser = [true, false, true, true];
        let target = StateSet::from_states(4, [3]);
        let f = super::super::reach_bounds(&mdp, &maximiser, &target, &MdpOptions::default()).unwrap();
        let v = reach_exact(&mdp, &maximiser, &target, &f.policy).unwrap();
        assert_eq!(v[0], Rational::from_parts(1.into(), 3u8.into()));
        assert_eq!(v[1], Rational::from_parts(1.into(), 4u8.into()));
        // From a bad strategy the exact rounds find the same.
        let w = reach_exact(&mdp, &maximiser, &target, &[0, 0, 0, 0]).unwrap();
        assert_eq!(v, w);
        // Rewards 1 per step until the target (+∞ where it may be missed): the sink never
        // reaches it; from 0 the maximiser gambles into the sink with 2/3; from 1 the
        // minimiser's choices both lead, with positive probability, to 0 or the sink. The
        // target itself earns nothing more.
        let rewards = vec![Rational::ONE; mdp.choices()];
        let t = total_reward_exact(&mdp, &maximiser, &rewards, &target, &f.policy).unwrap();
        assert_eq!(t, vec![None, None, None, Some(Rational::ZERO)]);
    }
}
