//! `backward`, `grad`, and thread-local grad mode, as module functions.

use crate::autograd::engine::{self, BackwardOptions};
use crate::autograd::node::Edge;
use crate::python::autograd::dropin::grad_argument_error;
use crate::python::autograd::grad_batched::{batched_grads, grad_batched, zeros_for};
use crate::python::autograd::grad_edges::{backward_inputs, grad_items, items, Item};
use crate::python::errors::IntoPy;
use crate::python::interop::convert::operand;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The gradient to seed root `t` with: ones when `g` is None (for any shape, as Paddle
/// does; PyTorch code gets PyTorch's error for a root with more than one element), else
/// `g` converted, shape-checked against `t`, and cast to `t`'s dtype.
pub fn root_grad(
    py: Python<'_>,
    t: &Tensor,
    g: Option<&Bound<'_, PyAny>>,
    index: usize,
) -> PyResult<Tensor> {
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
            let (gd, od) = (g.dtype(), t.dtype());
            if gd != od && (gd.is_complex() || od.is_complex()) {
                // a cast would drop the imaginary part (or invent one): refused, as in
                // PyTorch
                return Err(PyRuntimeError::new_err(format!(
                    "For complex Tensors, both grad_output and output are required to have \
                     the same dtype: grad_output[{index}] has dtype {gd} and output[{index}] \
                     has dtype {od}."
                )));
            }
            g.cast_raw(od).py()
        }
        _ => {
            if t.numel() != 1 && crate::python::dialect::caller_is_torch(py)? {
                return Err(PyRuntimeError::new_err(format!(
                    "grad can be implicitly created only for scalar outputs: output[{index}] \
                     has shape {:?}; pass its gradient (y.backward(gradient) or grad_outputs=), \
                     or reduce it first (y.sum().backward())",
                    t.shape()
                )));
            }
            t.ones_like().py()
        }
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

/// Reads the optional per-root gradients (`likes`: each root's shape and dtype).
fn root_grads(
    py: Python<'_>,
    likes: &[&Tensor],
    grads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Tensor>> {
    let items = grad_items(grads, likes.len())?;
    likes
        .iter()
        .zip(&items)
        .enumerate()
        .map(|(i, (r, g))| root_grad(py, r, g.as_ref(), i))
        .collect()
}

/// The edges of the roots of a pass.
fn root_edges(outputs: &[Item]) -> PyResult<Vec<Edge>> {
    (outputs.iter().enumerate())
        .map(|(i, o)| o.root_edge(i))
        .collect()
}

/// The roots of a pass: their edges and their gradients.
fn roots_and_grads(
    py: Python<'_>,
    outputs: &[Item],
    grads: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<Edge>, Vec<Tensor>)> {
    // the arguments' checks first, then whether the roots require grad (Paddle's tests
    // expect the argument error for a bad gradient list)
    let likes: Vec<&Tensor> = outputs.iter().map(Item::like).collect();
    let grads = root_grads(py, &likes, grads)?;
    Ok((root_edges(outputs)?, grads))
}

/// Accumulates gradients of `tensors` into the leaves' `.grad` (with `inputs`: into those
/// tensors' `.grad` only). `tensors` and `inputs` may hold `GradientEdge`s; `inputs` may
/// be any iterable; `grad_variables` is PyTorch's old name of `grad_tensors`. Native, so
/// that the caller's dialect (a non-scalar root without a gradient) is the user's module.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false, grad_variables=None, inputs=None))]
pub fn backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    grad_variables: Option<&Bound<'_, PyAny>>,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let grad_tensors = grad_variables.filter(|g| !g.is_none()).or(grad_tensors);
    let (roots, grads) = roots_and_grads(py, &items(tensors, "tensors")?, grad_tensors)?;
    let inputs = match inputs.filter(|i| !i.is_none()) {
        None => None,
        Some(i) => {
            let ins = backward_inputs(items(i, "inputs")?)?;
            if ins.is_empty() {
                return Err(PyRuntimeError::new_err(
                    "backward(): the 'inputs' argument cannot be empty",
                ));
            }
            Some(ins)
        }
    };
    if create_graph {
        crate::python::autograd::anomaly::warn_backward_create_graph(py)?;
    }
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
    };
    super::saved_hooks::backward_releasing_packs(py, move || {
        engine::backward_edges(roots, grads, inputs.as_deref(), opts)
    })
    .py()
}

