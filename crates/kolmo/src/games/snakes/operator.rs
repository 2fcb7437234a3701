//! The matrix `I − Q` of a board applied from its jump table and its die, without a matrix.
//!
//! Row `i` of `Q` (cell `i` before the last one) is: face `f` with probability `p_f` leads to
//! `step(i, f) = jump[i + f]` (for `i + F ≤ size`). A product therefore reads the jump table's
//! entries `i + 1 ..= i + F`, consecutive for consecutive rows — about 4 bytes per cell where a CSR
//! matrix streams about 38 (column indices, value codes, row pointers). The rows where the closed
//! form does not apply — the last `F` cells (the rule for rolls past the end), rows with a move to
//! the last cell (absorbing, not an unknown), and rows where two faces lead to the same cell — are
//! kept as a short explicit list with exactly the probabilities of the CSR chain
//! ([`BoardChain`](super::BoardChain): faces leading to one cell merged on their weights), so both
//! paths solve the same `Q`.
//!
//! For the Krylov solver ([`MatrixFree`](crate::linsolve::MatrixFree)) `I − Q` is split as
//! `M + R`, `M` the diagonal and the heavier triangle (the forward moves on any usual board), `R`
//! the rest (the snakes), and the operator supplies the Gauss–Seidel substitution with `M`, the
//! product with `R` and the residual — the preconditioned product `v + R M⁻¹ v` of Eisenstat's
//! trick (Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., §9.3, §10.2) — plus the
//! residual `b − (I − Q)x` in twice the working precision that certifies the result.

use super::{Board, BoardChain};
use crate::explore::{Generator, Successors};
use crate::linsolve::SplitOperator;
use crate::linsolve::prefetch;
use crate::numeric::{Dot2, rows_with_fma};
use rayon::prelude::*;

/// Rows per parallel task (fixed: results do not depend on the number of threads).
const CHUNK: usize = 1 << 14;

/// Largest die handled by the closed form (beyond it a row reads too many cells for the operator
/// to beat a CSR matrix with merged entries).
pub const MAX_OPERATOR_FACES: usize = 16;

/// Rows ahead at which the kernels prefetch a portal's far end.
const PREFETCH: usize = 32;

/// `I − Q` of a board over its cells `0..size` (every cell but the last), as a [`SplitOperator`].
///
/// # Invariants
/// Every cell reaches the last cell with probability 1 (checked by [`new`](Self::new)), so `I − Q`
/// is non-singular and its unknowns are exactly the cells `0..size`.
#[derive(Debug)]
pub struct BoardOperator<'a> {
    jump: &'a [u32],
    /// Unknowns: cells `0..n`, `n = size`.
    n: usize,
    /// `p_f` for faces `1..=F`.
    probabilities: Vec<f64>,
    /// Whether `M` holds the forward moves (swept from the last cell down).
    upper: bool,
    /// Rows given explicitly, ascending, with their entries (the last cell left out) in
    /// `ptr[k]..ptr[k + 1]` of `cols`/`vals`, sorted by column.
    rows: Vec<u32>,
    ptr: Vec<usize>,
    cols: Vec<u32>,
    vals: Vec<f64>,
    /// Per explicit row, the diagonal of `I − Q`: the row's exit mass `Σ_{j≠i} q_ij` (the last
    /// cell included) when it has a self-loop, else exactly 1.
    exits: Vec<f64>,
    /// Per explicit row, the probability of moving to the last cell in one roll (0 for the rows
    /// of the closed form, which never do): with the entries, the parameters of `I − Q` the
    /// certifying residual uses.
    outs: Vec<f64>,
}

