//! "Hyakugoku and Ladders" (Codeforces Round #597, problem 1245E,
//! <https://codeforces.com/problemset/problem/1245/E>) as a Markov decision process.
//!
//! A 10×10 board is climbed along a boustrophedon path: the bottom row left to right, the row
//! above it right to left, and so on, from the bottom-left square (the start) to the top-left
//! square (the goal). Squares are numbered `0..=99` along that path ([`START`] to [`GOAL`]). Each
//! turn the player rolls a fair die `r ∈ 1..=6`; if the goal is fewer than `r` squares away the
//! player does not move (the turn still counts), otherwise moves exactly `r` squares. Ladders are
//! vertical: one of height `h` leads `h` rows straight up. Stopping on a ladder's foot the player
//! may climb it or not; a ladder's top that is another ladder's foot is not used in the same turn.
//! The player minimises the expected number of turns.
//!
//! As an MDP (built by [`explore`] from the [`Generator`] implemented by [`LadderBoard`]): a
//! [`Square::Stand`] state before each turn has one choice of reward 1 (the turn: the die's six
//! outcomes); a move that stops on a ladder's foot leads to a [`Square::Foot`] state with two
//! choices of reward 0, stay (choice 0) or climb (choice 1), each leading surely to the
//! `Stand` state of the square where the turn ends. The expected total reward until the goal is
//! therefore the expected number of turns, minimised by [`total_reward`]. The optimal policy's
//! chain with the climbs folded into the turns ([`LadderBoard::policy_chain`], one step per turn)
//! gives the exact rational answer ([`LadderBoard::expected_turns_exact`]), and policy iteration in
//! rationals over such chains certifies that policy optimal ([`LadderBoard::optimum_exact`]).

use super::InputError;
use crate::analysis::exact::absorption_time_exact;
use crate::exact::Rational;
use crate::explore::{ExploreOptions, Generator, Successors, explore};
use crate::mdp::{MdpOptions, Optimum, total_reward};
use crate::model::{Dtmc, Mdp, StateSet};
use crate::{Error, Result, StateId};
use std::collections::HashMap;

/// Rows and columns of the board.
pub const SIDE: usize = 10;

/// Number of squares (`SIDE²`), numbered `0..SQUARES` along the path.
pub const SQUARES: usize = SIDE * SIDE;

/// The start: the bottom-left square, path position 0.
pub const START: u8 = 0;

/// The goal: the top-left square, path position 99.
pub const GOAL: u8 = (SQUARES - 1) as u8;

/// Faces of the fair die.
pub const FACES: u8 = 6;

/// The path position of the square in `row` (1 = the top row, as the input lists the rows) and
/// `column` (1 = the leftmost).
///
/// # Panics
/// - panics if `row` or `column` is not in `1..=10`.
#[must_use]
#[track_caller]
pub fn position(row: usize, column: usize) -> u8 {
    assert!((1..=SIDE).contains(&row) && (1..=SIDE).contains(&column));
    let from_bottom = SIDE - row;
    let along = if from_bottom % 2 == 0 {
        column - 1
    } else {
        SIDE - column
    };
    (from_bottom * SIDE + along) as u8
}

/// The `(row, column)` of path position `p` (row 1 = the top row, column 1 = the leftmost).
///
/// # Panics
/// - panics if `p >= 100`.
#[must_use]
#[track_caller]
pub fn row_column(p: u8) -> (usize, usize) {
    let p = p as usize;
    assert!(p < SQUARES);
    let (from_bottom, along) = (p / SIDE, p % SIDE);
    let column = if from_bottom % 2 == 0 {
        along + 1
    } else {
        SIDE - along
    };
    (SIDE - from_bottom, column)
}

/// A ladder of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Ladder {
    /// Path position of its foot.
    pub foot: u8,
    /// Path position of its top.
    pub top: u8,
    /// Row of its foot (1 = the top row).
    pub row: usize,
    /// Column of its foot and top (1 = the leftmost).
    pub column: usize,
    /// Rows climbed.
    pub height: u8,
}

