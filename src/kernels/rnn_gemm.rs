//! The float32 product of a recurrent step, `dst = a @ B (+ add)`, on a right operand
//! packed ONCE per layer run ([`pack`]) and reused by every time step.
//!
//! Why not the `gemm` crate: it re-packs (or re-reads unpacked) `W_hh^T` on every step,
//! and at batch 32 its AVX2 micro-kernel (16 x 6, run on the transposed problem) leaves
//! a 2-column tail that took 19 % of the step's GEMM time for 6 % of the work. Here the
//! operand is cut once into panels of [`NR`] = 16 columns (zero-padded at the end), each
//! `K x 16` contiguous, and a 6-row x 16-column AVX2/FMA micro-kernel walks them; the
//! rows are cut into blocks of nearly equal size (batch 32: 6, 6, 5, 5, 5, 5) instead of
//! full blocks and a short tail, and a short last panel only computes a few padded
//! zeros. The kernel needs AVX2 and FMA; without them [`pack`] answers `None` and the
//! caller keeps the `gemm` path.

use super::gemm_into::Mat;
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

/// Columns per packed panel (two 8-lane float32 registers).
pub const NR: usize = 16;
/// Most rows per micro-kernel block.
pub(crate) const MR: usize = 6;
/// Packed elements from which [`pack`] fills its panels on the pool.
const PACK_PAR_LEN: usize = 1 << 16;

/// A `[K, N]` right operand cut into column panels of [`NR`]: panel `p` holds columns
/// `p*NR..` as `K` rows of `NR` values (zeros past column `N`).
pub struct PackedRhs<T> {
    data: Vec<T>,
    k: usize,
    n: usize,
}

impl<T> PackedRhs<T> {
    /// Rows `K` of the packed operand.
    pub fn k(&self) -> usize {
        self.k
    }
    /// Columns `N` of the packed operand.
    pub fn n(&self) -> usize {
        self.n
    }
}

/// Whether this CPU runs the packed kernel (AVX2 and FMA).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Packs the view `b` (`[K, N]`, any strides) for [`product`]; `None` when the CPU lacks
/// AVX2/FMA.
pub fn pack(b: Mat<'_, f32>) -> Result<Option<PackedRhs<f32>>> {
    if !available() {
        return Ok(None);
    }
    pack_any(b).map(Some)
}

/// [`pack`] without the CPU check (the layout is plain Rust).
fn pack_any(b: Mat<'_, f32>) -> Result<PackedRhs<f32>> {
    let (k, n) = (b.rows, b.cols);
    b.check("packed")?;
    let panels = n.div_ceil(NR);
    let len = panels
        .checked_mul(NR)
        .and_then(|v| v.checked_mul(k))
        .ok_or_else(|| Error::value("rnn: packed weight size overflows"))?;
    let mut data = try_filled_vec(len, 0.0f32)?;
    if k == 0 {
        return Ok(PackedRhs { data, k, n });
    }
    // one panel per task: the panels are disjoint, and packing `W_hh` (1 MB in the
    // benchmark) ran single-threaded once per layer run and direction
    let fill = |start: usize, panel: &mut [f32]| {
        let c0 = start / (k * NR) * NR;
        let w = NR.min(n - c0);
        // row by row: both `W^T` (columns strided) and `W` (rows strided) read each
        // cache line once per panel; column by column re-read `W`'s lines 16 times
        for (kk, row) in panel.chunks_exact_mut(NR).enumerate() {
            let base = b.off as isize + kk as isize * b.rs;
            for (j, dst) in row.iter_mut().take(w).enumerate() {
                // inside the view: `check` above
                *dst = b.data[(base + (c0 + j) as isize * b.cs) as usize];
            }
        }
    };
    if len >= PACK_PAR_LEN && crate::interrupt::parallel_allowed() {
        super::par::for_each_chunk(&mut data, k * NR, &fill);
    } else {
        for (p, panel) in data.chunks_exact_mut(k * NR).enumerate() {
            fill(p * k * NR, panel);
        }
    }
    Ok(PackedRhs { data, k, n })
}

