//! `logsumexp`, `softmax` and `log_softmax`, each recorded as ONE node.
//!
//! Composed of primitive ops (max, subtract, exp, sum, log), each of these would record
//! five nodes and save three or four intermediate tensors for backward. As single nodes
//! they save what PyTorch's do — the output (softmax, log_softmax) or the input and the
//! output (logsumexp) — and their backward formulas are written with differentiable ops,
//! so higher-order gradients still work.

use super::fused_nn::{tensor_of, with_slice};
use super::saved;
use crate::autograd::{is_grad_enabled, GradModeGuard, Recorder};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::fused_nn::NnFloat;
use crate::kernels::softmax::{self as kernel, Rows};
use crate::tensor::reduce::reduced_shape;
use crate::tensor::{BinaryOp, ReduceOp, Tensor};
use smallvec::smallvec;

/// Integer and bool inputs compute in float32 (as PyTorch does).
fn floating(t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_differentiable() {
        Ok(t.clone())
    } else {
        t.to_dtype(crate::dtype::default_float())
    }
}

/// The rows of `x` along `d` when the fused kernel ([`crate::kernels::softmax`]) takes
/// it: a contiguous, non-empty float32/float64 tensor. Its results are bit-identical to
/// the composed ops, which run otherwise.
fn fused_rows(x: &Tensor, d: usize) -> Option<Rows> {
    let ok = matches!(x.dtype(), DType::F32 | DType::F64) && x.is_contiguous() && x.numel() > 0;
    let s = x.shape();
    ok.then(|| Rows {
        outer: s[..d].iter().product(),
        n: s[d],
        inner: s[d + 1..].iter().product(),
    })
}

/// Softmax (`log`: log-softmax) of `x` by the fused kernel; `None` where it does not apply.
fn fused_forward(x: &Tensor, d: usize, log: bool) -> Result<Option<Tensor>> {
    fn run<T: NnFloat>(x: &Tensor, r: Rows, log: bool) -> Result<Tensor> {
        let v = with_slice(x, |s: &[T]| kernel::forward(s, r, log))??;
        Ok(tensor_of(v, x.shape()))
    }
    let Some(r) = fused_rows(x, d) else {
        return Ok(None);
    };
    match x.dtype() {
        DType::F32 => run::<f32>(x, r, log).map(Some),
        _ => run::<f64>(x, r, log).map(Some),
    }
}

/// The input gradient by the fused kernel when nothing is recorded and `g` and the output
/// `y` are contiguous and of one float type; `None` otherwise (the composed formula runs).
fn fused_backward(g: &Tensor, y: &Tensor, d: usize, log: bool) -> Result<Option<Tensor>> {
    fn run<T: NnFloat>(g: &Tensor, y: &Tensor, r: Rows, log: bool) -> Result<Tensor> {
        let v = with_slice(g, |gs: &[T]| {
            with_slice(y, |ys: &[T]| kernel::backward(gs, ys, r, log))
        })???;
        Ok(tensor_of(v, y.shape()))
    }
    let Some(r) = fused_rows(y, d) else {
        return Ok(None);
    };
    if is_grad_enabled() || g.dtype() != y.dtype() || !g.is_contiguous() || g.shape() != y.shape() {
        return Ok(None);
    }
    match y.dtype() {
        DType::F32 => run::<f32>(g, y, r, log).map(Some),
        _ => run::<f64>(g, y, r, log).map(Some),
    }
}

/// `x - max(x)` over `axes`, without recording: the shift that keeps `exp` from
/// overflowing. With `mask`, the max is kept 0 where it is not finite (logsumexp's rule);
/// without, a row holding +inf or only -inf becomes NaN throughout, as PyTorch's CPU
/// softmax / log_softmax kernels (SoftMaxKernel.cpp) give.
fn shifted(x: &Tensor, axes: &[usize], mask: bool) -> Result<(Tensor, Tensor)> {
    let _no_grad = GradModeGuard::new(false);
    let x = x.detach();
    let m = x.reduce_raw(ReduceOp::Max, axes, true)?;
    if !mask {
        return Ok((x.sub(&m)?, m));
    }
    // rows that are all -inf (or hold inf/NaN) keep m = 0 so the result is -inf/inf/NaN
    // as the plain formula gives, never NaN from inf - inf
    let finite = m.binary_raw(&m, BinaryOp::Eq)?.binary_raw(
        &m.unary_raw(crate::tensor::UnaryOp::Abs)?
            .binary_raw(&m.scalar_like(f64::INFINITY), BinaryOp::Ne)?,
        BinaryOp::LogicalAnd,
    )?;
    let m = Tensor::where_raw(&finite, &m, &m.zeros_like()?)?;
    Ok((x.sub(&m)?, m))
}

