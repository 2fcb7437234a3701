//! kolmo's JSON model files (schema in `docs/model-json.md`).
//!
//! **Reading** is one pass of serde_json over the text ([`read`]), with a [`Part`] for each part
//! of the schema. Transitions written state by state in increasing order (as [`write`] and most
//! tools write them) go straight into the model's CSR arrays, each row checked as it closes
//! ([`check_row`]); in any other order they are collected and sorted by [`build_matrix`] (the
//! file is then read again). The small parts (initial states, labels, rewards, comments) are read
//! into a tree of located values ([`Json`]) and checked once the transitions are known, whatever
//! the order of the keys.
//!
//! Every error names the line and column where the offending value (or key) starts, and its JSON
//! path (`transitions[17][1]`, `transitions.R.N`). Places are byte offsets into the text: leaves
//! (numbers, state references, keys) are read as serde_json's `RawValue`, a slice of the text;
//! containers start where the text says after the previous token. Offsets become line and column
//! only when a message needs them. Syntax errors are serde_json's, at its line and column. Every
//! probability and reward is read from its token as written by [`parse_number`].
//!
//! **Writing** emits the per-state map form with state names (when the model has them), labels,
//! initial states and reward models; numbers are written in their shortest form that reads back
//! to the same `f64`, so writing and reading gives the same model exactly.

use super::rows::{
    Entry, RowFault, RowScale, Written as RowEntry, append_row, build_matrix, check_row, duplicate_message,
    entry_fault, normalized_note, sum_message,
};
use super::text_out::{Form, Numbers, push_uint, write_states};
use super::{Model, ReadOptions, View, parse_error, parse_number};
use crate::model::{RewardModel, StateSet};
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId, excerpt};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::io::Write;
use std::ops::Range;
use std::path::Path;

/// The result of a part of the reader: an error of serde, or a [`Stop`].
type Res<T, E> = std::result::Result<T, E>;

/// Keys allowed at the top level.
const TOP_KEYS: &[&str] = &[
    "type",
    "states",
    "initial",
    "transitions",
    "labels",
    "rewards",
    "players",
    "comment",
];
/// Keys allowed in a reward model.
const REWARD_KEYS: &[&str] = &["state", "action", "transition"];
/// Deeper nesting than this is refused (the schema needs six levels).
const MAX_DEPTH: usize = 64;

/// Reads a model from `text`, the contents of `path` (`path` only names the file in messages);
/// returns it with notes for the user.
///
/// # Errors
/// [`Error::Parse`] at the line and column of the first error found (see `docs/model-json.md`,
/// "What is refused").
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut mode = Mode::default();
    loop {
        let mut r = Reader::new(path, text, mode, options.normalize);
        let mut de = serde_json::Deserializer::from_str(text);
        let start = r.skip_ws(0);
        let stop = match r
            .seed(start, TopPart)
            .deserialize(&mut de)
            .and_then(|()| de.end())
        {
            Ok(()) => match r.finish() {
                Ok(done) => return Ok(done),
                Err(stop) => stop,
            },
            Err(e) => r.stop.take().ok_or_else(|| syntax_error(path, &e))?,
        };
        match stop {
            Stop::Retry(next) => mode = next,
            // A file without "type" before "transitions" was read as a chain: the error may be
            // one of an MDP whose type comes later. Read it again with the transitions last.
            _ if r.assumed_dtmc && !mode.defer => mode.defer = true,
            stop => return Err(r.placed(stop)),
        }
    }
}

/// A syntax error of serde_json, at its line and column.
fn syntax_error(path: &Path, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    let message = message.rfind(" at line ").map_or(&*message, |i| &message[..i]);
    let (line, column) = (e.line().max(1), e.column().max(1));
    parse_error(path, line, column, format!("not valid JSON: {message}"))
}

/// How an attempt reads the transitions.
#[derive(Clone, Copy, Debug, Default)]
struct Mode {
    /// Read `"transitions"` after the rest of the top-level object.
    defer: bool,
    /// Collect the transitions and sort them ([`build_matrix`]): they are not in row order.
    collect: bool,
}

/// Why an attempt stopped.
#[derive(Debug)]
enum Stop {
    /// An error at a byte offset of the text.
    Fault { at: usize, message: String },
    /// An error already placed.
    Error(Error),
    /// Read again in this mode.
    Retry(Mode),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Error(e)
    }
}

/// Line and column (from 1; columns count characters) of byte offsets, advanced forwards.
#[derive(Clone, Copy, Debug, Default)]
struct Locator {
    pos: usize,
    /// The line breaks before `pos`, and the characters after the last of them.
    breaks: usize,
    chars: usize,
}

impl Locator {
    /// The line and column of byte `to` of `text`: linear in the distance from the last offset
    /// asked for when `to` is after it, from the start otherwise.
    fn at(&mut self, text: &str, to: usize) -> (usize, usize) {
        if to < self.pos {
            *self = Self::default();
        }
        let to = to.min(text.len());
        let gap = &text.as_bytes()[self.pos..to];
        let chars = |b: &[u8]| b.iter().filter(|&&c| c & 0xC0 != 0x80).count();
        match memchr::memrchr(b'\n', gap) {
            Some(last) => {
                self.breaks += memchr::memchr_iter(b'\n', gap).count();
                self.chars = chars(&gap[last + 1..]);
            }
            None => self.chars += chars(gap),
        }
        self.pos = to;
        (self.breaks + 1, self.chars + 1)
    }
}

/// A JSON value as written: a slice of the text (serde_json's `RawValue`).
#[derive(Clone, Copy, Debug)]
struct Raw<'de>(&'de str);

impl<'de> de::Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Res<Self, D::Error> {
        <&'de RawValue as de::Deserialize<'de>>::deserialize(d).map(|raw| Raw(raw.get()))
    }
}

impl<'de> Raw<'de> {
    fn is_string(self) -> bool {
        self.0.starts_with('"')
    }

    /// A string's contents, decoded (borrowed from the text unless it holds escapes).
    fn string(self) -> Cow<'de, str> {
        let Some(inner) = self.0.get(1..self.0.len().saturating_sub(1)) else {
            return Cow::Borrowed("");
        };
        if inner.contains('\\') {
            // An escape that is valid JSON but no Unicode text (a lone surrogate, `"\ud800"`)
            // keeps its escaped spelling rather than becoming "".
            serde_json::from_str(self.0).map_or(Cow::Borrowed(inner), Cow::Owned)
        } else {
            Cow::Borrowed(inner)
        }
    }

    /// What the value is, for "expected ..., found ..." messages.
    fn describe(self) -> String {
        match self.0.bytes().next().unwrap_or(b'"') {
            b'"' => format!("the string \"{}\"", excerpt(&self.string())),
            b'[' => "a list".into(),
            b'{' => "an object".into(),
            b't' | b'f' | b'n' => self.0.into(),
            _ => format!("the number {}", excerpt(self.0)),
        }
    }
}

/// A JSON path, made into text only for a message: `transitions`, `transitions.R`, `labels["a b"]`,
/// `transitions[3][1]`.
#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Name(&'a str),
    Key(&'a Seg<'a>, &'a str),
    Index(&'a Seg<'a>, usize),
}

impl fmt::Display for Seg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seg::Name(name) => f.write_str(name),
            Seg::Key(base, key) => f.write_str(&key_path(&base.to_string(), key)),
            Seg::Index(base, i) => write!(f, "{base}[{i}]"),
        }
    }
}

/// `base.key`, or `base["key"]` when the key is not an identifier.
fn key_path(base: &str, key: &str) -> String {
    let ident = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident {
        format!("{base}.{key}")
    } else {
        format!("{base}[{}]", json_string(&excerpt(key)))
    }
}

