//! Hooks on a node itself, PyTorch's `grad_fn.register_prehook(fn)` (`fn(grad_outputs)`)
//! and `grad_fn.register_hook(fn)` (`fn(grad_inputs, grad_outputs)`): each gets tuples of
//! Tensors (None where there is no gradient) and may return a tuple of replacements.
//! Paddle's `grad_fn._register_post_hook` is the latter. A leaf's `AccumulateGrad` node
//! (`next_functions`) has both too; its hooks live on the leaf.

use crate::autograd::node::{NodeHooks, NodePostHook, NodePreHook};
use crate::error::{Error, Result};
use crate::python::autograd::node::{PyAccumulateGrad, PyHookHandle, PyNode};
use crate::python::errors::from_pyerr;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// `grads` as a Python tuple of Tensors / None.
fn grads_tuple<'py>(py: Python<'py>, grads: &[Option<Tensor>]) -> PyResult<Bound<'py, PyTuple>> {
    let items: Vec<Py<PyAny>> = grads
        .iter()
        .map(|g| match g {
            Some(g) => wrap(py, g.clone()).map(|t| t.into_any()),
            None => Ok(py.None()),
        })
        .collect::<PyResult<_>>()?;
    PyTuple::new(py, items)
}

/// What a node hook returned: None (keep), or a sequence of Tensors / None.
fn hook_result(r: &Bound<'_, PyAny>) -> Result<Option<Vec<Option<Tensor>>>> {
    if r.is_none() {
        return Ok(None);
    }
    let bad = || {
        Error::type_err(format!(
            "a node hook must return None or a tuple of Tensors (None where there is no \
             gradient), but returned {}",
            r.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    };
    let items = r.try_iter().map_err(|_| bad())?;
    let mut out = Vec::new();
    for item in items {
        let item = item.map_err(from_pyerr)?;
        if item.is_none() {
            out.push(None);
        } else {
            out.push(Some(
                item.cast::<PyTensor>()
                    .map_err(|_| bad())?
                    .get()
                    .inner()
                    .clone(),
            ));
        }
    }
    Ok(Some(out))
}

/// `hook(grad_outputs)` as a node pre-hook.
fn python_pre_hook(hook: Py<PyAny>) -> NodePreHook {
    Arc::new(move |grads: &[Option<Tensor>]| {
        Python::attach(|py| {
            let arg = grads_tuple(py, grads).map_err(from_pyerr)?;
            let r = hook.call1(py, (arg,)).map_err(from_pyerr)?;
            hook_result(r.bind(py))
        })
    })
}

/// `hook(grad_inputs, grad_outputs)` as a node post-hook.
fn python_post_hook(hook: Py<PyAny>) -> NodePostHook {
    Arc::new(
        move |grad_inputs: &[Option<Tensor>], grad_outputs: &[Option<Tensor>]| {
            Python::attach(|py| {
                let gi = grads_tuple(py, grad_inputs).map_err(from_pyerr)?;
                let go = grads_tuple(py, grad_outputs).map_err(from_pyerr)?;
                let r = hook.call1(py, (gi, go)).map_err(from_pyerr)?;
                hook_result(r.bind(py))
            })
        },
    )
}

#[pymethods]
impl PyNode {
    /// Registers `hook(grad_outputs)`, run before this node's backward with the
    /// gradients flowing into it; returning a tuple replaces them. Returns a handle
    /// whose `remove()` unregisters it.
    fn register_prehook(&self, hook: Py<PyAny>) -> PyHookHandle {
        let id = crate::autograd::retain::next_retain_id();
        let mut slot = self.node.base().node_hooks();
        slot.get_or_insert_with(|| Box::new(NodeHooks::default()))
            .pre
            .push((id, python_pre_hook(hook)));
        PyHookHandle::on_node_hooks(self.node.clone(), id)
    }

    /// Registers `hook(grad_inputs, grad_outputs)`, run after this node's backward with
    /// the gradients it computed for its inputs and those that flowed in; returning a
    /// tuple replaces the computed ones. Returns a handle whose `remove()` unregisters it.
    fn register_hook(&self, hook: Py<PyAny>) -> PyHookHandle {
        let id = crate::autograd::retain::next_retain_id();
        let mut slot = self.node.base().node_hooks();
        slot.get_or_insert_with(|| Box::new(NodeHooks::default()))
            .post
            .push((id, python_post_hook(hook)));
        PyHookHandle::on_node_hooks(self.node.clone(), id)
    }

    /// Paddle's spelling of [`register_hook`](Self::register_hook) (`hook(outputs,
    /// inputs)`: the gradients this node computed, then those that flowed in).
    fn _register_post_hook(&self, hook: Py<PyAny>) -> PyHookHandle {
        self.register_hook(hook)
    }
}

#[pymethods]
impl PyAccumulateGrad {
    /// Registers `hook(grad_outputs)`, run when a backward pass reaches this leaf, after
    /// the tensor's own hooks and before the gradient is accumulated into `.grad`;
    /// returning a one-element tuple replaces the gradient. Returns a handle whose
    /// `remove()` unregisters it. (`grad()` does not run it: it accumulates nothing.)
    fn register_prehook(&self, hook: Py<PyAny>) -> PyHookHandle {
        let id = crate::autograd::retain::next_retain_id();
        let leaf = self.variable.current();
        leaf.meta()
            .acc_hooks
            .get_or_insert_with(|| Box::new(NodeHooks::default()))
            .pre
            .push((id, python_pre_hook(hook)));
        PyHookHandle::on_accumulate_grad(leaf, id)
    }

    /// Registers `hook(grad_inputs, grad_outputs)`, run after the gradient was
    /// accumulated into `.grad` and the tensor's post-accumulate-grad hooks ran:
    /// `grad_inputs` is `()` (the node has no inputs), `grad_outputs` the gradient that
    /// flowed in (the very `.grad` tensor when `.grad` was unset before). Returns a handle
    /// whose `remove()` unregisters it.
    fn register_hook(&self, hook: Py<PyAny>) -> PyHookHandle {
        let id = crate::autograd::retain::next_retain_id();
        let leaf = self.variable.current();
        leaf.meta()
            .acc_hooks
            .get_or_insert_with(|| Box::new(NodeHooks::default()))
            .post
            .push((id, python_post_hook(hook)));
        PyHookHandle::on_accumulate_grad(leaf, id)
    }
}
