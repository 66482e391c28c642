//! Convolution (1 to 3 spatial dims, stride, padding, dilation, groups, bias) on the
//! project's gemm, one pass per direction, without the full `[N, C*K, L]` unfold:
//!
//! - forward: per sample, im2col into a buffer reused across the samples of a thread,
//!   then per group `out[n, g] = W[g] @ cols[g]` written straight into the output, the
//!   bias pre-filled there and accumulated onto (one pass);
//! - backward: per sample, `dW[g]^T += cols[g] @ gy[n, g]^T` (gemm accumulating over the
//!   samples of a block; blocks summed in a fixed order, so results do not depend on
//!   scheduling; this transposed product, turned back once at the end, runs about
//!   twice as fast on gemm as `gy @ cols^T`) and `dcols[g] = W[g]^T @ gy[n, g]`,
//!   folded (col2im) into `dx[n]`.
//!
//! Samples are split into one contiguous block per pool thread; a single sample (or a
//! single block) lets gemm use the pool instead. A 1x1 kernel with stride 1 and no
//! padding skips im2col (the input is its own column matrix).

use super::conv::{fold_plane, fold_plane_at, unfold_plane, unfold_plane_at, Geometry, Window};
use super::conv_direct::ConvFloat;
use super::gemm_into::{gemm_into, Mat, Parallelism};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::interrupt::parallel_allowed;
use crate::storage::try_filled_vec;
use rayon::prelude::*;

/// Multiply-adds from which a convolution is spread over the pool's threads.
const PAR_WORK: usize = 1 << 16;
/// Multiply-adds of one sample's products from which gemm itself may use the pool.
const GEMM_PAR_WORK: usize = 128 * 128 * 128;
/// Columns (output positions) per gemm call below which samples are batched together.
const BATCH_COLS: usize = 512;

/// The sizes of one convolution: `x` `[n, c, *spatial]`, weight `[o, c/groups, *kernel]`,
/// output `[n, o, *out]`, with the window geometry.
#[derive(Clone, Debug)]
pub struct ConvDims {
    /// Batch size.
    pub n: usize,
    /// Input channels.
    pub c: usize,
    /// Output channels.
    pub o: usize,
    /// Channel groups (both `c` and `o` are multiples).
    pub groups: usize,
    /// The window over the input's spatial dims.
    pub geo: Geometry,
    /// The window's stride, dilation and padding (the real dims only).
    pub win: Window,
    /// Kernel positions, `prod(kernel)`.
    pub kk: usize,
    /// Output positions per channel, `prod(out)`.
    pub l: usize,
    /// Input positions per channel, `prod(spatial)`.
    pub plane: usize,
}

impl ConvDims {
    /// Checks the channel counts against `groups`, builds the geometry and checks that
    /// every buffer size fits a `usize` (ValueError / MemoryError naming `op`).
    pub fn new(
        op: &str,
        (n, c, o): (usize, usize, usize),
        groups: usize,
        spatial: &[usize],
        win: &Window,
    ) -> Result<ConvDims> {
        if groups == 0 || c % groups != 0 || o % groups != 0 {
            return Err(Error::value(format!(
                "{op}: groups={groups} must be positive and divide both the input channels \
                 ({c}) and the output channels ({o})"
            )));
        }
        let geo = Geometry::new(op, spatial, win)?;
        let (kk, l, plane) = (geo.kernel_len(), geo.out_len()?, geo.plane());
        let sizes = [
            n.checked_mul(o).and_then(|v| v.checked_mul(l)),
            n.checked_mul(c).and_then(|v| v.checked_mul(plane)),
            c.checked_mul(kk).and_then(|v| v.checked_mul(l)),
            o.checked_mul(c).and_then(|v| v.checked_mul(kk)),
        ];
        if sizes.iter().any(Option::is_none) {
            return Err(Error::memory(format!("{op}: the sizes overflow")));
        }
        Ok(ConvDims {
            n,
            c,
            o,
            groups,
            geo,
            win: win.clone(),
            kk,
            l,
            plane,
        })
    }

    /// Input channels per group.
    pub fn cg(&self) -> usize {
        self.c / self.groups
    }

    /// Output channels per group.
    pub fn og(&self) -> usize {
        self.o / self.groups
    }

    /// Multiply-adds of one sample's forward products.
    pub fn work_per_sample(&self) -> usize {
        self.o
            .saturating_mul(self.cg())
            .saturating_mul(self.kk)
            .saturating_mul(self.l)
    }

