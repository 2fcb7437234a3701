//! A subset of a chain's states and the dense `I − Q` over it.

use crate::linsolve::DenseLu;
use crate::model::{Dtmc, StateSet};
use crate::{Error, Result, StateId};

const NONE: u32 = u32::MAX;

/// Largest system solved by dense LU (about 1 GiB of matrix and a minute of work).
pub const MAX_DENSE: usize = 12_000;

/// The states of a sub-chain in ascending order and the inverse map.
#[derive(Clone, Debug)]
pub(crate) struct Subsystem {
    pub states: Vec<StateId>,
    position: Vec<u32>,
}

impl Subsystem {
    pub fn new(set: &StateSet) -> Self {
        let states = set.to_vec();
        let mut position = vec![NONE; set.universe()];
        for (k, &s) in states.iter().enumerate() {
            position[s as usize] = k as u32;
        }
        Self { states, position }
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Position of state `s` in the subsystem, if it belongs to it.
    #[inline]
    pub fn position(&self, s: StateId) -> Option<usize> {
        let p = self.position[s as usize];
        (p != NONE).then_some(p as usize)
    }

    /// LU of `I − Q`, `Q` = the transition matrix restricted to the subsystem.
    pub fn lu_i_minus_q(&self, dtmc: &Dtmc, what: &'static str) -> Result<DenseLu> {
        if self.len() > MAX_DENSE {
            return Err(Error::TooLarge {
                what,
                size: self.len(),
                limit: MAX_DENSE,
            });
        }
        let m = dtmc.matrix();
        DenseLu::new(self.len(), what, |mut a| {
            for (k, &s) in self.states.iter().enumerate() {
                a[(k, k)] += 1.0;
                let (cols, vals) = m.row(s as usize);
                for (&t, &p) in cols.iter().zip(vals) {
                    if let Some(l) = self.position(t) {
                        a[(k, l)] -= p;
                    }
                }
            }
        })
    }

    /// The residual vector `b − (I − Q)x` (`x`, `b` in subsystem order), each entry evaluated in
    /// twice the working precision (error-free transformations: Ogita, Rump & Oishi, "Accurate sum
    /// and dot product", SIAM J. Sci. Comput. 26(6), 2005), so that it is accurate even when it is
    /// tiny compared with `x`.
    pub fn residual_vector(&self, dtmc: &Dtmc, x: &[f64], b: &[f64], r: &mut [f64]) {
        let m = dtmc.matrix();
        for (k, &s) in self.states.iter().enumerate() {
            let (cols, vals) = m.row(s as usize);
            let mut acc = Dot2::default();
            acc.add(b[k]);
            acc.add(-x[k]);
            for (&t, &p) in cols.iter().zip(vals) {
                if let Some(l) = self.position(t) {
                    acc.add_product(p, x[l]);
                }
            }
            r[k] = acc.value();
        }
    }

    /// Max-norm residual `‖(I − Q)x − b‖∞` over the subsystem (`x`, `b` in subsystem order).
    pub fn residual(&self, dtmc: &Dtmc, x: &[f64], b: &[f64]) -> f64 {
        let mut r = vec![0.0; x.len()];
        self.residual_vector(dtmc, x, b, &mut r);
        r.iter().fold(0.0f64, |a, v| a.max(v.abs()))
    }

    /// Solves `(I − Q)x = b` with the factorisation `lu`, then improves `x` by iterative refinement
    /// with residuals in twice the working precision (Higham, *Accuracy and Stability of Numerical
    /// Algorithms*, 2nd ed., ch. 12) until the correction stops shrinking (at most 5 steps).
    /// Returns `x` and the final max-norm residual.
    pub fn solve_refined(&self, dtmc: &Dtmc, lu: &DenseLu, b: &[f64]) -> (Vec<f64>, f64) {
        let mut x = b.to_vec();
        lu.solve_in_place(&mut x);
        let mut r = vec![0.0; x.len()];
        let mut last = f64::INFINITY;
        for _ in 0..5 {
            self.residual_vector(dtmc, &x, b, &mut r);
            lu.solve_in_place(&mut r);
            let step = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            let size = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if step.is_nan() || step >= last {
                break;
            }
            for (xi, di) in x.iter_mut().zip(&r) {
                *xi += di;
            }
            last = step;
            if step <= f64::EPSILON * size * 0.5 {
                break;
            }
        }
        let res = self.residual(dtmc, &x, b);
        (x, res)
    }

    /// Max-norm residual of the transposed system, `‖xᵀ(I − Q) − bᵀ‖∞`.
    pub fn residual_transposed(&self, dtmc: &Dtmc, x: &[f64], b: &[f64]) -> f64 {
        let m = dtmc.matrix();
        let mut r: Vec<f64> = x.iter().zip(b).map(|(xi, bi)| xi - bi).collect();
        for (k, &s) in self.states.iter().enumerate() {
            let (cols, vals) = m.row(s as usize);
            for (&t, &p) in cols.iter().zip(vals) {
                if let Some(l) = self.position(t) {
                    r[l] -= x[k] * p;
                }
            }
        }
        r.iter().fold(0.0f64, |a, v| a.max(v.abs()))
    }
}

/// A sum of terms and exact products kept as an unevaluated pair (sum, error), giving the result
/// as if computed in twice the working precision (TwoSum and FMA-based TwoProduct).
#[derive(Default, Clone, Copy)]
struct Dot2 {
    sum: f64,
    err: f64,
}

impl Dot2 {
    #[inline]
    fn add(&mut self, a: f64) {
        let s = self.sum + a;
        let bb = s - self.sum;
        self.err += (self.sum - (s - bb)) + (a - bb);
        self.sum = s;
    }

    #[inline]
    fn add_product(&mut self, a: f64, b: f64) {
        let p = a * b;
        let e = a.mul_add(b, -p);
        self.add(p);
        self.err += e;
    }

    #[inline]
    fn value(self) -> f64 {
        self.sum + self.err
    }
}
