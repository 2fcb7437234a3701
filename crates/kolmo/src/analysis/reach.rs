//! The probability of ever reaching a target set (Baier & Katoen, *Principles of Model
//! Checking*, 2008, §10.1.1): graph analysis fixes the states with probability 0 and 1; the rest
//! solve `(I − Q) x = b`, `Q` = transitions among them and `b_s` = the one-step probability of
//! entering a probability-1 state.

use super::subsystem::Subsystem;
use crate::Result;
use crate::graph::Qualitative;
use crate::model::{Dtmc, StateSet};

/// Reachability probabilities of a target.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReachProbability {
    /// `P(eventually reach target)` from each state; length `n`; exactly 0 and 1 on the sets found
    /// by graph analysis.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// The graph analysis behind `values` (not serialized: `values` shows its 0 and 1 sets).
    #[serde(skip)]
    pub qualitative: Qualitative,
    /// Max-norm residual `‖(I − Q)x̂ − b‖∞` of the linear solve (0 when there was none).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Guaranteed bound on the absolute error of every value: `r · max τ̂ / (1 − r_τ)`, with `τ̂` the
    /// expected number of steps spent among the undecided states (`(I − Q)τ = 1`, solved on the
    /// same factorisation with residual `r_τ`); since `(I − Q)⁻¹ ≥ 0`, `|x − x̂| ≤ r · τ`; plus `ε`
    /// for the final rounding; plus what the rounding of the input probabilities to `f64` can do
    /// ([`perturbation_growth`](crate::numeric::perturbation_growth) over the undecided states).
    /// 0 when graph analysis decided every state.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
}

/// The probability of eventually reaching `target` from every state of `dtmc`.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) if `target` does not range over the
/// chain's states;
/// [`Error::Singular`](crate::Error::Singular) if the solve breaks down numerically.
///
/// # Complexity
/// O(n + nnz) graph analysis, then O(k³) for the `k` states with probability strictly between 0
/// and 1 (see [`Factored`](crate::linsolve::Factored) for the method).
pub fn reach_probability(dtmc: &Dtmc, target: &StateSet) -> Result<ReachProbability> {
    dtmc.check_set("target", target)?;
    reach_probability_given(dtmc, Qualitative::new(dtmc, target))
}

/// [`reach_probability`] for the target whose graph analysis `qualitative` is already known (an
/// [`AbsorbingChain`](super::AbsorbingChain)'s, for instance): only the undecided states are
/// solved.
///
/// # Errors
/// As [`reach_probability`], except the target's range (checked when `qualitative` was made).
pub fn reach_probability_given(dtmc: &Dtmc, qualitative: Qualitative) -> Result<ReachProbability> {
    let mut values: Vec<f64> = (0..dtmc.n() as u32)
        .map(|s| if qualitative.yes.contains(s) { 1.0 } else { 0.0 })
        .collect();
    let maybe = Subsystem::new(dtmc, &qualitative.maybe);
    let (mut residual, mut error_bound) = (0.0, 0.0);
    if maybe.len() > 0 {
        let lu = maybe.factor_i_minus_q("reachability probabilities (I - Q)")?;
        let b = maybe.probabilities_into(dtmc.matrix(), &qualitative.yes);
        let (x, r) = maybe.solve_refined(&lu, &b);
        residual = r;
        let (tau, r_tau) = maybe.solve_refined(&lu, &vec![1.0; maybe.len()]);
        // A Krylov solve stopped by a stop request left NaN: report the stop.
        crate::interrupt::check()?;
        let tau_max = tau.iter().fold(0.0f64, |m, v| m.max(*v));
        // + one rounding to f64, and what the rounding of the input probabilities can do
        // (relative on x = N b ≤ 1, b the rounded one-step masses into the probability-1 states).
        let x_max = x.iter().fold(0.0f64, |m, v| m.max(*v));
        error_bound = if r_tau < 1.0 {
            r * tau_max / (1.0 - r_tau) + f64::EPSILON + maybe.input_growth(true) * x_max.min(1.0)
        } else {
            f64::INFINITY
        };
        for (i, &s) in maybe.states.iter().enumerate() {
            values[s as usize] = x[i];
        }
    }
    Ok(ReachProbability {
        values,
        qualitative,
        residual,
        error_bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::absorbing::tests::walk;

    // Grinstead & Snell, Examples 11.13-11.15 (published): absorption probabilities into 4 from
    // 1, 2, 3 are 1/4, 1/2, 3/4 for the fair walk; 8/15, 4/5, 14/15 for the walk biased right 2/3.
    #[test]
    fn absorption_probabilities_of_walks() {
        for (p, expect) in [
            (0.5, [0.25, 0.5, 0.75]),
            (2.0 / 3.0, [8.0 / 15.0, 0.8, 14.0 / 15.0]),
        ] {
            let d = walk(p);
            let r = reach_probability(&d, &StateSet::from_states(5, [4])).unwrap();
            assert_eq!(r.values[0], 0.0);
            assert_eq!(r.values[4], 1.0);
            for (s, y) in (1..4).zip(expect) {
                assert!((r.values[s] - y).abs() < 1e-15, "{} vs {y}", r.values[s]);
            }
            assert!(r.residual < 1e-15 && r.error_bound < 1e-14);
        }
    }
}
