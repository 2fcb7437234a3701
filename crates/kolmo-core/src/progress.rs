//! Progress counters that long computations update and a caller may read from another thread.
//!
//! The engine never prints: an iterative solver given a [`Progress`] stores its iteration count
//! and latest residual (or change) in it, with relaxed atomics, after every iteration; a command
//! line polls them to draw a progress bar. The counters are `static`-friendly
//! ([`Progress::new`] is `const`), so options structs can hold a `&'static Progress` and stay
//! `Copy`.
//!
//! # Observers
//! Work that runs deep inside an analysis, where no options struct reaches (the Krylov solves of
//! a big board, the exploration of a built-in game, distribution steps), reports to a
//! process-wide observer instead: a caller [`install`]s a `&'static Progress` for a kind of
//! [`Work`], and every such computation, on any thread, adds to it until it is
//! [`uninstall`]ed. A report costs an uncontended read lock, plus with an observer an atomic
//! add and store, per unit of work (a matrix–vector product, a distribution step, a few thousand
//! explored states). The counts are totals over all computations while installed: a caller
//! timing a phase [`reset`](Progress::reset)s them when the phase starts.
//!
//! # Example
//! ```
//! use kolmo::progress::{self, Progress, Work};
//! static SOLVE: Progress = Progress::new();
//! SOLVE.record(3, 1e-9);
//! assert_eq!(SOLVE.iterations(), 3);
//! assert_eq!(SOLVE.residual(), 1e-9);
//!
//! static KRYLOV: Progress = Progress::new();
//! progress::install(Work::Krylov, &KRYLOV);
//! // ... run analyses; a thread drawing a bar reads KRYLOV.iterations() and KRYLOV.residual().
//! progress::uninstall(Work::Krylov);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};

/// An iteration count and the latest residual of a running computation.
#[derive(Debug)]
pub struct Progress {
    iterations: AtomicU64,
    /// The residual's bits (`f64::to_bits`); NaN before the first record.
    residual: AtomicU64,
}

impl Progress {
    /// Counters at zero, no residual yet (NaN).
    pub const fn new() -> Self {
        Self {
            iterations: AtomicU64::new(0),
            residual: AtomicU64::new(0x7ff8_0000_0000_0000),
        }
    }

    /// Records that `iterations` iterations are done, the last leaving `residual` (the solver's
    /// own measure: a max-norm change, a bound, or NaN when it has none).
    pub fn record(&self, iterations: u64, residual: f64) {
        self.iterations.store(iterations, Ordering::Relaxed);
        self.residual.store(residual.to_bits(), Ordering::Relaxed);
    }

    /// Adds `done` iterations to the count and records `residual` as the latest (as in
    /// [`Progress::record`]); what observers receive.
    pub fn add(&self, done: u64, residual: f64) {
        self.iterations.fetch_add(done, Ordering::Relaxed);
        self.residual.store(residual.to_bits(), Ordering::Relaxed);
    }

    /// Back to zero iterations and no residual (NaN).
    pub fn reset(&self) {
        self.record(0, f64::NAN);
    }

    /// Iterations done so far.
    pub fn iterations(&self) -> u64 {
        self.iterations.load(Ordering::Relaxed)
    }

    /// The latest residual, NaN when none was recorded.
    pub fn residual(&self) -> f64 {
        f64::from_bits(self.residual.load(Ordering::Relaxed))
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

/// A kind of work reported to an [`install`]ed observer, with what its counts mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Work {
    /// Krylov solves (BiCGSTAB, GMRES in `kolmo::linsolve`): iterations are preconditioned
    /// matrix–vector products, the residual the latest relative 2-norm residual
    /// `‖b − A x‖₂/‖b‖₂` of the running solve (from the recurrence; the true residual at the end of
    /// each solve).
    Krylov,
    /// State-space exploration ([`crate::explore`]): iterations are states discovered (reported
    /// every few thousand and at the end); the residual is NaN.
    Exploration,
    /// Distribution steps `x ← xᵀP` ([`crate::sparse::Propagator`]): iterations are steps; the
    /// residual is the probability mass not yet absorbed, or NaN when nothing absorbs.
    Steps,
}

impl Work {
    /// Every kind, in declaration order.
    pub const ALL: [Work; 3] = [Work::Krylov, Work::Exploration, Work::Steps];

    fn slot(self) -> &'static RwLock<Option<&'static Progress>> {
        &OBSERVERS[self as usize]
    }
}

/// The installed observers, indexed by [`Work`].
static OBSERVERS: [RwLock<Option<&'static Progress>>; 3] = [const { RwLock::new(None) }; 3];

/// Makes `progress` the observer of `work` for the whole process (replacing any other): from now
/// on every computation of that kind adds to it.
pub fn install(work: Work, progress: &'static Progress) {
    *work.slot().write().unwrap_or_else(PoisonError::into_inner) = Some(progress);
}

/// Removes the observer of `work`, if any.
pub fn uninstall(work: Work) {
    *work.slot().write().unwrap_or_else(PoisonError::into_inner) = None;
}

/// The observer of `work`, if one is installed.
#[must_use]
pub fn observer(work: Work) -> Option<&'static Progress> {
    *work.slot().read().unwrap_or_else(PoisonError::into_inner)
}

/// Reports `done` more units of `work` with the latest `residual` to its observer, if any (see
/// [`Work`] for the units). Cheap: an uncontended read lock (a few atomic operations) when
/// nothing is installed.
#[inline]
pub fn report(work: Work, done: u64, residual: f64) {
    if let Some(p) = observer(work) {
        p.add(done, residual);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observers_add_up_until_uninstalled() {
        static P: Progress = Progress::new();
        // Other tests step distributions on other threads meanwhile: count from `before`.
        install(Work::Steps, &P);
        let before = P.iterations();
        report(Work::Steps, 2, 0.5);
        assert!(P.iterations() >= before + 2);
        assert!(observer(Work::Steps).is_some());
        uninstall(Work::Steps);
        assert!(observer(Work::Steps).is_none());
        let after = P.iterations();
        report(Work::Steps, 5, 0.25);
        assert_eq!(P.iterations(), after);
        P.reset();
        assert_eq!(P.iterations(), 0);
        assert!(P.residual().is_nan());
    }
}
