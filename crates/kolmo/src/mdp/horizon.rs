//! Finite horizons: `V_k = T^k 0` by backward induction (Puterman, *Markov Decision Processes*,
//! 1994, §4.5), undiscounted or with a discount `γ` (`T v = max_a r_a + γ P_a v`, MDPToolbox's
//! `FiniteHorizon`), every step [`CsrMatrix::multiply_and_reduce`] (the same for games, whose states
//! reduce by their owner's direction).

use super::{Optimum, check_rewards};
use crate::exact::Rational;
use crate::interrupt;
use crate::model::Mdp;
use crate::sparse::{Affine, CsrMatrix, Direction};
use crate::{Error, Result};

/// Largest `steps × transitions` of [`finite_horizon`] (about a minute).
pub const MAX_HORIZON_WORK: u64 = 20_000_000_000;

/// Largest `steps × states` for which [`finite_horizon`] keeps every stage's decisions.
pub const MAX_STORED_DECISIONS: u64 = 10_000_000;

/// The optimal expected total reward over a finite horizon and the optimal decisions per stage.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HorizonSolution {
    /// Number of steps `k`.
    pub steps: u64,
    /// `V_k(s)`, length `n`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// `decisions[t][s]`: the optimal choice in `s` at stage `t` (`k − t` steps to go); `k × n`,
    /// or only the first stage (`1 × n`) when `k × n` exceeds [`MAX_STORED_DECISIONS`].
    pub decisions: Vec<Vec<u32>>,
    /// Bound on the rounding error of `values`: `k` Bellman steps, each adding at most one rounding
    /// per term of a row.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
}

/// Backward induction over `steps` steps with `rewards` per choice (length `m`), each step's
/// future discounted by `discount` (`None`: undiscounted, the expected total reward).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for rewards of the wrong length, a discount outside
/// `[0, 1]`, or `steps × nnz` beyond
/// [`MAX_HORIZON_WORK`]; [`crate::Error::Uncertified`] if the values overflow `f64`;
/// [`crate::Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked every
/// step).
///
/// # Complexity
/// O(steps · nnz) time, O(min(steps · n, [`MAX_STORED_DECISIONS`])) space for the decisions.
pub fn finite_horizon(
    mdp: &Mdp,
    rewards: &[f64],
    steps: u64,
    discount: Option<f64>,
    optimum: Optimum,
) -> Result<HorizonSolution> {
    finite_horizon_by(mdp, rewards, steps, discount, |_| optimum.direction())
}

/// [`finite_horizon`] with state `s` reduced in `direction(s)`: a two-player game's owners
/// (Shapley 1953), or one optimum for an MDP.
pub(crate) fn finite_horizon_by(
    mdp: &Mdp,
    rewards: &[f64],
    steps: u64,
    discount: Option<f64>,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
) -> Result<HorizonSolution> {
    check_rewards(mdp, rewards)?;
    if let Some(g) = discount
        && !(0.0..=1.0).contains(&g)
    {
        return Err(Error::arg("discount", format!("{g} is not in [0, 1]")));
    }
    let work = steps.saturating_mul(mdp.matrix().nnz().max(1) as u64);
    if work > MAX_HORIZON_WORK {
        return Err(Error::arg(
            "horizon",
            format!(
                "{steps} steps on {} transitions is more work than the limit of {MAX_HORIZON_WORK} (steps × transitions)",
                mdp.matrix().nnz()
            ),
        ));
    }
    // Every stage's decisions only while they fit in memory; otherwise the first stage's.
    let every_stage = steps.saturating_mul(mdp.n() as u64) <= MAX_STORED_DECISIONS;
    let (values, first, by_stage) = backward_induction(
        mdp.matrix(),
        rewards,
        discount.as_ref(),
        direction,
        steps,
        every_stage,
    )?;
    let decisions = if every_stage { by_stage } else { vec![first] };
    let m = mdp.matrix();
    // One rounding per term of a row, one for the reward and one for the discount's product.
    let width = (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0) as f64 + 2.0;
    let size = values.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    super::check_finite("finite horizon", &values)?;
    Ok(HorizonSolution {
        steps,
        error_bound: steps as f64 * width * f64::EPSILON * size,
        values,
        decisions,
    })
}

