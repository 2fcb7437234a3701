use crate::sparse::{CsrMatrix, Direction};
use crate::{Error, Result, StateId};

/// Who chooses in a state of a turn-based game: the maximiser or the minimiser of the objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// Chooses to maximise (Alice).
    Max,
    /// Chooses to minimise (Bob).
    Min,
}

/// A finite, zero-sum, turn-based stochastic game (Condon, "The complexity of stochastic games",
/// Information and Computation 96(2), 1992; Filar & Vrieze, *Competitive Markov Decision
/// Processes*, 1997): the row-grouped transition matrix (group = state, rows = its choices, each row
/// a distribution over next states; `n` groups, `n` columns), the owner of each state, and a reward
/// earned by each choice. An MDP is a game whose states are all owned by one player.
#[derive(Clone, Debug)]
pub struct Game {
    matrix: CsrMatrix,
    owners: Vec<Player>,
    rewards: Vec<f64>,
    initial: Vec<StateId>,
}

impl Player {
    /// The direction in which this player reduces a Bellman step: the maximiser maximises.
    #[must_use]
    pub fn direction(self) -> Direction {
        match self {
            Self::Max => Direction::Max,
            Self::Min => Direction::Min,
        }
    }
}

impl Game {
    /// A game from its parts: `matrix` with `n` row groups over `n` states, `owners` (length `n`),
    /// `rewards` (one per row).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on mismatched lengths, an empty group or an initial state out
    /// of range; [`Error::InvalidDistribution`] for a row that is not a probability distribution
    /// or a non-finite reward.
    pub fn new(
        matrix: CsrMatrix,
        owners: Vec<Player>,
        rewards: Vec<f64>,
        initial: Vec<StateId>,
    ) -> Result<Self> {
        let n = matrix.ncols();
        if matrix.row_groups() != n || owners.len() != n || rewards.len() != matrix.nrows() {
            return Err(Error::arg(
                "game",
                format!(
                    "{} row groups, {} owners and {} rewards for {n} states and {} choices",
                    matrix.row_groups(),
                    owners.len(),
                    rewards.len(),
                    matrix.nrows()
                ),
            ));
        }
        if let Some(&s) = initial.iter().find(|&&s| s as usize >= n) {
            return Err(Error::arg("initial state", format!("{s} is not a state")));
        }
        super::dtmc::validate_rows(&matrix, |s| s.to_string())?;
        check_choice_rewards(&matrix, &rewards)?;
        Ok(Self {
            matrix,
            owners,
            rewards,
            initial,
        })
    }

    /// Number of states `n`.
    #[must_use]
    pub fn n(&self) -> usize {
        self.matrix.ncols()
    }

    /// The row-grouped transition matrix.
    #[must_use]
    pub fn matrix(&self) -> &CsrMatrix {
        &self.matrix
    }

    /// Who chooses in each state, length `n`.
    #[must_use]
    pub fn owners(&self) -> &[Player] {
        &self.owners
    }

    /// The reward of each choice (row), length `matrix().nrows()`.
    #[must_use]
    pub fn rewards(&self) -> &[f64] {
        &self.rewards
    }

    /// The row (choice) taken in each state when state `s` takes its choice `choices[s]` (an
    /// index within the state), length `n`: with [`CsrMatrix::select_rows`] the Markov chain the
    /// strategies induce, with [`rewards`](Self::rewards) its rewards.
    ///
    /// # Panics
    /// - panics if `choices.len() != n` or a choice is out of its state's range.
    #[must_use]
    #[track_caller]
    pub fn chosen_rows(&self, choices: &[u32]) -> Vec<usize> {
        assert!(choices.len() == self.n());
        (0..self.n())
            .map(|s| {
                let rows = self.matrix.group_rows(s);
                assert!((choices[s] as usize) < rows.len(), "choice out of range");
                rows.start + choices[s] as usize
            })
            .collect()
    }

    /// The initial states.
    #[must_use]
    pub fn initial(&self) -> &[StateId] {
        &self.initial
    }
}

/// `Ok` unless a reward per choice (row of `matrix`) is not finite.
///
/// # Errors
/// [`Error::InvalidDistribution`] naming the state and the choice.
#[doc(hidden)]
pub fn check_choice_rewards(matrix: &CsrMatrix, rewards: &[f64]) -> Result<()> {
    if let Some(r) = rewards.iter().position(|r| !r.is_finite()) {
        let g = (0..matrix.row_groups())
            .find(|&g| matrix.group_rows(g).contains(&r))
            .unwrap_or(0);
        return Err(Error::InvalidDistribution {
            state: g as StateId,
            name: g.to_string(),
            message: format!(
                "choice {} has reward {}, not a finite number",
                r - matrix.group_rows(g).start,
                rewards[r]
            ),
        });
    }
    Ok(())
}
