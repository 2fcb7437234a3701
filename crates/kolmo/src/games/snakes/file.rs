//! Board files in TOML.
//!
//! ```toml
//! name = "my board"        # optional
//! size = 100               # last cell; cells are 0..=size (default 100)
//! start = 0                # default 0
//! faces = 6                # a fair die (default 6) ...
//! # die = [1, 1, 1, 1, 1, 2]  # ... or face weights (not both)
//! rule = "clamp"           # clamp | stay | bounce (default clamp)
//! ladders = [[1, 38], [4, 14]]
//! snakes = [[16, 6]]
//! portals = []             # either direction
//! ```

use super::{BoardSpec, Die, PortalKind, Rule};
use crate::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Largest board file read (64 MiB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Most `[...]` arrays a board file may hold (its ladders, snakes and portals, and the die's
/// weights): the TOML reader keeps about 700 bytes per jump while the file is read (a file of 10⁶
/// ladders took 0.69 GB), so this caps reading at some 1.4 GB whatever the file's size.
pub const MAX_FILE_ARRAYS: usize = 2_000_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    name: Option<String>,
    size: Option<Spanned<i64>>,
    start: Option<Spanned<i64>>,
    faces: Option<Spanned<i64>>,
    die: Option<Spanned<Vec<f64>>>,
    rule: Option<Spanned<String>>,
    #[serde(default)]
    ladders: Vec<Spanned<Vec<i64>>>,
    #[serde(default)]
    snakes: Vec<Spanned<Vec<i64>>>,
    #[serde(default)]
    portals: Vec<Spanned<Vec<i64>>>,
}

/// Line and column (from 1) of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl BoardSpec {
    /// Parses a board file's text; `path` names the file in errors (`"<input>"` when `None`).
    ///
    /// # Errors
    /// [`Error::Parse`] with line and column for TOML syntax errors, unknown keys, wrong types, an
    /// unknown rule, both `faces` and `die`, a count that does not fit, or more than
    /// 2,000,000 arrays (`MAX_FILE_ARRAYS`) (refused before the file is parsed).
    pub fn from_toml(text: &str, path: Option<&Path>) -> Result<Self> {
        let shown: PathBuf = path.map_or_else(|| PathBuf::from("<input>"), Path::to_path_buf);
        let at = |offset: usize, message: String| {
            let (line, column) = line_col(text, offset);
            Error::Parse {
                path: shown.clone(),
                line,
                column,
                message,
            }
        };
        if let Some((offset, _)) = text.match_indices('[').nth(MAX_FILE_ARRAYS) {
            let message = format!(
                "more than {MAX_FILE_ARRAYS} arrays `[..]` (ladders, snakes, portals): a board file lists at most \
                 that many jumps"
            );
            return Err(at(offset, message));
        }
        let file: BoardFile = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            at(offset, e.message().trim().to_string())
        })?;
        let mut spec = BoardSpec::empty(100);
        spec.name = file.name.unwrap_or_else(|| {
            path.and_then(|p| p.file_stem())
                .map_or_else(|| "board".into(), |s| s.to_string_lossy().into_owned())
        });
        spec.path = path.map(Path::to_path_buf);
        let line_of = |span: std::ops::Range<usize>| line_col(text, span.start).0;
        if let Some(s) = file.size {
            spec.size = *s.get_ref();
            spec.key_lines.insert("size", line_of(s.span()));
        }
        if let Some(s) = file.start {
            spec.start = *s.get_ref();
            spec.key_lines.insert("start", line_of(s.span()));
        }
        match (file.faces, file.die) {
            (Some(_), Some(d)) => {
                return Err(at(
                    d.span().start,
                    "give either `faces` or `die`, not both".into(),
                ));
            }
            (Some(f), None) => {
                let v = *f.get_ref();
                if !(1..=1_000_000).contains(&v) {
                    return Err(at(
                        f.span().start,
                        format!("faces = {v}: a die has 1 to 1000000 faces"),
                    ));
                }
                spec.die = Die::Fair(v as usize);
                spec.key_lines.insert("die", line_of(f.span()));
            }
            (None, Some(d)) => {
                spec.key_lines.insert("die", line_of(d.span()));
                spec.die = Die::Weighted(d.into_inner());
            }
            (None, None) => {}
        }
        if let Some(r) = file.rule {
            spec.rule = r.get_ref().parse::<Rule>().map_err(|m| at(r.span().start, m))?;
            spec.key_lines.insert("rule", line_of(r.span()));
        }
        for (kind, list) in [
            (PortalKind::Ladder, file.ladders),
            (PortalKind::Snake, file.snakes),
            (PortalKind::Portal, file.portals),
        ] {
            for p in list {
                let line = line_col(text, p.span().start).0;
                let &[a, b] = p.get_ref().as_slice() else {
                    return Err(at(
                        p.span().start,
                        format!(
                            "a {} is a pair [from, to]; got {} numbers",
                            kind.name(),
                            p.get_ref().len()
                        ),
                    ));
                };
                spec.portals.push((kind, a, b, Some(line)));
            }
        }
        // Report errors in file order.
        spec.portals.sort_by_key(|p| p.3);
        Ok(spec)
    }

    /// Reads and parses a board file.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read or is larger than [`MAX_FILE_BYTES`]; as
    /// [`from_toml`](Self::from_toml).
    pub fn from_file(path: &Path) -> Result<Self> {
        use std::io::Read;
        let io = |error| Error::Io {
            path: path.to_path_buf(),
            error,
        };
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(io(std::io::Error::other(format!(
                "larger than {} MiB, too large for a board file",
                MAX_FILE_BYTES >> 20
            ))));
        }
        Self::from_toml(&text, Some(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::snakes::Board;
    use crate::games::{BoardError, InputError};

    #[test]
    fn parses_a_board() {
        let text = "size = 30\nstart = 1\ndie = [1, 1, 2]\nrule = \"bounce\"\nladders = [[3, 22], [5, 8]]\nsnakes = [\n  [27, 1],\n]\n";
        let s = BoardSpec::from_toml(text, None).unwrap();
        assert_eq!(s.size, 30);
        assert_eq!(s.start, 1);
        assert_eq!(s.die, Die::Weighted(vec![1.0, 1.0, 2.0]));
        assert_eq!(s.rule, Rule::Bounce);
        assert_eq!(s.portals[2], (PortalKind::Snake, 27, 1, Some(7)));
        let b = Board::new(&s).unwrap();
        assert_eq!(b.face_probabilities(), &[0.25, 0.25, 0.5]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let p = Path::new("b.toml");
        let e = BoardSpec::from_toml("size = 10\nrule = \"wrap\"\n", Some(p)).unwrap_err();
        assert!(
            e.to_string().starts_with("b.toml:2:8: unknown rule 'wrap'"),
            "{e}"
        );
        let e = BoardSpec::from_toml("size = 10\nladders = [[1, 2, 3]]\n", Some(p)).unwrap_err();
        assert!(matches!(e, Error::Parse { line: 2, .. }), "{e}");
        // Issue 15 §4: a file listing more jumps than a board file may is refused before TOML
        // parses it (7 million ladders took 3.8 GB), at the first array over the limit.
        let many = format!(
            "size = 10\nladders = [\n{}]\n",
            "[1, 2],\n".repeat(MAX_FILE_ARRAYS)
        );
        let e = BoardSpec::from_toml(&many, Some(p)).unwrap_err();
        let line = MAX_FILE_ARRAYS + 2;
        assert!(
            e.to_string()
                .starts_with(&format!("b.toml:{line}:1: more than {MAX_FILE_ARRAYS} arrays")),
            "{e}"
        );
        let e = BoardSpec::from_toml("sise = 10\n", Some(p)).unwrap_err();
        assert!(e.to_string().contains("sise"), "{e}");
        let e = BoardSpec::from_toml("faces = 6\ndie = [1]\n", Some(p)).unwrap_err();
        assert!(matches!(e, Error::Parse { line: 2, .. }), "{e}");
        let e = BoardSpec::from_toml("size = [\n", Some(p)).unwrap_err();
        assert!(matches!(e, Error::Parse { .. }), "{e}");
        // Board errors carry the portal's line.
        let spec = BoardSpec::from_toml(
            "size = 10\nladders = [[1, 5]]\nsnakes = [\n [9, 2],\n [1, 0],\n]\n",
            Some(p),
        )
        .unwrap();
        let e = Board::new(&spec).unwrap_err();
        assert!(
            matches!(
                InputError::of(&e),
                Some(InputError::Board {
                    line: Some(5),
                    error: BoardError::Duplicate {
                        from: 1,
                        first_line: Some(2),
                        ..
                    },
                    ..
                })
            ),
            "{e}"
        );
        assert!(
            e.to_string().starts_with("b.toml:5: two portals start on cell 1"),
            "{e}"
        );
    }
}
