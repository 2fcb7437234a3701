//! Matrix Market files (NIST, <https://math.nist.gov/MatrixMarket/formats.html>) holding a
//! row-stochastic matrix.
//!
//! Read: the banner `%%MatrixMarket matrix coordinate real general` (the words in any case;
//! `integer` or `double` in place of `real`; `symmetric` is expanded, each off-diagonal entry
//! standing for itself and its mirror), `%` comment lines and blank lines, the size line
//! `rows cols entries` (square), then one `i j value` per line, 1-based, exactly `entries` of
//! them. Explicit zeros in a coordinate file are kept as stored entries. The dense `array`
//! format (size line `rows cols`, then the values column by column, one per line) is read too;
//! its zeros are not stored. `pattern` (no values), `complex`, `hermitian` and `skew-symmetric`
//! matrices are refused: none of them is a transition matrix. The initial state is state 0.
//!
//! Written: `coordinate real general`, 1-based, values in their shortest exact form.

use super::json::{annotate, first_missing, write_error};
use super::text_out::{Form, number};
use super::tra::Tokens;
use super::{
    Entry, Model, ReadOptions, build_matrix_written, exact_number, parse_error, parse_number, with_written,
};
use crate::model::Dtmc;
use crate::{Error, Result, StateId, excerpt};
use std::io::Write;
use std::path::Path;

/// The whitespace-separated tokens of `line` with their columns (from 1, in characters).
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let tokens = Tokens::of(line);
    (0..tokens.len()).map(|i| (tokens.column(i), tokens[i])).collect()
}

