use super::sccs;
use crate::StateId;
use crate::sparse::CsrMatrix;

/// A communicating class of a Markov chain: a strongly connected component of its graph.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Class {
    /// The states, ascending.
    pub states: Vec<StateId>,
    /// Whether no transition leaves the class: a closed (recurrent) class. Otherwise the class is
    /// transient.
    pub closed: bool,
    /// The period: the gcd of the lengths of the class's cycles (1 = aperiodic). `None` for a
    /// single state without a self-loop, which has no cycle (it is left at once and never
    /// re-entered).
    pub period: Option<u64>,
}

impl Class {
    /// Whether the class is a single absorbing state (closed, one state).
    #[must_use]
    pub fn is_absorbing(&self) -> bool {
        self.closed && self.states.len() == 1
    }
}

/// The communicating classes of a Markov chain (Kemeny & Snell, *Finite Markov Chains*, 1960,
/// §2.4; Grinstead & Snell, *Introduction to Probability*, §11.3).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Classes {
    /// The classes, ordered by their smallest state.
    pub classes: Vec<Class>,
    /// `class_of[s]` is the index in `classes` of state `s`'s class; length `n`.
    pub class_of: Vec<u32>,
}

impl Classes {
    /// The closed (recurrent) classes, in order.
    pub fn closed(&self) -> impl Iterator<Item = &Class> {
        self.classes.iter().filter(|c| c.closed)
    }

    /// The states in no closed class (transient states), ascending.
    #[must_use]
    pub fn transient_states(&self) -> Vec<StateId> {
        (0..self.class_of.len() as StateId)
            .filter(|&s| !self.classes[self.class_of[s as usize] as usize].closed)
            .collect()
    }

    /// The absorbing states (closed classes of one state), ascending.
    #[must_use]
    pub fn absorbing_states(&self) -> Vec<StateId> {
        self.closed()
            .filter(|c| c.states.len() == 1)
            .map(|c| c.states[0])
            .collect()
    }

    /// Whether the chain is irreducible: one class holding every state.
    #[must_use]
    pub fn irreducible(&self) -> bool {
        self.classes.len() == 1
    }

    /// Whether the chain is ergodic in the strong sense: irreducible and aperiodic (Grinstead &
    /// Snell call such a chain *regular*; every power `Pᵏ` from some `k` on is positive).
    #[must_use]
    pub fn ergodic(&self) -> bool {
        self.irreducible() && self.classes[0].period == Some(1)
    }
}

/// The communicating classes of the Markov chain with transition matrix `matrix` (`n × n`, one row
/// per state; for a row-grouped matrix, the edges of all rows of a state), whether each is closed,
/// and each class's period (gcd of `level(u) + 1 − level(v)` over the class's edges `u → v`, with
/// levels from a breadth-first search inside the class: Jarvis & Shier, "Graph-theoretic analysis
/// of finite Markov chains", 1999; Denardo, "Periods of connected networks and powers of
/// nonnegative matrices", Math. Oper. Res. 2(1), 1977).
///
/// # Complexity
/// O(n + nnz).
#[must_use]
pub fn classes(matrix: &CsrMatrix) -> Classes {
    let s = sccs(matrix);
    let bottom = s.bottom(matrix);
    let members = s.members();
    // Order the classes by smallest member.
    let mut order: Vec<usize> = (0..s.count).collect();
    order.sort_by_key(|&c| members[c][0]);
    let mut class_of = vec![0u32; s.component.len()];
    let mut position = vec![0u32; s.component.len()];
    let mut classes = Vec::with_capacity(s.count);
    for (index, &c) in order.iter().enumerate() {
        let states = members[c].clone();
        for (i, &v) in states.iter().enumerate() {
            class_of[v as usize] = index as u32;
            position[v as usize] = i as u32;
        }
        let period = period(matrix, &states, &position, &s.component);
        classes.push(Class {
            closed: bottom[c],
            states,
            period,
        });
    }
    Classes { classes, class_of }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The period of the strongly connected `class` (ascending states; `position` maps a state to its
/// index in `class`, `component` to its SCC); `None` if the class has no edge inside.
fn period(matrix: &CsrMatrix, class: &[StateId], position: &[u32], component: &[u32]) -> Option<u64> {
    let inside = |t: StateId| component[t as usize] == component[class[0] as usize];
    let mut level = vec![u64::MAX; class.len()];
    level[0] = 0;
    let mut queue = std::collections::VecDeque::from([0usize]);
    let (mut g, mut any_edge) = (0u64, false);
    while let Some(i) = queue.pop_front() {
        for r in matrix.group_rows(class[i] as usize) {
            for &t in matrix.row(r).0 {
                if !inside(t) {
                    continue;
                }
                any_edge = true;
                let j = position[t as usize] as usize;
                if level[j] == u64::MAX {
                    level[j] = level[i] + 1;
                    queue.push_back(j);
                } else {
                    g = gcd(g, (level[i] + 1).abs_diff(level[j]));
                }
            }
        }
    }
    any_edge.then_some(g.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::from_rows as matrix;

    #[test]
    fn classes_closedness_and_periods() {
        // 0 -> 1 -> 2 -> 0 (period 3, closed); 3 -> {0, 4}; 4 -> 3 (transient class {3, 4},
        // period 2); 5 -> 5 (absorbing); 6 -> 5 (transient, no cycle).
        let p = matrix(&[
            &[(1, 1.0)],
            &[(2, 1.0)],
            &[(0, 1.0)],
            &[(0, 0.5), (4, 0.5)],
            &[(3, 1.0)],
            &[(5, 1.0)],
            &[(5, 1.0)],
        ]);
        let c = classes(&p);
        let summary: Vec<_> = c
            .classes
            .iter()
            .map(|k| (k.states.clone(), k.closed, k.period))
            .collect();
        assert_eq!(
            summary,
            vec![
                (vec![0, 1, 2], true, Some(3)),
                (vec![3, 4], false, Some(2)),
                (vec![5], true, Some(1)),
                (vec![6], false, None),
            ]
        );
        assert_eq!(c.transient_states(), vec![3, 4, 6]);
        assert_eq!(c.absorbing_states(), vec![5]);
        assert_eq!(c.class_of, vec![0, 0, 0, 1, 1, 2, 3]);
        assert!(!c.irreducible() && !c.ergodic());
        // Grinstead & Snell Example 11.16: [[0, 1], [1, 0]] is irreducible with period 2.
        let c = classes(&matrix(&[&[(1, 1.0)], &[(0, 1.0)]]));
        assert!(c.irreducible() && !c.ergodic());
        assert_eq!(c.classes[0].period, Some(2));
    }
}
