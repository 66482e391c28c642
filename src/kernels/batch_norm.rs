//! Batch normalisation kernels: per-channel statistics, the normalising affine map, and
//! the closed-form backward.
//!
//! The input is viewed as `[outer, C, inner]` (channel dim `C`; `inner` is the product
//! of the dims after it — 1 for channel-last data). The statistics fold each channel's
//! `inner`-element runs in the order, with the pairwise tree and the float64
//! accumulator, that the composed `mean` reductions use on channel-first data, so the
//! fused forward matches the composition to the last bit there (tested in float64).
//! Backward sums accumulate in float64.

use super::fused_nn::NnFloat;
use super::reduce::sum_run;
use crate::dtype::Element;
use crate::error::Result;
use crate::storage::try_filled_vec;
use rayon::prelude::*;

/// Elements from which the kernels use several threads.
const PAR_MIN: usize = 1 << 15;
/// Runs this long or longer are summed pairwise (as the `sum` reduction's row fold).
const PAIRWISE_MIN: usize = 32;

/// The input viewed as `[outer, c, inner]`.
#[derive(Clone, Copy, Debug)]
pub struct BnShape {
    /// Product of the dims before the channel dim.
    pub outer: usize,
    /// Channel count.
    pub c: usize,
    /// Product of the dims after the channel dim.
    pub inner: usize,
}

impl BnShape {
    /// Elements per channel.
    pub fn per_channel(&self) -> usize {
        self.outer * self.inner
    }
    #[inline(always)]
    fn run(&self, o: usize, ch: usize) -> std::ops::Range<usize> {
        let start = (o * self.c + ch) * self.inner;
        start..start + self.inner
    }
}

fn parallel(len: usize) -> bool {
    len >= PAR_MIN && crate::interrupt::parallel_allowed()
}

/// The sum of `f(x)` over one channel's runs, folded as the composed `sum` does.
fn channel_sum<T: NnFloat>(
    x: &[T],
    sh: &BnShape,
    ch: usize,
    scratch: &mut Vec<f64>,
    f: impl Fn(T) -> T,
) -> f64 {
    // C == 1: the runs are adjacent and the reduction sees one long run
    let (outer, inner) = if sh.c == 1 {
        (1, sh.per_channel())
    } else {
        (sh.outer, sh.inner)
    };
    let mut acc = 0.0f64;
    for o in 0..outer {
        let run = &x[o * sh.c * inner + ch * inner..][..inner];
        if inner >= PAIRWISE_MIN {
            // float32 rows fold in float64: the same tree over the widened values
            scratch.clear();
            scratch.extend(run.iter().map(|&v| f(v).to_f64()));
            acc += sum_run::<f64>(&scratch[..]);
        } else {
            for &v in run {
                acc += f(v).to_f64();
            }
        }
    }
    acc
}

/// Per-channel batch mean and biased variance (`mean((x - mean)^2)`), each rounded to
/// `T` as the composed `mean` ops round them.
pub fn stats<T: NnFloat>(x: &[T], sh: &BnShape) -> Result<(Vec<T>, Vec<T>)> {
    let m = T::from_f64(sh.per_channel() as f64);
    let one = |ch: usize| {
        let mut scratch = Vec::new();
        let mean = T::from_f64(channel_sum(x, sh, ch, &mut scratch, |v| v)) / m;
        let var = T::from_f64(channel_sum(x, sh, ch, &mut scratch, |v| {
            let c = v - mean;
            c * c
        })) / m;
        (mean, var)
    };
    let pairs: Vec<(T, T)> = if parallel(x.len()) {
        (0..sh.c).into_par_iter().map(one).collect()
    } else {
        (0..sh.c).map(one).collect()
    };
    Ok(pairs.into_iter().unzip())
}

