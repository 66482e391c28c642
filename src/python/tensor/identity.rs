//! Python object identity of tensors the core hands back: a view's `_base` and a node's
//! saved inputs (`grad_fn._saved_self`) are the very Python objects the user holds, as
//! in PyTorch (`v._base is x`), when those are still alive.
//!
//! A core tensor records the address of its first live Python wrapper
//! ([`crate::tensor::Tensor::owner`]); the wrapper forgets itself when it is deallocated
//! (`Drop for PyTensor`), so the address is never stale. No reference is kept: a saved
//! tensor or a view does not keep its base's Python object alive. `.grad` is read the
//! same way, so `p.grad is p.grad` and `p.grad = g; p.grad is g` hold, as in PyTorch. A
//! sparse `.grad` (`sparse_grad.rs`) is summed here, where core tensors can be wrapped.

use crate::error::Result;
use crate::python::errors::{from_pyerr, IntoPy};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;

/// The live Python wrapper recorded for `t`, if any.
fn recorded_owner(py: Python<'_>, t: &Tensor) -> Option<Py<PyTensor>> {
    let p = t.owner() as *mut pyo3::ffi::PyObject;
    if p.is_null() {
        return None;
    }
    // SAFETY: the GIL is held, and a recorded wrapper clears the record in its Drop
    // (before its memory is freed), so `p` points at a PyTensor. A refcount of 0 means it
    // is being deallocated right now: it must not be revived.
    unsafe {
        if pyo3::ffi::Py_REFCNT(p) <= 0 {
            return None;
        }
        let obj = Bound::from_borrowed_ptr(py, p);
        obj.cast_into::<PyTensor>().ok().map(Bound::unbind)
    }
}

/// `t` as a Python object: its recorded live wrapper, else a new one (then recorded).
pub fn wrap_shared(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    match recorded_owner(py, &t) {
        Some(obj) => Ok(obj),
        None => wrap(py, t),
    }
}

/// [`wrap_shared`] of a borrowed tensor (cloned only when a new wrapper is made).
pub fn wrap_shared_ref(py: Python<'_>, t: &Tensor) -> PyResult<Py<PyTensor>> {
    match recorded_owner(py, t) {
        Some(obj) => Ok(obj),
        None => wrap(py, t.clone()),
    }
}

#[pymethods]
impl PyTensor {
    /// The tensor this view shares its memory with (`None` for a tensor that is not a
    /// view): the root of a chain of views, the same Python object while it is alive.
    #[getter]
    fn _base(&self, py: Python<'_>) -> PyResult<Option<Py<PyTensor>>> {
        let base = self.inner().meta().view_base.clone();
        base.map(|b| wrap_shared(py, b)).transpose()
    }

    /// Accumulated gradient (None until a backward pass reaches this tensor): the same
    /// Python object while it is alive and the gradient is accumulated in place, as in
    /// PyTorch (`p.grad = g` makes `p.grad is g`). A sparse gradient (PyTorch code) is
    /// the sparse tensor object itself. Read from PyTorch code on a non-leaf that does
    /// not retain its gradient (so it is None), it warns as PyTorch does.
    #[getter]
    fn grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let t = self.inner();
        if t.has_ext_grad() {
            return Ok(super::sparse_grad::ext_grad_object(py, &t));
        }
        let Some(g) = t.grad() else {
            // (the dialect, a frame lookup, only in the rare case that warns)
            let retains = t.meta().retains_grad;
            if !t.is_leaf() && !retains && crate::python::dialect::caller_is_torch(py)? {
                warn_non_leaf_grad(py)?;
            }
            return Ok(None);
        };
        Ok(Some(wrap_shared(py, g)?.into_any()))
    }

    #[setter]
    fn set_grad(slf: &Bound<'_, Self>, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let g = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) => match v.cast::<PyTensor>() {
                Ok(t) => Some(t.get().inner().clone()),
                // a sparse tensor (checked, or refused, by the Python side)
                Err(_) => {
                    let t = slf.get().inner().take();
                    return super::sparse_grad::set_sparse_grad(slf.as_any(), &t, v);
                }
            },
        };
        slf.get().inner().set_grad(g).py()
    }
}

/// PyTorch's warning for `.grad` read on a non-leaf tensor that does not retain it.
fn warn_non_leaf_grad(py: Python<'_>) -> PyResult<()> {
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyUserWarning>(),
        c"The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. \
          backward() does not fill the .grad of a non-leaf tensor, so it stays None. Call \
          .retain_grad() on the tensor before the backward pass if you want its gradient \
          there; if you meant a leaf, take .grad from the leaf itself.",
        1,
    )
}

/// Sums the dense gradient `g` of a backward pass into `leaf`'s sparse `.grad` (the
/// engine's [`crate::autograd::ExtAccumulate`]).
fn accumulate_sparse(leaf: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    Python::attach(|py| {
        let param = wrap_shared(py, leaf.clone())?;
        let g = wrap(py, g)?;
        super::sparse_grad::helpers(py)?.call_method1("_accumulate", (param, g, create_graph))?;
        Ok(())
    })
    .map_err(from_pyerr)
}

/// Installs [`accumulate_sparse`] into the engine (module init).
pub(crate) fn install_sparse_accumulator() {
    crate::autograd::set_ext_accumulator(accumulate_sparse);
}
