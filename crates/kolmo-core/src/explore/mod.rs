//! Reachable-state exploration: a model is described by its initial states and a successor
//! function (a [`Generator`]); [`explore`] numbers the reachable states breadth-first and
//! assembles the row-grouped matrix. This is the split between Storm's
//! `generator/NextStateGenerator` and `builder/ExplicitModelBuilder`: built-in games implement
//! only the generator.

use crate::interrupt;
use crate::model::{Dtmc, Player};
use crate::sparse::{CsrBuilder, CsrMatrix};
use crate::{Error, Result, StateId};
use std::collections::HashMap;
use std::collections::VecDeque;
use std::fmt::Debug;
use std::hash::Hash;

/// A model described by its initial states and successor function.
pub trait Generator {
    /// A state of the model, as the generator sees it (a cell, a pair of hands, ...).
    type State: Clone + Eq + Hash + Debug;

    /// The initial states. They receive the ids `0, 1, ...` in this order (duplicates keep
    /// their first id), so a generator can list every state here to fix the numbering.
    fn initial_states(&self) -> Vec<Self::State>;

    /// Writes the choices of `state` into `out`. A Markov chain calls only
    /// [`Successors::add`]; an MDP or game opens each choice with [`Successors::choice`] (or
    /// [`Successors::choice_with_reward`]).
    fn expand(&self, state: &Self::State, out: &mut Successors<Self::State>);

    /// Who chooses in `state` (games only; the maximiser by default).
    fn owner(&self, _state: &Self::State) -> Player {
        Player::Max
    }
}

/// The successors of one state, grouped into choices, filled by [`Generator::expand`].
#[derive(Debug, Default)]
pub struct Successors<S> {
    entries: Vec<(S, f64)>,
    starts: Vec<usize>,
    /// Reward of each choice.
    rewards: Vec<f64>,
}

impl<S> Successors<S> {
    /// An empty collection (for generators that expand a sub-model themselves, as a race expands
    /// one player's board).
    #[must_use]
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            starts: Vec::new(),
            rewards: Vec::new(),
        }
    }

    /// The collected `(state, probability)` pairs, all choices together.
    #[must_use]
    pub fn take_entries(self) -> Vec<(S, f64)> {
        self.entries
    }

    /// Forgets every choice and successor added so far.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.starts.clear();
        self.rewards.clear();
    }

    /// Opens a new choice (an action); the following [`add`](Self::add) calls belong to it.
    pub fn choice(&mut self) {
        self.choice_with_reward(0.0);
    }

    /// Opens a new choice that earns `reward` when taken (an action reward, e.g. points scored).
    pub fn choice_with_reward(&mut self, reward: f64) {
        self.starts.push(self.entries.len());
        self.rewards.push(reward);
    }

    /// Adds a transition to `state` with probability `p` to the current choice (opening the
    /// first choice if none is open). Repeated successors are summed.
    pub fn add(&mut self, state: S, p: f64) {
        if self.starts.is_empty() {
            self.starts.push(0);
            self.rewards.push(0.0);
        }
        self.entries.push((state, p));
    }
}

/// An explored model: the row-grouped transition matrix (`n` groups, one per state, with one
/// row per choice; `n` columns), the state behind each id and the initial states' ids.
#[derive(Debug, Clone)]
pub struct Explored<S> {
    /// The transition matrix, row group `s` holding the choices of state `s`.
    pub matrix: CsrMatrix,
    /// `states[s]` is the generator's state with id `s`. Length `n`.
    pub states: Vec<S>,
    /// Ids of the initial states.
    pub initial: Vec<StateId>,
    /// The reward of each row (choice), length `matrix.nrows()`.
    pub rewards: Vec<f64>,
    /// Who chooses in each state ([`Generator::owner`]), length `n`.
    pub owners: Vec<Player>,
}

/// Options for [`explore`].
#[derive(Debug, Clone, Copy)]
pub struct ExploreOptions {
    /// Stop with [`Error::TooManyStates`] beyond this many states (at most `u32::MAX`).
    pub max_states: usize,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        Self {
            max_states: u32::MAX as usize,
        }
    }
}

