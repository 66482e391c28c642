//! Sliding-window kernels for convolution and pooling over 1 to 3 spatial dims:
//! `unfold` (im2col), its adjoint `fold` (col2im, summing overlaps) and the argmax
//! positions of max pooling.
//!
//! A tensor `[N, C, *S]` is read as `N*C` contiguous planes of `prod(S)` elements. The
//! window geometry ([`Geometry`]) pads the spatial dims to three (leading size-1 dims
//! with a 1-wide window), so one triple loop serves conv1d, conv2d and conv3d. Each dim
//! has a table mapping (kernel offset, output position) to an input coordinate, or -1
//! where the window reads padding; the loops then do no bound checks of their own.
//! Pads are signed: a negative pad crops (transposed convolutions with
//! `output_padding` need that). The convolution op itself runs per sample on these
//! planes (`conv_gemm`: im2col into a reused buffer + the project's gemm) or directly
//! (`conv_direct`, for depthwise and few channels per group).

use super::par::for_each_chunk;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

/// Elements of output from which the planes are spread over rayon threads.
const PAR_WORK: usize = 1 << 15;

/// The window of a convolution or pooling: per spatial dim the kernel size, stride,
/// dilation and the padding before (`pad_lo`) and after (`pad_hi`) the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Kernel size per spatial dim (each ≥ 1).
    pub kernel: Vec<usize>,
    /// Stride per spatial dim (each ≥ 1).
    pub stride: Vec<usize>,
    /// Dilation per spatial dim (each ≥ 1).
    pub dilation: Vec<usize>,
    /// Padding before each spatial dim (negative crops).
    pub pad_lo: Vec<isize>,
    /// Padding after each spatial dim (negative crops).
    pub pad_hi: Vec<isize>,
}

/// A [`Window`] applied to a spatial shape: the output size and the coordinate tables,
/// with every dim padded to three.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// Input spatial sizes (padded to 3 with leading 1s).
    pub spatial: [usize; 3],
    /// Output spatial sizes (padded to 3 with leading 1s).
    pub out: [usize; 3],
    /// Kernel sizes (padded to 3 with leading 1s).
    pub kernel: [usize; 3],
    /// Number of real spatial dims (1..=3).
    pub nd: usize,
    /// Stride along the last spatial dim (the step between the inputs of one run).
    step: usize,
    /// Per dim: `kernel[d] * out[d]` input coordinates (row = kernel offset), -1 = padding.
    tables: [Vec<isize>; 3],
}

impl Geometry {
    /// Checks `win` against the input's spatial shape `spatial` and builds the tables.
    /// Errors (ValueError naming `op`) for a wrong number of values, zero kernel, stride
    /// or dilation, or an input that (padded) is smaller than the dilated kernel.
    pub fn new(op: &str, spatial: &[usize], win: &Window) -> Result<Geometry> {
        let nd = spatial.len();
        if !(1..=3).contains(&nd) {
            return Err(Error::value(format!(
                "{op}: 1 to 3 spatial dimensions are supported, got {nd}"
            )));
        }
        let lens = [
            ("kernel_size", win.kernel.len()),
            ("stride", win.stride.len()),
            ("dilation", win.dilation.len()),
            ("padding", win.pad_lo.len()),
            ("padding", win.pad_hi.len()),
        ];
        for (name, len) in lens {
            if len != nd {
                return Err(Error::value(format!(
                    "{op}: {name} needs {nd} value(s) for {nd} spatial dimension(s), got {len}"
                )));
            }
        }
        for (name, v) in [
            ("kernel_size", &win.kernel),
            ("stride", &win.stride),
            ("dilation", &win.dilation),
        ] {
            if v.contains(&0) {
                return Err(Error::value(format!(
                    "{op}: {name} must be positive, got {v:?}"
                )));
            }
        }
        let mut g = Geometry {
            spatial: [1; 3],
            out: [1; 3],
            kernel: [1; 3],
            nd,
            step: win.stride[nd - 1],
            tables: [vec![0], vec![0], vec![0]],
        };
        for (d, &s) in spatial.iter().enumerate() {
            let j = 3 - nd + d;
            let (k, st, dil) = (win.kernel[d], win.stride[d], win.dilation[d]);
            let (lo, hi) = (win.pad_lo[d] as i128, win.pad_hi[d] as i128);
            let reach = (dil as i128) * (k as i128 - 1) + 1;
            let span = s as i128 + lo + hi - reach;
            if span < 0 {
                return Err(Error::value(format!(
                    "{op}: spatial dimension {d} of the input has size {s} (padded: {}), \
                     smaller than the dilated kernel ({reach}); use a smaller kernel_size or \
                     dilation, or more padding",
                    s as i128 + lo + hi
                )));
            }
            let o = usize::try_from(span / st as i128 + 1)
                .map_err(|_| Error::value(format!("{op}: output size overflows")))?;
            let n = k
                .checked_mul(o)
                .ok_or_else(|| Error::value(format!("{op}: window table size overflows")))?;
            let mut t = crate::storage::try_vec_with_capacity::<isize>(n)?;
            for kk in 0..k {
                for oo in 0..o {
                    let c = oo as i128 * st as i128 - lo + kk as i128 * dil as i128;
                    t.push(if c >= 0 && c < s as i128 {
                        c as isize
                    } else {
                        -1
                    });
                }
            }
            g.spatial[j] = s;
            g.out[j] = o;
            g.kernel[j] = k;
            g.tables[j] = t;
        }
        Ok(g)
    }

