//! Direct convolution (no im2col) for depthwise and few-channels-per-group
//! convolutions, where a gemm's inner dimension (`c/groups * kernel`) would be too
//! short to pay for the column matrix: forward and both gradients as loops the compiler
//! vectorises (built for AVX2 and AVX-512 too, chosen at run time; no fused
//! multiply-add, so every build gives the same bits).
//!
//! With unit stride (and non-negative padding) the loops run on the padded grid of
//! `conv_grid`: each output plane is a sum over taps of shifted slices of the padded
//! input plane, 32 outputs held in registers across the taps; the input gradient is the
//! same loop over the padded output gradient with the kernel flipped (a gather, no
//! scattered adds); the weight gradient is one dot product per tap, with the bias
//! gradient summed in the same pass. Larger strides use the row loops below.
//!
//! Strided: every dim is padded to three (leading size-1 dims). An input plane is first copied
//! into a zero-bordered buffer (reused per thread), so the loops never test bounds:
//! `out[p, q, r] += w[a, b, c] * xpad[p*s0 + a*d0, q*s1 + b*d1, r*s2 + c*d2]`, the
//! innermost loop running over `r` (a contiguous slice for stride 1). Work is split
//! over (sample, group) for the forward and input gradient and over output channels
//! for the weight gradient (each thread sums its channels' samples in order, so
//! results do not depend on scheduling).

use super::conv_gemm::ConvDims;
use super::conv_grid::Grid;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::interrupt::parallel_allowed;
use crate::storage::try_filled_vec;
use rayon::prelude::*;
use std::ops::AddAssign;

/// Multiply-adds from which the work is spread over the pool's threads.
const PAR_WORK: usize = 1 << 15;

/// The float types convolution runs on (float32, float64).
pub trait ConvFloat: Element + num_traits::Float + AddAssign {
    /// `s` as float32 values when `Self` is `f32` (the packed-panel kernel's operands).
    fn f32s(_s: &[Self]) -> Option<&[f32]> {
        None
    }
    /// [`ConvFloat::f32s`] for a mutable slice.
    fn f32s_mut(_s: &mut [Self]) -> Option<&mut [f32]> {
        None
    }
}
impl ConvFloat for f32 {
    fn f32s(s: &[f32]) -> Option<&[f32]> {
        Some(s)
    }
    fn f32s_mut(s: &mut [f32]) -> Option<&mut [f32]> {
        Some(s)
    }
}
impl ConvFloat for f64 {}

/// The direct path's sizes, every dim padded to three.
struct D3 {
    /// Output sizes.
    o: [usize; 3],
    /// Kernel sizes, strides and dilations.
    k: [usize; 3],
    st: [usize; 3],
    dl: [usize; 3],
    /// Input sizes, and the padding before each dim.
    s: [usize; 3],
    lo: [usize; 3],
    /// Padded input sizes.
    ps: [usize; 3],
    /// No padding at all: input planes are read in place.
    unpadded: bool,
}

impl D3 {
    fn new(d: &ConvDims) -> Result<D3> {
        let nd = d.win.stride.len();
        let mut g = D3 {
            o: d.geo.out,
            k: d.geo.kernel,
            st: [1; 3],
            dl: [1; 3],
            s: d.geo.spatial,
            lo: [0; 3],
            ps: d.geo.spatial,
            unpadded: true,
        };
        for i in 0..nd {
            let j = 3 - nd + i;
            let (lo, hi) = (d.win.pad_lo[i], d.win.pad_hi[i]);
            if lo < 0 || hi < 0 {
                return Err(Error::value(
                    "conv: the direct kernel needs non-negative padding",
                ));
            }
            g.st[j] = d.win.stride[i];
            g.dl[j] = d.win.dilation[i];
            g.lo[j] = lo as usize;
            g.ps[j] = g.s[j] + lo as usize + hi as usize;
            g.unpadded &= lo == 0 && hi == 0;
        }
        g.ps.iter()
            .try_fold(1usize, |a, &v| a.checked_mul(v))
            .ok_or_else(|| Error::memory("conv: the padded plane size overflows"))?;
        Ok(g)
    }

    fn padded_len(&self) -> usize {
        self.ps.iter().product()
    }

