//! kolmo's JSON model files (schema in `docs/model-json.md`).
//!
//! Files are read by the one-pass reader of [`super::json_fast`] when it accepts them (every valid
//! file it can stream, which includes everything [`write`] writes). Otherwise, and for every file
//! with an error, reading happens in two passes ([`read_located`]). serde_json first checks the
//! syntax (its errors carry line and column); then [`located::parse`] builds a small tree that remembers where every value and key
//! starts, so that errors about the *meaning* of a value (an unknown state, a row that does not
//! sum to 1, a duplicate transition) point at the line and column where it was written, and name
//! its JSON path (`transitions[17]`, `transitions.R.N`).
//!
//! Writing emits the per-state map form with state names (when the model has them), labels,
//! initial states and reward models; numbers are written in their shortest form that reads back
//! to the same `f64`, so writing and reading gives the same model exactly.

use super::text_out::{Numbers, push_uint, write_states};
use super::{Entry, Model, ReadOptions, build_matrix, parse_error, parse_number};
use crate::model::{Dtmc, Mdp, RewardModel, StateSet};
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId, excerpt};
use located::{Json, Member, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// Keys allowed at the top level.
const TOP_KEYS: &[&str] = &[
    "type",
    "states",
    "initial",
    "transitions",
    "labels",
    "rewards",
    "comment",
];
/// Keys allowed in a reward model.
pub(super) const REWARD_KEYS: &[&str] = &["state", "action", "transition"];

/// Reads a model from `text`, the contents of `path`; returns it with notes for the user.
///
/// Tries the one-pass reader ([`super::json_fast`]) first; when it gives up (on any error, or a
/// file it does not stream), reads the text again with [`read_located`], whose result (the same
/// model, or an error at its line and column) is the answer.
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    match super::json_fast::read(path, text, options) {
        Some(done) => Ok(done),
        None => read_located(path, text, options),
    }
}

/// Reads a model from `text` in two passes (serde_json's syntax check, then a tree of located
/// values): slow and memory-hungry for big files, but every error names its line, column and
/// JSON path. The reference that [`super::json_fast`] must agree with.
pub(super) fn read_located(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let root = located::parse(path, text)?;
    let top = object(path, &root, "the model", TOP_KEYS)?;
    let get = |key: &str| top.iter().find(|m| m.key == key).map(|m| &m.value);
    let missing = |key: &str| {
        parse_error(
            path,
            root.line,
            root.column,
            format!("the model has no \"{key}\" (see docs/model-json.md)"),
        )
    };

    let mdp = match get("type") {
        None => false,
        Some(node) => match &node.value {
            Value::String(s) if s == "dtmc" => false,
            Value::String(s) if s == "mdp" => true,
            _ => {
                return Err(at(
                    path,
                    node,
                    format!("type: expected \"dtmc\" or \"mdp\", found {}", describe(node)),
                ));
            }
        },
    };
    let states = States::read(path, get("states").ok_or_else(|| missing("states"))?)?;
    let initial = match get("initial") {
        None => vec![0],
        Some(node) => states.one_or_many(node, "initial")?,
    };
    let transitions = get("transitions").ok_or_else(|| missing("transitions"))?;
    let (matrix, action_names, notes) = states.transitions(transitions, mdp, options.normalize)?;

    let mut labels = Vec::new();
    if let Some(node) = get("labels") {
        for m in object(path, node, "labels", &[])? {
            let p = key_path("labels", &m.key);
            let set = StateSet::from_states(states.n, states.one_or_many(&m.value, &p)?);
            labels.push((m.key.clone(), set));
        }
    }
    let mut rewards = Vec::new();
    if let Some(node) = get("rewards") {
        for m in object(path, node, "rewards", &[])? {
            let p = key_path("rewards", &m.key);
            let r = states.rewards(&m.value, &p, mdp, &matrix, action_names.as_deref())?;
            rewards.push((m.key.clone(), r));
        }
    }

    let parts = Parts {
        mdp,
        matrix,
        initial,
        names: states.names,
        action_names,
        labels,
        rewards,
    };
    Ok((parts.assemble()?, notes))
}

/// What a JSON model file holds, once read and checked.
pub(super) struct Parts {
    /// Whether the model is an MDP (`"type": "mdp"`).
    pub mdp: bool,
    /// The transition matrix (one row group per state).
    pub matrix: CsrMatrix,
    /// The initial states.
    pub initial: Vec<StateId>,
    /// The state names, if `"states"` is a list.
    pub names: Option<Vec<String>>,
    /// An MDP's action names in row order, if its actions are named.
    pub action_names: Option<Vec<String>>,
    /// Labels in file order.
    pub labels: Vec<(String, StateSet)>,
    /// Reward models in file order.
    pub rewards: Vec<(String, RewardModel)>,
}

