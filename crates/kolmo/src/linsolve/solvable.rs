//! The solver factory: which linear solvers an arithmetic has (Storm's
//! `GeneralLinearEquationSolverFactory`, as a trait on the scalar type).

use super::{DenseLu, GaussLu, GthLu, Iterative, KrylovOptions, SparseLu};
use crate::exact::{Rational, Scalar};
use crate::{Error, Result};
use std::fmt::Debug;

/// A [`Scalar`] with linear solvers: dense, and where the arithmetic has them sparse and Krylov
/// factorisations. Implemented for `f64` (faer's dense and sparse LU, GMRES/BiCGSTAB) and for
/// [`Rational`] (Gaussian elimination only).
pub trait Solvable: Scalar {
    /// Largest system solved densely in this arithmetic.
    const DENSE_LIMIT: usize;
    /// Factors the dense `n × n` matrix `a` (row-major): faer's LU for `f64`, Gaussian elimination
    /// for rationals.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what`; [`Error::TooLarge`] beyond [`DENSE_LIMIT`](Self::DENSE_LIMIT).
    fn dense_factor(n: usize, what: &'static str, a: Vec<Self>) -> Result<Box<dyn DenseSolve<Self>>>;
    /// Factors the sparse `n × n` matrix with entries `(row, column, value)` by a sparse LU, if
    /// this arithmetic has one (`f64`: [`SparseLu`]); `None` otherwise.
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
    /// [`GthLu`] for `I − Q` given by its off-diagonal magnitudes `off` and row sums `leave`, if
    /// this arithmetic rounds (`f64`; exact arithmetic has no cancellation to avoid); `None`
    /// otherwise.
    ///
    /// # Errors
    /// As [`GthLu::new`].
    fn gth_factor<I: Iterator<Item = (u32, Self)>>(
        n: usize,
        what: &'static str,
        off: impl Fn(usize) -> I,
        leave: &[Self],
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        let _ = (n, what, off, leave);
        None
    }
    /// Sets up a Krylov solver ([`Iterative`]) for the `n × n` matrix
    /// in CSR form (`row_ptr` of length `n + 1`, sorted rows without repeats), if this arithmetic
    /// has one (`f64`); `None` otherwise.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what` if a diagonal entry is zero.
    fn iterative(
        n: usize,
        what: &'static str,
        options: KrylovOptions,
        csr: (&[usize], &[u32], &[Self]),
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        let _ = (n, what, options, csr);
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

impl Solvable for f64 {
    const DENSE_LIMIT: usize = 12_000;
    fn dense_factor(n: usize, what: &'static str, a: Vec<Self>) -> Result<Box<dyn DenseSolve<Self>>> {
        check_dense::<Self>(n, what)?;
        Ok(Box::new(DenseLu::new(n, what, |mut m| {
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
        Some(SparseLu::new(n, what, entries).map(|lu| Box::new(lu) as Box<dyn DenseSolve<Self>>))
    }
    fn gth_factor<I: Iterator<Item = (u32, Self)>>(
        n: usize,
        what: &'static str,
        off: impl Fn(usize) -> I,
        leave: &[Self],
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        Some(GthLu::new(n, what, off, leave).map(|lu| Box::new(lu) as Box<dyn DenseSolve<Self>>))
    }
    fn iterative(
        n: usize,
        what: &'static str,
        options: KrylovOptions,
        (row_ptr, cols, vals): (&[usize], &[u32], &[Self]),
    ) -> Option<Result<Box<dyn DenseSolve<Self>>>> {
        let solver = Iterative::new(n, what, options, row_ptr, cols, vals);
        Some(solver.map(|s| Box::new(s) as Box<dyn DenseSolve<Self>>))
    }
}

impl Solvable for Rational {
    const DENSE_LIMIT: usize = 600;
    fn dense_factor(n: usize, what: &'static str, a: Vec<Self>) -> Result<Box<dyn DenseSolve<Self>>> {
        check_dense::<Self>(n, what)?;
        Ok(Box::new(GaussLu::new(n, what, a)?))
    }
}

/// faer's factorisations (from `kolmo-lu`) as [`DenseSolve`]s: their inherent solves, and the
/// method's name for reports.
macro_rules! faer_solve {
    ($($lu:ty => $method:literal),+) => {$(
        impl DenseSolve<f64> for $lu {
            fn solve_in_place(&self, b: &mut [f64]) {
                <$lu>::solve_in_place(self, b);
            }
            fn solve_transpose_in_place(&self, b: &mut [f64]) {
                <$lu>::solve_transpose_in_place(self, b);
            }
            fn method(&self) -> &'static str {
                $method
            }
        }
    )+};
}

faer_solve!(
    DenseLu => "dense LU with partial pivoting (faer)",
    SparseLu => "sparse LU (faer, COLAMD ordering)"
);

fn check_dense<T: Solvable>(n: usize, what: &'static str) -> Result<()> {
    if n > T::DENSE_LIMIT {
        return Err(Error::TooLarge {
            what,
            size: n,
            limit: T::DENSE_LIMIT,
        });
    }
    Ok(())
}