impl<'a> BoardOperator<'a> {
    /// The operator of `board`, or `None` when it does not apply: a die of more than
    /// [`MAX_OPERATOR_FACES`] faces, or a cell from which the last cell is not reached with
    /// probability 1 (those boards go through the chain's graph analysis, which names the cells).
    ///
    /// # Complexity
    /// O(size · F²) time in parallel and O(size) bits, plus a sequential pass over the cells for
    /// the reachability check.
    #[must_use]
    pub fn new(board: &'a Board) -> Option<Self> {
        let faces = board.probabilities.len();
        if faces > MAX_OPERATOR_FACES {
            return None;
        }
        let size = board.size as usize;
        let n = size;
        let jump = &board.jump[..];
        if !every_cell_finishes(board) {
            return None;
        }
        // The rows outside the closed form, and the weights of the two triangles, by chunks.
        let regular = |i: usize| {
            if i + faces > size {
                return false;
            }
            let t = &jump[i + 1..=i + faces];
            t.iter()
                .enumerate()
                .all(|(a, &x)| x as usize != size && !t[..a].contains(&x))
        };
        let parts: Vec<(Vec<u32>, f64, f64)> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let (mut rows, mut up, mut down) = (Vec::new(), 0.0, 0.0);
                for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                    if !regular(i) {
                        rows.push(i as u32);
                    }
                    for (f, &p) in board.probabilities.iter().enumerate() {
                        let j = board.step(i as u32, f as u32 + 1) as usize;
                        if j == size {
                            continue;
                        }
                        if j > i {
                            up += p;
                        } else if j < i {
                            down += p;
                        }
                    }
                }
                (rows, up, down)
            })
            .collect();
        let (up, down) = parts.iter().fold((0.0, 0.0), |(a, b), p| (a + p.1, b + p.2));
        let rows: Vec<u32> = parts.into_iter().flat_map(|p| p.0).collect();
        let (mut ptr, mut cols, mut vals) = (vec![0], Vec::new(), Vec::new());
        let mut exits = Vec::with_capacity(rows.len());
        let mut outs = Vec::with_capacity(rows.len());
        let chain = BoardChain(board);
        for &i in &rows {
            let mut out = Successors::new();
            chain.expand(&i, &mut out);
            let (mut exit, mut self_loop, mut finish) = (0.0, false, 0.0);
            for (j, p) in out.take_entries() {
                if j == i {
                    self_loop = true;
                } else {
                    exit += p;
                }
                if j as usize != size {
                    cols.push(j);
                    vals.push(p);
                } else {
                    finish += p;
                }
            }
            exits.push(if self_loop { exit } else { 1.0 });
            outs.push(finish);
            ptr.push(cols.len());
        }
        Some(Self {
            jump,
            n,
            probabilities: board.probabilities.clone(),
            upper: up >= down,
            rows,
            ptr,
            cols,
            vals,
            exits,
            outs,
        })
    }

    /// Rows given explicitly (the last `F` cells and rows where the closed form does not apply).
    #[must_use]
    pub fn explicit_rows(&self) -> usize {
        self.rows.len()
    }

    /// The entries of explicit row number `k` (not cell `k`).
    #[inline]
    fn explicit(&self, k: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.ptr[k]..self.ptr[k + 1];
        self.cols[r.clone()]
            .iter()
            .zip(&self.vals[r])
            .map(|(&j, &p)| (j as usize, p))
    }

    /// The residual `b − (I − Q)(x + lo)` of a solution held as an unevaluated pair (`lo` the
    /// small part, if any), each entry evaluated in twice the working precision (Ogita, Rump &
    /// Oishi, SIAM J. Sci. Comput. 26(6), 2005), rows in parallel fixed chunks.
    ///
    /// # Panics
    /// - panics if a vector's length is not `n`.
    #[track_caller]
    pub fn residual_pair(&self, x: &[f64], lo: Option<&[f64]>, b: &[f64], r: &mut [f64]) {
        let n = self.n;
        assert!(x.len() == n && b.len() == n && r.len() == n && lo.is_none_or(|l| l.len() == n));
        rows_with_fma(r, |start, rs| self.residual_rows(start, x, lo, b, rs));
    }

    #[inline(always)]
    fn residual_rows(&self, start: usize, x: &[f64], lo: Option<&[f64]>, b: &[f64], r: &mut [f64]) {
        let mut k = self.rows.partition_point(|&e| (e as usize) < start);
        let faces = self.probabilities.len();
        for (o, rk) in r.iter_mut().enumerate() {
            let i = start + o;
            // (I − Q)x at row i as out_i·x_i + Σ_{j≠i} p_ij (x_i − x_j), out_i the probability of
            // finishing in one roll: the diagonal is never formed (neither 1 − q_ii nor a rounded
            // exit mass), so the residual is that of the matrix whose parameters are the stored
            // probabilities (issue 15 §1).
            let mut acc = Dot2::default();
            acc.add(b[i]);
            let mut small = 0.0;
            let mut term = |p: f64, j: usize, acc: &mut Dot2| {
                acc.add_product(-p, x[i]);
                acc.add_product(p, x[j]);
                if let Some(l) = lo {
                    small -= p * (l[i] - l[j]);
                }
            };
            let out = if self.rows.get(k).is_some_and(|&e| e as usize == i) {
                for (j, p) in self.explicit(k).filter(|&(j, _)| j != i) {
                    term(p, j, &mut acc);
                }
                k += 1;
                self.outs[k - 1]
            } else {
                for (&t, &p) in self.jump[i + 1..=i + faces].iter().zip(&self.probabilities) {
                    if t as usize != i {
                        term(p, t as usize, &mut acc);
                    }
                }
                0.0
            };
            acc.add_product(-out, x[i]);
            if let Some(l) = lo {
                small -= out * l[i];
            }
            acc.add(small);
            *rk = acc.value();
        }
    }

    /// The sweep `z ← M⁻¹ src`, `M` the diagonal and the forward (`UP`) or backward moves.
    fn sweep<const UP: bool, const F: usize>(&self, src: &[f64], z: &mut [f64]) {
        let n = self.n;
        let faces = self.probabilities.len();
        let p = &self.probabilities[..];
        let jump = self.jump;
        let in_m = |j: usize, i: usize| if UP { j > i } else { j < i };
        let row = |i: usize, k: &mut usize, z: &mut [f64], last: &mut f64, explicit: bool| {
            // The diagonal: the exit mass of a row with a self-loop (never 1 − q_ii), else 1.
            let mut d = 0.0;
            let mut self_loop = false;
            let mut s = src[i];
            if explicit {
                for (j, q) in self.explicit(*k) {
                    if in_m(j, i) {
                        s += q * z[j];
                    } else if j == i {
                        self_loop = true;
                    }
                }
                d = self.exits[*k];
            } else if F > 0 {
                // Faces 2..F first; the move to the neighbour just computed (face 1, usually to
                // the next cell) is added last, from a register (its value arrives last).
                let t: &[u32; F] = jump[i + 1..=i + F].try_into().expect("F entries");
                let pf: &[f64; F] = p.try_into().expect("F faces");
                let safe = if UP { i + 1 } else { i.saturating_sub(1) };
                for f in 1..F {
                    let j = t[f] as usize;
                    let ok = in_m(j, i);
                    // Branch-free: a move outside M reads a cell already in the cache.
                    let zj = z[if ok { j } else { safe }];
                    s += if ok { pf[f] * zj } else { 0.0 };
                    self_loop |= j == i;
                    d += if j == i { 0.0 } else { pf[f] };
                }
                let j = t[0] as usize;
                let ok = in_m(j, i);
                let zm = z[if ok { j } else { safe }];
                let zj = if j == safe { *last } else { zm };
                s += if ok { pf[0] * zj } else { 0.0 };
                self_loop |= j == i;
                d += if j == i { 0.0 } else { pf[0] };
            } else {
                let safe = if UP { i + 1 } else { i.saturating_sub(1) };
                for (&t, &q) in jump[i + 1..=i + faces].iter().zip(p) {
                    let j = t as usize;
                    let ok = in_m(j, i);
                    let zj = z[if ok { j } else { safe }];
                    s += if ok { q * zj } else { 0.0 };
                    self_loop |= j == i;
                    d += if j == i { 0.0 } else { q };
                }
            }
            let zi = if self_loop { s / d } else { s };
            z[i] = zi;
            *last = zi;
        };
        let mut last = 0.0;
        if UP {
            let mut k = self.rows.len();
            for i in (0..n).rev() {
                if let Some(&c) = i.checked_sub(PREFETCH).and_then(|c| jump.get(c)) {
                    prefetch(z, c as usize);
                }
                let explicit = k > 0 && self.rows[k - 1] as usize == i;
                if explicit {
                    k -= 1;
                }
                row(i, &mut k, z, &mut last, explicit);
            }
        } else {
            let mut k = 0;
            for i in 0..n {
                if let Some(&c) = jump.get(i + PREFETCH) {
                    prefetch(z, c as usize);
                }
                let explicit = self.rows.get(k).is_some_and(|&e| e as usize == i);
                row(i, &mut k, z, &mut last, explicit);
                if explicit {
                    k += 1;
                }
            }
        }
    }

    /// `out ← v + R z` (`R = −Q` off `M`), with the fused dot products of [`SplitOperator::remainder`].
    fn remainder_impl<const UP: bool, const DOTS: bool, const F: usize>(
        &self,
        v: &[f64],
        z: &[f64],
        out: &mut [f64],
        w: &[f64],
    ) -> (f64, f64) {
        let faces = self.probabilities.len();
        let p = &self.probabilities[..];
        let jump = self.jump;
        // R holds the moves outside M: backward ones when M holds the forward moves.
        let in_r = |j: usize, i: usize| if UP { j < i } else { j > i };
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, os)| {
                let start = c * CHUNK;
                let mut k = self.rows.partition_point(|&e| (e as usize) < start);
                let (mut d1, mut d2) = (0.0, 0.0);
                for (o, oi) in os.iter_mut().enumerate() {
                    let i = start + o;
                    if let Some(&t) = jump.get(i + PREFETCH) {
                        prefetch(z, t as usize);
                    }
                    let mut s = 0.0;
                    if self.rows.get(k).is_some_and(|&e| e as usize == i) {
                        for (j, q) in self.explicit(k) {
                            if in_r(j, i) {
                                s += q * z[j];
                            }
                        }
                        k += 1;
                    } else if F > 0 {
                        let t: &[u32; F] = jump[i + 1..=i + F].try_into().expect("F entries");
                        let pf: &[f64; F] = p.try_into().expect("F faces");
                        for f in 0..F {
                            let j = t[f] as usize;
                            let ok = in_r(j, i);
                            let zj = z[if ok { j } else { i }];
                            s += if ok { pf[f] * zj } else { 0.0 };
                        }
                    } else {
                        for (&t, &q) in jump[i + 1..=i + faces].iter().zip(p) {
                            let j = t as usize;
                            let ok = in_r(j, i);
                            let zj = z[if ok { j } else { i }];
                            s += if ok { q * zj } else { 0.0 };
                        }
                    }
                    let s = v[i] - s;
                    *oi = s;
                    if DOTS {
                        d1 += s * w[i];
                        d2 += s * s;
                    }
                }
                (d1, d2)
            })
            .collect::<Vec<_>>()
            .iter()
            .fold((0.0, 0.0), |(a, b), (c, d)| (a + c, b + d))
    }
}

