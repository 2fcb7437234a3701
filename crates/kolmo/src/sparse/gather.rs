//! `y = xᵀA` by gathers, in parallel: a copy of `Aᵀ` in sliced ELLPACK form (SELL-C-σ: M.
//! Kreutzer, G. Hager, G. Wellein, H. Fehske & A. R. Bishop, "A unified sparse matrix data format
//! for efficient general sparse matrix-vector multiplication on modern processors with wide SIMD
//! units", SIAM J. Sci. Comput. 36(5), 2014).
//!
//! The columns of `A` are cut into slices of [`SLICE_COLUMNS`]; inside a slice they are sorted by
//! their number of entries (σ = the slice) and packed [`LANES`] at a time, each group padded to its
//! longest column with zero entries. A product then accumulates `LANES` columns side by side (four
//! independent chains of additions instead of one), and every column still adds its terms in
//! ascending row order starting from `0.0`, as [`CsrMatrix::vec_mul`] does: the results are equal
//! bit for bit (a padding term adds `x₀ · 0 = +0`, which changes no sum). Slices are independent,
//! so they run in parallel on rayon and the result does not depend on the number of threads.

use super::CsrMatrix;
use crate::StateId;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::ops::Range;

/// Columns per slice: the unit of parallel work of [`SlicedTranspose`], and the fixed grouping of
/// the per-step sums of [`Propagator`](super::Propagator).
pub const SLICE_COLUMNS: usize = 1024;

/// Columns multiplied side by side.
pub const LANES: usize = 4;

/// Columns with at least this many entries are gathered one by one, unpadded (a dense column
/// would otherwise pad the three columns beside it to its length).
const LONG_COLUMN: usize = 64;

/// Marks an unused lane of the last group of a slice.
const NO_COLUMN: u16 = u16::MAX;

/// Slices handed to one rayon task at a time (about 4·10³ columns: enough work per task to
/// amortise scheduling).
const SLICES_PER_TASK: usize = 4;

/// One slice of columns of `A` (rows of `Aᵀ`).
#[derive(Clone, Debug, Default)]
struct Slice {
    /// Long columns (position in the slice) with their entries: column `long_cols[k]` owns
    /// `long_ptr[k]..long_ptr[k + 1]` of `long_rows` / `long_vals`.
    long_cols: Vec<u16>,
    long_ptr: Vec<usize>,
    long_rows: Vec<StateId>,
    long_vals: Vec<f64>,
    /// The other columns, `LANES` per group, longest first; [`NO_COLUMN`] marks an unused lane.
    groups: Vec<[u16; LANES]>,
    /// Group `g` owns slots `group_end[g - 1]..group_end[g]` (from 0 for the first).
    group_end: Vec<usize>,
    /// Slot `k` holds the `k`-th entry of each lane's column (row, value), or `(0, 0.0)` past its
    /// end.
    rows: Vec<[StateId; LANES]>,
    vals: Vec<[f64; LANES]>,
}

/// The transpose of a CSR matrix `A` (`nrows × ncols`), stored for parallel products
/// `y = xᵀA` (a row vector times the matrix: one step `π ↦ πP` of a Markov chain) by gathers
/// along the columns of `A`.
///
/// The product is equal bit for bit to [`CsrMatrix::vec_mul`] for finite `x` (same terms, same
/// order, starting from `+0.0`; up to the sign of zero results when `x` has negative entries),
/// whatever the number of threads.
///
/// # Storage
/// About `12 B × (nnz + padding)`, where the padding (zero entries making the columns of a group
/// equally long) is small when columns of similar length are common: columns are sorted by length
/// inside each slice of [`SLICE_COLUMNS`], and columns with 64 entries or more are kept unpadded.
///
/// # Complexity
/// Building: O(nnz + ncols · parts) time on the rayon pool, with `parts ≤ 8` temporary column
/// arrays; a product: O(nnz + padding + ncols).
#[derive(Clone, Debug)]
pub struct SlicedTranspose {
    nrows: usize,
    ncols: usize,
    nnz: usize,
    slices: Vec<Slice>,
}