impl Parts {
    /// The model. The matrix was validated row by row, so the constructors only restate it.
    pub(super) fn assemble(self) -> Result<Model> {
        let Parts {
            mdp,
            matrix,
            initial,
            names,
            action_names,
            labels,
            rewards,
        } = self;
        let model = if mdp {
            let mut model = Mdp::new(matrix, initial)?;
            if let Some(names) = names {
                model = model.with_names(names);
            }
            if let Some(names) = action_names {
                model = model.with_action_names(names);
            }
            for (name, set) in labels {
                model.set_label(name, set);
            }
            for (name, r) in rewards {
                model.set_reward_model(name, r)?;
            }
            Model::Mdp(model)
        } else {
            let mut model = Dtmc::new(matrix, initial)?;
            if let Some(names) = names {
                model = model.with_names(names);
            }
            for (name, set) in labels {
                model.set_label(name, set);
            }
            for (name, r) in rewards {
                model.set_reward_model(name, r)?;
            }
            Model::Dtmc(model)
        };
        Ok(model)
    }
}

/// A [`parse_error`] at `node`.
fn at(path: &Path, node: &Json<'_>, message: impl Into<String>) -> Error {
    parse_error(path, node.line, node.column, message)
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

/// The members of `node`, which must be an object whose keys are all in `allowed` (any key when
/// `allowed` is empty); `what` names it in messages.
fn object<'j, 't>(path: &Path, node: &'j Json<'t>, what: &str, allowed: &[&str]) -> Result<&'j [Member<'t>]> {
    let Value::Object(members) = &node.value else {
        return Err(at(
            path,
            node,
            format!("{what}: expected an object, found {}", describe(node)),
        ));
    };
    if !allowed.is_empty()
        && let Some(m) = members.iter().find(|m| !allowed.contains(&m.key.as_str()))
    {
        return Err(parse_error(
            path,
            m.line,
            m.column,
            format!(
                "unknown key \"{}\" in {what}; the keys are {}",
                excerpt(&m.key),
                allowed
                    .iter()
                    .map(|k| format!("\"{k}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(members)
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
pub(super) fn whole(raw: &str) -> Option<u64> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse().ok()
}

/// Where an action (choice) is named in a transition or reward.
#[derive(Clone, Debug, PartialEq)]
enum Action {
    /// A Markov chain's only choice.
    Only,
    /// The choice's number within its state.
    Index(u32),
    /// The choice's name.
    Name(String),
}

/// A transition (or transition reward) as written: from `state` by `action` to `target`.
#[derive(Clone, Debug)]
struct Written {
    state: StateId,
    action: Action,
    target: StateId,
    value: f64,
    line: usize,
    column: usize,
    /// The JSON path of the value, for messages.
    json_path: String,
}

/// The states of the model being read, and how to refer to them.
struct States<'p> {
    path: &'p Path,
    n: usize,
    names: Option<Vec<String>>,
    index: HashMap<String, StateId>,
    /// Where `"states"` was written.
    line: usize,
}

impl<'p> States<'p> {
    /// Reads `"states"`: a count or a list of distinct names.
    fn read(path: &'p Path, node: &Json<'_>) -> Result<Self> {
        let (n, names) = match &node.value {
            Value::Number(raw) => match whole(raw) {
                Some(n) if n >= 1 && n <= u64::from(StateId::MAX) => (n as usize, None),
                _ => {
                    return Err(at(
                        path,
                        node,
                        format!(
                            "states: expected a number of states from 1 to {} or a list of names, found {}",
                            StateId::MAX,
                            describe(node)
                        ),
                    ));
                }
            },
            Value::Array(items) if !items.is_empty() => {
                let mut names = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match &item.value {
                        Value::String(s) => names.push(s.clone()),
                        _ => {
                            return Err(at(
                                path,
                                item,
                                format!(
                                    "states[{i}]: a state name must be a string, found {}",
                                    describe(item)
                                ),
                            ));
                        }
                    }
                }
                (names.len(), Some(names))
            }
            _ => {
                return Err(at(
                    path,
                    node,
                    format!(
                        "states: expected a number of states or a non-empty list of names, found {}",
                        describe(node)
                    ),
                ));
            }
        };
        if n > StateId::MAX as usize {
            return Err(at(
                path,
                node,
                format!("states: more than {} states", StateId::MAX),
            ));
        }
        let mut index = HashMap::new();
        if let (Some(names), Value::Array(items)) = (&names, &node.value) {
            for (i, name) in names.iter().enumerate() {
                if let Some(first) = index.insert(name.clone(), i as StateId) {
                    return Err(at(
                        path,
                        &items[i],
                        format!(
                            "states[{i}]: the name \"{}\" is also state {first}; names must be distinct",
                            excerpt(name)
                        ),
                    ));
                }
            }
        }
        Ok(Self {
            path,
            n,
            names,
            index,
            line: node.line,
        })
    }

    /// State `s` for messages: `"name" (s)` or `s`.
    fn show(&self, s: StateId) -> String {
        match &self.names {
            Some(names) => format!("\"{}\" ({s})", excerpt(&names[s as usize])),
            None => s.to_string(),
        }
    }

    /// The state a name or number refers to: a JSON integer is an index; a string is a name when
    /// the states are named, and an index written as digits otherwise.
    fn resolve(&self, text: &str, is_string: bool) -> std::result::Result<StateId, String> {
        if is_string && self.names.is_some() {
            return self.index.get(text).copied().ok_or_else(|| {
                let names = self.names.as_deref().unwrap_or_default();
                let shown: Vec<String> = names
                    .iter()
                    .take(8)
                    .map(|s| format!("\"{}\"", excerpt(s)))
                    .collect();
                format!(
                    "unknown state \"{}\" (the states are {}{})",
                    excerpt(text),
                    shown.join(", "),
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

    /// The state `node` (a string or a number) refers to; `what` is its JSON path.
    fn state(&self, node: &Json<'_>, what: &str) -> Result<StateId> {
        let r = match &node.value {
            Value::String(s) => self.resolve(s, true),
            Value::Number(raw) => self.resolve(raw, false),
            _ => Err(format!("expected a state, found {}", describe(node))),
        };
        r.map_err(|m| at(self.path, node, format!("{what}: {m}")))
    }

    /// The state an object key refers to; `what` is the object's JSON path.
    fn key(&self, m: &Member<'_>, what: &str) -> Result<StateId> {
        self.resolve(&m.key, true)
            .map_err(|msg| parse_error(self.path, m.line, m.column, format!("{what}: {msg}")))
    }

    /// One state or a list of states.
    fn one_or_many(&self, node: &Json<'_>, what: &str) -> Result<Vec<StateId>> {
        match &node.value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.state(item, &format!("{what}[{i}]")))
                .collect(),
            _ => Ok(vec![self.state(node, what)?]),
        }
    }

    /// A probability or reward: a JSON number, or a string holding a decimal or a fraction.
    fn number(&self, node: &Json<'_>, what: &str) -> Result<f64> {
        let parsed = match &node.value {
            Value::Number(raw) => parse_number(raw),
            Value::String(s) => parse_number(s),
            _ => None,
        };
        parsed.ok_or_else(|| {
            at(
                self.path,
                node,
                format!(
                    "{what}: expected a number (a decimal like 0.25 or a fraction like \"1/3\"), found {}",
                    describe(node)
                ),
            )
        })
    }

    /// The transitions (or transition rewards) in `node`, in either form: a list of
    /// `[from, to, value]` (`[from, action, to, value]` for an MDP), or a map
    /// `{from: {to: value}}` (`{from: {action: {to: value}}}` or `{from: [{to: value}, ...]}`).
    fn written(&self, node: &Json<'_>, what: &str, mdp: bool) -> Result<Vec<Written>> {
        let mut out = Vec::new();
        match &node.value {
            Value::Array(items) => {
                let shape = if mdp {
                    "[from, action, to, value]"
                } else {
                    "[from, to, value]"
                };
                for (i, item) in items.iter().enumerate() {
                    let p = format!("{what}[{i}]");
                    let parts = match &item.value {
                        Value::Array(parts) if parts.len() == 3 + usize::from(mdp) => parts,
                        Value::Array(parts) if !mdp && parts.len() == 4 => {
                            return Err(at(
                                self.path,
                                item,
                                format!(
                                    "{p}: a Markov chain's transition is {shape}; four entries are an MDP's (add \"type\": \"mdp\")"
                                ),
                            ));
                        }
                        _ => {
                            return Err(at(
                                self.path,
                                item,
                                format!("{p}: expected {shape}, found {}", describe_len(item)),
                            ));
                        }
                    };
                    let action = if mdp {
                        let a = &parts[1];
                        match &a.value {
                            Value::String(s) => Action::Name(s.clone()),
                            Value::Number(raw) => match whole(raw).and_then(|i| u32::try_from(i).ok()) {
                                Some(i) => Action::Index(i),
                                None => {
                                    return Err(at(
                                        self.path,
                                        a,
                                        format!(
                                            "{p}[1]: an action is a name or a choice number, found {}",
                                            describe(a)
                                        ),
                                    ));
                                }
                            },
                            _ => {
                                return Err(at(
                                    self.path,
                                    a,
                                    format!(
                                        "{p}[1]: an action is a name or a choice number, found {}",
                                        describe(a)
                                    ),
                                ));
                            }
                        }
                    } else {
                        Action::Only
                    };
                    let k = usize::from(mdp);
                    out.push(Written {
                        state: self.state(&parts[0], &format!("{p}[0]"))?,
                        action,
                        target: self.state(&parts[1 + k], &format!("{p}[{}]", 1 + k))?,
                        value: self.number(&parts[2 + k], &format!("{p}[{}]", 2 + k))?,
                        line: item.line,
                        column: item.column,
                        json_path: p,
                    });
                }
            }
            Value::Object(members) => {
                for m in members {
                    let state = self.key(m, what)?;
                    let p = key_path(what, &m.key);
                    if !mdp {
                        self.distribution(&m.value, &p, state, Action::Only, &mut out)?;
                        continue;
                    }
                    match &m.value.value {
                        Value::Object(actions) => {
                            for a in actions {
                                let action = Action::Name(a.key.clone());
                                self.distribution(&a.value, &key_path(&p, &a.key), state, action, &mut out)?;
                            }
                        }
                        Value::Array(choices) => {
                            for (i, c) in choices.iter().enumerate() {
                                let action = Action::Index(i as u32);
                                self.distribution(c, &format!("{p}[{i}]"), state, action, &mut out)?;
                            }
                        }
                        _ => {
                            return Err(at(
                                self.path,
                                &m.value,
                                format!(
                                    "{p}: expected the state's actions, {{\"action\": {{\"state\": p, ...}}, ...}} or a list [{{\"state\": p, ...}}, ...], found {}",
                                    describe(&m.value)
                                ),
                            ));
                        }
                    }
                }
            }
            _ => {
                return Err(at(
                    self.path,
                    node,
                    format!(
                        "{what}: expected a list of {} or a map from states, found {}",
                        if mdp {
                            "[from, action, to, value]"
                        } else {
                            "[from, to, value]"
                        },
                        describe(node)
                    ),
                ));
            }
        }
        Ok(out)
    }

    /// The entries of one distribution `{to: value, ...}` out of `state` by `action`.
    fn distribution(
        &self,
        node: &Json<'_>,
        what: &str,
        state: StateId,
        action: Action,
        out: &mut Vec<Written>,
    ) -> Result<()> {
        for m in object(self.path, node, what, &[])? {
            let p = key_path(what, &m.key);
            out.push(Written {
                state,
                action: action.clone(),
                target: self.key(m, what)?,
                value: self.number(&m.value, &p)?,
                line: m.line,
                column: m.column,
                json_path: p,
            });
        }
        Ok(())
    }

    /// Reads `"transitions"` into the matrix (and, for an MDP whose actions are named, the
    /// action names in row order) plus the notes of [`build_matrix`].
    fn transitions(
        &self,
        node: &Json<'_>,
        mdp: bool,
        normalize: bool,
    ) -> Result<(CsrMatrix, Option<Vec<String>>, Vec<String>)> {
        let written = self.written(node, "transitions", mdp)?;
        // Checked before anything of size `n` is allocated: `n` may be huge, the file small.
        if let Some(s) = first_missing(self.n, written.iter().map(|w| w.state)) {
            return Err(at(
                self.path,
                node,
                format!(
                    "transitions: state {} has no outgoing transitions (every state needs a distribution over next states; give an absorbing state a self-loop of probability 1)",
                    self.show(s)
                ),
            ));
        }
        // Choice numbers: given, or by first appearance of each action name within its state.
        let mut named: Option<(bool, usize)> = None;
        let mut actions: Vec<Vec<String>> = vec![Vec::new(); if mdp { self.n } else { 0 }];
        let mut entries = Vec::with_capacity(written.len());
        for w in &written {
            let choice = match &w.action {
                Action::Only => 0,
                Action::Index(i) => {
                    if let Some((true, line)) = named {
                        return Err(mixed(self.path, w, line));
                    }
                    named.get_or_insert((false, w.line));
                    *i
                }
                Action::Name(name) => {
                    if let Some((false, line)) = named {
                        return Err(mixed(self.path, w, line));
                    }
                    named.get_or_insert((true, w.line));
                    let list = &mut actions[w.state as usize];
                    match list.iter().position(|a| a == name) {
                        Some(i) => i as u32,
                        None => {
                            list.push(name.clone());
                            list.len() as u32 - 1
                        }
                    }
                }
            };
            entries.push(Entry {
                state: w.state,
                choice,
                target: w.target,
                value: w.value,
                line: w.line,
                column: w.column,
            });
        }
        let (matrix, notes) = build_matrix(self.path, self.n, entries, normalize, |_| self.line)
            .map_err(|e| annotate(e, &self.places(&written)))?;
        let action_names = match named {
            Some((true, _)) => Some(actions.into_iter().flatten().collect()),
            _ => None,
        };
        Ok((matrix, action_names, notes))
    }

    /// The JSON path (and state names) of each transition, to add to an error at its place.
    fn places(&self, written: &[Written]) -> Vec<(usize, usize, String)> {
        let context = |w: &Written| match self.names {
            Some(_) => format!(
                "{}: {} -> {}",
                w.json_path,
                self.show(w.state),
                self.show(w.target)
            ),
            None => w.json_path.clone(),
        };
        written.iter().map(|w| (w.line, w.column, context(w))).collect()
    }

    /// One reward model `{"state": ..., "action": ..., "transition": ...}`.
    fn rewards(
        &self,
        node: &Json<'_>,
        what: &str,
        mdp: bool,
        matrix: &CsrMatrix,
        action_names: Option<&[String]>,
    ) -> Result<RewardModel> {
        let mut r = RewardModel::default();
        for m in object(self.path, node, what, REWARD_KEYS)? {
            let p = key_path(what, &m.key);
            match m.key.as_str() {
                "state" => r.state = Some(self.per_state(&m.value, &p)?),
                // A chain's only choice in each state: one value per state.
                "action" if !mdp => r.action = Some(self.per_state(&m.value, &p)?),
                "action" => r.action = Some(self.per_action(&m.value, &p, matrix, action_names)?),
                _ => {
                    r.transition = Some(self.per_transition(&m.value, &p, mdp, matrix, action_names)?);
                }
            }
        }
        Ok(r)
    }

    /// One value per state: a list of `n` numbers, or a map from states (missing states: 0).
    fn per_state(&self, node: &Json<'_>, what: &str) -> Result<Vec<f64>> {
        if let Value::Array(items) = &node.value {
            if items.len() != self.n {
                return Err(at(
                    self.path,
                    node,
                    format!("{what}: {} values for {} states", items.len(), self.n),
                ));
            }
            return items
                .iter()
                .enumerate()
                .map(|(i, item)| self.number(item, &format!("{what}[{i}]")))
                .collect();
        }
        let mut values = vec![0.0; self.n];
        let mut seen = vec![false; self.n];
        for m in object(self.path, node, what, &[])? {
            let s = self.key(m, what)? as usize;
            if std::mem::replace(&mut seen[s], true) {
                return Err(parse_error(
                    self.path,
                    m.line,
                    m.column,
                    format!("{what}: state {} is given twice", self.show(s as StateId)),
                ));
            }
            values[s] = self.number(&m.value, &key_path(what, &m.key))?;
        }
        Ok(values)
    }

    /// One value per choice of an MDP: a list of `m` numbers (choices in row order), or a map
    /// from states to `{action: value}` or to a list of values by choice number.
    fn per_action(
        &self,
        node: &Json<'_>,
        what: &str,
        matrix: &CsrMatrix,
        action_names: Option<&[String]>,
    ) -> Result<Vec<f64>> {
        let m = matrix.nrows();
        if let Value::Array(items) = &node.value {
            if items.len() != m {
                return Err(at(
                    self.path,
                    node,
                    format!("{what}: {} values for {m} choices (actions) in all", items.len()),
                ));
            }
            return items
                .iter()
                .enumerate()
                .map(|(i, item)| self.number(item, &format!("{what}[{i}]")))
                .collect();
        }
        let mut values = vec![0.0; m];
        let mut seen = vec![false; m];
        for member in object(self.path, node, what, &[])? {
            let s = self.key(member, what)?;
            let p = key_path(what, &member.key);
            let rows = matrix.group_rows(s as usize);
            let mut put = |row: usize, value: &Json<'_>, vp: &str| -> Result<()> {
                if std::mem::replace(&mut seen[row], true) {
                    return Err(at(
                        self.path,
                        value,
                        format!("{vp}: this action's reward is given twice"),
                    ));
                }
                values[row] = self.number(value, vp)?;
                Ok(())
            };
            match &member.value.value {
                Value::Array(items) => {
                    if items.len() != rows.len() {
                        return Err(at(
                            self.path,
                            &member.value,
                            format!(
                                "{p}: {} values for the {} choices of state {}",
                                items.len(),
                                rows.len(),
                                self.show(s)
                            ),
                        ));
                    }
                    for (i, item) in items.iter().enumerate() {
                        put(rows.start + i, item, &format!("{p}[{i}]"))?;
                    }
                }
                _ => {
                    for a in object(self.path, &member.value, &p, &[])? {
                        let row = self.choice_row(s, &Action::Name(a.key.clone()), matrix, action_names);
                        let row = row
                            .map_err(|msg| parse_error(self.path, a.line, a.column, format!("{p}: {msg}")))?;
                        put(row, &a.value, &key_path(&p, &a.key))?;
                    }
                }
            }
        }
        Ok(values)
    }

    /// The row of `state`'s choice `action`.
    fn choice_row(
        &self,
        state: StateId,
        action: &Action,
        matrix: &CsrMatrix,
        action_names: Option<&[String]>,
    ) -> std::result::Result<usize, String> {
        let rows = matrix.group_rows(state as usize);
        match action {
            Action::Only => Ok(rows.start),
            Action::Index(i) if (*i as usize) < rows.len() => Ok(rows.start + *i as usize),
            Action::Index(i) => Err(format!(
                "state {} has no choice {i} (it has {})",
                self.show(state),
                rows.len()
            )),
            Action::Name(name) => {
                let names = action_names.ok_or_else(|| {
                    format!(
                        "action \"{}\": the actions have no names, so refer to them by number",
                        excerpt(name)
                    )
                })?;
                rows.clone().find(|&r| names[r] == *name).ok_or_else(|| {
                    format!(
                        "state {} has no action \"{}\" (its actions are {})",
                        self.show(state),
                        excerpt(name),
                        rows.map(|r| format!("\"{}\"", excerpt(&names[r])))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
            }
        }
    }

    /// One value per stored transition, from transitions written as in `"transitions"`
    /// (missing transitions: 0); a reward on a transition the model does not have is an error.
    fn per_transition(
        &self,
        node: &Json<'_>,
        what: &str,
        mdp: bool,
        matrix: &CsrMatrix,
        action_names: Option<&[String]>,
    ) -> Result<Vec<f64>> {
        let (row_ptr, cols, _) = matrix.as_parts();
        let mut values = vec![0.0; matrix.nnz()];
        let mut first_line = vec![0usize; matrix.nnz()];
        for w in self.written(node, what, mdp)? {
            let place =
                |msg: String| parse_error(self.path, w.line, w.column, format!("{}: {msg}", w.json_path));
            let row = self
                .choice_row(w.state, &w.action, matrix, action_names)
                .map_err(place)?;
            let k = match cols[row_ptr[row]..row_ptr[row + 1]].binary_search(&w.target) {
                Ok(k) => row_ptr[row] + k,
                Err(_) => {
                    return Err(place(format!(
                        "there is no transition from state {} to state {} to reward",
                        self.show(w.state),
                        self.show(w.target)
                    )));
                }
            };
            if first_line[k] > 0 {
                return Err(place(format!(
                    "this transition's reward is given twice (first on line {})",
                    first_line[k]
                )));
            }
            first_line[k] = w.line;
            values[k] = w.value;
        }
        Ok(values)
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

/// "expected a list of 3, found a list of 2 entries" and the like.
fn describe_len(node: &Json<'_>) -> String {
    match &node.value {
        Value::Array(items) => format!("a list of {} entries", items.len()),
        _ => describe(node),
    }
}

/// Actions named in one place and numbered in another.
fn mixed(path: &Path, w: &Written, first_line: usize) -> Error {
    parse_error(
        path,
        w.line,
        w.column,
        format!(
            "{}: actions are named in some transitions and numbered in others (first on line {first_line}); name every action or none",
            w.json_path
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A JSON string literal.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `v` as a JSON number in its shortest form that reads back exactly (`0.25`, `1`, `1e-300`).
pub(super) fn number_text(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() <= 21 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// Appends ` [at ...]` (from `context`) to a parse error at the place of one of `entries`, so that
/// messages of [`build_matrix`], which count states from 0, also say where in the file's own terms.
pub(super) fn annotate(error: Error, entries: &[(usize, usize, String)]) -> Error {
    match error {
        Error::Parse {
            path,
            line,
            column,
            mut message,
        } => {
            if let Some((_, _, context)) = entries.iter().find(|e| e.0 == line && e.1 == column) {
                let _ = write!(message, " [at {context}]");
            }
            Error::Parse {
                path,
                line,
                column,
                message,
            }
        }
        other => other,
    }
}

/// An error from the writer that cannot name its file.
pub(super) fn write_error(error: std::io::Error) -> Error {
    Error::Io {
        path: "(the output)".into(),
        error,
    }
}

/// Writes `model` as kolmo JSON (the per-state map form; see `docs/model-json.md`). The long
/// parts (state names, transitions, reward lists) are made in parallel blocks of states
/// ([`write_states`]) and written in order.
///
/// # Errors
/// [`Error::InvalidArgument`] if two states have the same name, or two actions of one state do
/// (JSON refers to them by name); [`Error::Io`] if `w` fails.
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let (kind, matrix, initial, names, action_names, labels, rewards) = match model {
        Model::Dtmc(d) => (
            "dtmc",
            d.matrix(),
            d.initial(),
            d.names(),
            None,
            d.labels(),
            d.reward_models(),
        ),
        Model::Mdp(m) => (
            "mdp",
            m.matrix(),
            m.initial(),
            m.names(),
            m.action_names(),
            m.labels(),
            m.reward_models(),
        ),
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
    if let Some(actions) = action_names {
        for g in 0..n {
            let rows = matrix.group_rows(g);
            for r in rows.clone() {
                if rows.clone().any(|q| q < r && actions[q] == actions[r]) {
                    return Err(Error::arg(
                        "model",
                        format!(
                            "state {g} has two actions named \"{}\"; JSON needs distinct action names within a state",
                            excerpt(&actions[r])
                        ),
                    ));
                }
            }
        }
    }
    // A state as a value (its name, or its number) and as a key (its name, or its number in quotes).
    let state_ref = |out: &mut String, s: StateId| match names {
        Some(names) => push_json_string(out, &names[s as usize]),
        None => push_uint(out, u64::from(s)),
    };
    let state_key = |out: &mut String, s: StateId| match names {
        Some(names) => push_json_string(out, &names[s as usize]),
        None => {
            out.push('"');
            push_uint(out, u64::from(s));
            out.push('"');
        }
    };
    let states_list = |out: &mut String, states: &mut dyn Iterator<Item = StateId>| {
        out.push('[');
        for (i, s) in states.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            state_ref(out, s);
        }
        out.push(']');
    };
    let (row_ptr, cols, vals) = matrix.as_parts();
    let distribution = |out: &mut String, numbers: &mut Numbers, row: usize| {
        out.push('{');
        for k in row_ptr[row]..row_ptr[row + 1] {
            if k > row_ptr[row] {
                out.push_str(", ");
            }
            state_key(out, cols[k]);
            out.push_str(": ");
            numbers.push_with(out, vals[k], push_number_text);
        }
        out.push('}');
    };
    let put = |w: &mut dyn Write, text: &str| w.write_all(text.as_bytes()).map_err(write_error);

    let mut out = String::new();
    let _ = writeln!(out, "{{\n  \"type\": \"{kind}\",");
    match names {
        Some(names) => {
            out.push_str("  \"states\": [");
            put(w, &out)?;
            write_states(w, n, |states, out, _| {
                for s in states {
                    if s > 0 {
                        out.push_str(", ");
                    }
                    push_json_string(out, &names[s]);
                }
            })
            .map_err(write_error)?;
            out.clear();
            out.push_str("],\n");
        }
        None => {
            let _ = writeln!(out, "  \"states\": {n},");
        }
    }
    out.push_str("  \"initial\": ");
    match initial {
        [one] => state_ref(&mut out, *one),
        many => states_list(&mut out, &mut many.iter().copied()),
    }
    out.push_str(",\n  \"transitions\": {");
    put(w, &out)?;
    write_states(w, n, |groups, out, numbers| {
        for g in groups {
            out.push_str(if g == 0 { "\n    " } else { ",\n    " });
            state_key(out, g as StateId);
            out.push_str(": ");
            let rows = matrix.group_rows(g);
            if kind == "dtmc" {
                distribution(out, numbers, rows.start);
                continue;
            }
            out.push(if action_names.is_some() { '{' } else { '[' });
            for r in rows.clone() {
                out.push_str(if r == rows.start { "\n      " } else { ",\n      " });
                if let Some(actions) = action_names {
                    push_json_string(out, &actions[r]);
                    out.push_str(": ");
                }
                distribution(out, numbers, r);
            }
            out.push_str(if action_names.is_some() {
                "\n    }"
            } else {
                "\n    ]"
            });
        }
    })
    .map_err(write_error)?;
    out.clear();
    out.push_str("\n  }");
    if !labels.is_empty() {
        out.push_str(",\n  \"labels\": {");
        for (i, (name, set)) in labels.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            push_json_string(&mut out, name);
            out.push_str(": ");
            states_list(&mut out, &mut set.iter());
        }
        out.push_str("\n  }");
    }
    if !rewards.is_empty() {
        out.push_str(",\n  \"rewards\": {");
        for (i, (name, r)) in rewards.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            push_json_string(&mut out, name);
            out.push_str(": {");
            let mut first_part = true;
            let mut part = |out: &mut String, key: &str| {
                out.push_str(if first_part { "\n      \"" } else { ",\n      \"" });
                first_part = false;
                out.push_str(key);
                out.push_str("\": [");
            };
            for (key, values) in [("state", &r.state), ("action", &r.action)] {
                if let Some(values) = values {
                    part(&mut out, key);
                    put(w, &out)?;
                    out.clear();
                    write_states(w, values.len(), |items, out, numbers| {
                        for i in items {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            numbers.push_with(out, values[i], push_number_text);
                        }
                    })
                    .map_err(write_error)?;
                    out.push(']');
                }
            }
            if let Some(values) = &r.transition {
                part(&mut out, "transition");
                put(w, &out)?;
                out.clear();
                // Only the non-zero rewards are written; the first without a comma before it.
                let first = values.iter().position(|&v| v != 0.0);
                write_states(w, n, |groups, out, numbers| {
                    for g in groups {
                        let rows = matrix.group_rows(g);
                        for row in rows.clone() {
                            for k in row_ptr[row]..row_ptr[row + 1] {
                                if values[k] == 0.0 {
                                    continue;
                                }
                                out.push_str(if Some(k) == first {
                                    "\n        ["
                                } else {
                                    ",\n        ["
                                });
                                state_ref(out, g as StateId);
                                out.push_str(", ");
                                match (kind, action_names) {
                                    ("dtmc", _) => {}
                                    (_, Some(a)) => {
                                        push_json_string(out, &a[row]);
                                        out.push_str(", ");
                                    }
                                    (_, None) => {
                                        push_uint(out, (row - rows.start) as u64);
                                        out.push_str(", ");
                                    }
                                }
                                state_ref(out, cols[k]);
                                out.push_str(", ");
                                numbers.push_with(out, values[k], push_number_text);
                                out.push(']');
                            }
                        }
                    }
                })
                .map_err(write_error)?;
                out.push_str(if first.is_some() { "\n      ]" } else { "]" });
            }
            out.push_str(if first_part { "}" } else { "\n    }" });
        }
        out.push_str("\n  }");
    }
    out.push_str("\n}\n");
    put(w, &out)
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

/// Appends `v` as [`number_text`] writes it.
fn push_number_text(out: &mut String, v: f64) {
    let start = out.len();
    let _ = write!(out, "{v}");
    if out.len() - start > 21 {
        out.truncate(start);
        let _ = write!(out, "{v:e}");
    }
}

// ---------------------------------------------------------------------------------------------
// The locator

/// A JSON tree that remembers where each value and key starts (line and column from 1).
pub(super) mod located {
    use super::super::parse_error;
    use crate::{Result, excerpt};
    use std::collections::HashMap;
    use std::path::Path;

    /// Deeper nesting than this is refused (the schema needs six levels).
    pub(in crate::io) const MAX_DEPTH: usize = 64;

    /// A value and the place where it starts.
    #[derive(Debug)]
    pub(in crate::io) struct Json<'t> {
        pub line: usize,
        pub column: usize,
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

    /// Parses `text` (a byte-order mark is skipped). Syntax errors come from serde_json, with
    /// its line and column; keys given twice in one object and nesting deeper than
    /// [`MAX_DEPTH`] are refused here.
    pub(in crate::io) fn parse<'t>(path: &Path, text: &'t str) -> Result<Json<'t>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
            let message = e.to_string();
            let message = match message.rfind(" at line ") {
                Some(i) => message[..i].to_string(),
                None => message,
            };
            return Err(parse_error(
                path,
                e.line().max(1),
                e.column().max(1),
                format!("not valid JSON: {message}"),
            ));
        }
        let mut s = Scanner {
            path,
            text,
            pos: 0,
            line: 1,
            column: 1,
        };
        s.value(0)
    }

    /// Walks text that serde_json has accepted; stays defensive all the same (errors, no panics).
    struct Scanner<'p, 't> {
        path: &'p Path,
        text: &'t str,
        pos: usize,
        line: usize,
        column: usize,
    }

    impl<'t> Scanner<'_, 't> {
        fn peek(&self) -> Option<u8> {
            self.text.as_bytes().get(self.pos).copied()
        }

        fn bump(&mut self) {
            if let Some(b) = self.peek() {
                self.pos += 1;
                if b == b'\n' {
                    self.line += 1;
                    self.column = 1;
                } else if b & 0xC0 != 0x80 {
                    // Count characters, not bytes: continuation bytes do not start a column.
                    self.column += 1;
                }
            }
        }

        /// Skips JSON white space (space, tab, line feed, carriage return).
        fn skip_ws(&mut self) {
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                self.bump();
            }
        }

        fn error(&self, message: String) -> crate::Error {
            parse_error(self.path, self.line, self.column, message)
        }

        fn expect(&mut self, b: u8) -> Result<()> {
            self.skip_ws();
            if self.peek() == Some(b) {
                self.bump();
                Ok(())
            } else {
                Err(self.error(format!("not valid JSON: expected '{}'", b as char)))
            }
        }

        fn value(&mut self, depth: usize) -> Result<Json<'t>> {
            self.skip_ws();
            if depth > MAX_DEPTH {
                return Err(self.error(format!("the JSON is nested more than {MAX_DEPTH} levels deep")));
            }
            let (line, column) = (self.line, self.column);
            let value = match self.peek() {
                Some(b'{') => {
                    self.bump();
                    let mut members: Vec<Member<'t>> = Vec::new();
                    // Key -> line, to refuse a key given twice in time linear in the members.
                    let mut seen: HashMap<String, usize> = HashMap::new();
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.bump();
                    } else {
                        loop {
                            self.skip_ws();
                            let (kl, kc) = (self.line, self.column);
                            let key = self.string()?;
                            if let Some(first) = seen.insert(key.clone(), kl) {
                                return Err(parse_error(
                                    self.path,
                                    kl,
                                    kc,
                                    format!(
                                        "the key \"{}\" appears twice in this object (first on line {})",
                                        excerpt(&key),
                                        first
                                    ),
                                ));
                            }
                            self.expect(b':')?;
                            let value = self.value(depth + 1)?;
                            members.push(Member {
                                key,
                                line: kl,
                                column: kc,
                                value,
                            });
                            self.skip_ws();
                            match self.peek() {
                                Some(b',') => self.bump(),
                                Some(b'}') => {
                                    self.bump();
                                    break;
                                }
                                _ => return Err(self.error("not valid JSON: expected ',' or '}'".into())),
                            }
                        }
                    }
                    Value::Object(members)
                }
                Some(b'[') => {
                    self.bump();
                    let mut items = Vec::new();
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.bump();
                    } else {
                        loop {
                            items.push(self.value(depth + 1)?);
                            self.skip_ws();
                            match self.peek() {
                                Some(b',') => self.bump(),
                                Some(b']') => {
                                    self.bump();
                                    break;
                                }
                                _ => return Err(self.error("not valid JSON: expected ',' or ']'".into())),
                            }
                        }
                    }
                    Value::Array(items)
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.word("true", Value::Bool(true))?,
                Some(b'f') => self.word("false", Value::Bool(false))?,
                Some(b'n') => self.word("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => {
                    let start = self.pos;
                    while matches!(self.peek(), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                        self.bump();
                    }
                    Value::Number(&self.text[start..self.pos])
                }
                _ => return Err(self.error("not valid JSON: expected a value".into())),
            };
            Ok(Json { line, column, value })
        }

        fn word(&mut self, word: &str, value: Value<'t>) -> Result<Value<'t>> {
            if self.text[self.pos..].starts_with(word) {
                for _ in 0..word.len() {
                    self.bump();
                }
                Ok(value)
            } else {
                Err(self.error(format!("not valid JSON: expected {word}")))
            }
        }

        /// A string literal, decoded by serde_json (escapes, surrogate pairs).
        fn string(&mut self) -> Result<String> {
            if self.peek() != Some(b'"') {
                return Err(self.error("not valid JSON: expected a string".into()));
            }
            let start = self.pos;
            self.bump();
            loop {
                match self.peek() {
                    None => return Err(self.error("not valid JSON: unterminated string".into())),
                    Some(b'"') => {
                        self.bump();
                        break;
                    }
                    Some(b'\\') => {
                        self.bump();
                        self.bump();
                    }
                    Some(_) => self.bump(),
                }
            }
            serde_json::from_str(&self.text[start..self.pos])
                .map_err(|e| self.error(format!("not valid JSON: {e}")))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn place(j: &Json<'_>) -> (usize, usize) {
            (j.line, j.column)
        }

        #[test]
        fn places_of_values_and_keys() {
            let text = "{\n  \"a\": [1, \"x\\\"y\",\n   {\"é\": true}],\n\t\"b\": null }";
            let root = parse(Path::new("t.json"), text).unwrap();
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
            let e = parse(p, "{\"a\": 1,\n \"b\": }").unwrap_err().to_string();
            assert!(e.starts_with("t.json:2:") && e.contains("not valid JSON"), "{e}");
            let e = parse(p, "{\"a\": 1,\n \"a\": 2}").unwrap_err().to_string();
            assert!(
                e.starts_with("t.json:2:2:") && e.contains("twice") && e.contains("line 1"),
                "{e}"
            );
            let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
            let e = parse(p, &deep).unwrap_err().to_string();
            assert!(e.contains("nested more than"), "{e}");
            let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
            assert!(parse(p, &ok).is_ok());
            assert!(parse(p, "\u{feff}{}").is_ok());
            assert!(parse(p, "{}\r\n").is_ok());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let t = number_text(v);
            assert_eq!(parse_number(&t), Some(v), "{t}");
            assert!(t.len() <= 24, "{t}");
        }
        assert_eq!(number_text(1.0), "1");
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
}
