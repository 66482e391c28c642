//! `layer_norm` and `dropout`, each ONE op and one graph node (composed in Python they were
//! 6–8 ops, each with its own buffer and node).
//!
//! Forwards run the fused kernels of [`crate::kernels::fused_nn`] (bit-identical to the
//! compositions). Backwards run a one-pass kernel when no graph is recorded, and otherwise
//! a formula written with differentiable ops — for layer norm recomputing the mean and
//! `rstd` from the saved input, so second derivatives see their dependence on `x`.

use super::saved;
use crate::autograd::{is_grad_enabled, Recorder};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::elementwise::{map_binary, map_binary_chunked};
use crate::kernels::fused_nn::{
    gelu_tanh_grad_elem, gelu_tanh_grad_f32_slice, layer_norm_backward, layer_norm_forward, NnFloat,
};
use crate::layout::Layout;
use crate::storage::{try_vec_with_capacity, Storage};
use crate::tensor::{Tensor, UnaryOp};
use smallvec::{smallvec, SmallVec};
use std::sync::Arc;

/// A contiguous copy (or view) of `t` and the slice of its elements, handed to `f`.
pub(super) fn with_slice<T: Element, R>(t: &Tensor, f: impl FnOnce(&[T]) -> R) -> Result<R> {
    let c = t.contiguous_raw()?;
    let s = c.storage().read::<T>();
    let off = c.layout().offset;
    Ok(f(&s[off..off + c.numel()]))
}

/// A new contiguous tensor of `shape` holding `v`.
pub(super) fn tensor_of<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
    Tensor::from_parts(Arc::new(Storage::from_vec(v)), Layout::contiguous(shape))
}

/// The error for a dtype the fused ops do not take (Python falls back before this).
pub(super) fn float_only(op: &str, dtype: DType) -> Result<()> {
    if matches!(dtype, DType::F32 | DType::F64) {
        Ok(())
    } else {
        Err(Error::type_err(format!(
            "{op}: the fused kernel takes float32 or float64 input, got {dtype}"
        )))
    }
}

fn ln_forward<T: NnFloat>(
    x: &Tensor,
    d: usize,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let wv = w.map(|w| w.to_vec::<T>()).transpose()?;
    let bv = b.map(|b| b.to_vec::<T>()).transpose()?;
    let r = with_slice::<T, _>(x, |xs| {
        layer_norm_forward(xs, d, wv.as_deref(), bv.as_deref(), eps)
    })??;
    let rows = [r.mean.len()];
    Ok((
        tensor_of(r.out, x.shape()),
        tensor_of(r.mean, &rows),
        tensor_of(r.rstd, &rows),
    ))
}

#[allow(clippy::type_complexity)]
fn ln_backward_fast<T: NnFloat>(
    g: &Tensor,
    x: &Tensor,
    d: usize,
    mean: &Tensor,
    rstd: &Tensor,
    w: Option<&Tensor>,
    want: [bool; 3],
) -> Result<(Option<Vec<T>>, Option<Vec<T>>, Option<Vec<T>>)> {
    let (mv, rv) = (mean.to_vec::<T>()?, rstd.to_vec::<T>()?);
    let wv = w.map(|w| w.to_vec::<T>()).transpose()?;
    let gv = g.to_vec::<T>()?;
    with_slice::<T, _>(x, |xs| {
        layer_norm_backward(&gv, xs, d, &mv, &rv, wv.as_deref(), want)
    })?
}

