use super::DenseSolve;
use crate::exact::Scalar;
use crate::{Error, Result};

/// Gaussian elimination with partial pivoting, `P A = L U`, written over any [`Scalar`]: the
/// dense method for exact rational systems (Golub & Van Loan, *Matrix Computations*, 4th ed.,
/// Algorithm 3.4.1). The pivot is the entry of largest magnitude (any nonzero one is exact for
/// rationals; the largest keeps `f64` runs stable).
#[derive(Debug, Clone)]
pub struct GaussLu<T> {
    n: usize,
    /// `L` (unit, below the diagonal) and `U` (on and above), row-major, rows in pivot order.
    lu: Vec<T>,
    /// `perm[i]` is the original row at position `i`.
    perm: Vec<usize>,
}

impl<T: Scalar> GaussLu<T> {
    /// Factors the row-major `n × n` matrix `a`.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what` if a column has no nonzero pivot;
    /// [`Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked at every pivot:
    /// one pivot of an exact elimination can take seconds).
    ///
    /// # Panics
    /// - panics if `a.len() != n * n`.
    ///
    /// # Complexity
    /// O(n³) operations.
    #[track_caller]
    pub fn new(n: usize, what: &'static str, mut a: Vec<T>) -> Result<Self> {
        assert!(a.len() == n * n);
        let mut perm: Vec<usize> = (0..n).collect();
        for k in 0..n {
            crate::interrupt::check()?;
            let (p, best) = (k..n)
                .map(|i| (i, a[i * n + k].to_f64().abs()))
                .filter(|(i, _)| !a[i * n + k].is_zero())
                .fold((usize::MAX, -1.0f64), |b, c| if c.1 > b.1 { c } else { b });
            if p == usize::MAX || best.is_nan() {
                return Err(Error::Singular {
                    what,
                    row: k,
                    pivot: 0.0,
                });
            }
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
                perm.swap(k, p);
            }
            let pivot = a[k * n + k].clone();
            for i in k + 1..n {
                if a[i * n + k].is_zero() {
                    continue;
                }
                let l = a[i * n + k].over(&pivot);
                for j in k + 1..n {
                    if !a[k * n + j].is_zero() {
                        a[i * n + j] = a[i * n + j].minus(&l.times(&a[k * n + j]));
                    }
                }
                a[i * n + k] = l;
            }
        }
        Ok(Self { n, lu: a, perm })
    }
}

impl<T: Scalar> DenseSolve<T> for GaussLu<T> {
    fn solve_in_place(&self, b: &mut [T]) {
        let n = self.n;
        assert!(b.len() == n);
        let mut x: Vec<T> = self.perm.iter().map(|&i| b[i].clone()).collect();
        for i in 0..n {
            for j in 0..i {
                if !self.lu[i * n + j].is_zero() {
                    x[i] = x[i].minus(&self.lu[i * n + j].times(&x[j]));
                }
            }
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                if !self.lu[i * n + j].is_zero() {
                    x[i] = x[i].minus(&self.lu[i * n + j].times(&x[j]));
                }
            }
            x[i] = x[i].over(&self.lu[i * n + i]);
        }
        b.clone_from_slice(&x);
    }

    fn solve_transpose_in_place(&self, b: &mut [T]) {
        // Aᵀ = Uᵀ Lᵀ P: solve Uᵀ y = b, then Lᵀ z = y, then x = Pᵀ z.
        let n = self.n;
        assert!(b.len() == n);
        let mut y = b.to_vec();
        for i in 0..n {
            for j in 0..i {
                if !self.lu[j * n + i].is_zero() {
                    y[i] = y[i].minus(&self.lu[j * n + i].times(&y[j]));
                }
            }
            y[i] = y[i].over(&self.lu[i * n + i]);
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                if !self.lu[j * n + i].is_zero() {
                    y[i] = y[i].minus(&self.lu[j * n + i].times(&y[j]));
                }
            }
        }
        for (k, &i) in self.perm.iter().enumerate() {
            b[i] = y[k].clone();
        }
    }

    fn method(&self) -> &'static str {
        "Gaussian elimination with partial pivoting"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Rational;
    use crate::linsolve::DenseLu;

    fn q(p: i64, d: i64) -> Rational {
        Rational::from(p) / Rational::from(d)
    }

    #[test]
    fn exact_drunkards_walk() {
        // I − Q of the fair walk on 1..3: [[1, −1/2, 0], [−1/2, 1, −1/2], [0, −1/2, 1]].
        // Grinstead & Snell, Example 11.13 (published): t = (3, 4, 3).
        let a = vec![
            q(1, 1),
            q(-1, 2),
            q(0, 1),
            q(-1, 2),
            q(1, 1),
            q(-1, 2),
            q(0, 1),
            q(-1, 2),
            q(1, 1),
        ];
        let lu = GaussLu::new(3, "test", a).unwrap();
        let mut t = vec![q(1, 1); 3];
        lu.solve_in_place(&mut t);
        assert_eq!(t, vec![q(3, 1), q(4, 1), q(3, 1)]);
        let mut e = vec![q(1, 1), q(0, 1), q(0, 1)];
        lu.solve_transpose_in_place(&mut e);
        // Row 1 of N = (3/2, 1, 1/2).
        assert_eq!(e, vec![q(3, 2), q(1, 1), q(1, 2)]);
    }

    #[test]
    fn f64_matches_faer() {
        let n = 7;
        let a: Vec<f64> = (0..n * n)
            .map(|k| ((k * 37 % 11) as f64 - 5.0) / 3.0 + if k % (n + 1) == 0 { 9.0 } else { 0.0 })
            .collect();
        let mine = GaussLu::new(n, "test", a.clone()).unwrap();
        let faer = DenseLu::new(n, "test", |mut m| {
            for i in 0..n {
                for j in 0..n {
                    m[(i, j)] = a[i * n + j];
                }
            }
        })
        .unwrap();
        let b: Vec<f64> = (0..n).map(|i| i as f64 - 2.5).collect();
        let (mut x, mut y) = (b.clone(), b.clone());
        mine.solve_in_place(&mut x);
        faer.solve_in_place(&mut y);
        assert!(x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 1e-13));
        let (mut x, mut y) = (b.clone(), b.clone());
        mine.solve_transpose_in_place(&mut x);
        faer.solve_transpose_in_place(&mut y);
        assert!(x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 1e-13));
    }

    #[test]
    fn singular() {
        let e = GaussLu::new(2, "t", vec![q(1, 1), q(2, 1), q(2, 1), q(4, 1)]).unwrap_err();
        assert!(matches!(e, Error::Singular { row: 1, .. }));
    }
}
