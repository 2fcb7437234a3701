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
//! - `@type:` `DTMC`, `MDP` or `SMG` (a turn-based stochastic game); CTMCs, Markov automata, POMDPs
//!   and Storm's S2PG are refused naming the line.
//! - Games: Storm writes no owners for an SMG's states, so kolmo defines them. The header declares
//!   the players by name on the line after `@players` (before `@model`; names separated by white
//!   space, in order: `<<1>>` in a property is the first), and each `state` line names the player
//!   who chooses there, in angle brackets right after the state's number:
//!   `state 0 <alice> [1.5] init`. Both are required for `SMG` and refused otherwise.
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
//!   separated by white space or in double quotes (a `[..]` after a label is an error, not a
//!   label). The label `init` marks the initial states and is
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
//! What kolmo writes: the header above (`@value_type: double`, empty `@parameters`; a game's
//! `@type: SMG` with `@players`; an unnamed reward model as `rew<i>`, `i` its position), every
//! state with its owner (games), its state rewards and labels, its state name as a comment line (Storm's place for state
//! valuations; line breaks in names become spaces), its actions with their names (indices when the
//! model has none; the empty name as `__NOLABEL__`) and action rewards, and its transitions.
//! Numbers are written in Rust's shortest round-trip form, so reading the file back gives the same
//! `f64`s. DRN has no transition rewards: a reward model's transition part is folded into its action
//! rewards as `Σ_t P(a, t) · r(a, t)`, which keeps every expected reward the same.

use super::chunked::{HeaderRead, Stream, TextLines, Tuning, header_from};
use super::text_out::{Numbers, push_uint, write_states};
use super::tra::Line;
use super::{Model, ReadOptions, View, io_error, parse_error, parse_number};
use crate::model::{RewardModel, StateSet};
use crate::{Error, Result, StateId};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::Path;

pub(super) use super::chunked::{column_of, quote};

/// What the header said.
pub(super) struct Header {
    /// An MDP or a game (else a DTMC).
    pub is_mdp: bool,
    /// A game (`@type: SMG`): the players' names from `@players`, and that line's number.
    pub players: Option<(Vec<String>, usize)>,
    pub reward_names: Vec<String>,
    pub nr_states: usize,
    pub nr_states_line: usize,
    pub nr_choices: Option<(usize, usize)>,
    pub model_line: usize,
    pub placeholders: HashMap<String, f64>,
}