/// [`finite_horizon`]'s values in exact rational arithmetic, on the model's
/// [`exact_matrix`](Mdp::exact_matrix) and exact `rewards` (one per choice, length `m`; from a
/// model, its [`Mdp::exact_rewards`]) and the exact `discount` (`None`: undiscounted), with the
/// optimal first-stage choices found by exact comparison (the first best choice on a tie).
///
/// # Errors
/// [`Error::InvalidArgument`] for rewards of the wrong length or more work than
/// [`crate::analysis::exact::check_exact_steps`] allows;
/// [`Error::InvalidDistribution`] if a probability is not a simple fraction (see
/// [`Mdp::exact_matrix`]); [`Error::Interrupted`] if a stop is requested
/// ([`crate::interrupt`], checked every step).
pub fn finite_horizon_exact(
    mdp: &Mdp,
    rewards: &[Rational],
    steps: u64,
    discount: Option<&Rational>,
    optimum: Optimum,
) -> Result<(Vec<Rational>, Vec<u32>)> {
    finite_horizon_exact_by(mdp, rewards, steps, discount, |_| optimum.direction())
}

/// [`finite_horizon_exact`] with state `s` reduced in `direction(s)` (a game's owners).
pub(crate) fn finite_horizon_exact_by(
    mdp: &Mdp,
    rewards: &[Rational],
    steps: u64,
    discount: Option<&Rational>,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
) -> Result<(Vec<Rational>, Vec<u32>)> {
    crate::analysis::exact::check_exact_steps("exact finite horizon", steps, mdp.matrix().nnz())?;
    let p = super::exact::exact_parts(mdp, rewards)?;
    backward_induction_exact(&p, rewards, discount, direction, steps)
}

/// What [`backward_induction`] returns: the values, the first step's choices, and every stage's
/// choices (or none).
pub(crate) type Induction = (Vec<f64>, Vec<u32>, Vec<Vec<u32>>);

/// `V_k = T^k 0` over `steps` Bellman steps ([`CsrMatrix::multiply_and_reduce`]) of the
/// row-grouped `matrix` with `rewards` per row and the future discounted by `gamma` (`None`: 1),
/// group `s` reduced in `direction(s)`: the values
/// `V_k`, the choices of the first step (all 0 when `steps = 0`), and with `every_stage` the
/// choices of every stage (`result[t][s]` with `steps − t` steps to go; empty otherwise).
///
/// # Errors
/// [`Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked every step).
///
/// # Complexity
/// O(steps · nnz) time; O(steps · n) space with `every_stage`.
pub(crate) fn backward_induction(
    matrix: &CsrMatrix,
    rewards: &[f64],
    gamma: Option<&f64>,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    steps: u64,
    every_stage: bool,
) -> Result<Induction> {
    let n = matrix.row_groups();
    let mut v = vec![0.0; n];
    let mut next = vec![0.0; n];
    let mut choices = vec![0u32; n];
    let mut by_remaining = Vec::new();
    for _ in 0..steps {
        interrupt::check()?;
        let affine = Affine {
            b: Some(rewards),
            gamma,
        };
        matrix.multiply_and_reduce(direction, &v, affine, &mut next, &mut choices);
        std::mem::swap(&mut v, &mut next);
        if every_stage {
            by_remaining.push(choices.clone());
        }
    }
    by_remaining.reverse();
    Ok((v, choices, by_remaining))
}

