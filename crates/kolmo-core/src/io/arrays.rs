//! MDPs as dense arrays, the way MDPToolbox and QuantEcon users hold them (docs/arrays.md).
//!
//! Two layouts, told apart by the names of the arrays:
//! - **MDPToolbox**: `P` of shape (A, S, S), `P[a][s][t]` the probability of moving from `s` to
//!   `t` under action `a`; `R` of shape (S, A) (reward of action `a` in `s`), (S,) (reward of
//!   state `s`, whatever the action) or (A, S, S) (reward of the transition `s → t` under `a`).
//! - **QuantEcon** (`DiscreteDP(R, Q, beta)`): `Q` of shape (S, A, S), `Q[s][a][t]`; `R` of shape
//!   (S, A), where `R[s][a] = -inf` marks an infeasible action: that choice is dropped (its row of
//!   `Q` is not read), and every state must keep one.
//!
//! The arrays come in a JSON object (`{"P": ..., "R": ...}` or `{"R": ..., "Q": ...}`, with an
//! optional discount factor `"beta"` or `"discount"`) or as a pair of `.npy` files
//! (`P.npy` + `R.npy`, `NAME.P.npy` + `NAME.R.npy`, or a directory holding `P.npy`/`Q.npy` and
//! `R.npy`).
//!
//! The result is an MDP whose choices are named after their action's index (`"0"`, `"1"`, ...,
//! so policies read in the user's numbering even where infeasible actions were dropped), with one
//! reward model, `"reward"`, and state 0 as the initial state. Errors name the array element in
//! the file's own indexing (`P[1][2][0]`) and its place: line and column in JSON, line 1 and the
//! byte offset in a `.npy` file.

use super::json::{Json, Value, describe, parse_tree, write_error};
use super::npy::{self, NpyArray, shape_text};
use super::text_out::{Form, number};
use super::{Entry, Format, Model, ModelFile, ReadOptions, View, build_matrix, parse_error, parse_number};
use crate::model::{Mdp, ROW_SUM_TOLERANCE, RewardModel};
use crate::numeric::NeumaierSum;
use crate::{Error, Result, StateId, excerpt};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The name of the reward model an array file's `R` becomes.
pub(crate) const REWARD_MODEL: &str = "reward";

/// Keys allowed in an array model's JSON object.
const KEYS: &[&str] = &["P", "Q", "R", "beta", "discount", "comment"];

/// Which library's layout the transition array follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// MDPToolbox: `P[a][s][t]`.
    Toolbox,
    /// QuantEcon: `Q[s][a][t]`.
    QuantEcon,
}

/// Where the elements of a [`Dense`] array were written.
#[derive(Debug)]
enum Places {
    /// Line and column of each element (C order) in a JSON file.
    Json(Vec<(usize, usize)>),
    /// A `.npy` file: the array without its data, to find byte offsets.
    Npy(NpyArray),
}

/// A dense array of `f64` in C order, named as the user named it, with where its parts were
/// written.
#[derive(Debug)]
struct Dense {
    name: &'static str,
    path: PathBuf,
    shape: Vec<usize>,
    values: Vec<f64>,
    places: Places,
    /// Where the whole array starts (line, column).
    start: (usize, usize),
}

impl Dense {
    /// `R[1][0]`: the element at C-order position `flat`, in the user's indexing.
    fn index_text(&self, flat: usize) -> String {
        indexed(self.name, &npy::unflatten(&self.shape, flat))
    }

    /// Line and column of the element at C-order position `flat` (in a `.npy` file: line 1 and
    /// the byte offset from 1).
    fn place(&self, flat: usize) -> (usize, usize) {
        match &self.places {
            Places::Json(places) => places[flat],
            Places::Npy(array) => (1, array.offset(flat) + 1),
        }
    }

    /// A parse error at the element at `flat`, its message prefixed with the element's index.
    fn error_at(&self, flat: usize, message: impl std::fmt::Display) -> Error {
        let ((line, column), message) = (self.place(flat), format!("{}: {message}", self.index_text(flat)));
        parse_error(&self.path, line, column, message)
    }

    /// A parse error about the whole array.
    fn error(&self, message: impl std::fmt::Display) -> Error {
        let message = format!("{}: {message}", self.name);
        parse_error(&self.path, self.start.0, self.start.1, message)
    }

    /// An array read from a `.npy` file.
    fn from_npy(name: &'static str, path: &Path, mut array: NpyArray) -> Self {
        let values = std::mem::take(&mut array.data);
        Self {
            name,
            path: path.to_path_buf(),
            shape: array.shape.clone(),
            values,
            places: Places::Npy(array),
            start: (1, 1),
        }
    }
}

