//! The unit-stride half of the direct convolution (see the parent module): the loops
//! on the padded grid of `conv_grid`, where each output plane is a sum over taps of
//! shifted slices of the padded input plane, 32 outputs held in registers across taps.

use super::super::conv_gemm::ConvDims;
use super::super::conv_grid::Grid;
use super::super::par::{build_blocks, Fresh};
use super::{over_tasks, ConvFloat, PAR_WORK};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::interrupt::parallel_allowed;
use crate::storage::{try_filled_vec, try_vec_with_capacity};

multiversion! {
    /// `ext[q] (+)= sum_t w[t] * xp[q + offs[t]]` for every column `q` of `ext` (`=`
    /// when `first`): one unit-stride plane on the padded grid, 32 columns at a time
    /// held in registers across the taps.
    fn taps_into(xp: &[T], offs: &[usize], w: &[T], ext: &mut [T], first: bool) {
        const B: usize = 32;
        let zero = <T as Element>::zero();
        let mut blocks = ext.chunks_exact_mut(B);
        let mut q0 = 0;
        for e in &mut blocks {
            let mut acc = [zero; B];
            for (&off, &wv) in offs.iter().zip(w) {
                for (a, &x) in acc.iter_mut().zip(&xp[q0 + off..q0 + off + B]) {
                    *a += wv * x;
                }
            }
            if first {
                e.copy_from_slice(&acc);
            } else {
                for (d, &a) in e.iter_mut().zip(&acc) {
                    *d += a;
                }
            }
            q0 += B;
        }
        let rest = blocks.into_remainder();
        let mut acc = [zero; B];
        for (&off, &wv) in offs.iter().zip(w) {
            for (a, &x) in acc.iter_mut().zip(&xp[q0 + off..q0 + off + rest.len()]) {
                *a += wv * x;
            }
        }
        for (d, &a) in rest.iter_mut().zip(&acc) {
            *d = if first { a } else { *d + a };
        }
    }
}

multiversion! {
    /// `dw[t] += sum_q gext[q] * xp[q + offs[t]]` for every tap `t`: the correlation
    /// of a gradient on the padded grid with a padded input plane (16 partial sums each).
    fn taps_dot(xp: &[T], offs: &[usize], gext: &[T], dw: &mut [T]) {
        let zero = <T as Element>::zero();
        for (&off, d) in offs.iter().zip(dw.iter_mut()) {
            let xs = &xp[off..off + gext.len()];
            let mut lanes = [zero; 16];
            let (mut gc, mut xc) = (gext.chunks_exact(16), xs.chunks_exact(16));
            for (u, v) in (&mut gc).zip(&mut xc) {
                for i in 0..16 {
                    lanes[i] += u[i] * v[i];
                }
            }
            for (i, (&u, &v)) in gc.remainder().iter().zip(xc.remainder()).enumerate() {
                lanes[i] += u * v;
            }
            *d += lanes.iter().fold(zero, |a, &b| a + b);
        }
    }
}

