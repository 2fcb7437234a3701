use super::{DenseLu, TriangularWoodbury};
use crate::{Error, Result};

/// Largest system solved by dense LU (about 1 GiB of matrix and a minute of work).
pub const MAX_DENSE: usize = 12_000;

/// A factored sparse matrix, by the method that suits its structure.
#[derive(Debug)]
pub enum Factored {
    /// Dense LU with partial pivoting.
    Dense(DenseLu),
    /// Triangular solve plus a rank-`k` Woodbury correction.
    Woodbury(TriangularWoodbury),
}

impl Factored {
    /// Factors the `n × n` matrix whose row `i` is `rows(i)` (pairs `(column, value)`, each
    /// column at most once). Uses [`TriangularWoodbury`] when its feedback columns are few enough
    /// that `k · nnz + k³` beats the dense `n³` and `n · k` values fit in memory; dense LU otherwise.
    ///
    /// # Errors
    /// [`Error::Singular`] on numerical breakdown; [`Error::TooLarge`] if only the dense method
    /// applies and `n > MAX_DENSE`.
    pub fn new<I>(n: usize, what: &'static str, rows: impl Fn(usize) -> I) -> Result<Self>
    where
        I: Iterator<Item = (u32, f64)>,
    {
        let (k, nnz) = TriangularWoodbury::shape(n, &rows);
        let (nf, kf) = (n as f64, k as f64);
        let woodbury_cost = kf * (nnz as f64 + nf) + kf * kf * kf / 3.0;
        let dense_cost = nf * nf * nf / 3.0;
        if woodbury_cost < dense_cost && n * k <= 50_000_000 {
            Ok(Self::Woodbury(TriangularWoodbury::new(n, what, rows)?))
        } else if n > MAX_DENSE {
            Err(Error::TooLarge {
                what,
                size: n,
                limit: MAX_DENSE,
            })
        } else {
            Ok(Self::Dense(DenseLu::new(n, what, |mut a| {
                for i in 0..n {
                    for (j, v) in rows(i) {
                        a[(i, j as usize)] += v;
                    }
                }
            })?))
        }
    }

    /// Solves `A x = b` in place.
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_in_place(&self, b: &mut [f64]) {
        match self {
            Self::Dense(lu) => lu.solve_in_place(b),
            Self::Woodbury(w) => w.solve_in_place(b),
        }
    }

    /// Solves `Aᵀ x = b` in place.
    ///
    /// # Panics
    /// - panics if `b` has the wrong length.
    #[track_caller]
    pub fn solve_transpose_in_place(&self, b: &mut [f64]) {
        match self {
            Self::Dense(lu) => lu.solve_transpose_in_place(b),
            Self::Woodbury(w) => w.solve_transpose_in_place(b),
        }
    }

    /// A one-line description of the method, for reports.
    #[must_use]
    pub fn method(&self) -> String {
        match self {
            Self::Dense(lu) => format!("dense LU with partial pivoting (faer), n = {}", lu.n()),
            Self::Woodbury(w) if w.rank() == 0 => format!("sparse triangular solve, n = {}", w.n()),
            Self::Woodbury(w) => format!(
                "sparse triangular solve + rank-{} Woodbury correction, n = {}",
                w.rank(),
                w.n()
            ),
        }
    }
}