/// A whole number written as a JSON number or digit string (an index), if `raw` is one.
fn whole(raw: &str) -> Option<u64> {
    if raw.is_empty() {
        return None;
    }
    raw.bytes().try_fold(0u64, |n, b| {
        let digit = b.checked_sub(b'0').filter(|d| *d < 10)?;
        n.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// `"a", "b"` (excerpts) for messages.
fn quoted<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<String> = (items.into_iter())
        .map(|s| format!("\"{}\"", excerpt(s.as_ref())))
        .collect();
    items.join(", ")
}

/// The state of one attempt at reading a file (`'de`: the text and the file's name).
struct Reader<'de> {
    path: &'de Path,
    text: &'de str,
    mode: Mode,
    normalize: bool,
    /// Why reading stopped, when a part gave serde_json an error.
    stop: Option<Stop>,
    /// Places of the tree's values.
    locator: Locator,
    /// The last number token read and its value: model files repeat values.
    number_cache: (&'de str, f64),
    /// Where each top-level key was written.
    seen: [Option<usize>; 8],
    mdp: bool,
    /// `"type": "smg"`, and where that value is.
    game: Option<usize>,
    type_seen: bool,
    /// Whether the transitions were read as a chain's before any `"type"`.
    assumed_dtmc: bool,
    states: Option<States<'de>>,
    transitions: Option<Transitions>,
    /// Where the value of `"transitions"` starts.
    transitions_at: usize,
    /// `"transitions"` kept to be read after the rest of the object.
    deferred: Option<Raw<'de>>,
    /// `"initial"`, `"labels"`, `"rewards"`, `"players"`.
    parts: [Option<Json<'de>>; 4],
}

impl<'de> Reader<'de> {
    fn new(path: &'de Path, text: &'de str, mode: Mode, normalize: bool) -> Self {
        Reader {
            path,
            text,
            mode,
            normalize,
            stop: None,
            locator: Locator::default(),
            number_cache: ("", 0.0),
            seen: [None; 8],
            mdp: false,
            game: None,
            type_seen: false,
            assumed_dtmc: false,
            states: None,
            transitions: None,
            transitions_at: 0,
            deferred: None,
            parts: [None, None, None, None],
        }
    }

    /// `part` to read the value that starts at byte `start`.
    fn seed<P>(&mut self, start: usize, part: P) -> Seed<'_, 'de, P> {
        Seed { r: self, start, part }
    }

    /// The error `stop` (not a retry) at its line and column.
    fn placed(&self, stop: Stop) -> Error {
        match stop {
            Stop::Fault { at, message } => {
                let (line, column) = Locator::default().at(self.text, at);
                parse_error(self.path, line, column, message)
            }
            Stop::Error(e) => e,
            Stop::Retry(_) => Error::arg("model", "a retry is not an error"),
        }
    }

    /// Why serde_json gave the error `e`: a part's stop, or a syntax error.
    fn stopped(&mut self, e: &serde_json::Error) -> Stop {
        self.stop
            .take()
            .unwrap_or_else(|| Stop::Error(syntax_error(self.path, e)))
    }

    /// The line of byte `at`.
    fn line_of(&self, at: usize) -> usize {
        Locator::default().at(self.text, at).0
    }

    /// The byte offset of `s`, a slice of the text.
    fn offset(&self, s: &str) -> usize {
        s.as_ptr() as usize - self.text.as_ptr() as usize
    }

    /// Stops reading with `message` at byte `at`.
    fn fail<E: de::Error>(&mut self, at: usize, message: String) -> E {
        self.stop(Stop::Fault { at, message })
    }

    fn stop<E: de::Error>(&mut self, stop: Stop) -> E {
        self.stop = Some(stop);
        E::custom("stopped")
    }

    /// The byte at `at` (0 past the end).
    fn byte(&self, at: usize) -> u8 {
        self.text.as_bytes().get(at).copied().unwrap_or(0)
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        let b = self.text.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
            i += 1;
        }
        i
    }

    /// Where the value after byte `i` starts: past white space, one `:` or `,`, and white space.
    fn next_start(&self, i: usize) -> usize {
        self.skip_ws(self.skip_ws(i) + 1)
    }

    /// Where an item (or key) of the list or object that opens at `open` starts: the first after
    /// the bracket, a later one after the end of the one before (`end`).
    fn item_start(&self, open: usize, end: Option<usize>) -> usize {
        match end {
            None => self.skip_ws(open + 1),
            Some(end) => self.next_start(end),
        }
    }

    /// Where a list or object ends whose last item (or opening bracket) ends at `i`.
    fn close(&self, i: usize) -> usize {
        self.skip_ws(i) + 1
    }

    /// The value that starts at `start` as written.
    fn raw_at(&self, start: usize) -> Raw<'de> {
        let rest = self.text.get(start..).unwrap_or_default();
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<&RawValue>();
        match values.next() {
            Some(Ok(raw)) => Raw(raw.get()),
            _ => Raw(rest.chars().next().map_or("", |c| &rest[..c.len_utf8()])),
        }
    }

    /// Where a key read by [`KeySeed`] in the object that opens at `open` starts and ends: found
    /// from the text for a key serde_json borrowed; else after the end of the object's last value
    /// (`end`), or its opening brace.
    #[inline]
    #[allow(clippy::ptr_arg)] // Whether the key is borrowed is what tells where it is.
    fn key_place(&self, name: &Cow<'de, str>, open: usize, end: Option<usize>) -> (usize, usize) {
        if let Cow::Borrowed(s) = name {
            let at = self.offset(s) - 1;
            return (at, at + s.len() + 2);
        }
        let at = self.item_start(open, end);
        let b = self.text.as_bytes();
        let mut i = at + 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        (at, i + 1)
    }

    /// Stops reading at `start` with "`expected`, found (what is there)".
    fn expected<E: de::Error>(&mut self, start: usize, expected: String) -> E {
        let found = self.raw_at(start).describe();
        self.fail(start, format!("{expected}, found {found}"))
    }

    /// The key that starts at `at`, decoded.
    fn key_text(&self, at: usize) -> Cow<'de, str> {
        self.raw_at(at).string()
    }

    fn states(&self) -> &States<'de> {
        self.states
            .as_ref()
            .expect("states are read before anything refers to them")
    }

    /// A probability or reward as written: a JSON number, or a string holding a decimal or a
    /// fraction. The one place where the file's numbers become `f64`s.
    #[inline]
    fn number<E: de::Error>(&mut self, raw: Raw<'de>, what: &Seg<'_>) -> Res<f64, E> {
        if raw.0 == self.number_cache.0 {
            return Ok(self.number_cache.1);
        }
        let value = match raw.0.as_bytes()[0] {
            b'"' => parse_number(&raw.string()),
            b'-' | b'0'..=b'9' => parse_number(raw.0),
            _ => None,
        };
        match value {
            Some(v) => {
                self.number_cache = (raw.0, v);
                Ok(v)
            }
            None => Err(self.fail(self.offset(raw.0), number_message(what, raw.describe()))),
        }
    }

    /// The state `raw` (a string or a number) refers to; `what` is its JSON path.
    #[inline]
    fn state<E: de::Error>(&mut self, raw: Raw<'de>, what: &Seg<'_>) -> Res<StateId, E> {
        let r = match raw.0.as_bytes()[0] {
            b'"' => self.states().resolve(&raw.string(), true),
            b'-' | b'0'..=b'9' => self.states().resolve(raw.0, false),
            _ => Err(format!("expected a state, found {}", raw.describe())),
        };
        r.map_err(|m| self.fail(self.offset(raw.0), format!("{what}: {m}")))
    }

    /// The state an object key at `at` refers to; `what` is the object's JSON path. `guesses` are
    /// states the key probably names, checked before the index is looked up (in files written in
    /// row order, a map's next state is the one after the last, and a row's next target mostly
    /// too).
    #[inline]
    fn key_state<E: de::Error>(
        &mut self,
        key: &str,
        at: usize,
        what: &Seg<'_>,
        guesses: [usize; 2],
    ) -> Res<StateId, E> {
        let st = self.states();
        if let Some(names) = &st.names
            && let Some(&g) = guesses.iter().find(|&&g| names.get(g).is_some_and(|n| n == key))
        {
            return Ok(g as StateId);
        }
        st.resolve(key, true)
            .map_err(|m| self.fail(at, format!("{what}: {m}")))
    }

    /// A key given twice in one object (the first at `first`).
    fn twice<E: de::Error>(&mut self, key: &str, at: usize, first: usize) -> E {
        let line = self.line_of(first);
        let message = format!(
            "the key \"{}\" appears twice in this object (first on line {line})",
            excerpt(key)
        );
        self.fail(at, message)
    }

    /// The JSON path of a transition (or transition reward) under `base`: `transitions[3]`,
    /// `transitions.N.R`, `transitions.a.go.b`, `transitions.a[1].b`.
    fn entry_path(&self, base: &str, t: &Trans<'_>) -> String {
        if t.list {
            return format!("{base}[{}]", t.aux);
        }
        let p = key_path(base, &self.key_text(t.aux));
        let p = match &t.action {
            Act::Only => p,
            Act::Index(i) => format!("{p}[{i}]"),
            Act::Name(name) => key_path(&p, name),
        };
        key_path(&p, &self.key_text(t.at))
    }

    /// [`Self::entry_path`] of a transition with the states' names:
    /// `transitions.N.R: "N" (1) -> "R" (0)`.
    fn context(&self, t: &Trans<'_>) -> String {
        let path = self.entry_path("transitions", t);
        let st = self.states();
        match st.names {
            Some(_) => format!("{path}: {} -> {}", st.show(t.state), st.show(t.target)),
            None => path,
        }
    }

    /// A refusal of the transition `t` at its place: `message [at (its context)]`.
    fn refused(&self, t: &Trans<'_>, message: &str) -> Stop {
        let message = format!("{message} [at {}]", self.context(t));
        Stop::Fault { at: t.at, message }
    }

    /// The rest of the model, once the top-level object has been read.
    fn finish(&mut self) -> Res<(Model, Vec<String>), Stop> {
        let root = self.skip_ws(0);
        let missing = |key: &str| {
            let message = format!("the model has no \"{key}\" (see docs/model-json.md)");
            Stop::Fault { at: root, message }
        };
        if self.states.is_none() {
            return Err(missing("states"));
        }
        if let Some(raw) = self.deferred.take() {
            self.transitions_at = self.offset(raw.0);
            let mut de = serde_json::Deserializer::from_str(raw.0);
            let mut sink = Matrix::new(self);
            let part = TransPart::new(&mut sink, &TRANSITIONS);
            let read = self.seed(self.transitions_at, part).deserialize(&mut de);
            read.map_err(|e| self.stopped(&e))?;
            self.transitions = Some(sink.finish(self)?);
        }
        let Some(mut t) = self.transitions.take() else {
            return Err(missing("transitions"));
        };
        let [initial, labels, rewards, players] = std::mem::take(&mut self.parts);
        let st = self.states();
        let initial = match &initial {
            None => vec![0],
            Some(node) => st.one_or_many(node, "initial")?,
        };
        let mut label_sets = Vec::new();
        if let Some(node) = &labels {
            for m in st.object(node, "labels", &[])? {
                let p = key_path("labels", &m.key);
                let set = StateSet::from_states(st.n, st.one_or_many(&m.value, &p)?);
                label_sets.push((m.key.clone(), set));
            }
        }
        let mut reward_models = Vec::new();
        if let Some(node) = &rewards {
            for m in self.states().object(node, "rewards", &[])? {
                let p = key_path("rewards", &m.key);
                reward_models.push((m.key.clone(), self.reward_model(&m.value, &p, &t)?));
            }
        }
        let owners = self.players(players.as_ref())?;
        let names = self.states.take().and_then(|st| st.names);
        // The matrix was validated row by row: the constructors only restate it.
        let model = super::assemble(
            self.mdp,
            t.matrix,
            initial,
            label_sets,
            names,
            reward_models,
            t.action_names,
        )?;
        let model = match (model, owners) {
            (Model::Mdp(m), Some(p)) => Model::Mdp(m.with_players(p.owner, p.names)?),
            (model, _) => model,
        };
        Ok((model, std::mem::take(&mut t.notes)))
    }

    /// A game's `"players"`: `{ "name": [states...] }`, every state owned by exactly one player;
    /// each state's owner (an index in the players' order as written) and the names. Required
    /// with `"type": "smg"`, refused otherwise.
    fn players(&self, node: Option<&Json<'de>>) -> Res<Option<crate::model::Players>, Stop> {
        let Some(node) = node else {
            return match self.game {
                Some(at) => Err(Stop::Fault {
                    at,
                    message: "a game (\"type\": \"smg\") needs \"players\": { \"name\": [the states where that player chooses], ... }".into(),
                }),
                None => Ok(None),
            };
        };
        let st = self.states();
        if self.game.is_none() {
            return Err(Stop::Error(
                node.error(self.path, "\"players\" belongs to games: \"type\": \"smg\""),
            ));
        }
        let members = st.object(node, "players", &[])?;
        if members.is_empty() {
            return Err(Stop::Error(
                node.error(self.path, "players: a game needs at least one player"),
            ));
        }
        let mut owner = vec![u32::MAX; st.n];
        let mut names: Vec<String> = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            let p = key_path("players", &m.key);
            if let Err(why) = crate::model::player_name_problem(&m.key) {
                return Err(Stop::Error(m.error(self.path, format!("{p}: {why}"))));
            }
            for s in st.one_or_many(&m.value, &p)? {
                let first = owner[s as usize];
                if first == i as u32 {
                    let message = format!("{p}: state {} is listed twice", st.show(s));
                    return Err(Stop::Error(m.value.error(self.path, message)));
                }
                if first != u32::MAX {
                    let message = format!(
                        "{p}: state {} is already owned by player \"{}\"; each state has one player",
                        st.show(s),
                        excerpt(&names[first as usize])
                    );
                    return Err(Stop::Error(m.value.error(self.path, message)));
                }
                owner[s as usize] = i as u32;
            }
            names.push(m.key.to_string());
        }
        if let Some(s) = owner.iter().position(|&o| o == u32::MAX) {
            let message = format!("players: no player owns state {}", st.show(s as StateId));
            return Err(Stop::Error(node.error(self.path, message)));
        }
        Ok(Some(crate::model::Players { owner, names }))
    }

    /// One reward model `{"state": ..., "action": ..., "transition": ...}`.
    fn reward_model(&mut self, node: &Json<'de>, what: &str, t: &Transitions) -> Res<RewardModel, Stop> {
        let mut r = RewardModel::default();
        for m in self.states().object(node, what, REWARD_KEYS)? {
            let p = key_path(what, &m.key);
            let st = self.states();
            match m.key.as_str() {
                "state" => r.state = Some(st.per_state(&m.value, &p)?),
                // A chain's only choice in each state: one value per state.
                "action" if !self.mdp => r.action = Some(st.per_state(&m.value, &p)?),
                "action" => r.action = Some(st.per_action(&m.value, &p, t)?),
                _ => {
                    let mut sink = RewardSink {
                        t,
                        base: &p,
                        values: vec![0.0; t.matrix.nnz()],
                        first: vec![0; t.matrix.nnz()],
                    };
                    let text = self.text;
                    let mut de = serde_json::Deserializer::from_str(&text[m.value.start..m.value.end]);
                    let base = Seg::Name(&p);
                    let read = self
                        .seed(m.value.start, TransPart::new(&mut sink, &base))
                        .deserialize(&mut de);
                    read.map_err(|e| self.stopped(&e))?;
                    r.transition = Some(sink.values);
                }
            }
        }
        Ok(r)
    }
}

/// "`what`: expected a number ..., found `found`".
fn number_message(what: &dyn fmt::Display, found: String) -> String {
    format!("{what}: expected a number (a decimal like 0.25 or a fraction like \"1/3\"), found {found}")
}

// ---------------------------------------------------------------------------------------------
// The parts of the schema

/// A part of the schema as serde_json reads it, through a [`Seed`] that knows where its value
/// starts: `seq` reads a list and `map` an object when the part takes them ([`Part::OPENS`]),
/// `leaf` anything else; by default each refuses the value with "[`Part::expected`], found (what
/// is there)".
trait Part<'de>: Sized {
    type Value;

    /// The opening brackets (`[`, `{`) of the lists and objects the part reads.
    const OPENS: &'static [u8];

    /// What the part takes, for messages: "`path`: expected ...".
    fn expected(&self, r: &Reader<'de>) -> String;

    fn seq<A: SeqAccess<'de>>(self, r: &mut Reader<'de>, start: usize, _: A) -> Res<Self::Value, A::Error> {
        Err(refuse(self, r, start))
    }

    fn map<M: MapAccess<'de>>(self, r: &mut Reader<'de>, start: usize, _: M) -> Res<Self::Value, M::Error> {
        Err(refuse(self, r, start))
    }

    fn leaf<D: Deserializer<'de>>(
        self,
        r: &mut Reader<'de>,
        start: usize,
        _: D,
    ) -> Res<Self::Value, D::Error> {
        Err(refuse(self, r, start))
    }
}

/// Stops reading at `start` with "(what `part` takes), found (what is there)".
fn refuse<'de, E: de::Error>(part: impl Part<'de>, r: &mut Reader<'de>, start: usize) -> E {
    let expected = part.expected(r);
    r.expected(start, expected)
}

/// A [`Part`] reading the value that starts at byte `start`: serde's seed and visitor for it.
struct Seed<'a, 'de, P> {
    r: &'a mut Reader<'de>,
    start: usize,
    part: P,
}

impl<'de, P: Part<'de>> DeserializeSeed<'de> for Seed<'_, 'de, P> {
    type Value = P::Value;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Res<P::Value, D::Error> {
        if P::OPENS.contains(&self.r.byte(self.start)) {
            d.deserialize_any(self)
        } else {
            self.part.leaf(self.r, self.start, d)
        }
    }
}

impl<'de, P: Part<'de>> Visitor<'de> for Seed<'_, 'de, P> {
    type Value = P::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.part.expected(self.r))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Res<P::Value, A::Error> {
        self.part.seq(self.r, self.start, seq)
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Res<P::Value, M::Error> {
        self.part.map(self.r, self.start, map)
    }
}

/// An object's key, decoded: borrowed from the text unless it holds escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Res<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Res<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E>(self, s: &str) -> Res<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
}

/// The top-level object.
struct TopPart;

impl<'de> Part<'de> for TopPart {
    const OPENS: &'static [u8] = b"{";
    type Value = ();

    fn expected(&self, _: &Reader<'de>) -> String {
        "the model: expected an object".into()
    }

    fn map<M: MapAccess<'de>>(self, r: &mut Reader<'de>, _: usize, mut map: M) -> Res<(), M::Error> {
        while let Some(key) = map.next_key::<Raw<'de>>()? {
            let at = r.offset(key.0);
            let name = key.string();
            let Some(slot) = TOP_KEYS.iter().position(|k| *k == name) else {
                let message = format!(
                    "unknown key \"{}\" in the model; the keys are {}",
                    excerpt(&name),
                    quoted(TOP_KEYS.iter())
                );
                return Err(r.fail(at, message));
            };
            if let Some(first) = r.seen[slot] {
                return Err(r.twice(&name, at, first));
            }
            r.seen[slot] = Some(at);
            let start = r.next_start(at + key.0.len());
            match TOP_KEYS[slot] {
                "type" => {
                    let raw: Raw<'de> = map.next_value()?;
                    r.mdp = match &*raw.string() {
                        "dtmc" if raw.is_string() => false,
                        "mdp" if raw.is_string() => true,
                        "smg" if raw.is_string() => {
                            r.game = Some(start);
                            true
                        }
                        _ => {
                            let message = format!(
                                "type: expected \"dtmc\", \"mdp\" or \"smg\", found {}",
                                raw.describe()
                            );
                            return Err(r.fail(start, message));
                        }
                    };
                    if r.mdp && r.assumed_dtmc {
                        let mode = Mode {
                            defer: true,
                            ..r.mode
                        };
                        return Err(r.stop(Stop::Retry(mode)));
                    }
                    r.type_seen = true;
                }
                "states" => r.states = Some(map.next_value_seed(r.seed(start, StatesPart))?),
                "transitions" if r.states.is_some() && (r.type_seen || !r.mode.defer) => {
                    r.assumed_dtmc = !r.type_seen;
                    r.transitions_at = start;
                    let mut sink = Matrix::new(r);
                    map.next_value_seed(r.seed(start, TransPart::new(&mut sink, &TRANSITIONS)))?;
                    r.transitions = Some(sink.finish(r).map_err(|stop| r.stop(stop))?);
                }
                "transitions" => r.deferred = Some(map.next_value()?),
                key => {
                    let tree = map.next_value_seed(r.seed(start, TreePart { depth: 1 }))?;
                    if let Some(i) = ["initial", "labels", "rewards", "players"]
                        .iter()
                        .position(|k| *k == key)
                    {
                        r.parts[i] = Some(tree);
                    }
                }
            }
        }
        Ok(())
    }
}

