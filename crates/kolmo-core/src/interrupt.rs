//! Stopping a long computation from outside: one process-wide stop request.
//!
//! A caller that wants to interrupt the engine (a Ctrl-C handler, the Python bindings' SIGINT
//! handler, a watchdog thread) calls [`request`]. Every long loop of the engine — value, policy
//! and interval iteration rounds and sweeps, Krylov iterations, iterative refinement, transient
//! steps and backward induction, exploration, exact elimination, Monte Carlo chunks — calls
//! [`check`] once per unit of work (an iteration, a sweep, a step, a chunk of rows or games; never
//! per matrix entry) and, once a stop is requested, returns [`Error::Interrupted`] up the call
//! chain. Nothing unwinds and nothing is killed: the call returns `Err(Interrupted)` the next time
//! a loop looks, and leaves no partial result behind (results are built only when a computation
//! finishes). Worker threads (rayon) that see the request stop their own share the same way.
//!
//! The request stays set until [`clear`]: everything running at the time stops, and so does
//! every call started afterwards. Whoever owns the request clears it before starting new work
//! (the Python bindings clear it at the start of each engine call).
//!
//! The flag is one atomic boolean read with a relaxed load: setting it is async-signal-safe (one
//! atomic store, so a signal handler may call [`request`]), and reading it costs about as much as
//! reading any other word of memory (which is why a loop may look once per iteration). Relaxed
//! ordering suffices: the flag carries no data with it, and a loop that sees the request one
//! iteration late only stops one iteration late. (The same design as CPython's
//! `PyErr_CheckSignals`, where a handler sets a flag that the interpreter loop checks between
//! bytecodes, and as Rust's own cooperative cancellation idiom of an `AtomicBool` shared with the
//! worker.)

use crate::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// The process-wide stop request.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every running (and every later) engine call to stop at its next check, returning
/// [`Error::Interrupted`]. Async-signal-safe: one atomic store, so a signal handler may call it.
#[inline]
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether a stop has been requested (and not cleared since). One relaxed atomic load: cheap
/// enough to call once per iteration, sweep or chunk of work.
#[inline]
#[must_use]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Withdraws a stop request, so that engine calls run to completion again.
#[inline]
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// `Err(`[`Error::Interrupted`]`)` if a stop has been requested, `Ok(())` otherwise: the check a
/// long loop makes between units of work (`interrupt::check()?;`).
///
/// # Errors
/// [`Error::Interrupted`] if [`request`] was called and [`clear`] has not been since.
#[inline]
pub fn check() -> Result<()> {
    if requested() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}
