//! Multiply and reduce: the one Bellman step of every value iteration (Storm's
//! `Multiplier::multiplyAndReduce`). For each row group `g` of the row-grouped matrix `A`,
//!
//! `out[g] = opt_{r ∈ g} ( b[r] + γ · Σ_t A[r, t] · x[t] )`,
//!
//! the optimum being a maximum or a minimum chosen per group (by the state's owner in a game),
//! with the choice that attains it recorded (the first one on ties). One summation policy for all
//! callers: `f64` rows are summed compensated (Neumaier), rationals exactly.

use super::CsrMatrix;
use crate::numeric::NeumaierSum;

/// Groups per parallel task of [`CsrMatrix::multiply_and_reduce`]: small models stay on one
/// thread.
const PARALLEL_GROUPS: usize = 1 << 12;

/// Which way a row group is reduced (Storm's `OptimizationDirection`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The largest row value.
    Max,
    /// The smallest row value.
    Min,
}

impl Direction {
    /// Whether `a` is strictly better than `b` in this direction.
    #[inline]
    #[must_use]
    pub fn better<T: PartialOrd>(self, a: &T, b: &T) -> bool {
        match self {
            Self::Max => a > b,
            Self::Min => a < b,
        }
    }

    /// The other direction.
    #[must_use]
    pub fn flip(self) -> Self {
        match self {
            Self::Max => Self::Min,
            Self::Min => Self::Max,
        }
    }
}

/// A number the kernel multiplies and sums in, with its summation policy: `f64` sums
/// compensated (Neumaier, "Rundungsfehleranalyse einiger Verfahren zur Summation endlicher
/// Summen", ZAMM 54, 1974), rationals exactly.
pub trait Accumulate: Clone + PartialOrd + Send + Sync {
    /// A running sum.
    type Sum;
    /// A sum holding `start`, or 0 for `None`.
    fn start(start: Option<&Self>) -> Self::Sum;
    /// Adds `(γ · a) · x` (`a · x` for `γ = None`).
    fn add_product(sum: &mut Self::Sum, gamma: Option<&Self>, a: &Self, x: &Self);
    /// Adds `x`.
    fn add(sum: &mut Self::Sum, x: &Self);
    /// The value of the sum.
    fn finish(sum: Self::Sum) -> Self;
}

impl Accumulate for f64 {
    type Sum = NeumaierSum;
    #[inline]
    fn start(start: Option<&Self>) -> NeumaierSum {
        let mut s = NeumaierSum::default();
        if let Some(&b) = start {
            s.add(b);
        }
        s
    }
    #[inline]
    fn add_product(sum: &mut NeumaierSum, gamma: Option<&Self>, a: &Self, x: &Self) {
        match gamma {
            Some(g) => sum.add(g * a * x),
            None => sum.add(a * x),
        }
    }
    #[inline]
    fn add(sum: &mut NeumaierSum, x: &Self) {
        sum.add(*x);
    }
    #[inline]
    fn finish(sum: NeumaierSum) -> Self {
        sum.value()
    }
}

/// The affine part of a Bellman step: row values `b[r] + γ · (A x)[r]`.
#[derive(Debug)]
pub struct Affine<'a, T> {
    /// The offset per row (a choice's reward; length `nrows`), or none (0).
    pub b: Option<&'a [T]>,
    /// The factor `γ` of the product (a discount), or none (1).
    pub gamma: Option<&'a T>,
}

impl<T> Clone for Affine<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Affine<'_, T> {}

impl<'a, T> Affine<'a, T> {
    /// `A x`: no offset, no factor.
    #[must_use]
    pub fn product() -> Self {
        Self { b: None, gamma: None }
    }

    /// `b + A x`.
    #[must_use]
    pub fn offset(b: &'a [T]) -> Self {
        Self {
            b: Some(b),
            gamma: None,
        }
    }

    /// `b + γ A x`.
    #[must_use]
    pub fn discounted(b: &'a [T], gamma: &'a T) -> Self {
        Self {
            b: Some(b),
            gamma: Some(gamma),
        }
    }
}

impl<T: Accumulate> CsrMatrix<T> {
    /// The value of row `row`: `b[row] + γ · Σ_t A[row, t] · x[t]`, summed by the scalar's policy
    /// (compensated for `f64`).
    ///
    /// # Panics
    /// - panics if `row` is out of range, or `x` or `affine.b` is too short.
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn row_value(&self, row: usize, x: &[T], affine: Affine<'_, T>) -> T {
        let (cols, vals) = self.row(row);
        let mut sum = T::start(affine.b.map(|b| &b[row]));
        for (&t, a) in cols.iter().zip(vals) {
            T::add_product(&mut sum, affine.gamma, a, &x[t as usize]);
        }
        T::finish(sum)
    }

    /// The optimum of group `g`'s row values in `direction` and the index within the group of the
    /// row attaining it (the first one on ties).
    ///
    /// # Panics
    /// - panics if `g` is out of range or the group is empty, or `x` or `affine.b` is too short.
    #[must_use]
    #[track_caller]
    pub fn group_optimum(&self, g: usize, direction: Direction, x: &[T], affine: Affine<'_, T>) -> (T, u32) {
        let rows = self.group_rows(g);
        assert!(!rows.is_empty(), "row group {g} is empty");
        let mut best = (self.row_value(rows.start, x, affine), 0u32);
        for (k, r) in rows.enumerate().skip(1) {
            let v = self.row_value(r, x, affine);
            if direction.better(&v, &best.0) {
                best = (v, k as u32);
            }
        }
        best
    }