/// Explores the states reachable from `generator`'s initial states, breadth-first.
///
/// # Returns
/// The model as an [`Explored`]: ids are assigned in discovery order (initial states first).
///
/// # Errors
/// [`Error::TooManyStates`] if more than `options.max_states` states are reachable;
/// [`Error::Deadlock`] if a state has no choice; [`Error::Interrupted`] if a stop is requested
/// ([`crate::interrupt`], checked every 256 expansions).
///
/// The states discovered are reported every 4096 expansions, and at the end, to the observer of
/// [`Work::Exploration`](crate::progress::Work::Exploration) if one is installed.
///
/// # Complexity
/// O(states + transitions) hash-map operations.
pub fn explore<G: Generator>(generator: &G, options: ExploreOptions) -> Result<Explored<G::State>> {
    let limit = options.max_states.min(u32::MAX as usize);
    // foldhash, not SipHash: hashing states is much of exploration's time.
    let mut ids: HashMap<G::State, StateId, foldhash::fast::RandomState> = HashMap::default();
    let mut states: Vec<G::State> = Vec::new();
    let mut queue = VecDeque::new();
    let mut intern = |s: &G::State, states: &mut Vec<G::State>, queue: &mut VecDeque<StateId>| {
        if let Some(&id) = ids.get(s) {
            return Ok(id);
        }
        if states.len() >= limit {
            return Err(Error::TooManyStates { limit });
        }
        let id = states.len() as StateId;
        ids.insert(s.clone(), id);
        states.push(s.clone());
        queue.push_back(id);
        Ok(id)
    };
    let mut initial = Vec::new();
    for s in generator.initial_states() {
        initial.push(intern(&s, &mut states, &mut queue)?);
    }
    initial.dedup();
    let mut builder = CsrBuilder::new(0);
    let mut rewards = Vec::new();
    let mut owners = Vec::new();
    let mut out = Successors::new();
    let mut targets = Vec::new();
    // Ids are handed out in queue order, so popping the queue visits states in id order and
    // row group `s` is state `s`.
    // States discovered and already reported to the progress observer.
    let mut reported = 0;
    while let Some(id) = queue.pop_front() {
        if id % 4096 == 4095 {
            report_discovered(states.len(), &mut reported);
        }
        if id % 256 == 0 {
            interrupt::check()?;
        }
        out.clear();
        generator.expand(&states[id as usize], &mut out);
        if out.entries.is_empty() {
            return Err(Error::Deadlock {
                state: id,
                name: format!("{:?}", states[id as usize]),
            });
        }
        targets.clear();
        for (s, _) in &out.entries {
            targets.push(intern(s, &mut states, &mut queue)?);
        }
        builder.new_row_group();
        owners.push(generator.owner(&states[id as usize]));
        rewards.extend_from_slice(&out.rewards);
        let mut bounds = out.starts.clone();
        bounds.push(out.entries.len());
        for w in bounds.windows(2) {
            for (&t, (_, p)) in targets[w[0]..w[1]].iter().zip(&out.entries[w[0]..w[1]]) {
                builder.add(t, *p);
            }
            builder.finish_row();
        }
    }
    report_discovered(states.len(), &mut reported);
    builder.set_ncols(states.len());
    Ok(Explored {
        matrix: builder.build(),
        states,
        initial,
        rewards,
        owners,
    })
}

/// States expanded per parallel task in [`explore_parallel`].
const CHUNK: usize = 512;

