//! Repeated products `x ← xᵀA` (a distribution moved on step by step), each by the cheaper of two
//! kernels: while `x` has few nonzero entries, a sequential scatter from its support (the frontier)
//! that also finds the next support; once the support is large, parallel gathers over a
//! [`SlicedTranspose`] built then, once.

use super::CsrMatrix;
use super::gather::{SLICE_COLUMNS, SlicedTranspose};
use crate::StateId;
use rayon::prelude::*;

/// A support of more than `n / SPARSE_FRACTION` states switches to full sweeps: a sequential
/// scatter (scattered updates, then listing the next support) costs about 80 ns per state of the
/// support on a random Snakes and Ladders board of 10⁶ cells (6 entries a row), a parallel sweep
/// about 2.5 ns per state of the whole chain on two cores (shared/peers boards, 2 cores): they
/// break even near `n / 30`.
pub const SPARSE_FRACTION: usize = 32;

/// What one step moved: sums over the new vector in a fixed grouping, the same in both kernels
/// (so the sums do not depend on which ran, nor on the number of threads): within each slice of
/// [`SLICE_COLUMNS`] columns, four partial sums (columns `≡ 0, 1, 2, 3 mod 4`, each in ascending
/// order) combined as `(s₀ + s₁) + (s₂ + s₃)`, then the slices in order; the sink's entries in
/// ascending order within each slice, then the slices in order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepSums {
    /// The sum of the new vector outside the sink (for a distribution: the mass still moving).
    pub mass: f64,
    /// The sum of the new vector's sink entries, which were then set to zero (for a distribution:
    /// the mass absorbed by this step).
    pub absorbed: f64,
}

/// Repeated row-vector products `x ← xᵀA` with a square matrix `A` (`n × n`), optionally with a
/// **sink**: columns whose entries are taken out (summed, then set to zero) after each product.
///
/// Each step is equal bit for bit to [`CsrMatrix::vec_mul`] (then the sink taken out) for finite,
/// non-negative `x`, whichever kernel runs and whatever the number of threads:
/// - sparse: while the support of `x` (its nonzero entries, tracked as a sorted list) has at most
///   `max_sparse` states (default `n /` [`SPARSE_FRACTION`]), a sequential scatter of the rows
///   of the support in ascending order, O(entries of those rows + support · log support);
/// - full: afterwards, gathers over a [`SlicedTranspose`] of `A` (built at the first full step,
///   O(nnz) on the rayon pool), O(nnz) per step on all threads. When the sparse kernel ran first,
///   the copy leaves out rows that can no longer carry mass: those of states outside the support
///   that no state outside the sink enters (the unreachable cells of a board read from a file).
///
/// # Examples
/// ```
/// use kolmo::sparse::{CsrBuilder, Propagator};
///
/// // A walk on 0..=3 that moves right with probability 1/2; 3 is absorbing.
/// let mut b = CsrBuilder::new(4);
/// for s in 0..3 {
///     b.add(s, 0.5);
///     b.add(s + 1, 0.5);
///     b.finish_row();
/// }
/// b.add(3, 1.0);
/// b.finish_row();
/// let p = b.build();
/// let mut walk = Propagator::new(&p, vec![1.0, 0.0, 0.0, 0.0]).with_sink(vec![3]);
/// walk.step();
/// walk.step();
/// let third = walk.step();
/// assert_eq!(third.absorbed, 0.125); // P(T = 3): right three times
/// assert_eq!(third.mass, 0.875); // P(T > 3)
/// ```
#[derive(Debug)]
pub struct Propagator<'a> {
    a: &'a CsrMatrix,
    pull: Option<SlicedTranspose>,
    x: Vec<f64>,
    y: Vec<f64>,
    /// While sparse: a sorted superset of the nonzero entries of `x`.
    support: Option<Vec<StateId>>,
    /// While sparse: a sorted superset of the nonzero entries of `y`.
    stale: Vec<StateId>,
    /// After the last sparse step, until the first full one: the support of `x`.
    last_support: Option<Vec<StateId>>,
    /// One bit per state, all zero between sparse steps (allocated by the first long support).
    marks: Vec<u64>,
    sink: Vec<StateId>,
    max_sparse: usize,
    sparse_steps: u64,
    full_steps: u64,
}

