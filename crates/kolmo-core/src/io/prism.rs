//! PRISM's explicit model files (`.tra` with `.lab`, `.srew`, `.trew` beside it), read and written.
//!
//! The formats are those of the PRISM manual, appendix "Explicit Model Files"
//! (<https://www.prismmodelchecker.org/manual/Appendices/ExplicitModelFiles>), and of PRISM's
//! importer and exporter (prismmodelchecker/prism, `prism/src/io/PrismExplicitImporter.java`,
//! `PrismExplicitExporter.java`):
//!
//! - `x.tra`: a first line `n m` (DTMC: states, transitions) or `n c m` (MDP: states, choices,
//!   transitions), then one transition per line, `s t p` or `s k t p` (`k` = the choice's index within
//!   state `s`), optionally followed by an action label. In an MDP the label names the choice and must
//!   be the same on all its transitions; a DTMC's labels are ignored (with a note). Lines `- s -` (DTMC)
//!   or `- - s -` (MDP) name initial states, as PRISM writes them for POMDPs. A header line of four
//!   numbers (a POMDP) and a `# Transitions (CTMC)` comment (or any type but DTMC and MDP) are refused.
//! - `x.lab`: a first line `0="init" 1="deadlock" 2="goal"` declaring the labels, then lines
//!   `s: 0 2` listing the labels of state `s`. Every label is kept, `init` too; its states are the
//!   initial states.
//! - `x.srew`: state rewards: `n k`, then `k` lines `s r` (states not listed earn 0).
//! - `x.trew`: transition rewards, laid out like the `.tra` file (`n k` + `s t r`, or `n c k` +
//!   `s a t r`). For a DTMC they become the reward model's transition part. For an MDP PRISM's
//!   transition rewards belong to the **choice** (the same value on every transition of a choice;
//!   different values are refused, as PRISM does): they become the action part.
//! - Reward files may start with the comment lines `# Reward structure "name"` and `# State rewards`
//!   / `# Transition rewards`; the name names the reward model. Several reward structures are files
//!   `x1.srew`, `x2.srew`, ... (and `x1.trew`, ...), PRISM's convention; `x1.srew` and `x1.trew` are
//!   parts of the same reward model. Unnamed reward models are called `default` (files `x.srew`,
//!   `x.trew`) or `r1`, `r2`, ... (numbered files). A reward file without entries gives no part; a
//!   reward model without parts gets state rewards of zero.
//! - Lines starting with `#` are comments; empty lines, CRLF line ends and a UTF-8 byte-order mark are
//!   accepted; values may be decimals or fractions `p/q`.
//!
//! **Initial states.** With a `.lab` file, the states labelled `init` are the initial states, and a
//! `.lab` without any is an error (naming the file). Without a `.lab` file (and without `- s -`
//! lines), state 0 is the initial state, as in PRISM's own import, and a note says so.
//!
//! **Writing** `x.tra` writes the `.tra` file and always a `.lab` file (the `init` label is the
//! model's initial states, whatever label called `init` it has; then every other label), and for
//! the reward models: one reward model → `x.srew` if it has state rewards and `x.trew` if it has
//! action or transition rewards; several → `x1.srew`, `x1.trew`, `x2.srew`, ... for each one, in name
//! order, each with its name in the header (a missing part gives a file without entries, so that
//! PRISM's numbering stays contiguous). Since PRISM has no action rewards, they are folded into the
//! transition rewards so that every expected reward stays the same: for a DTMC, state `s`'s action
//! reward is added to the reward of each transition out of `s`; for an MDP, each choice's
//! `action + Σ_t P(t) · transition(t)` is written on every transition of the choice (PRISM's choice
//! rewards). State names are not written (`.sta` files hold variable valuations, not names).

use super::chunked::{
    ChunkError, ChunkResult, TextLines, Tuning, count_newlines, digits_u32, line_start_from, plain_number,
    plan_cuts, quote, skip_blanks,
};
use super::drn::{column_of, folded_action_rewards};
use super::text_out::{Form, number, push_uint, write_states};
use super::tra::{DataLines, Line, Tra};
use super::{Model, ReadOptions, View, io_error, parse_error, read_text};
use crate::model::{RewardModel, StateSet};
use crate::{Error, Result, StateId};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Labels from a `.lab` file: name → states, and the line of the declarations.
fn read_lab(text: &str, n: usize) -> ChunkResult<(BTreeMap<String, Vec<StateId>>, usize)> {
    let mut lines = DataLines::of(text);
    let Some(first) = lines.next() else {
        let message = "no label declarations `0=\"init\" 1=\"goal\" ...`";
        return Err(ChunkError::at(lines.last_line(), 1, message));
    };
    // Declarations: `i="name"` separated by white space.
    let mut names: Vec<String> = Vec::new();
    let mut rest = first.text.trim_start();
    while !rest.is_empty() {
        let at = |message: String| ChunkError::at(first.number, column_of(first.text, rest), message);
        let bad = || {
            let found = quote(rest.split_whitespace().next().unwrap_or(rest));
            at(format!(
                "expected a label declaration `{}=\"name\"`, found {found}",
                names.len()
            ))
        };
        let Some((index, after)) = rest.split_once("=\"") else {
            return Err(bad());
        };
        if index.parse::<usize>().ok() != Some(names.len()) {
            return Err(bad());
        }
        let Some(end) = after.find('"') else {
            return Err(at("closing `\"` missing".into()));
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err(at("empty label name".into()));
        }
        if names.iter().any(|x| x == name) {
            return Err(at(format!("label {} is declared twice", quote(name))));
        }
        names.push(name.to_string());
        rest = after[end + 1..].trim_start();
    }
    let mut sets: Vec<Vec<StateId>> = vec![Vec::new(); names.len()];
    for line in lines {
        let at =
            |part: &str, message: String| ChunkError::at(line.number, column_of(line.text, part), message);
        let Some((s, indices)) = line.text.split_once(':') else {
            let found = quote(line.text.trim());
            return Err(ChunkError::at(
                line.number,
                1,
                format!("expected `state: label label ...`, found {found}"),
            ));
        };
        let s = s.trim();
        let Some(state) = s.parse::<StateId>().ok().filter(|&s| (s as usize) < n) else {
            return Err(at(
                s,
                format!("{} is not a state of the model (0 to {})", quote(s), n - 1),
            ));
        };
        for index in indices.split_whitespace() {
            let Some(i) = index.parse::<usize>().ok().filter(|&i| i < names.len()) else {
                let last = names.len() as i64 - 1;
                return Err(at(
                    index,
                    format!("{} is not a declared label index (0 to {last})", quote(index)),
                ));
            };
            sets[i].push(state);
        }
    }
    Ok((names.into_iter().zip(sets).collect(), first.number))
}

