//! Storm's explicit DRN format (`.drn`), read and written.
//!
//! The format is defined by Storm's parser and exporter (moves-rwth/storm,
//! `src/storm-parsers/parser/DirectEncodingParser.cpp` and `src/storm/io/DirectEncodingExporter.cpp`):
//!
//! ```text
//! // comment
//! @type: MDP
//! @value_type: double
//! @parameters
//!
//! @reward_models
//! cost time
//! @nr_states
//! 2
//! @nr_choices
//! 3
//! @model
//! state 0 [1, 0] init "a label"
//!     action go [0, 2]
//!         1 : 1/3
//!         0 : 2/3
//!     action stay [0, 0]
//!         0 : 1
//! state 1 [0, 0] goal
//!     action 0 [0, 0]
//!         1 : 1
//! ```
//!
//! What kolmo reads:
//! - `@type:` `DTMC` or `MDP`; CTMCs, Markov automata, POMDPs and games are refused naming the line.
//! - `@value_type:` `double` or `rational` (values may be decimals or fractions `p/q` either way);
//!   intervals and parametric values are refused, and so is a non-empty `@parameters` line.
//! - `@placeholders` (`$name : value` lines, as Storm writes for parametric models) are supported:
//!   `$name` may stand for any probability or reward.
//! - `@reward_models`: the names, separated by white space. The bracketed values on a `state` line
//!   are its state rewards, on an `action` line the choice's action rewards, one per reward model
//!   in order. Like Storm, a part (state or action) of a reward model is present only if some value
//!   in it is not zero (Storm writes `0` for a missing part); a reward model with neither part gets
//!   state rewards of zero. Without names, reward models are called `rew0`, `rew1`, ... (Storm's
//!   convention).
//! - `@nr_states` (required) and `@nr_choices` (optional) are checked against the model read.
//! - States are numbered `0, 1, 2, ...` in order, as Storm requires. Labels follow the rewards,
//!   separated by white space or in double quotes. The label `init` marks the initial states and is
//!   required; it is also kept as a label. Observations (`{..}`) and exit rates (`!..`) are refused.
//! - `action <name>`: the choices of a state in order. Names that are all just the choice's index
//!   (`action 0`, `action 1`, ...) or `__NOLABEL__` mean the choices are unnamed; otherwise they
//!   become the MDP's action names (Storm's `__NOLABEL__` is read as the empty name). A DTMC has one action per state (or
//!   none: transitions may follow the `state` line directly) and its action names are dropped.
//! - `<target> : <probability>` transitions; Storm insists on the spaces around `:`, kolmo does not.
//! - Comments (`//`) anywhere, indentation by tabs or spaces, CRLF line ends and a UTF-8 byte-order
//!   mark. Storm writes a state's valuation as a comment line right after its `state` line; when
//!   every state has such a line (and they are distinct), they become the state names.
//!
//! What kolmo writes: the header above (`@value_type: double`, empty `@parameters`), every state
//! with its state rewards and labels, its state name as a comment line (Storm's place for state
//! valuations; line breaks in names become spaces), its actions with their names (indices when the
//! model has none; the empty name as `__NOLABEL__`) and action rewards, and its transitions.
//! Numbers are written in Rust's shortest round-trip form, so reading the file back gives the same
//! `f64`s. DRN has no transition rewards: a reward model's transition part is folded into its action
//! rewards as `Σ_t P(a, t) · r(a, t)`, which keeps every expected reward the same.

use super::{Entry, Model, ReadOptions, build_matrix, parse_error, parse_number};
use crate::model::{Dtmc, Mdp, RewardModel, StateSet};
use crate::{Error, Result, StateId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

/// A line of the file: its number (from 1) and text without the line end.
struct Line<'a> {
    number: usize,
    text: &'a str,
}

/// The column (from 1) of `part`, a subslice of `line`.
pub(super) fn column_of(line: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    line.get(..offset).map_or(1, |s| s.chars().count() + 1)
}

/// Model types kolmo reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dtmc,
    Mdp,
}

/// What the header said.
struct Header {
    kind: Kind,
    reward_names: Vec<String>,
    nr_states: usize,
    nr_states_line: usize,
    nr_choices: Option<(usize, usize)>,
    model_line: usize,
    placeholders: HashMap<String, f64>,
}

/// A value: a number or a `$placeholder`.
fn value(token: &str, placeholders: &HashMap<String, f64>) -> std::result::Result<f64, String> {
    let t = token.trim();
    if let Some(name) = t.strip_prefix('$') {
        return placeholders
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown placeholder ${name}"));
    }
    parse_number(t).ok_or_else(|| format!("{} is not a number", quote(t)))
}

/// `token` in backquotes, shortened if long.
fn quote(token: &str) -> String {
    let mut s: String = token.chars().take(40).collect();
    if s.len() < token.len() {
        s.push_str("...");
    }
    format!("`{s}`")
}

