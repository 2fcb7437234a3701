//! A model's numbers exactly as its input wrote them.

use super::RewardModel;
use crate::exact::{Rational, rationalize_matrix};
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};
use std::collections::BTreeMap;

/// The probabilities and rewards of a model exactly as its input wrote them: a decimal (`0.1`,
/// `2.5e-1`) or a fraction (`1/3000000`) as the rational number it denotes, beside the `f64`
/// (its correct rounding) that the floating-point analyses use. Exact analyses (`--exact`) then
/// run on the file's own numbers instead of fractions recovered from `f64`
/// ([`rationalize`](crate::exact::rationalize), which finds only denominators up to 2²⁰).
///
/// Shapes follow the model: `probabilities` has one entry per stored transition, aligned with the
/// transition matrix's entries (row by row, ascending column, zeros not stored); each reward model
/// has the parts of the model's `f64` reward model of the same name, aligned the same way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    /// The transition probabilities (length `nnz`).
    pub probabilities: Vec<Rational>,
    /// The reward models by name, exactly.
    pub rewards: BTreeMap<String, RewardModel<Rational>>,
}

impl Written {
    /// `Ok` if `self` fits `matrix` and the `f64` reward models `rewards`: the same number of
    /// values in every part, each within a relative 2⁻⁵⁰ of the `f64` it stands beside (a check that
    /// a reader kept the two aligned; the `f64` is the rational's rounding).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first part or value that does not fit.
    pub fn check(&self, matrix: &CsrMatrix, rewards: &BTreeMap<String, RewardModel>) -> Result<()> {
        fits(
            "transition probabilities",
            &self.probabilities,
            Some(matrix.as_parts().2),
        )?;
        for (name, written) in &self.rewards {
            let Some(model) = rewards.get(name) else {
                return Err(Error::arg(
                    "written values",
                    format!("reward model {name:?} is not one of the model's"),
                ));
            };
            fits(
                "state rewards",
                written.state.as_deref().unwrap_or(&[]),
                model.state.as_deref(),
            )?;
            fits(
                "action rewards",
                written.action.as_deref().unwrap_or(&[]),
                model.action.as_deref(),
            )?;
            fits(
                "transition rewards",
                written.transition.as_deref().unwrap_or(&[]),
                model.transition.as_deref(),
            )?;
        }
        Ok(())
    }
}

/// `Ok` if `written` and `stored` have the same length and agree to a relative 2⁻⁵⁰.
fn fits(what: &str, written: &[Rational], stored: Option<&[f64]>) -> Result<()> {
    let stored = stored.unwrap_or(&[]);
    if written.len() != stored.len() {
        return Err(Error::arg(
            "written values",
            format!("{} {what} written for {} stored", written.len(), stored.len()),
        ));
    }
    for (i, (w, &v)) in written.iter().zip(stored).enumerate() {
        let x = w.to_f64().value();
        if (x - v).abs() > v.abs() * 2f64.powi(-50) {
            return Err(Error::arg(
                "written values",
                format!("{what}: value {i} is {v} but written as {w}"),
            ));
        }
    }
    Ok(())
}

/// The exact transition probabilities of a model: as written when the input kept them (`written`)
/// and every row sums to exactly 1 as written; otherwise recovered from the `f64` matrix by
/// [`rationalize_matrix`] (a file of shortest doubles such as `0.16666666666666666` means the
/// fractions those doubles stand for).
///
/// # Errors
/// [`Error::InvalidDistribution`] naming the first state with a row whose written probabilities do
/// not sum to exactly 1 when they cannot be recovered as simple fractions either (or, without
/// written values, an entry that is not a simple fraction).
pub(super) fn exact_matrix(matrix: &CsrMatrix, written: Option<&Written>) -> Result<CsrMatrix<Rational>> {
    let Some(written) = written else {
        return rationalize_matrix(matrix, true);
    };
    match written.first_inexact_row(matrix) {
        None => Ok(matrix.with_values(written.probabilities.clone())),
        Some((g, sum)) => rationalize_matrix(matrix, true).map_err(|_| Error::InvalidDistribution {
            state: g,
            name: g.to_string(),
            message: format!(
                "as written, the outgoing probabilities sum to {}, not exactly 1, and they are not simple fractions either (exact analysis takes the file's numbers as they are)",
                shortened(&sum.to_string())
            ),
        }),
    }
}

impl Written {
    /// The first state (in state order) with a choice whose probabilities as written do not sum
    /// to exactly 1, and that sum; `None` if every row sums to 1 exactly. Exact analyses
    /// ([`exact_matrix`](crate::model::Mdp::exact_matrix)) then fall back to fractions recovered
    /// from `f64`.
    ///
    /// # Panics
    /// - panics if `self` does not fit `matrix` (see [`check`](Self::check)).
    #[must_use]
    pub fn first_inexact_row(&self, matrix: &CsrMatrix) -> Option<(StateId, Rational)> {
        let row_ptr = matrix.as_parts().0;
        (0..matrix.row_groups()).find_map(|g| {
            matrix.group_rows(g).find_map(|i| {
                let sum = self.probabilities[row_ptr[i]..row_ptr[i + 1]]
                    .iter()
                    .fold(Rational::ZERO, |acc, p| acc + p);
                (sum != Rational::ONE).then_some((g as StateId, sum))
            })
        })
    }
}

/// `text` cut to its first 60 characters, with `…` when it was longer (a fraction's digits).
pub(crate) fn shortened(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
