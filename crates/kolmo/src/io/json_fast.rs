//! The fast path of the kolmo JSON reader: one pass over the text, straight into the model's CSR
//! arrays, with no tree of the document.
//!
//! [`read`] accepts a file only when it can give exactly the model that the located two-pass
//! reader ([`super::json::read_located`]) gives: the same matrix bit for bit (numbers are read by
//! the same [`parse_number`], rows checked by the same [`check_row`]), names, labels, rewards,
//! initial states and notes. On anything else it gives up (`None`): text that is not JSON, any
//! error of meaning (an unknown state, a row that does not sum to 1, a key given twice, ...), and
//! constructs it does not stream (`"transitions"` before `"states"`, `"type"` after
//! `"transitions"`, rewards before transitions, a comment nested more than [`MAX_DEPTH`] deep).
//! The caller then reads the same text with the located reader, whose error (at its line, column
//! and JSON path) is the answer; giving up costs only the time spent so far. So the scanner need
//! not explain anything, only be at least as strict as serde_json and the located reader.
//!
//! Transitions written state by state in increasing order (as kolmo's writer and most tools write
//! them), each state's choices together, go row by row into the CSR arrays (about 12 bytes a
//! transition) and each row is checked as it closes. Transitions in any other order are read
//! again from the start of `"transitions"` into a list of entries that [`build_matrix`] sorts, as
//! the located reader does. With enough threads ([`Tuning`]), a big per-state map of transitions
//! is read in chunks on all cores ([`parallel_map`]).
//!
//! Memory: the text (held by the caller), the model, and an index from state names to numbers.

use super::json::{Parts, REWARD_KEYS, first_missing, located::MAX_DEPTH, whole};
use super::rows::{Entry, Written as RowEntry, append_row, build_matrix, check_row, normalized_note};
use super::{Model, ReadOptions, parse_number};
use crate::StateId;
use crate::model::{RewardModel, StateSet};
use crate::sparse::CsrMatrix;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Why reading stopped before the end.
#[derive(Debug)]
enum Stop {
    /// The fast path gives up: the located reader reads the file.
    GiveUp,
    /// The transitions are not in row order: read them again into a list of entries.
    Unordered,
}
use Stop::GiveUp;

/// A step of the fast path.
type Step<T = ()> = std::result::Result<T, Stop>;

/// Reads the model in `text` (the contents of `path`) in one pass, or `None` when the located
/// reader must read it (see the module documentation).
pub(super) fn read(path: &Path, text: &str, options: &ReadOptions) -> Option<(Model, Vec<String>)> {
    read_tuned(path, text, options, Tuning::FILES)
}

/// [`read`] with the given sizes of parallel reading.
fn read_tuned(
    path: &Path,
    text: &str,
    options: &ReadOptions,
    tuning: Tuning,
) -> Option<(Model, Vec<String>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut s = Scan::new(text);
    s.tuning = tuning;
    let (parts, notes) = s.model(path, options.normalize).ok()?;
    Some((parts.assemble().ok()?, notes))
}

/// The top-level keys, as bits of a set.
const TYPE: u8 = 1;
const STATES: u8 = 2;
const INITIAL: u8 = 4;
const TRANSITIONS: u8 = 8;
const LABELS: u8 = 16;
const REWARDS: u8 = 32;
const COMMENT: u8 = 64;

/// How an action is written in a transition: a chain's only choice, a choice number, or a name.
#[derive(Clone, Debug, PartialEq)]
enum Act<'t> {
    Only,
    Index(u32),
    Name(Cow<'t, str>),
}

/// A cursor over JSON text that accepts only what serde_json accepts (and less).
struct Scan<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The last number token read and its value: model files repeat values, and comparing the
    /// text is cheaper than parsing it again.
    last_number: (&'t str, f64),
    /// How to read a big transitions map in parallel.
    tuning: Tuning,
}

impl<'t> Scan<'t> {
    fn new(text: &'t str) -> Self {
        Self::at(text, 0)
    }

