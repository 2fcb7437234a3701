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

/// A matrix from rows of (column, value) pairs, for tests.
#[cfg(test)]
pub(crate) fn from_rows(rows: &[&[(u32, f64)]]) -> CsrMatrix {
    let mut b = CsrBuilder::new(rows.len());
    for r in rows {
        for &(c, p) in *r {
            b.add(c, p);
        }
        b.finish_row();
    }
    b.build()
}
