//! Bindings for the Paddle / PyTorch drop-in details of autograd that the peers spell
//! alike but define differently: Paddle's `retain_grads()` (ordered among the tensor's
//! hooks), the error class for a non-Tensor gradient and the one for a bad argument to
//! `grad()`.

use crate::error::Error;
use crate::python::errors::from_pyerr;
use crate::python::tensor::class::PyTensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyType;

/// `ferrograd.AutogradTypeError(message)` as a core error: a value of the wrong type
/// handed to autograd (e.g. a custom layer's backward returning an int), which Paddle
/// reports as `ValueError` and ferrograd and PyTorch as `TypeError`; the class
/// subclasses both. (Falls back to `TypeError` if the class cannot be loaded.)
pub fn grad_type_error(message: String) -> Error {
    Python::attach(|py| {
        let cls = py
            .import("ferrograd._errors")
            .and_then(|m| m.getattr("AutogradTypeError"))
            .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
        let err = match cls {
            Ok(cls) => PyErr::from_type(cls, message),
            Err(_) => PyTypeError::new_err(message),
        };
        from_pyerr(err)
    })
}

/// `ferrograd.AutogradArgumentError(message)`: a bad argument to `grad()` / `backward()`
/// (not a Tensor, or the wrong number of gradients), which Paddle checks with `assert`
/// (`AssertionError`) and ferrograd and PyTorch report as `TypeError` / `ValueError`; the
/// class subclasses all three. (Falls back to `TypeError` if it cannot be loaded.)
pub fn grad_argument_error(message: String) -> PyErr {
    Python::attach(|py| {
        let cls = py
            .import("ferrograd._errors")
            .and_then(|m| m.getattr("AutogradArgumentError"))
            .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
        match cls {
            Ok(cls) => PyErr::from_type(cls, message),
            Err(_) => PyTypeError::new_err(message),
        }
    })
}

#[pymethods]
impl PyTensor {
    /// Paddle's `retain_grads()` on a non-leaf: keeps the gradient as it is at this point
    /// of the tensor's hook list (a hook registered later does not change what `.grad`
    /// shows), and zeros when the tensor's node runs without a gradient for it. A leaf
    /// keeps its gradient anyway; a tensor that does not require grad is left alone.
    fn _retain_grads_in_order(&self) {
        let t = &self.inner();
        let Some(node) = t.grad_fn() else { return };
        {
            let mut m = t.meta();
            if m.retains_grad {
                return; // once per tensor (also after retain_grad())
            }
            m.retains_grad = true;
        }
        let id = crate::autograd::retain::next_retain_id();
        let hook = crate::autograd::retain::paddle_retain_hook(t.downgrade());
        node.base().pre_hooks().push((t.output_nr(), id, hook));
    }
}
