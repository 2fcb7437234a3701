//! Small numerical helpers shared by the engine: compensated sums, double-length dot products
//! (TwoSum/TwoProduct), FMA-compiled parallel residual rows, and iterative refinement of an
//! approximate solver in double-length arithmetic.

/// Compensated summation (Neumaier's improvement of Kahan's algorithm: A. Neumaier, "Rundungsfehler-
/// analyse einiger Verfahren zur Summation endlicher Summen", ZAMM 54, 1974): the error does not
/// grow with the number of terms.
#[derive(Default, Clone, Copy, Debug)]
pub struct NeumaierSum {
    sum: f64,
    compensation: f64,
}

impl NeumaierSum {
    /// Adds `x`.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The sum.
    #[inline]
    pub fn value(self) -> f64 {
        self.sum + self.compensation
    }
}

/// Iterative solves are refined until `‖b − (I − Q)x‖∞ ≤ REFINE_TARGET · ‖b‖∞`: for expected steps
/// (`b = 1`) a guaranteed relative error of about 1e-11, ten times inside the default 1e-10.
pub(crate) const REFINE_TARGET: f64 = 1e-11;

/// Iterative refinement of an approximate solver, the solution carried as an unevaluated pair
/// `hi + lo` (as `analysis`' subsystems and the Snakes and Ladders operator use it): `solve(r, tolerance)` overwrites `r` with an
/// approximate solution of `A d = r` to the relative 2-norm `tolerance`; `residual(hi, lo, b, r)`
/// writes `b − A(hi + lo)` into `r` in twice the working precision. Stops when
/// `‖r‖∞ ≤ REFINE_TARGET · ‖b‖∞`, when a correction fails to halve the residual, or after 12
/// corrections. Returns `hi + lo` rounded to `f64` and the max-norm residual of the pair.
#[doc(hidden)]
pub fn refine_pair(
    b: &[f64],
    mut solve: impl FnMut(&mut [f64], f64),
    mut residual_of: impl FnMut(&[f64], &[f64], &[f64], &mut [f64]),
) -> (Vec<f64>, f64) {
    let n = b.len();
    let target = b.iter().fold(0.0f64, |a, v| a.max(v.abs())) * REFINE_TARGET;
    let mut hi = b.to_vec();
    solve(&mut hi, 100.0 * REFINE_TARGET);
    let mut lo = vec![0.0; n];
    let mut r = vec![0.0; n];
    let mut best = f64::INFINITY;
    let mut residual;
    let mut steps = 0;
    loop {
        residual_of(&hi, &lo, b, &mut r);
        residual = r
            .iter()
            .fold(0.0f64, |a, v| if v.is_nan() { f64::NAN } else { a.max(v.abs()) });
        if !(residual > target && residual < 0.5 * best) || steps == 12 {
            break;
        }
        best = residual;
        steps += 1;
        // Only as accurate as the target needs.
        solve(&mut r, (0.25 * target / residual).clamp(1e-6, 0.5));
        for ((h, l), d) in hi.iter_mut().zip(lo.iter_mut()).zip(&r) {
            // TwoSum: h + d = s + e exactly.
            let s = *h + d;
            let bb = s - *h;
            *l += (*h - (s - bb)) + (d - bb);
            *h = s;
        }
    }
    let x = hi.iter().zip(&lo).map(|(h, l)| h + l).collect();
    (x, residual)
}

/// A sum of terms and exact products kept as an unevaluated pair (sum, error), giving the result
/// as if computed in twice the working precision (TwoSum and FMA-based TwoProduct).
#[doc(hidden)]
#[derive(Default, Clone, Copy)]
pub struct Dot2 {
    sum: f64,
    err: f64,
}

impl Dot2 {
    #[inline(always)]
    pub fn add(&mut self, a: f64) {
        let s = self.sum + a;
        let bb = s - self.sum;
        self.err += (self.sum - (s - bb)) + (a - bb);
        self.sum = s;
    }

    #[inline(always)]
    pub fn add_product(&mut self, a: f64, b: f64) {
        let p = a * b;
        let e = a.mul_add(b, -p);
        self.add(p);
        self.err += e;
    }

    /// Adds `e` to the error term only: a term far below the sum's last place (the low part
    /// of a double-length operand times a coefficient).
    #[inline(always)]
    pub fn add_to_error(&mut self, e: f64) {
        self.err += e;
    }

    #[inline]
    pub fn value(self) -> f64 {
        self.sum + self.err
    }
}