/// With `create_graph`, a returned gradient that does not depend on the graph (a
/// constant, the seed itself) comes back as a new leaf that requires grad in Paddle code
/// (`stop_gradient=False`, Paddle's answer) and as it is in PyTorch code (PyTorch's
/// `requires_grad=False`: it is a constant); a materialized zero (`materialize`) is such
/// a leaf for both, as in PyTorch. The user's own tensors are never modified.
fn differentiable(
    py: Python<'_>,
    g: Tensor,
    create_graph: bool,
    materialize: bool,
) -> PyResult<Tensor> {
    if !create_graph || g.requires_grad() || !g.dtype().is_differentiable() {
        return Ok(g);
    }
    if !materialize && crate::python::dialect::caller_is_torch(py)? {
        return Ok(g);
    }
    let leaf = g.detach();
    leaf.set_requires_grad(true).py()?;
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
    let _ = only_inputs; // deprecated in torch; gradients only ever go to `inputs`
    if materialize_grads && allow_unused == Some(false) {
        return Err(PyValueError::new_err(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: \
             allow_unused=False.",
        ));
    }
    let allow_unused = allow_unused.unwrap_or(materialize_grads);
    let outs = items(outputs, "outputs")?;
    let ins = items(inputs, "inputs")?;
    if ins.is_empty() {
        return Err(PyValueError::new_err(
            "grad requires non-empty inputs. (Pass the tensors to differentiate with respect to.)",
        ));
    }
    let blocked = match no_grad_vars {
        Some(v) if !v.is_none() => tensor_list(v, "no_grad_vars")?,
        _ => Vec::new(),
    };
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
    };
    let input_edges = || -> PyResult<Vec<Edge>> {
        (ins.iter().enumerate())
            .map(|(k, x)| x.input_edge(k))
            .collect()
    };
    let (res, batch) = if is_grads_batched {
        let likes: Vec<&Tensor> = outs.iter().map(Item::like).collect();
        let batches = batched_grads(&likes, grad_outputs)?;
        let n = batches.first().map_or(0, Vec::len);
        let roots = root_edges(&outs)?;
        let in_edges = input_edges()?;
        let res = super::saved_hooks::backward_releasing_packs(py, move || {
            grad_batched(roots, batches, &in_edges, &blocked, opts)
        })
        .py()?;
        (res, Some(n))
    } else {
        let (roots, grads) = roots_and_grads(py, &outs, grad_outputs)?;
        let in_edges = input_edges()?;
        let res = super::saved_hooks::backward_releasing_packs(py, move || {
            engine::grad_edges(roots, grads, &in_edges, &blocked, opts)
        })
        .py()?;
        (res, None)
    };
    let mut out: Vec<Option<Py<PyTensor>>> = Vec::with_capacity(res.len());
    for (i, (g, x)) in res.into_iter().zip(&ins).enumerate() {
        match g {
            Some(g) => out.push(Some(wrap(py, differentiable(py, g, create_graph, false)?)?)),
            // as in PyTorch, a zero is not made for a `GradientEdge` input
            None if materialize_grads && matches!(x, Item::Edge { .. }) => {
                return Err(PyRuntimeError::new_err(format!(
                    "materialize_grads cannot be used when the given input is a GradientEdge \
                     (input {i} is one, and the outputs do not depend on it)"
                )));
            }
            None if materialize_grads => out.push(Some(wrap(
                py,
                differentiable(py, zeros_for(x.like(), batch).py()?, create_graph, true)?,
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
