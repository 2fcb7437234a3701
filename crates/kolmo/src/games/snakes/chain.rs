use super::Board;
use crate::Result;
use crate::explore::{Generator, Successors};
use crate::model::{Dtmc, StateSet};
use crate::sim::{self, MonteCarlo, MonteCarloOptions, SimRng};
use crate::sparse::{CsrMatrix, RowSink, par_rows};
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
        let mut moves = Vec::with_capacity(self.0.weights.len());
        self.0.row(c, &mut moves, |cell, p| out.add(cell, p));
    }
}

/// Boards from this many cells simulate interleaved games (see [`Board::simulate`]).
pub const SIMULATE_INTERLEAVED_FROM: u32 = 100_000;

impl Board {
    /// Row `c` of the board's transition matrix: `emit(cell, p)` for each cell reachable in one
    /// roll from standing cell `c`, by increasing cell. Faces leading to the same cell are merged
    /// on their weights (integers for a fair die, so exactly) and divided once: each probability
    /// is correctly rounded, however many faces. `moves` is scratch space.
    fn row(&self, c: u32, moves: &mut Vec<(u32, f64)>, mut emit: impl FnMut(u32, f64)) {
        self.merged_row(c, moves, |cell, w| emit(cell, w / self.total_weight));
    }

    /// [`row`](Self::row) before the division: `emit(cell, w)`, `w` the summed weight of the faces
    /// leading to `cell`.
    fn merged_row(&self, c: u32, moves: &mut Vec<(u32, f64)>, mut emit: impl FnMut(u32, f64)) {
        moves.clear();
        moves.extend(
            self.weights
                .iter()
                .enumerate()
                .filter(|(_, w)| **w > 0.0)
                .map(|(d, &w)| (self.step(c, d as u32 + 1), w)),
        );
        moves.sort_unstable_by_key(|m| m.0);
        let mut k = 0;
        while k < moves.len() {
            let cell = moves[k].0;
            let mut w = crate::numeric::NeumaierSum::default();
            while k < moves.len() && moves[k].0 == cell {
                w.add(moves[k].1);
                k += 1;
            }
            emit(cell, w.value());
        }
    }

    /// [`dtmc`](Self::dtmc) with its probabilities as written when the die's weights are whole
    /// numbers (as a fair die's are): each entry is the exact fraction `Σw_face / Σw`, so exact
    /// analyses need not recover the fractions from their roundings (which finds only
    /// denominators up to 2²⁰). Other weights leave the chain as [`dtmc`](Self::dtmc) builds it.
    ///
    /// # Errors
    /// As [`dtmc`](Self::dtmc).
    pub(crate) fn exact_dtmc(&self) -> Result<Dtmc> {
        let dtmc = self.dtmc()?;
        let whole = |w: f64| w.fract() == 0.0 && (0.0..9.0e15).contains(&w);
        if !(self.weights.iter().all(|&w| whole(w)) && whole(self.total_weight)) {
            return Ok(dtmc);
        }
        let total = crate::exact::Rational::from(self.total_weight as u64);
        let mut probabilities = Vec::with_capacity(dtmc.matrix().nnz());
        let mut moves = Vec::with_capacity(self.weights.len());
        for c in 0..=self.size {
            self.merged_row(c, &mut moves, |_, w| {
                probabilities.push(crate::exact::Rational::from(w as u64) / &total);
            });
        }
        dtmc.with_written(crate::model::Written {
            probabilities,
            ..crate::model::Written::default()
        })
    }

    /// The board's Markov chain: `size + 1` states, state `i` = standing on cell `i`; the last
    /// cell is absorbing. Labels: `init` = [`initial_cell`](Self::initial_cell), `goal` = the last
    /// cell. Its initial state is `initial_cell()`. The states have no names (state `i` is cell
    /// `i`; [`named_dtmc`](Self::named_dtmc) adds them).
    ///
    /// The matrix is the one [`explore`](crate::explore::explore) builds from [`BoardChain`] (the same rows, entry for entry
    /// and bit for bit), assembled straight from the jump table on all cores by
    /// [`par_rows`](crate::sparse::par_rows) (one pass counts each row's distinct successors, the
    /// other stores the rows in place). Going through `explore` numbers the cells through a hash
    /// map one state at a time: about four times slower on a 10⁶-cell board.
    ///
    /// # Errors
    /// As [`Dtmc::new`]; none for a validated board in practice.
    ///
    /// # Complexity
    /// O(size · F log F) time in parallel (rayon, fixed blocks of cells); memory: the matrix, at
    /// most `min(F, size + 1)` entries per row (12 bytes each) plus one pointer per row.
    pub fn dtmc(&self) -> Result<Dtmc> {
        let n = self.size as usize + 1;
        let faces = self.weights.len();
        let [parts] = par_rows(
            n,
            0.0,
            || Vec::with_capacity(faces),
            |moves, cell, out: &mut RowSink<f64, 1>| {
                self.row(cell as u32, moves, |j, p| out.push(0, j, p));
            },
        );
        let (row_ptr, cols, vals) = parts.into_arrays();
        let matrix = CsrMatrix::from_grouped_parts(n, row_ptr, cols, vals, (0..=n).collect());
        let mut dtmc = Dtmc::new(matrix, vec![self.initial_cell()])?;
        dtmc.set_label("init", StateSet::from_states(n, [self.initial_cell()]));
        dtmc.set_label("goal", StateSet::from_states(n, [self.size]));
        Ok(dtmc)
    }

