//! Per-element arithmetic for each element type, as traits the kernels are generic over.
//! Integer arithmetic wraps; integer division by zero yields 0 instead of trapping
//! (a crash is never an acceptable answer); float semantics follow IEEE/NumPy.

use crate::dtype::Element;
use num_complex::{Complex32, Complex64};

/// Arithmetic shared by every numeric element type (not bool).
pub trait Num: Element {
    /// `a + b`.
    fn add(self, o: Self) -> Self;
    /// `a - b`.
    fn sub(self, o: Self) -> Self;
    /// `a * b`.
    fn mul(self, o: Self) -> Self;
    /// `a / b` (true division for floats, truncating for ints: callers cast ints first).
    fn div(self, o: Self) -> Self;
    /// `a ** b`.
    fn pow(self, o: Self) -> Self;
    /// `-a`.
    fn neg(self) -> Self;
}

/// Ordering-based ops for real element types.
pub trait Real: Num + PartialOrd {
    /// Python-style modulo: the result has the sign of the divisor.
    fn rem(self, o: Self) -> Self;
    /// Floor division.
    fn floor_div(self, o: Self) -> Self;
    /// NaN-propagating maximum.
    fn maximum(self, o: Self) -> Self;
    /// NaN-propagating minimum.
    fn minimum(self, o: Self) -> Self;
    /// `|a|`.
    fn abs(self) -> Self;
    /// -1, 0 or 1 (NaN stays NaN).
    fn sign(self) -> Self;
}

macro_rules! impl_int {
    ($t:ty) => {
        impl Num for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                if o == 0 {
                    0
                } else {
                    self.wrapping_div(o)
                }
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                if o < 0 {
                    // integer ** negative: 1/x**k truncated, as torch does for |x| == 1
                    match self {
                        1 => 1,
                        -1 => {
                            if o % 2 == 0 {
                                1
                            } else {
                                -1
                            }
                        }
                        _ => 0,
                    }
                } else {
                    // square-and-multiply over the whole exponent, wrapping like NumPy
                    // (a clamp of the exponent to u32 must not go through `as $t`: for
                    // i32 that cast is -1 and turned every power into x**u32::MAX)
                    let (mut e, mut base, mut acc) = (o as u64, self, 1 as $t);
                    while e > 0 {
                        if e & 1 == 1 {
                            acc = acc.wrapping_mul(base);
                        }
                        base = base.wrapping_mul(base);
                        e >>= 1;
                    }
                    acc
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
        }
        impl Real for $t {
            #[inline(always)]
            fn rem(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) {
                    r + o
                } else {
                    r
                }
            }
            #[inline(always)]
            fn floor_div(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                let q = self.wrapping_div(o);
                if (self.wrapping_rem(o) != 0) && ((self < 0) != (o < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            #[inline(always)]
            fn maximum(self, o: Self) -> Self {
                self.max(o)
            }
            #[inline(always)]
            fn minimum(self, o: Self) -> Self {
                self.min(o)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                self.wrapping_abs()
            }
            #[inline(always)]
            fn sign(self) -> Self {
                self.signum()
            }
        }
    };
}
impl_int!(i32);
impl_int!(i64);

#[cfg(test)]
mod int_pow_tests {
    use super::Num;

    #[test]
    fn int_pow_matches_wrapping_pow_for_every_width() {
        for &(x, k) in &[
            (5i64, 2i64),
            (-1, 2),
            (-3, 2),
            (-3, 3),
            (2, 62),
            (2, 64),
            (7, 0),
        ] {
            assert_eq!(Num::pow(x, k), x.wrapping_pow(k as u32));
            let (x32, k32) = (x as i32, k as i32);
            assert_eq!(Num::pow(x32, k32), x32.wrapping_pow(k32 as u32));
        }
        // exponents beyond u32: 3**(2**32) mod 2**64 by repeated squaring
        let mut r = 3i64;
        for _ in 0..32 {
            r = r.wrapping_mul(r);
        }
        assert_eq!(Num::pow(3i64, 1i64 << 32), r);
        assert_eq!(Num::pow(-1i32, i32::MAX), -1);
    }

    #[test]
    fn float_floor_div_is_pythons() {
        use super::Real;
        assert_eq!(Real::floor_div(1.0f64, 0.1), 9.0);
        assert_eq!(Real::floor_div(-7.5f32, 2.0), -4.0);
        assert_eq!(Real::floor_div(7.0f64, -2.0), -4.0);
        assert!(Real::floor_div(-0.5f64, 3.0) == -1.0);
        assert!(Real::floor_div(0.5f64, -3.0) == -1.0);
        assert!(Real::floor_div(0.0f64, -3.0).is_sign_negative());
        assert_eq!(Real::floor_div(1.0f64, 0.0), f64::INFINITY);
    }
}

macro_rules! impl_float {
    ($t:ty) => {
        impl Num for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                self / o
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                if o == 2.0 {
                    self * self
                } else {
                    self.powf(o)
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
        }
        impl Real for $t {
            #[inline(always)]
            fn rem(self, o: Self) -> Self {
                let r = self % o;
                if r != 0.0 && ((r < 0.0) != (o < 0.0)) {
                    r + o
                } else {
                    r
                }
            }
            #[inline(always)]
            fn floor_div(self, o: Self) -> Self {
                let q = self / o;
                if !q.is_finite() || o == 0.0 {
                    return q.floor();
                }
                // Python's (and NumPy's, PyTorch's) float floor division: from the exact
                // remainder, so 1.0 // 0.1 is 9.0 (floor(1.0 / 0.1) would round to 10.0)
                let m = self % o;
                let mut div = (self - m) / o;
                if m != 0.0 && ((o < 0.0) != (m < 0.0)) {
                    div -= 1.0;
                }
                if div == 0.0 {
                    return (0.0 as $t).copysign(q);
                }
                let fl = div.floor();
                if div - fl > 0.5 {
                    fl + 1.0
                } else {
                    fl
                }
            }
            #[inline(always)]
            fn maximum(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    <$t>::NAN
                } else {
                    self.max(o)
                }
            }
            #[inline(always)]
            fn minimum(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    <$t>::NAN
                } else {
                    self.min(o)
                }
            }
            #[inline(always)]
            fn abs(self) -> Self {
                self.abs()
            }
            #[inline(always)]
            fn sign(self) -> Self {
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else {
                    self // keeps 0.0, -0.0 and NaN
                }
            }
        }
    };
}
impl_float!(f32);
impl_float!(f64);

macro_rules! impl_complex {
    ($t:ty) => {
        impl Num for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                super::complex_math::cdiv(self, o)
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                if o.im == 0.0 && o.re == 2.0 {
                    self * self
                } else {
                    super::complex_elem::cpow(self, o)
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
        }
    };
}
impl_complex!(Complex32);
impl_complex!(Complex64);
