//! Fused kernels of the network layers that were composed of many ops: layer norm
//! (forward and its one-pass backward) and the dropout mask's application.
//!
//! Each forward does, element by element, the arithmetic the composed ops did and in the
//! same order — row sums through [`sum_run`], the fold the `sum`/`mean` reductions use — so
//! the fused results are bit-identical to the compositions on contiguous rows. Backward
//! kernels only run when no graph is recorded; they accumulate in float64.

use super::fastmath::exp_f32;
use super::reduce::{sum_run, ReduceElem};
use crate::dtype::Element;
use crate::error::Result;
use crate::storage::try_filled_vec;
use rayon::prelude::*;

/// Element count from which the fused kernels split rows across threads.
const PAR_MIN: usize = 1 << 15;

/// Float element types the fused layers run on (f32, f64), with the `exp` the unary
/// kernel uses for each (float32's vectorised one, float64's libm one).
pub trait NnFloat: ReduceElem + num_traits::Float {
    /// `e^x` exactly as the `exp` op computes it for this type.
    fn exp_k(self) -> Self;
    /// `tanh(x)` exactly as the `tanh` op computes it for this type.
    fn tanh_k(self) -> Self;
    /// `dst[i] = exp_k((src[i] - a) - b)` over equal-length slices, vectorised where the
    /// type's `exp` is (float32 with AVX2).
    fn exp_shifted(src: &[Self], a: Self, b: Self, dst: &mut [Self]);
}

/// The loop of [`NnFloat::exp_shifted`].
#[inline(always)]
fn exp_shifted_loop<T: NnFloat>(src: &[T], a: T, b: T, dst: &mut [T]) {
    for (d, &v) in dst.iter_mut().zip(src) {
        *d = ((v - a) - b).exp_k();
    }
}

impl NnFloat for f32 {
    #[inline(always)]
    fn exp_k(self) -> f32 {
        exp_f32(self)
    }
    #[inline(always)]
    fn tanh_k(self) -> f32 {
        super::fastmath::tanh_f32(self)
    }
    fn exp_shifted(src: &[f32], a: f32, b: f32, dst: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f")]
            unsafe fn wider(src: &[f32], a: f32, b: f32, dst: &mut [f32]) {
                exp_shifted_loop(src, a, b, dst)
            }
            #[target_feature(enable = "avx2")]
            unsafe fn wide(src: &[f32], a: f32, b: f32, dst: &mut [f32]) {
                exp_shifted_loop(src, a, b, dst)
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F (checked just above).
                return unsafe { wider(src, a, b, dst) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { wide(src, a, b, dst) };
            }
        }
        exp_shifted_loop(src, a, b, dst)
    }
}

impl NnFloat for f64 {
    #[inline(always)]
    fn exp_k(self) -> f64 {
        self.exp()
    }
    #[inline(always)]
    fn tanh_k(self) -> f64 {
        self.tanh()
    }
    fn exp_shifted(src: &[f64], a: f64, b: f64, dst: &mut [f64]) {
        exp_shifted_loop(src, a, b, dst)
    }
}

/// `g * d/dx gelu_tanh(x)` for one element:
/// `0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)` with `t = tanh(k (x + c x^3))`.
#[inline(always)]
pub fn gelu_tanh_grad_elem<T: NnFloat>(g: T, x: T) -> T {
    use crate::op_defs::unary::fns::{GELU_TANH_C, GELU_TANH_K};
    let (k, c, c3) = (
        T::from_f64(GELU_TANH_K),
        T::from_f64(GELU_TANH_C),
        T::from_f64(3.0 * GELU_TANH_C),
    );
    let (one, half) = (<T as Element>::one(), T::from_f64(0.5));
    let x2 = x * x;
    let t = ((x + x2 * x * c) * k).tanh_k();
    let du = (x2 * c3 + one) * k;
    g * ((t + one) * half + x * half * (one - t * t) * du)
}

/// `gelu_tanh_grad_elem` for float32, as a plain function for the slice kernel below.
#[inline(always)]
fn gelu_tanh_grad_f32(g: f32, x: f32) -> f32 {
    gelu_tanh_grad_elem(g, x)
}

