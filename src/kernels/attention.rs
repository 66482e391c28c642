//! Scaled dot-product attention on the CPU: forward and a memory-saving backward
//! (FlashAttention-2's structure, tiled over rows of the query with the project's gemm).
//!
//! The forward keeps, per query row, only the log-sum-exp of its scores; the `[L, S]`
//! probability matrix exists one block of query rows at a time and is never returned.
//! The backward recomputes each block's probabilities from `q`, `k` and that log-sum-exp.
//! Dropout draws its keep flags from a counter-based hash of `(seed, batch, row, column)`,
//! so the backward regenerates exactly the forward's flags without storing them (the
//! global generator only supplies the seed — the reason for the small hash below instead
//! of a stream generator).
//!
//! A query row with every key masked gets all-zero weights (and zero gradients), as the
//! composed version and PyTorch's CPU kernel do.

use super::fused_nn::NnFloat;
use super::gemm_into::{gemm_into, Mat, Parallelism};
use super::matmul::matmul;
use crate::dtype::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::{try_filled_vec, try_vec_with_capacity};
use rayon::prelude::*;

/// Score elements per block of query rows (rows × keys) the kernels hold at once.
const BLOCK_ELEMS: usize = 1 << 16;
/// Total work (N·L·S·(E+Ev)) from which batches run on several threads.
const PAR_WORK: usize = 1 << 18;

/// Sizes of one attention call: `n` independent (batch × head) problems, `l` query rows,
/// `s` keys, `e` the query/key width and `ev` the value width.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    /// Flattened batch (and head) count.
    pub n: usize,
    /// Query length.
    pub l: usize,
    /// Key/value length.
    pub s: usize,
    /// Query/key feature size.
    pub e: usize,
    /// Value feature size.
    pub ev: usize,
}

/// A mask read through broadcast strides: element `(n, i, j)` sits at
/// `batch_off[n] + i * rs + j * cs` of `data`.
pub struct MaskView<'a, M> {
    /// The mask's storage.
    pub data: &'a [M],
    /// Offset of each batch's `[L, S]` matrix.
    pub batch_off: Vec<isize>,
    /// Stride between query rows (0 when broadcast).
    pub rs: isize,
    /// Stride between keys (0 when broadcast).
    pub cs: isize,
}

impl<M: Copy> MaskView<'_, M> {
    #[inline(always)]
    fn at(&self, n: usize, i: usize, j: usize) -> M {
        let o = self.batch_off[n] + i as isize * self.rs + j as isize * self.cs;
        self.data[o as usize]
    }
}

/// The user's mask: none, keep-flags (True = attend) or an additive float bias.
pub enum Mask<'a, T> {
    /// Every key is attended (up to `causal`).
    None,
    /// Keys with a false flag are left out.
    Keep(MaskView<'a, bool>),
    /// Added to the scaled scores (`-inf` leaves a key out).
    Bias(MaskView<'a, T>),
}

/// What is fixed for one call: the score scale, causal masking, the mask and dropout.
pub struct Params<'a, T> {
    /// Multiplies `q · k` (usually `1/sqrt(e)`).
    pub scale: f64,
    /// Keeps only keys `j <= i` (top-left aligned).
    pub causal: bool,
    /// The user's mask.
    pub mask: Mask<'a, T>,
    /// Dropout probability and the seed of its keep flags (`p = 0`: no dropout).
    pub dropout: (f64, u64),
}