/// `"states"`: a count from 1 to `StateId::MAX`, or a non-empty list of distinct names.
struct StatesPart;

impl<'de> Part<'de> for StatesPart {
    const OPENS: &'static [u8] = b"[";
    type Value = States<'de>;

    fn expected(&self, _: &Reader<'de>) -> String {
        "states: expected a number of states or a non-empty list of names".into()
    }

    fn seq<S: SeqAccess<'de>>(
        self,
        r: &mut Reader<'de>,
        start: usize,
        mut seq: S,
    ) -> Res<States<'de>, S::Error> {
        // The names first: the index is then made at its size, without growing.
        let mut raws: Vec<Raw<'de>> = Vec::new();
        while let Some(raw) = seq.next_element::<Raw<'de>>()? {
            let i = raws.len();
            if !raw.is_string() {
                let message = format!(
                    "states[{i}]: a state name must be a string, found {}",
                    raw.describe()
                );
                return Err(r.fail(r.offset(raw.0), message));
            }
            if i >= StateId::MAX as usize {
                return Err(r.fail(start, format!("states: more than {} states", StateId::MAX)));
            }
            raws.push(raw);
        }
        if raws.is_empty() {
            return Err(r.fail(start, format!("{}, found a list", self.expected(r))));
        }
        let mut index = NameIndex::with_capacity_and_hasher(raws.len(), Default::default());
        let mut names = Vec::with_capacity(raws.len());
        for (i, raw) in raws.iter().enumerate() {
            let name = raw.string();
            names.push(name.to_string());
            if let Some(first) = index.insert(name, i as StateId) {
                let message = format!(
                    "states[{i}]: the name \"{}\" is also state {first}; names must be distinct",
                    excerpt(&names[i])
                );
                return Err(r.fail(r.offset(raw.0), message));
            }
        }
        Ok(States {
            path: r.path,
            n: names.len(),
            names: Some(names),
            index,
        })
    }

    fn leaf<D: Deserializer<'de>>(
        self,
        r: &mut Reader<'de>,
        start: usize,
        d: D,
    ) -> Res<States<'de>, D::Error> {
        let raw = <Raw<'de> as de::Deserialize<'de>>::deserialize(d)?;
        match whole(raw.0) {
            Some(n) if n >= 1 && n <= u64::from(StateId::MAX) => Ok(States {
                path: r.path,
                n: n as usize,
                names: None,
                index: NameIndex::default(),
            }),
            _ if raw.0.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => {
                let message = format!(
                    "states: expected a number of states from 1 to {} or a list of names, found {}",
                    StateId::MAX,
                    raw.describe()
                );
                Err(r.fail(start, message))
            }
            _ => Err(r.fail(start, format!("{}, found {}", self.expected(r), raw.describe()))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Transitions

/// How an action (choice) is named in a transition or reward.
#[derive(Clone, Debug, Default, PartialEq)]
enum Act<'de> {
    /// A Markov chain's only choice.
    #[default]
    Only,
    /// The choice's number within its state.
    Index(u32),
    /// The choice's name.
    Name(Cow<'de, str>),
}

/// A transition (or transition reward) as written: from `state` by `action` to `target`.
#[derive(Clone, Debug)]
struct Trans<'de> {
    state: StateId,
    action: Act<'de>,
    target: StateId,
    value: f64,
    /// Where it was written: the list item, or the key of the target.
    at: usize,
    /// The list item's index (list form), or where the key of the source state starts (map form).
    aux: usize,
    /// Whether it is written in the list form.
    list: bool,
}

/// Where the transitions of a `"transitions"` (or a reward's `"transition"`) value go.
trait Sink<'de> {
    fn push(&mut self, r: &Reader<'de>, t: Trans<'de>) -> Res<(), Stop>;
}

/// How an item of the list form is written.
fn shape(mdp: bool) -> &'static str {
    if mdp {
        "[from, action, to, value]"
    } else {
        "[from, to, value]"
    }
}

/// The transitions in either form: a list of `[from, to, value]` (`[from, action, to, value]` for
/// an MDP), or a map `{from: {to: value}}` (`{from: {action: {to: value}}}` or
/// `{from: [{to: value}, ...]}`), each passed to the sink in file order.
struct TransPart<'a, S> {
    sink: &'a mut S,
    base: &'a Seg<'a>,
}

/// The JSON path of the transitions.
const TRANSITIONS: Seg<'static> = Seg::Name("transitions");

impl<'a, S> TransPart<'a, S> {
    fn new(sink: &'a mut S, base: &'a Seg<'a>) -> Self {
        Self { sink, base }
    }
}

impl<'de, S: Sink<'de>> Part<'de> for TransPart<'_, S> {
    const OPENS: &'static [u8] = b"[{";
    type Value = ();

    fn expected(&self, r: &Reader<'de>) -> String {
        format!(
            "{}: expected a list of {} or a map from states",
            self.base,
            shape(r.mdp)
        )
    }

    fn seq<A: SeqAccess<'de>>(self, r: &mut Reader<'de>, start: usize, mut seq: A) -> Res<(), A::Error> {
        let mut end = None;
        for index in 0.. {
            let item = ItemPart {
                sink: &mut *self.sink,
                base: self.base,
                index,
            };
            match seq.next_element_seed(r.seed(r.item_start(start, end), item))? {
                Some(e) => end = Some(e),
                None => break,
            }
        }
        Ok(())
    }

    fn map<M: MapAccess<'de>>(self, r: &mut Reader<'de>, open: usize, mut map: M) -> Res<(), M::Error> {
        let base = self.base;
        // The source state and key of each member: one state may be written as two keys ("1"
        // and "01"), but a key must not be given twice.
        let mut keys: Vec<(StateId, usize)> = Vec::new();
        let mut end = None;
        while let Some(name) = map.next_key_seed(KeySeed)? {
            let (at, key_end) = r.key_place(&name, open, end);
            let guess = keys.last().map_or(0, |k| k.0 as usize + 1);
            let state = r.key_state(&name, at, base, [guess, guess])?;
            keys.push((state, at));
            let start = r.next_start(key_end);
            let path = Seg::Key(base, &name);
            let dist = DistPart {
                sink: &mut *self.sink,
                path: &path,
                state,
                action: Act::Only,
                member: at,
            };
            end = Some(match r.mdp {
                true => map.next_value_seed(r.seed(start, ActionsPart(dist)))?,
                false => map.next_value_seed(r.seed(start, dist))?,
            });
        }
        if !keys.windows(2).all(|w| w[0].0 < w[1].0) {
            keys.sort_by_key(|k| k.0);
            for group in keys.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
                for (i, second) in group.iter().enumerate() {
                    let text = r.key_text(second.1);
                    if let Some(first) = group[..i].iter().find(|f| r.key_text(f.1) == text) {
                        let (first, second) = (first.1.min(second.1), first.1.max(second.1));
                        return Err(r.twice(&text, second, first));
                    }
                }
            }
        }
        Ok(())
    }
}

/// One item `[from, (action,) to, value]` of the list form; gives where it ends.
struct ItemPart<'a, S> {
    sink: &'a mut S,
    base: &'a Seg<'a>,
    index: usize,
}

impl<'de, S: Sink<'de>> Part<'de> for ItemPart<'_, S> {
    const OPENS: &'static [u8] = b"[";
    type Value = usize;

    fn expected(&self, r: &Reader<'de>) -> String {
        format!("{}: expected {}", Seg::Index(self.base, self.index), shape(r.mdp))
    }

    fn seq<A: SeqAccess<'de>>(self, r: &mut Reader<'de>, start: usize, mut seq: A) -> Res<usize, A::Error> {
        let mdp = r.mdp;
        let want = 3 + usize::from(mdp);
        let mut parts = [Raw(""); 4];
        let mut count = 0;
        let mut end = start + 1;
        while let Some(raw) = seq.next_element::<Raw<'de>>()? {
            end = r.offset(raw.0) + raw.0.len();
            if count < parts.len() {
                parts[count] = raw;
            }
            count += 1;
        }
        let end = r.close(end);
        let p = Seg::Index(self.base, self.index);
        if count != want {
            let shape = shape(mdp);
            let message = if !mdp && count == 4 {
                format!(
                    "{p}: a Markov chain's transition is {shape}; four entries are an MDP's (add \"type\": \"mdp\")"
                )
            } else {
                format!("{p}: expected {shape}, found a list of {count} entries")
            };
            return Err(r.fail(start, message));
        }
        let action = match parts[1] {
            _ if !mdp => Act::Only,
            a if a.is_string() => Act::Name(a.string()),
            a => match whole(a.0).and_then(|i| u32::try_from(i).ok()) {
                Some(i) => Act::Index(i),
                None => {
                    let message = format!(
                        "{p}[1]: an action is a name or a choice number, found {}",
                        a.describe()
                    );
                    return Err(r.fail(r.offset(a.0), message));
                }
            },
        };
        let k = usize::from(mdp);
        let t = Trans {
            state: r.state(parts[0], &Seg::Index(&p, 0))?,
            action,
            target: r.state(parts[1 + k], &Seg::Index(&p, 1 + k))?,
            value: r.number(parts[2 + k], &Seg::Index(&p, 2 + k))?,
            at: start,
            aux: self.index,
            list: true,
        };
        self.sink.push(r, t).map_err(|stop| r.stop(stop))?;
        Ok(end)
    }
}

/// An MDP state's actions: `{action: distribution}` or `[distribution, ...]`, each read as a
/// [`DistPart::choice`] of the state's; gives where they end.
struct ActionsPart<'a, 'de, S>(DistPart<'a, 'de, S>);

impl<'de, S: Sink<'de>> Part<'de> for ActionsPart<'_, 'de, S> {
    const OPENS: &'static [u8] = b"[{";
    type Value = usize;

    fn expected(&self, _: &Reader<'de>) -> String {
        format!(
            "{}: expected the state's actions, {{\"action\": {{\"state\": p, ...}}, ...}} or a list [{{\"state\": p, ...}}, ...]",
            self.0.path
        )
    }

    fn map<M: MapAccess<'de>>(self, r: &mut Reader<'de>, open: usize, mut map: M) -> Res<usize, M::Error> {
        let mut of_state = self.0;
        let mut names: Vec<(Cow<'de, str>, usize)> = Vec::new();
        let mut end = open + 1;
        while let Some(key) = map.next_key::<Raw<'de>>()? {
            let at = r.offset(key.0);
            let name = key.string();
            if let Some(first) = names.iter().find(|n| n.0 == name) {
                return Err(r.twice(&name, at, first.1));
            }
            let path = Seg::Key(of_state.path, &name);
            let dist = of_state.choice(&path, Act::Name(name.clone()));
            end = map.next_value_seed(r.seed(r.next_start(at + key.0.len()), dist))?;
            names.push((name, at));
        }
        Ok(r.close(end))
    }

    fn seq<A: SeqAccess<'de>>(self, r: &mut Reader<'de>, open: usize, mut seq: A) -> Res<usize, A::Error> {
        let (mut of_state, mut end) = (self.0, None);
        for i in 0.. {
            let start = r.item_start(open, end);
            let path = Seg::Index(of_state.path, i);
            let Ok(choice) = u32::try_from(i) else {
                return Err(r.fail(start, format!("{path}: too many actions")));
            };
            match seq.next_element_seed(r.seed(start, of_state.choice(&path, Act::Index(choice))))? {
                Some(e) => end = Some(e),
                None => break,
            }
        }
        Ok(r.close(end.unwrap_or(open + 1)))
    }
}

/// One distribution `{to: value, ...}` out of `state` by `action`; gives where it ends.
struct DistPart<'a, 'de, S> {
    sink: &'a mut S,
    path: &'a Seg<'a>,
    state: StateId,
    action: Act<'de>,
    /// Where the key of the source state starts.
    member: usize,
}

impl<'de, S> DistPart<'_, 'de, S> {
    /// The distribution of the same state's choice `action`, at `path`.
    fn choice<'b>(&'b mut self, path: &'b Seg<'b>, action: Act<'de>) -> DistPart<'b, 'de, S> {
        let (state, member) = (self.state, self.member);
        DistPart {
            sink: &mut *self.sink,
            path,
            state,
            action,
            member,
        }
    }
}

impl<'de, S: Sink<'de>> Part<'de> for DistPart<'_, 'de, S> {
    const OPENS: &'static [u8] = b"{";
    type Value = usize;

    fn expected(&self, _: &Reader<'de>) -> String {
        format!("{}: expected an object", self.path)
    }

    #[inline]
    fn map<M: MapAccess<'de>>(self, r: &mut Reader<'de>, open: usize, mut map: M) -> Res<usize, M::Error> {
        let mut end = None;
        // The next target probably follows the last one guessed right, or skips one.
        let mut guess = self.state as usize + 1;
        while let Some(name) = map.next_key_seed(KeySeed)? {
            let (at, _) = r.key_place(&name, open, end);
            let target = r.key_state(&name, at, self.path, [guess, guess + 1])?;
            if target as usize == guess || target as usize == guess + 1 {
                guess = target as usize + 1;
            }
            let raw: Raw<'de> = map.next_value()?;
            let value = r.number(raw, &Seg::Key(self.path, &name))?;
            end = Some(r.offset(raw.0) + raw.0.len());
            let t = Trans {
                state: self.state,
                action: self.action.clone(),
                target,
                value,
                at,
                aux: self.member,
                list: false,
            };
            self.sink.push(r, t).map_err(|stop| r.stop(stop))?;
        }
        Ok(r.close(end.unwrap_or(open + 1)))
    }
}

/// The transitions read: the matrix, an MDP's action names in row order, the notes.
struct Transitions {
    matrix: CsrMatrix,
    action_names: Option<Vec<String>>,
    notes: Vec<String>,
}