super::fastmath::zip_slice_kernel!(
    /// `dst[i] = gelu_tanh_grad_elem(g[i], x[i])` for float32 over equal-length slices,
    /// with AVX2 when the CPU has it (the forward's slice kernel does the same).
    gelu_tanh_grad_f32_slice,
    gelu_tanh_grad_f32
);

/// Whether a fused kernel over `len` elements splits its rows across threads.
pub(super) fn parallel(len: usize) -> bool {
    len >= PAR_MIN && crate::interrupt::parallel_allowed()
}

/// Layer norm's forward: the normalised rows, each row's mean and `1/sqrt(var + eps)`.
pub struct LayerNormOut<T> {
    /// `(x - mean) * rstd * weight + bias`, same length as the input.
    pub out: Vec<T>,
    /// One mean per row.
    pub mean: Vec<T>,
    /// One reciprocal standard deviation per row.
    pub rstd: Vec<T>,
}

/// Normalises each contiguous row of length `d` of `x` (biased variance), then scales by
/// `weight` and shifts by `bias` (both of length `d`). `d` must be non-zero.
#[allow(clippy::type_complexity)]
pub fn layer_norm_forward<T: NnFloat>(
    x: &[T],
    d: usize,
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: f64,
) -> Result<LayerNormOut<T>> {
    let zero = <T as Element>::zero();
    let rows = x.len() / d;
    let mut out = try_filled_vec(x.len(), zero)?;
    let mut mean = try_filled_vec(rows, zero)?;
    let mut rstd = try_filled_vec(rows, zero)?;
    let (dt, eps_t, one) = (
        T::from_f64(d as f64),
        T::from_f64(eps),
        <T as Element>::one(),
    );
    let row = |((xr, or), (m, r)): ((&[T], &mut [T]), (&mut T, &mut T))| {
        // the composed ops: mean, centre, square, mean, add eps, rsqrt, scale, shift
        let mu = sum_run(xr) / dt;
        for (o, &v) in or.iter_mut().zip(xr) {
            let c = v - mu;
            *o = c * c;
        }
        let rs = one / (sum_run(or) / dt + eps_t).sqrt();
        for (j, (o, &v)) in or.iter_mut().zip(xr).enumerate() {
            let mut y = (v - mu) * rs;
            if let Some(w) = weight {
                y = y * w[j];
            }
            if let Some(b) = bias {
                y = y + b[j];
            }
            *o = y;
        }
        (*m, *r) = (mu, rs);
    };
    if parallel(x.len()) {
        x.par_chunks(d)
            .zip(out.par_chunks_mut(d))
            .zip(mean.par_iter_mut().zip(rstd.par_iter_mut()))
            .for_each(row);
    } else {
        x.chunks(d)
            .zip(out.chunks_mut(d))
            .zip(mean.iter_mut().zip(rstd.iter_mut()))
            .for_each(row);
    }
    Ok(LayerNormOut { out, mean, rstd })
}

