//! The `@model` section of a DRN file, read window by window and parsed in chunks on all cores
//! (see [`super::chunked`]): chunks start at `state` lines, so each one is a run of whole states.
//!
//! A chunk parses its lines into its own buffers: rows checked as they close (sorted by target,
//! duplicates, sums, zeros dropped: [`check_row`]) and stored in CSR form, rewards in flat arrays
//! (one value per reward model per state or choice), labels, state names, action names. Nothing
//! is allocated per line or per row: the row being read sits in a reused buffer, and numbers of
//! the common form (`target : 0.25`) take a fast path that reads the bytes directly. Lines of any
//! other form take the general path, which follows Storm's grammar and kolmo's messages exactly.
//!
//! Errors keep the order of a sequential read: a malformed line stops its chunk, and the first one
//! in file order is reported; checks that a sequential reader makes after the whole section (state
//! and choice counts, actions without transitions, then transitions out of range, duplicates, and
//! row sums in state order) are kept per chunk, first of each kind, and reported in that order
//! once every chunk has been read.

use super::chunked::{
    ChunkError, NumberCache, Stream, Tuning, column_of, digits_u32, end_of_line, line_at, line_start_from,
    plan_cuts, quote, skip_blanks, utf8_error,
};
use super::drn::{Header, Kind, split_token, value};
use super::parse_error;
use super::rows::{
    RowFault, Written, check_row, duplicate_message, entry_fault, no_transitions_message, normalized_note,
    sum_message,
};
use crate::{Error, Result, StateId};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::Path;

/// What a chunk knows, when it starts, about the number of values in reward brackets.
#[derive(Clone, Copy, Debug)]
enum Brackets {
    /// `@reward_models` declares this many names.
    Declared(usize),
    /// The file's first bracket, on this line of the file, holds this many values.
    Seen { k: usize, line: usize },
    /// No bracket so far: the chunk's first bracket sets the count.
    Unknown,
}

/// The count a chunk checks brackets against, and where it comes from (for messages).
#[derive(Clone, Copy, Debug)]
enum Count {
    Declared(usize),
    /// Set by a bracket on this line of the file.
    File {
        k: usize,
        line: usize,
    },
    /// Set by a bracket on this line of the chunk.
    Chunk {
        k: usize,
        line: usize,
    },
}

impl Count {
    fn k(self) -> usize {
        match self {
            Count::Declared(k) | Count::File { k, .. } | Count::Chunk { k, .. } => k,
        }
    }
}

/// What every chunk of a window shares.
struct Ctx<'a> {
    header: &'a Header,
    brackets: Brackets,
    /// The chunk is the first of the `@model` section (states count from 0 there, and lines before
    /// the first `state` line are possible).
    starts_body: bool,
    /// Whether to keep what is read (false once the model is known to be refused).
    build: bool,
    normalize: bool,
}

/// Values in brackets (rewards), one per reward model for each state or choice, stored flat;
/// nothing is stored until a bracket is seen (all zeros until then).
#[derive(Default)]
struct Flat {
    values: Vec<f64>,
    seen: bool,
}

impl Flat {
    fn clear(&mut self) {
        self.values.clear();
        self.seen = false;
    }

    /// The values of item number `index` (counted in this store), `None` for no bracket (zeros).
    fn push(&mut self, index: usize, k: usize, values: Option<&[f64]>) {
        match values {
            Some(v) => {
                if !self.seen {
                    self.values.resize(index * k, 0.0);
                    self.seen = true;
                }
                self.values.extend_from_slice(v);
            }
            None if self.seen => self.values.resize(self.values.len() + k, 0.0),
            None => {}
        }
    }

    /// Appends `other`, which holds `items` items, to this store of `before` items.
    fn append(&mut self, before: usize, items: usize, k: usize, other: &Flat) {
        if other.seen {
            if !self.seen {
                self.values.resize(before * k, 0.0);
                self.seen = true;
            }
            self.values.extend_from_slice(&other.values);
        } else if self.seen {
            self.values.resize(self.values.len() + items * k, 0.0);
        }
    }
}

/// Action names per row, for an MDP: codes [`NOLABEL`], [`INDEX`] or `FIRST_NAME + i` for name `i`.
const NOLABEL: u32 = 0;
const INDEX: u32 = 1;
const FIRST_NAME: u32 = 2;

/// One chunk's parse: its results (in chunk-local line numbers and state indices) and the reader's
/// position while parsing. Reused from window to window.
#[derive(Default)]
struct Chunk {
    // Results.
    /// Newlines in the chunk.
    newlines: usize,
    /// Where the chunk is not UTF-8 (the byte offset), if it is not.
    utf8: Option<usize>,
    /// The first malformed line (the chunk stops there).
    stop: Option<ChunkError>,
    /// The number and its column on the first `state` line of a chunk that does not start the
    /// body (checked against the states before it when the chunks are put together).
    first_id: Option<(usize, usize)>,
    states: usize,
    rows: usize,
    /// End of each row in `cols`/`vals` (kept rows only).
    row_ends: Vec<usize>,
    cols: Vec<StateId>,
    vals: Vec<f64>,
    /// Rows of each state (MDPs).
    state_rows: Vec<u32>,
    state_rewards: Flat,
    action_rewards: Flat,
    /// The bracket count this chunk set, `(k, chunk line)`, when it started without one.
    defined: Option<(usize, usize)>,
    /// Whether the chunk holds any bracket.
    bracket_seen: bool,
    labels: BTreeMap<String, Vec<StateId>>,
    /// State names (comment lines after `state` lines) while every state has one.
    names: Vec<String>,
    names_ok: bool,
    /// Action codes per row (MDPs), the names they refer to, and the names' index.
    codes: Vec<u32>,
    action_names: Vec<String>,
    name_index: HashMap<String, u32>,
    /// Whether some row's action name is not just its index (or `__NOLABEL__`).
    named: bool,
    /// Line of the first action without transitions.
    empty_action: Option<usize>,
    /// First transition out of range or with a bad probability; first duplicate; first row or
    /// state refused (in state order).
    range: Option<ChunkError>,
    duplicate: Option<ChunkError>,
    fault: Option<ChunkError>,
    rescaled: usize,
    worst: f64,