    /// A 1x1 kernel with unit stride and no padding: the input is its own im2col.
    fn pointwise(&self) -> bool {
        self.kk == 1
            && self.win.stride.iter().all(|&s| s == 1)
            && self
                .win
                .pad_lo
                .iter()
                .chain(&self.win.pad_hi)
                .all(|&p| p == 0)
    }

    /// Samples per thread block, and gemm's own parallelism.
    pub(crate) fn blocks(&self, work: usize) -> (usize, Parallelism) {
        let n = self.n.max(1);
        let parallel = parallel_allowed() && rayon::current_num_threads() > 1;
        let threads = if parallel && n.saturating_mul(work) >= PAR_WORK {
            rayon::current_num_threads()
        } else {
            1
        };
        let per = n.div_ceil(threads.min(n));
        let par = if parallel && per == n && work >= GEMM_PAR_WORK {
            Parallelism::Rayon(0)
        } else {
            Parallelism::None
        };
        (per, par)
    }

    /// im2col of sample `xn` (`c` planes) into `cols` (`[c*kk, l]`), or `xn` itself for
    /// a pointwise convolution.
    fn columns<'a, T: ConvFloat>(&self, xn: &'a [T], cols: &'a mut [T]) -> &'a [T] {
        if self.pointwise() {
            return xn;
        }
        let (plane, block) = (self.plane, self.kk * self.l);
        for (src, dst) in xn.chunks_exact(plane).zip(cols.chunks_exact_mut(block)) {
            unfold_plane(src, dst, &self.geo);
        }
        cols
    }

    /// Samples whose columns go side by side into one gemm call: enough for about
    /// [`BATCH_COLS`] columns when each sample has fewer output positions (small
    /// images, where one gemm call per sample would cost more than its arithmetic).
    fn sample_batch(&self, per: usize) -> usize {
        if self.l >= BATCH_COLS {
            1
        } else {
            BATCH_COLS.div_ceil(self.l.max(1)).min(per).max(1)
        }
    }

    /// im2col of sample `xn` into columns `j*l..(j+1)*l` of `cols` (`[c*kk, width]`),
    /// written in place (only the entries that read the input: the padding entries
    /// keep the zeros of `cols` as long as `width` stays the same).
    fn pack_columns<T: ConvFloat>(&self, xn: &[T], cols: &mut [T], j: usize, width: usize) {
        let l = self.l;
        if self.pointwise() {
            for (r, row) in xn.chunks_exact(l).enumerate() {
                cols[r * width + j * l..][..l].copy_from_slice(row);
            }
            return;
        }
        let rows = self.kk * width;
        for (src, dst) in xn.chunks_exact(self.plane).zip(cols.chunks_mut(rows)) {
            unfold_plane_at(src, dst, &self.geo, width, j * l);
        }
    }

    /// A zero-filled im2col buffer (empty for a pointwise convolution).
    fn col_buffer<T: ConvFloat>(&self) -> Result<Vec<T>> {
        let len = if self.pointwise() {
            0
        } else {
            self.c * self.kk * self.l
        };
        try_filled_vec(len, <T as Element>::zero())
    }
}

/// Forward: `x` `[n, c, *spatial]` (contiguous), `w` `[o, c/groups, *kernel]`,
/// `bias` `[o]` → `[n, o, *out]`.
pub fn forward<T: ConvFloat>(x: &[T], w: &[T], bias: Option<&[T]>, d: &ConvDims) -> Result<Vec<T>> {
    let (c, o, l, kk) = (d.c, d.o, d.l, d.kk);
    let (cg, og) = (d.cg(), d.og());
    let (in_block, out_block) = (c * d.plane, o * l);
    let mut out = try_filled_vec(d.n * out_block, <T as Element>::zero())?;
    if out.is_empty() {
        return Ok(out);
    }
    let (per, par) = d.blocks(d.work_per_sample());
    let sb = d.sample_batch(per);
    let run = |bi: usize, ob: &mut [T]| -> Result<()> {
        if sb > 1 {
            return forward_batched(x, w, bias, d, (bi * per, sb, par), ob);
        }
        let mut cols = d.col_buffer::<T>()?;
        for (s, on) in ob.chunks_mut(out_block).enumerate() {
            let xn = &x[(bi * per + s) * in_block..][..in_block];
            let src = d.columns(xn, &mut cols);
            if let Some(b) = bias {
                for (row, &bv) in on.chunks_mut(l).zip(b) {
                    row.fill(bv);
                }
            }
            for gi in 0..d.groups {
                let a = Mat::row_major(w, gi * og * cg * kk, og, cg * kk);
                let bm = Mat::row_major(src, gi * cg * kk * l, cg * kk, l);
                gemm_into(&mut on[gi * og * l..], l, a, bm, bias.is_some(), par)?;
            }
        }
        Ok(())
    };
    if per >= d.n {
        run(0, &mut out)?;
    } else {
        out.par_chunks_mut(per * out_block)
            .enumerate()
            .try_for_each(|(bi, ob)| run(bi, ob))?;
    }
    Ok(out)
}