impl SplitOperator for BoardOperator<'_> {
    fn n(&self) -> usize {
        self.n
    }

    fn precondition_from(&self, src: &[f64], z: &mut [f64]) {
        assert!(src.len() == self.n && z.len() == self.n);
        match (self.upper, self.probabilities.len()) {
            (true, 6) => self.sweep::<true, 6>(src, z),
            (true, _) => self.sweep::<true, 0>(src, z),
            (false, 6) => self.sweep::<false, 6>(src, z),
            (false, _) => self.sweep::<false, 0>(src, z),
        }
    }

    fn remainder(&self, v: &[f64], z: &[f64], out: &mut [f64], w: &[f64]) -> (f64, f64) {
        match (self.upper, self.probabilities.len()) {
            (true, 6) => self.remainder_impl::<true, true, 6>(v, z, out, w),
            (true, _) => self.remainder_impl::<true, true, 0>(v, z, out, w),
            (false, 6) => self.remainder_impl::<false, true, 6>(v, z, out, w),
            (false, _) => self.remainder_impl::<false, true, 0>(v, z, out, w),
        }
    }

    fn remainder_plain(&self, v: &[f64], z: &[f64], out: &mut [f64]) {
        match (self.upper, self.probabilities.len()) {
            (true, 6) => self.remainder_impl::<true, false, 6>(v, z, out, v),
            (true, _) => self.remainder_impl::<true, false, 0>(v, z, out, v),
            (false, 6) => self.remainder_impl::<false, false, 6>(v, z, out, v),
            (false, _) => self.remainder_impl::<false, false, 0>(v, z, out, v),
        };
    }

    fn residual(&self, x: &[f64], b: &[f64], out: &mut [f64]) {
        let faces = self.probabilities.len();
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, os)| {
            let start = c * CHUNK;
            let mut k = self.rows.partition_point(|&e| (e as usize) < start);
            for (o, oi) in os.iter_mut().enumerate() {
                let i = start + o;
                let mut s = b[i];
                let diagonal = if self.rows.get(k).is_some_and(|&e| e as usize == i) {
                    for (j, q) in self.explicit(k).filter(|&(j, _)| j != i) {
                        s += q * x[j];
                    }
                    k += 1;
                    self.exits[k - 1]
                } else {
                    let (mut exit, mut self_loop) = (0.0, false);
                    for (&t, &q) in self.jump[i + 1..=i + faces].iter().zip(&self.probabilities) {
                        if t as usize == i {
                            self_loop = true;
                        } else {
                            exit += q;
                            s += q * x[t as usize];
                        }
                    }
                    if self_loop { exit } else { 1.0 }
                };
                *oi = s - diagonal * x[i];
            }
        });
    }
}