/// `m` rows cut into `ceil(m / most)` blocks of nearly equal size (32 rows, at most 6 a
/// block: 6, 6, 5, 5, 5, 5), as (first row, rows): no block is a short tail with too few
/// accumulators to hide the multiply-add latency. The one row split of the packed kernels
/// (`rnn_gemm`, `panel_gemm`, `panel_avx512`).
pub(crate) fn even_blocks(m: usize, most: usize) -> impl Iterator<Item = (usize, usize)> {
    let count = m.div_ceil(most);
    // no blocks (m = 0) leaves the split unused
    let (base, extra) = (
        m.checked_div(count).unwrap_or(0),
        m.checked_rem(count).unwrap_or(0),
    );
    (0..count).map(move |b| (b * base + b.min(extra), base + usize::from(b < extra)))
}

/// Whether rows `0..m` of `cols` elements at row step `rs` fit a slice of `len`.
fn fits(m: usize, rs: usize, cols: usize, len: usize) -> bool {
    m == 0
        || (rs >= cols
            && (m - 1)
                .checked_mul(rs)
                .and_then(|v| v.checked_add(cols))
                .is_some_and(|v| v <= len))
}

/// `dst[i, j] = sum_p a[i*a_rs + p] * B[p, j]`, plus `add[i*add_rs + j]` when `add` is
/// given, for `i < m`, `j < N` (`dst` row step `dst_rs`). `b` comes from [`pack`].
pub fn product(
    dst: &mut [f32],
    dst_rs: usize,
    a: &[f32],
    a_rs: usize,
    m: usize,
    b: &PackedRhs<f32>,
    add: Option<(&[f32], usize)>,
) -> Result<()> {
    product_on(Kernel::best(), dst, dst_rs, a, a_rs, m, b, add)
}

/// The micro-kernels [`product`] can run on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kernel {
    /// AVX-512F (`panel_avx512`).
    Wide,
    /// AVX2 and FMA.
    Avx2,
    /// Plain loops.
    Portable,
}

impl Kernel {
    /// The widest kernel this CPU runs.
    fn best() -> Kernel {
        if super::panel_avx512::available() {
            Kernel::Wide
        } else if available() {
            Kernel::Avx2
        } else {
            Kernel::Portable
        }
    }
}