/// The forward of the samples from `first` (their outputs `ob`), `sb` samples per gemm
/// call: their columns side by side in one `[c*kk, sb*l]` matrix, the product
/// `[o, sb*l]` then copied out per sample.
fn forward_batched<T: ConvFloat>(
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    d: &ConvDims,
    (first, sb, par): (usize, usize, Parallelism),
    ob: &mut [T],
) -> Result<()> {
    let (c, o, l, kk) = (d.c, d.o, d.l, d.kk);
    let (cg, og) = (d.cg(), d.og());
    let (in_block, out_block) = (c * d.plane, o * l);
    let ns = ob.len() / out_block;
    let zero = <T as Element>::zero();
    let mut cols = try_filled_vec(c * kk * sb * l, zero)?;
    let mut ot = try_filled_vec(o * sb * l, zero)?;
    for c0 in (0..ns).step_by(sb) {
        let m = sb.min(ns - c0);
        let width = m * l;
        if m < sb {
            cols.fill(zero); // a narrower last batch: the padding entries move
        }
        for j in 0..m {
            let xn = &x[(first + c0 + j) * in_block..][..in_block];
            d.pack_columns(xn, &mut cols, j, width);
        }
        if let Some(b) = bias {
            for (row, &bv) in ot.chunks_exact_mut(width).zip(b) {
                row.fill(bv);
            }
        }
        for gi in 0..d.groups {
            let a = Mat::row_major(w, gi * og * cg * kk, og, cg * kk);
            let bm = Mat::row_major(&cols, gi * cg * kk * width, cg * kk, width);
            gemm_into(
                &mut ot[gi * og * width..],
                width,
                a,
                bm,
                bias.is_some(),
                par,
            )?;
        }
        for j in 0..m {
            let on = &mut ob[(c0 + j) * out_block..][..out_block];
            for (oi, row) in on.chunks_exact_mut(l).enumerate() {
                row.copy_from_slice(&ot[oi * width + j * l..][..l]);
            }
        }
    }
    Ok(())
}

/// Gradients of a convolution with respect to its input and weight (each only when
/// asked for).
pub struct ConvGrads<T> {
    /// `[n, c, *spatial]`.
    pub dx: Option<Vec<T>>,
    /// `[o, c/groups, *kernel]`.
    pub dw: Option<Vec<T>>,
}

