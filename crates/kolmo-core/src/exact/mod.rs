//! Exact rational arithmetic for the same solves as in floating point.
//!
//! - [`Scalar`]: the number type the solvers are written over, implemented for `f64` and for
//!   [`Rational`] (dashu's `RBig`, MIT/Apache-2.0).
//! - [`rationalize`]: recovers the fraction a floating-point probability stands for (the simplest
//!   fraction that rounds to it), and [`rationalize_matrix`] a whole transition matrix, refusing
//!   rows whose fractions do not sum to exactly 1.
//! - [`decimal`]: a fraction's decimal expansion to any number of places.

mod scalar;

pub use scalar::Scalar;

use crate::sparse::CsrMatrix;
use crate::{Error, Result};
use dashu_int::{IBig, UBig};

/// An exact rational number (dashu's `RBig`).
pub type Rational = dashu_ratio::RBig;

/// Largest denominator [`rationalize`] looks for (2²⁰ = 1,048,576): two fractions with smaller
/// denominators differ by more than 2⁻⁴⁰, far more than the rounding error it allows, while a
/// number that is no such fraction lies that close to one only by a rare accident (which the row
/// sums then catch).
pub const MAX_DENOMINATOR: u64 = 1 << 20;

/// The simplest fraction `p/q` (`q ≤ MAX_DENOMINATOR`) among the continued-fraction convergents of
/// `x` that lies within 2 units in the last place of `x` (so `1 − 2/3` computed in `f64` is still
/// recognised as 1/3); `None` if there is none (then `x` is not a fraction with a small
/// denominator) or `x` is negative or not finite. Callers check what they can: a transition
/// matrix's rows must then sum to exactly 1.
///
/// Method: the convergents of the continued fraction of `x` are its best rational approximations
/// (Khinchin, *Continued Fractions*, 1964, §6); each is checked exactly.
#[must_use]
pub fn rationalize(x: f64) -> Option<Rational> {
    if !(x.is_finite() && x >= 0.0) {
        return None;
    }
    if x == x.trunc() && x < 9.0e15 {
        return Some(Rational::from(x as u64));
    }
    let exact = Rational::try_from(x).ok()?;
    let ulp = f64::from_bits(x.to_bits() + 1) - x;
    // Continued fraction on the exact binary value of x.
    let (mut num, mut den): (IBig, IBig) =
        (exact.numerator().clone(), IBig::from(exact.denominator().clone()));
    let (mut p0, mut q0, mut p1, mut q1) = (IBig::ZERO, IBig::ONE, IBig::ONE, IBig::ZERO);
    for _ in 0..64 {
        if den == IBig::ZERO {
            break;
        }
        let a = &num / &den;
        let r = &num - &a * &den;
        let p2 = &a * &p1 + &p0;
        let q2 = &a * &q1 + &q0;
        if q2 > IBig::from(MAX_DENOMINATOR) {
            break;
        }
        let candidate = Rational::from_parts(p2.clone(), UBig::try_from(q2.clone()).ok()?);
        if (candidate.to_f64().value() - x).abs() <= 2.0 * ulp {
            return Some(candidate);
        }
        (p0, q0, p1, q1) = (p1, q1, p2, q2);
        (num, den) = (den, r);
    }
    None
}

/// [`rationalize`] for either sign: `−rationalize(|x|)` for negative `x`.
#[must_use]
pub fn rationalize_signed(x: f64) -> Option<Rational> {
    let magnitude = rationalize(x.abs())?;
    Some(if x < 0.0 { -magnitude } else { magnitude })
}

/// Rewards (one per choice) as fractions by [`rationalize_signed`], for exact analyses of rewards
/// that were not kept as written ([`Written`](crate::model::Written)).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the first choice whose reward is not a fraction with a
/// denominator up to [`MAX_DENOMINATOR`].
pub fn rationalize_rewards(rewards: &[f64]) -> Result<Vec<Rational>> {
    rewards
        .iter()
        .enumerate()
        .map(|(choice, &x)| {
            rationalize_signed(x).ok_or_else(|| {
                Error::arg(
                    "exact rewards",
                    format!("the reward {x} of choice {choice} is not a simple fraction"),
                )
            })
        })
        .collect()
}

