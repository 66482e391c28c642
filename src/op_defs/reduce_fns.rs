//! Helpers of the composite reductions in the table
//! ([`for_each_reduce_op!`](crate::op_defs::reduce)), written with differentiable ops so
//! their gradients (and double backward) come from the ops they are made of.

use crate::error::Result;
use crate::tensor::{Tensor, UnaryOp};

/// `x` with every NaN replaced by zero (`x` itself for integer and bool tensors, which
/// hold no NaN). The gradient flows to the non-NaN positions only.
pub fn nan_to_zero(x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_differentiable() {
        return Ok(x.clone());
    }
    let nan = x.unary(UnaryOp::IsNan)?;
    Tensor::where_(&nan, &x.scalar_like(0.0), x)
}

/// The mean of the non-NaN elements over `axes` (NaN where every element is NaN, as 0/0);
/// integers give the default float.
pub fn nanmean(x: &Tensor, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
    let x = if x.dtype().is_differentiable() {
        x.clone()
    } else {
        x.to_dtype(crate::dtype::default_float())?
    };
    let kept = x.unary(UnaryOp::IsNan)?.unary(UnaryOp::LogicalNot)?;
    let count = kept.to_dtype(x.dtype())?.sum(axes, keepdim)?;
    nan_to_zero(&x)?.sum(axes, keepdim)?.div(&count)
}