    /// A zero buffer for one padded plane (empty when planes are read in place).
    fn pad_buffer<T: ConvFloat>(&self) -> Result<Vec<T>> {
        try_filled_vec(
            if self.unpadded { 0 } else { self.padded_len() },
            <T as Element>::zero(),
        )
    }

    /// The plane `src` with its zero border: `src` itself when unpadded, else copied
    /// into `buf` (whose border stays zero across calls).
    fn padded<'a, T: ConvFloat>(&self, src: &'a [T], buf: &'a mut [T]) -> &'a [T] {
        if self.unpadded {
            return src;
        }
        let [_, s1, s2] = self.s;
        let [_, p1, p2] = self.ps;
        let [l0, l1, l2] = self.lo;
        for (r, row) in src.chunks_exact(s2.max(1)).enumerate() {
            let (i0, i1) = (r / s1, r % s1);
            let at = ((i0 + l0) * p1 + i1 + l1) * p2 + l2;
            buf[at..at + s2].copy_from_slice(row);
        }
        buf
    }

    /// Copies the interior of the padded plane `buf` into the plane `dst`.
    fn crop<T: ConvFloat>(&self, buf: &[T], dst: &mut [T]) {
        let [_, s1, s2] = self.s;
        let [_, p1, p2] = self.ps;
        let [l0, l1, l2] = self.lo;
        for (r, row) in dst.chunks_exact_mut(s2.max(1)).enumerate() {
            let (i0, i1) = (r / s1, r % s1);
            let at = ((i0 + l0) * p1 + i1 + l1) * p2 + l2;
            row.copy_from_slice(&buf[at..at + s2]);
        }
    }

    /// Calls `f(out_row, in_row, tap_row)` for every output row (index into the output
    /// plane, row length `o[2]`) and kernel row (a, b): the padded input row it reads
    /// (index of its first element) and the index of the kernel row's first tap.
    #[inline(always)]
    fn rows(&self, mut f: impl FnMut(usize, usize, usize)) {
        let [o0, o1, o2] = self.o;
        let [k0, k1, k2] = self.k;
        let [_, p1, p2] = self.ps;
        for p in 0..o0 {
            for q in 0..o1 {
                let orow = (p * o1 + q) * o2;
                for a in 0..k0 {
                    let r0 = p * self.st[0] + a * self.dl[0];
                    for b in 0..k1 {
                        let r1 = q * self.st[1] + b * self.dl[1];
                        f(orow, (r0 * p1 + r1) * p2, (a * k1 + b) * k2);
                    }
                }
            }
        }
    }
}

