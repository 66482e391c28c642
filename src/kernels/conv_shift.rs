//! Unit-stride convolution as one matrix product per kernel row over the zero-padded
//! input planes, without the 9x im2col matrix (an "implicit gemm" on the project's
//! gemm).
//!
//! On the padded grid ([`Grid`]) tap (a, b, c) of every output column `q` reads padded
//! index `q + row_off(a, b) + c*dl2`. Each padded plane is stored `k2` times, copy `c`
//! shifted left by `c*dl2` ("row-tap replication", 3x the input for a 3x3 kernel where
//! im2col writes 9x), so that the reads of kernel row (a, b) over a group's channels and
//! the `k2` taps of the row are one strided matrix `[cg*k2, Q]` (rows a padded plane
//! apart, columns contiguous) lying in that buffer, at offset `row_off(a, b)`. Per sample
//! and group:
//!
//! - forward: `ext[og, Q] = sum_(a,b) W_ab[og, cg*k2] @ X_ab[cg*k2, Q]`, then the real
//!   columns of `ext` (plus bias) are copied out;
//! - weight gradient: `dW_ab^T[cg*k2, og] += X_ab @ gyext[og, Q]^T`, where `gyext` is the
//!   output gradient spread onto the grid (zero in the dropped columns); the bias
//!   gradient is summed in the same copy;
//! - input gradient: the unit-stride convolution of the output gradient, padded by
//!   `dl*(k-1) - pad`, with the flipped, transposed kernel (the forward's products on
//!   [`Grid::transposed`]), so no col2im either.
//!
//! The products have inner size `cg*k2` (192 for 64 channels and a 3x3 kernel), which
//! the gemm runs faster than `cg` alone (one product per tap, 92 against 114 GFLOP/s
//! on one core for `[64, 64|192] @ [64|192, 1088]`), at the cost of a few dropped
//! columns. Samples are split into one block per pool thread as in `conv_gemm`; weight
//! gradients are summed per block, then over blocks in order, so results do not depend
//! on scheduling.

use super::conv_direct::ConvFloat;
use super::conv_gemm::ConvDims;
use super::conv_grid::Grid;
use super::conv_panel;
use super::gemm_into::{gemm_into, Mat, Parallelism};
use super::par::{build_blocks, Fresh};
use crate::dtype::Element;
use crate::error::Result;
use crate::storage::try_filled_vec;

/// Output positions per sample from which the shifted path is chosen over im2col
/// (smaller images batch several samples into one im2col product instead).
const MIN_COLS: usize = 512;

/// The shifted path's plan: the forward grid and the input gradient's grid.
#[derive(Clone, Debug)]
pub struct ShiftPlan {
    fwd: Grid,
    bwd: Grid,
}

/// The plan when the shifted path can run `d` (unit stride, pads within
/// `0..=dilation*(kernel-1)` per side, not a 1x1 kernel); `force` skips the size test
/// that otherwise keeps small images on the im2col path.
pub fn plan(d: &ConvDims, force: bool) -> Option<ShiftPlan> {
    let empty = d.c == 0 || d.o == 0 || d.plane == 0;
    if empty || d.kk == 1 || !(force || d.l >= MIN_COLS) {
        return None;
    }
    let fwd = Grid::of(d)?;
    let bwd = fwd.transposed()?;
    Some(ShiftPlan { fwd, bwd })
}

/// The weight `[o, cg, k0, k1, k2]` rearranged per group and kernel row for the
/// products: `[groups, k0*k1, og, cg*k2]`, or for the input gradient (`transpose`)
/// `[groups, k0*k1, cg, og*k2]` with the taps flipped.
fn arrange<T: ConvFloat>(w: &[T], d: &ConvDims, transpose: bool) -> Result<Vec<T>> {
    let (cg, og, kk, k2) = (d.cg(), d.og(), d.kk, d.geo.kernel[2]);
    let rows = kk / k2;
    let mut r = try_filled_vec(w.len(), <T as Element>::zero())?;
    for gi in 0..d.groups {
        for j in 0..og {
            for ci in 0..cg {
                let src = &w[((gi * og + j) * cg + ci) * kk..][..kk];
                for (t, &v) in src.iter().enumerate() {
                    let at = if transpose {
                        let t = kk - 1 - t;
                        (((gi * rows + t / k2) * cg + ci) * og + j) * k2 + t % k2
                    } else {
                        (((gi * rows + t / k2) * og + j) * cg + ci) * k2 + t % k2
                    };
                    r[at] = v;
                }
            }
        }
    }
    Ok(r)
}

/// Stores the `planes` planes of `src` (`prod(g.s)` each) padded, each `k2` times, copy
/// `c` shifted left by `c*dl2`, into `dst` (`planes*k2` padded planes; the borders stay
/// as they are, zero).
fn replicate<T: ConvFloat>(g: &Grid, src: &[T], dst: &mut [T]) {
    let (p, k2, step) = (g.padded_len(), g.k[2], g.dl[2]);
    let plane: usize = g.s.iter().product();
    for (src, dst) in src.chunks_exact(plane).zip(dst.chunks_exact_mut(k2 * p)) {
        let (first, rest) = dst.split_at_mut(p);
        g.pad(src, first);
        for (c, copy) in rest.chunks_exact_mut(p).enumerate() {
            let shift = (c + 1) * step;
            copy[..p - shift].copy_from_slice(&first[shift..]);
        }
    }
}

