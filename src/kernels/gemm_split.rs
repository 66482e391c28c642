//! One large matrix product spread over the rayon pool by cutting its output into
//! tiles, each computed by a single-threaded `gemm` call.
//!
//! Why: the `gemm` crate's own threading (`Parallelism::Rayon`) leaves a product whose
//! output has few rows (or columns) on one thread: on this project's 2-core machine
//! `[64, 1024] @ [1024, 4096]` float32 took 7.1 ms with it and 3.3 ms cut into two
//! column tiles (min of 15 interleaved calls, 2026-11-28), while square-ish products ran
//! the same either way. Cutting the output along its longer side gives every thread its
//! own slice of one operand to pack; the other (shorter) operand is packed once per
//! thread, which costs little.

use super::par::for_each_task;
use crate::dtype::Element;
use gemm::Parallelism;

/// Tile edges are multiples of this many rows/columns: a whole number of the
/// micro-kernel's register blocks (AVX-512 float32: 16 lanes x 4) so that no thread
/// gets a ragged edge except the last.
const TILE_ALIGN: usize = 64;

/// A product's arguments shared by the tile tasks.
struct Shared<T>(GemmArgs<T>);
// SAFETY: the tiles only read the operands and write disjoint output elements.
unsafe impl<T> Sync for Shared<T> {}

impl<T: Copy> Shared<T> {
    /// The arguments (a method, so that closures capture the whole `Sync` wrapper).
    fn get(&self) -> GemmArgs<T> {
        self.0
    }
}

/// The operands and output of one product, as `gemm::gemm` takes them.
#[derive(Clone, Copy)]
pub struct GemmArgs<T> {
    /// Output rows.
    pub m: usize,
    /// Output columns.
    pub n: usize,
    /// Inner size.
    pub k: usize,
    /// Output pointer, and its column and row steps.
    pub dst: *mut T,
    /// Step between output columns.
    pub dst_cs: isize,
    /// Step between output rows.
    pub dst_rs: isize,
    /// `dst = alpha*dst + beta*lhs@rhs` reads `dst` only when this is true.
    pub read_dst: bool,
    /// Left operand (`m x k`) pointer.
    pub lhs: *const T,
    /// Step between left-operand columns.
    pub lhs_cs: isize,
    /// Step between left-operand rows.
    pub lhs_rs: isize,
    /// Right operand (`k x n`) pointer.
    pub rhs: *const T,
    /// Step between right-operand columns.
    pub rhs_cs: isize,
    /// Step between right-operand rows.
    pub rhs_rs: isize,
    /// Factor on the old output (used when `read_dst`).
    pub alpha: T,
    /// Factor on the product.
    pub beta: T,
}

/// How many tiles a product of `m x n` outputs is cut into on `threads` threads, and
/// along which side (`true`: columns): the longer side, into as many aligned tiles as
/// there are threads (fewer when that side is short).
fn plan(m: usize, n: usize, threads: usize) -> (usize, bool) {
    let by_cols = n >= m;
    let side = if by_cols { n } else { m };
    let tiles = threads.min(side.div_ceil(TILE_ALIGN)).max(1);
    (tiles, by_cols)
}

/// Products with fewer output rows or columns than this are cut into tiles here; the
/// `gemm` crate's own threading serves larger ones as well as tiles do.
const SHORT_SIDE: usize = 128;
/// Work (m*n*k) from which a short-sided product is cut into tiles (below it the extra
/// packing of the shorter operand per tile costs more than the second thread gives).
const TILE_WORK: usize = 1 << 23;

/// `a @ b.T` products (the right operand stored row-major as `[n, k]`, read column by
/// column: `x @ W.T` of a linear layer) with fewer output rows than this are cut into
/// column tiles too: with its own threading the `gemm` crate ran `[256, 1024] @
/// [1024, 1024]^T` at 152 GFLOP/s on 2 cores and at 188 as two column tiles (best of 30
/// interleaved calls, `examples/gemm_candidates.rs`, 2026-11-29, load 2.6), while taller
/// outputs (2048 rows) ran as fast as the plain layout either way.
const NT_ROWS: usize = 1024;
/// Work from which such a product is cut into column tiles: smaller ones (`[128, 256] @
/// [256, 784]^T`) ran up to 14 % slower as tiles than with `gemm`'s threading.
const NT_TILE_WORK: usize = 1 << 26;

/// Whether the right operand is read across its rows' memory order (`rhs_rs` is the
/// unit step and columns are far apart): the transposed-weight layout.
fn transposed_rhs<T>(a: &GemmArgs<T>) -> bool {
    a.rhs_rs.unsigned_abs() == 1 && a.rhs_cs.unsigned_abs() > 1
}

