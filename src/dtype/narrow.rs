//! Rounding to the 16-bit float types, to nearest even from the exact value.
//!
//! `half` 2.7's `f16::from_f64` / `bf16::from_f64` decide rounding from the top 32 bits of
//! the f64 only (or, for f16 with F16C, round to f32 first): a value just above a
//! midpoint whose extra bits sit lower than that is taken for a tie and rounded the wrong
//! way (e.g. f32 bits `0x0020_8001` to bfloat16, `1 + 2^-11 + 2^-30` to float16). Every
//! conversion of ferrograd into these types goes through the functions here.

use half::{bf16, f16};

/// f32 to bfloat16, round to nearest even; branch-free so loops over it vectorise. NaN
/// stays a quiet NaN of the same sign; values past bfloat16's largest finite value round
/// to infinity.
#[inline(always)]
pub fn f32_to_bf16(x: f32) -> bf16 {
    let b = x.to_bits();
    let rounded = (b.wrapping_add(0x7FFF + ((b >> 16) & 1)) >> 16) as u16;
    let quiet_nan = ((b >> 16) | 0x0040) as u16;
    let is_nan = (b & 0x7FFF_FFFF) > 0x7F80_0000;
    bf16::from_bits(if is_nan { quiet_nan } else { rounded })
}

/// f64 to bfloat16, round to nearest even from the exact value.
#[inline(always)]
pub fn f64_to_bf16(v: f64) -> bf16 {
    let f = v as f32;
    if f as f64 == v {
        return f32_to_bf16(f); // exact in f32 (the common case): one rounding only
    }
    if v.is_nan() {
        return bf16::from_bits(f32_to_bf16(f).to_bits() | 0x0040);
    }
    bf16::from_bits(round_f64(v, 8, 7))
}

/// f64 to float16, round to nearest even from the exact value.
#[inline(always)]
pub fn f64_to_f16(v: f64) -> f16 {
    let f = v as f32;
    if f as f64 == v {
        return f16::from_f32(f); // exact in f32: half's f32 rounding is correct
    }
    if v.is_nan() {
        return f16::from_bits(f16::from_f32(f).to_bits() | 0x0200);
    }
    f16::from_bits(round_f64(v, 5, 10))
}

/// Bits of the non-NaN `v` rounded to nearest even into a binary format with `exp_bits`
/// exponent bits and `man_bits` stored mantissa bits (IEEE layout, subnormals, overflow
/// to infinity).
fn round_f64(v: f64, exp_bits: u32, man_bits: u32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 63) as u16) << 15;
    let abs = b & !(1u64 << 63);
    let bias = (1i32 << (exp_bits - 1)) - 1;
    let inf = (((1u32 << exp_bits) - 1) << man_bits) as u16;
    let e = (abs >> 52) as i32 - 1023; // unbiased; f64 subnormals round to zero below
    if abs >= 0x7FF0_0000_0000_0000 || e + bias >= (1 << exp_bits) - 1 {
        return sign | inf;
    }
    if abs >> 52 == 0 {
        return sign; // below 2^-1022: far under half the smallest subnormal of both types
    }
    // the significand with its leading one
    let m = (abs & ((1u64 << 52) - 1)) | (1u64 << 52);
    // the exponent of the result's last place: normal or, below the range, subnormal
    let q = e.max(1 - bias) - man_bits as i32;
    let shift = (52 + q - e) as u32; // >= 52 - man_bits
    if shift > 63 {
        return sign; // m < 2^53 <= 2^(shift - 1): less than half the last place
    }
    let mut n = m >> shift;
    let rem = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && n & 1 == 1) {
        n += 1; // a carry into the next binade (or to infinity) is the right encoding
    }
    // n holds the leading one for normal results: (biased exponent - 1) places it
    let exp_field = (e + bias).max(1) - 1;
    let bits = ((exp_field as u64) << man_bits) + n;
    sign | (bits.min(inf as u64) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_just_above_a_midpoint_round_up() {
        // f32 bits 0x0020_8001: a bfloat16 subnormal just above a midpoint
        let x = f32::from_bits(0x0020_8001) as f64;
        assert_eq!(f64_to_bf16(x).to_bits(), 0x0021);
        assert_eq!(f64_to_bf16(-x).to_bits(), 0x8021);
        // 1 + 2^-8 is the midpoint of 1 and the next bfloat16; 2^-40 past it rounds up
        let y = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(f64_to_bf16(y).to_bits(), 0x3F81);
        assert_eq!(
            f64_to_bf16(1.0 + 2f64.powi(-8)).to_bits(),
            0x3F80,
            "tie to even"
        );
        let z = 1.0 + 2f64.powi(-11) + 2f64.powi(-30);
        assert_eq!(f64_to_f16(z).to_bits(), 0x3C01);
        assert_eq!(
            f64_to_f16(1.0 + 2f64.powi(-11)).to_bits(),
            0x3C00,
            "tie to even"
        );
    }

    #[test]
    fn range_ends() {
        assert_eq!(f64_to_f16(65519.99).to_bits(), 0x7BFF);
        assert_eq!(f64_to_f16(65520.0).to_bits(), 0x7C00, "the midpoint to inf");
        assert_eq!(f64_to_f16(-1e300).to_bits(), 0xFC00);
        assert_eq!(
            f64_to_f16(2f64.powi(-25) + 2f64.powi(-60)).to_bits(),
            0x0001
        );
        assert_eq!(
            f64_to_f16(2f64.powi(-25)).to_bits(),
            0x0000,
            "tie to even (zero)"
        );
        assert_eq!(f64_to_f16(-1e-30).to_bits(), 0x8000);
        assert_eq!(f64_to_bf16(1e300).to_bits(), 0x7F80);
        assert_eq!(f64_to_bf16(5e-324).to_bits(), 0x0000);
        // just under bfloat16's smallest normal, rounding up into it
        let below = f32::from_bits(0x007F_FFFF) as f64 + 2f64.powi(-160);
        assert_eq!(f64_to_bf16(below).to_bits(), 0x0080);
        assert!(f64_to_bf16(f64::NAN).is_nan() && f64_to_f16(-f64::NAN).is_nan());
        assert!(f64_to_f16(-f64::NAN).is_sign_negative());
        assert_eq!(f64_to_bf16(f64::INFINITY).to_bits(), 0x7F80);
        assert_eq!(f64_to_f16(f64::NEG_INFINITY).to_bits(), 0xFC00);
    }
}
