//! The fused GRU layer (gates r, z, n in PyTorch's order), forward and backward through
//! time; the shared conventions are those of [`super::rnn`].
//!
//! Unlike the LSTM, the GRU's recurrent bias sits inside `r * (h W_hn^T + b_hn)`, so it
//! is an operand here (not folded into `xp`), and the gradient of the recurrent
//! projection (`dgh`) differs from that of `xp` in its `n` block. Forward saves
//! `r, z, n` and `gh_n = h W_hn^T + b_hn` per step (`[T, B, 4H]`).

use super::rnn::{h_times_wt, transpose_w, Seq};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernels::matmul::matmul;
use crate::layout::Layout;
use crate::storage::try_filled_vec;
use num_traits::Float;
use smallvec::smallvec;

/// Gradients of one GRU layer run.
pub struct GruGrads<T> {
    /// `d xp`, `[T, B, 3H]`.
    pub dxp: Vec<T>,
    /// `d W_hh`, `[3H, H]`.
    pub dw: Vec<T>,
    /// `d b_hh`, `[3H]`.
    pub db: Vec<T>,
    /// `d h0`, `[B, H]`.
    pub dh0: Vec<T>,
}

fn sigmoid<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}

/// Runs one GRU layer: `xp` `[T, B, 3H]` (`x W_ih^T + b_ih`), `w` `[3H, H]`, `b` `[3H]`,
/// `h0` `[B, H]`. Returns the hidden states `[T, B, H]` and the saved gates `[T, B, 4H]`.
pub fn forward<T: Element + Float>(
    s: &Seq,
    xp: &[T],
    w: &[T],
    b: &[T],
    h0: &[T],
) -> Result<(Vec<T>, Vec<T>)> {
    let (hd, bh) = (s.hidden, s.batch * s.hidden);
    let tbh = s
        .steps
        .checked_mul(bh)
        .ok_or_else(|| Error::value("gru: size overflows"))?;
    let mut hs = try_filled_vec(tbh, <T as Element>::zero())?;
    let mut acts = try_filled_vec(tbh * 4, <T as Element>::zero())?;
    let one = <T as Element>::one();
    let wt = transpose_w(w, s, 3)?;
    for k in 0..s.steps {
        let t = s.at(k);
        let prev = if k == 0 { None } else { Some(s.at(k - 1)) };
        let gh = {
            let h_prev: &[T] = prev.map_or(h0, |p| &hs[p * bh..(p + 1) * bh]);
            h_times_wt(h_prev, &wt, s, 3)?
        };
        let x = &xp[t * bh * 3..(t + 1) * bh * 3];
        for bi in 0..s.batch {
            let (row, arow) = (bi * 3 * hd, bi * 4 * hd);
            for j in 0..hd {
                let e = bi * hd + j;
                let h_prev = prev.map_or(h0[e], |p| hs[p * bh + e]);
                let r = sigmoid(x[row + j] + gh[row + j] + b[j]);
                let z = sigmoid(x[row + hd + j] + gh[row + hd + j] + b[hd + j]);
                let ghn = gh[row + 2 * hd + j] + b[2 * hd + j];
                let n = (x[row + 2 * hd + j] + r * ghn).tanh();
                hs[t * bh + e] = (one - z) * n + z * h_prev;
                let a = &mut acts[t * bh * 4 + arow..];
                a[j] = r;
                a[hd + j] = z;
                a[2 * hd + j] = n;
                a[3 * hd + j] = ghn;
            }
        }
    }
    Ok((hs, acts))
}