/// `ext[groups*rows, g.q] = sum_(a,b) wr_ab @ X_ab` for one sample whose replicated
/// padded planes ([`replicate`]) are `xp`: per group, `wr_ab` is `[rows, inner]` and
/// `X_ab` (`inner` = channels x `k2`) the planes at the kernel row's offset.
fn shifted_products<T: ConvFloat>(
    g: &Grid,
    xp: &[T],
    wr: &[T],
    (groups, inner, rows): (usize, usize, usize),
    ext: &mut [T],
    par: Parallelism,
) -> Result<()> {
    let (p, q, offs) = (g.padded_len(), g.q, g.row_offsets());
    for gi in 0..groups {
        for (t, &off) in offs.iter().enumerate() {
            let a = Mat::row_major(wr, (gi * offs.len() + t) * rows * inner, rows, inner);
            let b = Mat {
                data: xp,
                off: gi * inner * p + off,
                rows: inner,
                cols: q,
                rs: p as isize,
                cs: 1,
            };
            gemm_into(&mut ext[gi * rows * q..], q, a, b, t > 0, par)?;
        }
    }
    Ok(())
}

/// Forward: `x` `[n, c, *spatial]`, `w` `[o, cg, *kernel]`, `bias` `[o]` → `[n, o, *out]`.
pub fn forward<T: ConvFloat>(
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    d: &ConvDims,
    plan: &ShiftPlan,
) -> Result<Vec<T>> {
    let g = &plan.fwd;
    let (c, o, l, p) = (d.c, d.o, d.l, g.padded_len());
    let (in_block, out_block) = (c * d.plane, o * l);
    let zero = <T as Element>::zero();
    let total = d.n * out_block;
    if total == 0 {
        return Ok(Vec::new());
    }
    let k2 = g.k[2];
    let (per, par) = d.blocks(d.work_per_sample());
    let blocks = d.n.div_ceil(per);
    let dims = (d.groups, d.cg() * k2, d.og());
    // float32: the packed-panel kernel over planes padded once; else gemm per kernel row
    // over the row-tap-replicated planes
    let packed = conv_panel::pack(w, d, false, par)?;
    let wr = match packed {
        Some(_) => Vec::new(),
        None => arrange(w, d, false)?,
    };
    let run = |bi: usize, ob: &mut Fresh<'_, T>| -> Result<()> {
        let first = bi * per;
        let (xp_len, ext_len) = match packed {
            Some(_) => (c * p + conv_panel::SPARE, 0),
            None => (c * k2 * p, o * g.q),
        };
        let mut xp = try_filled_vec(xp_len, zero)?;
        let mut ext = try_filled_vec(ext_len, zero)?;
        for s in first..(first + per).min(d.n) {
            let xn = &x[s * in_block..][..in_block];
            // the sample's output, zeroed just before the kernel overwrites it (cache-hot)
            let on = ob.next(out_block);
            if let Some(pk) = packed.as_deref() {
                conv_panel::sample(g, xn, &mut xp, pk, d.cg(), bias, on, l)?;
                continue;
            }
            replicate(g, xn, &mut xp);
            shifted_products(g, &xp, &wr, dims, &mut ext, par)?;
            for (oi, dst) in on.chunks_exact_mut(l).enumerate() {
                let b = bias.map_or(zero, |b| b[oi]);
                g.crop(&ext[oi * g.q..][..g.q], dst, b);
            }
        }
        Ok(())
    };
    let (out, _) = build_blocks(total, blocks, per * out_block, zero, blocks > 1, &run)?;
    Ok(out)
}

/// Gradients of [`forward`] (each only when asked for).
pub struct ShiftGrads<T> {
    /// `[n, c, *spatial]`.
    pub dx: Option<Vec<T>>,
    /// `[o, cg, *kernel]`.
    pub dw: Option<Vec<T>>,
    /// `[o]`.
    pub db: Option<Vec<T>>,
}

/// One block's weight gradient (`[groups, k0*k1, cg*k2, og]`) and bias gradient.
type Partial<T> = (Option<Vec<T>>, Option<Vec<T>>);

