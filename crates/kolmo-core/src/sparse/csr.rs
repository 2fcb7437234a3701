use crate::StateId;
use std::ops::Range;

/// A sparse matrix in compressed sparse row form, with rows partitioned into consecutive
/// **row groups**.
///
/// Shape: `nrows() × ncols()`; `row_groups()` groups, group `g` owning rows
/// `group_rows(g)`. For a Markov chain rows and groups coincide (see
/// [`has_trivial_row_grouping`](Self::has_trivial_row_grouping)) and `nrows() == ncols()`.
///
/// # Invariants
/// - `row_ptr` has `nrows + 1` non-decreasing entries, from 0 to `nnz`;
/// - within a row, column indices are strictly increasing and `< ncols` (no duplicates);
/// - `group_ptr` has `groups + 1` non-decreasing entries, from 0 to `nrows`.
#[derive(Clone, Debug, PartialEq)]
pub struct CsrMatrix<T = f64> {
    pub(super) ncols: usize,
    pub(super) row_ptr: Vec<usize>,
    pub(super) cols: Vec<StateId>,
    pub(super) vals: Vec<T>,
    pub(super) group_ptr: Vec<usize>,
}

impl<T> CsrMatrix<T> {
    /// A matrix with trivial row grouping from raw CSR arrays whose rows are already sorted by
    /// column without duplicates.
    ///
    /// # Panics
    /// - panics if the arrays are inconsistent (pointer count, lengths, a column `>= ncols`, or
    ///   a row not strictly increasing).
    #[must_use]
    #[track_caller]
    pub fn from_sorted_parts(ncols: usize, row_ptr: Vec<usize>, cols: Vec<StateId>, vals: Vec<T>) -> Self {
        assert!(!row_ptr.is_empty() && row_ptr[0] == 0 && *row_ptr.last().unwrap() == cols.len());
        assert!(cols.len() == vals.len());
        for w in row_ptr.windows(2) {
            let r = &cols[w[0]..w[1]];
            assert!(r.windows(2).all(|p| p[0] < p[1]) && r.last().is_none_or(|&c| (c as usize) < ncols));
        }
        let nrows = row_ptr.len() - 1;
        Self {
            ncols,
            row_ptr,
            cols,
            vals,
            group_ptr: (0..=nrows).collect(),
        }
    }

    /// A matrix from raw CSR arrays with the row groups given by `group_ptr` (group `g` owns rows
    /// `group_ptr[g]..group_ptr[g + 1]`; pass `0..=nrows` for one row per group). Rows must already
    /// be sorted by column without duplicates. Shapes: `row_ptr` has `nrows + 1` entries, `cols`
    /// and `vals` have `nnz`, `group_ptr` has `groups + 1`. The checks run in parallel (rayon), so
    /// building a model of 10⁸ transitions from a reader's arrays costs a fraction of reading them.
    ///
    /// # Panics
    /// - panics if the arrays break an invariant of [`CsrMatrix`] (pointer counts or bounds,
    ///   lengths, a column `>= ncols`, a row not strictly increasing, group pointers not running
    ///   from 0 to `nrows` without decreasing).
    #[must_use]
    #[track_caller]
    pub fn from_grouped_parts(
        ncols: usize,
        row_ptr: Vec<usize>,
        cols: Vec<StateId>,
        vals: Vec<T>,
        group_ptr: Vec<usize>,
    ) -> Self
    where
        T: Send + Sync,
    {
        use rayon::prelude::*;
        assert!(
            row_ptr.first() == Some(&0) && row_ptr.last() == Some(&cols.len()),
            "row pointers must run from 0 to nnz"
        );
        assert!(cols.len() == vals.len(), "one value per column index");
        let nrows = row_ptr.len() - 1;
        assert!(
            group_ptr.first() == Some(&0)
                && group_ptr.last() == Some(&nrows)
                && group_ptr
                    .par_windows(2)
                    .with_min_len(1 << 12)
                    .all(|w| w[0] <= w[1]),
            "group pointers must run from 0 to nrows without decreasing"
        );
        let rows_ok = row_ptr.par_windows(2).with_min_len(1 << 12).all(|w| {
            w[0] <= w[1]
                && cols.get(w[0]..w[1]).is_some_and(|r| {
                    r.windows(2).all(|p| p[0] < p[1]) && r.last().is_none_or(|&c| (c as usize) < ncols)
                })
        });
        assert!(
            rows_ok,
            "every row must hold strictly increasing columns below ncols"
        );
        Self {
            ncols,
            row_ptr,
            cols,
            vals,
            group_ptr,
        }
    }

