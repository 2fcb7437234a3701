use super::TriangularWoodbury;
use crate::Result;
use crate::exact::{DenseSolve, Scalar};

/// Largest system solved by dense LU in `f64` (about 1 GiB of matrix and a minute of work).
pub const MAX_DENSE: usize = <f64 as Scalar>::DENSE_LIMIT;

/// Systems larger than this go to a sparse LU (when the arithmetic has one) rather than dense LU,
/// unless the triangular-plus-Woodbury method is cheaper still.
pub const SPARSE_FROM: usize = 600;

/// A factored sparse matrix, by the method that suits its structure, in any [`Scalar`].
#[derive(Debug)]
pub enum Factored<T: Scalar = f64> {
    /// Dense LU (faer's for `f64`, Gaussian elimination for rationals).
    Dense(Box<dyn DenseSolve<T>>, usize),
    /// Triangular solve plus a rank-`k` Woodbury correction.
    Woodbury(TriangularWoodbury<T>),
    /// Sparse LU ([`SparseLu`](super::SparseLu) for `f64`).
    Sparse(Box<dyn DenseSolve<T>>, usize),
}

impl<T: Scalar> Factored<T> {
    /// Factors the `n × n` matrix whose row `i` is `rows(i)` (pairs `(column, value)`). Uses
    /// [`TriangularWoodbury`] when its feedback columns are few enough that `k · nnz + k³` beats the
    /// dense `n³` and `n · k` values fit in memory; otherwise a sparse LU from [`SPARSE_FROM`]
    /// unknowns on (if the arithmetic has one), dense LU below that.
    ///
    /// # Errors
    /// [`crate::Error::Singular`] on numerical breakdown; [`crate::Error::TooLarge`] if the method
    /// that applies exceeds [`Scalar::DENSE_LIMIT`] (for the dense method, or the Woodbury
    /// correction's `k × k` system).
    pub fn new<I>(n: usize, what: &'static str, rows: impl Fn(usize) -> I) -> Result<Self>
    where
        I: Iterator<Item = (u32, T)>,
    {
        let (k, nnz) = TriangularWoodbury::<T>::shape(n, &rows);
        let (nf, kf) = (n as f64, k as f64);
        let woodbury_cost = kf * (nnz as f64 + nf) + kf * kf * kf / 3.0;
        let dense_cost = nf * nf * nf / 3.0;
        if woodbury_cost < dense_cost && n * k <= 50_000_000 {
            Ok(Self::Woodbury(TriangularWoodbury::new(n, what, rows)?))
        } else if n >= SPARSE_FROM
            && let Some(lu) = T::sparse_factor(
                n,
                what,
                &(0..n)
                    .flat_map(|i| rows(i).map(move |(j, v)| (i as u32, j, v)))
                    .collect::<Vec<_>>(),
            )
        {
            Ok(Self::Sparse(lu?, n))
        } else {
            let mut a = vec![T::zero(); if n <= T::DENSE_LIMIT { n * n } else { 0 }];
            if n <= T::DENSE_LIMIT {
                for i in 0..n {
                    for (j, v) in rows(i) {
                        let e = &mut a[i * n + j as usize];
                        *e = e.plus(&v);
                    }
                }
            }
            Ok(Self::Dense(T::dense_factor(n, what, a)?, n))
        }
    }

    /// Solves `A x = b` in place.
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_in_place(&self, b: &mut [T]) {
        match self {
            Self::Dense(lu, _) | Self::Sparse(lu, _) => lu.solve_in_place(b),
            Self::Woodbury(w) => w.solve_in_place(b),
        }
    }

    /// Solves `Aᵀ x = b` in place.
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_transpose_in_place(&self, b: &mut [T]) {
        match self {
            Self::Dense(lu, _) | Self::Sparse(lu, _) => lu.solve_transpose_in_place(b),
            Self::Woodbury(w) => w.solve_transpose_in_place(b),
        }
    }

    /// A one-line description of the method, for reports.
    #[must_use]
    pub fn method(&self) -> String {
        let arithmetic = if T::EXACT { ", exact rationals" } else { "" };
        match self {
            Self::Dense(lu, n) | Self::Sparse(lu, n) => format!("{}, n = {n}{arithmetic}", lu.method()),
            Self::Woodbury(w) if w.rank() == 0 => {
                format!("sparse triangular solve, n = {}{arithmetic}", w.n())
            }
            Self::Woodbury(w) => format!(
                "sparse triangular solve + rank-{} Woodbury correction, n = {}{arithmetic}",
                w.rank(),
                w.n()
            ),
        }
    }
}
