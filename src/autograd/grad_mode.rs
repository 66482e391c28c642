//! Thread-local grad mode and inference mode, with RAII guards.
//!
//! Each thread starts with grad mode on. Guards restore the previous value when dropped,
//! so an error or panic unwinding through a guarded region leaves the mode as it was.

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// True when ops on this thread record backward nodes.
#[inline]
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|c| c.get())
}

/// Sets this thread's grad mode and returns the previous value.
pub fn set_grad_enabled(enabled: bool) -> bool {
    GRAD_ENABLED.with(|c| c.replace(enabled))
}

pub use crate::inference::is_inference_mode;

/// Sets this thread's inference mode (which also turns grad mode off) and returns the
/// previous `(inference, grad)` pair.
pub fn set_inference_mode(enabled: bool) -> (bool, bool) {
    let prev_inf = crate::inference::replace_inference_flag(enabled);
    let prev_grad = if enabled {
        set_grad_enabled(false)
    } else {
        is_grad_enabled()
    };
    (prev_inf, prev_grad)
}

/// Sets grad mode for its lifetime and restores the previous mode on drop.
#[must_use = "the mode is restored when the guard is dropped"]
pub struct GradModeGuard {
    prev: bool,
}

impl GradModeGuard {
    /// Enters grad mode `enabled`.
    pub fn new(enabled: bool) -> Self {
        GradModeGuard {
            prev: set_grad_enabled(enabled),
        }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.prev);
    }
}

/// Convenience: a guard that turns grad mode off.
pub fn no_grad() -> GradModeGuard {
    GradModeGuard::new(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_restores_and_threads_are_independent() {
        assert!(is_grad_enabled());
        {
            let _g = no_grad();
            assert!(!is_grad_enabled());
            std::thread::spawn(|| assert!(is_grad_enabled()))
                .join()
                .unwrap();
        }
        assert!(is_grad_enabled());
    }
}