    /// The Bellman step (Storm's `multiplyAndReduce`; Puterman, *Markov Decision Processes*, 1994,
    /// §6.3; Shapley, "Stochastic games", PNAS 39, 1953, for games): for every group `g`,
    /// `out[g] = opt_{r ∈ g} (b[r] + γ (A x)[r])` in `direction(g)`, and `choices[g]` the index
    /// within the group of the optimal row (the first on ties). Jacobi style: reads only `x`; the
    /// groups are computed in parallel (rayon), each by the same sequential sum, so the result does
    /// not depend on the number of threads.
    ///
    /// # Panics
    /// - panics if `out` or `choices` does not have one entry per group, `x` is shorter than the
    ///   number of columns, `affine.b` shorter than the number of rows, or a group is empty.
    ///
    /// # Complexity
    /// O(nnz).
    #[track_caller]
    pub fn multiply_and_reduce(
        &self,
        direction: impl Fn(usize) -> Direction + Sync,
        x: &[T],
        affine: Affine<'_, T>,
        out: &mut [T],
        choices: &mut [u32],
    ) {
        use rayon::prelude::*;
        let groups = self.row_groups();
        assert!(out.len() == groups && choices.len() == groups && x.len() >= self.ncols());
        out.par_iter_mut()
            .zip(choices.par_iter_mut())
            .enumerate()
            .with_min_len(PARALLEL_GROUPS)
            .for_each(|(g, (o, c))| {
                let (v, k) = self.group_optimum(g, direction(g), x, affine);
                *o = v;
                *c = k;
            });
    }

    /// [`multiply_and_reduce`](Self::multiply_and_reduce) in place, Gauss–Seidel style (Puterman
    /// §6.3.3): groups in order, each new value stored in `x[g]` at once, so that later groups read
    /// it (a square matrix: group `g` is state `g`). `updated(g, old, new)` is called before each
    /// store.
    ///
    /// # Panics
    /// - panics if `x` or `choices` does not have one entry per group, the matrix is not square
    ///   in groups, `affine.b` is shorter than the number of rows, or a group is empty.
    ///
    /// # Complexity
    /// O(nnz).
    #[track_caller]
    pub fn multiply_and_reduce_gauss_seidel(
        &self,
        direction: impl Fn(usize) -> Direction,
        x: &mut [T],
        affine: Affine<'_, T>,
        choices: &mut [u32],
        mut updated: impl FnMut(usize, &T, &T),
    ) {
        let groups = self.row_groups();
        assert!(x.len() == groups && choices.len() == groups && self.ncols() == groups);
        for g in 0..groups {
            let (v, k) = self.group_optimum(g, direction(g), x, affine);
            updated(g, &x[g], &v);
            x[g] = v;
            choices[g] = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    use crate::sparse::two_by_two;

    #[test]
    fn reduces_by_direction_and_records_the_first_optimum() {
        let m = two_by_two();
        let rewards = [1.0, 0.0, 5.0, 2.0];
        let dir = |g: usize| if g == 0 { Direction::Max } else { Direction::Min };
        let (mut out, mut ch) = (vec![0.0; 2], vec![0u32; 2]);
        m.multiply_and_reduce(dir, &[10.0, 0.0], Affine::offset(&rewards), &mut out, &mut ch);
        assert_eq!((out, ch), (vec![11.0, 2.0], vec![0, 1]));
        // Ties: the first row.
        let (mut out, mut ch) = (vec![0.0; 2], vec![9u32; 2]);
        m.multiply_and_reduce(
            |_| Direction::Max,
            &[3.0, 3.0],
            Affine::product(),
            &mut out,
            &mut ch,
        );
        assert_eq!((out, ch), (vec![3.0, 3.0], vec![0, 0]));
    }

    #[test]
    fn gauss_seidel_reads_the_new_values() {
        let m = two_by_two();
        let rewards = [0.0, 1.0, 0.0, 0.5];
        let gamma = 0.5;
        let mut x = vec![0.0, 0.0];
        let mut ch = vec![0u32; 2];
        let mut changes = Vec::new();
        m.multiply_and_reduce_gauss_seidel(
            |_| Direction::Max,
            &mut x,
            Affine::discounted(&rewards, &gamma),
            &mut ch,
            |g, old, new| changes.push((g, *old, *new)),
        );
        // Group 0: max(0 + 0, 1 + 0) = 1 (row 1); group 1 reads x[0] = 1: max(0.5, 0.5) = 0.5,
        // the first row on the tie.
        assert_eq!(x, vec![1.0, 0.5]);
        assert_eq!(ch, vec![1, 0]);
        assert_eq!(changes, vec![(0, 0.0, 1.0), (1, 0.0, 0.5)]);
    }

    #[test]
    fn compensated_rows() {
        // 1 + 1e-16 · 4 summed naively from the left loses the small terms; compensated it keeps them.
        let mut b = CsrBuilder::new(5);
        b.new_row_group();
        for t in 0..5 {
            b.add(t, 1.0);
        }
        b.finish_row();
        let m = b.build();
        let x = [1.0, 1e-16, 1e-16, 1e-16, 1e-16];
        assert_eq!(m.row_value(0, &x, Affine::product()), 1.0 + 4e-16);
    }
}
