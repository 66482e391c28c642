//! 2-D grid sampling (`F.grid_sample` on `[N, C, H, W]` with a grid `[N, Ho, Wo, 2]`):
//! the forward pass and both gradients (input and grid) as loops over contiguous slices.
//!
//! Each output point's corners (four for bilinear, one for nearest), their weights and
//! the weights' derivatives along x and y are computed once per point into a table and
//! then used for every channel, so the per-channel loops run over contiguous rows of the
//! output and the output gradient. The semantics are PyTorch's `grid_sampler_2d`:
//! coordinates unnormalised with or without `align_corners`, `border` clipping and
//! `reflection` folding with their gradients (0 at a clipped coordinate), corners outside
//! the input read as 0, nearest rounds half to even. A NaN coordinate reads as outside.
//!
//! Work is split over channel planes for the forward pass and the input gradient (each
//! plane's scatter-add is then private to one thread, so results do not depend on
//! scheduling) and over points for the grid gradient.

use super::par::{for_each_chunk, for_each_chunk2};
use crate::error::{Error, Result};
use crate::interrupt::parallel_allowed;
use crate::storage::try_filled_vec;
use std::ops::AddAssign;

/// The float types grid sampling runs on (float32, float64).
pub trait GridFloat: num_traits::Float + AddAssign + Default + Send + Sync + 'static {}
impl GridFloat for f32 {}
impl GridFloat for f64 {}

/// Interpolation between the input's pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Weighted sum of the four surrounding pixels.
    Bilinear,
    /// The nearest pixel (ties to even).
    Nearest,
}

/// What a position outside the input reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Zero.
    Zeros,
    /// The nearest edge pixel (the coordinate is clipped).
    Border,
    /// The input mirrored at its edges.
    Reflection,
}

/// The sizes and options of one grid-sampling call.
#[derive(Clone, Copy, Debug)]
pub struct GridSpec {
    /// Batch size.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Input height and width.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Output points per sample (`Ho * Wo`).
    pub points: usize,
    /// Interpolation.
    pub mode: Mode,
    /// Outside positions.
    pub padding: Padding,
    /// Whether -1 and 1 are the corner pixels' centres (else their outer edges).
    pub align_corners: bool,
}

/// Elements per parallel task (below it a call stays on one thread).
const PAR_CHUNK: usize = 1 << 14;

impl GridSpec {
    fn plane(&self) -> usize {
        self.h * self.w
    }

    /// Checks the slices' lengths against the sizes (with checked products).
    fn check(&self, x: usize, grid: usize) -> Result<()> {
        let prod = |v: &[usize]| v.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
        let want_x = prod(&[self.n, self.c, self.h, self.w]);
        let want_g = prod(&[self.n, self.points, 2]);
        let want_o = prod(&[self.n, self.c, self.points]);
        match (want_x, want_g, want_o) {
            (Some(a), Some(b), Some(_)) if a == x && b == grid => Ok(()),
            (Some(_), Some(_), Some(_)) => Err(Error::runtime(
                "internal: grid_sample's buffers do not match its sizes",
            )),
            _ => Err(Error::value("grid_sample: the sizes overflow")),
        }
    }
}

/// A source coordinate and its derivative with respect to the grid value.
fn source<T: GridFloat>(coord: T, size: usize, spec: &GridSpec) -> (T, T) {
    let one = T::one();
    let two = one + one;
    let sz = T::from(size).unwrap_or(one);
    let (mut x, mut d) = if spec.align_corners {
        let half = (sz - one) / two;
        ((coord + one) * half, half)
    } else {
        (((coord + one) * sz - one) / two, sz / two)
    };
    if spec.padding == Padding::Reflection {
        let (r, dr) = if spec.align_corners {
            reflect(x, 0, 2 * size as i64 - 2)
        } else {
            reflect(x, -1, 2 * size as i64 - 1)
        };
        x = r;
        d = d * dr;
    }
    if spec.padding != Padding::Zeros {
        // PyTorch's clip: the gradient is 0 at and beyond either edge
        let hi = sz - one;
        if x <= T::zero() {
            return (T::zero(), T::zero());
        }
        if x >= hi {
            return (hi, T::zero());
        }
    }
    (x, d)
}

