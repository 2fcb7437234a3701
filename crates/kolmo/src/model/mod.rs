//! Models: the discrete-time Markov chain [`Dtmc`], the Markov decision process [`Mdp`], the
//! turn-based stochastic [`Game`], sets of states, labels and [`RewardModel`]s.

mod dtmc;
mod game;
mod mdp;
mod rewards;
mod state_set;

pub use dtmc::{Dtmc, ROW_SUM_TOLERANCE};
pub use game::{Game, Player};
pub use mdp::Mdp;
pub use rewards::RewardModel;
pub use state_set::StateSet;
