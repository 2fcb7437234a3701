//! The transitions file of PRISM's explicit format (`.tra`), read window by window and parsed in
//! chunks on all cores (see [`super::chunked`]).
//!
//! PRISM writes the transitions grouped by source state in increasing order (then by choice). A
//! chunk starts at a line whose source state differs from the line before, so each chunk holds
//! whole states, and rows are built, checked and stored in CSR form as they close, as in the DRN
//! reader ([`super::drn_body`]). The format allows any order, though: a chunk that meets a state or
//! choice out of order (or a chunk starting at a state not above the previous chunk's last) gives
//! up, and the file is read again by the sequential reader, which sorts the transitions
//! ([`read_any_order`]); so does everything else that only that reader
//! handles. Errors keep the order of the sequential reader: malformed lines first (in file order),
//! then the counts the header announces, then transitions out of range, duplicates, and rows in
//! state order.

use super::chunked::{
    ChunkError, ChunkRows, Faults, Halt, HeaderRead, LineFormat, Names, NumberCache, Place, Stream,
    TextLines, Tuning, append_rows, column_of, digits_u32, end_of_line, header_from, line_at,
    line_start_from, quote, read_chunked, skip_blanks,
};
use super::rows::no_transitions_message;
use super::{Entry, build_matrix, parse_error, parse_number};
use crate::sparse::{CsrMatrix, CsrParts};
use crate::{Error, Result, StateId};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// What a `.tra` file holds.
pub(super) struct Tra {
    pub is_mdp: bool,
    pub n: usize,
    pub matrix: CsrMatrix,
    /// Per row, the action label (empty when none), if any choice had one.
    pub action_names: Option<Vec<String>>,
    pub initial: Vec<StateId>,
    pub notes: Vec<String>,
}

/// The header line: `n m` (DTMC) or `n c m` (MDP).
pub(super) struct Header {
    pub is_mdp: bool,
    pub n: usize,
    pub choices: Option<usize>,
    pub m: usize,
    /// Its line, and the column of each of its numbers.
    line: usize,
    columns: Vec<usize>,
}

impl Header {
    pub fn error(&self, path: &Path, token: usize, message: impl Into<String>) -> Error {
        let column = self.columns.get(token).copied().unwrap_or(1);
        parse_error(path, self.line, column, message)
    }
}

/// The white-space separated tokens of a line, as a slice; up to [`Tokens::INLINE`] of them are
/// kept without allocating.
pub(super) struct Tokens<'a> {
    line: &'a str,
    inline: [&'a str; Tokens::INLINE],
    len: usize,
    spill: Vec<&'a str>,
}

impl<'a> Tokens<'a> {
    const INLINE: usize = 6;

    pub fn of(line: &'a str) -> Self {
        let mut t = Tokens {
            line,
            inline: [""; Self::INLINE],
            len: 0,
            spill: Vec::new(),
        };
        for token in line.split_whitespace() {
            if t.len < Self::INLINE {
                t.inline[t.len] = token;
            } else {
                if t.spill.is_empty() {
                    t.spill.extend_from_slice(&t.inline);
                }
                t.spill.push(token);
            }
            t.len += 1;
        }
        t
    }

    /// The column (from 1) of token `i` in its line; 1 if there is no such token.
    pub fn column(&self, i: usize) -> usize {
        self.get(i).map_or(1, |t| column_of(self.line, t))
    }
}

