//! Float32 `sigmoid` and `tanh` computed in float32 lanes, for the gates of the fused
//! recurrent kernels ([`super::rnn`], [`super::rnn_gru`]).
//!
//! [`super::fastmath`] computes in float64 (4 lanes of AVX2, a degree-11 polynomial and a
//! float64 division per value) to round correctly in almost every case; in an LSTM step
//! that was about a quarter of the time of the step's GEMM. The gates do not need the
//! last half ulp: these versions run 8 float32 lanes with a degree-5 `exp` (Cephes'
//! `expf` reduction and coefficients) and a degree-6 odd polynomial for small `tanh`
//! arguments. Measured against float64 over every 997th float32 bit pattern (tests
//! below): `tanh` within 1 ulp (1.02 at worst), `sigmoid` within 3 ulp (2.3 at worst,
//! where the result sits just below a power of two and its ulp halves).
//!
//! No fused multiply-add is written (Rust never contracts `a * b + c`), so the AVX2 loop
//! and the scalar loop give bit-identical results.

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two parts (Cephes): `n * LN2_HI` is exact for the |n| <= 150 used here.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// Adding then subtracting this rounds a float32 of magnitude < 2^22 to an integer.
const ROUNDER: f32 = 12_582_912.0; // 1.5 * 2^23
/// `e^r - 1 - r = r^2 * poly(r)` on |r| <= ln2 / 2 (Cephes `expf`).
const EXP_POLY: [f32; 6] = [
    1.987_569_1e-4,
    1.398_199_9e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    1.666_666_6e-1,
    0.5,
];
/// `tanh(a) = a + a^3 * poly(a^2)` on `0 <= a < TANH_SMALL`, a least-squares (Lawson)
/// fit of the relative error, 1.1e-9 at worst before float32 rounding.
const TANH_POLY: [f32; 7] = [
    -4.554_607_6e-4,
    2.582_670_2e-3,
    -8.264_547e-3,
    2.166_354_5e-2,
    -5.392_930_3e-2,
    1.333_297_8e-1,
    -3.333_332_2e-1,
];
/// Below this `tanh` uses the polynomial, above `1 - 2 / (e^{2a} + 1)`.
const TANH_SMALL: f32 = 0.9;

