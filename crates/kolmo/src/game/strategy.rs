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
use crate::mdp::{MdpOptions, MdpSolution, Optimum, reach_probability};
use crate::model::{Mdp, StateSet};
use crate::sparse::{Affine, CsrBuilder};
use crate::{Error, Result, StateId};

/// The widest interval printed when the strategies no longer change (both solvers' own bounds
/// keep it from the precision): certified all the same.
const STALL_WIDTH: f64 = 1e-6;

/// Rounds of strategy improvement before giving up.
const MAX_ROUNDS: u64 = 200;

/// Gauss–Seidel sweeps of the initial value iteration, per strongly connected component.
const SWEEPS: u64 = 2_000;

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
    let m = mdp.matrix();
    let direction = |s: usize| {
        if maximiser[s] {
            Optimum::Max.direction()
        } else {
            Optimum::Min.direction()
        }
    };
    // Value iteration from 0 (Gauss–Seidel), the target fixed at 1, strongly connected
    // component by component in reverse topological order (a component's successors are
    // final before it starts: an acyclic part takes one sweep).
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
                let (v, c) = m.group_optimum(s, direction(s), &lower, Affine::product());
                change = change.max((v - lower[s]).abs());
                lower[s] = v;
                choice[s] = c;
            }
            if change <= 1e-14 || live.len() == 1 && change == 0.0 {
                break;
            }
        }
    }
    let precision = options.precision.max(1e-15);
    let (yes, no) = qualitative(mdp, maximiser, target);
    let (mut sigma, mut tau) = (choice.clone(), choice);
    let mut last_width = None;
    for round in 1..=MAX_ROUNDS {
        options.report(round, f64::NAN);
        let lo = reach_probability(
            &fixed(mdp, |s| maximiser[s].then_some(sigma[s]))?,
            target,
            Optimum::Min,
            options,
        )?;
        let hi = reach_probability(
            &fixed(mdp, |s| (!maximiser[s]).then_some(tau[s]))?,
            target,
            Optimum::Max,
            options,
        )?;
        let (l, h) = (lo.error_bound, hi.error_bound);
        let width = (0..n)
            .map(|s| (hi.values[s] + h) - (lo.values[s] - l))
            .fold(0.0f64, f64::max);
        let done = width <= 2.0 * precision;
        // Improvement rounds (below) that change nothing leave an interval that is still
        // certified: printed if narrow (the two solvers' own bounds), else refused.
        let stalled = round > 1 && last_width == Some(width) && width <= STALL_WIDTH;
        last_width = Some(width);
        if done || stalled {
            let values: Vec<f64> = (0..n)
                .map(|s| {
                    let (a, b) = ((lo.values[s] - l).max(0.0), (hi.values[s] + h).min(1.0));
                    if yes.contains(s as StateId) {
                        1.0
                    } else if no.contains(s as StateId) {
                        0.0
                    } else {
                        a + (b - a) / 2.0
                    }
                })
                .collect();
            let strategy = (0..n)
                .map(|s| if maximiser[s] { sigma[s] } else { tau[s] })
                .collect();
            return Ok(MdpSolution {
                values,
                policy: strategy,
                error_bound: width / 2.0 + f64::EPSILON,
                iterations: round,
                method: account::Method::GameStrategyIteration { rounds: round },
            });
        }
        // The maximiser switches where strictly better against the lower bound; the minimiser
        // takes choices greedy for it (keeping its choice on ties).
        let mut changed = false;
        for s in (0..n).filter(|&s| !target.contains(s as StateId)) {
            let group = m.group_rows(s);
            let current = if maximiser[s] { sigma[s] } else { tau[s] };
            let here = m.row_value(group.start + current as usize, &lo.values, Affine::product());
            let tol = 1e-12 * here.abs().max(1e-300);
            let (best, c) = m.group_optimum(s, direction(s), &lo.values, Affine::product());
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
        if !changed && width <= STALL_WIDTH {
            // Once more with the same strategies: the interval as it stands.
            continue;
        }
        if !changed {
            return Err(Error::LimitReached {
                what: "strategy iteration for a reachability game",
                limit: round,
                message: format!(
                    "the strategies stopped improving with the values only known within {width:.3e}; refused rather than printed"
                ),
            });
        }
    }
    Err(Error::LimitReached {
        what: "strategy iteration for a reachability game",
        limit: MAX_ROUNDS,
        message: "the two sides' bounds did not meet".into(),
    })
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
    let n = mdp.n();
    let m = mdp.matrix();
    // The positive attractor of the target within `inside`, through choices that stay in it.
    let attractor = |inside: &[bool]| -> Vec<bool> {
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
                let join = if maximiser[s] {
                    m.group_rows(s).any(ok)
                } else {
                    m.group_rows(s).all(ok)
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
            return (yes, no);
        }
        inside = a;
    }
}

