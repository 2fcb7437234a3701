//! Mean first-passage times between states (Kemeny & Snell, *Finite Markov Chains*, 1960, §4.4;
//! Grinstead & Snell, *Introduction to Probability*, §11.5).

use super::AbsorbingChain;
use crate::model::{Dtmc, StateSet};
use crate::{Error, Result, StateId};

/// Largest chain for which [`mean_first_passage_matrix`] builds the full `n × n` matrix (one
/// factorisation per column).
pub const MAX_FIRST_PASSAGE_MATRIX: usize = 200;

/// The matrix of mean first-passage times.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FirstPassage {
    /// `m[i·n + j]`: the expected number of steps to reach `j` from `i` (row-major `n × n`); 0 on
    /// the diagonal (the mean recurrence times are reported with the stationary distribution);
    /// `+∞` where `j` is not reached from `i` with probability 1.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub matrix: Vec<f64>,
    /// Number of states `n`.
    pub n: usize,
    /// Largest max-norm residual of the `n` solves.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Guaranteed relative error bound of every finite entry against the model as written: the
    /// largest over the columns of [`AbsorptionTime::error_bound`](super::AbsorptionTime::error_bound)'s
    /// `r/(1 − r) + ε` with the rounding of the input.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
}

impl FirstPassage {
    /// `m_ij`, the mean first-passage time from `i` to `j`, in steps.
    ///
    /// # Panics
    /// - panics if `i` or `j` is `>= n`.
    #[must_use]
    #[track_caller]
    pub fn get(&self, i: StateId, j: StateId) -> f64 {
        assert!((i as usize) < self.n && (j as usize) < self.n);
        self.matrix[i as usize * self.n + j as usize]
    }
}

/// The mean first-passage time from every state to every other: column `j` is the expected
/// number of steps to reach `{j}` ([`AbsorbingChain::expected_steps`], with its graph analysis, so
/// unreachable pairs are `+∞`, not a failed solve).
///
/// # Errors
/// [`Error::TooLarge`] beyond [`MAX_FIRST_PASSAGE_MATRIX`] states (ask for the time to one target
/// with [`AbsorbingChain`] instead); [`Error::Singular`] from a solve.
///
/// # Complexity
/// `n` factorisations of at most `n − 1` unknowns.
pub fn mean_first_passage_matrix(dtmc: &Dtmc) -> Result<FirstPassage> {
    let n = dtmc.n();
    if n > MAX_FIRST_PASSAGE_MATRIX {
        return Err(Error::TooLarge {
            what: "mean first-passage matrix",
            size: n,
            limit: MAX_FIRST_PASSAGE_MATRIX,
        });
    }
    let mut matrix = vec![0.0; n * n];
    let (mut residual, mut error_bound) = (0.0f64, 0.0f64);
    for j in 0..n {
        let a = AbsorbingChain::new(dtmc, &StateSet::from_states(n, [j as StateId]))?;
        let (t, r) = a.expected_steps();
        crate::interrupt::check()?;
        residual = residual.max(r);
        error_bound = error_bound.max(a.steps_error_bound(r));
        for i in 0..n {
            matrix[i * n + j] = t[i];
        }
    }
    Ok(FirstPassage {
        matrix,
        n,
        residual,
        error_bound,
    })
}
