//! Turning the transitions a reader found, in any order, into a validated row-grouped matrix.

use super::parse_error;
use crate::exact::Rational;
use crate::model::ROW_SUM_TOLERANCE;
use crate::numeric::NeumaierSum;
use crate::sparse::{CsrBuilder, CsrMatrix};
use crate::{Result, StateId};
use std::path::Path;

/// One transition as written in a file: `state`'s choice number `choice` (0 for a chain) moves to
/// `target` with probability `value`; `line`/`column` is where it was written (from 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub state: StateId,
    pub choice: u32,
    pub target: StateId,
    pub value: f64,
    pub line: usize,
    pub column: usize,
}

/// The matrix of `n` states from `entries`, sorted into rows (by state, then choice, then target).
///
/// Refuses, as [`crate::Error::Parse`] at the entry's place: a state or target `>= n`, a negative
/// probability, the same transition twice (naming the first line), a state whose choice numbers
/// skip one, and a row whose sum is off 1 by more than [`ROW_SUM_TOLERANCE`] (unless `normalize`:
/// then rows with a positive sum are rescaled and a note says how many and by how much).
/// States without any transition are refused at `end_line` (the line where the file ended or the
/// state's block was).
///
/// Zero probabilities are dropped (not stored). Returns the matrix (one group per state; `n`
/// columns) and the notes.
pub(crate) fn build_matrix(
    path: &Path,
    n: usize,
    entries: Vec<Entry>,
    normalize: bool,
    end_line: impl Fn(StateId) -> usize,
) -> Result<(CsrMatrix, Vec<String>)> {
    build_matrix_written(path, n, entries, None, normalize, end_line).map(|(m, _, notes)| (m, notes))
}

/// [`build_matrix`] that also keeps the probabilities as written: `written[i]` is the exact value
/// of `entries[i]`. Returns them aligned with the matrix's stored entries (zeros dropped, rows
/// rescaled exactly where `normalize` rescales them).
pub(crate) fn build_matrix_written(
    path: &Path,
    n: usize,
    mut entries: Vec<Entry>,
    written: Option<Vec<Rational>>,
    normalize: bool,
    end_line: impl Fn(StateId) -> usize,
) -> Result<(CsrMatrix, Option<Vec<Rational>>, Vec<String>)> {
    let at = |line: usize, column: usize, message: String| parse_error(path, line, column, message);
    for e in &entries {
        if let Some(message) = entry_fault(n, Some(e.state), e.target, e.value) {
            return Err(at(e.line, e.column, message));
        }
    }
    // A stable sort keeps the file order among equal keys, so the first line of a duplicate is
    // the earlier one.
    let key = |e: &Entry| (e.state, e.choice, e.target);
    let mut written = match written {
        None => {
            entries.sort_by_key(key);
            None
        }
        Some(values) => {
            assert!(values.len() == entries.len(), "one written value per entry");
            let mut pairs: Vec<(Entry, Rational)> = entries.into_iter().zip(values).collect();
            pairs.sort_by_key(|(e, _)| key(e));
            let values: Vec<Rational>;
            (entries, values) = pairs.into_iter().unzip();
            Some(values)
        }
    };
    let mut notes = Vec::new();
    // A number too small for floating point read as 0 is lost from the stored model: its value
    // as written cannot stand beside it.
    if written.as_ref().is_some_and(|w| {
        entries
            .iter()
            .zip(w)
            .any(|(e, x)| e.value == 0.0 && *x != Rational::ZERO)
    }) {
        written = None;
        notes.push(UNDERFLOW_NOTE.to_string());
    }
    let mut kept = written
        .as_ref()
        .map(|w: &Vec<Rational>| Vec::with_capacity(w.len()));
    if let Some(w) = entries.windows(2).find(|w| key(&w[0]) == key(&w[1])) {
        let message = duplicate_message(w[1].state, w[1].target, w[1].choice, w[0].line);
        return Err(at(w[1].line, w[1].column, message));
    }
    let mut builder = CsrBuilder::new(n);
    let (mut rescaled, mut worst) = (0usize, 0.0f64);
    let mut i = 0;
    for state in 0..n as StateId {
        builder.new_row_group();
        if i >= entries.len() || entries[i].state != state {
            return Err(at(end_line(state), 1, no_transitions_message(state)));
        }
        let mut expected_choice = 0;
        while i < entries.len() && entries[i].state == state {
            let choice = entries[i].choice;
            let first = entries[i];
            if choice != expected_choice {
                return Err(at(
                    first.line,
                    first.column,
                    choice_gap_message(state, choice, expected_choice),
                ));
            }
            let start = i;
            while i < entries.len() && entries[i].state == state && entries[i].choice == choice {
                i += 1;
            }
            let row = &entries[start..i];
            let scale = match row_scale(row.iter().map(|e| e.value), row.len(), normalize) {
                Ok(scale) => scale,
                Err(fault) => {
                    let several = choice > 0 || (i < entries.len() && entries[i].state == state);
                    return Err(at(
                        first.line,
                        first.column,
                        sum_message(state, choice, several, fault),
                    ));
                }
            };
            if let Some(deviation) = scale.deviation {
                rescaled += 1;
                worst = worst.max(deviation);
            }
            // Zero probabilities are not transitions: storing them would give the graph analysis
            // edges that the chain never takes.
            for e in row.iter().filter(|e| e.value > 0.0) {
                builder.add(e.target, e.value * scale.factor);
            }
            if let (Some(all), Some(kept)) = (&mut written, &mut kept) {
                let exact = &mut all[start..i];
                if scale.deviation.is_some() {
                    let sum = exact.iter().fold(Rational::ZERO, |acc, p| acc + p);
                    exact.iter_mut().for_each(|p| *p = &*p / &sum);
                }
                kept.extend(
                    row.iter()
                        .zip(exact)
                        .filter(|(e, _)| e.value > 0.0)
                        .map(|(_, p)| p.clone()),
                );
            }
            builder.finish_row();
            expected_choice += 1;
        }
    }
    if rescaled > 0 {
        notes.push(normalized_note(rescaled, worst));
    }
    Ok((builder.build(), kept, notes))
}

