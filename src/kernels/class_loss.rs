//! The class-index losses `cross_entropy` (log-softmax + NLL, optional label smoothing)
//! and `nll_loss` as one pass over the logits, and their one-pass gradient.
//!
//! The input is viewed as `outer × classes × inner` (PyTorch's `[N, C, d1, ...]` with the
//! classes at dim 1); a *position* is one `(outer, inner)` pair and has one target. The
//! forward repeats the composed ops' arithmetic in their order (shift by the row max,
//! `exp`, [`sum_run`], `log`, pick, weigh, negate), so on contiguous class rows it is
//! bit-identical to `log_softmax` + `nll_loss` composed of tensor ops.

use super::fused_nn::NnFloat;
use super::reduce::sum_run;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

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

/// The per-position forward of a class-index loss over contiguous `x`.
pub fn class_loss_forward<T: NnFloat>(
    x: &[T],
    s: &ClassLossSpec<'_, T>,
) -> Result<ClassLossOut<T>> {
    let zero = <T as Element>::zero();
    let n = s.positions();
    let smoothing = s.smoothing > 0.0;
    let mut out = ClassLossOut {
        nll: try_filled_vec(n, zero)?,
        w: try_filled_vec(n, zero)?,
        smooth: try_filled_vec(if smoothing { n } else { 0 }, zero)?,
        shift: try_filled_vec(if s.log_softmax { n } else { 0 }, zero)?,
        log_sum: try_filled_vec(if s.log_softmax { n } else { 0 }, zero)?,
    };
    let mut buf = Vec::new();
    let mut logp = try_filled_vec(s.classes, zero)?;
    let c_t = T::from_f64(s.classes as f64);
    for p in 0..n {
        let (counted, t) = s.target(p)?;
        let row = s.row(x, p, &mut buf);
        if s.log_softmax {
            let m = shift_of(row);
            for (l, &v) in logp.iter_mut().zip(row) {
                *l = (v - m).exp_k();
            }
            let ls = sum_run(&logp).ln();
            for (l, &v) in logp.iter_mut().zip(row) {
                *l = (v - m) - ls;
            }
            out.shift[p] = m;
            out.log_sum[p] = ls;
        } else {
            logp.copy_from_slice(row);
        }
        let valid = if counted { <T as Element>::one() } else { zero };
        let w = valid * s.class_weight(t);
        out.w[p] = w;
        out.nll[p] = -(logp[t] * w);
        if smoothing {
            if let Some(cw) = s.weight {
                for (l, &wc) in logp.iter_mut().zip(cw) {
                    *l = *l * wc;
                }
            }
            out.smooth[p] = -sum_run(&logp) / c_t * valid;
        }
    }
    Ok(out)
}

/// The gradient of `sum_p gscale[p] * loss[p]` with respect to `x` (contiguous), where
/// `loss[p] = (1 - smoothing) * nll[p] + smoothing * smooth[p]`. With
/// `a[c] = (1 - e) * w * [c == target] + e * counted * weight[c] / C` and `A = sum_c a[c]`
/// the gradient of position `p` is `gscale * (A * softmax(x)[c] - a[c])` after a
/// log-softmax, `-gscale * a[c]` on log-probabilities.
pub fn class_loss_backward<T: NnFloat>(
    x: &[T],
    s: &ClassLossSpec<'_, T>,
    fwd_shift: &[T],
    fwd_log_sum: &[T],
    gscale: &[T],
) -> Result<Vec<T>> {
    let mut gx = try_filled_vec(x.len(), <T as Element>::zero())?;
    let e = s.smoothing;
    let wsum: f64 = (0..s.classes).map(|c| s.class_weight(c).to_f64()).sum();
    for p in 0..s.positions() {
        let (counted, t) = s.target(p)?;
        let g = gscale[p].to_f64();
        let w = if counted {
            s.class_weight(t).to_f64()
        } else {
            0.0
        };
        let valid = if counted { 1.0 } else { 0.0 };
        let big_a = (1.0 - e) * w + e * valid * wsum / s.classes as f64;
        let (o, i) = (p / s.inner, p % s.inner);
        let base = o * s.classes * s.inner + i;
        for c in 0..s.classes {
            let mut a = e * valid * s.class_weight(c).to_f64() / s.classes as f64;
            if c == t {
                a += (1.0 - e) * w;
            }
            let k = base + c * s.inner;
            gx[k] = T::from_f64(if s.log_softmax {
                let lp = (x[k] - fwd_shift[p]) - fwd_log_sum[p];
                g * (big_a * lp.exp_k().to_f64() - a)
            } else {
                -g * a
            });
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
