//! Solving a sparse system component by component: the strongly connected components of the
//! matrix's graph, in reverse topological order, put `A` in block triangular form, so `A x = b`
//! is a sequence of small systems — one substitution per single state, one factorisation or
//! Krylov solve per larger component — each with a right-hand side reduced by the components
//! already solved.
//!
//! This is the "topological" solving of probabilistic model checkers (Storm's topological
//! solver; Ciesinski, Baier, Größer & Klein, "Reduction techniques for model checking Markov
//! decision processes", QEST 2008, §4) and the classical block triangularisation of sparse
//! matrices (Duff & Reid, "An implementation of Tarjan's algorithm for the block
//! triangularization of a matrix", ACM TOMS 4(2), 1978).

use super::Solvable as Scalar;
use super::factored::{Factored, KRYLOV_FROM, SolveMethod};
use crate::account::LinearSolver;
use crate::graph::{Sccs, sccs_of};
use crate::sparse::{CsrParts, RowSink, par_rows};
use crate::{Error, Result};

/// Split only when at least this fraction of the unknowns lies outside the largest component
/// (for floating point; exact arithmetic always splits, its dense elimination being cubic).
const SPLIT_FRACTION: usize = 20;

/// The same when the largest component is big enough for a Krylov method: then the split saves
/// products in proportion to the unknowns outside it, but copying the component out costs about
/// as much as a few products. Measured on the peer harness's boards (20 % of the cells alone in
/// their component): at 10⁶ cells splitting saved as much as it cost (0.2 s), at 10⁷ cells it
/// cost 0.7 s more than it saved.
const SPLIT_FRACTION_KRYLOV: usize = 3;

/// One diagonal block of the block triangular form.
#[derive(Debug)]
enum Block<T: Scalar> {
    /// A single state: its diagonal entry.
    Single(T),
    /// A component of several states, set up for solves.
    Solver(Box<Factored<T>>),
}

/// An `n × n` matrix `A` in block triangular form by the strongly connected components of its
/// graph, each diagonal block set up for solves by the method [`Factored`] chooses for it.
#[derive(Debug)]
pub struct Topological<T: Scalar> {
    n: usize,
    /// Component `c` holds `members[comp_ptr[c]..comp_ptr[c + 1]]` (ascending); components in
    /// reverse topological order — each row's entries lie in its own component or earlier ones.
    comp_ptr: Vec<usize>,
    members: Vec<u32>,
    /// The entries of `A` outside the member's component, per position in `members` (CSR:
    /// `cross_ptr` has `n + 1` entries, columns are global state indices).
    cross_ptr: Vec<usize>,
    cross_cols: Vec<u32>,
    cross_vals: Vec<T>,
    blocks: Vec<Block<T>>,
    /// The largest component's size.
    largest: usize,
}

impl<T: Scalar> Topological<T> {
    /// Decomposes the `n × n` matrix `A` with rows `rows(i)` (pairs `(column, value)`, repeats
    /// summed), also given in CSR form by `csr = (row_ptr, cols, vals)` when present (sorted rows
    /// without repeats), into strongly connected components, and sets up each block of several states
    /// by [`Factored`]'s automatic choice. Returns `None` when the split would not pay: a single
    /// component, or (in floating point) less than a twentieth of the unknowns outside the
    /// largest one — a third when the largest one has a Krylov method's size.
    ///
    /// # Errors
    /// [`Error::Singular`] naming `what` and the row of a single state whose diagonal entry is zero
    /// or not finite; the errors of [`Factored::new`] for a block.
    ///
    /// # Complexity
    /// O(n + nnz) for the decomposition (Pearce's algorithm, [`sccs_of`]) and the extraction,
    /// plus the set-up of each block.
    pub(crate) fn new<I>(
        n: usize,
        what: &'static str,
        rows: &impl Fn(usize) -> I,
        csr: Option<(&[usize], &[u32], &[T])>,
    ) -> Result<Option<Self>>
    where
        I: Iterator<Item = (u32, T)>,
    {
        // The matrix itself in CSR form.
        let owned;
        let (row_ptr, cols, vals) = match csr {
            Some(a) => a,
            None => {
                owned = super::factored::sorted_csr(n, rows);
                (&owned.0[..], &owned.1[..], &owned.2[..])
            }
        };
        let sccs = sccs_of(n, |v| &cols[row_ptr[v]..row_ptr[v + 1]]);
        Self::with_components(n, what, (row_ptr, cols, vals), &sccs)
    }

