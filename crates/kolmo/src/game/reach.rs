use crate::model::{Game, StateSet};
use crate::sparse::Affine;
use crate::{Error, Result};

/// The value of a reachability game: the probability that the maximiser can guarantee of
/// reaching the target, against a minimiser trying to avoid it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReachGame {
    /// The value of each state, length `n` (1 on the target).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// The choice of each state's owner in the last iteration (index within the state).
    pub choices: Vec<u32>,
    /// Iterations made.
    pub iterations: u64,
    /// The last iteration's largest change (the stopping criterion; not an error bound).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub last_change: f64,
}

/// Options for [`reach_value`].
#[derive(Clone, Copy, Debug)]
pub struct ReachOptions {
    /// Stop when no value changes by more than this in an iteration (default 1e-14).
    pub tolerance: f64,
    /// Give up after this many iterations (default 10⁶).
    pub max_iterations: u64,
}

impl Default for ReachOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-14,
            max_iterations: 1_000_000,
        }
    }
}

/// The value of the reachability game on `game` for `target`: the **least** fixed point of the
/// Bellman operator with the target fixed at 1 (plays that never reach the target count 0 for
/// the maximiser), by value iteration from 0, which increases monotonically to it (Condon, "The
/// complexity of stochastic games", Information and Computation 96(2), 1992; Chatterjee &
/// Henzinger, "Value iteration", 2008). States with self-loops get their least value: a plain
/// linear solve of the Bellman equations, or iteration from 1, would give them 1. The game's
/// choice rewards are ignored.
///
/// The stopping rule (the largest change below the tolerance) is the classical one and is not a
/// certificate: sound bounds for games need interval iteration with end-component handling
/// (Eisentraut, Kelmendi, Křetínský & Weininger, "Value iteration for simple stochastic games",
/// Information and Computation 285, 2022), planned.
///
/// # Errors
/// [`Error::InvalidArgument`] if `target` does not range over the states; [`Error::LimitReached`]
/// after `max_iterations`.
pub fn reach_value(game: &Game, target: &StateSet, options: &ReachOptions) -> Result<ReachGame> {
    let n = game.n();
    if target.universe() != n {
        return Err(Error::arg(
            "target",
            format!("a set over {} states for a game of {n}", target.universe()),
        ));
    }
    // The target as absorbing with no reward: x = T(x) with x = 1 there.
    let mut x: Vec<f64> = (0..n as u32)
        .map(|s| if target.contains(s) { 1.0 } else { 0.0 })
        .collect();
    let mut next = vec![0.0; n];
    let mut choices = vec![0u32; n];
    for iteration in 1..=options.max_iterations {
        game.matrix().multiply_and_reduce(
            |s| game.owners()[s].direction(),
            &x,
            Affine::product(),
            &mut next,
            &mut choices,
        );
        for s in target.iter() {
            next[s as usize] = 1.0;
        }
        let change = next.iter().zip(&x).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        std::mem::swap(&mut x, &mut next);
        if change <= options.tolerance {
            return Ok(ReachGame {
                values: x,
                choices,
                iterations: iteration,
                last_change: change,
            });
        }
    }
    Err(Error::LimitReached {
        what: "value iteration for a reachability game",
        limit: options.max_iterations,
        message: "values still changing".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Player;
    use crate::sparse::CsrBuilder;

    /// A state's choices, each a list of (successor, probability).
    type Choices<'a> = &'a [&'a [(u32, f64)]];

    /// Builds a game from per-state (owner, choices).
    fn game(states: &[(Player, Choices<'_>)]) -> Game {
        let mut b = CsrBuilder::new(states.len());
        let mut owners = Vec::new();
        for (owner, choices) in states {
            b.new_row_group();
            owners.push(*owner);
            for c in *choices {
                for &(t, p) in *c {
                    b.add(t, p);
                }
                b.finish_row();
            }
        }
        let m = b.build();
        let rows = m.nrows();
        Game::new(m, owners, vec![0.0; rows], vec![0]).unwrap()
    }

    // shared/cases/09-stochastic-games.md (derived by enumerating positional strategies).
    // States: 0 = sink "1" (target), 1 = sink "0", then the game's own states.
    #[test]
    fn least_fixed_point_on_self_loops() {
        use Player::*;
        let sink1: Choices<'_> = &[&[(0, 1.0)]];
        let sink0: Choices<'_> = &[&[(1, 1.0)]];
        let target = |n| StateSet::from_states(n, [0]);
        // G1: max x: {x, r}; avg r: {1, 0}  →  x = r = 1/2.
        let g1 = game(&[
            (Max, sink1),
            (Max, sink0),
            (Max, &[&[(2, 1.0)], &[(3, 1.0)]]),
            (Max, &[&[(0, 0.5), (1, 0.5)]]),
        ]);
        let v = reach_value(&g1, &target(4), &Default::default()).unwrap().values;
        assert_eq!((v[2], v[3]), (0.5, 0.5));
        // G2: min y: {y, 1}  →  y = 0.
        let g2 = game(&[(Max, sink1), (Max, sink0), (Min, &[&[(2, 1.0)], &[(0, 1.0)]])]);
        assert_eq!(
            reach_value(&g2, &target(3), &Default::default()).unwrap().values[2],
            0.0
        );
        // G3: max x: {y, r}; min y: {x, 1}; avg r: {1, 0}  →  x = y = r = 1/2.
        let g3 = game(&[
            (Max, sink1),
            (Max, sink0),
            (Max, &[&[(3, 1.0)], &[(4, 1.0)]]),
            (Min, &[&[(2, 1.0)], &[(0, 1.0)]]),
            (Max, &[&[(0, 0.5), (1, 0.5)]]),
        ]);
        let v = reach_value(&g3, &target(5), &Default::default()).unwrap().values;
        assert_eq!((v[2], v[3], v[4]), (0.5, 0.5, 0.5));
    }
}
