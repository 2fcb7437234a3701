//! Parallel assembly of CSR arrays (`row_ptr`/`cols`/`vals`, [`CsrParts`]), in fixed blocks of rows
//! so that the result does not depend on the number of threads. Every place that builds a matrix
//! in parallel goes through here:
//! - rows that can be computed twice ([`par_rows`]: the built-in board's chain, the restriction of
//!   a chain to a subsystem, the splittings of the Krylov and topological solvers): counted in one
//!   parallel pass, stored straight into place in a second;
//! - rows that arrive once, block by block ([`RowBlock`]s appended in order by
//!   [`CsrParts::append`]: the chunked file readers, whose chunks are parsed on all cores).

use crate::StateId;
use rayon::prelude::*;

/// Rows handed to one rayon task by [`par_rows`] (about 16·10³: enough work per task to amortise
/// it, small enough to balance the cores).
pub const ROWS_PER_BLOCK: usize = 1 << 14;

/// Consecutive rows of a matrix in CSR form, with row ends relative to the block.
#[derive(Clone, Debug, Default)]
pub struct RowBlock<T> {
    /// End of each row in `cols`/`vals` (one per row; the first row starts at 0).
    pub row_ends: Vec<usize>,
    /// Column of each entry.
    pub cols: Vec<StateId>,
    /// Value of each entry.
    pub vals: Vec<T>,
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

/// Where the rows of [`par_rows`] are written: the entries are counted in a first pass, then
/// stored in a second.
pub struct RowSink<'a, T, const K: usize> {
    /// Entries of each matrix so far (in the row, when counting; in the block, when storing).
    counts: [usize; K],
    /// Where the block's entries go, when storing.
    out: Option<[(&'a mut [StateId], &'a mut [T]); K]>,
}

impl<T, const K: usize> RowSink<'_, T, K> {
    /// Adds entry `(col, val)` to the row being written of matrix `m`.
    #[inline]
    pub fn push(&mut self, m: usize, col: StateId, val: T) {
        let k = self.counts[m];
        self.counts[m] += 1;
        if let Some(out) = &mut self.out {
            out[m].0[k] = col;
            out[m].1[k] = val;
        }
    }
}

/// `K` matrices of `n` rows each, built in parallel: `row(scratch, i, sink)` writes row `i` of
/// matrix `m` by [`RowSink::push`]`(m, ..)`, the same entries in the same order each time it is
/// called (it is called twice per row). Two passes over fixed blocks of [`ROWS_PER_BLOCK`] rows on
/// the rayon pool (each task with its own `scratch` from `init`): the first counts every row's
/// entries, the second stores them straight into their place in arrays allocated once (`zero`
/// fills them first). The result does not depend on the number of threads. O(n + entries) time;
/// memory: the matrices alone.
pub fn par_rows<T, S, const K: usize>(
    n: usize,
    zero: T,
    init: impl Fn() -> S + Sync + Send,
    row: impl Fn(&mut S, usize, &mut RowSink<'_, T, K>) + Sync + Send,
) -> [CsrParts<T>; K]
where
    T: Clone + Send + Sync,
{
    let rows = |b: usize| b * ROWS_PER_BLOCK..((b + 1) * ROWS_PER_BLOCK).min(n);
    let mut lengths = vec![[0usize; K]; n];
    lengths
        .par_chunks_mut(ROWS_PER_BLOCK)
        .enumerate()
        .for_each_init(&init, |scratch, (b, lens)| {
            for (i, len) in rows(b).zip(lens) {
                let mut sink = RowSink {
                    counts: [0; K],
                    out: None,
                };
                row(scratch, i, &mut sink);
                *len = sink.counts;
            }
        });
    let row_ptr: [Vec<usize>; K] = std::array::from_fn(|m| {
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        let mut total = 0;
        for len in &lengths {
            total += len[m];
            ptr.push(total);
        }
        ptr
    });
    drop(lengths);
    let mut cols: [Vec<StateId>; K] = std::array::from_fn(|m| vec![0; row_ptr[m][n]]);
    let mut vals: [Vec<T>; K] = std::array::from_fn(|m| vec![zero.clone(); row_ptr[m][n]]);
    // Each block's part of every array, to fill in parallel.
    let mut rest: [(&mut [StateId], &mut [T]); K] = {
        let mut vals = vals.iter_mut();
        cols.each_mut()
            .map(|c| (c.as_mut_slice(), vals.next().expect("K arrays").as_mut_slice()))
    };
    let blocks: Vec<_> = (0..n.div_ceil(ROWS_PER_BLOCK))
        .map(|b| {
            let r = rows(b);
            let part: [(&mut [StateId], &mut [T]); K] = std::array::from_fn(|m| {
                let len = row_ptr[m][r.end] - row_ptr[m][r.start];
                let (c, c_rest) = std::mem::take(&mut rest[m].0).split_at_mut(len);
                let (v, v_rest) = std::mem::take(&mut rest[m].1).split_at_mut(len);
                rest[m] = (c_rest, v_rest);
                (c, v)
            });
            (r, part)
        })
        .collect();
    blocks.into_par_iter().for_each_init(&init, |scratch, (r, part)| {
        let mut sink = RowSink {
            counts: [0; K],
            out: Some(part),
        };
        for i in r {
            row(scratch, i, &mut sink);
        }
    });
    let mut row_ptr = row_ptr.into_iter();
    let mut vals = vals.into_iter();
    cols.map(|cols| CsrParts {
        row_ptr: row_ptr.next().expect("K arrays"),
        cols,
        vals: vals.next().expect("K arrays"),
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
            0.0,
            || 0usize,
            |calls, i, out: &mut RowSink<f64, 2>| {
                *calls += 1;
                for j in 1..5usize {
                    let m = usize::from(!(j < i && i % j == 0));
                    out.push(m, j as StateId, (i * 10 + j) as f64);
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
