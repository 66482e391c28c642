//! The calling module's dialect, read from Rust methods: the few calls both peers spell the
//! same way and answer differently (`x.numpy()` shares memory in PyTorch and copies in
//! Paddle; `y.backward()` on a non-scalar `y` is an error in PyTorch and seeds ones in
//! Paddle) ask `ferrograd._dialect.caller_dialect`, the one rule for the whole package
//! (docs/dialects.md, "Which dialect a call speaks"). Only those rarer paths pay for the
//! check, never the common case.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static CALLER_DIALECT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Whether the Python code that called the current Rust method speaks PyTorch: its module
/// names ferrograd `torch` (or the process aliases only `torch` to ferrograd). ferrograd's
/// own modules never do, so library code keeps ferrograd's documented default.
pub fn caller_is_torch(py: Python<'_>) -> PyResult<bool> {
    caller_is(py, "torch")
}

/// Whether the calling Python code speaks Paddle (as [`caller_is_torch`] for `paddle`).
pub fn caller_is_paddle(py: Python<'_>) -> PyResult<bool> {
    caller_is(py, "paddle")
}

fn caller_is(py: Python<'_>, dialect: &str) -> PyResult<bool> {
    let f = CALLER_DIALECT.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("ferrograd._dialect")?
            .getattr("caller_dialect")?
            .unbind())
    })?;
    // depth 1: the frame that called this Rust method (Rust frames are not Python frames)
    let d = f.bind(py).call1((1,))?;
    Ok(!d.is_none() && d.extract::<String>()? == dialect)
}