/// A board of Codeforces 1245E: the ladder height on every square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LadderBoard {
    /// `heights[row][column]`, 0-based, row 0 = the top row (the input's order).
    heights: [[u8; SIDE]; SIDE],
    /// `top[p]`: where the ladder at `p` leads, `p` itself where there is none.
    top: [u8; SQUARES],
}

impl LadderBoard {
    /// The board without ladders (the problem's first sample: 33.0476190476 turns).
    #[must_use]
    pub fn empty() -> Self {
        Self {
            heights: [[0; SIDE]; SIDE],
            top: std::array::from_fn(|p| p as u8),
        }
    }

    /// A board from its heights as the problem lists them: `heights[i][j]` is the height of the
    /// ladder in row `i + 1` from the top and column `j + 1` from the left, 0 for none.
    ///
    /// # Errors
    /// [`InputError::LadderSquare`] (inside [`Error::FrontEnd`]) naming the first bad square in reading order (rows from the top,
    /// left to right): a height outside `0..=9`, a ladder on the goal or the start, a ladder that
    /// would rise above the top row (row `i` allows heights up to `i − 1`).
    pub fn from_heights(heights: &[[i64; SIDE]; SIDE]) -> Result<Self> {
        let mut board = Self::empty();
        for (i, line) in heights.iter().enumerate() {
            for (j, &h) in line.iter().enumerate() {
                let (row, column) = (i + 1, j + 1);
                let bad = |message: String| Error::from(InputError::LadderSquare { row, column, message });
                if !(0..=SIDE as i64 - 1).contains(&h) {
                    return Err(bad(format!("height {h} is out of range (0 to {})", SIDE - 1)));
                }
                if h == 0 {
                    continue;
                }
                let p = position(row, column);
                if p == GOAL {
                    return Err(bad(format!(
                        "the goal (top-left square) cannot hold a ladder (height {h})"
                    )));
                }
                if p == START {
                    return Err(bad(format!(
                        "the start (bottom-left square) cannot hold a ladder (height {h})"
                    )));
                }
                if h as usize >= row {
                    return Err(bad(format!(
                        "a ladder of height {h} would rise above the top row (at most {} from row {row})",
                        row - 1
                    )));
                }
                board.heights[i][j] = h as u8;
                board.top[p as usize] = position(row - h as usize, column);
            }
        }
        Ok(board)
    }

    /// The heights, `heights()[i][j]` for row `i + 1` from the top and column `j + 1`.
    #[must_use]
    pub fn heights(&self) -> &[[u8; SIDE]; SIDE] {
        &self.heights
    }

    /// The ladder whose foot is path position `p`, if any.
    ///
    /// # Panics
    /// - panics if `p >= 100`.
    #[must_use]
    #[track_caller]
    pub fn ladder_at(&self, p: u8) -> Option<Ladder> {
        let top = self.top[p as usize];
        (top != p).then(|| {
            let (row, column) = row_column(p);
            Ladder {
                foot: p,
                top,
                row,
                column,
                height: self.heights[row - 1][column - 1],
            }
        })
    }

    /// The ladders, in path order of their feet.
    #[must_use]
    pub fn ladders(&self) -> Vec<Ladder> {
        (0..SQUARES as u8).filter_map(|p| self.ladder_at(p)).collect()
    }

    /// The game as an MDP (see the module documentation), explored from the start.
    ///
    /// # Errors
    /// None in practice (model construction).
    pub fn model(&self) -> Result<LadderModel> {
        let explored = explore(self, ExploreOptions::default())?;
        let goal = explored
            .states
            .iter()
            .position(|&s| s == Square::Stand(GOAL))
            .map(|g| StateSet::from_states(explored.states.len(), [g as StateId]))
            .unwrap_or_else(|| StateSet::empty(explored.states.len()));
        let names = explored.states.iter().map(Square::to_string).collect();
        Ok(LadderModel {
            mdp: Mdp::new(explored.matrix, explored.initial)?.with_names(names),
            rewards: explored.rewards,
            states: explored.states,
            goal,
        })
    }