    /// A cursor at byte `pos` of `text`.
    fn at(text: &'t str, pos: usize) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            pos,
            last_number: ("", 0.0),
            tuning: Tuning::FILES,
        }
    }

    /// Skips JSON white space.
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next byte after white space.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes.get(self.pos).copied()
    }

    /// Reads `b` after white space.
    #[inline]
    fn eat(&mut self, b: u8) -> Step {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// Opens a list or object (`open`); whether it has items (`close` does not follow at once).
    #[inline]
    fn open(&mut self, open: u8, close: u8) -> Step<bool> {
        self.eat(open)?;
        if self.peek() == Some(close) {
            self.pos += 1;
            Ok(false)
        } else {
            Ok(true)
        }
    }

    /// After an item of a list or object that ends with `close`: whether another item follows
    /// (a comma was read) or the end (`close` was read).
    #[inline]
    fn more(&mut self, close: u8) -> Step<bool> {
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(GiveUp),
        }
    }

    /// A string literal, decoded: borrowed from the text unless it holds escapes, which serde_json
    /// decodes (as the located reader does), refusing lone surrogates.
    #[inline]
    fn string(&mut self) -> Step<Cow<'t, str>> {
        if self.peek() != Some(b'"') {
            return Err(GiveUp);
        }
        let start = self.pos + 1;
        let mut i = start;
        loop {
            match self.bytes.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(&self.text[start..i]));
                }
                Some(b'\\') => break,
                // JSON refuses control characters in strings.
                Some(&c) if c < 0x20 => return Err(GiveUp),
                Some(_) => i += 1,
                None => return Err(GiveUp),
            }
        }
        loop {
            match self.bytes.get(i) {
                Some(b'"') => break,
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
                None => return Err(GiveUp),
            }
        }
        let decoded: String = serde_json::from_str(&self.text[start - 1..=i]).map_err(|_| GiveUp)?;
        self.pos = i + 1;
        Ok(Cow::Owned(decoded))
    }

    /// A number token in JSON's grammar, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    #[inline]
    fn number_token(&mut self) -> Step<&'t str> {
        self.ws();
        let b = self.bytes;
        let start = self.pos;
        let mut i = start;
        let digits = |mut i: usize| {
            while let Some(b'0'..=b'9') = b.get(i) {
                i += 1;
            }
            i
        };
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i + 1),
            _ => return Err(GiveUp),
        }
        if b.get(i) == Some(&b'.') {
            let d = digits(i + 1);
            if d == i + 1 {
                return Err(GiveUp);
            }
            i = d;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let d = digits(i);
            if d == i {
                return Err(GiveUp);
            }
            i = d;
        }
        self.pos = i;
        Ok(&self.text[start..i])
    }

    /// A probability or reward: a JSON number, or a string holding a decimal or a fraction.
    #[inline]
    fn value(&mut self) -> Step<f64> {
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            return parse_number(&s).ok_or(GiveUp);
        }
        let t = self.number_token()?;
        if t == self.last_number.0 {
            return Ok(self.last_number.1);
        }
        let v = parse_number(t).ok_or(GiveUp)?;
        self.last_number = (t, v);
        Ok(v)
    }

    /// Any JSON value at nesting `depth` (the top level is 0), checked and skipped: what a
    /// `"comment"` holds. Keys given twice and nesting deeper than [`MAX_DEPTH`] are refused, as
    /// the located reader refuses them.
    fn skip(&mut self, depth: usize) -> Step {
        if depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        match self.peek() {
            Some(b'{') => {
                if self.open(b'{', b'}')? {
                    let mut keys = HashSet::new();
                    loop {
                        if !keys.insert(self.string()?) {
                            return Err(GiveUp);
                        }
                        self.eat(b':')?;
                        self.skip(depth + 1)?;
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
            }
            Some(b'[') => {
                if self.open(b'[', b']')? {
                    loop {
                        self.skip(depth + 1)?;
                        if !self.more(b']')? {
                            break;
                        }
                    }
                }
            }
            Some(b'"') => {
                self.string()?;
            }
            Some(b't' | b'f' | b'n') => {
                let rest = &self.bytes[self.pos..];
                let word: &[u8] = match rest.first() {
                    Some(b't') => b"true",
                    Some(b'f') => b"false",
                    _ => b"null",
                };
                if !rest.starts_with(word) {
                    return Err(GiveUp);
                }
                self.pos += word.len();
            }
            _ => {
                self.number_token()?;
            }
        }
        Ok(())
    }

    /// The whole document: the top-level object and nothing after it but white space.
    fn model(&mut self, path: &Path, normalize: bool) -> Step<(Parts, Vec<String>)> {
        let mut seen = 0u8;
        let mut mdp = false;
        let mut states: Option<States<'t>> = None;
        let mut initial: Option<Vec<StateId>> = None;
        let mut transitions: Option<Transitions> = None;
        let mut labels = Vec::new();
        let mut rewards = Vec::new();
        if !self.open(b'{', b'}')? {
            return Err(GiveUp);
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            let bit = match &*key {
                "type" => TYPE,
                "states" => STATES,
                "initial" => INITIAL,
                "transitions" => TRANSITIONS,
                "labels" => LABELS,
                "rewards" => REWARDS,
                "comment" => COMMENT,
                _ => return Err(GiveUp),
            };
            if seen & bit != 0 {
                return Err(GiveUp);
            }
            seen |= bit;
            match bit {
                TYPE => {
                    // The type decides how transitions are read: it must come first.
                    if transitions.is_some() {
                        return Err(GiveUp);
                    }
                    mdp = match &*self.string()? {
                        "dtmc" => false,
                        "mdp" => true,
                        _ => return Err(GiveUp),
                    };
                }
                STATES => states = Some(self.states()?),
                COMMENT => self.skip(1)?,
                _ => {
                    let st = states.as_ref().ok_or(GiveUp)?;
                    match bit {
                        INITIAL => initial = Some(self.one_or_many(st)?),
                        TRANSITIONS => {
                            transitions = Some(self.transitions(path, st, mdp, normalize)?);
                        }
                        LABELS => labels = self.labels(st)?,
                        _ => {
                            let t = transitions.as_ref().ok_or(GiveUp)?;
                            rewards = self.rewards(st, mdp, t)?;
                        }
                    }
                }
            }
            if !self.more(b'}')? {
                break;
            }
        }
        self.ws();
        if self.pos != self.bytes.len() {
            return Err(GiveUp);
        }
        let (states, t) = (states.ok_or(GiveUp)?, transitions.ok_or(GiveUp)?);
        let labels = labels
            .into_iter()
            .map(|(name, list)| (name, StateSet::from_states(states.n, list)))
            .collect();
        let parts = Parts {
            mdp,
            matrix: t.matrix,
            initial: initial.unwrap_or_else(|| vec![0]),
            names: states.names,
            action_names: t.action_names,
            labels,
            rewards,
        };
        Ok((parts, t.notes))
    }

    /// `"states"`: a count from 1 to `StateId::MAX`, or a non-empty list of distinct names.
    fn states(&mut self) -> Step<States<'t>> {
        if self.peek() != Some(b'[') {
            let t = self.number_token()?;
            return match whole(t) {
                Some(n) if n >= 1 && n <= u64::from(StateId::MAX) => Ok(States {
                    n: n as usize,
                    names: None,
                    index: HashMap::new(),
                }),
                _ => Err(GiveUp),
            };
        }
        if !self.open(b'[', b']')? {
            return Err(GiveUp);
        }
        let mut keys: Vec<Cow<'t, str>> = Vec::new();
        loop {
            keys.push(self.string()?);
            if !self.more(b']')? {
                break;
            }
        }
        if keys.len() > StateId::MAX as usize {
            return Err(GiveUp);
        }
        let mut index = HashMap::with_capacity(keys.len());
        let names = keys.iter().map(|k| k.to_string()).collect();
        for (i, k) in keys.into_iter().enumerate() {
            if index.insert(k, i as StateId).is_some() {
                return Err(GiveUp);
            }
        }
        Ok(States {
            n: index.len(),
            names: Some(names),
            index,
        })
    }

    /// A state: a name or digit string (a string), or a state number (a JSON number).
    #[inline]
    fn state(&mut self, st: &States<'_>) -> Step<StateId> {
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            st.resolve(&s, true)
        } else {
            let t = self.number_token()?;
            st.resolve(t, false)
        }
    }

    /// One state or a list of states.
    fn one_or_many(&mut self, st: &States<'_>) -> Step<Vec<StateId>> {
        if self.peek() != Some(b'[') {
            return Ok(vec![self.state(st)?]);
        }
        let mut out = Vec::new();
        if self.open(b'[', b']')? {
            loop {
                out.push(self.state(st)?);
                if !self.more(b']')? {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The transitions (or transition rewards) written in either form, each passed to `sink` as
    /// `(state, action, target, value)` in file order: a list of `[from, to, value]`
    /// (`[from, action, to, value]` for an MDP), or a map `{from: {to: value}}` (for an MDP
    /// `{from: {action: {to: value}}}` or `{from: [{to: value}, ...]}`). Keys given twice in
    /// one object give up (the located reader refuses them), and so does a state given twice as a
    /// key of the map: the located reader refuses that too, or (for `"1"` and `"01"`) reads it its
    /// own way.
    fn written<F>(&mut self, st: &States<'_>, mdp: bool, sink: &mut F) -> Step
    where
        F: FnMut(StateId, &Act<'t>, StateId, f64) -> Step,
    {
        match self.peek() {
            Some(b'[') => {
                if !self.open(b'[', b']')? {
                    return Ok(());
                }
                loop {
                    self.eat(b'[')?;
                    let state = self.state(st)?;
                    self.eat(b',')?;
                    let action = if mdp {
                        let a = if self.peek() == Some(b'"') {
                            Act::Name(self.string()?)
                        } else {
                            let t = self.number_token()?;
                            Act::Index(whole(t).and_then(|i| u32::try_from(i).ok()).ok_or(GiveUp)?)
                        };
                        self.eat(b',')?;
                        a
                    } else {
                        Act::Only
                    };
                    let target = self.state(st)?;
                    self.eat(b',')?;
                    let value = self.value()?;
                    self.eat(b']')?;
                    sink(state, &action, target, value)?;
                    if !self.more(b']')? {
                        break;
                    }
                }
            }
            Some(b'{') => {
                if !self.open(b'{', b'}')? {
                    return Ok(());
                }
                let mut keys: Vec<StateId> = Vec::new();
                loop {
                    keys.push(self.member(st, mdp, sink)?);
                    if !self.more(b'}')? {
                        break;
                    }
                }
                if !keys.windows(2).all(|w| w[0] < w[1]) {
                    keys.sort_unstable();
                    if keys.windows(2).any(|w| w[0] == w[1]) {
                        return Err(GiveUp);
                    }
                }
            }
            _ => return Err(GiveUp),
        }
        Ok(())
    }

    /// One member `from: ...` of the map form of transitions: a distribution (a chain's), the
    /// actions by name or a list of distributions (an MDP's); returns the state `from`. Action
    /// names given twice give up.
    fn member<F>(&mut self, st: &States<'_>, mdp: bool, sink: &mut F) -> Step<StateId>
    where
        F: FnMut(StateId, &Act<'t>, StateId, f64) -> Step,
    {
        let state = self.key_state(st)?;
        self.eat(b':')?;
        if !mdp {
            self.distribution(st, state, &Act::Only, sink)?;
        } else if self.peek() == Some(b'[') {
            if self.open(b'[', b']')? {
                let mut i = 0u32;
                loop {
                    self.distribution(st, state, &Act::Index(i), sink)?;
                    i = i.checked_add(1).ok_or(GiveUp)?;
                    if !self.more(b']')? {
                        break;
                    }
                }
            }
        } else if self.open(b'{', b'}')? {
            let mut names: Vec<Cow<'t, str>> = Vec::new();
            loop {
                let action = Act::Name(self.string()?);
                self.eat(b':')?;
                self.distribution(st, state, &action, sink)?;
                if let Act::Name(name) = action {
                    names.push(name);
                }
                if !self.more(b'}')? {
                    break;
                }
            }
            names.sort_unstable();
            if names.windows(2).any(|w| w[0] == w[1]) {
                return Err(GiveUp);
            }
        }
        Ok(state)
    }

    /// A state written as an object key (always a string).
    #[inline]
    fn key_state(&mut self, st: &States<'_>) -> Step<StateId> {
        let s = self.string()?;
        st.resolve(&s, true)
    }

    /// One distribution `{to: value, ...}` out of `state` by `action`. A target given twice is
    /// caught where the row is checked.
    #[inline]
    fn distribution<F>(&mut self, st: &States<'_>, state: StateId, action: &Act<'t>, sink: &mut F) -> Step
    where
        F: FnMut(StateId, &Act<'t>, StateId, f64) -> Step,
    {
        if !self.open(b'{', b'}')? {
            return Ok(());
        }
        loop {
            let target = self.key_state(st)?;
            self.eat(b':')?;
            let value = self.value()?;
            sink(state, action, target, value)?;
            if !self.more(b'}')? {
                break;
            }
        }
        Ok(())
    }

    /// `"transitions"`: streamed into CSR when in row order, else read again as a list.
    fn transitions(&mut self, path: &Path, st: &States<'_>, mdp: bool, normalize: bool) -> Step<Transitions> {
        let start = self.pos;
        let tuning = self.tuning;
        if self.peek() == Some(b'{')
            && self.bytes.len() - self.pos >= tuning.parallel_min
            && rayon::current_num_threads() >= tuning.min_threads
        {
            if let Some((t, end)) = parallel_map(self.text, self.pos, st, mdp, normalize, tuning.chunk) {
                self.pos = end;
                return t.into_transitions(st.n);
            }
            self.pos = start;
        }
        let mut rows = Rows::new(mdp, normalize, Some(0));
        let streamed = self.written(st, mdp, &mut |s, a, t, v| rows.push(s, a, t, v));
        match streamed {
            Ok(()) => return rows.finish(st.n),
            Err(GiveUp) => return Err(GiveUp),
            Err(Stop::Unordered) => {}
        }
        drop(rows);
        self.pos = start;
        let mut all = Vec::new();
        self.written(st, mdp, &mut |s, a, t, v| {
            all.push((s, a.clone(), t, v));
            Ok(())
        })?;
        unordered(path, st.n, mdp, normalize, all)
    }

    /// `"labels"`: `{name: state or [states]}`. The sets are made once the transitions have
    /// shown that the model has its `n` states (a small file may claim a huge `n`).
    fn labels(&mut self, st: &States<'_>) -> Step<Vec<(String, Vec<StateId>)>> {
        let mut out: Vec<(String, Vec<StateId>)> = Vec::new();
        let mut names = HashSet::new();
        if self.open(b'{', b'}')? {
            loop {
                let name = self.string()?.into_owned();
                self.eat(b':')?;
                let set = self.one_or_many(st)?;
                if !names.insert(name.clone()) {
                    return Err(GiveUp);
                }
                out.push((name, set));
                if !self.more(b'}')? {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// `"rewards"`: `{name: {"state": ..., "action": ..., "transition": ...}}`.
    fn rewards(&mut self, st: &States<'_>, mdp: bool, t: &Transitions) -> Step<Vec<(String, RewardModel)>> {
        let mut out: Vec<(String, RewardModel)> = Vec::new();
        let mut names = HashSet::new();
        if !self.open(b'{', b'}')? {
            return Ok(out);
        }
        loop {
            let name = self.string()?.into_owned();
            self.eat(b':')?;
            if !names.insert(name.clone()) {
                return Err(GiveUp);
            }
            let mut r = RewardModel::default();
            if self.open(b'{', b'}')? {
                loop {
                    let key = self.string()?;
                    self.eat(b':')?;
                    let slot = match REWARD_KEYS.iter().position(|k| *k == key) {
                        Some(0) => &mut r.state,
                        Some(1) => &mut r.action,
                        Some(_) => &mut r.transition,
                        None => return Err(GiveUp),
                    };
                    if slot.is_some() {
                        return Err(GiveUp);
                    }
                    *slot = Some(match &*key {
                        "state" => self.per_state(st)?,
                        "action" if !mdp => self.per_state(st)?,
                        "action" => self.per_action(st, t)?,
                        _ => self.per_transition(st, mdp, t)?,
                    });
                    if !self.more(b'}')? {
                        break;
                    }
                }
            }
            out.push((name, r));
            if !self.more(b'}')? {
                break;
            }
        }
        Ok(out)
    }

    /// `count` numbers in a list.
    fn values(&mut self, count: usize) -> Step<Vec<f64>> {
        let mut out = Vec::with_capacity(count.min(1 << 20));
        if self.open(b'[', b']')? {
            loop {
                out.push(self.value()?);
                if !self.more(b']')? {
                    break;
                }
            }
        }
        if out.len() == count { Ok(out) } else { Err(GiveUp) }
    }

    /// One value per state: a list of `n` numbers, or `{state: value}` (missing states: 0).
    fn per_state(&mut self, st: &States<'_>) -> Step<Vec<f64>> {
        if self.peek() == Some(b'[') {
            return self.values(st.n);
        }
        let mut values = vec![0.0; st.n];
        let mut seen = vec![false; st.n];
        if self.open(b'{', b'}')? {
            loop {
                let s = self.key_state(st)? as usize;
                self.eat(b':')?;
                if std::mem::replace(&mut seen[s], true) {
                    return Err(GiveUp);
                }
                values[s] = self.value()?;
                if !self.more(b'}')? {
                    break;
                }
            }
        }
        Ok(values)
    }

    /// One value per choice of an MDP: a list, or `{state: {action: value}}`, or
    /// `{state: [value per choice]}` (missing choices: 0).
    fn per_action(&mut self, st: &States<'_>, t: &Transitions) -> Step<Vec<f64>> {
        let m = t.matrix.nrows();
        if self.peek() == Some(b'[') {
            return self.values(m);
        }
        let mut values = vec![0.0; m];
        let mut seen = vec![false; st.n];
        if self.open(b'{', b'}')? {
            loop {
                let s = self.key_state(st)?;
                self.eat(b':')?;
                if std::mem::replace(&mut seen[s as usize], true) {
                    return Err(GiveUp);
                }
                let rows = t.matrix.group_rows(s as usize);
                if self.peek() == Some(b'[') {
                    let v = self.values(rows.len())?;
                    values[rows].copy_from_slice(&v);
                } else if self.open(b'{', b'}')? {
                    // Distinct names are distinct choices.
                    let mut names = HashSet::new();
                    loop {
                        let name = self.string()?;
                        self.eat(b':')?;
                        let row = t.choice_row(s, &Act::Name(name.clone()))?;
                        if !names.insert(name) {
                            return Err(GiveUp);
                        }
                        values[row] = self.value()?;
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
                if !self.more(b'}')? {
                    break;
                }
            }
        }
        Ok(values)
    }

    /// One value per stored transition, written as the transitions are (missing: 0).
    fn per_transition(&mut self, st: &States<'_>, mdp: bool, t: &Transitions) -> Step<Vec<f64>> {
        let (row_ptr, cols, _) = t.matrix.as_parts();
        let mut values = vec![0.0; cols.len()];
        let mut seen = vec![false; cols.len()];
        self.written(st, mdp, &mut |s, a, target, v| {
            let row = t.choice_row(s, a)?;
            let k = row_ptr[row]
                + cols[row_ptr[row]..row_ptr[row + 1]]
                    .binary_search(&target)
                    .map_err(|_| GiveUp)?;
            if std::mem::replace(&mut seen[k], true) {
                return Err(GiveUp);
            }
            values[k] = v;
            Ok(())
        })?;
        Ok(values)
    }
}

/// The states of the model being read, and how to refer to them.
struct States<'t> {
    n: usize,
    names: Option<Vec<String>>,
    /// Name -> state, when the states have names.
    index: HashMap<Cow<'t, str>, StateId>,
}

impl States<'_> {
    /// The state `text` refers to, as the located reader resolves it: a name (a string, when the
    /// states have names), else a state number written in digits.
    #[inline]
    fn resolve(&self, text: &str, is_string: bool) -> Step<StateId> {
        if is_string && self.names.is_some() {
            return self.index.get(text).copied().ok_or(GiveUp);
        }
        match whole(text) {
            Some(s) if (s as usize) < self.n => Ok(s as StateId),
            _ => Err(GiveUp),
        }
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
    fn choice_row(&self, state: StateId, action: &Act<'_>) -> Step<usize> {
        let rows = self.matrix.group_rows(state as usize);
        match action {
            Act::Only => Ok(rows.start),
            Act::Index(i) if (*i as usize) < rows.len() => Ok(rows.start + *i as usize),
            Act::Index(_) => Err(GiveUp),
            Act::Name(name) => {
                let names = self.action_names.as_deref().ok_or(GiveUp)?;
                rows.into_iter().find(|&r| names[r] == **name).ok_or(GiveUp)
            }
        }
    }
}

/// Transitions in row order going into CSR arrays, each row checked as it closes.
struct Rows<'t> {
    mdp: bool,
    normalize: bool,
    row_ptr: Vec<usize>,
    cols: Vec<StateId>,
    vals: Vec<f64>,
    group_ptr: Vec<usize>,
    /// The state the rows must start with (`None`: any, for a chunk after the first).
    first: Option<StateId>,
    /// The state the rows started with.
    first_state: Option<StateId>,
    /// The state whose group is open (or, once closed, the last state).
    state: Option<StateId>,
    /// The number of the open choice within its state.
    choice: u32,
    /// Whether the actions are named (decided by the first MDP transition).
    named: Option<bool>,
    /// The names of the open state's actions, in choice order.
    state_actions: Vec<Cow<'t, str>>,
    /// The same as a set, to find a name that comes back.
    state_action_set: HashSet<Cow<'t, str>>,
    /// Action names of the closed states, in row order.
    action_names: Vec<String>,
    /// The open row.
    row: Vec<RowEntry>,
    rescaled: usize,
    worst: f64,
}

impl<'t> Rows<'t> {
    /// Rows starting with state `first` (any state when `None`).
    fn new(mdp: bool, normalize: bool, first: Option<StateId>) -> Self {
        Self {
            mdp,
            normalize,
            first,
            first_state: None,
            row_ptr: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
            group_ptr: vec![0],
            state: None,
            choice: 0,
            named: None,
            state_actions: Vec::new(),
            state_action_set: HashSet::new(),
            action_names: Vec::new(),
            row: Vec::new(),
            rescaled: 0,
            worst: 0.0,
        }
    }

    /// Takes one transition; [`Stop::Unordered`] when it does not continue the open row, open
    /// the open state's next choice, or open the next state.
    #[inline]
    fn push(&mut self, state: StateId, action: &Act<'t>, target: StateId, value: f64) -> Step {
        // Values are finite (`parse_number`); -0 is accepted, as `build_matrix` accepts it.
        if value < 0.0 {
            return Err(GiveUp);
        }
        if self.mdp {
            let named = matches!(action, Act::Name(_));
            if *self.named.get_or_insert(named) != named {
                return Err(GiveUp);
            }
        }
        let same = self.state == Some(state);
        let next = match self.state {
            Some(s) => state as usize == s as usize + 1,
            None => self.first.is_none_or(|f| f == state),
        };
        match action {
            Act::Only | Act::Index(0) if next => self.next_state(state)?,
            Act::Only => {
                if !same {
                    return Err(Stop::Unordered);
                }
            }
            Act::Index(i) => {
                if !same || (*i != self.choice && Some(*i) != self.choice.checked_add(1)) {
                    return Err(Stop::Unordered);
                }
                if *i != self.choice {
                    self.close_row()?;
                    self.choice += 1;
                }
            }
            Act::Name(name) => {
                if next {
                    self.next_state(state)?;
                    self.state_actions.push(name.clone());
                    self.state_action_set.insert(name.clone());
                } else if !same {
                    return Err(Stop::Unordered);
                } else if self.state_actions.last() != Some(name) {
                    if !self.state_action_set.insert(name.clone()) {
                        return Err(Stop::Unordered);
                    }
                    self.state_actions.push(name.clone());
                    self.close_row()?;
                    self.choice += 1;
                }
            }
        }
        self.row.push(RowEntry {
            target,
            value,
            line: 0,
            column: 0,
        });
        Ok(())
    }

    /// Closes the open state (if any) and opens `state`.
    fn next_state(&mut self, state: StateId) -> Step {
        if self.state.is_some() {
            self.close_row()?;
            self.close_state();
        } else {
            self.first_state = Some(state);
        }
        self.state = Some(state);
        self.choice = 0;
        Ok(())
    }

    /// Checks the open row as [`build_matrix`] would and appends it.
    fn close_row(&mut self) -> Step {
        let scale = check_row(&mut self.row, self.normalize).map_err(|_| GiveUp)?;
        append_row(
            &self.row,
            &scale,
            true,
            (&mut self.cols, &mut self.vals, &mut self.row_ptr),
            (&mut self.rescaled, &mut self.worst),
        );
        self.row.clear();
        Ok(())
    }

    /// Ends the open state's row group (its rows are closed).
    fn close_state(&mut self) {
        self.group_ptr.push(self.row_ptr.len() - 1);
        self.action_names
            .extend(self.state_actions.drain(..).map(Cow::into_owned));
        self.state_action_set.clear();
    }

    /// The matrix of `n` states; gives up unless every state had transitions.
    fn finish(mut self, n: usize) -> Step<Transitions> {
        self.close()?;
        self.into_transitions(n)
    }

    /// Closes the open row and state; gives up if there are none.
    fn close(&mut self) -> Step {
        if self.state.is_none() {
            return Err(GiveUp);
        }
        self.close_row()?;
        self.close_state();
        Ok(())
    }

    /// Appends the closed rows of a chunk that follows these (closed) rows in the file; `None`
    /// unless its first state is the one after their last, with actions named alike.
    fn append(&mut self, other: Rows<'t>) -> Option<()> {
        let follows = self
            .state
            .and_then(|s| s.checked_add(1))
            .is_some_and(|s| other.first_state == Some(s));
        if !follows || (self.mdp && self.named != other.named) {
            return None;
        }
        let (nnz, nrows) = (self.cols.len(), self.row_ptr.len() - 1);
        self.row_ptr.extend(other.row_ptr[1..].iter().map(|&p| p + nnz));
        self.group_ptr
            .extend(other.group_ptr[1..].iter().map(|&g| g + nrows));
        self.cols.extend_from_slice(&other.cols);
        self.vals.extend_from_slice(&other.vals);
        self.action_names.extend(other.action_names);
        self.rescaled += other.rescaled;
        self.worst = self.worst.max(other.worst);
        self.state = other.state;
        Some(())
    }

    /// The matrix of `n` states from closed rows; gives up unless they run from state 0 to `n - 1`.
    fn into_transitions(self, n: usize) -> Step<Transitions> {
        if self.first_state != Some(0) || self.state.map(|s| s as usize + 1) != Some(n) {
            return Err(GiveUp);
        }
        let matrix = CsrMatrix::from_grouped_parts(n, self.row_ptr, self.cols, self.vals, self.group_ptr);
        let notes = if self.rescaled > 0 {
            vec![normalized_note(self.rescaled, self.worst)]
        } else {
            Vec::new()
        };
        Ok(Transitions {
            matrix,
            action_names: (self.named == Some(true)).then_some(self.action_names),
            notes,
        })
    }
}

/// Sizes of the parallel reading of a transitions map. Tests make them tiny, so that small files
/// take the path that big ones do.
#[derive(Clone, Copy, Debug)]
struct Tuning {
    /// Bytes of the map parsed as one chunk, roughly (a chunk starts after a line end).
    chunk: usize,
    /// Text shorter than this after `"transitions":` is read on one thread.
    parallel_min: usize,
    /// Fewer threads than this read on one thread. Reading is bound by the lookups of state
    /// names (a cache miss each): on the 2-core machine measured, two threads were no faster
    /// than one (the transitions of a board of 10⁶ cells: 0.77 s against 0.74 s), and they held
    /// 55 MB more; more cores are expected to pay, which is not measured yet.
    min_threads: usize,
}

impl Tuning {
    /// The sizes used for files: 1 MiB chunks from 8 MiB on, with 4 threads or more.
    const FILES: Tuning = Tuning {
        chunk: 1 << 20,
        parallel_min: 8 << 20,
        min_threads: 4,
    };
}

/// A chunk of the transitions map, read on its own.
struct Chunk<'t> {
    rows: Rows<'t>,
    /// The state keys of its first and last members.
    keys: (StateId, StateId),
    /// Where its first member starts.
    start: usize,
    /// Where it stopped: at the start of the first member after its end, or after the map's `}`.
    end: usize,
    /// Whether it read the map's closing `}`.
    last: bool,
}

/// Reads the map of transitions that opens at `open` (a `{`) in chunks on all cores: the text
/// after it is cut at line ends about every `chunk_bytes` bytes, and each chunk reads members from
/// its first one until it passes the next cut (or the map ends). The chunks' rows form the map's
/// only when each chunk starts exactly where the one before stopped (then, the first chunk
/// starting at the map's first member, every chunk started at a member); chunks after the one
/// that read the `}` are dropped. Returns the closed rows and the position after the map, or
/// `None` when the chunks do not join up or one of them stopped early (the map is then read on
/// one thread, which decides).
fn parallel_map<'t>(
    text: &'t str,
    open: usize,
    st: &States<'_>,
    mdp: bool,
    normalize: bool,
    chunk_bytes: usize,
) -> Option<(Rows<'t>, usize)> {
    use rayon::prelude::*;
    let bytes = text.as_bytes();
    let mut cuts = vec![open + 1];
    let mut p = open + 1 + chunk_bytes;
    while p < bytes.len() {
        match bytes[p..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                cuts.push(p + i + 1);
                p += i + 1 + chunk_bytes;
            }
            None => break,
        }
    }
    let chunks: Vec<Option<Chunk<'t>>> = (0..cuts.len())
        .into_par_iter()
        .map(|i| {
            let to = cuts.get(i + 1).copied().unwrap_or(bytes.len());
            chunk(text, cuts[i], to, st, mdp, normalize, i == 0)
        })
        .collect();
    let mut chunks = chunks.into_iter();
    let first = chunks.next()??;
    let (mut rows, mut end, mut last_key, mut done) = (first.rows, first.end, first.keys.1, first.last);
    for c in chunks {
        if done {
            break;
        }
        let c = c?;
        if c.start != end || c.keys.0 <= last_key {
            return None;
        }
        rows.append(c.rows)?;
        (end, last_key, done) = (c.end, c.keys.1, c.last);
    }
    done.then_some((rows, end))
}

/// Reads members of a map of transitions from `from` until the first member that starts at or
/// after `to`, or the map's end; `None` if anything does not read (or the keys do not increase).
fn chunk<'t>(
    text: &'t str,
    from: usize,
    to: usize,
    st: &States<'_>,
    mdp: bool,
    normalize: bool,
    first: bool,
) -> Option<Chunk<'t>> {
    let mut s = Scan::at(text, from);
    s.ws();
    let start = s.pos;
    let mut rows = Rows::new(mdp, normalize, first.then_some(0));
    let mut keys: Option<(StateId, StateId)> = None;
    loop {
        let key = s.member(st, mdp, &mut |a, b, c, d| rows.push(a, b, c, d)).ok()?;
        keys = match keys {
            None => Some((key, key)),
            Some((k0, k1)) if key > k1 => Some((k0, key)),
            Some(_) => return None,
        };
        match s.peek() {
            Some(b',') => {
                s.pos += 1;
                s.ws();
                if s.pos >= to {
                    break;
                }
            }
            Some(b'}') => {
                s.pos += 1;
                rows.close().ok()?;
                return Some(Chunk {
                    rows,
                    keys: keys?,
                    start,
                    end: s.pos,
                    last: true,
                });
            }
            _ => return None,
        }
    }
    rows.close().ok()?;
    Some(Chunk {
        rows,
        keys: keys?,
        start,
        end: s.pos,
        last: false,
    })
}

/// The matrix from transitions in any order, as the located reader makes it: choice numbers given
/// or by first appearance of each action name within its state, then [`build_matrix`].
fn unordered(
    path: &Path,
    n: usize,
    mdp: bool,
    normalize: bool,
    all: Vec<(StateId, Act<'_>, StateId, f64)>,
) -> Step<Transitions> {
    // Checked before anything of size `n` is allocated: `n` may be huge, the file small.
    if first_missing(n, all.iter().map(|w| w.0)).is_some() {
        return Err(GiveUp);
    }
    let mut named: Option<bool> = None;
    let mut actions: Vec<Vec<Cow<'_, str>>> = vec![Vec::new(); if mdp { n } else { 0 }];
    let mut entries = Vec::with_capacity(all.len());
    for (state, action, target, value) in all {
        let choice = match action {
            Act::Only => 0,
            Act::Index(i) => {
                if *named.get_or_insert(false) {
                    return Err(GiveUp);
                }
                i
            }
            Act::Name(name) => {
                if !*named.get_or_insert(true) {
                    return Err(GiveUp);
                }
                let list = &mut actions[state as usize];
                match list.iter().position(|a| *a == name) {
                    Some(i) => i as u32,
                    None => {
                        list.push(name);
                        list.len() as u32 - 1
                    }
                }
            }
        };
        entries.push(Entry {
            state,
            choice,
            target,
            value,
            line: 0,
            column: 0,
        });
    }
    let (matrix, notes) = build_matrix(path, n, entries, normalize, |_| 0).map_err(|_| GiveUp)?;
    let action_names = match named {
        Some(true) => Some(actions.into_iter().flatten().map(Cow::into_owned).collect()),
        _ => None,
    };
    Ok(Transitions {
        matrix,
        action_names,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::super::json::{read_located, to_json};
    use super::*;
    use crate::games::snakes::{Board, BoardSpec, Die, Rule};
    use rand::RngExt;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::SeedableRng;

    const PATH: &str = "m.json";

    fn options(normalize: bool) -> ReadOptions {
        ReadOptions {
            normalize,
            ..ReadOptions::default()
        }
    }

    /// A read's whole outcome as text: the model's `Debug` (which prints every `f64` in its
    /// shortest form that reads back to the same bits, so equal text means bit-identical values)
    /// with the notes, or the error message.
    fn outcome(r: crate::Result<(Model, Vec<String>)>) -> String {
        match r {
            Ok((m, notes)) => format!("ok {m:?} {notes:?}"),
            Err(e) => format!("err {e}"),
        }
    }

    /// The model of `text` as the located reader gives it.
    fn located(text: &str, normalize: bool) -> String {
        outcome(read_located(Path::new(PATH), text, &options(normalize)))
    }

    /// The model of `text` as the fast path gives it, if it does not give up.
    fn fast(text: &str, normalize: bool) -> Option<String> {
        read(Path::new(PATH), text, &options(normalize))
            .map(Ok)
            .map(outcome)
    }

    /// Chunks of a few bytes, from the smallest transitions on: small files are read in parallel.
    const TINY: Tuning = Tuning {
        chunk: 24,
        parallel_min: 0,
        min_threads: 1,
    };

    /// As [`fast`], reading transition maps in chunks of a few bytes.
    fn fast_tiny(text: &str, normalize: bool) -> Option<String> {
        read_tuned(Path::new(PATH), text, &options(normalize), TINY)
            .map(Ok)
            .map(outcome)
    }

    fn repo_file(rel: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(root.join(rel)).unwrap()
    }

    /// The chain of a snakes board as `kolmo snakes --export x.json` writes it.
    fn snakes_json(spec: &BoardSpec) -> String {
        let board = Board::new(spec).unwrap();
        let mut d = board.named_dtmc().unwrap();
        let goal = board.size() as usize;
        let rolls = (0..d.n()).map(|c| if c == goal { 0.0 } else { 1.0 }).collect();
        d.set_reward_model("rolls", RewardModel::from_state_rewards(rolls))
            .unwrap();
        to_json(&Model::Dtmc(d)).unwrap()
    }

    /// Valid files of every form the schema has; the fast path must read each.
    fn corpus() -> Vec<String> {
        let mut out: Vec<String> = [
            "examples/models/land-of-oz.json",
            "examples/models/drunkard.json",
            "examples/models/shortcut-mdp.json",
        ]
        .iter()
        .map(|f| repo_file(f))
        .collect();
        // The complete examples of the schema's documentation.
        let doc = repo_file("docs/model-json.md");
        for block in doc.split("```json\n").skip(1) {
            let block = &block[..block.find("```").unwrap()];
            if block.starts_with('{') && located(block, false).starts_with("ok") {
                out.push(block.to_string());
            }
        }
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
            ]
            .map(String::from),
        );
        // Written files: snakes boards (several dice and rules), a written MDP.
        let mut weighted = BoardSpec::empty(60).with_random_portals(6, 3).unwrap();
        weighted.die = Die::Weighted(vec![1.0, 2.0, 3.0, 1.0]);
        weighted.rule = Rule::Bounce;
        let mut stay = BoardSpec::builtin("classic").unwrap();
        stay.rule = Rule::Stay;
        for spec in [
            BoardSpec::builtin("classic").unwrap(),
            BoardSpec::empty(200).with_random_portals(40, 7).unwrap(),
            weighted,
            stay,
        ] {
            out.push(snakes_json(&spec));
        }
        let mdp = read_located(
            Path::new(PATH),
            &repo_file("examples/models/shortcut-mdp.json"),
            &options(false),
        )
        .unwrap()
        .0;
        out.push(to_json(&mdp).unwrap());
        out
    }

    #[test]
    fn valid_files_give_the_located_readers_model() {
        for text in corpus() {
            for normalize in [false, true] {
                let want = located(&text, normalize);
                assert!(want.starts_with("ok"), "{want}\n{text}");
                let got =
                    fast(&text, normalize).unwrap_or_else(|| panic!("the fast path gave up on\n{text}"));
                assert_eq!(got, want, "{text}");
                let got =
                    fast_tiny(&text, normalize).unwrap_or_else(|| panic!("gave up in chunks on\n{text}"));
                assert_eq!(got, want, "{text}");
            }
        }
        // Real values: the classic board's first row, a fraction, an MDP's names and rewards.
        let classic = snakes_json(&BoardSpec::builtin("classic").unwrap());
        let Some((Model::Dtmc(d), _)) = read(Path::new(PATH), &classic, &options(false)) else {
            panic!()
        };
        assert_eq!(d.n(), 101);
        assert_eq!(d.matrix().row(0).1, &[1.0 / 6.0; 6][..]);
        assert_eq!(d.names().unwrap()[100], "cell 100");
        assert_eq!(d.label("goal").unwrap().to_vec(), vec![100]);
        assert_eq!(d.reward_models()["rolls"].state.as_ref().unwrap()[100], 0.0);
        let text = repo_file("examples/models/shortcut-mdp.json");
        let Some((Model::Mdp(m), _)) = read(Path::new(PATH), &text, &options(false)) else {
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

    /// Written maps of transitions are read in chunks that join up (not left to one thread), and
    /// chunks that do not join up are noticed.
    #[test]
    fn chunks_of_a_written_map_join_up() {
        let text = snakes_json(&BoardSpec::empty(300).with_random_portals(30, 5).unwrap());
        let mut s = Scan::new(&text);
        s.eat(b'{').unwrap();
        let mut states = None;
        let open = loop {
            let key = s.string().unwrap();
            s.eat(b':').unwrap();
            match &*key {
                "states" => states = Some(s.states().unwrap()),
                "transitions" => break s.peek().map(|_| s.pos).unwrap(),
                _ => s.skip(1).unwrap(),
            }
            s.eat(b',').unwrap();
        };
        let states = states.unwrap();
        let (m, _) = read_located(Path::new(PATH), &text, &options(false)).unwrap();
        let Model::Dtmc(d) = m else { panic!() };
        for chunk_bytes in [1, 100, 5000, 1 << 20] {
            let (rows, end) = parallel_map(&text, open, &states, false, false, chunk_bytes).unwrap();
            assert!(text[end..].starts_with(",\n  \"labels\""));
            let t = rows.into_transitions(301).unwrap();
            assert_eq!(&t.matrix, d.matrix());
        }
        // A distribution over two lines: a chunk starting inside it does not join up.
        let two_lines = text.replacen(
            "0.16666666666666666, \"cell 3",
            "0.16666666666666666,\n \"cell 3",
            40,
        );
        assert!(parallel_map(&two_lines, open, &states, false, false, 1).is_none());
        assert_eq!(fast_tiny(&two_lines, false), Some(located(&two_lines, false)));
    }

    #[test]
    fn normalize_notes_agree() {
        let text = r#"{"states": 2, "transitions": {"0": {"0": 0.5, "1": 0.4}, "1": {"1": 2}}}"#;
        let got = fast(text, true).unwrap();
        assert_eq!(got, located(text, true));
        assert!(got.contains("normalized 2 row(s)"), "{got}");
        assert_eq!(fast(text, false), None);
    }

    /// Files the fast path leaves to the located reader, which reads them all the same.
    #[test]
    fn what_the_fast_path_leaves_is_read_as_before() {
        for text in [
            // Transitions before states; type after transitions; rewards before transitions.
            r#"{"transitions": [[0, 0, 1]], "states": 1}"#,
            r#"{"states": 1, "transitions": [[0, 0, 1]], "type": "dtmc"}"#,
            r#"{"states": 1, "rewards": {"r": {"state": [1]}}, "transitions": [[0, 0, 1]]}"#,
            // One state as two keys ("1" and "01"): the located reader joins the rows.
            r#"{"states": 2, "transitions": {"0": {"0": 1}, "1": {"0": 0.5}, "01": {"1": 0.5}}}"#,
        ] {
            assert_eq!(fast(text, false), None, "{text}");
            let want = located(text, false);
            assert!(want.starts_with("ok"), "{want}");
            assert_eq!(
                outcome(super::super::json::read(Path::new(PATH), text, &options(false))),
                want
            );
        }
    }

    /// Random edits of valid files: the fast path with its fallback answers exactly as the located
    /// reader alone (the same model, or the same error message), and sometimes accepts.
    #[test]
    fn mutated_files_give_the_located_readers_answer() {
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
            "2",
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
            "\"dtmc\"",
            "\"states\"",
            "\"transitions\"",
            "\"initial\"",
            "\"labels\"",
            "\"rewards\"",
            "\"comment\"",
            "\"state\"",
            "\"action\"",
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
        assert!(texts.len() > 15);
        let (mut accepted, mut refused) = (0usize, 0usize);
        for text in &texts {
            let bytes = text.as_bytes();
            for round in 0..600 {
                let mut m = bytes.to_vec();
                for _ in 0..rng.random_range(1..=2) {
                    let at = rng.random_range(0..=m.len());
                    let len = rng.random_range(0..=4usize).min(m.len() - at);
                    match rng.random_range(0..6) {
                        0 => m.truncate(at),
                        5 => m.insert(at, b" \n\t\r"[rng.random_range(0..4)]),
                        1 => {
                            m.drain(at..at + len);
                        }
                        2 => {
                            let t = tokens[rng.random_range(0..tokens.len())].as_bytes();
                            m.splice(at..at + len, t.iter().copied());
                        }
                        3 => {
                            // A copy of a stretch of the file elsewhere: keys and entries twice.
                            let from = rng.random_range(0..=m.len());
                            let to = (from + rng.random_range(1..40)).min(m.len());
                            let piece = m[from..to].to_vec();
                            let at = at.min(m.len());
                            m.splice(at..at, piece);
                        }
                        _ => {
                            if at < m.len() {
                                m[at] = b"{}[],:\"0123456789.eE-+/ \\xR"[rng.random_range(0..27)];
                            }
                        }
                    }
                }
                let Ok(m) = String::from_utf8(m) else {
                    continue;
                };
                let normalize = round % 4 == 0;
                let want = located(&m, normalize);
                let got = outcome(super::super::json::read(Path::new(PATH), &m, &options(normalize)));
                assert_eq!(got, want, "mutated file:\n{m}");
                match fast(&m, normalize) {
                    Some(f) => {
                        assert_eq!(f, want);
                        accepted += 1;
                    }
                    None => refused += 1,
                }
                if let Some(f) = fast_tiny(&m, normalize) {
                    assert_eq!(f, want, "mutated file (read in chunks):\n{m}");
                }
            }
        }
        // Both ways are taken often.
        assert!(
            accepted > 1000 && refused > 5000,
            "{accepted} accepted, {refused} refused"
        );
    }
}