/// Fills `r` in parallel chunks of 2¹⁴ entries (the same result on any number of threads) with
/// `rows(start, chunk)`, compiled with hardware FMA when the CPU has it: [`Dot2`]'s `mul_add` is
/// otherwise emulated in software on baseline x86-64. `rows` should be `#[inline(always)]` code
/// so that it is compiled into the FMA-enabled copy.
#[doc(hidden)]
pub fn rows_with_fma(r: &mut [f64], rows: impl Fn(usize, &mut [f64]) + Sync) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 14;
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "fma")]
    unsafe fn with_fma(rows: &(impl Fn(usize, &mut [f64]) + Sync), start: usize, r: &mut [f64]) {
        rows(start, r);
    }
    #[cfg(target_arch = "x86_64")]
    let fma = std::arch::is_x86_feature_detected!("fma");
    r.par_chunks_mut(CHUNK).enumerate().for_each(|(c, rs)| {
        #[cfg(target_arch = "x86_64")]
        if fma {
            // SAFETY: the CPU supports FMA, checked above.
            unsafe { with_fma(&rows, c * CHUNK, rs) };
            return;
        }
        rows(c * CHUNK, rs);
    });
}

/// The largest relative error of one transition probability or one-step mass the analyses use,
/// against the model as written, for rows of at most `row_len` entries: each probability is the
/// written number rounded to `f64` (relative error at most `u = 2⁻⁵³`), and a row's mass out of a
/// set of states is a sum of at most `row_len` of them (`γ_{row_len}`, Higham, *Accuracy and
/// Stability of Numerical Algorithms*, 2nd ed., Lemma 3.1). Returns `γ_{row_len + 1} =
/// (m + 1)u / (1 − (m + 1)u)`.
#[must_use]
pub fn entry_rounding(row_len: usize) -> f64 {
    let mu = (row_len as f64 + 1.0) * (f64::EPSILON / 2.0);
    mu / (1.0 - mu)
}

/// How much an entrywise relative perturbation of at most `eta` in the parameters of a
/// diagonally dominant M-matrix — its off-diagonal entries and each row's mass out of the system,
/// the diagonal being their sum, as kolmo forms every `I − Q` — can change the solution of a
/// linear system with it: at most the factor `((1 + η)/(1 − η))^edges`, so the relative change is
/// at most the returned `((1 + η)/(1 − η))^edges − 1` (`≈ 2·edges·η`), rounded up.
///
/// Method: by the all-minors matrix-tree theorem (Chaiken, SIAM J. Algebraic Discrete Methods
/// 3(3), 1982) every entry of `(I − Q)⁻¹` over `k` states is a ratio of two sums of products of
/// these parameters, `k − 1` factors each above and `k` below, all with positive signs; each
/// product moves by a factor within `(1 ± η)^factors`. This is O'Cinneide's argument ("Entrywise
/// perturbation theory and error analysis for Markov chains", Numer. Math. 65, 1993), which for
/// the stationary distribution of `n` states gives `edges = n − 1`; for absorbing chains see also
/// Dailey, Dopico & Ye, "Relative perturbation theory for diagonally dominant matrices", SIAM J.
/// Matrix Anal. Appl. 35(4), 2014. For `N b` with `b ≥ 0` perturbed by `η` too, pass `k + 1`
/// for `k` states; for `N 1` (expected steps), `k`.
#[must_use]
pub fn perturbation_growth(edges: usize, eta: f64) -> f64 {
    if edges == 0 || eta == 0.0 {
        return 0.0;
    }
    if eta >= 1.0 {
        return f64::INFINITY;
    }
    let log = edges as f64 * (eta.ln_1p() - (-eta).ln_1p());
    // Each of ln_1p, the product and exp_m1 is within a few ulps: 16 ulps of slack.
    log.exp_m1() * (1.0 + 8.0 * f64::EPSILON)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensated_sum_of_many_small_terms() {
        let mut s = NeumaierSum::default();
        let p = 1.0 / 100_000.0;
        for _ in 0..100_000 {
            s.add(p);
        }
        // The exact sum of 10⁵ copies of fl(1e-5) is within 10⁵·ε/2·1e-5 ≈ 1e-16 of 1.
        assert!((s.value() - 1.0).abs() < 1e-15);
        let naive: f64 = (0..100_000).map(|_| p).sum();
        assert!((naive - 1.0).abs() > 1e-13);
    }

    // ((1 + η)/(1 − η))^k − 1: 0 for no edges, about 2kη for small η, and never below the
    // exact value (computed here in rationals for k = 3).
    #[test]
    fn perturbation_growth_bounds_the_product() {
        use super::{entry_rounding, perturbation_growth};
        assert_eq!(perturbation_growth(0, 1e-3), 0.0);
        assert_eq!(perturbation_growth(5, 1.0), f64::INFINITY);
        let eta = 1e-3;
        let exact = ((1.0f64 + eta) / (1.0 - eta)).powi(3) - 1.0;
        let g = perturbation_growth(3, eta);
        assert!(g >= exact && g <= exact * (1.0 + 1e-12), "{g} vs {exact}");
        let u = f64::EPSILON / 2.0;
        assert!((entry_rounding(6) / (7.0 * u) - 1.0).abs() < 1e-14);
        assert!((perturbation_growth(1000, entry_rounding(6)) / (2000.0 * 7.0 * u) - 1.0).abs() < 1e-9);
    }
}
