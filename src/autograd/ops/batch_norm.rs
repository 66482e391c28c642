//! Batch normalisation as one graph node (`NativeBatchNormBackward`), in training (batch
//! statistics) and evaluation (running statistics) form.
//!
//! The forward is [`crate::kernels::batch_norm`] (bit-identical to the composed ops on
//! channel-first float64 data); the backward is its closed form when no graph is
//! recorded, and otherwise the differentiated composition (double backward). The
//! running buffers are not touched here: the op returns the batch statistics and the
//! caller blends them in.

use super::composed_grad::grads_with_graph;
use super::fused_nn::{float_only, tensor_of, with_slice};
use super::saved;
use crate::autograd::{is_grad_enabled, Grads, Recorder};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::batch_norm::{self as kb, BnShape};
use crate::kernels::fused_nn::NnFloat;
use crate::tensor::{Tensor, UnaryOp};
use smallvec::{smallvec, SmallVec};

/// Where the normalising statistics come from.
pub enum BnStats<'a> {
    /// The batch's own mean and biased variance (training).
    Batch,
    /// Running mean and variance `[C]` (evaluation), of the input's dtype.
    Running(&'a Tensor, &'a Tensor),
}

/// What a training call returns besides the output: the batch mean and biased variance.
pub type BatchStats = Option<(Tensor, Tensor)>;

fn shape_of(x: &Tensor, cdim: usize) -> BnShape {
    let s = x.shape();
    BnShape {
        outer: s[..cdim].iter().product(),
        c: s[cdim],
        inner: s[cdim + 1..].iter().product(),
    }
}

/// The forward in `T`: `(out, mean, rstd-or-var)`; with batch statistics the third is
/// the biased variance, with running ones `1/sqrt(rv + eps)`.
fn forward<T: NnFloat>(
    x: &Tensor,
    sh: &BnShape,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    stats: &BnStats<'_>,
    eps: f64,
) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let wv = w.map(|w| w.to_vec::<T>()).transpose()?;
    let bv = b.map(|b| b.to_vec::<T>()).transpose()?;
    with_slice::<T, _>(x, |xs| match stats {
        BnStats::Batch => {
            let (m, v) = kb::stats(xs, sh)?;
            let out = kb::normalize(xs, sh, &m, &v, wv.as_deref(), bv.as_deref(), eps)?;
            Ok((out, m, v))
        }
        BnStats::Running(rm, rv) => {
            let (rm, rv) = (rm.to_vec::<T>()?, rv.to_vec::<T>()?);
            let (out, rstd) = kb::affine_eval(xs, sh, &rm, &rv, wv.as_deref(), bv.as_deref(), eps)?;
            Ok((out, rm, rstd))
        }
    })?
}

#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn backward_fast<T: NnFloat>(
    g: &Tensor,
    x: &Tensor,
    sh: &BnShape,
    mean: &Tensor,
    rstd: &Tensor,
    w: Option<&Tensor>,
    batch: bool,
    want: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    let (m, r) = (mean.to_vec::<T>()?, rstd.to_vec::<T>()?);
    let wv = w.map(|w| w.to_vec::<T>()).transpose()?;
    let gv = g.to_vec::<T>()?;
    let (dx, dw, db) = with_slice::<T, _>(x, |xs| {
        kb::backward(&gv, xs, sh, &m, &r, wv.as_deref(), batch, want)
    })??;
    let c = [sh.c];
    Ok([
        dx.map(|v| tensor_of(v, x.shape())),
        dw.map(|v| tensor_of(v, &c)),
        db.map(|v| tensor_of(v, &c)),
    ])
}

/// The op from differentiable ops (the double-backward path): batch statistics
/// recomputed from `x`, or the saved running ones as constants.
#[allow(clippy::too_many_arguments)]
fn composed(
    x: &Tensor,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    cdim: usize,
    batch: bool,
    mean: &Tensor,
    rstd: &Tensor,
    eps: f64,
) -> Result<Tensor> {
    let mut bshape: Vec<isize> = vec![1; x.ndim()];
    bshape[cdim] = -1;
    let per_c = |t: &Tensor| t.reshape(&bshape);
    let (centred, factor) = if batch {
        let axes: Vec<isize> = (0..x.ndim() as isize)
            .filter(|&d| d != cdim as isize)
            .collect();
        let c = x.sub(&x.mean(Some(&axes), true)?)?;
        let var = c.mul(&c)?.mean(Some(&axes), true)?;
        (c, var.add_scalar(eps)?.unary(UnaryOp::Rsqrt)?)
    } else {
        (x.sub(&per_c(mean)?)?, per_c(rstd)?)
    };
    let factor = match w {
        Some(w) => factor.mul(&per_c(w)?)?,
        None => factor,
    };
    let out = centred.mul(&factor)?;
    match b {
        Some(b) => out.add(&per_c(b)?),
        None => Ok(out),
    }
}

