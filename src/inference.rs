//! The thread-local inference-mode flag.
//!
//! It lives below the storage layer because storage reads it: memory allocated while
//! inference mode is on belongs to *inference tensors* (PyTorch's term), which autograd
//! then treats as constants. The guards and the grad-mode coupling are in
//! [`crate::autograd::grad_mode`].

use std::cell::Cell;

thread_local! {
    static INFERENCE: Cell<bool> = const { Cell::new(false) };
}

/// True inside `inference_mode(True)` on this thread.
#[inline]
pub fn is_inference_mode() -> bool {
    INFERENCE.with(|c| c.get())
}

/// Sets this thread's inference flag and returns the previous value (use
/// [`crate::autograd::grad_mode::set_inference_mode`], which also switches grad mode).
pub(crate) fn replace_inference_flag(enabled: bool) -> bool {
    INFERENCE.with(|c| c.replace(enabled))
}
