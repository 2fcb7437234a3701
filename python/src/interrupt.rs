//! Ctrl-C during an engine call: the call stops and Python raises `KeyboardInterrupt`.
//!
//! CPython's own SIGINT handler only sets a flag that the interpreter looks at between bytecodes
//! (the Python signal module's documentation: "the actual Python signal handler will not be
//! executed while a long-running computation implemented purely in C is running"), so while the
//! engine works, with the GIL released, Ctrl-C would wait for the call to finish. For the
//! duration of a call from the main thread (the only thread Python runs signal handlers in),
//! [`interruptible`] installs a SIGINT handler of its own whose only action is
//! [`kolmo::interrupt::request`] — one atomic store, async-signal-safe — so that the engine's
//! loops, which check that request between units of work, return `Err(Interrupted)`; Python's
//! handler is put back when the call returns (or panics), and the stop is raised as
//! `KeyboardInterrupt`, as Ctrl-C in Python code would be.
//!
//! The handler is installed only when Python's SIGINT handler is its default (the one that raises
//! `KeyboardInterrupt`): a program that installed its own handler, or ignores SIGINT, keeps it,
//! and the signal reaches it when the call returns, as before. On platforms without POSIX signals
//! (Windows) the call runs without a handler. The stop request is process-wide: a Ctrl-C also stops
//! engine calls running at the time on other Python threads, which raise `KeyboardInterrupt`
//! too.

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

/// Runs the engine call `f` with the GIL released and Ctrl-C stopping it (module docs): the
/// engine's errors become Python exceptions by `to_err`, and a stop becomes `KeyboardInterrupt`.
pub fn interruptible_with<T, F, E>(py: Python<'_>, f: F, to_err: E) -> PyResult<T>
where
    F: Send + FnOnce() -> kolmo::Result<T>,
    T: Send,
    E: FnOnce(kolmo::Error) -> PyErr,
{
    let owner = handles_sigint(py)?;
    if owner {
        // A request left from an earlier call is not this call's.
        kolmo::interrupt::clear();
    }
    let result = {
        let _handler = owner.then(Handler::install);
        py.detach(f)
    };
    let stopped = owner && kolmo::interrupt::requested();
    if owner {
        kolmo::interrupt::clear();
    }
    match result {
        Err(kolmo::Error::Interrupted) => Err(keyboard_interrupt()),
        // A Ctrl-C that came after the engine's last check: the result is complete, but the
        // user asked to stop, as Python would have at its next bytecode.
        _ if stopped => Err(keyboard_interrupt()),
        Err(e) => Err(to_err(e)),
        Ok(x) => Ok(x),
    }
}

/// [`interruptible_with`] with the engine's errors mapped by [`crate::to_py`].
pub fn interruptible<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: Send + FnOnce() -> kolmo::Result<T>,
    T: Send,
{
    interruptible_with(py, f, crate::to_py)
}

/// `KeyboardInterrupt`, as Python raises it on Ctrl-C.
fn keyboard_interrupt() -> PyErr {
    PyKeyboardInterrupt::new_err("the engine call was interrupted")
}

/// Whether this call may take SIGINT over: it runs on Python's main thread and Python's handler
/// for SIGINT is its default (`signal.default_int_handler`, which raises `KeyboardInterrupt`).
fn handles_sigint(py: Python<'_>) -> PyResult<bool> {
    if !cfg!(unix) {
        return Ok(false);
    }
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?.getattr("ident")?;
    let this = threading.call_method0("get_ident")?;
    if !main.eq(this)? {
        return Ok(false);
    }
    let signal = py.import("signal")?;
    let current = signal.call_method1("getsignal", (signal.getattr("SIGINT")?,))?;
    Ok(current.is(&signal.getattr("default_int_handler")?))
}

/// The engine's SIGINT handler while installed; the previous one (Python's) is put back on drop,
/// so also when the call panics.
struct Handler {
    #[cfg(unix)]
    previous: libc::sigaction,
}

#[cfg(unix)]
impl Handler {
    /// Installs [`on_sigint`] for SIGINT, keeping the handler it replaces.
    fn install() -> Self {
        // SAFETY: `sigaction` with a zeroed (then filled) struct and a handler that only performs
        // an atomic store, which is async-signal-safe; `previous` receives the old disposition.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, &action, &mut previous);
            Self { previous }
        }
    }
}

#[cfg(unix)]
impl Drop for Handler {
    fn drop(&mut self) {
        // SAFETY: restores the disposition `sigaction` returned at install.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.previous, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
impl Handler {
    /// Nothing to install without POSIX signals.
    fn install() -> Self {
        Self {}
    }
}

/// The SIGINT handler: asks the engine to stop (one atomic store: async-signal-safe).
#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    kolmo::interrupt::request();
}