/// Layer norm's gradients from the incoming gradient `g`, the input `x` and the saved
/// per-row `mean` and `rstd`: `(grad_x, grad_weight, grad_bias)`, each computed only when
/// asked for (`want`). With `xhat = (x - mean) * rstd` and `gh = g * weight`:
/// `grad_x = rstd * (gh - mean(gh) - xhat * mean(gh * xhat))` per row,
/// `grad_weight = sum over rows of g * xhat`, `grad_bias = sum over rows of g`.
#[allow(clippy::type_complexity)]
pub fn layer_norm_backward<T: NnFloat>(
    g: &[T],
    x: &[T],
    d: usize,
    mean: &[T],
    rstd: &[T],
    weight: Option<&[T]>,
    want: [bool; 3],
) -> Result<(Option<Vec<T>>, Option<Vec<T>>, Option<Vec<T>>)> {
    let zero = <T as Element>::zero();
    let gx = if want[0] {
        let mut gx = try_filled_vec(x.len(), zero)?;
        let row = |(((gr, xr), o), (&mu, &rs)): (((&[T], &[T]), &mut [T]), (&T, &T))| {
            let (mu, rs) = (mu.to_f64(), rs.to_f64());
            let (mut s1, mut s2) = (0.0f64, 0.0f64);
            for j in 0..d {
                let gh = gr[j].to_f64() * weight.map_or(1.0, |w| w[j].to_f64());
                s1 += gh;
                s2 += gh * (xr[j].to_f64() - mu) * rs;
            }
            let (a, b) = (s1 / d as f64, s2 / d as f64);
            for j in 0..d {
                let gh = gr[j].to_f64() * weight.map_or(1.0, |w| w[j].to_f64());
                let xhat = (xr[j].to_f64() - mu) * rs;
                o[j] = T::from_f64(rs * (gh - a - xhat * b));
            }
        };
        if parallel(x.len()) {
            g.par_chunks(d)
                .zip(x.par_chunks(d))
                .zip(gx.par_chunks_mut(d))
                .zip(mean.par_iter().zip(rstd.par_iter()))
                .for_each(row);
        } else {
            g.chunks(d)
                .zip(x.chunks(d))
                .zip(gx.chunks_mut(d))
                .zip(mean.iter().zip(rstd.iter()))
                .for_each(row);
        }
        Some(gx)
    } else {
        None
    };
    let (mut gw, mut gb) = (None, None);
    if want[1] || want[2] {
        let mut aw = try_filled_vec(d, 0.0f64)?;
        let mut ab = try_filled_vec(d, 0.0f64)?;
        for ((gr, xr), (&mu, &rs)) in g.chunks(d).zip(x.chunks(d)).zip(mean.iter().zip(rstd)) {
            let (mu, rs) = (mu.to_f64(), rs.to_f64());
            for j in 0..d {
                let gv = gr[j].to_f64();
                aw[j] += gv * (xr[j].to_f64() - mu) * rs;
                ab[j] += gv;
            }
        }
        if want[1] {
            gw = Some(aw.into_iter().map(T::from_f64).collect());
        }
        if want[2] {
            gb = Some(ab.into_iter().map(T::from_f64).collect());
        }
    }
    Ok((gx, gw, gb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_norm_rows_have_zero_mean_and_unit_variance() {
        let x: Vec<f64> = (0..12).map(|i| (i * i) as f64 * 0.25 - 3.0).collect();
        let r = layer_norm_forward(&x, 4, None, None, 0.0).unwrap();
        for row in r.out.chunks(4) {
            let m: f64 = row.iter().sum::<f64>() / 4.0;
            let v: f64 = row.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / 4.0;
            assert!(m.abs() < 1e-12 && (v - 1.0).abs() < 1e-12, "{m} {v}");
        }
        assert_eq!(r.mean.len(), 3);
    }

    #[test]
    fn layer_norm_backward_matches_finite_differences() {
        let x: Vec<f64> = vec![0.3, -1.2, 2.0, 0.7, 1.1, -0.4];
        let w: Vec<f64> = vec![0.5, -2.0, 1.5];
        let g: Vec<f64> = vec![1.0, 0.2, -0.7, 0.4, -1.3, 0.9];
        let loss = |x: &[f64]| -> f64 {
            let r = layer_norm_forward(x, 3, Some(&w), None, 1e-5).unwrap();
            r.out.iter().zip(&g).map(|(a, b)| a * b).sum()
        };
        let f = layer_norm_forward(&x, 3, Some(&w), None, 1e-5).unwrap();
        let (gx, _, _) =
            layer_norm_backward(&g, &x, 3, &f.mean, &f.rstd, Some(&w), [true, false, false])
                .unwrap();
        let gx = gx.unwrap();
        for i in 0..x.len() {
            let (mut a, mut b) = (x.clone(), x.clone());
            a[i] += 1e-6;
            b[i] -= 1e-6;
            let num = (loss(&a) - loss(&b)) / 2e-6;
            assert!((num - gx[i]).abs() < 1e-6, "{i}: {num} vs {}", gx[i]);
        }
    }
}
