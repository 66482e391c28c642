//! The padded grid of a unit-stride convolution, shared by the shifted-gemm path
//! (`conv_shift`) and the direct kernel (`conv_direct`).
//!
//! Output positions are numbered on the zero-padded input's grid: output (p, i, j) is
//! column `q = (p*P1 + i)*P2 + j`, `P` being the padded input's shape (every dim padded
//! to three with leading 1s). Its window then starts at padded index `q`, and kernel tap
//! (a, b, c) reads padded index `q + off(a, b, c)`, one offset for every column. So a
//! convolution of one padded plane is, per tap, a shifted contiguous slice of it: no
//! im2col, no bounds tests. The columns `q` whose `j` (or `i`) lies past the output are
//! computed and dropped (2 of every 34 for a 3x3 kernel over 32 columns with padding 1);
//! [`Grid::q`] ends at the last real output, so that every read stays inside the plane.
//!
//! With unit stride, the input gradient is again such a convolution: of the output
//! gradient, padded by `dilation*(kernel-1) - pad` per side, with the kernel flipped
//! ([`Grid::transposed`]).

use super::conv_gemm::ConvDims;

/// A unit-stride window over a padded plane (every dim padded to three).
#[derive(Clone, Debug)]
pub struct Grid {
    /// Kernel sizes.
    pub k: [usize; 3],
    /// Dilations.
    pub dl: [usize; 3],
    /// Padding before and after each dim (non-negative).
    lo: [usize; 3],
    hi: [usize; 3],
    /// Input sizes.
    pub s: [usize; 3],
    /// Padded input sizes.
    pub ps: [usize; 3],
    /// Output sizes.
    pub o: [usize; 3],
    /// Columns of the grid that are computed: up to the last real output, inclusive.
    pub q: usize,
}

impl Grid {
    /// The grid of input sizes `s`, kernel `k`, dilation `dl` and pads `lo`/`hi`; `None`
    /// for a negative pad, an empty output or sizes that overflow.
    pub fn new(
        s: [usize; 3],
        k: [usize; 3],
        dl: [usize; 3],
        lo: [isize; 3],
        hi: [isize; 3],
    ) -> Option<Grid> {
        let mut g = Grid {
            k,
            dl,
            lo: [0; 3],
            hi: [0; 3],
            s,
            ps: [0; 3],
            o: [0; 3],
            q: 0,
        };
        for d in 0..3 {
            g.lo[d] = usize::try_from(lo[d]).ok()?;
            g.hi[d] = usize::try_from(hi[d]).ok()?;
            g.ps[d] = s[d].checked_add(g.lo[d])?.checked_add(g.hi[d])?;
            let reach = dl[d].checked_mul(k[d].checked_sub(1)?)?;
            g.o[d] = g.ps[d].checked_sub(reach).filter(|&o| o > 0)?;
        }
        let [p0, p1, p2] = g.ps;
        p0.checked_mul(p1)?.checked_mul(p2)?;
        let [o0, o1, o2] = g.o;
        g.q = ((o0 - 1) * p1 + o1 - 1) * p2 + o2;
        Some(g)
    }

    /// The grid of convolution `d` when it has unit stride and non-negative padding.
    pub fn of(d: &ConvDims) -> Option<Grid> {
        if d.win.stride.iter().any(|&s| s != 1) {
            return None;
        }
        let nd = d.win.stride.len();
        let (mut dl, mut lo, mut hi) = ([1; 3], [0; 3], [0; 3]);
        for i in 0..nd {
            let j = 3 - nd + i;
            dl[j] = d.win.dilation[i];
            lo[j] = d.win.pad_lo[i];
            hi[j] = d.win.pad_hi[i];
        }
        Grid::new(d.geo.spatial, d.geo.kernel, dl, lo, hi)
    }

    /// The input gradient's convolution: the output gradient (sizes `o`) padded by
    /// `dl*(k-1) - pad` per side, read by the flipped kernel; its output has the input's
    /// sizes. `None` where a pad exceeds `dl*(k-1)` (the gradient would need cropping).
    pub fn transposed(&self) -> Option<Grid> {
        let (mut lo, mut hi) = ([0; 3], [0; 3]);
        for d in 0..3 {
            let reach = (self.dl[d] * (self.k[d] - 1)) as isize;
            lo[d] = reach - self.lo[d] as isize;
            hi[d] = reach - self.hi[d] as isize;
        }
        let t = Grid::new(self.o, self.k, self.dl, lo, hi)?;
        (t.o == self.s).then_some(t)
    }