impl<'a> std::ops::Deref for Tokens<'a> {
    type Target = [&'a str];

    fn deref(&self) -> &[&'a str] {
        if self.len <= Self::INLINE {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }
}

/// Refuses a model type other than DTMC and MDP named in a `# Transitions (TYPE)` comment before
/// the header.
pub(super) fn check_comments(path: &Path, comments: &[(usize, &str)]) -> Result<()> {
    for (number, c) in comments {
        if let Some(ty) = c
            .strip_prefix("# Transitions (")
            .and_then(|t| t.strip_suffix(')'))
            && ty != "DTMC"
            && ty != "MDP"
        {
            return Err(parse_error(
                path,
                *number,
                1,
                format!("model type {ty} is not supported: kolmo reads DTMCs and MDPs"),
            ));
        }
    }
    Ok(())
}

/// The header line `text` (line `line` of the file).
pub(super) fn read_header(path: &Path, line: usize, text: &str) -> Result<Header> {
    let tokens = Tokens::of(text);
    let columns: Vec<usize> = (0..tokens.len()).map(|i| tokens.column(i)).collect();
    let at =
        |i: usize, message: String| parse_error(path, line, columns.get(i).copied().unwrap_or(1), message);
    let is_mdp = match tokens.len() {
        2 => false,
        3 => true,
        4 => {
            return Err(at(
                3,
                "four numbers in the header mean a POMDP, which kolmo does not read".into(),
            ));
        }
        _ => {
            return Err(parse_error(
                path,
                line,
                1,
                format!(
                    "expected a header `states transitions` (DTMC) or `states choices transitions` (MDP), found {}",
                    quote(text.trim())
                ),
            ));
        }
    };
    let int = |i: usize, what: &str| -> Result<usize> {
        tokens[i]
            .parse::<usize>()
            .map_err(|_| at(i, format!("expected {what}, found {}", quote(tokens[i]))))
    };
    let n = int(0, "the number of states")?;
    if n == 0 {
        return Err(at(0, "the model has no states".into()));
    }
    if n > StateId::MAX as usize {
        return Err(at(
            0,
            format!("{n} states is more than kolmo's limit of {}", StateId::MAX),
        ));
    }
    let choices = if is_mdp {
        Some(int(1, "the number of choices")?)
    } else {
        None
    };
    let m = int(if is_mdp { 2 } else { 1 }, "the number of transitions")?;
    Ok(Header {
        is_mdp,
        n,
        choices,
        m,
        line,
        columns,
    })
}

/// Finds and reads the header in `text` (complete lines from the file's start; `complete` when it
/// is the whole file).
fn header_in(path: &Path, text: &str, complete: bool) -> Result<HeaderRead<Header>> {
    let mut comments = Vec::new();
    let mut lines = TextLines::of(text);
    for (number, line) in lines.by_ref() {
        let t = line.trim();
        if t.starts_with('#') {
            comments.push((number, t));
        } else if !t.is_empty() {
            check_comments(path, &comments)?;
            let header = read_header(path, number, line)?;
            return Ok(HeaderRead::Done(header, lines.pos, lines.newlines));
        }
    }
    if !complete {
        return Ok(HeaderRead::More);
    }
    check_comments(path, &comments)?;
    Err(parse_error(
        path,
        lines.number,
        1,
        "the file has no header line `n m` or `n c m`",
    ))
}

/// What every chunk of a window shares.
struct Ctx<'a> {
    header: &'a Header,
    build: bool,
    normalize: bool,
}

/// One chunk's parse, reused from window to window (see the DRN reader's chunks).
#[derive(Default)]
struct Chunk {
    // Results.
    /// The chunk met a transition out of order at this line: the file is read again.
    disorder: Option<usize>,
    /// Line of the first transition, first and last source state.
    first_transition: Option<usize>,
    first_state: Option<StateId>,
    last_state: Option<StateId>,
    /// Transition lines.
    entries: usize,
    /// (state, choice) rows.
    rows: usize,
    /// The rows (CSR, checked), rows per state, and the first faults of each kind.
    csr: ChunkRows,
    /// Per row (MDPs): 0 for no action label, `1 + i` for label `i`.
    codes: Vec<u32>,
    labels: Names,
    /// Whether a DTMC transition has an action label.
    dtmc_labels: bool,
    initial: Vec<StateId>,

    // Position.
    line: usize,
    state: StateId,
    choice: u32,
    has_row: bool,
    rows_in_state: u32,
    /// The current row's label and the line that set it.
    row_label: u32,
    row_label_line: usize,
}

/// A transition line of the common form (plain numbers, blanks between, an ASCII label or none):
/// state, choice, target, probability, where the label is (start, end), where the next line
/// starts and whether a newline ended this one. `None` sends the line to the general path.
#[inline]
#[allow(clippy::type_complexity)]
fn fast_transition(
    b: &[u8],
    text: &str,
    start: usize,
    is_mdp: bool,
    numbers: &mut NumberCache,
) -> Option<(StateId, u32, StateId, f64, Option<(usize, usize)>, usize, bool)> {
    let blank = |i: usize| matches!(b.get(i), Some(b' ' | b'\t'));
    let i = skip_blanks(b, start);
    let (state, j) = digits_u32(b, i)?;
    if !blank(j) {
        return None;
    }
    let (choice, j) = if is_mdp {
        let (c, k) = digits_u32(b, skip_blanks(b, j))?;
        if !blank(k) {
            return None;
        }
        (c, k)
    } else {
        (0, j)
    };
    let (target, j) = digits_u32(b, skip_blanks(b, j))?;
    if !blank(j) {
        return None;
    }
    let (value, j) = numbers.plain_number(text, skip_blanks(b, j))?;
    let mut k = skip_blanks(b, j);
    let mut label = None;
    if k > j && k < b.len() && (0x21..0x7f).contains(&b[k]) {
        let s = k;
        while k < b.len() && (0x21..0x7f).contains(&b[k]) {
            k += 1;
        }
        label = Some((s, k));
        k = skip_blanks(b, k);
    }
    let (next, newline) = end_of_line(b, k)?;
    Some((state, choice, target, value, label, next, newline))
}

/// A transition read from a line.
struct Transition<'a> {
    state: StateId,
    choice: u32,
    target: StateId,
    value: f64,
    label: Option<&'a str>,
    /// Column of the line's last token (where a label mismatch is reported).
    last_column: usize,
}