/// A count on a line of its own (`@nr_states`, `@nr_choices`).
fn count(path: &Path, line: &Line) -> Result<usize> {
    let t = line.text.trim();
    t.parse::<usize>().map_err(|_| {
        parse_error(
            path,
            line.number,
            column_of(line.text, t),
            format!("expected a count of states or choices, found {}", quote(t)),
        )
    })
}

fn read_header<'a>(path: &Path, lines: &mut impl Iterator<Item = Line<'a>>) -> Result<Header> {
    let mut kind = None;
    let mut value_type_seen = false;
    let mut parameters_seen = false;
    let mut reward_names: Option<Vec<String>> = None;
    let mut nr_states: Option<(usize, usize)> = None;
    let mut nr_choices = None;
    let mut placeholders = HashMap::new();
    let mut last_line = 1;
    let mut pending: Option<Line<'a>> = None;
    loop {
        let Some(line) = pending.take().or_else(|| lines.next()) else {
            return Err(parse_error(path, last_line, 1, "the file ended before `@model`"));
        };
        last_line = line.number;
        let t = line.text.trim();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        let err = |message: String| parse_error(path, line.number, column_of(line.text, t), message);
        let twice = |what: &str| err(format!("{what} is declared twice"));
        // The line after a keyword that takes its value on the next line.
        let mut next_line = |what: &str| -> Result<Line<'a>> {
            lines
                .next()
                .ok_or_else(|| parse_error(path, line.number, 1, format!("the file ends after `{what}`")))
        };
        if let Some(ty) = t.strip_prefix("@type:") {
            if kind.is_some() {
                return Err(twice("@type"));
            }
            kind = Some(match ty.trim() {
                "DTMC" => Kind::Dtmc,
                "MDP" => Kind::Mdp,
                other @ ("CTMC" | "Markov Automaton" | "MA" | "POMDP" | "S2PG" | "SMG") => {
                    return Err(err(format!(
                        "model type {other} is not supported: kolmo reads DTMCs and MDPs"
                    )));
                }
                other => {
                    return Err(err(format!(
                        "unknown model type {}; expected DTMC or MDP",
                        quote(other)
                    )));
                }
            });
        } else if let Some(vt) = t.strip_prefix("@value_type:") {
            if value_type_seen {
                return Err(twice("@value_type"));
            }
            value_type_seen = true;
            match vt.trim() {
                "double" | "rational" => {}
                other @ ("double-interval" | "rational-interval" | "parametric") => {
                    return Err(err(format!(
                        "value type {other} is not supported: kolmo reads models with exact numbers (double or rational)"
                    )));
                }
                other => return Err(err(format!("unknown value type {}", quote(other)))),
            }
        } else if t == "@parameters" {
            if parameters_seen {
                return Err(twice("@parameters"));
            }
            parameters_seen = true;
            let p = next_line("@parameters")?;
            let names = p.text.trim();
            if !names.is_empty() {
                return Err(parse_error(
                    path,
                    p.number,
                    column_of(p.text, names),
                    format!(
                        "parametric models are not supported (parameters {})",
                        quote(names)
                    ),
                ));
            }
        } else if t == "@placeholders" {
            for p in lines.by_ref() {
                let pt = p.text.trim();
                if pt.starts_with('@') {
                    pending = Some(p);
                    break;
                }
                if pt.is_empty() || pt.starts_with("//") {
                    continue;
                }
                let perr =
                    |col: &str, message: String| parse_error(path, p.number, column_of(p.text, col), message);
                let Some((name, v)) = pt.split_once(':') else {
                    return Err(perr(pt, "expected a placeholder `$name : value`".into()));
                };
                let Some(name) = name.trim().strip_prefix('$') else {
                    return Err(perr(pt, "a placeholder's name starts with `$`".into()));
                };
                let v = value(v, &placeholders).map_err(|m| perr(v.trim_start(), m))?;
                if placeholders.insert(name.to_string(), v).is_some() {
                    return Err(perr(pt, format!("placeholder ${name} is defined twice")));
                }
            }
        } else if t == "@reward_models" {
            if reward_names.is_some() {
                return Err(twice("@reward_models"));
            }
            let r = next_line("@reward_models")?;
            let names: Vec<String> = r.text.split_whitespace().map(str::to_string).collect();
            let mut seen = HashSet::new();
            if let Some(d) = r.text.split_whitespace().find(|n| !seen.insert(*n)) {
                return Err(parse_error(
                    path,
                    r.number,
                    column_of(r.text, d),
                    format!("reward model {} is declared twice", quote(d)),
                ));
            }
            reward_names = Some(names);
        } else if t == "@nr_states" {
            if nr_states.is_some() {
                return Err(twice("@nr_states"));
            }
            let c = next_line("@nr_states")?;
            nr_states = Some((count(path, &c)?, c.number));
        } else if t == "@nr_choices" {
            if nr_choices.is_some() {
                return Err(twice("@nr_choices"));
            }
            let c = next_line("@nr_choices")?;
            nr_choices = Some((count(path, &c)?, c.number));
        } else if t == "@model" {
            let Some(kind) = kind else {
                return Err(err("`@type:` must come before `@model`".into()));
            };
            let Some((nr_states, nr_states_line)) = nr_states else {
                return Err(err("`@nr_states` must come before `@model`".into()));
            };
            if nr_states == 0 {
                return Err(parse_error(path, nr_states_line, 1, "the model has no states"));
            }
            if nr_states > StateId::MAX as usize {
                return Err(parse_error(
                    path,
                    nr_states_line,
                    1,
                    format!(
                        "{nr_states} states is more than kolmo's limit of {}",
                        StateId::MAX
                    ),
                ));
            }
            return Ok(Header {
                kind,
                reward_names: reward_names.unwrap_or_default(),
                nr_states,
                nr_states_line,
                nr_choices,
                model_line: line.number,
                placeholders,
            });
        } else if t.starts_with('@') {
            return Err(err(format!("unknown header line {}", quote(t))));
        } else {
            return Err(err(format!(
                "expected a header line (`@type:`, `@nr_states`, ..., `@model`), found {}",
                quote(t)
            )));
        }
    }
}

