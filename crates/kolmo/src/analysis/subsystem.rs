//! A subset of a chain's states, the transition matrix `Q` restricted to it, and solves with
//! `I − Q`.
//!
//! `I − Q` is formed with each diagonal entry the row's exit mass `Σ_{j≠i} p_ij` (over the whole
//! chain, so including what leaves the subset), never `1 − p_ii`: the subtraction would cancel
//! for a state that stays with probability close to 1 and amplify the rounding of `p_ii`
//! (the idea of Grassmann, Taksar & Heyman, "Regenerative analysis and steady state
//! distributions for Markov chains", Operations Research 33(5), 1985). A row that sums to 1
//! only within the readers' tolerance is thereby analysed as the stochastic row whose self-loop
//! is `1 − Σ_{j≠i} p_ij`.

use crate::linsolve::Solvable;
use crate::linsolve::{Factored, GTH_LIMIT, SolveMethod};
use crate::model::{Dtmc, StateSet};
use crate::numeric::{Dot2, refine_pair, rows_with_fma};
use crate::sparse::{CsrMatrix, RowSink, par_rows};
use crate::{Error, Result, StateId};

const NONE: u32 = u32::MAX;

/// Expected time to leave (in steps, the largest entry of `(I − Q)⁻¹ 1`) beyond which a system of
/// up to [`GTH_LIMIT`] unknowns is factored without cancellation ([`GthLu`](crate::linsolve::GthLu)):
/// there pivoting loses about `log10(GTH_FROM)` of the 16 digits, and the certificate would
/// need a residual beyond `f64`.
pub(crate) const GTH_FROM: f64 = 1e6;

/// The states of a sub-chain in ascending order, the inverse map, and `A = I − Q` (`k × k`, in
/// subsystem positions, with exit-mass diagonal: see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Subsystem<T: Solvable = f64> {
    pub states: Vec<StateId>,
    /// `position[s]` for every state of the chain, or empty: then positions are found by binary
    /// search in `states` (for many small subsystems of one large chain).
    position: Vec<u32>,
    a: CsrMatrix<T>,
    /// Each state's probability of leaving the subsystem in one step (the diagonally dominant
    /// part of `I − Q`: its diagonal less the off-diagonal magnitudes, summed without
    /// cancellation), for residuals that do not depend on the rounded diagonal.
    out: Vec<T>,
    /// The longest row of the chain among `states` (entries, the self-loop included).
    row_len: usize,
}

impl Subsystem<f64> {
    pub fn new(dtmc: &Dtmc, set: &StateSet) -> Self {
        Self::from_matrix(dtmc.matrix(), set)
    }
}

impl<T: Solvable> Subsystem<T> {
    /// The states of `set` with the transitions among them taken from `m` (`n × n`).
    pub fn from_matrix(m: &CsrMatrix<T>, set: &StateSet) -> Self {
        let states = set.to_vec();
        let mut position = vec![NONE; set.universe()];
        for (k, &s) in states.iter().enumerate() {
            position[s as usize] = k as u32;
        }
        let a = Self::restrict(m, &states, |t| position[t as usize]);
        let out = Self::out_masses(m, &states, |t| position[t as usize]);
        let row_len = Self::longest_row(m, &states);
        Self {
            states,
            position,
            a,
            out,
            row_len,
        }
    }

    /// The subsystem of the ascending `states`, with O(k) memory however large the chain:
    /// positions are found by binary search.
    pub fn from_sorted_states(m: &CsrMatrix<T>, states: Vec<StateId>) -> Self {
        debug_assert!(states.windows(2).all(|w| w[0] < w[1]));
        let position = |t| states.binary_search(&t).map_or(NONE, |i| i as u32);
        let a = Self::restrict(m, &states, position);
        let out = Self::out_masses(m, &states, position);
        let row_len = Self::longest_row(m, &states);
        Self {
            states,
            position: Vec::new(),
            a,
            out,
            row_len,
        }
    }

