use super::Board;
use crate::Result;
use crate::explore::{ExploreOptions, Generator, Successors, explore};
use crate::model::{Dtmc, StateSet};
use crate::sim::{self, MonteCarlo, MonteCarloOptions, SimRng};
use rand::{Rng, RngExt};

/// The board as a [`Generator`]: the state is the cell the token stands on. Every cell is an
/// initial state of the exploration, in order, so that state `i` is cell `i`.
#[derive(Clone, Copy, Debug)]
pub struct BoardChain<'a>(pub &'a Board);

impl Generator for BoardChain<'_> {
    type State = u32;

    fn initial_states(&self) -> Vec<u32> {
        (0..=self.0.size).collect()
    }

    fn expand(&self, &c: &u32, out: &mut Successors<u32>) {
        // Faces leading to the same cell are merged on their weights (integers for a fair die, so
        // exactly) and divided once: each probability is correctly rounded, however many faces.
        let board = self.0;
        let mut moves: Vec<(u32, f64)> = board
            .weights
            .iter()
            .enumerate()
            .filter(|(_, w)| **w > 0.0)
            .map(|(d, &w)| (board.step(c, d as u32 + 1), w))
            .collect();
        moves.sort_unstable_by_key(|m| m.0);
        let mut k = 0;
        while k < moves.len() {
            let cell = moves[k].0;
            let mut w = crate::numeric::NeumaierSum::default();
            while k < moves.len() && moves[k].0 == cell {
                w.add(moves[k].1);
                k += 1;
            }
            out.add(cell, w.value() / board.total_weight);
        }
    }
}

impl Board {
    /// The board's Markov chain: `size + 1` states, state `i` = standing on cell `i`; the last
    /// cell is absorbing. Labels: `init` = [`initial_cell`](Self::initial_cell), `goal` = the last
    /// cell. Its initial state is `initial_cell()`.
    ///
    /// # Errors
    /// As [`explore`]; none for a validated board in practice.
    pub fn dtmc(&self) -> Result<Dtmc> {
        let explored = explore(&BoardChain(self), ExploreOptions::default())?;
        let n = explored.states.len();
        debug_assert!(explored.states.iter().enumerate().all(|(i, &c)| i as u32 == c));
        let mut dtmc = Dtmc::new(explored.matrix, vec![self.initial_cell()])?
            .with_names((0..n).map(|c| format!("cell {c}")).collect());
        dtmc.set_label("init", StateSet::from_states(n, [self.initial_cell()]));
        dtmc.set_label("goal", StateSet::from_states(n, [self.size]));
        Ok(dtmc)
    }

    /// The transition table for simulation: entry `c·F + (d − 1)` is the cell reached from
    /// standing cell `c` with roll `d`. Shape `(size + 1) × F`, row-major.
    #[must_use]
    pub fn transition_table(&self) -> Vec<u32> {
        let f = self.die.faces() as u32;
        (0..=self.size)
            .flat_map(|c| (1..=f).map(move |d| (c, d)))
            .map(|(c, d)| self.step(c, d))
            .collect()
    }

    /// Plays `options.games` games by Monte Carlo from the start cell and summarises the number
    /// of rolls (see [`sim::absorption_times`] for the seeding, determinism and step limit).
    ///
    /// # Errors
    /// [`Error::Board`](crate::Error::Board) with [`BoardError::Trapped`](crate::BoardError::Trapped)
    /// if the token can be trapped; as [`sim::absorption_times`]: fewer than 2 games, or a game
    /// exceeding the step limit.
    pub fn simulate(
        &self,
        options: &MonteCarloOptions,
        progress: Option<&(dyn Fn(u64) + Sync)>,
    ) -> Result<MonteCarlo> {
        let table = self.transition_table();
        let faces = self.die.faces();
        let goal = self.size;
        let first = self.initial_cell();
        let fair = matches!(self.die, super::Die::Fair(_));
        // Weighted die: thresholds on a uniform u64, face k while r < threshold[k].
        let mut thresholds = Vec::with_capacity(faces);
        let mut cum = 0.0;
        for &p in &self.probabilities {
            cum += p;
            thresholds.push(if cum >= 1.0 {
                u64::MAX
            } else {
                (cum * 2f64.powi(64)) as u64
            });
        }
        *thresholds.last_mut().expect("at least one face") = u64::MAX;
        let play = |rng: &mut SimRng, max: u64| -> Option<u64> {
            let mut c = first;
            let mut t = 0u64;
            while c != goal {
                if t == max {
                    return None;
                }
                let d = if fair {
                    rng.random_range(0..faces)
                } else {
                    let r = rng.next_u64();
                    thresholds.iter().position(|&th| r < th).unwrap_or(faces - 1)
                };
                c = table[c as usize * faces + d];
                t += 1;
            }
            Some(t)
        };
        // Games on a board that can trap the token need not end: refuse before playing.
        self.check_not_trapped()?;
        sim::absorption_times(options, progress, play)
    }
}