/// Backward through time of [`forward`]; `gout` is the gradient of the states `[T, B, H]`.
pub fn backward<T: Element + Float>(
    s: &Seq,
    w: &[T],
    h0: &[T],
    hs: &[T],
    acts: &[T],
    gout: &[T],
) -> Result<GruGrads<T>> {
    let (hd, bh, steps) = (s.hidden, s.batch * s.hidden, s.steps);
    let tbh = steps * bh;
    let zero = <T as Element>::zero();
    let one = <T as Element>::one();
    let mut dxp = try_filled_vec(tbh * 3, zero)?;
    let mut dgh = try_filled_vec(tbh * 3, zero)?;
    let mut dh = try_filled_vec(bh, zero)?;
    let mut h_prev_all = try_filled_vec(tbh, zero)?;
    for k in (0..steps).rev() {
        let t = s.at(k);
        let prev = if k == 0 { None } else { Some(s.at(k - 1)) };
        let mut direct = try_filled_vec(bh, zero)?;
        for bi in 0..s.batch {
            let (row, arow) = (t * bh * 3 + bi * 3 * hd, t * bh * 4 + bi * 4 * hd);
            for j in 0..hd {
                let e = bi * hd + j;
                let h_prev = prev.map_or(h0[e], |p| hs[p * bh + e]);
                h_prev_all[t * bh + e] = h_prev;
                let (r, z) = (acts[arow + j], acts[arow + hd + j]);
                let (n, ghn) = (acts[arow + 2 * hd + j], acts[arow + 3 * hd + j]);
                let dh_t = gout[t * bh + e] + dh[e];
                direct[e] = dh_t * z;
                let dn = dh_t * (one - z) * (one - n * n);
                let dz = dh_t * (h_prev - n) * z * (one - z);
                let dr = dn * ghn * r * (one - r);
                dxp[row + j] = dr;
                dxp[row + hd + j] = dz;
                dxp[row + 2 * hd + j] = dn;
                dgh[row + j] = dr;
                dgh[row + hd + j] = dz;
                dgh[row + 2 * hd + j] = dn * r;
            }
        }
        let ld = Layout::contiguous(&[s.batch, 3 * hd]);
        let lw = Layout::contiguous(&[3 * hd, hd]);
        let back = matmul(&dgh[t * bh * 3..(t + 1) * bh * 3], &ld, w, &lw)?;
        dh = direct.iter().zip(&back).map(|(a, b)| *a + *b).collect();
    }
    let rows = steps * s.batch;
    let mut ldt = Layout::contiguous(&[3 * hd, rows]);
    ldt.strides = smallvec![1, (3 * hd) as isize];
    let dw = matmul(&dgh, &ldt, &h_prev_all, &Layout::contiguous(&[rows, hd]))?;
    let mut db = try_filled_vec(3 * hd, zero)?;
    for r in dgh.chunks_exact(3 * hd) {
        for (a, b) in db.iter_mut().zip(r) {
            *a = *a + *b;
        }
    }
    Ok(GruGrads {
        dxp,
        dw,
        db,
        dh0: dh,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 11) as f64 / (1u64 << 53) as f64) - 0.5
            })
            .collect()
    }

    #[test]
    fn gru_backward_matches_finite_differences() {
        for reverse in [false, true] {
            let s = Seq {
                steps: 3,
                batch: 2,
                hidden: 3,
                reverse,
            };
            let args = [lcg(54, 1), lcg(27, 2), lcg(9, 3), lcg(6, 4)];
            let r = lcg(18, 5);
            let loss = |a: &[Vec<f64>]| -> f64 {
                let (out, _) = forward(&s, &a[0], &a[1], &a[2], &a[3]).unwrap();
                out.iter().zip(&r).map(|(x, y)| x * y).sum()
            };
            let (out, acts) = forward(&s, &args[0], &args[1], &args[2], &args[3]).unwrap();
            let g = backward(&s, &args[1], &args[3], &out, &acts, &r).unwrap();
            let analytic = [&g.dxp, &g.dw, &g.db, &g.dh0];
            let eps = 1e-6;
            for (which, grad) in analytic.iter().enumerate() {
                for i in 0..args[which].len() {
                    let (mut a, mut b) = (args.clone(), args.clone());
                    a[which][i] += eps;
                    b[which][i] -= eps;
                    let fd = (loss(&a) - loss(&b)) / (2.0 * eps);
                    assert!((fd - grad[i]).abs() < 1e-7, "input {which} [{i}]");
                }
            }
        }
    }
}