/// A value: a number or a `$placeholder`.
pub(super) fn value(token: &str, placeholders: &HashMap<String, f64>) -> std::result::Result<f64, String> {
    let t = token.trim();
    if let Some(name) = t.strip_prefix('$') {
        return placeholders
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown placeholder ${name}"));
    }
    parse_number(t).ok_or_else(|| format!("{} is not a number", quote(t)))
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
    let mut is_mdp = None;
    let mut is_game = false;
    let mut players: Option<(Vec<String>, usize)> = None;
    let mut reward_names = Vec::new();
    let (mut nr_states, mut nr_choices): (Option<(usize, usize)>, _) = (None, None);
    let mut placeholders = HashMap::new();
    let mut seen = HashSet::new();
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
        // The line after a keyword that takes its value on the next line.
        let mut next_line = |what: &str| -> Result<Line<'a>> {
            lines
                .next()
                .ok_or_else(|| parse_error(path, line.number, 1, format!("the file ends after `{what}`")))
        };
        // `@type:` and `@value_type:` take their value on the same line.
        let (key, arg) = match t.split_once(':') {
            Some((key @ ("@type" | "@value_type"), arg)) => (&t[..=key.len()], arg.trim()),
            _ => (t, ""),
        };
        let once = [
            "@type:",
            "@value_type:",
            "@parameters",
            "@reward_models",
            "@players",
            "@nr_states",
            "@nr_choices",
        ];
        if once.contains(&key) && !seen.insert(key) {
            return Err(err(format!("{} is declared twice", key.trim_end_matches(':'))));
        }
        match key {
            "@type:" => {
                is_mdp = Some(match arg {
                    "DTMC" => false,
                    "MDP" => true,
                    "SMG" => {
                        is_game = true;
                        true
                    }
                    other @ ("CTMC" | "Markov Automaton" | "MA" | "POMDP" | "S2PG") => {
                        return Err(err(format!(
                            "model type {other} is not supported: kolmo reads DTMCs, MDPs and SMGs"
                        )));
                    }
                    other => {
                        return Err(err(format!(
                            "unknown model type {}; expected DTMC, MDP or SMG",
                            quote(other)
                        )));
                    }
                });
            }
            "@value_type:" => match arg {
                "double" | "rational" => {}
                other @ ("double-interval" | "rational-interval" | "parametric") => {
                    return Err(err(format!(
                        "value type {other} is not supported: kolmo reads models with exact numbers (double or rational)"
                    )));
                }
                other => return Err(err(format!("unknown value type {}", quote(other)))),
            },
            "@parameters" => {
                let p = next_line(key)?;
                let names = p.text.trim();
                if !names.is_empty() {
                    let message = format!(
                        "parametric models are not supported (parameters {})",
                        quote(names)
                    );
                    return Err(parse_error(path, p.number, column_of(p.text, names), message));
                }
            }
            "@placeholders" => {
                for p in lines.by_ref() {
                    let pt = p.text.trim();
                    if pt.starts_with('@') {
                        pending = Some(p);
                        break;
                    }
                    if pt.is_empty() || pt.starts_with("//") {
                        continue;
                    }
                    let perr = |col: &str, message: String| {
                        parse_error(path, p.number, column_of(p.text, col), message)
                    };
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
            }
            "@reward_models" => {
                let r = next_line(key)?;
                let mut names = HashSet::new();
                if let Some(d) = r.text.split_whitespace().find(|n| !names.insert(*n)) {
                    let message = format!("reward model {} is declared twice", quote(d));
                    return Err(parse_error(path, r.number, column_of(r.text, d), message));
                }
                reward_names = r.text.split_whitespace().map(str::to_string).collect();
            }
            "@players" => {
                let r = next_line(key)?;
                let mut names = HashSet::new();
                if let Some(d) = r.text.split_whitespace().find(|n| !names.insert(*n)) {
                    let message = format!("player {} is declared twice", quote(d));
                    return Err(parse_error(path, r.number, column_of(r.text, d), message));
                }
                if let Some((d, why)) = r
                    .text
                    .split_whitespace()
                    .find_map(|n| crate::model::player_name_problem(n).err().map(|why| (n, why)))
                {
                    return Err(parse_error(path, r.number, column_of(r.text, d), why));
                }
                let list: Vec<String> = r.text.split_whitespace().map(str::to_string).collect();
                if list.is_empty() {
                    return Err(parse_error(path, r.number, 1, "`@players` names no player"));
                }
                players = Some((list, line.number));
            }
            "@nr_states" | "@nr_choices" => {
                let c = next_line(key)?;
                let counted = Some((count(path, &c)?, c.number));
                if key == "@nr_states" {
                    nr_states = counted;
                } else {
                    nr_choices = counted;
                }
            }
            "@model" => {
                let Some(is_mdp) = is_mdp else {
                    return Err(err("`@type:` must come before `@model`".into()));
                };
                let Some((nr_states, nr_states_line)) = nr_states else {
                    return Err(err("`@nr_states` must come before `@model`".into()));
                };
                if is_game && players.is_none() {
                    return Err(err(
                        "a game (`@type: SMG`) declares its players before `@model`: `@players` and a line of names; each `state` line then names its owner, `state 0 <name> ...`"
                            .into(),
                    ));
                }
                if !is_game && let Some((_, line)) = players {
                    return Err(parse_error(
                        path,
                        line,
                        1,
                        "`@players` belongs to games (`@type: SMG`)",
                    ));
                }
                let refuse = |message: String| Err(parse_error(path, nr_states_line, 1, message));
                if nr_states == 0 {
                    return refuse("the model has no states".into());
                }
                if nr_states > StateId::MAX as usize {
                    return refuse(format!(
                        "{nr_states} states is more than kolmo's limit of {}",
                        StateId::MAX
                    ));
                }
                return Ok(Header {
                    is_mdp,
                    players,
                    reward_names,
                    nr_states,
                    nr_states_line,
                    nr_choices,
                    model_line: line.number,
                    placeholders,
                });
            }
            _ if t.starts_with('@') => return Err(err(format!("unknown header line {}", quote(t)))),
            _ => {
                return Err(err(format!(
                    "expected a header line (`@type:`, `@nr_states`, ..., `@model`), found {}",
                    quote(t)
                )));
            }
        }
    }
}

