//! The convolution's products on the LSTM's packed-panel micro-kernel
//! ([`super::rnn_gemm`]'s `mac`, one kernel for both): the LEFT operand (the weight) is
//! packed ONCE per call into row blocks ([`pack_lhs`]), and the right operand is read
//! in place, 16 contiguous columns from each of its rows ([`panel_product`]).
//!
//! Why: the shifted convolution (`conv_shift`) ran one gemm call per kernel row and
//! sample, and gemm re-packed both operands on every call, added the three kernel rows'
//! products in three passes over its output, and computed the grid's dropped columns
//! (2 of every 34 for 32x32 images). Here one call computes 16 outputs of one output row
//! for every output channel, summing all kernel rows in registers, so a panel starts at
//! an output row's first column and the dropped columns are never computed; the result
//! (plus the bias) is stored straight into the output.
//!
//! On a CPU with AVX-512 the blocks are [`MR_WIDE`] rows and one 16-lane register per
//! row ([`super::panel_avx512`]): twice the multiply-adds per instruction of the AVX2
//! kernel (6 rows x two 8-lane registers), which ran at the AVX2 peak.

use super::gemm_into::Mat;
use super::panel_avx512::{self as wide, MR_WIDE};
use super::rnn_gemm::{available, even_blocks, MR, NR};
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

/// A `[M, K]` left operand cut into blocks of at most [`MR`] rows, or [`MR_WIDE`] for
/// the AVX-512 kernel (sizes as equal as possible: 64 rows are nine blocks of 6 and two
/// of 5, or four of 16); a block of `r` rows starting at row `i` is stored at `i*K` as
/// `K` groups of its `r` values (`[K, r]`).
pub struct PackedLhs {
    data: Vec<f32>,
    m: usize,
    k: usize,
    /// (first row, rows) of every block.
    blocks: Vec<(usize, usize)>,
    /// Packed for the AVX-512 kernel (blocks of up to [`MR_WIDE`] rows).
    wide: bool,
}

impl PackedLhs {
    /// Rows `M`.
    pub fn m(&self) -> usize {
        self.m
    }
    /// Columns `K` (every segment's together).
    pub fn k(&self) -> usize {
        self.k
    }
}

