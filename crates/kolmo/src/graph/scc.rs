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

/// Strongly connected components by Tarjan's algorithm (R. Tarjan, "Depth-first search and
/// linear graph algorithms", SIAM J. Comput. 1(2), 1972), iterative so that long chains cannot
/// overflow the stack.
///
/// # Returns
/// [`Sccs`], components numbered in reverse topological order.
///
/// # Complexity
/// O(n + nnz) time, O(n) auxiliary space.
#[must_use]
pub fn sccs(matrix: &CsrMatrix) -> Sccs {
    const UNSEEN: u32 = u32::MAX;
    let n = matrix.row_groups();
    let (row_ptr, cols, _) = matrix.as_parts();
    // Successors of group g: cols[row_ptr[first row]..row_ptr[last row + 1]] (rows of a group are
    // consecutive); duplicates across choices are harmless.
    let adj = |g: usize| {
        let r = matrix.group_rows(g);
        &cols[row_ptr[r.start]..row_ptr[r.end]]
    };
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut count = 0u32;
    let mut next = 0u32;
    // Call stack of (node, position in its successor list).
    let mut calls: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        calls.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let vu = v as usize;
            if *pos == 0 && index[vu] == UNSEEN {
                index[vu] = next;
                low[vu] = next;
                next += 1;
                stack.push(v);
                on_stack[vu] = true;
            }
            let mut descended = false;
            let targets = adj(vu);
            while *pos < targets.len() {
                let w = targets[*pos];
                *pos += 1;
                let wu = w as usize;
                if index[wu] == UNSEEN {
                    calls.push((w, 0));
                    descended = true;
                    break;
                } else if on_stack[wu] {
                    low[vu] = low[vu].min(index[wu]);
                }
            }
            if descended {
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[vu]);
            }
            if low[vu] == index[vu] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    component[w as usize] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    Sccs {
        component,
        count: count as usize,
    }
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
        assert!(!bottom[c[1] as usize] && !bottom[c[0] as usize]);
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
