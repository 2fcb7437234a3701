//! A whole chain, however many closed classes it has: its communicating classes, the stationary
//! distribution of each closed class, where the chain ends up from a start (the probability of
//! being absorbed into each closed class), the long-run fraction of time in each state, and the
//! gain and bias of a reward (Kemeny & Snell, *Finite Markov Chains*, 1960, ch. III–V; Puterman,
//! *Markov Decision Processes*, 1994, §8.2–8.3 for multichain reward processes).

use super::absorbing::{AbsorbingChain, AbsorptionTime};
use super::stationary::{ClassStationary, GainBias, RecurrentClass};
use crate::graph::{Classes, classes};
use crate::model::{Dtmc, StateSet};
use crate::{Error, Result, StateId};

/// Classes, stationary distributions and absorption of a chain, with the factorisations kept for
/// the per-class questions.
#[derive(Debug)]
pub struct ClassAnalysis<'a> {
    dtmc: &'a Dtmc,
    /// The communicating classes.
    pub classes: Classes,
    /// Indices into `classes.classes` of the closed classes, in order.
    pub closed: Vec<usize>,
    /// The stationary distribution of each closed class (same order as `closed`).
    pub stationary: Vec<ClassStationary>,
    recurrent: Vec<RecurrentClass<'a>>,
    /// The absorbing-chain view with the union of the closed classes as the target: `None` when
    /// every state is recurrent.
    absorbing: Option<AbsorbingChain<'a>>,
    recurrence: Option<AbsorptionTime>,
    recurrent_set: StateSet,
}

/// Where the chain goes in the long run from an initial distribution.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LongRun {
    /// The probability of ending in each closed class (order of [`ClassAnalysis::closed`]).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub absorption: Vec<f64>,
    /// The long-run (Cesàro) fraction of time in each state, `Σ_c absorption_c π_c`; length `n`; 0 on
    /// transient states. It is also the limit of the distribution after `k` steps when every
    /// closed class reached with positive probability is aperiodic.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub distribution: Vec<f64>,
    /// Whether the distribution after `k` steps converges (to `distribution`).
    pub converges: bool,
    /// Guaranteed bound on the absolute error of every entry of `distribution`.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
    /// Max-norm residual of the solve for `absorption` (0 if there was none).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
}

impl<'a> ClassAnalysis<'a> {
    /// Classifies `dtmc`, factors each closed class and computes its stationary distribution, and
    /// factors `I − Q` on the transient states.
    ///
    /// # Errors
    /// [`Error::Singular`] / [`Error::Uncertified`] from the solves (not expected for a valid
    /// chain).
    pub fn new(dtmc: &'a Dtmc) -> Result<Self> {
        let classes = classes(dtmc.matrix());
        let closed: Vec<usize> = (0..classes.classes.len())
            .filter(|&c| classes.classes[c].closed)
            .collect();
        let mut recurrent = Vec::with_capacity(closed.len());
        let mut stationary = Vec::with_capacity(closed.len());
        for &c in &closed {
            let rc = RecurrentClass::new(dtmc.matrix(), &classes.classes[c].states)?;
            stationary.push(rc.stationary()?);
            recurrent.push(rc);
        }
        let recurrent_set = StateSet::from_states(
            dtmc.n(),
            closed
                .iter()
                .flat_map(|&c| classes.classes[c].states.iter().copied()),
        );
        let absorbing = if recurrent_set.count() < dtmc.n() {
            Some(AbsorbingChain::new(dtmc, &recurrent_set)?)
        } else {
            None
        };
        let recurrence = absorbing.as_ref().map(AbsorbingChain::absorption_time);
        Ok(Self {
            recurrence,
            dtmc,
            classes,
            closed,
            stationary,
            recurrent,
            absorbing,
            recurrent_set,
        })
    }