impl Chunk {
    fn reset(&mut self) {
        self.disorder = None;
        self.first_transition = None;
        self.first_state = None;
        self.last_state = None;
        self.entries = 0;
        self.rows = 0;
        self.csr.clear();
        self.codes.clear();
        self.labels.clear();
        self.dtmc_labels = false;
        self.initial.clear();
        self.line = 0;
        self.state = 0;
        self.choice = 0;
        self.has_row = false;
        self.rows_in_state = 0;
        self.row_label = 0;
        self.row_label_line = 0;
    }

    /// Parses the lines; `Ok(false)` when a transition is out of order (`disorder` is set).
    fn run(&mut self, text: &str, ctx: &Ctx) -> std::result::Result<bool, ChunkError> {
        let b = text.as_bytes();
        let is_mdp = ctx.header.is_mdp;
        let mut pos = 0;
        while pos < b.len() {
            self.line += 1;
            if matches!(b.get(skip_blanks(b, pos)), Some(b'0'..=b'9'))
                && let Some((state, choice, target, value, label, next, _)) =
                    fast_transition(b, text, pos, is_mdp, &mut self.csr.numbers)
            {
                let label_text = label.and_then(|(s, e)| text.get(s..e));
                let last_column = match label {
                    Some((s, _)) => s - pos + 1,
                    // Only a label mismatch uses it, and the value is then the last token.
                    None => 0,
                };
                let t = Transition {
                    state,
                    choice,
                    target,
                    value,
                    label: label_text,
                    last_column,
                };
                let line = self.line;
                if !self.transition(ctx, t, || {
                    let (raw, _, _) = line_at(b, pos);
                    let l = text.get(pos..pos + raw.len()).unwrap_or_default();
                    let tokens = Tokens::of(l);
                    tokens.column(tokens.len().saturating_sub(1))
                })? {
                    self.disorder = Some(line);
                    return Ok(false);
                }
                pos = next;
                continue;
            }
            let (raw, next, _) = line_at(b, pos);
            let line = text.get(pos..pos + raw.len()).unwrap_or_default();
            if !self.general_line(ctx, line)? {
                self.disorder = Some(self.line);
                return Ok(false);
            }
            pos = next;
        }
        self.close_state(ctx);
        Ok(true)
    }

    /// A line of any form, as the sequential reader reads it; `Ok(false)` for a transition out of
    /// order.
    fn general_line(&mut self, ctx: &Ctx, line: &str) -> std::result::Result<bool, ChunkError> {
        match parse_line(ctx.header, self.line, line)? {
            Parsed::Nothing => Ok(true),
            Parsed::Initial(s) => {
                self.initial.push(s);
                Ok(true)
            }
            Parsed::Transition(t) => {
                let last_column = t.last_column;
                self.transition(ctx, t, || last_column)
            }
        }
    }

    /// Files transition `t` of the current line; `Ok(false)` when it is out of order.
    /// `last_column` gives the column of the line's last token if `t` lacks it.
    fn transition(
        &mut self,
        ctx: &Ctx,
        t: Transition,
        last_column: impl FnOnce() -> usize,
    ) -> std::result::Result<bool, ChunkError> {
        let is_mdp = ctx.header.is_mdp;
        if !self.has_row {
            self.first_state = Some(t.state);
            self.first_transition = Some(self.line);
            self.rows_in_state = 0;
            self.open_row(ctx, &t);
        } else if (t.state, t.choice) != (self.state, self.choice) {
            if t.state < self.state || (t.state == self.state && t.choice < self.choice) {
                return Ok(false);
            }
            if t.state == self.state {
                self.close_row(ctx);
            } else {
                self.close_state(ctx);
                // t.state > self.state here, so self.state + 1 does not overflow.
                if t.state > self.state + 1 && self.csr.fault.is_none() {
                    self.csr.fault = Some(missing_state(self.state + 1));
                }
                self.rows_in_state = 0;
            }
            self.open_row(ctx, &t);
        } else if is_mdp {
            let label = t.label.unwrap_or("");
            if label != self.label_text(self.row_label) {
                let earlier = self.label_text(self.row_label).to_string();
                let (state, choice, at) = (t.state, t.choice, self.row_label_line);
                let label = label.to_string();
                let column = if t.last_column > 0 {
                    t.last_column
                } else {
                    last_column()
                };
                return Err(ChunkError::naming_lines(self.line, column, move |map| {
                    format!(
                        "choice {choice} of state {state} has action {} here but {} on line {}; a choice has one action",
                        quote(&label),
                        quote(&earlier),
                        map(at)
                    )
                }));
            }
        }
        if !is_mdp && t.label.is_some() {
            self.dtmc_labels = true;
        }
        self.entries += 1;
        let n = ctx.header.n;
        self.csr
            .transition(n, Some(t.state), t.target, t.value, self.line, 1);
        Ok(true)
    }