    // Position.
    line: usize,
    line_start: usize,
    base: usize,
    has_state: bool,
    state_line: usize,
    choices_in_state: u32,
    row_open: bool,
    row_has_transition: bool,
    row_line: usize,
    name_slot: bool,
    /// The line just read by a fast path opened the name slot.
    name_slot_kept: bool,
    count: Option<Count>,
    /// A row sum refused in the current state, reported when the state closes (the message names
    /// the choice when the state has several).
    pending: Option<(Written, super::rows::SumFault, u32)>,
    row: Vec<Written>,
    bracket: Vec<f64>,
    numbers: NumberCache,
}

/// `name` is the decimal form of `v` (as `v.to_string()` writes it: no sign, no leading zero).
#[inline]
fn is_decimal(name: &str, v: u32) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b.len() > 10 || (b[0] == b'0' && b.len() > 1) {
        return false;
    }
    let mut x = 0u64;
    for &c in b {
        if !c.is_ascii_digit() {
            return false;
        }
        x = x * 10 + u64::from(c - b'0');
    }
    x == u64::from(v)
}

/// A transition line of the common form `target : number` (blanks anywhere between), read from
/// the bytes: the target, its column, the probability, where the next line starts and whether a
/// newline ended this one. `None` sends the line to the general path.
#[inline]
fn fast_transition(
    text: &str,
    start: usize,
    numbers: &mut NumberCache,
) -> Option<(StateId, usize, f64, usize, bool)> {
    let b = text.as_bytes();
    let i = skip_blanks(b, start);
    let (target, j) = digits_u32(b, i)?;
    let k = skip_blanks(b, j);
    if b.get(k) != Some(&b':') {
        return None;
    }
    let k = skip_blanks(b, k + 1);
    let (value, e) = numbers.plain_number(text, k)?;
    let e = skip_blanks(b, e);
    let (next, newline) = end_of_line(b, e)?;
    Some((target, i - start + 1, value, next, newline))
}

