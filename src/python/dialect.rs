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
//! transparent: its caller's module decides) walks the frames, through their `f_back` /
//! `f_globals` attributes (the stable ABI has no frame accessors), as the Python function
//! does; [`py_caller_dialect`] exposes that walk to ferrograd's Python wrappers.

use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};

static SYS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
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
/// the `out=` wrapper, `split`'s, whose Rust pieces ask the dialect to mark PyTorch's
/// multi-op views, the `memory_format=` wrappers of `to` / `clone` / the casts / the
/// `*_like` factories, and the static-mode wrappers of the creation functions. The same list as `ferrograd._dialect.TRANSPARENT`.
const TRANSPARENT: [&str; 4] = [
    "ferrograd._out_arg",
    "ferrograd._split_spelling",
    "ferrograd._memory_format_api",
    "ferrograd.static.creation",
];

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
    if is_transparent(py, &globals)? {
        return frame_rule(py, 1); // transparent wrapper: its caller decides
    }
    globals_rule(py, Some(&globals))
}

/// `ferrograd._dialect.caller_dialect(depth)` (without `through_layers`) answered here:
/// `depth` 1 is the Python function calling this one (a Rust function has no frame of
/// its own), 2 its caller. The same rule, without running Python: the Python function's
/// frame walk and its lookups cost ~6,000 instructions, as much as two ops on a small
/// tensor, and the wrappers of the calls both peers spell alike (`max(x, 1)`,
/// `F.linear`, `split`) pay it on every call. Fewer frames than `depth`: the process-wide
/// alias alone decides, as there.
#[pyfunction]
#[pyo3(name = "_caller_dialect", signature = (depth = 2))]
pub fn py_caller_dialect(py: Python<'_>, depth: usize) -> PyResult<Option<&'static str>> {
    Ok(frame_rule(py, depth)?.map(|d| match d {
        Dialect::Torch => "torch",
        Dialect::Paddle => "paddle",
    }))
}

/// The rule for the code running `depth` frames up from the current Python frame (1: that
/// frame), looking through transparent wrappers, as `ferrograd._dialect.frame_dialect`.
fn frame_rule(py: Python<'_>, depth: usize) -> PyResult<Option<Dialect>> {
    // SAFETY: GIL held; a borrowed reference (or NULL), made owned at once
    let mut frame = unsafe {
        Bound::from_borrowed_ptr_or_opt(py, ffi::PyEval_GetFrame() as *mut ffi::PyObject)
    };
    for _ in 1..depth.max(1) {
        frame = match frame {
            Some(f) => back(py, &f)?,
            None => break,
        };
    }
    let Some(mut frame) = frame else {
        return globals_rule(py, None);
    };
    let mut globals = frame
        .getattr(intern!(py, "f_globals"))?
        .cast_into::<PyDict>()?;
    while is_transparent(py, &globals)? {
        let Some(up) = back(py, &frame)? else { break };
        frame = up;
        globals = frame
            .getattr(intern!(py, "f_globals"))?
            .cast_into::<PyDict>()?;
    }
    globals_rule(py, Some(&globals))
}

/// A frame's `f_back`, `None` at the outermost frame.
fn back<'py>(py: Python<'py>, frame: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let b = frame.getattr(intern!(py, "f_back"))?;
    Ok(if b.is_none() { None } else { Some(b) })
}

/// Whether `globals` are those of a wrapper module the rule looks through ([`TRANSPARENT`]).
fn is_transparent(py: Python<'_>, globals: &Bound<'_, PyDict>) -> PyResult<bool> {
    Ok(match globals.get_item(intern!(py, "__name__"))? {
        Some(name) => match name.cast::<PyString>() {
            Ok(name) => TRANSPARENT.contains(&name.to_cow()?.as_ref()),
            Err(_) => false,
        },
        None => false,
    })
}

/// The rule on a module's globals (`None`: no Python frame, the process-wide alias alone
/// decides): ferrograd's own modules have no dialect; a module naming ferrograd `torch`
/// or `paddle` (one of them) has that one; otherwise `sys.modules` decides the same way.
fn globals_rule(py: Python<'_>, globals: Option<&Bound<'_, PyDict>>) -> PyResult<Option<Dialect>> {
    if let Some(globals) = globals {
        if let Some(name) = globals.get_item(intern!(py, "__name__"))? {
            if let Ok(name) = name.cast::<PyString>() {
                if name.to_cow()?.starts_with("ferrograd.") {
                    return Ok(None); // ferrograd's own code spells what it means
                }
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
    if let Some(globals) = globals {
        let (as_torch, as_paddle) = names(globals)?;
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
    }
    // `sys.modules`, read from the `sys` module kept here (an import per call cost more
    // than the rest of the rule)
    let sys = SYS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("sys")?.into_any().unbind())
    })?;
    let modules = sys.bind(py).getattr(intern!(py, "modules"))?;
    let (as_torch, as_paddle) = names(modules.cast::<PyDict>()?)?;
    Ok(match (as_torch, as_paddle) {
        (true, false) => Some(Dialect::Torch),
        (false, true) => Some(Dialect::Paddle),
        _ => None,
    })
}
