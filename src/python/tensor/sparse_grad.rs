//! A sparse `.grad` on a dense tensor (PyTorch's `p.grad = sparse_coo_tensor(...)`, and
//! what a sparse gradient accumulates into). Sparse tensors are Python objects
//! (`ferrograd.sparse`), so the core keeps such a gradient as an opaque handle
//! ([`crate::tensor::AutogradMeta::ext_grad`]) with the dense slot empty and a flag set:
//! every reader of the dense slot (the engine's accumulation, the Rust optimizer steps,
//! `zero_grad`, `clear_grad`) checks the flag and comes here, or refuses, instead of
//! taking the empty slot for "no gradient". The checks and arithmetic live in
//! `ferrograd/sparse/_grad.py`; only this rare path takes the GIL inside a backward pass.
//!
//! A sparse gradient flowing through a pass (`nn.Embedding(sparse=True)`) is a dense
//! gradient tensor that carries its sparse form in its own `ext_grad` slot: anything that
//! transforms it (a sum with another gradient, a hook's replacement, a cast) makes a plain
//! dense tensor with the right values, and one that reaches a leaf unchanged is stored in
//! its sparse form.

//
//! This module names nothing else of `tensor/` (the callers hand it the Python objects), so
//! the `.grad` accessors (`identity.rs`), `clear_grad` (`class.rs`) and the engine's
//! accumulation callback (`identity.rs`, which can wrap core tensors) may all call it.

use crate::tensor::Tensor;
use pyo3::prelude::*;
use std::sync::Arc;

/// The Python helpers' module.
pub(crate) fn helpers(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("ferrograd.sparse._grad")
}

/// The sparse gradient object of `t`, if its `.grad` is one.
pub(crate) fn ext_grad_object(py: Python<'_>, t: &Tensor) -> Option<Py<PyAny>> {
    let e = t.ext_grad()?;
    e.downcast_ref::<Py<PyAny>>().map(|o| o.clone_ref(py))
}

/// `t.grad = value` for a value that is not a dense Tensor (`param` is `t`'s Python
/// object): the Python side checks it (a sparse tensor of `t`'s shape and dtype, in
/// PyTorch code) or raises.
pub(crate) fn set_sparse_grad(
    param: &Bound<'_, PyAny>,
    t: &Tensor,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let py = value.py();
    helpers(py)?.call_method1("_check_assign", (param, value))?;
    t.set_ext_grad(Some(Arc::new(value.clone().unbind())));
    Ok(())
}

/// Zeros a sparse `.grad` in place (`zero_grad(set_to_none=False)`, `clear_grad()`).
pub(crate) fn zero_ext_grad(py: Python<'_>, t: &Tensor) -> PyResult<()> {
    if let Some(g) = ext_grad_object(py, t) {
        g.call_method0(py, "zero_")?;
    }
    Ok(())
}

/// `t.backward(gradient)` with a `gradient` that is not a dense Tensor: a sparse one
/// into a leaf is accumulated as it is (PyTorch keeps a sparse `.grad` sparse); into a
/// non-leaf (or with `backward(inputs=)`, `!into_leaf`) it continues densified. Returns
/// `None` when handled, else the gradient to use (the value itself when not sparse).
/// `slf` is the Python object of `t`.
pub(crate) fn sparse_root<'py>(
    slf: &Bound<'py, PyAny>,
    t: &Tensor,
    gradient: &Bound<'py, PyAny>,
    create_graph: bool,
    into_leaf: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = slf.py();
    let hooked = {
        let m = t.meta();
        !(m.hooks.is_empty() && m.post_accumulate_hooks.is_empty() && m.acc_hooks.is_none())
    };
    let leaf = into_leaf && t.is_leaf() && t.requires_grad();
    let r = helpers(py)?.call_method1(
        "_sparse_backward",
        (slf, gradient, create_graph, leaf, hooked),
    )?;
    Ok(if r.is_none() { None } else { Some(r) })
}
