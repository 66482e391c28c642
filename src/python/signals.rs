//! Ctrl-C and fork support for the bindings: chains a SIGINT handler in front of
//! Python's so long Rust loops can notice the signal without the GIL (see
//! `crate::interrupt`), turns an interrupted operation into `KeyboardInterrupt`, and
//! registers the fork handler that keeps kernels serial in forked children.

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The handler ours replaced (a function address), called after counting the signal.
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
/// Whether `PREVIOUS` takes the three `SA_SIGINFO` arguments.
static PREVIOUS_SIGINFO: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    crate::interrupt::note_interrupt();
    let prev = PREVIOUS.load(Ordering::SeqCst);
    if prev == 0 {
        return;
    }
    // SAFETY: `prev` is the handler address sigaction reported, with the arity its
    // SA_SIGINFO flag announced.
    unsafe {
        if PREVIOUS_SIGINFO.load(Ordering::SeqCst) {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(prev);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev);
            f(sig);
        }
    }
}

/// Puts our SIGINT counter in front of the current handler (Python's), unless it is
/// already there or SIGINT is not handled at all (default/ignored: nothing to chain, and
/// Python would not raise KeyboardInterrupt anyway). Returns whether ours is installed.
/// Called at import; call again after replacing Python's SIGINT handler
/// (`signal.signal`), which removes ours.
#[pyfunction]
pub fn _install_sigint_hook(py: Python<'_>) -> PyResult<bool> {
    let main: u64 = py
        .import("threading")?
        .call_method0("main_thread")?
        .getattr("ident")?
        .extract()?;
    crate::interrupt::watch_thread(main);
    crate::interrupt::install_fork_handler();
    #[cfg(unix)]
    {
        // SAFETY: plain sigaction queries/updates of SIGINT with zero-initialised structs.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0 {
                return Ok(false);
            }
            let ours = on_sigint as *const () as usize;
            if old.sa_sigaction == ours {
                return Ok(true);
            }
            if old.sa_sigaction == libc::SIG_DFL || old.sa_sigaction == libc::SIG_IGN {
                return Ok(false);
            }
            PREVIOUS_SIGINFO.store(old.sa_flags & libc::SA_SIGINFO != 0, Ordering::SeqCst);
            PREVIOUS.store(old.sa_sigaction, Ordering::SeqCst);
            let mut new = old;
            new.sa_sigaction = ours;
            new.sa_flags = old.sa_flags | libc::SA_SIGINFO;
            Ok(libc::sigaction(libc::SIGINT, &new, std::ptr::null_mut()) == 0)
        }
    }
    #[cfg(not(unix))]
    Ok(false)
}

/// The exception for an interrupted operation: whatever Python's SIGINT handler raises
/// (KeyboardInterrupt by default; the signal is pending there too), with a note saying
/// where the work stopped.
pub fn keyboard_interrupt() -> PyErr {
    Python::attach(|py| {
        let err = match py.check_signals() {
            Err(e) => e,
            Ok(()) => PyKeyboardInterrupt::new_err(""),
        };
        let _ = err.value(py).call_method1(
            "add_note",
            (
                "ferrograd: a long-running operation (backward pass or kernel) was stopped by \
              Ctrl-C; tensors it was computing were discarded",
            ),
        );
        err
    })
}
