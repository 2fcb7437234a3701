//! Compressed sparse row (CSR) storage with **row groups**, the one matrix type behind every
//! model: for a Markov chain each group is one row (a state), for an MDP or a game a group is a
//! state and its rows are the state's choices (the organisation of Storm's `SparseMatrix`).
//!
//! Build with [`CsrBuilder`] (rows in order, entries in any order, duplicates summed);
//! compute with [`CsrMatrix`].

mod builder;
mod csr;

pub use builder::CsrBuilder;
pub use csr::CsrMatrix;
