use crate::Result;
use crate::mdp::{LongRun, LongRunOptions, backward_induction, backward_induction_exact};
use crate::model::Game;

/// Values after a finite number of steps, by backward induction.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FiniteHorizon {
    /// Number of steps `k`.
    pub steps: u64,
    /// `V_k(s)`: the optimal expected total reward over `k` steps from each state; length `n`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// The optimal choice in each state at the first of the `k` steps (index within the state);
    /// length `n` (0 when `k = 0`).
    pub first_choices: Vec<u32>,
}

/// `V_k = T^k 0`: the game's value over `steps` steps, by backward induction (Puterman, *Markov
/// Decision Processes*, 1994, §4.5; for games, Shapley 1953), each step the kernel
/// [`CsrMatrix::multiply_and_reduce`](crate::sparse::CsrMatrix::multiply_and_reduce).
///
/// # Errors
/// [`crate::Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked every
/// step).
///
/// # Complexity
/// O(steps · nnz).
pub fn finite_horizon(game: &Game, steps: u64) -> Result<FiniteHorizon> {
    let (v, choices, _) =
        backward_induction(game.matrix(), game.rewards(), None, direction(game), steps, false)?;
    Ok(FiniteHorizon {
        steps,
        values: v,
        first_choices: choices,
    })
}

/// The optimal choices of both players at every stage of a `steps`-step horizon:
/// `result[t][s]` is the choice in state `s` when `steps − t` steps remain (`t = 0` is the first
/// step). Shape `steps × n`.
///
/// # Errors
/// [`crate::Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked every
/// step).
///
/// # Complexity
/// O(steps · nnz) time, O(steps · n) space.
pub fn finite_horizon_strategy(game: &Game, steps: u64) -> Result<Vec<Vec<u32>>> {
    Ok(backward_induction(game.matrix(), game.rewards(), None, direction(game), steps, true)?.2)
}

/// The gain of a game whose optimal play induces a single recurrent class (unichain), by value
/// iteration: the stage increments `V_K − V_{K−1}` bracket the gain between their minimum and
/// maximum over states (Odoni, "On finding the maximal gain for Markov decision processes",
/// Operations Research 17, 1969; Puterman, *Markov Decision Processes*, 1994, Thm 8.5.5; the same
/// bracket holds for games: the Bellman operator is monotone and additively homogeneous, so later
/// increments stay inside it). Iterates until the bracket is narrower than the tolerance and the
/// choices of both players are the same in two consecutive stages (or, with ties between equally
/// good choices, for 100 stages after the bracket closed).
///
/// # Errors
/// [`crate::Error::LimitReached`] if the bracket is still wider than the tolerance after `max_stages`
/// stages (a multichain or periodic game: give the right `period`); [`crate::Error::InvalidArgument`] for
/// `period == 0`.
pub fn long_run(game: &Game, options: &LongRunOptions) -> Result<LongRun> {
    crate::mdp::long_run(game.matrix(), game.rewards(), direction(game), options)
}

/// [`finite_horizon`]'s values in exact rational arithmetic (the game's probabilities and rewards
/// recovered as fractions): `V_k = T^k 0` with exact maxima and minima.
///
/// # Errors
/// [`crate::Error::InvalidDistribution`] if a probability is not a simple fraction (see
/// [`crate::exact::rationalize`]); [`crate::Error::InvalidArgument`] if a reward is not.
///
/// # Complexity
/// O(steps · nnz) rational operations on numbers whose length grows with `steps`.
pub fn finite_horizon_exact(game: &Game, steps: u64) -> Result<Vec<crate::exact::Rational>> {
    let p = crate::exact::rationalize_matrix(game.matrix(), true)?;
    let rewards = crate::exact::rationalize_rewards(game.rewards())?;
    Ok(backward_induction_exact(&p, &rewards, None, direction(game), steps)?.0)
}

/// Each state's direction: its owner's.
fn direction(game: &Game) -> impl Fn(usize) -> crate::sparse::Direction + Copy + Sync + '_ {
    |s| game.owners()[s].direction()
}
