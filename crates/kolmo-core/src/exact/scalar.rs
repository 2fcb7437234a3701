use super::Rational;
use std::fmt::Debug;

/// The number type solvers are written over: `f64` (fast, rounded) or [`Rational`] (exact).
/// Operations take references so that big numbers are not copied.
pub trait Scalar: Clone + PartialEq + Debug + Send + Sync + 'static {
    /// Whether arithmetic is exact (no rounding, so no refinement and residuals must be 0).
    const EXACT: bool;
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// The value of `x` (exact for rationals: the binary fraction `x` is).
    ///
    /// # Panics
    /// - panics for rationals if `x` is not finite.
    fn from_f64(x: f64) -> Self;
    /// The nearest `f64`.
    fn to_f64(&self) -> f64;
    /// Whether the value is 0.
    fn is_zero(&self) -> bool;
    /// `self + o`.
    fn plus(&self, o: &Self) -> Self;
    /// `self − o`.
    fn minus(&self, o: &Self) -> Self;
    /// `self · o`.
    fn times(&self, o: &Self) -> Self;
    /// `self / o`.
    fn over(&self, o: &Self) -> Self;
    /// The sum of `items`: exact for rationals, compensated (Neumaier) in `f64`, so that a sum
    /// such as a row's exit mass is the correctly rounded value in all but contrived cases.
    fn sum<'a>(items: impl Iterator<Item = &'a Self>) -> Self {
        items.fold(Self::zero(), |acc, x| acc.plus(x))
    }
}

impl Scalar for f64 {
    const EXACT: bool = false;
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(&self) -> f64 {
        *self
    }
    fn is_zero(&self) -> bool {
        *self == 0.0
    }
    #[inline]
    fn plus(&self, o: &Self) -> Self {
        self + o
    }
    #[inline]
    fn minus(&self, o: &Self) -> Self {
        self - o
    }
    #[inline]
    fn times(&self, o: &Self) -> Self {
        self * o
    }
    #[inline]
    fn over(&self, o: &Self) -> Self {
        self / o
    }
    fn sum<'a>(items: impl Iterator<Item = &'a Self>) -> Self {
        let mut acc = crate::numeric::NeumaierSum::default();
        items.for_each(|&x| acc.add(x));
        acc.value()
    }
}

impl Scalar for Rational {
    const EXACT: bool = true;
    fn zero() -> Self {
        Rational::ZERO
    }
    fn one() -> Self {
        Rational::ONE
    }
    fn from_f64(x: f64) -> Self {
        Rational::try_from(x).expect("a finite number")
    }
    fn to_f64(&self) -> f64 {
        Rational::to_f64(self).value()
    }
    fn is_zero(&self) -> bool {
        Rational::is_zero(self)
    }
    fn plus(&self, o: &Self) -> Self {
        self + o
    }
    fn minus(&self, o: &Self) -> Self {
        self - o
    }
    fn times(&self, o: &Self) -> Self {
        self * o
    }
    fn over(&self, o: &Self) -> Self {
        self / o
    }
}
