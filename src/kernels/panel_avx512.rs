//! The packed-panel products' AVX-512 micro-kernels: one 16-lane register per row of a
//! 16-column panel, so a block of [`MR_WIDE`] rows keeps 16 accumulators and each step
//! loads one right vector and broadcasts one left value per row (folded into the
//! multiply-add as a memory operand). On a CPU with 512-bit multiply-add units this runs
//! twice the multiply-adds per instruction of the AVX2 kernel (`rnn_gemm::avx2`, 6 rows
//! x two 8-lane registers), which already ran at the AVX2 peak.
//!
//! Used by [`super::panel_gemm`] (the convolution's products: left packed, right rows in
//! place) when the left operand was packed for it, and by [`super::rnn_gemm`] (the
//! recurrent products: left rows in place, right packed into 16-column panels), where a
//! block is 6 rows x 4 panels (24 accumulators, four right vectors per step: six row
//! pointers fit the general registers, as in the AVX2 kernel).

use super::panel_gemm::Block;

/// Most rows per block of the AVX-512 kernels (16 accumulators, one right vector:
/// 17 of the 32 registers; at least 8 independent accumulators hide the multiply-add
/// latency on two units).
pub const MR_WIDE: usize = 16;

/// Whether this CPU runs the AVX-512 kernels (AVX-512F).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`imp::block`] for a block of `r` (1 to [`MR_WIDE`]) rows.
///
/// # Safety
/// AVX-512F is present and the pointers satisfy [`super::panel_gemm::panel_product`]'s
/// checks for a block of `r` packed rows.
#[cfg(target_arch = "x86_64")]
pub(crate) unsafe fn panel_block(k: &Block<'_>, r: usize) {
    use imp::block;
    match r {
        16 => block::<16>(k),
        15 => block::<15>(k),
        14 => block::<14>(k),
        13 => block::<13>(k),
        12 => block::<12>(k),
        11 => block::<11>(k),
        10 => block::<10>(k),
        9 => block::<9>(k),
        8 => block::<8>(k),
        7 => block::<7>(k),
        6 => block::<6>(k),
        5 => block::<5>(k),
        4 => block::<4>(k),
        3 => block::<3>(k),
        2 => block::<2>(k),
        _ => block::<1>(k),
    }
}

/// Rows per block and panels per group of [`rows_product`].
#[cfg(target_arch = "x86_64")]
const ROWS_MR: usize = 6;
#[cfg(target_arch = "x86_64")]
const ROWS_NP: usize = 4;