/// The entries of a block of rows of `A`, transposed (CSC of the block): column `j` owns
/// `ptr[j]..ptr[j + 1]`, rows ascending.
struct BlockTranspose {
    ptr: Vec<usize>,
    rows: Vec<StateId>,
    vals: Vec<f64>,
}

impl BlockTranspose {
    fn new(a: &CsrMatrix, rows: Range<usize>) -> Self {
        let (row_ptr, cols, vals) = a.as_parts();
        let span = row_ptr[rows.start]..row_ptr[rows.end];
        let mut ptr = vec![0usize; a.ncols() + 1];
        for &c in &cols[span.clone()] {
            ptr[c as usize + 1] += 1;
        }
        for j in 0..a.ncols() {
            ptr[j + 1] += ptr[j];
        }
        let mut out_rows = vec![0; span.len()];
        let mut out_vals = vec![0.0; span.len()];
        // `ptr[j]` serves as column j's cursor, then is shifted back.
        for i in rows {
            for k in row_ptr[i]..row_ptr[i + 1] {
                let c = cols[k] as usize;
                let d = ptr[c];
                out_rows[d] = i as StateId;
                out_vals[d] = vals[k];
                ptr[c] += 1;
            }
        }
        for j in (0..a.ncols()).rev() {
            ptr[j + 1] = ptr[j];
        }
        ptr[0] = 0;
        Self {
            ptr,
            rows: out_rows,
            vals: out_vals,
        }
    }

    fn column(&self, j: usize) -> impl Iterator<Item = (StateId, f64)> + '_ {
        let r = self.ptr[j]..self.ptr[j + 1];
        self.rows[r.clone()]
            .iter()
            .copied()
            .zip(self.vals[r].iter().copied())
    }

    fn len(&self, j: usize) -> usize {
        self.ptr[j + 1] - self.ptr[j]
    }
}

impl Slice {
    /// The slice of columns `cols` from the transposed row blocks `blocks` (in row order).
    fn new(blocks: &[BlockTranspose], cols: Range<usize>) -> Self {
        let lo = cols.start;
        let len = |jj: usize| blocks.iter().map(|b| b.len(lo + jj)).sum::<usize>();
        let entries = |jj: usize| blocks.iter().flat_map(move |b| b.column(lo + jj));
        let lens: Vec<usize> = (0..cols.len()).map(len).collect();
        let mut order: Vec<usize> = (0..cols.len()).collect();
        // Stable: equally long columns stay in column order.
        order.sort_by_key(|&jj| Reverse(lens[jj]));
        let long = order.partition_point(|&jj| lens[jj] >= LONG_COLUMN);
        let mut s = Slice {
            long_ptr: vec![0],
            ..Slice::default()
        };
        for &jj in &order[..long] {
            s.long_cols.push(jj as u16);
            for (i, p) in entries(jj) {
                s.long_rows.push(i);
                s.long_vals.push(p);
            }
            s.long_ptr.push(s.long_rows.len());
        }
        for group in order[long..].chunks(LANES) {
            let start = s.rows.len();
            let slots = lens[group[0]];
            s.rows.resize(start + slots, [0; LANES]);
            s.vals.resize(start + slots, [0.0; LANES]);
            let mut lanes = [NO_COLUMN; LANES];
            for (l, &jj) in group.iter().enumerate() {
                lanes[l] = jj as u16;
                for (k, (i, p)) in entries(jj).enumerate() {
                    s.rows[start + k][l] = i;
                    s.vals[start + k][l] = p;
                }
            }
            s.groups.push(lanes);
            s.group_end.push(s.rows.len());
        }
        s
    }