/// `name[i][j]...`: the element of the array `name` at `index`.
fn indexed(name: &str, index: &[usize]) -> String {
    index.iter().fold(name.to_string(), |s, i| format!("{s}[{i}]"))
}

/// `items` between `open` and `close`, separated by `sep`.
fn joined(open: &str, items: impl Iterator<Item = String>, sep: &str, close: &str) -> String {
    format!("{open}{}{close}", items.collect::<Vec<_>>().join(sep))
}

/// The shape of the reward array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RewardShape {
    /// (S, A): a reward per state and action.
    StateAction,
    /// (S,): a reward per state.
    State,
    /// (A, S, S): a reward per transition.
    Transition,
}

/// The MDP of transition array `trans` (layout `layout`) and reward array `rewards`; returns it
/// with notes for the user.
fn build(layout: Layout, trans: &Dense, rewards: &Dense, normalize: bool) -> Result<(Mdp, Vec<String>)> {
    let (s, a) = match (layout, trans.shape.as_slice()) {
        (Layout::Toolbox, &[a, s, t]) if s == t => (s, a),
        (Layout::QuantEcon, &[s, a, t]) if s == t => (s, a),
        (_, shape) => {
            let wanted = match layout {
                Layout::Toolbox => "(A, S, S): one S×S matrix per action",
                Layout::QuantEcon => "(S, A, S): a distribution over next states per state and action",
            };
            return Err(trans.error(format!("has shape {}; it must be {wanted}", shape_text(shape))));
        }
    };
    if s == 0 || a == 0 {
        return Err(trans.error("has no states or no actions"));
    }
    if s > StateId::MAX as usize || a > u32::MAX as usize {
        return Err(trans.error(format!("{s} states and {a} actions are more than kolmo handles")));
    }
    let shape_r = match rewards.shape.as_slice() {
        &[rs, ra] if (rs, ra) == (s, a) => RewardShape::StateAction,
        &[rs] if rs == s => RewardShape::State,
        &[ra, rs, rt] if layout == Layout::Toolbox && (ra, rs, rt) == (a, s, s) => RewardShape::Transition,
        shape => {
            let other = match layout {
                Layout::Toolbox => format!(", ({s},) or ({a}, {s}, {s})"),
                Layout::QuantEcon => String::new(),
            };
            let hint = if shape == [a, s] && a != s {
                "; it looks like (A, S): transpose it (R.T)"
            } else {
                ""
            };
            return Err(rewards.error(format!(
                "has shape {}; with {s} states and {a} actions it must be ({s}, {a}){other}{hint}",
                shape_text(shape)
            )));
        }
    };
    for (flat, &v) in rewards.values.iter().enumerate() {
        if v.is_nan() || v == f64::INFINITY {
            return Err(rewards.error_at(flat, format!("{v} is not a reward (a finite number)")));
        }
        if v == f64::NEG_INFINITY && shape_r != RewardShape::StateAction {
            return Err(rewards.error_at(
                flat,
                "-inf is not a reward; only R of shape (S, A) may mark an infeasible action with -inf",
            ));
        }
    }
    // Position of T(s, a, t) in the transition array.
    let pos = |state: usize, action: usize, t: usize| match layout {
        Layout::Toolbox => (action * s + state) * s + t,
        Layout::QuantEcon => (state * a + action) * s + t,
    };
    let tolerance = ROW_SUM_TOLERANCE + s as f64 * f64::EPSILON;
    let mut entries = Vec::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut dropped: Vec<(usize, usize)> = Vec::new();
    for state in 0..s {
        let mut choice = 0u32;
        for action in 0..a {
            if shape_r == RewardShape::StateAction && rewards.values[state * a + action] == f64::NEG_INFINITY
            {
                dropped.push((state, action));
                continue;
            }
            let mut sum = NeumaierSum::default();
            for t in 0..s {
                let flat = pos(state, action, t);
                let v = trans.values[flat];
                if !(v.is_finite() && v >= 0.0) {
                    return Err(
                        trans.error_at(flat, format!("{v} is not a probability (a number in [0, 1])"))
                    );
                }
                sum.add(v);
                if v > 0.0 {
                    let (line, column) = trans.place(flat);
                    entries.push(Entry {
                        state: state as StateId,
                        choice,
                        target: t as StateId,
                        value: v,
                        line,
                        column,
                    });
                }
            }
            let sum = sum.value();
            let row = pos(state, action, 0);
            if (sum - 1.0).abs() > tolerance && !(normalize && sum > 0.0 && sum.is_finite()) {
                let row_text = trans.index_text(row);
                let row_text = row_text.strip_suffix("[0]").unwrap_or(&row_text);
                let (line, column) = trans.place(row);
                let message = format!(
                    "{row_text} (state {state}, action {action}) sums to {sum} (off by {:.2e}); each row must sum to 1 within {ROW_SUM_TOLERANCE:e}{}",
                    sum - 1.0,
                    if sum > 0.0 { " (or ask to normalize)" } else { "" }
                );
                return Err(parse_error(&trans.path, line, column, message));
            }
            kept.push((state, action));
            choice += 1;
        }
        if choice == 0 {
            return Err(rewards.error_at(
                state * a,
                format!("state {state} has no feasible action: R[{state}][a] is -inf for every action a"),
            ));
        }
    }
    let (matrix, mut notes) = build_matrix(&trans.path, s, entries, normalize, |_| 1)?;
    let mut mdp = Mdp::new(matrix, vec![0])?
        .with_action_names(kept.iter().map(|&(_, action)| action.to_string()).collect());
    let reward = match shape_r {
        RewardShape::StateAction => {
            let action = kept
                .iter()
                .map(|&(state, action)| rewards.values[state * a + action]);
            RewardModel {
                action: Some(action.collect()),
                ..RewardModel::default()
            }
        }
        RewardShape::State => RewardModel::from_state_rewards(rewards.values.clone()),
        RewardShape::Transition => {
            // Aligned with the stored entries: row by row, ascending target.
            let mut transition = Vec::with_capacity(mdp.matrix().nnz());
            for (row, &(state, action)) in kept.iter().enumerate() {
                for &t in mdp.matrix().row(row).0 {
                    transition.push(rewards.values[(action * s + state) * s + t as usize]);
                }
            }
            RewardModel {
                transition: Some(transition),
                ..RewardModel::default()
            }
        }
    };
    mdp.set_reward_model(REWARD_MODEL, reward)?;
    if let Some(&(state, action)) = dropped.first() {
        notes.push(format!(
            "dropped {} infeasible state-action pair(s) (R = -inf), the first being action {action} in state {state}",
            dropped.len()
        ));
    }
    Ok((mdp, notes))
}

