use crate::StateId;

/// A set of states of a model with `n` states, stored as one flag per state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSet {
    bits: Vec<bool>,
}

impl StateSet {
    /// The empty set over `n` states.
    #[must_use]
    pub fn empty(n: usize) -> Self {
        Self { bits: vec![false; n] }
    }

    /// The set of all `n` states.
    #[must_use]
    pub fn full(n: usize) -> Self {
        Self { bits: vec![true; n] }
    }

    /// The set over `n` states holding `states`.
    ///
    /// # Panics
    /// - panics if a state is `>= n`.
    #[must_use]
    #[track_caller]
    pub fn from_states(n: usize, states: impl IntoIterator<Item = StateId>) -> Self {
        let mut s = Self::empty(n);
        for i in states {
            s.insert(i);
        }
        s
    }

    /// Number of states the set ranges over (not its size; see [`count`](Self::count)).
    #[must_use]
    pub fn universe(&self) -> usize {
        self.bits.len()
    }

    /// Number of states in the set.
    #[must_use]
    pub fn count(&self) -> usize {
        self.bits.iter().filter(|&&b| b).count()
    }

    /// Whether the set has no state.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.bits.iter().any(|&b| b)
    }

    /// Whether `s` is in the set.
    ///
    /// # Panics
    /// - panics if `s >= universe()`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn contains(&self, s: StateId) -> bool {
        self.bits[s as usize]
    }

    /// Adds `s`; returns whether it was new.
    ///
    /// # Panics
    /// - panics if `s >= universe()`.
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, s: StateId) -> bool {
        !std::mem::replace(&mut self.bits[s as usize], true)
    }

    /// The states in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = StateId> + '_ {
        self.bits
            .iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| i as StateId)
    }

    /// The complement within the universe.
    #[must_use]
    pub fn complement(&self) -> Self {
        Self {
            bits: self.bits.iter().map(|b| !b).collect(),
        }
    }

    /// The states in the set, ascending, as a vector.
    #[must_use]
    pub fn to_vec(&self) -> Vec<StateId> {
        self.iter().collect()
    }
}
