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
}