/// Backward of [`forward`] for output gradient `gy` `[n, o, *out]`; `need` = (input,
/// weight, bias).
pub fn backward<T: ConvFloat>(
    x: &[T],
    w: &[T],
    gy: &[T],
    d: &ConvDims,
    plan: &ShiftPlan,
    (need_x, need_w, need_b): (bool, bool, bool),
) -> Result<ShiftGrads<T>> {
    let (g, gt) = (&plan.fwd, &plan.bwd);
    let (c, o, l, kk) = (d.c, d.o, d.l, d.kk);
    let (cg, og) = (d.cg(), d.og());
    let (in_block, out_block, wlen) = (c * d.plane, o * l, o * cg * kk);
    let zero = <T as Element>::zero();
    let (k2, rows, offs) = (g.k[2], kk / g.k[2], g.row_offsets());
    let (per, par) = d.blocks(d.work_per_sample().saturating_mul(2));
    let dims_t = (d.groups, og * k2, cg);
    let packed = match need_x {
        true => conv_panel::pack(w, d, true, par)?,
        false => None,
    };
    let wt = (need_x && packed.is_none())
        .then(|| arrange(w, d, true))
        .transpose()?;
    let (p, pt) = (g.padded_len(), gt.padded_len());
    // block `bi`: samples `s0..s1`, their input gradients written through `dxb`
    let block = |bi: usize, dxb: &mut Fresh<'_, T>| -> Result<Partial<T>> {
        let s0 = bi * per;
        let s1 = (s0 + per).min(d.n);
        let buf = |on: bool, len: usize| try_filled_vec(if on { len } else { 0 }, zero);
        let mut dwt = buf(need_w, wlen)?;
        let mut db = buf(need_b, o)?;
        let mut xp = buf(need_w, c * k2 * p)?;
        let mut gext = buf(need_w || need_b, o * g.q)?;
        let gp_len = match packed {
            Some(_) => o * pt + conv_panel::SPARE,
            None => o * k2 * pt,
        };
        let mut gp = buf(need_x, gp_len)?;
        let mut dext = buf(need_x && packed.is_none(), c * gt.q)?;
        for s in s0..s1 {
            let gn = &gy[s * out_block..][..out_block];
            if need_w || need_b {
                for (oi, src) in gn.chunks_exact(l).enumerate() {
                    let sum = g.spread(src, &mut gext[oi * g.q..][..g.q], need_b);
                    if need_b {
                        db[oi] += sum;
                    }
                }
            }
            if need_w {
                replicate(g, &x[s * in_block..][..in_block], &mut xp);
                let inner = cg * k2;
                for gi in 0..d.groups {
                    for (t, &off) in offs.iter().enumerate() {
                        let a = Mat {
                            data: &xp[..],
                            off: gi * inner * p + off,
                            rows: inner,
                            cols: g.q,
                            rs: p as isize,
                            cs: 1,
                        };
                        let b = Mat::row_major(&gext, gi * og * g.q, og, g.q).t();
                        let at = (gi * rows + t) * inner * og;
                        gemm_into(&mut dwt[at..], og, a, b, true, par)?;
                    }
                }
            }
            if let Some(pk) = packed.as_deref() {
                let dxn = dxb.next(in_block);
                conv_panel::sample(gt, gn, &mut gp, pk, og, None, dxn, d.plane)?;
            } else if let Some(wt) = wt.as_deref() {
                replicate(gt, gn, &mut gp);
                let dxn = dxb.next(in_block);
                shifted_products(gt, &gp, wt, dims_t, &mut dext, par)?;
                for (ci, dst) in dxn.chunks_exact_mut(d.plane).enumerate() {
                    gt.crop(&dext[ci * gt.q..][..gt.q], dst, zero);
                }
            }
        }
        Ok((need_w.then_some(dwt), need_b.then_some(db)))
    };
    let blocks = d.n.div_ceil(per);
    let dx_len = if need_x { d.n * in_block } else { 0 };
    let dx_block = if need_x { per * in_block } else { 0 };
    let (dx, parts) = build_blocks(dx_len, blocks, dx_block, zero, blocks > 1, &block)?;
    let dx = need_x.then_some(dx);
    // the blocks' sums, in block order
    let (mut dwt, mut db): Partial<T> = (None, None);
    for (pw, pb) in parts {
        for (acc, part) in [(&mut dwt, pw), (&mut db, pb)] {
            match (acc.as_mut(), part) {
                (Some(a), Some(v)) => a.iter_mut().zip(v).for_each(|(a, b)| *a += b),
                (None, v) => *acc = v,
                _ => {}
            }
        }
    }
    let dw = match dwt {
        Some(src) => {
            // [groups, k0*k1, cg*k2, og] -> [o, cg, kk]
            let mut dw = try_filled_vec(wlen, zero)?;
            for gi in 0..d.groups {
                for t in 0..kk {
                    let (row, c) = (t / k2, t % k2);
                    for ci in 0..cg {
                        for j in 0..og {
                            dw[((gi * og + j) * cg + ci) * kk + t] =
                                src[(((gi * rows + row) * cg + ci) * k2 + c) * og + j];
                        }
                    }
                }
            }
            Some(dw)
        }
        None => need_w.then(|| try_filled_vec(wlen, zero)).transpose()?,
    };
    let db = match db {
        Some(db) => Some(db),
        None => need_b.then(|| try_filled_vec(o, zero)).transpose()?,
    };
    Ok(ShiftGrads { dx, dw, db })
}

#[cfg(test)]
#[path = "conv_shift_tests.rs"]
mod tests;
