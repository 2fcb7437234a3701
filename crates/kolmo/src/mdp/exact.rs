//! Exact rational answers for MDP objectives: policy iteration in rationals, started from the
//! `f64` optimum's policy, so that usually one exact evaluation and one exact improvement test
//! confirm it.

use super::Optimum;
use crate::analysis::exact::{expected_reward_exact, reach_probability_exact as chain_reach_exact};
use crate::exact::Rational;
use crate::model::{Dtmc, Mdp, StateSet, Written};
use crate::sparse::{Affine, CsrMatrix};
use crate::{Error, Result};

/// The model's exact matrix ([`Mdp::exact_matrix`]: the probabilities as written when the reader
/// kept them, else recovered as fractions), after checking that `rewards` has one reward per choice.
pub(crate) fn exact_parts(mdp: &Mdp, rewards: &[Rational]) -> Result<CsrMatrix<Rational>> {
    if rewards.len() != mdp.choices() {
        return Err(Error::arg(
            "rewards",
            format!("{} rewards for {} choices", rewards.len(), mdp.choices()),
        ));
    }
    mdp.exact_matrix()
}

/// The Markov chain of `mdp` under the stationary policy choosing `rows` (one row per state),
/// carrying the exact probabilities of those rows from `p` as its values as written.
pub(crate) fn policy_chain(mdp: &Mdp, p: &CsrMatrix<Rational>, rows: &[usize]) -> Result<Dtmc> {
    let probabilities = p.select_rows(rows).as_parts().2.to_vec();
    Dtmc::new(mdp.matrix().select_rows(rows), mdp.initial().to_vec())?.with_written(Written {
        probabilities,
        ..Written::default()
    })
}

/// `r(row) + Σ_t P(row, t) v(t)` exactly (the kernel's row value), or `None` if a successor's
/// value is `None` (+∞); `known` holds the values with 0 for `None`.
fn q_value(
    p: &CsrMatrix<Rational>,
    r: &[Rational],
    v: &[Option<Rational>],
    known: &[Rational],
    row: usize,
) -> Option<Rational> {
    p.row(row)
        .0
        .iter()
        .all(|&t| v[t as usize].is_some())
        .then(|| p.row_value(row, known, Affine::offset(r)))
}

/// Exact policy iteration for the expected total reward until `target` (see
/// [`total_reward`](super::total_reward)), from `policy`. Returns the exact values (`None` = +∞)
/// and the policy. `rewards` has one exact reward per choice (length `m`; from a model, its
/// [`Mdp::exact_rewards`]).
///
/// # Errors
/// As [`expected_reward_exact`] (too large, probabilities that are not simple fractions);
/// [`Error::InvalidArgument`] for rewards of the wrong length.
pub fn total_reward_exact(
    mdp: &Mdp,
    rewards: &[Rational],
    target: &StateSet,
    optimum: Optimum,
    policy: &[u32],
) -> Result<(Vec<Option<Rational>>, Vec<u32>)> {
    let p = exact_parts(mdp, rewards)?;
    let r = rewards;
    let m = mdp.matrix();
    let mut policy = policy.to_vec();
    loop {
        crate::interrupt::check()?;
        let rows: Vec<usize> = (0..mdp.n())
            .map(|s| m.group_rows(s).start + policy[s] as usize)
            .collect();
        let chain = policy_chain(mdp, &p, &rows)?;
        let r_pi: Vec<Rational> = rows.iter().map(|&row| r[row].clone()).collect();
        let v = expected_reward_exact(&chain, target, &r_pi)?;
        let known: Vec<Rational> = v.iter().map(|x| x.clone().unwrap_or(Rational::ZERO)).collect();
        let mut changed = false;
        for s in 0..mdp.n() {
            let Some(current) = v[s].clone() else { continue };
            if target.contains(s as u32) {
                continue;
            }
            let group = m.group_rows(s);
            let mut best = current;
            for row in group.clone() {
                if let Some(q) = q_value(&p, r, &v, &known, row) {
                    if optimum.direction().better(&q, &best) {
                        best = q;
                        policy[s] = (row - group.start) as u32;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return Ok((v, policy));
        }
    }
}

/// Exact policy iteration for the probability of reaching `target` (see
/// [`reach_probability`](super::reach_probability)), from `policy` (an optimal one from the `f64`
/// solver: exact iteration then only confirms it or improves on rounding ties). Returns the exact
/// values and the policy.
///
/// # Errors
/// As [`chain_reach_exact`].
pub fn reach_probability_exact(
    mdp: &Mdp,
    target: &StateSet,
    optimum: Optimum,
    policy: &[u32],
) -> Result<(Vec<Rational>, Vec<u32>)> {
    let p = mdp.exact_matrix()?;
    let m = mdp.matrix();
    let mut policy = policy.to_vec();
    loop {
        crate::interrupt::check()?;
        let rows: Vec<usize> = (0..mdp.n())
            .map(|s| m.group_rows(s).start + policy[s] as usize)
            .collect();
        let chain = policy_chain(mdp, &p, &rows)?;
        let v = chain_reach_exact(&chain, target)?;
        let mut changed = false;
        for s in 0..mdp.n() {
            if target.contains(s as u32) {
                continue;
            }
            let group = m.group_rows(s);
            let mut best = v[s].clone();
            for row in group.clone() {
                let q = p.row_value(row, &v, Affine::product());
                if optimum.direction().better(&q, &best) {
                    best = q;
                    policy[s] = (row - group.start) as u32;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok((v, policy));
        }
    }
}
