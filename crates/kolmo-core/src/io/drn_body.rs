//! The `@model` section of a DRN file for the chunked driver ([`super::chunked`]): chunks start at
//! `state` lines. Besides its rows a chunk keeps rewards in flat arrays (one value per reward model
//! per state or choice), labels, state names and action names ([`Parts`]), nothing allocated per
//! line or row. The general path follows Storm's grammar. The checks a sequential reader makes
//! after the section (state and choice counts, actions without transitions) come before the rows'
//! faults.

use super::chunked::{
    ChunkError, ChunkResult, ChunkRows, Faults, Halt, LineFormat, NumberCache, RowNames, Stream, Tuning,
    column_of, digits_u32, end_of_line, line_start_from, quote, read_chunked, skip_blanks, text_line,
};
use super::drn::{Header, split_token, value};
use super::rows::no_transitions_message;
use super::{Model, parse_error};
use crate::model::{RewardModel, StateSet};
use crate::{Error, Result, StateId};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The count of values in reward brackets, and where it comes from (for messages).
#[derive(Clone, Copy, Debug)]
enum Count {
    /// `@reward_models` declares this many names.
    Declared(usize),
    /// Set by the file's first bracket, on this line of the file.
    File { k: usize, line: usize },
    /// Set by a bracket on this line of the chunk.
    Chunk { k: usize, line: usize },
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
    /// Appends `items` items to this store of `before` items: their values, `None` for zeros.
    fn add(&mut self, before: usize, items: usize, k: usize, values: Option<&[f64]>) {
        match values {
            Some(v) => {
                if !self.seen {
                    self.values.resize(before * k, 0.0);
                    self.seen = true;
                }
                self.values.extend_from_slice(v);
            }
            None if self.seen => self.values.resize(self.values.len() + items * k, 0.0),
            None => {}
        }
    }

    /// The values stored, if a bracket was seen.
    fn seen(&self) -> Option<&[f64]> {
        self.seen.then_some(&self.values)
    }
}

/// Action codes of [`RowNames`]: no name (`__NOLABEL__`), and the choice's index as its name.
const NOLABEL: u32 = 0;
const INDEX: u32 = 1;

/// What states hold besides their rows: a chunk's (states counted from its first) or the file's.
#[derive(Default)]
struct Parts {
    states: usize,
    rows: usize,
    state_rewards: Flat,
    action_rewards: Flat,
    labels: BTreeMap<String, Vec<StateId>>,
    /// State names (comment lines after `state` lines) while every state has one.
    names: Vec<String>,
    /// Some state has no name.
    unnamed: bool,
    /// Per row (MDPs): [`NOLABEL`], [`INDEX`] or a name.
    actions: RowNames,
    /// Whether some row's action name is not just its index (or `__NOLABEL__`).
    named: bool,
    /// Per state of a game: its owner's index among the header's players.
    owners: Vec<u32>,
}

impl Parts {
    /// Appends `c`, the states after these, with `k` values per bracket.
    fn append(&mut self, c: &mut Parts, k: usize) {
        let base = self.states as StateId;
        for (label, members) in std::mem::take(&mut c.labels) {
            let states = self.labels.entry(label).or_default();
            states.extend(members.into_iter().map(|s| base + s));
        }
        self.state_rewards
            .add(self.states, c.states, k, c.state_rewards.seen());
        self.action_rewards
            .add(self.rows, c.rows, k, c.action_rewards.seen());
        self.unnamed |= c.unnamed;
        if self.unnamed {
            self.names = Vec::new();
        } else {
            self.names.append(&mut c.names);
        }
        self.actions.append(&c.actions);
        self.named |= c.named;
        self.owners.append(&mut c.owners);
        self.states += c.states;
        self.rows += c.rows;
    }
}

/// One chunk's parse: its results (in chunk-local line numbers and state indices) and the reader's
/// position while parsing. Reused from window to window.
#[derive(Default)]
struct Chunk {
    parts: Parts,
    /// The number and its column on the first `state` line of a chunk that does not start the
    /// body (checked against the states before it when the chunks are put together).
    first_id: Option<(usize, usize)>,
    /// The rows (CSR, checked), rows per state, and the first faults of each kind.
    csr: ChunkRows,
    /// The bracket count this chunk set, `(k, chunk line)`, when it started without one.
    defined: Option<(usize, usize)>,
    /// Whether the chunk holds any bracket.
    bracket_seen: bool,
    /// Line of the first action without transitions.
    empty_action: Option<usize>,

