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
    }
}