impl Transitions {
    /// The row of `state`'s choice `action`.
    fn choice_row(&self, st: &States<'_>, state: StateId, action: &Act<'_>) -> Res<usize, String> {
        let rows = self.matrix.group_rows(state as usize);
        match action {
            Act::Only => Ok(rows.start),
            Act::Index(i) if (*i as usize) < rows.len() => Ok(rows.start + *i as usize),
            Act::Index(i) => Err(format!(
                "state {} has no choice {i} (it has {})",
                st.show(state),
                rows.len()
            )),
            Act::Name(name) => {
                let names = self.action_names.as_deref().ok_or_else(|| {
                    format!(
                        "action \"{}\": the actions have no names, so refer to them by number",
                        excerpt(name)
                    )
                })?;
                rows.clone().find(|&r| names[r] == **name).ok_or_else(|| {
                    format!(
                        "state {} has no action \"{}\" (its actions are {})",
                        st.show(state),
                        excerpt(name),
                        quoted(rows.map(|r| &names[r]))
                    )
                })
            }
        }
    }
}

/// Checks `t` against `naming`: whether the actions of an MDP are named, and where the first
/// transition (which sets it) said so.
fn check_naming(naming: &mut Option<(bool, usize)>, r: &Reader<'_>, t: &Trans<'_>) -> Res<(), Stop> {
    let named = matches!(t.action, Act::Name(_));
    let (first, at) = *naming.get_or_insert((named, t.at));
    if first == named {
        return Ok(());
    }
    let (path, line) = (r.entry_path("transitions", t), r.line_of(at));
    Err(Stop::Fault {
        at: t.at,
        message: format!(
            "{path}: actions are named in some transitions and numbered in others (first on line {line}); name every action or none"
        ),
    })
}

/// The sink of `"transitions"`: in row order into CSR arrays, or in any order collected to be
/// sorted. Refuses a negative (or not finite) probability at its transition's place.
#[allow(clippy::large_enum_variant)] // One per read.
enum Matrix<'de> {
    Rows(Rows<'de>),
    Collect(Vec<Trans<'de>>),
}

impl<'de> Sink<'de> for Matrix<'de> {
    #[inline]
    fn push(&mut self, r: &Reader<'de>, t: Trans<'de>) -> Res<(), Stop> {
        if let Some(message) = entry_fault(r.states().n, None, t.target, t.value) {
            return Err(r.refused(&t, &message));
        }
        match self {
            Matrix::Rows(rows) => rows.push(r, t),
            Matrix::Collect(all) => {
                all.push(t);
                Ok(())
            }
        }
    }
}

impl<'de> Matrix<'de> {
    /// The sink for the reader's mode.
    fn new(r: &Reader<'de>) -> Self {
        match r.mode.collect {
            true => Matrix::Collect(Vec::new()),
            false => Matrix::Rows(Rows::new(r.mdp, r.normalize)),
        }
    }

    fn finish(self, r: &Reader<'_>) -> Res<Transitions, Stop> {
        match self {
            Matrix::Rows(rows) => rows.finish(r),
            Matrix::Collect(all) => collected(r, &all),
        }
    }
}

/// Transitions in row order going into CSR arrays, each row checked as it closes.
#[derive(Default)]
struct Rows<'de> {
    mdp: bool,
    normalize: bool,
    row_ptr: Vec<usize>,
    cols: Vec<StateId>,
    vals: Vec<f64>,
    group_ptr: Vec<usize>,
    /// The state whose group is open (or, once closed, the last state).
    state: Option<StateId>,
    /// The number of the open choice within its state, and how it is written.
    choice: u32,
    action: Act<'de>,
    naming: Option<(bool, usize)>,
    /// The names of the open state's actions, in choice order.
    state_actions: Vec<Cow<'de, str>>,
    /// Action names of the closed states, in row order.
    action_names: Vec<String>,
    /// The open row; `line` holds the byte offset of each entry, `column` its `aux`.
    row: Vec<RowEntry>,
    list: bool,
    rescaled: usize,
    worst: f64,
    /// The first row refused, with its state, choice and action: reported once the transitions
    /// have shown that they are in row order (else the row may go on later in the file).
    fault: Option<(RowFault, StateId, u32, Act<'de>)>,
}

impl<'de> Rows<'de> {
    fn new(mdp: bool, normalize: bool) -> Self {
        Self {
            mdp,
            normalize,
            row_ptr: vec![0],
            group_ptr: vec![0],
            ..Self::default()
        }
    }

    /// Takes one transition; asks for the transitions to be collected when it does not continue
    /// the open row, open the open state's next choice, or open the next state.
    #[inline]
    fn push(&mut self, r: &Reader<'de>, t: Trans<'de>) -> Res<(), Stop> {
        if self.mdp {
            check_naming(&mut self.naming, r, &t)?;
        }
        self.list = t.list;
        let unordered = Stop::Retry(Mode {
            collect: true,
            ..r.mode
        });
        let same = self.state == Some(t.state);
        let next = match self.state {
            Some(s) => t.state as usize == s as usize + 1,
            None => t.state == 0,
        };
        let new_choice = match &t.action {
            Act::Only | Act::Index(0) | Act::Name(_) if next => {
                self.next_state(t.state);
                true
            }
            Act::Only if same => false,
            Act::Index(i) if same && *i == self.choice => false,
            Act::Index(i) if same && Some(*i) == self.choice.checked_add(1) => true,
            Act::Name(name) if same && self.state_actions.last() == Some(name) => false,
            Act::Name(name) if same && !self.state_actions.contains(name) => true,
            _ => return Err(unordered),
        };
        if new_choice {
            if !next {
                self.close_row();
                self.choice += 1;
            }
            if let Act::Name(name) = &t.action {
                self.state_actions.push(name.clone());
            }
            self.action = t.action.clone();
        }
        self.row.push(RowEntry {
            target: t.target,
            value: t.value,
            line: t.at,
            column: t.aux,
        });
        Ok(())
    }

    /// Closes the open state (if any) and opens `state`.
    fn next_state(&mut self, state: StateId) {
        if self.state.is_some() {
            self.close_state();
        }
        self.state = Some(state);
        self.choice = 0;
    }

    /// Checks the open row as [`build_matrix`] would and appends it.
    fn close_row(&mut self) {
        let scale = check_row(&mut self.row, self.normalize).unwrap_or_else(|fault| {
            if self.fault.is_none() {
                let state = self.state.unwrap_or_default();
                self.fault = Some((fault, state, self.choice, self.action.clone()));
            }
            RowScale {
                factor: 1.0,
                deviation: None,
            }
        });
        append_row(
            &self.row,
            &scale,
            true,
            (&mut self.cols, &mut self.vals, &mut self.row_ptr),
            (&mut self.rescaled, &mut self.worst),
        );
        self.row.clear();
    }

    /// Closes the open row and ends the open state's row group.
    fn close_state(&mut self) {
        self.close_row();
        self.group_ptr.push(self.row_ptr.len() - 1);
        self.action_names
            .extend(self.state_actions.drain(..).map(Cow::into_owned));
    }

    /// The matrix of the reader's states.
    fn finish(mut self, r: &Reader<'_>) -> Res<Transitions, Stop> {
        let st = r.states();
        if self.state.is_some() {
            self.close_state();
        }
        let next = self.state.map_or(0, |s| s as usize + 1);
        if next < st.n {
            return Err(missing_state(r, next as StateId));
        }
        if let Some((fault, state, choice, action)) = self.fault.take() {
            let rows = self.group_ptr[state as usize + 1] - self.group_ptr[state as usize];
            let (at, message) = match fault {
                RowFault::Duplicate { second, first_line } => (
                    second,
                    duplicate_message(state, second.target, choice, r.line_of(first_line)),
                ),
                RowFault::Sum { at, fault } => (at, sum_message(state, choice, rows > 1, fault)),
            };
            let t = Trans {
                state,
                action,
                target: at.target,
                value: at.value,
                at: at.line,
                aux: at.column,
                list: self.list,
            };
            return Err(r.refused(&t, &message));
        }
        let matrix = CsrMatrix::from_grouped_parts(st.n, self.row_ptr, self.cols, self.vals, self.group_ptr);
        let named = self.naming.is_some_and(|n| n.0);
        Ok(Transitions {
            matrix,
            action_names: named.then_some(self.action_names),
            notes: (self.rescaled > 0)
                .then(|| normalized_note(self.rescaled, self.worst))
                .into_iter()
                .collect(),
        })
    }
}

/// The error for a state without transitions, at the start of `"transitions"`.
fn missing_state(r: &Reader<'_>, s: StateId) -> Stop {
    Stop::Fault {
        at: r.transitions_at,
        message: format!(
            "transitions: state {} has no outgoing transitions (every state needs a distribution over next states; give an absorbing state a self-loop of probability 1)",
            r.states().show(s)
        ),
    }
}

/// The matrix of transitions in any order: choice numbers given, or by first appearance of each
/// action name within its state, then [`build_matrix`].
fn collected(r: &Reader<'_>, all: &[Trans<'_>]) -> Res<Transitions, Stop> {
    let st = r.states();
    // Checked before anything of size `n` is allocated: `n` may be huge, the file small.
    if let Some(s) = first_missing(st.n, all.iter().map(|t| t.state)) {
        return Err(missing_state(r, s));
    }
    let mut naming = None;
    let mut actions: Vec<Vec<Cow<'_, str>>> = vec![Vec::new(); if r.mdp { st.n } else { 0 }];
    let mut entries = Vec::with_capacity(all.len());
    let mut locator = Locator::default();
    for t in all {
        if r.mdp {
            check_naming(&mut naming, r, t)?;
        }
        let choice = match &t.action {
            Act::Only => 0,
            Act::Index(i) => *i,
            Act::Name(name) => {
                let list = &mut actions[t.state as usize];
                list.iter().position(|a| a == name).unwrap_or_else(|| {
                    list.push(name.clone());
                    list.len() - 1
                }) as u32
            }
        };
        let (line, column) = locator.at(r.text, t.at);
        entries.push(Entry {
            state: t.state,
            choice,
            target: t.target,
            value: t.value,
            line,
            column,
        });
    }
    let places: Vec<(usize, usize)> = entries.iter().map(|e| (e.line, e.column)).collect();
    let line = r.line_of(r.transitions_at);
    let context = |at| places.iter().position(|p| *p == at).map(|i| r.context(&all[i]));
    let (matrix, notes) =
        build_matrix(r.path, st.n, entries, r.normalize, |_| line).map_err(|e| annotate(e, context))?;
    let named = naming.is_some_and(|n| n.0);
    Ok(Transitions {
        matrix,
        action_names: named.then(|| actions.into_iter().flatten().map(Cow::into_owned).collect()),
        notes,
    })
}

/// A reward model's `"transition"` part: one value per stored transition (missing: 0).
struct RewardSink<'t> {
    t: &'t Transitions,
    /// The part's JSON path.
    base: &'t str,
    values: Vec<f64>,
    /// Where each reward was given (byte offset + 1; 0 if not yet).
    first: Vec<usize>,
}

impl<'de> Sink<'de> for RewardSink<'_> {
    fn push(&mut self, r: &Reader<'de>, w: Trans<'de>) -> Res<(), Stop> {
        let st = r.states();
        let place = |message: String| {
            let message = format!("{}: {message}", r.entry_path(self.base, &w));
            Stop::Fault { at: w.at, message }
        };
        let row = self.t.choice_row(st, w.state, &w.action).map_err(place)?;
        let (row_ptr, cols, _) = self.t.matrix.as_parts();
        let Ok(k) = cols[row_ptr[row]..row_ptr[row + 1]].binary_search(&w.target) else {
            return Err(place(format!(
                "there is no transition from state {} to state {} to reward",
                st.show(w.state),
                st.show(w.target)
            )));
        };
        let k = row_ptr[row] + k;
        if self.first[k] > 0 {
            let line = r.line_of(self.first[k] - 1);
            return Err(place(format!(
                "this transition's reward is given twice (first on line {line})"
            )));
        }
        self.first[k] = w.at + 1;
        self.values[k] = w.value;
        Ok(())
    }
}

/// The first of the states `0..n` that does not occur in `states` (all `< n`), if any; in time
/// and space linear in the number of states given, not in `n`.
pub(super) fn first_missing(n: usize, states: impl Iterator<Item = StateId>) -> Option<StateId> {
    let mut seen: Vec<StateId> = states.collect();
    seen.sort_unstable();
    seen.dedup();
    match seen.iter().enumerate().find(|&(i, &s)| i != s as usize) {
        Some((i, _)) => Some(i as StateId),
        None => (seen.len() < n).then_some(seen.len() as StateId),
    }
}

// ---------------------------------------------------------------------------------------------
// States, and the parts read as a tree

/// State names to numbers. foldhash, not the standard SipHash: looking names up is most of the
/// time of reading a big file, and foldhash is several times faster on short keys (it is seeded
/// per process, which is enough for files the user gives).
type NameIndex<'de> = HashMap<Cow<'de, str>, StateId, foldhash::fast::RandomState>;

/// The states of the model being read, and how to refer to them.
struct States<'de> {
    path: &'de Path,
    n: usize,
    names: Option<Vec<String>>,
    /// Name -> state, when the states have names.
    index: NameIndex<'de>,
}

