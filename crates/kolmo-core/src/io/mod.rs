//! Model files: reading and writing the field's explicit formats.
//!
//! | format | extension(s) | model kinds | holds |
//! |---|---|---|---|
//! | Storm DRN ([`Format::Drn`]) | `.drn` | DTMC, MDP, SMG | labels, state and action rewards, players |
//! | PRISM explicit ([`Format::Prism`]) | `.tra` (+ `.lab`, `.srew`, `.trew` beside it) | DTMC, MDP | labels, state and transition rewards |
//! | kolmo JSON ([`Format::Json`]) | `.json` | DTMC, MDP, SMG | state names, labels, rewards, initial states, players |
//! | dense CSV ([`Format::Csv`]) | `.csv` | DTMC | optional header of state names |
//! | Matrix Market ([`Format::MatrixMarket`]) | `.mtx` | DTMC | the matrix only |
//! | dense arrays ([`Format::Arrays`]) | `.json` with `"P"`/`"Q"`, or `.npy` pairs | MDP | MDPToolbox's P (A×S×S) or QuantEcon's Q (S×A×S), and R |
//!
//! Every reader reports bad input as [`Error::Parse`] with the file, line and column; rows that are
//! not distributions name the state, its line, and how far the sum is from 1. Duplicate
//! transitions (the same source, choice and target twice) are **refused**, naming both lines: a
//! repeated entry is far more often a mistake than an intended sum.
//! Probabilities may be written as decimals (`0.25`, `2.5e-1`) or fractions (`1/3`).
//!
//! **Big files.** DRN and PRISM `.tra` files are read a window (4 MiB) at a time, the next window
//! while the current one is parsed, each window cut into chunks parsed on all cores straight into
//! the model's CSR arrays; memory is the model (about 12 bytes per transition) plus two windows
//! and the chunks' buffers. A `.tra` file whose transitions are not grouped by source state in
//! increasing order (PRISM writes them so) is read a second time, whole, and sorted. Errors are
//! the same, at the same line and column, as reading the file front to back would give. kolmo
//! JSON files are read in one pass of serde_json straight into CSR (transitions written in row
//! order; others are collected and sorted), without a tree of the transitions; errors name their
//! line, column and JSON path. The writers make their text in parallel blocks of states too.

mod arrays;
mod as_written;
mod chunked;
mod csv;
mod drn;
mod drn_body;
mod json;
mod mtx;
mod npy;
mod prism;
mod rows;
mod text_out;
mod tra;

#[allow(unused_imports)] // used by the format readers
pub(crate) use rows::{Entry, build_matrix, build_matrix_written};

use crate::model::{Dtmc, Mdp, RewardModel, StateSet};
use crate::{Error, Result, StateId};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A model file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Storm's explicit DRN format (`.drn`).
    Drn,
    /// PRISM's explicit format: `.tra` with `.lab`, `.srew`, `.trew` files of the same stem.
    Prism,
    /// kolmo's JSON schema (`.json`).
    Json,
    /// A dense row-stochastic matrix as comma-separated values (`.csv`).
    Csv,
    /// A Matrix Market coordinate file (`.mtx`).
    MatrixMarket,
    /// An MDP as the dense arrays of MDPToolbox (`P`: A×S×S, `R`: S×A) or QuantEcon (`R`: S×A,
    /// `Q`: S×A×S): a JSON object of them (recognised by its `"P"` or `"Q"` key, whatever the
    /// format asked for), or a pair of `.npy` files (`P.npy` + `R.npy`, `NAME.P.npy` +
    /// `NAME.R.npy`, or a directory holding them). See `docs/arrays.md`.
    Arrays,
}

impl Format {
    /// The format a file name's extension implies, if any.
    #[must_use]
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "drn" => Self::Drn,
            "tra" => Self::Prism,
            "json" => Self::Json,
            "csv" => Self::Csv,
            "mtx" => Self::MatrixMarket,
            "npy" => Self::Arrays,
            _ => return None,
        })
    }

    /// The format's name as users type it (`drn`, `prism`, `json`, `csv`, `mtx`, `arrays`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Drn => "drn",
            Self::Prism => "prism",
            Self::Json => "json",
            Self::Csv => "csv",
            Self::MatrixMarket => "mtx",
            Self::Arrays => "arrays",
        }
    }
}