impl<'a> Propagator<'a> {
    /// Starts from the row vector `x` (length `n`), without a sink.
    ///
    /// # Panics
    /// - panics if `a` is not square or `x.len() != a.nrows()`.
    #[must_use]
    #[track_caller]
    pub fn new(a: &'a CsrMatrix, x: Vec<f64>) -> Self {
        assert!(
            a.nrows() == a.ncols() && x.len() == a.nrows(),
            "Propagator: a {}×{} matrix and a vector of length {}",
            a.nrows(),
            a.ncols(),
            x.len()
        );
        let n = x.len();
        let max_sparse = n / SPARSE_FRACTION;
        let mut p = Self {
            a,
            pull: None,
            y: vec![0.0; n],
            x,
            support: None,
            stale: Vec::new(),
            last_support: None,
            marks: Vec::new(),
            sink: Vec::new(),
            max_sparse,
            sparse_steps: 0,
            full_steps: 0,
        };
        p.find_support();
        p
    }

    /// Sets the sink: the states (ascending, no repeats) whose entries are taken out after each
    /// step. The starting vector's entries there are left as they are (and moved on by the first
    /// step).
    ///
    /// # Panics
    /// - panics if `sink` is not strictly increasing or names a state `>= n`.
    #[must_use]
    #[track_caller]
    pub fn with_sink(mut self, sink: Vec<StateId>) -> Self {
        assert!(
            sink.windows(2).all(|w| w[0] < w[1]) && sink.last().is_none_or(|&s| (s as usize) < self.x.len()),
            "Propagator: the sink must be ascending states below {}",
            self.x.len()
        );
        self.sink = sink;
        self
    }

    /// Sets the largest support stepped by the sparse kernel: `0` sweeps the whole matrix from the
    /// first step, `usize::MAX` never does.
    #[must_use]
    pub fn with_max_sparse(mut self, max_sparse: usize) -> Self {
        self.max_sparse = max_sparse;
        self.find_support();
        self
    }

    fn find_support(&mut self) {
        if self.full_steps > 0 {
            return;
        }
        let support: Vec<StateId> = (0..self.x.len())
            .filter(|&s| self.x[s] != 0.0)
            .map(|s| s as StateId)
            .collect();
        // `y` is all zeros until the first step.
        self.support = (support.len() <= self.max_sparse).then_some(support);
    }

    /// Runs `f` (which steps this propagator) on a thread of the rayon pool: the parallel work of
    /// each step then starts there and is shared by stealing, instead of waking the pool from
    /// outside at every step (which costs about as much as a step of a 10⁵-state chain).
    pub fn run<R: Send>(&mut self, f: impl FnOnce(&mut Self) -> R + Send) -> R {
        rayon::scope(|_| f(self))
    }

    /// One step: `x ← xᵀA`, then the sink taken out. The step is reported to the observer of
    /// [`Work::Steps`](crate::progress::Work::Steps), if one is installed, with the mass left
    /// outside the sink (NaN without a sink).
    pub fn step(&mut self) -> StepSums {
        let sums = if self.support.is_some() {
            self.sparse_step()
        } else {
            self.full_step()
        };
        std::mem::swap(&mut self.x, &mut self.y);
        let left = if self.sink.is_empty() { f64::NAN } else { sums.mass };
        crate::progress::report(crate::progress::Work::Steps, 1, left);
        sums
    }