    // Position.
    line: usize,
    base: usize,
    state_line: usize,
    choices_in_state: u32,
    row_open: bool,
    row_has_transition: bool,
    row_line: usize,
    name_slot: bool,
    /// The line just read by a fast path opened the name slot.
    name_slot_kept: bool,
    /// The bracket count (`None`: the chunk's first bracket sets it).
    count: Option<Count>,
    bracket: Vec<f64>,
}

/// `name` is the decimal form of `v` (as `v.to_string()` writes it: no sign, no leading zero).
#[inline]
fn is_decimal(name: &str, v: u32) -> bool {
    let b = name.as_bytes();
    let (mut x, mut i) = (v, b.len());
    // The digits of `v` from the last, each at its place, and nothing before the first.
    while i > 0 && b[i - 1] == b'0' + (x % 10) as u8 {
        (x, i) = (x / 10, i - 1);
        if x == 0 {
            return i == 0;
        }
    }
    false
}

/// A transition line of the common form `target : number` (blanks anywhere between), read from
/// the bytes: the target, its column, the probability and where the next line starts. `None`
/// sends the line to the general path.
#[inline]
fn fast_transition(
    text: &str,
    start: usize,
    numbers: &mut NumberCache,
) -> Option<(StateId, usize, f64, usize)> {
    let b = text.as_bytes();
    let i = skip_blanks(b, start);
    let (target, j) = digits_u32(b, i)?;
    let k = skip_blanks(b, j);
    if b.get(k) != Some(&b':') {
        return None;
    }
    let k = skip_blanks(b, k + 1);
    let (value, e) = numbers.plain_number(text, k)?;
    let (next, _) = end_of_line(b, skip_blanks(b, e))?;
    Some((target, i - start + 1, value, next))
}

/// What is wrong with a `state` line numbered `id` where state `expected` comes next, if anything.
fn misnumbered(header: &Header, expected: usize, id: usize) -> Option<String> {
    let n = header.nr_states;
    if expected >= n {
        let line = header.nr_states_line;
        Some(format!(
            "more states than the {n} that @nr_states declares (line {line})"
        ))
    } else {
        (id != expected).then(|| {
            format!("states must be numbered 0, 1, 2, ... in order: expected state {expected}, found {id}")
        })
    }
}