/// SplitMix64's `idx`-th output for `seed`: the keep flag of one weight.
#[inline(always)]
fn hash_uniform(seed: u64, idx: u64) -> f64 {
    let mut z = seed.wrapping_add(idx.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl<T: NnFloat> Params<'_, T> {
    /// The score of `(n, i, j)` after scale and mask, from the raw `q · k`; `None` when
    /// the key is left out.
    #[inline(always)]
    fn score(&self, n: usize, i: usize, j: usize, raw: T) -> Option<T> {
        if self.causal && j > i {
            return None;
        }
        let s = raw * T::from_f64(self.scale);
        match &self.mask {
            Mask::None => Some(s),
            Mask::Keep(m) => m.at(n, i, j).then_some(s),
            Mask::Bias(m) => {
                let v = s + m.at(n, i, j);
                (v.to_f64() != f64::NEG_INFINITY).then_some(v)
            }
        }
    }

    /// True when no key is ever left out and nothing is added: the scores are the scaled
    /// products alone, computed by a loop the compiler vectorises.
    fn plain(&self) -> bool {
        !self.causal && matches!(self.mask, Mask::None)
    }

    /// True when dropout changes some weight (`0 < p`).
    fn dropping(&self) -> bool {
        self.dropout.0 > 0.0
    }

    /// Turns one row of raw `q · k` into its scores in place (`-inf` where the key is left
    /// out); returns the row's largest score (`-inf` when none is kept).
    fn scores_into(&self, n: usize, i: usize, row: &mut [T]) -> T {
        let ninf = T::from_f64(f64::NEG_INFINITY);
        if self.plain() {
            // the same `raw * scale` as `score`, without its per-element branches
            let sc = T::from_f64(self.scale);
            row.iter_mut().for_each(|x| *x = *x * sc);
        } else {
            for (j, x) in row.iter_mut().enumerate() {
                *x = self.score(n, i, j, *x).unwrap_or(ninf);
            }
        }
        row_max(row)
    }

    /// The dropout factor of weight `(n, i, j)`: `1/(1-p)` when kept, else 0.
    #[inline(always)]
    fn drop_factor(&self, d: &Dims, n: usize, i: usize, j: usize) -> T {
        let (p, seed) = self.dropout;
        if p <= 0.0 {
            return <T as Element>::one();
        }
        if p >= 1.0 {
            return <T as Element>::zero();
        }
        let idx = ((n as u64 * d.l as u64) + i as u64)
            .wrapping_mul(d.s as u64)
            .wrapping_add(j as u64);
        if hash_uniform(seed, idx) >= p {
            T::from_f64(1.0 / (1.0 - p))
        } else {
            <T as Element>::zero()
        }
    }

    /// Keep flags (as `0`/`1/(1-p)` factors) of every weight, `[n, l, s]` row-major: the
    /// composed fallback multiplies by them to reproduce the fused op's dropout.
    pub fn drop_factors(&self, d: &Dims) -> Result<Vec<T>> {
        let mut v = try_filled_vec(d.n * d.l * d.s, <T as Element>::zero())?;
        for n in 0..d.n {
            for i in 0..d.l {
                for j in 0..d.s {
                    v[(n * d.l + i) * d.s + j] = self.drop_factor(d, n, i, j);
                }
            }
        }
        Ok(v)
    }

    /// The additive constant the composed fallback adds to the scaled scores (the bias,
    /// or `-inf` where a key is left out, and 0 on rows that keep nothing) and, per row,
    /// 1 or 0 for whether it keeps any key: `([n, l, s], [n, l])`.
    pub fn composed_bias(&self, d: &Dims) -> Result<(Vec<T>, Vec<T>)> {
        let zero = <T as Element>::zero();
        let mut bias = try_filled_vec(d.n * d.l * d.s, zero)?;
        let mut some = try_filled_vec(d.n * d.l, zero)?;
        let ninf = T::from_f64(f64::NEG_INFINITY);
        for n in 0..d.n {
            for i in 0..d.l {
                let row = &mut bias[(n * d.l + i) * d.s..(n * d.l + i + 1) * d.s];
                let mut any = false;
                for (j, b) in row.iter_mut().enumerate() {
                    // score(raw = 0) is the bias alone (or None when left out)
                    match self.score(n, i, j, zero) {
                        Some(v) => {
                            any = true;
                            *b = v;
                        }
                        None => *b = ninf,
                    }
                }
                if any {
                    some[n * d.l + i] = <T as Element>::one();
                } else {
                    row.iter_mut().for_each(|b| *b = zero);
                }
            }
        }
        Ok((bias, some))
    }
}

fn rows_per_block(d: &Dims) -> usize {
    (BLOCK_ELEMS / d.s.max(1)).clamp(1, d.l.max(1))
}

fn parallel(d: &Dims) -> bool {
    let work =
        d.n.saturating_mul(d.l)
            .saturating_mul(d.s)
            .saturating_mul(d.e + d.ev);
    d.n > 1 && work >= PAR_WORK && crate::interrupt::parallel_allowed()
}

/// `a [m, k] @ b^T` with `b` `[n, k]`, both contiguous.
fn mm_nt<T: Element>(a: &[T], m: usize, b: &[T], n: usize, k: usize) -> Result<Vec<T>> {
    let lb = Layout::contiguous(&[n, k]).swap_dims(0, 1);
    matmul(a, &Layout::contiguous(&[m, k]), b, &lb)
}

/// `a [m, k] @ b [k, n]`, both contiguous.
fn mm_nn<T: Element>(a: &[T], m: usize, b: &[T], k: usize, n: usize) -> Result<Vec<T>> {
    matmul(
        a,
        &Layout::contiguous(&[m, k]),
        b,
        &Layout::contiguous(&[k, n]),
    )
}

/// Runs `f` for every batch, on several threads when the work is large, and returns the
/// results in batch order.
fn per_batch<R: Send>(d: &Dims, f: impl Fn(usize) -> Result<R> + Sync) -> Result<Vec<R>> {
    if parallel(d) {
        (0..d.n).into_par_iter().map(&f).collect()
    } else {
        (0..d.n).map(f).collect()
    }
}

/// The forward: `(out [n, l, ev], lse [n, l])` from contiguous `q [n, l, e]`,
/// `k [n, s, e]`, `v [n, s, ev]`. `lse` is `+inf` on rows that keep no key.
pub fn forward<T: NnFloat>(
    d: &Dims,
    q: &[T],
    k: &[T],
    v: &[T],
    p: &Params<'_, T>,
) -> Result<(Vec<T>, Vec<T>)> {
    let br = rows_per_block(d);
    let parts = per_batch(d, |n| {
        let qn = &q[n * d.l * d.e..(n + 1) * d.l * d.e];
        let kn = &k[n * d.s * d.e..(n + 1) * d.s * d.e];
        let vn = &v[n * d.s * d.ev..(n + 1) * d.s * d.ev];
        let mut out = try_vec_with_capacity(d.l * d.ev)?;
        // rows that keep no key (all of them when there are no keys) stay at +inf
        let mut lse = try_filled_vec(d.l, T::from_f64(f64::INFINITY))?;
        let mut tmp = try_filled_vec(d.s, <T as Element>::zero())?;
        for r0 in (0..d.l).step_by(br) {
            let rows = br.min(d.l - r0);
            let mut sc = mm_nt(&qn[r0 * d.e..(r0 + rows) * d.e], rows, kn, d.s, d.e)?;
            for (ri, row) in sc.chunks_mut(d.s.max(1)).take(rows).enumerate() {
                lse[r0 + ri] = softmax_row(p, d, n, r0 + ri, row, &mut tmp);
            }
            out.extend(mm_nn(&sc, rows, vn, d.s, d.ev)?);
        }
        Ok((out, lse))
    })?;
    let mut out = try_vec_with_capacity(d.n * d.l * d.ev)?;
    let mut lse = try_vec_with_capacity(d.n * d.l)?;
    for (o, l) in parts {
        out.extend(o);
        lse.extend(l);
    }
    Ok((out, lse))
}

/// The largest element of `row` (`-inf` for an empty row; NaNs are skipped), with eight
/// independent running maxima so the loop is not one serial chain.
fn row_max<T: NnFloat>(row: &[T]) -> T {
    let ninf = T::from_f64(f64::NEG_INFINITY);
    let mut lanes = [ninf; 8];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            if x > *l {
                *l = x;
            }
        }
    }
    for &x in chunks.remainder() {
        if x > lanes[0] {
            lanes[0] = x;
        }
    }
    lanes.iter().fold(ninf, |m, &x| if x > m { x } else { m })
}

