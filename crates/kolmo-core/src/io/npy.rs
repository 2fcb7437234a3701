//! A reader for NumPy's `.npy` files of 64-bit floats (format versions 1.0, 2.0 and 3.0, as
//! `numpy.save` writes them; the format is specified in `numpy/lib/format.py`'s documentation).
//!
//! A file is: the magic string `\x93NUMPY`, the major and minor version bytes, the header's length
//! (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), the header — a Python dict
//! literal such as `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 3), }` padded with
//! spaces and ended by a line feed — and then the elements, in C (row-major) or Fortran
//! (column-major) order.
//!
//! Only plain `float64` arrays are read (`<f8`, or big-endian `>f8`); other element types are
//! refused with advice. The header's shape is checked against the file's length before anything is
//! allocated, so a truncated file or a header claiming a huge shape is an error, never a panic or
//! an allocation failure.
//!
//! Errors are [`Error::Parse`](crate::Error::Parse) at line 1 and, as the column, the byte offset
//! (from 1) of the problem: a `.npy` file is binary, and the offset is what a hex viewer shows.

use super::parse_error;
use crate::{Result, excerpt};
use std::path::Path;

/// The bytes every `.npy` file starts with.
const MAGIC: &[u8] = b"\x93NUMPY";

/// A `float64` array read from a `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NpyArray {
    /// The array's shape (a 0-dimensional array has an empty shape and one element).
    pub shape: Vec<usize>,
    /// The elements in C (row-major) order, whatever the file's order.
    pub data: Vec<f64>,
    /// Whether the file stores the elements in Fortran (column-major) order.
    pub fortran: bool,
    /// The byte offset of the first element in the file.
    pub data_start: usize,
}

impl NpyArray {
    /// The byte offset in the file of the element at C-order position `flat`.
    #[must_use]
    pub fn offset(&self, flat: usize) -> usize {
        let stored = if self.fortran {
            // The indices of the C-order position, recombined column-major.
            let index = unflatten(&self.shape, flat);
            (self.shape.iter().zip(&index).rev()).fold(0, |stored, (&d, &i)| stored * d + i)
        } else {
            flat
        };
        self.data_start + 8 * stored
    }
}

/// The indices of the element at C-order position `flat` of an array of `shape`.
pub(super) fn unflatten(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        index[i] = flat % d.max(1);
        flat /= d.max(1);
    }
    index
}

/// Reads the `float64` array in `path`.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::Parse`] (line 1, the byte offset as column)
/// if it is not a `.npy` file, has a malformed header, holds anything but `float64`, or is shorter
/// or longer than its shape says.
pub(crate) fn read(path: &Path) -> Result<NpyArray> {
    parse(path, &std::fs::read(path).map_err(super::io_error(path))?)
}