    fn longest_row(m: &CsrMatrix<T>, states: &[StateId]) -> usize {
        states
            .iter()
            .map(|&s| m.row(s as usize).0.len())
            .max()
            .unwrap_or(0)
    }

    /// The largest relative change the rounding of the input probabilities to `f64` can make in
    /// `N b` (`N = (I − Q)⁻¹` of this subsystem, `b ≥ 0` exact when `b_rounded` is false, else
    /// itself one-step masses rounded the same way): [`perturbation_growth`] over the subsystem's
    /// `k` states (plus one for a rounded `b`) with the [`entry_rounding`] of its longest row.
    /// The residual-based bounds certify the solve of the stored system; this term carries them
    /// to the model as written.
    ///
    /// [`perturbation_growth`]: crate::numeric::perturbation_growth
    /// [`entry_rounding`]: crate::numeric::entry_rounding
    pub fn input_growth(&self, b_rounded: bool) -> f64 {
        crate::numeric::perturbation_growth(
            self.states.len() + usize::from(b_rounded),
            crate::numeric::entry_rounding(self.row_len),
        )
    }

    /// `I − Q` for the rows of `states` restricted to the columns `position` maps (to `NONE`
    /// otherwise): off the diagonal `−p_ij`, on it the exit mass `Σ_{j≠i} p_ij` of the whole row.
    fn restrict(
        m: &CsrMatrix<T>,
        states: &[StateId],
        position: impl Fn(StateId) -> u32 + Sync,
    ) -> CsrMatrix<T> {
        // Positions increase with state ids, so each row stays sorted by column.
        let k = states.len();
        let [parts] = par_rows(
            k,
            T::zero(),
            || (),
            |_, i, out: &mut RowSink<T, 1>| {
                let s = states[i];
                let (c, v) = m.row(s as usize);
                let exit = T::sum(c.iter().zip(v).filter(|(t, _)| **t != s).map(|(_, p)| p));
                let mut diagonal = Some(exit);
                for (&t, p) in c.iter().zip(v) {
                    let l = position(t);
                    if l == NONE || t == s {
                        continue;
                    }
                    if l as usize > i
                        && let Some(d) = diagonal.take()
                    {
                        out.push(0, i as u32, d);
                    }
                    out.push(0, l, T::zero().minus(p));
                }
                if let Some(d) = diagonal {
                    out.push(0, i as u32, d);
                }
            },
        );
        let (row_ptr, cols, vals) = parts.into_arrays();
        CsrMatrix::from_grouped_parts(k, row_ptr, cols, vals, (0..=k).collect())
    }

    /// Each state's one-step probability of leaving the states `position` maps (from `m`).
    fn out_masses(m: &CsrMatrix<T>, states: &[StateId], position: impl Fn(StateId) -> u32 + Sync) -> Vec<T> {
        use rayon::prelude::*;
        states
            .par_iter()
            .with_min_len(4096)
            .map(|&s| {
                let (c, v) = m.row(s as usize);
                T::sum(
                    c.iter()
                        .zip(v)
                        .filter(|(t, _)| position(**t) == NONE)
                        .map(|(_, p)| p),
                )
            })
            .collect()
    }

    /// For each state of the subsystem, the one-step probability of entering `set` (from `m`).
    pub fn probabilities_into(&self, m: &CsrMatrix<T>, set: &StateSet) -> Vec<T> {
        self.states
            .iter()
            .map(|&s| {
                let (cols, vals) = m.row(s as usize);
                cols.iter()
                    .zip(vals)
                    .filter(|(t, _)| set.contains(**t))
                    .fold(T::zero(), |a, (_, p)| a.plus(p))
            })
            .collect()
    }

