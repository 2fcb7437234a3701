use super::{DenseSolve, Solvable};
use crate::{Error, Result};

/// A sparse `n × n` matrix `A = T + F` solved as a triangular matrix plus a low-rank correction:
/// `T` is the upper triangle of `A` (diagonal included) and `F` holds the entries below the
/// diagonal, which lie in a few **feedback columns** `S` (`k = |S|`). By the
/// Sherman–Morrison–Woodbury identity (Golub & Van Loan, *Matrix Computations*, 4th ed., §2.1.4;
/// Hager, "Updating the inverse of a matrix", SIAM Review 31(2), 1989)
///
/// `A⁻¹ = T⁻¹ − Z K⁻¹ E_Sᵀ T⁻¹`, with `Z = T⁻¹ F_S` (`n × k`) and `K = I_k + E_Sᵀ Z` (`k × k`),
///
/// so a solve is one sparse triangular solve, a `k × k` dense solve and an `n × k` update.
///
/// For Markov chains numbered roughly in the direction of travel (a board, a birth process with
/// few resets) the feedback set is small: on the classic Snakes and Ladders board `k` is the
/// number of distinct snake exits. For `A = I − Q` with `Q` substochastic, `T` is an M-matrix and
/// the triangular solves add only non-negative terms.
///
/// Written over any [`Solvable`]: the same code runs in `f64` and in exact rationals.
#[derive(Debug)]
pub struct TriangularWoodbury<T: Solvable = f64> {
    n: usize,
    /// Strictly upper part of `A`, row-wise.
    up_ptr: Vec<usize>,
    up_cols: Vec<u32>,
    up_vals: Vec<T>,
    diag: Vec<T>,
    /// Feedback columns, ascending.
    feedback: Vec<u32>,
    /// `F_S`: for each feedback column, its (row, value) entries below the diagonal.
    f_cols: Vec<Vec<(u32, T)>>,
    /// `Z = T⁻¹ F_S`, row-major `n × k`.
    z: Vec<T>,
    k_lu: Option<Box<dyn DenseSolve<T>>>,
}

impl<T: Solvable> TriangularWoodbury<T> {
    /// The distinct columns holding entries below the diagonal of the matrix whose row `i` is
    /// `rows(i)` (pairs `(column, value)`), ascending.
    pub fn feedback_columns<I>(n: usize, rows: impl Fn(usize) -> I) -> Vec<u32>
    where
        I: Iterator<Item = (u32, T)>,
    {
        let mut mark = vec![false; n];
        for i in 0..n {
            for (j, v) in rows(i) {
                if (j as usize) < i && !v.is_zero() {
                    mark[j as usize] = true;
                }
            }
        }
        (0..n as u32).filter(|&j| mark[j as usize]).collect()
    }

    /// `(k, nnz)`: the number of feedback columns and of entries of the matrix whose row `i` is
    /// `rows(i)`, to weigh this method against others.
    pub fn shape<I>(n: usize, rows: impl Fn(usize) -> I) -> (usize, usize)
    where
        I: Iterator<Item = (u32, T)>,
    {
        let mut mark = vec![false; n];
        let mut nnz = 0;
        for i in 0..n {
            for (j, v) in rows(i) {
                nnz += 1;
                if (j as usize) < i && !v.is_zero() {
                    mark[j as usize] = true;
                }
            }
        }
        (mark.iter().filter(|&&m| m).count(), nnz)
    }