/// The matrix with every entry replaced by [`rationalize`]d fraction.
///
/// # Errors
/// [`Error::InvalidDistribution`] naming the row if an entry is not a fraction with a denominator
/// up to [`MAX_DENOMINATOR`], or if `rows_sum_to_one` and a row's fractions do not sum to exactly 1.
pub fn rationalize_matrix(m: &CsrMatrix, rows_sum_to_one: bool) -> Result<CsrMatrix<Rational>> {
    let (row_ptr, cols, vals) = m.as_parts();
    let mut exact = Vec::with_capacity(vals.len());
    for i in 0..m.nrows() {
        let mut sum = Rational::ZERO;
        for k in row_ptr[i]..row_ptr[i + 1] {
            let r = rationalize(vals[k]).ok_or_else(|| Error::InvalidDistribution {
                state: i as u32,
                name: i.to_string(),
                message: format!(
                    "probability {} to state {} is not a fraction with a denominator up to {MAX_DENOMINATOR}; exact analysis needs simple fractions",
                    vals[k], cols[k]
                ),
            })?;
            sum = &sum + &r;
            exact.push(r);
        }
        if rows_sum_to_one && sum != Rational::ONE {
            return Err(Error::InvalidDistribution {
                state: i as u32,
                name: i.to_string(),
                message: format!("as fractions the outgoing probabilities sum to {sum}, not exactly 1"),
            });
        }
    }
    Ok(m.with_values(exact))
}

/// Largest decimal exponent magnitude [`parse_exact`] accepts (`1e-400` is accepted,
/// `1e-100000` is not): the exact value of `10^e` takes memory in proportion to `e`, so an
/// exponent written in a file must not set the allocation.
pub const MAX_DECIMAL_EXPONENT: u32 = 4_000;

