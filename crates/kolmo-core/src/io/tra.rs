//! The transitions file of PRISM's explicit format (`.tra`) for the chunked driver
//! ([`super::chunked`]), and the lines of PRISM's explicit files ([`Line`], [`DataLines`]).
//!
//! PRISM writes the transitions grouped by source state in increasing order, then by choice; a
//! chunk starts at a line whose source state differs from the line before. The format allows any
//! order, though: a chunk that meets a state or choice out of order (or starts at a state not above
//! the previous chunk's last) gives up, and the file is read again by [`read_any_order`], which
//! sorts. Errors come in that reader's order: malformed lines (in file order), the header's counts,
//! then transitions out of range, duplicates and rows in state order.

use super::chunked::{
    ChunkError, ChunkResult, ChunkRows, Faults, Halt, HeaderRead, LineFormat, NumberCache, Place, RowNames,
    Stream, TextLines, Tuning, column_of, digits_u32, end_of_line, header_from, line_start_from, quote,
    read_chunked, skip_blanks, text_line,
};
use super::rows::no_transitions_message;
use super::{Entry, build_matrix, parse_error, parse_number};
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};
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

/// A line of a PRISM explicit file: its number (from 1), text, and white-space separated tokens;
/// its errors are placed at a token's column.
pub(super) struct Line<'a> {
    pub number: usize,
    pub text: &'a str,
    pub tokens: Tokens<'a>,
}

impl<'a> Line<'a> {
    /// Line `number` with text `text`.
    pub fn of(number: usize, text: &'a str) -> Line<'a> {
        Line {
            number,
            text,
            tokens: Tokens::of(text),
        }
    }

    /// The error `message` at token `i` (column 1 if there is no such token).
    pub fn error(&self, i: usize, message: impl Into<String>) -> ChunkError {
        ChunkError::at(self.number, self.tokens.column(i), message)
    }

    /// Token `i` (empty if there is none) as `T`, or "expected `what`, found ...".
    fn token<T>(&self, i: usize, what: &str, parse: impl FnOnce(&str) -> Option<T>) -> ChunkResult<T> {
        let token = self.tokens.get(i).copied().unwrap_or_default();
        parse(token).ok_or_else(|| self.error(i, format!("expected {what}, found {}", quote(token))))
    }

    /// Token `i` as a non-negative integer (`what` names it in the message).
    pub fn int<T: std::str::FromStr>(&self, i: usize, what: &str) -> ChunkResult<T> {
        self.token(i, what, |t| t.parse().ok())
    }

    /// Token `i` as a finite number (decimal or fraction).
    pub fn number(&self, i: usize, what: &str) -> ChunkResult<f64> {
        self.token(i, what, parse_number)
    }

    /// Refuses a line whose token count is not in `counts`.
    pub fn expect_tokens(&self, counts: &[usize], layout: &str) -> ChunkResult<()> {
        let found = self.tokens.len();
        let message = || format!("expected {layout}, found {found} value(s)");
        (counts.contains(&found))
            .then_some(())
            .ok_or_else(|| ChunkError::at(self.number, 1, message()))
    }
}

/// The lines of a text that are neither empty nor `#` comments, one at a time; the leading comment
/// lines (before the first data line) as (number, trimmed text) once the first data line is read.
pub(super) struct DataLines<'a> {
    pub lines: TextLines<'a>,
    data_seen: bool,
    pub comments: Vec<(usize, &'a str)>,
}

impl<'a> DataLines<'a> {
    /// The data lines of the whole text `text`.
    pub fn of(text: &'a str) -> Self {
        DataLines {
            lines: TextLines::of(text),
            data_seen: false,
            comments: Vec::new(),
        }
    }

    /// The number of the last line read (1 for an empty text).
    pub fn last_line(&self) -> usize {
        self.lines.number.max(1)
    }
}

impl<'a> Iterator for DataLines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        for (number, text) in self.lines.by_ref() {
            let t = text.trim();
            if t.starts_with('#') && !self.data_seen {
                self.comments.push((number, t));
            } else if !t.is_empty() && !t.starts_with('#') {
                self.data_seen = true;
                return Some(Line::of(number, text));
            }
        }
        None
    }
}

