//! Reductions, softmax and friends with their gradients.

use super::saved;
use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::reduce::{normalize_axes, reduced_shape};
use crate::tensor::{BinaryOp, ReduceOp, Tensor};
use smallvec::smallvec;

/// Brings a reduced gradient back to `input_shape` (a broadcast view; no copy).
fn unreduce(g: &Tensor, input_shape: &[usize], axes: &[usize], keepdim: bool) -> Result<Tensor> {
    let kept = reduced_shape(input_shape, axes, true);
    let g = if keepdim {
        g.clone()
    } else {
        g.reshape(&kept.iter().map(|&d| d as isize).collect::<Vec<_>>())?
    };
    g.expand(input_shape)
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

impl Tensor {
    /// Sum over `axes` (None = all).
    pub fn sum(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), "sum")?;
        let out = self.reduce_raw(ReduceOp::Sum, &ax, keepdim)?;
        if let Some(rec) = Recorder::begin(&[self]) {
            let shape = self.shape_vec();
            rec.finish("SumBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(unreduce(g, &shape, &ax, keepdim)?)])
            })?;
        }
        Ok(out)
    }

    /// Mean over `axes` (None = all); integer input gives the default float.
    pub fn mean(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), "mean")?;
        let count: usize = ax.iter().map(|&a| self.shape()[a]).product();
        let x = if self.dtype().is_differentiable() {
            self.clone()
        } else {
            self.to_dtype(crate::dtype::default_float())?
        };
        x.sum(axes, keepdim)?
            .binary_with_scalar(&x.scalar_like(count as f64), BinaryOp::Div, false)
    }

    /// Reduces `self` to `shape` by summing broadcast dimensions (inverse of expand).
    pub fn sum_to(&self, shape: &[usize]) -> Result<Tensor> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let lead = self.ndim().checked_sub(shape.len()).ok_or_else(|| {
            Error::value(format!(
                "sum_to: cannot reduce shape {:?} to {shape:?}",
                self.shape()
            ))
        })?;
        let mut axes: Vec<isize> = (0..lead as isize).collect();
        for (i, &d) in shape.iter().enumerate() {
            if d == 1 && self.shape()[lead + i] != 1 {
                axes.push((lead + i) as isize);
            }
        }
        let s = self.sum(Some(&axes), true)?;
        s.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
    }

    /// Product over `axes`; the gradient is exact also where inputs are zero.
    pub fn prod(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), "prod")?;
        let out = self.reduce_raw(ReduceOp::Prod, &ax, keepdim)?;
        if let Some(mut rec) = Recorder::begin(&[self]) {
            rec.save(self);
            rec.finish("ProdBackward", &out, move |g, s, _| {
                let x = saved(s, 0, "ProdBackward")?;
                let shape = x.shape_vec();
                let ax_i: Vec<isize> = ax.iter().map(|&a| a as isize).collect();
                let zero_mask = x.binary_raw(&x.scalar_like(0.0), BinaryOp::Eq)?;
                let any_zero = zero_mask.all_any(None, false, false)?.item_f64()? != 0.0;
                if any_zero && crate::autograd::is_grad_enabled() {
                    // create_graph with zeros in the input: the product of the others,
                    // built so that its own derivatives are exact too
                    let local = prod_of_others(x, &ax)?;
                    return Ok(smallvec![Some(
                        unreduce(g, &shape, &ax, keepdim)?.mul_conj(&local)?
                    )]);
                }
                let zeros = zero_mask.to_dtype(DType::I64)?.sum(Some(&ax_i), true)?;
                let safe = Tensor::where_(&zero_mask, &x.ones_like()?, x)?;
                let p_nonzero = safe.prod(Some(&ax_i), true)?.expand(&shape)?;
                let zeros = zeros.expand(&shape)?;
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
                Ok(smallvec![Some(
                    unreduce(g, &shape, &ax, keepdim)?.mul_conj(&local)?
                )])
            })?;
        }
        Ok(out)
    }

    /// Max (`is_max`) or min over `axes`; ties share the gradient evenly.
    pub fn amax_amin(&self, axes: Option<&[isize]>, keepdim: bool, is_max: bool) -> Result<Tensor> {
        let op = if is_max { ReduceOp::Max } else { ReduceOp::Min };
        let name = if is_max { "MaxBackward" } else { "MinBackward" };
        let ax = normalize_axes(axes, self.ndim(), if is_max { "max" } else { "min" })?;
        let out = self.reduce_raw(op, &ax, keepdim)?;
        if let Some(mut rec) = Recorder::begin(&[self]) {
            rec.save(self);
            rec.save_output();
            rec.finish(name, &out, move |g, s, _| {
                let (x, y) = (saved(s, 0, name)?, saved(s, 1, name)?);
                let shape = x.shape_vec();
                let ax_i: Vec<isize> = ax.iter().map(|&a| a as isize).collect();
                let y_full = unreduce(&y.detach(), &shape, &ax, keepdim)?;
                let mask = x.binary_raw(&y_full, BinaryOp::Eq)?.to_dtype(g.dtype())?;
                let count = mask.sum(Some(&ax_i), true)?;
                let gx = unreduce(g, &shape, &ax, keepdim)?.mul(&mask)?.div(&count)?;
                Ok(smallvec![Some(gx)])
            })?;
        }
        Ok(out)
    }

    /// Variance over `axes` with `correction` (1 = unbiased, like torch's default).
    pub fn var(&self, axes: Option<&[isize]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), "var")?;
        let n: usize = ax.iter().map(|&a| self.shape()[a]).product();
        let x = if self.dtype().is_differentiable() {
            self.clone()
        } else {
            self.to_dtype(crate::dtype::default_float())?
        };
        let centered = x.sub(&x.mean(axes, true)?)?;
        // one saved tensor (square saves its input once; centered * centered saves it twice)
        let sq = centered.unary(crate::tensor::UnaryOp::Square)?;
        let divisor = x.scalar_like((n as f64 - correction).max(0.0));
        sq.sum(axes, keepdim)?
            .binary_with_scalar(&divisor, BinaryOp::Div, false)
    }

    /// Standard deviation over `axes` with `correction`.
    pub fn std(&self, axes: Option<&[isize]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        normalize_axes(axes, self.ndim(), "std")?;
        self.var(axes, correction, keepdim)?
            .unary(crate::tensor::UnaryOp::Sqrt)
    }

    /// Index of the max / min along `axis` (None = flattened), int64.
    pub fn argmax_argmin(
        &self,
        axis: Option<isize>,
        keepdim: bool,
        is_max: bool,
    ) -> Result<Tensor> {
        let op = if is_max {
            ReduceOp::ArgMax
        } else {
            ReduceOp::ArgMin
        };
        let ax = match axis {
            Some(a) => Some(crate::layout::normalize_dim(
                a,
                self.ndim(),
                if is_max { "argmax" } else { "argmin" },
            )?),
            None => None,
        };
        let ax = if self.ndim() == 0 { None } else { ax };
        self.arg_reduce_raw(op, ax, keepdim)
    }

    /// All / Any (`is_all`) over `axes`.
    pub fn all_any(&self, axes: Option<&[isize]>, keepdim: bool, is_all: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), if is_all { "all" } else { "any" })?;
        self.logical_reduce_raw(
            if is_all { ReduceOp::All } else { ReduceOp::Any },
            &ax,
            keepdim,
        )
    }
}
