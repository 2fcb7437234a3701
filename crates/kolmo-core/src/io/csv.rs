//! Dense row-stochastic matrices as comma-separated values.
//!
//! One matrix row per line; row `i` is the distribution of the next state from state `i`, so the
//! matrix must be square. Fields are separated by commas, or by semicolons or tabs when the first
//! line of the matrix (or the header) uses one of those and no comma (the whole file must then use
//! it). Decimal commas are not understood. Values are decimals or fractions (`1/3`); zero entries
//! are not stored. Blank lines and lines starting with `#` are skipped.
//!
//! An optional header line names the states: it is recognised by a field that is not a number
//! (names that look like numbers must be quoted, `"1"`). It has one field per state, or one more
//! with an empty first field: then every row starts with its state's name, which must be the
//! header's name for that row (the layout R's `write.csv` and pandas' `to_csv` produce). Fields may
//! be double-quoted (`"a, b"`, with `""` for a quote). The initial state is state 0.

use super::json::{annotate, write_error};
use super::text_out::{Form, number};
use super::{
    Entry, Model, ReadOptions, build_matrix_written, exact_number, parse_error, parse_number, with_written,
};
use crate::model::Dtmc;
use crate::{Error, Result, StateId, excerpt};
use std::io::Write;
use std::path::Path;

/// One field: its text (unquoted), the column where it starts (from 1), and whether it was quoted.
#[derive(Debug)]
struct Field {
    text: String,
    column: usize,
    quoted: bool,
}

/// Splits `line` at `sep`, honouring double quotes.
fn fields(path: &Path, line_no: usize, line: &str, sep: char) -> Result<Vec<Field>> {
    // Columns count characters: character `i` is in column `i + 1`.
    let c: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        // Blanks before a field (and its quote) are skipped.
        while c.get(i) == Some(&' ') {
            i += 1;
        }
        let (column, quoted) = (i + 1, c.get(i) == Some(&'"'));
        let mut text = String::new();
        if quoted {
            i += 1;
            loop {
                match (c.get(i), c.get(i + 1)) {
                    (None, _) => {
                        let message = "the quoted field has no closing '\"' on this line";
                        return Err(parse_error(path, line_no, column, message));
                    }
                    (Some('"'), Some('"')) => {
                        text.push('"');
                        i += 1;
                    }
                    (Some('"'), _) => break,
                    (Some(&ch), _) => text.push(ch),
                }
                i += 1;
            }
            i += 1;
            while let Some(&ch) = c.get(i).filter(|&&ch| ch != sep) {
                if !ch.is_whitespace() {
                    let message = format!("unexpected '{}' after the quoted field", ch.escape_debug());
                    return Err(parse_error(path, line_no, i + 1, message));
                }
                i += 1;
            }
        } else {
            let end = c[i..].iter().position(|&ch| ch == sep).map_or(c.len(), |k| i + k);
            text = c[i..end].iter().collect::<String>().trim().to_string();
            i = end;
        }
        out.push(Field { text, column, quoted });
        if i >= c.len() {
            return Ok(out);
        }
        i += 1;
    }
}