/// Refuses a model type other than DTMC and MDP named in a `# Transitions (TYPE)` comment before
/// the header.
fn check_comments(comments: &[(usize, &str)]) -> ChunkResult<()> {
    for (number, c) in comments {
        if let Some(ty) = c
            .strip_prefix("# Transitions (")
            .and_then(|t| t.strip_suffix(')'))
            && ty != "DTMC"
            && ty != "MDP"
        {
            let message = format!("model type {ty} is not supported: kolmo reads DTMCs and MDPs");
            return Err(ChunkError::at(*number, 1, message));
        }
    }
    Ok(())
}

/// The header line `line`.
fn read_header(line: &Line) -> ChunkResult<Header> {
    let is_mdp = match line.tokens.len() {
        2 => false,
        3 => true,
        4 => {
            return Err(line.error(
                3,
                "four numbers in the header mean a POMDP, which kolmo does not read",
            ));
        }
        _ => {
            return Err(ChunkError::at(
                line.number,
                1,
                format!(
                    "expected a header `states transitions` (DTMC) or `states choices transitions` (MDP), found {}",
                    quote(line.text.trim())
                ),
            ));
        }
    };
    let n: usize = line.int(0, "the number of states")?;
    if n == 0 {
        return Err(line.error(0, "the model has no states"));
    }
    if n > StateId::MAX as usize {
        return Err(line.error(
            0,
            format!("{n} states is more than kolmo's limit of {}", StateId::MAX),
        ));
    }
    Ok(Header {
        is_mdp,
        n,
        choices: is_mdp.then(|| line.int(1, "the number of choices")).transpose()?,
        m: line.int(if is_mdp { 2 } else { 1 }, "the number of transitions")?,
        line: line.number,
        columns: (0..line.tokens.len()).map(|i| line.tokens.column(i)).collect(),
    })
}