impl States<'_> {
    /// State `s` for messages: `"name" (s)` or `s`.
    fn show(&self, s: StateId) -> String {
        match &self.names {
            Some(names) => format!("\"{}\" ({s})", excerpt(&names[s as usize])),
            None => s.to_string(),
        }
    }

    /// The state a name or number refers to: a JSON integer is an index; a string is a name when
    /// the states are named, and an index written as digits otherwise.
    #[inline]
    fn resolve(&self, text: &str, is_string: bool) -> Res<StateId, String> {
        if is_string && let Some(names) = &self.names {
            return self.index.get(text).copied().ok_or_else(|| {
                format!(
                    "unknown state \"{}\" (the states are {}{})",
                    excerpt(text),
                    quoted(names.iter().take(8)),
                    if names.len() > 8 { ", ..." } else { "" }
                )
            });
        }
        match whole(text) {
            Some(s) if (s as usize) < self.n => Ok(s as StateId),
            Some(s) => Err(format!(
                "unknown state {s}: the model has {} states (0 to {})",
                self.n,
                self.n - 1
            )),
            None if is_string => Err(format!(
                "unknown state \"{}\": the states have no names, so refer to them by number (0 to {})",
                excerpt(text),
                self.n - 1
            )),
            None => Err(format!(
                "expected a state (a name or a whole number), found the number {}",
                excerpt(text)
            )),
        }
    }

    /// The members of `node`, which must be an object whose keys are all in `allowed` (any key when
    /// `allowed` is empty); `what` names it in messages.
    fn object<'j, 't>(&self, node: &'j Json<'t>, what: &str, allowed: &[&str]) -> Result<&'j [Member<'t>]> {
        let Value::Object(members) = &node.value else {
            return Err(node.error(
                self.path,
                format!("{what}: expected an object, found {}", describe(node)),
            ));
        };
        if !allowed.is_empty()
            && let Some(m) = members.iter().find(|m| !allowed.contains(&m.key.as_str()))
        {
            let message = format!(
                "unknown key \"{}\" in {what}; the keys are {}",
                excerpt(&m.key),
                quoted(allowed.iter())
            );
            return Err(m.error(self.path, message));
        }
        Ok(members)
    }

    /// The state `node` (a string or a number) refers to; `what` is its JSON path.
    fn state(&self, node: &Json<'_>, what: &dyn fmt::Display) -> Result<StateId> {
        let r = match &node.value {
            Value::String(s) => self.resolve(s, true),
            Value::Number(raw) => self.resolve(raw, false),
            _ => Err(format!("expected a state, found {}", describe(node))),
        };
        r.map_err(|m| node.error(self.path, format!("{what}: {m}")))
    }

    /// The state an object key refers to; `what` is the object's JSON path.
    fn key(&self, m: &Member<'_>, what: &str) -> Result<StateId> {
        self.resolve(&m.key, true)
            .map_err(|msg| m.error(self.path, format!("{what}: {msg}")))
    }

    /// One state or a list of states.
    fn one_or_many(&self, node: &Json<'_>, what: &str) -> Result<Vec<StateId>> {
        match &node.value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.state(item, &Seg::Index(&Seg::Name(what), i)))
                .collect(),
            _ => Ok(vec![self.state(node, &what)?]),
        }
    }

    /// A reward: a JSON number, or a string holding a decimal or a fraction (as
    /// [`Reader::number`] reads probabilities).
    fn number(&self, node: &Json<'_>, what: &dyn fmt::Display) -> Result<f64> {
        let parsed = match &node.value {
            Value::Number(raw) => parse_number(raw),
            Value::String(s) => parse_number(s),
            _ => None,
        };
        parsed.ok_or_else(|| node.error(self.path, number_message(what, describe(node))))
    }

    /// The numbers of the list `node` (`items`), which must have `len` of them (what they are for:
    /// `of`, as "`what`: 3 values for `of`").
    fn numbers(
        &self,
        node: &Json<'_>,
        items: &[Json<'_>],
        len: usize,
        what: &str,
        of: &str,
    ) -> Result<Vec<f64>> {
        if items.len() != len {
            return Err(node.error(self.path, format!("{what}: {} values for {of}", items.len())));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.number(item, &Seg::Index(&Seg::Name(what), i)))
            .collect()
    }

    /// One value per state: a list of `n` numbers, or a map from states (missing states: 0).
    fn per_state(&self, node: &Json<'_>, what: &str) -> Result<Vec<f64>> {
        if let Value::Array(items) = &node.value {
            return self.numbers(node, items, self.n, what, &format!("{} states", self.n));
        }
        let mut values = vec![0.0; self.n];
        let mut seen = vec![false; self.n];
        for m in self.object(node, what, &[])? {
            let s = self.key(m, what)? as usize;
            if std::mem::replace(&mut seen[s], true) {
                return Err(m.error(
                    self.path,
                    format!("{what}: state {} is given twice", self.show(s as StateId)),
                ));
            }
            values[s] = self.number(&m.value, &Seg::Key(&Seg::Name(what), &m.key))?;
        }
        Ok(values)
    }

    /// One value per choice of an MDP: a list of `m` numbers (choices in row order), or a map
    /// from states to `{action: value}` or to a list of values by choice number.
    fn per_action(&self, node: &Json<'_>, what: &str, t: &Transitions) -> Result<Vec<f64>> {
        let m = t.matrix.nrows();
        if let Value::Array(items) = &node.value {
            return self.numbers(node, items, m, what, &format!("{m} choices (actions) in all"));
        }
        let mut values = vec![0.0; m];
        let mut seen = vec![false; m];
        for member in self.object(node, what, &[])? {
            let s = self.key(member, what)?;
            let p = key_path(what, &member.key);
            let rows = t.matrix.group_rows(s as usize);
            let mut put = |row: usize, value: &Json<'_>, vp: &Seg<'_>| -> Result<()> {
                if std::mem::replace(&mut seen[row], true) {
                    return Err(value.error(self.path, format!("{vp}: this action's reward is given twice")));
                }
                values[row] = self.number(value, vp)?;
                Ok(())
            };
            match &member.value.value {
                Value::Array(items) => {
                    if items.len() != rows.len() {
                        let of = format!("the {} choices of state {}", rows.len(), self.show(s));
                        return Err(member
                            .value
                            .error(self.path, format!("{p}: {} values for {of}", items.len())));
                    }
                    for (i, item) in items.iter().enumerate() {
                        put(rows.start + i, item, &Seg::Index(&Seg::Name(&p), i))?;
                    }
                }
                _ => {
                    for a in self.object(&member.value, &p, &[])? {
                        let row = t
                            .choice_row(self, s, &Act::Name(Cow::Borrowed(&a.key)))
                            .map_err(|msg| a.error(self.path, format!("{p}: {msg}")))?;
                        put(row, &a.value, &Seg::Key(&Seg::Name(&p), &a.key))?;
                    }
                }
            }
        }
        Ok(values)
    }
}

/// A JSON value with the place where it starts (line and column from 1, and the byte range).
#[derive(Debug)]
pub(in crate::io) struct Json<'t> {
    pub line: usize,
    pub column: usize,
    pub start: usize,
    pub end: usize,
    pub value: Value<'t>,
}

/// A JSON value; numbers keep their text (read with `parse_number`, correctly rounded).
#[derive(Debug)]
pub(in crate::io) enum Value<'t> {
    Null,
    Bool(bool),
    Number(&'t str),
    String(String),
    Array(Vec<Json<'t>>),
    Object(Vec<Member<'t>>),
}

/// An object's member: its key (decoded), where the key starts, and its value.
#[derive(Debug)]
pub(in crate::io) struct Member<'t> {
    pub key: String,
    pub line: usize,
    pub column: usize,
    pub value: Json<'t>,
}

impl Json<'_> {
    /// A [`parse_error`] in `path` at this value.
    pub fn error(&self, path: &Path, message: impl Into<String>) -> Error {
        parse_error(path, self.line, self.column, message)
    }
}

impl Member<'_> {
    /// A [`parse_error`] in `path` at this member's key.
    pub fn error(&self, path: &Path, message: impl Into<String>) -> Error {
        parse_error(path, self.line, self.column, message)
    }
}

/// What a value is, for "expected ..., found ..." messages.
pub(super) fn describe(node: &Json<'_>) -> String {
    match &node.value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(raw) => format!("the number {}", excerpt(raw)),
        Value::String(s) => format!("the string \"{}\"", excerpt(s)),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Parses the whole of `text` (a byte-order mark is skipped) into a tree of located values.
/// Syntax errors come from serde_json, with its line and column; keys given twice in one object and
/// nesting deeper than [`MAX_DEPTH`] are refused here.
pub(in crate::io) fn parse_tree<'t>(path: &'t Path, text: &'t str) -> Result<Json<'t>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut r = Reader::new(path, text, Mode::default(), false);
    let mut de = serde_json::Deserializer::from_str(text);
    let start = r.skip_ws(0);
    let tree = r.seed(start, TreePart { depth: 0 }).deserialize(&mut de);
    tree.and_then(|tree| de.end().map(|()| tree)).map_err(|e| {
        let stop = r.stopped(&e);
        r.placed(stop)
    })
}

/// Any value, into a [`Json`] tree, at a depth of nesting.
struct TreePart {
    depth: usize,
}

impl TreePart {
    /// The node that starts at `start`, without its value yet; refuses nesting deeper than
    /// [`MAX_DEPTH`] when `nests`.
    fn node<'de, E: de::Error>(&self, r: &mut Reader<'de>, start: usize, nests: bool) -> Res<Json<'de>, E> {
        if nests && self.depth >= MAX_DEPTH {
            let message = format!("the JSON is nested more than {MAX_DEPTH} levels deep");
            return Err(r.fail(start, message));
        }
        let (line, column) = r.locator.at(r.text, start);
        Ok(Json {
            line,
            column,
            start,
            end: start,
            value: Value::Null,
        })
    }

    /// The part for the items of a list or object.
    fn inner(&self) -> TreePart {
        TreePart {
            depth: self.depth + 1,
        }
    }
}

impl<'de> Part<'de> for TreePart {
    const OPENS: &'static [u8] = b"[{";
    type Value = Json<'de>;

    fn expected(&self, _: &Reader<'de>) -> String {
        "any JSON value".into()
    }

    fn leaf<D: Deserializer<'de>>(self, r: &mut Reader<'de>, start: usize, d: D) -> Res<Json<'de>, D::Error> {
        let raw = <Raw<'de> as de::Deserialize<'de>>::deserialize(d)?;
        let value = match raw.0.as_bytes()[0] {
            b'"' => Value::String(raw.string().into_owned()),
            b't' => Value::Bool(true),
            b'f' => Value::Bool(false),
            b'n' => Value::Null,
            _ => Value::Number(raw.0),
        };
        let node = self.node(r, start, false)?;
        Ok(Json {
            end: start + raw.0.len(),
            value,
            ..node
        })
    }

    fn seq<A: SeqAccess<'de>>(
        self,
        r: &mut Reader<'de>,
        start: usize,
        mut seq: A,
    ) -> Res<Json<'de>, A::Error> {
        let node = self.node(r, start, true)?;
        let mut items: Vec<Json<'de>> = Vec::new();
        loop {
            let at = r.item_start(start, items.last().map(|i| i.end));
            match seq.next_element_seed(r.seed(at, self.inner()))? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Json {
            end: r.close(items.last().map_or(start + 1, |i| i.end)),
            value: Value::Array(items),
            ..node
        })
    }

    fn map<M: MapAccess<'de>>(
        self,
        r: &mut Reader<'de>,
        start: usize,
        mut map: M,
    ) -> Res<Json<'de>, M::Error> {
        let node = self.node(r, start, true)?;
        let mut members: Vec<Member<'de>> = Vec::new();
        // Key -> where it was written, to refuse a key given twice in time linear in the members.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut end = start + 1;
        while let Some(raw) = map.next_key::<Raw<'de>>()? {
            let at = r.offset(raw.0);
            let key = raw.string().into_owned();
            if let Some(first) = seen.insert(key.clone(), at) {
                return Err(r.twice(&key, at, first));
            }
            let (line, column) = r.locator.at(r.text, at);
            let value = map.next_value_seed(r.seed(r.next_start(at + raw.0.len()), self.inner()))?;
            end = value.end;
            members.push(Member {
                key,
                line,
                column,
                value,
            });
        }
        Ok(Json {
            end: r.close(end),
            value: Value::Object(members),
            ..node
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A JSON string literal.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Appends ` [at (context)]` to a parse error at a place (line, column) `context` knows, so that
/// messages of [`build_matrix`], which count states from 0, also say where in the file's own terms.
pub(super) fn annotate(mut error: Error, context: impl FnOnce((usize, usize)) -> Option<String>) -> Error {
    if let Error::Parse {
        line,
        column,
        message,
        ..
    } = &mut error
        && let Some(context) = context((*line, *column))
    {
        let _ = write!(message, " [at {context}]");
    }
    error
}

/// An error from the writer that cannot name its file.
pub(super) fn write_error(error: std::io::Error) -> Error {
    super::io_error(Path::new("(the output)"))(error)
}

/// Writes `model` as kolmo JSON (the per-state map form; see `docs/model-json.md`). The long
/// parts (state names, transitions, reward lists) are made in parallel blocks of states
/// ([`write_states`]) and written in order.
///
/// # Errors
/// [`Error::InvalidArgument`] if two states have the same name (JSON refers to them by name; the
/// actions are written by number when two of one state share a name); [`Error::Io`] if `w` fails.
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let View {
        matrix,
        initial,
        labels,
        names,
        action_names,
        rewards,
        is_mdp,
        players,
        ..
    } = View::of(model);
    let kind = match (is_mdp, players) {
        (_, Some(_)) => "smg",
        (true, None) => "mdp",
        (false, None) => "dtmc",
    };
    let n = matrix.row_groups();
    if let Some(names) = names {
        let mut seen = HashMap::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            if let Some(j) = seen.insert(name.as_str(), i) {
                return Err(Error::arg(
                    "model",
                    format!(
                        "states {j} and {i} are both named \"{}\"; JSON refers to states by name, so names must be distinct",
                        excerpt(name)
                    ),
                ));
            }
        }
    }
    // JSON refers to actions by name within a state: names that repeat in a state (as the
    // PRISM language's unlabelled commands give) are not written, the actions go by number.
    let action_names = action_names.filter(|actions| {
        !(0..n).any(|g| {
            let rows = matrix.group_rows(g);
            rows.clone()
                .any(|r| rows.clone().any(|q| q < r && actions[q] == actions[r]))
        })
    });
    // A state as a value (its name, or its number) and as a key (its name, or its number in quotes).
    let state_ref = |out: &mut String, s: StateId| match names {
        Some(names) => push_json_string(out, &names[s as usize]),
        None => push_uint(out, u64::from(s)),
    };
    let state_key = |out: &mut String, s: StateId| {
        let quote = if names.is_some() { "" } else { "\"" };
        out.push_str(quote);
        state_ref(out, s);
        out.push_str(quote);
    };
    let states_list = |out: &mut String, states: &mut dyn Iterator<Item = StateId>| {
        out.push('[');
        for (i, s) in states.enumerate() {
            out.push_str(if i > 0 { ", " } else { "" });
            state_ref(out, s);
        }
        out.push(']');
    };
    let (row_ptr, cols, vals) = matrix.as_parts();
    let distribution = |out: &mut String, numbers: &mut Numbers, row: usize| {
        out.push('{');
        for k in row_ptr[row]..row_ptr[row + 1] {
            out.push_str(if k > row_ptr[row] { ", " } else { "" });
            state_key(out, cols[k]);
            out.push_str(": ");
            numbers.push_as(out, vals[k], Form::Json);
        }
        out.push('}');
    };

    let mut out = format!("{{\n  \"type\": \"{kind}\",\n  \"states\": ");
    match names {
        Some(names) => list(w, &mut out, n, |out, _, s| push_json_string(out, &names[s]))?,
        None => push_uint(&mut out, n as u64),
    }
    out.push_str(",\n  \"initial\": ");
    match initial {
        [one] => state_ref(&mut out, *one),
        many => states_list(&mut out, &mut many.iter().copied()),
    }
    out.push_str(",\n  \"transitions\": {");
    blocks(w, &mut out, n, |groups, out, numbers| {
        for g in groups {
            new_line(out, g == 0, "    ");
            state_key(out, g as StateId);
            out.push_str(": ");
            let rows = matrix.group_rows(g);
            if kind == "dtmc" {
                distribution(out, numbers, rows.start);
                continue;
            }
            let (open, close) = if action_names.is_some() {
                ('{', "\n    }")
            } else {
                ('[', "\n    ]")
            };
            out.push(open);
            for r in rows.clone() {
                new_line(out, r == rows.start, "      ");
                if let Some(actions) = action_names {
                    push_json_string(out, &actions[r]);
                    out.push_str(": ");
                }
                distribution(out, numbers, r);
            }
            out.push_str(close);
        }
    })?;
    out.push_str("\n  }");
    if !labels.is_empty() {
        out.push_str(",\n  \"labels\": {");
        for (i, (name, set)) in labels.iter().enumerate() {
            new_line(&mut out, i == 0, "    ");
            push_json_string(&mut out, name);
            out.push_str(": ");
            states_list(&mut out, &mut set.iter());
        }
        out.push_str("\n  }");
    }
    if let Some(p) = players {
        out.push_str(",\n  \"players\": {");
        for (i, name) in p.names.iter().enumerate() {
            new_line(&mut out, i == 0, "    ");
            push_json_string(&mut out, name);
            out.push_str(": ");
            let owned = (0..n as StateId).filter(|&s| p.owner[s as usize] as usize == i);
            states_list(&mut out, &mut owned.into_iter());
        }
        out.push_str("\n  }");
    }
    if !rewards.is_empty() {
        out.push_str(",\n  \"rewards\": {");
        for (i, (name, r)) in rewards.iter().enumerate() {
            new_line(&mut out, i == 0, "    ");
            push_json_string(&mut out, name);
            out.push_str(": {");
            let mut first_part = true;
            let mut part = |out: &mut String, key: &str| {
                new_line(out, std::mem::take(&mut first_part), "      ");
                let _ = write!(out, "\"{key}\": ");
            };
            for (key, values) in [("state", &r.state), ("action", &r.action)] {
                if let Some(values) = values {
                    part(&mut out, key);
                    list(w, &mut out, values.len(), |out, numbers, i| {
                        numbers.push_as(out, values[i], Form::Json);
                    })?;
                }
            }
            if let Some(values) = &r.transition {
                part(&mut out, "transition");
                out.push('[');
                // Only the non-zero rewards are written; the first without a comma before it.
                let first = values.iter().position(|&v| v != 0.0);
                blocks(w, &mut out, n, |groups, out, numbers| {
                    for g in groups {
                        let rows = matrix.group_rows(g);
                        for row in rows.clone() {
                            for k in (row_ptr[row]..row_ptr[row + 1]).filter(|&k| values[k] != 0.0) {
                                new_line(out, Some(k) == first, "        ");
                                out.push('[');
                                state_ref(out, g as StateId);
                                out.push_str(", ");
                                match action_names {
                                    _ if kind == "dtmc" => {}
                                    Some(a) => push_json_string(out, &a[row]),
                                    None => push_uint(out, (row - rows.start) as u64),
                                }
                                out.push_str(if kind == "dtmc" { "" } else { ", " });
                                state_ref(out, cols[k]);
                                out.push_str(", ");
                                numbers.push_as(out, values[k], Form::Json);
                                out.push(']');
                            }
                        }
                    }
                })?;
                out.push_str(if first.is_some() { "\n      ]" } else { "]" });
            }
            out.push_str(if first_part { "}" } else { "\n    }" });
        }
        out.push_str("\n  }");
    }
    out.push_str("\n}\n");
    w.write_all(out.as_bytes()).map_err(write_error)
}

