//! The absorbing-chain and transient analyses in exact rational arithmetic: the same graph
//! analysis and the same solvers ([`Factored`] over [`Rational`]) as the `f64` analyses, on the
//! chain's exact probabilities ([`Dtmc::exact_matrix`]: as the input wrote them when the reader
//! kept them, otherwise recovered as fractions from `f64`). Every exact solve is
//! verified: its residual must be exactly zero.

use super::subsystem::Subsystem;
use crate::account::{Account, Guarantee, Method};
use crate::exact::Rational;
use crate::graph::Qualitative;
use crate::linsolve::Factored;
use crate::model::{Dtmc, StateSet};
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};

/// Largest number of transient states an exact solve accepts (beyond it, numerators and
/// denominators of thousands of digits make it take hours).
pub const MAX_EXACT_STATES: usize = 5_000;

/// Largest work of an exact transient computation, counted as steps² × transitions (the numbers'
/// length grows with the number of steps, so the cost grows with its square): about 2 seconds.
pub const MAX_EXACT_WORK: u64 = 500_000_000;

/// Refuses `steps` steps of exact arithmetic over `transitions` transitions when
/// `steps² × transitions` exceeds [`MAX_EXACT_WORK`] (the one rule for every exact step loop:
/// distributions, finite horizons); `what` names the computation in the message.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `what`, with the figures and what to do instead.
pub fn check_exact_steps(what: &'static str, steps: u64, transitions: usize) -> Result<()> {
    let nnz = transitions as u64;
    let work = steps.saturating_mul(steps).saturating_mul(nnz);
    if work > MAX_EXACT_WORK {
        return Err(Error::arg(
            what,
            format!(
                "{steps} steps on {nnz} transitions is too long for exact arithmetic (steps² × transitions = {work} > {MAX_EXACT_WORK}); ask for fewer steps or drop the exact values"
            ),
        ));
    }
    Ok(())
}

/// Exact mean and variance of the number of steps to reach a target.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExactAbsorptionTime {
    /// `E[T]` from each state; length `n`; `None` (= +∞) where the target is not reached almost
    /// surely.
    #[serde(serialize_with = "crate::account::ser::fractions_or_inf")]
    pub mean: Vec<Option<Rational>>,
    /// `Var[T]` from each state; length `n`; `None` as for `mean`.
    #[serde(serialize_with = "crate::account::ser::fractions_or_inf")]
    pub variance: Vec<Option<Rational>>,
    /// How the numbers were obtained.
    pub method: Method,
}

impl ExactAbsorptionTime {
    /// How the values were obtained: exact, residual verified zero.
    #[must_use]
    pub fn account(&self) -> Account {
        Account {
            method: self.method.clone(),
            iterations: None,
            residual: 0.0,
            bound: 0.0,
            guarantee: Guarantee::Exact,
        }
    }
}

/// Exact expected steps `(I − Q)t = 1` and variance (`(I − Q)m₂ = 2t − 1`, `Var = m₂ − t²`) from
/// every state of `dtmc` to `target` (Kemeny & Snell, *Finite Markov Chains*, ch. III).
///
/// # Errors
/// [`Error::InvalidDistribution`] if a probability is not a simple fraction or a row's fractions
/// do not sum to exactly 1; [`Error::TooLarge`] beyond [`MAX_EXACT_STATES`] transient states (or
/// a dense system beyond the exact dense limit); [`Error::InvalidArgument`] for a bad target.
pub fn absorption_time_exact(dtmc: &Dtmc, target: &StateSet) -> Result<ExactAbsorptionTime> {
    dtmc.check_set("target", target)?;
    let qualitative = Qualitative::new(dtmc, target);
    let transient = StateSet::from_states(dtmc.n(), qualitative.yes.iter().filter(|&s| !target.contains(s)));
    let p = dtmc.exact_matrix()?;
    let (sub, lu) = factor_exact(&p, &transient, "exact expected steps (I - Q)")?;
    let ones = vec![Rational::ONE; sub.len()];
    let t = sub.solve_verified(&lu, &ones)?;
    let two = Rational::from(2);
    let rhs: Vec<Rational> = t.iter().map(|x| &two * x - Rational::ONE).collect();
    let m2 = sub.solve_verified(&lu, &rhs)?;
    let states = &sub.states;
    let n = dtmc.n();
    let mut mean = vec![None; n];
    let mut variance = vec![None; n];
    for s in target.iter() {
        mean[s as usize] = Some(Rational::ZERO);
        variance[s as usize] = Some(Rational::ZERO);
    }
    for (i, &s) in states.iter().enumerate() {
        variance[s as usize] = Some(&m2[i] - &t[i] * &t[i]);
        mean[s as usize] = Some(t[i].clone());
    }
    Ok(ExactAbsorptionTime {
        mean,
        variance,
        method: Method::ExactSolve { solver: lu.solver() },
    })
}