/// Runs `args` through `gemm`: single-threaded when `parallel` is false; when the output
/// has a short side (< 128 rows or columns) and at least [`TILE_WORK`] of work, one
/// single-threaded call per output tile on the rayon pool (the `gemm` crate leaves such
/// products on one thread: `[64, 1024] @ [1024, 4096]` ran 2.2x faster tiled on 2
/// cores); likewise column tiles for a large `a @ b.T` with fewer than [`NT_ROWS`]
/// output rows; otherwise `gemm` with its own rayon threading (smaller short-sided
/// products ran up to 2x slower as tiles).
///
/// # Safety
/// As `gemm::gemm`: every element the strides reach from `lhs`, `rhs` and `dst` must be
/// valid (the output writable and not aliased by the operands), and `T` must be a type
/// `gemm` supports (f32, f64, or their complex forms).
pub unsafe fn gemm_tiled<T: Element>(args: GemmArgs<T>, parallel: bool) {
    let work = args.m.saturating_mul(args.n).saturating_mul(args.k);
    let short = args.m.min(args.n) < SHORT_SIDE;
    let few_rows_nt = args.m < NT_ROWS && work >= NT_TILE_WORK && transposed_rhs(&args);
    // the pool size is asked for only when tiles are possible (small products, the
    // common case, skip the thread-local lookup)
    let tiling = parallel && (short || few_rows_nt) && work >= TILE_WORK;
    let (tiles, by_cols) = if !tiling {
        (1, true)
    } else if few_rows_nt && !short {
        // column tiles: each thread packs its own rows of the transposed operand
        (plan(args.m, args.n, rayon::current_num_threads()).0, true)
    } else {
        plan(args.m, args.n, rayon::current_num_threads())
    };
    if tiles <= 1 {
        let par = if parallel {
            Parallelism::Rayon(0)
        } else {
            Parallelism::None
        };
        // SAFETY: the caller's contract.
        unsafe { call(args, 0, args.m, 0, args.n, par) };
        return;
    }
    let side = if by_cols { args.n } else { args.m };
    // aligned tile size; the last tile takes what is left
    let per = side.div_ceil(tiles).div_ceil(TILE_ALIGN) * TILE_ALIGN;
    let shared = Shared(args);
    for_each_task(side.div_ceil(per), &|i| {
        let (lo, hi) = (i * per, ((i + 1) * per).min(side));
        let a = shared.get();
        // SAFETY: the tile lies inside the caller's product, whose elements the caller
        // vouches for; tiles write disjoint outputs.
        unsafe {
            if by_cols {
                call(a, 0, a.m, lo, hi, Parallelism::None)
            } else {
                call(a, lo, hi, 0, a.n, Parallelism::None)
            }
        }
    });
}

/// One `gemm` call on output rows `r0..r1` and columns `c0..c1`.
///
/// # Safety
/// As [`gemm_tiled`], for the sub-product.
unsafe fn call<T: Element>(
    a: GemmArgs<T>,
    r0: usize,
    r1: usize,
    c0: usize,
    c1: usize,
    par: Parallelism,
) {
    let (r, c) = (r0 as isize, c0 as isize);
    // SAFETY: the caller's contract; offsets stay inside the product's views.
    unsafe {
        gemm::gemm(
            r1 - r0,
            c1 - c0,
            a.k,
            a.dst.wrapping_offset(r * a.dst_rs + c * a.dst_cs),
            a.dst_cs,
            a.dst_rs,
            a.read_dst,
            a.lhs.wrapping_offset(r * a.lhs_rs),
            a.lhs_cs,
            a.lhs_rs,
            a.rhs.wrapping_offset(c * a.rhs_cs),
            a.rhs_cs,
            a.rhs_rs,
            a.alpha,
            a.beta,
            false,
            false,
            false,
            par,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operands(m: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
        let a = (0..m * k).map(|v| ((v * 7) % 13) as f64 - 6.0).collect();
        let b = (0..k * n).map(|v| ((v * 5) % 11) as f64 * 0.5).collect();
        (a, b)
    }

    /// `2*1 + a@b` through [`gemm_tiled`]; `by_t` reads b through a transposed view.
    fn product(m: usize, k: usize, n: usize, parallel: bool, by_t: bool) -> Vec<f64> {
        let (a, b) = operands(m, k, n);
        let mut out = vec![1.0; m * n];
        let (b, rhs_cs, rhs_rs) = if by_t {
            let bt: Vec<f64> = (0..k * n).map(|i| b[(i % k) * n + i / k]).collect();
            (bt, k as isize, 1)
        } else {
            (b, 1, n as isize)
        };
        let args = GemmArgs {
            m,
            n,
            k,
            dst: out.as_mut_ptr(),
            dst_cs: 1,
            dst_rs: n as isize,
            read_dst: true,
            lhs: a.as_ptr(),
            lhs_cs: 1,
            lhs_rs: k as isize,
            rhs: b.as_ptr(),
            rhs_cs,
            rhs_rs,
            alpha: 2.0,
            beta: 1.0,
        };
        // SAFETY: all three buffers hold exactly the views' elements.
        unsafe { gemm_tiled(args, parallel) };
        out
    }

    #[test]
    fn tiles_match_a_loop_for_every_shape_class() {
        // column tiles, row tiles, a ragged last tile (all above TILE_WORK with a short
        // side), gemm's own threading (no short side), a tiny product, the transposed
        // layout's column tiles; plain and transposed right operand
        let shapes = [
            (3, 4096, 700),
            (700, 4096, 3),
            (65, 2048, 200),
            (130, 17, 129),
            (1, 9, 1),
            // no short side, few rows: column tiles when the right operand is transposed
            (300, 1024, 260),
            (600, 512, 250),
        ];
        for &(m, k, n) in &shapes {
            let (a, b) = operands(m, k, n);
            let want: Vec<f64> = (0..m * n)
                .map(|i| {
                    2.0 + (0..k)
                        .map(|p| a[(i / n) * k + p] * b[p * n + i % n])
                        .sum::<f64>()
                })
                .collect();
            for by_t in [false, true] {
                for parallel in [false, true] {
                    let got = product(m, k, n, parallel, by_t);
                    assert_eq!(
                        got, want,
                        "{m}x{k}x{n} transposed={by_t} parallel={parallel}"
                    );
                }
            }
        }
    }

    #[test]
    fn plan_cuts_the_longer_side_into_aligned_tiles() {
        assert_eq!(plan(256, 1024, 2), (2, true));
        assert_eq!(plan(1024, 256, 4), (4, false));
        assert_eq!(plan(10, 50, 8), (1, true));
        assert_eq!(plan(100, 130, 8), (3, true));
    }
}
