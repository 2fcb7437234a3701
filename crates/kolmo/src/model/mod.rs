//! Models: the discrete-time Markov chain [`Dtmc`], the turn-based stochastic [`Game`], sets of
//! states and labels.

mod dtmc;
mod game;

mod state_set;

pub use dtmc::{Dtmc, ROW_SUM_TOLERANCE};
pub use game::{Game, Player};
pub use state_set::StateSet;
