//! The long-run average reward (gain) bracketed by value-iteration increments (Odoni 1969;
//! Puterman, *Markov Decision Processes*, 1994, Thm 8.5.5), for MDPs and games alike.

use crate::sparse::{Affine, CsrMatrix, Direction};
use crate::{Error, Result};

/// Options of the long-run average reward by value iteration (of games, and inside the end
/// components of MDPs).
#[derive(Clone, Copy, Debug)]
pub struct LongRunOptions {
    /// Steps per stage: increments are taken over this many steps (2 for a game where the two
    /// players alternate and only one of them earns, so that single steps would oscillate).
    pub period: u64,
    /// Stop once the bracket on the gain is narrower than this (default 1e-13, absolute per
    /// stage).
    pub tolerance: f64,
    /// Give up after this many stages (default 100,000).
    pub max_stages: u64,
}

impl Default for LongRunOptions {
    fn default() -> Self {
        Self {
            period: 1,
            tolerance: 1e-13,
            max_stages: 100_000,
        }
    }
}

/// The long-run average reward per stage (gain), bracketed by value iteration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LongRun {
    /// Lower bound on the gain: `min_s (V_{K} − V_{K−1})(s)` per stage.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub gain_lower: f64,
    /// Upper bound on the gain: `max_s (V_{K} − V_{K−1})(s)` per stage.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub gain_upper: f64,
    /// The number of stages `K` iterated.
    pub stages: u64,
    /// `V_K` (length `n`), the `K`-stage values, so that `V_k ≈ V_K + (k − K)·gain` for `k ≥ K`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// The optimal choice in each state at the last stage.
    pub choices: Vec<u32>,
}

impl LongRun {
    /// The midpoint of the gain's bracket.
    #[must_use]
    pub fn gain(&self) -> f64 {
        0.5 * (self.gain_lower + self.gain_upper)
    }

    /// How the gain was obtained: `stages` stages of value iteration, the gain guaranteed in the
    /// bracket `[gain_lower, gain_upper]` (`bound` is its half-width around [`gain`](Self::gain)).
    #[must_use]
    pub fn account(&self) -> crate::account::Account {
        crate::account::Account {
            method: crate::account::Method::BracketedValueIteration,
            iterations: Some(self.stages),
            residual: f64::NAN,
            bound: 0.5 * (self.gain_upper - self.gain_lower),
            guarantee: crate::account::Guarantee::Interval {
                lo: self.gain_lower,
                hi: self.gain_upper,
            },
        }
    }
}

/// The gain of a row-grouped model (an MDP, or a game: `direction(s)` is the way state `s`'s
/// owner optimises) with `rewards` per choice, whose optimal play induces a single recurrent class (unichain), by value
/// iteration: the stage increments `V_K − V_{K−1}` bracket the gain between their minimum and
/// maximum over states (Odoni, "On finding the maximal gain for Markov decision processes",
/// Operations Research 17, 1969; Puterman, *Markov Decision Processes*, 1994, Thm 8.5.5; the same
/// bracket holds for games: the Bellman operator is monotone and additively homogeneous, so later
/// increments stay inside it). Iterates until the bracket is narrower than the tolerance and the
/// choices of both players are the same in two consecutive stages (or, with ties between equally
/// good choices, for 100 stages after the bracket closed).
///
/// # Errors
/// [`Error::LimitReached`] if the bracket is still wider than the tolerance after `max_stages`
/// stages (a multichain or periodic game: give the right `period`); [`Error::InvalidArgument`] for
/// `period == 0`.
pub(crate) fn long_run(
    matrix: &CsrMatrix,
    rewards: &[f64],
    direction: impl Fn(usize) -> Direction + Copy + Sync,
    options: &LongRunOptions,
) -> Result<LongRun> {
    if options.period == 0 {
        return Err(Error::arg("period", "at least 1 step per stage"));
    }
    let n = matrix.row_groups();
    // Rounding allowances for the bracket, which holds for any iterate `v` and the exact operator
    // of the model as written (min(T^p v − v) ≤ p·g ≤ max(T^p v − v) for a stage of p steps).
    // Each computed step is within γ_{m+1}(‖r‖∞ + ‖v‖∞) of the stored model's exact step (m the
    // longest row: a reward plus at most m products; Higham, Lemma 3.1), and the stored model's
    // step within η(‖r‖∞ + ‖v‖∞) of the written model's, η = γ_{m+1} the relative rounding of a
    // probability or reward (numeric::entry_rounding); the operators are nonexpansive, so the
    // errors of a stage's steps add; the increments are one more subtraction.
    let longest = (0..matrix.nrows())
        .map(|r| matrix.row(r).0.len())
        .max()
        .unwrap_or(0);
    let r_max = rewards.iter().fold(0.0f64, |a, r| a.max(r.abs()));
    let step = 2.0 * crate::numeric::entry_rounding(longest + 1);
    let period = options.period as f64;
    let allowance = |before: &[f64], after: &[f64], lo: f64, hi: f64| {
        let v_max = before.iter().chain(after).fold(0.0f64, |a, x| a.max(x.abs()));
        let d_max = lo.abs().max(hi.abs());
        (period * step * (r_max + v_max) + f64::EPSILON * d_max) * (1.0 + 4.0 * f64::EPSILON)
    };
    let mut v = vec![0.0; n];
    let mut next = vec![0.0; n];
    let mut choices = vec![0u32; n];
    let mut last = (f64::NEG_INFINITY, f64::INFINITY);
    let mut previous_choices: Vec<u32> = Vec::new();
    let mut narrow_for = 0u32;
    for stage in 1..=options.max_stages {
        let before = v.clone();
        let mut stage_choices = Vec::with_capacity(n * options.period as usize);
        for _ in 0..options.period {
            crate::interrupt::check()?;
            matrix.multiply_and_reduce(direction, &v, Affine::offset(rewards), &mut next, &mut choices);
            std::mem::swap(&mut v, &mut next);
            stage_choices.extend_from_slice(&choices);
        }
        let stable = stage_choices == previous_choices;
        previous_choices = stage_choices;
        let (lo, hi) = v
            .iter()
            .zip(&before)
            .map(|(a, b)| a - b)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), d| {
                (l.min(d), h.max(d))
            });

        last = (lo, hi);
        // Choices that keep changing once the bracket has closed are ties between equally good
        // moves: accept them after 100 such stages.
        narrow_for = if hi - lo <= options.tolerance {
            narrow_for + 1
        } else {
            0
        };
        if narrow_for > 0 && (stable || narrow_for > 100) {
            // The bracket holds for the exact operator applied to the computed iterate: widen it
            // by what the stage's rounding and the input's rounding can do (the stopping test
            // above is on the computed bracket, which rounding alone cannot keep open).
            let slack = allowance(&before, &v, lo, hi);
            return Ok(LongRun {
                gain_lower: lo - slack,
                gain_upper: hi + slack,
                stages: stage,
                values: v,
                choices,
            });
        }
    }
    Err(Error::LimitReached {
        what: "value iteration for the gain",
        limit: options.max_stages,
        message: format!(
            "the gain is still only known to lie in [{}, {}]: the smallest and largest increment over the states do not meet, as when the long-run value differs from state to state (plays that settle in different places) or cycles with a longer period; only a gain common to every state is bracketed",
            last.0, last.1
        ),
    })
}
