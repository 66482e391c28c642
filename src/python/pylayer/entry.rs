//! The Python entry points of a custom layer's `apply`.
//!
//! `PyLayer.apply` / `Function.apply` on the base classes are `classmethod`s over
//! [`_apply_paddle`] / [`_apply_torch`]: correct for any subclass, but each call binds a
//! method object, packs `(cls, *args)` into a tuple and slices `args` out of it again.
//! `__init_subclass__` gives each layer class its own `apply` instead, made by
//! [`_bind_apply`]: a builtin function bound to the class itself that CPython calls with
//! the arguments in place (vectorcall, `METH_FASTCALL | METH_KEYWORDS`): no method
//! object, no tuple (~1k instructions per `apply`, a tenth of the layer's own cost).
//! A builtin function is not a descriptor, so `Layer.apply` and `layer.apply` both return
//! it as it is, bound to `Layer` (what the classmethod gives too).

use crate::python::pylayer::apply::apply;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use smallvec::SmallVec;

/// `Layer.apply(*args, **kwargs)` for the Paddle dialect (`PyLayer`).
#[pyfunction]
#[pyo3(signature = (cls, *args, **kwargs))]
pub fn _apply_paddle(
    py: Python<'_>,
    cls: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    apply_tuple(py, cls, false, args, kwargs)
}

/// `Function.apply(*args, **kwargs)` for the torch dialect (`autograd.Function`).
#[pyfunction]
#[pyo3(signature = (cls, *args, **kwargs))]
pub fn _apply_torch(
    py: Python<'_>,
    cls: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    apply_tuple(py, cls, true, args, kwargs)
}

/// [`apply`] with the positional arguments in a tuple (the base classes' `classmethod`).
fn apply_tuple<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyAny>,
    torch: bool,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let args: SmallVec<[Bound<'py, PyAny>; 4]> = args.iter().collect();
    apply(py, cls, torch, &args, kwargs)
}

/// The method definitions of the bound `apply`s, made once and never freed (CPython keeps
/// a pointer to them in every function object). Stored as addresses: raw pointers are
/// neither `Send` nor `Sync`.
static DEFS: PyOnceLock<(usize, usize)> = PyOnceLock::new();

/// `apply` for class `cls`: a builtin function bound to `cls` that runs `cls.apply(...)`
/// in the torch dialect when `torch` is true, else in the Paddle dialect.
#[pyfunction]
pub fn _bind_apply<'py>(cls: &Bound<'py, PyAny>, torch: bool) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let &(paddle_def, torch_def) = DEFS.get_or_init(py, || {
        let def = |meth: ffi::PyCFunctionFastWithKeywords| {
            Box::into_raw(Box::new(ffi::PyMethodDef {
                ml_name: c"apply".as_ptr(),
                ml_meth: ffi::PyMethodDefPointer {
                    PyCFunctionFastWithKeywords: meth,
                },
                ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
                ml_doc: c"apply(*args, **kwargs)\n--\n\nRuns the layer's forward and records \
                    its backward in the graph."
                    .as_ptr(),
            })) as usize
        };
        (
            def(pyo3::impl_::trampoline::get_trampoline_function!(
                fastcall_cfunction_with_keywords,
                apply_fast::<false>
            )),
            def(pyo3::impl_::trampoline::get_trampoline_function!(
                fastcall_cfunction_with_keywords,
                apply_fast::<true>
            )),
        )
    });
    let def = if torch { torch_def } else { paddle_def };
    // SAFETY: `def` points at a leaked, never-mutated `PyMethodDef` (lives for the
    // process); `cls` is a live object, which the function object takes a reference to;
    // the result is a new reference or NULL with an exception set.
    unsafe {
        let f = ffi::PyCFunction_NewEx(
            def as *mut ffi::PyMethodDef,
            cls.as_ptr(),
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, f)
    }
}

/// `METH_FASTCALL | METH_KEYWORDS` body of a bound `apply`: the torch dialect's when
/// `TORCH`, else Paddle's.
///
/// # Safety
/// As [`fast_call`].
unsafe fn apply_fast<const TORCH: bool>(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: the caller's contract is `fast_call`'s
    unsafe { fast_call(py, slf, args, nargs, kwnames, TORCH) }
}

/// Runs [`apply`] for a vectorcall: `slf` is the bound class, `args[..nargs]` the
/// positional arguments, then one value per name in the `kwnames` tuple. Entered through
/// pyo3's own trampoline (`get_trampoline_function!`), as pyo3's generated functions are:
/// it marks the thread attached for pyo3 (so references dropped here are released at
/// once, not deferred to pyo3's pending pool) and turns a panic into `PanicException`.
///
/// # Safety
/// The GIL is held; `slf` is a live object; `args` holds `nargs + len(kwnames)` live
/// borrowed references for the whole call; `kwnames` is NULL or a tuple of strings.
unsafe fn fast_call(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
    torch: bool,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: see the function's contract (each pointer is a live borrowed reference;
    // `Bound` takes a reference of its own)
    let arg = |i: usize| unsafe { Bound::from_borrowed_ptr(py, *args.add(i)) };
    let cls = unsafe { Bound::from_borrowed_ptr(py, slf) };
    let n = usize::try_from(nargs).unwrap_or(0);
    let pos: SmallVec<[Bound<'_, PyAny>; 4]> = (0..n).map(arg).collect();
    let kwargs = if kwnames.is_null() {
        None
    } else {
        // SAFETY: `kwnames` is a live tuple of the keyword names (contract)
        let names = unsafe { Bound::from_borrowed_ptr(py, kwnames) };
        let names = names.cast_into::<PyTuple>()?;
        let kw = PyDict::new(py);
        for (j, name) in names.iter().enumerate() {
            kw.set_item(name, arg(n + j))?;
        }
        Some(kw)
    };
    Ok(apply(py, &cls, torch, &pos, kwargs.as_ref())?.into_ptr())
}
