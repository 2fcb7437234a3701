use crate::sparse::CsrMatrix;
use crate::{Error, Result};

/// A named reward model of a DTMC or MDP, in the three places the field's formats put rewards
/// (PRISM's `.srew`/`.trew`, Storm DRN's `state s [r]` and `action a [r]`): a reward earned in
/// each state, by each choice, and on each transition. Each part is optional; the reward of one
/// step from state `s` taking choice `a` to `t` is `state[s] + action[a] + transition[(a, t)]`.
///
/// Shapes, for a model with `n` states, `m` choices (rows; `m = n` for a chain) and `nnz` stored
/// transitions: `state` has length `n`, `action` length `m`, `transition` length `nnz` aligned with
/// the transition matrix's stored entries (row by row, ascending column). Units are the model's.
///
/// `T` is `f64` for the model's floating-point rewards; a model read with the numbers as written
/// keeps them exactly as `RewardModel<Rational>` too ([`Written`](super::Written)).
#[derive(Clone, Debug, PartialEq)]
pub struct RewardModel<T = f64> {
    /// Reward earned in each state per step (length `n`).
    pub state: Option<Vec<T>>,
    /// Reward earned by each choice (length `m`).
    pub action: Option<Vec<T>>,
    /// Reward earned on each stored transition (length `nnz`).
    pub transition: Option<Vec<T>>,
}

impl<T> Default for RewardModel<T> {
    fn default() -> Self {
        Self {
            state: None,
            action: None,
            transition: None,
        }
    }
}

impl<T> RewardModel<T> {
    /// Whether no part is present.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.state.is_none() && self.action.is_none() && self.transition.is_none()
    }
}

impl RewardModel {
    /// A reward model with only state rewards (length `n`).
    #[must_use]
    pub fn from_state_rewards(state: Vec<f64>) -> Self {
        Self {
            state: Some(state),
            ..Self::default()
        }
    }

    /// `Ok` if every part has the length `matrix` asks for and only finite values.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the reward model `name` and the first bad entry.
    pub fn check(&self, name: &str, matrix: &CsrMatrix) -> Result<()> {
        let parts = [
            ("state", &self.state, matrix.row_groups()),
            ("action", &self.action, matrix.nrows()),
            ("transition", &self.transition, matrix.nnz()),
        ];
        for (part, values, len) in parts {
            let Some(values) = values else { continue };
            if values.len() != len {
                return Err(Error::arg(
                    "reward model",
                    format!("{name:?}: {} {part} rewards where {len} are needed", values.len()),
                ));
            }
            if let Some((i, v)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                return Err(Error::arg(
                    "reward model",
                    format!("{name:?}: {part} reward {i} is {v}, not a finite number"),
                ));
            }
        }
        Ok(())
    }
}

impl<T: crate::sparse::Accumulate> RewardModel<T> {
    /// The expected reward of one step from each choice `a` of state `s` (length `m`):
    /// `state(s) + action(a) + Σ_t P(a, t) · transition(a, t)`, summed with the kernel's
    /// summation ([`Accumulate`](crate::sparse::Accumulate): compensated in `f64`, exact in
    /// rationals, where `matrix` holds the exact probabilities).
    ///
    /// # Panics
    /// - panics if the parts do not have the lengths [`check`](RewardModel::check) requires.
    #[must_use]
    #[track_caller]
    pub fn expected_per_choice(&self, matrix: &CsrMatrix<T>) -> Vec<T> {
        let (row_ptr, _, vals) = matrix.as_parts();
        (0..matrix.row_groups())
            .flat_map(|g| matrix.group_rows(g).map(move |row| (g, row)))
            .map(|(g, row)| {
                let mut acc = T::start(self.state.as_ref().map(|s| &s[g]));
                if let Some(a) = &self.action {
                    T::add(&mut acc, &a[row]);
                }
                if let Some(t) = &self.transition {
                    for k in row_ptr[row]..row_ptr[row + 1] {
                        T::add_product(&mut acc, None, &vals[k], &t[k]);
                    }
                }
                T::finish(acc)
            })
            .collect()
    }
}
