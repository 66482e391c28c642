//! Python pack/unpack hooks (`saved_tensors_hooks`) on the Rust hook stack. The stack is
//! thread-local and lives in the core; these adapters take the GIL only for the call of
//! the user's hook, and a hook's exception comes out unchanged.

use super::errors::{from_pyerr, IntoPy};
use super::tensor::{wrap, PyTensor};
use crate::autograd::saved::{self, PackedTensor, SavedTensorHooks};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use std::sync::Arc;

/// One `saved_tensors_hooks(pack_hook, unpack_hook)` level.
struct PyHooks {
    pack: Py<PyAny>,
    unpack: Arc<Py<PyAny>>,
}

/// What `pack_hook` returned, with the `unpack_hook` that turns it back into a tensor.
struct PyPacked {
    obj: Py<PyAny>,
    unpack: Arc<Py<PyAny>>,
}

impl SavedTensorHooks for PyHooks {
    fn pack(&self, t: &Tensor) -> Result<Box<dyn PackedTensor>> {
        Python::attach(|py| {
            let arg = wrap(py, t.clone()).map_err(from_pyerr)?;
            let obj = self.pack.call1(py, (arg,)).map_err(from_pyerr)?;
            Ok(Box::new(PyPacked {
                obj,
                unpack: self.unpack.clone(),
            }) as Box<dyn PackedTensor>)
        })
    }
}

impl PackedTensor for PyPacked {
    fn unpack(&self) -> Result<Tensor> {
        Python::attach(|py| {
            let r = self
                .unpack
                .call1(py, (self.obj.clone_ref(py),))
                .map_err(from_pyerr)?;
            let r = r.bind(py);
            match r.cast::<PyTensor>() {
                Ok(t) => Ok(t.get().inner.clone()),
                Err(_) => Err(Error::type_err(format!(
                    "the saved_tensors_hooks unpack hook must return a Tensor, but returned {}",
                    r.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))),
            }
        })
    }
}

/// Enters a `saved_tensors_hooks` level on this thread.
#[pyfunction]
pub fn _push_saved_tensors_hooks(pack_hook: Py<PyAny>, unpack_hook: Py<PyAny>) -> PyResult<()> {
    saved::push_saved_tensor_hooks(Arc::new(PyHooks {
        pack: pack_hook,
        unpack: Arc::new(unpack_hook),
    }))
    .py()
}

/// Leaves the innermost `saved_tensors_hooks` level on this thread.
#[pyfunction]
pub fn _pop_saved_tensors_hooks() {
    saved::pop_saved_tensor_hooks();
}

/// Number of active hook levels on this thread.
#[pyfunction]
pub fn _saved_tensors_hooks_depth() -> usize {
    saved::saved_tensor_hooks_depth()
}

/// Disables hooks on this thread with `message` (None re-enables); returns the previous
/// setting. Errors with `message` when hooks are active right now.
#[pyfunction]
#[pyo3(signature = (message))]
pub fn _set_saved_tensors_hooks_disabled(message: Option<String>) -> PyResult<Option<String>> {
    if let Some(m) = &message {
        if saved::saved_tensor_hooks_depth() > 0 {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(m.clone()));
        }
    }
    Ok(saved::set_saved_tensor_hooks_disabled(message))
}
