//! Vectorisable float32 `exp`, `tanh`, `sigmoid`, `erf` and the exact (erf) GELU.
//!
//! The C library's `expf`/`tanhf` are scalar calls (~20 ns each for `tanhf`), which made
//! `tanh` of a 128×256 activation cost as much as the matmul before it. These versions
//! compute in float64 with branch-free code (range reduction, a polynomial, selects
//! instead of branches), so the compiler turns a loop over them into SIMD code; float64
//! carries 29 spare bits, so rounding the result to float32 gives the correctly rounded
//! value in almost every case and is always within 1 ulp (checked against float64
//! references in the tests below and in the Python suite).
//!
//! Loops over slices are compiled twice: for the baseline target and, chosen at run time,
//! with AVX2. Neither uses fused multiply-add (Rust never contracts `a * b + c`), so both
//! give bit-identical results, and the scalar functions used on strided views match them.

use std::mem::MaybeUninit;

const LOG2E: f64 = std::f64::consts::LOG2_E;
/// ln 2 split in two: `LN2_HI` has its low 21 mantissa bits zero, so `n * LN2_HI` is
/// exact for the |n| < 2^11 used here, and `LN2_LO` carries the rest.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// Adding then subtracting this rounds a float64 of magnitude < 2^51 to an integer.
const ROUNDER: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52

/// e^x for x in [-700, 700] without branches; relative error < 1e-13 (Taylor degree 11
/// on |r| <= ln2/2 after x = n ln2 + r, evaluated by Estrin's scheme).
#[inline(always)]
fn exp_core(x: f64) -> f64 {
    let shifted = x * LOG2E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // sum r^k / k!, k = 0..=11, by Estrin's scheme (see `erf_poly`): Horner's chain of 11
    // dependent steps bound the vectorised loops by its latency (one core, a stand-alone
    // loop: 2.1 ns an element against 1.5-1.8 this way, with the same float32 result at
    // every 997th float32)
    const C: [f64; 12] = [
        1.0,
        1.0,
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
    ];
    let r2 = r * r;
    let r4 = r2 * r2;
    let q0 = lin(lin(C[0], C[1], r), lin(C[2], C[3], r), r2);
    let q4 = lin(lin(C[4], C[5], r), lin(C[6], C[7], r), r2);
    let q8 = lin(lin(C[8], C[9], r), lin(C[10], C[11], r), r2);
    let p = lin(lin(q0, q4, r4), q8, r4 * r4);
    // 2^n assembled in the exponent field. n is read from the low bits of `shifted` with
    // integer arithmetic (AVX2 has no packed float64 -> int64 conversion); |n| <= 1010
    let n_bits = (shifted.to_bits() as i64).wrapping_sub(ROUNDER.to_bits() as i64);
    p * f64::from_bits((n_bits.wrapping_add(1023) as u64) << 52)
}

/// `e^x` for float32, within 1 ulp (NaN stays NaN, overflow gives +inf, underflow 0).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    let d = (x as f64).clamp(-110.0, 90.0);
    let y = exp_core(d) as f32;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// `tanh(x)` for float32, within 1 ulp.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let d = (x as f64).abs().min(20.0);
    // small |x|: the odd series (error < 1e-14 relative below 1/16)
    let d2 = d * d;
    let series = d
        * (1.0
            + d2 * (-1.0 / 3.0 + d2 * (2.0 / 15.0 + d2 * (-17.0 / 315.0 + d2 * (62.0 / 2835.0)))));
    // otherwise 1 - 2 / (e^{2|x|} + 1), which loses at most ~16 of float64's bits
    let e = exp_core(2.0 * d);
    let large = 1.0 - 2.0 / (e + 1.0);
    let t = if d < 0.0625 { series } else { large } as f32;
    if x.is_nan() {
        x
    } else {
        t.copysign(x)
    }
}

/// `1 / (1 + e^-x)` for float32, within 1 ulp.
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    let d = (-(x as f64)).clamp(-110.0, 110.0);
    let y = (1.0 / (1.0 + exp_core(d))) as f32;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// `g * d/dx gelu(x) = g * (Phi(x) + x phi(x))` for float32, computed in float64 through
