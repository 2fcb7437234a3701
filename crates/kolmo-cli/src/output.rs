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
    }
}