/// Layer norm's gradients written with differentiable ops (for `create_graph=True`).
fn ln_backward_composed(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    nd: usize,
    eps: f64,
    want: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    let axes: Vec<isize> = ((x.ndim() - nd) as isize..x.ndim() as isize).collect();
    let norm_shape = x.shape()[x.ndim() - nd..].to_vec();
    let c = x.sub(&x.mean(Some(&axes), true)?)?;
    let var = c.mul(&c)?.mean(Some(&axes), true)?;
    let rstd = var.add_scalar(eps)?.unary(UnaryOp::Rsqrt)?;
    let xhat = c.mul(&rstd)?;
    let gx = if want[0] {
        let gh = match w {
            Some(w) => g.mul(w)?,
            None => g.clone(),
        };
        let a = gh.mean(Some(&axes), true)?;
        let b = gh.mul(&xhat)?.mean(Some(&axes), true)?;
        Some(rstd.mul(&gh.sub(&a)?.sub(&xhat.mul(&b)?)?)?)
    } else {
        None
    };
    let gw = if want[1] {
        Some(g.mul(&xhat)?.sum_to(&norm_shape)?)
    } else {
        None
    };
    let gb = if want[2] {
        Some(g.sum_to(&norm_shape)?)
    } else {
        None
    };
    Ok([gx, gw, gb])
}

impl Tensor {
    /// Layer norm over the last `nd` dims: `(x - mean) / sqrt(var + eps) * weight + bias`
    /// (biased variance), as one op (`NativeLayerNormBackward`). `weight` and `bias` have
    /// the normalised shape; float32/float64 only; the normalised size must be non-zero.
    pub fn layer_norm(
        &self,
        nd: usize,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let dtype = self.dtype();
        float_only("layer_norm", dtype)?;
        if nd == 0 || nd > self.ndim() {
            return Err(Error::value(format!(
                "layer_norm: cannot normalise the last {nd} dims of a {}-d input",
                self.ndim()
            )));
        }
        let norm_shape = self.shape()[self.ndim() - nd..].to_vec();
        for (name, p) in [("weight", weight), ("bias", bias)] {
            if let Some(p) = p {
                if p.dtype() != dtype || p.shape() != norm_shape.as_slice() {
                    return Err(Error::value(format!(
                        "layer_norm: {name} must be {dtype} of shape {norm_shape:?} (the \
                         normalised shape), got {} of shape {:?}",
                        p.dtype(),
                        p.shape()
                    )));
                }
            }
        }
        let d: usize = norm_shape.iter().product();
        if d == 0 {
            return Err(Error::value(
                "layer_norm: the normalised shape has no elements",
            ));
        }
        let (out, mean, rstd) = match dtype {
            DType::F32 => ln_forward::<f32>(self, d, weight, bias, eps)?,
            _ => ln_forward::<f64>(self, d, weight, bias, eps)?,
        };
        let mut inputs: SmallVec<[&Tensor; 3]> = smallvec![self];
        inputs.extend(weight);
        inputs.extend(bias);
        let Some(mut rec) = Recorder::begin(&inputs) else {
            return Ok(out);
        };
        let (has_w, has_b) = (weight.is_some(), bias.is_some());
        rec.save(self);
        match weight {
            Some(w) => rec.save(w),
            None => rec.save_nothing(),
        }
        rec.save(&mean);
        rec.save(&rstd);
        const NAME: &str = "NativeLayerNormBackward";
        rec.finish(NAME, &out, move |g, s, needs| {
            let x = saved(s, 0, NAME)?;
            let w = if has_w {
                Some(saved(s, 1, NAME)?)
            } else {
                None
            };
            let bi = 1 + has_w as usize;
            let want = [needs[0], has_w && needs[1], has_b && needs[bi]];
            let [gx, gw, gb] = if is_grad_enabled() || g.dtype() != x.dtype() {
                ln_backward_composed(g, x, w, nd, eps, want)?
            } else {
                let (mean, rstd) = (saved(s, 2, NAME)?, saved(s, 3, NAME)?);
                let ns = &x.shape()[x.ndim() - nd..];
                macro_rules! fast {
                    ($t:ty) => {{
                        let (a, b, c) = ln_backward_fast::<$t>(g, x, d, mean, rstd, w, want)?;
                        [
                            a.map(|v| tensor_of(v, x.shape())),
                            b.map(|v| tensor_of(v, ns)),
                            c.map(|v| tensor_of(v, ns)),
                        ]
                    }};
                }
                match x.dtype() {
                    DType::F32 => fast!(f32),
                    _ => fast!(f64),
                }
            };
            let mut grads: crate::autograd::Grads = smallvec![gx];
            if has_w {
                grads.push(gw);
            }
            if has_b {
                grads.push(gb);
            }
            Ok(grads)
        })?;
        Ok(out)
    }

