//! The shifted convolution's forward and input gradient (`conv_shift`) in float32 on the
//! packed-panel kernel ([`super::panel_gemm`], the LSTM's micro-kernel): the weight is
//! packed ONCE per call, one operand per group whose columns are the taps' `[rows, cg]`
//! slices side by side, and each tap reads the zero-padded planes in place at its own
//! offset on the grid ([`Grid::tap_offsets`]). So the planes are stored once, not once
//! per tap of a kernel row as the gemm path replicates them, and one kernel call sums
//! every tap in registers for 16 outputs of one output row and all output channels of a
//! group, then stores them (plus the bias) straight into the output: no dropped grid
//! columns are computed and nothing is cropped.

use super::conv_direct::ConvFloat;
use super::conv_gemm::ConvDims;
use super::conv_grid::Grid;
use super::gemm_into::{Mat, Parallelism};
use super::panel_gemm::{pack_lhs, panel_product, PackedLhs};
use super::rnn_gemm::NR;
use crate::error::{Error, Result};

/// Spare values after the padded planes: a row's last panel reads up to `NR - 1` values
/// past the plane's last one.
pub const SPARE: usize = NR;

/// The weight `[o, cg, *kernel]` packed per group for [`sample`]: forward `[og, kk*cg]`
/// (tap-major columns), input gradient (`transpose`) `[cg, kk*og]` with the taps
/// flipped. `None` (keep the gemm path) unless the values are float32, the CPU runs the
/// packed kernel and each per-sample block is single-threaded (`par`: one block over
/// the whole batch lets gemm use the pool).
pub fn pack<T: ConvFloat>(
    w: &[T],
    d: &ConvDims,
    transpose: bool,
    par: Parallelism,
) -> Result<Option<Vec<PackedLhs>>> {
    let Some(w) = T::f32s(w).filter(|_| matches!(par, Parallelism::None)) else {
        return Ok(None);
    };
    let (cg, og, kk) = (d.cg(), d.og(), d.kk);
    let mut packed = Vec::with_capacity(d.groups);
    for gi in 0..d.groups {
        let base = gi * og * cg * kk;
        let segs: Vec<Mat<'_, f32>> = (0..kk)
            .map(|t| {
                let (rows, cols, rs, cs, tap) = if transpose {
                    (cg, og, kk, cg * kk, kk - 1 - t)
                } else {
                    (og, cg, cg * kk, kk, t)
                };
                Mat {
                    data: w,
                    off: base + tap,
                    rows,
                    cols,
                    rs: rs as isize,
                    cs: cs as isize,
                }
            })
            .collect();
        match pack_lhs(&segs)? {
            Some(p) => packed.push(p),
            None => return Ok(None),
        }
    }
    Ok(Some(packed))
}

/// One sample: its planes `src` (`chans` per group, `prod(g.s)` each) zero-padded into
/// `xp` (planes of `g.padded_len()` and [`SPARE`] values; the borders stay zero), then
/// `out[gi*rows + r, l]` (`l` per channel) `= bias + sum_(tap, ch) W[r, tap, ch] *
/// xp[plane ch, q + tap offset]` for every output `l` at grid column `q`, on `packed`
/// from [`pack`].
#[allow(clippy::too_many_arguments)]
pub fn sample<T: ConvFloat>(
    g: &Grid,
    src: &[T],
    xp: &mut [T],
    packed: &[PackedLhs],
    chans: usize,
    bias: Option<&[T]>,
    out: &mut [T],
    l: usize,
) -> Result<()> {
    let p = g.padded_len();
    let plane: usize = g.s.iter().product();
    for (s, d) in src.chunks_exact(plane).zip(xp.chunks_exact_mut(p)) {
        g.pad(s, d);
    }
    let not_f32 = || Error::runtime("internal: the packed convolution runs on float32");
    let (Some(xp), Some(out)) = (T::f32s(xp), T::f32s_mut(out)) else {
        return Err(not_f32());
    };
    let bias = match bias {
        Some(b) => Some(T::f32s(b).ok_or_else(not_f32)?),
        None => None,
    };
    let offs = g.tap_offsets();
    let ([o0, o1, o2], [_, p1, p2]) = (g.o, g.ps);
    for (gi, a) in packed.iter().enumerate() {
        let rows = a.m();
        let dst = &mut out[gi * rows * l..];
        let bias = bias.map(|b| &b[gi * rows..]);
        for i0 in 0..o0 {
            for i1 in 0..o1 {
                let (orow, qrow) = ((i0 * o1 + i1) * o2, (i0 * p1 + i1) * p2);
                for j in (0..o2).step_by(NR) {
                    let at = gi * chans * p + qrow + j;
                    let w = NR.min(o2 - j);
                    panel_product(&mut dst[orow + j..], l, a, xp, at, &offs, p, bias, w)?;
                }
            }
        }
    }
    Ok(())
}