/// Decodes the `.npy` file `bytes`, the contents of `path`.
///
/// # Errors
/// As [`read`], less the I/O error.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<NpyArray> {
    let at = |offset: usize, message: String| parse_error(path, 1, offset + 1, message);
    if bytes.len() < MAGIC.len() + 2 || !bytes.starts_with(MAGIC) {
        return Err(at(
            0,
            "not a NumPy .npy file (it does not start with \\x93NUMPY; write it with numpy.save)".into(),
        ));
    }
    let major = bytes[6];
    let (len_size, utf8) = match major {
        1 => (2, false),
        2 => (4, false),
        3 => (4, true),
        _ => {
            let minor = bytes[7];
            let message = format!(
                "NPY format version {major}.{minor} is not supported (versions 1.0, 2.0 and 3.0 are)"
            );
            return Err(at(6, message));
        }
    };
    let header_start = 8 + len_size;
    let Some(len_bytes) = bytes.get(8..header_start) else {
        return Err(at(bytes.len(), "the file ends inside its header length".into()));
    };
    let header_len = len_bytes
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let Some(header_bytes) = header_start
        .checked_add(header_len)
        .and_then(|end| bytes.get(header_start..end))
    else {
        return Err(at(
            bytes.len(),
            format!(
                "the file ends inside its header ({header_len} bytes announced, {} present)",
                bytes.len() - header_start
            ),
        ));
    };
    // Versions 1 and 2 write the header in Latin-1, version 3 in UTF-8; the keys and values we
    // read are ASCII either way, so any other byte is reported where it stands.
    let header: String = if utf8 {
        let message = "the header is not UTF-8 text";
        let not_utf8 = |e: std::str::Utf8Error| at(header_start + e.valid_up_to(), message.into());
        std::str::from_utf8(header_bytes).map_err(not_utf8)?.to_string()
    } else {
        header_bytes.iter().map(|&b| char::from(b)).collect()
    };
    let fields = Header::parse(&header).map_err(|(pos, message)| at(header_start + pos, message))?;
    let data_start = header_start + header_len;
    let from_bytes: fn([u8; 8]) -> f64 = match fields.descr.as_str() {
        "<f8" | "=f8" | "f8" | "float64" => f64::from_le_bytes,
        ">f8" => f64::from_be_bytes,
        other => {
            return Err(at(
                header_start + fields.descr_at,
                format!(
                    "the array holds {}, not 64-bit floats; kolmo reads float64 arrays ('<f8'): save `a.astype(numpy.float64)`",
                    describe_dtype(other)
                ),
            ));
        }
    };
    let count = fields
        .shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&c| c.checked_mul(8).is_some());
    let present = bytes.len() - data_start;
    let Some(count) = count else {
        return Err(at(
            header_start + fields.shape_at,
            format!("the shape {} is too large", shape_text(&fields.shape)),
        ));
    };
    if present != count * 8 {
        let (what, offset) = if present < count * 8 {
            ("truncated", bytes.len())
        } else {
            ("longer than its shape says", data_start + count * 8)
        };
        return Err(at(
            offset,
            format!(
                "the file is {what}: shape {} needs {} bytes of data after the header, the file has {present}",
                shape_text(&fields.shape),
                count * 8
            ),
        ));
    }
    let stored = bytes[data_start..].chunks_exact(8);
    let mut array = NpyArray {
        shape: fields.shape,
        data: stored
            .map(|c| from_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        fortran: fields.fortran,
        data_start,
    };
    if array.fortran && array.shape.len() > 1 {
        // The elements in C order: each from where the file stores it.
        array.data = (0..count)
            .map(|flat| array.data[(array.offset(flat) - data_start) / 8])
            .collect();
    }
    Ok(array)
}

/// `(2, 3, 3)`, as Python writes a shape.
pub(crate) fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({}{})", dims.join(", "), if shape.len() == 1 { "," } else { "" })
}

/// A NumPy type string in words, for the message refusing it.
fn describe_dtype(descr: &str) -> String {
    let code = descr.trim_start_matches(['<', '>', '=', '|']);
    let kind = match code.chars().next() {
        Some('f') => "floats",
        Some('i') => "integers",
        Some('u') => "unsigned integers",
        Some('b') => "booleans",
        Some('c') => "complex numbers",
        Some('O') => "Python objects",
        Some('U' | 'S') => "strings",
        _ => "elements",
    };
    let bits = code
        .get(1..)
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|_| matches!(code.chars().next(), Some('f' | 'i' | 'u' | 'c')));
    match bits {
        Some(bytes) => format!("{}-bit {kind} ('{}')", bytes * 8, excerpt(descr)),
        None => format!("{kind} of type '{}'", excerpt(descr)),
    }
}

/// The three fields of an NPY header, with where `descr` and `shape` start in it.
#[derive(Debug)]
struct Header {
    descr: String,
    descr_at: usize,
    fortran: bool,
    shape: Vec<usize>,
    shape_at: usize,
}