    /// Dropout as one op (`DropoutBackward`): each element kept when a uniform draw from
    /// the default generator is `>= p` — the draws `rand(shape) >= p` made, one per
    /// element in row-major order, so a seed gives the same mask — then multiplied by
    /// `1/(1-p)` (`upscale`) or 1. The mask is saved as a bool tensor. `0 < p < 1`,
    /// float32/float64 only.
    pub fn dropout(&self, p: f64, upscale: bool) -> Result<Tensor> {
        let dtype = self.dtype();
        float_only("dropout", dtype)?;
        if !(p > 0.0 && p < 1.0) {
            return Err(Error::value(format!(
                "dropout: the fused op takes 0 < p < 1, got {p}"
            )));
        }
        let scale = if upscale { 1.0 / (1.0 - p) } else { 1.0 };
        let shape = self.shape_vec();
        let mask = match dtype {
            DType::F32 => draw_mask::<f32>(self.numel(), p)?,
            _ => draw_mask::<f64>(self.numel(), p)?,
        };
        let mask = tensor_of(mask, &shape);
        let out = apply_mask(self, &mask, scale)?;
        let Some(mut rec) = Recorder::begin(&[self]) else {
            return Ok(out);
        };
        rec.save(&mask);
        rec.finish("DropoutBackward", &out, move |g, s, _| {
            let mask = saved(s, 0, "DropoutBackward")?;
            if is_grad_enabled() || !matches!(g.dtype(), DType::F32 | DType::F64) {
                // g * (mask ? scale : 0), differentiable in g
                let m = apply_mask(&g.detach().ones_like()?, mask, scale)?;
                return Ok(smallvec![Some(g.mul(&m)?)]);
            }
            Ok(smallvec![Some(apply_mask(g, mask, scale)?)])
        })?;
        Ok(out)
    }
}

/// The gradient of GELU's tanh approximation in one pass (`None` when a graph is being
/// recorded, or for dtypes and shapes other than a float32/float64 elementwise pair: the
/// registry's composed formula runs then).
pub fn gelu_tanh_grad(g: &Tensor, x: &Tensor) -> Result<Option<Tensor>> {
    type Chunk<T> = fn(&[T], &[T], &mut [std::mem::MaybeUninit<T>]);
    fn run<T: NnFloat>(g: &Tensor, x: &Tensor, chunk: Chunk<T>) -> Result<Tensor> {
        // `sum().backward()` hands a broadcast scalar: one copy lets the vectorised kernel run
        let g = &g.contiguous_raw()?;
        let x = &x.contiguous_raw()?;
        let (gs, xs) = (g.storage().read::<T>(), x.storage().read::<T>());
        let (gl, xl) = (g.layout(), x.layout());
        let v = map_binary_chunked(&gs, gl, &xs, xl, x.shape(), chunk, gelu_tanh_grad_elem)?;
        Ok(tensor_of(v, x.shape()))
    }
    fn plain<T: NnFloat>(g: &[T], x: &[T], out: &mut [std::mem::MaybeUninit<T>]) {
        for ((o, &gv), &xv) in out.iter_mut().zip(g).zip(x) {
            o.write(gelu_tanh_grad_elem(gv, xv));
        }
    }
    if is_grad_enabled() || g.dtype() != x.dtype() || g.shape() != x.shape() {
        return Ok(None);
    }
    match x.dtype() {
        // float32 through the vectorised slice kernel (the same arithmetic per element)
        DType::F32 => run::<f32>(g, x, gelu_tanh_grad_f32_slice).map(Some),
        DType::F64 => run::<f64>(g, x, plain::<f64>).map(Some),
        _ => Ok(None),
    }
}