/// The exact value of a number as a model file or a flag writes it: a decimal (`0.25`, `-3`,
/// `2.5e-1`, `.5`) or a fraction `p/q` of two decimals (`1/3`, `1/3000000`). `None` for anything
/// else (`inf`, `NaN`, hexadecimal, repeating decimals, `1/0`, an empty string) and for exponents
/// beyond ±[`MAX_DECIMAL_EXPONENT`]. White space around the number is ignored.
///
/// Method: the grammar is checked here, the digits are read by dashu
/// ([`RBig::from_str_decimal`](dashu_ratio::RBig::from_str_decimal)).
#[must_use]
pub fn parse_exact(text: &str) -> Option<Rational> {
    let t = text.trim();
    if let Some((p, q)) = t.split_once('/') {
        if q.contains('/') {
            return None;
        }
        let (p, q) = (parse_exact(p)?, parse_exact(q)?);
        return (q != Rational::ZERO).then(|| p / q);
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    if let Some(e) = exponent {
        let magnitude = e.strip_prefix(['+', '-']).unwrap_or(e);
        if magnitude.is_empty() || !digits(magnitude) {
            return None;
        }
        // Leading zeros do not make an exponent large.
        let significant = magnitude.trim_start_matches('0');
        if significant.len() > 6 || significant.parse::<u32>().unwrap_or(0) > MAX_DECIMAL_EXPONENT {
            return None;
        }
    }
    Rational::from_str_decimal(t.strip_prefix('+').unwrap_or(t)).ok()
}

/// The decimal expansion of `r` rounded to `places` digits after the point (half away from zero).
#[must_use]
pub fn decimal(r: &Rational, places: usize) -> String {
    let scale = IBig::from(10u8).pow(places);
    let num = r.numerator() * &scale;
    let den = IBig::from(r.denominator().clone());
    let negative = num < IBig::ZERO;
    let num = if negative { -num } else { num };
    let q = (&num * IBig::from(2u8) + &den) / (&den * IBig::from(2u8));
    let digits = q.to_string();
    let digits = if digits.len() <= places {
        format!("{}{digits}", "0".repeat(places + 1 - digits.len()))
    } else {
        digits
    };
    let (int, frac) = digits.split_at(digits.len() - places);
    let sign = if negative { "-" } else { "" };
    if places == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Exact sums for the multiply-and-reduce kernel ([`CsrMatrix::multiply_and_reduce`]).
impl crate::sparse::Accumulate for Rational {
    type Sum = Rational;
    fn start(start: Option<&Self>) -> Rational {
        start.cloned().unwrap_or(Rational::ZERO)
    }
    fn add_product(sum: &mut Rational, gamma: Option<&Self>, a: &Self, x: &Self) {
        let term = match gamma {
            Some(g) => g * a * x,
            None => a * x,
        };
        *sum += term;
    }
    fn add(sum: &mut Rational, x: &Self) {
        *sum += x;
    }
    fn finish(sum: Rational) -> Self {
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_in_rationals() {
        use crate::sparse::{Affine, Direction};
        // Group 0 (max) and group 1 (min): to state 0, or to state 1.
        let f = crate::sparse::two_by_two();
        let m = f.with_values(
            f.as_parts()
                .2
                .iter()
                .map(|&p| Rational::try_from(p).unwrap())
                .collect(),
        );
        let third = Rational::ONE / Rational::from(3);
        let rewards = vec![Rational::ONE, Rational::ZERO, third.clone(), Rational::ZERO];
        let gamma = Rational::ONE / Rational::from(2);
        let dir = |g: usize| if g == 0 { Direction::Max } else { Direction::Min };
        let x = vec![Rational::from(2), Rational::ONE];
        let (mut out, mut ch) = (vec![Rational::ZERO; 2], vec![0u32; 2]);
        m.multiply_and_reduce(dir, &x, Affine::discounted(&rewards, &gamma), &mut out, &mut ch);
        // Max(1 + 2/2, 0 + 1/2) = 2; min(1/3 + 2/2, 0 + 1/2) = 1/2.
        assert_eq!(out, vec![Rational::from(2), gamma.clone()]);
        assert_eq!(ch, vec![0, 1]);
        // Gauss–Seidel: group 1 reads the new x[0] = 2 (the same here), exactly.
        let mut y = x.clone();
        m.multiply_and_reduce_gauss_seidel(
            dir,
            &mut y,
            Affine::discounted(&rewards, &gamma),
            &mut ch,
            |_, _, _| {},
        );
        assert_eq!(y, out);
    }

    #[test]
    fn recovers_simple_fractions() {
        for (p, q) in [
            (1u64, 6u64),
            (5, 6),
            (2, 13),
            (1, 3),
            (7, 100_000),
            (1, 1 << 20),
            (12345, 65_537),
            (999_999, 1_000_000),
        ] {
            let x = p as f64 / q as f64;
            let r = rationalize(x).unwrap();
            assert_eq!(r, Rational::from(p) / Rational::from(q), "{p}/{q}");
        }
        assert_eq!(rationalize(0.0), Some(Rational::ZERO));
        assert_eq!(rationalize(1.0), Some(Rational::ONE));
        assert_eq!(rationalize(0.1).unwrap(), Rational::from(1) / Rational::from(10));
        assert_eq!(
            rationalize(1.0 - 2.0 / 3.0).unwrap(),
            Rational::from(1) / Rational::from(3)
        );
        assert_eq!(rationalize(std::f64::consts::PI), None);
        assert_eq!(rationalize(-0.5), None);
        assert_eq!(rationalize(f64::NAN), None);
    }

    #[test]
    fn exact_numbers_as_written() {
        let r = |p: i64, q: u64| Rational::from_parts(p.into(), q.into());
        assert_eq!(parse_exact("1/3000000"), Some(r(1, 3_000_000)));
        assert_eq!(parse_exact(" 2999999/3000000 "), Some(r(2_999_999, 3_000_000)));
        assert_eq!(parse_exact("0.1"), Some(r(1, 10)));
        assert_eq!(parse_exact("2.5e-1"), Some(r(1, 4)));
        assert_eq!(parse_exact("-1.5E+2"), Some(r(-150, 1)));
        assert_eq!(parse_exact(".5"), Some(r(1, 2)));
        assert_eq!(parse_exact("5."), Some(r(5, 1)));
        assert_eq!(parse_exact("+3"), Some(r(3, 1)));
        assert_eq!(parse_exact("0.5/0.25"), Some(r(2, 1)));
        assert_eq!(parse_exact("1e-0004000"), parse_exact("1e-4000"));
        assert!(parse_exact("1e-400").is_some_and(|x| x > Rational::ZERO));
        for bad in [
            "",
            ".",
            "e5",
            "1e",
            "1e+",
            "inf",
            "NaN",
            "0x10",
            "0.(3)",
            "1/0",
            "1/",
            "/2",
            "1..2",
            "--1",
            "1e-4001",
            "1e-99999999999",
            "1 2",
            "1/2/3",
        ] {
            assert_eq!(parse_exact(bad), None, "{bad}");
        }
    }

    #[test]
    fn decimals() {
        let r = Rational::from(2) / Rational::from(3);
        assert_eq!(decimal(&r, 5), "0.66667");
        assert_eq!(decimal(&(Rational::from(-1) / Rational::from(8)), 2), "-0.13");
        assert_eq!(decimal(&Rational::from(35), 3), "35.000");
        assert_eq!(decimal(&(Rational::from(1) / Rational::from(1000)), 2), "0.00");
    }
}