    /// [`dtmc`](Self::dtmc) with a name for every state, `cell i` for state `i` (as model files
    /// exported from a board carry them).
    ///
    /// # Errors
    /// As [`dtmc`](Self::dtmc).
    pub fn named_dtmc(&self) -> Result<Dtmc> {
        let dtmc = self.dtmc()?;
        let names = (0..dtmc.n()).map(|c| format!("cell {c}")).collect();
        Ok(dtmc.with_names(names))
    }

    /// The chain as [`explore`](crate::explore::explore) builds it from [`BoardChain`], with the names `cell i`: the
    /// reference [`dtmc`](Self::dtmc) is tested against.
    #[cfg(test)]
    pub(crate) fn explored_dtmc(&self) -> Result<Dtmc> {
        let explored = crate::explore::explore(&BoardChain(self), Default::default())?;
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
    /// of rolls (see [`sim::absorption_times`] for the seeding, determinism and step limit). A fair
    /// die's games run [`sim::UNIFORM_LANES`] at once per thread, twelve rolls of a six-sided die
    /// per random word ([`sim::absorption_times_uniform`]); a weighted die's one at a time, or from
    /// [`SIMULATE_INTERLEAVED_FROM`] cells on, where a roll is a cache miss, interleaved
    /// ([`sim::absorption_times_interleaved`]). Big boards take chunks of a few games, so that
    /// long games still spread over the threads.
    ///
    /// # Errors
    /// [`Error::FrontEnd`](crate::Error::FrontEnd) with [`BoardError::Trapped`](crate::games::BoardError::Trapped)
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
        let step = |rng: &mut SimRng, c: u32| -> u32 {
            let d = if fair {
                rng.random_range(0..faces)
            } else {
                let r = rng.next_u64();
                thresholds.iter().position(|&th| r < th).unwrap_or(faces - 1)
            };
            table[c as usize * faces + d]
        };
        let play = |rng: &mut SimRng, max: u64| -> Option<u64> {
            let mut c = first;
            let mut t = 0u64;
            while c != goal {
                if t == max {
                    return None;
                }
                c = step(rng, c);
                t += 1;
            }
            Some(t)
        };
        // Games on a board that can trap the token need not end: refuse before playing.
        self.check_not_trapped()?;
        let big = self.size >= SIMULATE_INTERLEAVED_FROM;
        if fair {
            let chunk = if big { sim::INTERLEAVED_CHUNK } else { sim::CHUNK };
            return sim::absorption_times_uniform(
                options,
                progress,
                chunk,
                first,
                goal,
                faces as u32,
                &table,
            );
        }
        if big {
            sim::absorption_times_interleaved(options, progress, first, goal, step)
        } else {
            sim::absorption_times(options, progress, play)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::games::snakes::{Board, BoardSpec, Die, PortalKind, Rule};

    /// The direct build against the exploration: the same matrix bit for bit, the same initial
    /// state and labels; names only on request, as the exploration gave them.
    fn same_chain(board: &Board) {
        let new = board.dtmc().unwrap();
        let old = board.explored_dtmc().unwrap();
        let (p, c, v) = new.matrix().as_parts();
        let (po, co, vo) = old.matrix().as_parts();
        assert_eq!((p, c), (po, co), "{}", board.name());
        assert!(
            v.iter().zip(vo).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{}",
            board.name()
        );
        assert_eq!(new.matrix(), old.matrix());
        assert_eq!(new.initial(), old.initial());
        assert_eq!(new.labels(), old.labels());
        assert!(new.names().is_none());
        assert_eq!(board.named_dtmc().unwrap().names(), old.names());
    }

    #[test]
    fn the_direct_build_is_the_explored_chain() {
        same_chain(&Board::classic());
        for rule in [Rule::Clamp, Rule::Stay, Rule::Bounce] {
            for die in [
                Die::Fair(6),
                Die::Fair(1),
                Die::Weighted(vec![0.1, 0.0, 0.3, 1e-3, 0.7, 0.25, 0.2]),
                Die::Weighted(vec![3.0, 1.0, 2.0]),
            ] {
                // A random board over several parallel chunks (40,001 cells), start off 0.
                let mut spec = BoardSpec::empty(40_000).with_random_portals(3_000, 3).unwrap();
                spec.rule = rule;
                spec.die = die.clone();
                spec.start = 17;
                same_chain(&Board::new(&spec).unwrap());
                // Short portals with shared exits and a portal on the start cell: faces of one
                // roll merge on one cell.
                let mut spec = BoardSpec::empty(30);
                spec.rule = rule;
                spec.die = die;
                spec.portals = [
                    (0, 4),
                    (2, 4),
                    (3, 4),
                    (5, 4),
                    (6, 1),
                    (25, 29),
                    (27, 29),
                    (28, 3),
                ]
                .into_iter()
                .map(|(a, b)| (PortalKind::Portal, a, b, None))
                .collect();
                same_chain(&Board::new(&spec).unwrap());
            }
        }
    }
}
