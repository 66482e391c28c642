//! `cross_entropy` and `nll_loss` with class-index targets as ONE op and one graph node
//! (composed they were 10–20 ops: log-softmax, gather, masks, weights, reductions).
//!
//! The forward runs [`crate::kernels::class_loss`] and reduces its per-position values
//! with the fold of the `sum` op, so values match the composition bit for bit on
//! contiguous class rows. It saves the logits and two numbers per position (the shift and
//! the log of the sum of exponentials), never the log-probabilities. The weight and the
//! targets are constants (Python composes the loss when the weight requires a gradient).

use super::fused_nn::{float_only, tensor_of, with_slice};
use super::saved;
use crate::autograd::{is_grad_enabled, Recorder};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::class_loss::{class_loss_backward, class_loss_forward, ClassLossSpec};
use crate::kernels::fused_nn::NnFloat;
use crate::kernels::reduce::sum_run;
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

/// How a loss reduces its per-position values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// One value per position.
    None,
    /// The weighted mean: the sum divided by the summed weights of the counted targets.
    Mean,
    /// The sum.
    Sum,
}

/// What a class-index loss computes besides its input and targets.
#[derive(Clone, Copy, Debug)]
pub struct ClassLossOpts {
    /// Targets equal to this count for nothing.
    pub ignore_index: i64,
    /// How the per-position losses are reduced.
    pub reduction: Reduction,
    /// Label smoothing in `[0, 1]`.
    pub smoothing: f64,
    /// Log-softmax the input first (`cross_entropy`); else it is log-probabilities.
    pub log_softmax: bool,
}

/// The shape facts of a class loss over `x` (`[N, C, ...]` or `[C]`).
struct Dims {
    outer: usize,
    classes: usize,
    inner: usize,
    class_dim: usize,
}

fn dims(x: &Tensor, target: &Tensor, what: &str) -> Result<Dims> {
    if x.ndim() == 0 {
        return Err(Error::value(format!(
            "{what}: input must have a class dimension"
        )));
    }
    let cd = usize::from(x.ndim() > 1);
    let mut expect = x.shape().to_vec();
    expect.remove(cd);
    if target.shape() != expect.as_slice() {
        return Err(Error::value(format!(
            "{what}: target shape {:?} does not fit input shape {:?} (expected the input's \
             shape without its class dim {cd})",
            target.shape(),
            x.shape()
        )));
    }
    Ok(Dims {
        outer: x.shape()[..cd].iter().product(),
        classes: x.shape()[cd],
        inner: x.shape()[cd + 1..].iter().product(),
        class_dim: cd,
    })
}

/// Everything backward needs besides the saved logits.
struct Ctx {
    dims: Dims,
    targets: Vec<i64>,
    weight: Option<Tensor>,
    opts: ClassLossOpts,
    /// The summed weights of the counted targets (mean's divisor).
    denom: f64,
    what: &'static str,
}

impl Ctx {
    fn spec<'a, T: NnFloat>(&'a self, weight: Option<&'a [T]>) -> ClassLossSpec<'a, T> {
        ClassLossSpec {
            outer: self.dims.outer,
            classes: self.dims.classes,
            inner: self.dims.inner,
            targets: &self.targets,
            weight,
            ignore_index: self.opts.ignore_index,
            smoothing: self.opts.smoothing,
            log_softmax: self.opts.log_softmax,
            what: self.what,
        }
    }
}

/// Forward in `T`: the loss tensor and the saved shift / log-sum tensors.
fn forward<T: NnFloat>(
    x: &Tensor,
    ctx: &mut Ctx,
    out_shape: &[usize],
) -> Result<(Tensor, Tensor, Tensor)> {
    let wv = ctx.weight.as_ref().map(|w| w.to_vec::<T>()).transpose()?;
    let r = with_slice::<T, _>(x, |xs| class_loss_forward(xs, &ctx.spec(wv.as_deref())))??;
    let e = ctx.opts.smoothing;
    let (keep, smooth) = (T::from_f64(1.0 - e), T::from_f64(e));
    let denom = sum_run(&r.w);
    ctx.denom = denom.to_f64();
    let out = match ctx.opts.reduction {
        Reduction::None if e > 0.0 => {
            let v = r.nll.iter().zip(&r.smooth);
            tensor_of(v.map(|(&a, &b)| a * keep + b * smooth).collect(), out_shape)
        }
        Reduction::None => tensor_of(r.nll, out_shape),
        red => {
            let div = |s: T| if red == Reduction::Mean { s / denom } else { s };
            let mut v = div(sum_run(&r.nll));
            if e > 0.0 {
                v = v * keep + div(sum_run(&r.smooth)) * smooth;
            }
            tensor_of(vec![v], &[])
        }
    };
    let n = [r.shift.len()];
    Ok((out, tensor_of(r.shift, &n), tensor_of(r.log_sum, &n)))
}

/// The per-position factor of the loss's gradient: `g`, `g` broadcast, or `g / denom`.
fn gscale<T: NnFloat>(g: &Tensor, ctx: &Ctx) -> Result<Vec<T>> {
    let n = ctx.targets.len();
    let gv = g.to_vec::<T>()?;
    Ok(match ctx.opts.reduction {
        Reduction::None => gv,
        Reduction::Sum => vec![gv[0]; n],
        Reduction::Mean => vec![gv[0] / T::from_f64(ctx.denom); n],
    })
}

