//! Vectorisable float32 `exp`, `tanh` and `sigmoid`.
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
/// on |r| <= ln2/2 after x = n ln2 + r).
#[inline(always)]
fn exp_core(x: f64) -> f64 {
    let shifted = x * LOG2E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // Horner form of sum r^k / k!, k = 0..=11
    let mut p = 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
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

/// GELU's tanh approximation for float32 through [`tanh_f32`], in the order of
/// [`crate::op_defs::unary::fns::f_gelu_tanh`] (each step rounded to float32).
#[inline(always)]
pub fn gelu_tanh_f32(x: f32) -> f32 {
    use crate::op_defs::unary::fns::{GELU_TANH_C, GELU_TANH_K};
    let inner = (x + GELU_TANH_C as f32 * x * x * x) * GELU_TANH_K as f32;
    0.5 * x * (1.0 + tanh_f32(inner))
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
                #[target_feature(enable = "avx2")]
                unsafe fn wide(src: &[f32], dst: &mut [MaybeUninit<f32>]) {
                    body(src, dst)
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
    fn special_values() {
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
        let kernels: [(SliceFn, ScalarFn); 3] = [
            (exp_f32_slice, exp_f32),
            (tanh_f32_slice, tanh_f32),
            (sigmoid_f32_slice, sigmoid_f32),
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