impl Chunk {
    fn run(&mut self, text: &str, ctx: &Ctx) -> ChunkResult<()> {
        let b = text.as_bytes();
        let mut pos = 0;
        while pos < b.len() {
            self.line += 1;
            // Fast paths for the common forms of the three kinds of lines.
            let fast = match b.get(skip_blanks(b, pos)) {
                Some(b'0'..=b'9') if self.row_open => {
                    fast_transition(text, pos, &mut self.csr.numbers).map(|(target, column, value, next)| {
                        self.add_transition(ctx, target, value, column);
                        next
                    })
                }
                Some(b's') => self.fast_state(ctx, text, pos)?,
                Some(b'a') => self.fast_action(ctx, text, pos),
                _ => None,
            };
            if let Some(next) = fast {
                if !std::mem::take(&mut self.name_slot_kept) {
                    self.name_slot = false;
                }
                pos = next;
                continue;
            }
            let (line, next) = text_line(text, pos);
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

    /// A `state` line of the common form (`state <n> [r, ...] labels`, plain numbers in the
    /// bracket): where the next line starts. `Ok(None)` leaves the line to the general path, before
    /// anything was changed.
    fn fast_state(&mut self, ctx: &Ctx, text: &str, start: usize) -> ChunkResult<Option<usize>> {
        let b = text.as_bytes();
        let i = skip_blanks(b, start);
        if !(b[i..].starts_with(b"state") && matches!(b.get(i + 5), Some(b' ' | b'\t')))
            || ctx.header.players.is_some()
        {
            return Ok(None);
        }
        let j = skip_blanks(b, i + 5);
        let Some((id, k)) = digits_u32(b, j) else {
            return Ok(None);
        };
        if !matches!(b.get(k), None | Some(b' ' | b'\t' | b'\r' | b'\n')) {
            return Ok(None);
        }
        let mut p = skip_blanks(b, k);
        let bracket = b.get(p) == Some(&b'[');
        if bracket {
            match self.fast_bracket(text, p) {
                Some(q) => p = q,
                None => return Ok(None),
            }
        } else if matches!(b.get(p), Some(b'{' | b'!' | b'<')) {
            return Ok(None);
        }
        // The line is ASCII up to the number: its byte offset is its column.
        self.begin_state(ctx, id as usize, j - start + 1)?;
        self.push_rewards(ctx, true, bracket);
        let next = match end_of_line(b, skip_blanks(b, p)) {
            Some((next, _)) => next,
            None => {
                let (line, next) = text_line(text, start);
                self.labels(ctx, line, text.get(p..start + line.len()).unwrap_or_default())?;
                next
            }
        };
        self.name_slot = true;
        self.name_slot_kept = true;
        Ok(Some(next))
    }

    /// An `action` line of the common form (`action <name>` and perhaps a bracket of plain
    /// numbers): as [`fast_state`](Self::fast_state).
    fn fast_action(&mut self, ctx: &Ctx, text: &str, start: usize) -> Option<usize> {
        let b = text.as_bytes();
        let i = skip_blanks(b, start);
        if !(b[i..].starts_with(b"action") && matches!(b.get(i + 6), Some(b' ' | b'\t'))) {
            return None;
        }
        if self.parts.states == 0 || (!ctx.header.is_mdp && self.choices_in_state > 0) {
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
            p = skip_blanks(b, self.fast_bracket(text, p)?);
        }
        let (next, _) = end_of_line(b, p)?;
        self.open_row(ctx, text.get(j..e)?, bracket);
        Some(next)
    }

    /// Starts state `id`, whose number is at `column` of the current line, once it is checked to
    /// be the next state (the first of a chunk that does not start the body is checked later).
    fn begin_state(&mut self, ctx: &Ctx, id: usize, column: usize) -> ChunkResult<()> {
        if self.parts.states == 0 && !ctx.starts_body {
            self.base = id;
            self.first_id = Some((id, column));
        } else if let Some(message) = misnumbered(ctx.header, self.base.saturating_add(self.parts.states), id)
        {
            return Err(ChunkError::at(self.line, column, message));
        }
        self.close_state(ctx);
        self.parts.states += 1;
        self.state_line = self.line;
        self.choices_in_state = 0;
        Ok(())
    }

    /// Stores the rewards of the state (`state`) or choice just begun: the values of the bracket
    /// just read if `bracket`, else none.
    fn push_rewards(&mut self, ctx: &Ctx, state: bool, bracket: bool) {
        if ctx.build {
            let (k, values) = (
                self.count.map_or(0, Count::k),
                bracket.then_some(&self.bracket[..]),
            );
            let p = &mut self.parts;
            if state {
                p.state_rewards.add(p.states - 1, 1, k, values);
            } else {
                p.action_rewards.add(p.rows - 1, 1, k, values);
            }
        }
    }

    /// The number of the current state.
    fn state_id(&self) -> StateId {
        StateId::try_from(self.base + self.parts.states.saturating_sub(1)).unwrap_or(StateId::MAX)
    }

    fn err(&self, line: &str, at: &str, message: impl Into<String>) -> ChunkError {
        ChunkError::at(self.line, column_of(line, at), message)
    }

    /// [`err`](Self::err) at `at`, or at `or` if `at` is empty.
    fn err_or(&self, line: &str, at: &str, or: &str, message: impl Into<String>) -> ChunkError {
        self.err(line, if at.is_empty() { or } else { at }, message)
    }

    /// A line of any form, as Storm's grammar reads it.
    fn general_line(&mut self, ctx: &Ctx, line: &str) -> ChunkResult<()> {
        let t = line.trim();
        if t.is_empty() {
            return Ok(());
        }
        if let Some(comment) = t.strip_prefix("//") {
            let p = &mut self.parts;
            if std::mem::take(&mut self.name_slot) && ctx.build && !p.unnamed && p.names.len() + 1 == p.states
            {
                p.names.push(comment.trim().to_string());
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

    fn state_line(&mut self, ctx: &Ctx, line: &str, t: &str, rest: &str) -> ChunkResult<()> {
        let (id, rest) = split_token(rest.trim_start());
        let found = || format!("expected a state number after `state`, found {}", quote(id));
        let id_value = id
            .parse::<usize>()
            .map_err(|_| self.err_or(line, id, t, found()))?;
        self.begin_state(ctx, id_value, column_of(line, id))?;
        let mut rest = rest.trim_start();
        match (&ctx.header.players, rest.strip_prefix('<')) {
            (Some((names, _)), Some(inside)) => {
                let Some(end) = inside.find('>') else {
                    return Err(self.err(line, rest, "`>` missing after the player's name"));
                };
                let name = inside[..end].trim();
                let Some(i) = names.iter().position(|n| n == name) else {
                    let message = format!(
                        "no player {} (@players declares {})",
                        quote(name),
                        names.join(", ")
                    );
                    return Err(self.err_or(line, name, rest, message));
                };
                if ctx.build {
                    self.parts.owners.push(i as u32);
                }
                rest = inside[end + 1..].trim_start();
            }
            (Some(_), None) => {
                return Err(self.err_or(
                    line,
                    rest,
                    t,
                    "a game's state names the player who moves there, after its number: `state 0 <name> ...`",
                ));
            }
            (None, Some(_)) => {
                return Err(self.err(
                    line,
                    rest,
                    "`<player>` on a state line belongs to games (`@type: SMG`)",
                ));
            }
            (None, None) => {}
        }
        let refused = match rest.as_bytes().first() {
            Some(b'{') => "observations `{..}` belong to POMDPs, which kolmo does not read",
            Some(b'!') => "exit rates `!..` belong to continuous-time models, which kolmo does not read",
            _ => "",
        };
        if !refused.is_empty() {
            return Err(self.err(line, rest, refused));
        }
        let bracket = rest.starts_with('[');
        if bracket {
            rest = self.bracketed(ctx, line, rest)?;
        }
        self.push_rewards(ctx, true, bracket);
        self.labels(ctx, line, rest)?;
        self.name_slot = true;
        Ok(())
    }

    /// Reads the comma-separated values in `[...]` at the start of `rest` into `self.bracket` and
    /// checks their count; returns what follows the bracket.
    fn bracketed<'l>(&mut self, ctx: &Ctx, line: &'l str, rest: &'l str) -> ChunkResult<&'l str> {
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
        let gave = move |k, first| format!("{len} reward(s) in brackets; line {first} gave {k}");
        match self.count {
            Some(c) if c.k() == len => {}
            Some(Count::Declared(k)) => {
                let message = format!("{len} reward(s) in brackets; @reward_models declares {k}");
                return Err(self.err(line, rest, message));
            }
            Some(Count::File { k, line: first }) => return Err(self.err(line, rest, gave(k, first))),
            Some(Count::Chunk { k, line: first }) => {
                let column = column_of(line, rest);
                return Err(ChunkError::naming_lines(self.line, column, move |map| {
                    gave(k, map(first))
                }));
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
    fn labels(&mut self, ctx: &Ctx, line: &str, mut rest: &str) -> ChunkResult<()> {
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
                if token.starts_with('[') {
                    let message = "the state's rewards `[..]` go right after its number, before \
                                   its labels (`state 0 [2.5] init`)";
                    return Err(self.err(line, token, message));
                }
                if token.contains('"') {
                    return Err(self.err(line, token, format!("label {} holds a `\"`", quote(token))));
                }
                label = token;
                rest = after;
            }
            if ctx.build {
                let s = (self.parts.states - 1) as StateId;
                match self.parts.labels.get_mut(label) {
                    Some(states) => states.push(s),
                    None => {
                        self.parts.labels.insert(label.to_string(), vec![s]);
                    }
                }
            }
        }
    }

    fn action_line(&mut self, ctx: &Ctx, line: &str, t: &str, rest: &str) -> ChunkResult<()> {
        if self.parts.states == 0 {
            return Err(self.err(line, t, "`action` before the first `state`"));
        }
        if !ctx.header.is_mdp && self.choices_in_state > 0 {
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
                let message = format!("unexpected {} after the action rewards", quote(after.trim()));
                return Err(self.err(line, after.trim_start(), message));
            }
            true
        } else if !rest.is_empty() {
            let message = format!("unexpected {} after the action name", quote(rest));
            return Err(self.err(line, rest, message));
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
        let mdp = ctx.header.is_mdp;
        let code = if is_decimal(name, choice) {
            INDEX
        } else if name == "__NOLABEL__" {
            NOLABEL
        } else {
            self.parts.named = true;
            if mdp && ctx.build {
                self.parts.actions.code(name)
            } else {
                INDEX
            }
        };
        if ctx.build && mdp {
            self.parts.actions.codes.push(code);
        }
        self.parts.rows += 1;
        self.push_rewards(ctx, false, rewards);
    }

    fn transition_line(&mut self, ctx: &Ctx, line: &str, t: &str) -> ChunkResult<()> {
        if self.parts.states == 0 {
            return Err(self.err(line, t, format!("expected `state <number>`, found {}", quote(t))));
        }
        if self.choices_in_state == 0 {
            if ctx.header.is_mdp {
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
            let expected = "expected `state`, `action` or a transition `<target> : <probability>`";
            return Err(self.err(line, t, format!("{expected}, found {}", quote(t))));
        };
        let target_text = target.trim();
        let found = || format!("expected a target state number, found {}", quote(target_text));
        let target_value = target_text
            .parse::<StateId>()
            .map_err(|_| self.err_or(line, target_text, t, found()))?;
        let p_text = p.trim();
        let probability = value(p_text, &ctx.header.placeholders)
            .map_err(|m| self.err_or(line, p_text, t, format!("probability: {m}")))?;
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
        if self.parts.states == 0 {
            return;
        }
        self.close_row(ctx);
        let state = self.state_id();
        let keep = ctx.build && ctx.header.is_mdp;
        self.csr.close_state(state, self.choices_in_state, keep);
        if self.choices_in_state == 0 {
            (self.csr.fault)
                .get_or_insert_with(|| ChunkError::at(self.state_line, 1, no_transitions_message(state)));
        }
        let p = &mut self.parts;
        if !p.unnamed && p.names.len() != p.states {
            p.unnamed = true;
            p.names.clear();
        }
    }
}

/// The reader of the `@model` section: the DRN line format for [`read_chunked`], and the model as
/// it grows, window by window.
struct Reader<'a> {
    path: &'a Path,
    header: &'a Header,
    normalize: bool,
    /// The bracket count, once declared or learnt from the file's first bracket.
    count: Option<Count>,
    /// States and choices of the chunks taken so far.
    taken: (usize, usize),
    /// The first action without transitions; transitions out of range, duplicates, rows refused.
    empty_action: Option<Error>,
    faults: Faults,
    /// What the chunks taken hold besides their rows (kept while the model is not refused).
    parts: Parts,
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

    fn parse(&self, chunk: &mut Chunk, text: &str, first: bool, build: bool) -> ChunkResult<()> {
        let ctx = Ctx {
            header: self.header,
            starts_body: first,
            build,
            normalize: self.normalize,
        };
        // Only the rows' buffers (the biggest) are kept from the chunk's last use.
        let (mut csr, bracket) = (std::mem::take(&mut chunk.csr), std::mem::take(&mut chunk.bracket));
        csr.clear();
        *chunk = Chunk {
            csr,
            bracket,
            count: self.count,
            ..Chunk::default()
        };
        chunk.run(text, &ctx)
    }

    /// The count of values in brackets is learnt from the file's first bracket (without
    /// `@reward_models`).
    fn learning(&self) -> bool {
        self.count.is_none()
    }

    fn learn(&mut self, chunk: &Chunk, lines_before: usize) -> bool {
        let Some((k, line)) = chunk.defined else {
            return false;
        };
        self.count = Some(Count::File {
            k,
            line: lines_before + line,
        });
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
        let path = self.path;
        if let Some((id, column)) = c.first_id
            && let Some(message) = misnumbered(self.header, self.taken.0, id)
        {
            return Err(Halt::Stop(parse_error(path, lines_before + 1, column, message)));
        }
        if let Some(e) = stop {
            return Err(Halt::Stop(e.into_error(path, lines_before, lines_before)));
        }
        self.taken.0 += c.parts.states;
        self.taken.1 += c.parts.rows;
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
        if !self.refused() {
            // The count as this window leaves it (a chunk may have set it).
            self.parts.append(&mut c.parts, self.count.map_or(0, Count::k));
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

/// Reads the `@model` section from `stream` (positioned after the `@model` line) and makes the
/// model of it; returns the model with notes for the user.
/// While the chunks of a window are parsed, the next window is read.
///
/// # Errors
/// [`Error::Parse`] for the first malformed line, then for counts that differ from the header,
/// actions without transitions, transitions out of range, duplicates, and refused rows, as a
/// sequential reader finds them, then for a model without initial states; [`Error::Io`] if
/// reading fails.
pub(super) fn read_body<R: Read + Send>(
    path: &Path,
    stream: &mut Stream<R>,
    header: &Header,
    normalize: bool,
    tuning: Tuning,
) -> Result<(Model, Vec<String>)> {
    let (n, is_mdp) = (header.nr_states, header.is_mdp);
    let declared = header.reward_names.len();
    let mut r = Reader {
        path,
        header,
        normalize,
        count: (declared > 0).then_some(Count::Declared(declared)),
        taken: (0, 0),
        empty_action: None,
        faults: Faults::default(),
        parts: Parts::default(),
    };
    let csr = read_chunked(path, stream, &mut r, tuning)?.unwrap_or_default();
    let last_line = stream.total_lines();
    let (states, rows) = r.taken;
    // The body's errors are placed at column 1 of a line of the header.
    let at = |line: usize, message: String| parse_error(path, line, 1, message);
    if states != n {
        let message =
            format!("@nr_states declares {n} states but the file has {states} (it ends on line {last_line})");
        return Err(at(header.nr_states_line, message));
    }
    if let Some(e) = r.empty_action {
        return Err(e);
    }
    if let Some((m, line)) = header.nr_choices
        && m != rows
    {
        return Err(at(
            line,
            format!("@nr_choices declares {m} choices but the file has {rows}"),
        ));
    }
    let mut notes: Vec<String> = r.faults.finish(path, last_line)?.into_iter().collect();
    let mut parts = r.parts;
    let initial: Vec<StateId> = parts.labels.get("init").cloned().unwrap_or_default();
    if initial.is_empty() {
        let message = "no initial state: no state has the label `init`";
        return Err(at(header.model_line, message.into()));
    }
    let actions = &parts.actions;
    let action_names = (is_mdp && !actions.names.is_empty()).then(|| {
        let groups = csr.group_ptr.as_deref().unwrap_or_default().windows(2);
        let choices = groups.flat_map(|g| actions.codes[g[0]..g[1]].iter().enumerate());
        let name = |(i, &code): (usize, &u32)| match code {
            NOLABEL => String::new(),
            INDEX => i.to_string(),
            c => actions.name(c).unwrap_or_default().to_string(),
        };
        let mut out = Vec::with_capacity(parts.rows);
        out.extend(choices.map(name));
        out
    });
    // Reward models: column i of the bracketed values.
    let k = r.count.map_or(0, Count::k);
    let mut rewards = Vec::with_capacity(k);
    for i in 0..k {
        let name = header
            .reward_names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("rew{i}"));
        let mut model = RewardModel {
            state: reward_column(&mut parts.state_rewards, i, k),
            action: reward_column(&mut parts.action_rewards, i, k),
            transition: None,
        };
        if model.is_empty() {
            model.state = Some(vec![0.0; n]);
        }
        rewards.push((name, model));
    }
    // State names from the comment lines after each `state` line, if every state has a distinct one.
    let names = (!parts.unnamed && parts.names.len() == n).then_some(parts.names).filter(|names| {
        let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
        sorted.par_sort_unstable();
        let distinct = sorted.windows(2).all(|w| w[0] != w[1]);
        if !distinct {
            notes.push(
                "the comment lines after the `state` lines are not distinct, so they are not used as state names"
                    .to_string(),
            );
        }
        distinct
    });
    let matrix = csr.into_matrix(n);
    if !is_mdp && parts.named {
        notes.push("the action names of a DTMC are not kept".to_string());
    }
    let labels = (parts.labels.into_iter()).map(|(label, states)| (label, StateSet::from_states(n, states)));
    let model = match (
        super::assemble(is_mdp, matrix, initial, labels, names, rewards, action_names)?,
        &header.players,
    ) {
        (Model::Mdp(m), Some((players, _))) => Model::Mdp(m.with_players(parts.owners, players.clone())?),
        (model, _) => model,
    };
    Ok((model, notes))
}

/// Reward model `i` of `k` from values stored `k` per item: `None` when every value is zero (the
/// part is absent). With a single reward model the array itself is taken.
fn reward_column(flat: &mut Flat, i: usize, k: usize) -> Option<Vec<f64>> {
    let part: Vec<f64> = if k == 1 {
        flat.seen.then(|| std::mem::take(&mut flat.values))?
    } else {
        flat.seen()?.iter().skip(i).step_by(k).copied().collect()
    };
    part.par_iter().any(|&v| v != 0.0).then_some(part)
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