/// Why an entry is refused whatever else the file holds: a state or target `>= n` (the state is
/// not checked when `None`), or a probability that is negative or not finite.
pub(crate) fn entry_fault(n: usize, state: Option<StateId>, target: StateId, value: f64) -> Option<String> {
    for (what, s) in [("state", state), ("target state", Some(target))] {
        if let Some(s) = s
            && s as usize >= n
        {
            return Some(format!(
                "{what} {s} does not exist: the model has {n} states (0 to {})",
                n.saturating_sub(1)
            ));
        }
    }
    (!(value >= 0.0 && value.is_finite())).then(|| format!("probability {value} is not a number in [0, 1]"))
}

/// The note when a probability written too small for floating point (`1e-500`) was read as 0, so
/// the values as written are not kept.
pub(crate) const UNDERFLOW_NOTE: &str = "the probabilities as written could not all be kept, so exact analyses recover fractions from floating point (a number written is too small for floating point and was read as 0)";

/// The message for a transition given twice (`first_line` holds the first).
pub(crate) fn duplicate_message(state: StateId, target: StateId, choice: u32, first_line: usize) -> String {
    format!(
        "transition {state} -> {target}{} is given twice (first on line {first_line}); duplicates are refused, not summed",
        if choice > 0 {
            format!(" (choice {choice})")
        } else {
            String::new()
        },
    )
}

/// The message for a state without any transition.
pub(crate) fn no_transitions_message(state: StateId) -> String {
    format!("state {state} has no outgoing transitions (every state needs a distribution over next states)")
}

/// The message for a choice number that skips one.
pub(crate) fn choice_gap_message(state: StateId, choice: u32, expected: u32) -> String {
    format!(
        "state {state}: choice {choice} follows choice {}; choices are numbered 0, 1, 2, ...",
        i64::from(expected) - 1
    )
}