/// A model read from a file: a Markov chain or an MDP.
#[derive(Clone, Debug)]
pub enum Model {
    /// A discrete-time Markov chain.
    Dtmc(Dtmc),
    /// A Markov decision process.
    Mdp(Mdp),
}

/// How to read a model file.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// The format; `None` to infer it from the extension.
    pub format: Option<Format>,
    /// Rescale every row with a positive sum to sum to 1 instead of refusing rows that are off by
    /// more than [`ROW_SUM_TOLERANCE`](crate::model::ROW_SUM_TOLERANCE). Negative and non-finite
    /// probabilities are refused regardless.
    pub normalize: bool,
    /// Also keep every probability as written, exactly (a decimal or `p/q` as the rational it
    /// denotes; see [`Written`](crate::model::Written)), for exact analyses on the file's own
    /// numbers. Costs memory (a big rational per transition); `false` by default. Formats that
    /// hold binary floating point (`.npy`) keep nothing: their exact analyses recover fractions.
    pub exact: bool,
}

/// A model with what reading it involved.
#[derive(Clone, Debug)]
pub struct ModelFile {
    /// The model.
    pub model: Model,
    /// The format it was read in.
    pub format: Format,
    /// Every file read (a PRISM model's `.tra`, `.lab`, `.srew`, `.trew`).
    pub files: Vec<PathBuf>,
    /// Things the user should know (rows rescaled by `normalize`, companion files found), one per
    /// line, without a trailing period.
    pub notes: Vec<String>,
    /// The discount factor the file states, if its format has one (an array model's `"beta"` or
    /// `"discount"`).
    pub discount: Option<f64>,
    /// [`discount`](Self::discount) exactly as the file writes it (`0.9` is 9/10, `"10/11"` is
    /// 10/11), for exact analyses.
    pub discount_exact: Option<crate::exact::Rational>,
}

impl ModelFile {
    /// A model read from `files` with `notes`, in a format without a discount factor.
    pub(crate) fn of(model: Model, format: Format, files: Vec<PathBuf>, notes: Vec<String>) -> Self {
        Self {
            model,
            format,
            files,
            notes,
            discount: None,
            discount_exact: None,
        }
    }
}

/// Reads a model file.
///
/// # Errors
/// [`Error::Io`] if a file cannot be read; [`Error::Parse`] naming file, line and column for
/// malformed input, rows that are not distributions, unknown states, duplicate transitions,
/// a missing initial state or an empty file; [`Error::InvalidArgument`] if the format cannot be
/// inferred from the extension.
pub fn read_model(path: &Path, options: &ReadOptions) -> Result<ModelFile> {
    as_written::reading_exactly(options, || read_model_f64(path, options))
}

/// [`read_model`] without keeping the values as written (but for the readers that keep them
/// themselves).
fn read_model_f64(path: &Path, options: &ReadOptions) -> Result<ModelFile> {
    let inferred = Format::from_path(path).or_else(|| path.is_dir().then_some(Format::Arrays));
    let Some(format) = options.format.or(inferred) else {
        return Err(Error::arg(
            "model file",
            format!(
                "{}: cannot tell the format from the extension; use .drn, .tra, .json, .csv, .mtx or .npy, or name the format",
                path.display()
            ),
        ));
    };
    if format == Format::Prism {
        let (model, files, notes) = prism::read(path, options)?;
        return Ok(ModelFile::of(model, format, files, notes));
    }
    if format == Format::Arrays && arrays::is_npy(path) {
        return arrays::read_npy(path, options);
    }
    if format == Format::Drn {
        let (model, notes) = drn::read_file(path, options)?;
        return Ok(ModelFile::of(model, format, vec![path.to_path_buf()], notes));
    }
    read_text_model(path, &read_text(path)?, format, options)
}

/// The name errors give the input of [`read_model_from`] (`<input>:line:column`).
pub const INPUT_NAME: &str = "<input>";