/// The reward structure's name from a reward file's leading comments, and whether they say
/// `# State rewards` (`Some(true)`) or `# Transition rewards` (`Some(false)`).
fn reward_header(comments: &[(usize, &str)]) -> ChunkResult<(Option<String>, Option<bool>)> {
    let mut name = None;
    let mut kind = None;
    for &(number, c) in comments {
        if let Some(rest) = c.strip_prefix("# Reward structure") {
            let rest = rest.trim_start_matches(':').trim();
            if rest.is_empty() {
                continue;
            }
            let Some(inner) = rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
                let message = format!("expected `# Reward structure \"name\"`, found {}", quote(c));
                return Err(ChunkError::at(number, 1, message));
            };
            if name.is_some() {
                return Err(ChunkError::at(number, 1, "the reward structure is named twice"));
            }
            name = Some(inner.to_string());
        } else if c.starts_with("# State rewards") {
            kind = Some(true);
        } else if c.starts_with("# Transition rewards") {
            kind = Some(false);
        }
    }
    Ok((name, kind))
}

/// The header line of a reward file (`state`: a `.srew` file) of the model `tra`: the number of
/// its tokens and the number of entries it announces.
fn reward_counts(header: &Line, tra: &Tra, state: bool) -> ChunkResult<(usize, usize)> {
    let (layout, len) = match (state, tra.is_mdp) {
        (true, _) => ("a header `states entries`", 2),
        (false, true) => ("a header `states choices entries` (the model is an MDP)", 3),
        (false, false) => ("a header `states entries` (the model is a DTMC)", 2),
    };
    header.expect_tokens(&[len], layout)?;
    let (n, n_file): (usize, usize) = (tra.n, header.int(0, "the number of states")?);
    if n_file != n {
        return Err(header.error(0, format!("the file is for {n_file} states; the model has {n}")));
    }
    let rows = tra.matrix.nrows();
    if len == 3 {
        let c: usize = header.int(1, "the number of choices")?;
        if c != rows {
            return Err(header.error(1, format!("the file is for {c} choices; the model has {rows}")));
        }
    }
    Ok((len, header.int(len - 1, "the number of entries")?))
}