    /// Solves `(I − Q)x = b` exactly and checks that `(I − Q)x − b` is exactly zero.
    pub fn solve_verified(&self, lu: &Factored<T>, b: &[T]) -> Result<Vec<T>> {
        debug_assert!(T::EXACT);
        let mut x = b.to_vec();
        lu.solve_in_place(&mut x);
        for (i, bi) in b.iter().enumerate() {
            let (cols, vals) = self.a.row(i);
            let ax = cols
                .iter()
                .zip(vals)
                .fold(T::zero(), |acc, (&j, a)| acc.plus(&a.times(&x[j as usize])));
            if ax != *bi {
                return Err(Error::Singular {
                    what: "exact solve: the residual is not zero",
                    row: i,
                    pivot: 0.0,
                });
            }
        }
        Ok(x)
    }

    /// Solves `xᵀ(I − Q) = bᵀ` exactly and checks that the residual is exactly zero.
    pub fn solve_transposed_verified(&self, lu: &Factored<T>, b: &[T]) -> Result<Vec<T>> {
        debug_assert!(T::EXACT);
        let mut x = b.to_vec();
        lu.solve_transpose_in_place(&mut x);
        let mut r: Vec<T> = vec![T::zero(); x.len()];
        for (k, xk) in x.iter().enumerate() {
            let (cols, vals) = self.a.row(k);
            for (&l, a) in cols.iter().zip(vals) {
                r[l as usize] = r[l as usize].plus(&xk.times(a));
            }
        }
        if let Some(i) = r.iter().zip(b).position(|(ri, bi)| ri != bi) {
            return Err(Error::Singular {
                what: "exact transposed solve: the residual is not zero",
                row: i,
                pivot: 0.0,
            });
        }
        Ok(x)
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Position of state `s` in the subsystem, if it belongs to it.
    #[inline]
    pub fn position(&self, s: StateId) -> Option<usize> {
        if self.position.is_empty() {
            return self.states.binary_search(&s).ok();
        }
        let p = self.position[s as usize];
        (p != NONE).then_some(p as usize)
    }

    /// `I − Q` in subsystem positions, with exit-mass diagonal (see the module docs).
    pub fn i_minus_q(&self) -> &CsrMatrix<T> {
        &self.a
    }

    /// `I − Q` factored (the method is chosen by [`Factored::new`]).
    pub fn factor_i_minus_q(&self, what: &'static str) -> Result<Factored<T>> {
        self.factor_i_minus_q_with(what, SolveMethod::Auto)
    }

    /// `I − Q` set up for solves by `method` (see [`Factored::with_method`]). With the automatic
    /// choice in floating point, a system of up to [`GTH_LIMIT`] unknowns that pivoting cannot
    /// factor, or whose expected time to leave (`(I − Q)⁻¹ 1`, which is `‖(I − Q)⁻¹‖∞`) exceeds
    /// [`GTH_FROM`] steps, is factored by cancellation-free elimination ([`GthLu`]) instead:
    /// nearly closed chains, where `1 − p_ii` and pivoting lose the digits that matter.
    pub fn factor_i_minus_q_with(&self, what: &'static str, method: SolveMethod) -> Result<Factored<T>> {
        let k = self.len();
        let f = Factored::for_csr(k, what, method, self.a.as_parts());
        if T::EXACT || method != SolveMethod::Auto || k > GTH_LIMIT {
            return f;
        }
        let slow = match &f {
            Err(Error::Singular { .. }) => true,
            Err(_) => false,
            Ok(f) => {
                let mut t = vec![T::one(); k];
                f.solve_in_place(&mut t);
                t.iter()
                    .any(|x| x.to_f64().abs().is_nan() || x.to_f64().abs() > GTH_FROM)
            }
        };
        if !slow {
            return f;
        }
        let off = |i: usize| {
            let (cols, vals) = self.a.row(i);
            cols.iter()
                .zip(vals)
                .filter(move |(j, _)| **j as usize != i)
                .map(|(&j, a)| (j, T::zero().minus(a)))
        };
        match T::gth_factor(k, what, off, &self.out) {
            Some(lu) => Ok(Factored::Dense(lu?, k)),
            None => f,
        }
    }
}

impl Subsystem<f64> {
    /// The residual vector `b − (I − Q)x` (`x`, `b` in subsystem order), each entry evaluated in
    /// twice the working precision (error-free transformations: Ogita, Rump & Oishi, "Accurate sum
    /// and dot product", SIAM J. Sci. Comput. 26(6), 2005), so that it is accurate even when it is
    /// tiny compared with `x`.
    pub fn residual_vector(&self, x: &[f64], b: &[f64], r: &mut [f64]) {
        self.residual_vector_pair(x, None, b, r);
    }