/// Finds and reads the header in `text` (complete lines from the file's start; `complete` when it
/// is the whole file).
fn header_in(path: &Path, text: &str, complete: bool) -> Result<HeaderRead<Header>> {
    let mut lines = DataLines::of(text);
    let first = lines.next();
    if first.is_none() && !complete {
        return Ok(None);
    }
    let header = check_comments(&lines.comments).and_then(|()| match &first {
        Some(line) => read_header(line),
        None => Err(ChunkError::at(
            lines.last_line(),
            1,
            "the file has no header line `n m` or `n c m`",
        )),
    });
    let header = header.map_err(|e| e.into_error(path, 0, 0))?;
    Ok(Some((header, lines.lines.pos, lines.lines.newlines)))
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
    /// Per row (MDPs): 0 for no action label, or the label.
    actions: RowNames,
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

/// A transition line of the common form (plain numbers, blanks between, an ASCII label or none),
/// and where the next line starts. `None` sends the line to the general path.
#[inline]
fn fast_transition<'t>(
    text: &'t str,
    start: usize,
    is_mdp: bool,
    numbers: &mut NumberCache,
) -> Option<(Transition<'t>, usize)> {
    let b = text.as_bytes();
    let blank = |i: usize| matches!(b.get(i), Some(b' ' | b'\t'));
    let (state, j) = digits_u32(b, skip_blanks(b, start))?;
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
    let v = skip_blanks(b, j);
    let (value, j) = numbers.plain_number(text, v)?;
    let mut k = skip_blanks(b, j);
    // The line's last token (the label, or else the value) starts at `last`; the line is ASCII up
    // to it, so its byte offset is its column.
    let (mut label, mut last) = (None, v);
    if k > j && k < b.len() && (0x21..0x7f).contains(&b[k]) {
        last = k;
        while k < b.len() && (0x21..0x7f).contains(&b[k]) {
            k += 1;
        }
        label = text.get(last..k);
        k = skip_blanks(b, k);
    }
    let (next, _) = end_of_line(b, k)?;
    let last_column = last - start + 1;
    let t = Transition {
        state,
        choice,
        target,
        value,
        label,
        last_column,
    };
    Some((t, next))
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
    /// Parses the lines; stops early when a transition is out of order (`disorder` is set).
    fn run(&mut self, text: &str, ctx: &Ctx) -> ChunkResult<()> {
        let b = text.as_bytes();
        let mut pos = 0;
        let is_mdp = ctx.header.is_mdp;
        while pos < b.len() {
            self.line += 1;
            if matches!(b.get(skip_blanks(b, pos)), Some(b'0'..=b'9'))
                && let Some((t, next)) = fast_transition(text, pos, is_mdp, &mut self.csr.numbers)
            {
                if !self.transition(ctx, t)? {
                    self.disorder = Some(self.line);
                    return Ok(());
                }
                pos = next;
                continue;
            }
            let (line, next) = text_line(text, pos);
            if !self.general_line(ctx, line)? {
                self.disorder = Some(self.line);
                return Ok(());
            }
            pos = next;
        }
        self.close_state(ctx);
        Ok(())
    }

    /// A line of any form, as the sequential reader reads it; `Ok(false)` for a transition out of
    /// order.
    fn general_line(&mut self, ctx: &Ctx, line: &str) -> ChunkResult<bool> {
        match parse_line(ctx.header, self.line, line)? {
            Parsed::Nothing => Ok(true),
            Parsed::Initial(s) => {
                self.initial.push(s);
                Ok(true)
            }
            Parsed::Transition(t) => self.transition(ctx, t),
        }
    }

    /// Files transition `t` of the current line; `Ok(false)` when it is out of order.
    fn transition(&mut self, ctx: &Ctx, t: Transition) -> ChunkResult<bool> {
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
                if t.state > self.state + 1 {
                    let missing = no_transitions_message(self.state + 1);
                    self.csr
                        .fault
                        .get_or_insert_with(|| ChunkError::at_last_line(missing));
                }
                self.rows_in_state = 0;
            }
            self.open_row(ctx, &t);
        } else if is_mdp {
            let label = t.label.unwrap_or("");
            let earlier = self.actions.name(self.row_label).unwrap_or("");
            if label != earlier {
                let (earlier, label) = (earlier.to_string(), label.to_string());
                let (state, choice, at) = (t.state, t.choice, self.row_label_line);
                return Err(ChunkError::naming_lines(self.line, t.last_column, move |map| {
                    action_mismatch(choice, state, &label, &earlier, map(at))
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
            } else if Some(label) == self.actions.name(self.row_label) {
                // As the row before (the usual case: few labels, often repeated).
                self.row_label
            } else {
                self.actions.code(label)
            };
            self.row_label_line = self.line;
            if ctx.build {
                self.actions.codes.push(self.row_label);
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

/// The error message for choice `choice` of `state` whose action is `label` here but `earlier` on
/// line `at`.
fn action_mismatch(choice: u32, state: StateId, label: &str, earlier: &str, at: usize) -> String {
    format!(
        "choice {choice} of state {state} has action {} here but {} on line {at}; a choice has one action",
        quote(label),
        quote(earlier)
    )
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
fn parse_line<'a>(header: &Header, number: usize, line: &'a str) -> ChunkResult<Parsed<'a>> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(Parsed::Nothing);
    }
    let line = Line::of(number, line);
    let (tokens, n) = (&line.tokens, header.n);
    if tokens.first() == Some(&"-") {
        let Some(i) = tokens.iter().position(|t| *t != "-") else {
            return Err(line.error(0, "expected an initial state `- s -`"));
        };
        let s: StateId = line.int(i, "an initial state number")?;
        if s as usize >= n {
            return Err(line.error(
                i,
                format!("initial state {s} does not exist: the model has {n} states"),
            ));
        }
        return Ok(Parsed::Initial(s));
    }
    let (is_mdp, k) = (header.is_mdp, usize::from(header.is_mdp));
    let layout = match is_mdp {
        true => "`state choice target probability [action]`",
        false => "`state target probability [action]`",
    };
    line.expect_tokens(&[3 + k, 4 + k], layout)?;
    Ok(Parsed::Transition(Transition {
        state: line.int(0, "a state number")?,
        choice: if is_mdp {
            line.int(1, "a choice number")?
        } else {
            0
        },
        target: line.int(1 + k, "a target state number")?,
        value: line.number(2 + k, "a probability")?,
        label: tokens.get(3 + k).copied(),
        last_column: tokens.column(tokens.len() - 1),
    }))
}

/// The model as it grows, window by window: the `.tra` line format for [`read_chunked`].
struct Reader<'a> {
    path: &'a Path,
    header: &'a Header,
    normalize: bool,
    /// Per row (MDP): 0 or the label (kept while the model is not refused).
    actions: RowNames,
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

    fn parse(&self, chunk: &mut Chunk, text: &str, _first: bool, build: bool) -> ChunkResult<()> {
        let ctx = Ctx {
            header: self.header,
            build,
            normalize: self.normalize,
        };
        // Only the rows' buffers (the biggest) are kept from the chunk's last use.
        let mut csr = std::mem::take(&mut chunk.csr);
        csr.clear();
        *chunk = Chunk {
            csr,
            ..Chunk::default()
        };
        chunk.run(text, &ctx)
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
                self.faults.fault = Some((ChunkError::at_last_line(no_transitions_message(expected)), 0));
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
        if !self.faults.any() {
            self.actions.append(&c.actions);
        }
        Ok(())
    }

    fn rows(chunk: &Chunk) -> &ChunkRows {
        &chunk.csr
    }

    fn grouped(&self) -> bool {
        self.header.is_mdp
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
    let header = header_from(path, &mut stream, header_in)?;
    let (n, is_mdp) = (header.n, header.is_mdp);
    let mut r = Reader {
        path,
        header: &header,
        normalize,
        actions: RowNames::default(),
        initial: Vec::new(),
        entries: 0,
        rows: 0,
        dtmc_labels: false,
        last_state: None,
        faults: Faults::default(),
    };
    let Some(rows) = read_chunked(path, &mut stream, &mut r, tuning)? else {
        return Ok(None);
    };
    let last_line = stream.total_lines();
    check_counts(path, &header, r.entries, r.rows)?;
    let missing = r.last_state.map_or(0, |l| l as usize + 1);
    if r.faults.fault.is_none() && missing < n {
        let message = no_transitions_message(missing as StateId);
        r.faults.fault = Some((ChunkError::at_last_line(message), 0));
    }
    let mut notes: Vec<String> = r.faults.finish(path, last_line)?.into_iter().collect();
    let actions = &r.actions;
    let action_names = (is_mdp && !actions.names.is_empty()).then(|| {
        let name = |&c: &u32| actions.name(c).unwrap_or_default().to_string();
        actions.codes.iter().map(name).collect()
    });
    let initial = finish(path, &mut notes, r.dtmc_labels, r.initial);
    Ok(Some(Tra {
        is_mdp,
        n,
        matrix: rows.into_matrix(n),
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
    let Some((header, pos, _)) = header_in(path, text, true)? else {
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
                    let message = action_mismatch(t.choice, t.state, label, earlier, *at);
                    return Err(parse_error(path, number, t.last_column, message));
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
    let m = header.m;
    if entries != m {
        let message = format!("the header announces {m} transitions but the file has {entries}");
        return Err(header.error(path, if header.is_mdp { 2 } else { 1 }, message));
    }
    match header.choices {
        Some(c) if c != rows => {
            let message = format!("the header announces {c} choices but the file has {rows}");
            Err(header.error(path, 1, message))
        }
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