/// Rewards from a `.srew` file (`state`: a state reward per state) or a `.trew` file (a DTMC's
/// reward per transition, aligned with the matrix's entries, or an MDP's per choice): the name in
/// its header and the rewards (`None` without entries). The lines after the header are parsed in
/// pieces of about `piece` bytes in parallel; errors are those of reading them in file order.
fn read_rewards(
    path: &Path,
    text: &str,
    tra: &Tra,
    state: bool,
    piece: usize,
) -> Result<(Option<String>, Option<Vec<f64>>)> {
    let here = |e: ChunkError| e.into_error(path, 0, 0);
    let mut lines = DataLines::of(text);
    let first = lines.next();
    let (name, kind) = reward_header(&lines.comments).map_err(here)?;
    if kind == Some(!state) {
        let message = if state {
            "this is a transition rewards file, not state rewards"
        } else {
            "this is a state rewards file, not transition rewards"
        };
        return Err(parse_error(path, 1, 1, message));
    }
    let Some(header) = first else {
        let message = if state {
            "the file has no header line `states entries`"
        } else {
            "the file has no header line"
        };
        return Err(parse_error(path, lines.last_line(), 1, message));
    };
    let (header_len, k) = reward_counts(&header, tra, state).map_err(here)?;
    let slots = match (state, tra.is_mdp) {
        (true, _) => tra.n,
        (false, true) => tra.matrix.nrows(),
        (false, false) => tra.matrix.nnz(),
    };
    // A data line's slot and reward: plain numbers read fast, any other form in general.
    let ints = if state { 1 } else { header_len };
    let entry = |number: usize, text: &str| {
        let fast = plain_line(text, ints).and_then(|(v, r)| Some((reward_slot(tra, state, v)?, r)));
        fast.map_or_else(|| reward_entry(&Line::of(number, text), tra, state), Ok)
    };
    // Pieces of lines in parallel, each up to its first malformed line; then, in file order, the
    // entries (a slot given twice is refused) and the first malformed line.
    let rest = lines.lines.rest();
    let cuts = plan_cuts(rest.as_bytes(), true, piece, piece, line_start_from);
    type Piece = (Vec<(usize, f64, usize)>, Option<ChunkError>, usize);
    let parsed: Vec<Piece> = (cuts.par_windows(2))
        .map(|w| {
            let (piece, mut out) = (&rest[w[0]..w[1]], Vec::new());
            for (number, text) in TextLines::at(piece, 0, 0) {
                let t = text.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                match entry(number, text) {
                    Ok((slot, r)) => out.push((slot, r, number)),
                    Err(e) => return (out, Some(e), 0),
                }
            }
            (out, None, count_newlines(piece.as_bytes()))
        })
        .collect();
    let mut values = vec![0.0; slots];
    let mut seen = vec![false; slots];
    let (mut count, mut before) = (0, lines.lines.number);
    for (entries, stop, newlines) in parsed {
        for (slot, r, local) in entries {
            // A second reward for a state or transition, or (MDP) a different one for a choice.
            if std::mem::replace(&mut seen[slot], true) && (state || !tra.is_mdp || values[slot] != r) {
                let line = DataLines::of(text).find(|l| l.number == before + local);
                let line = line.expect("the entry's line");
                let mut data = DataLines::of(text).skip(1);
                let first = data.find(|l| entry(l.number, l.text).is_ok_and(|e| e.0 == slot));
                let first = first.map_or(0, |l| l.number);
                return Err(here(match (state, tra.is_mdp) {
                    (true, _) => line.error(0, format!("state {slot} has a reward already (line {first})")),
                    (false, true) => line.error(
                        3,
                        format!(
                            "reward {} differs from {} on line {first} for the same choice; an MDP's transition rewards belong to the choice",
                            number(r, Form::Text),
                            number(values[slot], Form::Text),
                        ),
                    ),
                    (false, false) => line.error(0, format!("this transition has a reward already (line {first})")),
                }));
            }
            values[slot] = r;
            count += 1;
        }
        if let Some(e) = stop {
            return Err(e.into_error(path, before, 0));
        }
        before += newlines;
    }
    if count != k {
        let message = format!("the header announces {k} entries but the file has {count}");
        return Err(here(header.error(header_len - 1, message)));
    }
    Ok((name, (k > 0).then_some(values)))
}

/// A reward line of any form (see [`read_rewards`]): where its reward goes (the state; the
/// choice's row for an MDP; the transition's index in the matrix for a DTMC) and the reward.
fn reward_entry(line: &Line, tra: &Tra, state: bool) -> ChunkResult<(usize, f64)> {
    let (ints, layout) = match (state, tra.is_mdp) {
        (true, _) => (1, "`state reward`"),
        (false, true) => (3, "`state choice target reward`"),
        (false, false) => (2, "`state target reward`"),
    };
    line.expect_tokens(&[ints + 1], layout)?;
    let s: StateId = line.int(0, "a state number")?;
    let s = state_slot(tra, s).map_err(|m| line.error(0, m))?;
    if state {
        return Ok((s, line.number(1, "a reward")?));
    }
    let row = match tra.is_mdp {
        true => choice_row(tra, s, line.int(1, "a choice number")?).map_err(|m| line.error(1, m))?,
        false => s,
    };
    let t: StateId = line.int(ints - 1, "a target state number")?;
    let r = line.number(ints, "a reward")?;
    Ok((
        transition_slot(tra, row, t).map_err(|m| line.error(ints - 1, m))?,
        r,
    ))
}

/// Where the reward of a reward line of plain numbers `v` goes (see [`reward_entry`]); `None` if
/// the line is refused.
fn reward_slot(tra: &Tra, state: bool, v: [u32; 3]) -> Option<usize> {
    let s = state_slot(tra, v[0]).ok()?;
    match (state, tra.is_mdp) {
        (true, _) => Some(s),
        (false, true) => transition_slot(tra, choice_row(tra, s, v[1] as usize).ok()?, v[2]).ok(),
        (false, false) => transition_slot(tra, s, v[1]).ok(),
    }
}

/// State `s` of `tra`, or why there is none.
fn state_slot(tra: &Tra, s: StateId) -> std::result::Result<usize, String> {
    let n = tra.n;
    ((s as usize) < n)
        .then_some(s as usize)
        .ok_or_else(|| format!("state {s} does not exist: the model has {n} states"))
}

/// The row of choice `a` of state `s` of the MDP `tra`, or why there is none.
fn choice_row(tra: &Tra, s: usize, a: usize) -> std::result::Result<usize, String> {
    let rows = tra.matrix.group_rows(s);
    match a < rows.len() {
        true => Ok(rows.start + a),
        false => Err(format!(
            "state {s} has {} choice(s); there is no choice {a}",
            rows.len()
        )),
    }
}

