//! Reachability on a [`Game`] (the engine's own two-player game type, as the card game builds
//! it): the certified solver of [`super::reach_bounds`] on its matrix and owners.

use crate::Result;
use crate::mdp::{MdpOptions, MdpSolution};
use crate::model::{Game, Mdp, Player, StateSet};

/// The value of the reachability game on `game` for `target` (the probability the maximiser can
/// guarantee of reaching it, against a minimiser avoiding it; plays that never reach it count 0:
/// the least fixed point of the Bellman operator, Condon 1992), with a certified bound and both
/// players' strategies: [`super::reach_bounds`] on the game's matrix, the owners as written. The
/// game's choice rewards are ignored.
///
/// # Errors
/// As [`super::reach_bounds`] ([`crate::Error::InvalidArgument`] if `target` does not range over
/// the states).
pub fn reach_value(game: &Game, target: &StateSet, options: &MdpOptions) -> Result<MdpSolution> {
    let mdp = Mdp::new(game.matrix().clone(), game.initial().to_vec())?;
    let maximiser: Vec<bool> = game.owners().iter().map(|&o| o == Player::Max).collect();
    super::reach_bounds(&mdp, &maximiser, target, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Rational;
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

    /// The values within the certified bound, and exactly `want` by the exact certificate.
    fn assert_values(g: &Game, target: &StateSet, states: &[usize], want: f64) {
        let s = reach_value(g, target, &MdpOptions::default()).unwrap();
        let mdp = Mdp::new(g.matrix().clone(), g.initial().to_vec()).unwrap();
        let maximiser: Vec<bool> = g.owners().iter().map(|&o| o == Player::Max).collect();
        let exact = super::super::reach_exact(&mdp, &maximiser, target, &s.policy).unwrap();
        for &i in states {
            assert!(
                (s.values[i] - want).abs() <= s.error_bound,
                "state {i}: {} ± {}",
                s.values[i],
                s.error_bound
            );
            assert_eq!(
                exact[i],
                <Rational as crate::exact::Scalar>::from_f64(want),
                "state {i}"
            );
        }
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
        assert_values(&g1, &target(4), &[2, 3], 0.5);
        // G2: min y: {y, 1}  →  y = 0.
        let g2 = game(&[(Max, sink1), (Max, sink0), (Min, &[&[(2, 1.0)], &[(0, 1.0)]])]);
        assert_values(&g2, &target(3), &[2], 0.0);
        // G3: max x: {y, r}; min y: {x, 1}; avg r: {1, 0}  →  x = y = r = 1/2.
        let g3 = game(&[
            (Max, sink1),
            (Max, sink0),
            (Max, &[&[(3, 1.0)], &[(4, 1.0)]]),
            (Min, &[&[(2, 1.0)], &[(0, 1.0)]]),
            (Max, &[&[(0, 0.5), (1, 0.5)]]),
        ]);
        assert_values(&g3, &target(5), &[2, 3, 4], 0.5);
    }
}