    fn label_text(&self, code: u32) -> &str {
        if code == 0 {
            ""
        } else {
            self.labels
                .names
                .get(code as usize - 1)
                .map_or("", String::as_str)
        }
    }

    /// Starts the row of `t`'s state and choice.
    fn open_row(&mut self, ctx: &Ctx, t: &Transition) {
        self.has_row = true;
        self.state = t.state;
        self.choice = t.choice;
        self.rows += 1;
        if ctx.header.is_mdp {
            let label = t.label.unwrap_or("");
            self.row_label = if label.is_empty() {
                0
            } else if label == self.label_text(self.row_label) {
                // As the row before (the usual case: few labels, often repeated).
                self.row_label
            } else {
                1 + self.labels.index(label)
            };
            self.row_label_line = self.line;
            if ctx.build {
                self.codes.push(self.row_label);
            }
        }
    }

    /// Checks and stores the current row.
    fn close_row(&mut self, ctx: &Ctx) {
        if self.csr.row.is_empty() {
            return;
        }
        let expected = self.rows_in_state;
        self.rows_in_state += 1;
        let (state, choice) = (self.state, self.choice);
        self.csr
            .close_row(state, choice, Some(expected), ctx.normalize, ctx.build);
    }

    /// Closes the current state: a refused row sum is reported (naming the choice when the state
    /// has several).
    fn close_state(&mut self, ctx: &Ctx) {
        if !self.has_row {
            return;
        }
        self.close_row(ctx);
        let keep = ctx.build && ctx.header.is_mdp;
        self.csr.close_state(self.state, self.rows_in_state, keep);
        self.last_state = Some(self.state);
    }
}

/// What a `.tra` line of any form holds.
enum Parsed<'a> {
    /// A blank or comment line.
    Nothing,
    /// An initial state `- s -`.
    Initial(StateId),
    Transition(Transition<'a>),
}

/// Line `number` (`line`) of a `.tra` body of `header`, in any form.
fn parse_line<'a>(
    header: &Header,
    number: usize,
    line: &'a str,
) -> std::result::Result<Parsed<'a>, ChunkError> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(Parsed::Nothing);
    }
    let tokens = Tokens::of(line);
    let n = header.n;
    let err = |i: usize, message: String| ChunkError::at(number, tokens.column(i), message);
    let int = |i: usize, what: &str| -> std::result::Result<StateId, ChunkError> {
        let token = tokens.get(i).copied().unwrap_or_default();
        token
            .parse::<StateId>()
            .map_err(|_| err(i, format!("expected {what}, found {}", quote(token))))
    };
    if tokens.first() == Some(&"-") {
        let Some(i) = tokens.iter().position(|t| *t != "-") else {
            return Err(err(0, "expected an initial state `- s -`".into()));
        };
        let s = int(i, "an initial state number")?;
        if s as usize >= n {
            return Err(err(
                i,
                format!("initial state {s} does not exist: the model has {n} states"),
            ));
        }
        return Ok(Parsed::Initial(s));
    }
    let is_mdp = header.is_mdp;
    let (counts, layout) = if is_mdp {
        ([4, 5], "`state choice target probability [action]`")
    } else {
        ([3, 4], "`state target probability [action]`")
    };
    if !counts.contains(&tokens.len()) {
        return Err(ChunkError::at(
            number,
            1,
            format!("expected {layout}, found {} value(s)", tokens.len()),
        ));
    }
    let probability = |i: usize| -> std::result::Result<f64, ChunkError> {
        let token = tokens.get(i).copied().unwrap_or_default();
        parse_number(token).ok_or_else(|| err(i, format!("expected a probability, found {}", quote(token))))
    };
    let (state, choice, target, value) = if is_mdp {
        (
            int(0, "a state number")?,
            int(1, "a choice number")?,
            int(2, "a target state number")?,
            probability(3)?,
        )
    } else {
        (
            int(0, "a state number")?,
            0,
            int(1, "a target state number")?,
            probability(2)?,
        )
    };
    let label = tokens.get(if is_mdp { 4 } else { 3 }).copied();
    Ok(Parsed::Transition(Transition {
        state,
        choice,
        target,
        value,
        label,
        last_column: tokens.column(tokens.len() - 1),
    }))
}

