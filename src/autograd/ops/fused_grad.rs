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
use crate::kernels::elementwise::{map_binary, zip_assign};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use std::sync::Arc;

/// The gradient of `tanh`, `sigmoid` or `relu` from the incoming gradient `g` and the
/// op's output `y`: in one pass when possible ([`activation_grad`]), else composed of
/// differentiable ops (so a recorded graph can differentiate it again).
pub(super) fn activation_backward(op: UnaryOp, g: &Tensor, y: &Tensor) -> Result<Tensor> {
    if let Some(grad) = activation_grad(op, g, y)? {
        return Ok(grad);
    }
    composed_activation_grad(op, g, y)
}

/// `g * f'(x)` for `tanh`, `sigmoid` and `relu` written with differentiable tensor ops,
/// from the output `y = f(x)`.
pub(super) fn composed_activation_grad(op: UnaryOp, g: &Tensor, y: &Tensor) -> Result<Tensor> {
    match op {
        UnaryOp::Tanh => g.mul_conj(&y.mul(y)?.rsub_scalar(1.0)?),
        UnaryOp::Sigmoid => g.mul_conj(&y.mul(&y.rsub_scalar(1.0)?)?),
        UnaryOp::Relu => g.mul(
            &y.binary_raw(&y.scalar_like(0.0), BinaryOp::Gt)?
                .to_dtype(g.dtype())?,
        ),
        other => Err(crate::error::Error::runtime(format!(
            "internal: no activation gradient for {}",
            other.name()
        ))),
    }
}

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
    let f = move |g: T, y: T| match op {
        UnaryOp::Tanh => g * (one - y * y),
        UnaryOp::Sigmoid => g * (y * (one - y)),
        // the composed form multiplies by a 0/1 mask (so 0 * inf gives NaN there too)
        _ => g * if y > zero { one } else { zero },
    };
    let (gl, yl, shape) = (g.layout(), y.layout(), g.shape());
    // The incoming gradient is usually a buffer nobody else can see (the engine's own):
    // then the result overwrites it, and backward holds one activation-sized buffer less.
    let private = g.handle_count() == 1
        && Arc::strong_count(g.storage()) == 1
        && !g.storage().is_alias() // (its memory is also its root's)
        && gl.is_contiguous()
        && g.storage().len() == g.numel()
        && g.storage().is_writable();
    if private {
        let ys = y.storage().read::<T>();
        let mut gs = g.storage().write::<T>()?;
        zip_assign(&mut gs, gl, &ys, yl, f)?;
        drop(gs);
        return Ok(g.clone());
    }
    let gs = g.storage().read::<T>();
    let ys = y.storage().read::<T>();
    let v = map_binary(&gs, gl, &ys, yl, shape, f)?;
    Ok(Tensor::from_parts(
        Arc::new(Storage::from_vec(v)),
        Layout::contiguous(shape),
    ))
}