/// Reads a model in `format` from any reader (a file, standard input, a network stream, bytes in
/// memory). Errors name the place as `<input>:line:column` ([`INPUT_NAME`]). DRN is read a window
/// at a time, in parallel chunks, as from a file; the other formats are read whole first. A
/// PRISM `.tra` model read this way has no `.lab`, `.srew` or `.trew` files beside it (state 0 is
/// then the initial state, as PRISM assumes); [`Format::Arrays`] means the JSON form (`.npy`
/// pairs are files).
///
/// # Errors
/// As [`read_model`]; [`Error::Io`] if the reader fails.
pub fn read_model_from(
    reader: impl std::io::Read + Send,
    format: Format,
    options: &ReadOptions,
) -> Result<ModelFile> {
    as_written::reading_exactly(options, || read_from_f64(reader, format, options))
}

/// [`read_model_from`] without keeping the values as written (as [`read_model_f64`]).
fn read_from_f64(
    mut reader: impl std::io::Read + Send,
    format: Format,
    options: &ReadOptions,
) -> Result<ModelFile> {
    let path = Path::new(INPUT_NAME);
    if format == Format::Drn {
        let (model, notes) = drn::read_from(path, reader, None, options, chunked::Tuning::FILES)?;
        return Ok(ModelFile::of(model, format, Vec::new(), notes));
    }
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(io_error(path))?;
    let text = text_of(path, bytes)?;
    if format == Format::Prism {
        let (model, notes) = prism::read_tra_text(path, &text, options)?;
        return Ok(ModelFile::of(model, format, Vec::new(), notes));
    }
    let mut file = read_text_model(path, &text, format, options)?;
    file.files.clear();
    Ok(file)
}

/// The model in the text `text` of `path`, in one of the formats read whole (JSON, arrays as
/// JSON, CSV, Matrix Market).
fn read_text_model(path: &Path, text: &str, format: Format, options: &ReadOptions) -> Result<ModelFile> {
    // kolmo's own JSON schema has neither "P" nor "Q": such a file is an array model.
    if format == Format::Arrays || (format == Format::Json && arrays::is_arrays_json(text)) {
        return arrays::read_json(path, text, options);
    }
    let (model, notes) = match format {
        Format::Json => json::read(path, text, options)?,
        Format::Csv => csv::read(path, text, options)?,
        Format::MatrixMarket => mtx::read(path, text, options)?,
        Format::Drn | Format::Prism | Format::Arrays => unreachable!("read by their own readers"),
    };
    Ok(ModelFile::of(model, format, vec![path.to_path_buf()], notes))
}

/// The whole text of `path`; an empty file (or one of only white space) is an error.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    text_of(path, std::fs::read(path).map_err(io_error(path))?)
}

/// The file `path`, opened, and its length.
pub(crate) fn open(path: &Path) -> Result<(std::fs::File, u64)> {
    let file = std::fs::File::open(path).map_err(io_error(path))?;
    let size = file.metadata().map_err(io_error(path))?.len();
    Ok((file, size))
}

/// [`Error::Io`] naming `path`, for `map_err`.
pub(crate) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + Copy + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// `bytes` read from `path` as text; invalid UTF-8 and an empty input (or one of only white
/// space) are errors.
fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String> {
    let text = String::from_utf8(bytes)
        .map_err(|e| chunked::utf8_error(path, 0, e.as_bytes(), e.utf8_error().valid_up_to()))?;
    if text.trim().is_empty() {
        return Err(parse_error(path, 1, 1, "the file is empty"));
    }
    Ok(text)
}