    /// A matrix with this one's pattern and row groups holding `vals` instead (one per stored
    /// entry, in storage order: row by row, ascending column) — for example the exact values of
    /// a floating-point matrix.
    ///
    /// # Panics
    /// - panics if `vals.len() != self.nnz()`.
    #[must_use]
    #[track_caller]
    pub fn with_values<U>(&self, vals: Vec<U>) -> CsrMatrix<U> {
        assert!(vals.len() == self.vals.len(), "one value per stored entry");
        CsrMatrix {
            ncols: self.ncols,
            row_ptr: self.row_ptr.clone(),
            cols: self.cols.clone(),
            vals,
            group_ptr: self.group_ptr.clone(),
        }
    }

    /// Number of rows (choices; states for a Markov chain).
    #[must_use]
    pub fn nrows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Number of columns (states).
    #[must_use]
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored entries.
    #[must_use]
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// Number of row groups (states).
    #[must_use]
    pub fn row_groups(&self) -> usize {
        self.group_ptr.len() - 1
    }

    /// Whether every group holds exactly one row (the matrix of a Markov chain).
    #[must_use]
    pub fn has_trivial_row_grouping(&self) -> bool {
        self.row_groups() == self.nrows()
    }

    /// The rows of group `g`.
    ///
    /// # Panics
    /// - panics if `g >= self.row_groups()`.
    #[must_use]
    #[track_caller]
    pub fn group_rows(&self, g: usize) -> Range<usize> {
        self.group_ptr[g]..self.group_ptr[g + 1]
    }

    /// Row `i` as (column indices, values), columns increasing.
    ///
    /// # Panics
    /// - panics if `i >= self.nrows()`; see [`get_row`](Self::get_row).
    #[must_use]
    #[track_caller]
    #[inline]
    pub fn row(&self, i: usize) -> (&[StateId], &[T]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.cols[r.clone()], &self.vals[r])
    }

    /// Row `i`, or `None` if it does not exist.
    #[must_use]
    pub fn get_row(&self, i: usize) -> Option<(&[StateId], &[T])> {
        (i < self.nrows()).then(|| self.row(i))
    }

    /// The value at (`i`, `j`), or `None` when the entry is not stored.
    ///
    /// # Panics
    /// - panics if `i >= self.nrows()`.
    #[must_use]
    #[track_caller]
    pub fn get(&self, i: usize, j: StateId) -> Option<&T> {
        let (c, v) = self.row(i);
        c.binary_search(&j).ok().map(|k| &v[k])
    }

    /// The raw CSR arrays: row pointers (length `nrows + 1`), column indices and values
    /// (length `nnz`).
    #[must_use]
    pub fn as_parts(&self) -> (&[usize], &[StateId], &[T]) {
        (&self.row_ptr, &self.cols, &self.vals)
    }

    /// The sparsity pattern transposed: for each column `j`, the rows with an entry in column
    /// `j` (ascending). Used for backward graph searches. Shape: `ncols` lists.
    ///
    /// # Complexity
    /// O(nrows + nnz) time and space.
    #[must_use]
    pub fn transpose_pattern(&self) -> (Vec<usize>, Vec<u32>) {
        let n = self.ncols;
        let mut ptr = vec![0usize; n + 1];
        for &c in &self.cols {
            ptr[c as usize + 1] += 1;
        }
        for i in 0..n {
            ptr[i + 1] += ptr[i];
        }
        let mut next = ptr.clone();
        let mut rows = vec![0u32; self.cols.len()];
        for i in 0..self.nrows() {
            for &c in &self.cols[self.row_ptr[i]..self.row_ptr[i + 1]] {
                rows[next[c as usize]] = i as u32;
                next[c as usize] += 1;
            }
        }
        (ptr, rows)
    }
}

impl<T: Clone> CsrMatrix<T> {
    /// The matrix made of the given rows, in the order given (trivial row grouping): for a
    /// row-grouped model and one chosen row per group, the Markov chain that the choice induces.
    /// Shape `rows.len() × ncols`.
    ///
    /// # Panics
    /// - panics if a row index is `>= nrows()`.
    #[must_use]
    #[track_caller]
    pub fn select_rows(&self, rows: &[usize]) -> CsrMatrix<T> {
        let mut row_ptr = Vec::with_capacity(rows.len() + 1);
        row_ptr.push(0);
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        for &r in rows {
            let span = self.row_ptr[r]..self.row_ptr[r + 1];
            cols.extend_from_slice(&self.cols[span.clone()]);
            vals.extend_from_slice(&self.vals[span]);
            row_ptr.push(cols.len());
        }
        CsrMatrix {
            ncols: self.ncols,
            row_ptr,
            cols,
            vals,
            group_ptr: (0..=rows.len()).collect(),
        }
    }
}