impl Chunk {
    /// Parses `bytes` (whole lines), replacing what the chunk held.
    fn parse(&mut self, bytes: &[u8], ctx: &Ctx) {
        self.reset(ctx);
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                self.utf8 = Some(e.valid_up_to());
                self.newlines = super::chunked::count_newlines(bytes);
                return;
            }
        };
        if let Err(e) = self.run(text, ctx) {
            self.stop = Some(e);
            self.newlines += super::chunked::count_newlines(&bytes[self.line_start..]);
        }
    }

    fn reset(&mut self, ctx: &Ctx) {
        self.newlines = 0;
        self.utf8 = None;
        self.stop = None;
        self.first_id = None;
        self.states = 0;
        self.rows = 0;
        self.row_ends.clear();
        self.cols.clear();
        self.vals.clear();
        self.state_rows.clear();
        self.state_rewards.clear();
        self.action_rewards.clear();
        self.defined = None;
        self.bracket_seen = false;
        self.labels.clear();
        self.names.clear();
        self.names_ok = true;
        self.codes.clear();
        self.action_names.clear();
        self.name_index.clear();
        self.named = false;
        self.empty_action = None;
        self.range = None;
        self.duplicate = None;
        self.fault = None;
        self.rescaled = 0;
        self.worst = 0.0;
        self.line = 0;
        self.line_start = 0;
        self.base = 0;
        self.has_state = false;
        self.state_line = 0;
        self.choices_in_state = 0;
        self.row_open = false;
        self.row_has_transition = false;
        self.row_line = 0;
        self.name_slot = false;
        self.name_slot_kept = false;
        self.count = match ctx.brackets {
            Brackets::Declared(k) => Some(Count::Declared(k)),
            Brackets::Seen { k, line } => Some(Count::File { k, line }),
            Brackets::Unknown => None,
        };
        self.pending = None;
        self.row.clear();
    }

    fn run(&mut self, text: &str, ctx: &Ctx) -> std::result::Result<(), ChunkError> {
        let b = text.as_bytes();
        let mut pos = 0;
        while pos < b.len() {
            self.line += 1;
            self.line_start = pos;
            // Fast paths for the common forms of the three kinds of lines.
            let fast = match b.get(skip_blanks(b, pos)) {
                Some(b'0'..=b'9') if self.row_open => fast_transition(text, pos, &mut self.numbers).map(
                    |(target, column, value, next, newline)| {
                        self.add_transition(ctx, target, value, column);
                        (next, newline)
                    },
                ),
                Some(b's') => self.fast_state(ctx, text, pos)?,
                Some(b'a') => self.fast_action(ctx, text, pos),
                _ => None,
            };
            if let Some((next, newline)) = fast {
                if !std::mem::take(&mut self.name_slot_kept) {
                    self.name_slot = false;
                }
                pos = next;
                self.newlines += usize::from(newline);
                continue;
            }
            let (raw, next, newline) = line_at(b, pos);
            let line = text.get(pos..pos + raw.len()).unwrap_or_default();
            self.general_line(ctx, line)?;
            pos = next;
            self.newlines += usize::from(newline);
        }
        self.line_start = b.len();
        self.close_state(ctx);
        Ok(())
    }

    /// Reads `[v, v, ...]` of plain numbers at `p` into `self.bracket` if its count agrees with
    /// the count known; returns where it ends. `None` leaves the line to the general path.
    fn fast_bracket(&mut self, text: &str, mut p: usize) -> Option<usize> {
        let b = text.as_bytes();
        self.bracket.clear();
        p += 1;
        loop {
            p = skip_blanks(b, p);
            let (v, q) = self.numbers.plain_number(text, p)?;
            self.bracket.push(v);
            p = skip_blanks(b, q);
            match b.get(p) {
                Some(b',') => p += 1,
                Some(b']') => break,
                _ => return None,
            }
        }
        (self.count?.k() == self.bracket.len()).then_some(p + 1)
    }

    /// A `state` line of the common form (`state <n> [r, ...] labels`, numbered as expected, plain
    /// numbers in the bracket): where the next line starts and whether a newline ended this one.
    /// `Ok(None)` leaves the line to the general path, before anything was changed.
    fn fast_state(
        &mut self,
        ctx: &Ctx,
        text: &str,
        start: usize,
    ) -> std::result::Result<Option<(usize, bool)>, ChunkError> {
        let b = text.as_bytes();
        let i = skip_blanks(b, start);
        if !(b[i..].starts_with(b"state") && matches!(b.get(i + 5), Some(b' ' | b'\t'))) {
            return Ok(None);
        }
        let j = skip_blanks(b, i + 5);
        let Some((id, k)) = digits_u32(b, j) else {
            return Ok(None);
        };
        if !matches!(b.get(k), None | Some(b' ' | b'\t' | b'\r' | b'\n')) {
            return Ok(None);
        }
        let id = id as usize;
        let first_of_chunk = self.states == 0 && !ctx.starts_body;
        if !first_of_chunk {
            let expected = self.base.saturating_add(self.states);
            if expected >= ctx.header.nr_states || id != expected {
                return Ok(None);
            }
        }
        let mut p = skip_blanks(b, k);
        let bracket = b.get(p) == Some(&b'[');
        if bracket {
            match self.fast_bracket(text, p) {
                Some(q) => p = q,
                None => return Ok(None),
            }
        } else if matches!(b.get(p), Some(b'{' | b'!')) {
            return Ok(None);
        }
        // Commit.
        if first_of_chunk {
            self.base = id;
            self.first_id = Some((id, j - start + 1));
        }
        self.close_state(ctx);
        self.states += 1;
        self.has_state = true;
        self.state_line = self.line;
        self.choices_in_state = 0;
        if ctx.build {
            let index = self.states - 1;
            if bracket {
                let k = self.bracket.len();
                self.state_rewards.push(index, k, Some(&self.bracket));
            } else {
                let k = self.count.map_or(0, Count::k);
                self.state_rewards.push(index, k, None);
            }
        }
        let q = skip_blanks(b, p);
        let end = match end_of_line(b, q) {
            Some(end) => end,
            None => {
                let (raw, next, newline) = line_at(b, start);
                let line = text.get(start..start + raw.len()).unwrap_or_default();
                let rest = text.get(p..start + raw.len()).unwrap_or_default();
                self.labels(ctx, line, rest)?;
                (next, newline)
            }
        };
        self.name_slot = true;
        self.name_slot_kept = true;
        Ok(Some(end))
    }

    /// An `action` line of the common form (`action <name>` and perhaps a bracket of plain
    /// numbers): as [`fast_state`](Self::fast_state).
    fn fast_action(&mut self, ctx: &Ctx, text: &str, start: usize) -> Option<(usize, bool)> {
        let b = text.as_bytes();
        let i = skip_blanks(b, start);
        if !(b[i..].starts_with(b"action") && matches!(b.get(i + 6), Some(b' ' | b'\t'))) {
            return None;
        }
        if !self.has_state || (ctx.header.kind == Kind::Dtmc && self.choices_in_state > 0) {
            return None;
        }
        let j = skip_blanks(b, i + 6);
        let mut e = j;
        while e < b.len() && (0x21..0x7f).contains(&b[e]) {
            e += 1;
        }
        if e == j || !matches!(b.get(e), None | Some(b' ' | b'\t' | b'\r' | b'\n')) {
            return None;
        }
        let mut p = skip_blanks(b, e);
        let bracket = b.get(p) == Some(&b'[');
        if bracket {
            p = self.fast_bracket(text, p)?;
            p = skip_blanks(b, p);
        }
        let end = end_of_line(b, p)?;
        let name = text.get(j..e)?;
        self.open_row(ctx, name, bracket);
        Some(end)
    }

    /// The number of the current state.
    fn state_id(&self) -> StateId {
        StateId::try_from(self.base + self.states.saturating_sub(1)).unwrap_or(StateId::MAX)
    }

    fn err(&self, line: &str, at: &str, message: impl Into<String>) -> ChunkError {
        ChunkError::at(self.line, column_of(line, at), message)
    }

    /// A line of any form, as Storm's grammar reads it.
    fn general_line(&mut self, ctx: &Ctx, line: &str) -> std::result::Result<(), ChunkError> {
        let t = line.trim();
        if t.is_empty() {
            return Ok(());
        }
        if let Some(comment) = t.strip_prefix("//") {
            if std::mem::take(&mut self.name_slot)
                && ctx.build
                && self.names_ok
                && self.names.len() + 1 == self.states
            {
                self.names.push(comment.trim().to_string());
            }
            return Ok(());
        }
        self.name_slot = false;
        let (keyword, rest) = split_token(t);
        match keyword {
            "state" => self.state_line(ctx, line, t, rest),
            "action" => self.action_line(ctx, line, t, rest),
            _ => self.transition_line(ctx, line, t),
        }
    }

    fn state_line(
        &mut self,
        ctx: &Ctx,
        line: &str,
        t: &str,
        rest: &str,
    ) -> std::result::Result<(), ChunkError> {
        let header = ctx.header;
        let n = header.nr_states;
        let (id, rest) = split_token(rest.trim_start());
        let id_value = id.parse::<usize>().map_err(|_| {
            self.err(
                line,
                if id.is_empty() { t } else { id },
                format!("expected a state number after `state`, found {}", quote(id)),
            )
        })?;
        if self.states == 0 && !ctx.starts_body {
            // Checked against the states of the chunks before this one when they are joined.
            self.base = id_value;
            self.first_id = Some((id_value, column_of(line, id)));
        } else {
            let expected = self.base.saturating_add(self.states);
            if expected >= n {
                return Err(self.err(
                    line,
                    id,
                    format!(
                        "more states than the {n} that @nr_states declares (line {})",
                        header.nr_states_line
                    ),
                ));
            }
            if id_value != expected {
                return Err(self.err(
                    line,
                    id,
                    format!(
                        "states must be numbered 0, 1, 2, ... in order: expected state {expected}, found {id_value}"
                    ),
                ));
            }
        }
        self.close_state(ctx);
        self.states += 1;
        self.has_state = true;
        self.state_line = self.line;
        self.choices_in_state = 0;
        let mut rest = rest.trim_start();
        if rest.starts_with('{') {
            return Err(self.err(
                line,
                rest,
                "observations `{..}` belong to POMDPs, which kolmo does not read",
            ));
        }
        if rest.starts_with('!') {
            return Err(self.err(
                line,
                rest,
                "exit rates `!..` belong to continuous-time models, which kolmo does not read",
            ));
        }
        let index = self.states - 1;
        if rest.starts_with('[') {
            let after = self.bracketed(ctx, line, rest)?;
            if ctx.build {
                let k = self.bracket.len();
                self.state_rewards.push(index, k, Some(&self.bracket));
            }
            rest = after;
        } else if ctx.build {
            let k = self.count.map_or(0, Count::k);
            self.state_rewards.push(index, k, None);
        }
        self.labels(ctx, line, rest)?;
        self.name_slot = true;
        Ok(())
    }

    /// Reads the comma-separated values in `[...]` at the start of `rest` into `self.bracket` and
    /// checks their count; returns what follows the bracket.
    fn bracketed<'l>(
        &mut self,
        ctx: &Ctx,
        line: &'l str,
        rest: &'l str,
    ) -> std::result::Result<&'l str, ChunkError> {
        let inner_start = &rest[1..];
        let Some(end) = inner_start.find(']') else {
            return Err(self.err(line, rest, "`]` missing after the rewards"));
        };
        self.bracket.clear();
        for token in inner_start[..end].split(',') {
            let v = value(token, &ctx.header.placeholders).map_err(|m| {
                let at = if token.trim().is_empty() {
                    token
                } else {
                    token.trim_start()
                };
                self.err(line, at, format!("reward: {m}"))
            })?;
            self.bracket.push(v);
        }
        self.bracket_seen = true;
        let len = self.bracket.len();
        match self.count {
            Some(c) if c.k() == len => {}
            Some(Count::Declared(k)) => {
                return Err(self.err(
                    line,
                    rest,
                    format!("{len} reward(s) in brackets; @reward_models declares {k}"),
                ));
            }
            Some(Count::File { k, line: first }) => {
                return Err(self.err(
                    line,
                    rest,
                    format!("{len} reward(s) in brackets; line {first} gave {k}"),
                ));
            }
            Some(Count::Chunk { k, line: first }) => {
                return Err(ChunkError::naming_lines(
                    self.line,
                    column_of(line, rest),
                    move |map| format!("{len} reward(s) in brackets; line {} gave {k}", map(first)),
                ));
            }
            None => {
                self.count = Some(Count::Chunk {
                    k: len,
                    line: self.line,
                });
                self.defined = Some((len, self.line));
            }
        }
        Ok(&inner_start[end + 1..])
    }

    /// The state's labels from the rest of its `state` line: white-space separated or in quotes.
    fn labels(&mut self, ctx: &Ctx, line: &str, mut rest: &str) -> std::result::Result<(), ChunkError> {
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                return Ok(());
            }
            let label;
            if let Some(q) = rest.strip_prefix('"') {
                let Some(end) = q.find('"') else {
                    return Err(self.err(line, rest, "closing `\"` missing after the label"));
                };
                if end == 0 {
                    return Err(self.err(line, rest, "empty label `\"\"`"));
                }
                label = &q[..end];
                rest = &q[end + 1..];
            } else {
                let (token, after) = split_token(rest);
                if token.contains('"') {
                    return Err(self.err(line, token, format!("label {} holds a `\"`", quote(token))));
                }
                label = token;
                rest = after;
            }
            if ctx.build {
                let s = (self.states - 1) as StateId;
                match self.labels.get_mut(label) {
                    Some(states) => states.push(s),
                    None => {
                        self.labels.insert(label.to_string(), vec![s]);
                    }
                }
            }
        }
    }

    fn action_line(
        &mut self,
        ctx: &Ctx,
        line: &str,
        t: &str,
        rest: &str,
    ) -> std::result::Result<(), ChunkError> {
        if !self.has_state {
            return Err(self.err(line, t, "`action` before the first `state`"));
        }
        if ctx.header.kind == Kind::Dtmc && self.choices_in_state > 0 {
            return Err(self.err(
                line,
                t,
                "a DTMC has one action per state; use `@type: MDP` for several",
            ));
        }
        let (name, rest) = split_token(rest.trim_start());
        if name.is_empty() {
            return Err(self.err(line, t, "expected an action name or number after `action`"));
        }
        let rest = rest.trim_start();
        let rewards = if rest.starts_with('[') {
            let after = self.bracketed(ctx, line, rest)?;
            if !after.trim().is_empty() {
                return Err(self.err(
                    line,
                    after.trim_start(),
                    format!("unexpected {} after the action rewards", quote(after.trim())),
                ));
            }
            true
        } else if !rest.is_empty() {
            return Err(self.err(
                line,
                rest,
                format!("unexpected {} after the action name", quote(rest)),
            ));
        } else {
            false
        };
        self.open_row(ctx, name, rewards);
        Ok(())
    }

    /// Starts a choice of the current state named `name`, with the rewards in `self.bracket` if
    /// `rewards`.
    fn open_row(&mut self, ctx: &Ctx, name: &str, rewards: bool) {
        self.close_row(ctx);
        let choice = self.choices_in_state;
        self.row_open = true;
        self.row_has_transition = false;
        self.row_line = self.line;
        self.choices_in_state += 1;
        let code = if is_decimal(name, choice) {
            INDEX
        } else if name == "__NOLABEL__" {
            NOLABEL
        } else {
            self.named = true;
            match self.name_index.get(name) {
                Some(&c) => c,
                None if ctx.header.kind == Kind::Mdp && ctx.build => {
                    let c = FIRST_NAME + self.action_names.len() as u32;
                    self.action_names.push(name.to_string());
                    self.name_index.insert(name.to_string(), c);
                    c
                }
                None => INDEX,
            }
        };
        if ctx.build {
            if ctx.header.kind == Kind::Mdp {
                self.codes.push(code);
            }
            let k = self.count.map_or(0, Count::k);
            let values = rewards.then_some(&self.bracket[..]);
            self.action_rewards.push(self.rows, k, values);
        }
        self.rows += 1;
    }

    fn transition_line(&mut self, ctx: &Ctx, line: &str, t: &str) -> std::result::Result<(), ChunkError> {
        if !self.has_state {
            return Err(self.err(line, t, format!("expected `state <number>`, found {}", quote(t))));
        }
        if self.choices_in_state == 0 {
            if ctx.header.kind == Kind::Mdp {
                return Err(self.err(
                    line,
                    t,
                    "a transition before the state's first `action` (an MDP's transitions belong to actions)",
                ));
            }
            // A DTMC's transitions may follow the `state` line directly.
            self.open_row(ctx, "0", false);
        }
        let Some((target, p)) = t.split_once(':') else {
            return Err(self.err(
                line,
                t,
                format!(
                    "expected `state`, `action` or a transition `<target> : <probability>`, found {}",
                    quote(t)
                ),
            ));
        };
        let target_text = target.trim();
        let target_value = target_text.parse::<StateId>().map_err(|_| {
            self.err(
                line,
                if target_text.is_empty() { t } else { target_text },
                format!("expected a target state number, found {}", quote(target_text)),
            )
        })?;
        let p_text = p.trim();
        let probability = value(p_text, &ctx.header.placeholders).map_err(|m| {
            self.err(
                line,
                if p_text.is_empty() { t } else { p_text },
                format!("probability: {m}"),
            )
        })?;
        self.add_transition(ctx, target_value, probability, column_of(line, target_text));
        Ok(())
    }

    #[inline]
    fn add_transition(&mut self, ctx: &Ctx, target: StateId, value: f64, column: usize) {
        self.row_has_transition = true;
        let fine = (target as usize) < ctx.header.nr_states && value >= 0.0 && value.is_finite();
        if !fine
            && self.range.is_none()
            && let Some(message) = entry_fault(ctx.header.nr_states, None, target, value)
        {
            self.range = Some(ChunkError::at(self.line, column, message));
        }
        self.row.push(Written {
            target,
            value,
            line: self.line,
            column,
        });
    }

    /// Checks and stores the row being read, if any.
    fn close_row(&mut self, ctx: &Ctx) {
        if !std::mem::take(&mut self.row_open) {
            return;
        }
        if !self.row_has_transition {
            self.empty_action.get_or_insert(self.row_line);
            if ctx.build {
                self.row_ends.push(self.cols.len());
            }
            return;
        }
        let choice = self.choices_in_state - 1;
        match check_row(&mut self.row, ctx.normalize) {
            Ok(scale) => super::rows::append_row(
                &self.row,
                &scale,
                ctx.build,
                (&mut self.cols, &mut self.vals, &mut self.row_ends),
                (&mut self.rescaled, &mut self.worst),
            ),
            Err(RowFault::Duplicate { second, first_line }) => {
                if self.duplicate.is_none() {
                    let state = self.state_id();
                    self.duplicate = Some(ChunkError::naming_lines(second.line, second.column, move |map| {
                        duplicate_message(state, second.target, choice, map(first_line))
                    }));
                }
            }
            Err(RowFault::Sum { at, fault }) => {
                if self.fault.is_none() && self.pending.is_none() {
                    self.pending = Some((at, fault, choice));
                }
            }
        }
        self.row.clear();
    }

    /// Closes the current state, if any: its last row, a refused row sum, no rows at all.
    fn close_state(&mut self, ctx: &Ctx) {
        if !self.has_state {
            return;
        }
        self.close_row(ctx);
        let state = self.state_id();
        if let Some((at, fault, choice)) = self.pending.take() {
            let several = self.choices_in_state > choice + 1;
            self.fault = Some(ChunkError::at(
                at.line,
                at.column,
                sum_message(state, choice, several, fault),
            ));
        } else if self.choices_in_state == 0 && self.fault.is_none() {
            self.fault = Some(ChunkError::at(self.state_line, 1, no_transitions_message(state)));
        }
        if ctx.build && ctx.header.kind == Kind::Mdp {
            self.state_rows.push(self.choices_in_state);
        }
        if self.names_ok && self.names.len() != self.states {
            self.names_ok = false;
            self.names.clear();
        }
    }
}

