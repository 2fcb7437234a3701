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
//!
//! A product reads the whole copy once, so its size sets the time: when `A` has at most 256
//! distinct values (counting 0; dice games, walks, uniform choices), each is stored as a one-byte
//! code into a table of the values, 5 bytes per entry instead of 12.

use super::CsrMatrix;
use super::coded::{CODES, CodeTables, Dict, Lane, NO_TABLE, merge_codes};
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

/// One slice of columns of `A` (rows of `Aᵀ`), values stored as `V`.
#[derive(Clone, Debug, Default)]
struct Slice<V> {
    /// Long columns (position in the slice) with their entries: column `long_cols[k]` owns
    /// `long_ptr[k]..long_ptr[k + 1]` of `long_rows` / `long_vals`.
    long_cols: Vec<u16>,
    long_ptr: Vec<usize>,
    long_rows: Vec<StateId>,
    long_vals: Vec<V>,
    /// The other columns, `LANES` per group, longest first; [`NO_COLUMN`] marks an unused lane.
    groups: Vec<[u16; LANES]>,
    /// Group `g` owns slots `group_end[g - 1]..group_end[g]` (from 0 for the first).
    group_end: Vec<usize>,
    /// Slot `k` holds the `k`-th entry of each lane's column (row, value), or `(0, zero)` past its
    /// end.
    rows: Vec<[StateId; LANES]>,
    vals: Vec<[V; LANES]>,
}