/// The comma-separated values in `[...]` at the start of `rest`; returns them and what follows.
fn bracketed<'a>(
    path: &Path,
    line: &Line<'a>,
    rest: &'a str,
    placeholders: &HashMap<String, f64>,
) -> Result<(Vec<f64>, &'a str)> {
    let inner_start = &rest[1..];
    let Some(end) = inner_start.find(']') else {
        return Err(parse_error(
            path,
            line.number,
            column_of(line.text, rest),
            "`]` missing after the rewards",
        ));
    };
    let inner = &inner_start[..end];
    let mut values = Vec::new();
    for token in inner.split(',') {
        let v = value(token, placeholders).map_err(|m| {
            let at = if token.trim().is_empty() {
                token
            } else {
                token.trim_start()
            };
            parse_error(
                path,
                line.number,
                column_of(line.text, at),
                format!("reward: {m}"),
            )
        })?;
        values.push(v);
    }
    Ok((values, &inner_start[end + 1..]))
}

/// Splits the first white-space separated token off `s` (which starts with it).
fn split_token(s: &str) -> (&str, &str) {
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Everything read from the `@model` section.
#[derive(Default)]
struct Body {
    entries: Vec<Entry>,
    /// Line of each state's `state` line.
    state_lines: Vec<usize>,
    /// Index of each state's first row.
    first_row: Vec<usize>,
    /// Each row's action name and line.
    actions: Vec<(String, usize)>,
    /// Rows that have at least one transition.
    row_has_transition: Vec<bool>,
    state_rewards: Vec<Vec<f64>>,
    action_rewards: Vec<Vec<f64>>,
    labels: BTreeMap<String, Vec<StateId>>,
    names: Vec<Option<String>>,
    reward_count: Option<(usize, usize)>,
}

/// The state's labels from the rest of its `state` line: white-space separated or in quotes.
fn labels<'a>(path: &Path, line: &Line<'a>, mut rest: &'a str) -> Result<Vec<&'a str>> {
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(out);
        }
        if let Some(q) = rest.strip_prefix('"') {
            let Some(end) = q.find('"') else {
                return Err(parse_error(
                    path,
                    line.number,
                    column_of(line.text, rest),
                    "closing `\"` missing after the label",
                ));
            };
            if end == 0 {
                return Err(parse_error(
                    path,
                    line.number,
                    column_of(line.text, rest),
                    "empty label `\"\"`",
                ));
            }
            out.push(&q[..end]);
            rest = &q[end + 1..];
        } else {
            let (token, after) = split_token(rest);
            if token.contains('"') {
                return Err(parse_error(
                    path,
                    line.number,
                    column_of(line.text, token),
                    format!("label {} holds a `\"`", quote(token)),
                ));
            }
            out.push(token);
            rest = after;
        }
    }
}

