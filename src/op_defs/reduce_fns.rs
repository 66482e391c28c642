//! Helpers of the reduction table's entries
//! ([`for_each_reduce_op!`](crate::op_defs::reduce)): forward kernels that are more than one
//! raw call, gradient formulas too long for a cell, and the composites. Formulas and
//! composites are written with differentiable ops, so their own gradients (double
//! backward) come with them.

use crate::dtype::DType;
use crate::error::Result;
use crate::op_defs::ReduceSaved;
use crate::tensor::{BinaryOp, ReduceOp, Tensor, UnaryOp};

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

/// The mean's forward: the sum divided by the number of reduced elements (NaN for none),
/// in the input's (floating) dtype; float16/bfloat16 sum and divide in float32 and round
/// once, as PyTorch (rounding the sum first was off by up to an ulp).
pub fn mean_values(x: &Tensor, ax: &[usize], keepdim: bool) -> Result<Tensor> {
    let count: usize = ax.iter().map(|&a| x.shape()[a]).product();
    if matches!(x.dtype(), DType::F16 | DType::BF16) {
        return mean_values(&x.cast_raw(DType::F32)?, ax, keepdim)?.cast_raw(x.dtype());
    }
    let sum = x.reduce_raw(ReduceOp::Sum, ax, keepdim)?;
    // float sums are divided here: the `/` of the division op's kernel, without its
    // dispatch and broadcast planning (most of a small mean's cost)
    match sum.dtype() {
        DType::F32 => divided::<f32>(&sum, count),
        DType::F64 => divided::<f64>(&sum, count),
        _ => sum.binary_raw(&x.scalar_like(count as f64), BinaryOp::Div),
    }
}

/// A new tensor of `sum`'s elements each divided by `count` (rounded to `T`, as the
/// division op's scalar operand is).
fn divided<T: crate::dtype::Element + std::ops::Div<Output = T>>(
    sum: &Tensor,
    count: usize,
) -> Result<Tensor> {
    let c = T::from_f64(count as f64);
    let mut v = sum.to_vec::<T>()?;
    v.iter_mut().for_each(|a| *a = *a / c);
    Ok(Tensor::from_parts(
        std::sync::Arc::new(crate::storage::Storage::from_vec(v)),
        crate::layout::Layout::contiguous(sum.shape()),
    ))
}

/// `argmax`/`argmin` over the normalized axes of an [`AxesKind::One`] op: one axis, or all
/// of them (the flattened input).
///
/// [`AxesKind::One`]: crate::op_defs::AxesKind::One
pub fn arg_reduce(x: &Tensor, op: ReduceOp, ax: &[usize], keepdim: bool) -> Result<Tensor> {
    // a 1-d input reads the same flattened or along its axis
    let axis = match ax {
        [a] => Some(*a),
        _ => None,
    };
    x.arg_reduce_raw(op, axis, keepdim)
}

/// The number of non-zero elements over `ax`, int64.
pub fn count_nonzero(x: &Tensor, ax: &[usize], keepdim: bool) -> Result<Tensor> {
    x.binary_raw(&x.scalar_like(0.0), BinaryOp::Ne)?
        .reduce_raw(ReduceOp::Sum, ax, keepdim)
}

/// The gradient of `max`/`min`: `g` to the positions equal to the result, ties sharing it
/// evenly.
pub fn ties_share_grad(g: &Tensor, s: &ReduceSaved<'_>) -> Result<Tensor> {
    let (x, y) = (s.x()?, s.out()?);
    let y_full = s.unreduce(&y.detach())?;
    let mask = x.binary_raw(&y_full, BinaryOp::Eq)?.to_dtype(g.dtype())?;
    let count = mask.sum(Some(&s.axes_isize()), true)?;
    s.unreduce(g)?.mul(&mask)?.div(&count)
}

/// The gradient of `prod`, exact also where inputs are zero: `prod / x` without zeros,
/// the product of the others at a single zero, 0 elsewhere.
pub fn prod_grad(g: &Tensor, s: &ReduceSaved<'_>) -> Result<Tensor> {
    let x = s.x()?;
    let shape = s.shape;
    let ax_i = s.axes_isize();
    let zero_mask = x.binary_raw(&x.scalar_like(0.0), BinaryOp::Eq)?;
    let any_zero = zero_mask.all_any(None, false, false)?.item_f64()? != 0.0;
    if any_zero && crate::autograd::is_grad_enabled() {
        // create_graph with zeros in the input: the product of the others, built so
        // that its own derivatives are exact too
        let local = prod_of_others(x, s.axes)?;
        return s.unreduce(g)?.mul_conj(&local);
    }
    let zeros = zero_mask.to_dtype(DType::I64)?.sum(Some(&ax_i), true)?;
    let safe = Tensor::where_(&zero_mask, &x.ones_like()?, x)?;
    let p_nonzero = safe.prod(Some(&ax_i), true)?.expand(shape)?;
    let zeros = zeros.expand(shape)?;
    // no zero: prod/x; one zero: prod of the others at that position; more: 0
    let regular = p_nonzero.div(&safe)?;
    let one_zero = zeros.binary_raw(&zeros.scalar_like(1.0), BinaryOp::Eq)?;
    let at_zero = Tensor::where_(&one_zero, &p_nonzero, &p_nonzero.zeros_like()?)?;
    let none_zero = zeros.binary_raw(&zeros.scalar_like(0.0), BinaryOp::Eq)?;
    let local = Tensor::where_(
        &zero_mask,
        &at_zero,
        &Tensor::where_(&none_zero, &regular, &regular.zeros_like()?)?,
    )?;
    s.unreduce(g)?.mul_conj(&local)
}

/// For every element of `x`, the product over `axes` of all the other elements (exact at
/// zeros and differentiable to any order): one row per element with that element replaced
/// by 1, reduced by `prod`. Costs `n` times the memory of the reduced block.
fn prod_of_others(x: &Tensor, axes: &[usize]) -> Result<Tensor> {
    let nd = x.ndim();
    let kept: Vec<usize> = (0..nd).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<isize> = kept
        .iter()
        .chain(axes.iter())
        .map(|&d| d as isize)
        .collect();
    let n: usize = axes.iter().map(|&d| x.shape()[d]).product();
    let mut flat: Vec<isize> = kept.iter().map(|&d| x.shape()[d] as isize).collect();
    let mut permuted_shape = flat.clone();
    permuted_shape.extend(axes.iter().map(|&d| x.shape()[d] as isize));
    flat.push(n as isize);
    let xf = x.permute(&perm)?.reshape(&flat)?; // [kept..., n]
    let eye = crate::tensor::eye(n, n, DType::Bool)?;
    let rows = Tensor::where_(&eye, &xf.scalar_like(1.0), &xf.unsqueeze(-2)?)?; // [kept..., n, n]
    let others = rows.prod(Some(&[-1]), false)?.reshape(&permuted_shape)?;
    let mut inv = vec![0isize; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as isize;
    }
    others.permute(&inv)
}