    /// [`new`](Self::new) for the matrix in CSR form `csr = (row_ptr, cols, vals)` (sorted rows
    /// without repeats) whose strongly connected components `sccs` are already known.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub(crate) fn with_components(
        n: usize,
        what: &'static str,
        csr: (&[usize], &[u32], &[T]),
        sccs: &Sccs,
    ) -> Result<Option<Self>> {
        let (row_ptr, cols, vals) = csr;
        let count = sccs.count;
        let mut comp_ptr = vec![0usize; count + 1];
        for &c in &sccs.component {
            comp_ptr[c as usize + 1] += 1;
        }
        let largest = comp_ptr.iter().copied().max().unwrap_or(0);
        let fraction = if largest >= KRYLOV_FROM {
            SPLIT_FRACTION_KRYLOV
        } else {
            SPLIT_FRACTION
        };
        if count <= 1 || (!T::EXACT && (n - largest) * fraction < n) {
            return Ok(None);
        }
        for c in 0..count {
            comp_ptr[c + 1] += comp_ptr[c];
        }
        // Members by component, ascending within each; `local[s]` is s's rank in its component.
        let mut members = vec![0u32; n];
        let mut local = vec![0u32; n];
        let mut fill = comp_ptr.clone();
        for (s, &c) in sccs.component.iter().enumerate() {
            let slot = &mut fill[c as usize];
            members[*slot] = s as u32;
            local[s] = (*slot - comp_ptr[c as usize]) as u32;
            *slot += 1;
        }
        drop(fill);
        let component = &sccs.component;
        // The entries within each member's component (local columns) and those across components
        // (global columns), in one parallel two-pass extraction over member positions.
        let [within, cross] = extract(n, |p, out: &mut dyn FnMut(usize, u32, T)| {
            let s = members[p] as usize;
            let c = component[s];
            let r = row_ptr[s]..row_ptr[s + 1];
            for (&j, v) in cols[r.clone()].iter().zip(&vals[r]) {
                if component[j as usize] == c {
                    out(0, local[j as usize], v.clone());
                } else {
                    out(1, j, v.clone());
                }
            }
        });
        let (within_ptr, within_cols, within_vals) = within;
        let (cross_ptr, cross_cols, cross_vals) = cross;
        drop(local);
        let mut blocks = Vec::with_capacity(count);
        for c in 0..count {
            let range = comp_ptr[c]..comp_ptr[c + 1];
            let k = range.len();
            if k == 1 {
                // A single state (most of them, in a chain that mostly moves on): its diagonal,
                // without the block's own row pointers.
                let p = range.start;
                let d = within_vals[within_ptr[p]..within_ptr[p + 1]]
                    .iter()
                    .fold(T::zero(), |acc, v| acc.plus(v));
                let x = d.to_f64();
                if d.is_zero() || !x.is_finite() {
                    return Err(Error::Singular {
                        what,
                        row: members[p] as usize,
                        pivot: x,
                    });
                }
                blocks.push(Block::Single(d));
                continue;
            }
            let base = within_ptr[range.start];
            let ptr: Vec<usize> = within_ptr[range.start..=range.end]
                .iter()
                .map(|&x| x - base)
                .collect();
            let (wc, wv) = (
                &within_cols[base..within_ptr[range.end]],
                &within_vals[base..within_ptr[range.end]],
            );
            let row = |i: usize| {
                let r = ptr[i]..ptr[i + 1];
                wc[r.clone()].iter().copied().zip(wv[r].iter().cloned())
            };
            let f = Factored::choose_whole(k, what, SolveMethod::Auto, row, Some((&ptr[..], wc, wv)), true)?;
            blocks.push(Block::Solver(Box::new(f)));
        }
        Ok(Some(Self {
            n,
            comp_ptr,
            members,
            cross_ptr,
            cross_cols,
            cross_vals,
            blocks,
            largest,
        }))
    }

    /// Solves `A x = b` (or `Aᵀ x = b`) in place, block by block; Krylov blocks stop at the
    /// relative residual `tolerance` when one is given.
    ///
    /// # Panics
    /// - panics if `b` does not have length `n`.
    #[track_caller]
    pub(crate) fn solve(&self, b: &mut [T], tolerance: Option<f64>, transpose: bool) {
        assert_eq!(b.len(), self.n, "right-hand side of the wrong length");
        let count = self.blocks.len();
        let mut local: Vec<T> = Vec::new();
        let block_solve = |f: &Factored<T>, x: &mut [T]| match tolerance {
            Some(t) => f.solve_to(x, t, transpose),
            None if transpose => f.solve_transpose_in_place(x),
            None => f.solve_in_place(x),
        };
        if transpose {
            // Aᵀ x = b: a component's unknowns feed the earlier components, so go from the last
            // component to the first, scattering each solved part into the remaining right-hand
            // side.
            for c in (0..count).rev() {
                let range = self.comp_ptr[c]..self.comp_ptr[c + 1];
                match &self.blocks[c] {
                    Block::Single(d) => {
                        let s = self.members[range.start] as usize;
                        b[s] = b[s].over(d);
                    }
                    Block::Solver(f) => {
                        local.clear();
                        local.extend(self.members[range.clone()].iter().map(|&s| b[s as usize].clone()));
                        block_solve(f, &mut local);
                        for (&s, x) in self.members[range.clone()].iter().zip(local.drain(..)) {
                            b[s as usize] = x;
                        }
                    }
                }
                for p in range {
                    let x = b[self.members[p] as usize].clone();
                    if x.is_zero() {
                        continue;
                    }
                    for e in self.cross_ptr[p]..self.cross_ptr[p + 1] {
                        let j = self.cross_cols[e] as usize;
                        b[j] = b[j].minus(&self.cross_vals[e].times(&x));
                    }
                }
            }
        } else {
            // A x = b: every entry outside a component points to one solved before it.
            let reduced = |b: &[T], p: usize| {
                let s = self.members[p] as usize;
                (self.cross_ptr[p]..self.cross_ptr[p + 1]).fold(b[s].clone(), |acc, e| {
                    acc.minus(&self.cross_vals[e].times(&b[self.cross_cols[e] as usize]))
                })
            };
            for c in 0..count {
                let range = self.comp_ptr[c]..self.comp_ptr[c + 1];
                match &self.blocks[c] {
                    Block::Single(d) => {
                        let s = self.members[range.start] as usize;
                        b[s] = reduced(b, range.start).over(d);
                    }
                    Block::Solver(f) => {
                        local.clear();
                        local.extend(range.clone().map(|p| reduced(b, p)));
                        block_solve(f, &mut local);
                        for (&s, x) in self.members[range].iter().zip(local.drain(..)) {
                            b[s as usize] = x;
                        }
                    }
                }
            }
        }
    }

    /// The number of unknowns.
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// Whether some block is solved approximately (a Krylov method).
    pub(crate) fn is_iterative(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| matches!(b, Block::Solver(f) if f.is_iterative()))
    }

    /// The components and the method of the largest block solved as a system.
    pub(crate) fn solver(&self) -> LinearSolver {
        let singles = self
            .blocks
            .iter()
            .filter(|b| matches!(b, Block::Single(_)))
            .count();
        let big = self
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Solver(f) => Some(f),
                Block::Single(_) => None,
            })
            .max_by_key(|f| f.n());
        LinearSolver::Topological {
            n: self.n,
            components: self.blocks.len(),
            singles,
            largest: big.map(|f| (self.largest, Box::new(f.solver()))),
        }
    }
}

