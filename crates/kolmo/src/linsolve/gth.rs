//! Gaussian elimination without cancellation for `I − Q`, the Grassmann–Taksar–Heyman way.
//!
//! `A = I − Q` of a substochastic `Q` is a row diagonally dominant M-matrix, given exactly by two
//! sets of nonnegative numbers: the off-diagonal magnitudes `n_ij = q_ij` (`i ≠ j`) and each row's
//! probability of leaving, `v_i = 1 − Σ_j q_ij` (the row sums of `A`). Eliminating state `p`
//! redirects every path through `p`: `n_ij += l_ip n_pj` and `v_i += l_ip v_p` with
//! `l_ip = n_ip / d_p`, where the pivot `d_p = v_p + Σ_{j>p} n_pj` is recomputed as a sum of
//! nonnegative numbers instead of being updated by a subtraction. Every operation adds,
//! multiplies or divides nonnegative numbers, so no digit is lost to cancellation however close
//! `Q` is to stochastic: a chain that leaves its transient states with probability `1e-15` per
//! step is solved to nearly full relative accuracy, where partial pivoting loses everything.
//!
//! Sources: W. K. Grassmann, M. I. Taksar & D. P. Heyman, "Regenerative analysis and steady state
//! distributions for Markov chains", Operations Research 33(5), 1985 (the elimination); C. A.
//! O'Cinneide, "Entrywise perturbation theory and error analysis for Markov chains", Numerische
//! Mathematik 65, 1993 (its entrywise stability); the triangular solves with a nonnegative
//! right-hand side are subtraction-free too (every term of `y_i = b_i + Σ l_ip y_p` is
//! nonnegative).

use super::DenseSolve;
use crate::{Error, Result};

/// Largest system solved by [`GthLu`] (dense: `n²` values and `n³/3` operations, a third of a
/// second at the limit).
pub const GTH_LIMIT: usize = 1_000;

/// The factors of `A = I − Q` from cancellation-free elimination (see the module docs): `A = L U`
/// with `L` unit lower triangular (`L_ip = −l_ip`) and `U` upper triangular (`U_pp = d_p`,
/// `U_pj = −n_pj`), stored together in one dense row-major `n × n` array of magnitudes.
#[derive(Debug)]
pub struct GthLu {
    n: usize,
    /// Below the diagonal the multipliers `l_ip`, above it the magnitudes `n_pj` of `U`.
    factors: Vec<f64>,
    /// The pivots `d_p`.
    pivots: Vec<f64>,
}