/// Folds `x` into `[low2 / 2, high2 / 2]` by reflecting at both ends, with the
/// derivative (+1 or -1).
fn reflect<T: GridFloat>(x: T, low2: i64, high2: i64) -> (T, T) {
    if low2 == high2 {
        return (T::zero(), T::zero());
    }
    let two = T::one() + T::one();
    let low = T::from(low2).unwrap_or(T::zero()) / two;
    let span = T::from(high2 - low2).unwrap_or(T::one()) / two;
    let mut v = x - low;
    let mut sign = T::one();
    if v < T::zero() {
        sign = -sign;
        v = -v;
    }
    let extra = v % span;
    let flips = (v / span).floor();
    if (flips % two) == T::zero() {
        (extra + low, sign)
    } else {
        (span - extra + low, -sign)
    }
}

/// One output point's corners: flat positions in the plane (0 for an outside corner),
/// weights (0 for an outside corner) and the weights' derivatives along x and y
/// (already multiplied by the coordinates' derivatives with respect to the grid).
#[derive(Clone, Copy, Default)]
struct Corners<T> {
    at: [usize; 4],
    w: [T; 4],
    dx: [T; 4],
    dy: [T; 4],
}

/// The corners of the point whose grid values are `(gx, gy)`.
fn corners<T: GridFloat>(gx: T, gy: T, s: &GridSpec) -> Corners<T> {
    let mut out = Corners {
        at: [0; 4],
        w: [T::zero(); 4],
        dx: [T::zero(); 4],
        dy: [T::zero(); 4],
    };
    if s.w == 0 || s.h == 0 {
        return out;
    }
    let (ix, mx) = source(gx, s.w, s);
    let (iy, my) = source(gy, s.h, s);
    if ix.is_nan() || iy.is_nan() {
        return out;
    }
    let inside = |x: T, y: T| -> Option<usize> {
        // (the float comparisons also reject values too large for usize)
        let ok = x >= T::zero()
            && y >= T::zero()
            && x <= T::from(s.w - 1).unwrap_or(T::zero())
            && y <= T::from(s.h - 1).unwrap_or(T::zero());
        ok.then(|| y.to_usize().unwrap_or(0) * s.w + x.to_usize().unwrap_or(0))
    };
    match s.mode {
        Mode::Nearest => {
            let (x, y) = (round_even(ix), round_even(iy));
            if let Some(at) = inside(x, y) {
                out.at[0] = at;
                out.w[0] = T::one();
            }
        }
        Mode::Bilinear => {
            let (x0, y0) = (ix.floor(), iy.floor());
            let (fx, fy) = (ix - x0, iy - y0);
            let one = T::one();
            let (ux, uy) = (one - fx, one - fy);
            // nw, ne, sw, se
            let xs = [x0, x0 + one, x0, x0 + one];
            let ys = [y0, y0, y0 + one, y0 + one];
            let w = [ux * uy, fx * uy, ux * fy, fx * fy];
            let dx = [-uy, uy, -fy, fy];
            let dy = [-ux, -fx, ux, fx];
            for k in 0..4 {
                if let Some(at) = inside(xs[k], ys[k]) {
                    out.at[k] = at;
                    out.w[k] = w[k];
                    out.dx[k] = dx[k] * mx;
                    out.dy[k] = dy[k] * my;
                }
            }
        }
    }
    out
}

/// Rounds half to even (C's `nearbyint` in the default rounding mode).
fn round_even<T: GridFloat>(x: T) -> T {
    let r = x.round();
    if (r - x).abs() == T::from(0.5).unwrap_or(T::zero()) {
        let two = T::one() + T::one();
        if (r % two) != T::zero() {
            return r - x.signum();
        }
    }
    r
}

/// The corner table of every point of every sample: `[N * points]`.
fn table<T: GridFloat>(grid: &[T], s: &GridSpec) -> Result<Vec<Corners<T>>> {
    let total = s.n * s.points;
    let mut tab = try_filled_vec(total, Corners::default())?;
    let run = |start: usize, chunk: &mut [Corners<T>]| {
        for (i, c) in chunk.iter_mut().enumerate() {
            let p = start + i;
            *c = corners(grid[2 * p], grid[2 * p + 1], s);
        }
    };
    if parallel_allowed() && total >= PAR_CHUNK / 4 {
        for_each_chunk(&mut tab, PAR_CHUNK / 4, &run);
    } else {
        run(0, &mut tab);
    }
    Ok(tab)
}