/// Where the reward of the transition of `row` to `t` goes: the row for an MDP (PRISM's rewards
/// belong to the choice), the transition's index in the matrix for a DTMC; or why there is none.
fn transition_slot(tra: &Tra, row: usize, t: StateId) -> std::result::Result<usize, String> {
    let (row_ptr, cols, _) = tra.matrix.as_parts();
    match cols[row_ptr[row]..row_ptr[row + 1]].binary_search(&t) {
        Ok(pos) => Ok(if tra.is_mdp { row } else { row_ptr[row] + pos }),
        Err(_) => Err(format!(
            "the .tra file has no transition to {t} here, so it cannot carry a reward"
        )),
    }
}

/// A line of plain numbers: `ints` integers (at most 3, each a `u32` of plain digits) and a plain
/// decimal, separated by blanks; `None` for any other line (the general path reads it).
fn plain_line(text: &str, ints: usize) -> Option<([u32; 3], f64)> {
    let b = text.as_bytes();
    let mut out = [0u32; 3];
    let mut i = skip_blanks(b, 0);
    for slot in out.iter_mut().take(ints) {
        let (v, j) = digits_u32(b, i)?;
        *slot = v;
        i = skip_blanks(b, j);
        if i == j {
            return None;
        }
    }
    let (r, j) = plain_number(text, i)?;
    (skip_blanks(b, j) == b.len()).then_some((out, r))
}

/// `x.ext` if it exists, else `x1.ext`, `x2.ext`, ... as long as they exist (PRISM's convention);
/// whether the files are numbered.
fn companions(path: &Path, ext: &str) -> (Vec<PathBuf>, bool) {
    let single = path.with_extension(ext);
    if single.is_file() {
        return (vec![single], false);
    }
    let numbered = (1..).map(|i| path.with_file_name(format!("{}{i}.{ext}", stem(path))));
    (numbered.take_while(|f| f.is_file()).collect(), true)
}

/// The file name of `path` without its extension.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads the `.tra` file `path` and the `.lab`, `.srew`, `.trew` files of the same stem beside it;
/// returns the model, every file read, and notes for the user. The transitions are read in chunks;
/// if they are not grouped by source state, from the whole text again, sorted.
pub(crate) fn read(path: &Path, options: &ReadOptions) -> Result<(Model, Vec<PathBuf>, Vec<String>)> {
    let (file, size) = super::open(path)?;
    let tra = match super::tra::read_from(path, file, Some(size), options.normalize, Tuning::FILES)? {
        Some(tra) => tra,
        None => super::tra::read_any_order(path, &read_text(path)?, options.normalize)?,
    };
    with_companions(path, tra, true)
}

/// The model of the `.tra` text `text` alone (read from a stream: no `.lab`, `.srew`, `.trew`
/// files, so state 0 is the initial state unless `- s -` lines say otherwise); with notes.
pub(super) fn read_tra_text(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let size = Some(text.len() as u64);
    let tra = match super::tra::read_from(path, text.as_bytes(), size, options.normalize, Tuning::FILES)? {
        Some(tra) => tra,
        None => super::tra::read_any_order(path, text, options.normalize)?,
    };
    with_companions(path, tra, false).map(|(model, _, notes)| (model, notes))
}

/// The model of `tra`, read from `path`, with the labels and rewards of the `.lab`, `.srew` and
/// `.trew` files beside it when `companions` (none otherwise).
fn with_companions(
    path: &Path,
    tra: Tra,
    companions_too: bool,
) -> Result<(Model, Vec<PathBuf>, Vec<String>)> {
    let n = tra.n;
    let mut files = vec![path.to_path_buf()];
    let mut notes = tra.notes.clone();
    let lab_path = path.with_extension("lab");
    let mut labels = BTreeMap::new();
    let mut initial = tra.initial.clone();
    if companions_too && lab_path.is_file() {
        let lab = read_lab(&read_text(&lab_path)?, n).map_err(|e| e.into_error(&lab_path, 0, 0));
        let (lab, decl_line) = lab?;
        notes.push(format!("read the labels from {}", lab_path.display()));
        let mut init: Vec<StateId> = lab.get("init").cloned().unwrap_or_default();
        init.sort_unstable();
        init.dedup();
        let refuse = |message: String| Err(parse_error(&lab_path, decl_line, 1, message));
        match (init.is_empty(), initial.is_empty()) {
            (true, true) => return refuse("no initial state: no state has the label \"init\"".into()),
            (false, false) if init != initial => {
                return refuse(format!(
                    "the initial states of the label \"init\" differ from those of the `- s -` lines of {}",
                    path.display()
                ));
            }
            (false, true) => initial = init,
            _ => {}
        }
        labels = lab;
        files.push(lab_path);
    } else if initial.is_empty() {
        initial = vec![0];
        notes.push(if companions_too {
            format!(
                "no {} beside the model: state 0 is the initial state (PRISM's default)",
                lab_path.display()
            )
        } else {
            "no labels with a .tra read from a stream: state 0 is the initial state (PRISM's default)".into()
        });
    }
    let ((srew, srew_numbered), (trew, trew_numbered)) = match companions_too {
        true => (companions(path, "srew"), companions(path, "trew")),
        false => Default::default(),
    };
    let count = srew.len().max(trew.len());
    let mut rewards: BTreeMap<String, RewardModel> = BTreeMap::new();
    for i in 0..count {
        let mut model = RewardModel::default();
        let mut name: Option<(String, &PathBuf)> = None;
        for (f, state) in [(srew.get(i), true), (trew.get(i), false)] {
            let Some(f) = f else { continue };
            let (nm, part) = read_rewards(f, &read_text(f)?, &tra, state, Tuning::FILES.chunk)?;
            match (state, tra.is_mdp) {
                (true, _) => model.state = part,
                (false, true) => model.action = part,
                (false, false) => model.transition = part,
            }
            match (&name, nm) {
                (Some((a, other)), Some(b)) if *a != b => {
                    let message = format!(
                        "reward structure {b:?} here but {a:?} in {}, which pairs with this file",
                        other.display()
                    );
                    return Err(parse_error(f, 1, 1, message));
                }
                (None, Some(b)) => name = Some((b, f)),
                _ => {}
            }
            files.push(f.clone());
        }
        let numbered = (srew_numbered && i < srew.len()) || (trew_numbered && i >= srew.len());
        let name = match name {
            Some((name, _)) => name,
            None if numbered => format!("r{}", i + 1),
            None => "default".to_string(),
        };
        if model.is_empty() {
            model.state = Some(vec![0.0; n]);
        }
        let what: Vec<String> = [srew.get(i), trew.get(i)]
            .into_iter()
            .flatten()
            .map(|f| f.display().to_string())
            .collect();
        if rewards.insert(name.clone(), model).is_some() {
            let file = trew.get(i).or(srew.get(i)).map_or(path, |f| f.as_path());
            let message = format!("a second reward structure named {name:?}");
            return Err(parse_error(file, 1, 1, message));
        }
        notes.push(format!(
            "read the reward model {name:?} from {}",
            what.join(" and ")
        ));
    }
    let (matrix, names) = (tra.matrix, tra.action_names);
    let labels = labels
        .into_iter()
        .map(|(label, states)| (label, StateSet::from_states(n, states)));
    let model = super::assemble(tra.is_mdp, matrix, initial, labels, None, rewards, names)?;
    Ok((model, files, notes))
}