impl CsrMatrix<f64> {
    /// The matrix without its stored zeros (row groups kept): a stored `0.0` would be an edge to
    /// the graph algorithms although the chain never takes it. Returns `self` unchanged when
    /// there is none.
    #[must_use]
    pub fn without_zeros(self) -> Self {
        use rayon::prelude::*;
        if !self.vals.par_iter().with_min_len(1 << 16).any(|&v| v == 0.0) {
            return self;
        }
        let mut row_ptr = Vec::with_capacity(self.row_ptr.len());
        row_ptr.push(0);
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        for w in self.row_ptr.windows(2) {
            for k in w[0]..w[1] {
                if self.vals[k] != 0.0 {
                    cols.push(self.cols[k]);
                    vals.push(self.vals[k]);
                }
            }
            row_ptr.push(cols.len());
        }
        Self {
            ncols: self.ncols,
            row_ptr,
            cols,
            vals,
            group_ptr: self.group_ptr,
        }
    }
}

impl<T: Copy> CsrMatrix<T> {
    /// The transpose `Aᵀ` (`ncols × nrows`, trivial row grouping), values included.
    ///
    /// # Complexity
    /// O(nrows + ncols + nnz).
    #[must_use]
    pub fn transpose(&self) -> CsrMatrix<T> {
        let (ptr, rows) = self.transpose_pattern();
        let mut next = ptr.clone();
        let mut vals: Vec<Option<T>> = vec![None; self.vals.len()];
        for i in 0..self.nrows() {
            for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                let c = self.cols[k] as usize;
                vals[next[c]] = Some(self.vals[k]);
                next[c] += 1;
            }
        }
        let nrows = self.ncols;
        CsrMatrix {
            ncols: self.nrows(),
            row_ptr: ptr,
            cols: rows,
            vals: vals
                .into_iter()
                .map(|v| v.expect("every slot is filled"))
                .collect(),
            group_ptr: (0..=nrows).collect(),
        }
    }
}

impl CsrMatrix<f64> {
    /// `y = xᵀ A`: the row vector `x` (length `nrows`) times the matrix; the result has length
    /// `ncols`. One step of a distribution's evolution, `π_{k+1} = π_k P`.
    ///
    /// # Panics
    /// - panics if `x.len() != self.nrows()` or `y.len() != self.ncols()`.
    #[track_caller]
    pub fn vec_mul(&self, x: &[f64], y: &mut [f64]) {
        assert!(x.len() == self.nrows() && y.len() == self.ncols);
        y.fill(0.0);
        for (i, &xi) in x.iter().enumerate() {
            if xi == 0.0 {
                continue;
            }
            let (c, v) = self.row(i);
            for (&j, &p) in c.iter().zip(v) {
                y[j as usize] += xi * p;
            }
        }
    }

    /// `y = A x`: the matrix times the column vector `x` (length `ncols`); the result has length
    /// `nrows`.
    ///
    /// # Panics
    /// - panics if `x.len() != self.ncols()` or `y.len() != self.nrows()`.
    #[track_caller]
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        assert!(x.len() == self.ncols && y.len() == self.nrows());
        for (i, yi) in y.iter_mut().enumerate() {
            let (c, v) = self.row(i);
            *yi = c.iter().zip(v).map(|(&j, &p)| p * x[j as usize]).sum();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::CsrBuilder;

    #[test]
    fn products_and_transpose() {
        // [[0.5, 0.5, 0], [0, 0, 1], [1, 0, 0]]
        let mut b = CsrBuilder::new(3);
        b.add(1, 0.5);
        b.add(0, 0.5);
        b.finish_row();
        b.add(2, 1.0);
        b.finish_row();
        b.add(0, 0.25);
        b.add(0, 0.75);
        b.finish_row();
        let a = b.build();
        assert_eq!(a.nnz(), 4);
        assert_eq!(a.row(0), (&[0u32, 1][..], &[0.5, 0.5][..]));
        assert_eq!(a.get(2, 0), Some(&1.0));
        assert_eq!(a.get(2, 1), None);
        let mut y = vec![0.0; 3];
        a.vec_mul(&[1.0, 0.0, 0.0], &mut y);
        assert_eq!(y, vec![0.5, 0.5, 0.0]);
        a.mul_vec(&[1.0, 2.0, 3.0], &mut y);
        assert_eq!(y, vec![1.5, 3.0, 1.0]);
        let (ptr, rows) = a.transpose_pattern();
        assert_eq!(ptr, vec![0, 2, 3, 4]);
        assert_eq!(rows, vec![0, 2, 0, 1]);
        let t = a.transpose();
        assert_eq!(t.row(0), (&[0u32, 2][..], &[0.5, 1.0][..]));
        assert_eq!(t.row(2), (&[1u32][..], &[1.0][..]));
        assert_eq!(t.transpose(), a);
        assert!(a.has_trivial_row_grouping());
    }
}
