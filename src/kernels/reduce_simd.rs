//! Hand-vectorised float sums for the lane fold of [`super::loops::lanes`].
//!
//! The generic lane fold is left to the compiler's SLP vectoriser. The baseline (SSE2)
//! build converts and adds two float64 lanes per instruction, so a float32 sum ran at
//! half PyTorch's speed; an AVX2 or AVX-512 copy of the generic loop did not help (the
//! vectoriser cut the 16 lanes into odd pieces: masked loads and lane shuffles in the
//! loop, or 2-wide vectors again). These kernels do the fold explicitly in four AVX2
//! vector accumulators. AVX-512 is left out: its intrinsics need Rust 1.89 (the crate
//! says 1.85), and from memory it measured no faster.
//!
//! Same bits as the generic fold: lane `j` of 16 adds elements `j`, `j + 16`, ... in
//! order, starting from +0.0; the tail adds into lanes 0.. of a zero-padded chunk
//! (adding +0.0 changes no lane: a lane that starts at +0.0 is never -0.0); the lanes
//! are then merged as the same tree (`acc[i] + acc[i + w]` for w = 8, 4, 2, 1). So the
//! result does not depend on which kernel the CPU runs. Float32 elements are widened to
//! float64 exactly, as before.
//!
//! Each loop also prefetches the line [`AHEAD`] bytes on. Without it one core streamed
//! 40 GB/s here where a plain float32 add loop streams 58-61: the conversions fill the
//! out-of-order window, so fewer loads are in flight than the hardware prefetcher needs.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Lanes of the fold (`loops::LANES`, which the tree below is written for).
const L: usize = 16;
const _: () = assert!(L == super::loops::LANES);
/// Prefetch distance in bytes (a 4096² float32 sum on one core of the 2-core EPYC:
/// 1 KB 45 GB/s, 8 KB 52, 12 KB 55-59, 16 KB 54-61, 32 KB 48; none 40. On both cores
/// 12 KB 71, 16 KB 74, none 66, a plain float32 add loop 75).
const AHEAD: usize = 16 << 10;

/// Asks for the cache line `AHEAD` bytes past `p` (an address past the end of the data
/// is harmless: a prefetch never faults).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch<T>(p: *const T) {
    // SAFETY: a prefetch is a hint that reads nothing observable and never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((p as *const i8).wrapping_add(AHEAD)) }
}

/// The 16-lane float64 sum of float32 `x`, as [`super::loops::lanes`] folds it, when the
/// CPU has AVX2; `None` otherwise (the caller runs the generic loop).
#[inline]
pub(super) fn sum_f32(x: &[f32]) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return Some(unsafe { f32_avx2(x) });
        }
    }
    let _ = x;
    None
}

/// As [`sum_f32`] for float64 elements.
#[inline]
pub(super) fn sum_f64(x: &[f64]) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return Some(unsafe { f64_avx2(x) });
        }
    }
    let _ = x;
    None
}

/// `x` cut into whole chunks of 16 and its tail copied into a chunk padded with +0.0.
#[inline(always)]
fn chunks<T: Copy + Default>(x: &[T]) -> (std::slice::ChunksExact<'_, T>, [T; L]) {
    let c = x.chunks_exact(L);
    let mut tail = [T::default(); L];
    tail[..c.remainder().len()].copy_from_slice(c.remainder());
    (c, tail)
}

/// Lanes 0..4, 4..8, 8..12, 12..16 in `acc[0..4]`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn f32_avx2(x: &[f32]) -> f64 {
    let (body, tail) = chunks(x);
    let mut acc = [_mm256_setzero_pd(); 4];
    for c in body.chain(std::iter::once(&tail[..])) {
        prefetch(c.as_ptr());
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `c` holds 16 floats; an unaligned load of 4 from 4k (k < 4).
            let v = unsafe { _mm_loadu_ps(c.as_ptr().add(4 * k)) };
            *a = _mm256_add_pd(*a, _mm256_cvtps_pd(v));
        }
    }
    tree_avx2(acc)
}

/// As [`f32_avx2`] for float64 elements.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn f64_avx2(x: &[f64]) -> f64 {
    let (body, tail) = chunks(x);
    let mut acc = [_mm256_setzero_pd(); 4];
    for c in body.chain(std::iter::once(&tail[..])) {
        prefetch(c.as_ptr());
        prefetch(c[8..].as_ptr());
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `c` holds 16 doubles; an unaligned load of 4 from 4k (k < 4).
            let v = unsafe { _mm256_loadu_pd(c.as_ptr().add(4 * k)) };
            *a = _mm256_add_pd(*a, v);
        }
    }
    tree_avx2(acc)
}

/// The lane tree over four vectors of four lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tree_avx2(acc: [__m256d; 4]) -> f64 {
    let a = _mm256_add_pd(acc[0], acc[2]); // w = 8, lanes 0..4
    let b = _mm256_add_pd(acc[1], acc[3]); // w = 8, lanes 4..8
    tree_avx(_mm256_add_pd(a, b)) // w = 4
}

/// The last two levels of the tree (w = 2, 1) over lanes 0..4.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn tree_avx(v: __m256d) -> f64 {
    let p = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
    _mm_cvtsd_f64(p) + _mm_cvtsd_f64(_mm_unpackhi_pd(p, p))
}
