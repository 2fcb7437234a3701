use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};
use std::collections::BTreeMap;

use super::{RewardModel, StateSet, Written};

/// Row sums must be within this distance of 1 (plus `ε` per entry of the row, the rounding of
/// correctly rounded probabilities).
pub const ROW_SUM_TOLERANCE: f64 = 1e-12;

/// A discrete-time Markov chain: a row-stochastic `n × n` transition matrix `P` (row `s` is the
/// distribution of the next state from `s`), initial state(s), named labels and state names.
#[derive(Clone, Debug)]
pub struct Dtmc {
    matrix: CsrMatrix,
    initial: Vec<StateId>,
    labels: BTreeMap<String, StateSet>,
    names: Option<Vec<String>>,
    rewards: BTreeMap<String, RewardModel>,
    written: Option<Box<Written>>,
}

impl Dtmc {
    /// A chain from its transition matrix (one row per state, `n × n`) and initial states.
    /// Stored zeros are dropped (they are not transitions).
    ///
    /// # Errors
    /// - [`Error::InvalidArgument`] if the matrix is not square, has row groups with several rows,
    ///   or an initial state is out of range;
    /// - [`Error::Deadlock`] for a row without entries;
    /// - [`Error::InvalidDistribution`] for a negative or non-finite probability or a row whose sum
    ///   is farther than [`ROW_SUM_TOLERANCE`] (plus `ε` per entry) from 1.
    pub fn new(matrix: CsrMatrix, initial: Vec<StateId>) -> Result<Self> {
        let n = matrix.ncols();
        if matrix.nrows() != n || !matrix.has_trivial_row_grouping() {
            return Err(Error::arg(
                "transition matrix",
                format!(
                    "a Markov chain needs one row per state; got {} rows in {} groups over {n} states",
                    matrix.nrows(),
                    matrix.row_groups()
                ),
            ));
        }
        if let Some(&s) = initial.iter().find(|&&s| s as usize >= n) {
            return Err(Error::arg(
                "initial state",
                format!("{s} is not a state (0 to {})", n.saturating_sub(1)),
            ));
        }
        let matrix = matrix.without_zeros();
        let dtmc = Self {
            matrix,
            initial,
            labels: BTreeMap::new(),
            names: None,
            rewards: BTreeMap::new(),
            written: None,
        };
        validate_rows(&dtmc.matrix, |s| dtmc.state_name(s))?;
        Ok(dtmc)
    }

    super::annotated_model_accessors!("chain");

    /// The transition matrix `P`, `n × n`.
    #[must_use]
    pub fn matrix(&self) -> &CsrMatrix {
        &self.matrix
    }

    /// `Ok` if `set` ranges over this chain's states.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `what` otherwise.
    pub fn check_set(&self, what: &'static str, set: &StateSet) -> Result<()> {
        if set.universe() == self.n() {
            Ok(())
        } else {
            Err(Error::arg(
                what,
                format!("a set over {} states for a chain of {}", set.universe(), self.n()),
            ))
        }
    }

    /// The states whose only transition is a self-loop (absorbing states).
    #[must_use]
    pub fn absorbing_states(&self) -> StateSet {
        StateSet::from_states(
            self.n(),
            (0..self.n() as StateId).filter(|&s| self.matrix.row(s as usize).0 == [s]),
        )
    }
}

/// Checks that every row of `matrix` is a probability distribution and every row group has a
/// row; `name` describes a state in messages.
///
/// # Errors
/// [`Error::Deadlock`] for a state without rows or a row without entries;
/// [`Error::InvalidDistribution`] for a negative or non-finite probability or a row whose
/// compensated sum is farther than [`ROW_SUM_TOLERANCE`] (plus `ε` per entry) from 1.
///
/// The groups are checked in parallel (rayon); the error is the one of the first bad group, as a
/// sequential check would find it.
pub(crate) fn validate_rows(matrix: &CsrMatrix, name: impl Fn(StateId) -> String) -> Result<()> {
    use rayon::prelude::*;
    let first_bad = (0..matrix.row_groups())
        .into_par_iter()
        .with_min_len(1 << 12)
        .find_first(|&g| check_group(matrix, g, &|_| String::new()).is_err());
    match first_bad {
        Some(g) => check_group(matrix, g, &name),
        None => Ok(()),
    }
}

/// [`validate_rows`] for group `g` alone (allocates only for the error).
fn check_group(matrix: &CsrMatrix, g: usize, name: &dyn Fn(StateId) -> String) -> Result<()> {
    let state = g as StateId;
    let rows = matrix.group_rows(g);
    let deadlock = || Error::Deadlock {
        state,
        name: name(state),
    };
    if rows.is_empty() {
        return Err(deadlock());
    }
    let several = rows.len() > 1;
    for r in rows.clone() {
        let (cols, vals) = matrix.row(r);
        if cols.is_empty() {
            return Err(deadlock());
        }
        let bad = |message: String| Error::InvalidDistribution {
            state,
            name: name(state),
            message: if several {
                format!("choice {}: {message}", r - rows.start)
            } else {
                message
            },
        };
        if let Some((c, p)) = cols
            .iter()
            .zip(vals)
            .find(|(_, p)| !(p.is_finite() && **p >= 0.0))
        {
            return Err(bad(format!(
                "probability {p} to state {c} is not a number in [0, 1]"
            )));
        }
        // A row of m correctly rounded probabilities may sum to 1 ± m·ε/2 exactly; the sum
        // itself is compensated.
        let mut acc = crate::numeric::NeumaierSum::default();
        vals.iter().for_each(|&p| acc.add(p));
        let sum = acc.value();
        let tolerance = ROW_SUM_TOLERANCE + vals.len() as f64 * f64::EPSILON;
        if (sum - 1.0).abs() > tolerance {
            return Err(bad(format!(
                "outgoing probabilities sum to {sum} (off by {:e})",
                sum - 1.0
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::from_rows as matrix;

    #[test]
    fn validation_names_the_state() {
        let e = Dtmc::new(matrix(&[&[(0, 0.5), (1, 0.4)], &[(1, 1.0)]]), vec![0]).unwrap_err();
        assert!(matches!(e, Error::InvalidDistribution { state: 0, .. }), "{e}");
        let e = Dtmc::new(matrix(&[&[(0, 1.0)], &[]]), vec![0]).unwrap_err();
        assert!(matches!(e, Error::Deadlock { state: 1, .. }), "{e}");
        let e = Dtmc::new(matrix(&[&[(0, 1.5), (1, -0.5)], &[(1, 1.0)]]), vec![0]).unwrap_err();
        assert!(e.to_string().contains("-0.5"), "{e}");
        let e = Dtmc::new(matrix(&[&[(0, 1.0)]]), vec![3]).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let ok = Dtmc::new(matrix(&[&[(1, 1.0)], &[(1, 1.0)]]), vec![0]).unwrap();
        assert_eq!(ok.absorbing_states().to_vec(), vec![1]);
    }
}