/// Compiles `$body` (a function of the listed arguments) three times, for the baseline
/// target, AVX2 and AVX-512, and calls the widest build the CPU runs. The bodies add and
/// multiply in one fixed order (no fused multiply-add), so every build gives the same
/// bits.
macro_rules! multiversion {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $body:block) => {
        $(#[$doc])*
        fn $name<T: ConvFloat>($($arg: $ty),*) {
            #[inline(always)]
            fn body<T: ConvFloat>($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                unsafe fn wider<T: ConvFloat>($($arg: $ty),*) {
                    body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn wide<T: ConvFloat>($($arg: $ty),*) {
                    body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU supports AVX-512F (checked just above).
                    return unsafe { wider($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    return unsafe { wide($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}

multiversion! {
    /// `out` (one output plane) += the window sums of padded input plane `xp` with the
    /// kernel taps `w`.
    fn fwd_plane(g: &D3, xp: &[T], w: &[T], out: &mut [T]) {
        let (o2, k2, st, dl) = (g.o[2], g.k[2], g.st[2], g.dl[2]);
        g.rows(|orow, irow, tap| {
            let orow = &mut out[orow..orow + o2];
            for c in 0..k2 {
                let wv = w[tap + c];
                let x0 = irow + c * dl;
                if st == 1 {
                    for (o, &x) in orow.iter_mut().zip(&xp[x0..x0 + o2]) {
                        *o += wv * x;
                    }
                } else {
                    for (r, o) in orow.iter_mut().enumerate() {
                        *o += wv * xp[x0 + r * st];
                    }
                }
            }
        });
    }
}

multiversion! {
    /// The padded input gradient `dxp` += output gradient plane `gy` spread back through
    /// the kernel taps `w`.
    fn input_grad_plane(g: &D3, gy: &[T], w: &[T], dxp: &mut [T]) {
        let (o2, k2, st, dl) = (g.o[2], g.k[2], g.st[2], g.dl[2]);
        g.rows(|orow, irow, tap| {
            let grow = &gy[orow..orow + o2];
            for c in 0..k2 {
                let wv = w[tap + c];
                let x0 = irow + c * dl;
                if st == 1 {
                    for (d, &v) in dxp[x0..x0 + o2].iter_mut().zip(grow) {
                        *d += wv * v;
                    }
                } else {
                    for (r, &v) in grow.iter().enumerate() {
                        let d = &mut dxp[x0 + r * st];
                        *d += wv * v;
                    }
                }
            }
        });
    }
}

multiversion! {
    /// The kernel taps' gradient `dw` += the correlation of output gradient plane `gy`
    /// with padded input plane `xp`.
    fn weight_grad_plane(g: &D3, gy: &[T], xp: &[T], dw: &mut [T]) {
        let [o0, o1, o2] = g.o;
        let [k0, k1, k2] = g.k;
        let [_, p1, p2] = g.ps;
        let st = g.st[2];
        // one pass per tap, eight partial sums each (a vectorisable dot product)
        for a in 0..k0 {
            for b in 0..k1 {
                for c in 0..k2 {
                    let mut lanes = [<T as Element>::zero(); 8];
                    for p in 0..o0 {
                        let r0 = p * g.st[0] + a * g.dl[0];
                        for q in 0..o1 {
                            let r1 = q * g.st[1] + b * g.dl[1];
                            let grow = &gy[(p * o1 + q) * o2..][..o2];
                            let x0 = (r0 * p1 + r1) * p2 + c * g.dl[2];
                            if st == 1 {
                                let xs = &xp[x0..x0 + o2];
                                let (mut gc, mut xc) = (grow.chunks_exact(8), xs.chunks_exact(8));
                                for (u, v) in (&mut gc).zip(&mut xc) {
                                    for i in 0..8 {
                                        lanes[i] += u[i] * v[i];
                                    }
                                }
                                let rest = gc.remainder().iter().zip(xc.remainder());
                                for (i, (&u, &v)) in rest.enumerate() {
                                    lanes[i] += u * v;
                                }
                            } else {
                                for (r, &v) in grow.iter().enumerate() {
                                    lanes[r & 7] += v * xp[x0 + r * st];
                                }
                            }
                        }
                    }
                    dw[(a * k1 + b) * k2 + c] += lanes.iter().fold(<T as Element>::zero(), |u, &v| u + v);
                }
            }
        }
    }
}

/// Runs `f(first_task, chunk)` over `out` cut into chunks of whole tasks of `task_len`
/// elements each, over the pool's threads when `work` (multiply-adds) is large.
fn over_tasks<T: Send>(
    out: &mut [T],
    task_len: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) -> Result<()> + Sync,
) -> Result<()> {
    if task_len == 0 || out.is_empty() {
        return Ok(());
    }
    let tasks = out.len() / task_len;
    let threads = rayon::current_num_threads();
    if tasks <= 1 || threads <= 1 || work < PAR_WORK || !parallel_allowed() {
        return f(0, out);
    }
    let per = tasks.div_ceil(threads * 4);
    out.par_chunks_mut(per * task_len)
        .enumerate()
        .try_for_each(|(i, ch)| f(i * per, ch))
}

/// Forward: `x` `[n, c, *spatial]`, `w` `[o, c/groups, *kernel]`, `bias` `[o]` →
/// `[n, o, *out]` (contiguous slices). Errors for negative padding.
pub fn forward<T: ConvFloat>(x: &[T], w: &[T], bias: Option<&[T]>, d: &ConvDims) -> Result<Vec<T>> {
    if let Some(g) = Grid::of(d) {
        return forward_flat(x, w, bias, d, &g);
    }
    let g = D3::new(d)?;
    let (cg, og, kk, l, plane) = (d.cg(), d.og(), d.kk, d.l, d.plane);
    let mut out = try_filled_vec(d.n * d.o * l, <T as Element>::zero())?;
    let work = d.n.saturating_mul(d.work_per_sample());
    // one task: the og output planes of one (sample, group)
    over_tasks(&mut out, og * l, work, |first, chunk| {
        let mut buf = g.pad_buffer::<T>()?;
        for (t, planes) in chunk.chunks_exact_mut(og * l).enumerate() {
            let (s, gi) = ((first + t) / d.groups, (first + t) % d.groups);
            if let Some(b) = bias {
                for (j, p) in planes.chunks_exact_mut(l).enumerate() {
                    p.fill(b[gi * og + j]);
                }
            }
            for ci in 0..cg {
                let src = &x[(s * d.c + gi * cg + ci) * plane..][..plane];
                let xp = g.padded(src, &mut buf);
                for (j, p) in planes.chunks_exact_mut(l).enumerate() {
                    let oc = gi * og + j;
                    fwd_plane(&g, xp, &w[(oc * cg + ci) * kk..][..kk], p);
                }
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// Input gradient for output gradient `gy` `[n, o, *out]`: `[n, c, *spatial]`.
pub fn input_grad<T: ConvFloat>(w: &[T], gy: &[T], d: &ConvDims) -> Result<Vec<T>> {
    if let Some(g) = Grid::of(d).and_then(|g| g.transposed()) {
        return input_grad_flat(w, gy, d, &g);
    }
    let g = D3::new(d)?;
    let (cg, og, kk, l, plane) = (d.cg(), d.og(), d.kk, d.l, d.plane);
    let mut dx = try_filled_vec(d.n * d.c * plane, <T as Element>::zero())?;
    let work = d.n.saturating_mul(d.work_per_sample());
    // one task: the cg input planes of one (sample, group)
    over_tasks(&mut dx, cg * plane, work, |first, chunk| {
        let mut buf = try_filled_vec(g.padded_len(), <T as Element>::zero())?;
        for (t, planes) in chunk.chunks_exact_mut(cg * plane).enumerate() {
            let (s, gi) = ((first + t) / d.groups, (first + t) % d.groups);
            for (ci, dst) in planes.chunks_exact_mut(plane).enumerate() {
                buf.fill(<T as Element>::zero());
                for j in 0..og {
                    let oc = gi * og + j;
                    let grad = &gy[(s * d.o + oc) * l..][..l];
                    input_grad_plane(&g, grad, &w[(oc * cg + ci) * kk..][..kk], &mut buf);
                }
                g.crop(&buf, dst);
            }
        }
        Ok(())
    })?;
    Ok(dx)
}

/// Weight gradient for output gradient `gy` `[n, o, *out]`: `[o, c/groups, *kernel]`,
/// and with `need_b` the bias gradient `[o]` (summed in the same pass where the stride
/// is 1, else `None`: the caller sums it on its own).
pub fn weight_grad<T: ConvFloat>(
    x: &[T],
    gy: &[T],
    d: &ConvDims,
    need_b: bool,
) -> Result<(Vec<T>, Option<Vec<T>>)> {
    if let Some(g) = Grid::of(d) {
        return weight_grad_flat(x, gy, d, &g, need_b);
    }
    Ok((weight_grad_strided(x, gy, d)?, None))
}

/// [`weight_grad`] for strides above 1 (one pass per tap over each plane's rows).
fn weight_grad_strided<T: ConvFloat>(x: &[T], gy: &[T], d: &ConvDims) -> Result<Vec<T>> {
    let g = D3::new(d)?;
    let (cg, og, kk, l, plane) = (d.cg(), d.og(), d.kk, d.l, d.plane);
    let mut dw = try_filled_vec(d.o * cg * kk, <T as Element>::zero())?;
    let work = d.n.saturating_mul(d.work_per_sample());
    // one task: the weights of one output channel, summed over the samples in order
    over_tasks(&mut dw, cg * kk, work, |first, chunk| {
        let mut buf = g.pad_buffer::<T>()?;
        for (t, taps) in chunk.chunks_exact_mut(cg * kk).enumerate() {
            let oc = first + t;
            let gi = oc / og;
            for s in 0..d.n {
                let grad = &gy[(s * d.o + oc) * l..][..l];
                for (ci, dst) in taps.chunks_exact_mut(kk).enumerate() {
                    let src = &x[(s * d.c + gi * cg + ci) * plane..][..plane];
                    weight_grad_plane(&g, grad, g.padded(src, &mut buf), dst);
                }
            }
        }
        Ok(())
    })?;
    Ok(dw)
}

/// The unit-stride loops on the padded grid (`conv_grid`).
#[path = "conv_direct_grid.rs"]
mod grid;
use grid::{forward_flat, input_grad_flat, weight_grad_flat};