    /// The minimal expected number of turns from the start and an optimal decision at every
    /// ladder, by [`total_reward`] with [`Optimum::Min`] and default options.
    ///
    /// # Errors
    /// As [`total_reward`].
    pub fn solve(&self) -> Result<LadderSolution> {
        self.solve_with(&MdpOptions::default())
    }

    /// As [`solve`](Self::solve), with the MDP solver's options.
    ///
    /// # Errors
    /// As [`total_reward`].
    pub fn solve_with(&self, options: &MdpOptions) -> Result<LadderSolution> {
        let model = self.model()?;
        let solution = total_reward(&model.mdp, &model.rewards, &model.goal, Optimum::Min, options)?;
        let id: HashMap<Square, usize> = model.states.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        // Every square is reachable (rolls of 1, ladders declined), so every state exists.
        let turns: Vec<f64> = (0..SQUARES as u8)
            .map(|p| {
                id.get(&Square::Stand(p))
                    .map_or(f64::NAN, |&s| solution.values[s])
            })
            .collect();
        let mut climb = vec![false; SQUARES];
        let decisions = self
            .ladders()
            .into_iter()
            .map(|ladder| {
                let up = id
                    .get(&Square::Foot(ladder.foot))
                    .is_some_and(|&s| solution.policy[s] == Square::CLIMB);
                climb[ladder.foot as usize] = up;
                Decision {
                    ladder,
                    climb: up,
                    turns_if_climbing: turns[ladder.top as usize],
                    turns_if_staying: turns[ladder.foot as usize],
                }
            })
            .collect();
        Ok(LadderSolution {
            expected_turns: turns[START as usize],
            error_bound: solution.error_bound,
            turns,
            decisions,
            climb,
            states: model.mdp.n(),
            choices: model.mdp.choices(),
            iterations: solution.iterations,
            method: solution.method,
        })
    }

    /// The Markov chain of the policy that climbs the ladders whose feet have `climb[p]` set, one
    /// step per turn (the climb folded into the turn): state `p` is path position `p` (standing
    /// there before a turn), state 99 (the goal) is absorbing. Entries of `climb` at squares
    /// without a ladder are ignored.
    ///
    /// # Panics
    /// - panics if `climb.len() != 100`.
    ///
    /// # Errors
    /// None in practice (model construction).
    #[track_caller]
    pub fn policy_chain(&self, climb: &[bool]) -> Result<Dtmc> {
        assert!(climb.len() == SQUARES, "one entry per square");
        let explored = explore(&PolicyTurns { board: self, climb }, ExploreOptions::default())?;
        explored.into_dtmc()
    }

    /// The exact expected number of turns from the start under the policy `climb` (as in
    /// [`policy_chain`](Self::policy_chain)), by [`absorption_time_exact`] on its chain; with an
    /// optimal policy ([`LadderSolution::climb`]) this is the problem's exact answer.
    ///
    /// # Panics
    /// - panics if `climb.len() != 100`.
    ///
    /// # Errors
    /// As [`absorption_time_exact`].
    #[track_caller]
    pub fn expected_turns_exact(&self, climb: &[bool]) -> Result<Rational> {
        Ok(self.turns_exact(climb)?.swap_remove(START as usize))
    }

    /// The exact optimum: policy iteration in rational arithmetic from the policy `climb` (for
    /// instance [`LadderSolution::climb`]), each policy evaluated exactly on its chain and changed
    /// only where the other decision is strictly better, until no ladder's decision improves —
    /// then the policy is optimal (every policy reaches the goal: Bertsekas & Tsitsiklis 1991).
    /// Starting from the floating-point optimum this is normally a single evaluation that certifies
    /// it exactly.
    ///
    /// # Panics
    /// - panics if `climb.len() != 100`.
    ///
    /// # Errors
    /// As [`absorption_time_exact`].
    #[track_caller]
    pub fn optimum_exact(&self, climb: &[bool]) -> Result<ExactLadderSolution> {
        let mut climb = climb.to_vec();
        let ladders = self.ladders();
        for evaluations in 1.. {
            let turns = self.turns_exact(&climb)?;
            let mut changed = false;
            for l in &ladders {
                let (up, stay) = (&turns[l.top as usize], &turns[l.foot as usize]);
                let better = if up < stay {
                    true
                } else if stay < up {
                    false
                } else {
                    climb[l.foot as usize]
                };
                changed |= better != climb[l.foot as usize];
                climb[l.foot as usize] = better;
            }
            if !changed {
                return Ok(ExactLadderSolution {
                    expected_turns: turns[START as usize].clone(),
                    turns,
                    climb,
                    evaluations,
                });
            }
        }
        unreachable!("the loop returns")
    }

