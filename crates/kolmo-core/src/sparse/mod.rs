//! Compressed sparse row (CSR) storage with **row groups**, the one matrix type behind every
//! model: for a Markov chain each group is one row (a state), for an MDP or a game a group is a
//! state and its rows are the state's choices (the organisation of Storm's `SparseMatrix`).
//!
//! Build with [`CsrBuilder`] (rows in order, entries in any order, duplicates summed);
//! compute with [`CsrMatrix`]; in parallel, assemble the arrays with [`par_rows`] (rows counted,
//! then stored in place) or [`CsrParts::append`] (blocks of rows in order). For many products `y = xᵀA` on large matrices:
//! [`SlicedTranspose`] (parallel gathers over a sliced copy of `Aᵀ`) and [`Propagator`]
//! (repeated products that follow a sparse vector's support, then switch to parallel sweeps); both
//! agree bit for bit with [`CsrMatrix::vec_mul`] whatever the number of threads. The Bellman step of
//! every value iteration is [`CsrMatrix::multiply_and_reduce`] (and its Gauss–Seidel variant).

mod assemble;
mod builder;
mod coded;
mod csr;
mod gather;
mod propagate;
mod reduce;

#[doc(hidden)]
pub use crate::with_values;
pub use assemble::{CsrParts, ROWS_PER_BLOCK, RowBlock, RowSink, par_rows};
pub use builder::CsrBuilder;
#[doc(hidden)]
pub use coded::{CodedValues, NO_TABLE, ValueAt, ValueSlice};
pub use csr::CsrMatrix;
pub use gather::{LANES, SLICE_COLUMNS, SlicedTranspose};
pub use propagate::{Propagator, SPARSE_FRACTION, StepSums, sliced_sum};
pub use reduce::{Accumulate, Affine, Direction};

/// A matrix from rows of (column, value) pairs, for tests.
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub fn from_rows(rows: &[&[(u32, f64)]]) -> CsrMatrix {
    let mut b = CsrBuilder::new(rows.len());
    for r in rows {
        for &(c, p) in *r {
            b.add(c, p);
        }
        b.finish_row();
    }
    b.build()
}

/// Two row groups over two states, each with the rows "to state 0" and "to state 1"
/// (probability 1): the smallest MDP or game with a choice everywhere, for tests.
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub fn two_by_two() -> CsrMatrix {
    let mut b = CsrBuilder::new(2);
    for _ in 0..2 {
        b.new_row_group();
        b.add(0, 1.0);
        b.finish_row();
        b.add(1, 1.0);
        b.finish_row();
    }
    b.build()
}

/// Seeded random test matrices.
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod random {
    use super::{CsrBuilder, CsrMatrix};
    use rand::RngExt;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::SeedableRng;

    /// A random `nrows × ncols` matrix: each row has up to `max_row` entries at uniform columns,
    /// plus, with probability `hub`, one in column 0 (which then has many entries); values in
    /// (0, 1], rows rescaled to sum to 1 when `stochastic`. Some rows are empty unless
    /// `stochastic`.
    pub fn matrix(
        nrows: usize,
        ncols: usize,
        max_row: usize,
        hub: f64,
        stochastic: bool,
        seed: u64,
    ) -> CsrMatrix {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut b = CsrBuilder::new(ncols);
        for _ in 0..nrows {
            let k = rng.random_range(usize::from(stochastic)..=max_row);
            let mut row: Vec<(u32, f64)> = (0..k)
                .map(|_| (rng.random_range(0..ncols as u32), 1.0 - rng.random::<f64>()))
                .collect();
            if rng.random::<f64>() < hub {
                row.push((0, 1.0 - rng.random::<f64>()));
            }
            let sum: f64 = row.iter().map(|e| e.1).sum();
            for (c, p) in row {
                b.add(c, if stochastic { p / sum } else { p });
            }
            b.finish_row();
        }
        b.build()
    }

    /// A random walk on `0..n` whose steps mostly go `-3..=3` (clamped to the ends), with a
    /// long jump to a uniform state with probability `jump` per row: the support of a
    /// distribution started in one state grows slowly.
    pub fn local_walk(n: usize, jump: f64, seed: u64) -> CsrMatrix {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut b = CsrBuilder::new(n);
        for s in 0..n as i64 {
            let mut row = Vec::new();
            for d in -3..=3i64 {
                row.push(((s + d).clamp(0, n as i64 - 1) as u32, 1.0 - rng.random::<f64>()));
            }
            if rng.random::<f64>() < jump {
                row.push((rng.random_range(0..n as u32), 1.0 - rng.random::<f64>()));
            }
            let sum: f64 = row.iter().map(|e| e.1).sum();
            for (c, p) in row {
                b.add(c, p / sum);
            }
            b.finish_row();
        }
        b.build()
    }

    /// A non-negative vector with about a third of its entries zero.
    pub fn vector(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                if rng.random_range(0..3) == 0 {
                    0.0
                } else {
                    rng.random::<f64>()
                }
            })
            .collect()
    }
}
