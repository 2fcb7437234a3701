//! Turning the transitions a reader found, in any order, into a validated row-grouped matrix.

use super::parse_error;
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
    mut entries: Vec<Entry>,
    normalize: bool,
    end_line: impl Fn(StateId) -> usize,
) -> Result<(CsrMatrix, Vec<String>)> {
    for e in &entries {
        for (what, s) in [("state", e.state), ("target state", e.target)] {
            if s as usize >= n {
                return Err(parse_error(
                    path,
                    e.line,
                    e.column,
                    format!(
                        "{what} {s} does not exist: the model has {n} states (0 to {})",
                        n.saturating_sub(1)
                    ),
                ));
            }
        }
        if !(e.value >= 0.0 && e.value.is_finite()) {
            return Err(parse_error(
                path,
                e.line,
                e.column,
                format!("probability {} is not a number in [0, 1]", e.value),
            ));
        }
    }
    // A stable sort keeps the file order among equal keys, so the first line of a duplicate is
    // the earlier one.
    entries.sort_by_key(|e| (e.state, e.choice, e.target));
    for w in entries.windows(2) {
        if (w[0].state, w[0].choice, w[0].target) == (w[1].state, w[1].choice, w[1].target) {
            return Err(parse_error(
                path,
                w[1].line,
                w[1].column,
                format!(
                    "transition {} -> {}{} is given twice (first on line {}); duplicates are refused, not summed",
                    w[1].state,
                    w[1].target,
                    if w[1].choice > 0 {
                        format!(" (choice {})", w[1].choice)
                    } else {
                        String::new()
                    },
                    w[0].line
                ),
            ));
        }
    }
    let mut builder = CsrBuilder::new(n);
    let mut notes = Vec::new();
    let (mut rescaled, mut worst) = (0usize, 0.0f64);
    let mut i = 0;
    for state in 0..n as StateId {
        builder.new_row_group();
        if i >= entries.len() || entries[i].state != state {
            return Err(parse_error(
                path,
                end_line(state),
                1,
                format!(
                    "state {state} has no outgoing transitions (every state needs a distribution over next states)"
                ),
            ));
        }
        let mut expected_choice = 0;
        while i < entries.len() && entries[i].state == state {
            let choice = entries[i].choice;
            let first = entries[i];
            if choice != expected_choice {
                return Err(parse_error(
                    path,
                    first.line,
                    first.column,
                    format!(
                        "state {state}: choice {choice} follows choice {}; choices are numbered 0, 1, 2, ...",
                        expected_choice as i64 - 1
                    ),
                ));
            }
            let start = i;
            while i < entries.len() && entries[i].state == state && entries[i].choice == choice {
                i += 1;
            }
            let row = &entries[start..i];
            let mut acc = NeumaierSum::default();
            row.iter().for_each(|e| acc.add(e.value));
            let sum = acc.value();
            if !sum.is_finite() || (normalize && sum > 0.0 && !(1.0 / sum).is_finite()) {
                return Err(parse_error(
                    path,
                    first.line,
                    first.column,
                    format!(
                        "the probabilities out of state {state} cannot be {}",
                        if sum.is_finite() {
                            "rescaled: their sum is too small"
                        } else {
                            "summed: they are too large"
                        }
                    ),
                ));
            }
            let tolerance = ROW_SUM_TOLERANCE + row.len() as f64 * f64::EPSILON;
            let scale = if (sum - 1.0).abs() <= tolerance {
                1.0
            } else if normalize && sum > 0.0 {
                rescaled += 1;
                worst = worst.max((sum - 1.0).abs());
                1.0 / sum
            } else {
                let choice_text = if choice > 0 || (i < entries.len() && entries[i].state == state) {
                    format!(" (choice {choice})")
                } else {
                    String::new()
                };
                return Err(parse_error(
                    path,
                    first.line,
                    first.column,
                    format!(
                        "the probabilities out of state {state}{choice_text} sum to {sum} (off by {:.2e}); rows must sum to 1 within {ROW_SUM_TOLERANCE:e}{}",
                        sum - 1.0,
                        if sum > 0.0 { " (or ask to normalize)" } else { "" }
                    ),
                ));
            };
            // Zero probabilities are not transitions: storing them would give the graph analysis
            // edges that the chain never takes.
            for e in row.iter().filter(|e| e.value > 0.0) {
                builder.add(e.target, e.value * scale);
            }
            builder.finish_row();
            expected_choice += 1;
        }
    }
    if rescaled > 0 {
        notes.push(format!(
            "normalized {rescaled} row(s) that did not sum to 1 (largest deviation {worst:e})"
        ));
    }
    Ok((builder.build(), notes))
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
