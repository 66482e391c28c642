//! `scaled_dot_product_attention` as one graph node (`ScaledDotProductAttentionBackward`).
//!
//! The node saves `q`, `k`, `v`, the output, the per-row log-sum-exp and the user's mask —
//! never the `[L, S]` probabilities: the backward kernel of [`crate::kernels::attention`]
//! recomputes them block by block. With `create_graph=True` the backward instead
//! differentiates a composition of differentiable ops (matmul, softmax) holding the same
//! mask and dropout flags, so second derivatives flow.

use super::composed_grad::grads_with_graph;
use super::fused_nn::{float_only, tensor_of, with_slice};
use super::saved;
use crate::autograd::{is_grad_enabled, Recorder};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::attention::{self as ka, Dims, Mask, MaskView, Params};
use crate::kernels::fused_nn::NnFloat;
use crate::layout::Layout;
use crate::tensor::Tensor;
use smallvec::smallvec;

/// The options of one attention call.
#[derive(Clone, Copy, Debug)]
pub struct SdpaOpts {
    /// Multiplies the scores; `None` is `1/sqrt(E)`.
    pub scale: Option<f64>,
    /// Keeps only keys `j <= i` (top-left aligned), on top of any mask.
    pub causal: bool,
    /// Probability of dropping each attention weight (`0 <= p <= 1`).
    pub dropout_p: f64,
}

/// What the kernels need besides the data: sizes, scale, causal flag and dropout seed.
#[derive(Clone, Copy)]
struct Fixed {
    dims: Dims,
    scale: f64,
    causal: bool,
    dropout: (f64, u64),
}

/// The mask read through broadcast strides over `[batch..., L, S]`.
fn mask_view<'a, M: Copy>(data: &'a [M], l: &Layout, full: &[usize]) -> Result<MaskView<'a, M>> {
    let b = l.broadcast_to(full, "scaled_dot_product_attention (attn_mask)")?;
    let nd = full.len();
    let batch = Layout {
        shape: b.shape[..nd - 2].iter().copied().collect(),
        strides: b.strides[..nd - 2].iter().copied().collect(),
        offset: b.offset,
    };
    Ok(MaskView {
        data,
        batch_off: batch.offsets()?.into_iter().map(|o| o as isize).collect(),
        rs: b.strides[nd - 2],
        cs: b.strides[nd - 1],
    })
}

fn params<'a, T>(fx: &Fixed, mask: Mask<'a, T>) -> Params<'a, T> {
    Params {
        scale: fx.scale,
        causal: fx.causal,
        mask,
        dropout: fx.dropout,
    }
}

/// Runs `f` with the kernel parameters for `mask` (read in place, never copied).
fn with_params<T: NnFloat, R>(
    fx: &Fixed,
    mask: Option<&Tensor>,
    full: &[usize],
    f: impl FnOnce(&Params<'_, T>) -> Result<R>,
) -> Result<R> {
    match mask {
        None => f(&params(fx, Mask::None)),
        Some(m) if m.dtype() == DType::Bool => {
            let s = m.storage().read::<bool>();
            f(&params(
                fx,
                Mask::Keep(mask_view(&s[..], m.layout(), full)?),
            ))
        }
        Some(m) => {
            let s = m.storage().read::<T>();
            f(&params(
                fx,
                Mask::Bias(mask_view(&s[..], m.layout(), full)?),
            ))
        }
    }
}

fn run_forward<T: NnFloat>(
    fx: &Fixed,
    ins: [&Tensor; 3],
    mask: Option<&Tensor>,
    full: &[usize],
) -> Result<(Vec<T>, Vec<T>)> {
    with_slice::<T, _>(ins[0], |q| {
        with_slice::<T, _>(ins[1], |k| {
            with_slice::<T, _>(ins[2], |v| {
                with_params::<T, _>(fx, mask, full, |p| ka::forward(&fx.dims, q, k, v, p))
            })?
        })?
    })?
}

#[allow(clippy::type_complexity)]
fn run_backward<T: NnFloat>(
    fx: &Fixed,
    s: [&Tensor; 6],
    mask: Option<&Tensor>,
    full: &[usize],
) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let [q, k, v, out, lse, g] = s.map(|t| t.to_vec::<T>());
    let (q, k, v, out, lse, g) = (q?, k?, v?, out?, lse?, g?);
    with_params::<T, _>(fx, mask, full, |p| {
        ka::backward(&fx.dims, &q, &k, &v, &out, &lse, &g, p)
    })
}

