//! The `Tensor` methods that reach the autograd graph's Python side: `grad_fn`,
//! `register_hook`, `backward`, and GC traversal into a custom layer's ctx.

use super::class::PyTensor;
use crate::autograd::engine::{self, BackwardOptions};
use crate::python::errors::IntoPy;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_HOOK_ID: AtomicU64 = AtomicU64::new(1);

#[pymethods]
impl PyTensor {
    /// The node that produced this tensor (None for leaves).
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        crate::python::tensor::class::check_history_readable(py, &self.inner())?;
        self.inner()
            .grad_fn()
            .map(|n| crate::python::autograd::node::node_object(py, n))
            .transpose()
    }

    /// Which output of its `grad_fn` this tensor is (0 for leaves), as PyTorch's
    /// `Tensor.output_nr`.
    #[getter]
    fn output_nr(&self) -> usize {
        if self.inner().grad_fn().is_some() {
            self.inner().output_nr()
        } else {
            0
        }
    }

    /// Registers `hook(grad)`, run when this tensor's gradient is computed; a non-None
    /// return value replaces the gradient. Returns a handle with `remove()`. In PyTorch
    /// code a hook on a view belongs to the view's history of now: an in-place write to
    /// the view drops it, as PyTorch does (`copy_slices::VIEW_HOOK_BIT`).
    fn register_hook(
        &self,
        py: Python<'_>,
        hook: Py<PyAny>,
    ) -> PyResult<crate::python::autograd::node::PyHookHandle> {
        let t = self.inner().take();
        if !t.requires_grad() {
            return Err(crate::python::errors::usage_error(
                "cannot register a hook on a tensor that does not require grad (set \
                 requires_grad=True / stop_gradient=False first)"
                    .to_string(),
            ));
        }
        let id = NEXT_HOOK_ID.fetch_add(1, Ordering::Relaxed);
        let f = crate::python::autograd::node::python_grad_hook(hook);
        match t.grad_fn() {
            Some(node) => {
                // (the dialect is asked only for a view: the common hook pays nothing)
                let view = {
                    let m = t.meta();
                    m.view_base.is_some() && !m.view_frozen
                };
                let id = if view && crate::python::dialect::caller_is_torch(py)? {
                    id | crate::autograd::ops::copy_slices::VIEW_HOOK_BIT
                } else {
                    id
                };
                node.base().pre_hooks().push((t.output_nr(), id, f));
                Ok(crate::python::autograd::node::PyHookHandle::on_node(
                    node, id,
                ))
            }
            None => {
                t.meta().hooks.push((id, f));
                Ok(crate::python::autograd::node::PyHookHandle::on_leaf(
                    t.clone(),
                    id,
                ))
            }
        }
    }

    /// Runs backward from this tensor. Without a gradient (`gradient`, Paddle's
    /// `grad_tensor`), the gradient is ones of this tensor's shape (Paddle semantics; in
    /// PyTorch code, as in PyTorch, a tensor of more than one element is an error, and so is
    /// one that does not require grad, which Paddle code only warns about). With PyTorch's `inputs=`, gradients accumulate into
    /// those tensors' `.grad` only (`autograd.backward_inputs`). One native call: the
    /// common case runs no Python frame.
    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None, grad_tensor=None))]
    fn backward(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
        grad_tensor: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut grad_tensor = grad_tensor.or(gradient).cloned();
        if let Some(g) = grad_tensor.as_ref() {
            if !g.is_none() && g.cast::<PyTensor>().is_err() {
                let restricted = inputs.is_some_and(|i| !i.is_none());
                // a sparse gradient (rare): accumulated as it is into a leaf, else densified
                let t = slf.get().inner().take();
                match super::sparse_grad::sparse_root(
                    slf.as_any(),
                    &t,
                    g,
                    create_graph,
                    !restricted,
                )? {
                    None => return Ok(()),
                    Some(d) => grad_tensor = Some(d),
                }
            }
        }
        let grad_tensor = grad_tensor.as_ref();
        if let Some(inputs) = inputs.filter(|i| !i.is_none()) {
            return crate::python::autograd::backward::backward(
                py,
                slf.as_any(),
                grad_tensor,
                retain_graph,
                create_graph,
                None,
                Some(inputs),
            );
        }
        // (the core tensor read out once: each read locks the object's cell)
        let root = slf.borrow().inner_gil(py).take();
        if !root.requires_grad() {
            if crate::python::dialect::caller_is_torch(py)? {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(
                    "element 0 of tensors does not require grad and does not have a grad_fn: \
                     nothing that requires grad was used to compute this tensor (set \
                     requires_grad=True on the inputs, and check no_grad blocks)",
                ));
            }
            // Paddle: a no-op (seed code relies on it); say so instead of failing silently
            pyo3::PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"backward() was called on a tensor that does not require grad (nothing that \
                  requires grad was used to compute it); no gradient was computed",
                1,
            )?;
            return Ok(());
        }
        let g = crate::python::autograd::backward::root_grad(py, &root, grad_tensor, 0)?;
        if create_graph {
            crate::python::autograd::anomaly::warn_backward_create_graph(py)?;
        }
        let opts = BackwardOptions {
            retain_graph: retain_graph.unwrap_or(create_graph),
            create_graph,
        };
        crate::python::autograd::saved_hooks::backward_releasing_packs(py, move || {
            engine::backward(&[root], vec![g], opts)
        })
        .py()
    }

    /// GC support: when this object is the only owner of its tensor and of the custom
    /// layer node that produced it, the node's ctx is reachable only through us, so we
    /// report it (cycles like `ctx.y = y` are then collectable). Shared owners report
    /// nothing, which keeps the GC's reference arithmetic exact.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        // SAFETY: a volatile read of a plain bool; zeroed (not yet initialised) memory
        // reads as false, and then no other field is touched.
        if !unsafe { std::ptr::read_volatile(&self.ready) } {
            return Ok(());
        }
        let Some(inner) = self.try_inner() else {
            return Ok(());
        };
        if inner.handle_count() != 1 {
            return Ok(());
        }
        let Some(meta) = inner.try_meta() else {
            return Ok(());
        };
        if let Some(node) = &meta.grad_fn {
            if std::sync::Arc::strong_count(node.arc()) == 1 {
                if let Some(layer) = node
                    .as_any()
                    .and_then(|a| a.downcast_ref::<crate::python::pylayer::apply::PyLayerNode>())
                {
                    visit.call(&layer.ctx)?;
                }
            }
        }
        Ok(())
    }
}