/// [`explore`] with the expansions in parallel: breadth-first layer by layer, each layer's states
/// expanded on all cores (in chunks), then their successors numbered in the layer's order, one
/// state after another. That is the order [`explore`] numbers them in, so the model, its state
/// ids and the matrix are the same whatever the number of threads.
///
/// # Errors
/// As [`explore`].
pub fn explore_parallel<G>(generator: &G, options: ExploreOptions) -> Result<Explored<G::State>>
where
    G: Generator + Sync,
    G::State: Send + Sync,
{
    use rayon::prelude::*;
    let limit = options.max_states.min(u32::MAX as usize);
    let mut ids: HashMap<G::State, StateId, foldhash::fast::RandomState> = HashMap::default();
    let mut states: Vec<G::State> = Vec::new();
    let mut initial = Vec::new();
    for s in generator.initial_states() {
        let id = match ids.get(&s) {
            Some(&id) => id,
            None => {
                if states.len() >= limit {
                    return Err(Error::TooManyStates { limit });
                }
                let id = states.len() as StateId;
                ids.insert(s.clone(), id);
                states.push(s);
                id
            }
        };
        initial.push(id);
    }
    initial.dedup();
    let mut builder = CsrBuilder::new(0);
    let mut rewards = Vec::new();
    let mut owners = Vec::new();
    let mut reported = 0;
    let mut next = 0usize;
    // One chunk's expansions: every state's successors in one list, with where each state's
    // entries and choices start.
    struct Chunk<S> {
        out: Successors<S>,
        /// Per state: (first entry, first choice, owner).
        marks: Vec<(usize, usize, Player)>,
    }
    while next < states.len() {
        let layer_end = states.len();
        let chunks: Vec<Chunk<G::State>> = states[next..layer_end]
            .par_chunks(CHUNK)
            .map(|block| {
                let mut chunk = Chunk {
                    out: Successors::new(),
                    marks: Vec::with_capacity(block.len()),
                };
                let mut one = Successors::new();
                if interrupt::requested() {
                    // Stopped: the chunk stays empty and the check below returns.
                    return chunk;
                }
                for s in block {
                    one.clear();
                    generator.expand(s, &mut one);
                    let (e0, c0) = (chunk.out.entries.len(), chunk.out.starts.len());
                    chunk.marks.push((e0, c0, generator.owner(s)));
                    chunk.out.starts.extend(one.starts.iter().map(|x| x + e0));
                    chunk.out.rewards.extend_from_slice(&one.rewards);
                    chunk.out.entries.append(&mut one.entries);
                }
                chunk
            })
            .collect();
        interrupt::check()?;
        let mut id = next;
        for chunk in &chunks {
            let Chunk { out, marks } = chunk;
            for (k, &(e0, c0, owner)) in marks.iter().enumerate() {
                let (e1, c1) = marks
                    .get(k + 1)
                    .map_or((out.entries.len(), out.starts.len()), |m| (m.0, m.1));
                if e0 == e1 {
                    return Err(Error::Deadlock {
                        state: id as StateId,
                        name: format!("{:?}", states[id]),
                    });
                }
                builder.new_row_group();
                owners.push(owner);
                rewards.extend_from_slice(&out.rewards[c0..c1]);
                for c in c0..c1 {
                    let end = if c + 1 < c1 { out.starts[c + 1] } else { e1 };
                    for (t, p) in &out.entries[out.starts[c]..end] {
                        let tid = match ids.get(t) {
                            Some(&tid) => tid,
                            None => {
                                if states.len() >= limit {
                                    return Err(Error::TooManyStates { limit });
                                }
                                let tid = states.len() as StateId;
                                ids.insert(t.clone(), tid);
                                states.push(t.clone());
                                tid
                            }
                        };
                        builder.add(tid, *p);
                    }
                    builder.finish_row();
                }
                id += 1;
            }
        }
        next = layer_end;
        report_discovered(states.len(), &mut reported);
    }
    builder.set_ncols(states.len());
    Ok(Explored {
        matrix: builder.build(),
        states,
        initial,
        rewards,
        owners,
    })
}

/// Reports the states discovered since the last report to the observer of
/// [`Work::Exploration`](crate::progress::Work::Exploration).
fn report_discovered(discovered: usize, reported: &mut usize) {
    crate::progress::report(
        crate::progress::Work::Exploration,
        (discovered - *reported) as u64,
        f64::NAN,
    );
    *reported = discovered;
}

