use crate::StateId;
use crate::model::{Dtmc, StateSet};
use crate::sparse::CsrMatrix;

/// The states reachable from `from` (including `from`) along stored entries.
///
/// # Complexity
/// O(n + nnz).
#[must_use]
pub fn forward_reachable(matrix: &CsrMatrix, from: &[StateId]) -> StateSet {
    let mut seen = StateSet::empty(matrix.ncols());
    let mut stack: Vec<StateId> = from.iter().copied().filter(|&s| seen.insert(s)).collect();
    while let Some(s) = stack.pop() {
        for r in matrix.group_rows(s as usize) {
            for &t in matrix.row(r).0 {
                if seen.insert(t) {
                    stack.push(t);
                }
            }
        }
    }
    seen
}

/// The least number of steps from any of `from` to a state of `targets` along stored entries with
/// positive value (breadth-first search), or `None` if no target is reachable. This is the
/// minimum of the absorption time, exact even where its probability underflows.
///
/// # Complexity
/// O(n + nnz).
#[must_use]
pub fn shortest_distance(matrix: &CsrMatrix, from: &[StateId], targets: &StateSet) -> Option<u64> {
    let mut seen = StateSet::empty(matrix.ncols());
    let mut frontier: Vec<StateId> = from.iter().copied().filter(|&s| seen.insert(s)).collect();
    let mut d = 0u64;
    while !frontier.is_empty() {
        if frontier.iter().any(|&s| targets.contains(s)) {
            return Some(d);
        }
        let mut next = Vec::new();
        for &s in &frontier {
            for r in matrix.group_rows(s as usize) {
                let (cols, vals) = matrix.row(r);
                for (&t, &p) in cols.iter().zip(vals) {
                    if p > 0.0 && seen.insert(t) {
                        next.push(t);
                    }
                }
            }
        }
        frontier = next;
        d += 1;
    }
    None
}

/// The most steps a path from any of `from` can take along stored entries with positive value
/// before it first enters `targets` (0 when every start is a target): the maximum of the
/// absorption time's support, exact however small its probability. `None` when it is unbounded:
/// a cycle of non-target states is reachable from `from`. Paths that end without entering a
/// target (states with no entry) are not counted.
///
/// Longest paths by Kahn's topological order of the non-target states reachable from `from`
/// (Cormen et al., *Introduction to Algorithms*, §22.4 and §24.2); a state left unordered lies
/// on or behind a cycle.
///
/// # Complexity
/// O(n + nnz).
#[must_use]
pub fn longest_distance(matrix: &CsrMatrix, from: &[StateId], targets: &StateSet) -> Option<u64> {
    let n = matrix.ncols();
    // The non-target states reachable from `from` without passing a target, and their in-degrees
    // from each other.
    let mut inner = StateSet::empty(n);
    let mut stack: Vec<StateId> = from.iter().copied().filter(|&s| !targets.contains(s)).collect();
    stack.retain(|&s| inner.insert(s));
    let mut order = Vec::new();
    let successors = |s: StateId| {
        matrix
            .group_rows(s as usize)
            .flat_map(|r| {
                let (cols, vals) = matrix.row(r);
                cols.iter().zip(vals)
            })
            .filter(|(_, p)| **p > 0.0)
            .map(|(&t, _)| t)
    };
    while let Some(s) = stack.pop() {
        order.push(s);
        for t in successors(s) {
            if !targets.contains(t) && inner.insert(t) {
                stack.push(t);
            }
        }
    }
    let mut indegree = vec![0u32; n];
    for &s in &order {
        for t in successors(s) {
            if inner.contains(t) {
                indegree[t as usize] += 1;
            }
        }
    }
    // dist[s]: the longest path from a start to s; the answer, the longest into a target.
    let mut dist = vec![0u64; n];
    let mut ready: Vec<StateId> = order
        .iter()
        .copied()
        .filter(|&s| indegree[s as usize] == 0)
        .collect();
    let mut done = 0usize;
    let mut longest = 0u64;
    while let Some(s) = ready.pop() {
        done += 1;
        let d = dist[s as usize];
        for t in successors(s) {
            if targets.contains(t) {
                longest = longest.max(d + 1);
            } else if inner.contains(t) {
                dist[t as usize] = dist[t as usize].max(d + 1);
                indegree[t as usize] -= 1;
                if indegree[t as usize] == 0 {
                    ready.push(t);
                }
            }
        }
    }
    (done == order.len()).then_some(longest)
}

/// The states that can reach `targets` along stored entries whose intermediate states all lie
/// in `through` (every state when `None`). The targets themselves are included.
///
/// For a matrix with row groups a state counts as reaching when **some** choice leads on
/// (existential reachability).
///
/// # Panics
/// - panics if `targets` (or `through`) does not range over `matrix.ncols()` states.
///
/// # Complexity
/// O(n + nnz) time, with one transposition of the pattern.
#[must_use]
#[track_caller]
pub fn backward_reachable(matrix: &CsrMatrix, targets: &StateSet, through: Option<&StateSet>) -> StateSet {
    backward_reachable_with(matrix, &matrix.transpose_pattern(), targets, through)
}