/// Refuses action names PRISM's `.tra` format cannot hold.
fn check_action_names(v: &View<'_>) -> Result<()> {
    if let Some(names) = v.action_names
        && let Some(bad) = names.iter().find(|a| a.contains(char::is_whitespace))
    {
        return Err(Error::arg(
            "action name",
            format!("{bad:?}: a PRISM action label cannot hold white space"),
        ));
    }
    Ok(())
}

/// Writes the `.tra` text of `model` alone to `w` (see [`write`] for the files with labels and
/// rewards).
pub(super) fn write_tra(model: &Model, w: &mut dyn Write) -> Result<()> {
    let v = View::of(model);
    check_action_names(&v)?;
    write_entries(w, &v, v.matrix.as_parts().2, true).map_err(io_error(Path::new("(output)")))
}

/// A `.tra` file (`tra`: every transition of `v`, with its value in `values` and its action) or a
/// `.trew` file's body (the transitions whose value in `values`, one per stored transition, is not
/// 0): the header line `n [choices] count`, then a line `s [k] t value [action]` per transition (the
/// choice `k` for an MDP).
fn write_entries(w: &mut dyn Write, v: &View<'_>, values: &[f64], tra: bool) -> std::io::Result<()> {
    let matrix = v.matrix;
    let (n, (row_ptr, cols, _)) = (matrix.row_groups(), matrix.as_parts());
    let count = values.iter().filter(|&&x| tra || x != 0.0).count();
    if v.is_mdp {
        writeln!(w, "{n} {} {count}", matrix.nrows())?;
    } else {
        writeln!(w, "{n} {count}")?;
    }
    if values.is_empty() {
        return Ok(());
    }
    write_states(w, n, |states, out, numbers| {
        for s in states {
            for (k, row) in matrix.group_rows(s).enumerate() {
                let action = v.action_names.filter(|_| tra).map(|a| a[row].as_str());
                let action = action.filter(|a| !a.is_empty());
                for i in (row_ptr[row]..row_ptr[row + 1]).filter(|&i| tra || values[i] != 0.0) {
                    push_uint(out, s as u64);
                    out.push(' ');
                    if v.is_mdp {
                        push_uint(out, k as u64);
                        out.push(' ');
                    }
                    push_uint(out, u64::from(cols[i]));
                    out.push(' ');
                    numbers.push(out, values[i]);
                    if let Some(a) = action {
                        out.push(' ');
                        out.push_str(a);
                    }
                    out.push('\n');
                }
            }
        }
    })
}