/// The model as it grows, window by window: the `.tra` line format for [`read_chunked`].
struct Reader<'a> {
    path: &'a Path,
    header: &'a Header,
    normalize: bool,
    matrix: CsrParts<f64>,
    group_ptr: Vec<usize>,
    /// Per row (MDP): 0 or `1 + i` for label `i`.
    codes: Vec<u32>,
    labels: Names,
    initial: Vec<StateId>,
    entries: usize,
    rows: usize,
    dtmc_labels: bool,
    /// The last source state read so far.
    last_state: Option<StateId>,
    faults: Faults,
}

impl LineFormat for Reader<'_> {
    type Chunk = Chunk;

    /// The first line after `at` whose source state (its first token) differs from that of the
    /// transition line before it.
    fn cut_at(data: &[u8], at: usize) -> Option<usize> {
        let mut start = line_start_from(data, at)?;
        let mut previous: Option<&[u8]> = None;
        loop {
            let i = skip_blanks(data, start);
            let mut j = i;
            while j < data.len() && data[j].is_ascii_digit() {
                j += 1;
            }
            if j > i && matches!(data.get(j), Some(b' ' | b'\t')) {
                let token = &data[i..j];
                match previous {
                    Some(p) if p != token => return Some(start),
                    _ => previous = Some(token),
                }
            }
            start = line_start_from(data, j.max(start + 1))?;
        }
    }

    fn parse(
        &self,
        chunk: &mut Chunk,
        text: &str,
        _first: bool,
        build: bool,
    ) -> std::result::Result<(), ChunkError> {
        let ctx = Ctx {
            header: self.header,
            build,
            normalize: self.normalize,
        };
        chunk.reset();
        chunk.run(text, &ctx).map(|_| ())
    }

    fn refused(&self) -> bool {
        self.faults.any()
    }

    fn take(
        &mut self,
        c: &mut Chunk,
        stop: Option<ChunkError>,
        lines_before: usize,
    ) -> std::result::Result<(), Halt> {
        if let (Some(first), Some(last)) = (c.first_state, self.last_state)
            && first <= last
        {
            // The chunk's first transition continues or precedes the states before it: out of
            // order, unless a malformed line comes first.
            match &stop {
                Some(e) if e.place < Place::Line(c.first_transition.unwrap_or(0)) => {}
                _ => return Err(Halt::Abandon),
            }
        }
        if c.disorder.is_some() {
            return Err(Halt::Abandon);
        }
        if let Some(e) = stop {
            return Err(Halt::Stop(e.into_error(self.path, lines_before, 0)));
        }
        if let Some(first) = c.first_state {
            let expected = self.last_state.map_or(0, |l| l.saturating_add(1));
            if first > expected && self.faults.fault.is_none() {
                self.faults.fault = Some((missing_state(expected), 0));
            }
        }
        self.faults.keep(&mut c.csr, lines_before);
        if c.last_state.is_some() {
            self.last_state = c.last_state;
        }
        self.entries += c.entries;
        self.rows += c.rows;
        self.dtmc_labels |= c.dtmc_labels;
        self.initial.extend_from_slice(&c.initial);
        Ok(())
    }

    /// Appends the chunks' rows, the large arrays on all cores.
    fn append(&mut self, chunks: &mut [Chunk], build: bool) {
        if !build {
            return;
        }
        let is_mdp = self.header.is_mdp;
        let groups = is_mdp.then_some(&mut self.group_ptr);
        append_rows(&mut self.matrix, groups, chunks, |c| &c.csr, || {});
        if is_mdp {
            for c in chunks.iter() {
                let map = self.labels.merge(&c.labels);
                self.codes.extend(
                    c.codes
                        .iter()
                        .map(|&code| if code == 0 { 0 } else { 1 + map[code as usize - 1] }),
                );
            }
        }
    }

    fn matrix(&mut self) -> &mut CsrParts<f64> {
        &mut self.matrix
    }
}

/// The error for state `s` without transitions (reported at the file's last line).
fn missing_state(s: StateId) -> ChunkError {
    let message = no_transitions_message(s);
    ChunkError {
        place: Place::LastLine,
        column: 1,
        message: Box::new(move |_| message),
    }
}