    /// The transient states' absorbing-chain view (target = all recurrent states), if there are
    /// transient states: expected steps to reach a closed class, expected visits, `N`.
    #[must_use]
    pub fn absorbing(&self) -> Option<&AbsorbingChain<'a>> {
        self.absorbing.as_ref()
    }

    /// Expected number of steps until a closed class is entered, and its variance, from every
    /// state (0 on recurrent states); `None` if every state is recurrent.
    #[must_use]
    pub fn time_to_recurrence(&self) -> Option<&AbsorptionTime> {
        self.recurrence.as_ref()
    }

    /// The probability of being absorbed into closed class number `i` (index into
    /// [`closed`](Self::closed)) from every state (length `n`), with the solve's max-norm
    /// residual and a guaranteed absolute error bound `r · max t̂ / (1 − r_t)`.
    ///
    /// # Panics
    /// - panics if `i >= self.closed.len()`.
    #[must_use]
    #[track_caller]
    pub fn absorption_probabilities(&self, i: usize) -> (Vec<f64>, f64, f64) {
        let class = &self.classes.classes[self.closed[i]].states;
        let into = StateSet::from_states(self.dtmc.n(), class.iter().copied());
        // Being absorbed into a closed class is reaching it: graph analysis fixes the 0s and 1s
        // exactly, the rest is one solve.
        let reach = super::reach_probability(self.dtmc, &into).expect("the set ranges over the chain");
        let bound = match &self.recurrence {
            Some(t) if reach.residual > 0.0 => {
                let tmax = t.mean.iter().fold(0.0f64, |m, x| m.max(*x));
                if t.residual < 1.0 {
                    reach.residual * tmax * (1.0 + t.error_bound)
                } else {
                    f64::INFINITY
                }
            }
            _ => reach.error_bound,
        };
        (reach.values, reach.residual, bound.max(reach.error_bound))
    }

    /// The long run from the initial distribution `initial` (length `n`, summing to 1): one
    /// transposed solve `z (I − Q) = initial` on the transient states gives the expected visits,
    /// and `absorption_c = initial(c) + Σ_s z_s P(s, c)`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `initial` has the wrong length or is not a distribution.
    pub fn long_run(&self, initial: &[f64]) -> Result<LongRun> {
        let n = self.dtmc.n();
        if initial.len() != n || initial.iter().any(|p| !(p.is_finite() && *p >= 0.0)) {
            return Err(Error::arg(
                "initial distribution",
                format!("{} non-negative numbers", n),
            ));
        }
        let mut absorption: Vec<f64> = self
            .closed
            .iter()
            .map(|&c| {
                self.classes.classes[c]
                    .states
                    .iter()
                    .map(|&s| initial[s as usize])
                    .sum()
            })
            .collect();
        let mut residual = 0.0;
        let mut weight_bound = 0.0;
        // Qualitative first: the closed classes reachable from the start; if there is one, the
        // chain ends there with probability exactly 1.
        let support: Vec<StateId> = (0..n as StateId).filter(|&s| initial[s as usize] > 0.0).collect();
        let reachable = crate::graph::forward_reachable(self.dtmc.matrix(), &support);
        let reached: Vec<usize> = (0..self.closed.len())
            .filter(|&i| reachable.contains(self.classes.classes[self.closed[i]].states[0]))
            .collect();
        if reached.len() == 1 {
            absorption.iter_mut().for_each(|w| *w = 0.0);
            absorption[reached[0]] = 1.0;
        } else if let Some(a) = &self.absorbing {
            let (visits, r) = a.expected_visits_from(initial)?;
            residual = r;
            // Probability of entering class c = Σ_s z_s P(s, c); its error ≤ Σ_s |δz_s| P(s, c).
            let class_index: Vec<Option<usize>> = {
                let mut ci = vec![None; n];
                for (i, &c) in self.closed.iter().enumerate() {
                    for &s in &self.classes.classes[c].states {
                        ci[s as usize] = Some(i);
                    }
                }
                ci
            };
            for (s, &z) in visits.iter().enumerate() {
                if z == 0.0 || self.recurrent_set.contains(s as StateId) {
                    continue;
                }
                let (cols, vals) = self.dtmc.matrix().row(s);
                for (&t, p) in cols.iter().zip(vals) {
                    if let Some(i) = class_index[t as usize] {
                        absorption[i] += z * p;
                    }
                }
            }
            weight_bound = r * a.transient_states().len() as f64;
        }
        let mut distribution = vec![0.0; n];
        let mut error_bound = 0.0f64;
        let mut converges = true;
        for (i, st) in self.stationary.iter().enumerate() {
            let w = absorption[i];
            if w > 0.0 && self.classes.classes[self.closed[i]].period != Some(1) {
                converges = false;
            }
            for (&s, p) in st.class.iter().zip(&st.pi) {
                distribution[s as usize] = w * p;
            }
            // + one rounding of the product w·π to f64.
            error_bound = error_bound.max(weight_bound + w * st.error_bound + w * f64::EPSILON);
        }
        Ok(LongRun {
            absorption,
            distribution,
            converges,
            error_bound,
            residual,
        })
    }

    /// The gain and bias of the reward `rewards[s]` per step in state `s` (length `n`), on each
    /// closed class (order of [`closed`](Self::closed)).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `rewards` has the wrong length or a value that is not finite.
    pub fn gain_bias(&self, rewards: &[f64]) -> Result<Vec<GainBias>> {
        if rewards.len() != self.dtmc.n() || rewards.iter().any(|r| !r.is_finite()) {
            return Err(Error::arg("rewards", "one finite reward per state"));
        }
        Ok(self
            .recurrent
            .iter()
            .zip(&self.stationary)
            .map(|(rc, st)| rc.gain_bias(st, rewards))
            .collect())
    }
}