/// Starts an item of a list or object on a new line at `indent`, after a comma unless it is the
/// `first`.
fn new_line(out: &mut String, first: bool, indent: &str) {
    out.push_str(if first { "\n" } else { ",\n" });
    out.push_str(indent);
}

/// Writes `out` (and empties it), then the text of `0..len` made in parallel blocks by `text`
/// ([`write_states`]).
fn blocks(
    w: &mut dyn Write,
    out: &mut String,
    len: usize,
    text: impl Fn(Range<usize>, &mut String, &mut Numbers) + Sync,
) -> Result<()> {
    w.write_all(out.as_bytes()).map_err(write_error)?;
    out.clear();
    write_states(w, len, text).map_err(write_error)
}

/// [`blocks`] of the list `[...]` of `len` items (`item` appends one); the closing `]` is left in
/// `out`.
fn list(
    w: &mut dyn Write,
    out: &mut String,
    len: usize,
    item: impl Fn(&mut String, &mut Numbers, usize) + Sync,
) -> Result<()> {
    out.push('[');
    blocks(w, out, len, |items, out, numbers| {
        for i in items {
            out.push_str(if i > 0 { ", " } else { "" });
            item(out, numbers, i);
        }
    })?;
    out.push(']');
    Ok(())
}

/// The model as kolmo JSON text (what [`write`] writes).
#[cfg(test)]
pub(super) fn to_json(model: &Model) -> Result<String> {
    let mut bytes = Vec::new();
    write(model, &mut bytes)?;
    String::from_utf8(bytes).map_err(|_| Error::arg("model", "the JSON text is not UTF-8"))
}