/// Backward of [`forward`] for output gradient `gy` `[n, o, *out]`.
pub fn backward<T: ConvFloat>(
    x: &[T],
    w: &[T],
    gy: &[T],
    d: &ConvDims,
    (need_x, need_w): (bool, bool),
) -> Result<ConvGrads<T>> {
    let (c, o, l, kk) = (d.c, d.o, d.l, d.kk);
    let (cg, og) = (d.cg(), d.og());
    let (in_block, out_block, wlen) = (c * d.plane, o * l, o * cg * kk);
    let mut dx = need_x
        .then(|| try_filled_vec(d.n * in_block, <T as Element>::zero()))
        .transpose()?;
    let zero_dw = || {
        need_w
            .then(|| try_filled_vec(wlen, <T as Element>::zero()))
            .transpose()
    };
    if d.n == 0 || out_block == 0 || !(need_x || need_w) {
        return Ok(ConvGrads { dx, dw: zero_dw()? });
    }
    let (per, par) = d.blocks(d.work_per_sample().saturating_mul(2));
    let pointwise = d.pointwise();
    let sb = d.sample_batch(per);
    // one block of samples from `s0`; `dxb` holds their input gradients
    let block = |s0: usize, dxb: Option<&mut [T]>| -> Result<Option<Vec<T>>> {
        let s1 = (s0 + per).min(d.n);
        let mut dw = zero_dw()?;
        let mut dxb = dxb;
        if sb > 1 {
            backward_batched(x, w, gy, d, (s0, s1, sb, par), dw.as_deref_mut(), dxb)?;
            return Ok(dw);
        }
        let mut cols = if need_w {
            d.col_buffer::<T>()?
        } else {
            Vec::new()
        };
        let mut dcols = if dxb.is_some() {
            d.col_buffer::<T>()?
        } else {
            Vec::new()
        };
        for s in s0..s1 {
            let g_off = s * out_block;
            if let Some(dw) = dw.as_mut() {
                let src = d.columns(&x[s * in_block..][..in_block], &mut cols);
                for gi in 0..d.groups {
                    let a = Mat::row_major(src, gi * cg * kk * l, cg * kk, l);
                    let bm = Mat::row_major(gy, g_off + gi * og * l, og, l).t();
                    gemm_into(&mut dw[gi * og * cg * kk..], og, a, bm, true, par)?;
                }
            }
            if let Some(dxb) = dxb.as_deref_mut() {
                let dxn = &mut dxb[(s - s0) * in_block..][..in_block];
                let dst: &mut [T] = if pointwise { dxn } else { &mut dcols };
                for gi in 0..d.groups {
                    let a = Mat::row_major(w, gi * og * cg * kk, og, cg * kk).t();
                    let bm = Mat::row_major(gy, g_off + gi * og * l, og, l);
                    gemm_into(&mut dst[gi * cg * kk * l..], l, a, bm, false, par)?;
                }
                if !pointwise {
                    let dxn = &mut dxb[(s - s0) * in_block..][..in_block];
                    for (src, dst) in dcols
                        .chunks_exact(kk * l)
                        .zip(dxn.chunks_exact_mut(d.plane))
                    {
                        fold_plane(src, dst, &d.geo);
                    }
                }
            }
        }
        Ok(dw)
    };
    let parts: Vec<Option<Vec<T>>> =
        over_sample_blocks(d.n, per, in_block, dx.as_deref_mut(), block)?;
    // the blocks' weight gradients (transposed per group), summed in block order
    let mut parts = parts.into_iter().flatten();
    let dw = parts
        .next()
        .map(|mut acc| {
            for p in parts {
                for (a, v) in acc.iter_mut().zip(p) {
                    *a += v;
                }
            }
            untranspose_groups(&acc, og, cg * kk)
        })
        .transpose()?;
    Ok(ConvGrads {
        dx,
        dw: match dw {
            None => zero_dw()?,
            dw => dw,
        },
    })
}

/// Runs `block(first_sample, its_slice_of_dx)` over the batch in blocks of `per` samples:
/// inline when one block covers it, else in parallel, each block writing its own
/// `per * in_block` chunk of `dx` (when there is one); the results come back in block order.
pub(crate) fn over_sample_blocks<T, P, F>(
    n: usize,
    per: usize,
    in_block: usize,
    dx: Option<&mut [T]>,
    block: F,
) -> Result<Vec<P>>
where
    T: Send,
    P: Send,
    F: Fn(usize, Option<&mut [T]>) -> Result<P> + Sync,
{
    if per >= n {
        return Ok(vec![block(0, dx)?]);
    }
    match dx.filter(|_| in_block > 0) {
        Some(dx) => dx
            .par_chunks_mut(per * in_block)
            .enumerate()
            .map(|(bi, ch)| block(bi * per, Some(ch)))
            .collect(),
        None => (0..n.div_ceil(per))
            .into_par_iter()
            .map(|bi| block(bi * per, None))
            .collect(),
    }
}