/// Writes `model` to `path` in `format`; returns every file written (PRISM writes `.tra` and, when
/// the model has them, `.lab`, `.srew`, `.trew` beside it).
///
/// # Errors
/// [`Error::Write`] if a file cannot be written; [`Error::InvalidArgument`] if the format cannot
/// hold the model (an MDP as CSV or Matrix Market; a game other than as DRN or JSON; several
/// reward models, none named `reward`, as arrays; arrays to a `.npy` path: they are written as
/// JSON).
pub fn write_model(model: &Model, path: &Path, format: Format) -> Result<Vec<PathBuf>> {
    // The writers report output errors as `Io` (without knowing the file): name the file here.
    let named = |e: Error| match e {
        Error::Io { path: p, error } => Error::Write {
            path: if p.starts_with("(") { path.to_path_buf() } else { p },
            error,
        },
        other => other,
    };
    if let Model::Mdp(m) = model
        && m.players().is_some()
        && !matches!(format, Format::Drn | Format::Json)
    {
        return Err(Error::arg(
            "format",
            format!(
                "{}: a game's owners have a place only in DRN (.drn) and kolmo JSON (.json); this format would turn it into an MDP",
                path.display()
            ),
        ));
    }
    if format == Format::Prism {
        return prism::write(model, path).map_err(named);
    }
    if format == Format::Arrays && arrays::is_npy(path) {
        return Err(Error::arg(
            "format",
            format!(
                "{}: array models are written as JSON (.json), not .npy",
                path.display()
            ),
        ));
    }
    let io_error = |error| Error::Write {
        path: path.to_path_buf(),
        error,
    };
    // Written beside the target and renamed once complete: a refusal or a failure leaves an
    // existing file as it was, and no half-written one.
    let mut partial = path.as_os_str().to_owned();
    partial.push(".kolmo-partial");
    let partial = PathBuf::from(partial);
    let file = std::fs::File::create(&partial).map_err(io_error)?;
    let mut w = std::io::BufWriter::new(file);
    let written = write_model_to(model, &mut w, format)
        .map_err(named)
        .and_then(|()| std::io::Write::flush(&mut w).map_err(io_error));
    drop(w);
    if let Err(e) = written.and_then(|()| std::fs::rename(&partial, path).map_err(io_error)) {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    Ok(vec![path.to_path_buf()])
}

/// Writes `model` in `format` to any writer (buffer it: the writers make many small writes). A
/// PRISM model is written as its `.tra` text alone (the labels and rewards need files of their
/// own: use [`write_model`]).
///
/// # Errors
/// [`Error::Io`] (naming [`INPUT_NAME`]'s counterpart `(output)`) if writing fails;
/// [`Error::InvalidArgument`] if the format cannot hold the model (as [`write_model`]).
pub fn write_model_to(model: &Model, mut w: impl std::io::Write, format: Format) -> Result<()> {
    let w: &mut dyn std::io::Write = &mut w;
    match format {
        Format::Drn => drn::write(model, w),
        Format::Json => json::write(model, w),
        Format::Csv => csv::write(model, w),
        Format::MatrixMarket => mtx::write(model, w),
        Format::Arrays => arrays::write(model, w),
        Format::Prism => prism::write_tra(model, w),
    }
}

/// Parses a probability or reward written as a decimal (`0.25`, `2.5e-1`, `1`) or a fraction
/// `p/q` of two decimals (`1/3`). Returns `None` if `token` is neither. The value may be negative
/// or out of range: callers check.
#[must_use]
pub(crate) fn parse_number(token: &str) -> Option<f64> {
    let t = token.trim();
    let value = match t.split_once('/') {
        Some((p, q)) => Some(parse_decimal(p)? / parse_decimal(q).filter(|&q| q != 0.0)?),
        None => parse_decimal(t),
    }?;
    as_written::record(token, value);
    Some(value)
}

fn parse_decimal(t: &str) -> Option<f64> {
    // Rust's parser also accepts "inf", "NaN" and "infinity": those are not numbers in a model file.
    if t.is_empty()
        || t.bytes()
            .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E')
    {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The exact value of a number token that [`parse_number`] accepted, for values as written
/// ([`ReadOptions::exact`]).
///
/// # Errors
/// [`Error::Parse`] at `line:column` if the token has no exact value kolmo keeps (an exponent
/// beyond ±[`MAX_DECIMAL_EXPONENT`](crate::exact::MAX_DECIMAL_EXPONENT)).
pub(crate) fn exact_number(
    path: &Path,
    line: usize,
    column: usize,
    token: &str,
) -> Result<crate::exact::Rational> {
    crate::exact::parse_exact(token).ok_or_else(|| {
        let (token, max) = (crate::excerpt(token.trim()), crate::exact::MAX_DECIMAL_EXPONENT);
        let message = format!("{token} cannot be kept exactly (exponents up to ±{max} are)");
        parse_error(path, line, column, message)
    })
}

/// `dtmc` with its probabilities as written attached, if the reader kept them (`probabilities`
/// aligned with the matrix's stored entries, as [`build_matrix_written`] returns them).
pub(crate) fn with_written(dtmc: Dtmc, probabilities: Option<Vec<crate::exact::Rational>>) -> Result<Dtmc> {
    match probabilities {
        Some(probabilities) => dtmc.with_written(crate::model::Written {
            probabilities,
            ..Default::default()
        }),
        None => Ok(dtmc),
    }
}

/// The model of `matrix` (an MDP when `is_mdp`, else a DTMC) with its initial states, labels,
/// state names, reward models and (MDP) action names: the one assembly of the DRN, PRISM and JSON
/// readers (a DTMC's action names are not kept).
///
/// # Errors
/// As [`Dtmc::new`] / [`Mdp::new`] and `set_reward_model`.
pub(crate) fn assemble(
    is_mdp: bool,
    matrix: crate::sparse::CsrMatrix,
    initial: Vec<crate::StateId>,
    labels: impl IntoIterator<Item = (String, crate::model::StateSet)>,
    names: Option<Vec<String>>,
    rewards: impl IntoIterator<Item = (String, crate::model::RewardModel)>,
    action_names: Option<Vec<String>>,
) -> Result<Model> {
    macro_rules! annotate {
        ($model:expr) => {{
            let mut model = $model;
            labels
                .into_iter()
                .for_each(|(label, set)| model.set_label(label, set));
            if let Some(names) = names {
                model = model.with_names(names);
            }
            for (name, r) in rewards {
                model.set_reward_model(name, r)?;
            }
            model
        }};
    }
    Ok(if is_mdp {
        let mdp = annotate!(Mdp::new(matrix, initial)?);
        Model::Mdp(match action_names {
            Some(names) => mdp.with_action_names(names),
            None => mdp,
        })
    } else {
        Model::Dtmc(annotate!(Dtmc::new(matrix, initial)?))
    })
}

/// The parts of a model, for either kind (what the writers need).
pub(crate) struct View<'a> {
    pub matrix: &'a crate::sparse::CsrMatrix,
    pub initial: &'a [StateId],
    pub labels: &'a BTreeMap<String, StateSet>,
    pub names: Option<&'a [String]>,
    pub action_names: Option<&'a [String]>,
    pub rewards: &'a BTreeMap<String, RewardModel>,
    pub is_mdp: bool,
    pub written: Option<&'a crate::model::Written>,
    /// A game's players.
    pub players: Option<&'a crate::model::Players>,
}

impl<'a> View<'a> {
    /// The view of `model`.
    pub fn of(model: &'a Model) -> Self {
        macro_rules! view {
            ($m:expr, $action_names:expr, $is_mdp:expr, $players:expr) => {
                Self {
                    matrix: $m.matrix(),
                    initial: $m.initial(),
                    labels: $m.labels(),
                    names: $m.names(),
                    action_names: $action_names,
                    rewards: $m.reward_models(),
                    is_mdp: $is_mdp,
                    written: $m.written(),
                    players: $players,
                }
            };
        }
        match model {
            Model::Dtmc(d) => view!(d, None, false, None),
            Model::Mdp(m) => view!(m, m.action_names(), true, m.players()),
        }
    }
}

/// The place of an error in a text file: [`Error::Parse`] at `path:line:column`.
pub(crate) fn parse_error(path: &Path, line: usize, column: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        line,
        column,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_fractions() {
        assert_eq!(parse_number("0.25"), Some(0.25));
        assert_eq!(parse_number("2.5e-1"), Some(0.25));
        assert_eq!(parse_number(" 1/4 "), Some(0.25));
        assert_eq!(parse_number("1/3"), Some(1.0 / 3.0));
        assert_eq!(parse_number("-1"), Some(-1.0));
        for bad in ["", "1/0", "inf", "NaN", "x", "1/", "/2", "1e999", "0x10"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }
}
