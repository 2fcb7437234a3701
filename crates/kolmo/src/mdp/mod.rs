//! Markov decision processes: optimal values and policies with guaranteed error bounds
//! (Puterman, *Markov Decision Processes*, 1994; Bertsekas & Tsitsiklis, "An analysis of
//! stochastic shortest path problems", Math. Oper. Res. 16(3), 1991).
//!
//! Every solver returns an [`MdpSolution`]: the values, an optimal policy (one choice per state),
//! and a guaranteed bound on the values' error. Rewards are given per choice (row of the
//! row-grouped matrix): use [`RewardModel::expected_per_choice`](crate::model::RewardModel::expected_per_choice)
//! for a model's reward model.

mod average;
mod discounted;
mod exact;
mod forever;
mod horizon;
mod long_run;
mod reach;
mod solve;
mod topological;
mod total;

pub use average::{average, bias};
pub use discounted::{discounted, discounted_exact};
pub(crate) use discounted::{discounted_by, discounted_exact_from};
pub(crate) use exact::{exact_parts, policy_chain};
pub use exact::{reach_probability_exact, total_reward_exact};
pub(crate) use forever::{quiet_states, total_reward_forever};
pub use horizon::{
    HorizonSolution, MAX_HORIZON_WORK, MAX_STORED_DECISIONS, finite_horizon, finite_horizon_exact,
};
pub(crate) use horizon::{
    backward_induction, backward_induction_exact, finite_horizon_by, finite_horizon_exact_by,
};
pub(crate) use long_run::long_run;
pub use long_run::{LongRun, LongRunOptions};
pub use reach::reach_probability;
pub use solve::{Objective, Solved, solve};
pub(crate) use solve::{certified, keep};
pub use total::total_reward;

use crate::account;
use crate::model::{Mdp, Player};
use crate::sparse::Direction;
use crate::{Error, Result};

/// Which optimum is sought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimum {
    /// The largest value over all policies.
    Max,
    /// The smallest value over all policies.
    Min,
}

impl Optimum {
    /// The game player that seeks this optimum.
    #[must_use]
    pub fn player(self) -> Player {
        match self {
            Self::Max => Player::Max,
            Self::Min => Player::Min,
        }
    }

    /// The direction in which a Bellman step reduces for this optimum.
    #[must_use]
    pub fn direction(self) -> Direction {
        match self {
            Self::Max => Direction::Max,
            Self::Min => Direction::Min,
        }
    }

    fn better(self, a: f64, b: f64) -> bool {
        self.direction().better(&a, &b)
    }
}

/// How to solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// Policy iteration while its evaluations are cheap linear solves, value iteration otherwise
    /// (large models whose structure would need a general sparse LU); the default.
    #[default]
    Auto,
    /// Howard's policy iteration: exact policy evaluation by a linear solve, greedy improvement
    /// (Puterman §6.4).
    PolicyIteration,
    /// Gauss–Seidel value iteration (Puterman §6.3.3), stopped by the sound criterion.
    ValueIteration,
}

/// Options of the MDP solvers. `method` chooses for discounted objectives; reachability and total
/// reward always use policy iteration (their certificates hold whatever produced the values).
#[derive(Clone, Copy, Debug)]
pub struct MdpOptions {
    /// The method.
    pub method: Method,
    /// Value iteration stops once its guaranteed bound is below `precision · max |v|` (default
    /// 1e-12), or earlier when rounding alone keeps the bound above that (a discount close to 1:
    /// the reported bound is then the one reached); policy iteration ignores it.
    pub precision: f64,
    /// Iteration limit (sweeps for value iteration, improvement rounds for policy iteration);
    /// reaching it is an error, never a silent answer.
    pub max_iterations: u64,
    /// Where to report the iteration count and the latest change (value iteration) after every
    /// iteration, for a caller drawing progress; `None` (the default) reports nothing.
    pub progress: Option<&'static crate::progress::Progress>,
}

impl MdpOptions {
    /// Records iteration `iterations` with its residual in [`MdpOptions::progress`], if any.
    pub(crate) fn report(&self, iterations: u64, residual: f64) {
        if let Some(p) = self.progress {
            p.record(iterations, residual);
        }
    }
}

impl Default for MdpOptions {
    fn default() -> Self {
        Self {
            method: Method::Auto,
            precision: 1e-12,
            max_iterations: 1_000_000,
            progress: None,
        }
    }
}

/// Optimal values and a policy attaining them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MdpSolution {
    /// The optimal value of each state (length `n`); `±∞` where the objective is infinite.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// An optimal choice per state (index within the state's choices; length `n`).
    pub policy: Vec<u32>,
    /// Guaranteed bound on `max_s |v*(s) − values[s]|` over the finite values.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
    /// Iterations done (improvement rounds or sweeps).
    pub iterations: u64,
    /// How the numbers were obtained.
    pub method: account::Method,
}