/// The slices, with values stored directly or as codes into `table`.
#[derive(Clone, Debug)]
enum Slices {
    Direct(Vec<Slice<f64>>),
    Coded {
        table: Box<[f64; CODES]>,
        slices: Vec<Slice<u8>>,
    },
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
/// `5 B × (nnz + padding)` when `A` has at most 256 distinct values counting 0 (one-byte codes
/// into a table of the values), `12 B × (nnz + padding)` otherwise. The padding (zero entries
/// making the columns of a group equally long) is small when columns of similar length are common:
/// columns are sorted by length inside each slice of [`SLICE_COLUMNS`], and columns with 64
/// entries or more are kept unpadded.
///
/// # Complexity
/// Building: O(nnz + ncols) time on the rayon pool (the entries bucketed by slice in blocks of
/// rows, then each slice sorted by column), with at most 15 B per entry of temporary memory; a
/// product: O(nnz + padding + ncols).
#[derive(Clone, Debug)]
pub struct SlicedTranspose {
    nrows: usize,
    ncols: usize,
    nnz: usize,
    slices: Slices,
}

/// The values of a block's entries: codes while the block has at most [`CODES`] distinct values.
enum Stored {
    Coded { codes: Vec<u8>, dict: Dict },
    Direct(Vec<f64>),
}

/// The entries of a block of rows of `A`, bucketed by slice of columns: slice `c` owns
/// `start[c]..start[c + 1]`, rows ascending, each entry with its column's position in the slice.
/// (Two passes through a few thousand buckets instead of one through `ncols` columns: the
/// cursors stay in cache.)
struct Buckets {
    start: Vec<usize>,
    rows: Vec<StateId>,
    cols: Vec<u16>,
    vals: Stored,
}

impl Buckets {
    /// The rows `rows` of `a` that `keep` keeps (all without `keep`).
    fn new(a: &CsrMatrix, rows: Range<usize>, keep: Option<&[bool]>, slices: usize) -> Self {
        let (row_ptr, cols, vals) = a.as_parts();
        let kept = |i: &usize| keep.is_none_or(|k| k[*i]);
        let mut start = vec![0usize; slices + 1];
        for i in rows.clone().filter(kept) {
            for &c in &cols[row_ptr[i]..row_ptr[i + 1]] {
                start[c as usize / SLICE_COLUMNS + 1] += 1;
            }
        }
        for c in 0..slices {
            start[c + 1] += start[c];
        }
        let len = start[slices];
        let mut b = Buckets {
            rows: vec![0; len],
            cols: vec![0; len],
            vals: Stored::Coded {
                codes: vec![0; len],
                dict: Dict::new(),
            },
            start,
        };
        let mut next = b.start.clone();
        for i in rows.filter(kept) {
            for k in row_ptr[i]..row_ptr[i + 1] {
                let c = cols[k] as usize;
                let d = next[c / SLICE_COLUMNS];
                next[c / SLICE_COLUMNS] += 1;
                b.rows[d] = i as StateId;
                b.cols[d] = (c % SLICE_COLUMNS) as u16;
                let full = match &mut b.vals {
                    Stored::Coded { codes, dict } => match dict.code(vals[k]) {
                        Some(code) => {
                            codes[d] = code;
                            None
                        }
                        // Too many values: decode what is stored (slots not yet written decode
                        // to 0.0 and are overwritten later) and store values from now on.
                        None => Some(
                            codes
                                .iter()
                                .map(|&c| dict.values()[c as usize])
                                .collect::<Vec<f64>>(),
                        ),
                    },
                    Stored::Direct(v) => {
                        v[d] = vals[k];
                        None
                    }
                };
                if let Some(mut direct) = full {
                    direct[d] = vals[k];
                    b.vals = Stored::Direct(direct);
                }
            }
        }
        b
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    /// The value of entry `k`.
    fn value(&self, k: usize) -> f64 {
        match &self.vals {
            Stored::Coded { codes, dict } => dict.values()[codes[k] as usize],
            Stored::Direct(v) => v[k],
        }
    }
}

impl<V: Lane> Slice<V> {
    /// Slice `c` (`width` columns) from the bucketed row blocks `parts` (in row order), entry `k`
    /// of part `p` stored as `value(p, k)`.
    fn new(parts: &[Buckets], c: usize, width: usize, value: impl Fn(usize, usize) -> V) -> Self {
        // The slice's columns, rows ascending (counting sort by column, stable).
        let mut ptr = vec![0usize; width + 1];
        for b in parts {
            for &jj in &b.cols[b.start[c]..b.start[c + 1]] {
                ptr[jj as usize + 1] += 1;
            }
        }
        for jj in 0..width {
            ptr[jj + 1] += ptr[jj];
        }
        let mut col_rows = vec![0; ptr[width]];
        let mut col_vals = vec![V::default(); ptr[width]];
        let mut next = ptr.clone();
        for (p, b) in parts.iter().enumerate() {
            for k in b.start[c]..b.start[c + 1] {
                let d = &mut next[b.cols[k] as usize];
                col_rows[*d] = b.rows[k];
                col_vals[*d] = value(p, k);
                *d += 1;
            }
        }
        let lens: Vec<usize> = ptr.windows(2).map(|w| w[1] - w[0]).collect();
        // Longest first, equally long columns in column order: long columns by a stable sort,
        // the others by counting sort on their length.
        let mut long: Vec<usize> = (0..width).filter(|&jj| lens[jj] >= LONG_COLUMN).collect();
        long.sort_by_key(|&jj| Reverse(lens[jj]));
        // Bucket `LONG_COLUMN - 1 - len` holds the columns of length `len`.
        let mut first = [0usize; LONG_COLUMN];
        for &len in lens.iter().filter(|&&len| len < LONG_COLUMN) {
            first[LONG_COLUMN - 1 - len] += 1;
        }
        let mut at = 0;
        for f in &mut first {
            (at, *f) = (at + *f, at);
        }
        let mut order = vec![0usize; width - long.len()];
        for (jj, &len) in lens.iter().enumerate().filter(|(_, len)| **len < LONG_COLUMN) {
            let f = &mut first[LONG_COLUMN - 1 - len];
            order[*f] = jj;
            *f += 1;
        }
        let mut s = Slice {
            long_cols: Vec::with_capacity(long.len()),
            long_ptr: Vec::with_capacity(long.len() + 1),
            long_rows: Vec::new(),
            long_vals: Vec::new(),
            groups: Vec::with_capacity(order.len().div_ceil(LANES)),
            group_end: Vec::with_capacity(order.len().div_ceil(LANES)),
            rows: Vec::new(),
            vals: Vec::new(),
        };
        s.long_ptr.push(0);
        for &jj in &long {
            s.long_cols.push(jj as u16);
            s.long_rows.extend_from_slice(&col_rows[ptr[jj]..ptr[jj + 1]]);
            s.long_vals.extend_from_slice(&col_vals[ptr[jj]..ptr[jj + 1]]);
            s.long_ptr.push(s.long_rows.len());
        }
        let slots: usize = order.chunks(LANES).map(|g| lens[g[0]]).sum();
        s.rows = vec![[0; LANES]; slots];
        s.vals = vec![[V::default(); LANES]; slots];
        let mut start = 0;
        for group in order.chunks(LANES) {
            let mut lanes = [NO_COLUMN; LANES];
            for (l, &jj) in group.iter().enumerate() {
                lanes[l] = jj as u16;
                let r = ptr[jj]..ptr[jj + 1];
                for (k, (&i, &p)) in col_rows[r.clone()].iter().zip(&col_vals[r]).enumerate() {
                    s.rows[start + k][l] = i;
                    s.vals[start + k][l] = p;
                }
            }
            start += lens[group[0]];
            s.groups.push(lanes);
            s.group_end.push(start);
        }
        s
    }

