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
                    self.wrapping_pow(o.min(u32::MAX as $t) as u32)
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
                (self / o).floor()
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
                self / o
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                if o.im == 0.0 && o.re == 2.0 {
                    self * self
                } else if self.re == 0.0 && self.im == 0.0 {
                    if o.re == 0.0 && o.im == 0.0 {
                        <$t>::new(1.0, 0.0)
                    } else {
                        <$t>::new(0.0, 0.0)
                    }
                } else {
                    self.powc(o)
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