/// Reads a model from `text`, the contents of `path`; returns it with notes for the user.
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let at = |line: usize, column: usize, message: String| parse_error(path, line, column, message);
    // (line number, line) of every line holding data.
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let last_line = text.split('\n').count().max(1);
    let Some(&(first_no, first)) = lines.first() else {
        return Err(at(
            last_line,
            1,
            "the file has no matrix rows (only blank lines and comments)".into(),
        ));
    };
    let sep = [',', ';', '\t']
        .into_iter()
        .find(|&c| first.contains(c))
        .unwrap_or(',');
    // A square matrix of n columns needs n lines: a long first line with more fields than the
    // file has lines is refused before its fields are split (a one-line file of 25 million
    // columns took 3.5 GB to say so; short ones get the error below, at the missing row). Quotes
    // may hide separators, so only lines without them are counted.
    const WIDE: usize = 4096;
    let separators = first.matches(sep).count();
    if !first.contains('"') && separators >= lines.len().max(WIDE) {
        let message = format!(
            "the matrix must be square: this line has {} fields but the file has only {} lines of data",
            separators + 1,
            lines.len()
        );
        return Err(at(first_no, 1, message));
    }
    let head = fields(path, first_no, first, sep)?;
    // `nan` and `inf` are bad numbers, not state names (quote them to name states so).
    let name =
        |f: &Field| f.quoted || (parse_number(&f.text).is_none() && f.text.trim().parse::<f64>().is_err());
    let is_header = head.iter().any(name);
    let (names, row_names, rows) = if is_header {
        let row_names = head.len() >= 2 && head[0].text.is_empty();
        let head = &head[usize::from(row_names)..];
        let mut seen = std::collections::HashSet::new();
        if let Some(f) = head.iter().find(|f| !seen.insert(f.text.as_str())) {
            let message = format!(
                "the state name \"{}\" appears twice in the header",
                excerpt(&f.text)
            );
            return Err(at(first_no, f.column, message));
        }
        (
            Some(head.iter().map(|f| f.text.clone()).collect()),
            row_names,
            &lines[1..],
        )
    } else {
        (None, false, &lines[..])
    };
    let n = names.as_ref().map_or(head.len(), Vec::len);
    if n > StateId::MAX as usize {
        return Err(at(first_no, 1, "too many columns".into()));
    }
    let width = n + usize::from(row_names);
    let mut entries = Vec::new();
    let mut written = options.exact.then(Vec::new);
    let mut underflow = false;
    let mut row_lines = Vec::with_capacity(rows.len().min(n));
    for (i, &(line_no, line)) in rows.iter().enumerate() {
        if i == n {
            return Err(at(
                line_no,
                1,
                format!("the matrix must be square: {n} columns, so no more than {n} rows"),
            ));
        }
        let row = fields(path, line_no, line, sep)?;
        if row.len() != width {
            let column = row.get(width).map_or(line.chars().count() + 1, |f| f.column);
            return Err(at(
                line_no,
                column,
                format!(
                    "this row has {} fields; every row needs {width} ({n} probabilities{}), like {}",
                    row.len(),
                    if row_names { " after the state's name" } else { "" },
                    if is_header { "the header" } else { "the first row" }
                ),
            ));
        }
        if row_names {
            let expected = &names.as_ref().expect("row names come with a header")[i];
            if row[0].text != *expected {
                let (name, expected) = (excerpt(&row[0].text), excerpt(expected));
                let message = format!(
                    "row {} is named \"{name}\" but the header's state {} is \"{expected}\"",
                    i + 1,
                    i + 1
                );
                return Err(at(line_no, row[0].column, message));
            }
        }
        for (j, f) in row[usize::from(row_names)..].iter().enumerate() {
            let Some(value) = parse_number(&f.text) else {
                return Err(at(
                    line_no,
                    f.column,
                    if f.text.is_empty() {
                        "empty field: write 0 for no transition".to_string()
                    } else {
                        format!(
                            "\"{}\" is not a number (a decimal like 0.25 or a fraction like 1/3)",
                            excerpt(&f.text)
                        )
                    },
                ));
            };
            if value == 0.0
                && written.is_some()
                && crate::exact::parse_exact(&f.text).is_none_or(|x| x != crate::exact::Rational::ZERO)
            {
                underflow = true;
            }
            if value != 0.0 {
                if let Some(exact) = &mut written {
                    exact.push(exact_number(path, line_no, f.column, &f.text)?);
                }
                entries.push(Entry {
                    state: i as StateId,
                    choice: 0,
                    target: j as StateId,
                    value,
                    line: line_no,
                    column: f.column,
                });
            }
        }
        row_lines.push(line_no);
    }
    if row_lines.len() < n {
        let message = format!(
            "the matrix must be square: {n} columns but {} rows",
            row_lines.len()
        );
        return Err(at(last_line, 1, message));
    }
    let show = |s: StateId| match &names {
        Some(names) => format!("{} \"{}\"", s + 1, excerpt(&names[s as usize])),
        None => (s + 1).to_string(),
    };
    let places = entries.clone();
    let context = |at| {
        let e = places.iter().find(|e| (e.line, e.column) == at)?;
        Some(format!("row {}, column {}", show(e.state), show(e.target)))
    };
    if underflow {
        written = None;
    }
    let (matrix, written, mut notes) =
        build_matrix_written(path, n, entries, written, options.normalize, |s| {
            row_lines[s as usize]
        })
        .map_err(|e| annotate(e, context))?;
    let mut dtmc = with_written(Dtmc::new(matrix, vec![0])?, written)?;
    if underflow {
        notes.push(super::rows::UNDERFLOW_NOTE.to_string());
    }
    if let Some(names) = names {
        // Guessed from the first line's fields: say so, in case a typo made a row look like names.
        notes.insert(0, format!("read the first line as a header of {n} state names"));
        dtmc = dtmc.with_names(names);
    }
    Ok((Model::Dtmc(dtmc), notes))
}

