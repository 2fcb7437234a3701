//! Output helpers: JSON numbers (with +∞ as "inf") and number formatting for tables.

use serde_json::Value;

/// A JSON number, or the string "inf" / "-inf" for infinities and null for NaN.
pub fn num(x: f64) -> Value {
    let x = x + 0.0; // −0 prints as 0
    if x.is_finite() {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    } else if x.is_nan() {
        Value::Null
    } else if x > 0.0 {
        Value::String("inf".into())
    } else {
        Value::String("-inf".into())
    }
}

/// A number for a human table: "inf" for +∞, otherwise `digits` significant digits without
/// trailing noise.
pub fn fmt_sig(x: f64, digits: usize) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-5..=15).contains(&mag) {
        return format!("{x:.*e}", digits.saturating_sub(1));
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A number rounded to `digits` significant digits and printed in its shortest form: `0.4`, not
/// `0.400000000000000`; `1`, not `0.99999999999999989`; "inf" for +∞.
pub fn fmt_short(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return fmt_sig(x, digits);
    }
    let rounded: f64 = format!("{x:.*e}", digits.saturating_sub(1)).parse().unwrap_or(x);
    let rounded = rounded + 0.0; // −0 prints as 0
    let mag = if rounded == 0.0 {
        0
    } else {
        rounded.abs().log10().floor() as i32
    };
    if (-5..=15).contains(&mag) {
        rounded.to_string()
    } else {
        format!("{rounded:e}")
    }
}

/// An error bound for a report: "0" when it is exactly zero, else two significant digits.
pub fn fmt_bound(x: f64) -> String {
    if x == 0.0 { "0".into() } else { format!("{x:.1e}") }
}

/// A probability with 6 decimals, or in scientific notation when tiny.
pub fn fmt_prob(p: f64) -> String {
    if p != 0.0 && p.abs() < 1e-4 {
        format!("{p:.3e}")
    } else {
        format!("{p:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_sig(35.834938413695426, 8), "35.834938");
        assert_eq!(fmt_sig(f64::INFINITY, 8), "inf");
        assert_eq!(fmt_sig(1.0, 3), "1.00");
        assert_eq!(num(f64::INFINITY), Value::String("inf".into()));
        assert_eq!(num(2.5), serde_json::json!(2.5));
        assert_eq!(fmt_prob(0.5), "0.500000");
        assert_eq!(fmt_prob(1.5e-7), "1.500e-7");
        assert_eq!(fmt_short(0.9999999999999999, 15), "1");
        assert_eq!(fmt_short(0.4, 15), "0.4");
        assert_eq!(fmt_short(10.0 / 3.0, 8), "3.3333333");
        assert_eq!(fmt_short(-1e-300, 3), "-1e-300");
        assert_eq!(fmt_short(f64::INFINITY, 3), "inf");
        assert_eq!(fmt_bound(0.0), "0");
        assert_eq!(fmt_bound(2.5e-16), "2.5e-16");
    }
}