/// The exact probability of eventually reaching `target` from every state (length `n`), the exact
/// counterpart of [`reach_probability`](crate::analysis::reach_probability): graph analysis fixes
/// the states with probability 0 and 1, the rest solve `(I − Q)x = b` exactly.
///
/// # Errors
/// As [`absorption_time_exact`].
pub fn reach_probability_exact(dtmc: &Dtmc, target: &StateSet) -> Result<Vec<Rational>> {
    dtmc.check_set("target", target)?;
    let qualitative = Qualitative::new(dtmc, target);
    let p = dtmc.exact_matrix()?;
    let (sub, lu) = factor_exact(&p, &qualitative.maybe, "exact reachability (I - Q)")?;
    let b = sub.probabilities_into(&p, &qualitative.yes);
    let x = sub.solve_verified(&lu, &b)?;
    let states = &sub.states;
    let mut values: Vec<Rational> = (0..dtmc.n() as StateId)
        .map(|s| {
            if qualitative.yes.contains(s) {
                Rational::ONE
            } else {
                Rational::ZERO
            }
        })
        .collect();
    for (i, &s) in states.iter().enumerate() {
        values[s as usize] = x[i].clone();
    }
    Ok(values)
}

/// The exact expected total reward earned before `target` is entered, `rewards[s]` at each visit
/// to a non-target state `s` (length `n`): `(I − Q) x = r` on the states reaching the target with
/// probability 1 (the exact counterpart of
/// [`AbsorbingChain::expected_reward`](crate::analysis::AbsorbingChain::expected_reward)). `None`
/// (= +∞) where the target is not reached almost surely.
///
/// # Errors
/// As [`absorption_time_exact`]; [`Error::InvalidArgument`] if `rewards` has the wrong length.
pub fn expected_reward_exact(
    dtmc: &Dtmc,
    target: &StateSet,
    rewards: &[Rational],
) -> Result<Vec<Option<Rational>>> {
    dtmc.check_set("target", target)?;
    if rewards.len() != dtmc.n() {
        return Err(Error::arg(
            "rewards",
            format!("{} rewards for {} states", rewards.len(), dtmc.n()),
        ));
    }
    let qualitative = Qualitative::new(dtmc, target);
    let transient = StateSet::from_states(dtmc.n(), qualitative.yes.iter().filter(|&s| !target.contains(s)));
    let p = dtmc.exact_matrix()?;
    let (sub, lu) = factor_exact(&p, &transient, "exact expected reward (I - Q)")?;
    let b: Vec<Rational> = sub.states.iter().map(|&s| rewards[s as usize].clone()).collect();
    let x = sub.solve_verified(&lu, &b)?;
    let mut values = vec![None; dtmc.n()];
    for s in target.iter() {
        values[s as usize] = Some(Rational::ZERO);
    }
    for (i, &s) in sub.states.iter().enumerate() {
        values[s as usize] = Some(x[i].clone());
    }
    Ok(values)
}