/// `out[n, c, p] = sum_k w_k * x[n, c, at_k]` over the point's corners: `[N, C, points]`.
pub fn forward<T: GridFloat>(x: &[T], grid: &[T], s: &GridSpec) -> Result<Vec<T>> {
    s.check(x.len(), grid.len())?;
    let tab = table(grid, s)?;
    let mut out = try_filled_vec(s.n * s.c * s.points, T::zero())?;
    if s.points == 0 {
        return Ok(out);
    }
    let plane = s.plane();
    let run = |start: usize, rows: &mut [T]| {
        for (r, row) in rows.chunks_mut(s.points).enumerate() {
            let nc = start / s.points + r;
            let src = &x[nc * plane..(nc + 1) * plane];
            let pts = &tab[(nc / s.c) * s.points..(nc / s.c + 1) * s.points];
            for (o, t) in row.iter_mut().zip(pts) {
                *o = t.w[0] * src[t.at[0]]
                    + t.w[1] * src[t.at[1]]
                    + t.w[2] * src[t.at[2]]
                    + t.w[3] * src[t.at[3]];
            }
        }
    };
    let rows = (PAR_CHUNK / s.points).max(1);
    if parallel_allowed() && out.len() >= PAR_CHUNK && s.n * s.c > 1 {
        for_each_chunk(&mut out, rows * s.points, &run);
    } else {
        run(0, &mut out);
    }
    Ok(out)
}

/// The input's and the grid's gradients, each when asked for.
pub type Grads<T> = (Option<Vec<T>>, Option<Vec<T>>);

