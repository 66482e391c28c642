//! The kernels' thread pool: rayon's global pool, with the thread that loads the library
//! (Python's main thread) as one of its workers.
//!
//! By default a parallel kernel called from a thread outside the pool hands its work to
//! the pool's threads and sleeps until they finish: two cross-thread wake-ups per kernel,
//! tens of microseconds each, which on a training step of a few hundred kernels costs more
//! than the parallelism gains for mid-size tensors. With the calling thread *in* the pool
//! (as OpenMP's master thread is), a parallel kernel starts on the caller at once and the
//! other workers steal parts of it; if they are slow to wake, the caller simply does more
//! of the work itself. Other threads still call kernels the usual way (their jobs go to the
//! other workers), so this is only done with at least two threads, never with one.

use std::sync::atomic::{AtomicBool, Ordering};

static CALLER_IN_POOL: AtomicBool = AtomicBool::new(false);

/// The thread count rayon would choose: `RAYON_NUM_THREADS` when set to a positive
/// number, otherwise the available parallelism.
fn default_thread_count() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Builds rayon's global pool with the current thread as worker 0, when the pool is not
/// built yet, at least two threads are wanted and `FERROGRAD_CALLER_IN_POOL` is not `0`.
/// Returns whether the current thread is now a pool worker. Safe to call more than once:
/// later calls (or a pool built earlier by other code) leave things as they are.
pub fn init_pool_with_current_thread() -> bool {
    if CALLER_IN_POOL.load(Ordering::Relaxed) {
        return true;
    }
    if std::env::var("FERROGRAD_CALLER_IN_POOL").is_ok_and(|v| v.trim() == "0") {
        return false;
    }
    let n = default_thread_count();
    if n < 2 {
        return false;
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .use_current_thread()
        .thread_name(|i| format!("ferrograd-worker-{i}"))
        .build_global()
        .is_ok();
    if built {
        CALLER_IN_POOL.store(true, Ordering::Relaxed);
    }
    built
}

/// Whether [`init_pool_with_current_thread`] made a thread a pool worker.
pub fn caller_in_pool() -> bool {
    CALLER_IN_POOL.load(Ordering::Relaxed)
}