/// `e^x` for `x` in `[-104, 88]` without branches; results below float32's normal range
/// are scaled in two steps, so they round once, to the subnormal they should be.
#[inline(always)]
fn exp_core(x: f32) -> f32 {
    let shifted = x * LOG2E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut p = EXP_POLY[0];
    for c in &EXP_POLY[1..] {
        p = p * r + c;
    }
    let e = (p * r) * r + r + 1.0;
    // n from the low bits of `shifted`; |n| <= 150, so each half is a normal exponent
    let n_bits = (shifted.to_bits() as i32).wrapping_sub(ROUNDER.to_bits() as i32);
    let n1 = n_bits >> 1;
    let n2 = n_bits - n1;
    let s1 = f32::from_bits(((n1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((n2 + 127) as u32) << 23);
    (e * s1) * s2
}

/// `1 / (1 + e^-x)` for float32, within 3 ulp (NaN stays NaN).
#[inline(always)]
pub fn sigmoid_gate(x: f32) -> f32 {
    // e^-|x| never overflows; 1/(1+t) for x >= 0, t/(1+t) for x < 0 (no cancellation)
    let t = exp_core(-x.abs().min(104.0));
    let num = if x >= 0.0 { 1.0 } else { t };
    let y = num / (1.0 + t);
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// `tanh(x)` for float32, within 1.02 ulp (NaN stays NaN, the sign of zero is kept).
#[inline(always)]
pub fn tanh_gate(x: f32) -> f32 {
    // tanh(9.1) rounds to 1 in float32
    let a = x.abs().min(9.1);
    let s = a * a;
    let mut p = TANH_POLY[0];
    for c in &TANH_POLY[1..] {
        p = p * s + c;
    }
    let small = a + (a * s) * p;
    let large = 1.0 - 2.0 / (exp_core(a + a) + 1.0);
    let t = if a < TANH_SMALL { small } else { large };
    if x.is_nan() {
        x
    } else {
        t.copysign(x)
    }
}

macro_rules! gate_kernel {
    ($(#[$doc:meta])* $name:ident, $scalar:ident) => {
        $(#[$doc])*
        pub fn $name(src: &[f32], dst: &mut [f32]) {
            #[inline(always)]
            fn body(src: &[f32], dst: &mut [f32]) {
                for (o, &x) in dst.iter_mut().zip(src) {
                    *o = $scalar(x);
                }
            }
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                unsafe fn wider(src: &[f32], dst: &mut [f32]) {
                    body(src, dst)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn wide(src: &[f32], dst: &mut [f32]) {
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

gate_kernel!(
    /// `dst[i] = sigmoid_gate(src[i])` over the shorter of the two slices.
    sigmoid_gate_slice,
    sigmoid_gate
);
gate_kernel!(
    /// `dst[i] = tanh_gate(src[i])` over the shorter of the two slices.
    tanh_gate_slice,
    tanh_gate
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance from `got` to the float64 `want`, in ulps of the float32 nearest `want`
    /// (the smallest subnormal step for results in the subnormal range).
    fn ulps(got: f32, want: f64) -> f64 {
        let w = want as f32;
        if w.is_infinite() || got as f64 == want {
            return if got == w { 0.0 } else { f64::INFINITY };
        }
        let a = w.abs();
        let ulp = (f32::from_bits(a.to_bits() + 1) - a).max(f32::from_bits(1)) as f64;
        (got as f64 - want).abs() / ulp
    }

    fn check(name: &str, fast: fn(f32) -> f32, reference: fn(f64) -> f64, bound: f64) {
        let step = if cfg!(miri) { 9_999_991 } else { 997 };
        let mut worst = (0.0, 0.0f32);
        let sweep = (0u32..=u32::MAX).step_by(step).map(f32::from_bits);
        // and a dense grid where the gates live
        let grid = (-200_000..=200_000).map(|i| i as f32 * 1e-4);
        for x in sweep.chain(grid).filter(|x| x.is_finite()) {
            let u = ulps(fast(x), reference(x as f64));
            if u > worst.0 {
                worst = (u, x);
            }
        }
        assert!(
            worst.0 <= bound,
            "{name}: {} ulps at x = {:e}",
            worst.0,
            worst.1
        );
    }

    #[test]
    fn tanh_gate_is_within_1_02_ulp() {
        check("tanh", tanh_gate, f64::tanh, 1.02);
    }

    #[test]
    fn sigmoid_gate_is_within_3_ulp() {
        check("sigmoid", sigmoid_gate, |x| 1.0 / (1.0 + (-x).exp()), 3.0);
    }

    #[test]
    fn the_gates_agree_with_the_float64_fastmath_within_3_ulp() {
        use crate::kernels::fastmath::{sigmoid_f32, tanh_f32};
        for i in -100_000..=100_000 {
            let x = i as f32 * 3e-4;
            let (a, b) = (tanh_gate(x), tanh_f32(x));
            assert!(ulps(a, b as f64) <= 3.0, "tanh {x}: {a} vs {b}");
            let (a, b) = (sigmoid_gate(x), sigmoid_f32(x));
            assert!(ulps(a, b as f64) <= 3.0, "sigmoid {x}: {a} vs {b}");
        }
    }

    #[test]
    fn special_values() {
        for f in [tanh_gate, sigmoid_gate] {
            assert!(f(f32::NAN).is_nan());
        }
        assert_eq!(tanh_gate(f32::INFINITY), 1.0);
        assert_eq!(tanh_gate(f32::NEG_INFINITY), -1.0);
        assert_eq!(tanh_gate(f32::MAX), 1.0);
        assert!(tanh_gate(-0.0).is_sign_negative() && tanh_gate(-0.0) == 0.0);
        assert_eq!(tanh_gate(1e-30), 1e-30);
        assert_eq!(tanh_gate(f32::from_bits(1)), f32::from_bits(1));
        assert_eq!(sigmoid_gate(0.0), 0.5);
        assert_eq!(sigmoid_gate(f32::INFINITY), 1.0);
        assert_eq!(sigmoid_gate(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid_gate(-200.0), 0.0);
        assert_eq!(sigmoid_gate(100.0), 1.0);
        // a subnormal result: e^-100 = 3.72e-44, 26.5 steps of 2^-149
        let s = sigmoid_gate(-100.0);
        assert!(
            ulps(s, (-100f64).exp() / (1.0 + (-100f64).exp())) <= 1.0,
            "{s:e}"
        );
    }

    #[test]
    fn slice_kernels_match_the_scalar_functions_bit_for_bit() {
        // 1003 values: the vector loop and its scalar tail
        let src: Vec<f32> = (0..1003).map(|i| (i as f32 - 501.0) * 0.0373).collect();
        type SliceFn = fn(&[f32], &mut [f32]);
        type ScalarFn = fn(f32) -> f32;
        let kernels: [(SliceFn, ScalarFn); 2] = [
            (tanh_gate_slice, tanh_gate),
            (sigmoid_gate_slice, sigmoid_gate),
        ];
        for (slice_fn, scalar) in kernels {
            let mut dst = vec![0.0; src.len()];
            slice_fn(&src, &mut dst);
            for (o, &x) in dst.iter().zip(&src) {
                assert_eq!(o.to_bits(), scalar(x).to_bits(), "x = {x}");
            }
        }
    }
}