    /// Exact expected turns from every position under `climb`.
    #[track_caller]
    fn turns_exact(&self, climb: &[bool]) -> Result<Vec<Rational>> {
        let chain = self.policy_chain(climb)?;
        let goal = StateSet::from_states(SQUARES, [GOAL as StateId]);
        let time = absorption_time_exact(&chain, &goal)?;
        // Every policy reaches the goal almost surely (rolls of 1 reach it from anywhere).
        time.mean
            .into_iter()
            .enumerate()
            .map(|(s, t)| {
                t.ok_or_else(|| Error::NotAlmostSure {
                    state: s as StateId,
                    states: vec![s as StateId],
                })
            })
            .collect()
    }

    /// Where a turn from `p` that rolls `r` stops, before any ladder: `p + r`, or `p` if the goal
    /// is fewer than `r` squares away.
    fn moved(p: u8, r: u8) -> u8 {
        if p + r > GOAL { p } else { p + r }
    }
}

/// A state of the game's MDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
    /// Standing on the path position, before a turn (the goal: the game is over).
    Stand(u8),
    /// The turn's move stopped on the foot of the ladder at this path position: climb or stay.
    Foot(u8),
}

impl Square {
    /// The index of the choice "stay at the foot" in a [`Square::Foot`] state.
    pub const STAY: u32 = 0;
    /// The index of the choice "climb" in a [`Square::Foot`] state.
    pub const CLIMB: u32 = 1;
}

impl std::fmt::Display for Square {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Square::Stand(p) => write!(f, "{p}"),
            Square::Foot(p) => write!(f, "foot {p}"),
        }
    }
}

impl Generator for LadderBoard {
    type State = Square;

    fn initial_states(&self) -> Vec<Square> {
        vec![Square::Stand(START)]
    }

    fn expand(&self, state: &Square, out: &mut Successors<Square>) {
        let p = match *state {
            Square::Stand(p) => p,
            Square::Foot(p) => {
                out.choice();
                out.add(Square::Stand(p), 1.0);
                out.choice();
                out.add(Square::Stand(self.top[p as usize]), 1.0);
                return;
            }
        };
        if p == GOAL {
            out.choice();
            out.add(Square::Stand(GOAL), 1.0);
            return;
        }
        out.choice_with_reward(1.0);
        let stuck = (1..=FACES).filter(|&r| Self::moved(p, r) == p).count();
        if stuck > 0 {
            out.add(Square::Stand(p), stuck as f64 / f64::from(FACES));
        }
        for r in 1..=FACES {
            let q = Self::moved(p, r);
            if q == p {
                continue;
            }
            let next = if self.top[q as usize] == q {
                Square::Stand(q)
            } else {
                Square::Foot(q)
            };
            out.add(next, 1.0 / f64::from(FACES));
        }
    }
}

/// The turns under a fixed climbing policy, one step per turn (for [`LadderBoard::policy_chain`]).
struct PolicyTurns<'a> {
    board: &'a LadderBoard,
    climb: &'a [bool],
}

impl Generator for PolicyTurns<'_> {
    type State = u8;

    /// Every position, so that state `p` is position `p`.
    fn initial_states(&self) -> Vec<u8> {
        (0..SQUARES as u8).collect()
    }

    fn expand(&self, &p: &u8, out: &mut Successors<u8>) {
        if p == GOAL {
            out.add(GOAL, 1.0);
            return;
        }
        let mut weights = [0u8; SQUARES];
        for r in 1..=FACES {
            let q = LadderBoard::moved(p, r);
            let end = if q != p && self.climb[q as usize] {
                self.board.top[q as usize]
            } else {
                q
            };
            weights[end as usize] += 1;
        }
        for (q, &w) in weights.iter().enumerate() {
            if w > 0 {
                out.add(q as u8, f64::from(w) / f64::from(FACES));
            }
        }
    }
}

