//! `softmax` and `log_softmax` over one dim of a contiguous tensor in one pass per row,
//! and their gradients when no graph is recorded.
//!
//! The tensor is viewed as `outer × n × inner` (the dim has length `n`); a *row* is the
//! `n` elements of one `(outer, inner)` pair, `inner` apart. Each function repeats, element
//! by element, the arithmetic of the composition it replaces and in the same order (the
//! row max, `x - max`, `exp`, the `sum` reduction, `/ sum` or `- log(sum)`; backward:
//! `y * (g - sum(g * y))`, `g - exp(y) * sum(g)`), so its results are bit-identical to the
//! composed ops: a contiguous row (`inner == 1`) is summed by [`sum_run`] (the `sum`
//! reduction's row fold), a strided one in order from zero (the reduction's outer kernel
//! adds one reduced index at a time).

use super::fused_nn::NnFloat;
use super::reduce::{sum_in_order, sum_run};
use crate::dtype::Element;
use crate::error::Result;
use crate::storage::try_filled_vec;

/// The rows of a softmax: `outer * inner` rows of `n` elements, `inner` apart.
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    /// Product of the dims before the softmax dim.
    pub outer: usize,
    /// Length of the softmax dim.
    pub n: usize,
    /// Product of the dims after it.
    pub inner: usize,
}

impl Rows {
    fn sum<T: NnFloat>(&self, row: &[T]) -> T {
        if self.inner == 1 {
            sum_run(row)
        } else {
            sum_in_order(row.iter().copied())
        }
    }

    /// Runs `f(rows_in, row_out)` on every row: `rows_in` holds the row of each input
    /// (gathered into scratch when strided), `row_out` is written back to `out`.
    fn each<T: NnFloat, const K: usize>(
        &self,
        inputs: [&[T]; K],
        out: &mut [T],
        mut f: impl FnMut([&[T]; K], &mut [T]),
    ) -> Result<()> {
        let n = self.n;
        if self.inner == 1 {
            for (r, o) in out.chunks_exact_mut(n).enumerate() {
                f(inputs.map(|x| &x[r * n..(r + 1) * n]), o);
            }
            return Ok(());
        }
        let zero = <T as Element>::zero();
        let mut bufs: Vec<Vec<T>> = (0..K)
            .map(|_| try_filled_vec(n, zero))
            .collect::<Result<_>>()?;
        let mut o = try_filled_vec(n, zero)?;
        for outer in 0..self.outer {
            for i in 0..self.inner {
                let base = outer * n * self.inner + i;
                for (b, x) in bufs.iter_mut().zip(inputs) {
                    for (j, v) in b.iter_mut().enumerate() {
                        *v = x[base + j * self.inner];
                    }
                }
                f(std::array::from_fn(|k| bufs[k].as_slice()), &mut o);
                for (j, &v) in o.iter().enumerate() {
                    out[base + j * self.inner] = v;
                }
            }
        }
        Ok(())
    }
}

/// The max reduction's rule: the largest element, NaN propagating.
fn row_max<T: NnFloat>(row: &[T]) -> T {
    let mut m = row[0];
    for &v in &row[1..] {
        if v > m || v.is_nan() {
            m = v;
        }
    }
    m
}

/// Softmax (`log`: log-softmax) of the contiguous `x` along the rows `r`; `r.n > 0`.
pub fn forward<T: NnFloat>(x: &[T], r: Rows, log: bool) -> Result<Vec<T>> {
    let mut out = try_filled_vec(x.len(), <T as Element>::zero())?;
    r.each([x], &mut out, |[row], o| {
        let m = row_max(row);
        T::exp_shifted(row, m, <T as Element>::zero(), o); // (v - m) - 0 is v - m
        let s = r.sum(o);
        if log {
            let ls = s.ln();
            for (d, &v) in o.iter_mut().zip(row) {
                *d = (v - m) - ls;
            }
        } else {
            for d in o.iter_mut() {
                *d = *d / s;
            }
        }
    })?;
    Ok(out)
}

/// The input gradient from the incoming gradient `g` and the output `y` (both contiguous,
/// of the input's shape): softmax's `y * (g - sum(g * y))`, log-softmax's
/// `g - exp(y) * sum(g)`.
pub fn backward<T: NnFloat>(g: &[T], y: &[T], r: Rows, log: bool) -> Result<Vec<T>> {
    let mut out = try_filled_vec(y.len(), <T as Element>::zero())?;
    r.each([g, y], &mut out, |[g, y], o| {
        if log {
            let total = r.sum(g);
            for ((d, &gv), &yv) in o.iter_mut().zip(g).zip(y) {
                *d = gv - yv.exp_k() * total;
            }
        } else {
            for ((d, &gv), &yv) in o.iter_mut().zip(g).zip(y) {
                *d = gv * yv;
            }
            let dot = r.sum(o);
            for ((d, &gv), &yv) in o.iter_mut().zip(g).zip(y) {
                *d = yv * (gv - dot);
            }
        }
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_a_strided_dim_match_the_contiguous_ones() {
        // [2, 3] along dim 0 == its transpose [3, 2] along dim 1
        let x = [0.5f64, -1.0, 2.0, 3.0, 0.0, 1.5];
        let xt = [0.5f64, 3.0, -1.0, 0.0, 2.0, 1.5];
        for log in [false, true] {
            let a = forward(
                &x,
                Rows {
                    outer: 1,
                    n: 2,
                    inner: 3,
                },
                log,
            )
            .unwrap();
            let b = forward(
                &xt,
                Rows {
                    outer: 3,
                    n: 2,
                    inner: 1,
                },
                log,
            )
            .unwrap();
            let bt = [b[0], b[2], b[4], b[1], b[3], b[5]];
            assert_eq!(a, bt);
        }
    }

    #[test]
    fn softmax_rows_sum_to_one_and_nan_propagates() {
        let x = [1.0f32, 2.0, 3.0, f32::NAN, 0.0, 1.0];
        let y = forward(
            &x,
            Rows {
                outer: 2,
                n: 3,
                inner: 1,
            },
            false,
        )
        .unwrap();
        assert!((y[0] + y[1] + y[2] - 1.0).abs() < 1e-6);
        assert!(y[3..].iter().all(|v| v.is_nan()));
    }
}