/// Whether `path` names `.npy` input: a `.npy` file or a directory.
pub(crate) fn is_npy(path: &Path) -> bool {
    path.is_dir() || Format::from_path(path) == Some(Format::Arrays)
}

/// Whether the JSON `text` is an array model (its top-level object has a `"P"` or `"Q"` key before
/// any of kolmo's own schema keys) rather than kolmo's JSON schema. Reads only as far as it takes
/// to decide.
pub(crate) fn is_arrays_json(text: &str) -> bool {
    use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
    use std::cell::Cell;
    struct Sniff<'a>(&'a Cell<Option<bool>>);
    impl<'de> Visitor<'de> for Sniff<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<(), M::Error> {
            while let Some(key) = map.next_key::<String>()? {
                let verdict = match key.as_str() {
                    "P" | "Q" => Some(true),
                    "states" | "transitions" | "type" => Some(false),
                    _ => None,
                };
                if verdict.is_some() {
                    self.0.set(verdict);
                    // Stop reading: the rest of the document does not matter here.
                    return Err(serde::de::Error::custom("decided"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let verdict = Cell::new(None);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut de = serde_json::Deserializer::from_str(text);
    if de.deserialize_map(Sniff(&verdict)).is_err() && verdict.get().is_none() {
        // Python's json module writes -inf as `-Infinity` (and NaN as `NaN`), which is not JSON:
        // let the array reader explain that.
        return python_non_json(text);
    }
    verdict.get().unwrap_or(false)
}

/// Whether `text` holds Python's non-JSON number words (`-Infinity`, `Infinity`, `NaN`).
fn python_non_json(text: &str) -> bool {
    ["Infinity", "NaN"].iter().any(|w| text.contains(w))
}

/// Reads an array model from the JSON `text`, the contents of `path`.
pub(crate) fn read_json(path: &Path, text: &str, options: &ReadOptions) -> Result<ModelFile> {
    let root = parse_tree(path, text).map_err(|e| match e {
        Error::Parse {
            path,
            line,
            column,
            message,
        } if python_non_json(text) => Error::Parse {
            path,
            line,
            column,
            message: format!(
                "{message} (Python writes -inf as -Infinity, which is not JSON: write an infeasible action's reward as null or \"-inf\")"
            ),
        },
        other => other,
    })?;
    let Value::Object(members) = &root.value else {
        return Err(root.error(
            path,
            "an array model is a JSON object with \"P\" and \"R\" (MDPToolbox) or \"R\" and \"Q\" (QuantEcon)",
        ));
    };
    if let Some(m) = members.iter().find(|m| !KEYS.contains(&m.key.as_str())) {
        return Err(m.error(
            path,
            format!(
                "unknown key \"{}\" in an array model; the keys are \"P\" and \"R\" (MDPToolbox), \"R\" and \"Q\" (QuantEcon), \"beta\" or \"discount\", \"comment\"",
                excerpt(&m.key)
            ),
        ));
    }
    let get = |key: &str| members.iter().find(|m| m.key == key);
    let (layout, trans) = match (get("P"), get("Q")) {
        (Some(p), None) => (Layout::Toolbox, p),
        (None, Some(q)) => (Layout::QuantEcon, q),
        (Some(_), Some(q)) => {
            return Err(q.error(
                path,
                "both \"P\" (MDPToolbox, A×S×S) and \"Q\" (QuantEcon, S×A×S) are given; keep one",
            ));
        }
        (None, None) => {
            return Err(root.error(
                path,
                "no transition array: give \"P\" (MDPToolbox, A×S×S) or \"Q\" (QuantEcon, S×A×S)",
            ));
        }
    };
    let Some(r) = get("R") else {
        return Err(root.error(path, "no reward array \"R\""));
    };
    let name = if layout == Layout::Toolbox { "P" } else { "Q" };
    let trans = dense_json(path, name, &trans.value)?;
    let rewards = dense_json(path, "R", &r.value)?;
    let (mut discount, mut discount_exact) = (None, None);
    for key in ["beta", "discount"] {
        let Some(m) = get(key) else { continue };
        if discount.is_some() {
            return Err(m.error(path, "give \"beta\" or \"discount\", not both"));
        }
        // A JSON number, or a string holding a decimal or a fraction (`"10/11"`): kept exactly
        // as written for `--exact`, rounded for floating point.
        let written = match &m.value.value {
            Value::Number(raw) => crate::exact::parse_exact(raw).filter(|_| parse_number(raw).is_some()),
            Value::String(s) => crate::exact::parse_exact(s),
            _ => None,
        };
        let in_range = |g: &crate::exact::Rational| {
            *g >= crate::exact::Rational::ZERO && *g <= crate::exact::Rational::ONE
        };
        match written.filter(in_range) {
            Some(g) => {
                discount = Some(crate::exact::Scalar::to_f64(&g));
                discount_exact = Some(g);
            }
            None => {
                let message = format!(
                    "{key}: the discount factor must be a number in [0, 1] (or a string with a fraction, \"10/11\")"
                );
                return Err(m.value.error(path, message));
            }
        }
    }
    let (mdp, notes) = build(layout, &trans, &rewards, options.normalize)?;
    Ok(ModelFile {
        discount,
        discount_exact,
        ..ModelFile::of(Model::Mdp(mdp), Format::Arrays, vec![path.to_path_buf()], notes)
    })
}

/// The nested JSON lists `node` as a dense array named `name`: the shape is read along the first
/// elements, and every list must then have its level's length.
fn dense_json(path: &Path, name: &'static str, node: &Json<'_>) -> Result<Dense> {
    let mut shape = Vec::new();
    let mut first = node;
    while let Value::Array(items) = &first.value {
        shape.push(items.len());
        match items.first() {
            Some(item) => first = item,
            None => break,
        }
    }
    let mut dense = Dense {
        name,
        path: path.to_path_buf(),
        shape,
        values: Vec::new(),
        places: Places::Json(Vec::new()),
        start: (node.line, node.column),
    };
    if dense.shape.is_empty() {
        return Err(dense.error("expected nested lists of numbers"));
    }
    let mut places = Vec::new();
    collect_json(&mut dense, &mut places, node, &mut Vec::new())?;
    dense.places = Places::Json(places);
    Ok(dense)
}

/// Appends the numbers under `node` (at `index`) to `dense`, checking the shape.
fn collect_json(
    dense: &mut Dense,
    places: &mut Vec<(usize, usize)>,
    node: &Json<'_>,
    index: &mut Vec<usize>,
) -> Result<()> {
    let fail =
        |message: String| node.error(&dense.path, format!("{}: {message}", indexed(dense.name, index)));
    let depth = index.len();
    if depth < dense.shape.len() {
        let Value::Array(items) = &node.value else {
            return Err(fail(format!(
                "expected a list of {} (as {}{}), found {}",
                dense.shape[depth],
                dense.name,
                "[0]".repeat(depth),
                describe(node)
            )));
        };
        if items.len() != dense.shape[depth] {
            let wanted = dense.shape[depth];
            return Err(fail(format!(
                "has length {} where {}{} has length {wanted}; the array must be rectangular",
                items.len(),
                dense.name,
                "[0]".repeat(depth)
            )));
        }
        for (i, item) in items.iter().enumerate() {
            index.push(i);
            collect_json(dense, places, item, index)?;
            index.pop();
        }
        return Ok(());
    }
    let value = match &node.value {
        Value::Number(raw) => {
            parse_number(raw).ok_or_else(|| fail(format!("{} is not a finite number", excerpt(raw))))?
        }
        Value::Null => f64::NEG_INFINITY,
        Value::String(s) => {
            let t = s.trim();
            if t.eq_ignore_ascii_case("-inf") || t.eq_ignore_ascii_case("-infinity") {
                f64::NEG_INFINITY
            } else {
                parse_number(t).ok_or_else(|| fail(format!("expected a number, found {}", describe(node))))?
            }
        }
        _ => return Err(fail(format!("expected a number, found {}", describe(node)))),
    };
    dense.values.push(value);
    places.push((node.line, node.column));
    Ok(())
}

/// Reads an array model from `.npy` files: `path` is a directory holding `P.npy` (or `Q.npy`) and
/// `R.npy`, or one file of such a pair, named `P.npy`, `NAME.P.npy`, `NAME_P.npy` (and the same
/// with `Q` or `R`).
pub(crate) fn read_npy(path: &Path, options: &ReadOptions) -> Result<ModelFile> {
    let refuse = |message: String| Err(Error::arg("model file", message));
    let (dir, prefix) = if path.is_dir() {
        (path.to_path_buf(), String::new())
    } else {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let mut chars = stem.chars().rev();
        let letter_ok = matches!(chars.next(), Some('P' | 'Q' | 'R'));
        let before = chars.next();
        if !letter_ok || !matches!(before, None | Some('.' | '_' | '-')) {
            return refuse(format!(
                "{}: cannot tell which array this is: name the pair P.npy and R.npy (MDPToolbox, P of shape (A, S, S)) or Q.npy and R.npy (QuantEcon, Q of shape (S, A, S)), optionally with a prefix (forest.P.npy, forest.R.npy), or give the directory that holds them",
                path.display()
            ));
        }
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        (dir, stem[..stem.len() - 1].to_string())
    };
    let file = |letter: &str| dir.join(format!("{prefix}{letter}.npy"));
    let (p, q, r) = (file("P"), file("Q"), file("R"));
    let (layout, trans_path) = match (p.is_file(), q.is_file()) {
        (true, false) => (Layout::Toolbox, p),
        (false, true) => (Layout::QuantEcon, q),
        (true, true) => {
            let (p, q) = (p.display(), q.display());
            return refuse(format!(
                "both {p} (MDPToolbox) and {q} (QuantEcon) exist; keep one"
            ));
        }
        (false, false) => {
            let (p, q) = (p.display(), q.display());
            return refuse(format!(
                "no transition array: neither {p} (MDPToolbox, A×S×S) nor {q} (QuantEcon, S×A×S) exists"
            ));
        }
    };
    if !r.is_file() {
        return refuse(format!("no reward array: {} does not exist", r.display()));
    }
    let name = if layout == Layout::Toolbox { "P" } else { "Q" };
    let trans = Dense::from_npy(name, &trans_path, npy::read(&trans_path)?);
    let rewards = Dense::from_npy("R", &r, npy::read(&r)?);
    let (mdp, notes) = build(layout, &trans, &rewards, options.normalize)?;
    let files = vec![trans_path, r];
    Ok(ModelFile::of(Model::Mdp(mdp), Format::Arrays, files, notes))
}

/// Writes `model` as a JSON array model: MDPToolbox's `{"P", "R"}` when every state has every
/// action, QuantEcon's `{"R", "Q"}` with `null` rewards for the missing ones otherwise. A choice's
/// action is its name when the names are the numbers `0..A` (as this reader gives them), else its
/// index within the state. `R` holds the expected one-step reward per choice of the model's only
/// reward model, or of the one named `"reward"` (zeros if the model has none); state names,
/// labels and initial states are not written (the arrays cannot hold them).
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let View {
        matrix,
        action_names: names,
        rewards: reward_models,
        ..
    } = View::of(model);
    let rewards = match reward_models.len() {
        0 => vec![0.0; matrix.nrows()],
        1 => reward_models
            .values()
            .next()
            .map(|r| r.expected_per_choice(matrix))
            .unwrap_or_default(),
        _ => match reward_models.get(REWARD_MODEL) {
            Some(r) => r.expected_per_choice(matrix),
            None => {
                return Err(Error::arg(
                    "format",
                    format!(
                        "the model has {} reward models and none is named \"{REWARD_MODEL}\": dense arrays hold one",
                        reward_models.len()
                    ),
                ));
            }
        },
    };
    let n = matrix.row_groups();
    // The action of each row: its name when every name is a number, distinct within its state.
    let by_name: Option<Vec<usize>> = names.and_then(|names| {
        let actions: Option<Vec<usize>> = names
            .iter()
            .map(|s| s.parse::<usize>().ok().filter(|&a| a < 1 << 20))
            .collect();
        let actions = actions?;
        let distinct = (0..n).all(|g| {
            let mut seen: Vec<usize> = matrix.group_rows(g).map(|row| actions[row]).collect();
            seen.sort_unstable();
            seen.windows(2).all(|w| w[0] != w[1])
        });
        distinct.then_some(actions)
    });
    let action_of = |g: usize, row: usize| match &by_name {
        Some(actions) => actions[row],
        None => row - matrix.group_rows(g).start,
    };
    let a = (0..n)
        .flat_map(|g| matrix.group_rows(g).map(move |row| (g, row)))
        .map(|(g, row)| action_of(g, row) + 1)
        .max()
        .unwrap_or(1);
    // rows[s][a]: the row of action a in state s, if enabled.
    let mut rows = vec![vec![None; a]; n];
    for (g, state_rows) in rows.iter_mut().enumerate() {
        for row in matrix.group_rows(g) {
            state_rows[action_of(g, row)] = Some(row);
        }
    }
    let complete = rows.iter().all(|r| r.iter().all(Option::is_some));
    let dense_row = |row: Option<usize>| {
        let mut dense = vec![0.0; n];
        if let Some(row) = row {
            let (cols, vals) = matrix.row(row);
            for (&c, &v) in cols.iter().zip(vals) {
                dense[c as usize] = v;
            }
        }
        joined(
            "   [",
            dense.into_iter().map(|v| number(v, Form::Json)),
            ", ",
            "]",
        )
    };
    let reward =
        |row: &Option<usize>| row.map_or_else(|| "null".into(), |row| number(rewards[row], Form::Json));
    let r = rows
        .iter()
        .map(|r| joined("  [", r.iter().map(reward), ", ", "]"));
    let r = format!("\"R\": {}", joined("[\n", r, ",\n", "\n ]"));
    let block = |rows: Vec<Option<usize>>| joined("  [\n", rows.into_iter().map(dense_row), ",\n", "\n  ]");
    let out = if complete {
        let p = (0..a).map(|action| block((0..n).map(|g| rows[g][action]).collect()));
        format!("{{\n \"P\": {},\n {r}\n}}\n", joined("[\n", p, ",\n", "\n ]"))
    } else {
        let q = rows.iter().map(|r| block(r.clone()));
        format!("{{\n {r},\n \"Q\": {}\n}}\n", joined("[\n", q, ",\n", "\n ]"))
    };
    w.write_all(out.as_bytes()).map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ModelFile> {
        read_json(Path::new("m.json"), text, &ReadOptions::default())
    }

    fn err(text: &str) -> String {
        match read(text) {
            Ok(_) => panic!("{text} was accepted"),
            Err(e) => e.to_string(),
        }
    }

    const FOREST: &str = r#"{"P": [[[0.1, 0.9, 0], [0.1, 0, 0.9], [0.1, 0, 0.9]],
       [[1, 0, 0], [1, 0, 0], [1, 0, 0]]],
 "R": [[0, 0], [0, 1], [4, 2]], "discount": 0.9}"#;

    #[test]
    fn forest_in_mdptoolbox_layout() {
        let f = read(FOREST).unwrap();
        assert_eq!(f.discount, Some(0.9));
        let Model::Mdp(mdp) = f.model else { panic!() };
        assert_eq!((mdp.n(), mdp.choices()), (3, 6));
        assert_eq!(mdp.matrix().row(0), (&[0, 1][..], &[0.1, 0.9][..]));
        assert_eq!(mdp.matrix().row(5), (&[0][..], &[1.0][..]));
        let names: Vec<&str> = mdp.action_names().unwrap().iter().map(String::as_str).collect();
        assert_eq!(names, ["0", "1", "0", "1", "0", "1"]);
        let r = &mdp.reward_models()[REWARD_MODEL];
        assert_eq!(r.action.as_deref(), Some(&[0.0, 0.0, 0.0, 1.0, 4.0, 2.0][..]));
    }

    #[test]
    fn quantecon_layout_drops_infeasible_actions() {
        // State 0 may only wait (action 0); its row for action 1 is not read.
        let text = r#"{"R": [[0, null], [0, 1], ["-inf", 2]], "beta": 0.95,
            "Q": [[[0.1, 0.9, 0], [0, 0, 0]], [[0.1, 0, 0.9], [1, 0, 0]], [[0.1, 0, 0.9], [1, 0, 0]]]}"#;
        let f = read(text).unwrap();
        assert_eq!(f.discount, Some(0.95));
        assert!(
            f.notes[0].contains("dropped 2") && f.notes[0].contains("action 1 in state 0"),
            "{:?}",
            f.notes
        );
        let Model::Mdp(mdp) = f.model else { panic!() };
        assert_eq!(mdp.choices(), 4);
        let names: Vec<&str> = mdp.action_names().unwrap().iter().map(String::as_str).collect();
        assert_eq!(names, ["0", "0", "1", "1"]);
        assert_eq!(
            mdp.reward_models()[REWARD_MODEL].action.as_deref(),
            Some(&[0.0, 0.0, 1.0, 2.0][..])
        );
        assert_eq!(mdp.matrix().row(3), (&[0][..], &[1.0][..]));
    }

    #[test]
    fn state_and_transition_rewards() {
        let text = r#"{"P": [[[0.5, 0.5], [0, 1]], [[1, 0], [1, 0]]], "R": [3, -1]}"#;
        let Model::Mdp(mdp) = read(text).unwrap().model else {
            panic!()
        };
        let r = &mdp.reward_models()[REWARD_MODEL];
        assert_eq!(r.state.as_deref(), Some(&[3.0, -1.0][..]));
        assert_eq!(r.expected_per_choice(mdp.matrix()), vec![3.0, 3.0, -1.0, -1.0]);
        let text = r#"{"P": [[[0.5, 0.5], [0, 1]], [[1, 0], [1, 0]]],
            "R": [[[2, 4], [9, 1]], [[5, 7], [6, 8]]]}"#;
        let Model::Mdp(mdp) = read(text).unwrap().model else {
            panic!()
        };
        let r = &mdp.reward_models()[REWARD_MODEL];
        // Zero-probability transitions are not stored, nor are their rewards.
        assert_eq!(r.transition.as_deref(), Some(&[2.0, 4.0, 5.0, 1.0, 6.0][..]));
        assert_eq!(r.expected_per_choice(mdp.matrix()), vec![3.0, 5.0, 1.0, 6.0]);
    }

    #[test]
    fn errors_name_the_element_and_its_place() {
        let e = err(r#"{"P": [[[0.5, 0.4]], [[1, 0]]], "R": [[0, 0]]}"#);
        assert!(e.contains("has shape (2, 1, 2)"), "{e}");
        let e = err("{\"P\": [[[0.5, 0.5], [0, 1]],\n [[1, 0], [0.3, 0.6]]], \"R\": [[0, 0], [0, 0]]}");
        assert!(
            e.starts_with(
                "m.json:2:12: P[1][1] (state 1, action 1) sums to 0.8999999999999999 (off by -1.00e-1)"
            ),
            "{e}"
        );
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]], [[1, 0], [1]]], "R": [[0, 0], [0, 0]]}"#);
        assert!(
            e.starts_with("m.json:1:39: P[1][1]: has length 1 where P[0][0] has length 2"),
            "{e}"
        );
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]], [[1, 0], [1, "x"]]], "R": [[0, 0], [0, 0]]}"#);
        assert!(
            e.contains("P[1][1][1]: expected a number, found the string \"x\""),
            "{e}"
        );
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]], [[1, 0], [1, null]]], "R": [[0, 0], [0, 0]]}"#);
        assert!(e.contains("P[1][1][1]: -inf is not a probability"), "{e}");
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]], [[1, 0], [1, 0]]], "R": [[0, 0], [0, 0], [1, 1]]}"#);
        assert!(
            e.contains("R: has shape (3, 2); with 2 states and 2 actions it must be (2, 2)"),
            "{e}"
        );
        let e = err(
            r#"{"P": [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 0, 0], [1, 0, 0], [1, 0, 0]]], "R": [[0, 0, 1], [0, 0, 1]]}"#,
        );
        assert!(e.contains("transpose it"), "{e}");
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]]], "R": [[0], [null]]}"#);
        assert!(e.contains("R[1][0]: state 1 has no feasible action"), "{e}");
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]]], "R": [[0], ["nan"]]}"#);
        assert!(e.contains("R[1][0]: expected a number"), "{e}");
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]]], "R": [0, null]}"#);
        assert!(
            e.contains("R[1]: -inf is not a reward; only R of shape (S, A)"),
            "{e}"
        );
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]]], "R": [0, 1e999]}"#);
        assert!(e.contains("R[1]: 1e999 is not a finite number"), "{e}");
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]]], "R": [0, 0], "gamma": 0.9}"#);
        assert!(e.contains("unknown key \"gamma\""), "{e}");
        let e = err(r#"{"P": [[[0.5, 0.5], [0, 1]]], "R": [0, 0], "beta": 1.5}"#);
        assert!(
            e.contains("beta: the discount factor must be a number in [0, 1]"),
            "{e}"
        );
        let e = err(r#"{"P": [], "R": [0, 0]}"#);
        assert!(e.contains("P: has shape (0,)"), "{e}");
        let e = err(r#"{"P": 1, "R": [0, 0]}"#);
        assert!(e.contains("P: expected nested lists"), "{e}");
        let e = err(r#"{"R": [[0]], "Q": [[[1]]], "P": [[[1]]]}"#);
        assert!(e.contains("keep one"), "{e}");
        let e = err("{\"R\": [[0, -Infinity]],\n \"Q\": [[[1], [1]]]}");
        assert!(
            e.contains("not valid JSON") && e.contains("write an infeasible action's reward as null"),
            "{e}"
        );
        let e = err(r#"{"P": [[[-0.5, 1.5], [0, 1]]], "R": [0, 0]}"#);
        assert!(e.contains("P[0][0][0]: -0.5 is not a probability"), "{e}");
    }

    #[test]
    fn normalize_rescales_rows() {
        let text = r#"{"P": [[[1, 1], [0, 2]]], "R": [0, 0]}"#;
        let options = ReadOptions {
            normalize: true,
            ..ReadOptions::default()
        };
        let f = read_json(Path::new("m.json"), text, &options).unwrap();
        let Model::Mdp(mdp) = f.model else { panic!() };
        assert_eq!(mdp.matrix().row(0).1, &[0.5, 0.5]);
        assert!(f.notes[0].contains("normalized 2 row(s)"), "{:?}", f.notes);
    }

    #[test]
    fn sniffing_array_json() {
        assert!(is_arrays_json(FOREST));
        assert!(is_arrays_json(r#"{"R": [[1]], "Q": [[[1]]]}"#));
        assert!(is_arrays_json("{\"R\": [[-Infinity]], \"Q\": [[[1]]]}"));
        assert!(!is_arrays_json(r#"{"states": 2, "P": 1}"#));
        assert!(!is_arrays_json(r#"{"type": "mdp"}"#));
        assert!(!is_arrays_json("[1, 2]"));
        // Decided by the key: the array reader then reports the syntax error.
        assert!(is_arrays_json("{\"P\""));
        assert!(!is_arrays_json(""));
    }

    #[test]
    fn npy_elements_are_placed_at_their_byte() {
        let dir = tempfile::tempdir().unwrap();
        let p = npy::encode(&[1, 2, 2], &[0.5, 0.5, 0.25, 0.7], false, "<f8");
        std::fs::write(dir.path().join("P.npy"), &p).unwrap();
        std::fs::write(
            dir.path().join("R.npy"),
            npy::encode(&[2, 1], &[0.0, 1.0], false, "<f8"),
        )
        .unwrap();
        let e = read_npy(dir.path(), &ReadOptions::default())
            .unwrap_err()
            .to_string();
        // P[0][1][0] is the third value, 16 bytes into the data.
        let data_start = p.len() - 32;
        assert!(
            e.contains(&format!(
                "P.npy:1:{}: P[0][1] (state 1, action 0) sums to 0.95",
                data_start + 16 + 1
            )),
            "{e}"
        );
        let e = read_npy(&dir.path().join("model.npy"), &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot tell which array"), "{e}");
    }
}