/// `log(sum(exp(x)))` over `axes` with the reduced dims kept, computed stably and without
/// recording anything.
fn logsumexp_keepdim_values(x: &Tensor, axes: &[usize]) -> Result<Tensor> {
    let (z, m) = shifted(x, axes, true)?;
    let _no_grad = GradModeGuard::new(false);
    let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
    z.exp()?.sum(Some(&ax), true)?.log()?.add(&m)
}

impl Tensor {
    /// `log(sum(exp(x)))` over the normalized `axes` of a floating tensor, computed
    /// stably and recording nothing: the `logsumexp` kernel of the reduction table
    /// (`src/op_defs/reduce.rs`, which declares its gradient).
    pub(crate) fn logsumexp_raw(&self, axes: &[usize], keepdim: bool) -> Result<Tensor> {
        let kept = if self.numel() == 0 {
            // nothing to shift by (the max over a zero-size dim has no identity)
            let _no_grad = GradModeGuard::new(false);
            self.detach()
                .exp()?
                .reduce_raw(ReduceOp::Sum, axes, true)?
                .log()?
        } else {
            logsumexp_keepdim_values(self, axes)?
        };
        if keepdim {
            Ok(kept)
        } else {
            kept.reshape_raw(&reduced_shape(self.shape(), axes, false))
        }
    }

    /// Log-softmax along `axis`.
    pub fn log_softmax(&self, axis: isize) -> Result<Tensor> {
        let d = crate::layout::normalize_dim(axis, self.ndim(), "log_softmax")?;
        if self.ndim() == 0 {
            // a 0-d tensor is one row of one element (as in PyTorch)
            return self.reshape(&[1])?.log_softmax(0)?.reshape(&[]);
        }
        let x = floating(self)?;
        // (x - m) - log(sum(exp(x - m))): subtracting a rounded m + log(...) of a large m
        // would cost the result its low bits
        let out = if x.numel() == 0 {
            // nothing to normalise (the max over a zero-size dim has no identity)
            x.detach().zeros_like()?
        } else if let Some(out) = fused_forward(&x, d, true)? {
            out
        } else {
            let (z, _) = shifted(&x, &[d], false)?;
            let _no_grad = GradModeGuard::new(false);
            z.sub(&z.exp()?.sum(Some(&[d as isize]), true)?.log()?)?
        };
        let Some(mut rec) = Recorder::begin(&[&x]) else {
            return Ok(out);
        };
        rec.save_output();
        rec.finish("LogSoftmaxBackward", &out, move |g, s, _| {
            let y = saved(s, 0, "LogSoftmaxBackward")?;
            if let Some(gx) = fused_backward(g, y, d, true)? {
                return Ok(smallvec![Some(gx)]);
            }
            // g - softmax(x) * sum(g)
            let total = g.sum(Some(&[d as isize]), true)?;
            Ok(smallvec![Some(g.sub(&y.exp()?.mul(&total)?)?)])
        })?;
        Ok(out)
    }

    /// Softmax along `axis`.
    pub fn softmax(&self, axis: isize) -> Result<Tensor> {
        let d = crate::layout::normalize_dim(axis, self.ndim(), "softmax")?;
        if self.ndim() == 0 {
            return self.reshape(&[1])?.softmax(0)?.reshape(&[]);
        }
        let x = floating(self)?;
        // exp(x - m) / sum(exp(x - m)): normalising through exp(x - logsumexp) would round
        // the large logsumexp first (sums then missed 1 by ~3e-5 in float32 near 1000)
        let out = if x.numel() == 0 {
            // nothing to normalise (the max over a zero-size dim has no identity)
            x.detach().zeros_like()?
        } else {
            // float16/bfloat16 run in float32 and round once, as PyTorch's CPU kernel
            let half = matches!(x.dtype(), DType::F16 | DType::BF16);
            let wide = if half {
                x.detach().cast_raw(DType::F32)?
            } else {
                x.clone()
            };
            if let Some(out) = fused_forward(&wide, d, false)? {
                out.cast_raw(x.dtype())?
            } else {
                let (z, _) = shifted(&wide, &[d], false)?;
                let _no_grad = GradModeGuard::new(false);
                let e = z.exp()?;
                e.div(&e.sum(Some(&[d as isize]), true)?)?
                    .cast_raw(x.dtype())?
            }
        };
        let Some(mut rec) = Recorder::begin(&[&x]) else {
            return Ok(out);
        };
        rec.save_output();
        rec.finish("SoftmaxBackward", &out, move |g, s, _| {
            let y = saved(s, 0, "SoftmaxBackward")?;
            if let Some(gx) = fused_backward(g, y, d, false)? {
                return Ok(smallvec![Some(gx)]);
            }
            // y * (g - sum(g * y))
            let dot = g.mul(y)?.sum(Some(&[d as isize]), true)?;
            Ok(smallvec![Some(y.mul(&g.sub(&dot)?)?)])
        })?;
        Ok(out)
    }
}