/// Creates `path` and fills it with `body`.
fn write_file(path: &Path, body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<PathBuf> {
    let io_error = io_error(path);
    let file = std::fs::File::create(path).map_err(io_error)?;
    let mut w = std::io::BufWriter::new(file);
    body(&mut w).map_err(io_error)?;
    w.flush().map_err(io_error)?;
    Ok(path.to_path_buf())
}

/// Writes `path` (`.tra`) and the `.lab`, `.srew`, `.trew` files the model needs; returns them.
/// See the module docs for the files, their names and how action rewards are folded.
pub(crate) fn write(model: &Model, path: &Path) -> Result<Vec<PathBuf>> {
    let v = View::of(model);
    let matrix = v.matrix;
    let n = matrix.row_groups();
    let (row_ptr, _, _) = matrix.as_parts();
    if let Some(label) = v
        .labels
        .keys()
        .find(|l| l.is_empty() || l.contains(['"', '\n', '\r']))
    {
        let message = format!("{label:?}: a PRISM label cannot be empty or hold `\"` or a line break");
        return Err(Error::arg("label", message));
    }
    if let Some(name) = v.rewards.keys().find(|r| r.contains(['"', '\n', '\r'])) {
        let message = format!("{name:?}: a PRISM reward structure name cannot hold `\"` or a line break");
        return Err(Error::arg("reward model", message));
    }
    check_action_names(&v)?;
    let mut files = Vec::new();
    files.push(write_file(path, |w| {
        write_entries(w, &v, matrix.as_parts().2, true)
    })?);
    // Labels: `init` (the initial states) first, then the others by name.
    let init = StateSet::from_states(n, v.initial.iter().copied());
    let mut labels: Vec<(&str, &StateSet)> = vec![("init", &init)];
    labels.extend(
        v.labels
            .iter()
            .filter(|(k, _)| k.as_str() != "init")
            .map(|(k, s)| (k.as_str(), s)),
    );
    files.push(write_file(&path.with_extension("lab"), |w| {
        let decl: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, (name, _))| format!("{i}=\"{name}\""))
            .collect();
        writeln!(w, "{}", decl.join(" "))?;
        write_states(w, n, |states, out, _| {
            for s in states {
                let mut ids = (0..labels.len())
                    .filter(|&i| labels[i].1.contains(s as StateId))
                    .peekable();
                if ids.peek().is_some() {
                    push_uint(out, s as u64);
                    out.push(':');
                    for i in ids {
                        out.push(' ');
                        push_uint(out, i as u64);
                    }
                    out.push('\n');
                }
            }
        })
    })?);
    let several = v.rewards.len() > 1;
    let stem = stem(path);
    for (i, (name, r)) in v.rewards.iter().enumerate() {
        let file = |ext: &str| {
            if several {
                path.with_file_name(format!("{stem}{}.{ext}", i + 1))
            } else {
                path.with_extension(ext)
            }
        };
        if several || r.state.is_some() {
            let state = r.state.as_deref();
            files.push(write_file(&file("srew"), |w| {
                writeln!(w, "# Reward structure \"{name}\"\n# State rewards")?;
                let nonzero = state.map_or(0, |s| s.iter().filter(|&&x| x != 0.0).count());
                writeln!(w, "{n} {nonzero}")?;
                let state = state.unwrap_or(&[]);
                write_states(w, state.len(), |states, out, numbers| {
                    for s in states {
                        if state[s] != 0.0 {
                            push_uint(out, s as u64);
                            out.push(' ');
                            numbers.push(out, state[s]);
                            out.push('\n');
                        }
                    }
                })
            })?);
        }
        let has_transition_part = r.action.is_some() || r.transition.is_some();
        if several || has_transition_part {
            // One value per stored transition: a DTMC's transition reward plus its state's action
            // reward, or an MDP choice's folded reward repeated on each of its transitions.
            let per_entry = if !has_transition_part {
                Vec::new()
            } else if v.is_mdp {
                let per_choice = folded_action_rewards(r, matrix).expect("a part is present");
                let mut out = vec![0.0; matrix.nnz()];
                for (row, &c) in per_choice.iter().enumerate() {
                    out[row_ptr[row]..row_ptr[row + 1]].fill(c);
                }
                out
            } else {
                let mut out = r.transition.clone().unwrap_or_else(|| vec![0.0; matrix.nnz()]);
                for (row, &x) in r.action.iter().flatten().enumerate() {
                    let entries = row_ptr[row]..row_ptr[row + 1];
                    out[entries].iter_mut().for_each(|t| *t += x);
                }
                out
            };
            files.push(write_file(&file("trew"), |w| {
                writeln!(w, "# Reward structure \"{name}\"\n# Transition rewards")?;
                write_entries(w, &v, &per_entry, false)
            })?);
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary directory.
    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "kolmo-prism-{name}-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn put(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir.join(files[0].0)
    }

    fn read_dir(dir: &Path, files: &[(&str, &str)]) -> Result<(Model, Vec<PathBuf>, Vec<String>)> {
        read(&put(dir, files), &ReadOptions::default())
    }

    #[test]
    fn reads_the_manual_examples() {
        let dir = temp_dir("manual");
        let (model, files, notes) = read_dir(
            &dir,
            &[
                (
                    "lec3.tra",
                    "6 9\n0 1 0.5\n0 3 0.5\n1 0 0.5\n1 2 0.25\n1 4 0.25\n2 5 1\n3 3 1\n4 4 1\n5 2 1\n",
                ),
                ("lec3.lab", "0=\"init\" 1=\"deadlock\" 2=\"heads\"\n0: 0\n2: 2\n"),
                (
                    "lec3.srew",
                    "# Reward structure \"r\"\n# State rewards\n6 3\n0 2\n4 1\n5 1\n",
                ),
                (
                    "lec3.trew",
                    "# Reward structure: \"r\"\n# Transition rewards\n6 4\n1 0 1\n1 2 1\n1 4 1\n2 5 2\n",
                ),
            ],
        )
        .unwrap();
        assert_eq!(files.len(), 4, "{files:?}");
        assert_eq!(notes.len(), 2, "{notes:?}");
        let Model::Dtmc(d) = model else { panic!() };
        assert_eq!(d.initial(), &[0]);
        assert_eq!(d.label("heads").unwrap().to_vec(), vec![2]);
        let r = &d.reward_models()["r"];
        assert_eq!(r.state.as_deref(), Some(&[2.0, 0.0, 0.0, 0.0, 1.0, 1.0][..]));
        assert_eq!(r.transition.as_ref().unwrap()[2..5], [1.0, 1.0, 1.0]);
        let (model, _, _) = read_dir(
            &dir,
            &[
                ("mdp.tra", "4 5 7\n0 0 1 1 a\n1 0 2 0.5 c\n1 0 3 0.5 c\n1 1 0 0.7 b\n1 1 1 0.3 b\n2 0 2 1 a\n3 0 3 1 a\n"),
                ("mdp.trew", "4 5 4\n1 0 2 6\n1 0 3 6\n1 1 0 5\n1 1 1 5\n"),
            ],
        )
        .unwrap();
        let Model::Mdp(m) = model else { panic!() };
        assert_eq!(m.action_names().unwrap(), &["a", "c", "b", "a", "a"]);
        assert_eq!(m.initial(), &[0]);
        assert_eq!(
            m.reward_models()["default"].action.as_deref(),
            Some(&[0.0, 6.0, 5.0, 0.0, 0.0][..])
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let dir = temp_dir("errors");
        let tra = "2 2\n0 1 1\n1 1 1\n";
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("a.tra", "2\n")], "a.tra:1:1: expected a header"),
            (
                &[("a.tra", "2 3 4 5\n")],
                "a.tra:1:7: four numbers in the header mean a POMDP",
            ),
            (
                &[("a.tra", "# Transitions (CTMC)\n2 2\n")],
                "a.tra:1:1: model type CTMC",
            ),
            (
                &[("a.tra", "x 2\n")],
                "a.tra:1:1: expected the number of states, found `x`",
            ),
            (&[("a.tra", "0 0\n")], "a.tra:1:1: the model has no states"),
            (&[("a.tra", "99999999999 1\n")], "more than kolmo's limit"),
            (
                &[("a.tra", "2 3\n0 1 1\n1 1 1\n")],
                "a.tra:1:3: the header announces 3 transitions but the file has 2",
            ),
            (
                &[("a.tra", "2 2\n0 1 1\n1 1\n")],
                "a.tra:3:1: expected `state target probability [action]`, found 2",
            ),
            (
                &[("a.tra", "2 2\n0 1 nan\n1 1 1\n")],
                "a.tra:2:5: expected a probability, found `nan`",
            ),
            (&[("a.tra", "2 2\n0 1 -1\n1 1 1\n")], "a.tra:2:1: probability -1"),
            (
                &[("a.tra", "2 2\n0 5 1\n1 1 1\n")],
                "a.tra:2:1: target state 5 does not exist",
            ),
            (&[("a.tra", "2 2\n0 1 0.5\n1 1 1\n")], "sum to 0.5"),
            (&[("a.tra", "2 2\n0 1 1\n0 1 1\n")], "given twice"),
            (
                &[("a.tra", "2 3 2\n0 0 1 1 a\n1 0 1 1 b\n")],
                "a.tra:1:3: the header announces 3 choices but the file has 2",
            ),
            (
                &[("a.tra", "2 2 3\n0 0 1 0.5 a\n0 0 0 0.5 b\n1 0 1 1\n")],
                "a.tra:3:11: choice 0 of state 0 has action `b`",
            ),
            (
                &[("a.tra", tra), ("a.lab", "0=\"goal\"\n1: 0\n")],
                "a.lab:1:1: no initial state",
            ),
            (
                &[("a.tra", tra), ("a.lab", "0=\"init\" 2=\"x\"\n")],
                "a.lab:1:10: expected a label declaration `1=\"name\"`",
            ),
            (
                &[("a.tra", tra), ("a.lab", "0=\"init\"\n0: 3\n")],
                "a.lab:2:4: `3` is not a declared label index",
            ),
            (
                &[("a.tra", tra), ("a.lab", "0=\"init\"\n7: 0\n")],
                "a.lab:2:1: `7` is not a state",
            ),
            (
                &[("a.tra", tra), ("a.srew", "2 1\n0 x\n")],
                "a.srew:2:3: expected a reward, found `x`",
            ),
            (
                &[("a.tra", tra), ("a.srew", "3 0\n")],
                "a.srew:1:1: the file is for 3 states",
            ),
            (
                &[("a.tra", tra), ("a.srew", "2 2\n0 1\n")],
                "a.srew:1:3: the header announces 2 entries but the file has 1",
            ),
            (
                &[("a.tra", tra), ("a.srew", "2 2\n0 1\n0 2\n")],
                "a.srew:3:1: state 0 has a reward already (line 2)",
            ),
            (
                &[("a.tra", tra), ("a.trew", "2 1\n0 0 1\n")],
                "a.trew:2:3: the .tra file has no transition to 0 here",
            ),
            (
                &[("a.tra", tra), ("a.trew", "2 1 1\n0 1 1\n")],
                "a.trew:1:1: expected a header `states entries`",
            ),
            (
                &[
                    ("a.tra", "2 2 3\n0 0 1 0.5\n0 0 0 0.5\n1 0 1 1\n"),
                    ("a.trew", "2 2 2\n0 0 1 1\n0 0 0 2\n"),
                ],
                "a.trew:3:7: reward 2 differs from 1 on line 2",
            ),
            (
                &[
                    ("a.tra", tra),
                    ("a.srew", "# Reward structure \"x\"\n2 0\n"),
                    ("a.trew", "# Reward structure \"y\"\n2 0\n"),
                ],
                "a.trew:1:1: reward structure \"y\" here but \"x\"",
            ),
            (&[("a.tra", "")], "a.tra:1:1: the file is empty"),
        ];
        for (i, (files, expected)) in cases.iter().enumerate() {
            let sub = dir.join(i.to_string());
            std::fs::create_dir_all(&sub).unwrap();
            let e = match read_dir(&sub, files) {
                Ok(_) => panic!("case {i}: no error, expected {expected}"),
                Err(e) => e.to_string(),
            };
            let e = e.replace(&format!("{}/", sub.display()), "");
            assert!(e.contains(expected), "case {i}:\n got: {e}\nwant: {expected}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reward_files_read_the_same_in_any_pieces() {
        let path = Path::new("r.x");
        let dtmc =
            super::super::tra::read_any_order(path, "3 4\n0 1 1\n1 0 0.5\n1 2 0.5\n2 2 1\n", false).unwrap();
        let mdp =
            super::super::tra::read_any_order(path, "2 3 3\n0 0 1 1\n0 1 0 1\n1 0 1 1\n", false).unwrap();
        let cases: &[(&Tra, bool, &str)] = &[
            (&dtmc, true, "3 3\n0 1\n# c\n2 2.5\n1 1/2\n"),
            (&dtmc, true, "3 3\n0 1\n2 2.5\n\n0 7\n"),
            (&dtmc, true, "3 3\n0 1\n2 x\n0 7\n"),
            (&dtmc, false, "3 3\n1 0 1\n1 2 2\n2 2 3\n"),
            (&dtmc, false, "3 3\n1 0 1\n2 2 3\n1 0 2\n"),
            (&dtmc, false, "3 2\n1 1 1\n"),
            (&mdp, false, "2 3 3\n0 1 0 2\n0 0 1 1\n0 1 0 2\n"),
            (&mdp, false, "2 3 3\n0 1 0 2\n0 0 1 1\n0 1 0 3\n"),
        ];
        for (tra, state, text) in cases {
            let whole = read_rewards(path, text, tra, *state, 1 << 20).map_err(|e| e.to_string());
            for piece in [1, 2, 5] {
                let got = read_rewards(path, text, tra, *state, piece).map_err(|e| e.to_string());
                assert_eq!(got, whole, "{text:?} in pieces of {piece}");
            }
        }
        let e = read_rewards(path, cases[1].2, &dtmc, true, 1)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "r.x:5:1: state 0 has a reward already (line 2)");
        let e = read_rewards(path, cases[4].2, &dtmc, false, 1)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "r.x:4:1: this transition has a reward already (line 2)");
        let e = read_rewards(path, cases[7].2, &mdp, false, 2)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("r.x:4:7: reward 3 differs from 2 on line 2"), "{e}");
    }

    #[test]
    fn no_lab_means_state_zero_and_crlf_bom_comments_are_fine() {
        let dir = temp_dir("nolab");
        let (model, files, notes) = read_dir(
            &dir,
            &[(
                "c.tra",
                "\u{feff}# Transitions (DTMC)\r\n2 2\r\n\r\n# a comment\r\n0 1 1/1\r\n1 1 1 tick\r\n",
            )],
        )
        .unwrap();
        assert_eq!(files.len(), 1);
        assert!(
            notes.iter().any(|n| n.contains("state 0 is the initial state")),
            "{notes:?}"
        );
        assert!(notes.iter().any(|n| n.contains("action labels")), "{notes:?}");
        let Model::Dtmc(d) = model else { panic!() };
        assert_eq!(d.initial(), &[0]);
        let (model, _, _) = read_dir(&dir, &[("i.tra", "2 2\n- 1 -\n0 1 1\n1 1 1\n")]).unwrap();
        let Model::Dtmc(d) = model else { panic!() };
        assert_eq!(d.initial(), &[1]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn garbage_never_panics() {
        let dir = temp_dir("garbage");
        let base = b"3 3 5\n0 0 1 0.5 a\n0 0 2 0.5 a\n0 1 0 1 b\n1 0 1 1\n2 0 2 1\n".to_vec();
        let lab = b"0=\"init\" 1=\"goal\"\n0: 0\n2: 1\n".to_vec();
        let trew = b"3 4 2\n0 0 1 2\n0 0 2 2\n".to_vec();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..600 {
            let mut files = [base.clone(), lab.clone(), trew.clone()];
            let which = round % 3;
            if round < 60 {
                let cut = (next() % files[which].len() as u64) as usize;
                files[which].truncate(cut);
            } else {
                for _ in 0..2 {
                    let f = &mut files[which];
                    let i = (next() % f.len() as u64) as usize;
                    f[i] = (next() >> 40) as u8;
                }
            }
            let p = dir.join("g.tra");
            std::fs::write(&p, &files[0]).unwrap();
            std::fs::write(dir.join("g.lab"), &files[1]).unwrap();
            std::fs::write(dir.join("g.trew"), &files[2]).unwrap();
            let _ = read(&p, &ReadOptions::default());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