/// Where a DRN chunk may start: a line that begins (after blanks) with `state` and a blank.
fn cut_at(data: &[u8], at: usize) -> Option<usize> {
    let mut start = line_start_from(data, at)?;
    loop {
        let i = skip_blanks(data, start);
        let word = data.get(i..i + 6)?;
        if &word[..5] == b"state" && (word[5] == b' ' || word[5] == b'\t') {
            return Some(start);
        }
        start = line_start_from(data, i + 1)?;
    }
}

/// Everything the `@model` section holds, checked.
pub(super) struct Body {
    /// CSR arrays; `group_ptr` for an MDP (a DTMC has one row per state).
    pub row_ptr: Vec<usize>,
    pub cols: Vec<StateId>,
    pub vals: Vec<f64>,
    pub group_ptr: Option<Vec<usize>>,
    /// Rewards in brackets: `k` values per state and per choice (`None`: all zero).
    pub reward_count: usize,
    pub state_rewards: Option<Vec<f64>>,
    pub action_rewards: Option<Vec<f64>>,
    pub labels: BTreeMap<String, Vec<StateId>>,
    /// The comment line after each `state` line, if every state has one.
    pub names: Option<Vec<String>>,
    /// Per choice (MDP), if some choice is named other than by its index: the name.
    pub action_names: Option<Vec<String>>,
    /// Whether some choice is named other than by its index.
    pub named: bool,
    pub notes: Vec<String>,
}