fn backward_fast<T: NnFloat>(
    g: &Tensor,
    x: &Tensor,
    sh: &Tensor,
    ls: &Tensor,
    ctx: &Ctx,
) -> Result<Tensor> {
    let wv = ctx.weight.as_ref().map(|w| w.to_vec::<T>()).transpose()?;
    let (shv, lsv) = (sh.to_vec::<T>()?, ls.to_vec::<T>()?);
    let gs = gscale::<T>(g, ctx)?;
    let v = with_slice::<T, _>(x, |xs| {
        class_loss_backward(xs, &ctx.spec(wv.as_deref()), &shv, &lsv, &gs)
    })??;
    Ok(tensor_of(v, x.shape()))
}

/// The gradient written with differentiable ops (for `create_graph=True`): the
/// coefficients `a` and their class sums `A` are constants, the softmax and `g` are not.
fn backward_composed(g: &Tensor, x: &Tensor, ctx: &Ctx) -> Result<Tensor> {
    let d = &ctx.dims;
    let e = ctx.opts.smoothing;
    let wv: Option<Vec<f64>> = match &ctx.weight {
        Some(w) => Some(w.to_dtype(DType::F64)?.to_vec::<f64>()?),
        None => None,
    };
    let cw = |c: usize| wv.as_ref().map_or(1.0, |w| w[c]);
    let wsum: f64 = (0..d.classes).map(cw).sum();
    let mut a = vec![0.0f64; x.numel()];
    let mut big_a = vec![0.0f64; ctx.targets.len()];
    for (p, &t) in ctx.targets.iter().enumerate() {
        if t == ctx.opts.ignore_index {
            continue;
        }
        let (o, i) = (p / d.inner, p % d.inner);
        let base = o * d.classes * d.inner + i;
        let w = cw(t as usize);
        for c in 0..d.classes {
            a[base + c * d.inner] = e * cw(c) / d.classes as f64;
        }
        a[base + t as usize * d.inner] += (1.0 - e) * w;
        big_a[p] = (1.0 - e) * w + e * wsum / d.classes as f64;
    }
    let mut keep_shape = x.shape().to_vec();
    keep_shape[d.class_dim] = 1;
    let a = Tensor::from_vec(a, x.shape())?.cast_raw(x.dtype())?;
    let big_a = Tensor::from_vec(big_a, &keep_shape)?.cast_raw(x.dtype())?;
    let gk = match ctx.opts.reduction {
        Reduction::None => g.unsqueeze(d.class_dim as isize)?,
        Reduction::Sum => g.clone(),
        Reduction::Mean => g.div(&g.scalar_like(ctx.denom))?,
    };
    if ctx.opts.log_softmax {
        let sm = x.softmax(d.class_dim as isize)?;
        gk.mul(&sm.mul(&big_a)?.sub(&a)?)
    } else {
        gk.mul(&a)?.neg()
    }
}

impl Tensor {
    /// A class-index loss of `self` (`[N, C, d1, ...]` or `[C]`, classes at dim 1 or 0)
    /// against integer `target` (the input's shape without the class dim): cross entropy
    /// when `opts.log_softmax`, else the negative log-likelihood of log-probabilities.
    /// One op (`CrossEntropyLossBackward` / `NllLossBackward`); `weight` (`[C]`, same
    /// dtype) is a constant. Float32/float64 only.
    pub fn class_loss(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        opts: ClassLossOpts,
    ) -> Result<Tensor> {
        let what = if opts.log_softmax {
            "cross_entropy"
        } else {
            "nll_loss"
        };
        float_only(what, self.dtype())?;
        if !matches!(target.dtype(), DType::I32 | DType::I64) {
            return Err(Error::type_err(format!(
                "{what}: class labels must be an int32/int64 tensor, got {}",
                target.dtype()
            )));
        }
        if !(0.0..=1.0).contains(&opts.smoothing) {
            return Err(Error::value(format!(
                "{what}: label_smoothing must be in [0, 1], got {}",
                opts.smoothing
            )));
        }
        let dims = dims(self, target, what)?;
        if let Some(w) = weight {
            if w.dtype() != self.dtype() || w.shape() != [dims.classes] {
                return Err(Error::value(format!(
                    "{what}: weight must be {} of shape [{}], got {} of shape {:?}",
                    self.dtype(),
                    dims.classes,
                    w.dtype(),
                    w.shape()
                )));
            }
        }
        let targets = target.cast_raw(DType::I64)?.to_vec::<i64>()?;
        let mut ctx = Ctx {
            dims,
            targets,
            weight: weight.map(|w| w.detach()),
            opts,
            denom: 0.0,
            what,
        };
        let out_shape = target.shape().to_vec();
        let (out, shift, log_sum) = match self.dtype() {
            DType::F32 => forward::<f32>(self, &mut ctx, &out_shape)?,
            _ => forward::<f64>(self, &mut ctx, &out_shape)?,
        };
        let Some(mut rec) = Recorder::begin(&[self]) else {
            return Ok(out);
        };
        rec.save(self);
        rec.save(&shift);
        rec.save(&log_sum);
        let name = if opts.log_softmax {
            "CrossEntropyLossBackward"
        } else {
            "NllLossBackward"
        };
        let ctx = Arc::new(ctx);
        rec.finish(name, &out, move |g, s, _| {
            let x = saved(s, 0, name)?;
            if is_grad_enabled() || g.dtype() != x.dtype() {
                return Ok(smallvec![Some(backward_composed(g, x, &ctx)?)]);
            }
            let (sh, ls) = (saved(s, 1, name)?, saved(s, 2, name)?);
            let gx = match x.dtype() {
                DType::F32 => backward_fast::<f32>(g, x, sh, ls, &ctx)?,
                _ => backward_fast::<f64>(g, x, sh, ls, &ctx)?,
            };
            Ok(smallvec![Some(gx)])
        })?;
        Ok(out)
    }
}
