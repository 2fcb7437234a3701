//! Long-run average reward (gain) of an MDP whose optimal gain is the same from every state
//! (unichain or weakly communicating: Puterman, *Markov Decision Processes*, 1994, ch. 8).

use super::{Optimum, as_game};
use crate::Result;
use crate::game::{LongRunOptions, long_run};
use crate::model::Mdp;
use crate::sparse::CsrBuilder;

/// The optimal gain, bracketed, and a policy attaining it.
#[derive(Clone, Debug)]
pub struct AverageSolution {
    /// Guaranteed lower bound on the optimal gain (reward per step).
    pub gain_lower: f64,
    /// Guaranteed upper bound on the optimal gain.
    pub gain_upper: f64,
    /// The choice per state at the last stage of value iteration (length `n`).
    pub policy: Vec<u32>,
    /// Value-iteration stages done.
    pub stages: u64,
}

impl AverageSolution {
    /// The midpoint of the bracket.
    #[must_use]
    pub fn gain(&self) -> f64 {
        0.5 * (self.gain_lower + self.gain_upper)
    }
}

/// The optimal long-run average reward per step for `rewards` per choice (length `m`), by value
/// iteration on the aperiodic transform `P' = (I + P)/2` (same gain, no periodic oscillation:
/// Puterman §8.5.4), stopped when the bracket `[min_s, max_s] (V_{k+1} − V_k)(s)` — which contains
/// the optimal gain of every state (Odoni 1969; Puterman Thm 8.5.5) — is narrower than
/// `tolerance`.
///
/// # Errors
/// [`crate::Error::LimitReached`] if the bracket does not close within `max_stages` (the optimal gain
/// differs between states: a multichain model, not supported yet), naming the bracket reached;
/// [`crate::Error::InvalidArgument`] for rewards of the wrong length.
pub fn average(
    mdp: &Mdp,
    rewards: &[f64],
    optimum: Optimum,
    tolerance: f64,
    max_stages: u64,
) -> Result<AverageSolution> {
    as_game(mdp, rewards, optimum)?;
    let m = mdp.matrix();
    let mut b = CsrBuilder::new(mdp.n());
    for s in 0..mdp.n() {
        b.new_row_group();
        for r in m.group_rows(s) {
            let (cols, vals) = m.row(r);
            b.add(s as u32, 0.5);
            for (&t, &p) in cols.iter().zip(vals) {
                b.add(t, 0.5 * p);
            }
            b.finish_row();
        }
    }
    let lazy = Mdp::new(b.build(), mdp.initial().to_vec())?;
    let game = as_game(&lazy, rewards, optimum)?;
    let lr = long_run(
        &game,
        &LongRunOptions {
            period: 1,
            tolerance,
            max_stages,
        },
    )?;
    Ok(AverageSolution {
        gain_lower: lr.gain_lower,
        gain_upper: lr.gain_upper,
        policy: lr.choices,
        stages: lr.stages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The forest example (shared/cases/08-mdp.md) under the average criterion: always waiting
    // earns 4 in the oldest state, whose stationary probability under "wait" is 0.81 (0.9²·… with
    // burning 0.1): π = (0.1, 0.09, 0.81) ⇒ gain 3.24; cutting in state 2 earns 2 every 3 steps at
    // best. The optimum is waiting: 3.24.
    #[test]
    fn forest_average() {
        let (mdp, r) = super::super::discounted::tests::forest(3);
        let s = average(&mdp, &r, Optimum::Max, 1e-12, 100_000).unwrap();
        assert!(
            s.gain_lower <= 3.24 + 1e-12 && s.gain_upper >= 3.24 - 1e-12,
            "{s:?}"
        );
        assert!(s.gain_upper - s.gain_lower <= 1e-12);
        assert_eq!(s.policy, vec![0, 0, 0]);
    }
}
