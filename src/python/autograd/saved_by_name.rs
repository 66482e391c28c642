//! A built-in node's saved tensors by name, as PyTorch spells them:
//! `grad_fn._saved_self` / `_saved_other` / `_saved_result` (the unpacked tensor) and
//! `grad_fn._raw_saved_self` (the saved slot, whose `register_hooks(pack, unpack)` packs
//! it now). The names come from the core ([`crate::autograd::SavedRole`]): which input
//! (or the output) the op saved.

use crate::autograd::node::NodeRef;
use crate::python::autograd::node::PyNode;
use crate::python::autograd::saved_hooks::{python_packed, single_hooks};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::wrap;
use crate::python::tensor::identity::wrap_shared;
use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::prelude::*;

/// The Python class name of `node` (`MulBackward0`), for messages.
fn class_name(slf: &Bound<'_, PyNode>) -> String {
    slf.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Node".into())
}

/// Whether `node` saved a tensor called `name`.
fn has_saved(node: &NodeRef, name: &str) -> bool {
    node.saved_named().iter().any(|(n, _)| n == name)
}

#[pymethods]
impl PyNode {
    /// `_saved_<name>` (the saved tensor, unpacked) and `_raw_saved_<name>` (the saved
    /// slot) for the tensors this node saved; other unknown names: AttributeError.
    fn __getattr__(slf: &Bound<'_, PyNode>, attr: &str) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let node = &slf.get().node;
        if let Some(name) = attr.strip_prefix("_raw_saved_") {
            if has_saved(node, name) {
                let raw = PySavedTensor {
                    node: node.clone(),
                    name: name.to_string(),
                };
                return Ok(Py::new(py, raw)?.into_any());
            }
        } else if let Some(name) = attr.strip_prefix("_saved_") {
            let op = class_name(slf);
            let named = node.saved_named();
            if let Some((_, slot)) = named.iter().find(|(n, _)| n == name) {
                let t = slot.unpack(&op).py()?;
                // a saved input comes back as the caller's own object (PyTorch)
                return Ok(wrap_shared(py, t)?.into_any());
            }
        }
        Err(PyAttributeError::new_err(format!(
            "'{}' object has no attribute '{attr}'",
            class_name(slf)
        )))
    }
}

/// The slot called `name` among a node's saved tensors; `op` names the node in the error.
fn find_slot<'a>(
    named: &'a [(
        std::borrow::Cow<'static, str>,
        &'a crate::autograd::SavedTensor,
    )],
    name: &str,
    op: &str,
) -> PyResult<&'a crate::autograd::SavedTensor> {
    named
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, slot)| *slot)
        .ok_or_else(|| PyAttributeError::new_err(format!("{op} saved no tensor called {name}")))
}

/// One tensor a built-in node saved (`grad_fn._raw_saved_self`): PyTorch's
/// `SavedVariable`, whose `register_hooks(pack_hook, unpack_hook)` packs it now.
#[pyclass(name = "SavedTensor", module = "ferrograd.autograd", frozen)]
pub struct PySavedTensor {
    node: NodeRef,
    name: String,
}

#[pymethods]
impl PySavedTensor {
    /// Calls `pack_hook(tensor)` now and keeps what it returns instead of the tensor;
    /// backward (and `_saved_<name>`) get it back through `unpack_hook(packed)`, which
    /// must return a Tensor of the saved shape and dtype. Once per saved tensor.
    fn register_hooks(
        &self,
        py: Python<'_>,
        pack_hook: Py<PyAny>,
        unpack_hook: Py<PyAny>,
    ) -> PyResult<()> {
        for (what, f) in [("pack_hook", &pack_hook), ("unpack_hook", &unpack_hook)] {
            if !f.bind(py).is_callable() {
                return Err(PyTypeError::new_err(format!(
                    "register_hooks: {what} must be callable"
                )));
            }
        }
        let op = format!("{}0", self.node.name());
        let named = self.node.saved_named();
        let slot = find_slot(&named, &self.name, &op)?;
        slot.register_hooks(&single_hooks(pack_hook, unpack_hook), &op)
            .py()
    }

    /// What is kept for backward: the object `pack_hook` returned, as it is, when a
    /// hook packed it; otherwise the saved input itself (the caller's own object), or a
    /// detached tensor for a saved output (PyTorch's `SavedVariable.data`).
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let op = format!("{}0", self.node.name());
        let named = self.node.saved_named();
        let slot = find_slot(&named, &self.name, &op)?;
        if let Some((obj, _)) = slot.packed().and_then(|p| python_packed(py, &*p)) {
            return Ok(obj);
        }
        let t = slot.unpack(&op).py()?;
        if slot.is_output() {
            return Ok(wrap(py, t.detach())?.into_any());
        }
        Ok(wrap_shared(py, t)?.into_any())
    }

    /// The `unpack_hook` that will read this save back, or None when no Python hook
    /// packed it (PyTorch's `SavedVariable.unpack_hook`).
    #[getter]
    fn unpack_hook(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let op = format!("{}0", self.node.name());
        let named = self.node.saved_named();
        let slot = find_slot(&named, &self.name, &op)?;
        Ok(slot
            .packed()
            .and_then(|p| python_packed(py, &*p))
            .map_or_else(|| py.None(), |(_, unpack)| unpack))
    }

    fn __repr__(&self) -> String {
        format!("<SavedTensor {} of {}>", self.name, self.node.name())
    }
}
