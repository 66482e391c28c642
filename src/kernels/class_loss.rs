//! The class-index losses `cross_entropy` (log-softmax + NLL, optional label smoothing)
//! and `nll_loss` as one pass over the logits, and their one-pass gradient.
//!
//! The input is viewed as `outer × classes × inner` (PyTorch's `[N, C, d1, ...]` with the
//! classes at dim 1); a *position* is one `(outer, inner)` pair and has one target. The
//! forward repeats the composed ops' arithmetic in their order (shift by the row max,
//! `exp`, [`sum_run`], `log`, pick, weigh, negate), so on contiguous class rows it is
//! bit-identical to `log_softmax` + `nll_loss` composed of tensor ops.

use super::fused_nn::{parallel, NnFloat};
use super::reduce::sum_run;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;
use rayon::prelude::*;

/// What one class-index loss computes.
pub struct ClassLossSpec<'a, T> {
    /// Product of the dims before the class dim.
    pub outer: usize,
    /// Number of classes.
    pub classes: usize,
    /// Product of the dims after the class dim.
    pub inner: usize,
    /// One class id per position (row-major over `outer × inner`).
    pub targets: &'a [i64],
    /// Per-class weights (length `classes`), or all ones.
    pub weight: Option<&'a [T]>,
    /// Targets equal to this count for nothing.
    pub ignore_index: i64,
    /// Label smoothing in `[0, 1]` (0 for `nll_loss`).
    pub smoothing: f64,
    /// Log-softmax the input first (`cross_entropy`); else it holds log-probabilities.
    pub log_softmax: bool,
    /// The op's name for error messages.
    pub what: &'a str,
}

/// Per-position results of the forward.
pub struct ClassLossOut<T> {
    /// `-(log p[target] * w)` per position.
    pub nll: Vec<T>,
    /// The target's weight per position (0 where ignored).
    pub w: Vec<T>,
    /// The smoothing term `-(sum_c log p[c] * weight[c]) / C` where counted (0 elsewhere);
    /// empty without smoothing.
    pub smooth: Vec<T>,
    /// The row max the logits were shifted by (empty without log-softmax).
    pub shift: Vec<T>,
    /// `log(sum(exp(x - shift)))` per position (empty without log-softmax).
    pub log_sum: Vec<T>,
}

impl<T: NnFloat> ClassLossSpec<'_, T> {
    fn positions(&self) -> usize {
        self.outer * self.inner
    }

    /// The class row of position `p` (copied into `buf` unless classes are contiguous).
    fn row<'b>(&self, x: &'b [T], p: usize, buf: &'b mut Vec<T>) -> &'b [T] {
        let (o, i) = (p / self.inner, p % self.inner);
        let base = o * self.classes * self.inner + i;
        if self.inner == 1 {
            return &x[base..base + self.classes];
        }
        buf.clear();
        buf.extend((0..self.classes).map(|c| x[base + c * self.inner]));
        buf
    }

    /// The target of position `p`: `(counted, index read)`; an error when out of range.
    fn target(&self, p: usize) -> Result<(bool, usize)> {
        let t = self.targets[p];
        if t == self.ignore_index {
            return Ok((false, 0));
        }
        if t < 0 || t as u64 >= self.classes as u64 {
            return Err(Error::index(format!(
                "{}: target values must lie in [0, {}) or equal ignore_index={}, got {t}",
                self.what, self.classes, self.ignore_index
            )));
        }
        Ok((true, t as usize))
    }

    fn class_weight(&self, c: usize) -> T {
        self.weight.map_or(<T as Element>::one(), |w| w[c])
    }
}

/// Row max with the composed op's rule: a non-finite max shifts by 0.
fn shift_of<T: NnFloat>(row: &[T]) -> T {
    let mut m = row[0];
    for &v in &row[1..] {
        if v > m || v.is_nan() {
            m = v;
        }
    }
    if m.is_finite() {
        m
    } else {
        <T as Element>::zero()
    }
}

/// One position's forward results (gathered per position, then split into
/// [`ClassLossOut`]'s vectors).
#[derive(Clone, Copy)]
struct PosOut<T> {
    nll: T,
    w: T,
    smooth: T,
    shift: T,
    log_sum: T,
}

/// Work buffers of one thread: a gathered class row and the log-probabilities.
type RowBufs<T> = (Vec<T>, Vec<T>);

/// Positions per parallel task: about [`TASK_ELEMS`] logits each.
const TASK_ELEMS: usize = 1 << 12;