/// `dst[i, j] = sum_p a[i*a_rs + p] * B[p, j] (+ add[i*add_rs + j])` for `i < m`,
/// `j < n`, `B` packed as `ceil(n/16)` panels of `k x 16` at `b` (zeros past column
/// `n`): groups of four panels, rows cut into `ceil(m/6)` blocks of nearly equal size.
///
/// # Safety
/// AVX-512F is present and the pointers satisfy `rnn_gemm::product`'s checks (`add`
/// null or valid like `dst`).
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn rows_product(
    dst: *mut f32,
    dst_rs: usize,
    a: *const f32,
    a_rs: usize,
    m: usize,
    k: usize,
    n: usize,
    b: *const f32,
    add: *const f32,
    add_rs: usize,
) {
    use crate::kernels::rnn_gemm::{even_blocks, NR};
    let panels = n.div_ceil(NR);
    let mut p0 = 0;
    while p0 < panels {
        let np = ROWS_NP.min(panels - p0);
        let c0 = p0 * NR;
        for (i, rows) in even_blocks(m, ROWS_MR) {
            let r = imp::RowBlock {
                a: a.add(i * a_rs),
                a_rs,
                b: b.add(p0 * k * NR),
                k,
                dst: dst.add(i * dst_rs + c0),
                dst_rs,
                add: if add.is_null() {
                    add
                } else {
                    add.add(i * add_rs + c0)
                },
                add_rs,
                w: n - c0,
            };
            match np {
                4 => imp::rows_block_any::<4>(&r, rows),
                3 => imp::rows_block_any::<3>(&r, rows),
                2 => imp::rows_block_any::<2>(&r, rows),
                _ => imp::rows_block_any::<1>(&r, rows),
            }
        }
        p0 += np;
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::Block;
    use crate::kernels::rnn_gemm::NR;
    use std::arch::x86_64::*;

    /// `acc[row] += a[p*R + row] * b[p*b_rs .. +16]` for `p < k`, four `p` per
    /// iteration (the loop's counter and branch paid once per `4*R` multiply-adds).
    ///
    /// # Safety
    /// AVX-512F is present; `a` holds `k*R` values and every `b` row read lies inside
    /// the right operand.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn mac<const R: usize>(
        acc: &mut [__m512; R],
        a: *const f32,
        b: *const f32,
        b_rs: usize,
        k: usize,
    ) {
        let mut p = 0;
        while p + 4 <= k {
            for u in 0..4 {
                step(acc, a.add((p + u) * R), b.add((p + u) * b_rs));
            }
            p += 4;
        }
        while p < k {
            step(acc, a.add(p * R), b.add(p * b_rs));
            p += 1;
        }
    }

    /// One `p` of [`mac`]: one right vector, one broadcast and multiply-add per row.
    ///
    /// # Safety
    /// As [`mac`], for one `p`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn step<const R: usize>(acc: &mut [__m512; R], a: *const f32, b: *const f32) {
        let bv = _mm512_loadu_ps(b);
        for (row, ac) in acc.iter_mut().enumerate() {
            *ac = _mm512_fmadd_ps(_mm512_set1_ps(*a.add(row)), bv, *ac);
        }
    }

    /// `R` rows x 16 columns: the accumulators start at the bias, every segment runs
    /// [`mac`] into them, and `w` columns are stored (a masked store when `w < 16`).
    ///
    /// # Safety
    /// As [`super::panel_block`].
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn block<const R: usize>(k: &Block<'_>) {
        let mut acc = [_mm512_setzero_ps(); R];
        if !k.bias.is_null() {
            for (row, ac) in acc.iter_mut().enumerate() {
                *ac = _mm512_set1_ps(*k.bias.add(row));
            }
        }
        for (s, &o) in k.offs.iter().enumerate() {
            mac(
                &mut acc,
                k.a.add(s * k.kseg * R),
                k.b.add(o),
                k.b_rs,
                k.kseg,
            );
        }
        // `w <= 16` (checked by the caller): the mask keeps the columns that exist
        let mask: __mmask16 = if k.w >= NR { !0 } else { (1u16 << k.w) - 1 };
        for (row, ac) in acc.iter().enumerate() {
            _mm512_mask_storeu_ps(k.dst.add(row * k.dst_rs), mask, *ac);
        }
    }

    /// Where one row block of [`super::rows_product`] reads and writes.
    pub(super) struct RowBlock {
        /// The block's first left row (`k` values, rows `a_rs` apart).
        pub a: *const f32,
        /// Left row step.
        pub a_rs: usize,
        /// The group's first packed panel.
        pub b: *const f32,
        /// Rows of each panel (the products' inner size).
        pub k: usize,
        /// At the group's first column.
        pub dst: *mut f32,
        /// Output row step.
        pub dst_rs: usize,
        /// Added to the product (same place as `dst`), or null.
        pub add: *const f32,
        /// `add`'s row step.
        pub add_rs: usize,
        /// Columns from the group's first to the product's last.
        pub w: usize,
    }

    /// [`rows_block`] for a block of `r` (1 to 6) rows.
    ///
    /// # Safety
    /// As [`rows_block`].
    #[inline]
    pub(super) unsafe fn rows_block_any<const NP: usize>(b: &RowBlock, r: usize) {
        match r {
            6 => rows_block::<6, NP>(b),
            5 => rows_block::<5, NP>(b),
            4 => rows_block::<4, NP>(b),
            3 => rows_block::<3, NP>(b),
            2 => rows_block::<2, NP>(b),
            _ => rows_block::<1, NP>(b),
        }
    }

    /// One `p` of [`rows_block`]: `NP` right vectors (panels `panel` values apart), one
    /// broadcast per row, `R*NP` multiply-adds.
    ///
    /// # Safety
    /// As [`rows_block`], for one `p < k`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn rows_step<const R: usize, const NP: usize>(
        acc: &mut [[__m512; NP]; R],
        rows: &[*const f32; R],
        b: *const f32,
        panel: usize,
        p: usize,
    ) {
        let mut bv = [_mm512_setzero_ps(); NP];
        for (v, x) in bv.iter_mut().enumerate() {
            *x = _mm512_loadu_ps(b.add(v * panel + p * NR));
        }
        for (ac, rp) in acc.iter_mut().zip(rows) {
            let av = _mm512_set1_ps(*rp.add(p));
            for (x, bb) in ac.iter_mut().zip(&bv) {
                *x = _mm512_fmadd_ps(av, *bb, *x);
            }
        }
    }

    /// `R` rows x `NP` panels: `R*NP` accumulators, one broadcast per row and `NP`
    /// right vectors per step (four steps per iteration), then `NP*16` columns stored
    /// (masked past the product's last column), each plus `add` when given.
    ///
    /// # Safety
    /// AVX-512F is present; rows `0..R` of `a` (`k` values each), of `dst` and of `add`
    /// (the group's columns that exist) and the `NP` panels lie inside their buffers.
    #[target_feature(enable = "avx512f")]
    unsafe fn rows_block<const R: usize, const NP: usize>(bk: &RowBlock) {
        let mut acc = [[_mm512_setzero_ps(); NP]; R];
        let mut rows = [bk.a; R];
        for (row, rp) in rows.iter_mut().enumerate() {
            *rp = bk.a.add(row * bk.a_rs);
        }
        let panel = bk.k * NR;
        let mut p = 0;
        while p + 4 <= bk.k {
            for u in 0..4 {
                rows_step(&mut acc, &rows, bk.b, panel, p + u);
            }
            p += 4;
        }
        while p < bk.k {
            rows_step(&mut acc, &rows, bk.b, panel, p);
            p += 1;
        }
        for (row, ac) in acc.iter().enumerate() {
            let d = bk.dst.add(row * bk.dst_rs);
            let x = if bk.add.is_null() {
                bk.add
            } else {
                bk.add.add(row * bk.add_rs)
            };
            for (v, val) in ac.iter().enumerate() {
                let left = bk.w.saturating_sub(v * NR);
                if left == 0 {
                    break;
                }
                let mask: __mmask16 = if left >= NR { !0 } else { (1u16 << left) - 1 };
                let mut val = *val;
                if !x.is_null() {
                    val = _mm512_add_ps(val, _mm512_maskz_loadu_ps(mask, x.add(v * NR)));
                }
                _mm512_mask_storeu_ps(d.add(v * NR), mask, val);
            }
        }
    }
}
