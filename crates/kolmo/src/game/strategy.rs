//! Reachability games with guaranteed bounds: strategy iteration from both sides, each side's
//! strategy evaluated by the certified MDP solver against the other side's best response.
//!
//! # Method
//! For any strategy `σ` of the maximiser, the minimiser's best response in the MDP that `σ`
//! leaves (`min_τ P^{σ,τ}`) is a lower bound on the game's value; for any strategy `τ` of the
//! minimiser, `max_σ P^{σ,τ}` is an upper bound (Condon, "The complexity of stochastic games",
//! Information and Computation 96(2), 1992; the game is determined with pure memoryless optimal
//! strategies). Both MDPs are solved by [`crate::mdp::reach_probability`], whose bounds are
//! certified, so the interval `[lower − ε, upper + ε]` holds whatever strategies produced it.
//!
//! The strategies come from Gauss–Seidel value iteration from 0 (which increases to the value,
//! the least fixed point; component by component in reverse topological order), each owner
//! greedy for the lower values; then rounds of improvement:
//! the maximiser switches where a choice is strictly better against the lower bound (Hoffman–Karp
//! strategy iteration), the minimiser takes the choices greedy for the lower bound — greedy
//! choices for the value are optimal for the player who avoids the target, since the value is a
//! supermartingale under them. It stops when the interval is narrower than the precision at
//! every state, and refuses if the strategies stop changing before that (the interval is then
//! reported in the error).

use crate::account;
use crate::mdp::{MdpOptions, MdpSolution, Optimum, reach_probability, total_reward};
use crate::model::{Mdp, StateSet};
use crate::sparse::{Affine, CsrBuilder};
use crate::{Error, Result, StateId};

/// The widest interval printed when the strategies no longer change (both solvers' own bounds
/// keep it from the precision), relative to the largest value (at least 1): certified all the
/// same.
const STALL_WIDTH: f64 = 1e-6;

/// Rounds of strategy improvement before giving up.
const MAX_ROUNDS: u64 = 200;

/// Gauss–Seidel sweeps of the initial value iteration, per strongly connected component, and
/// the relative change per sweep at which it stops.
const SWEEPS: u64 = 100;
const INITIAL_TOLERANCE: f64 = 1e-6;

/// The value of the reachability game on `mdp` (a row-grouped matrix whose states are owned by
/// the maximiser where `maximiser[s]`, else by the minimiser) for reaching `target`: values (the
/// midpoints of certified intervals), the half-width of the widest interval as the bound, and
/// each state's owner's choice (the maximiser's strategy where it owns the state, the
/// minimiser's elsewhere). See the module docs for the method.
///
/// # Errors
/// [`Error::InvalidArgument`] if `maximiser` or `target` does not range over the states;
/// [`Error::LimitReached`] if the strategies stop improving before the interval is within
/// `options.precision` (relative to 1) at every state, or after 200 rounds; what the MDP solver
/// returns.
pub fn reach_bounds(
    mdp: &Mdp,
    maximiser: &[bool],
    target: &StateSet,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    iterate(mdp, maximiser, target, Goal::Reach, options)
}

/// The value of the game on `mdp` (owners as for [`reach_bounds`]) for the expected total reward
/// earned until `target` is reached, `+∞` on a play that misses it (PRISM-games' `R [F φ]`;
/// Chen, Forejt, Kwiatkowska, Parker & Simaitis, "Automatic verification of competitive
/// stochastic systems", FMSD 43(1), 2013, §3): the maximiser seeks the largest total, the
/// minimiser the smallest. `rewards` has one entry per choice (length `m`), all `≥ 0` or all
/// `≤ 0` (then the players' roles in the sign are swapped and `−∞` replaces `+∞`); rewards of
/// choices in target states are not earned.
///
/// Graph analysis first: the value is finite exactly where the player who wants the total small
/// can force the target almost surely ([`qualitative`] with that player as the one who
/// reaches). There the strategies improve from both sides as in [`reach_bounds`], each side's
/// switches strictly improving against its own certified value (Hoffman & Karp, "On nonterminating
/// stochastic games", Management Science 12(5), 1966), from the almost-sure strategy for the
/// minimiser — a strict improvement keeps it almost sure, since a closed class of the chain it
/// leaves would need a strict decrease of a superharmonic function — and the maximiser's best
/// response to it. The bound is the half-width of the widest interval.
///
/// # Errors
/// As [`reach_bounds`]; [`Error::InvalidArgument`] for rewards of the wrong length, not finite,
/// or of both signs; the interval must close to `options.precision` relative to `max(1, |v|)`.
pub fn total_reward_bounds(
    mdp: &Mdp,
    maximiser: &[bool],
    rewards: &[f64],
    target: &StateSet,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    if rewards.iter().all(|r| *r <= 0.0) && rewards.iter().any(|r| *r < 0.0) {
        // Costs written as negative rewards: the players swap which total they seek.
        let negated: Vec<f64> = rewards.iter().map(|r| -r).collect();
        let swapped: Vec<bool> = maximiser.iter().map(|m| !m).collect();
        let mut s = iterate(mdp, &swapped, target, Goal::Reward(&negated), options)?;
        s.values.iter_mut().for_each(|v| *v = -*v);
        return Ok(s);
    }
    iterate(mdp, maximiser, target, Goal::Reward(rewards), options)
}

