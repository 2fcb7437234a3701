use faer::linalg::solvers::SolveCore;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, MatMut};
use kolmo_core::{Error, Result};

/// A sparse LU factorisation with partial (row) pivoting and a fill-reducing column ordering,
/// `P A Q = L U`, of a sparse `n × n` matrix, computed by faer (`faer::sparse::SparseColMat::sp_lu`,
/// supernodal or simplicial by size; the method of Davis, *Direct Methods for Sparse Linear
/// Systems*, SIAM 2006, ch. 6, with the COLAMD ordering of Davis, Gilbert, Larimore & Ng, ACM TOMS
/// 30(3), 2004).
///
/// For chains whose transitions are local (a walk on a ring or a grid, a birth–death process) the
/// factors stay sparse; long-range transitions can make them fill in.
pub struct SparseLu {
    lu: faer::sparse::linalg::solvers::Lu<usize, f64>,
    n: usize,
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLu").field("n", &self.n).finish()
    }
}

impl SparseLu {
    /// Factors the `n × n` matrix with entries `(row, column, value)` (duplicates are summed).
    ///
    /// # Errors
    /// [`Error::Singular`] (naming `what`) if the matrix is structurally singular or the factors
    /// are not finite (checked by one solve).
    pub fn new(n: usize, what: &'static str, entries: &[(u32, u32, f64)]) -> Result<Self> {
        let triplets: Vec<Triplet<usize, usize, f64>> = entries
            .iter()
            .map(|&(i, j, v)| Triplet::new(i as usize, j as usize, v))
            .collect();
        let singular = |row: usize| Error::Singular {
            what,
            row,
            pivot: 0.0,
        };
        let a =
            SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).map_err(|_| singular(0))?;
        let lu = a.sp_lu().map_err(|e| match e {
            faer::sparse::linalg::LuError::SymbolicSingular { index } => singular(index),
            faer::sparse::linalg::LuError::Generic(_) => singular(0),
        })?;
        let this = Self { lu, n };
        // A zero pivot shows up as a non-finite solution.
        let mut probe = vec![1.0; n];
        this.solve_in_place(&mut probe);
        if let Some(row) = probe.iter().position(|v| !v.is_finite()) {
            return Err(Error::Singular {
                what,
                row,
                pivot: f64::NAN,
            });
        }
        Ok(this)
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
        let m = MatMut::from_column_major_slice_mut(b, self.n, 1);
        self.lu.solve_in_place_with_conj(Conj::No, m);
    }

    /// Solves `Aᵀ x = b` in place (`b` has length `n` and becomes `x`).
    ///
    /// # Panics
    /// - panics if `b.len() != self.n()`.
    #[track_caller]
    pub fn solve_transpose_in_place(&self, b: &mut [f64]) {
        assert!(b.len() == self.n);
        let m = MatMut::from_column_major_slice_mut(b, self.n, 1);
        self.lu.solve_transpose_in_place_with_conj(Conj::No, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_transposed_solves() {
        // A = [[2, -1, 0], [0, 2, -1], [-1, 0, 2]]
        let e = [
            (0, 0, 2.0),
            (0, 1, -1.0),
            (1, 1, 2.0),
            (1, 2, -1.0),
            (2, 0, -1.0),
            (2, 2, 2.0),
        ];
        let lu = SparseLu::new(3, "test", &e).unwrap();
        let mut x = vec![1.0, 1.0, 1.0];
        lu.solve_in_place(&mut x);
        for v in &x {
            assert!((v - 1.0).abs() < 1e-15);
        }
        let mut y = vec![1.0, 2.0, 3.0];
        lu.solve_transpose_in_place(&mut y);
        // Aᵀ y = (1, 2, 3): check by multiplying back.
        let back = [2.0 * y[0] - y[2], -y[0] + 2.0 * y[1], -y[1] + 2.0 * y[2]];
        for (b, want) in back.iter().zip([1.0, 2.0, 3.0]) {
            assert!((b - want).abs() < 1e-14);
        }
        let e = [(0, 0, 1.0), (1, 0, 1.0)];
        assert!(matches!(
            SparseLu::new(2, "test", &e),
            Err(Error::Singular { .. })
        ));
    }
}