/// The model as it grows, window by window.
struct Acc {
    states: usize,
    rows: usize,
    row_ptr: Vec<usize>,
    cols: Vec<StateId>,
    vals: Vec<f64>,
    group_ptr: Vec<usize>,
    state_rewards: Flat,
    action_rewards: Flat,
    labels: BTreeMap<String, Vec<StateId>>,
    names: Vec<String>,
    names_ok: bool,
    codes: Vec<u32>,
    action_names: Vec<String>,
    name_index: HashMap<String, u32>,
    named: bool,
    rescaled: usize,
    worst: f64,
    reserved: bool,
}

impl Acc {
    /// Appends the chunks' results (in order), the large arrays on two threads.
    fn append(&mut self, chunks: &mut [Chunk], kind: Kind, k: usize) {
        let Acc {
            states,
            rows,
            row_ptr,
            cols,
            vals,
            group_ptr,
            state_rewards,
            action_rewards,
            ..
        } = self;
        let (states0, rows0) = (*states, *rows);
        let chunks_ref = &*chunks;
        rayon::join(
            || {
                let mut nnz = cols.len();
                for c in chunks_ref {
                    cols.extend_from_slice(&c.cols);
                    row_ptr.extend(c.row_ends.iter().map(|&e| nnz + e));
                    nnz += c.cols.len();
                }
                if kind == Kind::Mdp {
                    let mut last = group_ptr.last().copied().unwrap_or(0);
                    for c in chunks_ref {
                        group_ptr.extend(c.state_rows.iter().map(|&r| {
                            last += r as usize;
                            last
                        }));
                    }
                }
            },
            || {
                let (mut s, mut r) = (states0, rows0);
                for c in chunks_ref {
                    vals.extend_from_slice(&c.vals);
                    state_rewards.append(s, c.states, k, &c.state_rewards);
                    action_rewards.append(r, c.rows, k, &c.action_rewards);
                    s += c.states;
                    r += c.rows;
                }
            },
        );
        for c in chunks.iter_mut() {
            let base = self.states as StateId;
            for (label, members) in std::mem::take(&mut c.labels) {
                self.labels
                    .entry(label)
                    .or_default()
                    .extend(members.into_iter().map(|s| base + s));
            }
            if self.names_ok && c.names_ok {
                self.names.append(&mut c.names);
            } else if self.names_ok {
                self.names_ok = false;
                self.names = Vec::new();
            }
            if kind == Kind::Mdp {
                if c.action_names.is_empty() {
                    self.codes.extend_from_slice(&c.codes);
                } else {
                    let map: Vec<u32> = c
                        .action_names
                        .iter()
                        .map(|name| match self.name_index.get(name) {
                            Some(&code) => code,
                            None => {
                                let code = FIRST_NAME + self.action_names.len() as u32;
                                self.action_names.push(name.clone());
                                self.name_index.insert(name.clone(), code);
                                code
                            }
                        })
                        .collect();
                    self.codes.extend(c.codes.iter().map(|&code| {
                        if code >= FIRST_NAME {
                            map[(code - FIRST_NAME) as usize]
                        } else {
                            code
                        }
                    }));
                }
            }
            self.named |= c.named;
            self.rescaled += c.rescaled;
            self.worst = self.worst.max(c.worst);
            self.states += c.states;
            self.rows += c.rows;
        }
    }