impl<T: NnFloat> ClassLossSpec<'_, T> {
    /// Every target checked up front, so the row passes cannot fail half-way and the error
    /// names the first bad target whatever the thread count.
    fn check_targets(&self) -> Result<()> {
        (0..self.positions()).try_for_each(|p| self.target(p).map(drop))
    }

    /// Positions handed to one task.
    fn positions_per_task(&self) -> usize {
        (TASK_ELEMS / self.classes.max(1)).max(1)
    }

    /// The forward of position `p` (its target already checked).
    #[inline(always)]
    fn forward_position(&self, x: &[T], p: usize, (buf, logp): &mut RowBufs<T>) -> PosOut<T> {
        let zero = <T as Element>::zero();
        let (counted, t) = self.target(p).unwrap_or((false, 0));
        let row = self.row(x, p, buf);
        logp.resize(self.classes, zero);
        let mut o = PosOut {
            nll: zero,
            w: zero,
            smooth: zero,
            shift: zero,
            log_sum: zero,
        };
        if self.log_softmax {
            let m = shift_of(row);
            T::exp_shifted(row, m, zero, logp); // (v - m) - 0 is v - m exactly
            let ls = sum_run(logp).ln();
            if self.smoothing > 0.0 {
                for (l, &v) in logp.iter_mut().zip(row) {
                    *l = (v - m) - ls;
                }
            } else {
                // only the target's log-probability is read below
                logp[t] = (row[t] - m) - ls;
            }
            (o.shift, o.log_sum) = (m, ls);
        } else {
            logp.copy_from_slice(row);
        }
        let valid = if counted { <T as Element>::one() } else { zero };
        o.w = valid * self.class_weight(t);
        o.nll = -(logp[t] * o.w);
        if self.smoothing > 0.0 {
            if let Some(cw) = self.weight {
                for (l, &wc) in logp.iter_mut().zip(cw) {
                    *l = *l * wc;
                }
            }
            o.smooth = -sum_run(logp) / T::from_f64(self.classes as f64) * valid;
        }
        o
    }

    /// Writes position `p`'s gradient to `dst[start + c * stride]` for each class `c`, in
    /// `T` arithmetic (`wsum`: the class weights' sum).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn backward_position(
        &self,
        x: &[T],
        p: usize,
        (shift, log_sum, gscale): (&[T], &[T], &[T]),
        wsum: T,
        dst: &mut [T],
        start: usize,
        stride: usize,
    ) {
        let (zero, one) = (<T as Element>::zero(), <T as Element>::one());
        let e = T::from_f64(self.smoothing);
        let (counted, t) = self.target(p).unwrap_or((false, 0));
        let g = gscale[p];
        let (w, valid) = if counted {
            (self.class_weight(t), one)
        } else {
            (zero, zero)
        };
        // a[c] = ev * weight[c] + [c == t] * at;  A = sum_c a[c]
        let ev = e * valid / T::from_f64(self.classes as f64);
        let at = (one - e) * w;
        let big_a = at + ev * wsum;
        let (o, i) = (p / self.inner, p % self.inner);
        let base = o * self.classes * self.inner + i;
        let (sh, ls) = if self.log_softmax {
            (shift[p], log_sum[p])
        } else {
            (zero, zero)
        };
        let grad = |xv: T, a: T| {
            if self.log_softmax {
                g * (big_a * ((xv - sh) - ls).exp_k() - a)
            } else {
                -(g * a)
            }
        };
        if self.log_softmax && self.inner == 1 && stride == 1 {
            // a contiguous row: softmax through the vectorised exp, then the affine step
            let row = &mut dst[start..start + self.classes];
            T::exp_shifted(&x[base..base + self.classes], sh, ls, row);
            match self.weight {
                Some(cw) => {
                    for (d, &wc) in row.iter_mut().zip(cw) {
                        *d = g * (big_a * *d - ev * wc);
                    }
                }
                None => {
                    for d in row.iter_mut() {
                        *d = g * (big_a * *d - ev);
                    }
                }
            }
        } else {
            // strided rows or log-probability input: element by element
            match self.weight {
                Some(cw) => {
                    for (c, &wc) in cw.iter().enumerate() {
                        dst[start + c * stride] = grad(x[base + c * self.inner], ev * wc);
                    }
                }
                None => {
                    for c in 0..self.classes {
                        dst[start + c * stride] = grad(x[base + c * self.inner], ev);
                    }
                }
            }
        }
        // the target's entry again, with its extra term
        if counted {
            let a = ev * self.class_weight(t) + at;
            dst[start + t * stride] = grad(x[base + t * self.inner], a);
        }
    }
}

/// The per-position forward of a class-index loss over contiguous `x`; positions run in
/// parallel on large inputs.
pub fn class_loss_forward<T: NnFloat>(
    x: &[T],
    s: &ClassLossSpec<'_, T>,
) -> Result<ClassLossOut<T>> {
    s.check_targets()?;
    let zero = <T as Element>::zero();
    let n = s.positions();
    let blank = PosOut {
        nll: zero,
        w: zero,
        smooth: zero,
        shift: zero,
        log_sum: zero,
    };
    let mut pos = try_filled_vec(n, blank)?;
    let per = s.positions_per_task();
    let run = |bufs: &mut RowBufs<T>, (ci, chunk): (usize, &mut [PosOut<T>])| {
        for (j, o) in chunk.iter_mut().enumerate() {
            *o = s.forward_position(x, ci * per + j, bufs);
        }
    };
    if parallel(x.len()) {
        pos.par_chunks_mut(per)
            .enumerate()
            .for_each_init(RowBufs::default, run);
    } else {
        let mut bufs = RowBufs::default();
        pos.chunks_mut(per)
            .enumerate()
            .for_each(|item| run(&mut bufs, item));
    }
    let smoothing = s.smoothing > 0.0;
    let take = |on: bool, f: fn(&PosOut<T>) -> T| -> Result<Vec<T>> {
        let mut v = try_filled_vec(if on { n } else { 0 }, zero)?;
        for (d, o) in v.iter_mut().zip(&pos) {
            *d = f(o);
        }
        Ok(v)
    };
    Ok(ClassLossOut {
        nll: take(true, |o| o.nll)?,
        w: take(true, |o| o.w)?,
        smooth: take(smoothing, |o| o.smooth)?,
        shift: take(s.log_softmax, |o| o.shift)?,
        log_sum: take(s.log_softmax, |o| o.log_sum)?,
    })
}