/// Packs the left operand whose columns are the segments `segs` side by side (each
/// `[M, K_s]`, any strides; `M` the same for all); `None` when the CPU lacks AVX2/FMA
/// (the caller keeps the gemm path).
pub fn pack_lhs(segs: &[Mat<'_, f32>]) -> Result<Option<PackedLhs>> {
    if wide::available() {
        return pack_lhs_any(segs, true).map(Some);
    }
    if !available() {
        return Ok(None);
    }
    pack_lhs_any(segs, false).map(Some)
}

/// [`pack_lhs`] without the CPU check (the layout is plain Rust); `wide`: blocks for
/// the AVX-512 kernel.
fn pack_lhs_any(segs: &[Mat<'_, f32>], wide: bool) -> Result<PackedLhs> {
    let m = segs.first().map_or(0, |s| s.rows);
    let mut k = 0usize;
    for s in segs {
        if s.rows != m {
            return Err(Error::runtime("internal: packed segments differ in rows"));
        }
        s.check("packed")?;
        k = k
            .checked_add(s.cols)
            .ok_or_else(|| Error::value("conv: packed weight size overflows"))?;
    }
    let len = m
        .checked_mul(k)
        .ok_or_else(|| Error::value("conv: packed weight size overflows"))?;
    let mut data = try_filled_vec(len, 0.0f32)?;
    let blocks: Vec<(usize, usize)> = even_blocks(m, if wide { MR_WIDE } else { MR }).collect();
    for &(i, r) in &blocks {
        let mut at = i * k;
        for s in segs {
            for p in 0..s.cols {
                for row in 0..r {
                    // inside the view: `check` above
                    let src = s.off as isize + (i + row) as isize * s.rs + p as isize * s.cs;
                    data[at] = s.data[src as usize];
                    at += 1;
                }
            }
        }
    }
    Ok(PackedLhs {
        data,
        m,
        k,
        blocks,
        wide,
    })
}

/// One 16-column panel of a product on a packed left operand, for every row:
///
/// `dst[i*dst_rs + j] = bias[i] + sum_s sum_(p < K/S) A[i, s*K/S + p] * b[at + offs[s] + p*b_rs + j]`
///
/// for `i < M`, `j < w` (`w <= 16`), `S = offs.len()` segments of equal size. The 16
/// values of each right row are read even when `w < 16` (they must lie inside `b`);
/// only `w` are stored.
#[allow(clippy::too_many_arguments)]
pub fn panel_product(
    dst: &mut [f32],
    dst_rs: usize,
    a: &PackedLhs,
    b: &[f32],
    at: usize,
    offs: &[usize],
    b_rs: usize,
    bias: Option<&[f32]>,
    w: usize,
) -> Result<()> {
    let (m, segs) = (a.m, offs.len());
    let bad = || Error::runtime("internal: a packed panel's operands do not fit their buffers");
    if m == 0 || w == 0 {
        return Ok(());
    }
    if segs == 0 || !a.k.is_multiple_of(segs) || w > NR || bias.is_some_and(|x| x.len() < m) {
        return Err(bad());
    }
    let kseg = a.k / segs;
    let dst_end = (m - 1).checked_mul(dst_rs).and_then(|v| v.checked_add(w));
    if dst_rs < w || dst_end.is_none_or(|e| e > dst.len()) {
        return Err(bad());
    }
    if kseg > 0 {
        let last = offs.iter().max().copied().unwrap_or(0);
        let b_end = (kseg - 1)
            .checked_mul(b_rs)
            .and_then(|v| v.checked_add(at))
            .and_then(|v| v.checked_add(last))
            .and_then(|v| v.checked_add(NR));
        if b_end.is_none_or(|e| e > b.len()) {
            return Err(bad());
        }
    }
    #[cfg(target_arch = "x86_64")]
    if (a.wide && wide::available()) || (!a.wide && available()) {
        let bias = bias.map_or(std::ptr::null(), <[f32]>::as_ptr);
        for &(i, r) in &a.blocks {
            let blk = Block {
                dst: dst[i * dst_rs..].as_mut_ptr(),
                dst_rs,
                a: a.data[i * a.k..].as_ptr(),
                b: b[at..].as_ptr(),
                offs,
                b_rs,
                kseg,
                bias: if bias.is_null() {
                    bias
                } else {
                    bias.wrapping_add(i)
                },
                w,
            };
            // SAFETY: the kernel's instruction set is present (AVX-512F for a wide
            // packing, else AVX2/FMA); the block's rows of `dst` (`w` columns, row step
            // `dst_rs`) and of `bias`, its packed rows (`r*K` values at `i*K`, `r` at
            // most the packing's block size) and every right row read (16 values) lie
            // inside their slices (checked above); `dst` is a unique borrow, so it
            // overlaps no operand.
            unsafe {
                if a.wide {
                    wide::panel_block(&blk, r);
                } else {
                    avx2::panel_block(&blk, r);
                }
            }
        }
        return Ok(());
    }
    // portable loop (only reached for operands packed by `pack_lhs_any` in tests)
    for &(i, r) in &a.blocks {
        let ap = &a.data[i * a.k..][..r * a.k];
        for row in 0..r {
            for j in 0..w {
                let mut s = bias.map_or(0.0, |x| x[i + row]);
                for (sg, &o) in offs.iter().enumerate() {
                    for p in 0..kseg {
                        let kk = sg * kseg + p;
                        s += ap[kk * r + row] * b[at + o + p * b_rs + j];
                    }
                }
                dst[(i + row) * dst_rs + j] = s;
            }
        }
    }
    Ok(())
}

/// Where one row block of [`panel_product`] reads and writes.
pub(crate) struct Block<'a> {
    /// The block's first output row at the panel's first column.
    pub(crate) dst: *mut f32,
    /// Output row step.
    pub(crate) dst_rs: usize,
    /// The block's packed rows, `[K, R]`.
    pub(crate) a: *const f32,
    /// Right operand at the panel's first column.
    pub(crate) b: *const f32,
    /// Each segment's offset into the right operand.
    pub(crate) offs: &'a [usize],
    /// Right row step.
    pub(crate) b_rs: usize,
    /// Inner size of each segment (`K / offs.len()`).
    pub(crate) kseg: usize,
    /// The block's first bias value, or null.
    pub(crate) bias: *const f32,
    /// Columns stored (at most 16).
    pub(crate) w: usize,
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Block, NR};
    use crate::kernels::rnn_gemm::avx2::{mac, Walk};
    use std::arch::x86_64::*;

    /// The walk of one segment: left packed `[K, R]`, right rows `b_rs` apart in place.
    struct PackedOnRows<const R: usize> {
        a: *const f32,
        b: *const f32,
        b_rs: usize,
    }

    impl<const R: usize> Walk for PackedOnRows<R> {
        #[inline(always)]
        unsafe fn a(&self, row: usize, p: usize) -> *const f32 {
            self.a.add(p * R + row)
        }
        #[inline(always)]
        unsafe fn b(&self, p: usize) -> *const f32 {
            self.b.add(p * self.b_rs)
        }
    }

    /// [`block`] for a block of `r` (at most six) rows.
    ///
    /// # Safety
    /// As [`block`].
    pub(super) unsafe fn panel_block(k: &Block<'_>, r: usize) {
        match r {
            6 => block::<6>(k),
            5 => block::<5>(k),
            4 => block::<4>(k),
            3 => block::<3>(k),
            2 => block::<2>(k),
            _ => block::<1>(k),
        }
    }

    /// `R` rows x 16 columns: the accumulators start at the bias, every segment runs
    /// [`mac`] into them, and `w` columns are stored.
    ///
    /// # Safety
    /// AVX2/FMA are present and the pointers satisfy [`super::panel_product`]'s checks.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block<const R: usize>(k: &Block<'_>) {
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        if !k.bias.is_null() {
            for (row, ac) in acc.iter_mut().enumerate() {
                let v = _mm256_broadcast_ss(&*k.bias.add(row));
                *ac = [v, v];
            }
        }
        for (s, &o) in k.offs.iter().enumerate() {
            let walk = PackedOnRows::<R> {
                a: k.a.add(s * k.kseg * R),
                b: k.b.add(o),
                b_rs: k.b_rs,
            };
            mac(&mut acc, &walk, k.kseg);
        }
        for (row, ac) in acc.iter().enumerate() {
            let d = k.dst.add(row * k.dst_rs);
            if k.w == NR {
                _mm256_storeu_ps(d, ac[0]);
                _mm256_storeu_ps(d.add(8), ac[1]);
            } else {
                let mut tmp = [0.0f32; NR];
                _mm256_storeu_ps(tmp.as_mut_ptr(), ac[0]);
                _mm256_storeu_ps(tmp.as_mut_ptr().add(8), ac[1]);
                std::ptr::copy_nonoverlapping(tmp.as_ptr(), d, k.w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(n: usize, seed: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (((i * 37 + seed * 11) % 29) as f32 - 14.0) / 8.0)
            .collect()
    }

    #[test]
    fn panel_product_matches_a_float64_loop() {
        // rows below, at and past a 6-row block (64 = nine blocks of 6, two of 5) and
        // a 16-row wide block (17 = 9 + 8, 33 = three of 11); one and three segments;
        // stored widths short of and at 16; with and without a bias; a left operand
        // given transposed; packed for the machine, for AVX2 and for AVX-512
        for &(m, kseg, segs, w) in &[
            (1, 1, 1, 1),
            (5, 3, 2, 7),
            (6, 8, 3, 16),
            (7, 5, 3, 13),
            (13, 9, 1, 16),
            (64, 192, 3, 16),
            (17, 6, 2, 16),
            (33, 5, 3, 9),
            (4, 0, 2, 5),
        ] {
            let k = kseg * segs;
            let at_t = vals(k * m, 1); // A^T [k, m]
            let b_rs = 40;
            let offs: Vec<usize> = (0..segs).map(|s| s * 3).collect();
            let b = vals(3 * segs + kseg.max(1) * b_rs + NR, 2);
            let bias = vals(m, 3);
            let a_segs: Vec<Mat<'_, f32>> = (0..segs)
                .map(|s| Mat::row_major(&at_t, s * kseg * m, kseg, m).t())
                .collect();
            let packed = [
                pack_lhs(&a_segs).unwrap(),
                Some(pack_lhs_any(&a_segs, false).unwrap()),
                Some(pack_lhs_any(&a_segs, true).unwrap()),
            ];
            for pk in packed.iter().flatten() {
                for with_bias in [false, true] {
                    let dst_rs = w + 2;
                    let mut dst = vec![9.0f32; m * dst_rs];
                    let bi = with_bias.then_some(&bias[..]);
                    panel_product(&mut dst, dst_rs, pk, &b, 1, &offs, b_rs, bi, w).unwrap();
                    for i in 0..m {
                        for j in 0..w {
                            let mut want = if with_bias { bias[i] as f64 } else { 0.0 };
                            for (s, &o) in offs.iter().enumerate() {
                                for p in 0..kseg {
                                    let av = at_t[(s * kseg + p) * m + i] as f64;
                                    want += av * b[1 + o + p * b_rs + j] as f64;
                                }
                            }
                            let got = dst[i * dst_rs + j] as f64;
                            let tol = 1e-5 * (1.0 + want.abs()) * (k as f64).sqrt().max(1.0);
                            assert!((got - want).abs() <= tol, "{m}x{k}/{w} [{i},{j}]");
                        }
                        // the columns past `w` are untouched
                        assert_eq!(dst[i * dst_rs + w], 9.0);
                    }
                }
            }
        }
    }

    #[test]
    fn operands_too_small_are_errors() {
        let at = vals(6, 1);
        let pk = pack_lhs_any(&[Mat::row_major(&at, 0, 2, 3)], false).unwrap(); // [2, 3]
        let b = vals(2 * 5 + NR, 2);
        let mut dst = vec![0.0f32; 2 * 16];
        assert!(panel_product(&mut dst, 16, &pk, &b, 0, &[0], 5, None, 16).is_ok());
        assert!(panel_product(&mut dst, 16, &pk, &b[..b.len() - 1], 0, &[0], 5, None, 16).is_err());
        assert!(panel_product(&mut dst[..31], 16, &pk, &b, 0, &[0], 5, None, 16).is_err());
        assert!(panel_product(&mut dst, 16, &pk, &b, 0, &[0], 5, None, 17).is_err());
        assert!(panel_product(&mut dst, 16, &pk, &b, 0, &[0, 1], 5, None, 4).is_err());
        assert!(panel_product(&mut dst, 16, &pk, &b, 0, &[0], 5, Some(&at[..1]), 4).is_err());
    }
}
