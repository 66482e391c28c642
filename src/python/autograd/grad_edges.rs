//! PyTorch's `GradientEdge`s among the `outputs` / `inputs` of `grad()` and `backward()`,
//! and `_gradient_edge(t)`: the node and output number a tensor's gradient flows along
//! (`torch.autograd.graph.get_gradient_edge`).
//!
//! `GradientEdge` itself is a Python `NamedTuple` (`ferrograd.autograd.graph`), as in
//! PyTorch. The shape and dtype of the gradient along an edge (for a default gradient and
//! the shape check) come from the node's record of its outputs, or the leaf itself, so a
//! backward from an edge does not need the tensor it came from alive.

use crate::autograd::engine;
use crate::autograd::node::Edge;
use crate::python::autograd::dropin::grad_argument_error;
use crate::python::autograd::node::{node_object, PyAccumulateGrad, PyNode};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::PyTensor;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// One output or input of `grad()` / `backward()`.
pub(crate) enum Item {
    /// A tensor.
    Tensor(Tensor),
    /// A `GradientEdge`, with a tensor of the shape and dtype of the gradient along it.
    Edge {
        /// Where the gradient flows.
        edge: Edge,
        /// Shape and dtype of that gradient (a zero-stride view, or the leaf itself).
        like: Tensor,
    },
}

impl Item {
    /// A tensor of the gradient's shape and dtype (the tensor itself for a tensor).
    pub(crate) fn like(&self) -> &Tensor {
        match self {
            Item::Tensor(t) => t,
            Item::Edge { like, .. } => like,
        }
    }

    /// The edge a root's gradient is seeded into (root `i`).
    pub(crate) fn root_edge(&self, i: usize) -> PyResult<Edge> {
        match self {
            Item::Tensor(t) => engine::root_edge(t, i).py(),
            Item::Edge { edge, .. } => Ok(edge.clone()),
        }
    }

    /// The edge whose gradient `grad()` returns for input `k`.
    pub(crate) fn input_edge(&self, k: usize) -> PyResult<Edge> {
        match self {
            Item::Tensor(t) => engine::input_edge(t, k, "grad()").py(),
            Item::Edge { edge, .. } => Ok(edge.clone()),
        }
    }
}

static GRADIENT_EDGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `ferrograd.autograd.graph.GradientEdge`, imported once.
fn gradient_edge_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    GRADIENT_EDGE.import(py, "ferrograd.autograd.graph", "GradientEdge")
}

/// The item `x`: a Tensor, or a `GradientEdge`; `None` for anything else.
fn item(x: &Bound<'_, PyAny>) -> PyResult<Option<Item>> {
    if let Ok(t) = x.cast::<PyTensor>() {
        return Ok(Some(Item::Tensor(t.get().inner().take())));
    }
    if !x.is_instance(gradient_edge_type(x.py())?)? {
        return Ok(None);
    }
    let node = x.get_item(0)?;
    let output_nr: usize = x.get_item(1)?.extract()?;
    if let Ok(acc) = node.cast::<PyAccumulateGrad>() {
        if output_nr != 0 {
            return Err(PyRuntimeError::new_err(format!(
                "GradientEdge(AccumulateGrad, {output_nr}): an AccumulateGrad node has one \
                 input, number 0"
            )));
        }
        // the edge names the accumulator it was taken from (the tensor's leaf key then):
        // after `x.set_(y)` it is not `x`'s new one; the gradient's shape is `x`'s now
        let leaf = acc.get().variable.clone();
        let like = leaf.current();
        return Ok(Some(Item::Edge {
            edge: Edge::Leaf(leaf),
            like,
        }));
    }
    let Ok(node) = node.cast::<PyNode>() else {
        return Err(PyTypeError::new_err(format!(
            "GradientEdge.node must be a graph node (a grad_fn or an AccumulateGrad), got {}",
            node.get_type().name()?
        )));
    };
    let node = node.get().node.clone();
    if output_nr >= node.num_outputs() {
        return Err(PyRuntimeError::new_err(format!(
            "GradientEdge({}, {output_nr}): the node has {} output(s)",
            node.name(),
            node.num_outputs()
        )));
    }
    // a zero-stride view of one zero: the shape and dtype, no memory
    let like = match node.output_meta(output_nr) {
        Some(m) => crate::tensor::zeros(&[], m.dtype)
            .and_then(|z| z.expand(&m.shape))
            .py()?,
        None => {
            return Err(PyRuntimeError::new_err(format!(
                "GradientEdge({}, {output_nr}): this node does not record the shape of its \
                 outputs, so a gradient along the edge cannot be made or checked; pass the \
                 tensor itself",
                node.name()
            )))
        }
    };
    Ok(Some(Item::Edge {
        edge: Edge::Node {
            node,
            input_nr: output_nr,
        },
        like,
    }))
}