/// The gradients of [`forward`] given the output's gradient `gy` `[N, C, points]`:
/// the input's (`[N, C, H, W]`, when `need_x`) and the grid's (`[N, points, 2]`, when
/// `need_grid`; zero for nearest, as PyTorch's).
pub fn backward<T: GridFloat>(
    gy: &[T],
    x: &[T],
    grid: &[T],
    s: &GridSpec,
    need_x: bool,
    need_grid: bool,
) -> Result<Grads<T>> {
    s.check(x.len(), grid.len())?;
    if gy.len() != s.n * s.c * s.points {
        return Err(Error::runtime(
            "internal: grid_sample's output gradient does not match its sizes",
        ));
    }
    let tab = table(grid, s)?;
    let plane = s.plane();
    let gx = if need_x {
        let mut gx = try_filled_vec(x.len(), T::zero())?;
        if plane > 0 {
            let run = |start: usize, planes: &mut [T]| {
                for (r, dst) in planes.chunks_mut(plane).enumerate() {
                    let nc = start / plane + r;
                    let g = &gy[nc * s.points..(nc + 1) * s.points];
                    let pts = &tab[(nc / s.c) * s.points..(nc / s.c + 1) * s.points];
                    for (&gv, t) in g.iter().zip(pts) {
                        for k in 0..4 {
                            dst[t.at[k]] += t.w[k] * gv;
                        }
                    }
                }
            };
            let per = PAR_CHUNK.checked_div(plane).unwrap_or(1).max(1);
            if parallel_allowed() && gx.len() >= PAR_CHUNK && s.n * s.c > 1 {
                for_each_chunk(&mut gx, per * plane, &run);
            } else {
                run(0, &mut gx);
            }
        }
        Some(gx)
    } else {
        None
    };
    let ggrid = if need_grid {
        let total = s.n * s.points;
        let mut gxs = try_filled_vec(total, T::zero())?;
        let mut gys = try_filled_vec(total, T::zero())?;
        if s.mode == Mode::Bilinear {
            let run = |start: usize, ax: &mut [T], ay: &mut [T]| {
                // the chunk's points, sample by sample, channel by channel
                let mut p = start;
                while p < start + ax.len() {
                    let n = p / s.points;
                    let end = ((n + 1) * s.points).min(start + ax.len());
                    for c in 0..s.c {
                        let nc = n * s.c + c;
                        let src = &x[nc * plane..(nc + 1) * plane];
                        for q in p..end {
                            let (t, g) = (&tab[q], gy[nc * s.points + q - n * s.points]);
                            let (mut sx, mut sy) = (T::zero(), T::zero());
                            for k in 0..4 {
                                let v = src[t.at[k]];
                                sx += t.dx[k] * v;
                                sy += t.dy[k] * v;
                            }
                            ax[q - start] += sx * g;
                            ay[q - start] += sy * g;
                        }
                    }
                    p = end;
                }
            };
            let per = (PAR_CHUNK / s.c.max(1)).max(64);
            if parallel_allowed() && total.saturating_mul(s.c) >= PAR_CHUNK {
                for_each_chunk2(&mut gxs, &mut gys, per, &run);
            } else {
                run(0, &mut gxs, &mut gys);
            }
        }
        let mut out = try_filled_vec(2 * total, T::zero())?;
        for (i, o) in out.chunks_mut(2).enumerate() {
            o[0] = gxs[i];
            o[1] = gys[i];
        }
        Some(out)
    } else {
        None
    };
    Ok((gx, ggrid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(mode: Mode, padding: Padding, align_corners: bool) -> GridSpec {
        GridSpec {
            n: 1,
            c: 2,
            h: 3,
            w: 4,
            points: 3,
            mode,
            padding,
            align_corners,
        }
    }

    #[test]
    fn bilinear_matches_hand_computed_values() {
        let x: Vec<f64> = (0..24).map(|v| v as f64).collect();
        // the centre of pixel (1, 2) with align_corners=True: x = -1 + 2*2/3, y = 0
        let grid = vec![-1.0 + 4.0 / 3.0, 0.0, 1.0, 1.0, 5.0, 5.0];
        let s = spec(Mode::Bilinear, Padding::Zeros, true);
        let out = forward(&x, &grid, &s).unwrap();
        assert!((out[0] - 6.0).abs() < 1e-12); // pixel (1, 2) of channel 0
        assert!((out[1] - 11.0).abs() < 1e-12); // the last pixel
        assert_eq!(out[2], 0.0); // far outside
        assert!((out[3] - 18.0).abs() < 1e-12); // channel 1
    }

    #[test]
    fn gradients_match_finite_differences() {
        let x: Vec<f64> = (0..24).map(|v| ((v * 7) % 5) as f64 - 1.3).collect();
        let grid = vec![0.13, -0.41, 0.77, 0.58, -0.9, 0.2];
        for padding in [Padding::Zeros, Padding::Border, Padding::Reflection] {
            for align in [false, true] {
                let s = spec(Mode::Bilinear, padding, align);
                let gy: Vec<f64> = (0..6).map(|v| 0.5 + v as f64).collect();
                let (gx, gg) = backward(&gy, &x, &grid, &s, true, true).unwrap();
                let (gx, gg) = (gx.unwrap(), gg.unwrap());
                let loss = |x: &[f64], g: &[f64]| -> f64 {
                    let o = forward(x, g, &s).unwrap();
                    o.iter().zip(&gy).map(|(a, b)| a * b).sum()
                };
                let eps = 1e-6;
                for i in 0..grid.len() {
                    let (mut a, mut b) = (grid.clone(), grid.clone());
                    a[i] += eps;
                    b[i] -= eps;
                    let fd = (loss(&x, &a) - loss(&x, &b)) / (2.0 * eps);
                    assert!((fd - gg[i]).abs() < 1e-6, "{padding:?} {align} grid {i}");
                }
                for i in 0..x.len() {
                    let (mut a, mut b) = (x.clone(), x.clone());
                    a[i] += eps;
                    b[i] -= eps;
                    let fd = (loss(&a, &grid) - loss(&b, &grid)) / (2.0 * eps);
                    assert!((fd - gx[i]).abs() < 1e-6, "{padding:?} {align} input {i}");
                }
            }
        }
    }

    #[test]
    fn nearest_rounds_half_to_even_and_nan_reads_zero() {
        assert_eq!(round_even(2.5f64), 2.0);
        assert_eq!(round_even(3.5f64), 4.0);
        assert_eq!(round_even(-2.5f64), -2.0);
        let x: Vec<f32> = (0..24).map(|v| v as f32).collect();
        let s = spec(Mode::Nearest, Padding::Zeros, true);
        let out = forward(&x, &[f32::NAN, 0.0, -1.0, -1.0, 1.0, -1.0], &s).unwrap();
        assert_eq!(&out[..3], &[0.0, 0.0, 3.0]);
    }
}
