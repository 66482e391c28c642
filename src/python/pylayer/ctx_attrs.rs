//! Attributes of a custom layer's ctx that hold the layer's own outputs (`ctx.y = y`).
//!
//! Stored as is, such an attribute closes a reference cycle the collector cannot see
//! whole: ctx → output tensor → its node → ctx. When the node is also referenced by the
//! next layer's node (any chain of layers), the output tensor is not the node's only
//! owner, so it cannot report the ctx during GC traversal without over-counting; each
//! collection then frees only the last layer of a chain. So, once forward has returned
//! and the outputs are bound to the node, such attributes move out of the instance
//! `__dict__` into the ctx's Rust state as data plus a *weak* link to the node (the way
//! saved outputs are held), and reading the attribute rebuilds the tensor: same memory,
//! same place in the graph. No cycle is ever formed.
//!
//! Reading such an attribute needs a `__getattr__` fallback, but a type with one loses
//! CPython's generic attribute lookup (`tp_getattro`) for every `ctx.xxx` and with it the
//! interpreter's method-call shortcut (no bound method object per `ctx.save_for_backward`):
//! about 1.1k instructions per custom-layer step. So `FunctionCtx` has none; a ctx that
//! gets such an attribute is switched (`__class__`) to `_FunctionCtxWithOutputs`
//! (`ferrograd.autograd.py_layer`), a slot-less subclass named `FunctionCtx` too whose
//! `__getattr__` / `__setattr__` / `__delattr__` call [`_ctx_output_attribute`] and
//! [`_ctx_forget_output_attribute`].

use super::ctx::PyCtx;
use super::output_attribute::OutputAttribute;
use crate::autograd::node::Node;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};
use std::sync::Weak;

/// Moves every ctx attribute that is one of `outputs` (tensor, output index) out of the
/// instance `__dict__` into weakly linked storage (see the module docs).
pub(crate) fn weaken_output_attributes(
    ctx: &Bound<'_, PyCtx>,
    outputs: &[(Tensor, usize)],
    node: &Weak<dyn Node>,
) -> PyResult<()> {
    if outputs.is_empty() {
        return Ok(());
    }
    let Some(dict) = instance_dict(ctx) else {
        return Ok(());
    };
    let mut moved = Vec::new();
    for (key, value) in dict.iter() {
        let (Ok(name), Ok(t)) = (key.extract::<String>(), value.cast::<PyTensor>()) else {
            continue;
        };
        let t = &t.get().inner();
        if let Some((_, nr)) = outputs.iter().find(|(o, _)| o.same(t)) {
            moved.push((
                key.clone(),
                OutputAttribute {
                    name,
                    data: t.detach(),
                    version: t.version(),
                    node: node.clone(),
                    output_nr: *nr,
                },
            ));
        }
    }
    if moved.is_empty() {
        return Ok(());
    }
    let mut attrs = Vec::with_capacity(moved.len());
    for (key, attr) in moved {
        dict.del_item(key)?;
        attrs.push(attr);
    }
    ctx.get().state.lock().output_attrs.extend(attrs);
    // the ctx `apply` made is exactly `FunctionCtx`: give it the reading fallback
    let py = ctx.py();
    if ctx.get_type().is(py.get_type::<PyCtx>()) {
        static WITH_OUTPUTS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let cls = WITH_OUTPUTS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py
                .import("ferrograd.autograd.py_layer")?
                .getattr("_FunctionCtxWithOutputs")?
                .unbind())
        })?;
        ctx.setattr(pyo3::intern!(py, "__class__"), cls.bind(py))?;
    }
    Ok(())
}

/// The ctx's instance `__dict__`, or `None` when no attribute was ever set. Reading the
/// `__dict__` attribute would create an empty dict on every `apply` of the usual layer
/// that sets no attribute, so the dict slot is read directly (at the type's
/// `__dictoffset__`, the same for every ctx `apply` makes: they are all exactly
/// `FunctionCtx`); any other layout falls back to the attribute.
fn instance_dict<'py>(ctx: &Bound<'py, PyCtx>) -> Option<Bound<'py, PyDict>> {
    static OFFSET: PyOnceLock<isize> = PyOnceLock::new();
    let py = ctx.py();
    let ty = py.get_type::<PyCtx>();
    let offset = *OFFSET.get_or_init(py, || {
        ty.getattr(pyo3::intern!(py, "__dictoffset__"))
            .and_then(|o| o.extract::<isize>())
            .unwrap_or(0)
    });
    if offset <= 0 || !ctx.get_type().is(&ty) {
        let dict = ctx.getattr(pyo3::intern!(py, "__dict__")).ok()?;
        return dict.cast_into::<PyDict>().ok();
    }
    // SAFETY: for an object of exactly this type, a positive `tp_dictoffset` is the
    // offset of its `PyObject *` dict slot inside the live object (null until the dict
    // is created); the pointer read is borrowed and turned into a new reference.
    unsafe {
        let slot = ctx
            .as_ptr()
            .cast::<u8>()
            .offset(offset)
            .cast::<*mut pyo3::ffi::PyObject>();
        let d = *slot;
        if d.is_null() {
            return None;
        }
        Bound::from_borrowed_ptr(py, d).cast_into::<PyDict>().ok()
    }
}

/// `_FunctionCtxWithOutputs.__getattr__`: reads an attribute that holds one of the
/// layer's outputs (only reached when normal lookup finds nothing).
#[pyfunction]
pub fn _ctx_output_attribute(
    ctx: &Bound<'_, PyCtx>,
    name: &Bound<'_, PyString>,
) -> PyResult<Py<PyAny>> {
    let key = name.to_cow()?;
    let rebuilt = {
        let st = ctx.get().state.lock();
        st.output_attrs
            .iter()
            .find(|a| a.name == key)
            .map(|a| a.rebuild(&st.name))
    };
    match rebuilt {
        Some(t) => Ok(wrap(ctx.py(), t?)?.into_any()),
        None => Err(PyAttributeError::new_err(format!(
            "'{}' object has no attribute '{key}'",
            ctx.get_type().name()?
        ))),
    }
}

/// `_FunctionCtxWithOutputs.__setattr__` / `__delattr__`: drops the weakly held output
/// attribute `name` (a new value replaces it); true if there was one.
#[pyfunction]
pub fn _ctx_forget_output_attribute(
    ctx: &Bound<'_, PyCtx>,
    name: &Bound<'_, PyString>,
) -> PyResult<bool> {
    let key = name.to_cow()?;
    let mut st = ctx.get().state.lock();
    let before = st.output_attrs.len();
    st.output_attrs.retain(|a| a.name != *key);
    Ok(st.output_attrs.len() != before)
}