/// A token of the header's Python literal, with its byte position.
#[derive(Debug, PartialEq)]
enum Token {
    Punct(u8),
    Str(String),
    Int(usize),
    Bool(bool),
}

impl Header {
    /// Parses the dict literal; an error is `(byte position in the header, message)`.
    fn parse(text: &str) -> std::result::Result<Self, (usize, String)> {
        let tokens = tokenize(text)?;
        let mut it = tokens.iter().peekable();
        let end = text.len();
        let unexpected = |t: Option<&(usize, Token)>, wanted: &str| match t {
            Some((pos, tok)) => (
                *pos,
                format!("malformed header: expected {wanted}, found {tok:?}"),
            ),
            None => (end, format!("malformed header: expected {wanted}, found its end")),
        };
        if !matches!(it.next(), Some((_, Token::Punct(b'{')))) {
            return Err(unexpected(tokens.first(), "'{'"));
        }
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        loop {
            let key = match it.next() {
                Some((_, Token::Punct(b'}'))) => break,
                Some((pos, Token::Str(k))) => (*pos, k.clone()),
                other => return Err(unexpected(other, "a key or '}'")),
            };
            if !matches!(it.next(), Some((_, Token::Punct(b':')))) {
                return Err((
                    key.0,
                    format!("malformed header: no ':' after '{}'", excerpt(&key.1)),
                ));
            }
            let value_at = it.peek().map_or(end, |(p, _)| *p);
            match key.1.as_str() {
                "descr" => match it.next() {
                    Some((_, Token::Str(s))) => descr = Some((s.clone(), value_at)),
                    Some((pos, Token::Punct(b'['))) => {
                        return Err((
                            *pos,
                            "the array has a structured dtype (named fields); kolmo reads plain float64 arrays".into(),
                        ));
                    }
                    other => return Err(unexpected(other, "a type string for 'descr'")),
                },
                "fortran_order" => match it.next() {
                    Some((_, Token::Bool(b))) => fortran = Some(*b),
                    other => return Err(unexpected(other, "True or False for 'fortran_order'")),
                },
                "shape" => {
                    if !matches!(it.next(), Some((_, Token::Punct(b'(')))) {
                        return Err((value_at, "malformed header: 'shape' is not a tuple".into()));
                    }
                    let mut dims = Vec::new();
                    loop {
                        match it.next() {
                            Some((_, Token::Punct(b')'))) => break,
                            Some((_, Token::Int(d))) => {
                                dims.push(*d);
                                match it.next() {
                                    Some((_, Token::Punct(b','))) => {}
                                    Some((_, Token::Punct(b')'))) => break,
                                    other => return Err(unexpected(other, "',' or ')' in the shape")),
                                }
                            }
                            other => return Err(unexpected(other, "a whole number in the shape")),
                        }
                    }
                    shape = Some((dims, value_at));
                }
                other => {
                    return Err((
                        key.0,
                        format!("malformed header: unknown key '{}'", excerpt(other)),
                    ));
                }
            }
            match it.next() {
                Some((_, Token::Punct(b','))) => {}
                Some((_, Token::Punct(b'}'))) => break,
                other => return Err(unexpected(other, "',' or '}'")),
            }
        }
        if let Some((pos, _)) = it.next() {
            return Err((*pos, "malformed header: text after the closing '}'".into()));
        }
        let missing = |key: &str| (0, format!("malformed header: no '{key}'"));
        let (descr, descr_at) = descr.ok_or_else(|| missing("descr"))?;
        let (shape, shape_at) = shape.ok_or_else(|| missing("shape"))?;
        Ok(Self {
            descr,
            descr_at,
            fortran: fortran.ok_or_else(|| missing("fortran_order"))?,
            shape,
            shape_at,
        })
    }
}