    /// The residual `b − (I − Q)(x + lo)` of a solution held as an unevaluated sum of two vectors
    /// (`lo` the small part, if any), each entry in twice the working precision; rows in parallel
    /// chunks (the same result on any number of threads).
    pub fn residual_vector_pair(&self, x: &[f64], lo: Option<&[f64]>, b: &[f64], r: &mut [f64]) {
        rows_with_fma(r, |start, rs| self.residual_rows(start, x, lo, b, rs));
    }

    /// Residual entries `start..start + r.len()`.
    #[inline(always)]
    fn residual_rows(&self, start: usize, x: &[f64], lo: Option<&[f64]>, b: &[f64], r: &mut [f64]) {
        for (i, rk) in r.iter_mut().enumerate() {
            let k = start + i;
            // (I − Q)x at row k as out_k·x_k + Σ_{l≠k} p_kl (x_k − x_l): the diagonal is the
            // exit mass carried exactly in the double-length sum, not its rounding.
            let (cols, vals) = self.a.row(k);
            let mut acc = Dot2::default();
            acc.add(b[k]);
            acc.add_product(-self.out[k], x[k]);
            for (&l, &a) in cols.iter().zip(vals) {
                if l as usize != k {
                    acc.add_product(a, x[k]);
                    acc.add_product(-a, x[l as usize]);
                }
            }
            if let Some(lo) = lo {
                // The small part: its products' rounding is below the pair's own precision.
                let mut s = 0.0;
                for (&l, &a) in cols.iter().zip(vals) {
                    s -= a * lo[l as usize];
                }
                acc.add(s);
            }
            *rk = acc.value();
        }
    }

    /// Max-norm residual `‖(I − Q)x − b‖∞` over the subsystem (`x`, `b` in subsystem order).
    pub fn residual(&self, x: &[f64], b: &[f64]) -> f64 {
        let mut r = vec![0.0; x.len()];
        self.residual_vector(x, b, &mut r);
        r.iter().fold(0.0f64, |a, v| a.max(v.abs()))
    }

    /// Solves `(I − Q)x = b` with the factorisation `lu`, then improves `x` by iterative refinement
    /// with residuals in twice the working precision (Higham, *Accuracy and Stability of Numerical
    /// Algorithms*, 2nd ed., ch. 12) until the correction stops shrinking or is within a few ulps
    /// of `x` (at most 5 steps). Returns `x` and the final max-norm residual.
    pub fn solve_refined(&self, lu: &Factored, b: &[f64]) -> (Vec<f64>, f64) {
        if lu.is_iterative() {
            return self.refine_iterative(lu, b, false);
        }
        let mut x = b.to_vec();
        lu.solve_in_place(&mut x);
        let mut r = vec![0.0; x.len()];
        let mut last = f64::INFINITY;
        let size = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let mut residual = f64::INFINITY;
        for _ in 0..5 {
            self.residual_vector(&x, b, &mut r);
            residual = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if residual == 0.0 {
                break;
            }
            lu.solve_in_place(&mut r);
            let step = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if step.is_nan() || step >= last {
                break;
            }
            for (xi, di) in x.iter_mut().zip(&r) {
                *xi += di;
            }
            last = step;
            residual = f64::NAN; // x changed
            if step <= f64::EPSILON * size * 4.0 {
                break;
            }
        }
        if residual.is_nan() {
            residual = self.residual(&x, b);
        }
        (x, residual)
    }

    /// The residual vector of the transposed system, `b − xᵀ(I − Q)`, each entry accumulated in
    /// twice the working precision (as [`residual_vector`](Self::residual_vector)).
    pub fn residual_transposed_vector(&self, x: &[f64], b: &[f64], r: &mut [f64]) {
        self.residual_transposed_pair(x, None, b, r);
    }