/// [`backward_induction`]'s values in exact rational arithmetic on the exact probabilities `p`
/// (the row-grouped matrix), exact `rewards` (one per row) and discount `gamma` (`None`: 1):
/// `V_k = T^k 0` with exact maxima and minima.
///
/// # Errors
/// [`Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked every step).
///
/// # Complexity
/// O(steps · nnz) rational operations on numbers whose length grows with `steps`.
pub(crate) fn backward_induction_exact(
    p: &CsrMatrix<Rational>,
    rewards: &[Rational],
    gamma: Option<&Rational>,
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    steps: u64,
) -> Result<(Vec<Rational>, Vec<u32>)> {
    let n = p.row_groups();
    let mut v = vec![Rational::ZERO; n];
    let mut next = vec![Rational::ZERO; n];
    let mut choices = vec![0u32; n];
    for _ in 0..steps {
        interrupt::check()?;
        let affine = Affine {
            b: Some(rewards),
            gamma,
        };
        p.multiply_and_reduce(direction, &v, affine, &mut next, &mut choices);
        std::mem::swap(&mut v, &mut next);
    }
    Ok((v, choices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    // MDPToolbox's forest (S = 3, r1 = 4, r2 = 2, p = 0.1) over 3 steps discounted by 9/10 and
    // undiscounted; the values by backward induction by hand in fractions: (26973, 59373, 99373) /
    // 10⁴ and (333, 693, 1093) / 100, always wait.
    #[test]
    fn discounted_forest() {
        let mut b = CsrBuilder::new(3);
        let mut r = Vec::new();
        for s in 0..3u32 {
            b.new_row_group();
            b.add(0, 0.1);
            b.add((s + 1).min(2), 0.9);
            b.finish_row();
            b.add(0, 1.0);
            b.finish_row();
            r.extend([[0.0, 0.0, 4.0][s as usize], [0.0, 1.0, 2.0][s as usize]]);
        }
        let mdp = Mdp::new(b.build(), vec![0]).unwrap();
        let exact_r = crate::exact::rationalize_rewards(&r).unwrap();
        let q = |p: i64, d: i64| Rational::from(p) / Rational::from(d);
        for (g, want) in [
            (Some(0.9), [q(26973, 10000), q(59373, 10000), q(99373, 10000)]),
            (None, [q(333, 100), q(693, 100), q(1093, 100)]),
        ] {
            let h = finite_horizon(&mdp, &r, 3, g, Optimum::Max).unwrap();
            let gx = g.map(|_| q(9, 10));
            let (x, first) = finite_horizon_exact(&mdp, &exact_r, 3, gx.as_ref(), Optimum::Max).unwrap();
            assert_eq!(x, want);
            // Always wait (choice 0), as the f64 solver decides.
            assert_eq!(first, vec![0, 0, 0]);
            assert_eq!(h.decisions[0], first);
            for (v, w) in h.values.iter().zip(&want) {
                let w = crate::exact::Scalar::to_f64(w);
                assert!((v - w).abs() <= h.error_bound, "{v} vs {w} ± {}", h.error_bound);
            }
            assert_eq!(h.decisions[0], vec![0, 0, 0]);
        }
        assert!(finite_horizon(&mdp, &r, 3, Some(1.5), Optimum::Max).is_err());
    }

    // shared/cases/08-mdp.md — Puterman §3.2 / §4.6.1 inventory (β = 1, T = 3), published:
    // v_0 = (67/16, 129/16, 194/16, 227/16), σ_0 = (3, 0, 0, 0), σ_1 = (2, 0, 0, 0), σ_2 = 0.
    #[test]
    fn puterman_inventory() {
        let s = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3];
        let r = [0.0, -1.0, -2.0, -5.0, 5.0, 0.0, -3.0, 6.0, -1.0, 5.0];
        let next: [[f64; 4]; 10] = [
            [1.0, 0.0, 0.0, 0.0],
            [0.75, 0.25, 0.0, 0.0],
            [0.25, 0.5, 0.25, 0.0],
            [0.0, 0.25, 0.5, 0.25],
            [0.75, 0.25, 0.0, 0.0],
            [0.25, 0.5, 0.25, 0.0],
            [0.0, 0.25, 0.5, 0.25],
            [0.25, 0.5, 0.25, 0.0],
            [0.0, 0.25, 0.5, 0.25],
            [0.0, 0.25, 0.5, 0.25],
        ];
        let mut b = CsrBuilder::new(4);
        for (i, row) in next.iter().enumerate() {
            if i == 0 || s[i] != s[i - 1] {
                b.new_row_group();
            }
            for (t, &p) in row.iter().enumerate() {
                if p > 0.0 {
                    b.add(t as u32, p);
                }
            }
            b.finish_row();
        }
        let mdp = Mdp::new(b.build(), vec![0]).unwrap();
        let h = finite_horizon(&mdp, &r, 3, None, Optimum::Max).unwrap();
        for (x, y) in h.values.iter().zip([67.0, 129.0, 194.0, 227.0]) {
            assert!((x - y / 16.0).abs() <= h.error_bound.max(1e-15), "{x} vs {y}/16");
        }
        assert_eq!(
            h.decisions,
            vec![vec![3, 0, 0, 0], vec![2, 0, 0, 0], vec![0, 0, 0, 0]]
        );
        let exact = finite_horizon_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            3,
            None,
            Optimum::Max,
        )
        .unwrap()
        .0;
        assert_eq!(exact[0], Rational::from(67) / Rational::from(16));
        let two = finite_horizon_exact(
            &mdp,
            &crate::exact::rationalize_rewards(&r).unwrap(),
            2,
            None,
            Optimum::Max,
        )
        .unwrap()
        .0;
        assert_eq!(
            two,
            vec![
                Rational::from(2),
                Rational::from(25) / Rational::from(4),
                Rational::from(10),
                Rational::from(21) / Rational::from(2)
            ]
        );
    }
}