    /// Elements of one padded plane.
    pub fn padded_len(&self) -> usize {
        self.ps.iter().product()
    }

    /// Kernel taps, `prod(k)`.
    pub fn taps(&self) -> usize {
        self.k.iter().product()
    }

    /// The padded-index offset of every tap, row-major over (a, b, c).
    pub fn tap_offsets(&self) -> Vec<usize> {
        let [k0, k1, k2] = self.k;
        let [_, p1, p2] = self.ps;
        let mut v = Vec::with_capacity(self.taps());
        for a in 0..k0 {
            for b in 0..k1 {
                for c in 0..k2 {
                    v.push((a * self.dl[0] * p1 + b * self.dl[1]) * p2 + c * self.dl[2]);
                }
            }
        }
        v
    }

    /// The padded-index offset of every kernel row (a, b), row-major.
    pub fn row_offsets(&self) -> Vec<usize> {
        let [_, p1, p2] = self.ps;
        let mut v = Vec::with_capacity(self.k[0] * self.k[1]);
        for a in 0..self.k[0] {
            for b in 0..self.k[1] {
                v.push((a * self.dl[0] * p1 + b * self.dl[1]) * p2);
            }
        }
        v
    }

    /// Copies the plane `src` (`prod(s)` elements) into the interior of the padded plane
    /// `dst`; the border is not written (the caller zeroes `dst` once).
    pub fn pad<T: Copy>(&self, src: &[T], dst: &mut [T]) {
        let [s0, s1, s2] = self.s;
        let [_, p1, p2] = self.ps;
        let [l0, l1, l2] = self.lo;
        for i0 in 0..s0 {
            for i1 in 0..s1 {
                let from = &src[(i0 * s1 + i1) * s2..][..s2];
                dst[((i0 + l0) * p1 + i1 + l1) * p2 + l2..][..s2].copy_from_slice(from);
            }
        }
    }

    /// Calls `f(out_row, grid_row)` for every output row (`o[2]` outputs): its first
    /// index in the output plane and its first column on the grid.
    #[inline]
    pub fn out_rows(&self, mut f: impl FnMut(usize, usize)) {
        let [o0, o1, o2] = self.o;
        let [_, p1, p2] = self.ps;
        for p in 0..o0 {
            for i in 0..o1 {
                f((p * o1 + i) * o2, (p * p1 + i) * p2);
            }
        }
    }

    /// Copies the real outputs of the grid row `ext` (`q` columns) into the output plane
    /// `dst`, adding `bias`.
    pub fn crop<T: Copy + std::ops::Add<Output = T>>(&self, ext: &[T], dst: &mut [T], bias: T) {
        let o2 = self.o[2];
        self.out_rows(|orow, qrow| {
            for (d, &v) in dst[orow..orow + o2].iter_mut().zip(&ext[qrow..qrow + o2]) {
                *d = v + bias;
            }
        });
    }

    /// Copies the output plane `src` onto the grid row `ext` (`q` columns; the dropped
    /// columns are not written, so a zeroed buffer keeps them zero); returns the sum of
    /// `src` when `sum` is set (the bias gradient), else zero.
    pub fn spread<T: super::conv_direct::ConvFloat>(
        &self,
        src: &[T],
        ext: &mut [T],
        sum: bool,
    ) -> T {
        let o2 = self.o[2];
        let mut lanes = [<T as crate::dtype::Element>::zero(); 8];
        self.out_rows(|orow, qrow| {
            let from = &src[orow..orow + o2];
            ext[qrow..qrow + o2].copy_from_slice(from);
            if sum {
                let mut ch = from.chunks_exact(8);
                for c in &mut ch {
                    for (a, &v) in lanes.iter_mut().zip(c) {
                        *a += v;
                    }
                }
                for (a, &v) in lanes.iter_mut().zip(ch.remainder()) {
                    *a += v;
                }
            }
        });
        lanes
            .iter()
            .fold(<T as crate::dtype::Element>::zero(), |a, &v| a + v)
    }
}