/// Splits the header into tokens; white space (the padding and the final line feed) is skipped.
fn tokenize(text: &str) -> std::result::Result<Vec<(usize, Token)>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b':' | b',' => {
                tokens.push((start, Token::Punct(b)));
                i += 1;
            }
            b'\'' | b'"' => {
                let Some(len) = text[i + 1..].find(char::from(b)) else {
                    return Err((start, "malformed header: unterminated string".into()));
                };
                tokens.push((start, Token::Str(text[i + 1..i + 1 + len].to_string())));
                i += len + 2;
            }
            b'0'..=b'9' => {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let digits = &text[start..i];
                // Python 2 wrote long integers with an `L` suffix.
                if i < bytes.len() && bytes[i] == b'L' {
                    i += 1;
                }
                let d = digits
                    .parse()
                    .map_err(|_| (start, format!("the dimension {} is too large", excerpt(digits))))?;
                tokens.push((start, Token::Int(d)));
            }
            _ if text[i..].starts_with("True") => {
                tokens.push((start, Token::Bool(true)));
                i += 4;
            }
            _ if text[i..].starts_with("False") => {
                tokens.push((start, Token::Bool(false)));
                i += 5;
            }
            _ => {
                let c = text[i..].chars().next().unwrap_or('?');
                return Err((start, format!("malformed header: unexpected character {:?}", c)));
            }
        }
    }
    Ok(tokens)
}

