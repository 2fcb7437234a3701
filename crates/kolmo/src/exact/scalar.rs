use super::Rational;
use crate::{Error, Result};
use std::fmt::Debug;

/// The number type solvers are written over: `f64` (fast, rounded) or [`Rational`] (exact).
/// Operations take references so that big numbers are not copied.
pub trait Scalar: Clone + PartialEq + Debug + Send + Sync + 'static {
    /// Whether arithmetic is exact (no rounding, so no refinement and residuals must be 0).
    const EXACT: bool;
    /// Largest system solved densely in this arithmetic.
    const DENSE_LIMIT: usize;
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// The value of `x` (exact for rationals: the binary fraction `x` is).
    ///
    /// # Panics
    /// - panics for rationals if `x` is not finite.
    fn from_f64(x: f64) -> Self;
    /// The nearest `f64`.
    fn to_f64(&self) -> f64;
    /// Whether the value is 0.
    fn is_zero(&self) -> bool;
    /// `self + o`.
    fn plus(&self, o: &Self) -> Self;
    /// `self − o`.
    fn minus(&self, o: &Self) -> Self;
    /// `self · o`.
    fn times(&self, o: &Self) -> Self;
    /// `self / o`.
    fn over(&self, o: &Self) -> Self;
    /// Factors the dense `n × n` matrix `a` (row-major): faer's LU for `f64`, Gaussian elimination
    /// for rationals.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what`; [`Error::TooLarge`] beyond [`DENSE_LIMIT`](Self::DENSE_LIMIT).
    fn dense_factor(n: usize, what: &'static str, a: Vec<Self>) -> Result<Box<dyn DenseSolve<Self>>>;
    /// Factors the sparse `n × n` matrix with entries `(row, column, value)` by a sparse LU, if
    /// this arithmetic has one (`f64`: [`SparseLu`](crate::linsolve::SparseLu)); `None` otherwise.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what`.
    fn sparse_factor(
        n: usize,
        what: &'static str,
        entries: &[(u32, u32, Self)],
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        let _ = (n, what, entries);
        None
    }
    /// Sets up a Krylov solver ([`Iterative`](crate::linsolve::Iterative)) for the `n × n` matrix
    /// in CSR form (`row_ptr` of length `n + 1`, sorted rows without repeats), if this arithmetic
    /// has one (`f64`); `None` otherwise. With `i_minus` the CSR holds `Q` and the matrix is
    /// `I − Q`.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what` if a diagonal entry is zero.
    fn iterative(
        n: usize,
        what: &'static str,
        options: crate::linsolve::KrylovOptions,
        csr: (&[usize], &[u32], &[Self]),
        i_minus: bool,
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        let _ = (n, what, options, csr, i_minus);
        None
    }
}

/// A factored dense matrix.
pub trait DenseSolve<T>: Debug + Send + Sync {
    /// Solves `A x = b` in place.
    fn solve_in_place(&self, b: &mut [T]);
    /// Solves `Aᵀ x = b` in place.
    fn solve_transpose_in_place(&self, b: &mut [T]);
    /// A short name of the method.
    fn method(&self) -> &'static str;
    /// Solves `A x = b` (or `Aᵀ x = b`) in place to the relative 2-norm residual `tolerance`:
    /// for iterative methods; a factorisation solves as accurately as it can and ignores it.
    fn solve_to(&self, b: &mut [T], tolerance: f64, transpose: bool) {
        let _ = tolerance;
        if transpose {
            self.solve_transpose_in_place(b);
        } else {
            self.solve_in_place(b);
        }
    }
    /// Whether solves are approximate (an iterative method), so that callers refine them until
    /// their own residual test holds.
    fn is_iterative(&self) -> bool {
        false
    }
    /// The work done so far, for reports (empty for factorisations).
    fn work(&self) -> String {
        String::new()
    }
}

impl Scalar for f64 {
    const EXACT: bool = false;
    const DENSE_LIMIT: usize = 12_000;
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(&self) -> f64 {
        *self
    }
    fn is_zero(&self) -> bool {
        *self == 0.0
    }
    #[inline]
    fn plus(&self, o: &Self) -> Self {
        self + o
    }
    #[inline]
    fn minus(&self, o: &Self) -> Self {
        self - o
    }
    #[inline]
    fn times(&self, o: &Self) -> Self {
        self * o
    }
    #[inline]
    fn over(&self, o: &Self) -> Self {
        self / o
    }
    fn dense_factor(n: usize, what: &'static str, a: Vec<Self>) -> Result<Box<dyn DenseSolve<Self>>> {
        check_dense::<Self>(n, what)?;
        Ok(Box::new(crate::linsolve::DenseLu::new(n, what, |mut m| {
            for i in 0..n {
                for j in 0..n {
                    m[(i, j)] = a[i * n + j];
                }
            }
        })?))
    }
    fn sparse_factor(
        n: usize,
        what: &'static str,
        entries: &[(u32, u32, Self)],
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        Some(
            crate::linsolve::SparseLu::new(n, what, entries)
                .map(|lu| Box::new(lu) as Box<dyn DenseSolve<Self>>),
        )
    }
    fn iterative(
        n: usize,
        what: &'static str,
        options: crate::linsolve::KrylovOptions,
        (row_ptr, cols, vals): (&[usize], &[u32], &[Self]),
        i_minus: bool,
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        let solver = if i_minus {
            crate::linsolve::Iterative::for_i_minus_q(n, what, options, row_ptr, cols, vals)
        } else {
            crate::linsolve::Iterative::new(n, what, options, row_ptr, cols, vals)
        };
        Some(solver.map(|s| Box::new(s) as Box<dyn DenseSolve<Self>>))
    }
}

impl Scalar for Rational {
    const EXACT: bool = true;
    const DENSE_LIMIT: usize = 600;
    fn zero() -> Self {
        Rational::ZERO
    }
    fn one() -> Self {
        Rational::ONE
    }
    fn from_f64(x: f64) -> Self {
        Rational::try_from(x).expect("a finite number")
    }
    fn to_f64(&self) -> f64 {
        Rational::to_f64(self).value()
    }
    fn is_zero(&self) -> bool {
        Rational::is_zero(self)
    }
    fn plus(&self, o: &Self) -> Self {
        self + o
    }
    fn minus(&self, o: &Self) -> Self {
        self - o
    }
    fn times(&self, o: &Self) -> Self {
        self * o
    }
    fn over(&self, o: &Self) -> Self {
        self / o
    }
    fn dense_factor(n: usize, what: &'static str, a: Vec<Self>) -> Result<Box<dyn DenseSolve<Self>>> {
        check_dense::<Self>(n, what)?;
        Ok(Box::new(crate::linsolve::GaussLu::new(n, what, a)?))
    }
}

fn check_dense<T: Scalar>(n: usize, what: &'static str) -> Result<()> {
    if n > T::DENSE_LIMIT {
        return Err(Error::TooLarge {
            what,
            size: n,
            limit: T::DENSE_LIMIT,
        });
    }
    Ok(())
}