    /// [`residual_transposed_vector`](Self::residual_transposed_vector) of a solution held as
    /// `x + lo` (as [`residual_vector_pair`](Self::residual_vector_pair)).
    pub fn residual_transposed_pair(&self, x: &[f64], lo: Option<&[f64]>, b: &[f64], r: &mut [f64]) {
        let mut acc: Vec<Dot2> = b
            .iter()
            .map(|&bi| {
                let mut a = Dot2::default();
                a.add(bi);
                a
            })
            .collect();
        // (xᵀ(I − Q))_l = out_l·x_l + Σ_{k≠l} p_lk x_l − Σ_{k≠l} x_k p_kl, as in the residual.
        for (k, &xk) in x.iter().enumerate() {
            let (cols, vals) = self.a.row(k);
            let small = lo.map_or(0.0, |lo| lo[k]);
            acc[k].add_product(xk, -self.out[k]);
            for (&l, &a) in cols.iter().zip(vals) {
                if l as usize != k {
                    acc[k].add_product(xk, a);
                    acc[l as usize].add_product(xk, -a);
                }
                acc[l as usize].add_to_error(-small * a);
            }
        }
        for (ri, a) in r.iter_mut().zip(acc) {
            *ri = a.value();
        }
    }

    /// Iterative refinement for an approximate (Krylov) solver, with the solution carried as an
    /// unevaluated pair `x + lo` so that it can be resolved beyond `f64` when the residual needs
    /// it (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §12.1; Carson &
    /// Higham, "A new analysis of iterative refinement and its application to accurate solution
    /// of ill-conditioned sparse linear systems", SIAM J. Sci. Comput. 39(6), 2017): each
    /// correction is an inexact solve of the residual equation, only as accurate as the target
    /// needs, and the loop stops when `‖r‖∞ ≤ REFINE_TARGET · ‖b‖∞` or a correction fails to halve
    /// the residual. Returns
    /// `x + lo` rounded to `f64` and the max-norm residual of the pair (the caller adds the final
    /// rounding to its bound).
    fn refine_iterative(&self, lu: &Factored, b: &[f64], transpose: bool) -> (Vec<f64>, f64) {
        refine_pair(
            b,
            |r, tolerance| lu.solve_to(r, tolerance, transpose),
            |hi, lo, b, r| {
                if transpose {
                    self.residual_transposed_pair(hi, Some(lo), b, r);
                } else {
                    self.residual_vector_pair(hi, Some(lo), b, r);
                }
            },
        )
    }

    /// Solves `xᵀ(I − Q) = bᵀ` with the factorisation `lu` and iterative refinement, as
    /// [`solve_refined`](Self::solve_refined) does for the untransposed system. Returns `x` and the
    /// max-norm residual `‖b − xᵀ(I − Q)‖∞`.
    pub fn solve_transposed_refined(&self, lu: &Factored, b: &[f64]) -> (Vec<f64>, f64) {
        if lu.is_iterative() {
            return self.refine_iterative(lu, b, true);
        }
        let mut x = b.to_vec();
        lu.solve_transpose_in_place(&mut x);
        let mut r = vec![0.0; x.len()];
        let mut last = f64::INFINITY;
        let size = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        for _ in 0..5 {
            self.residual_transposed_vector(&x, b, &mut r);
            if r.iter().all(|v| *v == 0.0) {
                break;
            }
            lu.solve_transpose_in_place(&mut r);
            let step = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if step.is_nan() || step >= last {
                break;
            }
            for (xi, di) in x.iter_mut().zip(&r) {
                *xi += di;
            }
            last = step;
            if step <= f64::EPSILON * size * 4.0 {
                break;
            }
        }
        self.residual_transposed_vector(&x, b, &mut r);
        let residual = r
            .iter()
            .fold(0.0f64, |a, v| if v.is_nan() { f64::NAN } else { a.max(v.abs()) });
        (x, residual)
    }
}