    fn sparse_step(&mut self) -> StepSums {
        self.sparse_steps += 1;
        let support = self.support.take().expect("a sparse step has a support");
        let (x, y) = (&self.x, &mut self.y);
        for &j in &self.stale {
            y[j as usize] = 0.0;
        }
        let mut next = std::mem::take(&mut self.stale);
        next.clear();
        for &i in &support {
            let xi = x[i as usize];
            if xi == 0.0 {
                continue;
            }
            let (cols, vals) = self.a.row(i as usize);
            for (&j, &p) in cols.iter().zip(vals) {
                let yj = &mut y[j as usize];
                if *yj == 0.0 {
                    next.push(j);
                }
                *yj += xi * p;
            }
        }
        // Ascending, once each (a state is listed again when a product underflowed to zero
        // before it): a short list by sorting, a long one through a bitmap of the states.
        let n = x.len();
        if next.len() < n / 1024 {
            next.sort_unstable();
            next.dedup();
        } else {
            let marks = &mut self.marks;
            marks.resize(n.div_ceil(64), 0);
            for &j in &next {
                marks[j as usize / 64] |= 1 << (j % 64);
            }
            next.clear();
            for (w, word) in marks.iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    next.push((w * 64) as StateId + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
        }
        let mut total = StepSums::default();
        for part in next.chunk_by(|&a, &b| a as usize / SLICE_COLUMNS == b as usize / SLICE_COLUMNS) {
            let (mut mass, mut absorbed) = ([0.0; SUM_LANES], 0.0);
            for &j in part {
                let v = &mut y[j as usize];
                if self.sink.binary_search(&j).is_ok() {
                    absorbed += *v;
                    *v = 0.0;
                } else {
                    mass[j as usize % SUM_LANES] += *v;
                }
            }
            total.mass += combine(mass);
            total.absorbed += absorbed;
        }
        self.stale = support;
        if next.len() <= self.max_sparse {
            self.support = Some(next);
        } else {
            self.last_support = Some(next);
        }
        total
    }

    fn full_step(&mut self) -> StepSums {
        self.full_steps += 1;
        if self.pull.is_none() {
            self.pull = Some(match self.last_support.take() {
                Some(support) => SlicedTranspose::with_rows(self.a, &self.live_rows(&support)),
                None => SlicedTranspose::new(self.a),
            });
        }
        let pull = self.pull.as_ref().expect("built above");
        let sink = &self.sink;
        let parts = pull.vec_mul_then(&self.x, &mut self.y, |lo, part| {
            let from = sink.partition_point(|&s| (s as usize) < lo);
            let to = sink.partition_point(|&s| (s as usize) < lo + part.len());
            let mut s = StepSums::default();
            for &j in &sink[from..to] {
                let v = &mut part[j as usize - lo];
                s.absorbed += *v;
                *v = 0.0;
            }
            s.mass = slice_sum(part);
            s
        });
        let mut total = StepSums::default();
        for s in parts {
            total.mass += s.mass;
            total.absorbed += s.absorbed;
        }
        total
    }

    /// Rows that may carry mass from now on: the states of `support` where `x` is nonzero, and
    /// the states outside the sink with a transition from a state outside the sink (a sink entry
    /// is zero after every step, and a state without such a transition gets no mass). On a file's
    /// chain whose unreachable states are never entered (the portal entrances of a Snakes and
    /// Ladders board) that is exactly the reachable part. O(nnz) on the rayon pool.
    fn live_rows(&self, support: &[StateId]) -> Vec<bool> {
        let n = self.x.len();
        let words = n.div_ceil(64);
        let bit = |set: &[u64], s: usize| set[s / 64] >> (s % 64) & 1 == 1;
        let mut sink = vec![0u64; words];
        for &s in &self.sink {
            sink[s as usize / 64] |= 1 << (s % 64);
        }
        let (row_ptr, cols, _) = self.a.as_parts();
        let blocks = rayon::current_num_threads().clamp(1, 64);
        let entered = (0..blocks)
            .into_par_iter()
            .map(|b| {
                let mut set = vec![0u64; words];
                for i in (b * n / blocks..(b + 1) * n / blocks).filter(|&i| !bit(&sink, i)) {
                    for &t in &cols[row_ptr[i]..row_ptr[i + 1]] {
                        set[t as usize / 64] |= 1 << (t % 64);
                    }
                }
                set
            })
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a |= b);
                a
            })
            .unwrap_or_default();
        let mut live: Vec<bool> = (0..n).map(|s| bit(&entered, s) && !bit(&sink, s)).collect();
        for &s in support {
            live[s as usize] |= self.x[s as usize] != 0.0;
        }
        live
    }

    /// The current vector.
    #[must_use]
    pub fn vector(&self) -> &[f64] {
        &self.x
    }

    /// The current vector, taken.
    #[must_use]
    pub fn into_vector(self) -> Vec<f64> {
        self.x
    }

    /// The support tracked by the sparse kernel (ascending states, a superset of the nonzero
    /// entries), or `None` once steps sweep the whole matrix.
    #[must_use]
    pub fn support(&self) -> Option<&[StateId]> {
        self.support.as_deref()
    }

    /// Steps taken by the sparse kernel.
    #[must_use]
    pub fn sparse_steps(&self) -> u64 {
        self.sparse_steps
    }

    /// Steps taken by full sweeps.
    #[must_use]
    pub fn full_steps(&self) -> u64 {
        self.full_steps
    }
}