/// [`erf_core`] and [`exp_core`] and rounded once: GELU's backward in one pass. NaN where
/// `x` is infinite or NaN, as the composed formula (`inf * exp(-inf)`).
#[inline(always)]
pub fn gelu_grad_f32(g: f32, x: f32) -> f32 {
    let d = x as f64;
    let cdf = 0.5 * (1.0 + erf_core(d * std::f64::consts::FRAC_1_SQRT_2));
    // e^-700 times the largest float32 is far below float32's smallest step
    let pdf = exp_core((-0.5 * d * d).max(-700.0))
        * (0.5 * std::f64::consts::FRAC_2_SQRT_PI)
        * std::f64::consts::FRAC_1_SQRT_2;
    let y = (g as f64 * (cdf + d * pdf)) as f32;
    if x.is_finite() {
        y
    } else {
        f32::NAN
    }
}

/// Defines `pub fn $name(a: &[f32], b: &[f32], dst: &mut [MaybeUninit<f32>])` writing
/// `dst[i] = $elem(a[i], b[i])` over equal-length slices, the loop compiled for the
/// baseline target and, chosen at run time, with AVX2 (as the unary `slice_kernel!`
/// below). The one dispatcher of the two-input kernels (the GELU backwards). A macro
/// rather than a function generic over `$elem`: passed as a function value, the larger
/// elementwise functions were not inlined into the AVX2 loop (GELU's backward ran 3x
/// slower in a stand-alone loop, 18.9 against 6.7 ns an element).
macro_rules! zip_slice_kernel {
    ($(#[$doc:meta])* $name:ident, $elem:path) => {
        $(#[$doc])*
        pub fn $name(a: &[f32], b: &[f32], dst: &mut [std::mem::MaybeUninit<f32>]) {
            #[inline(always)]
            fn body(a: &[f32], b: &[f32], dst: &mut [std::mem::MaybeUninit<f32>]) {
                for ((o, &av), &bv) in dst.iter_mut().zip(a).zip(b) {
                    o.write($elem(av, bv));
                }
            }
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                unsafe fn wider(a: &[f32], b: &[f32], dst: &mut [std::mem::MaybeUninit<f32>]) {
                    body(a, b, dst)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn wide(a: &[f32], b: &[f32], dst: &mut [std::mem::MaybeUninit<f32>]) {
                    body(a, b, dst)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU supports AVX-512F (checked just above).
                    return unsafe { wider(a, b, dst) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    return unsafe { wide(a, b, dst) };
                }
            }
            body(a, b, dst)
        }
    };
}
pub(crate) use zip_slice_kernel;

zip_slice_kernel!(
    /// `dst[i] = gelu_grad_f32(g[i], x[i])` over equal-length slices (AVX2 when the CPU
    /// has it).
    gelu_grad_f32_slice,
    gelu_grad_f32
);

/// SiLU `x * sigmoid(x)` for float32 as `x / (1 + e^-x)` in float64, rounded once (within
/// 1 ulp; `-inf` gives NaN, as `-inf * sigmoid(-inf)` does). `e^-x` is clamped at `e^200`,
/// where the quotient of any float32 is below float32's smallest step.
#[inline(always)]
pub fn silu_f32(x: f32) -> f32 {
    let d = x as f64;
    let y = (d / (1.0 + exp_core((-d).clamp(-110.0, 200.0)))) as f32;
    if x.is_nan() || x == f32::NEG_INFINITY {
        f32::NAN
    } else {
        y
    }
}

/// GELU's tanh approximation for float32 through [`tanh_f32`], in the order of
/// [`crate::op_defs::unary::fns::f_gelu_tanh`] (each step rounded to float32).
#[inline(always)]
pub fn gelu_tanh_f32(x: f32) -> f32 {
    use crate::op_defs::unary::fns::{GELU_TANH_C, GELU_TANH_K};
    let inner = (x + GELU_TANH_C as f32 * x * x * x) * GELU_TANH_K as f32;
    0.5 * x * (1.0 + tanh_f32(inner))
}

/// `|x|` from which `erf` is taken as `+-1`: `erfc(3.92) = 2.961e-8` is below half a
/// float32 ulp of 1 (2.980e-8), so float32's `erf` is exactly 1 from about 3.9192 on.
const ERF_CLAMP: f64 = 3.92;
/// `erf(x) / x` as a polynomial in `t = 2 x^2 / ERF_CLAMP^2 - 1` (so `t` in `[-1, 1]`),
/// highest power first (evaluated by [`erf_poly`]): degree-18 Chebyshev interpolation of the float64 `erf`, absolute
/// error below 2.3e-10 on `|x| <= ERF_CLAMP` (the float32 results are within 0.504 ulp). In `t`
/// rather than `x^2` the coefficients stay below 0.4 and Horner's rule loses nothing.
const ERF_POLY: [f64; 19] = [
    5.78707655975918e-05,
    -0.00015692440881493488,
    0.0001333098233802417,
    -0.0002723422163250734,
    0.0010412296190575323,
    -0.002212406894103817,
    0.0038858544464918125,
    -0.00708671862635699,
    0.012468932441356374,
    -0.020190636165360654,
    0.030523584214862443,
    -0.04341379004872535,
    0.05818702517978233,
    -0.07401724523161787,
    0.09062260302103552,
    -0.10917990035387488,
    0.13408337042837168,
    -0.18010860288363223,
    0.36073682020936976,
];

/// [`ERF_POLY`] at `t` (`|t| <= 1`) by Estrin's scheme: pairs of terms, pairs of pairs,
/// and so on, combined with `t^2`, `t^4`, `t^8`, `t^16`. Horner's rule is one chain of 18
/// dependent multiply-adds, and the vectorised loops over it were bound by that latency
/// (4.3 ns an element on one core against 2.1 this way, in a stand-alone loop); here the
/// longest chain is about 6. The rounding differs from Horner's only in float64's last
/// bits (coefficients below 0.4, `|t| <= 1`), far below the interpolation error.
#[inline(always)]
fn erf_poly(t: f64) -> f64 {
    // plain arithmetic (no closures), so that the whole evaluation is inlined into the
    // vectorised loops whatever their size: with closures the GELU backward's loop (erf
    // and exp together) kept calls and ran at half its speed
    let c = &ERF_POLY; // c[18 - i] is the coefficient of t^i
    let t2 = t * t;
    let t4 = t2 * t2;
    let t8 = t4 * t4;
    let p0 = lin(c[18], c[17], t);
    let p2 = lin(c[16], c[15], t);
    let p4 = lin(c[14], c[13], t);
    let p6 = lin(c[12], c[11], t);
    let p8 = lin(c[10], c[9], t);
    let p10 = lin(c[8], c[7], t);
    let p12 = lin(c[6], c[5], t);
    let p14 = lin(c[4], c[3], t);
    let low = lin(
        lin(lin(p0, p2, t2), lin(p4, p6, t2), t4),
        lin(lin(p8, p10, t2), lin(p12, p14, t2), t4),
        t8,
    ); // t^0 .. t^15
    let high = lin(lin(c[2], c[1], t), c[0], t2); // t^16 .. t^18, over t^16
    lin(low, high, t8 * t8)
}

/// `a + b * t`: one step of Estrin's scheme.
#[inline(always)]
fn lin(a: f64, b: f64, t: f64) -> f64 {
    a + b * t
}

/// `erf(x)` for a float64 holding a float32 value, branch-free: exactly `+-1` from
/// [`ERF_CLAMP`] on, `+-0` kept; NaN gives some finite value (callers select NaN back).
#[inline(always)]
fn erf_core(x: f64) -> f64 {
    let a = x.abs();
    let c = a.min(ERF_CLAMP);
    let t = (c * c) * (2.0 / (ERF_CLAMP * ERF_CLAMP)) - 1.0;
    let y = if a >= ERF_CLAMP { 1.0 } else { c * erf_poly(t) };
    y.copysign(x)
}

/// `erf(x)` for float32, within 1 ulp (0.504 at worst; NaN stays NaN, `erf(+-0) = +-0`,
/// `erf(+-inf) = +-1`). The C library's `erff` is a scalar call with branches.
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let y = erf_core(x as f64) as f32;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// The exact GELU `x / 2 * (1 + erf(x / sqrt 2))` for float32, computed in float64
/// through [`erf_core`] and rounded once (the float32 formula rounds at every step; where
/// `1 + erf` cancels, below about -3, this keeps more of the small result, and it is 0
/// where float32's `erf` is -1, as before).
#[inline(always)]
pub fn gelu_f32(x: f32) -> f32 {
    let d = x as f64;
    (0.5 * d * (1.0 + erf_core(d * std::f64::consts::FRAC_1_SQRT_2))) as f32
}

macro_rules! slice_kernel {
    ($(#[$doc:meta])* $name:ident, $scalar:ident) => {
        $(#[$doc])*
        pub fn $name(src: &[f32], dst: &mut [MaybeUninit<f32>]) {
            #[inline(always)]
            fn body(src: &[f32], dst: &mut [MaybeUninit<f32>]) {
                for (o, &x) in dst.iter_mut().zip(src) {
                    o.write($scalar(x));
                }
            }
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                unsafe fn wider(src: &[f32], dst: &mut [MaybeUninit<f32>]) {
                    body(src, dst)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn wide(src: &[f32], dst: &mut [MaybeUninit<f32>]) {
                    body(src, dst)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU supports AVX-512F (checked just above).
                    return unsafe { wider(src, dst) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    return unsafe { wide(src, dst) };
                }
            }
            body(src, dst)
        }
    };
}

slice_kernel!(
    /// `dst[i] = exp_f32(src[i])` over equal-length slices.
    exp_f32_slice,
    exp_f32
);
slice_kernel!(
    /// `dst[i] = tanh_f32(src[i])` over equal-length slices.
    tanh_f32_slice,
    tanh_f32
);
slice_kernel!(
    /// `dst[i] = sigmoid_f32(src[i])` over equal-length slices.
    sigmoid_f32_slice,
    sigmoid_f32
);
slice_kernel!(
    /// `dst[i] = gelu_tanh_f32(src[i])` over equal-length slices.
    gelu_tanh_f32_slice,
    gelu_tanh_f32
);

slice_kernel!(
    /// `dst[i] = silu_f32(src[i])` over equal-length slices.
    silu_f32_slice,
    silu_f32
);
slice_kernel!(
    /// `dst[i] = erf_f32(src[i])` over equal-length slices.
    erf_f32_slice,
    erf_f32
);
slice_kernel!(
    /// `dst[i] = gelu_f32(src[i])` over equal-length slices.
    gelu_f32_slice,
    gelu_f32
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in float32 units in the last place.
    fn ulps(a: f32, b: f32) -> u32 {
        if a == b {
            return 0;
        }
        let key = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 {
                i32::MIN - i
            } else {
                i
            }
        };
        key(a).abs_diff(key(b))
    }

    fn sweep() -> impl Iterator<Item = f32> {
        // every 997th float32 bit pattern covers all exponents and many mantissas (under
        // Miri, which interprets each instruction, a coarse sweep: it looks for undefined
        // behaviour, not for accuracy)
        let step = if cfg!(miri) { 9_999_991 } else { 997 };
        (0u32..=u32::MAX).step_by(step).map(f32::from_bits)
    }

    fn check(name: &str, fast: fn(f32) -> f32, reference: fn(f64) -> f64) {
        let mut worst = (0, 0.0f32);
        for x in sweep().filter(|x| x.is_finite()) {
            let want = reference(x as f64) as f32;
            let got = fast(x);
            let u = ulps(got, want);
            if u > worst.0 {
                worst = (u, x);
            }
        }
        assert!(
            worst.0 <= 1,
            "{name}: {} ulps at x = {:e}",
            worst.0,
            worst.1
        );
    }

    #[test]
    fn exp_is_within_one_ulp() {
        check("exp", exp_f32, f64::exp);
    }

    #[test]
    fn tanh_is_within_one_ulp() {
        check("tanh", tanh_f32, f64::tanh);
    }

    #[test]
    fn sigmoid_is_within_one_ulp() {
        check("sigmoid", sigmoid_f32, |x| 1.0 / (1.0 + (-x).exp()));
    }

    #[test]
    fn silu_is_within_one_ulp() {
        check("silu", silu_f32, |x| x / (1.0 + (-x).exp()));
    }

    #[test]
    fn erf_is_within_one_ulp() {
        check("erf", erf_f32, libm::erf);
    }

    #[test]
    fn erf_is_within_one_ulp_on_a_dense_grid() {
        // every float32 step near the clamp, and a fine grid where erf bends
        let step = if cfg!(miri) { 99_991 } else { 1 };
        let near = (3.8f32.to_bits()..=3.95f32.to_bits()).step_by(step);
        let grid = (0..=400_000)
            .step_by(step)
            .map(|i| (i as f32 * 1e-5).to_bits());
        for x in near.chain(grid).map(f32::from_bits) {
            for x in [x, -x] {
                let want = libm::erf(x as f64) as f32;
                assert!(ulps(erf_f32(x), want) <= 1, "erf({x:e}) = {}", erf_f32(x));
            }
        }
    }

    #[test]
    fn gelu_is_within_one_ulp_where_it_does_not_cancel() {
        // above -2.5 `1 + erf(x / sqrt 2)` keeps its float64 accuracy
        let gelu = |x: f64| 0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2));
        for i in -250_000..=400_000 {
            let x = i as f32 * 1e-5;
            let want = gelu(x as f64) as f32;
            assert!(
                ulps(gelu_f32(x), want) <= 1,
                "gelu({x:e}) = {}",
                gelu_f32(x)
            );
        }
        // below it the small result stays within 1e-5 of its size or 1e-7 (it is 0 from
        // -5.54 on, where the float32 formula's `1 + erf` is 0 too)
        for i in 0..=40_000 {
            let x = -2.5 - i as f32 * 1e-4;
            let (got, want) = (gelu_f32(x) as f64, gelu(x as f64));
            assert!(
                (got - want).abs() <= 1e-5 * want.abs() + 1e-7,
                "gelu({x}) = {got}"
            );
        }
    }

    #[test]
    fn gelu_grad_is_within_one_ulp() {
        let want = |x: f64| {
            let cdf = 0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2));
            cdf + x * (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
        };
        for i in -120_000..=120_000 {
            let x = i as f32 * 1e-4;
            let got = gelu_grad_f32(1.0, x);
            // where the derivative is small (its zero near -0.75, and below -2.5 where
            // `1 + erf` cancels) the error is bounded in absolute terms, by erf's 2.3e-10;
            // below -5.54 `Phi(x) < 1.5e-8` is taken as 0, as float32's `erf` (and the
            // composed float32 formula, 3e-8 off) does
            let w = want(x as f64);
            let tail = if x < -5.5 { 1.5e-8 } else { 2.5e-10 };
            assert!(
                ulps(got, w as f32) <= 1 || (got as f64 - w).abs() < tail,
                "gelu'({x}) = {got}, want {w}"
            );
        }
        assert!(gelu_grad_f32(1.0, f32::INFINITY).is_nan());
        assert_eq!(gelu_grad_f32(2.0, 50.0), 2.0);
        assert_eq!(gelu_grad_f32(2.0, -50.0), 0.0);
    }

    #[test]
    fn special_values() {
        assert!(erf_f32(f32::NAN).is_nan() && gelu_f32(f32::NAN).is_nan());
        assert_eq!(erf_f32(f32::INFINITY), 1.0);
        assert_eq!(erf_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(erf_f32(3.92), 1.0);
        assert_eq!(erf_f32(-1e30), -1.0);
        assert!(erf_f32(-0.0).is_sign_negative() && erf_f32(-0.0) == 0.0);
        assert!(erf_f32(0.0).is_sign_positive() && erf_f32(0.0) == 0.0);
        // subnormals: erf(x) = 2x/sqrt(pi), rounded once
        let tiny = f32::from_bits(3);
        assert_eq!(
            erf_f32(tiny),
            (tiny as f64 * std::f64::consts::FRAC_2_SQRT_PI) as f32
        );
        assert_eq!(gelu_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(gelu_f32(0.0), 0.0);
        assert!(silu_f32(f32::NEG_INFINITY).is_nan() && silu_f32(f32::NAN).is_nan());
        assert_eq!(silu_f32(f32::INFINITY), f32::INFINITY);
        assert!(silu_f32(-1e30) == 0.0 && silu_f32(-1e30).is_sign_negative());
        for f in [exp_f32, tanh_f32, sigmoid_f32] {
            assert!(f(f32::NAN).is_nan());
        }
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(-0.0).is_sign_negative() && tanh_f32(-0.0) == 0.0);
        assert_eq!(tanh_f32(1e-30), 1e-30);
        assert_eq!(sigmoid_f32(f32::INFINITY), 1.0);
        assert_eq!(sigmoid_f32(f32::NEG_INFINITY), 0.0);
    }

    #[test]
    fn slice_kernels_match_the_scalar_functions_bit_for_bit() {
        let src: Vec<f32> = (0..1000).map(|i| (i as f32 - 500.0) * 0.173).collect();
        type SliceFn = fn(&[f32], &mut [MaybeUninit<f32>]);
        type ScalarFn = fn(f32) -> f32;
        let kernels: [(SliceFn, ScalarFn); 6] = [
            (silu_f32_slice, silu_f32),
            (exp_f32_slice, exp_f32),
            (tanh_f32_slice, tanh_f32),
            (sigmoid_f32_slice, sigmoid_f32),
            (erf_f32_slice, erf_f32),
            (gelu_f32_slice, gelu_f32),
        ];
        for (slice_fn, scalar) in kernels {
            let mut dst = vec![MaybeUninit::uninit(); src.len()];
            slice_fn(&src, &mut dst);
            for (o, &x) in dst.iter().zip(&src) {
                // SAFETY: the slice kernel wrote every element.
                let got = unsafe { o.assume_init() };
                assert_eq!(got.to_bits(), scalar(x).to_bits(), "x = {x}");
            }
        }
    }
}
