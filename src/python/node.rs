//! Python views of graph nodes (`grad_fn`), hook handles, and Python gradient hooks.

use super::errors::from_pyerr;
use super::tensor::{wrap, PyTensor};
use crate::autograd::node::{Edge, GradHook, NodeRef};
use crate::error::Error;
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// A node of the backward graph, as seen from Python (`tensor.grad_fn`).
#[pyclass(name = "Node", module = "ferrograd.autograd", frozen)]
pub struct PyNode {
    pub(crate) node: NodeRef,
}

#[pymethods]
impl PyNode {
    /// The node's name, e.g. `MulBackward`.
    fn name(&self) -> String {
        self.node.name().into_owned()
    }

    /// `((node_or_None, input_nr), ...)`, one per forward input (leaves show as
    /// `AccumulateGrad`).
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<Bound<'py, PyAny>> = self
            .node
            .base()
            .edges
            .iter()
            .map(|e| -> PyResult<Bound<'py, PyAny>> {
                Ok(match e {
                    Edge::None => (py.None(), 0usize).into_pyobject(py)?.into_any(),
                    Edge::Node { node, input_nr } => {
                        (Py::new(py, PyNode { node: node.clone() })?, *input_nr)
                            .into_pyobject(py)?
                            .into_any()
                    }
                    Edge::Leaf(t) => (
                        Py::new(
                            py,
                            PyAccumulateGrad {
                                variable: t.clone(),
                            },
                        )?,
                        0usize,
                    )
                        .into_pyobject(py)?
                        .into_any(),
                })
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }

    fn __repr__(&self) -> String {
        format!("<{} object>", self.node.name())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNode>()
            .map(|o| o.get().node.id() == self.node.id())
            .unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        self.node.id() as u64
    }
}

/// The sink a leaf's gradient flows into (appears in `next_functions`).
#[pyclass(name = "AccumulateGrad", module = "ferrograd.autograd", frozen)]
pub struct PyAccumulateGrad {
    variable: Tensor,
}

#[pymethods]
impl PyAccumulateGrad {
    /// `"AccumulateGrad"`.
    fn name(&self) -> &'static str {
        "AccumulateGrad"
    }
    /// The leaf tensor.
    #[getter]
    fn variable(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.variable.clone())
    }
    /// No further nodes.
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }
    fn __repr__(&self) -> &'static str {
        "<AccumulateGrad object>"
    }
}

enum HookSite {
    Node(NodeRef),
    Leaf(Tensor),
    PostAccumulate(Tensor),
}

/// Returned by `register_hook`; `remove()` unregisters the hook.
#[pyclass(name = "RemovableHandle", module = "ferrograd.autograd", frozen)]
pub struct PyHookHandle {
    site: HookSite,
    id: u64,
}

impl PyHookHandle {
    /// A handle for a hook on a node's output.
    pub fn on_node(node: NodeRef, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::Node(node),
            id,
        }
    }
    /// A handle for a post-accumulate-grad hook on a leaf.
    pub fn on_post_accumulate(t: Tensor, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::PostAccumulate(t),
            id,
        }
    }
    /// A handle for a hook on a leaf.
    pub fn on_leaf(t: Tensor, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::Leaf(t),
            id,
        }
    }
}

#[pymethods]
impl PyHookHandle {
    /// Unregisters the hook (idempotent).
    fn remove(&self) {
        match &self.site {
            HookSite::Node(n) => n
                .base()
                .pre_hooks
                .lock()
                .retain(|(_, id, _)| *id != self.id),
            HookSite::Leaf(t) => t.meta().hooks.retain(|(id, _)| *id != self.id),
            HookSite::PostAccumulate(t) => t.remove_post_accumulate_grad_hook(self.id),
        }
    }
}

/// Wraps a Python callable as a gradient hook run by the engine: it takes the GIL for
/// the call only; its exception comes out of `backward()` unchanged.
pub fn python_grad_hook(f: Py<PyAny>) -> GradHook {
    Arc::new(move |g: &Tensor| {
        Python::attach(|py| {
            let arg = wrap(py, g.clone()).map_err(from_pyerr)?;
            let r = f.call1(py, (arg,)).map_err(from_pyerr)?;
            let r = r.bind(py);
            if r.is_none() {
                return Ok(None);
            }
            match r.cast::<PyTensor>() {
                Ok(t) => Ok(Some(t.get().inner.clone())),
                Err(_) => Err(Error::type_err(format!(
                    "a tensor hook must return a Tensor or None, but returned {}",
                    r.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))),
            }
        })
    })
}