/// Reads a Tensor, a `GradientEdge`, or a sequence or other iterable of them (`what` names
/// the argument).
pub(crate) fn items(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Item>> {
    if let Some(it) = item(obj)? {
        return Ok(vec![it]);
    }
    // a list or tuple, or any other iterable (PyTorch takes a generator for `inputs`)
    if let Ok(iter) = obj.try_iter() {
        let mut out = Vec::new();
        for (i, x) in iter.enumerate() {
            let x = x?;
            match item(&x)? {
                Some(it) => out.push(it),
                None => {
                    return Err(grad_argument_error(format!(
                        "{what}[{i}] must be a Tensor (or a GradientEdge), got {}",
                        x.get_type().name()?
                    )))
                }
            }
        }
        return Ok(out);
    }
    Err(grad_argument_error(format!(
        "{what} must be a Tensor or a sequence of Tensors, got {}",
        obj.get_type().name()?
    )))
}

/// The `inputs` of `backward()`: each one's gradient edge and the tensor whose `.grad`
/// receives its gradient (a `GradientEdge` into a leaf: the leaf; into a graph node:
/// none, so the pass stops there and drops the gradient, as PyTorch does).
pub(crate) fn backward_inputs(items: Vec<Item>) -> PyResult<Vec<(Edge, Option<Tensor>)>> {
    let mut out = Vec::with_capacity(items.len());
    for (k, it) in items.into_iter().enumerate() {
        out.push(match it {
            Item::Tensor(t) => (
                engine::input_edge(&t, k, "backward(inputs=)").py()?,
                Some(t),
            ),
            Item::Edge {
                edge: Edge::Leaf(l),
                ..
            } => (Edge::Leaf(l.clone()), Some(l)),
            Item::Edge { edge, .. } => (edge, None),
        });
    }
    Ok(out)
}

/// `(node, output_nr)` of `t`'s gradient edge: its `grad_fn` and output number, or its
/// `AccumulateGrad` node and 0 for a leaf that requires grad.
#[pyfunction]
pub fn _gradient_edge(py: Python<'_>, t: &Bound<'_, PyTensor>) -> PyResult<(Py<PyAny>, usize)> {
    match t.get().inner().take().gradient_edge() {
        Edge::Node { node, input_nr } => Ok((node_object(py, node)?, input_nr)),
        Edge::Leaf(l) => Ok((Py::new(py, PyAccumulateGrad { variable: l })?.into_any(), 0)),
        Edge::None => Err(PyRuntimeError::new_err(
            "It is not possible to get the gradient edge for a Tensor that does not require \
             gradients (set requires_grad=True / stop_gradient=False first)",
        )),
    }
}

/// The per-root gradient arguments: one per root (None where not given).
pub(crate) fn grad_items<'py>(
    grads: Option<&Bound<'py, PyAny>>,
    n: usize,
) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    let items: Vec<Option<Bound<'_, PyAny>>> = match grads {
        None => vec![None; n],
        Some(g) if g.is_none() => vec![None; n],
        Some(g) if g.cast::<PyTensor>().is_ok() => vec![Some(g.clone())],
        Some(g) => g
            .try_iter()?
            .map(|x| x.map(Some))
            .collect::<PyResult<_>>()?,
    };
    if items.len() != n {
        return Err(grad_argument_error(format!(
            "got {} gradients for {} outputs; pass one gradient (or None) per output",
            items.len(),
            n
        )));
    }
    Ok(items)
}