/// The note that `normalize` rescaled rows.
pub(crate) fn normalized_note(rescaled: usize, worst: f64) -> String {
    format!("normalized {rescaled} row(s) that did not sum to 1 (largest deviation {worst:e})")
}

/// What multiplies a row's values: 1, or `1/sum` with the deviation `|sum - 1|` when `normalize`
/// rescaled it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowScale {
    pub factor: f64,
    pub deviation: Option<f64>,
}

/// Why a row's probabilities are refused.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SumFault {
    /// The sum overflows.
    TooLarge,
    /// `normalize` would divide by a sum whose reciprocal overflows.
    TooSmall,
    /// The sum is off 1 by more than the tolerance (and `normalize` is off or the sum is 0).
    Off(f64),
}

/// Checks the sum of a row's `len` probabilities `values` (taken in ascending target order):
/// compensated, within [`ROW_SUM_TOLERANCE`] plus `ε` per entry of 1, or rescaled when `normalize`
/// and positive.
pub(crate) fn row_scale(
    values: impl Iterator<Item = f64>,
    len: usize,
    normalize: bool,
) -> std::result::Result<RowScale, SumFault> {
    let mut acc = NeumaierSum::default();
    values.for_each(|v| acc.add(v));
    let sum = acc.value();
    if !sum.is_finite() {
        return Err(SumFault::TooLarge);
    }
    if normalize && sum > 0.0 && !(1.0 / sum).is_finite() {
        return Err(SumFault::TooSmall);
    }
    let tolerance = ROW_SUM_TOLERANCE + len as f64 * f64::EPSILON;
    if (sum - 1.0).abs() <= tolerance {
        Ok(RowScale {
            factor: 1.0,
            deviation: None,
        })
    } else if normalize && sum > 0.0 {
        Ok(RowScale {
            factor: 1.0 / sum,
            deviation: Some((sum - 1.0).abs()),
        })
    } else {
        Err(SumFault::Off(sum))
    }
}

/// The message for a row refused by [`row_scale`]; `several` when the state has more than one
/// choice or this is not its first (the message then names the choice).
pub(crate) fn sum_message(state: StateId, choice: u32, several: bool, fault: SumFault) -> String {
    match fault {
        SumFault::TooLarge | SumFault::TooSmall => format!(
            "the probabilities out of state {state} cannot be {}",
            if matches!(fault, SumFault::TooSmall) {
                "rescaled: their sum is too small"
            } else {
                "summed: they are too large"
            }
        ),
        SumFault::Off(sum) => {
            let choice_text = if choice > 0 || several {
                format!(" (choice {choice})")
            } else {
                String::new()
            };
            format!(
                "the probabilities out of state {state}{choice_text} sum to {sum} (off by {:.2e}); rows must sum to 1 within {ROW_SUM_TOLERANCE:e}{}",
                sum - 1.0,
                if sum > 0.0 { " (or ask to normalize)" } else { "" }
            )
        }
    }
}

/// One transition of a row being read in file order, and where it was written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Written {
    pub target: StateId,
    pub value: f64,
    pub line: usize,
    pub column: usize,
}

/// What is wrong with a whole row, in the order [`build_matrix`] looks: a duplicate first, then
/// the sum (at the row's first entry by target).
#[derive(Clone, Copy, Debug)]
pub(crate) enum RowFault {
    /// `second` repeats the target of the entry on `first_line`.
    Duplicate { second: Written, first_line: usize },
    /// The sum is refused.
    Sum { at: Written, fault: SumFault },
}

