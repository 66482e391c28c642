//! Validation of what a node's backward returns, as PyTorch's engine separates
//! `validate_outputs`: the number of gradients, each one's shape (summed back when it
//! broadcasts to the input's) and dtype.

use crate::autograd::node::{Edge, NodeRef};
use crate::autograd::pass_targets::Blocked;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Checks and fixes one gradient returned by `node` for its input `i` (shape via sum-to,
/// dtype via cast unless `cast` is false: the receiving node asked for gradients as
/// computed); errors name the node.
fn validate_grad(node: &NodeRef, i: usize, g: Tensor, cast: bool) -> Result<Tensor> {
    let meta = &node.base().inputs[i];
    let mut g = g;
    if g.shape() != meta.shape.as_slice() {
        let compatible = crate::layout::broadcast_shapes(g.shape(), &meta.shape, "")
            .map(|s| s.as_slice() == g.shape())
            .unwrap_or(false);
        if !compatible {
            return Err(Error::runtime(format!(
                "{} returned an invalid gradient at index {i} - got {:?} but expected shape \
                 compatible with {:?} (the shape of forward input {i})",
                node.name(),
                g.shape(),
                meta.shape.as_slice()
            )));
        }
        g = g.sum_to(&meta.shape)?;
    }
    // a gradient for an integer / bool input (the output of a Paddle PyLayer, which stays
    // differentiable) keeps its floating dtype: casting it would truncate it
    if cast && g.dtype() != meta.dtype && meta.dtype.is_differentiable() {
        g = g.to_dtype(meta.dtype)?;
    }
    Ok(g)
}

/// Checks what a node's backward returned: one gradient per input edge, each of a shape
/// that sums to its input's (then summed) and cast to its dtype. Gradients for edges that
/// lead nowhere or are blocked become `None`.
pub(crate) fn validate_outputs(
    node: &NodeRef,
    outputs: Vec<Option<Tensor>>,
    blocked: &Blocked,
) -> Result<Vec<Option<Tensor>>> {
    let edges = &node.base().edges;
    if outputs.len() != edges.len() {
        return Err(Error::usage(format!(
            "{} returned an incorrect number of gradients (expected {}, got {})",
            node.name(),
            edges.len(),
            outputs.len()
        )));
    }
    // fixed in place: no second vector per node
    let mut outputs = outputs;
    for (k, (e, slot)) in edges.iter().zip(outputs.iter_mut()).enumerate() {
        let Some(g) = slot.take() else { continue };
        if blocked.blocks(e) {
            continue;
        }
        *slot = match e {
            Edge::None => None,
            Edge::Node { node: c, .. } => {
                Some(validate_grad(node, k, g, c.casts_incoming_grads())?)
            }
            Edge::Leaf(_) => Some(validate_grad(node, k, g, true)?),
        };
    }
    Ok(outputs)
}
