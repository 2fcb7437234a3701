//! The `@model` section of a DRN file, read window by window and parsed in chunks on all cores
//! (see [`super::chunked`]): chunks start at `state` lines, so each one is a run of whole states.
//!
//! A chunk parses its lines into its own buffers: rows checked as they close and stored in CSR form
//! ([`ChunkRows`]), rewards in flat arrays (one value per reward model per state or choice), labels,
//! state names, action names. Nothing is allocated per line or per row, and numbers of the common
//! form (`target : 0.25`) take a fast path that reads the bytes directly. Lines of any
//! other form take the general path, which follows Storm's grammar and kolmo's messages exactly.
//!
//! Errors keep the order of a sequential read: a malformed line stops its chunk, and the first one
//! in file order is reported; checks that a sequential reader makes after the whole section (state
//! and choice counts, actions without transitions, then transitions out of range, duplicates, and
//! row sums in state order) are kept per chunk, first of each kind, and reported in that order
//! once every chunk has been read.

use super::chunked::{
    ChunkError, ChunkRows, Faults, Halt, LineFormat, Names, NumberCache, Stream, Tuning, append_rows,
    column_of, digits_u32, end_of_line, line_at, line_start_from, quote, read_chunked, skip_blanks,
};
use super::drn::{Header, Kind, split_token, value};
use super::parse_error;
use super::rows::no_transitions_message;
use crate::sparse::CsrParts;
use crate::{Error, Result, StateId};
use std::collections::BTreeMap;
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
    /// The number and its column on the first `state` line of a chunk that does not start the
    /// body (checked against the states before it when the chunks are put together).
    first_id: Option<(usize, usize)>,
    states: usize,
    rows: usize,
    /// The rows (CSR, checked), rows per state, and the first faults of each kind.
    csr: ChunkRows,
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
    action_names: Names,
    /// Whether some row's action name is not just its index (or `__NOLABEL__`).
    named: bool,
    /// Line of the first action without transitions.
    empty_action: Option<usize>,

    // Position.
    line: usize,
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
    bracket: Vec<f64>,
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
    fn reset(&mut self, ctx: &Ctx) {
        self.first_id = None;
        self.states = 0;
        self.rows = 0;
        self.csr.clear();
        self.state_rewards.clear();
        self.action_rewards.clear();
        self.defined = None;
        self.bracket_seen = false;
        self.labels.clear();
        self.names.clear();
        self.names_ok = true;
        self.codes.clear();
        self.action_names.clear();
        self.named = false;
        self.empty_action = None;
        self.line = 0;
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
    }

    fn run(&mut self, text: &str, ctx: &Ctx) -> std::result::Result<(), ChunkError> {
        let b = text.as_bytes();
        let mut pos = 0;
        while pos < b.len() {
            self.line += 1;
            // Fast paths for the common forms of the three kinds of lines.
            let fast = match b.get(skip_blanks(b, pos)) {
                Some(b'0'..=b'9') if self.row_open => fast_transition(text, pos, &mut self.csr.numbers).map(
                    |(target, column, value, next, newline)| {
                        self.add_transition(ctx, target, value, column);
                        (next, newline)
                    },
                ),
                Some(b's') => self.fast_state(ctx, text, pos)?,
                Some(b'a') => self.fast_action(ctx, text, pos),
                _ => None,
            };
            if let Some((next, _)) = fast {
                if !std::mem::take(&mut self.name_slot_kept) {
                    self.name_slot = false;
                }
                pos = next;
                continue;
            }
            let (raw, next, _) = line_at(b, pos);
            let line = text.get(pos..pos + raw.len()).unwrap_or_default();
            self.general_line(ctx, line)?;
            pos = next;
        }
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
            let (v, q) = self.csr.numbers.plain_number(text, p)?;
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
            if ctx.header.kind == Kind::Mdp && ctx.build {
                FIRST_NAME + self.action_names.index(name)
            } else {
                INDEX
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
        let n = ctx.header.nr_states;
        self.csr.transition(n, None, target, value, self.line, column);
    }

    /// Checks and stores the row being read, if any.
    fn close_row(&mut self, ctx: &Ctx) {
        if !std::mem::take(&mut self.row_open) {
            return;
        }
        if !self.row_has_transition {
            self.empty_action.get_or_insert(self.row_line);
            if ctx.build {
                self.csr.block.end_row();
            }
            return;
        }
        let choice = self.choices_in_state - 1;
        let state = self.state_id();
        self.csr.close_row(state, choice, None, ctx.normalize, ctx.build);
    }

    /// Closes the current state, if any: its last row, a refused row sum, no rows at all.
    fn close_state(&mut self, ctx: &Ctx) {
        if !self.has_state {
            return;
        }
        self.close_row(ctx);
        let state = self.state_id();
        let keep = ctx.build && ctx.header.kind == Kind::Mdp;
        self.csr.close_state(state, self.choices_in_state, keep);
        if self.choices_in_state == 0 && self.csr.fault.is_none() {
            self.csr.fault = Some(ChunkError::at(self.state_line, 1, no_transitions_message(state)));
        }
        if self.names_ok && self.names.len() != self.states {
            self.names_ok = false;
            self.names.clear();
        }
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
    matrix: CsrParts<f64>,
    group_ptr: Vec<usize>,
    state_rewards: Flat,
    action_rewards: Flat,
    labels: BTreeMap<String, Vec<StateId>>,
    names: Vec<String>,
    names_ok: bool,
    codes: Vec<u32>,
    action_names: Names,
    named: bool,
}

impl Acc {
    /// Appends the chunks' results (in order), the large arrays on all cores.
    fn append(&mut self, chunks: &mut [Chunk], kind: Kind, k: usize) {
        let Acc {
            states,
            rows,
            matrix,
            group_ptr,
            state_rewards,
            action_rewards,
            ..
        } = self;
        let (states0, rows0) = (*states, *rows);
        let chunks_ref = &*chunks;
        let groups = (kind == Kind::Mdp).then_some(group_ptr);
        append_rows(
            matrix,
            groups,
            chunks_ref,
            |c| &c.csr,
            || {
                let (mut s, mut r) = (states0, rows0);
                for c in chunks_ref {
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
                if c.action_names.names.is_empty() {
                    self.codes.extend_from_slice(&c.codes);
                } else {
                    let map = self.action_names.merge(&c.action_names);
                    self.codes.extend(c.codes.iter().map(|&code| {
                        if code >= FIRST_NAME {
                            FIRST_NAME + map[(code - FIRST_NAME) as usize]
                        } else {
                            code
                        }
                    }));
                }
            }
            self.named |= c.named;
            self.states += c.states;
            self.rows += c.rows;
        }
    }
}

/// The reader of the `@model` section: the DRN line format for [`read_chunked`].
struct Reader<'a> {
    path: &'a Path,
    header: &'a Header,
    normalize: bool,
    acc: Acc,
    brackets: Brackets,
    /// States and choices of the chunks taken so far.
    states: usize,
    rows: usize,
    /// The first action without transitions; transitions out of range, duplicates, rows refused.
    empty_action: Option<Error>,
    faults: Faults,
}

impl LineFormat for Reader<'_> {
    type Chunk = Chunk;

    /// A line that begins (after blanks) with `state` and a blank.
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

    fn parse(
        &self,
        chunk: &mut Chunk,
        text: &str,
        first: bool,
        build: bool,
    ) -> std::result::Result<(), ChunkError> {
        let ctx = Ctx {
            header: self.header,
            brackets: self.brackets,
            starts_body: first,
            build,
            normalize: self.normalize,
        };
        chunk.reset(&ctx);
        chunk.run(text, &ctx)
    }

    /// The count of values in brackets is learnt from the file's first bracket (without
    /// `@reward_models`).
    fn learning(&self) -> bool {
        matches!(self.brackets, Brackets::Unknown)
    }

    fn learn(&mut self, chunk: &Chunk, lines_before: usize) -> bool {
        let Some((k, line)) = chunk.defined else {
            return false;
        };
        self.brackets = Brackets::Seen {
            k,
            line: lines_before + line,
        };
        true
    }

    fn relearn(&self, chunk: &Chunk) -> bool {
        chunk.bracket_seen
    }

    fn refused(&self) -> bool {
        self.empty_action.is_some() || self.faults.any()
    }

    fn take(
        &mut self,
        c: &mut Chunk,
        stop: Option<ChunkError>,
        lines_before: usize,
    ) -> std::result::Result<(), Halt> {
        let (path, header) = (self.path, self.header);
        let (n, expected) = (header.nr_states, self.states);
        if let Some((id, column)) = c.first_id {
            let place = |message: String| Halt::Stop(parse_error(path, lines_before + 1, column, message));
            if expected >= n {
                return Err(place(format!(
                    "more states than the {n} that @nr_states declares (line {})",
                    header.nr_states_line
                )));
            } else if id != expected {
                return Err(place(format!(
                    "states must be numbered 0, 1, 2, ... in order: expected state {expected}, found {id}"
                )));
            }
        }
        if let Some(e) = stop {
            return Err(Halt::Stop(e.into_error(path, lines_before, lines_before)));
        }
        self.states += c.states;
        self.rows += c.rows;
        if let Some(line) = c.empty_action
            && self.empty_action.is_none()
        {
            self.empty_action = Some(parse_error(
                path,
                lines_before + line,
                1,
                "this action has no transitions (every choice needs a distribution over next states)",
            ));
        }
        self.faults.keep(&mut c.csr, lines_before);
        Ok(())
    }

    fn append(&mut self, chunks: &mut [Chunk], build: bool) {
        if build {
            // The count as this window leaves it (a chunk may have set it).
            self.acc
                .append(chunks, self.header.kind, brackets_k(self.brackets));
        }
    }

    fn matrix(&mut self) -> &mut CsrParts<f64> {
        &mut self.acc.matrix
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
        acc: Acc {
            states: 0,
            rows: 0,
            matrix: CsrParts::default(),
            group_ptr: vec![0],
            state_rewards: Flat::default(),
            action_rewards: Flat::default(),
            labels: BTreeMap::new(),
            names: Vec::new(),
            names_ok: true,
            codes: Vec::new(),
            action_names: Names::default(),
            named: false,
        },
        brackets: if header.reward_names.is_empty() {
            Brackets::Unknown
        } else {
            Brackets::Declared(header.reward_names.len())
        },
        states: 0,
        rows: 0,
        empty_action: None,
        faults: Faults::default(),
    };
    read_chunked(path, stream, &mut reader, tuning, size)?;
    let Reader {
        acc,
        brackets,
        states,
        rows,
        empty_action,
        faults,
        ..
    } = reader;
    let last_line = stream.total_lines();
    if states != n {
        return Err(parse_error(
            path,
            header.nr_states_line,
            1,
            format!("@nr_states declares {n} states but the file has {states} (it ends on line {last_line})"),
        ));
    }
    if let Some(e) = empty_action {
        return Err(e);
    }
    if let Some((m, line)) = header.nr_choices
        && m != rows
    {
        return Err(parse_error(
            path,
            line,
            1,
            format!("@nr_choices declares {m} choices but the file has {rows}"),
        ));
    }
    let notes = faults.finish(path, last_line)?.into_iter().collect();
    let k = brackets_k(brackets);
    let action_names = (kind == Kind::Mdp && !acc.action_names.names.is_empty()).then(|| {
        let mut out = Vec::with_capacity(acc.rows);
        for g in 0..acc.states {
            for (i, &code) in acc.codes[acc.group_ptr[g]..acc.group_ptr[g + 1]]
                .iter()
                .enumerate()
            {
                out.push(match code {
                    NOLABEL => String::new(),
                    INDEX => i.to_string(),
                    c => acc.action_names.names[(c - FIRST_NAME) as usize].clone(),
                });
            }
        }
        out
    });
    let (row_ptr, cols, vals) = acc.matrix.into_arrays();
    Ok(Body {
        row_ptr,
        cols,
        vals,
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
