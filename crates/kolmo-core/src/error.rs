//! The crate's one error type. Every variant carries the place of the problem: a file and line,
//! a cell, a state or a row.

use std::path::PathBuf;

/// Result alias used throughout kolmo.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in kolmo.
///
/// Bad input (a board, a model, an argument) is reported with the place it was found; numerical
/// failures say which solve failed and by how much.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error (part of the message, so not repeated as a source).
        error: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// A file is not valid in its format (syntax, unknown keys, wrong types).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Line, counted from 1.
        line: usize,
        /// Column, counted from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A built-in game or board refused its input: the source (the games layer's
    /// `kolmo::games::InputError`) names the place; the message is the source's.
    #[error(transparent)]
    FrontEnd(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A state's outgoing probabilities are invalid (negative, not finite, or not summing to 1).
    #[error("state {state} ({name}): {message}")]
    InvalidDistribution {
        /// The state.
        state: crate::StateId,
        /// The state as the model describes it.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A state has no successors: every state of a Markov chain needs at least one transition.
    #[error("state {state} ({name}) has no outgoing transitions")]
    Deadlock {
        /// The state.
        state: crate::StateId,
        /// The state as the model describes it.
        name: String,
    },
    /// Exploration found more states than the model allows (`u32` indices, or the caller's limit).
    #[error("the model has more than {limit} reachable states")]
    TooManyStates {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The target is not reached with probability 1 from a state where that was required
    /// (for example, expected visits from a start that can be trapped).
    #[error(
        "the target is not reached with probability 1 from state {state}; {} state(s) cannot reach it almost surely, e.g. {}",
        states.len(),
        preview(states)
    )]
    NotAlmostSure {
        /// The state the question was asked from.
        state: crate::StateId,
        /// Every state that does not reach the target with probability 1 (sorted).
        states: Vec<crate::StateId>,
    },
    /// A linear system turned out singular or its solution is not finite.
    #[error("{what}: the linear system is numerically singular (pivot {pivot:e} at row {row})")]
    Singular {
        /// Which solve.
        what: &'static str,
        /// The row of the smallest pivot.
        row: usize,
        /// The pivot.
        pivot: f64,
    },
    /// A property's comparison with a bound (`P>=0.5 [...]`) cannot be decided: the value's
    /// certified interval holds the bound.
    #[error(
        "in state {state} the value {value} (certified within ± {bound:e}) lies on both sides of the bound {threshold}: the comparison cannot be decided"
    )]
    Undecided {
        /// The state, by name.
        state: String,
        /// The computed value.
        value: f64,
        /// Its certified absolute error bound.
        bound: f64,
        /// The bound it is compared with.
        threshold: f64,
    },
    /// A floating-point result could not be certified: its error bound is too large (or it is not
    /// a number), typically because the chain is extremely ill-conditioned (probabilities many
    /// orders of magnitude apart).
    #[error(
        "{what}: the result cannot be certified (relative error bound {bound:e}, residual {residual:e}); the chain is too ill-conditioned for floating point{hint}"
    )]
    Uncertified {
        /// Which computation.
        what: &'static str,
        /// The relative error bound obtained (`inf` or `NaN` when none).
        bound: f64,
        /// The max-norm residual.
        residual: f64,
        /// Advice, starting with "; " (may be empty).
        hint: String,
    },
    /// A result is certified but too large for `f64` (beyond about 1.8e308): the variance of a
    /// time whose mean is beyond 1e154 steps.
    #[error("{what} exceeds the range of floating point (about 1.8e308)")]
    Overflow {
        /// Which quantity.
        what: &'static str,
    },
    /// A problem is too large for the method that would solve it.
    #[error("{what}: {size} states is more than the {limit} this method handles")]
    TooLarge {
        /// Which computation.
        what: &'static str,
        /// The problem's size.
        size: usize,
        /// The method's limit.
        limit: usize,
    },
    /// A caller-supplied option or argument is out of its domain.
    #[error("invalid {name}: {message}")]
    InvalidArgument {
        /// The option or argument.
        name: &'static str,
        /// What is wrong, with the allowed range.
        message: String,
    },
    /// A computation was stopped by its step limit before it finished.
    #[error("{what} stopped after {limit} steps without finishing: {message}")]
    LimitReached {
        /// Which computation.
        what: &'static str,
        /// The limit.
        limit: u64,
        /// What was left unfinished.
        message: String,
    },
    /// A computation was stopped because a stop was requested ([`crate::interrupt::request`]:
    /// Ctrl-C in the Python bindings). It returned at its next check between units of work and
    /// left no partial result.
    #[error("interrupted (a stop was requested)")]
    Interrupted,
}

/// `states` as listed in a message: the first 20, comma-separated, then `... (N in all)` when
/// there are more, so that a message naming a million states stays one line.
#[must_use]
pub fn preview(states: &[u32]) -> String {
    const SHOWN: usize = 20;
    let mut s = states
        .iter()
        .take(SHOWN)
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if states.len() > SHOWN {
        s.push_str(&format!(", ... ({} in all)", states.len()));
    }
    s
}

/// `text` as quoted in an error message: at most 20 characters, control characters escaped, so
/// that a huge or binary token cannot flood the terminal.
#[must_use]
pub fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(20).flat_map(char::escape_debug).collect();
    if text.chars().count() > 20 {
        s.push('…');
    }
    s
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn arg(name: &'static str, message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name,
            message: message.into(),
        }
    }
}