/// The backward of samples `s0..s1` (`dxb`: their input gradients), `sb` samples per
/// gemm call as in [`forward_batched`].
fn backward_batched<T: ConvFloat>(
    x: &[T],
    w: &[T],
    gy: &[T],
    d: &ConvDims,
    (s0, s1, sb, par): (usize, usize, usize, Parallelism),
    mut dw: Option<&mut [T]>,
    mut dxb: Option<&mut [T]>,
) -> Result<()> {
    let (c, o, l, kk) = (d.c, d.o, d.l, d.kk);
    let (cg, og) = (d.cg(), d.og());
    let (in_block, out_block) = (c * d.plane, o * l);
    let zero = <T as Element>::zero();
    let pointwise = d.pointwise();
    let big = |on: bool| try_filled_vec(if on { c * kk * sb * l } else { 0 }, zero);
    let mut cols = big(dw.is_some())?;
    let mut dcols = big(dxb.is_some())?;
    let mut gt = try_filled_vec(o * sb * l, zero)?;
    for c0 in (s0..s1).step_by(sb) {
        let m = sb.min(s1 - c0);
        let width = m * l;
        for j in 0..m {
            let gn = &gy[(c0 + j) * out_block..][..out_block];
            for (oi, row) in gn.chunks_exact(l).enumerate() {
                gt[oi * width + j * l..][..l].copy_from_slice(row);
            }
        }
        if let Some(dw) = dw.as_deref_mut() {
            if m < sb {
                cols.fill(zero); // a narrower last batch: the padding entries move
            }
            for j in 0..m {
                let xn = &x[(c0 + j) * in_block..][..in_block];
                d.pack_columns(xn, &mut cols, j, width);
            }
            for gi in 0..d.groups {
                let a = Mat::row_major(&cols, gi * cg * kk * width, cg * kk, width);
                let bm = Mat::row_major(&gt, gi * og * width, og, width).t();
                gemm_into(&mut dw[gi * og * cg * kk..], og, a, bm, true, par)?;
            }
        }
        if let Some(dxb) = dxb.as_deref_mut() {
            for gi in 0..d.groups {
                let a = Mat::row_major(w, gi * og * cg * kk, og, cg * kk).t();
                let bm = Mat::row_major(&gt, gi * og * width, og, width);
                gemm_into(&mut dcols[gi * cg * kk * width..], width, a, bm, false, par)?;
            }
            for j in 0..m {
                let dxn = &mut dxb[(c0 + j - s0) * in_block..][..in_block];
                if pointwise {
                    // 1x1, stride 1, no padding: the columns are the input gradient
                    for (r, row) in dxn.chunks_exact_mut(l).enumerate() {
                        row.copy_from_slice(&dcols[r * width + j * l..][..l]);
                    }
                    continue;
                }
                let rows = kk * width;
                for (src, dst) in dcols.chunks(rows).zip(dxn.chunks_exact_mut(d.plane)) {
                    fold_plane_at(src, dst, &d.geo, width, j * l);
                }
            }
        }
    }
    Ok(())
}

/// The weight gradient, per group `[og, ck]`, from the per-group transposes `dwt`
/// (blocks of `[ck, og]`, as the backward accumulates them).
fn untranspose_groups<T: ConvFloat>(dwt: &[T], og: usize, ck: usize) -> Result<Vec<T>> {
    let mut dw = try_filled_vec(dwt.len(), <T as Element>::zero())?;
    let block = (og * ck).max(1);
    for (src, dst) in dwt.chunks_exact(block).zip(dw.chunks_exact_mut(block)) {
        for (r, row) in src.chunks_exact(og.max(1)).enumerate() {
            for (j, &v) in row.iter().enumerate() {
                dst[j * ck + r] = v;
            }
        }
    }
    Ok(dw)
}

/// The bias gradient: `gy` `[n, o, l]` summed over samples and positions, per channel.
pub fn bias_grad<T: ConvFloat>(gy: &[T], n: usize, o: usize, l: usize) -> Result<Vec<T>> {
    let mut db = try_filled_vec(o, <T as Element>::zero())?;
    let one = |oi: usize, v: &mut T| {
        let mut lanes = [<T as Element>::zero(); 8];
        for s in 0..n {
            let row = &gy[(s * o + oi) * l..][..l];
            let mut chunks = row.chunks_exact(8);
            for ch in &mut chunks {
                for (a, &b) in lanes.iter_mut().zip(ch) {
                    *a += b;
                }
            }
            for (a, &b) in lanes.iter_mut().zip(chunks.remainder()) {
                *a += b;
            }
        }
        *v = lanes.iter().fold(<T as Element>::zero(), |a, &b| a + b);
    };
    if n.saturating_mul(o).saturating_mul(l) >= PAR_WORK && o > 1 && parallel_allowed() {
        db.par_iter_mut().enumerate().for_each(|(oi, v)| one(oi, v));
    } else {
        db.iter_mut().enumerate().for_each(|(oi, v)| one(oi, v));
    }
    Ok(db)
}