/// The sum of `row` in float64, with four independent accumulators.
fn row_sum_f64<T: NnFloat>(row: &[T]) -> f64 {
    let mut acc = [0.0f64; 4];
    let mut chunks = row.chunks_exact(4);
    for c in &mut chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += x.to_f64();
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|&x| x.to_f64()).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Turns one row of raw `q · k` into its (dropped-out) weights in place; returns the
/// row's log-sum-exp (`+inf` when no key is kept). `tmp` is scratch of the row's length.
/// The exponentials run through [`NnFloat::exp_shifted`] (SIMD for float32); a left-out
/// key's `-inf` score gives exactly 0.
fn softmax_row<T: NnFloat>(
    p: &Params<'_, T>,
    d: &Dims,
    n: usize,
    i: usize,
    row: &mut [T],
    tmp: &mut [T],
) -> T {
    let ninf = T::from_f64(f64::NEG_INFINITY);
    let m = p.scores_into(n, i, row);
    if m == ninf {
        row.iter_mut().for_each(|x| *x = <T as Element>::zero());
        return T::from_f64(f64::INFINITY);
    }
    let tmp = &mut tmp[..row.len()];
    T::exp_shifted(row, m, <T as Element>::zero(), tmp);
    let sum = row_sum_f64(tmp);
    let inv = T::from_f64(1.0 / sum);
    if p.dropping() {
        for (j, (x, &e)) in row.iter_mut().zip(tmp.iter()).enumerate() {
            *x = e * inv * p.drop_factor(d, n, i, j);
        }
    } else {
        row.iter_mut()
            .zip(tmp.iter())
            .for_each(|(x, &e)| *x = e * inv);
    }
    T::from_f64(m.to_f64() + sum.ln())
}