    /// `y[jj] = Σ_i x[i] · A[i, lo + jj]` for every column of the slice (`y`: the slice's part
    /// of the result).
    #[inline]
    fn gather(&self, x: &[f64], y: &mut [f64]) {
        for (k, &jj) in self.long_cols.iter().enumerate() {
            let r = self.long_ptr[k]..self.long_ptr[k + 1];
            let mut acc = 0.0;
            for (&i, &p) in self.long_rows[r.clone()].iter().zip(&self.long_vals[r]) {
                acc += x[i as usize] * p;
            }
            y[jj as usize] = acc;
        }
        // Every stored row is < x.len(); clamping to `last < x.len()` lets the compiler drop the
        // bounds checks of the gathers (a conditional move instead of a branch per lane).
        let Some(last) = x.len().checked_sub(1) else {
            // No rows: every column is empty.
            y.fill(0.0);
            return;
        };
        let mut start = 0;
        for (lanes, &end) in self.groups.iter().zip(&self.group_end) {
            let mut acc = [0.0; LANES];
            for (r, v) in self.rows[start..end].iter().zip(&self.vals[start..end]) {
                for l in 0..LANES {
                    acc[l] += x[(r[l] as usize).min(last)] * v[l];
                }
            }
            for (&jj, a) in lanes.iter().zip(acc) {
                if jj != NO_COLUMN {
                    y[jj as usize] = a;
                }
            }
            start = end;
        }
    }

    fn slots(&self) -> usize {
        self.rows.len() * LANES + self.long_rows.len()
    }
}

impl SlicedTranspose {
    /// The sliced transpose of `a`, built on the rayon pool (the result does not depend on the
    /// number of threads).
    ///
    /// # Panics
    /// - panics if `a` has more than `2³²` rows (row indices are stored as [`StateId`]).
    #[must_use]
    #[track_caller]
    pub fn new(a: &CsrMatrix) -> Self {
        assert!(
            a.nrows() <= StateId::MAX as usize + 1,
            "a sliced transpose stores row indices as u32"
        );
        let (row_ptr, _, _) = a.as_parts();
        let nnz = a.nnz();
        // Row blocks of about equal numbers of entries, transposed in parallel; their number only
        // changes how the copy is built, not the copy.
        let parts = if nnz < 1 << 16 {
            1
        } else {
            rayon::current_num_threads().clamp(1, 8)
        };
        let mut bounds: Vec<usize> = (0..parts)
            .map(|p| row_ptr.partition_point(|&k| k < nnz / parts * p).min(a.nrows()))
            .collect();
        bounds.push(a.nrows());
        let blocks: Vec<BlockTranspose> = bounds
            .par_windows(2)
            .map(|w| BlockTranspose::new(a, w[0]..w[1]))
            .collect();
        let ncols = a.ncols();
        let slices = (0..ncols.div_ceil(SLICE_COLUMNS))
            .into_par_iter()
            .with_min_len(SLICES_PER_TASK)
            .map(|c| {
                let lo = c * SLICE_COLUMNS;
                Slice::new(&blocks, lo..(lo + SLICE_COLUMNS).min(ncols))
            })
            .collect();
        Self {
            nrows: a.nrows(),
            ncols,
            nnz,
            slices,
        }
    }