/// Sorts a complete row by target (stably: repeated targets keep their file order) and checks it
/// as [`build_matrix`] does. On success the row's transitions are its entries with a positive
/// value times the returned factor.
pub(crate) fn check_row(row: &mut [Written], normalize: bool) -> std::result::Result<RowScale, RowFault> {
    if !row.windows(2).all(|w| w[0].target < w[1].target) {
        row.sort_by_key(|w| w.target);
        if let Some(w) = row.windows(2).find(|w| w[0].target == w[1].target) {
            return Err(RowFault::Duplicate {
                second: w[1],
                first_line: w[0].line,
            });
        }
    }
    row_scale(row.iter().map(|w| w.value), row.len(), normalize)
        .map_err(|fault| RowFault::Sum { at: row[0], fault })
}

/// The common end of a chunked reader's row once [`check_row`] accepted it: counts a rescaled row
/// (`rescaled`, largest deviation in `worst`) and, when `build`, appends the positive entries times
/// the scale's factor to the CSR arrays `(cols, vals, row_ends)`.
pub(crate) fn append_row(
    row: &[Written],
    scale: &RowScale,
    build: bool,
    (cols, vals, row_ends): (&mut Vec<StateId>, &mut Vec<f64>, &mut Vec<usize>),
    (rescaled, worst): (&mut usize, &mut f64),
) {
    if let Some(d) = scale.deviation {
        *rescaled += 1;
        *worst = worst.max(d);
    }
    if build {
        for w in row.iter().filter(|w| w.value > 0.0) {
            cols.push(w.target);
            vals.push(w.value * scale.factor);
        }
        row_ends.push(cols.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(state: u32, choice: u32, target: u32, value: f64, line: usize) -> Entry {
        Entry {
            state,
            choice,
            target,
            value,
            line,
            column: 1,
        }
    }

    #[test]
    fn rows_are_sorted_validated_and_placed() {
        let p = Path::new("m.tra");
        let (m, notes) = build_matrix(
            p,
            2,
            vec![e(1, 0, 1, 1.0, 3), e(0, 0, 1, 0.5, 2), e(0, 0, 0, 0.5, 1)],
            false,
            |_| 9,
        )
        .unwrap();
        assert_eq!(m.row(0), (&[0, 1][..], &[0.5, 0.5][..]));
        assert!(notes.is_empty());
        let err = |entries: Vec<Entry>, normalize| {
            build_matrix(p, 2, entries, normalize, |_| 9)
                .unwrap_err()
                .to_string()
        };
        let s = err(
            vec![e(0, 0, 1, 0.5, 2), e(0, 0, 1, 0.5, 5), e(1, 0, 1, 1.0, 3)],
            false,
        );
        assert!(
            s.starts_with("m.tra:5:1:") && s.contains("first on line 2"),
            "{s}"
        );
        let s = err(vec![e(0, 0, 1, 0.9, 2), e(1, 0, 1, 1.0, 3)], false);
        assert!(
            s.starts_with("m.tra:2:1:") && s.contains("off by -1.00e-1"),
            "{s}"
        );
        let s = err(vec![e(0, 0, 1, 1.0, 2)], false);
        assert!(
            s.starts_with("m.tra:9:1:") && s.contains("state 1 has no outgoing"),
            "{s}"
        );
        let s = err(vec![e(0, 0, 2, 1.0, 4), e(1, 0, 1, 1.0, 3)], false);
        assert!(s.starts_with("m.tra:4:1:") && s.contains("target state 2"), "{s}");
        let s = err(vec![e(0, 0, 1, -0.5, 4), e(1, 0, 1, 1.0, 3)], false);
        assert!(s.contains("-0.5"), "{s}");
        let s = err(vec![e(0, 1, 1, 1.0, 4), e(1, 0, 1, 1.0, 3)], false);
        assert!(s.contains("choice 1 follows choice -1"), "{s}");
        let (m, notes) = build_matrix(
            p,
            2,
            vec![e(0, 0, 1, 0.9, 2), e(0, 0, 0, 0.9, 2), e(1, 0, 1, 1.0, 3)],
            true,
            |_| 9,
        )
        .unwrap();
        assert_eq!(m.row(0).1, &[0.5, 0.5]);
        assert!(notes[0].contains("1 row(s)"), "{notes:?}");
    }
}