/// The MDP left when the states where `keep(s)` is `Some(c)` are restricted to their choice `c`
/// (the other states keep all theirs).
fn fixed(mdp: &Mdp, keep: impl Fn(usize) -> Option<u32>) -> Result<Mdp> {
    let m = mdp.matrix();
    let n = mdp.n();
    let mut b = CsrBuilder::new(n);
    for s in 0..n {
        b.new_row_group();
        let group = m.group_rows(s);
        let rows = match keep(s) {
            Some(c) => group.start + c as usize..group.start + c as usize + 1,
            None => group,
        };
        for r in rows {
            let (cols, vals) = m.row(r);
            for (&t, &p) in cols.iter().zip(vals) {
                b.add(t, p);
            }
            b.finish_row();
        }
    }
    Mdp::new(b.build(), mdp.initial().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Scalar;
    use crate::model::Dtmc;
    use rand::{RngExt, SeedableRng};

    /// Random games of up to 7 states with 1–2 choices each (probabilities in quarters, exact in
    /// binary), owners at random, against brute force: for every pair of pure memoryless
    /// strategies the chain's reachability probability in rationals, then max over the
    /// maximiser's of the min over the minimiser's (Condon 1992: such strategies suffice). The
    /// value must lie within the certified bound of every state's, and be 1 exactly on the
    /// graph analysis's `yes` states and 0 exactly on its `no` states.
    #[test]
    fn random_games_against_strategy_enumeration() {
        for seed in 0..150u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let n = rng.random_range(2..=7usize);
            let mut b = CsrBuilder::new(n);
            for _ in 0..n {
                b.new_row_group();
                for _ in 0..rng.random_range(1..=2) {
                    let (t, u) = (rng.random_range(0..n as u32), rng.random_range(0..n as u32));
                    let q = f64::from(rng.random_range(1..=4u8)) / 4.0;
                    b.add(t, q);
                    if q < 1.0 {
                        b.add(u, 1.0 - q);
                    }
                    b.finish_row();
                }
            }
            let mdp = Mdp::new(b.build(), vec![0]).unwrap();
            let maximiser: Vec<bool> = (0..n).map(|_| rng.random_bool(0.5)).collect();
            let target = StateSet::from_states(n, [n as StateId - 1]);
            let got = reach_bounds(&mdp, &maximiser, &target, &MdpOptions::default()).unwrap();
            // Brute force over all choice vectors.
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
                let v = crate::analysis::exact::reach_probability_exact(&chain, &target).unwrap();
                table.push((choice, v.iter().map(Scalar::to_f64).collect()));
            }
            let (yes, no) = qualitative(&mdp, &maximiser, &target);
            for s in 0..n {
                // max over the maximiser's part of the min over the minimiser's part.
                let mut best = f64::NEG_INFINITY;
                for (sigma, _) in &table {
                    let worst = table
                        .iter()
                        .filter(|(c, _)| (0..n).all(|t| !maximiser[t] || c[t] == sigma[t]))
                        .map(|(_, v)| v[s])
                        .fold(f64::INFINITY, f64::min);
                    best = best.max(worst);
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
}
