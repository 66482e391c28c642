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
use crate::dtype::Element;
use crate::error::Result;
use crate::storage::try_filled_vec;
use rayon::prelude::*;

/// Elements from which the kernels use several threads.
const PAR_MIN: usize = 1 << 15;
/// Runs this long or longer are summed pairwise (as the `sum` reduction's row fold).
const PAIRWISE_MIN: usize = 32;
/// Independent float64 accumulators of the backward's per-channel sums.
const BW_LANES: usize = 8;

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

/// Accumulators of [`lanes_sum`] and leaf size of [`tree_sum`]: the values of the `sum`
/// reduction's row fold (`reduce_loops::{LANES, BLOCK}`), which these sums reproduce bit
/// for bit (checked by the tests below against `reduce::sum_run`).
const LANES: usize = 16;
const LEAF: usize = 4096;

/// `sum(f(v))` over a run of at most [`LEAF`] elements, widened to float64, with
/// [`LANES`] accumulators merged as a tree (the reduction's `lanes` fold).
#[inline(always)]
fn lanes_sum<T: NnFloat>(x: &[T], f: &impl Fn(T) -> T) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += f(v).to_f64();
        }
    }
    for (a, &v) in acc.iter_mut().zip(tail) {
        *a += f(v).to_f64();
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        let (lo, hi) = acc.split_at_mut(w);
        for (a, &b) in lo.iter_mut().zip(hi.iter()) {
            *a += b;
        }
    }
    acc[0]
}

/// `sum(f(v))` folded as `reduce::sum_run::<f64>` folds the widened values (the
/// reduction's pairwise tree over [`LEAF`]-element leaves), reading `x` in place: no
/// float64 copy of the run.
fn tree_sum<T: NnFloat>(x: &[T], f: &impl Fn(T) -> T) -> f64 {
    if x.len() <= LEAF {
        return lanes_sum(x, f);
    }
    let (l, r) = x.split_at((x.len() / LEAF).div_ceil(2) * LEAF);
    tree_sum(l, f) + tree_sum(r, f)
}

/// The sum of `f(x)` over one channel's runs, folded as the composed `sum` does.
fn channel_sum<T: NnFloat>(x: &[T], sh: &BnShape, ch: usize, f: impl Fn(T) -> T) -> f64 {
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
            // `sum_run`'s `merge(0, tree)`: adding to zero first keeps its rounding
            acc += 0.0 + tree_sum(run, &f);
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
        let mean = T::from_f64(channel_sum(x, sh, ch, |v| v)) / m;
        let var = T::from_f64(channel_sum(x, sh, ch, |v| {
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

/// `y = a * x + b`-style per-channel maps: `f(channel)` gives the channel's element map,
/// which runs over that channel's contiguous segments (constants hoisted out of the
/// loop, so it vectorises); threads over the outer index.
fn map_channels<T: NnFloat, F: Fn(T) -> T>(
    x: &[T],
    sh: &BnShape,
    f: impl Fn(usize) -> F + Sync,
) -> Result<Vec<T>> {
    let mut out = try_filled_vec(x.len(), <T as Element>::zero())?;
    let block = sh.c * sh.inner;
    if block == 0 {
        return Ok(out);
    }
    let one = |(xo, oo): (&[T], &mut [T])| {
        for ch in 0..sh.c {
            let r = ch * sh.inner..(ch + 1) * sh.inner;
            let map = f(ch);
            for (o, &v) in oo[r.clone()].iter_mut().zip(&xo[r]) {
                *o = map(v);
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
    match b {
        None => map_channels(x, sh, |ch| {
            let (mu, fa) = (mean[ch], factor[ch]);
            move |v| (v - mu) * fa
        }),
        Some(b) => map_channels(x, sh, |ch| {
            let (mu, fa, bb) = (mean[ch], factor[ch], b[ch]);
            move |v| (v - mu) * fa + bb
        }),
    }
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
        None => map_channels(x, sh, |ch| {
            let (sc, sh) = (scale[ch], shift[ch]);
            move |v| v * sc - sh
        })?,
        Some(b) => {
            let add: Vec<T> = (0..sh.c).map(|ch| b[ch] - shift[ch]).collect();
            map_channels(x, sh, |ch| {
                let (sc, ad) = (scale[ch], add[ch]);
                move |v| v * sc + ad
            })?
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
    // per channel: sum(g) and sum(g * xhat), in float64 with BW_LANES independent
    // accumulators (one serial chain per sum was the backward's bottleneck)
    let sums = |ch: usize| {
        let (mu, rs) = (mean[ch].to_f64(), rstd[ch].to_f64());
        let (mut sg, mut sgc) = ([0.0f64; BW_LANES], [0.0f64; BW_LANES]);
        for o in 0..sh.outer {
            let r = sh.run(o, ch);
            let (gr, xr) = (&g[r.clone()], &x[r]);
            let (gc, xc) = (gr.chunks_exact(BW_LANES), xr.chunks_exact(BW_LANES));
            let (gt, xt) = (gc.remainder(), xc.remainder());
            for (gc, xc) in gc.zip(xc) {
                for i in 0..BW_LANES {
                    let gv = gc[i].to_f64();
                    sg[i] += gv;
                    sgc[i] += gv * (xc[i].to_f64() - mu);
                }
            }
            for (i, (&gv, &xv)) in gt.iter().zip(xt).enumerate() {
                let gv = gv.to_f64();
                sg[i] += gv;
                sgc[i] += gv * (xv.to_f64() - mu);
            }
        }
        // sum(g * (x - mu) * rs) = rs * sum(g * (x - mu))
        (sg.iter().sum::<f64>(), sgc.iter().sum::<f64>() * rs)
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
    use crate::kernels::reduce::sum_run;

    /// The in-place mapped sums fold exactly as `sum_run` over a widened copy (the fused
    /// forward's bit-identity with the composed `mean` rests on this).
    #[test]
    fn tree_sum_matches_sum_run_bit_for_bit() {
        for n in [
            32, 33, 47, 1000, 1024, 4095, 4096, 4097, 8192, 10_001, 70_000,
        ] {
            let x64: Vec<f64> = (0..n)
                .map(|i| ((i * 7919 % 1013) as f64).sin() * 3.7)
                .collect();
            let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
            let sq32 = |v: f32| (v - 0.3) * (v - 0.3);
            let sq64 = |v: f64| (v - 0.3) * (v - 0.3);
            let w32: Vec<f64> = x32.iter().map(|&v| sq32(v) as f64).collect();
            let w64: Vec<f64> = x64.iter().map(|&v| sq64(v)).collect();
            assert_eq!(
                (0.0 + tree_sum(&x32, &sq32)).to_bits(),
                sum_run::<f64>(&w32).to_bits()
            );
            assert_eq!(
                (0.0 + tree_sum(&x64, &sq64)).to_bits(),
                sum_run::<f64>(&w64).to_bits()
            );
            let id: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
            assert_eq!(
                (0.0 + tree_sum(&x32, &|v| v)).to_bits(),
                sum_run::<f64>(&id).to_bits()
            );
        }
    }

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
