//! `Tensor.register_post_accumulate_grad_hook` and `_queue_callback`: the Python side of
//! the engine's post-accumulate hooks and end-of-backward callbacks (used by DDP).

use crate::autograd::callbacks;
use crate::error::Error;
use crate::python::autograd::node::PyHookHandle;
use crate::python::errors::{from_pyerr, IntoPy};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

#[pymethods]
impl PyTensor {
    /// Registers `hook(tensor)`, run right after a backward pass has accumulated this
    /// leaf's gradient into `.grad` (PyTorch's API). The hook must return None. Returns
    /// a handle with `remove()`.
    fn register_post_accumulate_grad_hook(&self, hook: Py<PyAny>) -> PyResult<PyHookHandle> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let f = Arc::new(move |t: &Tensor| {
            Python::attach(|py| {
                let arg = wrap(py, t.clone()).map_err(from_pyerr)?;
                let r = hook.call1(py, (arg,)).map_err(from_pyerr)?;
                if r.is_none(py) {
                    Ok(())
                } else {
                    Err(Error::runtime(
                        "post-accumulate-grad hooks should return None. (The hook gets the \
                         tensor, whose .grad it may read or modify in place.)",
                    ))
                }
            })
        });
        self.inner()
            .register_post_accumulate_grad_hook(id, f)
            .py()?;
        Ok(PyHookHandle::on_post_accumulate(self.inner().take(), id))
    }
}

/// Queues `callback()` to run once the backward pass now running on this thread has
/// finished (PyTorch's `Variable._execution_engine.queue_callback`). Only valid from a
/// hook during backward; the callback's exception comes out of `backward()` unchanged.
#[pyfunction]
pub fn _queue_callback(callback: Py<PyAny>) -> PyResult<()> {
    callbacks::queue_callback(Box::new(move || {
        Python::attach(|py| callback.call0(py).map(|_| ()).map_err(from_pyerr))
    }))
    .py()
}