    /// Rows of `A` (the length of `x`).
    #[must_use]
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Columns of `A` (the length of `y`).
    #[must_use]
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Stored entries of `A`.
    #[must_use]
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Slots a product visits: the entries plus the padding.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.slices.iter().map(Slice::slots).sum()
    }

    /// `y = xᵀA`: the row vector `x` (length `nrows`) times `A`, in parallel; equal bit for bit
    /// to [`CsrMatrix::vec_mul`] for finite `x`.
    ///
    /// # Panics
    /// - panics if `x.len() != self.nrows()` or `y.len() != self.ncols()`.
    #[track_caller]
    pub fn vec_mul(&self, x: &[f64], y: &mut [f64]) {
        self.vec_mul_then(x, y, |_, _| ());
    }

    /// `y = xᵀA`, then `then(lo, part)` on each slice's part of `y` (columns `lo..lo + part.len()`)
    /// in the same parallel task; returns the results in slice order.
    ///
    /// # Panics
    /// - panics if `x.len() != self.nrows()` or `y.len() != self.ncols()`.
    #[track_caller]
    pub(crate) fn vec_mul_then<R: Send>(
        &self,
        x: &[f64],
        y: &mut [f64],
        then: impl Fn(usize, &mut [f64]) -> R + Sync,
    ) -> Vec<R> {
        assert!(
            x.len() == self.nrows && y.len() == self.ncols,
            "vec_mul: x has length {} for {} rows, y length {} for {} columns",
            x.len(),
            self.nrows,
            y.len(),
            self.ncols
        );
        y.par_chunks_mut(SLICE_COLUMNS)
            .zip(self.slices.par_iter())
            .enumerate()
            .with_min_len(SLICES_PER_TASK)
            .map(|(c, (part, slice))| {
                slice.gather(x, part);
                then(c * SLICE_COLUMNS, part)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::random;
    use super::*;

    fn check(a: &CsrMatrix, seed: u64) {
        let t = SlicedTranspose::new(a);
        assert_eq!((t.nrows(), t.ncols(), t.nnz()), (a.nrows(), a.ncols(), a.nnz()));
        let x = random::vector(a.nrows(), seed);
        let mut want = vec![f64::NAN; a.ncols()];
        a.vec_mul(&x, &mut want);
        let mut got = vec![f64::NAN; a.ncols()];
        t.vec_mul(&x, &mut got);
        // Same terms in the same order: equal bit for bit.
        assert!(
            want.iter().zip(&got).all(|(w, g)| w.to_bits() == g.to_bits()),
            "{}×{} seed {seed}",
            a.nrows(),
            a.ncols()
        );
    }

    #[test]
    fn gathers_equal_the_sequential_product() {
        for (seed, n) in [0usize, 1, 2, 3, 4, 5, 63, 64, 65, 1023, 1024, 1025, 3000]
            .into_iter()
            .enumerate()
        {
            let seed = seed as u64;
            check(&random::matrix(n, n.max(1), 8, 0.0, false, seed), seed);
            // Column 0 long (about a third of the rows), other columns short or empty.
            check(&random::matrix(n, n.max(1), 3, 0.3, false, seed + 100), seed);
            check(&random::matrix(n, n.max(1), 12, 0.9, true, seed + 200), seed);
        }
        // Not square; more columns than rows and the other way round.
        check(&random::matrix(50, 2100, 30, 0.5, false, 7), 7);
        check(&random::matrix(2100, 50, 30, 0.5, false, 8), 8);
    }

    #[test]
    fn long_columns_are_not_padded() {
        // Every row has column 0 (n entries there) and one more entry: padding the other lanes of
        // column 0's group to n would triple the work.
        let a = random::matrix(5000, 5000, 1, 1.0, true, 3);
        let t = SlicedTranspose::new(&a);
        assert!(
            t.slots() < a.nnz() + a.nnz() / 2,
            "{} slots for {} entries",
            t.slots(),
            a.nnz()
        );
        check(&a, 3);
    }

    #[test]
    fn a_partitioned_build_does_not_depend_on_the_threads() {
        // 2·10⁵ rows, about 10⁶ entries: built from several row blocks when there are threads.
        let a = random::matrix(200_000, 200_000, 9, 0.01, true, 11);
        let x = random::vector(a.nrows(), 12);
        let mut want = vec![0.0; a.ncols()];
        a.vec_mul(&x, &mut want);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| {
                let t = SlicedTranspose::new(&a);
                let mut y = vec![0.0; a.ncols()];
                t.vec_mul(&x, &mut y);
                y
            });
            assert!(
                want.iter().zip(&got).all(|(w, g)| w.to_bits() == g.to_bits()),
                "{threads} threads"
            );
        }
    }
}