    /// Reserves room for the whole model, estimated from the share of the file read so far.
    fn reserve(&mut self, read: u64, size: Option<u64>) {
        let Some(size) = size else { return };
        if self.reserved || read == 0 || size <= read {
            return;
        }
        self.reserved = true;
        let scale = size as f64 / read as f64 * 1.02;
        let more = |len: usize| ((len as f64 * scale) as usize).saturating_sub(len) + 64;
        self.cols.reserve_exact(more(self.cols.len()));
        self.vals.reserve_exact(more(self.vals.len()));
        self.row_ptr.reserve_exact(more(self.row_ptr.len()));
    }
}

/// Keeps the first error of a kind: `slot` takes `candidate` (a chunk's, at the chunk's first line
/// `lines_before + 1`) if it has none yet.
fn keep_first(slot: &mut Option<Error>, candidate: Option<ChunkError>, path: &Path, lines_before: usize) {
    if slot.is_none()
        && let Some(e) = candidate
    {
        *slot = Some(e.into_error(path, lines_before, lines_before));
    }
}

/// What one window came to.
enum Window {
    /// All its chunks were read; they hold this many newlines.
    Read(usize),
    /// A malformed line (reported unless the rest of the file holds a byte that is not UTF-8);
    /// the window holds this many newlines.
    Stopped(Error, usize),
    /// An error to report as it is.
    Failed(Error),
}