/// The subsystem of `set` in `p` and its `I − Q` factored in rationals, refusing more than
/// [`MAX_EXACT_STATES`] states.
fn factor_exact(
    p: &CsrMatrix<Rational>,
    set: &StateSet,
    what: &'static str,
) -> Result<(Subsystem<Rational>, Factored<Rational>)> {
    let size = set.count();
    if size > MAX_EXACT_STATES {
        return Err(Error::TooLarge {
            what,
            size,
            limit: MAX_EXACT_STATES,
        });
    }
    let sub = Subsystem::from_matrix(p, set);
    let lu = sub.factor_i_minus_q(what)?;
    Ok((sub, lu))
}

/// The exact distribution after each of `steps` (ascending or not) from state `from`: entry `k`
/// of the result is `π_{steps[k]}` (length `n`).
///
/// # Errors
/// As [`Dtmc::exact_matrix`];
/// [`Error::TooLarge`] if `max(steps)² × transitions` exceeds [`MAX_EXACT_WORK`];
/// [`Error::InvalidArgument`] if `from` is not a state.
pub fn distributions_exact(dtmc: &Dtmc, from: StateId, steps: &[u64]) -> Result<Vec<Vec<Rational>>> {
    let n = dtmc.n();
    if from as usize >= n {
        return Err(Error::arg("start state", format!("{from} is not a state")));
    }
    let last = steps.iter().copied().max().unwrap_or(0);
    check_exact_steps("exact distribution", last, dtmc.matrix().nnz())?;
    let p = dtmc.exact_matrix()?;
    let mut pi = vec![Rational::ZERO; n];
    pi[from as usize] = Rational::ONE;
    let mut out = vec![Vec::new(); steps.len()];
    for t in 0..=last {
        for (k, &s) in steps.iter().enumerate() {
            if s == t {
                out[k] = pi.clone();
            }
        }
        if t == last {
            break;
        }
        crate::interrupt::check()?;
        let mut next = vec![Rational::ZERO; n];
        for (i, x) in pi.iter().enumerate() {
            if x.is_zero() {
                continue;
            }
            let (cols, vals) = p.row(i);
            for (&j, v) in cols.iter().zip(vals) {
                next[j as usize] = &next[j as usize] + x * v;
            }
        }
        pi = next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::absorbing::tests::walk;

    fn q(p: i64, d: i64) -> Rational {
        Rational::from(p) / Rational::from(d)
    }

    // Grinstead & Snell, Example 11.13 (published): biased walk (right 2/3) t = (17/5, 18/5, 11/5);
    // fair walk variance (2N − I)t − t² = (8, 8, 8).
    #[test]
    fn walks_exactly() {
        let d = walk(2.0 / 3.0);
        let t = absorption_time_exact(&d, &StateSet::from_states(5, [0, 4])).unwrap();
        assert_eq!(t.mean[1..4], [Some(q(17, 5)), Some(q(18, 5)), Some(q(11, 5))]);
        let d = walk(0.5);
        let t = absorption_time_exact(&d, &StateSet::from_states(5, [0, 4])).unwrap();
        assert_eq!(t.variance[2], Some(q(8, 1)));
        let t = absorption_time_exact(&d, &StateSet::from_states(5, [4])).unwrap();
        assert_eq!(t.mean[2], None);
        // Grinstead & Snell, Example 11.14 (published): absorption at 4 from 1, 2, 3 = 1/4, 1/2, 3/4.
        let b = reach_probability_exact(&d, &StateSet::from_states(5, [4])).unwrap();
        assert_eq!(b, vec![q(0, 1), q(1, 4), q(1, 2), q(3, 4), q(1, 1)]);
        let pi = distributions_exact(&d, 2, &[2, 0]).unwrap();
        assert_eq!(pi[0], vec![q(1, 4), q(0, 1), q(1, 2), q(0, 1), q(1, 4)]);
        assert_eq!(pi[1][2], q(1, 1));
    }
}
