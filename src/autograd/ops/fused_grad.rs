//! One-pass gradients of the activations whose derivative is a function of their output.
//!
//! Written with tensor ops, `tanh`'s backward `g * (1 - y*y)` allocates three
//! activation-sized buffers (`y*y`, `1 - y*y`, the product); in a deep network those
//! temporaries are most of backward's memory. When no graph is being recorded
//! (`create_graph=False`, the usual case) nothing needs the intermediate tensors, so the
//! same arithmetic runs in one pass into one buffer. The operations and their order are
//! those of the composed formula, so both paths give bit-identical gradients; with
//! `create_graph=True` the composed, differentiable formula runs instead.

use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernels::elementwise::map_binary;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::{Tensor, UnaryOp};
use std::sync::Arc;

/// `g * f'(x)` computed from the output `y` in one pass, or `None` when the composed
/// formula must run (a graph is being recorded, another op, or dtypes/shapes that are not
/// a plain float32/float64 elementwise pair).
pub(super) fn activation_grad(op: UnaryOp, g: &Tensor, y: &Tensor) -> Result<Option<Tensor>> {
    if crate::autograd::is_grad_enabled()
        || !matches!(op, UnaryOp::Tanh | UnaryOp::Sigmoid | UnaryOp::Relu)
        || g.dtype() != y.dtype()
        || g.shape() != y.shape()
    {
        return Ok(None);
    }
    match y.dtype() {
        DType::F32 => run::<f32>(op, g, y).map(Some),
        DType::F64 => run::<f64>(op, g, y).map(Some),
        _ => Ok(None),
    }
}

fn run<T: Element + num_traits::Float + Send + Sync>(
    op: UnaryOp,
    g: &Tensor,
    y: &Tensor,
) -> Result<Tensor> {
    let (one, zero) = (<T as Element>::one(), <T as Element>::zero());
    let gs = g.storage().read::<T>();
    let ys = y.storage().read::<T>();
    let (gl, yl, shape) = (g.layout(), y.layout(), g.shape());
    let v = match op {
        UnaryOp::Tanh => map_binary(&gs, gl, &ys, yl, shape, |g, y| g * (one - y * y))?,
        UnaryOp::Sigmoid => map_binary(&gs, gl, &ys, yl, shape, |g, y| g * (y * (one - y)))?,
        // the composed form multiplies by a 0/1 mask (so 0 * inf gives NaN there too)
        _ => map_binary(&gs, gl, &ys, yl, shape, |g, y| {
            g * if y > zero { one } else { zero }
        })?,
    };
    Ok(Tensor::from_parts(
        Arc::new(Storage::from_vec(v)),
        Layout::contiguous(shape),
    ))
}