/// Whether every cell reaches the last cell (with positive probability, hence — the last cell
/// being absorbing and the board finite — with probability 1). A cell qualifies when a face of
/// positive weight leads to a qualifying cell: one pass from the last cell down settles every cell
/// with a forward path, then the few others (which must go down a snake first) are revisited until
/// nothing changes.
fn every_cell_finishes(board: &Board) -> bool {
    let size = board.size as usize;
    let faces: Vec<u32> = (1..=board.weights.len() as u32)
        .filter(|&f| board.weights[f as usize - 1] > 0.0)
        .collect();
    let mut good = vec![false; size + 1];
    good[size] = true;
    let mut pending = Vec::new();
    for i in (0..size).rev() {
        if faces.iter().any(|&f| good[board.step(i as u32, f) as usize]) {
            good[i] = true;
        } else {
            pending.push(i);
        }
    }
    loop {
        let before = pending.len();
        pending.retain(|&i| {
            if faces.iter().any(|&f| good[board.step(i as u32, f) as usize]) {
                good[i] = true;
                false
            } else {
                true
            }
        });
        if pending.is_empty() {
            return true;
        }
        if pending.len() == before {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AbsorbingChain;
    use crate::games::snakes::{BoardSpec, Die, PortalKind, Rule};
    use crate::model::StateSet;

    /// The matrix-free expected rolls and variance against the CSR chain's, within both certified
    /// bounds.
    fn agrees(board: &Board) {
        let free = board.absorption_time_matrix_free().expect("the operator applies");
        let dtmc = board.dtmc().unwrap();
        let goal = StateSet::from_states(dtmc.n(), [board.size()]);
        let csr = AbsorbingChain::new(&dtmc, &goal).unwrap().absorption_time();
        assert!(
            free.error_bound < 1e-10 && csr.error_bound < 1e-10,
            "{} / {}",
            free.method,
            csr.method
        );
        let tol = free.error_bound + csr.error_bound + 4.0 * f64::EPSILON;
        for (c, (a, b)) in free.mean.iter().zip(&csr.mean).enumerate() {
            assert!(
                (a - b).abs() <= tol * a.abs().max(*b),
                "{}: cell {c}: {a} vs {b}",
                board.name()
            );
        }
        for (c, (a, b)) in free
            .variance
            .as_ref()
            .unwrap()
            .iter()
            .zip(csr.variance.as_ref().unwrap())
            .enumerate()
        {
            assert!(
                (a - b).abs() <= 1e-6 * b.max(1.0),
                "{}: variance at cell {c}: {a} vs {b}",
                board.name()
            );
        }
    }

    #[test]
    fn the_classic_board_has_its_published_value() {
        // Althoen, King & Schilling (1993): 39.225122308234960 expected rolls (exact landing).
        let mut spec = BoardSpec::classic();
        spec.rule = Rule::Stay;
        let board = Board::new(&spec).unwrap();
        agrees(&board);
        agrees(&Board::classic());
        let free = board.absorption_time_matrix_free().unwrap();
        // Within the certified bound (an iterative solve is refined to about 1e-11 relative).
        let published = 39.225_122_308_234_96;
        assert!(
            free.error_bound < 1e-10 && free.infinite.is_empty(),
            "{}",
            free.error_bound
        );
        assert!(
            (free.mean[0] - published).abs() <= free.error_bound * published,
            "{} vs {published}, bound {:e}",
            free.mean[0],
            free.error_bound
        );
    }

    #[test]
    fn random_boards_of_every_rule_agree_with_the_chain() {
        for rule in [Rule::Clamp, Rule::Stay, Rule::Bounce] {
            for (size, portals, seed, die) in [
                (3_000, 600, 1, Die::Fair(6)),
                (2_000, 100, 2, Die::Fair(6)),
                (1_500, 300, 3, Die::Weighted(vec![1.0, 2.0, 0.0, 3.0])),
                (1_200, 50, 4, Die::Fair(11)),
            ] {
                let mut spec = BoardSpec::empty(size).with_random_portals(portals, seed).unwrap();
                spec.rule = rule;
                spec.die = die;
                let board = Board::new(&spec).unwrap();
                agrees(&board);
            }
        }
    }

    #[test]
    fn short_portals_and_shared_exits_are_rows_of_their_own() {
        // A ladder into the die's reach and two portals to one cell: faces meet on a cell, and
        // those rows take the chain's merged probabilities.
        let mut spec = BoardSpec::empty(400);
        spec.portals = vec![
            (PortalKind::Ladder, 10, 12, None),
            (PortalKind::Snake, 50, 12, None),
            (PortalKind::Snake, 300, 7, None),
            (PortalKind::Snake, 302, 298, None),
            (PortalKind::Ladder, 390, 400, None),
        ];
        let board = Board::new(&spec).unwrap();
        let op = BoardOperator::new(&board).unwrap();
        assert!(op.explicit_rows() > 6, "{}", op.explicit_rows());
        agrees(&board);
    }

    #[test]
    fn a_board_that_can_trap_goes_to_the_chain() {
        // A one-faced die from cell 5 lands on 6, whose snake leads back to 5: cells 0..=5 never
        // finish. The operator declines; the chain reports +∞ there as before.
        let mut spec = BoardSpec::empty(20);
        spec.die = Die::Fair(1);
        spec.portals = vec![(PortalKind::Snake, 6, 5, None)];
        let board = Board::new(&spec).unwrap();
        assert!(BoardOperator::new(&board).is_none());
        assert!(board.absorption_time_matrix_free().is_none());
        let t = board.expected_rolls().unwrap();
        assert_eq!(t.infinite, vec![0, 1, 2, 3, 4, 5]);
        assert!(t.mean[..=5].iter().all(|x| x.is_infinite()));
        assert_eq!(t.mean[6], 14.0);
        assert_eq!(t.mean[7], 13.0);
        // The same through the size threshold: a big board with a trap still reports it.
        let mut spec = BoardSpec::empty(i64::from(crate::games::snakes::MATRIX_FREE_FROM) + 10);
        spec.rule = Rule::Stay;
        spec.die = Die::Fair(2);
        spec.portals = vec![
            (PortalKind::Snake, 1001, 1000, None),
            (PortalKind::Snake, 1002, 1000, None),
        ];
        let board = Board::new(&spec).unwrap();
        let t = board.expected_rolls().unwrap();
        // 1001 finishes only with probability 1/2 (face 2 escapes; face 1 falls back to 1000).
        assert_eq!(t.infinite, (0..=1001).collect::<Vec<u32>>());
        // The bound covers the rounding of the die over 10⁵ cells: about 2·10⁵·γ_5 ≈ 1e-10 each
        // for the chain's probabilities and the die's division.
        assert!(
            t.mean[1003].is_finite() && t.error_bound < 1e-9,
            "{}",
            t.error_bound
        );
    }
}