/// The op written with differentiable ops (the double-backward path): the mask, causal
/// flag and dropout flags enter as constant tensors computed by the kernel's own rules.
fn composed<T: NnFloat>(
    fx: &Fixed,
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    full: &[usize],
) -> Result<Tensor> {
    let d = &fx.dims;
    crate::layout::checked_numel(full)?;
    let (bias, some, drop) = with_params::<T, _>(fx, mask, full, |p| {
        let (b, s) = p.composed_bias(d)?;
        let z = if fx.dropout.0 > 0.0 {
            Some(p.drop_factors(d)?)
        } else {
            None
        };
        Ok((b, s, z))
    })?;
    let mut row_shape = full.to_vec();
    *row_shape.last_mut().expect("2-d at least") = 1;
    let scores = q
        .matmul(&k.transpose(-2, -1)?)?
        .mul_scalar(fx.scale)?
        .add(&tensor_of(bias, full))?;
    let mut w = scores.softmax(-1)?.mul(&tensor_of(some, &row_shape))?;
    if let Some(z) = drop {
        w = w.mul(&tensor_of(z, full))?;
    }
    w.matmul(v)
}

impl Tensor {
    /// Scaled dot-product attention `softmax(q k^T * scale + mask) v` over the last two
    /// dims, as one op: `self` (q) `[..., L, E]`, `k` `[..., S, E]`, `v` `[..., S, Ev]`
    /// with equal batch dims; `mask` bool (True = attend) or float (added; not
    /// differentiated), broadcastable to `[..., L, S]`. float32/float64.
    pub fn scaled_dot_product_attention(
        &self,
        k: &Tensor,
        v: &Tensor,
        mask: Option<&Tensor>,
        opts: SdpaOpts,
    ) -> Result<Tensor> {
        const OP: &str = "scaled_dot_product_attention";
        let dtype = self.dtype();
        float_only(OP, dtype)?;
        for (name, t) in [("key", k), ("value", v)] {
            if t.dtype() != dtype {
                return Err(Error::type_err(format!(
                    "{OP}: query is {dtype} but {name} is {}; cast them to one dtype",
                    t.dtype()
                )));
            }
        }
        let nd = self.ndim();
        if nd < 2 || k.ndim() != nd || v.ndim() != nd {
            return Err(Error::value(format!(
                "{OP}: query, key and value need the same number (>= 2) of dims, got shapes \
                 {:?}, {:?} and {:?}",
                self.shape(),
                k.shape(),
                v.shape()
            )));
        }
        let batch = &self.shape()[..nd - 2];
        if &k.shape()[..nd - 2] != batch || &v.shape()[..nd - 2] != batch {
            return Err(Error::value(format!(
                "{OP}: query, key and value must share their batch dims, got shapes {:?}, \
                 {:?} and {:?} (broadcast them first)",
                self.shape(),
                k.shape(),
                v.shape()
            )));
        }
        let (l, e) = (self.shape()[nd - 2], self.shape()[nd - 1]);
        let (s, ev) = (k.shape()[nd - 2], v.shape()[nd - 1]);
        if k.shape()[nd - 1] != e || v.shape()[nd - 2] != s {
            return Err(Error::value(format!(
                "{OP}: expected key [..., S, {e}] and value [..., S, Ev] with one S, got {:?} \
                 and {:?}",
                k.shape(),
                v.shape()
            )));
        }
        if let Some(m) = mask {
            if m.dtype() != DType::Bool && m.dtype() != dtype {
                return Err(Error::type_err(format!(
                    "{OP}: attn_mask must be bool or {dtype} (the query's dtype), got {}",
                    m.dtype()
                )));
            }
            if m.requires_grad() && is_grad_enabled() {
                return Err(Error::value(format!(
                    "{OP}: the fused op does not differentiate attn_mask; detach it"
                )));
            }
        }
        let p = opts.dropout_p;
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::value(format!(
                "{OP}: dropout_p must lie in [0, 1], got {p}"
            )));
        }
        let n = batch.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
        let n = n.ok_or_else(|| Error::value(format!("{OP}: batch size overflows")))?;
        let seed = if p > 0.0 {
            crate::tensor::random::resolve(None).with(|r| r.next_u64())
        } else {
            0
        };
        let fx = Fixed {
            dims: Dims { n, l, s, e, ev },
            // no features: every score is 0 whatever the scale (1/sqrt(0) would give NaN)
            scale: opts
                .scale
                .unwrap_or(if e == 0 { 1.0 } else { 1.0 / (e as f64).sqrt() }),
            causal: opts.causal,
            dropout: (p, seed),
        };
        let mut full = batch.to_vec();
        full.extend([l, s]);
        let mut out_shape = batch.to_vec();
        out_shape.extend([l, ev]);
        crate::layout::checked_numel(&out_shape)?;
        let lse_shape = &out_shape[..nd - 1];
        let (out, lse) = match dtype {
            DType::F32 => {
                let (o, m) = run_forward::<f32>(&fx, [self, k, v], mask, &full)?;
                (tensor_of(o, &out_shape), tensor_of(m, lse_shape))
            }
            _ => {
                let (o, m) = run_forward::<f64>(&fx, [self, k, v], mask, &full)?;
                (tensor_of(o, &out_shape), tensor_of(m, lse_shape))
            }
        };
        let Some(mut rec) = Recorder::begin(&[self, k, v]) else {
            return Ok(out);
        };
        for t in [self, k, v] {
            rec.save(t);
        }
        rec.save_output();
        rec.save(&lse);
        match mask {
            Some(m) => rec.save(m),
            None => rec.save_nothing(),
        }
        const NAME: &str = "ScaledDotProductAttentionBackward";
        rec.finish(NAME, &out, move |g, sv, needs| {
            let [q, k, v, out, lse] = [0, 1, 2, 3, 4].map(|i| saved(sv, i, NAME));
            let (q, k, v, out, lse) = (q?, k?, v?, out?, lse?);
            let mask = sv.get(5).and_then(|m| m.as_ref());
            if is_grad_enabled() || g.dtype() != q.dtype() {
                return composed_backward(&fx, [q, k, v], mask, &full, g, needs);
            }
            let [dq, dk, dv] = match q.dtype() {
                DType::F32 => {
                    let (a, b, c) = run_backward::<f32>(&fx, [q, k, v, out, lse, g], mask, &full)?;
                    [
                        tensor_of(a, q.shape()),
                        tensor_of(b, k.shape()),
                        tensor_of(c, v.shape()),
                    ]
                }
                _ => {
                    let (a, b, c) = run_backward::<f64>(&fx, [q, k, v, out, lse, g], mask, &full)?;
                    [
                        tensor_of(a, q.shape()),
                        tensor_of(b, k.shape()),
                        tensor_of(c, v.shape()),
                    ]
                }
            };
            let pick = |i: usize, t: Tensor| needs[i].then_some(t);
            Ok(smallvec![pick(0, dq), pick(1, dk), pick(2, dv)])
        })?;
        Ok(out)
    }
}

/// Backward with `create_graph=True`: differentiates the composed op, so the gradients
/// carry a graph of their own (double backward).
fn composed_backward(
    fx: &Fixed,
    ins: [&Tensor; 3],
    mask: Option<&Tensor>,
    full: &[usize],
    g: &Tensor,
    needs: &[bool],
) -> Result<crate::autograd::Grads> {
    // fresh leaves that share the saved tensors' graph: grad() follows their history
    let out = match ins[0].dtype() {
        DType::F32 => composed::<f32>(fx, ins[0], ins[1], ins[2], mask, full)?,
        _ => composed::<f64>(fx, ins[0], ins[1], ins[2], mask, full)?,
    };
    let inputs = ins.map(|t| t.clone());
    grads_with_graph(out, &inputs, |i| needs[i], g)
}