/// Gradients `(dq, dk, dv)` from the incoming gradient `g [n, l, ev]`, the inputs, the
/// forward's output and log-sum-exp; the probabilities are recomputed block by block.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn backward<T: NnFloat>(
    d: &Dims,
    q: &[T],
    k: &[T],
    v: &[T],
    out: &[T],
    lse: &[T],
    g: &[T],
    p: &Params<'_, T>,
) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let br = rows_per_block(d);
    let zero = <T as Element>::zero();
    let scale = T::from_f64(p.scale);
    let parts = per_batch(d, |n| {
        let qn = &q[n * d.l * d.e..(n + 1) * d.l * d.e];
        let kn = &k[n * d.s * d.e..(n + 1) * d.s * d.e];
        let vn = &v[n * d.s * d.ev..(n + 1) * d.s * d.ev];
        let on = &out[n * d.l * d.ev..(n + 1) * d.l * d.ev];
        let gn = &g[n * d.l * d.ev..(n + 1) * d.l * d.ev];
        let mut dq = try_vec_with_capacity(d.l * d.e)?;
        let mut dk = try_filled_vec(d.s * d.e, zero)?;
        let mut dv = try_filled_vec(d.s * d.ev, zero)?;
        let mut tmp = try_filled_vec(d.s, zero)?;
        for r0 in (0..d.l).step_by(br) {
            let rows = br.min(d.l - r0);
            let (qb, gb) = (
                &qn[r0 * d.e..(r0 + rows) * d.e],
                &gn[r0 * d.ev..(r0 + rows) * d.ev],
            );
            // probabilities (then their dropped-out form) and dP = dO V^T
            let mut pb = mm_nt(qb, rows, kn, d.s, d.e)?;
            let mut ds = mm_nt(gb, rows, vn, d.s, d.ev)?;
            for ri in 0..rows {
                let i = r0 + ri;
                let m = lse[n * d.l + i];
                let (prow, drow) = (
                    &mut pb[ri * d.s..(ri + 1) * d.s],
                    &mut ds[ri * d.s..(ri + 1) * d.s],
                );
                if m.to_f64() == f64::INFINITY {
                    prow.iter_mut().for_each(|x| *x = zero);
                    drow.iter_mut().for_each(|x| *x = zero);
                    continue;
                }
                // D_i = dO_i · O_i (= sum_j P_ij dP_ij, dropout included)
                let oi = &on[i * d.ev..(i + 1) * d.ev];
                let gi = &gb[ri * d.ev..(ri + 1) * d.ev];
                let di: f64 = oi
                    .iter()
                    .zip(gi)
                    .map(|(&a, &b)| a.to_f64() * b.to_f64())
                    .sum();
                let di = T::from_f64(di);
                // P_ij = e^(score - lse): 0 where the key is left out (score -inf)
                p.scores_into(n, i, prow);
                let pr = &mut tmp[..d.s];
                T::exp_shifted(prow, m, zero, pr);
                // dS = P (dP∘Z - D), the scale folded in for dQ and dK
                if p.dropping() {
                    for j in 0..d.s {
                        let z = p.drop_factor(d, n, i, j);
                        drow[j] = pr[j] * (drow[j] * z - di) * scale;
                        prow[j] = pr[j] * z;
                    }
                } else {
                    for ((dj, pj), &e) in drow.iter_mut().zip(prow.iter_mut()).zip(pr.iter()) {
                        *dj = e * (*dj - di) * scale;
                        *pj = e;
                    }
                }
            }
            // dV += (P∘Z)^T dO ; dQ = dS K ; dK += dS^T Q (accumulated in place)
            let (pm, dsm) = (
                Mat::row_major(&pb, 0, rows, d.s).t(),
                Mat::row_major(&ds, 0, rows, d.s),
            );
            let gm = Mat::row_major(gb, 0, rows, d.ev);
            gemm_into(&mut dv, d.ev, pm, gm, true, Parallelism::None)?;
            dq.extend(mm_nn(&ds, rows, kn, d.s, d.e)?);
            let qm = Mat::row_major(qb, 0, rows, d.e);
            gemm_into(&mut dk, d.e, dsm.t(), qm, true, Parallelism::None)?;
        }
        Ok((dq, dk, dv))
    })?;
    let mut dq = try_vec_with_capacity(d.n * d.l * d.e)?;
    let mut dk = try_vec_with_capacity(d.n * d.s * d.e)?;
    let mut dv = try_vec_with_capacity(d.n * d.s * d.ev)?;
    for (a, b, c) in parts {
        dq.extend(a);
        dk.extend(b);
        dv.extend(c);
    }
    Ok((dq, dk, dv))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize, seed: u64) -> Vec<f64> {
        (0..len)
            .map(|i| hash_uniform(seed, i as u64) * 2.0 - 1.0)
            .collect()
    }

    fn params(causal: bool) -> Params<'static, f64> {
        Params {
            scale: 0.7,
            causal,
            mask: Mask::None,
            dropout: (0.0, 0),
        }
    }

    /// Attention by the definition, one weight at a time.
    fn naive(d: &Dims, q: &[f64], k: &[f64], v: &[f64], causal: bool) -> Vec<f64> {
        let mut out = vec![0.0; d.n * d.l * d.ev];
        for n in 0..d.n {
            for i in 0..d.l {
                let s: Vec<f64> = (0..d.s)
                    .map(|j| {
                        if causal && j > i {
                            return f64::NEG_INFINITY;
                        }
                        let qk: f64 = (0..d.e)
                            .map(|t| q[(n * d.l + i) * d.e + t] * k[(n * d.s + j) * d.e + t])
                            .sum();
                        qk * 0.7
                    })
                    .collect();
                let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let w: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
                let z: f64 = w.iter().sum();
                for j in 0..d.s {
                    for t in 0..d.ev {
                        out[(n * d.l + i) * d.ev + t] += w[j] / z * v[(n * d.s + j) * d.ev + t];
                    }
                }
            }
        }
        out
    }

    #[test]
    fn forward_matches_the_definition() {
        let d = Dims {
            n: 2,
            l: 5,
            s: 4,
            e: 3,
            ev: 2,
        };
        let (q, k, v) = (data(30, 1), data(24, 2), data(16, 3));
        for causal in [false, true] {
            let (out, lse) = forward(&d, &q, &k, &v, &params(causal)).unwrap();
            let want = naive(&d, &q, &k, &v, causal);
            for (a, b) in out.iter().zip(&want) {
                assert!((a - b).abs() < 1e-12, "{a} vs {b}");
            }
            assert!(lse.iter().all(|x| x.is_finite()));
        }
    }

    #[test]
    fn backward_matches_finite_differences() {
        let d = Dims {
            n: 1,
            l: 3,
            s: 4,
            e: 2,
            ev: 2,
        };
        let (q, k, v) = (data(6, 4), data(8, 5), data(8, 6));
        let g = data(6, 7);
        let p = params(true);
        let loss = |q: &[f64], k: &[f64], v: &[f64]| -> f64 {
            let (o, _) = forward(&d, q, k, v, &p).unwrap();
            o.iter().zip(&g).map(|(a, b)| a * b).sum()
        };
        let (out, lse) = forward(&d, &q, &k, &v, &p).unwrap();
        let (dq, dk, dv) = backward(&d, &q, &k, &v, &out, &lse, &g, &p).unwrap();
        let h = 1e-6;
        for (which, grad) in [(0, &dq), (1, &dk), (2, &dv)] {
            for i in 0..grad.len() {
                let mut x = [q.clone(), k.clone(), v.clone()];
                x[which][i] += h;
                let up = loss(&x[0], &x[1], &x[2]);
                x[which][i] -= 2.0 * h;
                let down = loss(&x[0], &x[1], &x[2]);
                let num = (up - down) / (2.0 * h);
                assert!(
                    (num - grad[i]).abs() < 1e-7,
                    "{which}/{i}: {num} vs {}",
                    grad[i]
                );
            }
        }
    }
}
