//! A subset of a chain's states and the dense `I − Q` over it.

use crate::linsolve::DenseLu;
use crate::model::{Dtmc, StateSet};
use crate::{Result, StateId};

const NONE: u32 = u32::MAX;

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

    /// Max-norm residual `‖(I − Q)x − b‖∞` over the subsystem (`x`, `b` in subsystem order).
    pub fn residual(&self, dtmc: &Dtmc, x: &[f64], b: &[f64]) -> f64 {
        let m = dtmc.matrix();
        let mut worst = 0.0f64;
        for (k, &s) in self.states.iter().enumerate() {
            let (cols, vals) = m.row(s as usize);
            let qx: f64 = cols
                .iter()
                .zip(vals)
                .filter_map(|(&t, &p)| self.position(t).map(|l| p * x[l]))
                .sum();
            worst = worst.max((x[k] - qx - b[k]).abs());
        }
        worst
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
