//! The bound on re-entrant backward passes (a custom backward that calls backward).

use crate::error::{Error, Result};

/// How deeply backward passes may nest on one thread (a custom backward that calls
/// backward, which reaches a custom backward that calls backward, ...). Each level costs
/// native stack; without a bound a deep re-entrant chain overflows the stack and takes
/// the process down. PyTorch's engine switches threads at 60 levels; 200 levels fit
/// comfortably in a 2 MiB thread stack.
pub const MAX_REENTRANT_DEPTH: usize = 200;

thread_local! {
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one nesting level of backward on this thread while alive.
pub(crate) struct DepthGuard;

impl DepthGuard {
    /// Enters one level; a `RecursionError` past [`MAX_REENTRANT_DEPTH`].
    pub(crate) fn enter() -> Result<DepthGuard> {
        DEPTH.with(|d| {
            if d.get() >= MAX_REENTRANT_DEPTH {
                return Err(Error::recursion(format!(
                    "backward: re-entrant backward nested more than {MAX_REENTRANT_DEPTH} \
                     levels deep (a custom backward that calls backward on its own graph, \
                     again and again); stop the recursion in the custom backward"
                )));
            }
            d.set(d.get() + 1);
            Ok(DepthGuard)
        })
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}
