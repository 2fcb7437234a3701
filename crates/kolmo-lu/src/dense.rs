use faer::linalg::solvers::{DenseSolveCore, PartialPivLu, Solve};
use faer::{Mat, MatMut};
use kolmo_core::{Error, Result};

/// An LU factorisation with partial pivoting, `P A = L U`, of a dense `n × n` matrix, computed by
/// faer (`faer::linalg::solvers::PartialPivLu`; Golub & Van Loan, *Matrix Computations*, 4th ed.,
/// §3.4).
pub struct DenseLu {
    lu: PartialPivLu<f64>,
    n: usize,
}

impl std::fmt::Debug for DenseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseLu").field("n", &self.n).finish()
    }
}

impl DenseLu {
    /// Factors the `n × n` matrix whose entries `fill` writes into a zeroed matrix (called once
    /// with a `MatMut` of shape `n × n`).
    ///
    /// # Errors
    /// [`Error::Singular`] (naming `what`) if a pivot is zero or not finite.
    pub fn new(n: usize, what: &'static str, fill: impl FnOnce(MatMut<'_, f64>)) -> Result<Self> {
        let mut a = Mat::<f64>::zeros(n, n);
        fill(a.as_mut());
        Self::factor(a, what)
    }

    /// [`new`](Self::new)'s factorisation, not generic: faer's code is compiled here, once, and
    /// not again in every caller's crate.
    fn factor(a: Mat<f64>, what: &'static str) -> Result<Self> {
        let n = a.nrows();
        let lu = PartialPivLu::new(a.as_ref());
        let u = lu.U();
        let mut worst = (0usize, f64::INFINITY);
        for i in 0..n {
            let p = u[(i, i)].abs();
            if p.is_nan() || p < worst.1 {
                worst = (i, p);
            }
        }
        if n > 0 && (worst.1 == 0.0 || !worst.1.is_finite()) {
            return Err(Error::Singular {
                what,
                row: worst.0,
                pivot: worst.1,
            });
        }
        Ok(Self { lu, n })
    }

    /// Order `n` of the matrix.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Solves `A x = b` in place (`b` has length `n` and becomes `x`).
    ///
    /// # Panics
    /// - panics if `b.len() != self.n()`.
    #[track_caller]
    pub fn solve_in_place(&self, b: &mut [f64]) {
        assert!(b.len() == self.n);
        let mut m = faer::MatMut::from_column_major_slice_mut(b, self.n, 1);
        self.lu.solve_in_place(&mut m);
    }

    /// Solves `Aᵀ x = b` in place (`b` has length `n` and becomes `x`).
    ///
    /// # Panics
    /// - panics if `b.len() != self.n()`.
    #[track_caller]
    pub fn solve_transpose_in_place(&self, b: &mut [f64]) {
        assert!(b.len() == self.n);
        let mut m = faer::MatMut::from_column_major_slice_mut(b, self.n, 1);
        self.lu.solve_transpose_in_place(&mut m);
    }

    /// The inverse `A⁻¹`, row-major, `n × n`.
    #[must_use]
    pub fn inverse(&self) -> Vec<f64> {
        let inv = self.lu.inverse();
        let mut out = Vec::with_capacity(self.n * self.n);
        for i in 0..self.n {
            for j in 0..self.n {
                out.push(inv[(i, j)]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts() {
        // A = [[2, 1], [1, 3]]
        let lu = DenseLu::new(2, "test", |mut a| {
            a[(0, 0)] = 2.0;
            a[(0, 1)] = 1.0;
            a[(1, 0)] = 1.0;
            a[(1, 1)] = 3.0;
        })
        .unwrap();
        let mut b = vec![3.0, 4.0];
        lu.solve_in_place(&mut b);
        assert!((b[0] - 1.0).abs() < 1e-15 && (b[1] - 1.0).abs() < 1e-15);
        let inv = lu.inverse();
        let expect = [0.6, -0.2, -0.2, 0.4];
        for (x, y) in inv.iter().zip(expect) {
            assert!((x - y).abs() < 1e-15);
        }
        // Aᵀ = A here; use a non-symmetric one for the transposed solve.
        let lu = DenseLu::new(2, "test", |mut a| {
            a[(0, 0)] = 1.0;
            a[(0, 1)] = 2.0;
            a[(1, 1)] = 1.0;
        })
        .unwrap();
        let mut b = vec![1.0, 4.0];
        lu.solve_transpose_in_place(&mut b); // [[1,0],[2,1]] x = [1,4] → x = [1, 2]
        assert_eq!(b, vec![1.0, 2.0]);
    }

    #[test]
    fn singular_is_an_error() {
        let e = DenseLu::new(2, "test", |mut a| {
            a[(0, 0)] = 1.0;
            a[(0, 1)] = 1.0;
            a[(1, 0)] = 1.0;
            a[(1, 1)] = 1.0;
        })
        .unwrap_err();
        assert!(matches!(e, Error::Singular { .. }));
    }
}