/// `y = f(x, channel)` for every element, threads over the outer index.
fn map_channels<T: NnFloat>(
    x: &[T],
    sh: &BnShape,
    f: impl Fn(T, usize) -> T + Sync,
) -> Result<Vec<T>> {
    let mut out = try_filled_vec(x.len(), <T as Element>::zero())?;
    let block = sh.c * sh.inner;
    if block == 0 {
        return Ok(out);
    }
    let one = |(xo, oo): (&[T], &mut [T])| {
        for ch in 0..sh.c {
            let r = ch * sh.inner..(ch + 1) * sh.inner;
            for (o, &v) in oo[r.clone()].iter_mut().zip(&xo[r]) {
                *o = f(v, ch);
            }
        }
    };
    if parallel(x.len()) {
        x.par_chunks(block)
            .zip(out.par_chunks_mut(block))
            .for_each(one);
    } else {
        x.chunks(block).zip(out.chunks_mut(block)).for_each(one);
    }
    Ok(out)
}

/// Training forward from the batch statistics: `(x - mean) * (rstd * w) + b` with
/// `rstd = 1 / sqrt(var + eps)` — the composition's order of operations.
pub fn normalize<T: NnFloat>(
    x: &[T],
    sh: &BnShape,
    mean: &[T],
    var: &[T],
    w: Option<&[T]>,
    b: Option<&[T]>,
    eps: f64,
) -> Result<Vec<T>> {
    let one = <T as Element>::one();
    let factor: Vec<T> = (0..sh.c)
        .map(|ch| {
            let r = one / (var[ch] + T::from_f64(eps)).sqrt();
            w.map_or(r, |w| r * w[ch])
        })
        .collect();
    map_channels(x, sh, |v, ch| {
        let y = (v - mean[ch]) * factor[ch];
        b.map_or(y, |b| y + b[ch])
    })
}

/// Evaluation forward from running statistics: `x * scale - shift` (no bias) or
/// `x * scale + (b - shift)`, with `scale = w / sqrt(rv + eps)` and `shift = rm * scale`
/// — the composition's per-channel affine map. Returns the output and `1/sqrt(rv+eps)`.
pub fn affine_eval<T: NnFloat>(
    x: &[T],
    sh: &BnShape,
    rm: &[T],
    rv: &[T],
    w: Option<&[T]>,
    b: Option<&[T]>,
    eps: f64,
) -> Result<(Vec<T>, Vec<T>)> {
    let one = <T as Element>::one();
    let rstd: Vec<T> = rv
        .iter()
        .map(|&v| one / (v + T::from_f64(eps)).sqrt())
        .collect();
    let scale: Vec<T> = (0..sh.c)
        .map(|ch| w.map_or(rstd[ch], |w| rstd[ch] * w[ch]))
        .collect();
    let shift: Vec<T> = (0..sh.c).map(|ch| rm[ch] * scale[ch]).collect();
    let out = match b {
        None => map_channels(x, sh, |v, ch| v * scale[ch] - shift[ch])?,
        Some(b) => {
            let add: Vec<T> = (0..sh.c).map(|ch| b[ch] - shift[ch]).collect();
            map_channels(x, sh, |v, ch| v * scale[ch] + add[ch])?
        }
    };
    Ok((out, rstd))
}