    /// Sets up the solver for the `n × n` matrix whose row `i` is `rows(i)`: pairs `(column, value)`,
    /// each column at most once.
    ///
    /// # Errors
    /// [`Error::Singular`] if a diagonal entry is zero or not finite, or `K` is singular.
    ///
    /// # Complexity
    /// O(k · nnz + k³) time, O(n · k + nnz) space.
    pub fn new<I>(n: usize, what: &'static str, rows: impl Fn(usize) -> I) -> Result<Self>
    where
        I: Iterator<Item = (u32, T)>,
    {
        let feedback = Self::feedback_columns(n, &rows);
        let mut slot = vec![u32::MAX; n];
        for (q, &j) in feedback.iter().enumerate() {
            slot[j as usize] = q as u32;
        }
        let mut up_ptr = Vec::with_capacity(n + 1);
        up_ptr.push(0);
        let (mut up_cols, mut up_vals) = (Vec::new(), Vec::new());
        let mut diag = vec![T::zero(); n];
        let mut f_cols = vec![Vec::new(); feedback.len()];
        for (i, d) in diag.iter_mut().enumerate() {
            for (j, v) in rows(i) {
                let ju = j as usize;
                if ju == i {
                    *d = d.plus(&v);
                } else if ju > i {
                    up_cols.push(j);
                    up_vals.push(v);
                } else if !v.is_zero() {
                    f_cols[slot[ju] as usize].push((i as u32, v));
                }
            }
            up_ptr.push(up_cols.len());
        }
        if let Some((row, pivot)) = diag
            .iter()
            .enumerate()
            .find(|(_, d)| d.is_zero() || !d.to_f64().is_finite())
        {
            let pivot = pivot.to_f64();
            return Err(Error::Singular { what, row, pivot });
        }
        let mut me = Self {
            n,
            up_ptr,
            up_cols,
            up_vals,
            diag,
            z: Vec::new(),
            k_lu: None,
            feedback,
            f_cols,
        };
        let k = me.feedback.len();
        // All k columns of Z = T⁻¹ F_S at once, row by row from the bottom, so that the k
        // independent substitutions run side by side (row-major Z, contiguous in q).
        let mut z = vec![T::zero(); n * k];
        for (q, col) in me.f_cols.iter().enumerate() {
            for (r, v) in col {
                z[*r as usize * k + q] = v.clone();
            }
        }
        if k > 0 {
            for i in (0..n).rev() {
                let (done, rest) = z.split_at_mut((i + 1) * k);
                let zi = &mut done[i * k..];
                let r = me.up_ptr[i]..me.up_ptr[i + 1];
                for (&j, v) in me.up_cols[r.clone()].iter().zip(&me.up_vals[r]) {
                    let zj = &rest[(j as usize - i - 1) * k..(j as usize - i) * k];
                    for (a, b) in zi.iter_mut().zip(zj) {
                        if !b.is_zero() {
                            *a = a.minus(&v.times(b));
                        }
                    }
                }
                let d = &me.diag[i];
                for a in zi.iter_mut() {
                    *a = a.over(d);
                }
            }
            let mut m = vec![T::zero(); k * k];
            for (p, &s) in me.feedback.iter().enumerate() {
                m[p * k..(p + 1) * k].clone_from_slice(&z[s as usize * k..(s as usize + 1) * k]);
                m[p * k + p] = m[p * k + p].plus(&T::one());
            }
            me.k_lu = Some(T::dense_factor(k, what, m)?);
        }
        me.z = z;
        Ok(me)
    }

    /// Order `n`.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number `k` of feedback columns.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.feedback.len()
    }

    /// `x ← T⁻¹ x` (backward substitution).
    fn upper_solve(&self, x: &mut [T]) {
        for i in (0..self.n).rev() {
            let r = self.up_ptr[i]..self.up_ptr[i + 1];
            let mut s = x[i].clone();
            for (&j, v) in self.up_cols[r.clone()].iter().zip(&self.up_vals[r]) {
                let xj = &x[j as usize];
                if !xj.is_zero() {
                    s = s.minus(&v.times(xj));
                }
            }
            x[i] = s.over(&self.diag[i]);
        }
    }

    /// `x ← T⁻ᵀ x` (forward substitution with the rows of `T` as columns of `Tᵀ`).
    fn upper_transpose_solve(&self, x: &mut [T]) {
        for i in 0..self.n {
            let xi = x[i].over(&self.diag[i]);
            if !xi.is_zero() {
                let r = self.up_ptr[i]..self.up_ptr[i + 1];
                for (&j, v) in self.up_cols[r.clone()].iter().zip(&self.up_vals[r]) {
                    x[j as usize] = x[j as usize].minus(&v.times(&xi));
                }
            }
            x[i] = xi;
        }
    }

