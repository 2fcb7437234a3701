//! Parallel assembly of CSR arrays: rows are computed block by block (each block on its own rayon
//! task, into its own [`RowBlock`]), then the blocks are concatenated in order into one
//! `row_ptr`/`cols`/`vals` triple ([`CsrParts`]). Blocks have a fixed number of rows, so the result
//! does not depend on the number of threads.
//!
//! Every place that builds a matrix in parallel goes through here: the built-in board's chain, the
//! restriction of a chain to a subsystem, the splittings of the Krylov and topological solvers
//! ([`par_rows`]), and the chunked file readers, whose chunks are blocks that arrive window by
//! window ([`CsrParts::append`]).

use crate::StateId;
use rayon::prelude::*;

/// Rows handed to one rayon task by [`par_rows`] (about 16·10³: enough work per task to amortise
/// it, small enough to balance the cores).
pub const ROWS_PER_BLOCK: usize = 1 << 14;

/// Consecutive rows of a matrix in CSR form, with row ends relative to the block.
#[derive(Clone, Debug)]
pub struct RowBlock<T> {
    /// End of each row in `cols`/`vals` (one per row; the first row starts at 0).
    pub row_ends: Vec<usize>,
    /// Column of each entry.
    pub cols: Vec<StateId>,
    /// Value of each entry.
    pub vals: Vec<T>,
}

impl<T> Default for RowBlock<T> {
    fn default() -> Self {
        Self {
            row_ends: Vec::new(),
            cols: Vec::new(),
            vals: Vec::new(),
        }
    }
}

impl<T> RowBlock<T> {
    /// Adds entry `(col, val)` to the row being written.
    #[inline]
    pub fn push(&mut self, col: StateId, val: T) {
        self.cols.push(col);
        self.vals.push(val);
    }

    /// Closes the row being written (an empty row if nothing was pushed since the last).
    #[inline]
    pub fn end_row(&mut self) {
        self.row_ends.push(self.cols.len());
    }

    /// Empties the block, keeping its memory.
    pub fn clear(&mut self) {
        self.row_ends.clear();
        self.cols.clear();
        self.vals.clear();
    }
}

/// CSR arrays being assembled from blocks appended in row order: `row_ptr` (rows + 1), `cols`,
/// `vals`.
#[derive(Clone, Debug)]
pub struct CsrParts<T> {
    /// Start of each row in `cols`/`vals`, then their length.
    pub row_ptr: Vec<usize>,
    /// Column of each entry.
    pub cols: Vec<StateId>,
    /// Value of each entry.
    pub vals: Vec<T>,
}

impl<T> Default for CsrParts<T> {
    fn default() -> Self {
        Self {
            row_ptr: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
        }
    }
}

impl<T: Clone + Send + Sync> CsrParts<T> {
    /// Appends the rows of `blocks` (in order; `block` gives each one's rows), the columns and the
    /// values on two threads. O(entries) time.
    pub fn append<B: Sync>(&mut self, blocks: &[B], block: impl Fn(&B) -> &RowBlock<T> + Sync) {
        let (row_ptr, cols, vals) = (&mut self.row_ptr, &mut self.cols, &mut self.vals);
        rayon::join(
            || {
                let mut nnz = cols.len();
                for b in blocks.iter().map(&block) {
                    cols.extend_from_slice(&b.cols);
                    row_ptr.extend(b.row_ends.iter().map(|&e| nnz + e));
                    nnz += b.cols.len();
                }
            },
            || {
                for b in blocks.iter().map(&block) {
                    vals.extend_from_slice(&b.vals);
                }
            },
        );
    }

    /// Reserves room for `share` times the arrays' present length in all (the estimate of a reader
    /// that has read `1 / share` of its input).
    pub fn reserve_for(&mut self, share: f64) {
        let more = |len: usize| ((len as f64 * share) as usize).saturating_sub(len) + 64;
        self.cols.reserve_exact(more(self.cols.len()));
        self.vals.reserve_exact(more(self.vals.len()));
        self.row_ptr.reserve_exact(more(self.row_ptr.len()));
    }

    /// The arrays, without spare capacity: `(row_ptr, cols, vals)`.
    pub fn into_arrays(mut self) -> (Vec<usize>, Vec<StateId>, Vec<T>) {
        self.cols.shrink_to_fit();
        self.vals.shrink_to_fit();
        self.row_ptr.shrink_to_fit();
        (self.row_ptr, self.cols, self.vals)
    }
}

/// `K` matrices of `n` rows each, built in parallel: `row(scratch, i, blocks)` writes row `i` of
/// matrix `m` into `blocks[m]` ([`RowBlock::push`]; the rows are closed by the caller). Rows are
/// computed once, in blocks of [`ROWS_PER_BLOCK`] on the rayon pool (each task with its own
/// `scratch` from `init`), then concatenated in order; the result does not depend on the number of
/// threads. O(n + entries) time; memory: the matrices, and their entries once more while they are
/// concatenated.
pub fn par_rows<T, S, const K: usize>(
    n: usize,
    init: impl Fn() -> S + Sync + Send,
    row: impl Fn(&mut S, usize, &mut [RowBlock<T>; K]) + Sync + Send,
) -> [CsrParts<T>; K]
where
    T: Clone + Send + Sync,
{
    let blocks: Vec<[RowBlock<T>; K]> = (0..n.div_ceil(ROWS_PER_BLOCK))
        .into_par_iter()
        .map_init(&init, |scratch, b| {
            let mut out: [RowBlock<T>; K] = std::array::from_fn(|_| RowBlock::default());
            for i in b * ROWS_PER_BLOCK..((b + 1) * ROWS_PER_BLOCK).min(n) {
                row(scratch, i, &mut out);
                out.iter_mut().for_each(RowBlock::end_row);
            }
            out
        })
        .collect();
    std::array::from_fn(|m| {
        let mut parts = CsrParts::default();
        let nnz = blocks.iter().map(|b| b[m].cols.len()).sum();
        parts.row_ptr.reserve_exact(n);
        parts.cols.reserve_exact(nnz);
        parts.vals.reserve_exact(nnz);
        parts.append(&blocks, |b| &b[m]);
        parts
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_concatenate_in_row_order() {
        // Row i of matrix 0 holds the columns below i that divide it; matrix 1 the rest of 0..5.
        let n = 2 * ROWS_PER_BLOCK + 7;
        let [a, b] = par_rows(
            n,
            || 0usize,
            |calls, i, out: &mut [RowBlock<f64>; 2]| {
                *calls += 1;
                for j in 1..5usize {
                    let m = usize::from(!(j < i && i % j == 0));
                    out[m].push(j as StateId, (i * 10 + j) as f64);
                }
            },
        );
        for (m, parts) in [a, b].into_iter().enumerate() {
            assert_eq!(parts.row_ptr.len(), n + 1);
            assert_eq!(parts.row_ptr[n], parts.cols.len());
            for i in 0..n {
                let (lo, hi) = (parts.row_ptr[i], parts.row_ptr[i + 1]);
                let want: Vec<StateId> = (1..5usize)
                    .filter(|&j| usize::from(!(j < i && i % j == 0)) == m)
                    .map(|j| j as StateId)
                    .collect();
                assert_eq!(parts.cols[lo..hi], want[..], "row {i}");
                for (k, &j) in parts.cols[lo..hi].iter().enumerate() {
                    assert_eq!(parts.vals[lo + k], (i * 10 + j as usize) as f64);
                }
            }
        }
    }
}