/// One matrix in CSR form: row pointers (`n + 1`), columns, values.
type Csr<T> = (Vec<usize>, Vec<u32>, Vec<T>);

/// Two CSR matrices of `n` rows: row `p` of matrix `m` holds what `row(p, out)` emits as
/// `out(m, column, value)`; built on all cores by [`par_rows`].
fn extract<T: Scalar>(n: usize, row: impl Fn(usize, &mut dyn FnMut(usize, u32, T)) + Sync) -> [Csr<T>; 2] {
    par_rows(
        n,
        T::zero(),
        || (),
        |_, p, out: &mut RowSink<T, 2>| row(p, &mut |m, j, x| out.push(m, j, x)),
    )
    .map(CsrParts::into_arrays)
}

#[cfg(test)]
mod tests {
    use super::super::Solvable as Scalar;
    use super::super::factored::{Factored, SolveMethod};
    use crate::exact::{Rational, Scalar as _};

    /// A substochastic `Q` on `n` states made of strongly connected groups of 1 to `max_group`
    /// states (a ring plus random edges inside each group, self-loops on some single states),
    /// with edges across groups only to earlier groups, and the states renumbered at random so
    /// that the natural order is not topological. Rows as `(column, probability)`, exact dyadic
    /// probabilities (multiples of 1/8) so that rationals and floats see the same matrix.
    fn layered(n: usize, max_group: usize, seed: u64) -> Vec<Vec<(u32, f64)>> {
        let mut state = seed;
        let mut next = move |m: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % m as u64) as usize
        };
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, next(i + 1));
        }
        let mut group_start = vec![0];
        while *group_start.last().unwrap() < n {
            let g = *group_start.last().unwrap();
            group_start.push((g + 1 + next(max_group)).min(n));
        }
        let mut rows = vec![Vec::new(); n];
        for w in group_start.windows(2) {
            let (a, b) = (w[0], w[1]);
            for i in a..b {
                // Eight eighths: some stay inside (ring successor, random member), some go to
                // earlier groups, the rest leave the system (absorbed).
                let mut row: Vec<(u32, f64)> = Vec::new();
                let k = b - a;
                if k > 1 {
                    row.push((perm[a + (i - a + 1) % k] as u32, 2.0 / 8.0));
                    row.push((perm[a + next(k)] as u32, 1.0 / 8.0));
                } else if next(2) == 0 {
                    row.push((perm[i] as u32, 3.0 / 8.0));
                }
                if a > 0 {
                    row.push((perm[next(a)] as u32, 2.0 / 8.0));
                    row.push((perm[next(a)] as u32, 1.0 / 8.0));
                }
                rows[perm[i]] = row;
            }
        }
        rows
    }

    /// Rows of `I − Q` in arithmetic `T`.
    fn i_minus<T: Scalar>(q: &[Vec<(u32, f64)>]) -> impl Fn(usize) -> std::vec::IntoIter<(u32, T)> + '_ {
        move |i| {
            let mut r = vec![(i as u32, T::one())];
            r.extend(q[i].iter().map(|&(j, p)| (j, T::zero().minus(&T::from_f64(p)))));
            r.into_iter()
        }
    }

    #[test]
    fn block_solves_match_a_sparse_lu_of_the_whole_matrix() {
        for seed in 1..=3 {
            let n = 1_500;
            let q = layered(n, 40, seed);
            let rows = i_minus::<f64>(&q);
            let split = Factored::new(n, "test", &rows).unwrap();
            assert!(
                split.method().contains("strongly connected components"),
                "{}",
                split.method()
            );
            // A forced method solves the whole matrix at once.
            let dense = Factored::with_method(n, "test", SolveMethod::SparseLu, &rows).unwrap();
            assert!(!dense.method().contains("components"));
            let b: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64).collect();
            for transpose in [false, true] {
                let (mut x, mut y) = (b.clone(), b.clone());
                if transpose {
                    split.solve_transpose_in_place(&mut x);
                    dense.solve_transpose_in_place(&mut y);
                } else {
                    split.solve_in_place(&mut x);
                    dense.solve_in_place(&mut y);
                }
                let scale = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let worst = x.iter().zip(&y).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                assert!(
                    worst <= 1e-12 * scale,
                    "seed {seed}, transpose {transpose}: {worst:e} of {scale}"
                );
            }
        }
    }

    #[test]
    fn exact_solves_go_beyond_the_dense_limit_when_the_components_are_small() {
        // 900 unknowns: above the 600 a dense rational elimination takes, in blocks of ≤ 30.
        let n = 900;
        assert!(n > <Rational as Scalar>::DENSE_LIMIT);
        let q = layered(n, 30, 7);
        let rows = i_minus::<Rational>(&q);
        let lu = Factored::<Rational>::new(n, "test", &rows).unwrap();
        let b: Vec<Rational> = (0..n).map(|i| Rational::from((i % 5) as i64 + 1)).collect();
        for transpose in [false, true] {
            let mut x = b.clone();
            if transpose {
                lu.solve_transpose_in_place(&mut x);
            } else {
                lu.solve_in_place(&mut x);
            }
            // The exact residual is zero.
            let mut ax = vec![Rational::from(0); n];
            for i in 0..n {
                for (j, a) in rows(i) {
                    let (r, c) = if transpose {
                        (j as usize, i)
                    } else {
                        (i, j as usize)
                    };
                    ax[r] = ax[r].plus(&a.times(&x[c]));
                }
            }
            assert_eq!(ax, b, "transpose {transpose}");
        }
    }

    #[test]
    fn a_single_state_with_a_zero_diagonal_is_singular_at_its_row() {
        let n = 800;
        let q = layered(n, 10, 3);
        // Find a state alone in its component with no self-loop whose row leads elsewhere, and
        // zero its diagonal.
        let bad = (0..n)
            .find(|&i| q[i].len() == 2 && q[i].iter().all(|&(j, _)| j as usize != i))
            .expect("a single state leading to earlier groups");
        let rows = |i: usize| {
            let d = if i == bad { 0.0 } else { 1.0 };
            std::iter::once((i as u32, d)).chain(q[i].iter().map(|&(j, p)| (j, -p)))
        };
        match Factored::new(n, "test", rows) {
            Err(crate::Error::Singular { row, .. }) => assert_eq!(row, bad),
            other => panic!("expected a singular system at row {bad}, got {other:?}"),
        }
    }
}