/// Reads a model from `text`, the contents of `path`; returns it with notes for the user.
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let at = |line: usize, column: usize, message: String| parse_error(path, line, column, message);
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)));
    let last_line = text.split('\n').count().max(1);

    let (_, banner) = lines.next().unwrap_or((1, ""));
    let words: Vec<String> = banner.split_whitespace().map(str::to_ascii_lowercase).collect();
    let expected = "the first line must be the banner %%MatrixMarket matrix coordinate real general";
    if words.first().map(String::as_str) != Some("%%matrixmarket") {
        return Err(at(1, 1, format!("{expected}; found \"{}\"", excerpt(banner))));
    }
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let refuse = |i: usize, why: &str| {
        let column = tokens(banner).get(i).map_or(banner.chars().count() + 1, |t| t.0);
        Err(at(
            1,
            column,
            format!("{why} (found \"{}\"); {expected}", excerpt(word(i))),
        ))
    };
    if word(1) != "matrix" {
        return refuse(1, "only matrices can be read");
    }
    let dense = match word(2) {
        "coordinate" => false,
        "array" => true,
        _ => return refuse(2, "the format must be coordinate or array"),
    };
    match word(3) {
        "real" | "double" | "integer" => {}
        "pattern" => {
            return refuse(
                3,
                "a pattern matrix has no values, so it is not a transition matrix",
            );
        }
        _ => return refuse(3, "the values must be real or integer"),
    }
    let symmetric = match word(4) {
        "general" => false,
        "symmetric" => true,
        _ => return refuse(4, "the matrix must be general or symmetric"),
    };
    if words.len() > 5 {
        return refuse(5, "the banner has too many words");
    }

    // Data lines: not comments, not blank.
    let mut data = lines.filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('%'));
    let Some((size_no, size_line)) = data.next() else {
        return Err(at(
            last_line,
            1,
            "the size line (rows columns entries) is missing".into(),
        ));
    };
    let size = tokens(size_line);
    let want = if dense { 2 } else { 3 };
    let shape = if dense {
        "rows columns"
    } else {
        "rows columns entries"
    };
    if size.len() != want {
        return Err(at(
            size_no,
            1,
            format!("the size line must be `{shape}`; found {} numbers", size.len()),
        ));
    }
    let mut dims = [0u64; 3];
    for (k, &(column, t)) in size.iter().enumerate() {
        dims[k] = t.parse().map_err(|_| {
            at(
                size_no,
                column,
                format!("\"{}\" is not a whole number (size line `{shape}`)", excerpt(t)),
            )
        })?;
    }
    let (rows, cols, nnz) = (dims[0], dims[1], dims[2]);
    if rows != cols || rows == 0 {
        return Err(at(
            size_no,
            1,
            format!("a transition matrix is square with at least one row; this one is {rows} x {cols}"),
        ));
    }
    if rows > u64::from(StateId::MAX) {
        return Err(at(size_no, 1, format!("{rows} states is too many")));
    }
    let n = rows as usize;
    let count = if dense { rows * rows } else { nnz };

    let mut entries = Vec::with_capacity(count.min(1 << 16) as usize);
    let mut written = options.exact.then(Vec::new);
    let mut found = 0u64;
    for (line_no, line) in data {
        let toks = tokens(line);
        let per_line = if dense { 1 } else { 3 };
        if toks.len() != per_line {
            return Err(at(
                line_no,
                toks.get(per_line).map_or(1, |t| t.0),
                format!(
                    "expected {}; found {} values",
                    if dense { "one value" } else { "`row column value`" },
                    toks.len()
                ),
            ));
        }
        if found == count {
            let message = format!("more entries than the {count} the size line gives");
            return Err(at(line_no, 1, message));
        }
        let (column, value_text) = toks[per_line - 1];
        let value = parse_number(value_text).ok_or_else(|| {
            at(
                line_no,
                column,
                format!("\"{}\" is not a number", excerpt(value_text)),
            )
        })?;
        let (i, j) = if dense {
            // Column-major: the k-th value is row k mod n, column k div n.
            (found % rows, found / rows)
        } else {
            let mut ij = [0u64; 2];
            for (k, &(column, t)) in toks[..2].iter().enumerate() {
                ij[k] = match t.parse::<u64>() {
                    Ok(v) if (1..=rows).contains(&v) => v - 1,
                    _ => {
                        return Err(at(
                            line_no,
                            column,
                            format!(
                                "{} index \"{}\" is not a whole number from 1 to {rows}",
                                if k == 0 { "row" } else { "column" },
                                excerpt(t)
                            ),
                        ));
                    }
                };
            }
            (ij[0], ij[1])
        };
        found += 1;
        if dense && value == 0.0 {
            continue;
        }
        let exact = (options.exact)
            .then(|| exact_number(path, line_no, column, value_text))
            .transpose()?;
        let entry = |state: u64, target: u64| Entry {
            state: state as StateId,
            choice: 0,
            target: target as StateId,
            value,
            line: line_no,
            column: if dense { column } else { toks[0].0 },
        };
        entries.push(entry(i, j));
        if symmetric && i != j {
            entries.push(entry(j, i));
        }
        if let (Some(all), Some(exact)) = (&mut written, exact) {
            if symmetric && i != j {
                all.push(exact.clone());
            }
            all.push(exact);
        }
    }
    if found < count {
        return Err(at(
            last_line,
            1,
            format!("the size line (line {size_no}) gives {count} entries but the file has {found}"),
        ));
    }
    if let Some(s) = first_missing(n, entries.iter().map(|e| e.state)) {
        let message = format!(
            "row {} has no entries: every state needs a distribution over next states",
            s + 1
        );
        return Err(at(last_line, 1, message));
    }
    let places = entries.clone();
    let context = |at| {
        let e = places.iter().find(|e| (e.line, e.column) == at)?;
        let (i, j) = (u64::from(e.state) + 1, u64::from(e.target) + 1);
        Some(format!("row {i}, column {j}, counted from 1"))
    };
    let (matrix, written, notes) =
        build_matrix_written(path, n, entries, written, options.normalize, |_| last_line)
            .map_err(|e| annotate(e, context))?;
    Ok((
        Model::Dtmc(with_written(Dtmc::new(matrix, vec![0])?, written)?),
        notes,
    ))
}