/// Reads the `.tra` transitions from `reader` (the contents of `path`, `size` bytes if known);
/// `Ok(None)` when they are not grouped by source state in increasing order (the caller then reads
/// the file with the sequential reader). While the chunks of a window are parsed, the next window
/// is read.
///
/// # Errors
/// As the sequential reader: [`Error::Parse`] for malformed lines, counts that differ from the
/// header, transitions out of range, duplicates and refused rows; [`Error::Io`] if reading fails.
pub(super) fn read_from<R: Read + Send>(
    path: &Path,
    reader: R,
    size: Option<u64>,
    normalize: bool,
    tuning: Tuning,
) -> Result<Option<Tra>> {
    let mut stream = Stream::new(reader, tuning.window, size);
    let header = header_from(path, &mut stream, |text, complete| {
        header_in(path, text, complete)
    })?;
    let (n, is_mdp) = (header.n, header.is_mdp);
    let mut r = Reader {
        path,
        header: &header,
        normalize,
        matrix: CsrParts::default(),
        group_ptr: vec![0],
        codes: Vec::new(),
        labels: Names::default(),
        initial: Vec::new(),
        entries: 0,
        rows: 0,
        dtmc_labels: false,
        last_state: None,
        faults: Faults::default(),
    };
    if !read_chunked(path, &mut stream, &mut r, tuning, size)? {
        return Ok(None);
    }
    let last_line = stream.total_lines();
    check_counts(path, &header, r.entries, r.rows)?;
    let missing = r.last_state.map_or(0, |l| l as usize + 1);
    if r.faults.fault.is_none() && missing < n {
        r.faults.fault = Some((missing_state(missing as StateId), 0));
    }
    let mut notes: Vec<String> = r.faults.finish(path, last_line)?.into_iter().collect();
    let labels = r.labels.names;
    let action_names = (is_mdp && !labels.is_empty()).then(|| {
        r.codes
            .iter()
            .map(|&c| {
                if c == 0 {
                    String::new()
                } else {
                    labels[c as usize - 1].clone()
                }
            })
            .collect()
    });
    let initial = finish(path, &mut notes, r.dtmc_labels, r.initial);
    let (row_ptr, cols, vals) = r.matrix.into_arrays();
    let group_ptr = if is_mdp {
        r.group_ptr
    } else {
        (0..=n).into_par_iter().collect()
    };
    Ok(Some(Tra {
        is_mdp,
        n,
        matrix: CsrMatrix::from_grouped_parts(n, row_ptr, cols, vals, group_ptr),
        action_names,
        initial,
        notes,
    }))
}