impl<S: Debug> Explored<S> {
    /// The explored model as a turn-based game (owners from [`Generator::owner`], rewards from
    /// [`Successors::choice_with_reward`]).
    ///
    /// # Errors
    /// As [`Game::new`](crate::model::Game::new).
    pub fn into_game(self) -> Result<crate::model::Game> {
        crate::model::Game::new(self.matrix, self.owners, self.rewards, self.initial)
    }

    /// The explored model as a Markov chain, states named by their `Debug` form.
    ///
    /// # Errors
    /// As [`Dtmc::new`]: a state with several choices, or a bad distribution, named by state.
    pub fn into_dtmc(self) -> Result<Dtmc> {
        if let Some(g) = (0..self.matrix.row_groups()).find(|&g| self.matrix.group_rows(g).len() != 1) {
            return Err(Error::arg(
                "model",
                format!(
                    "state {g} ({:?}) has {} choices; a Markov chain has one",
                    self.states[g],
                    self.matrix.group_rows(g).len()
                ),
            ));
        }
        let names = self.states.iter().map(|s| format!("{s:?}")).collect();
        Ok(Dtmc::new(self.matrix, self.initial)?.with_names(names))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random walk on 0..=4 that stops at both ends.
    struct Walk;
    impl Generator for Walk {
        type State = i32;
        fn initial_states(&self) -> Vec<i32> {
            vec![2]
        }
        fn expand(&self, s: &i32, out: &mut Successors<i32>) {
            if *s == 0 || *s == 4 {
                out.add(*s, 1.0);
            } else {
                out.add(s - 1, 0.5);
                out.add(s + 1, 0.5);
            }
        }
    }

    /// A game on a 60 × 60 grid: the owner moves right or down (choices with rewards), or stays
    /// with probability 1/3 — thousands of states over many layers and chunks.
    struct Grid;
    impl Generator for Grid {
        type State = (u32, u32);
        fn initial_states(&self) -> Vec<(u32, u32)> {
            vec![(0, 0), (5, 7)]
        }
        fn expand(&self, &(x, y): &(u32, u32), out: &mut Successors<(u32, u32)>) {
            out.choice_with_reward(f64::from(x));
            out.add(((x + 1) % 60, y), 2.0 / 3.0);
            out.add((x, y), 1.0 / 3.0);
            out.choice_with_reward(f64::from(y));
            out.add((x, (y + 1) % 60), 2.0 / 3.0);
            out.add(((x + 7) % 60, (y + 3) % 60), 1.0 / 3.0);
        }
        fn owner(&self, &(x, _): &(u32, u32)) -> Player {
            if x % 2 == 0 { Player::Max } else { Player::Min }
        }
    }

    #[test]
    fn parallel_exploration_numbers_states_as_the_sequential_one() {
        let a = explore(&Grid, ExploreOptions::default()).unwrap();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let b = pool.install(|| explore_parallel(&Grid, ExploreOptions::default()).unwrap());
            assert_eq!(a.states.len(), 3600);
            assert_eq!(a.states, b.states);
            assert_eq!(a.initial, b.initial);
            assert_eq!(a.matrix.as_parts(), b.matrix.as_parts());
            assert_eq!(a.rewards, b.rewards);
            assert_eq!(a.owners, b.owners);
        }
        let e = explore_parallel(&Grid, ExploreOptions { max_states: 100 }).unwrap_err();
        assert!(matches!(e, Error::TooManyStates { limit: 100 }), "{e}");
    }

    #[test]
    fn explores_breadth_first() {
        let e = explore(&Walk, ExploreOptions::default()).unwrap();
        assert_eq!(e.states, vec![2, 1, 3, 0, 4]);
        assert_eq!(e.initial, vec![0]);
        assert_eq!(e.matrix.row(0), (&[1u32, 2][..], &[0.5, 0.5][..]));
        let d = e.into_dtmc().unwrap();
        assert_eq!(d.absorbing_states().to_vec(), vec![3, 4]);
        assert_eq!(d.state_name(3), "0");
    }

    #[test]
    fn state_limit() {
        let e = explore(&Walk, ExploreOptions { max_states: 3 }).unwrap_err();
        assert!(matches!(e, Error::TooManyStates { limit: 3 }));
    }
}
