use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};
use std::collections::BTreeMap;

use super::dtmc::validate_rows;
use super::{Dtmc, RewardModel, StateSet, Written};

/// A Markov decision process (Puterman, *Markov Decision Processes*, 1994, §2.1): the row-grouped
/// transition matrix (group `s` = state `s`, its rows = the choices (actions) enabled in `s`, each a
/// distribution over next states; `n` groups over `n` columns, `m` rows in all), initial states,
/// labels, state and action names, and reward models.
///
/// With [`with_players`](Self::with_players) it is a turn-based stochastic game with any number of
/// players (PRISM-games' `smg`; Chen, Forejt, Kwiatkowska, Parker & Simaitis, "Automatic
/// verification of competitive stochastic systems", FMSD 43(1), 2013): each state is owned by
/// one player, who picks its choice. A coalition against the rest makes it a two-player game.
#[derive(Clone, Debug)]
pub struct Mdp {
    matrix: CsrMatrix,
    initial: Vec<StateId>,
    labels: BTreeMap<String, StateSet>,
    names: Option<Vec<String>>,
    action_names: Option<Vec<String>>,
    players: Option<Box<Players>>,
    rewards: BTreeMap<String, RewardModel>,
    written: Option<Box<Written>>,
}

impl Mdp {
    /// An MDP from its row-grouped transition matrix (`n` groups, `m` rows, `n` columns) and
    /// initial states.
    ///
    /// # Errors
    /// - [`Error::InvalidArgument`] if the groups do not match the columns or an initial state is
    ///   out of range;
    /// - [`Error::Deadlock`] for a state without choices or a choice without entries;
    /// - [`Error::InvalidDistribution`] for a choice that is not a probability distribution.
    pub fn new(matrix: CsrMatrix, initial: Vec<StateId>) -> Result<Self> {
        let n = matrix.ncols();
        if matrix.row_groups() != n {
            return Err(Error::arg(
                "transition matrix",
                format!(
                    "an MDP needs one row group per state; got {} groups over {n} states",
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
        validate_rows(&matrix, |s| s.to_string())?;
        Ok(Self {
            matrix,
            initial,
            labels: BTreeMap::new(),
            names: None,
            action_names: None,
            players: None,
            rewards: BTreeMap::new(),
            written: None,
        })
    }

    /// Makes the MDP a game: `owner[s]` is the index in `names` of the player who chooses in
    /// state `s`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `owner` does not have one entry per state or names a player
    /// out of range, or `names` is empty or holds a name that is not an identifier
    /// ([`player_name_problem`]).
    pub fn with_players(mut self, owner: Vec<u32>, names: Vec<String>) -> Result<Self> {
        if owner.len() != self.n() || names.is_empty() {
            return Err(Error::arg(
                "players",
                format!(
                    "{} owners for {} states, {} players",
                    owner.len(),
                    self.n(),
                    names.len()
                ),
            ));
        }
        if let Some(Err(why)) = names.iter().map(|n| player_name_problem(n)).find(|r| r.is_err()) {
            return Err(Error::arg("players", why));
        }
        if let Some(s) = owner.iter().position(|&p| p as usize >= names.len()) {
            return Err(Error::arg(
                "players",
                format!("state {s} is owned by player {} of {}", owner[s], names.len()),
            ));
        }
        self.players = Some(Box::new(Players { owner, names }));
        Ok(self)
    }

    /// The players, if the model is a game.
    #[must_use]
    pub fn players(&self) -> Option<&Players> {
        self.players.as_deref()
    }

    super::annotated_model_accessors!("model");

    /// Attaches a name (action label) to every choice.
    ///
    /// # Panics
    /// - panics if `names.len() != self.choices()`.
    #[must_use]
    #[track_caller]
    pub fn with_action_names(mut self, names: Vec<String>) -> Self {
        assert!(names.len() == self.choices());
        self.action_names = Some(names);
        self
    }

    /// Number of choices `m` (rows of the matrix) over all states.
    #[must_use]
    pub fn choices(&self) -> usize {
        self.matrix.nrows()
    }

    /// The row-grouped transition matrix, `m × n` in `n` groups.
    #[must_use]
    pub fn matrix(&self) -> &CsrMatrix {
        &self.matrix
    }

    /// The choice names, if the model has them (length `m`).
    #[must_use]
    pub fn action_names(&self) -> Option<&[String]> {
        self.action_names.as_deref()
    }

    /// The Markov chain of an MDP in which every state has exactly one choice, with the same
    /// labels, names and reward models.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first state with several choices.
    pub fn into_dtmc(self) -> Result<Dtmc> {
        if let Some(g) = (0..self.n()).find(|&g| self.matrix.group_rows(g).len() != 1) {
            return Err(Error::arg(
                "MDP",
                format!(
                    "state {} has {} choices: only an MDP with one choice per state is a Markov chain",
                    self.state_name(g as StateId),
                    self.matrix.group_rows(g).len()
                ),
            ));
        }
        // One row per group: the matrix is already a chain's (trivial grouping), no copy needed.
        let mut dtmc = Dtmc::new(self.matrix, self.initial)?;
        if let Some(names) = self.names {
            dtmc = dtmc.with_names(names);
        }
        for (name, set) in self.labels {
            dtmc.set_label(name, set);
        }
        for (name, rewards) in self.rewards {
            dtmc.set_reward_model(name, rewards)?;
        }
        match self.written {
            Some(written) => dtmc.with_written(*written),
            None => Ok(dtmc),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    #[test]
    fn choices_are_validated_and_one_choice_per_state_is_a_chain() {
        let mut b = CsrBuilder::new(2);
        b.new_row_group();
        b.add(0, 0.5);
        b.add(1, 0.5);
        b.finish_row();
        b.add(1, 1.0);
        b.finish_row();
        b.new_row_group();
        b.add(1, 0.7);
        b.finish_row();
        let e = Mdp::new(b.build(), vec![0]).unwrap_err();
        assert!(matches!(e, Error::InvalidDistribution { state: 1, .. }), "{e}");
        assert!(e.to_string().contains("0.7"), "{e}");

        let mut b = CsrBuilder::new(2);
        b.new_row_group();
        b.add(1, 1.0);
        b.finish_row();
        b.new_row_group();
        b.add(1, 1.0);
        b.finish_row();
        let mdp = Mdp::new(b.build(), vec![0]).unwrap();
        assert_eq!(mdp.choices(), 2);
        let d = mdp.into_dtmc().unwrap();
        assert_eq!(d.absorbing_states().to_vec(), vec![1]);
    }
}

/// Why `name` cannot name a player, if it cannot: a property refers to a player by a name of the
/// PRISM language's identifiers (a letter or `_`, then letters, digits and `_`), or by its
/// number (so a name may not be all digits).
///
/// # Errors
/// The reason, as a sentence to show after the name's place.
pub fn player_name_problem(name: &str) -> std::result::Result<(), String> {
    let mut chars = name.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "player name {name:?} is not an identifier (a letter or `_`, then letters, digits and `_`), so no property could name it"
        ))
    }
}

/// The players of a turn-based game ([`Mdp::with_players`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Players {
    /// The owner of each state: an index into `names` (length `n`).
    pub owner: Vec<u32>,
    /// The players' names, in declaration order (players are numbered from 1 in properties).
    pub names: Vec<String>,
}