fn read_body<'a>(path: &Path, header: &Header, lines: impl Iterator<Item = Line<'a>>) -> Result<Body> {
    let n = header.nr_states;
    let mut body = Body::default();
    if !header.reward_names.is_empty() {
        body.reward_count = Some((header.reward_names.len(), header.model_line));
    }
    let declared = !header.reward_names.is_empty();
    // The state whose `state` line was the last non-comment line (for state-name comments).
    let mut name_slot: Option<usize> = None;
    let mut choice_in_state = 0u32;
    let mut last_line = header.model_line;
    // Checks a bracket's length against the number of reward models.
    let check_count = |body: &mut Body, len: usize, line: &Line, at: &str| -> Result<()> {
        match body.reward_count {
            Some((k, _)) if k == len => Ok(()),
            Some((k, first)) => Err(parse_error(
                path,
                line.number,
                column_of(line.text, at),
                if declared {
                    format!("{len} reward(s) in brackets; @reward_models declares {k}")
                } else {
                    format!("{len} reward(s) in brackets; line {first} gave {k}")
                },
            )),
            None => {
                body.reward_count = Some((len, line.number));
                Ok(())
            }
        }
    };
    for line in lines {
        last_line = line.number;
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(comment) = t.strip_prefix("//") {
            if let Some(s) = name_slot.take() {
                body.names[s] = Some(comment.trim().to_string());
            }
            continue;
        }
        name_slot = None;
        let err =
            |at: &str, message: String| parse_error(path, line.number, column_of(line.text, at), message);
        let (keyword, rest) = split_token(t);
        if keyword == "state" {
            let rest = rest.trim_start();
            let (id, mut rest) = split_token(rest);
            let expected = body.state_lines.len();
            let id_value = id.parse::<usize>().map_err(|_| {
                err(
                    if id.is_empty() { t } else { id },
                    format!("expected a state number after `state`, found {}", quote(id)),
                )
            })?;
            if expected >= n {
                return Err(err(
                    id,
                    format!(
                        "more states than the {n} that @nr_states declares (line {})",
                        header.nr_states_line
                    ),
                ));
            }
            if id_value != expected {
                return Err(err(
                    id,
                    format!(
                        "states must be numbered 0, 1, 2, ... in order: expected state {expected}, found {id_value}"
                    ),
                ));
            }
            body.state_lines.push(line.number);
            body.first_row.push(body.actions.len());
            body.names.push(None);
            choice_in_state = 0;
            rest = rest.trim_start();
            if rest.starts_with('{') {
                return Err(err(
                    rest,
                    "observations `{..}` belong to POMDPs, which kolmo does not read".into(),
                ));
            }
            if rest.starts_with('!') {
                return Err(err(
                    rest,
                    "exit rates `!..` belong to continuous-time models, which kolmo does not read".into(),
                ));
            }
            if rest.starts_with('[') {
                let (values, after) = bracketed(path, &line, rest, &header.placeholders)?;
                check_count(&mut body, values.len(), &line, rest)?;
                body.state_rewards.push(values);
                rest = after;
            } else {
                body.state_rewards.push(Vec::new());
            }
            for label in labels(path, &line, rest)? {
                body.labels
                    .entry(label.to_string())
                    .or_default()
                    .push(expected as StateId);
            }
            name_slot = Some(expected);
        } else if keyword == "action" {
            if body.state_lines.is_empty() {
                return Err(err(t, "`action` before the first `state`".into()));
            }
            if header.kind == Kind::Dtmc && choice_in_state > 0 {
                return Err(err(
                    t,
                    "a DTMC has one action per state; use `@type: MDP` for several".into(),
                ));
            }
            let rest = rest.trim_start();
            let (name, rest) = split_token(rest);
            if name.is_empty() {
                return Err(err(t, "expected an action name or number after `action`".into()));
            }
            let rest = rest.trim_start();
            let rewards = if rest.starts_with('[') {
                let (values, after) = bracketed(path, &line, rest, &header.placeholders)?;
                check_count(&mut body, values.len(), &line, rest)?;
                if !after.trim().is_empty() {
                    return Err(err(
                        after.trim_start(),
                        format!("unexpected {} after the action rewards", quote(after.trim())),
                    ));
                }
                values
            } else if !rest.is_empty() {
                return Err(err(
                    rest,
                    format!("unexpected {} after the action name", quote(rest)),
                ));
            } else {
                Vec::new()
            };
            body.actions.push((name.to_string(), line.number));
            body.row_has_transition.push(false);
            body.action_rewards.push(rewards);
            choice_in_state += 1;
        } else {
            if body.state_lines.is_empty() {
                return Err(err(t, format!("expected `state <number>`, found {}", quote(t))));
            }
            if choice_in_state == 0 {
                if header.kind == Kind::Mdp {
                    return Err(err(
                        t,
                        "a transition before the state's first `action` (an MDP's transitions belong to actions)".into(),
                    ));
                }
                // A DTMC's transitions may follow the `state` line directly.
                body.actions.push(("0".to_string(), line.number));
                body.row_has_transition.push(false);
                body.action_rewards.push(Vec::new());
                choice_in_state = 1;
            }
            let Some((target, p)) = t.split_once(':') else {
                return Err(err(
                    t,
                    format!(
                        "expected `state`, `action` or a transition `<target> : <probability>`, found {}",
                        quote(t)
                    ),
                ));
            };
            let target_text = target.trim();
            let target_value = target_text.parse::<StateId>().map_err(|_| {
                err(
                    if target_text.is_empty() { t } else { target_text },
                    format!("expected a target state number, found {}", quote(target_text)),
                )
            })?;
            let p_text = p.trim();
            let probability = value(p_text, &header.placeholders).map_err(|m| {
                err(
                    if p_text.is_empty() { t } else { p_text },
                    format!("probability: {m}"),
                )
            })?;
            let row = body.actions.len() - 1;
            body.row_has_transition[row] = true;
            body.entries.push(Entry {
                state: (body.state_lines.len() - 1) as StateId,
                choice: choice_in_state - 1,
                target: target_value,
                value: probability,
                line: line.number,
                column: column_of(line.text, target_text),
            });
        }
    }
    if body.state_lines.len() != n {
        return Err(parse_error(
            path,
            header.nr_states_line,
            1,
            format!(
                "@nr_states declares {n} states but the file has {} (it ends on line {last_line})",
                body.state_lines.len()
            ),
        ));
    }
    if let Some((row, _)) = body.row_has_transition.iter().enumerate().find(|(_, has)| !**has) {
        return Err(parse_error(
            path,
            body.actions[row].1,
            1,
            "this action has no transitions (every choice needs a distribution over next states)",
        ));
    }
    if let Some((m, line)) = header.nr_choices
        && m != body.actions.len()
    {
        return Err(parse_error(
            path,
            line,
            1,
            format!(
                "@nr_choices declares {m} choices but the file has {}",
                body.actions.len()
            ),
        ));
    }
    Ok(body)
}