/// Splits the first white-space separated token off `s` (which starts with it).
pub(super) fn split_token(s: &str) -> (&str, &str) {
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// The header in `text` (whole lines from the file's start; `complete`: the whole file), up to and
/// including the `@model` line, or `None` if the text ends first.
fn header_in(path: &Path, text: &str, complete: bool) -> Result<HeaderRead<Header>> {
    let mut lines = TextLines::of(text);
    let mut numbered = lines.by_ref().map(|(number, text)| Line::of(number, text));
    match read_header(path, &mut numbered) {
        Ok(header) => Ok(Some((header, lines.pos, lines.newlines))),
        Err(_) if lines.exhausted && !complete => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a DRN model from `text`, the contents of `path`; returns it with notes for the user.
#[cfg(test)]
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    read_from(
        path,
        text.as_bytes(),
        Some(text.len() as u64),
        options,
        Tuning::FILES,
    )
}

/// Reads the DRN file `path` (a window at a time, chunks in parallel); returns the model with notes
/// for the user.
pub(crate) fn read_file(path: &Path, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let (file, size) = super::open(path)?;
    read_from(path, file, Some(size), options, Tuning::FILES)
}

/// Reads a DRN model from `reader`, the contents of `path` (`size` bytes, if known), with the
/// windows and chunks of `tuning`.
pub(crate) fn read_from<R: Read + Send>(
    path: &Path,
    reader: R,
    size: Option<u64>,
    options: &ReadOptions,
    tuning: Tuning,
) -> Result<(Model, Vec<String>)> {
    let mut stream = Stream::new(reader, tuning.window, size);
    let header = header_from(path, &mut stream, header_in)?;
    super::drn_body::read_body(path, &mut stream, &header, options.normalize, tuning)
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

/// Writes `model` in DRN (see the module docs for what is written and how transition rewards are
/// folded into action rewards).
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let v = View::of(model);
    let matrix = v.matrix;
    let n = matrix.row_groups();
    if let Some(name) = (v.rewards.keys()).find(|r| r.contains(char::is_whitespace)) {
        return Err(Error::arg(
            "reward model",
            format!("{name:?}: DRN separates reward model names by white space, so a name cannot hold any"),
        ));
    }
    // An unnamed reward model (the PRISM language's `rewards ... endrewards`) is written as
    // `rew<i>`, Storm's name for a reward model without one (`i` its position), or the first
    // such name not taken.
    let reward_names: Vec<String> = v
        .rewards
        .keys()
        .enumerate()
        .map(|(i, k)| {
            if !k.is_empty() {
                return k.clone();
            }
            (i..)
                .map(|j| format!("rew{j}"))
                .find(|c| !v.rewards.contains_key(c))
                .expect("a free name")
        })
        .collect();
    if let Some(label) = v.labels.keys().find(|l| l.is_empty() || l.contains('"')) {
        let message = format!("{label:?}: DRN cannot write an empty label or one holding `\"`");
        return Err(Error::arg("label", message));
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
    // The label `init` if the model has one, else its initial states.
    let init = StateSet::from_states(n, v.initial.iter().copied());
    let mut labels: Vec<(&str, &StateSet)> = v.labels.iter().map(|(k, s)| (k.as_str(), s)).collect();
    if !v.labels.contains_key("init") {
        labels.insert(0, ("init", &init));
    }
    if let Some(p) = v.players
        && let Some(bad) = p
            .names
            .iter()
            .find(|a| a.is_empty() || a.contains(char::is_whitespace) || a.contains(['<', '>']))
    {
        return Err(Error::arg(
            "player name",
            format!("{bad:?}: a DRN player name cannot be empty or hold white space, `<` or `>`"),
        ));
    }
    let (kind, m) = (
        match (v.is_mdp, v.players) {
            (_, Some(_)) => "SMG",
            (true, None) => "MDP",
            (false, None) => "DTMC",
        },
        matrix.nrows(),
    );
    let names = reward_names.join(" ");
    let players = v
        .players
        .map(|p| format!("@players\n{}\n", p.names.join(" ")))
        .unwrap_or_default();
    let header = format!(
        "// Written by kolmo\n@type: {kind}\n@value_type: double\n@parameters\n\n@reward_models\n{names}\n{players}@nr_states\n{n}\n@nr_choices\n{m}\n@model\n"
    );
    w.write_all(header.as_bytes())
        .map_err(io_error(Path::new("(DRN output)")))?;
    let (row_ptr, cols, vals) = matrix.as_parts();
    // The values of a bracket, one per reward model (nothing without reward models).
    let bracket = |out: &mut String, numbers: &mut Numbers, value: &dyn Fn(usize) -> f64| {
        if state_rewards.is_empty() {
            return;
        }
        out.push_str(" [");
        for i in 0..state_rewards.len() {
            if i > 0 {
                out.push_str(", ");
            }
            numbers.push(out, value(i));
        }
        out.push(']');
    };
    write_states(w, n, |states, out, numbers| {
        let mut rewards = Numbers::default();
        for s in states {
            out.push_str("state ");
            push_uint(out, s as u64);
            if let Some(p) = v.players {
                out.push_str(" <");
                out.push_str(&p.names[p.owner[s] as usize]);
                out.push('>');
            }
            bracket(out, &mut rewards, &|i| state_rewards[i].map_or(0.0, |r| r[s]));
            for (label, set) in &labels {
                if set.contains(s as StateId) {
                    if label.contains(char::is_whitespace) {
                        out.push_str(" \"");
                        out.push_str(label);
                        out.push('"');
                    } else {
                        out.push(' ');
                        out.push_str(label);
                    }
                }
            }
            out.push('\n');
            if let Some(names) = v.names {
                out.push_str("//");
                out.extend(
                    names[s]
                        .chars()
                        .map(|c| if matches!(c, '\n' | '\r') { ' ' } else { c }),
                );
                out.push('\n');
            }
            let rows = matrix.group_rows(s);
            for row in rows.clone() {
                out.push_str("\taction ");
                match v.action_names {
                    Some(names) if names[row].is_empty() => out.push_str("__NOLABEL__"),
                    Some(names) => out.push_str(&names[row]),
                    None => push_uint(out, (row - rows.start) as u64),
                }
                bracket(out, &mut rewards, &|i| {
                    action_rewards[i].as_ref().map_or(0.0, |r| r[row])
                });
                out.push('\n');
                for k in row_ptr[row]..row_ptr[row + 1] {
                    out.push_str("\t\t");
                    push_uint(out, u64::from(cols[k]));
                    out.push_str(" : ");
                    numbers.push(out, vals[k]);
                    out.push('\n');
                }
            }
        }
    })
    .map_err(io_error(Path::new("(DRN output)")))
}

#[cfg(test)]
mod tests {
    use super::super::text_out::{Form, number};
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

    /// Windows and chunks small enough that the test files are cut in many places (a window of
    /// one byte grows until a chunk fits).
    const TINY: [Tuning; 4] = [
        Tuning {
            window: 1,
            chunk: 1,
            first_chunk: 1,
        },
        Tuning {
            window: 7,
            chunk: 2,
            first_chunk: 1,
        },
        Tuning {
            window: 64,
            chunk: 16,
            first_chunk: 40,
        },
        Tuning {
            window: 300,
            chunk: 50,
            first_chunk: 1000,
        },
    ];

    /// The model (as its debug text, with the notes) or the error that `bytes` read to.
    fn outcome(bytes: &[u8], tuning: Tuning, normalize: bool) -> std::result::Result<String, String> {
        let options = ReadOptions {
            normalize,
            ..ReadOptions::default()
        };
        read_from(
            Path::new("m.drn"),
            bytes,
            Some(bytes.len() as u64),
            &options,
            tuning,
        )
        .map(|(m, notes)| format!("{m:?}\n{notes:?}"))
        .map_err(|e| e.to_string())
    }

    /// Reads `bytes` whole (one chunk, the sequential path) and cut in chunks every way in
    /// [`TINY`]; all must agree. Returns the outcome.
    fn same_in_chunks(bytes: &[u8]) -> std::result::Result<String, String> {
        let want = outcome(bytes, Tuning::FILES, false);
        for tuning in TINY {
            let got = outcome(bytes, tuning, false);
            assert_eq!(got, want, "{tuning:?} on {:?}", String::from_utf8_lossy(bytes));
        }
        want
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

    /// A game: the players from `@players`, each state's owner from its `<name>`; written and
    /// read back the same, in one chunk or many.
    #[test]
    fn games_read_and_write() {
        let text = "@type: SMG\n@parameters\n\n@reward_models\nr\n@players\nalice bob\n@nr_states\n3\n@model\nstate 0 <alice> [1] init\n\taction safe [0]\n\t\t1 : 1\n\taction bold [2]\n\t\t2 : 1/2\n\t\t0 : 1/2\nstate 1 <bob> [0] \"a label\"\n\taction stay [0]\n\t\t1 : 1\nstate 2 < alice >\n\taction stay\n\t\t2 : 1\n";
        let (model, _) = read_str(text).unwrap();
        let Model::Mdp(m) = &model else {
            panic!("not a game")
        };
        let p = m.players().expect("players");
        assert_eq!(p.owner, [0, 1, 0]);
        assert_eq!(p.names, ["alice", "bob"]);
        assert!(same_in_chunks(text.as_bytes()).is_ok());
        let mut out = Vec::new();
        write(&model, &mut out).unwrap();
        let written = String::from_utf8(out).unwrap();
        assert!(
            written.contains("@type: SMG") && written.contains("@players\nalice bob\n"),
            "{written}"
        );
        assert!(written.contains("state 1 <bob> [0] \"a label\""), "{written}");
        let (back, _) = read_str(&written).unwrap();
        let Model::Mdp(b) = &back else { panic!() };
        assert_eq!(b.players(), m.players());
        assert_eq!(b.matrix(), m.matrix());
        assert_eq!(b.reward_models(), m.reward_models());
    }

    /// An unnamed reward model (the PRISM language's) is written as `rew<i>`, the first such
    /// name not taken, and reads back with the same values.
    #[test]
    fn unnamed_reward_models_get_storms_names() {
        let (model, _) = read_str(MDP).unwrap();
        let Model::Mdp(mut m) = model else { panic!() };
        let time = m.reward_models()["time"].clone();
        m.set_reward_model("", time.clone()).unwrap();
        m.set_reward_model("rew0", time.clone()).unwrap();
        let mut out = Vec::new();
        write(&Model::Mdp(m), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("@reward_models\nrew1 cost rew0 time\n"), "{text}");
        let (back, _) = read_str(&text).unwrap();
        let Model::Mdp(b) = back else { panic!() };
        assert_eq!(b.reward_models()["rew1"], time);
    }

    #[test]
    fn game_errors_name_the_line() {
        let head = "@type: SMG\n@players\na b\n@nr_states\n1\n@model\n";
        let cases: &[(&str, &str)] = &[
            (
                "@type: SMG\n@nr_states\n1\n@model\n",
                "m.drn:4:1: a game (`@type: SMG`) declares its players",
            ),
            (
                "@type: MDP\n@players\na\n@nr_states\n1\n@model\n",
                "m.drn:2:1: `@players` belongs to games",
            ),
            (
                "@type: SMG\n@players\na a\n",
                "m.drn:3:3: player `a` is declared twice",
            ),
            (
                "@type: SMG\n@players\n\n",
                "m.drn:3:1: `@players` names no player",
            ),
            (
                "@type: SMG\n@players\na # b\n",
                "m.drn:3:3: player name \"#\" is not an identifier",
            ),
            (
                &format!("{head}state 0 init\n\taction x\n\t\t0 : 1\n"),
                "m.drn:7:9: a game's state names the player",
            ),
            (
                &format!("{head}state 0 <c> init\n\taction x\n\t\t0 : 1\n"),
                "m.drn:7:10: no player `c` (@players declares a, b)",
            ),
            (&format!("{head}state 0 <a init\n"), "m.drn:7:9: `>` missing"),
            (
                "@type: MDP\n@nr_states\n1\n@model\nstate 0 <a> init\n\taction x\n\t\t0 : 1\n",
                "m.drn:5:9: `<player>` on a state line belongs to games",
            ),
            ("@type: S2PG\n", "m.drn:1:1: model type S2PG is not supported"),
        ];
        for (text, expected) in cases {
            let e = error(text);
            assert!(e.contains(expected), "{text:?}\n got: {e}\nwant: {expected}");
            assert_eq!(same_in_chunks(text.as_bytes()), Err(e));
        }
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
            assert_eq!(parse_number(&number(v, Form::Text)), Some(v), "{v}");
        }
        assert_eq!(number(1e-20, Form::Text), "1e-20");
        assert_eq!(number(0.25, Form::Text), "0.25");
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
                &format!("{head}state 0 init [2]\n"),
                "m.drn:11:14: the state's rewards `[..]` go right after its number",
            ),
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
            assert_eq!(same_in_chunks(text.as_bytes()), Err(e));
        }
    }

    /// Garbage never panics, and reads the same (the same model or the same error) whole and in
    /// chunks.
    #[test]
    fn garbage_never_panics() {
        let base = MDP.as_bytes();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for cut in 0..base.len() {
            let _ = same_in_chunks(&base[..cut]);
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
            let _ = same_in_chunks(&bytes);
        }
        for text in [
            "\0\0\0",
            "@model",
            "state",
            "@type: MDP\n@nr_states\n1\n@model\nstate 0 init\naction",
            "@type: DTMC\n@nr_states\n1\n@model\nstate 0 init [\n",
            "  \n\t\n",
            "\u{feff}",
        ] {
            let _ = same_in_chunks(text.as_bytes());
        }
    }

    /// A random model in every form the reader takes: an MDP or a DTMC of `n` states, with or
    /// without `@reward_models`, named and unnamed actions, fractions, placeholders, comments,
    /// state names, labels, CRLF line ends, blank lines.
    fn random_drn(n: usize, mdp: bool, declared: bool, seed: u64) -> String {
        let mut state = seed | 1;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let mut s = String::from("// random\n");
        s.push_str(if mdp { "@type: MDP\n" } else { "@type: DTMC\n" });
        s.push_str("@value_type: double\n@parameters\n\n");
        if declared {
            s.push_str("@reward_models\nr1 r2\n");
        }
        s.push_str("@placeholders\n$h : 1/2\n");
        s.push_str(&format!("@nr_states\n{n}\n@model\n"));
        for st in 0..n {
            let eol = if next(5) == 0 { "\r\n" } else { "\n" };
            s.push_str(&format!("state {st}"));
            if next(3) > 0 {
                s.push_str(&format!(" [{}, {}]", next(4), next(2)));
            }
            if st == 0 {
                s.push_str(" init");
            }
            if next(7) == 0 {
                s.push_str(" goal \"a b\"");
            }
            s.push_str(eol);
            s.push_str(&format!("//s{st}{eol}"));
            if next(11) == 0 {
                s.push_str(eol);
            }
            let actions = if mdp { 1 + next(3) } else { 1 };
            for a in 0..actions {
                let name = match next(4) {
                    0 => "__NOLABEL__".to_string(),
                    1 if mdp => format!("go{}", next(3)),
                    _ => a.to_string(),
                };
                if !mdp && next(4) == 0 {
                    // A DTMC's transitions may follow the state line.
                } else if next(2) == 0 {
                    s.push_str(&format!("\taction {name} [{}, 0]{eol}", next(3)));
                } else {
                    s.push_str(&format!("\taction {name}{eol}"));
                }
                let targets = [next(n as u64), next(n as u64), next(n as u64)];
                match next(4) {
                    0 => s.push_str(&format!("\t\t{} : 1{eol}", targets[0])),
                    1 if targets[0] != targets[1] => {
                        s.push_str(&format!("\t\t{} : $h{eol}", targets[1]));
                        s.push_str(&format!("\t\t{}:1/2{eol}", targets[0]));
                    }
                    _ => {
                        let mut t = targets.to_vec();
                        t.sort_unstable();
                        t.dedup();
                        let p = 1.0 / t.len() as f64;
                        for (i, x) in t.iter().enumerate() {
                            let v = if i + 1 == t.len() {
                                1.0 - p * (t.len() - 1) as f64
                            } else {
                                p
                            };
                            s.push_str(&format!("\t\t{x} : {}{eol}", number(v, Form::Text)));
                        }
                    }
                }
            }
        }
        s
    }

    #[test]
    fn chunks_read_like_the_whole_file() {
        for (i, (mdp, declared)) in [(true, true), (true, false), (false, true), (false, false)]
            .into_iter()
            .enumerate()
        {
            let text = random_drn(300, mdp, declared, 7 + i as u64);
            let whole = same_in_chunks(text.as_bytes());
            assert!(whole.is_ok(), "{whole:?}");
            // And a file too big for one default chunk.
            if i == 0 {
                let big = random_drn(60_000, mdp, declared, 99);
                assert!(big.len() > 2 * Tuning::FILES.chunk, "{}", big.len());
                let want = outcome(big.as_bytes(), Tuning::FILES, false);
                let one = Tuning {
                    window: usize::MAX / 4,
                    chunk: usize::MAX / 4,
                    first_chunk: usize::MAX / 4,
                };
                assert!(want.is_ok());
                assert_eq!(outcome(big.as_bytes(), one, false), want);
            }
        }
    }

    /// The 1-based line of the first line of `text` whose words start with those of `needle`.
    fn line_of(text: &str, needle: &str) -> usize {
        let want: Vec<&str> = needle.split_whitespace().collect();
        1 + text
            .lines()
            .position(|l| l.split_whitespace().take(want.len()).eq(want.iter().copied()))
            .expect("present")
    }

    #[test]
    fn errors_in_later_chunks_name_the_files_line() {
        let text = random_drn(400, true, true, 3);
        let at = line_of(&text, "state 350 ");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let edit = |lines: &mut Vec<String>, i: usize, new: &str| {
            let mut l = lines.clone();
            l[i - 1] = new.to_string();
            l.join("\n") + "\n"
        };
        // A malformed transition some lines after state 350.
        let t = (at..lines.len()).find(|&i| lines[i - 1].contains(" : ")).unwrap();
        let bad = edit(&mut lines, t, "\t\t1 : zz");
        let e = same_in_chunks(bad.as_bytes()).unwrap_err();
        assert!(e.starts_with(&format!("m.drn:{t}:7: probability: `zz`")), "{e}");
        // A duplicate there, naming both lines.
        let dup = lines[t - 1].clone();
        lines.insert(t, dup);
        let twice = lines.join("\n") + "\n";
        lines.remove(t);
        let e = same_in_chunks(twice.as_bytes()).unwrap_err();
        assert!(
            e.starts_with(&format!("m.drn:{}:", t + 1)) && e.contains(&format!("first on line {t}")),
            "{e}"
        );
        // A state numbered out of order.
        let e = same_in_chunks(edit(&mut lines, at, "state 351").as_bytes()).unwrap_err();
        assert!(
            e.starts_with(&format!("m.drn:{at}:7: states must be numbered")),
            "{e}"
        );
        // A row that does not sum to 1.
        let e = same_in_chunks(edit(&mut lines, t, "\t\t1 : 0.001").as_bytes()).unwrap_err();
        assert!(e.contains("sum to"), "{e}");
        // Normalizing it is the same whole and in chunks.
        let off = edit(&mut lines, t, "\t\t1 : 0.001");
        let want = outcome(off.as_bytes(), Tuning::FILES, true);
        assert!(want.as_ref().is_ok_and(|m| m.contains("normalized")), "{want:?}");
        for tuning in TINY {
            assert_eq!(outcome(off.as_bytes(), tuning, true), want);
        }
        // An action without transitions: the one whose transitions now follow another.
        let a = (at..lines.len())
            .find(|&i| lines[i - 1].contains("action"))
            .unwrap();
        let mut empty = lines.clone();
        empty.insert(a, "\taction extra".to_string());
        let e = same_in_chunks((empty.join("\n") + "\n").as_bytes()).unwrap_err();
        assert!(
            e.starts_with(&format!("m.drn:{a}:1: this action has no transitions")),
            "{e}"
        );
        // A byte that is not UTF-8 near the end wins over a malformed line near the start.
        let mut bytes = edit(&mut lines, line_of(&text, "state 3 "), "state 3 ???").into_bytes();
        let end = bytes.len() - 3;
        bytes[end] = 0xff;
        let e = same_in_chunks(&bytes).unwrap_err();
        let last = text.lines().count();
        assert!(
            e.starts_with(&format!("m.drn:{last}:")) && e.contains("not UTF-8"),
            "{e}"
        );
    }

    #[test]
    fn a_bracket_count_set_in_a_later_chunk() {
        // No @reward_models, and the first bracket far into the file: chunks read in parallel
        // before its count was known are read again.
        let mut s = "@type: DTMC\n@nr_states\n200\n@model\n".to_string();
        for st in 0..200 {
            let bracket = match st {
                150 => " [1, 2]",
                170 => " [3, 4]",
                _ => "",
            };
            s.push_str(&format!(
                "state {st}{bracket}{}\n\t{st} : 1\n",
                if st == 0 { " init" } else { "" }
            ));
        }
        let m = same_in_chunks(s.as_bytes()).unwrap();
        assert!(m.contains("rew1"), "{m}");
        let bad = s.replace("state 170 [3, 4]", "state 170 [3]");
        let e = same_in_chunks(bad.as_bytes()).unwrap_err();
        let first = line_of(&s, "state 150 ");
        assert!(
            e.contains(&format!("1 reward(s) in brackets; line {first} gave 2")),
            "{e}"
        );
    }
}