/// The value of the game on `mdp` (owners as for [`reach_bounds`]) for the expected total reward
/// over all time (PRISM's `R [C]`; with the target made absorbing, PRISM-games' `Fc`), `rewards`
/// per choice, all `≥ 0`: strategy iteration from both sides as in [`reach_bounds`], each side's
/// strategy fixed and the other's best response by the MDP solver of the total over all time
/// (end components that earn give `+∞`), the sides switching where strictly better against
/// their own values (Hoffman & Karp 1966). A state whose lower bound is `+∞` has value `+∞`
/// (the maximiser's strategy guarantees it).
///
/// # Errors
/// As [`total_reward_bounds`].
pub fn total_forever_bounds(
    mdp: &Mdp,
    maximiser: &[bool],
    rewards: &[f64],
    options: &MdpOptions,
) -> Result<MdpSolution> {
    iterate(
        mdp,
        maximiser,
        &StateSet::empty(mdp.n()),
        Goal::Forever(rewards),
        options,
    )
}

/// What a play is worth.
#[derive(Clone, Copy)]
enum Goal<'a> {
    /// 1 if it reaches the target, else 0.
    Reach,
    /// The rewards (per choice, `≥ 0`) until the target, `+∞` if it is missed.
    Reward(&'a [f64]),
    /// The rewards (per choice, `≥ 0`) over all time.
    Forever(&'a [f64]),
}

/// Strategy iteration from both sides for `goal` (see the module docs and
/// [`total_reward_bounds`]).
fn iterate(
    mdp: &Mdp,
    maximiser: &[bool],
    target: &StateSet,
    goal: Goal<'_>,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    let n = mdp.n();
    if maximiser.len() != n || target.universe() != n {
        return Err(Error::arg(
            "game",
            format!(
                "{} owners and a target over {} states for a game of {n}",
                maximiser.len(),
                target.universe()
            ),
        ));
    }
    if let Goal::Reward(r) | Goal::Forever(r) = goal {
        crate::mdp::check_total_rewards(mdp, r)?;
    }
    let m = mdp.matrix();
    let affine = match goal {
        Goal::Reach => Affine::product(),
        Goal::Reward(r) | Goal::Forever(r) => Affine::offset(r),
    };
    let direction = |s: usize| {
        if maximiser[s] {
            Optimum::Max.direction()
        } else {
            Optimum::Min.direction()
        }
    };
    // The states whose values are sought (`live`); the others are settled by graph analysis.
    let (yes, no, finite, mut sigma, mut tau) = match goal {
        Goal::Reach => {
            let (yes, no, _) = qualitative_strategy(mdp, maximiser, target);
            let choice = initial_choices(mdp, maximiser, target, None);
            (yes, no, StateSet::full(n), choice.clone(), choice)
        }
        Goal::Reward(r) => {
            // Finite where the minimiser can force the target almost surely. The minimiser's
            // choices greedy for value iteration where they cost something and stay in that
            // set, elsewhere the almost-sure attractor's (a greedy choice at no cost can loop
            // forever).
            let minimiser: Vec<bool> = maximiser.iter().map(|m| !m).collect();
            let (finite, _, sure) = qualitative_strategy(mdp, &minimiser, target);
            let greedy = initial_choices(mdp, maximiser, target, Some(r));
            let mixed: Vec<u32> = (0..n)
                .map(|s| {
                    let row = m.group_rows(s).start + greedy[s] as usize;
                    let stays = m.row(row).0.iter().all(|&t| finite.contains(t));
                    if stays && r[row] > 0.0 { greedy[s] } else { sure[s] }
                })
                .collect();
            // Strategy iteration needs it almost sure against every strategy of the
            // maximiser (the mix can cycle through paying choices): else the attractor's alone.
            let (against, _) = fixed(mdp, |s| (!maximiser[s]).then_some(mixed[s]))?;
            let (all_reach, _, _) = crate::graph::prob01_min(&against, target);
            let proper = finite.iter().all(|s| all_reach.contains(s));
            let tau = if proper { mixed } else { sure };
            // The maximiser's best response to it (greedy choices of his can stall).
            let hi = solve(
                mdp,
                goal,
                target,
                |s| (!maximiser[s]).then_some(tau[s]),
                Optimum::Max,
                options,
            )?;
            let empty = StateSet::empty(n);
            (empty.clone(), empty, finite, hi.policy, tau)
        }
        Goal::Forever(r) => {
            // The maximiser's choices greedy for value iteration (they loop where the total
            // grows without bound), the minimiser's best response to them.
            let sigma = initial_choices(mdp, maximiser, target, Some(r));
            let lo = solve(
                mdp,
                goal,
                target,
                |s| maximiser[s].then_some(sigma[s]),
                Optimum::Min,
                options,
            )?;
            let empty = StateSet::empty(n);
            (empty.clone(), empty, StateSet::full(n), sigma, lo.policy)
        }
    };
    let live: Vec<usize> = (0..n)
        .filter(|&s| finite.contains(s as StateId) && !target.contains(s as StateId))
        .collect();
    let precision = options.precision.max(1e-15);
    let mut last_width = None;
    for round in 1..=MAX_ROUNDS {
        options.report(round, f64::NAN);
        crate::interrupt::check()?;
        let lo = solve(
            mdp,
            goal,
            target,
            |s| maximiser[s].then_some(sigma[s]),
            Optimum::Min,
            options,
        )?;
        let hi = solve(
            mdp,
            goal,
            target,
            |s| (!maximiser[s]).then_some(tau[s]),
            Optimum::Max,
            options,
        )?;
        let (l, h) = (lo.error_bound, hi.error_bound);
        // A lower bound of +∞ settles the state (the upper one is +∞ too).
        let gap = |s: usize| {
            if lo.values[s] == f64::INFINITY {
                0.0
            } else {
                (hi.values[s] + h) - (lo.values[s] - l)
            }
        };
        let width = live.iter().map(|&s| gap(s)).fold(0.0f64, f64::max);
        let done = live.iter().all(|&s| {
            let g = gap(s);
            g.is_finite() && g <= 2.0 * precision * hi.values[s].abs().max(1.0)
        });
        // Improvement rounds (below) that change nothing leave an interval that is still
        // certified: printed if narrow (the two solvers' own bounds), else refused.
        // The values' magnitude: the stall width is relative to it.
        let magnitude = live
            .iter()
            .map(|&s| hi.values[s].abs())
            .filter(|x| x.is_finite())
            .fold(1.0f64, f64::max);
        let stalled = round > 1 && last_width == Some(width) && width <= STALL_WIDTH * magnitude;
        last_width = Some(width);
        if done || stalled {
            let values: Vec<f64> = (0..n)
                .map(|s| {
                    let (a, b) = (lo.values[s] - l, hi.values[s] + h);
                    match goal {
                        Goal::Reach if yes.contains(s as StateId) => 1.0,
                        Goal::Reach if no.contains(s as StateId) => 0.0,
                        Goal::Reach => {
                            let (a, b) = (a.max(0.0), b.min(1.0));
                            a + (b - a) / 2.0
                        }
                        Goal::Reward(_) if target.contains(s as StateId) => 0.0,
                        Goal::Reward(_) if !finite.contains(s as StateId) => f64::INFINITY,
                        Goal::Reward(_) | Goal::Forever(_) if a == f64::INFINITY => f64::INFINITY,
                        Goal::Reward(_) | Goal::Forever(_) => a + (b - a) / 2.0,
                    }
                })
                .collect();
            let strategy = (0..n)
                .map(|s| if maximiser[s] { sigma[s] } else { tau[s] })
                .collect();
            return Ok(MdpSolution {
                values,
                policy: strategy,
                error_bound: width / 2.0 + f64::EPSILON * magnitude,
                iterations: round,
                method: account::Method::GameStrategyIteration { rounds: round },
            });
        }
        // The maximiser switches where strictly better against the lower bound (the value of
        // its strategy); the minimiser, for reachability, takes the choices greedy for it
        // (keeping its choice on ties), and for rewards switches where strictly better against
        // the upper bound (the value of its strategy).
        let mut changed = false;
        for &s in &live {
            let group = m.group_rows(s);
            let ((current, against), bound) = match (maximiser[s], goal) {
                (true, _) | (false, Goal::Reach) => {
                    ((if maximiser[s] { sigma[s] } else { tau[s] }, &lo.values), l)
                }
                (false, Goal::Reward(_)) => ((tau[s], &hi.values), h),
                (false, Goal::Forever(_)) => ((tau[s], &lo.values), l),
            };
            // A choice's value against `against`, +∞ when a successor's is (the rewards are
            // ≥ 0 here; the kernel's compensated sums would give NaN).
            let q = |row: usize| {
                if m.row(row).0.iter().any(|&t| against[t as usize] == f64::INFINITY) {
                    f64::INFINITY
                } else {
                    m.row_value(row, against, affine)
                }
            };
            let here = q(group.start + current as usize);
            // Better only beyond what the values' own error can make of a tie (a switch on
            // rounding noise can cycle).
            let tol = if here.is_finite() {
                1e-12 * here.abs().max(1e-300) + 4.0 * bound
            } else {
                0.0
            };
            let (mut best, mut c) = (here, current);
            for row in group.clone() {
                let x = q(row);
                if direction(s).better(&x, &best) {
                    (best, c) = (x, (row - group.start) as u32);
                }
            }
            let better = if maximiser[s] {
                best > here + tol
            } else {
                best < here - tol
            };
            if better && c != current {
                if maximiser[s] {
                    sigma[s] = c;
                } else {
                    tau[s] = c;
                }
                changed = true;
            }
        }
        if !changed && width <= STALL_WIDTH * magnitude {
            // Once more with the same strategies: the interval as it stands.
            continue;
        }
        if !changed {
            return Err(Error::LimitReached {
                what: "strategy iteration for a game",
                limit: round,
                message: format!(
                    "the strategies stopped improving with the values only known within {width:.3e}; refused rather than printed"
                ),
            });
        }
    }
    Err(Error::LimitReached {
        what: "strategy iteration for a game",
        limit: MAX_ROUNDS,
        message: "the two sides' bounds did not meet".into(),
    })
}

/// Each state's owner's choice greedy for the values of Gauss–Seidel value iteration from 0
/// (which increases to the least fixed point: the reachability value, the target fixed at 1;
/// with `rewards`, the total over all time, growing without bound where it is infinite),
/// strongly connected component by component in reverse topological order (a component's
/// successors are final before it starts: an acyclic part takes one sweep).
fn initial_choices(mdp: &Mdp, maximiser: &[bool], target: &StateSet, rewards: Option<&[f64]>) -> Vec<u32> {
    let n = mdp.n();
    let m = mdp.matrix();
    let affine = rewards.map_or_else(Affine::product, Affine::offset);
    let mut lower: Vec<f64> = (0..n as StateId)
        .map(|s| f64::from(u8::from(target.contains(s))))
        .collect();
    let mut choice = vec![0u32; n];
    for members in crate::graph::sccs(m).members() {
        let live: Vec<usize> = members
            .into_iter()
            .map(|s| s as usize)
            .filter(|&s| !target.contains(s as StateId))
            .collect();
        for _ in 0..SWEEPS {
            let mut change = 0.0f64;
            for &s in live.iter().rev() {
                let d = if maximiser[s] { Optimum::Max } else { Optimum::Min };
                let (v, c) = m.group_optimum(s, d.direction(), &lower, affine);
                change = change.max((v - lower[s]).abs() / v.abs().max(1.0));
                // Keep the choice unless another is strictly better: at the fixed point a
                // choice that only stays (a self-loop earning nothing) ties with the one that
                // made the value.
                if c != choice[s] {
                    let here = m.row_value(m.group_rows(s).start + choice[s] as usize, &lower, affine);
                    if d.direction().better(&v, &here) {
                        choice[s] = c;
                    }
                }
                lower[s] = v;
            }
            // The choices only start strategy iteration, which corrects them: a rough
            // convergence will do.
            if change <= INITIAL_TOLERANCE || live.len() == 1 && change == 0.0 {
                break;
            }
        }
    }
    choice
}

/// The certified MDP solution for `goal` when the states where `keep(s)` is `Some(c)` play `c`.
fn solve(
    mdp: &Mdp,
    goal: Goal<'_>,
    target: &StateSet,
    keep: impl Fn(usize) -> Option<u32>,
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    let (sub, rows) = fixed(mdp, keep)?;
    match goal {
        Goal::Reach => reach_probability(&sub, target, optimum, options),
        Goal::Reward(r) => {
            let r: Vec<f64> = rows.iter().map(|&row| r[row]).collect();
            total_reward(&sub, &r, target, optimum, options)
        }
        Goal::Forever(r) => {
            let r: Vec<f64> = rows.iter().map(|&row| r[row]).collect();
            crate::mdp::total_reward_forever(&sub, &r, optimum, options)
        }
    }
}

/// The states of value 1 and of value 0 in the reachability game (graph analysis, exact): `yes`,
/// from which the maximiser reaches `target` almost surely whatever the minimiser does, and `no`,
/// from which the minimiser keeps the play away from it forever (de Alfaro & Henzinger,
/// "Concurrent omega-regular games", LICS 2000; Chatterjee, Jurdziński & Henzinger, "Simple
/// stochastic parity games", CSL 2003, for the turn-based case).
///
/// `no` is the complement of the positive attractor: the target, a maximiser's state with a
/// choice that may reach the attractor, a minimiser's state all of whose choices may. `yes` is
/// the greatest set `U` from which the maximiser can stay in `U` (a choice inside `U` where he
/// moves; every choice inside `U` where the minimiser moves) and reach the target with positive
/// probability without leaving it: then each visit gives a chance bounded below, so the target
/// is reached almost surely.
#[must_use]
pub fn qualitative(mdp: &Mdp, maximiser: &[bool], target: &StateSet) -> (StateSet, StateSet) {
    let (yes, no, _) = qualitative_strategy(mdp, maximiser, target);
    (yes, no)
}

/// [`qualitative`], and a strategy of the maximiser that reaches the target almost surely from
/// every state of `yes` whatever the minimiser does (a choice inside `yes` that may step closer
/// to the target in the attractor's order; choice 0 elsewhere).
pub(super) fn qualitative_strategy(
    mdp: &Mdp,
    maximiser: &[bool],
    target: &StateSet,
) -> (StateSet, StateSet, Vec<u32>) {
    let n = mdp.n();
    let m = mdp.matrix();
    let mut strategy = vec![0u32; n];
    // The positive attractor of the target within `inside`, through choices that stay in it;
    // the maximiser's choice that joined each of its states.
    let mut attractor = |inside: &[bool]| -> Vec<bool> {
        let mut a: Vec<bool> = (0..n)
            .map(|s| inside[s] && target.contains(s as StateId))
            .collect();
        loop {
            let mut grew = false;
            for s in 0..n {
                if !inside[s] || a[s] {
                    continue;
                }
                let ok = |r: usize| {
                    let cols = m.row(r).0;
                    cols.iter().all(|&t| inside[t as usize]) && cols.iter().any(|&t| a[t as usize])
                };
                let group = m.group_rows(s);
                let join = if maximiser[s] {
                    match group.clone().position(ok) {
                        Some(c) => {
                            strategy[s] = c as u32;
                            true
                        }
                        None => false,
                    }
                } else {
                    group.into_iter().all(ok)
                };
                if join {
                    a[s] = true;
                    grew = true;
                }
            }
            if !grew {
                return a;
            }
        }
    };
    let everywhere = vec![true; n];
    let positive = attractor(&everywhere);
    let no = StateSet::from_states(n, (0..n as StateId).filter(|&s| !positive[s as usize]));
    // Almost surely: shrink U until it is safe for the maximiser and attracts from everywhere.
    let mut inside = positive;
    loop {
        // Safety: drop states where the minimiser can leave U, or the maximiser cannot stay.
        loop {
            let mut dropped = false;
            for s in 0..n {
                if !inside[s] || target.contains(s as StateId) {
                    continue;
                }
                let stays = |r: usize| m.row(r).0.iter().all(|&t| inside[t as usize]);
                let safe = if maximiser[s] {
                    m.group_rows(s).any(stays)
                } else {
                    m.group_rows(s).all(stays)
                };
                if !safe {
                    inside[s] = false;
                    dropped = true;
                }
            }
            if !dropped {
                break;
            }
        }
        let a = attractor(&inside);
        if a == inside {
            let yes = StateSet::from_states(n, (0..n as StateId).filter(|&s| inside[s as usize]));
            return (yes, no, strategy);
        }
        inside = a;
    }
}

/// The MDP left when the states where `keep(s)` is `Some(c)` are restricted to their choice `c`
/// (the other states keep all theirs), and the original row of each of its rows.
pub(super) fn fixed(mdp: &Mdp, keep: impl Fn(usize) -> Option<u32>) -> Result<(Mdp, Vec<usize>)> {
    let m = mdp.matrix();
    let n = mdp.n();
    let mut b = CsrBuilder::new(n);
    let mut kept = Vec::with_capacity(n);
    for s in 0..n {
        b.new_row_group();
        let group = m.group_rows(s);
        let rows = match keep(s) {
            Some(c) => group.start + c as usize..group.start + c as usize + 1,
            None => group,
        };
        for r in rows {
            kept.push(r);
            let (cols, vals) = m.row(r);
            for (&t, &p) in cols.iter().zip(vals) {
                b.add(t, p);
            }
            b.finish_row();
        }
    }
    Ok((Mdp::new(b.build(), mdp.initial().to_vec())?, kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{Rational, Scalar};
    use crate::model::Dtmc;
    use rand::{RngExt, SeedableRng};

    /// A random game (probabilities in quarters, exact in binary), owners at random: of 2–7
    /// states with 1–2 choices each for even `seed`s, of 2–6 states with 1–3 choices for odd.
    fn random_game(rng: &mut rand_xoshiro::Xoshiro256PlusPlus, seed: u64) -> (Mdp, Vec<bool>) {
        let (most_states, most_choices) = if seed % 2 == 0 { (7, 2) } else { (6, 3) };
        let n = rng.random_range(2..=most_states);
        let mut b = CsrBuilder::new(n);
        for _ in 0..n {
            b.new_row_group();
            for _ in 0..rng.random_range(1..=most_choices) {
                let (t, u) = (rng.random_range(0..n as u32), rng.random_range(0..n as u32));
                let q = f64::from(rng.random_range(1..=4u8)) / 4.0;
                b.add(t, q);
                if q < 1.0 {
                    b.add(u, 1.0 - q);
                }
                b.finish_row();
            }
        }
        let maximiser: Vec<bool> = (0..n).map(|_| rng.random_bool(0.5)).collect();
        (Mdp::new(b.build(), vec![0]).unwrap(), maximiser)
    }

    /// Random rewards per choice: 0 (half of them), 1 or 2.
    fn random_rewards(rng: &mut rand_xoshiro::Xoshiro256PlusPlus, choices: usize) -> Vec<f64> {
        (0..choices)
            .map(|_| f64::from(rng.random_range(0..=3u8).saturating_sub(1)))
            .collect()
    }

    /// The rewards as rationals (exactly: they are small integers).
    fn exact(rewards: &[f64]) -> Vec<Rational> {
        rewards
            .iter()
            .map(|&r| <Rational as Scalar>::from_f64(r))
            .collect()
    }

    /// An exact total as a float, `None` (= +∞) as infinity.
    fn float(x: &Option<Rational>) -> f64 {
        x.as_ref().map_or(f64::INFINITY, Scalar::to_f64)
    }

    /// State `s`'s value in `got` is `best` (infinite: exactly; else within the certified bound).
    fn assert_within(got: &MdpSolution, s: usize, best: f64, seed: u64) {
        let v = got.values[s];
        assert!(
            v == best || (best.is_finite() && (v - best).abs() <= got.error_bound + 1e-12),
            "seed {seed} state {s}: {v} ± {} against {best}",
            got.error_bound
        );
    }

    /// The game's value by brute force: `eval` of the chain of every pair of pure memoryless
    /// strategies (given the rows chosen), then at every state the max over the maximiser's part
    /// of the min over the minimiser's part (such strategies suffice: Condon 1992 for
    /// reachability, Chen et al. 2013 for total rewards).
    fn brute_force(mdp: &Mdp, maximiser: &[bool], eval: impl Fn(&Dtmc, &[usize]) -> Vec<f64>) -> Vec<f64> {
        let n = mdp.n();
        let m = mdp.matrix();
        let counts: Vec<usize> = (0..n).map(|s| m.group_rows(s).len()).collect();
        let total: usize = counts.iter().product();
        let mut table: Vec<(Vec<u32>, Vec<f64>)> = Vec::new();
        for code in 0..total {
            let mut c = code;
            let choice: Vec<u32> = counts
                .iter()
                .map(|&k| {
                    let x = (c % k) as u32;
                    c /= k;
                    x
                })
                .collect();
            let rows: Vec<usize> = (0..n)
                .map(|s| m.group_rows(s).start + choice[s] as usize)
                .collect();
            let chain = Dtmc::new(m.select_rows(&rows), vec![0]).unwrap();
            table.push((choice, eval(&chain, &rows)));
        }
        (0..n)
            .map(|s| {
                let mut best = f64::NEG_INFINITY;
                for (sigma, _) in &table {
                    let worst = table
                        .iter()
                        .filter(|(c, _)| (0..n).all(|t| !maximiser[t] || c[t] == sigma[t]))
                        .map(|(_, v)| v[s])
                        .fold(f64::INFINITY, f64::min);
                    best = best.max(worst);
                }
                best
            })
            .collect()
    }

    /// Random games against brute force in exact rationals: the value must lie within the
    /// certified bound of every state's, and be 1 exactly on the graph analysis's `yes` states
    /// and 0 exactly on its `no` states.
    #[test]
    fn random_games_against_strategy_enumeration() {
        for seed in 0..300u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let (mdp, maximiser) = random_game(&mut rng, seed);
            let n = mdp.n();
            let target = StateSet::from_states(n, [n as StateId - 1]);
            let got = reach_bounds(&mdp, &maximiser, &target, &MdpOptions::default()).unwrap();
            assert!(got.error_bound <= 1e-6, "seed {seed}: {}", got.error_bound);
            let value = brute_force(&mdp, &maximiser, |chain, _| {
                let v = crate::analysis::exact::reach_probability_exact(chain, &target).unwrap();
                v.iter().map(Scalar::to_f64).collect()
            });
            let (yes, no) = qualitative(&mdp, &maximiser, &target);
            // Exact: from the strategies found, and from choice 0 everywhere (exact rounds).
            let exact = crate::game::reach_exact(&mdp, &maximiser, &target, &got.policy).unwrap();
            let from_zero = crate::game::reach_exact(&mdp, &maximiser, &target, &vec![0; n]);
            for (s, &best) in value.iter().enumerate() {
                assert!(
                    (Scalar::to_f64(&exact[s]) - best).abs() < 1e-12,
                    "seed {seed} state {s}: exact {} against {best}",
                    exact[s]
                );
                if let Ok(z) = &from_zero {
                    assert_eq!(z[s], exact[s], "seed {seed} state {s}: from zero");
                }
                assert!(
                    (got.values[s] - best).abs() <= got.error_bound + 1e-12,
                    "seed {seed} state {s}: {} ± {} against {best}",
                    got.values[s],
                    got.error_bound
                );
                // The graph analysis: value 1 exactly on `yes`, 0 exactly on `no`.
                assert_eq!(
                    yes.contains(s as StateId),
                    best == 1.0,
                    "seed {seed} state {s}: yes"
                );
                assert_eq!(
                    no.contains(s as StateId),
                    best == 0.0,
                    "seed {seed} state {s}: no"
                );
            }
        }
    }

    /// Total reward until the target (+∞ where it may be missed) on random games, rewards 0–3
    /// per choice with zeros common (zero-reward cycles are where the minimiser's strategy must
    /// still reach the target), against brute force in exact rationals; infinite exactly where
    /// the brute force says so; with all rewards negated, the negated values.
    #[test]
    fn random_reward_games_against_strategy_enumeration() {
        for seed in 0..400u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1000 + seed);
            let (mdp, maximiser) = random_game(&mut rng, seed);
            let n = mdp.n();
            let rewards = random_rewards(&mut rng, mdp.choices());
            let target = StateSet::from_states(n, [n as StateId - 1]);
            let got =
                total_reward_bounds(&mdp, &maximiser, &rewards, &target, &MdpOptions::default()).unwrap();
            assert!(got.error_bound <= 1e-6, "seed {seed}: {}", got.error_bound);
            let value = brute_force(&mdp, &maximiser, |chain, rows| {
                let r = exact(&rows.iter().map(|&row| rewards[row]).collect::<Vec<_>>());
                let v = crate::analysis::exact::expected_reward_exact(chain, &target, &r).unwrap();
                v.iter().map(float).collect()
            });
            let exact_rewards = exact(&rewards);
            let exact =
                crate::game::total_reward_exact(&mdp, &maximiser, &exact_rewards, &target, &got.policy)
                    .unwrap();
            let from_zero =
                crate::game::total_reward_exact(&mdp, &maximiser, &exact_rewards, &target, &vec![0; n]);
            for (s, &best) in value.iter().enumerate() {
                let x = float(&exact[s]);
                assert!(
                    x == best || (x - best).abs() < 1e-12,
                    "seed {seed} state {s}: exact {x} against {best}"
                );
                if let Ok(z) = &from_zero {
                    assert_eq!(z[s], exact[s], "seed {seed} state {s}: from zero");
                }
                assert_within(&got, s, best, seed);
            }
            // Costs: negated rewards, the players' aims swapped in sign.
            if rewards.iter().any(|r| *r > 0.0) {
                let negated: Vec<f64> = rewards.iter().map(|r| -r).collect();
                let swapped: Vec<bool> = maximiser.iter().map(|m| !m).collect();
                let neg =
                    total_reward_bounds(&mdp, &swapped, &negated, &target, &MdpOptions::default()).unwrap();
                for s in 0..n {
                    assert!(
                        neg.values[s] == -got.values[s]
                            || (neg.values[s] + got.values[s]).abs() <= neg.error_bound + got.error_bound,
                        "seed {seed} state {s}: negated"
                    );
                }
            }
        }
    }

    /// The total reward over all time on random games (rewards 0–2 per choice, zeros common, so
    /// that some end components earn and some do not) against brute force in exact rationals:
    /// a pair of strategies gives a chain whose total is the expected reward until its closed
    /// classes that earn nothing, +∞ where one that earns may be entered.
    #[test]
    fn random_total_reward_games_against_strategy_enumeration() {
        for seed in 0..400u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5000 + seed);
            let (mdp, maximiser) = random_game(&mut rng, seed);
            let n = mdp.n();
            let rewards = random_rewards(&mut rng, mdp.choices());
            let got = total_forever_bounds(&mdp, &maximiser, &rewards, &MdpOptions::default())
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(got.error_bound <= 1e-6, "seed {seed}: {}", got.error_bound);
            let value = brute_force(&mdp, &maximiser, |chain, rows| {
                let r = exact(&rows.iter().map(|&row| rewards[row]).collect::<Vec<_>>());
                let cls = crate::graph::classes(chain.matrix());
                let quiet = StateSet::from_states(
                    n,
                    cls.closed()
                        .filter(|c| c.states.iter().all(|&s| r[s as usize] == Rational::ZERO))
                        .flat_map(|c| c.states.iter().copied()),
                );
                let v = crate::analysis::exact::expected_reward_exact(chain, &quiet, &r).unwrap();
                v.iter().map(float).collect()
            });
            for (s, &best) in value.iter().enumerate() {
                assert_within(&got, s, best, seed);
            }
        }
    }
}