/// The bytes of a `.npy` file (version 1.0, little-endian `float64`) holding `data` (in C order
/// unless `fortran`, when `data` must already be column-major) of `shape`; for tests.
#[cfg(test)]
pub(crate) fn encode(shape: &[usize], data: &[f64], fortran: bool, descr: &str) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {}, }}",
        if fortran { "True" } else { "False" },
        shape_text(shape)
    );
    let mut header = dict.into_bytes();
    while (MAGIC.len() + 4 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(&header);
    for x in data {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("a.npy")
    }

    fn err(bytes: &[u8]) -> String {
        parse(p(), bytes).unwrap_err().to_string()
    }

    #[test]
    fn c_and_fortran_order_read_the_same_array() {
        let c = parse(p(), &encode(&[2, 3], &[1., 2., 3., 4., 5., 6.], false, "<f8")).unwrap();
        assert_eq!(c.shape, vec![2, 3]);
        assert_eq!(c.data, vec![1., 2., 3., 4., 5., 6.]);
        assert_eq!(c.data_start % 64, 0);
        // Column-major storage of the same matrix [[1, 2, 3], [4, 5, 6]].
        let f = parse(p(), &encode(&[2, 3], &[1., 4., 2., 5., 3., 6.], true, "<f8")).unwrap();
        assert_eq!(f.data, c.data);
        // Element [0][1] (C position 1) is the third value stored column-major.
        assert_eq!(f.offset(1), f.data_start + 16);
        assert_eq!(c.offset(1), c.data_start + 8);
        let v = parse(p(), &encode(&[3], &[0.5, 1.5, 2.5], false, "<f8")).unwrap();
        assert_eq!((v.shape.clone(), v.data.clone()), (vec![3], vec![0.5, 1.5, 2.5]));
    }

    #[test]
    fn big_endian_and_version_2() {
        let mut bytes = encode(&[2], &[0.0, 0.0], false, ">f8");
        let start = bytes.len() - 16;
        bytes[start..start + 8].copy_from_slice(&0.25f64.to_be_bytes());
        bytes[start + 8..].copy_from_slice(&(-1.0f64).to_be_bytes());
        assert_eq!(parse(p(), &bytes).unwrap().data, vec![0.25, -1.0]);

        let v1 = encode(&[1], &[3.0], false, "<f8");
        let header_len = u16::from_le_bytes([v1[8], v1[9]]) as u32;
        let mut v2 = MAGIC.to_vec();
        v2.extend_from_slice(&[2, 0]);
        v2.extend_from_slice(&header_len.to_le_bytes());
        v2.extend_from_slice(&v1[10..]);
        assert_eq!(parse(p(), &v2).unwrap().data, vec![3.0]);
    }

    #[test]
    fn bad_files_are_errors_at_their_byte() {
        let e = err(b"PK\x03\x04 a zip");
        assert!(
            e.starts_with("a.npy:1:1:") && e.contains("not a NumPy .npy file"),
            "{e}"
        );
        let e = err(b"\x93NUMPY\x09\x00\x10\x00");
        assert!(e.contains("version 9.0"), "{e}");
        let e = err(b"\x93NUMPY\x01\x00\xff\x00{'descr'");
        assert!(e.contains("ends inside its header"), "{e}");

        let good = encode(&[2, 2], &[1.0; 4], false, "<f8");
        let e = err(&good[..good.len() - 3]);
        assert!(
            e.contains("truncated") && e.contains("needs 32 bytes") && e.contains("has 29"),
            "{e}"
        );
        assert!(e.starts_with(&format!("a.npy:1:{}:", good.len() - 3 + 1)), "{e}");
        let mut long = good.clone();
        long.push(0);
        assert!(err(&long).contains("longer than its shape"));

        let ints = encode(&[2], &[0.0, 0.0], false, "<i8");
        let e = err(&ints);
        assert!(
            e.contains("64-bit integers ('<i8')") && e.contains("astype"),
            "{e}"
        );
        // The column points at the type string in the header (after the 10 bytes before it).
        let col = 10 + "{'descr': ".len() + 1;
        assert!(e.starts_with(&format!("a.npy:1:{col}:")), "{e}");
        assert!(err(&encode(&[2], &[0.0], false, "<f4")).contains("32-bit floats"));
        assert!(err(&encode(&[2], &[0.0], false, "|b1")).contains("booleans"));

        // A shape whose element count overflows is refused before anything is allocated.
        let huge = {
            let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }\n";
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&[1, 0]);
            b.extend_from_slice(&(dict.len() as u16).to_le_bytes());
            b.extend_from_slice(dict.as_bytes());
            b
        };
        assert!(err(&huge).contains("too large"), "{}", err(&huge));
        let claims_much = {
            let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,), }\n";
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&[1, 0]);
            b.extend_from_slice(&(dict.len() as u16).to_le_bytes());
            b.extend_from_slice(dict.as_bytes());
            b
        };
        assert!(err(&claims_much).contains("truncated"));
    }

    #[test]
    fn malformed_headers() {
        for (dict, expected) in [
            ("{'descr': '<f8', 'shape': (2,), }", "no 'fortran_order'"),
            (
                "{'descr': '<f8', 'fortran_order': 1, 'shape': (2,), }",
                "True or False",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': [2], }",
                "not a tuple",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                "unknown key",
            ),
            (
                "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,)}",
                "structured",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (2,) ",
                "expected ',' or '}'",
            ),
            ("{'descr': '<f8, 'fortran_order': False}", "malformed header"),
            (
                "{'descr': '<f8', 'fortran_order': None, 'shape': (2,)}",
                "unexpected character 'N'",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (-2,)}",
                "unexpected character '-'",
            ),
        ] {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&[1, 0]);
            b.extend_from_slice(&(dict.len() as u16 + 1).to_le_bytes());
            b.extend_from_slice(dict.as_bytes());
            b.push(b'\n');
            b.extend_from_slice(&[0; 16]);
            let e = err(&b);
            assert!(e.contains(expected), "{dict}: {e}");
        }
    }

    #[test]
    fn no_input_panics() {
        // Every prefix of a good file, and every single-byte corruption of its header.
        let good = encode(&[2, 3], &[0.5; 6], true, "<f8");
        for end in 0..good.len() {
            let _ = parse(p(), &good[..end]);
        }
        for i in 0..good.len() - 48 {
            for b in [0u8, b'\'', b'(', b')', b'9', 0xff] {
                let mut bad = good.clone();
                bad[i] = b;
                let _ = parse(p(), &bad);
            }
        }
    }
}