/// The explored MDP of a board.
#[derive(Clone, Debug)]
pub struct LadderModel {
    /// The MDP; states named `p` (standing on path position `p`) or `foot p`.
    pub mdp: Mdp,
    /// Reward of each choice: 1 for a turn, 0 for a decision at a ladder's foot.
    pub rewards: Vec<f64>,
    /// The state behind each id.
    pub states: Vec<Square>,
    /// The goal state.
    pub goal: StateSet,
}

/// The decision at one ladder.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Decision {
    /// The ladder.
    pub ladder: Ladder,
    /// Whether the optimal policy found climbs it.
    pub climb: bool,
    /// Optimal expected turns from its top (after climbing).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub turns_if_climbing: f64,
    /// Optimal expected turns from its foot (after staying).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub turns_if_staying: f64,
}

/// The exact optimum of a board ([`LadderBoard::optimum_exact`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExactLadderSolution {
    /// The minimal expected number of turns from the start.
    #[serde(serialize_with = "crate::account::ser::scalar")]
    pub expected_turns: Rational,
    /// Minimal expected turns standing on each path position (length 100; 0 at the goal).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub turns: Vec<Rational>,
    /// An optimal policy: `climb[p]` for the ladder at `p` (length 100; false elsewhere).
    pub climb: Vec<bool>,
    /// Exact policy evaluations done (1 when the starting policy was optimal).
    pub evaluations: u64,
}

