//! Small numerical helpers shared by the engine.

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