/// [`over_tasks`] building its output: a vector of `tasks * task_len` elements whose
/// chunks of whole tasks are written through a [`Fresh`] (zeroed just before use, not
/// in a serial pass over the whole output first).
fn build_over_tasks<T: Copy + Send + Sync>(
    tasks: usize,
    task_len: usize,
    work: usize,
    zero: T,
    f: &(dyn Fn(usize, &mut Fresh<'_, T>) -> Result<()> + Sync),
) -> Result<Vec<T>> {
    let len = tasks
        .checked_mul(task_len)
        .ok_or_else(|| Error::memory("conv: the output size overflows"))?;
    if len == 0 {
        return Ok(Vec::new());
    }
    let threads = rayon::current_num_threads();
    let parallel = tasks > 1 && threads > 1 && work >= PAR_WORK && parallel_allowed();
    let per = if parallel {
        tasks.div_ceil(threads * 4)
    } else {
        tasks
    };
    let blocks = tasks.div_ceil(per);
    let run = |bi: usize, fresh: &mut Fresh<'_, T>| f(bi * per, fresh);
    Ok(build_blocks(len, blocks, per * task_len, zero, parallel, &run)?.0)
}

/// [`forward`] for unit stride on the padded grid: per (sample, group) the input planes
/// are padded once, then each output plane is `taps_into` over them, cropped.
pub(super) fn forward_flat<T: ConvFloat>(
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    d: &ConvDims,
    g: &Grid,
) -> Result<Vec<T>> {
    let (cg, og, kk, l, plane) = (d.cg(), d.og(), d.kk, d.l, d.plane);
    let zero = <T as Element>::zero();
    let (p, offs) = (g.padded_len(), g.tap_offsets());
    let work = d.n.saturating_mul(d.work_per_sample());
    // one task: the og output planes of one (sample, group)
    build_over_tasks(d.n * d.groups, og * l, work, zero, &|first, chunk| {
        let mut xp = try_filled_vec(cg * p, zero)?;
        let mut ext = try_filled_vec(g.q, zero)?;
        for t in 0..chunk.len() / (og * l) {
            let planes = chunk.next(og * l);
            let (s, gi) = ((first + t) / d.groups, (first + t) % d.groups);
            let src = &x[(s * d.c + gi * cg) * plane..][..cg * plane];
            for (src, dst) in src.chunks_exact(plane).zip(xp.chunks_exact_mut(p)) {
                g.pad(src, dst);
            }
            for (j, dst) in planes.chunks_exact_mut(l).enumerate() {
                let oc = gi * og + j;
                for (ci, xpc) in xp.chunks_exact(p).enumerate() {
                    let taps = &w[(oc * cg + ci) * kk..][..kk];
                    taps_into(xpc, &offs, taps, &mut ext, ci == 0);
                }
                g.crop(&ext, dst, bias.map_or(zero, |b| b[oc]));
            }
        }
        Ok(())
    })
}

/// [`input_grad`] for unit stride, as the forward of the padded output gradient with
/// the flipped kernel (`g` is the transposed grid): a gather, no scattered adds.
pub(super) fn input_grad_flat<T: ConvFloat>(
    w: &[T],
    gy: &[T],
    d: &ConvDims,
    g: &Grid,
) -> Result<Vec<T>> {
    let (cg, og, kk, l, plane) = (d.cg(), d.og(), d.kk, d.l, d.plane);
    let zero = <T as Element>::zero();
    let (p, offs) = (g.padded_len(), g.tap_offsets());
    let mut flipped = try_filled_vec(w.len(), zero)?;
    for (dst, src) in flipped.chunks_exact_mut(kk).zip(w.chunks_exact(kk)) {
        for (a, &b) in dst.iter_mut().zip(src.iter().rev()) {
            *a = b;
        }
    }
    let work = d.n.saturating_mul(d.work_per_sample());
    // one task: the cg input planes of one (sample, group)
    build_over_tasks(d.n * d.groups, cg * plane, work, zero, &|first, chunk| {
        let mut gp = try_filled_vec(og * p, zero)?;
        let mut ext = try_filled_vec(g.q, zero)?;
        for t in 0..chunk.len() / (cg * plane) {
            let planes = chunk.next(cg * plane);
            let (s, gi) = ((first + t) / d.groups, (first + t) % d.groups);
            let src = &gy[(s * d.o + gi * og) * l..][..og * l];
            for (src, dst) in src.chunks_exact(l).zip(gp.chunks_exact_mut(p)) {
                g.pad(src, dst);
            }
            for (ci, dst) in planes.chunks_exact_mut(plane).enumerate() {
                for (j, gpj) in gp.chunks_exact(p).enumerate() {
                    let taps = &flipped[((gi * og + j) * cg + ci) * kk..][..kk];
                    taps_into(gpj, &offs, taps, &mut ext, j == 0);
                }
                g.crop(&ext, dst, zero);
            }
        }
        Ok(())
    })
}

/// [`weight_grad`] for unit stride: per output channel and sample, the gradient plane
/// spread onto the padded grid (its sum is the bias gradient) and `taps_dot` with each
/// padded input plane. One task per output channel, samples summed in order.
pub(super) fn weight_grad_flat<T: ConvFloat>(
    x: &[T],
    gy: &[T],
    d: &ConvDims,
    g: &Grid,
    need_b: bool,
) -> Result<(Vec<T>, Option<Vec<T>>)> {
    let (cg, og, kk, l, plane) = (d.cg(), d.og(), d.kk, d.l, d.plane);
    let zero = <T as Element>::zero();
    let (p, offs) = (g.padded_len(), g.tap_offsets());
    // per output channel: its cg*kk weight gradients, then its bias gradient
    let row = cg * kk + 1;
    let mut both = try_filled_vec(d.o * row, zero)?;
    let work = d.n.saturating_mul(d.work_per_sample());
    over_tasks(&mut both, row, work, |first, chunk| {
        let mut xp = try_filled_vec(p, zero)?;
        let mut gext = try_filled_vec(g.q, zero)?;
        for (t, acc) in chunk.chunks_exact_mut(row).enumerate() {
            let oc = first + t;
            let gi = oc / og;
            for s in 0..d.n {
                let grad = &gy[(s * d.o + oc) * l..][..l];
                let sum = g.spread(grad, &mut gext, need_b);
                acc[cg * kk] += sum;
                for ci in 0..cg {
                    let src = &x[(s * d.c + gi * cg + ci) * plane..][..plane];
                    g.pad(src, &mut xp);
                    taps_dot(&xp, &offs, &gext, &mut acc[ci * kk..(ci + 1) * kk]);
                }
            }
        }
        Ok(())
    })?;
    let mut dw = try_vec_with_capacity(d.o * cg * kk)?;
    let mut db = try_vec_with_capacity(if need_b { d.o } else { 0 })?;
    for r in both.chunks_exact(row) {
        dw.extend_from_slice(&r[..cg * kk]);
        if need_b {
            db.push(r[cg * kk]);
        }
    }
    Ok((dw, need_b.then_some(db)))
}