/// The gradient of `sum_p gscale[p] * loss[p]` with respect to `x` (contiguous), where
/// `loss[p] = (1 - smoothing) * nll[p] + smoothing * smooth[p]`. With
/// `a[c] = (1 - e) * w * [c == target] + e * counted * weight[c] / C` and `A = sum_c a[c]`
/// the gradient of position `p` is `gscale * (A * softmax(x)[c] - a[c])` after a
/// log-softmax, `-gscale * a[c]` on log-probabilities. Rows run in parallel on large
/// inputs (by groups of positions when classes are contiguous, by outer index otherwise).
pub fn class_loss_backward<T: NnFloat>(
    x: &[T],
    s: &ClassLossSpec<'_, T>,
    fwd_shift: &[T],
    fwd_log_sum: &[T],
    gscale: &[T],
) -> Result<Vec<T>> {
    s.check_targets()?;
    let mut gx = try_filled_vec(x.len(), <T as Element>::zero())?;
    if gx.is_empty() {
        return Ok(gx);
    }
    let wsum: f64 = (0..s.classes).map(|c| s.class_weight(c).to_f64()).sum();
    let wsum = T::from_f64(wsum);
    let saved = (fwd_shift, fwd_log_sum, gscale);
    let par = parallel(x.len());
    if s.inner == 1 {
        // position p owns gx[p*C .. (p+1)*C]
        let per = s.positions_per_task();
        let run = |(ci, chunk): (usize, &mut [T])| {
            for j in 0..chunk.len() / s.classes {
                let p = ci * per + j;
                s.backward_position(x, p, saved, wsum, chunk, j * s.classes, 1);
            }
        };
        if par {
            gx.par_chunks_mut(per * s.classes).enumerate().for_each(run);
        } else {
            gx.chunks_mut(per * s.classes).enumerate().for_each(run);
        }
    } else {
        // outer index o owns gx[o*C*I .. (o+1)*C*I]; its positions are strided by I
        let block = s.classes * s.inner;
        let run = |(o, chunk): (usize, &mut [T])| {
            for i in 0..s.inner {
                s.backward_position(x, o * s.inner + i, saved, wsum, chunk, i, s.inner);
            }
        };
        if par {
            gx.par_chunks_mut(block).enumerate().for_each(run);
        } else {
            gx.chunks_mut(block).enumerate().for_each(run);
        }
    }
    Ok(gx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(t: &'a [i64], w: Option<&'a [f64]>, e: f64) -> ClassLossSpec<'a, f64> {
        ClassLossSpec {
            outer: 2,
            classes: 3,
            inner: 1,
            targets: t,
            weight: w,
            ignore_index: -100,
            smoothing: e,
            log_softmax: true,
            what: "cross_entropy",
        }
    }

    #[test]
    fn cross_entropy_values_and_gradient() {
        let x = [0.5, -1.0, 2.0, 0.1, 0.2, -0.3];
        let t = [2i64, 0];
        let w = [1.0, 2.0, 0.5];
        let s = spec(&t, Some(&w), 0.1);
        let total = |x: &[f64]| {
            let f = class_loss_forward(x, &s).unwrap();
            (0..2)
                .map(|p| 0.9 * f.nll[p] + 0.1 * f.smooth[p])
                .sum::<f64>()
        };
        let f = class_loss_forward(&x, &s).unwrap();
        let lse0 = (0.5f64.exp() + (-1.0f64).exp() + 2.0f64.exp()).ln();
        assert!((f.nll[0] - 0.5 * (lse0 - 2.0)).abs() < 1e-12);
        let g = class_loss_backward(&x, &s, &f.shift, &f.log_sum, &[1.0, 1.0]).unwrap();
        for k in 0..6 {
            let (mut a, mut b) = (x, x);
            a[k] += 1e-6;
            b[k] -= 1e-6;
            let num = (total(&a) - total(&b)) / 2e-6;
            assert!((num - g[k]).abs() < 1e-6, "{k}: {num} vs {}", g[k]);
        }
    }

    #[test]
    fn out_of_range_target_is_an_index_error() {
        let t = [3i64, 0];
        let s = spec(&t, None, 0.0);
        assert!(class_loss_forward(&[0.0; 6], &s).is_err());
        let t = [-100i64, 0];
        let s = spec(&t, None, 0.0);
        let f = class_loss_forward(&[0.0; 6], &s).unwrap();
        assert_eq!(f.w, vec![0.0, 1.0]);
    }
}