/// The reader of the `@model` section, between windows.
struct Reader<'a> {
    path: &'a Path,
    header: &'a Header,
    normalize: bool,
    tuning: Tuning,
    acc: Acc,
    brackets: Brackets,
    pool: Vec<Chunk>,
    /// The window starts the section.
    first: bool,
    /// The first action without transitions, transition out of range, duplicate, row refused.
    empty_action: Option<Error>,
    range: Option<Error>,
    duplicate: Option<Error>,
    fault: Option<Error>,
}

impl Reader<'_> {
    /// Whether the model is known to be refused (only the counts matter then).
    fn refused(&self) -> bool {
        self.empty_action.is_some()
            || self.range.is_some()
            || self.duplicate.is_some()
            || self.fault.is_some()
    }

    /// Parses the chunks of `data` between `cuts` (its first line is line `lines_before + 1`) and
    /// adds them to the model.
    fn window(&mut self, data: &[u8], cuts: &[usize], lines_before: usize) -> Window {
        let (path, header) = (self.path, self.header);
        let n = header.nr_states;
        let count = cuts.len() - 1;
        if self.pool.len() < count {
            self.pool.resize_with(count, Chunk::default);
        }
        let build = !self.refused();
        let normalize = self.normalize;
        let ctx_for = |brackets, starts_body| Ctx {
            header,
            brackets,
            starts_body,
            build,
            normalize,
        };
        let piece = |i: usize| &data[cuts[i]..cuts[i + 1]];
        let first = self.first;
        let pool = &mut self.pool;
        let mut done = 0;
        if first && matches!(self.brackets, Brackets::Unknown) {
            // The first chunk alone: it most likely decides the count of values in brackets.
            pool[0].parse(piece(0), &ctx_for(self.brackets, true));
            if let Some((k, line)) = pool[0].defined {
                self.brackets = Brackets::Seen {
                    k,
                    line: lines_before + line,
                };
            }
            done = 1;
        }
        let brackets = self.brackets;
        pool[done..count]
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, c)| c.parse(piece(done + i), &ctx_for(brackets, first && done + i == 0)));
        // Chunks' line numbers start at the window's plus the newlines of the chunks before.
        let mut starts = Vec::with_capacity(count);
        let mut lines = lines_before;
        for c in &pool[..count] {
            starts.push(lines);
            lines += c.newlines;
        }
        let newlines = lines - lines_before;
        if matches!(brackets, Brackets::Unknown)
            && let Some(j) = (done..count).find(|&j| pool[j].defined.is_some())
        {
            // The first bracket in the file is in chunk `j`: the chunks after it that hold brackets
            // counted them on their own and are read again knowing the count.
            let (k, line) = pool[j].defined.expect("found above");
            self.brackets = Brackets::Seen {
                k,
                line: starts[j] + line,
            };
            let brackets = self.brackets;
            pool[j + 1..count]
                .par_iter_mut()
                .enumerate()
                .filter(|(_, c)| c.bracket_seen)
                .for_each(|(i, c)| c.parse(piece(j + 1 + i), &ctx_for(brackets, false)));
        }
        if let Some(i) = (0..count).find(|&i| pool[i].utf8.is_some()) {
            let at = pool[i].utf8.expect("found above");
            return Window::Failed(utf8_error(path, starts[i], piece(i), at));
        }
        let mut expected = self.acc.states;
        for (i, c) in pool[..count].iter_mut().enumerate() {
            if let Some((id, column)) = c.first_id {
                let place = |message: String| parse_error(path, starts[i] + 1, column, message);
                if expected >= n {
                    return Window::Stopped(
                        place(format!(
                            "more states than the {n} that @nr_states declares (line {})",
                            header.nr_states_line
                        )),
                        newlines,
                    );
                } else if id != expected {
                    return Window::Stopped(
                        place(format!(
                            "states must be numbered 0, 1, 2, ... in order: expected state {expected}, found {id}"
                        )),
                        newlines,
                    );
                }
            }
            if let Some(e) = c.stop.take() {
                return Window::Stopped(e.into_error(path, starts[i], starts[i]), newlines);
            }
            expected += c.states;
            if let Some(line) = c.empty_action
                && self.empty_action.is_none()
            {
                self.empty_action = Some(parse_error(
                    path,
                    starts[i] + line,
                    1,
                    "this action has no transitions (every choice needs a distribution over next states)",
                ));
            }
            keep_first(&mut self.range, c.range.take(), path, starts[i]);
            keep_first(&mut self.duplicate, c.duplicate.take(), path, starts[i]);
            keep_first(&mut self.fault, c.fault.take(), path, starts[i]);
        }
        if build && !self.refused() {
            // The count as this window leaves it (a chunk may have set it).
            self.acc
                .append(&mut self.pool[..count], header.kind, brackets_k(self.brackets));
        } else {
            // The model is refused: only the counts matter now.
            self.acc.states = expected;
            self.acc.rows += self.pool[..count].iter().map(|c| c.rows).sum::<usize>();
        }
        self.first = false;
        Window::Read(newlines)
    }
}

