use crate::model::Game;
use crate::sparse::Affine;

/// One Bellman step (Storm's `multiplyAndReduce`): for every state `s`,
/// `out[s] = opt_{choice c of s} ( reward[c] + Σ_t P(c, t) · x[t] )`, the optimum being the
/// maximum where the maximiser owns `s` and the minimum where the minimiser does (Shapley,
/// "Stochastic games", PNAS 39, 1953). `choices[s]` receives the optimal choice's index within the
/// state (the first one on ties). This is the kernel
/// [`CsrMatrix::multiply_and_reduce`](crate::sparse::CsrMatrix::multiply_and_reduce) with each
/// state reduced by its owner.
///
/// # Panics
/// - panics if `x`, `out` or `choices` is not of length `n`.
///
/// # Complexity
/// O(nnz).
#[track_caller]
pub fn bellman(game: &Game, x: &[f64], out: &mut [f64], choices: &mut [u32]) {
    let n = game.n();
    assert!(x.len() == n && out.len() == n && choices.len() == n);
    game.matrix().multiply_and_reduce(
        |s| game.owners()[s].direction(),
        x,
        Affine::offset(game.rewards()),
        out,
        choices,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Player;

    /// State 0 (max): reward 1 and stay, or reward 0 and go to 1. State 1 (min): reward 5 and go
    /// to 0, or reward 2 and stay.
    fn game() -> Game {
        Game::new(
            crate::sparse::two_by_two(),
            vec![Player::Max, Player::Min],
            vec![1.0, 0.0, 5.0, 2.0],
            vec![0],
        )
        .unwrap()
    }

    #[test]
    fn max_and_min_by_owner() {
        let g = game();
        let (mut out, mut ch) = (vec![0.0; 2], vec![0u32; 2]);
        bellman(&g, &[0.0, 0.0], &mut out, &mut ch);
        assert_eq!((out, ch), (vec![1.0, 2.0], vec![0, 1]));
        let (mut out, mut ch) = (vec![0.0; 2], vec![0u32; 2]);
        bellman(&g, &[10.0, 0.0], &mut out, &mut ch);
        // Max: max(1 + 10, 0 + 0) = 11; Min: min(5 + 10, 2 + 0) = 2.
        assert_eq!((out, ch), (vec![11.0, 2.0], vec![0, 1]));
        // Long run: Max leaves 0 (staying earns 1 per step); in 1 Min stays (2 per step) rather
        // than cycle through 0 (5 every other step, 2.5 per step). Gain 2 from both states.
        let lr = crate::game::long_run(&g, &Default::default()).unwrap();
        assert!((lr.gain() - 2.0).abs() < 1e-12, "{lr:?}");
    }
}