/// Reads the `.tra` text `text` of `path` whose transitions are in any order (the chunked reader,
/// [`read_from`], gives up on those): its lines one by one, as the chunks read them, the
/// transitions collected and sorted into rows by [`build_matrix`]. Errors come in the same order:
/// malformed lines (in file order), the header's counts, then the matrix's faults.
pub(super) fn read_any_order(path: &Path, text: &str, normalize: bool) -> Result<Tra> {
    let HeaderRead::Done(header, pos, _) = header_in(path, text, true)? else {
        unreachable!("the whole text is given")
    };
    let (n, is_mdp) = (header.n, header.is_mdp);
    let (mut entries, mut initial) = (Vec::new(), Vec::new());
    let mut labels: HashMap<(StateId, u32), (String, usize)> = HashMap::new();
    let mut dtmc_labels = false;
    let mut lines = TextLines::at(text, pos, header.line);
    for (number, line) in lines.by_ref() {
        let t = match parse_line(&header, number, line) {
            Ok(Parsed::Nothing) => continue,
            Ok(Parsed::Initial(s)) => {
                initial.push(s);
                continue;
            }
            Ok(Parsed::Transition(t)) => t,
            Err(e) => return Err(e.into_error(path, 0, 0)),
        };
        if is_mdp {
            let label = t.label.unwrap_or("");
            match labels.get(&(t.state, t.choice)) {
                Some((earlier, at)) if earlier != label => {
                    return Err(parse_error(
                        path,
                        number,
                        t.last_column,
                        format!(
                            "choice {} of state {} has action {} here but {} on line {at}; a choice has one action",
                            t.choice,
                            t.state,
                            quote(label),
                            quote(earlier)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    labels.insert((t.state, t.choice), (label.to_string(), number));
                }
            }
        }
        dtmc_labels |= !is_mdp && t.label.is_some();
        entries.push(Entry {
            state: t.state,
            choice: t.choice,
            target: t.target,
            value: t.value,
            line: number,
            column: 1,
        });
    }
    check_counts(path, &header, entries.len(), labels.len())?;
    let last = lines.number;
    let (matrix, mut notes) = build_matrix(path, n, entries, normalize, |_| last)?;
    let action_names = (is_mdp && labels.values().any(|(l, _)| !l.is_empty())).then(|| {
        let mut names = vec![String::new(); matrix.nrows()];
        for ((s, k), (label, _)) in labels {
            names[matrix.group_rows(s as usize).start + k as usize] = label;
        }
        names
    });
    Ok(Tra {
        is_mdp,
        n,
        matrix,
        action_names,
        initial: finish(path, &mut notes, dtmc_labels, initial),
        notes,
    })
}

/// Refuses a file whose transitions (`entries`) or, for an MDP, choices (`rows`) are not as many
/// as the header announces.
fn check_counts(path: &Path, header: &Header, entries: usize, rows: usize) -> Result<()> {
    if entries != header.m {
        let m_index = if header.is_mdp { 2 } else { 1 };
        return Err(header.error(
            path,
            m_index,
            format!(
                "the header announces {} transitions but the file has {entries}",
                header.m
            ),
        ));
    }
    match header.choices {
        Some(c) if c != rows => Err(header.error(
            path,
            1,
            format!("the header announces {c} choices but the file has {rows}"),
        )),
        _ => Ok(()),
    }
}

/// The initial states, sorted and distinct; notes that a DTMC's action labels are ignored.
fn finish(
    path: &Path,
    notes: &mut Vec<String>,
    dtmc_labels: bool,
    mut initial: Vec<StateId>,
) -> Vec<StateId> {
    if dtmc_labels {
        notes.push(format!(
            "{}: the action labels of the DTMC's transitions are ignored",
            path.display()
        ));
    }
    initial.sort_unstable();
    initial.dedup();
    initial
}

#[cfg(test)]
mod tests {
    use super::super::chunked::utf8_error;
    use super::*;

    /// Windows and chunks small enough to cut the test files in many places.
    const TINY: [Tuning; 3] = [
        Tuning {
            window: 1,
            chunk: 1,
            first_chunk: 1,
        },
        Tuning {
            window: 9,
            chunk: 3,
            first_chunk: 3,
        },
        Tuning {
            window: 200,
            chunk: 40,
            first_chunk: 40,
        },
    ];

    fn show(tra: &Tra) -> String {
        format!(
            "{} {:?} {:?} {:?} {:?}",
            tra.is_mdp, tra.matrix, tra.action_names, tra.initial, tra.notes
        )
    }

    /// What the sequential reader (the one before this module, which sorts) makes of `bytes`,
    /// after the checks of reading the file as text.
    fn sequential(bytes: &[u8], normalize: bool) -> std::result::Result<String, String> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| utf8_error(Path::new("m.tra"), 0, bytes, e.valid_up_to()).to_string())?;
        if text.trim().is_empty() {
            return Err("m.tra:1:1: the file is empty".into());
        }
        read_any_order(Path::new("m.tra"), text, normalize)
            .map(|t| show(&t))
            .map_err(|e| e.to_string())
    }

    /// What the streaming reader makes of `bytes` (falling back as `prism::read` does), and
    /// whether it fell back.
    fn streamed(
        bytes: &[u8],
        tuning: Tuning,
        normalize: bool,
    ) -> (std::result::Result<String, String>, bool) {
        let path = Path::new("m.tra");
        match read_from(path, bytes, Some(bytes.len() as u64), normalize, tuning) {
            Ok(Some(t)) => (Ok(show(&t)), false),
            Ok(None) => (sequential(bytes, normalize), true),
            Err(e) => (Err(e.to_string()), false),
        }
    }

    /// Reads `bytes` with every tuning and both ways; all must agree with the sequential reader.
    /// Returns whether the streaming reader fell back.
    fn agree(bytes: &[u8]) -> bool {
        let want = sequential(bytes, false);
        let (got, fell_back) = streamed(bytes, Tuning::FILES, false);
        assert_eq!(got, want, "{:?}", String::from_utf8_lossy(bytes));
        assert_eq!(streamed(bytes, TINY[1], true).0, sequential(bytes, true));
        for tuning in TINY {
            assert_eq!(
                streamed(bytes, tuning, false).0,
                got,
                "{tuning:?} {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
        fell_back
    }

    /// A random model in PRISM's order: `n` states, MDP or DTMC, labels, CRLF ends, comments,
    /// initial-state lines, fractions.
    fn random_tra(n: usize, mdp: bool, seed: u64) -> String {
        let mut state = seed | 1;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let mut lines = Vec::new();
        let mut choices = 0;
        for s in 0..n {
            let k = if mdp { 1 + next(3) } else { 1 };
            for c in 0..k {
                choices += 1;
                let mut t = vec![next(n as u64), next(n as u64), next(n as u64)];
                t.sort_unstable();
                t.dedup();
                let label = match next(3) {
                    0 => String::new(),
                    _ => format!(" a{}", next(2)),
                };
                for (i, x) in t.iter().enumerate() {
                    let p = if t.len() == 2 && next(2) == 0 {
                        "1/2".to_string()
                    } else if i + 1 == t.len() {
                        number(1.0 - (t.len() - 1) as f64 / t.len() as f64)
                    } else {
                        number(1.0 / t.len() as f64)
                    };
                    if mdp {
                        lines.push(format!("{s} {c} {x} {p}{label}"));
                    } else {
                        lines.push(format!("{s} {x} {p}{label}"));
                    }
                }
            }
            if next(13) == 0 {
                lines.push(format!("- {s} -"));
            }
            if next(17) == 0 {
                lines.push("# a comment".to_string());
            }
        }
        let entries = lines.iter().filter(|l| !l.starts_with(['-', '#'])).count();
        let header = if mdp {
            format!("{n} {choices} {entries}")
        } else {
            format!("{n} {entries}")
        };
        let mut out = format!("# Transitions ({})\n{header}\n", if mdp { "MDP" } else { "DTMC" });
        for (i, l) in lines.iter().enumerate() {
            out.push_str(l);
            out.push_str(if i % 7 == 3 { "\r\n" } else { "\n" });
        }
        out
    }

    fn number(v: f64) -> String {
        super::super::text_out::number(v, super::super::text_out::Form::Text)
    }

    #[test]
    fn chunks_read_like_the_sequential_reader() {
        for (i, mdp) in [false, true].into_iter().enumerate() {
            let text = random_tra(300, mdp, 5 + i as u64);
            assert!(
                !agree(text.as_bytes()),
                "a file in PRISM's order is read in chunks"
            );
            assert!(sequential(text.as_bytes(), false).is_ok());
        }
    }

    #[test]
    fn garbage_reads_like_the_sequential_reader() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let alphabet = b"0123456789 \t\n\r-#/.e+ab";
        for (i, mdp) in [false, true].into_iter().enumerate() {
            let text = random_tra(40, mdp, 11 + i as u64);
            let b = text.as_bytes();
            for cut in (0..b.len()).step_by(7) {
                agree(&b[..cut]);
            }
            for _ in 0..800 {
                let mut bytes = b.to_vec();
                for _ in 0..1 + next(3) {
                    let at = next(bytes.len() as u64) as usize;
                    bytes[at] = if next(4) == 0 {
                        next(256) as u8
                    } else {
                        alphabet[next(alphabet.len() as u64) as usize]
                    };
                }
                agree(&bytes);
            }
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let mut fell_back = 0;
            for k in 0..300usize {
                let mut l = lines.clone();
                let at = 1 + (k * 7919) % (l.len() - 1);
                match k % 3 {
                    0 => {
                        l.remove(at);
                    }
                    1 => l.insert(at, lines[1 + (at + k) % (lines.len() - 1)]),
                    _ => l.swap(at, 1 + (at * 31 + k) % (lines.len() - 1)),
                }
                fell_back += usize::from(agree(l.concat().as_bytes()));
            }
            assert!(fell_back > 0, "some files out of order");
        }
    }

    #[test]
    fn errors_in_later_chunks_name_the_files_line() {
        let text = random_tra(300, true, 3);
        let lines: Vec<&str> = text.lines().collect();
        let at = 1 + lines.iter().position(|l| l.starts_with("250 ")).unwrap();
        let with = |i: usize, new: &str| {
            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            l[i - 1] = new.to_string();
            l.join("\n") + "\n"
        };
        let tuning = TINY[2];
        let first = |s: &str| streamed(s.as_bytes(), tuning, false).0.unwrap_err();
        let e = first(&with(at, "250 0 1 zz"));
        assert!(
            e.starts_with(&format!("m.tra:{at}:9: expected a probability, found `zz`")),
            "{e}"
        );
        let mut far: Vec<&str> = lines[at - 1].split_whitespace().collect();
        far[2] = "9999";
        let e = first(&with(at, &far.join(" ")));
        assert!(
            e.starts_with(&format!("m.tra:{at}:1: target state 9999 does not exist")),
            "{e}"
        );
        // A label that differs within a choice names the choice's first line.
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        let tokens: Vec<&str> = lines[at - 1].split_whitespace().collect();
        l.insert(at, format!("{} {} {} 0 other", tokens[0], tokens[1], tokens[2]));
        let e = first(&(l.join("\n") + "\n"));
        assert!(
            e.starts_with(&format!("m.tra:{}:", at + 1)) && e.contains(&format!("on line {at}")),
            "{e}"
        );
        for bytes in [with(at, "250 0 1 zz"), l.join("\n") + "\n"] {
            agree(bytes.as_bytes());
        }
    }
}