impl Tensor {
    /// Batch norm over every dim but `cdim`, as one op: `(x - mean) / sqrt(var + eps) *
    /// weight + bias` with the batch's mean and biased variance ([`BnStats::Batch`]; also
    /// returned, for the running update) or running ones. `weight`/`bias`/running
    /// statistics are `[C]` of the input's dtype; float32/float64; at least one element.
    pub fn batch_norm(
        &self,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        stats: BnStats<'_>,
        eps: f64,
        cdim: usize,
    ) -> Result<(Tensor, BatchStats)> {
        const OP: &str = "batch_norm";
        let dtype = self.dtype();
        float_only(OP, dtype)?;
        if self.ndim() < 2 || cdim >= self.ndim() {
            return Err(Error::value(format!(
                "{OP}: the input must be at least 2-d with channel dim {cdim}, got shape {:?}",
                self.shape()
            )));
        }
        if self.numel() == 0 {
            return Err(Error::value(format!(
                "{OP}: the fused op needs a non-empty input, got shape {:?}",
                self.shape()
            )));
        }
        let sh = shape_of(self, cdim);
        let mut params: Vec<(&str, &Tensor)> = Vec::new();
        params.extend(weight.map(|t| ("weight", t)));
        params.extend(bias.map(|t| ("bias", t)));
        if let BnStats::Running(m, v) = &stats {
            params.extend([("running_mean", *m), ("running_var", *v)]);
        }
        for (name, p) in params {
            if p.dtype() != dtype || p.shape() != [sh.c] {
                return Err(Error::value(format!(
                    "{OP}: {name} must be {dtype} of shape [{}] (one per channel), got {} of \
                     shape {:?}",
                    sh.c,
                    p.dtype(),
                    p.shape()
                )));
            }
        }
        let batch = matches!(stats, BnStats::Batch);
        let c = [sh.c];
        let (out, mean, third) = match dtype {
            DType::F32 => {
                let (o, m, t) = forward::<f32>(self, &sh, weight, bias, &stats, eps)?;
                (
                    tensor_of(o, self.shape()),
                    tensor_of(m, &c),
                    tensor_of(t, &c),
                )
            }
            _ => {
                let (o, m, t) = forward::<f64>(self, &sh, weight, bias, &stats, eps)?;
                (
                    tensor_of(o, self.shape()),
                    tensor_of(m, &c),
                    tensor_of(t, &c),
                )
            }
        };
        let ret_stats = batch.then(|| (mean.clone(), third.clone()));
        let mut inputs: SmallVec<[&Tensor; 3]> = smallvec![self];
        inputs.extend(weight);
        inputs.extend(bias);
        let Some(mut rec) = Recorder::begin(&inputs) else {
            return Ok((out, ret_stats));
        };
        // rstd from the batch variance, as the composition computes it
        let rstd = if batch {
            let _g = crate::autograd::no_grad();
            third.add_scalar(eps)?.unary(UnaryOp::Rsqrt)?
        } else {
            third
        };
        let (has_w, has_b) = (weight.is_some(), bias.is_some());
        rec.save(self);
        match weight {
            Some(w) => rec.save(w),
            None => rec.save_nothing(),
        }
        match bias {
            Some(b) => rec.save(b),
            None => rec.save_nothing(),
        }
        rec.save(&mean);
        rec.save(&rstd);
        const NAME: &str = "NativeBatchNormBackward";
        rec.finish(NAME, &out, move |g, s, needs| {
            let x = saved(s, 0, NAME)?;
            let w = if has_w {
                Some(saved(s, 1, NAME)?)
            } else {
                None
            };
            let b = if has_b {
                Some(saved(s, 2, NAME)?)
            } else {
                None
            };
            let (mean, rstd) = (saved(s, 3, NAME)?, saved(s, 4, NAME)?);
            let bi = 1 + has_w as usize;
            let want = [needs[0], has_w && needs[1], has_b && needs[bi]];
            let [gx, gw, gb] = if is_grad_enabled() || g.dtype() != x.dtype() {
                composed_backward(
                    [x, w.unwrap_or(x), b.unwrap_or(x)],
                    [true, has_w, has_b],
                    want,
                    g,
                    |ins| {
                        let (w, b) = (has_w.then(|| &ins[1]), has_b.then(|| &ins[2]));
                        composed(&ins[0], w, b, cdim, batch, mean, rstd, eps)
                    },
                )?
            } else {
                let sh = shape_of(x, cdim);
                match x.dtype() {
                    DType::F32 => backward_fast::<f32>(g, x, &sh, mean, rstd, w, batch, want)?,
                    _ => backward_fast::<f64>(g, x, &sh, mean, rstd, w, batch, want)?,
                }
            };
            let mut grads: Grads = smallvec![gx];
            if has_w {
                grads.push(gw);
            }
            if has_b {
                grads.push(gb);
            }
            Ok(grads)
        })?;
        Ok((out, ret_stats))
    }
}

/// Differentiates `f(inputs)` with `create_graph=True` for the wanted inputs (those
/// `present` and `want`ed), so the gradients carry a graph of their own.
fn composed_backward(
    ins: [&Tensor; 3],
    present: [bool; 3],
    want: [bool; 3],
    g: &Tensor,
    f: impl FnOnce(&[Tensor; 3]) -> Result<Tensor>,
) -> Result<[Option<Tensor>; 3]> {
    let owned = ins.map(|t| t.clone());
    let out = f(&owned)?;
    let mut got = grads_with_graph(out, &owned, |i| present[i] && want[i], g)?.into_iter();
    Ok([(); 3].map(|_| got.next().flatten()))
}