impl MdpSolution {
    /// This solution as an exact solver answers it: its `policy` (when it has one), and each
    /// value its exact value's nearest `f64` (`None`: infinite, with the sign this solution has),
    /// so that a decimal shown beside a fraction is that fraction's. The bound becomes the
    /// rounding's, `max |v| · 2⁻⁵³`.
    ///
    /// # Panics
    /// - panics if `exact` does not give one value per state.
    #[must_use]
    #[track_caller]
    pub fn with_exact<'a>(
        mut self,
        policy: Option<Vec<u32>>,
        exact: impl ExactSizeIterator<Item = Option<&'a crate::exact::Rational>>,
    ) -> Self {
        assert!(exact.len() == self.values.len());
        if let Some(p) = policy {
            self.policy = p;
        }
        for (v, x) in self.values.iter_mut().zip(exact) {
            *v = match x {
                Some(x) => crate::exact::Scalar::to_f64(x),
                None if *v < 0.0 => f64::NEG_INFINITY,
                None => f64::INFINITY,
            };
        }
        let largest = self
            .values
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, |m, v| m.max(v.abs()));
        self.error_bound = largest * (f64::EPSILON / 2.0);
        self
    }

    /// How the values were obtained: `iterations` rounds or sweeps, and an absolute bound on
    /// every finite value (the true optimum lies in `[value − error_bound, value + error_bound]`).
    #[must_use]
    pub fn account(&self) -> account::Account {
        account::Account {
            method: self.method.clone(),
            iterations: Some(self.iterations),
            residual: f64::NAN,
            bound: self.error_bound,
            guarantee: account::Guarantee::AbsoluteError,
        }
    }
}

/// `Ok` unless a value is NaN or `±∞` where finite values were expected: the rewards are too large
/// for floating point (`--exact` still answers).
pub(crate) fn check_finite(what: &'static str, values: &[f64]) -> Result<()> {
    if values.iter().any(|v| v.is_nan()) || (values.iter().any(|v| v.is_infinite()) && what != "total reward")
    {
        return Err(Error::Uncertified {
            what,
            bound: f64::INFINITY,
            residual: f64::NAN,
            hint: "; the values overflow floating point (ask for the exact values)".into(),
        });
    }
    Ok(())
}

/// `Ok` if `rewards` has one finite reward per choice of `mdp`.
///
/// # Errors
/// [`Error::InvalidArgument`] for the wrong length; [`Error::InvalidDistribution`] naming the
/// state and choice of a reward that is not finite.
pub(crate) fn check_rewards(mdp: &Mdp, rewards: &[f64]) -> Result<()> {
    if rewards.len() != mdp.choices() {
        return Err(Error::arg(
            "rewards",
            format!("{} rewards for {} choices", rewards.len(), mdp.choices()),
        ));
    }
    crate::model::check_choice_rewards(mdp.matrix(), rewards)
}

/// [`check_rewards`], and no reward below 0: the rewards of a total until a target, after the
/// callers have turned all-≤ 0 rewards (costs) around, so a negative one left means rewards of
/// both signs, under which the total can be undefined (`+∞ − ∞`); the message names a choice of
/// each sign.
pub(crate) fn check_total_rewards(mdp: &Mdp, rewards: &[f64]) -> Result<()> {
    check_rewards(mdp, rewards)?;
    match rewards.iter().position(|r| *r < 0.0) {
        None => Ok(()),
        Some(neg) => {
            let pos = rewards.iter().position(|r| *r > 0.0).unwrap_or(neg);
            Err(Error::arg(
                "rewards",
                format!(
                    "rewards of both signs (choice {pos}: {}, choice {neg}: {}): the total until the target can be undefined; give all ≥ 0 or all ≤ 0",
                    rewards[pos], rewards[neg]
                ),
            ))
        }
    }
}

/// An MDP for tests: `groups[s]` lists state `s`'s choices, each a list of `(target, probability)`;
/// initial state 0.
#[cfg(test)]
pub(crate) fn test_mdp(groups: &[&[&[(u32, f64)]]]) -> Mdp {
    let mut b = crate::sparse::CsrBuilder::new(groups.len());
    for g in groups {
        b.new_row_group();
        for row in *g {
            for &(t, p) in *row {
                b.add(t, p);
            }
            b.finish_row();
        }
    }
    Mdp::new(b.build(), vec![0]).expect("a valid test MDP")
}

#[cfg(test)]
mod exact_tests {
    use super::*;
    use crate::exact::Rational;

    // A floating-point answer replaced by the exact one: 1/3 rounded to nearest (not the
    // float's 0.3), +∞ and −∞ by the float's sign, the exact policy, the rounding's bound.
    #[test]
    fn with_exact_shows_the_fractions_rounded() {
        let f = MdpSolution {
            values: vec![0.3, 5.0, -5.0],
            policy: vec![1, 1, 1],
            error_bound: 0.1,
            iterations: 2,
            method: account::Method::BackwardInduction,
        };
        let third = Rational::ONE / Rational::from(3);
        let x = f.with_exact(Some(vec![0, 0, 0]), [Some(&third), None, None].into_iter());
        assert_eq!(x.values, vec![1.0 / 3.0, f64::INFINITY, f64::NEG_INFINITY]);
        assert_eq!(x.policy, vec![0, 0, 0]);
        assert_eq!(x.error_bound, (1.0 / 3.0) * f64::EPSILON / 2.0);
    }
}
