//! The calling module's dialect, read from Rust methods: the few calls both peers spell the
//! same way and answer differently (`x.numpy()` shares memory in PyTorch and copies in
//! Paddle; `y.backward()` on a non-scalar `y` is an error in PyTorch and seeds ones in
//! Paddle; `x.data` has a version counter of its own in PyTorch) follow the rule of
//! `ferrograd._dialect.caller_dialect` (docs/dialects.md, "Which dialect a call speaks").
//!
//! The rule reads two names in the calling module's globals, so it is answered here
//! without calling Python: `PyEval_GetGlobals` is the globals of the Python frame that
//! called the current Rust method (Rust frames are not Python frames). Only the rare case
//! the rule treats specially (a call through ferrograd's `out=` wrapper, which is
//! transparent: its caller's module decides) asks the Python function, which walks frames.

use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};

static CALLER_DIALECT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static PACKAGE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Which peer a calling module's code is written for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dialect {
    /// `import ferrograd as torch`.
    Torch,
    /// `import ferrograd as paddle`.
    Paddle,
}

/// ferrograd's wrapper modules that the rule looks through (their caller is the caller):
/// the `out=` wrapper, and `split`'s, whose Rust pieces ask the dialect to mark PyTorch's
/// multi-op views. The same list as `ferrograd._dialect.TRANSPARENT`.
const TRANSPARENT: [&str; 2] = ["ferrograd._out_arg", "ferrograd._split_spelling"];

/// Whether the Python code that called the current Rust method speaks PyTorch: its module
/// names ferrograd `torch` (or the process aliases only `torch` to ferrograd). ferrograd's
/// own modules never do, so library code keeps ferrograd's documented default.
pub fn caller_is_torch(py: Python<'_>) -> PyResult<bool> {
    Ok(caller_dialect(py)? == Some(Dialect::Torch))
}

/// Whether the calling Python code speaks Paddle (as [`caller_is_torch`] for `paddle`).
pub fn caller_is_paddle(py: Python<'_>) -> PyResult<bool> {
    Ok(caller_dialect(py)? == Some(Dialect::Paddle))
}

/// The dialect of the Python code that called the current Rust method, or `None` (no
/// dialect: ferrograd's own modules, a module naming it both ways or neither without a
/// process-wide alias). Costs a few dictionary reads.
pub fn caller_dialect(py: Python<'_>) -> PyResult<Option<Dialect>> {
    // SAFETY: called with the GIL held (`py`); the result is a borrowed reference (or
    // NULL when no Python frame runs), promoted to an owned one before any other call.
    let globals = unsafe { Bound::from_borrowed_ptr_or_opt(py, ffi::PyEval_GetGlobals()) };
    let Some(globals) = globals else {
        return Ok(None); // called from C with no Python frame: no module speaks
    };
    let globals = globals.cast_into::<PyDict>()?;
    if let Some(name) = globals.get_item(intern!(py, "__name__"))? {
        if let Ok(name) = name.cast::<PyString>() {
            let name = name.to_cow()?;
            if TRANSPARENT.contains(&name.as_ref()) {
                return python_rule(py); // transparent wrapper: the frame walk decides
            }
            if name.starts_with("ferrograd.") {
                return Ok(None); // ferrograd's own code spells what it means
            }
        }
    }
    let fg = PACKAGE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("ferrograd")?.into_any().unbind())
    })?;
    let fg = fg.bind(py);
    let names = |d: &Bound<'_, PyDict>| -> PyResult<(bool, bool)> {
        let is_fg = |k: &Bound<'_, PyString>| -> PyResult<bool> {
            Ok(d.get_item(k)?.is_some_and(|v| v.is(fg)))
        };
        Ok((is_fg(intern!(py, "torch"))?, is_fg(intern!(py, "paddle"))?))
    };
    let (as_torch, as_paddle) = names(&globals)?;
    if as_torch != as_paddle {
        return Ok(Some(if as_torch {
            Dialect::Torch
        } else {
            Dialect::Paddle
        }));
    }
    if as_torch {
        return Ok(None); // both names: a mixed program states its dialect per call
    }
    let modules = py
        .import(intern!(py, "sys"))?
        .getattr(intern!(py, "modules"))?;
    let (as_torch, as_paddle) = names(modules.cast::<PyDict>()?)?;
    Ok(match (as_torch, as_paddle) {
        (true, false) => Some(Dialect::Torch),
        (false, true) => Some(Dialect::Paddle),
        _ => None,
    })
}

/// The Python implementation of the rule (`ferrograd._dialect.caller_dialect`), for the
/// cases that need a walk over the calling frames.
fn python_rule(py: Python<'_>) -> PyResult<Option<Dialect>> {
    let f = CALLER_DIALECT.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("ferrograd._dialect")?
            .getattr("caller_dialect")?
            .unbind())
    })?;
    // depth 1: the frame that called this Rust method (Rust frames are not Python frames)
    let d = f.bind(py).call1((1,))?;
    if d.is_none() {
        return Ok(None);
    }
    Ok(match d.extract::<String>()?.as_str() {
        "torch" => Some(Dialect::Torch),
        "paddle" => Some(Dialect::Paddle),
        _ => None,
    })
}