    /// Solves `A x = b` in place.
    ///
    /// # Panics
    /// - panics if `b.len() != self.n()`.
    #[track_caller]
    pub fn solve_in_place(&self, b: &mut [T]) {
        assert!(b.len() == self.n);
        self.upper_solve(b);
        if let Some(lu) = &self.k_lu {
            let mut u: Vec<T> = self.feedback.iter().map(|&s| b[s as usize].clone()).collect();
            lu.solve_in_place(&mut u);
            for (x, zi) in b.iter_mut().zip(self.z.chunks_exact(u.len())) {
                for (z, u) in zi.iter().zip(&u) {
                    if !z.is_zero() {
                        *x = x.minus(&z.times(u));
                    }
                }
            }
        }
    }

    /// Solves `Aᵀ x = c` in place: `A⁻ᵀ = T⁻ᵀ − T⁻ᵀ E_S K⁻ᵀ F_Sᵀ T⁻ᵀ`.
    ///
    /// # Panics
    /// - panics if `c.len() != self.n()`.
    #[track_caller]
    pub fn solve_transpose_in_place(&self, c: &mut [T]) {
        assert!(c.len() == self.n);
        self.upper_transpose_solve(c);
        if let Some(lu) = &self.k_lu {
            let mut u: Vec<T> = self
                .f_cols
                .iter()
                .map(|col| {
                    col.iter()
                        .fold(T::zero(), |acc, (r, v)| acc.plus(&v.times(&c[*r as usize])))
                })
                .collect();
            lu.solve_transpose_in_place(&mut u);
            let mut e = vec![T::zero(); self.n];
            for (&s, uq) in self.feedback.iter().zip(u) {
                e[s as usize] = uq;
            }
            self.upper_transpose_solve(&mut e);
            for (x, d) in c.iter_mut().zip(&e) {
                *x = x.minus(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linsolve::DenseLu;

    /// A dense test matrix as rows of (column, value).
    fn rows(a: &[Vec<f64>]) -> impl Fn(usize) -> std::vec::IntoIter<(u32, f64)> + '_ {
        move |i| {
            a[i].iter()
                .enumerate()
                .filter(|(_, v)| **v != 0.0)
                .map(|(j, &v)| (j as u32, v))
                .collect::<Vec<_>>()
                .into_iter()
        }
    }

    #[test]
    fn matches_dense_lu() {
        // I − Q for a 6-state chain with two resets (feedback columns 0 and 2).
        let a = vec![
            vec![1.0, -0.5, -0.25, 0.0, 0.0, 0.0],
            vec![0.0, 0.9, -0.3, -0.3, 0.0, 0.0],
            vec![-0.2, 0.0, 1.0, -0.4, -0.4, 0.0],
            vec![0.0, 0.0, -0.5, 1.0, -0.25, -0.25],
            vec![-0.1, 0.0, 0.0, 0.0, 1.0, -0.6],
            vec![0.0, 0.0, -0.3, 0.0, 0.0, 1.0],
        ];
        let w = TriangularWoodbury::<f64>::new(6, "test", rows(&a)).unwrap();
        assert_eq!(w.rank(), 2);
        let dense = DenseLu::new(6, "test", |mut m| {
            for i in 0..6 {
                for j in 0..6 {
                    m[(i, j)] = a[i][j];
                }
            }
        })
        .unwrap();
        let b = vec![1.0, 2.0, -1.0, 0.5, 3.0, 1.0];
        let (mut x, mut y) = (b.clone(), b.clone());
        w.solve_in_place(&mut x);
        dense.solve_in_place(&mut y);
        for (p, q) in x.iter().zip(&y) {
            assert!((p - q).abs() < 1e-14, "{x:?} vs {y:?}");
        }
        let (mut x, mut y) = (b.clone(), b.clone());
        w.solve_transpose_in_place(&mut x);
        dense.solve_transpose_in_place(&mut y);
        for (p, q) in x.iter().zip(&y) {
            assert!((p - q).abs() < 1e-14, "{x:?} vs {y:?}");
        }
    }

    #[test]
    fn zero_diagonal_is_singular() {
        let a = vec![vec![0.0, 1.0], vec![0.0, 1.0]];
        assert!(matches!(
            TriangularWoodbury::new(2, "t", rows(&a)),
            Err(Error::Singular { row: 0, .. })
        ));
    }
}
