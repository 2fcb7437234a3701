//! Reachable-state exploration: a model is described by its initial states and a successor
//! function (a [`Generator`]); [`explore`] numbers the reachable states breadth-first and
//! assembles the row-grouped matrix. This is the split between Storm's
//! `generator/NextStateGenerator` and `builder/ExplicitModelBuilder`: built-in games implement
//! only the generator.

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

    fn clear(&mut self) {
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
/// [`Error::Deadlock`] if a state has no choice.
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