/// Reads a DRN model from `text`, the contents of `path`; returns it with notes for the user.
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| Line {
        number: i + 1,
        text: l.strip_suffix('\r').unwrap_or(l),
    });
    let header = read_header(path, &mut lines)?;
    let body = read_body(path, &header, lines)?;
    let n = header.nr_states;
    let state_lines = &body.state_lines;
    let (matrix, mut notes) = build_matrix(path, n, body.entries, options.normalize, |s| {
        state_lines[s as usize]
    })?;
    let initial: Vec<StateId> = body.labels.get("init").cloned().unwrap_or_default();
    if initial.is_empty() {
        return Err(parse_error(
            path,
            header.model_line,
            1,
            "no initial state: no state has the label `init`",
        ));
    }
    // Action names, unless every action is just its index.
    let m = body.actions.len();
    let mut row_state = vec![0usize; m];
    for (s, &first) in body.first_row.iter().enumerate() {
        let end = body.first_row.get(s + 1).copied().unwrap_or(m);
        row_state[first..end].fill(s);
    }
    let indexed = body.actions.iter().enumerate().all(|(row, (name, _))| {
        name == "__NOLABEL__" || *name == (row - body.first_row[row_state[row]]).to_string()
    });
    let action_names: Option<Vec<String>> = (!indexed).then(|| {
        body.actions
            .iter()
            .map(|(name, _)| {
                if name == "__NOLABEL__" {
                    String::new()
                } else {
                    name.clone()
                }
            })
            .collect()
    });
    // Reward models.
    let k = body.reward_count.map_or(0, |(k, _)| k);
    let mut rewards = Vec::with_capacity(k);
    for i in 0..k {
        let name = header
            .reward_names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("rew{i}"));
        let column = |vs: &[Vec<f64>]| -> Option<Vec<f64>> {
            let part: Vec<f64> = vs.iter().map(|v| v.get(i).copied().unwrap_or(0.0)).collect();
            part.iter().any(|&v| v != 0.0).then_some(part)
        };
        let mut model = RewardModel {
            state: column(&body.state_rewards),
            action: column(&body.action_rewards),
            transition: None,
        };
        if model.is_empty() {
            model.state = Some(vec![0.0; n]);
        }
        rewards.push((name, model));
    }
    // State names from the comment lines after each `state` line, if every state has a distinct one.
    let names: Option<Vec<String>> = body.names.iter().cloned().collect();
    let names = names.filter(|names| {
        let distinct = names.iter().collect::<HashSet<_>>().len() == names.len();
        if !distinct {
            notes.push(
                "the comment lines after the `state` lines are not distinct, so they are not used as state names"
                    .to_string(),
            );
        }
        distinct
    });
    let mut mdp = Mdp::new(matrix, initial)?;
    for (label, states) in body.labels {
        mdp.set_label(label, StateSet::from_states(n, states));
    }
    if let Some(names) = names {
        mdp = mdp.with_names(names);
    }
    for (name, model) in rewards {
        mdp.set_reward_model(name, model)?;
    }
    let model = match header.kind {
        Kind::Mdp => {
            if let Some(names) = action_names {
                mdp = mdp.with_action_names(names);
            }
            Model::Mdp(mdp)
        }
        Kind::Dtmc => {
            if action_names.is_some() {
                notes.push("the action names of a DTMC are not kept".to_string());
            }
            Model::Dtmc(mdp.into_dtmc()?)
        }
    };
    Ok((model, notes))
}

/// `v` in the shortest form that parses back to the same `f64`: Rust's `{}` for ordinary
/// magnitudes, `{:e}` for very small or large ones (where `{}` would write hundreds of zeros).
pub(super) fn number(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The parts of a model the writers need, for either kind.
pub(super) struct View<'a> {
    pub matrix: &'a crate::sparse::CsrMatrix,
    pub initial: &'a [StateId],
    pub labels: &'a BTreeMap<String, StateSet>,
    pub names: Option<&'a [String]>,
    pub action_names: Option<&'a [String]>,
    pub rewards: &'a BTreeMap<String, RewardModel>,
    pub is_mdp: bool,
}

impl<'a> View<'a> {
    /// The view of `model`.
    pub fn of(model: &'a Model) -> Self {
        match model {
            Model::Dtmc(d) => Self::dtmc(d),
            Model::Mdp(m) => Self::mdp(m),
        }
    }