/// [`backward_reachable`] with the transposed pattern computed once by the caller.
#[track_caller]
fn backward_reachable_with(
    matrix: &CsrMatrix,
    (ptr, rows): &(Vec<usize>, Vec<u32>),
    targets: &StateSet,
    through: Option<&StateSet>,
) -> StateSet {
    let n = matrix.ncols();
    assert!(targets.universe() == n && through.is_none_or(|t| t.universe() == n));
    let mut group_of_row = Vec::new();
    if !matrix.has_trivial_row_grouping() {
        group_of_row = vec![0u32; matrix.nrows()];
        for g in 0..matrix.row_groups() {
            for r in matrix.group_rows(g) {
                group_of_row[r] = g as u32;
            }
        }
    }
    let mut seen = targets.clone();
    let mut stack: Vec<StateId> = targets.to_vec();
    while let Some(t) = stack.pop() {
        for &r in &rows[ptr[t as usize]..ptr[t as usize + 1]] {
            let s = if group_of_row.is_empty() {
                r
            } else {
                group_of_row[r as usize]
            };
            if through.is_none_or(|th| th.contains(s)) && seen.insert(s) {
                stack.push(s);
            }
        }
    }
    seen
}

/// The states of a Markov chain that reach `target` with probability 0: those with no path to
/// it (Baier & Katoen, *Principles of Model Checking*, 2008, §10.1.1).
///
/// # Panics
/// - panics if `target.universe() != dtmc.n()`.
#[must_use]
#[track_caller]
pub fn prob0(dtmc: &Dtmc, target: &StateSet) -> StateSet {
    backward_reachable(dtmc.matrix(), target, None).complement()
}

/// The states of a Markov chain that reach `target` with probability 1, given `no` = the result
/// of [`prob0`]: those that cannot reach a `no` state without passing through `target`
/// (Baier & Katoen, §10.1.1; Storm's `performProb1`). Valid for finite chains.
///
/// # Panics
/// - panics if the sets do not range over `dtmc.n()` states.
#[must_use]
#[track_caller]
pub fn prob1(dtmc: &Dtmc, target: &StateSet, no: &StateSet) -> StateSet {
    let not_target = target.complement();
    backward_reachable(dtmc.matrix(), no, Some(&not_target)).complement()
}

/// The qualitative split of a chain's states for reaching a target: probability 0 (`no`),
/// probability 1 (`yes`, the target included) and the rest (`maybe`).
#[derive(Clone, Debug)]
pub struct Qualitative {
    /// States reaching the target with probability 0.
    pub no: StateSet,
    /// States reaching the target with probability 1 (including the target).
    pub yes: StateSet,
    /// States reaching the target with a probability strictly between 0 and 1.
    pub maybe: StateSet,
}

impl Qualitative {
    /// The split for `target` in `dtmc`: [`prob0`], then [`prob1`].
    ///
    /// # Panics
    /// - panics if `target.universe() != dtmc.n()`.
    #[must_use]
    #[track_caller]
    pub fn new(dtmc: &Dtmc, target: &StateSet) -> Self {
        let m = dtmc.matrix();
        let transposed = m.transpose_pattern();
        let no = backward_reachable_with(m, &transposed, target, None).complement();
        let yes = backward_reachable_with(m, &transposed, &no, Some(&target.complement())).complement();
        let n = dtmc.n();
        let maybe = StateSet::from_states(
            n,
            (0..n as StateId).filter(|&s| !no.contains(s) && !yes.contains(s)),
        );
        Self { no, yes, maybe }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    #[test]
    fn prob01_of_a_walk_with_a_trap() {
        // 0 -> {1, 2}; 1 -> 3 (target); 2 -> 2 (trap); 3 -> 3; 4 -> {4, 3}
        let mut b = CsrBuilder::new(5);
        for row in [
            &[(1, 0.5), (2, 0.5)][..],
            &[(3, 1.0)],
            &[(2, 1.0)],
            &[(3, 1.0)],
            &[(4, 0.5), (3, 0.5)],
        ] {
            for &(c, p) in row {
                b.add(c, p);
            }
            b.finish_row();
        }
        let d = Dtmc::new(b.build(), vec![0]).unwrap();
        let target = StateSet::from_states(5, [3]);
        let q = Qualitative::new(&d, &target);
        assert_eq!(q.no.to_vec(), vec![2]);
        assert_eq!(q.yes.to_vec(), vec![1, 3, 4]);
        assert_eq!(q.maybe.to_vec(), vec![0]);
        assert_eq!(forward_reachable(d.matrix(), &[0]).to_vec(), vec![0, 1, 2, 3]);
        assert_eq!(shortest_distance(d.matrix(), &[0], &target), Some(2));
        assert_eq!(shortest_distance(d.matrix(), &[2], &target), None);
        assert_eq!(shortest_distance(d.matrix(), &[3], &target), Some(0));
        // The trap 2 -> 2 is a cycle reachable from 0: unbounded; from 1 one step; from 3 none.
        assert_eq!(longest_distance(d.matrix(), &[0], &target), None);
        assert_eq!(longest_distance(d.matrix(), &[1], &target), Some(1));
        assert_eq!(longest_distance(d.matrix(), &[3], &target), Some(0));
        assert_eq!(longest_distance(d.matrix(), &[4], &target), None);
    }

    /// Longest against shortest paths on a ladder 0 -> 1 -> ... -> 5 with a shortcut 0 -> 4 and
    /// an entry of value 0 (not a transition) 1 -> 1: between 2 and 5 steps to the target 5.
    #[test]
    fn longest_paths_of_a_dag() {
        let mut b = CsrBuilder::new(6);
        for s in 0..5u32 {
            if s == 1 {
                b.add(1, 0.0);
            }
            b.add(s + 1, 0.5);
            if s == 0 {
                b.add(4, 0.5);
            }
            b.finish_row();
        }
        b.add(5, 1.0);
        b.finish_row();
        let m = b.build();
        let target = StateSet::from_states(6, [5]);
        assert_eq!(shortest_distance(&m, &[0], &target), Some(2));
        assert_eq!(longest_distance(&m, &[0], &target), Some(5));
        assert_eq!(longest_distance(&m, &[0, 3], &target), Some(5));
        assert_eq!(longest_distance(&m, &[3], &target), Some(2));
    }
}
