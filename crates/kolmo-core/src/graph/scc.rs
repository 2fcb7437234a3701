use crate::StateId;
use crate::sparse::CsrMatrix;

/// The strongly connected components of a matrix's graph (an edge `i → j` for every stored entry
/// of any row in group `i`).
#[derive(Clone, Debug)]
pub struct Sccs {
    /// `component[s]` is the component of state `s`. Length `n`.
    pub component: Vec<u32>,
    /// Number of components. Components are numbered in **reverse topological order**: every
    /// edge leads to a component with a number `<=` its own, so component 0 has no edge out of
    /// itself (it is a bottom component).
    pub count: usize,
}

impl Sccs {
    /// For each component, whether it is a **bottom** SCC: no edge leaves it (a closed class of
    /// a Markov chain).
    #[must_use]
    pub fn bottom(&self, matrix: &CsrMatrix) -> Vec<bool> {
        let mut bottom = vec![true; self.count];
        for g in 0..matrix.row_groups() {
            let c = self.component[g];
            for r in matrix.group_rows(g) {
                if matrix.row(r).0.iter().any(|&t| self.component[t as usize] != c) {
                    bottom[c as usize] = false;
                }
            }
        }
        bottom
    }

    /// The number of states in the largest component (0 for an empty graph).
    #[must_use]
    pub fn largest(&self) -> usize {
        let mut size = vec![0u32; self.count];
        self.component.iter().for_each(|&c| size[c as usize] += 1);
        size.into_iter().max().unwrap_or(0) as usize
    }

    /// The members of each component, ascending within a component.
    #[must_use]
    pub fn members(&self) -> Vec<Vec<u32>> {
        let mut m = vec![Vec::new(); self.count];
        for (s, &c) in self.component.iter().enumerate() {
            m[c as usize].push(s as u32);
        }
        m
    }
}

/// Strongly connected components of a matrix's graph: [`sccs_of`] over its row groups.
///
/// # Returns
/// [`Sccs`], components numbered in reverse topological order.
///
/// # Complexity
/// O(n + nnz) time, O(n) auxiliary space.
#[must_use]
pub fn sccs(matrix: &CsrMatrix) -> Sccs {
    sccs_of(matrix.row_groups(), group_successors(matrix))
}

/// The successors of group `g` in the graph of `matrix`: `cols[row_ptr[first row]..row_ptr[last
/// row + 1]]` (the rows of a group are consecutive); repeats across choices are harmless.
fn group_successors<'a>(matrix: &'a CsrMatrix) -> impl Fn(usize) -> &'a [u32] + 'a {
    let (row_ptr, cols, _) = matrix.as_parts();
    move |g| {
        let r = matrix.group_rows(g);
        &cols[row_ptr[r.start]..row_ptr[r.end]]
    }
}

/// Strongly connected components of the graph on `n` vertices whose successors of `v` are
/// `successors(v)` (repeats and self-loops allowed), by Pearce's space-efficient variant of
/// Tarjan's algorithm (D. J. Pearce, "A space-efficient algorithm for finding strongly connected
/// components", Inf. Process. Lett. 116(1), 2016, algorithm PEA_FIND_SCC2; R. Tarjan, "Depth-first
/// search and linear graph algorithms", SIAM J. Comput. 1(2), 1972): one `u32` per vertex serves
/// as discovery index, low link and finally component number, and the depth-first search keeps
/// its own call stack, so long chains cannot overflow the thread's stack.
///
/// # Returns
/// [`Sccs`], components numbered in reverse topological order (component 0 has no edge out of
/// itself).
///
/// # Panics
/// - panics if a successor is `>= n` or `n >= u32::MAX`.
///
/// # Complexity
/// O(n + edges) time, 4n bytes plus the depth of the search in auxiliary space.
pub fn sccs_of<'a>(n: usize, successors: impl Fn(usize) -> &'a [u32]) -> Sccs {
    assert!(n < u32::MAX as usize, "more than 2^32 - 2 vertices");
    // rindex[v]: 0 unvisited; 1..=active while v is on the search path or its stack (its low
    // link); after v's component is complete, `next_component` counting down from n — always
    // above every active value, so the low-link comparisons ignore finished vertices.
    let mut rindex = vec![0u32; n];
    let mut index = 1u32;
    let mut next_component = n as u32;
    let mut stack: Vec<u32> = Vec::new();
    // The search path: (vertex, position in its successors, whether it is still a root).
    let mut calls: Vec<(u32, u32, bool)> = Vec::new();
    for start in 0..n {
        if rindex[start] != 0 {
            continue;
        }
        rindex[start] = index;
        index += 1;
        calls.push((start as u32, 0, true));
        while let Some(frame) = calls.last_mut() {
            let v = frame.0 as usize;
            let succ = successors(v);
            let mut child = None;
            while let Some(&w) = succ.get(frame.1 as usize) {
                let w = w as usize;
                if rindex[w] == 0 {
                    // Descend; on return this successor is looked at again for its low link.
                    rindex[w] = index;
                    index += 1;
                    child = Some(w as u32);
                    break;
                }
                if rindex[w] < rindex[v] {
                    rindex[v] = rindex[w];
                    frame.2 = false;
                }
                frame.1 += 1;
            }
            if let Some(w) = child {
                calls.push((w, 0, true));
                continue;
            }
            let (_, _, root) = calls.pop().expect("the frame just read");
            if root {
                index -= 1;
                while let Some(&w) = stack.last() {
                    if rindex[w as usize] < rindex[v] {
                        break;
                    }
                    stack.pop();
                    rindex[w as usize] = next_component;
                    index -= 1;
                }
                rindex[v] = next_component;
                next_component -= 1;
            } else {
                stack.push(v as u32);
            }
        }
    }
    let count = n - next_component as usize;
    let top = n as u32;
    let component = rindex.into_iter().map(|r| top - r).collect();
    Sccs { component, count }
}