/// Appends `s` as a JSON string literal, as serde_json writes it (escaping only `"`, `\` and
/// control characters), without an allocation when nothing needs escaping.
fn push_json_string(out: &mut String, s: &str) {
    if s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(&json_string(s));
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::text_out::number;
    use kolmo::games::snakes::{Board, BoardSpec, Die, Rule};
    use rand::RngExt;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::SeedableRng;

    fn place(j: &Json<'_>) -> (usize, usize) {
        (j.line, j.column)
    }

    #[test]
    fn places_of_values_and_keys() {
        let text = "{\n  \"a\": [1, \"x\\\"y\",\n   {\"é\": true}],\n\t\"b\": null }";
        let root = parse_tree(Path::new("t.json"), text).unwrap();
        assert_eq!(place(&root), (1, 1));
        let Value::Object(top) = &root.value else { panic!() };
        assert_eq!((top[0].key.as_str(), top[0].line, top[0].column), ("a", 2, 3));
        let Value::Array(items) = &top[0].value.value else {
            panic!()
        };
        assert_eq!(place(&items[0]), (2, 9));
        assert!(matches!(items[0].value, Value::Number("1")));
        assert!(matches!(&items[1].value, Value::String(s) if s == "x\"y"));
        assert_eq!(place(&items[2]), (3, 4));
        let Value::Object(inner) = &items[2].value else {
            panic!()
        };
        assert_eq!(
            (inner[0].key.as_str(), inner[0].value.line, inner[0].value.column),
            ("é", 3, 10)
        );
        assert_eq!((top[1].key.as_str(), top[1].line, top[1].column), ("b", 4, 2));
    }

    #[test]
    fn syntax_errors_duplicates_and_depth() {
        let p = Path::new("t.json");
        let e = parse_tree(p, "{\"a\": 1,\n \"b\": }").unwrap_err().to_string();
        assert!(e.starts_with("t.json:2:") && e.contains("not valid JSON"), "{e}");
        let e = parse_tree(p, "{\"a\": 1,\n \"a\": 2}").unwrap_err().to_string();
        assert!(
            e.starts_with("t.json:2:2:") && e.contains("twice") && e.contains("line 1"),
            "{e}"
        );
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = parse_tree(p, &deep).unwrap_err().to_string();
        assert!(e.contains("nested more than"), "{e}");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_tree(p, &ok).is_ok());
        assert!(parse_tree(p, "\u{feff}{}").is_ok());
        assert!(parse_tree(p, "{}\r\n").is_ok());
    }

    fn options(normalize: bool) -> ReadOptions {
        ReadOptions {
            normalize,
            ..ReadOptions::default()
        }
    }

    fn repo_file(rel: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(root.join(rel)).unwrap()
    }

    /// The chain of a snakes board as `kolmo snakes --export x.json` writes it.
    /// (The board is built by the `kolmo` crate, whose model types are its own build of this
    /// crate's: the file is passed on as text.)
    fn snakes_json(spec: &BoardSpec) -> String {
        let board = Board::new(spec).unwrap();
        let mut d = board.named_dtmc().unwrap();
        let goal = board.size() as usize;
        let rolls = (0..d.n()).map(|c| if c == goal { 0.0 } else { 1.0 }).collect();
        d.set_reward_model("rolls", kolmo::model::RewardModel::from_state_rewards(rolls))
            .unwrap();
        let mut out = Vec::new();
        kolmo::io::write_model_to(&kolmo::io::Model::Dtmc(d), &mut out, kolmo::io::Format::Json).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A read's whole outcome as text: the model's `Debug` (which prints every `f64` in its
    /// shortest form that reads back to the same bits, so equal text means bit-identical values)
    /// with the notes, or the error message.
    fn outcome(text: &str, normalize: bool) -> String {
        match read(Path::new("m.json"), text, &options(normalize)) {
            Ok((m, notes)) => format!("ok {m:?} {notes:?}"),
            Err(e) => format!("err {e}"),
        }
    }

    /// Valid files of every form the schema has.
    fn corpus() -> Vec<String> {
        let mut out: Vec<String> = [
            "examples/models/land-of-oz.json",
            "examples/models/drunkard.json",
            "examples/models/shortcut-mdp.json",
        ]
        .iter()
        .map(|f| repo_file(f))
        .collect();
        out.extend(
            [
                // List forms, numbers and fractions, initial states, labels, rewards of a chain.
                r#"{"type": "dtmc", "states": 2, "initial": [1],
                    "transitions": [[0, 1, "1/3"], [0, 0, "2/3"], [1, 1, 1]],
                    "labels": {"one": 1, "both": [0, 1], "none": []},
                    "rewards": {"r": {"transition": [[0, 1, 5]], "action": [1, 2]},
                                "s": {"state": {"1": -2.5e3}, "action": {"0": "1/7"}, "transition": {"1": {"1": 0.1}}},
                                "empty": {}}}"#,
                // Transitions out of order, zero probabilities, numbers by value and as digits.
                r#"{"states": 3, "initial": [], "transitions": [[2, 2, 1], [0, 1, 0.5], ["1", 0, 1e0],
                    [0, 2, 5E-1], [0, 0, 0], [1, 2, 0.0]], "comment": {"any": [1, true, null, {"x": "y"}]}}"#,
                // Named MDP in list form with its actions out of order, and in map forms.
                r#"{"type": "mdp", "states": ["a", "b"],
                    "transitions": [["a", "go", "b", 1], ["b", "stay", "b", 1], ["a", "stay", "a", 1]],
                    "rewards": {"cost": {"action": [2, 0, 0], "transition": {"a": {"go": {"b": 3}}}}}}"#,
                r#"{"type": "mdp", "states": ["a", "b"],
                    "transitions": {"a": {"go": {"b": 1}, "stay": {"a": 1}}, "b": {"stay": {"b": 1}}},
                    "rewards": {"cost": {"action": {"a": {"go": 2}}, "state": [1, 0],
                                         "transition": [["a", "go", "b", 3], ["b", 0, "b", 1]]}}}"#,
                r#"{"type": "mdp", "states": 2, "transitions": {"0": [{"1": 1}, {"0": 0.5, "1": 0.5}], "1": [{"1": 1}]},
                    "rewards": {"r": {"action": {"0": [1, 2]}, "transition": {"0": [{}, {"1": 4}]}}}}"#,
                // Numbered MDP in list form, in and out of order; an action without transitions.
                r#"{"type": "mdp", "states": 2, "transitions": [[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1]]}"#,
                r#"{"type": "mdp", "states": 2, "transitions": [[1, 0, 1, 1], [0, 1, 0, 1], [0, 0, 1, 1]]}"#,
                r#"{"type": "mdp", "states": ["x"], "transitions": {"x": {"idle": {}, "go": {"x": 1}}}}"#,
                // Escapes in names, keys and numbers; a byte-order mark; CRLF line ends.
                "\u{feff}{\"st\\u0061tes\": [\"a\\\"b\", \"\\u00e9\", \"\u{e9}\\n\"],\r\n \"transitions\": {\"a\\\"b\": {\"\\u00e9\": \"1\"},\r\n \"\u{e9}\": {\"\u{e9}\\n\": 1}, \"\u{e9}\\n\": {\"a\\\"b\": 1}}, \"initial\": \"\u{e9}\"}\r\n",
                // Keys in another order than the writer's.
                r#"{"states": ["s"], "type": "dtmc", "labels": {"l": "s"}, "transitions": {"s": {"s": 1}}, "initial": "s"}"#,
                // Transitions before states; type after transitions; rewards before transitions.
                r#"{"transitions": [[0, 0, 1]], "states": 1}"#,
                r#"{"states": 1, "transitions": [[0, 0, 1]], "type": "dtmc"}"#,
                r#"{"states": 1, "transitions": [[0, "a", 0, 1]], "type": "mdp"}"#,
                r#"{"states": 1, "rewards": {"r": {"state": [1]}}, "transitions": [[0, 0, 1]]}"#,
                // One state as two keys ("1" and "01"): their rows are joined.
                r#"{"states": 2, "transitions": {"0": {"0": 1}, "1": {"0": 0.5}, "01": {"1": 0.5}}}"#,
            ]
            .map(String::from),
        );
        let mut weighted = BoardSpec::empty(60).with_random_portals(6, 3).unwrap();
        weighted.die = Die::Weighted(vec![1.0, 2.0, 3.0, 1.0]);
        weighted.rule = Rule::Bounce;
        for spec in [BoardSpec::builtin("classic").unwrap(), weighted] {
            out.push(snakes_json(&spec));
        }
        out
    }

    /// Every form reads, and reads back to the same model once written.
    #[test]
    fn every_form_reads_and_round_trips() {
        for text in corpus() {
            for normalize in [false, true] {
                let got = outcome(&text, normalize);
                assert!(got.starts_with("ok"), "{got}\n{text}");
                let model = read(Path::new("m.json"), &text, &options(normalize)).unwrap().0;
                let written = to_json(&model).unwrap();
                let again = outcome(&written, normalize);
                assert_eq!(
                    again,
                    got.replace(&format!("{:?}", Vec::<String>::new()), "[]"),
                    "{text}"
                );
            }
        }
        // The same chain in order, out of order, and as two keys of one state.
        let want = outcome(
            r#"{"states": 2, "transitions": {"0": {"0": 1}, "1": {"0": 0.5, "1": 0.5}}}"#,
            false,
        );
        for text in [
            r#"{"states": 2, "transitions": {"0": {"0": 1}, "1": {"0": 0.5}, "01": {"1": 0.5}}}"#,
            r#"{"states": 2, "transitions": {"1": {"1": 0.5, "0": 0.5}, "0": {"0": 1}}}"#,
            r#"{"transitions": [[1, 0, 0.5], [0, 0, 1], [1, 1, 0.5]], "states": 2}"#,
        ] {
            assert_eq!(outcome(text, false), want, "{text}");
        }
        // Real values: the classic board's first row, an MDP's names and rewards.
        let Model::Dtmc(d) = read_str(&snakes_json(&BoardSpec::builtin("classic").unwrap())).unwrap() else {
            panic!()
        };
        assert_eq!(d.n(), 101);
        assert_eq!(d.matrix().row(0).1, &[1.0 / 6.0; 6][..]);
        assert_eq!(d.names().unwrap()[100], "cell 100");
        assert_eq!(d.label("goal").unwrap().to_vec(), vec![100]);
        assert_eq!(d.reward_models()["rolls"].state.as_ref().unwrap()[100], 0.0);
        let Model::Mdp(m) = read_str(&repo_file("examples/models/shortcut-mdp.json")).unwrap() else {
            panic!()
        };
        assert_eq!(
            m.action_names().unwrap(),
            &["walk", "shortcut", "walk", "stay", "stay"]
        );
        assert_eq!(m.matrix().row(1), (&[2, 3][..], &[0.75, 0.25][..]));
        assert_eq!(
            m.reward_models()["minutes"].action.as_deref(),
            Some(&[5.0, 3.0, 5.0, 0.0, 0.0][..])
        );
    }

    #[test]
    fn normalize_notes() {
        let text = r#"{"states": 2, "transitions": {"0": {"0": 0.5, "1": 0.4}, "1": {"1": 2}}}"#;
        let got = outcome(text, true);
        assert!(got.contains("normalized 2 row(s)"), "{got}");
        assert!(outcome(text, false).contains("sum to 0.9"));
        // Out of order, the same rows and note.
        let shuffled = r#"{"states": 2, "transitions": [[1, 1, 2], [0, 1, 0.4], [0, 0, 0.5]]}"#;
        assert_eq!(outcome(shuffled, true), got);
    }

    /// Errors of rows, keys and actions, in order and out of order, at their place.
    #[test]
    fn row_and_key_errors_name_both_places() {
        // A row that does not sum to 1 in the first state would be fixed by a later entry out of order.
        let ok = r#"{"states": 2, "transitions": [[0, 0, 0.5], [1, 1, 1], [0, 1, 0.5]]}"#;
        assert!(outcome(ok, false).starts_with("ok"));
        // Each file: the place (`line:column`, or "" for any), and words of the message.
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "{\"states\": 2,\n \"transitions\": {\"0\": {\"0\": 0.5, \"1\": 0.5},\n \"1\": {\"1\": 1}, \"0\": {\"1\": 1}}}",
                "3:17",
                &["the key \"0\" appears twice", "line 2"],
            ),
            (
                "{\"states\": 2, \"transitions\": {\"0\": {\"0\": 0.5, \"1\": 0.5}, \"1\": {\"1\": 0.5,\n \"1\": 0.5}}}",
                "2:2",
                &["given twice (first on line 1)", r#"transitions["1"]["1"]"#],
            ),
            (
                "{\"type\": \"mdp\", \"states\": 1, \"transitions\": {\"0\": {\"a\": {\"0\": 1},\n \"a\": {\"0\": 1}}}}",
                "2:2",
                &["the key \"a\" appears twice"],
            ),
            (
                "{\"type\": \"mdp\", \"states\": [\"s\"], \"transitions\": {\"s\": [{\"s\": 1}, {\"s\": 0.5}]}}",
                "",
                &[
                    "state 0 (choice 1) sum to 0.5",
                    "transitions.s[1].s: \"s\" (0) -> \"s\" (0)",
                ],
            ),
            (
                "{\"type\": \"mdp\", \"states\": 1, \"transitions\": [[0, 0, 0, 0.5], [0, 1, 0, 1]]}",
                "",
                &["state 0 (choice 0) sum to 0.5", "transitions[0]"],
            ),
            (
                "{\"type\": \"mdp\", \"states\": 1, \"transitions\": [[0, 1, 0, 1]]}",
                "",
                &["choice 1 follows choice -1"],
            ),
            (
                "{\"states\": 3, \"transitions\": {\"0\": {\"0\": 1}, \"2\": {\"2\": 1}}}",
                "1:30",
                &["state 1 has no outgoing"],
            ),
            (
                "{\"states\": 2, \"transitions\": {\"0\": {\"0\": 1}}}",
                "",
                &["state 1 has no outgoing"],
            ),
            (
                "{\"states\": 2,\n \"transitions\": [[1, 1, 1],\n [0, 0, 1], [0, 0, 1]]}",
                "3:13",
                &["first on line 3", "transitions[2]"],
            ),
            // An MDP's transitions before its type, with an error; without the type.
            (
                "{\"states\": 1, \"transitions\": [[0, \"a\", 0, 2]], \"type\": \"mdp\"}",
                "",
                &["sum to 2"],
            ),
            (
                "{\"states\": 1, \"transitions\": [[0, \"a\", 0, 2]]}",
                "",
                &["four entries are an MDP's"],
            ),
            (
                "{\"states\": 1, \"transitions\": {\"0\": 1}}",
                "1:36",
                &[r#"transitions["0"]: expected an object, found the number 1"#],
            ),
            (
                "{\"states\": 1, \"transitions\": [[0, 0, 1], 7]}",
                "1:42",
                &["transitions[1]: expected [from, to, value], found the number 7"],
            ),
            (
                "{\"states\": 1, \"transitions\": [[0, 0, 1], []]}",
                "1:42",
                &["a list of 0 entries"],
            ),
            (
                "{\"states\": \"three\", \"transitions\": []}",
                "1:12",
                &["found the string \"three\""],
            ),
            (
                "{\"states\": 1, \"transitions\": [[0, 0, 1]], \"comment\": {\"a\": 1, \"a\": 2}}",
                "",
                &["appears twice"],
            ),
            (
                "{\"states\": 1, \"transitions\": [[0, 0, 1]]} x",
                "",
                &["not valid JSON: trailing characters"],
            ),
            // Keys with escapes: their place is found from the text.
            (
                r#"{"states": ["a"], "transitions": {"a": {"\u0062": 1}}}"#,
                "1:41",
                &["unknown state \"b\""],
            ),
            (
                r#"{"states": ["a", "b"], "transitions": {"a": {"a": 0.5, "\u0063": 0.5}}}"#,
                "1:56",
                &["unknown state \"c\""],
            ),
            (
                "{\"states\": 1, \"transitions\": [[0, 0, 1]], \"rewards\": {\"r\": {\"state\": [1e999]}}}",
                "",
                &["expected a number", "found the number 1e999"],
            ),
        ];
        for (text, place, words) in cases {
            let e = err(text);
            assert!(e.starts_with(&format!("m.json:{place}")), "{place}: {e}");
            for w in *words {
                assert!(e.contains(w), "{w}: {e}");
            }
        }
    }

    /// Random edits of valid files never panic, and every error is placed within the text.
    #[test]
    fn mutated_files_are_refused_in_place() {
        let tokens: &[&str] = &[
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            " ",
            "\n",
            "0",
            "1",
            "-1",
            "0.5",
            "1e400",
            "01",
            "\"1/3\"",
            "\"01\"",
            "\"R\"",
            "\"X\"",
            "null",
            "true",
            "\"mdp\"",
            "\"states\"",
            "\"transitions\"",
            "\"initial\"",
            "\"labels\"",
            "\"rewards\"",
            "\"comment\"",
            "\"state\"",
            "\"transition\"",
            "\\",
            "\\u",
            "\u{e9}",
            "\"go\"",
            "-0",
            "1.",
        ];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let texts: Vec<String> = corpus().into_iter().filter(|t| t.len() < 4000).collect();
        let (mut accepted, mut refused) = (0usize, 0usize);
        for text in &texts {
            for round in 0..150 {
                let mut m = text.as_bytes().to_vec();
                for _ in 0..rng.random_range(1..=2) {
                    let at = rng.random_range(0..=m.len());
                    let len = rng.random_range(0..=4usize).min(m.len() - at);
                    match rng.random_range(0..4) {
                        0 => m.truncate(at),
                        1 => {
                            m.drain(at..at + len);
                        }
                        2 => {
                            let t = tokens[rng.random_range(0..tokens.len())].as_bytes();
                            m.splice(at..at + len, t.iter().copied());
                        }
                        _ => {
                            let from = rng.random_range(0..=m.len());
                            let to = (from + rng.random_range(1..40)).min(m.len());
                            let piece = m[from..to].to_vec();
                            m.splice(at..at, piece);
                        }
                    }
                }
                let Ok(m) = String::from_utf8(m) else {
                    continue;
                };
                match read(Path::new("m.json"), &m, &options(round % 4 == 0)) {
                    Ok(_) => accepted += 1,
                    Err(Error::Parse { line, column, .. }) => {
                        let lines: Vec<&str> = m.split('\n').collect();
                        assert!(line >= 1 && line <= lines.len().max(1), "line {line} of\n{m}");
                        // serde_json counts the columns of syntax errors in bytes.
                        assert!(
                            column >= 1 && column <= lines[line - 1].len() + 2,
                            "{line}:{column} of\n{m}"
                        );
                        refused += 1;
                    }
                    Err(e) => panic!("{e}"),
                }
            }
        }
        assert!(
            accepted > 100 && refused > 1000,
            "{accepted} accepted, {refused} refused"
        );
    }

    fn read_str(text: &str) -> Result<Model> {
        read(Path::new("m.json"), text, &ReadOptions::default()).map(|(m, _)| m)
    }

    fn err(text: &str) -> String {
        read_str(text).unwrap_err().to_string()
    }

    const OZ: &str = r#"{
  "states": ["R", "N", "S"],
  "transitions": {
    "R": {"R": 0.5, "N": 0.25, "S": 0.25},
    "N": {"R": "1/2", "S": "1/2"},
    "S": {"R": 0.25, "N": 0.25, "S": 0.5}
  },
  "labels": {"nice": ["N"]},
  "rewards": {"umbrella": {"state": {"R": 1, "S": "1/2"}}}
}"#;

    #[test]
    fn land_of_oz_map_form() {
        let Model::Dtmc(d) = read_str(OZ).unwrap() else {
            panic!()
        };
        assert_eq!(d.initial(), &[0]);
        assert_eq!(d.matrix().row(1), (&[0, 2][..], &[0.5, 0.5][..]));
        assert_eq!(d.names().unwrap()[2], "S");
        assert_eq!(d.label("nice").unwrap().to_vec(), vec![1]);
        let r = &d.reward_models()["umbrella"];
        assert_eq!(r.state.as_deref(), Some(&[1.0, 0.0, 0.5][..]));
    }

    #[test]
    fn list_form_with_indices_and_initial() {
        let Model::Dtmc(d) = read_str(
            r#"{"type": "dtmc", "states": 2, "initial": [1],
                "transitions": [[0, 1, "1/3"], [0, 0, "2/3"], [1, 1, 1]],
                "rewards": {"r": {"transition": [[0, 1, 5]], "action": [1, 2]}}}"#,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(d.initial(), &[1]);
        assert_eq!(d.matrix().row(0).1, &[2.0 / 3.0, 1.0 / 3.0]);
        let r = &d.reward_models()["r"];
        assert_eq!(r.transition.as_deref(), Some(&[0.0, 5.0, 0.0][..]));
        assert_eq!(r.action.as_deref(), Some(&[1.0, 2.0][..]));
    }

    #[test]
    fn mdp_forms_agree() {
        let map = r#"{"type": "mdp", "states": ["a", "b"],
            "transitions": {"a": {"go": {"b": 1}, "stay": {"a": 1}}, "b": {"stay": {"b": 1}}},
            "rewards": {"cost": {"action": {"a": {"go": 2}}, "transition": [["a", "go", "b", 3]]}}}"#;
        let list = r#"{"type": "mdp", "states": ["a", "b"],
            "transitions": [["a", "go", "b", 1], ["b", "stay", "b", 1], ["a", "stay", "a", 1]],
            "rewards": {"cost": {"action": [2, 0, 0], "transition": {"a": {"go": {"b": 3}}}}}}"#;
        let (Model::Mdp(x), Model::Mdp(y)) = (read_str(map).unwrap(), read_str(list).unwrap()) else {
            panic!()
        };
        assert_eq!(x.matrix(), y.matrix());
        assert_eq!(x.action_names().unwrap(), &["go", "stay", "stay"]);
        assert_eq!(x.action_names(), y.action_names());
        assert_eq!(x.reward_models(), y.reward_models());
        let unnamed =
            r#"{"type": "mdp", "states": 2, "transitions": {"0": [{"1": 1}, {"0": 1}], "1": [{"1": 1}]}}"#;
        let Model::Mdp(z) = read_str(unnamed).unwrap() else {
            panic!()
        };
        assert_eq!(z.matrix(), x.matrix());
        assert!(z.action_names().is_none());
    }

    /// A game: owners from `"players"` (in the order written), the same after writing and
    /// reading back, whatever the order of the keys; the errors of the players' part.
    #[test]
    fn games_read_write_and_errors() {
        let game = r#"{"players": {"bob": "b", "alice": ["a", "c"]}, "type": "smg", "states": ["a", "b", "c"],
            "transitions": {"a": {"go": {"b": 1}, "stay": {"a": 1}}, "b": {"x": {"c": 1}, "y": {"a": 1}}, "c": {"s": {"c": 1}}}}"#;
        let model = read_str(game).unwrap();
        let Model::Mdp(m) = &model else { panic!() };
        let p = m.players().unwrap();
        assert_eq!(
            (p.owner.as_slice(), p.names.as_slice()),
            (&[1, 0, 1][..], &["bob".to_string(), "alice".to_string()][..])
        );
        let mut out = Vec::new();
        write(&model, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("\"type\": \"smg\"") && text.contains("\"bob\": [\"b\"]"),
            "{text}"
        );
        let Model::Mdp(back) = read_str(&text).unwrap() else {
            panic!()
        };
        assert_eq!(back.players(), m.players());
        assert_eq!(back.matrix(), m.matrix());
        let t = r#""transitions": {"0": [{"0": 1}], "1": [{"1": 1}]}"#;
        for (text, want) in [
            (
                format!(r#"{{"type": "smg", "states": 2, {t}}}"#),
                "m.json:1:10: a game (\"type\": \"smg\") needs \"players\"",
            ),
            (
                format!(r#"{{"type": "mdp", "states": 2, {t}, "players": {{"a": [0, 1]}}}}"#),
                "\"players\" belongs to games",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{"a": [0, 1], "b": 1}}}}"#),
                "players.b: state 1 is already owned by player \"a\"",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{"a": 0}}}}"#),
                "players: no player owns state 1",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{"a": 2}}}}"#),
                "players.a",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{}}}}"#),
                "a game needs at least one player",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{"a": [0, 0], "b": 1}}}}"#),
                "players.a: state 0 is listed twice",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{"team a": [0, 1]}}}}"#),
                "is not an identifier",
            ),
            (
                format!(r#"{{"type": "smg", "states": 2, {t}, "players": {{"2": [0, 1]}}}}"#),
                "is not an identifier",
            ),
            (
                format!(r#"{{"type": "game", "states": 2, {t}}}"#),
                "expected \"dtmc\", \"mdp\" or \"smg\"",
            ),
        ] {
            let e = err(&text);
            assert!(e.contains(want), "{text}\n got: {e}\nwant: {want}");
        }
    }

    #[test]
    fn round_trip_is_exact() {
        for text in [
            OZ,
            r#"{"type": "mdp", "states": 3, "initial": [0, 2],
                "transitions": [[0, 0, 1, "1/3"], [0, 0, 2, "2/3"], [0, 1, 0, 1], [1, 0, 1, 1], [2, 0, 2, 1e-300], [2, 0, 1, 1]],
                "labels": {"odd \"label\"": [1], "none": []},
                "rewards": {"r": {"state": [1e300, -2, 0.1], "action": [1, 2, 3, 4], "transition": [[0, 0, 2, 7]]}, "empty": {}}}"#,
        ] {
            let model = read(
                Path::new("m.json"),
                text,
                &ReadOptions {
                    normalize: true,
                    ..ReadOptions::default()
                },
            )
            .unwrap()
            .0;
            let written = to_json(&model).unwrap();
            let again = read_str(&written).unwrap_or_else(|e| panic!("{e}\n{written}"));
            assert_eq!(to_json(&again).unwrap(), written);
            match (&model, &again) {
                (Model::Dtmc(a), Model::Dtmc(b)) => {
                    assert_eq!(a.matrix(), b.matrix());
                    assert_eq!(a.names(), b.names());
                    assert_eq!(a.labels(), b.labels());
                    assert_eq!(a.reward_models(), b.reward_models());
                    assert_eq!(a.initial(), b.initial());
                }
                (Model::Mdp(a), Model::Mdp(b)) => {
                    assert_eq!(a.matrix(), b.matrix());
                    assert_eq!(a.action_names(), b.action_names());
                    assert_eq!(a.labels(), b.labels());
                    assert_eq!(a.reward_models(), b.reward_models());
                    assert_eq!(a.initial(), b.initial());
                }
                _ => panic!("kind changed"),
            }
        }
    }

    #[test]
    fn numbers_are_shortest_and_exact() {
        for v in [0.1, 1.0 / 3.0, 1e-300, 1e300, 5e-324, 123456789.125, 0.0] {
            let t = number(v, Form::Json);
            assert_eq!(parse_number(&t), Some(v), "{t}");
            assert!(t.len() <= 24, "{t}");
        }
        assert_eq!(number(1.0, Form::Json), "1");
    }

    #[test]
    fn semantic_errors_point_at_the_value() {
        let e =
            err("{\"states\": [\"A\", \"B\"],\n \"transitions\": [[\"A\", \"B\", 1],\n  [\"B\", \"X\", 1]]}");
        assert!(
            e.starts_with("m.json:3:9:")
                && e.contains("transitions[1][1]")
                && e.contains("unknown state \"X\""),
            "{e}"
        );
        let e = err("{\"states\": 2, \"transitons\": []}");
        assert!(
            e.starts_with("m.json:1:15:") && e.contains("unknown key \"transitons\""),
            "{e}"
        );
        let e = err(
            "{\"states\": [\"A\", \"B\"],\n \"transitions\": {\"A\": {\"B\": 1},\n  \"B\": {\"A\": 0.5, \"B\": 0.4}}}",
        );
        assert!(
            e.starts_with("m.json:3:9:")
                && e.contains("sum to 0.9")
                && e.contains("transitions.B.A")
                && e.contains("\"B\""),
            "{e}"
        );
        let e = err("{\"states\": 1,\n \"transitions\": [[0, 0, 1],\n [0, 0, 1]]}");
        assert!(
            e.starts_with("m.json:3:2:") && e.contains("twice") && e.contains("transitions[1]"),
            "{e}"
        );
        let e = err("{\"states\": 1, \"transitions\": [[0, 0, -1]]}");
        assert!(e.starts_with("m.json:1:31:") && e.contains("-1"), "{e}");
        let e = err("{\"states\": 1, \"transitions\": [[0, 0, \"abc\"]]}");
        assert!(
            e.starts_with("m.json:1:38:") && e.contains("expected a number"),
            "{e}"
        );
        let e = err("{\"states\": 2, \"transitions\": [[0, 0, 1]]}");
        assert!(e.contains("state 1 has no outgoing"), "{e}");
        let e = err("{\"states\": 2, \"initial\": 5, \"transitions\": [[0, 0, 1], [1, 1, 1]]}");
        assert!(
            e.starts_with("m.json:1:26:") && e.contains("initial") && e.contains("unknown state 5"),
            "{e}"
        );
        let e = err("{\"states\": 1, \"transitions\": [[0, 0, 0, 1]]}");
        assert!(e.contains("\"type\": \"mdp\""), "{e}");
        let e = err("{\"type\": \"mdp\", \"states\": 1, \"transitions\": [[0, \"a\", 0, 1], [0, 1, 0, 1]]}");
        assert!(e.contains("named in some"), "{e}");
        let e = err(
            "{\"states\": 2, \"transitions\": [[0, 1, 1], [1, 1, 1]],\n \"rewards\": {\"r\": {\"transition\": [[1, 0, 1]]}}}",
        );
        assert!(
            e.starts_with("m.json:2:35:") && e.contains("no transition from state 1 to state 0"),
            "{e}"
        );
        let e = err("{\"states\": 1, \"transitions\": [[0, 0, 1]], \"rewards\": {\"r\": {\"stat\": [1]}}}");
        assert!(e.contains("unknown key \"stat\" in rewards.r"), "{e}");
        let e = err("[1, 2]");
        assert!(
            e.starts_with("m.json:1:1:") && e.contains("expected an object"),
            "{e}"
        );
        let e = err("{\"transitions\": []}");
        assert!(e.contains("no \"states\""), "{e}");
    }

    #[test]
    fn first_missing_state() {
        assert_eq!(first_missing(3, [2, 0, 0].into_iter()), Some(1));
        assert_eq!(first_missing(3, [2, 0, 1].into_iter()), None);
        assert_eq!(first_missing(4_000_000_000, [1, 0].into_iter()), Some(2));
        assert_eq!(first_missing(1, std::iter::empty()), Some(0));
    }

    /// The writer's exact text, escapes and every part included (the text the writer made
    /// before it wrote in parallel blocks).
    #[test]
    fn writer_text_is_exact() {
        let cases = [
            (
                r#"{"type": "mdp", "states": ["a\nb", "é"], "initial": "é",
                    "transitions": {"a\nb": {"go": {"é": 1}, "st\"ay": {"a\nb": 1}}, "é": {"stay": {"é": 0.5, "a\nb": 0.5}}},
                    "rewards": {"cost": {"action": {"a\nb": {"go": 2}}, "transition": [["a\nb", "go", "é", 3], ["é", "stay", "é", -1]]}}}"#,
                r####"{
  "type": "mdp",
  "states": ["a\nb", "é"],
  "initial": "é",
  "transitions": {
    "a\nb": {
      "go": {"é": 1},
      "st\"ay": {"a\nb": 1}
    },
    "é": {
      "stay": {"a\nb": 0.5, "é": 0.5}
    }
  },
  "rewards": {
    "cost": {
      "action": [2, 0, 0],
      "transition": [
        ["a\nb", "go", "é", 3],
        ["é", "stay", "é", -1]
      ]
    }
  }
}
"####,
            ),
            (
                r#"{"type": "mdp", "states": 3, "initial": [0, 2],
                    "transitions": [[0, 0, 1, "1/3"], [0, 0, 2, "2/3"], [0, 1, 0, 1], [1, 0, 1, 1], [2, 0, 2, 1e-300], [2, 0, 1, 1]],
                    "labels": {"odd \"label\"": [1], "none": []},
                    "rewards": {"r": {"state": [1e300, -2, 0.1], "action": [1, 2, 3, 4], "transition": [[0, 0, 2, 7]]}, "empty": {}, "t0": {"transition": []}}}"#,
                r####"{
  "type": "mdp",
  "states": 3,
  "initial": [0, 2],
  "transitions": {
    "0": [
      {"1": 0.3333333333333333, "2": 0.6666666666666666},
      {"0": 1}
    ],
    "1": [
      {"1": 1}
    ],
    "2": [
      {"1": 1, "2": 1e-300}
    ]
  },
  "labels": {
    "none": [],
    "odd \"label\"": [1]
  },
  "rewards": {
    "empty": {},
    "r": {
      "state": [1e300, -2, 0.1],
      "action": [1, 2, 3, 4],
      "transition": [
        [0, 0, 2, 7]
      ]
    },
    "t0": {
      "transition": []
    }
  }
}
"####,
            ),
            (
                r#"{"states": 3, "initial": [0, 1], "transitions": [[0, 1, 0.5], [0, 0, 0.5], [1, 2, 1], [2, 2, 1]],
                    "labels": {"x": [2, 0]},
                    "rewards": {"r": {"transition": [[0, 1, 5], [2, 2, 0.25]], "action": [1, 2, 3]}, "z": {"transition": [[0, 0, 0]]}}}"#,
                r####"{
  "type": "dtmc",
  "states": 3,
  "initial": [0, 1],
  "transitions": {
    "0": {"0": 0.5, "1": 0.5},
    "1": {"2": 1},
    "2": {"2": 1}
  },
  "labels": {
    "x": [0, 2]
  },
  "rewards": {
    "r": {
      "action": [1, 2, 3],
      "transition": [
        [0, 1, 5],
        [2, 2, 0.25]
      ]
    },
    "z": {
      "transition": []
    }
  }
}
"####,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(to_json(&read_str(input).unwrap()).unwrap(), want);
        }
    }

    /// Models of several blocks of states (and of reward values) are written whole and in order.
    #[test]
    fn big_models_are_written_in_blocks() {
        let n = 20_000;
        let names: Vec<String> = (0..n).map(|i| format!("\"s{i}\"")).collect();
        let mut text = format!("{{\"states\": [{}], \"transitions\": [", names.join(", "));
        for i in 0..n - 1 {
            text += &format!("[{}, {}, 0.5], [{i}, {i}, 0.5], ", names[i], names[i + 1]);
        }
        text += &format!(
            "[{0}, {0}, 1]], \"rewards\": {{\"r\": {{\"state\": [",
            names[n - 1]
        );
        text += &(0..n).map(|i| (i % 7).to_string()).collect::<Vec<_>>().join(", ");
        text += &format!("], \"transition\": [[{}, {}, 2]]}}}}}}", names[9000], names[9001]);
        let Model::Dtmc(d) = read_str(&text).unwrap() else {
            panic!()
        };
        assert_eq!(
            d.reward_models()["r"].transition.as_ref().unwrap()[2 * 9000 + 1],
            2.0
        );
        let written = to_json(&Model::Dtmc(d.clone())).unwrap();
        assert!(written.contains("\n    \"s8191\": {\"s8191\": 0.5, \"s8192\": 0.5},\n    \"s8192\": {"));
        assert!(written.contains(", 6, 0, 1, 2, "));
        assert!(written.contains("\"transition\": [\n        [\"s9000\", \"s9001\", 2]\n      ]"));
        assert_eq!(written.lines().count(), n + 15);
        let Model::Dtmc(again) = read_str(&written).unwrap() else {
            panic!()
        };
        assert_eq!(format!("{again:?}"), format!("{d:?}"));
    }

    #[test]
    fn writer_refuses_what_json_cannot_name() {
        let m = read_str("{\"states\": 2, \"transitions\": [[0, 0, 1], [1, 1, 1]]}").unwrap();
        let Model::Dtmc(d) = m else { panic!() };
        let d = d.with_names(vec!["x".into(), "x".into()]);
        assert!(to_json(&Model::Dtmc(d)).is_err());
    }

    /// A value of a kind a part does not read as a list or object is refused once it has been
    /// read: a syntax error in it comes first, and the message shows it as read.
    #[test]
    fn wrong_kinds_are_read_before_they_are_refused() {
        let e = err(r#"{"states": {"a"3}, "transitions": []}"#);
        assert!(
            e.starts_with("m.json:1:16:") && e.contains("not valid JSON"),
            "{e}"
        );
        let e = err(r#"{"states": true1, "transitions": []}"#);
        assert!(e.starts_with("m.json:1:12:") && e.ends_with("found true"), "{e}");
    }
}
