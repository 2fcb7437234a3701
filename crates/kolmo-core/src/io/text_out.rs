//! Writing big text files fast: the text of blocks of states is made in parallel and written in
//! order, and numbers are written without an allocation each (a value repeated from one entry to
//! the next, as model files have them, is formatted once).

use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::Write;
use std::ops::Range;

/// States per block of text made on one thread.
const BLOCK: usize = 1 << 13;

/// Writes the text of states `0..n` to `w`, in order: `text(states, out, numbers)` appends the
/// text of a block of consecutive states to `out`. Blocks are made in parallel, a few per thread at
/// a time, so the memory held is a few blocks' text per thread.
///
/// # Errors
/// The first error of `w`.
pub(crate) fn write_states(
    w: &mut dyn Write,
    n: usize,
    text: impl Fn(Range<usize>, &mut String, &mut Numbers) + Sync,
) -> std::io::Result<()> {
    let blocks: Vec<Range<usize>> = (0..n)
        .step_by(BLOCK)
        .map(|start| start..(start + BLOCK).min(n))
        .collect();
    let batch = 4 * rayon::current_num_threads();
    for group in blocks.chunks(batch) {
        let texts: Vec<String> = group
            .par_iter()
            .map(|r| {
                let mut out = String::new();
                text(r.clone(), &mut out, &mut Numbers::default());
                out
            })
            .collect();
        for t in texts {
            w.write_all(t.as_bytes())?;
        }
    }
    Ok(())
}

/// Where a writer switches from the plain form of a number to the exponent form. Both forms are
/// Rust's shortest digits that read back to the same `f64` (`{}` and `{:e}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// The exponent form below 1e-5 and from 1e16 in magnitude (0 is plain): Storm's DRN and
    /// PRISM's explicit files.
    Text,
    /// The exponent form when the plain one is longer than 21 characters: kolmo JSON, the arrays
    /// files, CSV and Matrix Market.
    Json,
}

/// Appends `v` to `out` in `form`: the one number formatter of the writers.
pub(crate) fn push_number(out: &mut String, v: f64, form: Form) {
    // Writing to a String cannot fail.
    let start = out.len();
    let exponent = match form {
        Form::Text => v != 0.0 && !(1e-5..1e16).contains(&v.abs()),
        Form::Json => {
            let _ = write!(out, "{v}");
            if out.len() - start <= 21 {
                return;
            }
            out.truncate(start);
            true
        }
    };
    let _ = if exponent {
        write!(out, "{v:e}")
    } else {
        write!(out, "{v}")
    };
}

/// `v` in `form` ([`push_number`]).
pub(crate) fn number(v: f64, form: Form) -> String {
    let mut out = String::new();
    push_number(&mut out, v, form);
    out
}

/// Writes numbers as [`push_number`] does, remembering the last one (a repeated value is formatted
/// once).
#[derive(Default)]
pub(crate) struct Numbers {
    last: Option<(u64, String)>,
}

impl Numbers {
    /// Appends `v` to `out` in [`Form::Text`].
    #[inline]
    pub fn push(&mut self, out: &mut String, v: f64) {
        self.push_as(out, v, Form::Text);
    }

    /// Appends `v` to `out` in `form` (one `Numbers` must keep to one form).
    #[inline]
    pub fn push_as(&mut self, out: &mut String, v: f64, form: Form) {
        if let Some((bits, text)) = &self.last
            && *bits == v.to_bits()
        {
            out.push_str(text);
            return;
        }
        let start = out.len();
        push_number(out, v, form);
        let text = out[start..].to_string();
        self.last = Some((v.to_bits(), text));
    }
}

/// Appends the decimal digits of `v`.
#[inline]
pub(crate) fn push_uint(out: &mut String, v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut x = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    // The digits are ASCII.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_blocks() {
        let mut out = String::new();
        let mut numbers = Numbers::default();
        for v in [0.25, 0.25, 1e-20, 1.0 / 3.0, 1.0 / 3.0, 0.0, -0.0, 1e17] {
            numbers.push(&mut out, v);
            out.push(' ');
        }
        assert_eq!(
            out,
            format!("0.25 0.25 1e-20 {} {} 0 -0 1e17 ", 1.0 / 3.0, 1.0 / 3.0)
        );
        let mut s = String::new();
        for v in [0, 7, 10, 4294967295, u64::MAX] {
            push_uint(&mut s, v);
            s.push(',');
        }
        assert_eq!(s, format!("0,7,10,4294967295,{},", u64::MAX));
        let mut w = Vec::new();
        write_states(&mut w, 3 * BLOCK + 5, |r, out, _| {
            for s in r {
                push_uint(out, s as u64);
                out.push('\n');
            }
        })
        .unwrap();
        let want: String = (0..3 * BLOCK + 5).map(|s| format!("{s}\n")).collect();
        assert_eq!(String::from_utf8(w).unwrap(), want);
    }
}
