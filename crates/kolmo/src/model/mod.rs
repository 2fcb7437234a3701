//! Models: the discrete-time Markov chain [`Dtmc`], sets of states and labels.

mod dtmc;

mod state_set;

pub use dtmc::{Dtmc, ROW_SUM_TOLERANCE};
pub use state_set::StateSet;