    /// Output spatial sizes (the real dims only).
    pub fn out_shape(&self) -> &[usize] {
        &self.out[3 - self.nd..]
    }

    /// Elements of one input plane, `prod(spatial)`.
    pub fn plane(&self) -> usize {
        self.spatial.iter().product()
    }

    /// Kernel positions, `prod(kernel)`.
    pub fn kernel_len(&self) -> usize {
        self.kernel.iter().product()
    }

    /// Stride along the last spatial dim.
    pub fn last_stride(&self) -> usize {
        self.step
    }

    /// Output positions, `prod(out)` (checked).
    pub fn out_len(&self) -> Result<usize> {
        crate::layout::checked_numel(&self.out)
    }

    /// Calls `f(kernel_row, out_col, input_index, len)` for every run of window reads
    /// that are not padding, within one plane: output columns `out_col..out_col + len`
    /// read inputs `input_index + j * self.step` (along the last spatial dim, whose valid
    /// positions are one contiguous range per kernel offset). Rows and columns are
    /// row-major over (k0,k1,k2) and (o0,o1,o2).
    #[inline]
    pub(crate) fn for_each_run(&self, mut f: impl FnMut(usize, usize, usize, usize)) {
        let [k0, k1, k2] = self.kernel;
        let [o0, o1, o2] = self.out;
        let [_, s1, s2] = self.spatial;
        let [t0, t1, t2] = &self.tables;
        let l = o0 * o1 * o2;
        for a in 0..k0 {
            for b in 0..k1 {
                for c in 0..k2 {
                    let row = (a * k1 + b) * k2 + c;
                    let tc = &t2[c * o2..(c + 1) * o2];
                    // the valid outputs along the last dim: one range (coordinates grow)
                    let Some(first) = tc.iter().position(|&i| i >= 0) else {
                        continue;
                    };
                    let len = tc[first..].iter().take_while(|&&i| i >= 0).count();
                    let i_first = tc[first] as usize;
                    for p in 0..o0 {
                        let i0 = t0[a * o0 + p];
                        if i0 < 0 {
                            continue;
                        }
                        for q in 0..o1 {
                            let i1 = t1[b * o1 + q];
                            if i1 < 0 {
                                continue;
                            }
                            let base = (i0 as usize * s1 + i1 as usize) * s2;
                            let col = row * l + (p * o1 + q) * o2 + first;
                            f(row, col, base + i_first, len);
                        }
                    }
                }
            }
        }
    }
}

fn spread<T: Send>(out: &mut [T], block: usize, f: impl Fn(usize, &mut [T]) + Sync + Send) {
    if block == 0 {
        return;
    }
    if out.len() >= PAR_WORK && crate::interrupt::parallel_allowed() {
        for_each_chunk(out, block, &|start, b| f(start / block, b));
    } else {
        out.chunks_mut(block).enumerate().for_each(|(i, b)| f(i, b));
    }
}

/// im2col: `x` is `planes` contiguous planes (`N*C`) of `g.plane()` elements; returns
/// `planes` blocks of `[kernel_len, out_len]` (row-major, padding reads as zero), i.e. the
/// tensor `[N, C*kernel_len, out_len]`.
pub fn unfold<T: Element>(x: &[T], planes: usize, g: &Geometry) -> Result<Vec<T>> {
    let plane = g.plane();
    let block = g.kernel_len().checked_mul(g.out_len()?);
    let n = block.and_then(|b| b.checked_mul(planes));
    let (Some(block), Some(n)) = (block, n) else {
        return Err(Error::memory("unfold: the output size overflows"));
    };
    if x.len() < planes.saturating_mul(plane) {
        return Err(Error::runtime("internal: unfold input is too short"));
    }
    let mut out = try_filled_vec(n, T::zero())?;
    spread(&mut out, block, |i, dst| {
        unfold_plane(&x[i * plane..(i + 1) * plane], dst, g)
    });
    Ok(out)
}

/// im2col of one plane `src` (`g.plane()` elements) into `dst` (`[kernel_len, out_len]`,
/// row-major). Only the entries that read the input are written: the caller zeroes `dst`
/// once, and a buffer reused for planes of the same geometry keeps its zeros.
pub fn unfold_plane<T: Copy>(src: &[T], dst: &mut [T], g: &Geometry) {
    let l = g.out.iter().product();
    unfold_plane_at(src, dst, g, l, 0);
}