/// Reads the `@model` section from `stream` (positioned after the `@model` line), `size` being the
/// file's length if known. While the chunks of a window are parsed, the next window is read.
///
/// # Errors
/// [`Error::Parse`] for the first malformed line, then for counts that differ from the header,
/// actions without transitions, transitions out of range, duplicates, and refused rows, as a
/// sequential reader finds them; [`Error::Io`] if reading fails.
pub(super) fn read_body<R: Read + Send>(
    path: &Path,
    stream: &mut Stream<R>,
    header: &Header,
    normalize: bool,
    tuning: Tuning,
    size: Option<u64>,
) -> Result<Body> {
    let n = header.nr_states;
    let kind = header.kind;
    let mut reader = Reader {
        path,
        header,
        normalize,
        tuning,
        acc: Acc {
            states: 0,
            rows: 0,
            row_ptr: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
            group_ptr: vec![0],
            state_rewards: Flat::default(),
            action_rewards: Flat::default(),
            labels: BTreeMap::new(),
            names: Vec::new(),
            names_ok: true,
            codes: Vec::new(),
            action_names: Vec::new(),
            name_index: HashMap::new(),
            named: false,
            rescaled: 0,
            worst: 0.0,
            reserved: false,
        },
        brackets: if header.reward_names.is_empty() {
            Brackets::Unknown
        } else {
            Brackets::Declared(header.reward_names.len())
        },
        pool: Vec::new(),
        first: true,
        empty_action: None,
        range: None,
        duplicate: None,
        fault: None,
    };
    loop {
        if !stream.at_eof() && stream.data().len() < tuning.window {
            stream.read_more(path)?;
        }
        let first_size = if reader.first {
            reader.tuning.first_chunk
        } else {
            tuning.chunk
        };
        let cuts = plan_cuts(stream.data(), stream.at_eof(), first_size, tuning.chunk, cut_at);
        if cuts.len() < 2 {
            if stream.at_eof() {
                break;
            }
            stream.read_more(path)?;
            continue;
        }
        let end = cuts[cuts.len() - 1];
        let lines_before = stream.lines_before();
        let outcome = stream.read_ahead_while(path, end, |data| reader.window(data, &cuts, lines_before))?;
        match outcome {
            Window::Read(newlines) => stream.advance(newlines),
            Window::Stopped(e, newlines) => {
                // Reading the file as text first would have found a byte that is not UTF-8
                // anywhere.
                stream.advance(newlines);
                return Err(stream.utf8_error_in_rest(path)?.unwrap_or(e));
            }
            Window::Failed(e) => return Err(e),
        }
        reader.acc.reserve(stream.offset(), size);
    }
    let Reader {
        mut acc,
        brackets,
        empty_action,
        range,
        duplicate,
        fault,
        ..
    } = reader;
    let last_line = stream.total_lines();
    if acc.states != n {
        return Err(parse_error(
            path,
            header.nr_states_line,
            1,
            format!(
                "@nr_states declares {n} states but the file has {} (it ends on line {last_line})",
                acc.states
            ),
        ));
    }
    if let Some(e) = empty_action {
        return Err(e);
    }
    if let Some((m, line)) = header.nr_choices
        && m != acc.rows
    {
        return Err(parse_error(
            path,
            line,
            1,
            format!("@nr_choices declares {m} choices but the file has {}", acc.rows),
        ));
    }
    if let Some(e) = range.or(duplicate).or(fault) {
        return Err(e);
    }
    let mut notes = Vec::new();
    if acc.rescaled > 0 {
        notes.push(normalized_note(acc.rescaled, acc.worst));
    }
    let k = brackets_k(brackets);
    let action_names = (kind == Kind::Mdp && !acc.action_names.is_empty()).then(|| {
        let mut out = Vec::with_capacity(acc.rows);
        for g in 0..acc.states {
            for (i, &code) in acc.codes[acc.group_ptr[g]..acc.group_ptr[g + 1]]
                .iter()
                .enumerate()
            {
                out.push(match code {
                    NOLABEL => String::new(),
                    INDEX => i.to_string(),
                    c => acc.action_names[(c - FIRST_NAME) as usize].clone(),
                });
            }
        }
        out
    });
    acc.cols.shrink_to_fit();
    acc.vals.shrink_to_fit();
    acc.row_ptr.shrink_to_fit();
    Ok(Body {
        row_ptr: acc.row_ptr,
        cols: acc.cols,
        vals: acc.vals,
        group_ptr: (kind == Kind::Mdp).then_some(acc.group_ptr),
        reward_count: k,
        state_rewards: acc.state_rewards.seen.then_some(acc.state_rewards.values),
        action_rewards: acc.action_rewards.seen.then_some(acc.action_rewards.values),
        labels: acc.labels,
        names: (acc.names_ok && acc.names.len() == n).then_some(acc.names),
        action_names,
        named: acc.named,
        notes,
    })
}

/// The number of values in each bracket (0 when the file has none).
fn brackets_k(brackets: Brackets) -> usize {
    match brackets {
        Brackets::Declared(k) | Brackets::Seen { k, .. } => k,
        Brackets::Unknown => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_names_are_to_string() {
        for v in [0u32, 1, 9, 10, 123, u32::MAX] {
            assert!(is_decimal(&v.to_string(), v));
            assert!(!is_decimal(&v.to_string(), v.wrapping_add(1)));
        }
        for (name, v) in [
            ("00", 0),
            ("01", 1),
            ("+1", 1),
            ("", 0),
            ("1 ", 1),
            ("4294967296", 0),
            ("12345678901", 0),
            ("__NOLABEL__", 0),
        ] {
            assert!(!is_decimal(name, v), "{name}");
        }
    }
}
