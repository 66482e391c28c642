//! `grad(..., is_grads_batched=True)`: the first dimension of every `grad_output` is a
//! batch, and each returned gradient stacks the vector-Jacobian products of the batch's
//! samples along a new first dimension. PyTorch computes them in one vectorized pass
//! (vmap); ferrograd runs one backward pass per sample over the same graph (kept for all
//! but the last), so the values are the same and the cost is the batch size times one
//! pass. With `create_graph` the stacked result is differentiable.

use crate::autograd::engine::{self, BackwardOptions};
use crate::autograd::node::Edge;
use crate::error::{Error, Result};
use crate::python::autograd::grad_edges::grad_items;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::operand;
use crate::tensor::Tensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The batched gradients, one list per output (`batches[i][b]`: sample `b` of output
/// `i`'s gradient), checked against the outputs' shapes (`likes`) with PyTorch's words.
pub(crate) fn batched_grads(
    likes: &[&Tensor],
    grads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Vec<Tensor>>> {
    let items = grad_items(grads, likes.len())?;
    let mut batch: Option<(usize, usize)> = None; // (size, index of the output that set it)
    let mut out = Vec::with_capacity(likes.len());
    for (i, (like, g)) in likes.iter().zip(&items).enumerate() {
        let Some(g) = g.as_ref().filter(|g| !g.is_none()) else {
            return Err(PyRuntimeError::new_err(format!(
                "grad(is_grads_batched=True) needs a batch of gradients for every output, \
                 but grad_outputs[{i}] is None; pass a tensor whose first dimension is the \
                 batch and whose other dimensions are output[{i}]'s shape"
            )));
        };
        let g = operand(g, like.dtype())?;
        let shape = g.shape();
        if shape.is_empty() || shape[1..] != *like.shape() {
            return Err(PyRuntimeError::new_err(format!(
                "If `is_grads_batched=True`, we interpret the first dimension of each \
                 grad_output as the batch dimension. The sizes of the remaining dimensions \
                 are expected to match the shape of corresponding output, but a mismatch was \
                 detected: grad_output[{i}] has a shape of ferrograd.Size({:?}) and \
                 output[{i}] has a shape of ferrograd.Size({:?}). If you only want some \
                 tensors in `grad_output` to be considered batched, loop over the others \
                 yourself.",
                &shape[1.min(shape.len())..],
                like.shape()
            )));
        }
        let n = shape[0];
        match batch {
            None => batch = Some((n, i)),
            Some((m, j)) if m != n => {
                return Err(PyRuntimeError::new_err(format!(
                    "If `is_grads_batched=True`, every grad_output must have the same batch \
                     size (first dimension), but grad_output[{j}] has {m} and \
                     grad_output[{i}] has {n}"
                )))
            }
            Some(_) => {}
        }
        let g = g.cast_raw(like.dtype()).py()?;
        let samples = (0..n)
            .map(|b| g.select(0, b as isize))
            .collect::<Result<Vec<_>>>()
            .py()?;
        out.push(samples);
    }
    if batch.is_some_and(|(n, _)| n == 0) {
        return Err(PyRuntimeError::new_err(
            "grad(is_grads_batched=True): the batch of grad_outputs is empty (first dimension \
             0); pass at least one sample",
        ));
    }
    Ok(out)
}

/// One backward pass per sample (the graph kept for all but the last, unless the caller
/// asked to keep it), each input's gradients stacked along a new first dimension. An
/// input that no sample reaches stays `None`; a sample that does not reach an input
/// another sample reaches contributes zeros.
pub(crate) fn grad_batched(
    roots: Vec<Edge>,
    batches: Vec<Vec<Tensor>>,
    inputs: &[Edge],
    blocked: &[Tensor],
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let n = batches.first().map_or(0, Vec::len);
    let mut per_input: Vec<Vec<Option<Tensor>>> = vec![Vec::with_capacity(n); inputs.len()];
    for b in 0..n {
        let grads = batches.iter().map(|s| s[b].clone()).collect();
        let opts_b = BackwardOptions {
            retain_graph: opts.retain_graph || b + 1 < n,
            ..opts
        };
        let res = engine::grad_edges(roots.clone(), grads, inputs, blocked, opts_b)?;
        for (k, g) in res.into_iter().enumerate() {
            per_input[k].push(g);
        }
    }
    per_input
        .into_iter()
        .map(|samples| {
            let Some(first) = samples.iter().flatten().next().cloned() else {
                return Ok(None);
            };
            let samples = samples
                .into_iter()
                .map(|g| match g {
                    Some(g) => Ok(g),
                    None => first.zeros_like(),
                })
                .collect::<Result<Vec<_>>>()?;
            Tensor::stack(&samples, 0).map(Some)
        })
        .collect()
}

/// Zeros for an input `like` never reached (`materialize_grads`): its shape, with the
/// batch size first when the gradients are batched.
pub(crate) fn zeros_for(like: &Tensor, batch: Option<usize>) -> Result<Tensor> {
    let Some(n) = batch else {
        return like.zeros_like();
    };
    let mut shape = vec![n];
    shape.extend_from_slice(like.shape());
    crate::tensor::zeros(&shape, like.dtype())
        .map_err(|e| Error::runtime(format!("grad(is_grads_batched=True): {e}")))
}
