//! Progress counters that long computations update and a caller may read from another thread.
//!
//! The engine never prints: an iterative solver given a [`Progress`] stores its iteration count
//! and latest residual (or change) in it, with relaxed atomics, after every iteration; a command
//! line polls them to draw a progress bar. The counters are `static`-friendly
//! ([`Progress::new`] is `const`), so options structs can hold a `&'static Progress` and stay
//! `Copy`.
//!
//! # Example
//! ```
//! use kolmo::progress::Progress;
//! static SOLVE: Progress = Progress::new();
//! SOLVE.record(3, 1e-9);
//! assert_eq!(SOLVE.iterations(), 3);
//! assert_eq!(SOLVE.residual(), 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

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
