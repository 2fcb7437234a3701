//! Several players on one board as a single Markov chain on (positions, whose turn): the exact
//! route to who wins (the `f64` route, [`crate::analysis::race`], combines one player's
//! distribution; the two cross-check each other in tests).

use super::{Board, BoardChain};
use crate::analysis::exact::{absorption_time_exact, reach_probability_exact};
use crate::exact::Rational;
use crate::explore::{ExploreOptions, Generator, Successors, explore};
use crate::model::StateSet;
use crate::{Error, Result};

/// Largest joint chain (cells^players × players states) [`Board::race_exact`] builds.
pub const MAX_EXACT_RACE_STATES: usize = 20_000;

/// `players` players taking turns on `board`; state = (cell of each player, seat to move). Every
/// state is an initial state, in the order positions-major, seat-minor, so that moves forward on
/// the board go to higher ids and few columns hold back moves (snakes).
#[derive(Debug, Clone, Copy)]
pub struct RaceChain<'a> {
    /// The board.
    pub board: &'a Board,
    /// Number of players, at least 1.
    pub players: usize,
}

impl RaceChain<'_> {
    /// Number of states, `(size + 1)^players · players`, or `None` on overflow.
    #[must_use]
    pub fn states(&self) -> Option<usize> {
        let cells = self.board.size as usize + 1;
        (0..self.players).try_fold(self.players, |acc, _| acc.checked_mul(cells))
    }
}

impl Generator for RaceChain<'_> {
    type State = (Vec<u32>, usize);

    fn initial_states(&self) -> Vec<Self::State> {
        let cells = self.board.size + 1;
        let total = self.states().unwrap_or(0);
        let mut out = Vec::with_capacity(total);
        let mut pos = vec![0u32; self.players];
        loop {
            for turn in 0..self.players {
                out.push((pos.clone(), turn));
            }
            // Next position vector, last player fastest.
            let mut k = self.players;
            loop {
                if k == 0 {
                    return out;
                }
                k -= 1;
                pos[k] += 1;
                if pos[k] < cells {
                    break;
                }
                pos[k] = 0;
            }
        }
    }

    fn expand(&self, (pos, turn): &Self::State, out: &mut Successors<Self::State>) {
        if pos.contains(&self.board.size) {
            out.add((pos.clone(), *turn), 1.0);
            return;
        }
        let mut one = Successors::new();
        BoardChain(self.board).expand(&pos[*turn], &mut one);
        for (cell, p) in one.take_entries() {
            let mut next = pos.clone();
            next[*turn] = cell;
            out.add((next, (turn + 1) % self.players), p);
        }
    }
}

/// The exact outcome of a race (see [`Board::race_exact`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExactRace {
    /// `win_probability[i]`: the probability that seat `i + 1` wins. Length `players`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub win_probability: Vec<Rational>,
    /// Expected number of rolls made in the game.
    #[serde(serialize_with = "crate::account::ser::scalar")]
    pub expected_total_rolls: Rational,
    /// Expected number of rounds (the winning round counts whole):
    /// `(E[rolls] + N − Σ i·P(seat i wins)) / N`.
    #[serde(serialize_with = "crate::account::ser::scalar")]
    pub expected_rounds: Rational,
}

impl Board {
    /// Who wins when `players` players take turns, exactly: reachability and expected steps on the
    /// joint chain [`RaceChain`] in rational arithmetic.
    ///
    /// # Errors
    /// [`Error::TooLarge`] if the joint chain has more than [`MAX_EXACT_RACE_STATES`] states (or its
    /// exact solve exceeds the exact limits); [`Error::FrontEnd`] if the token can be trapped;
    /// [`Error::InvalidArgument`] if `players == 0`.
    pub fn race_exact(&self, players: usize) -> Result<ExactRace> {
        if players == 0 {
            return Err(Error::arg("players", "at least one player is needed"));
        }
        self.check_not_trapped()?;
        let chain = RaceChain { board: self, players };
        let n = chain
            .states()
            .filter(|&n| n <= MAX_EXACT_RACE_STATES)
            .ok_or(Error::TooLarge {
                what: "exact players' race (joint chain of all players' cells)",
                size: chain.states().unwrap_or(usize::MAX),
                limit: MAX_EXACT_RACE_STATES,
            })?;
        let explored = explore(&chain, ExploreOptions::default())?;
        let start = explored
            .states
            .iter()
            .position(|(p, t)| *t == 0 && p.iter().all(|&c| c == self.initial_cell()))
            .expect("every state is listed");
        let won: Vec<StateSet> = (0..players)
            .map(|i| {
                StateSet::from_states(
                    n,
                    explored
                        .states
                        .iter()
                        .enumerate()
                        .filter(|(_, (p, _))| p[i] == self.size)
                        .map(|(s, _)| s as u32),
                )
            })
            .collect();
        let over = StateSet::from_states(
            n,
            explored
                .states
                .iter()
                .enumerate()
                .filter(|(_, (p, _))| p.contains(&self.size))
                .map(|(s, _)| s as u32),
        );
        let dtmc = explored.into_dtmc()?;
        let mut win_probability = Vec::with_capacity(players);
        for w in &won {
            win_probability.push(reach_probability_exact(&dtmc, w)?[start].clone());
        }
        let rolls = absorption_time_exact(&dtmc, &over)?.mean[start]
            .clone()
            .expect("the game ends almost surely");
        let seats = win_probability
            .iter()
            .enumerate()
            .fold(Rational::ZERO, |a, (i, p)| a + Rational::from(i as u64 + 1) * p);
        let nn = Rational::from(players as u64);
        let expected_rounds = (&rolls + &nn - seats) / &nn;
        Ok(ExactRace {
            win_probability,
            expected_total_rolls: rolls,
            expected_rounds,
        })
    }
}