/// The states of a matrix's graph (an edge `i → j` for every stored entry of any row in group
/// `i`) in depth-first **finishing order** (postorder), the searches started from state 0, 1, …
/// in turn: a state comes after every state it reaches unless an edge back to the search path
/// (a cycle) is in the way. A good order for Gauss–Seidel sweeps of backward equations, which
/// then read the new values of most successors (the reverse of the order that topological
/// sorting takes from the finishing times: Cormen, Leiserson, Rivest & Stein, *Introduction to
/// Algorithms*, 3rd ed., §22.4). An explicit stack: long chains cannot overflow the thread's.
///
/// # Returns
/// All `n` states (`n` = the number of row groups), each once.
///
/// # Complexity
/// O(n + nnz) time, 9n bytes auxiliary space.
#[must_use]
pub fn finishing_order(matrix: &CsrMatrix) -> Vec<StateId> {
    let n = matrix.row_groups();
    let successors = group_successors(matrix);
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // The search path: (state, position in its successors).
    let mut calls: Vec<(StateId, u32)> = Vec::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        calls.push((start as StateId, 0));
        while let Some(frame) = calls.last_mut() {
            let succ = successors(frame.0 as usize);
            let next = succ[frame.1 as usize..].iter().position(|&w| !seen[w as usize]);
            match next {
                Some(k) => {
                    let w = succ[frame.1 as usize + k];
                    frame.1 += k as u32 + 1;
                    seen[w as usize] = true;
                    calls.push((w, 0));
                }
                None => {
                    order.push(frame.0);
                    calls.pop();
                }
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    fn graph(edges: &[&[u32]]) -> CsrMatrix {
        let mut b = CsrBuilder::new(edges.len());
        for e in edges {
            for &t in *e {
                b.add(t, 1.0);
            }
            b.finish_row();
        }
        b.build()
    }

    #[test]
    fn finishing_order_puts_successors_first() {
        // 0 -> 1 -> 2 -> 3, 2 -> 0 (a cycle back), 4 -> 1.
        let g = graph(&[&[1], &[2], &[0, 3], &[], &[1]]);
        assert_eq!(finishing_order(&g), vec![3, 2, 1, 0, 4]);
        // A long chain 0 -> 1 -> ... -> n - 1: the last first, without recursion.
        let n = 200_000u32;
        let edges: Vec<Vec<u32>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let refs: Vec<&[u32]> = edges.iter().map(Vec::as_slice).collect();
        let order = finishing_order(&graph(&refs));
        assert!(order.iter().copied().eq((0..n).rev()));
    }

    #[test]
    fn components_in_reverse_topological_order() {
        // 0 -> 1 <-> 2 -> 3 (self loop), 4 -> 4
        let g = graph(&[&[1], &[2], &[1, 3], &[3], &[4]]);
        let s = sccs(&g);
        assert_eq!(s.count, 4);
        assert_eq!(s.component[1], s.component[2]);
        let c = &s.component;
        assert!(c[3] < c[1] && c[1] < c[0]);
        let bottom = s.bottom(&g);
        assert!(bottom[c[3] as usize] && bottom[c[4] as usize]);
        assert_eq!(s.largest(), 2);
        assert!(!bottom[c[1] as usize] && !bottom[c[0] as usize]);
    }

    #[test]
    fn random_graphs_match_mutual_reachability() {
        // A small linear congruential generator keeps the test free of dependencies.
        let mut seed = 0x2545_f491_u64;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        for trial in 0..200 {
            let n = 1 + next(12) as usize;
            let edges: Vec<Vec<u32>> = (0..n)
                .map(|_| (0..next(4)).map(|_| next(n as u64) as u32).collect())
                .collect();
            let s = sccs_of(n, |v| &edges[v]);
            // reach[a][b]: b reachable from a (reflexive), by repeated relaxation.
            let mut reach = vec![vec![false; n]; n];
            for (a, r) in reach.iter_mut().enumerate() {
                r[a] = true;
                let mut todo = vec![a];
                while let Some(v) = todo.pop() {
                    for &w in &edges[v] {
                        if !r[w as usize] {
                            r[w as usize] = true;
                            todo.push(w as usize);
                        }
                    }
                }
            }
            let mut seen = vec![false; s.count];
            for a in 0..n {
                seen[s.component[a] as usize] = true;
                for (b, back) in reach.iter().enumerate() {
                    let same = reach[a][b] && back[a];
                    assert_eq!(s.component[a] == s.component[b], same, "trial {trial}: {a}, {b}");
                }
                for &w in &edges[a] {
                    assert!(
                        s.component[w as usize] <= s.component[a],
                        "trial {trial}: edge {a} -> {w}"
                    );
                }
            }
            assert!(
                seen.iter().all(|&x| x),
                "trial {trial}: component numbers 0..count"
            );
        }
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000u32;
        let mut b = CsrBuilder::new(n as usize);
        for i in 0..n {
            b.add((i + 1) % n, 1.0);
            b.finish_row();
        }
        let s = sccs(&b.build());
        assert_eq!(s.count, 1);
    }
}
