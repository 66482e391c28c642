//! Cooperative interruption (Ctrl-C) of long work, and fork safety of the thread pool.
//!
//! **Interruption.** The Python bindings chain a tiny SIGINT handler in front of Python's
//! own: it only bumps [`SIGNAL_COUNT`] (async-signal-safe) and then lets Python record the
//! signal as usual. Long loops (the backward engine, large elementwise and matmul
//! kernels) take a [`Watch`] when they start and poll it — one atomic load — between
//! units of work; when a signal arrived meanwhile they stop with an error that the
//! bindings turn into `KeyboardInterrupt`. Only work started on the watched thread (the
//! Python main thread, the only one Python delivers `KeyboardInterrupt` to) is
//! interrupted. Kernels stop only where their output is still private (a fresh buffer
//! that is then dropped): in-place writes always run to completion.
//!
//! **Fork.** After `fork()` the child has no rayon worker threads although rayon's global
//! pool believes it has, so any parallel job would wait forever. A `pthread_atfork` child
//! handler marks the process as forked and [`parallel_allowed`] then keeps every kernel on
//! the calling thread.

use crate::error::Error;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Number of interrupt signals seen so far (bumped from a signal handler).
static SIGNAL_COUNT: AtomicU64 = AtomicU64::new(0);
/// Identity of the thread whose work may be interrupted (0: none).
static WATCHED_THREAD: AtomicU64 = AtomicU64::new(0);
/// Set in a child process after `fork()`.
static FORKED: AtomicBool = AtomicBool::new(false);

/// Records one interrupt signal. Async-signal-safe: a single atomic add.
pub fn note_interrupt() {
    SIGNAL_COUNT.fetch_add(1, Ordering::SeqCst);
}

/// An identity of the calling OS thread (`pthread_self` on Unix; 0 elsewhere, which
/// disables interruption).
pub fn current_thread_id() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: pthread_self has no preconditions.
        unsafe { libc::pthread_self() as u64 }
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// Makes work started on thread `id` (see [`current_thread_id`]) interruptible.
pub fn watch_thread(id: u64) {
    WATCHED_THREAD.store(id, Ordering::SeqCst);
}

/// Marker payload of the error a [`Watch`] returns; see [`is_interrupted`].
#[derive(Debug)]
pub struct Interrupted;

/// The error long work returns when it was interrupted.
pub fn interrupted_error() -> Error {
    Error::external(
        "interrupted by a signal (Ctrl-C)",
        Arc::new(Interrupted) as Arc<dyn std::any::Any + Send + Sync>,
    )
}

/// True when `e` is the error of an interrupted operation.
pub fn is_interrupted(e: &Error) -> bool {
    e.external
        .as_ref()
        .is_some_and(|p| p.downcast_ref::<Interrupted>().is_some())
}

/// A snapshot taken when a long operation starts; cheap to copy into worker threads.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    start: u64,
    active: bool,
}

impl Watch {
    /// Starts watching: active only on the watched thread.
    pub fn begin() -> Watch {
        let watched = WATCHED_THREAD.load(Ordering::Relaxed);
        Watch {
            start: SIGNAL_COUNT.load(Ordering::SeqCst),
            active: watched != 0 && watched == current_thread_id(),
        }
    }

    /// True when this watch can trip (it was taken on the watched thread): long work
    /// only needs to cut itself into interruptible pieces then.
    #[inline]
    pub fn is_active(self) -> bool {
        self.active
    }

    /// True when a signal arrived since [`Watch::begin`] (on any thread).
    #[inline]
    pub fn tripped(self) -> bool {
        self.active && SIGNAL_COUNT.load(Ordering::Relaxed) != self.start
    }

    /// `Err(interrupted_error())` when [`Watch::tripped`].
    #[inline]
    pub fn check(self) -> crate::Result<()> {
        if self.tripped() {
            Err(interrupted_error())
        } else {
            Ok(())
        }
    }
}

/// False in a process forked after start-up: kernels then stay on the calling thread.
#[inline]
pub fn parallel_allowed() -> bool {
    !FORKED.load(Ordering::Relaxed)
}

#[cfg(unix)]
extern "C" fn after_fork_in_child() {
    FORKED.store(true, Ordering::SeqCst);
}

/// Registers the `pthread_atfork` child handler (once; later calls do nothing).
pub fn install_fork_handler() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: registers a handler that only stores to an atomic.
            unsafe {
                libc::pthread_atfork(None, None, Some(after_fork_in_child));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_trips_only_on_the_watched_thread_after_a_signal() {
        watch_thread(current_thread_id());
        let w = Watch::begin();
        assert!(w.check().is_ok());
        note_interrupt();
        assert!(w.tripped());
        let e = w.check().unwrap_err();
        assert!(is_interrupted(&e));
        assert!(Watch::begin().check().is_ok(), "a new watch starts clean");
        let other = std::thread::spawn(|| {
            let w = Watch::begin();
            note_interrupt();
            w.tripped()
        });
        assert!(
            !other.join().unwrap(),
            "other threads are never interrupted"
        );
        watch_thread(0);
    }
}
