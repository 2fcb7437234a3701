use super::CsrMatrix;
use crate::StateId;

/// Builds a [`CsrMatrix`] row by row (Storm's `SparseMatrixBuilder`): add the entries of the
/// current row in any order with [`add`](Self::add), close it with
/// [`finish_row`](Self::finish_row); entries with the same column are summed. Row groups are
/// opened with [`new_row_group`](Self::new_row_group); without any call every row is its own
/// group.
#[derive(Debug)]
pub struct CsrBuilder<T = f64> {
    ncols: usize,
    row_ptr: Vec<usize>,
    cols: Vec<StateId>,
    vals: Vec<T>,
    group_ptr: Vec<usize>,
    pending: Vec<(StateId, T)>,
    explicit_groups: bool,
}

impl<T: Clone + std::ops::AddAssign> CsrBuilder<T> {
    /// A builder for a matrix with `ncols` columns.
    #[must_use]
    pub fn new(ncols: usize) -> Self {
        Self {
            ncols,
            row_ptr: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
            group_ptr: vec![0],
            pending: Vec::new(),
            explicit_groups: false,
        }
    }

    /// Sets the column count (when it is only known once all rows are in, as in exploration).
    pub fn set_ncols(&mut self, ncols: usize) {
        self.ncols = ncols;
    }

    /// Adds `value` at column `col` of the current row.
    #[inline]
    pub fn add(&mut self, col: StateId, value: T) {
        self.pending.push((col, value));
    }

    /// Closes the current row: sorts its entries by column and sums duplicates.
    pub fn finish_row(&mut self) {
        self.pending.sort_by_key(|e| e.0);
        let mut last: Option<StateId> = None;
        for (c, v) in self.pending.drain(..) {
            if last == Some(c) {
                *self.vals.last_mut().expect("an entry was pushed") += v;
            } else {
                self.cols.push(c);
                self.vals.push(v);
                last = Some(c);
            }
        }
        self.row_ptr.push(self.cols.len());
    }

    /// Starts a new row group at the next row. The first group starts at row 0 implicitly.
    pub fn new_row_group(&mut self) {
        self.explicit_groups = true;
        let next = self.row_ptr.len() - 1;
        if next > 0 && *self.group_ptr.last().expect("non-empty") != next {
            self.group_ptr.push(next);
        }
    }

    /// Number of finished rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// The finished matrix.
    ///
    /// # Panics
    /// - panics if a column index is `>= ncols` or a row is still open.
    #[must_use]
    #[track_caller]
    pub fn build(mut self) -> CsrMatrix<T> {
        assert!(self.pending.is_empty(), "a row is still open");
        assert!(
            self.cols.iter().all(|&c| (c as usize) < self.ncols),
            "column index out of range"
        );
        let nrows = self.rows();
        if self.explicit_groups {
            if *self.group_ptr.last().expect("non-empty") != nrows {
                self.group_ptr.push(nrows);
            }
        } else {
            self.group_ptr = (0..=nrows).collect();
        }
        CsrMatrix {
            ncols: self.ncols,
            row_ptr: self.row_ptr,
            cols: self.cols,
            vals: self.vals,
            group_ptr: self.group_ptr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_groups() {
        let mut b = CsrBuilder::new(2);
        b.new_row_group();
        b.add(0, 1.0);
        b.finish_row();
        b.add(1, 1.0);
        b.finish_row();
        b.new_row_group();
        b.add(1, 1.0);
        b.finish_row();
        let m = b.build();
        assert_eq!(m.row_groups(), 2);
        assert_eq!(m.group_rows(0), 0..2);
        assert_eq!(m.group_rows(1), 2..3);
        assert!(!m.has_trivial_row_grouping());
    }
}