/// [`product`] on `kernel`, which must be one the CPU runs (at most [`Kernel::best`]).
#[allow(clippy::too_many_arguments)]
fn product_on(
    kernel: Kernel,
    dst: &mut [f32],
    dst_rs: usize,
    a: &[f32],
    a_rs: usize,
    m: usize,
    b: &PackedRhs<f32>,
    add: Option<(&[f32], usize)>,
) -> Result<()> {
    let (k, n) = (b.k, b.n);
    let add_ok = add.is_none_or(|(x, rs)| fits(m, rs, n, x.len()));
    if !(fits(m, dst_rs, n, dst.len()) && fits(m, a_rs, k, a.len()) && add_ok) {
        return Err(Error::runtime(
            "internal: a packed recurrent product's operands do not fit their buffers",
        ));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let (add_p, add_rs) = add.map_or((std::ptr::null(), 0), |(x, rs)| (x.as_ptr(), rs));
    /// The SIMD kernels' common signature (`panel_avx512::rows_product`, `avx2::product`).
    #[cfg(target_arch = "x86_64")]
    type Simd = unsafe fn(
        *mut f32,
        usize,
        *const f32,
        usize,
        usize,
        usize,
        usize,
        *const f32,
        *const f32,
        usize,
    );
    #[cfg(target_arch = "x86_64")]
    let simd: Option<Simd> = match kernel {
        Kernel::Wide if super::panel_avx512::available() => Some(super::panel_avx512::rows_product),
        Kernel::Avx2 if available() => Some(avx2::product),
        _ => None,
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(f) = simd {
        let (dp, ap, bp) = (dst.as_mut_ptr(), a.as_ptr(), b.data.as_ptr());
        // SAFETY: the kernel's instruction set is present (checked in the match); every
        // row the kernel touches lies inside its slice (checked above), `b.data` holds
        // `ceil(N/NR)` panels of `K x NR`, and `dst` is a unique borrow, so it overlaps
        // neither `a` nor `add`.
        unsafe { f(dp, dst_rs, ap, a_rs, m, k, n, bp, add_p, add_rs) };
        return Ok(());
    }
    let _ = (add_p, kernel);
    // portable loop (CPUs without AVX2/FMA never get a packed operand: only tests)
    for i in 0..m {
        for j in 0..n {
            let (p, jj) = (j / NR, j % NR);
            let panel = &b.data[p * k * NR..(p + 1) * k * NR];
            let mut s = 0.0f32;
            for kk in 0..k {
                s += a[i * a_rs + kk] * panel[kk * NR + jj];
            }
            if let Some((x, rs)) = add {
                s += x[i * rs + j];
            }
            dst[i * dst_rs + j] = s;
        }
    }
    Ok(())
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    /// The whole product, panel by panel (a `K x 16` panel stays in L1 or L2 while every
    /// row block of `a` passes over it). The rows are cut into `ceil(m / 6)` blocks of
    /// nearly equal size (32 rows: 6, 6, 5, 5, 5, 5), so no block is a short tail with too
    /// few accumulators to hide the FMA latency.
    ///
    /// # Safety
    /// AVX2/FMA are present and the pointers satisfy [`super::product`]'s checks.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn product(
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
        for p in 0..n.div_ceil(NR) {
            let (c0, bp) = (p * NR, b.add(p * k * NR));
            let w = NR.min(n - c0);
            for (i, rows) in super::even_blocks(m, MR) {
                let r = Rows {
                    a: a.add(i * a_rs),
                    a_rs,
                    dst: dst.add(i * dst_rs + c0),
                    dst_rs,
                    add: if add.is_null() {
                        add
                    } else {
                        add.add(i * add_rs + c0)
                    },
                    add_rs,
                };
                match rows {
                    6 => block::<6>(&r, k, bp, w),
                    5 => block::<5>(&r, k, bp, w),
                    4 => block::<4>(&r, k, bp, w),
                    3 => block::<3>(&r, k, bp, w),
                    2 => block::<2>(&r, k, bp, w),
                    _ => block::<1>(&r, k, bp, w),
                }
            }
        }
    }

    /// Where the micro-kernel reads row `row`'s `p`-th left value and the `p`-th row of
    /// 16 right values: one trait, so that the LSTM's products (left rows in place, right
    /// panel packed) and the convolution's (`kernels::panel_gemm`: left packed once, right
    /// rows in place) run the same loop.
    pub(crate) trait Walk {
        /// The `p`-th left value of row `row`.
        ///
        /// # Safety
        /// `row` and `p` lie inside the operand the walk was made for.
        unsafe fn a(&self, row: usize, p: usize) -> *const f32;
        /// The first of the 16 right values of row `p`.
        ///
        /// # Safety
        /// As [`Walk::a`].
        unsafe fn b(&self, p: usize) -> *const f32;
    }

    /// The LSTM's walk: one pointer per left row (read in place), right operand one
    /// packed panel.
    struct RowsOnPanel<const R: usize> {
        rows: [*const f32; R],
        b: *const f32,
    }

    impl<const R: usize> Walk for RowsOnPanel<R> {
        #[inline(always)]
        unsafe fn a(&self, row: usize, p: usize) -> *const f32 {
            self.rows[row].add(p)
        }
        #[inline(always)]
        unsafe fn b(&self, p: usize) -> *const f32 {
            self.b.add(p * NR)
        }
    }

    /// THE micro-kernel: `acc[row] += a(row, p) * b(p)[0..16]` for `p < k`; `2*R`
    /// accumulators, two right vectors and one broadcast (15 of the 16 registers at
    /// `R = 6`: none spilled).
    ///
    /// # Safety
    /// AVX2/FMA are present; `walk` is valid for rows `0..R` and `p < k`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) unsafe fn mac<const R: usize, W: Walk>(
        acc: &mut [[__m256; 2]; R],
        walk: &W,
        k: usize,
    ) {
        // four values of `k` per iteration: the loop's counter, compare and branch are
        // paid once per 8 * R FMAs, not 2 * R (at one per 2 * R, with the address adds,
        // the LSTM's loop issued 26 instructions per 10 FMAs and ran front-end bound)
        let mut p = 0;
        while p + 4 <= k {
            for u in 0..4 {
                step(acc, walk, p + u);
            }
            p += 4;
        }
        while p < k {
            step(acc, walk, p);
            p += 1;
        }
    }

    /// One `p` of [`mac`]: two right vectors, one broadcast per row, `2*R` FMAs.
    ///
    /// # Safety
    /// As [`mac`].
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn step<const R: usize, W: Walk>(acc: &mut [[__m256; 2]; R], walk: &W, p: usize) {
        let bp = walk.b(p);
        let b0 = _mm256_loadu_ps(bp);
        let b1 = _mm256_loadu_ps(bp.add(8));
        for (row, ac) in acc.iter_mut().enumerate() {
            let av = _mm256_broadcast_ss(&*walk.a(row, p));
            ac[0] = _mm256_fmadd_ps(av, b0, ac[0]);
            ac[1] = _mm256_fmadd_ps(av, b1, ac[1]);
        }
    }

    /// Where one row block reads and writes.
    struct Rows {
        a: *const f32,
        a_rs: usize,
        dst: *mut f32,
        dst_rs: usize,
        add: *const f32,
        add_rs: usize,
    }

    /// `R` rows x one panel (`w` of its 16 columns stored), on [`mac`].
    ///
    /// # Safety
    /// As [`product`], for the block's rows and the panel at `bp`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn block<const R: usize>(r: &Rows, k: usize, bp: *const f32, w: usize) {
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        // one pointer per row, so each broadcast is a single load at a constant offset
        // (the former `row * a_rs + p` cost an address add per broadcast)
        let mut rows = [r.a; R];
        for (row, rp) in rows.iter_mut().enumerate() {
            *rp = r.a.add(row * r.a_rs);
        }
        let walk = RowsOnPanel { rows, b: bp };
        mac(&mut acc, &walk, k);
        for (row, ac) in acc.iter().enumerate() {
            let d = r.dst.add(row * r.dst_rs);
            let x = if r.add.is_null() {
                r.add
            } else {
                r.add.add(row * r.add_rs)
            };
            if w == NR {
                for (v, val) in ac.iter().enumerate() {
                    let mut val = *val;
                    if !x.is_null() {
                        val = _mm256_add_ps(val, _mm256_loadu_ps(x.add(8 * v)));
                    }
                    _mm256_storeu_ps(d.add(8 * v), val);
                }
            } else {
                // the last, short panel: only its first `w` columns exist in `dst`/`add`
                let mut tmp = [0.0f32; NR];
                for (v, val) in ac.iter().enumerate() {
                    _mm256_storeu_ps(tmp.as_mut_ptr().add(8 * v), *val);
                }
                for (j, t) in tmp.iter().take(w).enumerate() {
                    let extra = if x.is_null() { 0.0 } else { *x.add(j) };
                    *d.add(j) = *t + extra;
                }
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
    fn packed_product_matches_a_float64_loop() {
        // rows below, at and past the 6-row block (uneven blocks: 7 = 4 + 3, 32 = 6, 6,
        // 5, 5, 5, 5); K of every remainder past the 4-step unrolled loop (0, 1, 2, 3);
        // columns short of, at and past a 16-wide panel; a strided
        // (transposed) right operand; with and without `add`; past four panels (the
        // AVX-512 kernel's group) with 1-3 left; on every kernel this CPU runs
        for &(m, k, n) in &[
            (7, 9, 80),
            (12, 5, 70),
            (6, 4, 100),
            (1, 1, 1),
            (3, 5, 7),
            (4, 8, 16),
            (5, 9, 17),
            (6, 3, 15),
            (7, 16, 48),
            (13, 7, 33),
            (16, 33, 100),
            (32, 256, 1024),
            (6, 0, 10),
            (2, 6, 20),
            (11, 258, 40),
        ] {
            let a = vals(m * (k + 2), 1);
            let bt = vals(n * k, 2); // [N, K]: b = bt^T
            let xadd = vals(m * (n + 3), 3);
            let b = Mat::row_major(&bt, 0, n, k).t();
            let (machine, plain) = (pack(b).unwrap(), pack_any(b).unwrap());
            // the machine's packing on its best kernel, the plain packing on each kernel
            let mut runs: Vec<(&PackedRhs<f32>, Kernel)> =
                machine.iter().map(|pk| (pk, Kernel::best())).collect();
            for kernel in [Kernel::Wide, Kernel::Avx2, Kernel::Portable] {
                let runs_here = match kernel {
                    Kernel::Wide => crate::kernels::panel_avx512::available(),
                    Kernel::Avx2 => available(),
                    Kernel::Portable => true,
                };
                if runs_here {
                    runs.push((&plain, kernel));
                }
            }
            for (pk, kernel) in runs {
                for with_add in [false, true] {
                    let mut dst = vec![9.0f32; m * (n + 1)];
                    let add = with_add.then_some((&xadd[..], n + 3));
                    product_on(kernel, &mut dst, n + 1, &a, k + 2, m, pk, add).unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let mut want: f64 = (0..k)
                                .map(|p| a[i * (k + 2) + p] as f64 * bt[j * k + p] as f64)
                                .sum();
                            if with_add {
                                want += xadd[i * (n + 3) + j] as f64;
                            }
                            let got = dst[i * (n + 1) + j] as f64;
                            let tol = 1e-5 * (1.0 + want.abs()) * (k as f64).sqrt().max(1.0);
                            assert!((got - want).abs() <= tol, "{m}x{k}x{n} [{i},{j}]");
                        }
                        // the column past N is untouched
                        assert_eq!(dst[i * (n + 1) + n], 9.0);
                    }
                }
            }
        }
    }

    #[test]
    fn even_blocks_cover_the_rows_in_nearly_equal_blocks() {
        let b: Vec<_> = even_blocks(32, 6).collect();
        assert_eq!(b, [(0, 6), (6, 6), (12, 5), (17, 5), (22, 5), (27, 5)]);
        assert_eq!(
            even_blocks(64, 16).collect::<Vec<_>>(),
            [(0, 16), (16, 16), (32, 16), (48, 16)]
        );
        assert_eq!(even_blocks(7, 6).collect::<Vec<_>>(), [(0, 4), (4, 3)]);
        assert_eq!(even_blocks(0, 6).count(), 0);
    }

    #[test]
    fn buffers_too_small_are_errors() {
        let bt = vals(6, 1);
        let pk = pack_any(Mat::row_major(&bt, 0, 3, 2).t()).unwrap(); // [2, 3]
        let a = vals(4, 2);
        let mut dst = vec![0.0f32; 6];
        assert!(product(&mut dst, 3, &a, 2, 2, &pk, None).is_ok());
        assert!(product(&mut dst[..5], 3, &a, 2, 2, &pk, None).is_err());
        assert!(product(&mut dst, 3, &a[..3], 2, 2, &pk, None).is_err());
        assert!(product(&mut dst, 3, &a, 2, 2, &pk, Some((&a, 3))).is_err());
    }
}