/// A state name as a header field: quoted when it would otherwise read differently.
fn name_field(name: &str) -> String {
    let plain = !name.is_empty()
        && parse_number(name).is_none()
        && name.trim() == name
        && !name.starts_with('#')
        && !name.contains([',', ';', '\t', '"']);
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// Writes `model`.
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let Model::Dtmc(d) = model else {
        return Err(Error::arg(
            "format",
            "an MDP cannot be written as CSV (a dense matrix has one row per state); use json, drn or prism",
        ));
    };
    let n = d.n();
    let mut out = String::new();
    if let Some(names) = d.names() {
        if let Some(bad) = names.iter().find(|s| s.is_empty() || s.contains(['\n', '\r'])) {
            return Err(Error::arg(
                "model",
                format!(
                    "the state name \"{}\" cannot be a CSV header field (empty or with a line break)",
                    excerpt(bad)
                ),
            ));
        }
        let header: Vec<String> = names.iter().map(|s| name_field(s)).collect();
        out.push_str(&header.join(","));
        out.push('\n');
    }
    let mut row = vec![String::from("0"); n];
    for s in 0..n {
        let (cols, vals) = d.matrix().row(s);
        for (&c, &p) in cols.iter().zip(vals) {
            row[c as usize] = number(p, Form::Json);
        }
        out.push_str(&row.join(","));
        out.push('\n');
        for &c in cols {
            row[c as usize] = String::from("0");
        }
    }
    w.write_all(out.as_bytes()).map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<Dtmc> {
        match read(Path::new("p.csv"), text, &ReadOptions::default())?.0 {
            Model::Dtmc(d) => Ok(d),
            Model::Mdp(_) => panic!("CSV gives chains"),
        }
    }

    fn err(text: &str) -> String {
        read_str(text).unwrap_err().to_string()
    }

    #[test]
    fn plain_headed_and_row_named() {
        let plain = read_str("# Land of Oz\n0.5,0.25,0.25\n\n1/2, 0, 1/2\r\n0.25,0.25,0.5\n").unwrap();
        assert_eq!(plain.matrix().row(1), (&[0, 2][..], &[0.5, 0.5][..]));
        assert!(plain.names().is_none());
        let headed = read_str("R;N;S\n0.5;0.25;0.25\n0.5;0;0.5\n0.25;0.25;0.5").unwrap();
        assert_eq!(headed.matrix(), plain.matrix());
        assert_eq!(headed.names().unwrap(), &["R", "N", "S"]);
        let named =
            read_str("\"\",\"R\",\"N\",\"S\"\nR,0.5,0.25,0.25\n\"N\",0.5,0,0.5\nS,0.25,0.25,0.5").unwrap();
        assert_eq!(named.matrix(), plain.matrix());
        assert_eq!(named.names(), headed.names());
        let tabs = read_str("\u{feff}0\t1\n1\t0\n").unwrap();
        assert_eq!(tabs.matrix().row(0), (&[1][..], &[1.0][..]));
        let numeric_names = read_str("\"1\",\"2\"\n0,1\n1,0").unwrap();
        assert_eq!(numeric_names.names().unwrap(), &["1", "2"]);
    }

    #[test]
    fn round_trip() {
        let d = read_str("\"a,b\",\"1\",c\n1/3,2/3,0\n0,1,0\n0.1,0.2,0.7\n").unwrap();
        let mut buf = Vec::new();
        write(&Model::Dtmc(d.clone()), &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let again = read_str(&text).unwrap();
        assert_eq!(again.matrix(), d.matrix());
        assert_eq!(again.names(), d.names());
        assert!(text.starts_with("\"a,b\",\"1\",c\n"), "{text}");
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = err("0.5,0.5\n0.5,0.5,0\n");
        assert!(e.starts_with("p.csv:2:9:") && e.contains("3 fields"), "{e}");
        let e = err("0.5,0.5\n0.5,x\n");
        assert!(
            e.starts_with("p.csv:2:5:") && e.contains("\"x\" is not a number"),
            "{e}"
        );
        let e = err("0.5,0.5\n0.5,0.4\n");
        assert!(e.starts_with("p.csv:2:1:") && e.contains("sum to 0.9"), "{e}");
        let e = err("1.5,-0.5\n0.5,0.5\n");
        assert!(e.starts_with("p.csv:1:5:") && e.contains("-0.5"), "{e}");
        let e = err("0.5,0.5\n0.5,0.5\n1,0\n");
        assert!(e.starts_with("p.csv:3:1:") && e.contains("square"), "{e}");
        let e = err("0.5,0.5\n");
        assert!(e.starts_with("p.csv:2:1:") && e.contains("square"), "{e}");
        // More fields on the first line than lines in the file: refused before splitting them.
        let e = err(&format!("{}\n0,1\n", vec!["0"; 5000].join(",")));
        assert!(
            e.starts_with("p.csv:1:1:") && e.contains("has 5000 fields but the file has only 2 lines"),
            "{e}"
        );
        let e = err("a,b\n0,1\n0,0\n");
        assert!(
            e.starts_with("p.csv:3:1:") && e.contains("state 1 has no outgoing"),
            "{e}"
        );
        let e = err(",a,b\na,0,1\nc,0,1\n");
        assert!(e.starts_with("p.csv:3:1:") && e.contains("\"c\""), "{e}");
        let e = err("a,a\n0,1\n0,1\n");
        assert!(e.starts_with("p.csv:1:3:") && e.contains("twice"), "{e}");
        let e = err("# nothing\n\n");
        assert!(e.contains("no matrix rows"), "{e}");
        let e = err("0,1\n1,\n");
        assert!(e.starts_with("p.csv:2:3:") && e.contains("empty field"), "{e}");
        let e = err("0,1\nNaN,1\n");
        assert!(e.contains("not a number"), "{e}");
        // On the first line too: not a header (issue 15 §5), a bad number at its place.
        for first in ["nan,1\n0,1\n", "0.5,inf\n0,1\n", "1,-Infinity\n0,1\n"] {
            let e = err(first);
            assert!(e.starts_with("p.csv:1:") && e.contains("not a number"), "{e}");
            assert!(!e.contains("square") && !e.contains("header"), "{e}");
        }
        // A quoted field names a state.
        assert!(read_str("\"nan\",b\n0,1\n0,1\n").is_ok());
    }

    #[test]
    fn mdp_is_refused() {
        let m = crate::model::Mdp::new(crate::sparse::from_rows(&[&[(0, 1.0)]]), vec![0]).unwrap();
        let e = write(&Model::Mdp(m), &mut Vec::new()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    }
}
