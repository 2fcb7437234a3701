//! Keeping the probabilities and rewards as written ([`ReadOptions::exact`](super::ReadOptions::exact)) for
//! the readers that parse in parallel chunks or in one streaming pass (DRN, PRISM, JSON, arrays),
//! without a second path through them.
//!
//! While such a reader runs under [`reading_exactly`], every number token that
//! [`parse_number`](super::parse_number) accepts is also recorded with its exact value, keyed by
//! the `f64` it rounds to. Afterwards each stored probability and reward is looked up: a reader stores the
//! parsed `f64` itself, so the lookup finds the token it came from. Where it cannot — two tokens
//! with different exact values that round to the same `f64`, a value not parsed from a token
//! (rows rescaled by `normalize`), a token parsed on a thread outside the read — nothing is
//! attached and a note says so; exact analyses then recover fractions from `f64` as before.
//! A wrong exact value is never attached.
//!
//! The recorder reaches the parsing threads through a thread pool made for the read, whose
//! threads carry it in a thread-local: concurrent reads never share one.

use super::{Model, ModelFile, ReadOptions, Result, View};
use crate::exact::{Rational, parse_exact};
use crate::model::{RewardModel, Written};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

thread_local! {
    static RECORDER: RefCell<Option<Arc<Recorder>>> = const { RefCell::new(None) };
}

/// The exact value of every token parsed, by the bits of the `f64` it rounds to; `None` where
/// two tokens of different value round to the same `f64`.
#[derive(Default)]
struct Recorder {
    values: Mutex<HashMap<u64, Option<Rational>>>,
    /// A token whose value is not 0 rounded to 0 (`1e-500`): the stored model lost it.
    underflow: std::sync::atomic::AtomicBool,
}

/// Records `token` (which parsed to `value`) when a read under [`reading_exactly`] runs on this
/// thread; does nothing otherwise (one thread-local check).
pub(super) fn record(token: &str, value: f64) {
    RECORDER.with(|r| {
        if let Some(recorder) = &*r.borrow() {
            let exact = parse_exact(token);
            if value == 0.0 && exact.as_ref().is_none_or(|x| *x != Rational::ZERO) {
                recorder
                    .underflow
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let mut values = recorder.values.lock().unwrap_or_else(|e| e.into_inner());
            let slot = values.entry(value.to_bits()).or_insert_with(|| exact.clone());
            if *slot != exact {
                *slot = None;
            }
        }
    });
}

/// Runs `read`; when `options.exact`, with every parsed token recorded, then attaches the
/// probabilities as written to the model it returns (see the module docs); a note says why when
/// they could not be kept. A model that already has them (the CSV and Matrix Market readers keep
/// them themselves) and one read without number tokens (`.npy`) are returned as they are; nothing
/// is attached when `normalize` rescaled a row (its values are not the file's) or a number
/// underflowed to 0.
///
/// # Errors
/// `read`'s; [`crate::Error::InvalidArgument`] if no thread pool can be made for the read.
pub(super) fn reading_exactly(
    options: &ReadOptions,
    read: impl FnOnce() -> Result<ModelFile> + Send,
) -> Result<ModelFile> {
    if !options.exact {
        return read();
    }
    let recorder = Arc::new(Recorder::default());
    let for_threads = Arc::clone(&recorder);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .start_handler(move |_| RECORDER.with(|r| *r.borrow_mut() = Some(Arc::clone(&for_threads))))
        .build()
        .map_err(|e| crate::Error::arg("exact values", format!("cannot start the reading threads: {e}")))?;
    let file = pool.install(read)?;
    drop(pool);
    let mut file = match View::of(&file.model).written {
        Some(_) => file,
        None => attach(file, &recorder, options.normalize)?,
    };
    let v = View::of(&file.model);
    if let Some((s, sum)) = v.written.and_then(|w| w.first_inexact_row(v.matrix)) {
        file.notes.push(format!(
            "as written, the probabilities from state {s} sum to {}, not exactly 1: exact analyses use the fractions recovered from floating point where they sum to 1",
            crate::model::shortened(&sum.to_string())
        ));
    }
    Ok(file)
}

/// `file` with the values `recorder` recorded attached (see [`reading_exactly`]).
fn attach(mut file: ModelFile, recorder: &Recorder, normalize: bool) -> Result<ModelFile> {
    let recorded = recorder.values.lock().unwrap_or_else(|e| e.into_inner());
    if recorded.is_empty() {
        return Ok(file);
    }
    if recorder.underflow.load(std::sync::atomic::Ordering::Relaxed) {
        file.notes.push(super::rows::UNDERFLOW_NOTE.to_string());
        return Ok(file);
    }
    // `normalize` says when it rescaled rows (rows::normalized_note): their values are not the
    // file's.
    if normalize && file.notes.iter().any(|n| n.starts_with("normalized ")) {
        file.notes.push(format!(
            "{NOT_KEPT} (rows rescaled by normalizing are not the file's numbers)"
        ));
        return Ok(file);
    }
    let v = View::of(&file.model);
    let exact = |values: &[f64]| -> Option<Vec<Rational>> {
        values
            .iter()
            .map(|v| match recorded.get(&v.to_bits()) {
                Some(x) => x.clone(),
                // A reward of 0 may stand for an omitted one (no token).
                None => (*v == 0.0).then_some(Rational::ZERO),
            })
            .collect()
    };
    let Some(probabilities) = exact(v.matrix.as_parts().2) else {
        file.notes.push(format!(
            "{NOT_KEPT} (a value not written as a number, or two numbers that round alike)"
        ));
        return Ok(file);
    };
    let mut written = Written {
        probabilities,
        ..Written::default()
    };
    for (name, model) in v.rewards {
        let part = |values: &Option<Vec<f64>>| values.as_deref().map(exact);
        let (state, action, transition) = (part(&model.state), part(&model.action), part(&model.transition));
        if [&state, &action, &transition]
            .iter()
            .any(|p| matches!(p, Some(None)))
        {
            file.notes.push(format!(
                "the rewards {name:?} as written could not all be kept, so exact analyses recover fractions from floating point"
            ));
            continue;
        }
        written.rewards.insert(
            name.clone(),
            RewardModel {
                state: state.flatten(),
                action: action.flatten(),
                transition: transition.flatten(),
            },
        );
    }
    file.model = match file.model {
        Model::Dtmc(d) => Model::Dtmc(d.with_written(written)?),
        Model::Mdp(m) => Model::Mdp(m.with_written(written)?),
    };
    Ok(file)
}

/// The start of the note when the probabilities as written could not be kept.
const NOT_KEPT: &str = "the probabilities as written could not all be kept, so exact analyses recover fractions from floating point";