/// Partial sums per slice: entry `j` goes to partial sum `j mod SUM_LANES` (independent chains of
/// additions, which a sweep adds side by side).
const SUM_LANES: usize = 4;

#[inline]
fn combine(p: [f64; SUM_LANES]) -> f64 {
    (p[0] + p[1]) + (p[2] + p[3])
}

/// The sum of one slice (starting at a multiple of [`SUM_LANES`]) in the fixed grouping.
#[inline]
fn slice_sum(part: &[f64]) -> f64 {
    let mut p = [0.0; SUM_LANES];
    let chunks = part.chunks_exact(SUM_LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for l in 0..SUM_LANES {
            p[l] += c[l];
        }
    }
    for (l, v) in rest.iter().enumerate() {
        p[l] += v;
    }
    combine(p)
}

/// The sum of `x` grouped as the sums of a step are (see [`StepSums`]).
#[must_use]
pub fn sliced_sum(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for part in x.chunks(SLICE_COLUMNS) {
        total += slice_sum(part);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::super::random;
    use super::*;

    /// The plain sequential step: `vec_mul`, then the sink taken out, sums grouped by slice.
    fn reference_step(a: &CsrMatrix, x: &[f64], sink: &[StateId]) -> (Vec<f64>, StepSums) {
        let mut y = vec![0.0; x.len()];
        a.vec_mul(x, &mut y);
        let mut total = StepSums::default();
        for (c, part) in y.chunks_mut(SLICE_COLUMNS).enumerate() {
            let mut s = StepSums::default();
            for &j in sink.iter().filter(|&&j| j as usize / SLICE_COLUMNS == c) {
                s.absorbed += part[j as usize % SLICE_COLUMNS];
                part[j as usize % SLICE_COLUMNS] = 0.0;
            }
            let mut lanes = [0.0; 4];
            for (k, v) in part.iter().enumerate() {
                lanes[k % 4] += v;
            }
            s.mass = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
            total.mass += s.mass;
            total.absorbed += s.absorbed;
        }
        (y, total)
    }

    fn same(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// Runs `steps` steps of a sparse-only, a full-only and a switching propagator against the
    /// reference; returns the switching one's (sparse, full) step counts.
    fn agree(a: &CsrMatrix, start: Vec<f64>, sink: Vec<StateId>, steps: usize) -> (u64, u64) {
        let mut sparse = Propagator::new(a, start.clone())
            .with_sink(sink.clone())
            .with_max_sparse(usize::MAX);
        let mut full = Propagator::new(a, start.clone())
            .with_sink(sink.clone())
            .with_max_sparse(0);
        let mut switching = Propagator::new(a, start.clone()).with_sink(sink.clone());
        let mut x = start;
        for step in 0..steps {
            let (y, want) = reference_step(a, &x, &sink);
            x = y;
            for (name, p) in [
                ("sparse", &mut sparse),
                ("full", &mut full),
                ("switching", &mut switching),
            ] {
                let got = p.step();
                assert_eq!(got.mass.to_bits(), want.mass.to_bits(), "{name} step {step}");
                assert_eq!(
                    got.absorbed.to_bits(),
                    want.absorbed.to_bits(),
                    "{name} step {step}"
                );
                assert!(same(p.vector(), &x), "{name} step {step}");
                if let Some(s) = p.support() {
                    assert!(s.windows(2).all(|w| w[0] < w[1]));
                    let nonzero = x.iter().filter(|v| **v != 0.0).count();
                    assert!(s.len() >= nonzero && s.iter().all(|&j| (j as usize) < x.len()));
                }
            }
        }
        assert_eq!(sparse.full_steps(), 0);
        assert_eq!(full.sparse_steps(), 0);
        (switching.sparse_steps(), switching.full_steps())
    }

    #[test]
    fn kernels_agree_with_the_sequential_product() {
        // A slowly spreading walk: the support grows from one state past n/32, so the switching
        // propagator runs both kernels.
        for (seed, n) in [(1, 3000usize), (2, 5000), (3, 20_000)] {
            let a = random::local_walk(n, 0.002, seed);
            let mut start = vec![0.0; n];
            start[n / 2] = 1.0;
            let sink = vec![0, 17, (n / 2 + 40) as StateId, (n - 1) as StateId];
            let (sparse, full) = agree(&a, start, sink, 400);
            assert!(
                sparse > 0 && full > 0,
                "n = {n}: {sparse} sparse and {full} full steps"
            );
        }
        // Random chains with a long column; a start spread over a third of the states (full at
        // once) and a start in one state.
        let a = random::matrix(4000, 4000, 6, 0.2, true, 4);
        let start: Vec<f64> = random::vector(4000, 5).iter().map(|v| v / 1000.0).collect();
        agree(&a, start, vec![1, 2, 3000], 20);
        let mut one = vec![0.0; 4000];
        one[7] = 1.0;
        let (sparse, full) = agree(&a, one, vec![], 20);
        assert!(sparse > 0 && full > 0);
    }

    #[test]
    fn rows_that_cannot_carry_mass_are_left_out() {
        // A walk on 0..m with the sink m, which leads to the states past m; they lead back into
        // the walk but nothing else enters them: full sweeps leave out every row from m on.
        let (m, n) = (3000usize, 6000usize);
        let mut b = crate::sparse::CsrBuilder::new(n);
        for s in 0..n {
            if s < m {
                b.add(s.saturating_sub(1) as u32, 0.25);
                b.add(s as u32, 0.25);
                b.add((s + 1) as u32, 0.5);
            } else if s == m {
                b.add((m + 1) as u32, 0.5);
                b.add((n - 1) as u32, 0.5);
            } else {
                b.add((s % m) as u32, 1.0);
            }
            b.finish_row();
        }
        let a = b.build();
        let mut start = vec![0.0; n];
        start[0] = 1.0;
        let (sparse, full) = agree(&a, start.clone(), vec![m as StateId], 1200);
        assert!(sparse > 0 && full > 0);
        let mut p = Propagator::new(&a, start).with_sink(vec![m as StateId]);
        while p.full_steps() == 0 {
            p.step();
        }
        let kept = p.pull.as_ref().map(SlicedTranspose::nnz);
        assert_eq!(kept, Some((0..m).map(|s| a.row(s).0.len()).sum()));
    }

    #[test]
    fn underflow_lists_a_state_once() {
        // 5e-324 · 0.25 underflows to 0 before row 1 reaches column 2.
        let a = crate::sparse::from_rows(&[&[(2, 0.25), (0, 0.75)], &[(2, 1.0)], &[(2, 1.0)]]);
        let mut p = Propagator::new(&a, vec![5e-324, 1.0, 0.0]).with_max_sparse(usize::MAX);
        p.step();
        assert_eq!(p.support(), Some(&[0, 2][..]));
        agree(&a, vec![5e-324, 1.0, 0.0], vec![], 3);
    }

    #[test]
    fn results_do_not_depend_on_the_threads() {
        let a = random::local_walk(50_000, 0.01, 9);
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut start = vec![0.0; a.nrows()];
                start[0] = 1.0;
                let mut p = Propagator::new(&a, start)
                    .with_sink(vec![49_999])
                    .with_max_sparse(500);
                let sums: Vec<StepSums> = (0..60).map(|_| p.step()).collect();
                (sums, p.full_steps(), p.into_vector())
            })
        };
        let (sums1, full1, x1) = run(1);
        assert!(full1 > 0);
        for threads in [2, 3] {
            let (sums, full, x) = run(threads);
            assert_eq!(full, full1);
            assert!(same(&x, &x1));
            assert!(
                sums.iter()
                    .zip(&sums1)
                    .all(|(a, b)| a.mass.to_bits() == b.mass.to_bits()
                        && a.absorbed.to_bits() == b.absorbed.to_bits())
            );
        }
    }

    #[test]
    fn sliced_sum_groups_like_the_steps() {
        let x = random::vector(5000, 1);
        let a = random::matrix(5000, 5000, 4, 0.0, true, 2);
        let mut p = Propagator::new(&a, x).with_max_sparse(0);
        let s = p.step();
        assert_eq!(s.mass.to_bits(), sliced_sum(p.vector()).to_bits());
    }
}