/// The optimal expected number of turns and how to attain it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LadderSolution {
    /// The minimal expected number of turns from the start.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub expected_turns: f64,
    /// Guaranteed bound on the error of `expected_turns` and `turns`.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
    /// Minimal expected turns standing on each path position (length 100; 0 at the goal).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub turns: Vec<f64>,
    /// The optimal decision at each ladder, in path order of the feet.
    pub decisions: Vec<Decision>,
    /// `climb[p]`: the optimal policy climbs the ladder at `p` (length 100; false elsewhere).
    pub climb: Vec<bool>,
    /// States of the MDP.
    pub states: usize,
    /// Choices of the MDP.
    pub choices: usize,
    /// Policy-improvement rounds.
    pub iterations: u64,
    /// How the numbers were obtained.
    pub method: crate::account::Method,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AbsorbingChain;
    use crate::sim::{MonteCarloOptions, absorption_times};
    use rand::RngExt;

    const SAMPLE_2: [[i64; SIDE]; SIDE] = [
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 3, 0, 0, 0, 4, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 4, 0, 0, 0],
        [0, 0, 3, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 4, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 9],
    ];

    const SAMPLE_3: [[i64; SIDE]; SIDE] = [
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 6, 6, 6, 6, 6, 6, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ];

    fn samples() -> [(LadderBoard, f64); 3] {
        // The published answers (https://codeforces.com/problemset/problem/1245/E).
        [
            (LadderBoard::empty(), 33.0476190476),
            (LadderBoard::from_heights(&SAMPLE_2).unwrap(), 20.2591405923),
            (LadderBoard::from_heights(&SAMPLE_3).unwrap(), 15.9047592939),
        ]
    }

    #[test]
    fn path_numbering() {
        assert_eq!(position(10, 1), START);
        assert_eq!(position(10, 10), 9);
        assert_eq!(position(9, 10), 10);
        assert_eq!(position(9, 1), 19);
        assert_eq!(position(8, 1), 20);
        assert_eq!(position(1, 1), GOAL);
        for p in 0..SQUARES as u8 {
            let (r, c) = row_column(p);
            assert_eq!(position(r, c), p);
        }
        let b = LadderBoard::from_heights(&SAMPLE_2).unwrap();
        // The bottom-right ladder of height 9 leads to the top row's square 90.
        assert_eq!(
            b.ladder_at(9),
            Some(Ladder {
                foot: 9,
                top: 90,
                row: 10,
                column: 10,
                height: 9
            })
        );
        assert_eq!(b.ladders().len(), 6);
    }

    #[test]
    fn published_samples() {
        for (board, published) in samples() {
            let s = board.solve().unwrap();
            assert!(
                (s.expected_turns - published).abs() <= 1e-9,
                "{} vs {published}",
                s.expected_turns
            );
            assert!(s.error_bound < 1e-9, "{}", s.error_bound);
            assert_eq!(s.turns[GOAL as usize], 0.0);
        }
    }

    /// The exact answers, and the floating-point ones within their reported bound of them.
    #[test]
    fn exact_answers() {
        for (board, _) in samples() {
            let s = board.solve().unwrap();
            let exact = board.expected_turns_exact(&s.climb).unwrap();
            let x = exact.to_f64().value();
            assert!(
                (s.expected_turns - x).abs() <= s.error_bound + 4.0 * f64::EPSILON * x,
                "{} vs {x} (bound {})",
                s.expected_turns,
                s.error_bound
            );
        }
        let board = LadderBoard::from_heights(&SAMPLE_3).unwrap();
        let s = board.solve().unwrap();
        let exact = board.expected_turns_exact(&s.climb).unwrap();
        // shared/cases/04-cf1245e.md.
        assert_eq!(
            exact.to_string(),
            "126580589255267447674841473/7958661109946400884391936"
        );
    }

    /// Exact policy iteration: from the floating-point policy one evaluation certifies it; from
    /// "climb everything" and "climb nothing" it reaches the same optimum (sample 3's fraction).
    #[test]
    fn exact_policy_iteration() {
        for (board, _) in samples() {
            let s = board.solve().unwrap();
            let from_float = board.optimum_exact(&s.climb).unwrap();
            assert_eq!(from_float.evaluations, 1);
            assert_eq!(from_float.climb, s.climb);
            for start in [vec![true; SQUARES], vec![false; SQUARES]] {
                let e = board.optimum_exact(&start).unwrap();
                assert_eq!(e.expected_turns, from_float.expected_turns);
                assert_eq!(e.turns, from_float.turns);
            }
        }
        let board = LadderBoard::from_heights(&SAMPLE_3).unwrap();
        let e = board.optimum_exact(&[true; SQUARES]).unwrap();
        assert!(e.evaluations > 1);
        assert!(!e.climb[20]);
        assert_eq!(
            e.expected_turns.to_string(),
            "126580589255267447674841473/7958661109946400884391936"
        );
    }

    /// Sample 3: declining the ladder at path position 20 (row 8, column 1, height 1) is optimal;
    /// all six ladders of row 7 are climbed.
    #[test]
    fn declining_a_ladder() {
        let board = LadderBoard::from_heights(&SAMPLE_3).unwrap();
        let s = board.solve().unwrap();
        let d = s.decisions.iter().find(|d| d.ladder.foot == 20).unwrap();
        assert_eq!((d.ladder.row, d.ladder.column, d.ladder.height), (8, 1, 1));
        assert!(!d.climb);
        assert!(d.turns_if_staying < d.turns_if_climbing - 1e-6);
        assert!(!s.climb[20]);
        assert_eq!(s.decisions.iter().filter(|d| d.climb).count(), 6);
        // Climbing it anyway costs turns, exactly.
        let mut always = s.climb.clone();
        always[20] = true;
        assert!(board.expected_turns_exact(&always).unwrap() > board.expected_turns_exact(&s.climb).unwrap());
    }

    /// An independent method: backward dynamic programming over the path positions (ladders lead
    /// only forward, and the only cycles are the stuck rolls, solved in closed form).
    #[test]
    fn agrees_with_backward_induction() {
        for (board, _) in samples() {
            let s = board.solve().unwrap();
            let mut e = [0.0f64; SQUARES];
            for p in (0..GOAL as usize).rev() {
                let mut stuck = 0.0;
                let mut sum = 1.0;
                for r in 1..=6usize {
                    let q = p + r;
                    if q > GOAL as usize {
                        stuck += 1.0 / 6.0;
                    } else {
                        let top = board.top[q] as usize;
                        sum += e[q].min(e[top]) / 6.0;
                    }
                }
                e[p] = sum / (1.0 - stuck);
            }
            for (p, (&dp, &pi)) in e.iter().zip(&s.turns).enumerate() {
                assert!(
                    (dp - pi).abs() <= s.error_bound + 1e-12 * dp,
                    "position {p}: {dp} vs {pi}"
                );
            }
        }
    }

    /// The policy's chain evaluated in floating point, and a seeded Monte Carlo playing the
    /// optimal policy by the rules (|z| < 4).
    #[test]
    fn policy_chain_and_monte_carlo() {
        for (board, _) in samples() {
            let s = board.solve().unwrap();
            let chain = board.policy_chain(&s.climb).unwrap();
            let goal = StateSet::from_states(SQUARES, [GOAL as StateId]);
            let (t, _) = AbsorbingChain::new(&chain, &goal).unwrap().expected_steps();
            for (p, (&chain_t, &pi)) in t.iter().zip(&s.turns).enumerate() {
                assert!((chain_t - pi).abs() <= 1e-9, "position {p}");
            }
            let options = MonteCarloOptions {
                games: 100_000,
                seed: 1245,
                ..MonteCarloOptions::default()
            };
            let mc = absorption_times(&options, None, |rng, max| {
                let mut p = START;
                for turn in 1..=max {
                    let r = rng.random_range(1..=FACES);
                    let q = LadderBoard::moved(p, r);
                    p = if q != p && s.climb[q as usize] {
                        board.top[q as usize]
                    } else {
                        q
                    };
                    if p == GOAL {
                        return Some(turn);
                    }
                }
                None
            })
            .unwrap();
            let z = mc.z_score(s.expected_turns);
            assert!(z.abs() < 4.0, "z = {z}: {mc:?}");
        }
    }

    #[test]
    fn malformed_boards() {
        let mut h = [[0i64; SIDE]; SIDE];
        h[3][4] = 10;
        let e = LadderBoard::from_heights(&h).unwrap_err();
        assert_eq!(
            e.to_string(),
            "row 4, column 5: height 10 is out of range (0 to 9)"
        );
        h[3][4] = -1;
        assert!(matches!(
            InputError::of(&LadderBoard::from_heights(&h).unwrap_err()),
            Some(InputError::LadderSquare {
                row: 4,
                column: 5,
                ..
            })
        ));
        h[3][4] = 4;
        let e = LadderBoard::from_heights(&h).unwrap_err();
        assert_eq!(
            e.to_string(),
            "row 4, column 5: a ladder of height 4 would rise above the top row (at most 3 from row 4)"
        );
        h[3][4] = 3;
        assert_eq!(LadderBoard::from_heights(&h).unwrap().ladders()[0].top, 95);
        let mut h = [[0i64; SIDE]; SIDE];
        h[9][0] = 2;
        let e = LadderBoard::from_heights(&h).unwrap_err();
        assert!(e.to_string().starts_with("row 10, column 1: the start"), "{e}");
        let mut h = [[0i64; SIDE]; SIDE];
        h[0][0] = 1;
        let e = LadderBoard::from_heights(&h).unwrap_err();
        assert!(e.to_string().starts_with("row 1, column 1: the goal"), "{e}");
        let mut h = [[0i64; SIDE]; SIDE];
        h[0][5] = 1;
        let e = LadderBoard::from_heights(&h).unwrap_err();
        assert!(
            e.to_string().contains("above the top row (at most 0 from row 1)"),
            "{e}"
        );
    }

    /// The MDP's shape: 100 standing states, one foot state per ladder (6 in sample 2) with two
    /// choices.
    #[test]
    fn model_shape() {
        let board = LadderBoard::from_heights(&SAMPLE_2).unwrap();
        let m = board.model().unwrap();
        assert_eq!(m.mdp.n(), SQUARES + 6);
        assert_eq!(m.mdp.choices(), SQUARES + 2 * 6);
        assert_eq!(m.rewards.iter().filter(|&&r| r == 1.0).count(), SQUARES - 1);
        assert_eq!(m.goal.count(), 1);
    }
}