    /// `y[jj] = Σ_i x[i] · A[i, lo + jj]` for every column of the slice (`y`: the slice's part
    /// of the result), values decoded with `table`.
    #[inline]
    fn gather(&self, table: &[f64; CODES], x: &[f64], y: &mut [f64]) {
        for (k, &jj) in self.long_cols.iter().enumerate() {
            let r = self.long_ptr[k]..self.long_ptr[k + 1];
            let mut acc = 0.0;
            for (&i, &p) in self.long_rows[r.clone()].iter().zip(&self.long_vals[r]) {
                acc += x[i as usize] * p.decode(table);
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
                    acc[l] += x[(r[l] as usize).min(last)] * v[l].decode(table);
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

/// `y = xᵀA` over `slices`, then `then` on each slice's part of `y`, in parallel.
fn run<V: Lane, R: Send>(
    slices: &[Slice<V>],
    table: &[f64; CODES],
    x: &[f64],
    y: &mut [f64],
    then: impl Fn(usize, &mut [f64]) -> R + Sync,
) -> Vec<R> {
    y.par_chunks_mut(SLICE_COLUMNS)
        .zip(slices.par_iter())
        .enumerate()
        .with_min_len(SLICES_PER_TASK)
        .map(|(c, (part, slice))| {
            slice.gather(table, x, part);
            then(c * SLICE_COLUMNS, part)
        })
        .collect()
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
        Self::build(a, None)
    }

    /// The sliced transpose of `a` without the rows that `keep` does not keep (as if they were
    /// zero): its products equal `xᵀA` for every `x` that is zero outside the kept rows, and cost
    /// only the kept rows' entries.
    ///
    /// # Panics
    /// - panics if `keep.len() != a.nrows()`, or as [`new`](Self::new).
    #[must_use]
    #[track_caller]
    pub fn with_rows(a: &CsrMatrix, keep: &[bool]) -> Self {
        assert!(
            keep.len() == a.nrows(),
            "with_rows: {} flags for {} rows",
            keep.len(),
            a.nrows()
        );
        Self::build(a, Some(keep))
    }

    #[track_caller]
    fn build(a: &CsrMatrix, keep: Option<&[bool]>) -> Self {
        assert!(
            a.nrows() <= StateId::MAX as usize + 1,
            "a sliced transpose stores row indices as u32"
        );
        let (row_ptr, _, _) = a.as_parts();
        let nnz = a.nnz();
        // Row blocks of about equal numbers of entries, bucketed in parallel; their number only
        // changes how the copy is built, not the copy.
        let parts = if nnz < 1 << 16 {
            1
        } else {
            rayon::current_num_threads().clamp(1, 64)
        };
        let mut bounds: Vec<usize> = (0..parts)
            .map(|p| row_ptr.partition_point(|&k| k < nnz / parts * p).min(a.nrows()))
            .collect();
        bounds.push(a.nrows());
        let ncols = a.ncols();
        let nslices = ncols.div_ceil(SLICE_COLUMNS);
        let parts: Vec<Buckets> = bounds
            .par_windows(2)
            .map(|w| Buckets::new(a, w[0]..w[1], keep, nslices))
            .collect();
        let width = |c: usize| SLICE_COLUMNS.min(ncols - c * SLICE_COLUMNS);
        let slices = match codes(&parts) {
            Some((table, maps)) => Slices::Coded {
                table,
                slices: (0..nslices)
                    .into_par_iter()
                    .with_min_len(SLICES_PER_TASK)
                    .map(|c| {
                        Slice::new(&parts, c, width(c), |p, k| match &parts[p].vals {
                            Stored::Coded { codes, .. } => maps[p][codes[k] as usize],
                            Stored::Direct(_) => unreachable!("every part is coded"),
                        })
                    })
                    .collect(),
            },
            None => Slices::Direct(
                (0..nslices)
                    .into_par_iter()
                    .with_min_len(SLICES_PER_TASK)
                    .map(|c| Slice::new(&parts, c, width(c), |p, k| parts[p].value(k)))
                    .collect(),
            ),
        };
        Self {
            nrows: a.nrows(),
            ncols,
            nnz: parts.iter().map(Buckets::len).sum(),
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

    /// Stored entries of `A` (of the kept rows).
    #[must_use]
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Slots a product visits: the entries plus the padding.
    #[must_use]
    pub fn slots(&self) -> usize {
        match &self.slices {
            Slices::Direct(s) => s.iter().map(Slice::slots).sum(),
            Slices::Coded { slices, .. } => slices.iter().map(Slice::slots).sum(),
        }
    }

    /// Whether the values are stored as one-byte codes (at most 256 distinct values, counting 0).
    #[must_use]
    pub fn is_coded(&self) -> bool {
        matches!(self.slices, Slices::Coded { .. })
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
        match &self.slices {
            Slices::Direct(slices) => run(slices, &NO_TABLE, x, y, then),
            Slices::Coded { table, slices } => run(slices, table, x, y, then),
        }
    }
}

/// When every part is coded and their values together are at most [`CODES`]: the table (`+0.0`
/// first, then by bits) and, for each part, its codes' positions in the table.
fn codes(parts: &[Buckets]) -> Option<CodeTables> {
    let dicts: Option<Vec<&Dict>> = parts
        .iter()
        .map(|p| match &p.vals {
            Stored::Coded { dict, .. } => Some(dict),
            Stored::Direct(_) => None,
        })
        .collect();
    merge_codes(dicts?.into_iter())
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

    /// A matrix whose values are drawn from `values(row)` (few distinct values).
    fn few_values(n: usize, seed: u64, values: impl Fn(usize) -> Vec<f64>) -> CsrMatrix {
        let pattern = random::matrix(n, n, 6, 0.1, false, seed);
        let mut b = crate::sparse::CsrBuilder::new(n);
        for i in 0..n {
            let vs = values(i);
            for (k, &c) in pattern.row(i).0.iter().enumerate() {
                b.add(c, vs[(i * 7 + k * 13) % vs.len()]);
            }
            b.finish_row();
        }
        b.build()
    }

    #[test]
    fn few_distinct_values_are_stored_as_codes() {
        let sixths: Vec<f64> = (1..=6).map(|k| k as f64 / 6.0).collect();
        for (seed, n) in [1usize, 5, 64, 1025, 3000].into_iter().enumerate() {
            let a = few_values(n, seed as u64, |_| sixths.clone());
            assert!(SlicedTranspose::new(&a).is_coded());
            check(&a, seed as u64);
        }
        // Exactly 255 values besides 0 still fit; one more does not (the block switches to
        // storing values midway).
        let many = |k: usize| (1..=k).map(|v| v as f64 / 1024.0).collect::<Vec<f64>>();
        let a = few_values(3000, 9, |i| if i < 2000 { many(200) } else { many(255) });
        assert!(SlicedTranspose::new(&a).is_coded());
        check(&a, 9);
        let a = few_values(3000, 10, |i| if i < 2000 { many(200) } else { many(256) });
        assert!(!SlicedTranspose::new(&a).is_coded());
        check(&a, 10);
    }

    #[test]
    fn blocks_with_different_values_are_not_coded() {
        // Each half of the rows has 200 values, 400 in all: with several row blocks each block is
        // coded but the whole is not.
        let n = 100_000;
        let a = few_values(n, 11, |i| {
            let base = if i < n / 2 { 0.0 } else { 0.5 };
            (1..=200).map(|v| base + v as f64 / 1024.0).collect()
        });
        let x = random::vector(n, 12);
        let mut want = vec![0.0; n];
        a.vec_mul(&x, &mut want);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (coded, got) = pool.install(|| {
                let t = SlicedTranspose::new(&a);
                let mut y = vec![0.0; n];
                t.vec_mul(&x, &mut y);
                (t.is_coded(), y)
            });
            assert!(!coded);
            assert!(
                want.iter().zip(&got).all(|(w, g)| w.to_bits() == g.to_bits()),
                "{threads} threads"
            );
        }
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
    fn left_out_rows_cost_nothing_and_change_nothing() {
        let a = random::matrix(3000, 3000, 8, 0.3, true, 21);
        let keep: Vec<bool> = (0..3000).map(|i| i % 3 != 1).collect();
        let t = SlicedTranspose::with_rows(&a, &keep);
        let kept: usize = (0..3000).filter(|&i| keep[i]).map(|i| a.row(i).0.len()).sum();
        assert_eq!(t.nnz(), kept);
        let mut x = random::vector(3000, 22);
        for (xi, k) in x.iter_mut().zip(&keep) {
            if !k {
                *xi = 0.0;
            }
        }
        let (mut want, mut got) = (vec![0.0; 3000], vec![0.0; 3000]);
        a.vec_mul(&x, &mut want);
        t.vec_mul(&x, &mut got);
        assert!(want.iter().zip(&got).all(|(w, g)| w.to_bits() == g.to_bits()));
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
