//! Snakes and Ladders as an absorbing Markov chain.
//!
//! Cells `0..=size`; the token starts on `start` (a portal there is taken before the first
//! roll), rolls a die with faces `1..=F` (fair or weighted), moves forward, and takes the snake or
//! ladder starting on the landing cell — once: portals are folded into a jump table applied once
//! per landing. A roll past the last cell follows the [`Rule`]. The game ends on the last cell.
//!
//! The chain's state is the cell the token **stands on** before a roll, so state `i` is cell
//! `i` for every cell (portal entrances included, as standing positions with no portal
//! triggered). Expected rolls solve `(I − Q)E = 1` over the cells that reach the end with
//! probability 1 (Althoen, King & Schilling, "How long is a game of Snakes and Ladders?",
//! *Mathematical Gazette* 77 (478), 1993).

mod analysis;
mod board;
mod chain;
mod file;
mod operator;
mod race;

pub use analysis::{
    AnalysisOptions, BoardAnalysis, ExactBoardAnalysis, ExactTrappedBoard, MATRIX_FREE_FROM, MAX_ERROR_BOUND,
    PortalUsage, TrappedBoard,
};
pub use board::{Board, BoardSpec, Die, Portal, PortalKind, Rule};
pub use chain::{BoardChain, SIMULATE_INTERLEAVED_FROM};
pub use file::MAX_FILE_BYTES;
pub use operator::{BoardOperator, MAX_OPERATOR_FACES};
pub use race::{ExactRace, MAX_EXACT_RACE_STATES, RaceChain};
