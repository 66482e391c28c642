//! `backward`, `grad`, and thread-local grad mode, as module functions.

use crate::autograd::engine::{self, BackwardOptions};
use crate::python::autograd::dropin::grad_argument_error;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::operand;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The gradient to seed root `t` with: ones when `g` is None (for any shape, as Paddle
/// does), else `g` converted, shape-checked against `t`, and cast to `t`'s dtype.
pub fn root_grad(t: &Tensor, g: Option<&Bound<'_, PyAny>>, index: usize) -> PyResult<Tensor> {
    match g {
        Some(g) if !g.is_none() => {
            let g = operand(g, t.dtype())?;
            if g.shape() != t.shape() {
                return Err(PyRuntimeError::new_err(format!(
                    "Mismatch in shape: grad_output[{index}] has a shape of ferrograd.Size({:?}) \
                     and output[{index}] has a shape of ferrograd.Size({:?}).",
                    g.shape(),
                    t.shape()
                )));
            }
            g.cast_raw(t.dtype()).py()
        }
        _ => t.ones_like().py(),
    }
}

/// Reads a Tensor or a sequence of Tensors.
fn tensor_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Tensor>> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(vec![t.get().inner().take()]);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return obj
            .try_iter()?
            .enumerate()
            .map(|(i, x)| {
                let x = x?;
                x.cast::<PyTensor>()
                    .map(|t| t.get().inner().take())
                    .map_err(|_| {
                        grad_argument_error(format!(
                            "{what}[{i}] must be a Tensor, got {}",
                            x.get_type()
                                .name()
                                .map(|n| n.to_string())
                                .unwrap_or_default()
                        ))
                    })
            })
            .collect();
    }
    Err(grad_argument_error(format!(
        "{what} must be a Tensor or a sequence of Tensors, got {}",
        obj.get_type().name()?
    )))
}

/// Reads the optional per-root gradients.
fn root_grads(
    py: Python<'_>,
    roots: &[Tensor],
    grads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Tensor>> {
    let items: Vec<Option<Bound<'_, PyAny>>> = match grads {
        None => vec![None; roots.len()],
        Some(g) if g.is_none() => vec![None; roots.len()],
        Some(g) if g.cast::<PyTensor>().is_ok() => vec![Some(g.clone())],
        Some(g) => g
            .try_iter()?
            .map(|x| x.map(Some))
            .collect::<PyResult<_>>()?,
    };
    if items.len() != roots.len() {
        return Err(grad_argument_error(format!(
            "got {} gradients for {} outputs; pass one gradient (or None) per output",
            items.len(),
            roots.len()
        )));
    }
    let _ = py;
    roots
        .iter()
        .zip(&items)
        .enumerate()
        .map(|(i, (r, g))| root_grad(r, g.as_ref(), i))
        .collect()
}

/// Accumulates gradients of `tensors` into the leaves' `.grad`.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false))]
pub fn backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
) -> PyResult<()> {
    let roots = tensor_list(tensors, "tensors")?;
    let grads = root_grads(py, &roots, grad_tensors)?;
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
    };
    py.detach(move || engine::backward(&roots, grads, opts))
        .py()
}

/// With `create_graph`, a returned gradient can always be differentiated again: one
/// that does not depend on the graph (a constant, a materialized zero, the seed itself)
/// comes back as a new leaf that requires grad (Paddle: `stop_gradient=False`; PyTorch
/// needs it for the materialized zeros). The user's own tensors are never modified.
fn differentiable(g: Tensor, create_graph: bool) -> crate::error::Result<Tensor> {
    if !create_graph || g.requires_grad() || !g.dtype().is_differentiable() {
        return Ok(g);
    }
    let leaf = g.detach();
    leaf.set_requires_grad(true)?;
    Ok(leaf)
}

/// Gradients of `outputs` with respect to `inputs`, returned without touching `.grad`.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false,
                    only_inputs=true, allow_unused=None, no_grad_vars=None, materialize_grads=false,
                    is_grads_batched=false))]
#[allow(clippy::too_many_arguments)]
pub fn grad<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    only_inputs: bool,
    allow_unused: Option<bool>,
    no_grad_vars: Option<&Bound<'py, PyAny>>,
    materialize_grads: bool,
    is_grads_batched: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if is_grads_batched {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(
            "grad(is_grads_batched=True) is not supported; loop over the batch of grad_outputs",
        ));
    }
    let _ = only_inputs; // deprecated in torch; gradients only ever go to `inputs`
    if materialize_grads && allow_unused == Some(false) {
        return Err(PyValueError::new_err(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: \
             allow_unused=False.",
        ));
    }
    let allow_unused = allow_unused.unwrap_or(materialize_grads);
    let roots = tensor_list(outputs, "outputs")?;
    let ins = tensor_list(inputs, "inputs")?;
    if ins.is_empty() {
        return Err(PyValueError::new_err(
            "grad requires non-empty inputs. (Pass the tensors to differentiate with respect to.)",
        ));
    }
    let blocked = match no_grad_vars {
        Some(v) if !v.is_none() => tensor_list(v, "no_grad_vars")?,
        _ => Vec::new(),
    };
    let grads = root_grads(py, &roots, grad_outputs)?;
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
    };
    let ins2 = ins.clone();
    let res = py
        .detach(move || engine::grad_blocking(&roots, grads, &ins2, &blocked, opts))
        .py()?;
    let mut out: Vec<Option<Py<PyTensor>>> = Vec::with_capacity(res.len());
    for (i, (g, x)) in res.into_iter().zip(&ins).enumerate() {
        match g {
            Some(g) => out.push(Some(wrap(py, differentiable(g, create_graph).py()?)?)),
            None if materialize_grads => out.push(Some(wrap(
                py,
                differentiable(x.zeros_like().py()?, create_graph).py()?,
            )?)),
            None if allow_unused => out.push(None),
            None => {
                // Paddle raises ValueError here, PyTorch RuntimeError: one class for both
                return Err(crate::python::errors::usage_error(format!(
                    "The differentiated Tensor at index {i} appears to not have been used in the \
                     graph (or its gradient is None). Set allow_unused=True if this is the \
                     desired behavior."
                )));
            }
        }
    }
    Ok(PyTuple::new(py, out)?.into_any())
}

/// True when ops on this thread record history.
#[pyfunction]
pub fn is_grad_enabled() -> bool {
    crate::autograd::is_grad_enabled()
}

/// Sets this thread's grad mode; returns the previous mode.
#[pyfunction]
pub fn _set_grad_enabled(mode: bool) -> bool {
    crate::autograd::set_grad_enabled(mode)
}

/// True inside `inference_mode()` on this thread.
#[pyfunction]
pub fn is_inference_mode_enabled() -> bool {
    crate::autograd::grad_mode::is_inference_mode()
}

/// Whether `t` is an inference tensor: its memory was allocated inside `inference_mode()`
/// (views of it are inference tensors too). Autograd treats inference tensors as constants.
#[pyfunction]
pub fn is_inference(t: &Bound<'_, PyTensor>) -> bool {
    t.borrow().inner().is_inference()
}

/// Sets inference mode (also switching grad mode off); returns `(prev_inference, prev_grad)`.
#[pyfunction]
pub fn _set_inference_mode(mode: bool) -> (bool, bool) {
    crate::autograd::grad_mode::set_inference_mode(mode)
}

/// Restores what `_set_inference_mode` returned.
#[pyfunction]
pub fn _restore_inference_mode(prev_inference: bool, prev_grad: bool) {
    crate::autograd::grad_mode::set_inference_mode(prev_inference);
    crate::autograd::set_grad_enabled(prev_grad);
}
