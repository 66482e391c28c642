//! Re-entrant backward passes (a custom backward that calls backward): how deep they
//! nest on one thread, and moving deeper passes onto fresh threads.
//!
//! Each nesting level costs native stack (and, from Python, interpreter frames that
//! count against the thread's recursion limit), so a deep re-entrant chain run on one
//! thread would overflow its stack and take the process down. As PyTorch's engine does,
//! every [`HOP_DEPTH`] levels the next pass runs on a new thread with its own stack
//! while the caller waits; that thread starts with the caller's thread-local modes
//! (grad mode, inference mode, autocast, saved-tensor hooks). The total nesting is
//! bounded by [`MAX_REENTRANT_DEPTH`], past which a `RecursionError` stops a runaway
//! recursion instead of starting threads without end.

use crate::autograd::saved::SavedTensorHooks;
use crate::dtype::DType;
use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::Arc;

/// Levels of backward nested on one thread before the next level moves to a new thread.
/// PyTorch's engine switches at 60; from Python each level also costs a handful of
/// interpreter frames, and 50 levels stay well inside the default recursion limit.
pub const HOP_DEPTH: usize = 50;

/// How deeply backward passes may nest in all (over every thread of the chain).
pub const MAX_REENTRANT_DEPTH: usize = 10_000;

/// Stack size of a thread that continues a deep re-entrant chain: room for
/// [`HOP_DEPTH`] levels of engine and interpreter frames with a wide margin (the memory
/// is reserved, and only the pages used are committed).
const HOP_STACK_BYTES: usize = 16 << 20;

thread_local! {
    /// Levels nested on this thread.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// Levels nested on the threads that handed the chain to this one.
    static BASE: Cell<usize> = const { Cell::new(0) };
}

/// Counts one nesting level of backward on this thread while alive.
pub(crate) struct DepthGuard;

impl DepthGuard {
    /// Enters one level; a `RecursionError` past [`MAX_REENTRANT_DEPTH`] levels in all.
    pub(crate) fn enter() -> Result<DepthGuard> {
        let total = BASE.with(Cell::get) + DEPTH.with(Cell::get);
        if total >= MAX_REENTRANT_DEPTH {
            return Err(Error::recursion(format!(
                "backward: re-entrant backward nested more than {MAX_REENTRANT_DEPTH} \
                 levels deep (a custom backward that calls backward on its own graph, \
                 again and again); stop the recursion in the custom backward"
            )));
        }
        DEPTH.with(|d| d.set(d.get() + 1));
        Ok(DepthGuard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// True when this thread already runs [`HOP_DEPTH`] nested passes, so that the next one
/// should run on a fresh thread ([`on_fresh_thread`]).
pub(crate) fn should_hop() -> bool {
    DEPTH.with(Cell::get) >= HOP_DEPTH
}

/// Runs one backward pass `f` as one nesting level: here, or on a fresh thread when this
/// thread already runs [`HOP_DEPTH`] of them; a `RecursionError` past
/// [`MAX_REENTRANT_DEPTH`] levels in all.
pub(crate) fn nested<R: Send>(f: impl FnOnce() -> Result<R> + Send) -> Result<R> {
    let _depth = DepthGuard::enter()?;
    if should_hop() {
        on_fresh_thread(f)
    } else {
        f()
    }
}

/// The thread-local modes a pass sees, carried to the thread that continues it.
struct Modes {
    grad: bool,
    inference: bool,
    autocast: Option<(DType, u8)>,
    hooks: Vec<Arc<dyn SavedTensorHooks>>,
    hooks_disabled: Option<String>,
    base: usize,
}

impl Modes {
    fn capture() -> Modes {
        Modes {
            grad: crate::autograd::grad_mode::is_grad_enabled(),
            inference: crate::inference::is_inference_mode(),
            autocast: crate::autograd::autocast::autocast_state(),
            hooks: crate::autograd::saved::hook_stack_snapshot(),
            hooks_disabled: crate::autograd::saved::saved_tensor_hooks_disabled(),
            base: BASE.with(Cell::get) + DEPTH.with(Cell::get),
        }
    }

    /// Installs the modes on the current (fresh) thread.
    fn install(self) {
        crate::autograd::grad_mode::set_grad_enabled(self.grad);
        crate::inference::replace_inference_flag(self.inference);
        crate::autograd::autocast::set_autocast(self.autocast);
        crate::autograd::saved::set_hook_stack(self.hooks);
        crate::autograd::saved::set_saved_tensor_hooks_disabled(self.hooks_disabled);
        BASE.with(|b| b.set(self.base));
    }
}

/// Runs `f` on a new thread that starts with this thread's modes, and waits for it.
/// The caller holds no interpreter lock here (the bindings release it around every
/// pass), so the new thread's Python callbacks can take it.
pub(crate) fn on_fresh_thread<R: Send>(f: impl FnOnce() -> Result<R> + Send) -> Result<R> {
    let modes = Modes::capture();
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("ferrograd-reentrant-backward".into())
            .stack_size(HOP_STACK_BYTES)
            .spawn_scoped(s, move || {
                modes.install();
                f()
            });
        match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|panic| {
                Err(Error::runtime(format!(
                    "backward: the thread running a deeply re-entrant backward pass \
                     panicked: {}",
                    panic_message(&*panic)
                )))
            }),
            Err(e) => Err(Error::runtime(format!(
                "backward: could not start a thread for a re-entrant backward nested \
                 {HOP_DEPTH}+ levels deep ({e}); reduce the re-entrant depth"
            ))),
        }
    })
}

/// The text of a panic's payload (a `&str` or `String`; otherwise a placeholder).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_bounded_across_hops() {
        fn nest(level: usize) -> Result<usize> {
            nested(move || {
                if level == 0 {
                    return Ok(BASE.with(Cell::get) + DEPTH.with(Cell::get));
                }
                nest(level - 1)
            })
        }
        assert_eq!(nest(3 * HOP_DEPTH + 7).unwrap(), 3 * HOP_DEPTH + 8);
        let e = match nest(MAX_REENTRANT_DEPTH + 5) {
            Err(e) => e,
            Ok(_) => panic!("a runaway nesting must stop"),
        };
        assert!(e.message.contains("re-entrant backward nested more than"));
        // the counters unwound
        assert_eq!(DEPTH.with(Cell::get), 0);
    }

    #[test]
    fn modes_travel_to_the_new_thread() {
        let prev = crate::autograd::grad_mode::set_grad_enabled(false);
        let seen = on_fresh_thread(|| Ok(crate::autograd::grad_mode::is_grad_enabled()));
        crate::autograd::grad_mode::set_grad_enabled(prev);
        assert!(!seen.unwrap());
    }
}