/// Gradients `(dx, dw, db)` of `y = (x - mean) * rstd * w + b` from `g`. With `batch`
/// the mean and `rstd` are the batch's (functions of `x`, the standard closed form
/// `dx = w rstd (g - mean(g) - xhat mean(g xhat))`); otherwise constants
/// (`dx = g w rstd`). `dw`/`db` only when asked for (`want`).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn backward<T: NnFloat>(
    g: &[T],
    x: &[T],
    sh: &BnShape,
    mean: &[T],
    rstd: &[T],
    w: Option<&[T]>,
    batch: bool,
    want: [bool; 3],
) -> Result<(Option<Vec<T>>, Option<Vec<T>>, Option<Vec<T>>)> {
    let m = sh.per_channel() as f64;
    // per channel: sum(g) and sum(g * xhat)
    let sums = |ch: usize| {
        let (mu, rs) = (mean[ch].to_f64(), rstd[ch].to_f64());
        let (mut sg, mut sgx) = (0.0f64, 0.0f64);
        for o in 0..sh.outer {
            let r = sh.run(o, ch);
            for (&gv, &xv) in g[r.clone()].iter().zip(&x[r]) {
                let gv = gv.to_f64();
                sg += gv;
                sgx += gv * (xv.to_f64() - mu) * rs;
            }
        }
        (sg, sgx)
    };
    let s: Vec<(f64, f64)> = if parallel(x.len()) {
        (0..sh.c).into_par_iter().map(sums).collect()
    } else {
        (0..sh.c).map(sums).collect()
    };
    let dx = if want[0] {
        // per channel: mean, rstd, w * rstd, and (batch stats only) mean(g), mean(g xhat)
        let k: Vec<[f64; 5]> = (0..sh.c)
            .map(|ch| {
                let (mu, rs) = (mean[ch].to_f64(), rstd[ch].to_f64());
                let wr = rs * w.map_or(1.0, |w| w[ch].to_f64());
                let (a, b) = if batch {
                    (s[ch].0 / m, s[ch].1 / m)
                } else {
                    (0.0, 0.0)
                };
                [mu, rs, wr, a, b]
            })
            .collect();
        let n = g.len();
        let mut out = try_filled_vec(n, <T as Element>::zero())?;
        let block = sh.c * sh.inner;
        if block > 0 {
            let one = |((go, xo), oo): ((&[T], &[T]), &mut [T])| {
                for (ch, &[mu, rs, wr, a, b]) in k.iter().enumerate() {
                    let r = ch * sh.inner..(ch + 1) * sh.inner;
                    let rows = oo[r.clone()].iter_mut().zip(&go[r.clone()]).zip(&xo[r]);
                    for ((o, &gv), &xv) in rows {
                        let xhat = (xv.to_f64() - mu) * rs;
                        *o = T::from_f64(wr * (gv.to_f64() - a - xhat * b));
                    }
                }
            };
            if parallel(n) {
                g.par_chunks(block)
                    .zip(x.par_chunks(block))
                    .zip(out.par_chunks_mut(block))
                    .for_each(one);
            } else {
                g.chunks(block)
                    .zip(x.chunks(block))
                    .zip(out.chunks_mut(block))
                    .for_each(one);
            }
        }
        Some(out)
    } else {
        None
    };
    let dw = want[1].then(|| s.iter().map(|p| T::from_f64(p.1)).collect());
    let db = want[2].then(|| s.iter().map(|p| T::from_f64(p.0)).collect());
    Ok((dx, dw, db))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn train_backward_matches_finite_differences() {
        let sh = BnShape {
            outer: 3,
            c: 2,
            inner: 2,
        };
        let x: Vec<f64> = (0..12).map(|i| ((i * 7 % 5) as f64) * 0.3 - 0.4).collect();
        let w = [0.7, -1.3];
        let g: Vec<f64> = (0..12).map(|i| ((i * 3 % 7) as f64) * 0.2 - 0.5).collect();
        let loss = |x: &[f64]| -> f64 {
            let (m, v) = stats(x, &sh).unwrap();
            let y = normalize(x, &sh, &m, &v, Some(&w), None, 1e-5).unwrap();
            y.iter().zip(&g).map(|(a, b)| a * b).sum()
        };
        let (m, v) = stats(&x, &sh).unwrap();
        let rstd: Vec<f64> = v.iter().map(|v| 1.0 / (v + 1e-5).sqrt()).collect();
        let (dx, _, _) =
            backward(&g, &x, &sh, &m, &rstd, Some(&w), true, [true, false, false]).unwrap();
        let dx = dx.unwrap();
        for i in 0..x.len() {
            let (mut a, mut b) = (x.clone(), x.clone());
            a[i] += 1e-6;
            b[i] -= 1e-6;
            let num = (loss(&a) - loss(&b)) / 2e-6;
            assert!((num - dx[i]).abs() < 1e-6, "{i}: {num} vs {}", dx[i]);
        }
    }
}