/// Writes `model`.
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let Model::Dtmc(d) = model else {
        return Err(Error::arg(
            "format",
            "an MDP cannot be written as Matrix Market (one matrix row per state); use json, drn or prism",
        ));
    };
    let (m, n) = (d.matrix(), d.n());
    let mut out = format!(
        "%%MatrixMarket matrix coordinate real general\n% transition matrix of a Markov chain with {n} states (row = from, column = to)\n{n} {n} {}\n",
        m.nnz()
    );
    for s in 0..n {
        let (cols, vals) = m.row(s);
        for (&c, &p) in cols.iter().zip(vals) {
            out.push_str(&format!("{} {} {}\n", s + 1, c + 1, number(p, Form::Json)));
        }
    }
    w.write_all(out.as_bytes()).map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<Dtmc> {
        match read(Path::new("p.mtx"), text, &ReadOptions::default())?.0 {
            Model::Dtmc(d) => Ok(d),
            Model::Mdp(_) => panic!("Matrix Market gives chains"),
        }
    }

    fn err(text: &str) -> String {
        read_str(text).unwrap_err().to_string()
    }

    const OZ: &str = "%%MatrixMarket matrix coordinate real general\n% Land of Oz\n3 3 8\n1 1 0.5\n1 2 0.25\n1 3 0.25\n2 1 0.5\n2 3 0.5\n3 1 0.25\n3 2 0.25\n3 3 0.5\n";

    #[test]
    fn coordinate_array_and_symmetric() {
        let oz = read_str(OZ).unwrap();
        assert_eq!(oz.matrix().row(1), (&[0, 2][..], &[0.5, 0.5][..]));
        let array = read_str(
            "%%MatrixMarket matrix array real general\r\n3 3\r\n0.5\r\n0.5\r\n0.25\r\n0.25\r\n0\r\n0.25\r\n0.25\r\n0.5\r\n0.5\r\n",
        )
        .unwrap();
        assert_eq!(array.matrix(), oz.matrix());
        let sym =
            read_str("%%MatrixMarket MATRIX coordinate real symmetric\n2 2 3\n2 1 0.5\n1 1 0.5\n2 2 0.5\n")
                .unwrap();
        assert_eq!(sym.matrix().row(1), (&[0, 1][..], &[0.5, 0.5][..]));
    }

    #[test]
    fn round_trip() {
        let d = read_str("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1/3\n1 2 2/3\n2 2 1\n")
            .unwrap();
        let mut buf = Vec::new();
        write(&Model::Dtmc(d.clone()), &mut buf).unwrap();
        let again = read_str(std::str::from_utf8(&buf).unwrap()).unwrap();
        assert_eq!(again.matrix(), d.matrix());
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = err("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n");
        assert!(e.starts_with("p.mtx:1:34:") && e.contains("pattern"), "{e}");
        let e = err("3 3 7\n1 1 1\n");
        assert!(e.starts_with("p.mtx:1:1:") && e.contains("banner"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n");
        assert!(
            e.starts_with("p.mtx:5:1:") && e.contains("gives 3 entries but the file has 2"),
            "{e}"
        );
        let e = err("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n1 1 1\n");
        assert!(e.starts_with("p.mtx:4:1:") && e.contains("more entries"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n");
        assert!(e.starts_with("p.mtx:2:1:") && e.contains("2 x 3"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 3 1\n");
        assert!(e.starts_with("p.mtx:4:3:") && e.contains("column index"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 0.5\n2 1 0.4\n");
        assert!(e.starts_with("p.mtx:5:1:") && e.contains("sum to 0.9"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 0.5\n1 1 0.5\n");
        assert!(e.starts_with("p.mtx:4:1:") && e.contains("twice"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 x\n");
        assert!(e.starts_with("p.mtx:3:5:") && e.contains("not a number"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n% only comments\n");
        assert!(e.contains("size line"), "{e}");
        let e = err("%%MatrixMarket matrix coordinate real general\n99999999999 99999999999 0\n");
        assert!(e.contains("too many"), "{e}");
    }
}