    fn dtmc(d: &'a Dtmc) -> Self {
        Self {
            matrix: d.matrix(),
            initial: d.initial(),
            labels: d.labels(),
            names: d.names(),
            action_names: None,
            rewards: d.reward_models(),
            is_mdp: false,
        }
    }

    fn mdp(m: &'a Mdp) -> Self {
        Self {
            matrix: m.matrix(),
            initial: m.initial(),
            labels: m.labels(),
            names: m.names(),
            action_names: m.action_names(),
            rewards: m.reward_models(),
            is_mdp: true,
        }
    }
}

/// The action rewards of `r` with its transition part folded in: `action[a] + Σ_t P(a, t) · r(a, t)`
/// (length `m`), or `None` if it has neither part.
pub(super) fn folded_action_rewards(r: &RewardModel, matrix: &crate::sparse::CsrMatrix) -> Option<Vec<f64>> {
    if r.action.is_none() && r.transition.is_none() {
        return None;
    }
    let only = RewardModel {
        state: None,
        action: r.action.clone(),
        transition: r.transition.clone(),
    };
    Some(only.expected_per_choice(matrix))
}

fn io(error: std::io::Error) -> Error {
    Error::Io {
        path: "(DRN output)".into(),
        error,
    }
}

/// Writes `model` in DRN (see the module docs for what is written and how transition rewards are
/// folded into action rewards).
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let v = View::of(model);
    let matrix = v.matrix;
    let n = matrix.row_groups();
    for name in v.rewards.keys() {
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(Error::arg(
                "reward model",
                format!(
                    "{name:?}: DRN separates reward model names by white space, so a name cannot be empty or hold any"
                ),
            ));
        }
    }
    for label in v.labels.keys() {
        if label.is_empty() || label.contains('"') {
            return Err(Error::arg(
                "label",
                format!("{label:?}: DRN cannot write an empty label or one holding `\"`"),
            ));
        }
    }
    if let Some(names) = v.action_names
        && let Some(bad) = names
            .iter()
            .find(|a| a.contains(char::is_whitespace) || a.starts_with('['))
    {
        return Err(Error::arg(
            "action name",
            format!("{bad:?}: a DRN action name cannot hold white space or start with `[`"),
        ));
    }
    let state_rewards: Vec<Option<&Vec<f64>>> = v.rewards.values().map(|r| r.state.as_ref()).collect();
    let action_rewards: Vec<Option<Vec<f64>>> = v
        .rewards
        .values()
        .map(|r| folded_action_rewards(r, matrix))
        .collect();
    let mut init_label = v.labels.get("init").cloned();
    if init_label.is_none() {
        init_label = Some(StateSet::from_states(n, v.initial.iter().copied()));
    }
    let mut labels: Vec<(&str, &StateSet)> = v.labels.iter().map(|(k, s)| (k.as_str(), s)).collect();
    if !v.labels.contains_key("init") {
        labels.insert(0, ("init", init_label.as_ref().expect("set above")));
    }
    let mut out = String::new();
    out.push_str("// Written by kolmo\n");
    out.push_str(if v.is_mdp { "@type: MDP\n" } else { "@type: DTMC\n" });
    out.push_str("@value_type: double\n@parameters\n\n@reward_models\n");
    out.push_str(&v.rewards.keys().cloned().collect::<Vec<_>>().join(" "));
    out.push('\n');
    out.push_str(&format!(
        "@nr_states\n{n}\n@nr_choices\n{}\n@model\n",
        matrix.nrows()
    ));
    w.write_all(out.as_bytes()).map_err(io)?;
    let (row_ptr, cols, vals) = matrix.as_parts();
    let bracket = |values: &mut dyn Iterator<Item = f64>| -> String {
        let parts: Vec<String> = values.map(number).collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!(" [{}]", parts.join(", "))
        }
    };
    for s in 0..n {
        out.clear();
        out.push_str(&format!("state {s}"));
        out.push_str(&bracket(
            &mut state_rewards.iter().map(|r| r.map_or(0.0, |r| r[s])),
        ));
        for (label, set) in &labels {
            if set.contains(s as StateId) {
                if label.contains(char::is_whitespace) {
                    out.push_str(&format!(" \"{label}\""));
                } else {
                    out.push_str(&format!(" {label}"));
                }
            }
        }
        out.push('\n');
        if let Some(names) = v.names {
            let name = names[s].replace(['\n', '\r'], " ");
            out.push_str(&format!("//{name}\n"));
        }
        let rows = matrix.group_rows(s);
        for row in rows.clone() {
            let name = match v.action_names {
                Some(names) if names[row].is_empty() => "__NOLABEL__".to_string(),
                Some(names) => names[row].clone(),
                None => (row - rows.start).to_string(),
            };
            out.push_str(&format!("\taction {name}"));
            out.push_str(&bracket(
                &mut action_rewards.iter().map(|r| r.as_ref().map_or(0.0, |r| r[row])),
            ));
            out.push('\n');
            for k in row_ptr[row]..row_ptr[row + 1] {
                out.push_str(&format!("\t\t{} : {}\n", cols[k], number(vals[k])));
            }
        }
        w.write_all(out.as_bytes()).map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<(Model, Vec<String>)> {
        read(Path::new("m.drn"), text, &ReadOptions::default())
    }

    fn error(text: &str) -> String {
        match read_str(text) {
            Ok(_) => panic!("expected an error for {text:?}"),
            Err(e) => e.to_string(),
        }
    }

    const MDP: &str = "// a comment\n@type: MDP\n@value_type: rational\n@parameters\n\n@reward_models\ncost time\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 [1, 0] init \"a label\"\n//s0\n\taction go [0, 2]\n\t\t1 : 1/3\n\t\t0 : 2/3\n\taction stay [0, 0]\n\t\t0 : 1\nstate 1 [0, 0] goal\n//s1\n  action __NOLABEL__ [0, 0]\n    1:1\n";

    #[test]
    fn reads_an_mdp_with_everything() {
        let (model, notes) = read_str(MDP).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        let Model::Mdp(m) = model else {
            panic!("not an MDP")
        };
        assert_eq!(m.n(), 2);
        assert_eq!(m.choices(), 3);
        assert_eq!(m.initial(), &[0]);
        assert_eq!(m.matrix().row(0), (&[0, 1][..], &[2.0 / 3.0, 1.0 / 3.0][..]));
        assert_eq!(m.action_names().unwrap(), &["go", "stay", ""]);
        assert_eq!(m.names().unwrap(), &["s0", "s1"]);
        assert_eq!(m.label("a label").unwrap().to_vec(), vec![0]);
        assert_eq!(m.label("init").unwrap().to_vec(), vec![0]);
        assert_eq!(m.label("goal").unwrap().to_vec(), vec![1]);
        let cost = &m.reward_models()["cost"];
        assert_eq!(cost.state.as_deref(), Some(&[1.0, 0.0][..]));
        assert_eq!(cost.action, None);
        let time = &m.reward_models()["time"];
        assert_eq!(time.state, None);
        assert_eq!(time.action.as_deref(), Some(&[2.0, 0.0, 0.0][..]));
    }

    #[test]
    fn dtmc_without_actions_crlf_bom_placeholders() {
        let text = "\u{feff}@type: DTMC\r\n@placeholders\r\n$h : 1/2\r\n@nr_states\r\n2\r\n@model\r\nstate 0 init\r\n 0 : $h\r\n 1 : $h\r\nstate 1\r\n\taction 0\r\n 1 : 1\r\n";
        let (model, _) = read_str(text).unwrap();
        let Model::Dtmc(d) = model else {
            panic!("not a DTMC")
        };
        assert_eq!(d.matrix().row(0).1, &[0.5, 0.5]);
        assert!(d.reward_models().is_empty());
        assert!(d.names().is_none());
    }

    #[test]
    fn write_then_read_is_exact() {
        let (model, _) = read_str(MDP).unwrap();
        let mut out = Vec::new();
        write(&model, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("action __NOLABEL__ [0, 0]"), "{text}");
        assert!(text.contains("\"a label\""), "{text}");
        let (back, _) = read_str(&text).unwrap();
        let (Model::Mdp(a), Model::Mdp(b)) = (&model, &back) else {
            panic!()
        };
        assert_eq!(a.matrix(), b.matrix());
        assert_eq!(a.labels(), b.labels());
        assert_eq!(a.reward_models(), b.reward_models());
        assert_eq!(a.action_names(), b.action_names());
        assert_eq!(a.names(), b.names());
    }

    #[test]
    fn numbers_round_trip() {
        for v in [
            0.1,
            1.0 / 3.0,
            1e-20,
            2.5e-300,
            1e17,
            123456.789,
            5e-324,
            0.0,
            1.0,
        ] {
            assert_eq!(parse_number(&number(v)), Some(v), "{v}");
        }
        assert_eq!(number(1e-20), "1e-20");
        assert_eq!(number(0.25), "0.25");
    }

    #[test]
    fn errors_name_the_line() {
        let head = "@type: DTMC\n@parameters\n\n@reward_models\nr\n@nr_states\n2\n@nr_choices\n2\n@model\n";
        let cases: &[(&str, &str)] = &[
            (
                "@type: CTMC\n@nr_states\n1\n@model\n",
                "m.drn:1:1: model type CTMC is not supported",
            ),
            ("@type: POMDP\n", "m.drn:1:1: model type POMDP"),
            (
                "@type: Markov Automaton\n",
                "m.drn:1:1: model type Markov Automaton",
            ),
            (
                "@type: DTMC\n@parameters\np q\n@nr_states\n1\n@model\n",
                "m.drn:3:1: parametric models are not supported",
            ),
            (
                "@type: DTMC\n@value_type: parametric\n",
                "m.drn:2:1: value type parametric",
            ),
            ("@type: DTMC\n@nr_states\nx\n", "m.drn:3:1: expected a count"),
            ("@type: DTMC\n@nr_states\n2\n", "the file ended before `@model`"),
            (
                "@type: DTMC\n@model\n",
                "m.drn:2:1: `@nr_states` must come before",
            ),
            ("@nr_states\n1\n@model\n", "m.drn:3:1: `@type:` must come before"),
            ("@type: DTMC\n@bogus\n", "m.drn:2:1: unknown header line"),
            ("hello\n", "m.drn:1:1: expected a header line"),
            (
                &format!("{head}state 1 [0] init\n"),
                "m.drn:11:7: states must be numbered",
            ),
            (
                &format!("{head}state 0 [0] init\n\t1 : 1\nstate 1 [0]\n\t1 : 1\nstate 2 [0]\n"),
                "m.drn:15:7: more states than the 2",
            ),
            (
                &format!("{head}state 0 [0] init\n\t1 : 1\n"),
                "m.drn:7:1: @nr_states declares 2 states but the file has 1",
            ),
            (
                &format!("{head}state 0 [0, 1] init\n"),
                "m.drn:11:9: 2 reward(s) in brackets; @reward_models declares 1",
            ),
            (
                &format!("{head}state 0 [x] init\n"),
                "m.drn:11:10: reward: `x` is not a number",
            ),
            (&format!("{head}state 0 [0 init\n"), "m.drn:11:9: `]` missing"),
            (
                &format!("{head}state 0 [0] init\n\t1 : 1\n\t0 : nan\n"),
                "m.drn:13:6: probability: `nan` is not a number",
            ),
            (
                &format!("{head}state 0 [0] init\n\t1 = 1\n"),
                "m.drn:12:2: expected `state`, `action` or a transition",
            ),
            (
                &format!("{head}state 0 [0] init\n\t7 : 1\nstate 1 [0]\n\t1 : 1\n"),
                "m.drn:12:2: target state 7 does not exist",
            ),
            (
                &format!("{head}state 0 [0] init\n\t1 : 0.5\nstate 1 [0]\n\t1 : 1\n"),
                "m.drn:12:2: the probabilities out of state 0 sum to 0.5",
            ),
            (
                &format!("{head}state 0 [0] init\n\t1 : 1\n\t1 : 1\nstate 1 [0]\n\t1 : 1\n"),
                "given twice (first on line 12)",
            ),
            (
                &format!("{head}state 0 [0]\n\t1 : 1\nstate 1 [0]\n\t1 : 1\n"),
                "m.drn:10:1: no initial state",
            ),
            (
                &format!("{head}state 0 [0] init\n\taction 0\n\t1 : 1\n\taction 1\n\t1 : 1\n"),
                "m.drn:14:2: a DTMC has one action per state",
            ),
            (
                &format!("{head}state 0 {{3}} [0] init\n"),
                "m.drn:11:9: observations",
            ),
            (&format!("{head}state 0 !3 init\n"), "m.drn:11:9: exit rates"),
            (
                &format!("{head}state 0 [0] init \"open\n"),
                "m.drn:11:18: closing `\"` missing",
            ),
            (&format!("{head}1 : 1\n"), "m.drn:11:1: expected `state <number>`"),
            (
                &format!("{head}state 0 [0] init\n\t1 : 1\nstate 1 [0]\n\t1 : 1\n")
                    .replace("@nr_choices\n2", "@nr_choices\n3"),
                "m.drn:9:1: @nr_choices declares 3 choices but the file has 2",
            ),
            (
                "@type: MDP\n@nr_states\n1\n@model\nstate 0 init\n\t0 : 1\n",
                "m.drn:6:2: a transition before the state's first `action`",
            ),
            (
                "@type: MDP\n@nr_states\n1\n@model\nstate 0 init\n\taction a\n\taction b\n\t0 : 1\n",
                "m.drn:6:1: this action has no transitions",
            ),
            (
                "@type: DTMC\n@nr_states\n0\n@model\n",
                "m.drn:3:1: the model has no states",
            ),
            (
                "@type: DTMC\n@nr_states\n99999999999999\n@model\n",
                "more than kolmo's limit",
            ),
            (
                "@type: DTMC\n@parameters",
                "m.drn:2:1: the file ends after `@parameters`",
            ),
        ];
        for (text, expected) in cases {
            let e = error(text);
            assert!(e.contains(expected), "{text:?}\n got: {e}\nwant: {expected}");
        }
    }

    #[test]
    fn garbage_never_panics() {
        let base = MDP.as_bytes();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for cut in 0..base.len() {
            let _ = read_str(&String::from_utf8_lossy(&base[..cut]));
        }
        for _ in 0..2000 {
            let mut bytes = base.to_vec();
            for _ in 0..3 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state % bytes.len() as u64) as usize;
                bytes[i] = (state >> 32) as u8;
            }
            let _ = read_str(&String::from_utf8_lossy(&bytes));
        }
        for text in [
            "\0\0\0",
            "@model",
            "state",
            "@type: MDP\n@nr_states\n1\n@model\nstate 0 init\naction",
            "@type: DTMC\n@nr_states\n1\n@model\nstate 0 init [\n",
        ] {
            let _ = read_str(text);
        }
    }
}