impl GthLu {
    /// Factors the `n × n` matrix `A` with off-diagonal magnitudes `off(i)` (pairs `(j, n_ij)`,
    /// `j ≠ i`, `n_ij ≥ 0`; repeats summed, diagonal entries ignored) and row sums `leave[i] ≥ 0`
    /// (the probability of leaving from `i`).
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what` and the row if a pivot is zero (from that state the
    /// system is never left: `A` is singular) or not finite; [`Error::TooLarge`] beyond
    /// [`GTH_LIMIT`] unknowns; [`Error::Interrupted`] if a stop is requested
    /// ([`crate::interrupt`], checked at every pivot).
    ///
    /// # Panics
    /// - panics if `leave.len() != n`, a column is `>= n`, or a value is negative.
    ///
    /// # Complexity
    /// O(n³/3) operations and `n²` values.
    pub fn new<I: Iterator<Item = (u32, f64)>>(
        n: usize,
        what: &'static str,
        off: impl Fn(usize) -> I,
        leave: &[f64],
    ) -> Result<Self> {
        if n > GTH_LIMIT {
            return Err(Error::TooLarge {
                what,
                size: n,
                limit: GTH_LIMIT,
            });
        }
        assert_eq!(leave.len(), n, "one leaving probability per row");
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for (j, x) in off(i) {
                assert!(x >= 0.0, "off-diagonal magnitudes are nonnegative");
                if j as usize != i {
                    a[i * n + j as usize] += x;
                }
            }
        }
        let mut v = leave.to_vec();
        assert!(
            v.iter().all(|x| *x >= 0.0),
            "leaving probabilities are nonnegative"
        );
        let mut pivots = vec![0.0; n];
        for p in 0..n {
            crate::interrupt::check()?;
            let (done, rest) = a.split_at_mut((p + 1) * n);
            let row_p = &done[p * n..];
            let d = v[p] + crate::exact::Scalar::sum(row_p[p + 1..].iter());
            if d == 0.0 || !d.is_finite() {
                return Err(Error::Singular {
                    what,
                    row: p,
                    pivot: d,
                });
            }
            pivots[p] = d;
            for (r, row_i) in rest.chunks_exact_mut(n).enumerate() {
                let i = p + 1 + r;
                if row_i[p] == 0.0 {
                    continue;
                }
                let l = row_i[p] / d;
                row_i[p] = l;
                for j in p + 1..n {
                    if j != i {
                        row_i[j] += l * row_p[j];
                    }
                }
                // (j = i skipped: the path i → p → i is a self-loop of the reduced chain, which
                // the pivot of i, recomputed from what leaves i, never needs subtracted.)
                v[i] += l * v[p];
            }
        }
        Ok(Self {
            n,
            factors: a,
            pivots,
        })
    }
}

impl DenseSolve<f64> for GthLu {
    fn solve_in_place(&self, b: &mut [f64]) {
        let n = self.n;
        assert_eq!(b.len(), n, "right-hand side of the wrong length");
        // L y = b: y_i = b_i + Σ_{p<i} l_ip y_p.
        for i in 0..n {
            let row = &self.factors[i * n..i * n + i];
            b[i] += row.iter().zip(&b[..i]).map(|(l, y)| l * y).sum::<f64>();
        }
        // U x = y: x_p = (y_p + Σ_{j>p} n_pj x_j) / d_p.
        for p in (0..n).rev() {
            let row = &self.factors[p * n + p + 1..(p + 1) * n];
            let s: f64 = row.iter().zip(&b[p + 1..]).map(|(a, x)| a * x).sum();
            b[p] = (b[p] + s) / self.pivots[p];
        }
    }

    fn solve_transpose_in_place(&self, b: &mut [f64]) {
        let n = self.n;
        assert_eq!(b.len(), n, "right-hand side of the wrong length");
        // Uᵀ z = b: z_p = (b_p + Σ_{i<p} n_ip z_i) / d_p, column by column.
        for p in 0..n {
            b[p] /= self.pivots[p];
            let z = b[p];
            let row = &self.factors[p * n + p + 1..(p + 1) * n];
            for (x, a) in b[p + 1..].iter_mut().zip(row) {
                *x += a * z;
            }
        }
        // Lᵀ x = z: x_p = z_p + Σ_{i>p} l_ip x_i, from the last row up.
        for i in (0..n).rev() {
            let x = b[i];
            let row = &self.factors[i * n..i * n + i];
            for (y, l) in b[..i].iter_mut().zip(row) {
                *y += l * x;
            }
        }
    }

    fn method(&self) -> &'static str {
        "GTH elimination (cancellation-free)"
    }

    /// Solves are accurate entrywise, but a system this close to singular is certified only by a
    /// residual in more than `f64`: callers refine with the solution carried as a pair.
    fn is_iterative(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `A = I − Q` for the two-state cycle that leaves with probability `eps` per step.
    fn cycle(eps: f64) -> GthLu {
        let stay = 1.0 - eps;
        GthLu::new(2, "test", |i| std::iter::once((1 - i as u32, stay)), &[eps, eps]).unwrap()
    }

    #[test]
    fn a_nearly_closed_cycle_is_solved_to_full_accuracy() {
        // Expected steps to leave: t = A⁻¹ 1 = 1/eps from both states (by symmetry).
        for eps in [1e-3, 1e-9, 1e-15, 1e-300] {
            let lu = cycle(eps);
            let mut t = vec![1.0, 1.0];
            lu.solve_in_place(&mut t);
            for x in &t {
                assert!((x * eps - 1.0).abs() < 1e-14, "eps {eps}: {x}");
            }
            let mut s = vec![1.0, 0.0];
            lu.solve_transpose_in_place(&mut s);
            // Visits from state 0: Σ = 1/eps, split (1, 1 − eps)/(1 − (1 − eps)²).
            let total = (1.0 + (1.0 - eps)) / (eps * (2.0 - eps));
            assert!(((s[0] + s[1]) / total - 1.0).abs() < 1e-14, "eps {eps}: {s:?}");
        }
    }

    #[test]
    fn agrees_with_partial_pivoting_on_a_well_conditioned_system() {
        // A random substochastic 30-state Q with 10 % leaving per row.
        let n = 30;
        let mut q = vec![0.0; n * n];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..n {
            let row: Vec<f64> = (0..n).map(|_| next()).collect();
            let s: f64 = row.iter().sum();
            for j in 0..n {
                q[i * n + j] = 0.9 * row[j] / s;
            }
        }
        let leave: Vec<f64> = (0..n)
            .map(|i| 1.0 - (0..n).filter(|&j| j != i).map(|j| q[i * n + j]).sum::<f64>() - q[i * n + i])
            .collect();
        let q = &q;
        let off = |i: usize| {
            (0..n)
                .filter(move |&j| j != i)
                .map(move |j| (j as u32, q[i * n + j]))
        };
        let gth = GthLu::new(n, "test", off, &leave).unwrap();
        let dense = crate::linsolve::DenseLu::new(n, "test", |mut m| {
            for i in 0..n {
                for j in 0..n {
                    m[(i, j)] = f64::from(u8::from(i == j)) - q[i * n + j];
                }
            }
        })
        .unwrap();
        let b: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        for transpose in [false, true] {
            let (mut x, mut y) = (b.clone(), b.clone());
            if transpose {
                gth.solve_transpose_in_place(&mut x);
                dense.solve_transpose_in_place(&mut y);
            } else {
                gth.solve_in_place(&mut x);
                dense.solve_in_place(&mut y);
            }
            for (p, r) in x.iter().zip(&y) {
                assert!((p / r - 1.0).abs() < 1e-12, "transpose {transpose}: {p} vs {r}");
            }
        }
    }

    #[test]
    fn a_closed_class_is_singular_at_its_state() {
        // State 1 never leaves (its only move is to itself, which is not an entry here).
        let e = GthLu::new(
            2,
            "test",
            |i| (i == 0).then_some((1u32, 0.5)).into_iter(),
            &[0.5, 0.0],
        )
        .unwrap_err();
        assert!(matches!(e, Error::Singular { row: 1, .. }), "{e}");
    }
}