/// [`unfold_plane`] into columns `off..off + out_len` of a row-major matrix with rows
/// of `row_step` elements (the columns of several samples side by side, written in
/// place without a per-sample buffer).
pub fn unfold_plane_at<T: Copy>(
    src: &[T],
    dst: &mut [T],
    g: &Geometry,
    row_step: usize,
    off: usize,
) {
    let step = g.step;
    let l: usize = g.out.iter().product();
    g.for_each_run(|row, col, idx, len| {
        let at = row * row_step + off + (col - row * l);
        let d = &mut dst[at..at + len];
        if step == 1 {
            d.copy_from_slice(&src[idx..idx + len]);
        } else {
            for (j, v) in d.iter_mut().enumerate() {
                *v = src[idx + j * step];
            }
        }
    });
}

/// col2im of one plane: adds the columns `src` (`[kernel_len, out_len]`) into the
/// plane `dst` (`g.plane()` elements) at the positions they were read from.
pub fn fold_plane<T: Copy + std::ops::AddAssign>(src: &[T], dst: &mut [T], g: &Geometry) {
    let l = g.out.iter().product();
    fold_plane_at(src, dst, g, l, 0);
}

/// [`fold_plane`] from columns `off..off + out_len` of a row-major matrix with rows of
/// `row_step` elements.
pub fn fold_plane_at<T: Copy + std::ops::AddAssign>(
    src: &[T],
    dst: &mut [T],
    g: &Geometry,
    row_step: usize,
    off: usize,
) {
    let step = g.step;
    let l: usize = g.out.iter().product();
    g.for_each_run(|row, col, idx, len| {
        let at = row * row_step + off + (col - row * l);
        let from = &src[at..at + len];
        if step == 1 {
            for (d, &v) in dst[idx..idx + len].iter_mut().zip(from) {
                *d += v;
            }
        } else {
            for (j, &v) in from.iter().enumerate() {
                dst[idx + j * step] += v;
            }
        }
    });
}

/// col2im, the adjoint of [`unfold`]: `cols` holds `planes` blocks of
/// `[kernel_len, out_len]`; returns `planes` planes of `g.plane()` elements where each
/// input position is the sum of the window entries that read it.
pub fn fold<T: Element + std::ops::AddAssign>(
    cols: &[T],
    planes: usize,
    g: &Geometry,
) -> Result<Vec<T>> {
    let plane = g.plane();
    let block = g
        .kernel_len()
        .checked_mul(g.out_len()?)
        .ok_or_else(|| Error::memory("fold: the input size overflows"))?;
    if cols.len() < planes.saturating_mul(block) {
        return Err(Error::runtime("internal: fold input is too short"));
    }
    let n = plane
        .checked_mul(planes)
        .ok_or_else(|| Error::memory("fold: the output size overflows"))?;
    let mut out = try_filled_vec(n, T::zero())?;
    spread(&mut out, plane, |i, dst| {
        fold_plane(&cols[i * block..(i + 1) * block], dst, g)
    });
    Ok(out)
}

/// Max pooling's choice: for each plane and output position the index (row-major within
/// the plane) of the window's largest element. Padding never wins; NaN wins (and the
/// first NaN stays), as in PyTorch. Errors if a window lies wholly in the padding.
pub fn max_pool_indices<T: Element + PartialOrd>(
    x: &[T],
    planes: usize,
    g: &Geometry,
) -> Result<Vec<i64>> {
    let plane = g.plane();
    let l = g.out_len()?;
    let n = l
        .checked_mul(planes)
        .ok_or_else(|| Error::memory("max_pool: the output size overflows"))?;
    if x.len() < planes.saturating_mul(plane) {
        return Err(Error::runtime("internal: max_pool input is too short"));
    }
    let mut out = try_filled_vec(n, -1i64)?;
    spread(&mut out, l, |i, dst| {
        let src = &x[i * plane..(i + 1) * plane];
        let step = g.step;
        g.for_each_run(|row, col, idx0, len| {
            for j in 0..len {
                let (o, idx) = (col + j - row * l, idx0 + j * step);
                let cur = dst[o];
                let v = src[idx];
                // branch-free: on random data `v > best` is a coin flip, and the
                // mispredicted branches cost several times the rest of the loop
                let best = src[if cur < 0 { idx } else { cur as usize }];
                #[allow(clippy::eq_op)]
                let take = (cur < 0) | (v > best) | ((v != v) & (best == best));
                dst[o] = if take { idx as i64 } else { cur };
            }
        });
    });
    if out.contains(&-1) {
        return Err(Error::value(
            "max_pool: a pooling window lies wholly in the padding; padding must be at most \
             half the (dilated) kernel size",
        ));
    }
    Ok(out)
}

#[cfg(test)]
#[path = "conv_tests.rs"]
mod tests;