/// The gradient of the exact (erf) GELU in one pass, `g * (Phi(x) + x phi(x))` (`None`
/// when a graph is being recorded, or for dtypes and shapes other than a float32/float64
/// elementwise pair: the registry's composed formula runs then). float32 through
/// [`crate::kernels::fastmath::gelu_grad_f32`] (float64 inside, rounded once).
pub fn gelu_grad(g: &Tensor, x: &Tensor) -> Result<Option<Tensor>> {
    use crate::kernels::fastmath::{gelu_grad_f32, gelu_grad_f32_slice};
    type Chunk<T> = fn(&[T], &[T], &mut [std::mem::MaybeUninit<T>]);
    fn run<T: Element>(
        g: &Tensor,
        x: &Tensor,
        chunk: Chunk<T>,
        f: fn(T, T) -> T,
    ) -> Result<Tensor> {
        // `sum().backward()` hands a broadcast scalar: one copy lets the vectorised kernel run
        let g = &g.contiguous_raw()?;
        let x = &x.contiguous_raw()?;
        let (gs, xs) = (g.storage().read::<T>(), x.storage().read::<T>());
        let v = map_binary_chunked(&gs, g.layout(), &xs, x.layout(), x.shape(), chunk, f)?;
        Ok(tensor_of(v, x.shape()))
    }
    fn elem64(g: f64, x: f64) -> f64 {
        let cdf = 0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2));
        let c = 0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2;
        g * (cdf + x * ((x * x * -0.5).exp() * c))
    }
    fn plain64(g: &[f64], x: &[f64], out: &mut [std::mem::MaybeUninit<f64>]) {
        for ((o, &gv), &xv) in out.iter_mut().zip(g).zip(x) {
            o.write(elem64(gv, xv));
        }
    }
    if is_grad_enabled() || g.dtype() != x.dtype() || g.shape() != x.shape() {
        return Ok(None);
    }
    match x.dtype() {
        DType::F32 => run::<f32>(g, x, gelu_grad_f32_slice, gelu_grad_f32).map(Some),
        DType::F64 => run::<f64>(g, x, plain64, elem64).map(Some),
        _ => Ok(None),
    }
}

/// `n` keep flags drawn as `rand(n) >= p` in dtype `T` draws (`uniform`'s loop: a value
/// that rounds up to 1 is drawn again).
fn draw_mask<T: NnFloat>(n: usize, p: f64) -> Result<Vec<bool>> {
    let mut v = try_vec_with_capacity::<bool>(n)?;
    let pt = T::from_f64(p);
    crate::tensor::random::resolve(None).with(|r| {
        v.extend((0..n).map(|_| {
            let u = loop {
                let u = T::from_f64(r.uniform());
                if u.to_f64() < 1.0 {
                    break u;
                }
            };
            u >= pt
        }))
    });
    Ok(v)
}

/// `x * (keep ? scale : 0)` elementwise, the scale rounded to `x`'s dtype first.
fn apply_mask(x: &Tensor, mask: &Tensor, scale: f64) -> Result<Tensor> {
    fn run<T: NnFloat>(x: &Tensor, mask: &Tensor, scale: f64) -> Result<Tensor> {
        let (s, zero) = (T::from_f64(scale), <T as Element>::zero());
        let xs = x.storage().read::<T>();
        let ms = mask.storage().read::<bool>();
        let v = map_binary(&xs, x.layout(), &ms, mask.layout(), x.shape(), |a, k| {
            a * if k { s } else { zero }
        })?;
        Ok(tensor_of(v, x.shape()))
    }
    match x.dtype() {
        DType::F32 => run::<f32>(x, mask, scale),
        DType::F64 => run::<f64>(x, mask, scale),
        d => Err(Error::type_err(format!("dropout: gradient of dtype {d}"))),
    }
}
