//! Element types and their names; type promotion is in [`promotion`].

use crate::error::{Error, Result};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::fmt;

pub mod narrow;
pub mod promotion;

pub use promotion::{default_complex, default_float, set_default_float, ScalarKind, ZeroDimRule};

/// The element type of a tensor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// 1-byte boolean.
    Bool,
    /// 8-bit unsigned integer (`torch.uint8` / `torch.byte`).
    U8,
    /// 8-bit signed integer (`torch.int8` / `torch.char`).
    I8,
    /// 16-bit signed integer (`torch.int16` / `torch.short`).
    I16,
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
    /// IEEE half precision (computed in f32, stored narrow).
    F16,
    /// bfloat16 (computed in f32, stored narrow).
    BF16,
    /// 32-bit float, the default floating dtype.
    F32,
    /// 64-bit float.
    F64,
    /// Complex of two f32.
    C64,
    /// Complex of two f64.
    C128,
}

/// All dtypes, in declaration order.
pub const ALL_DTYPES: [DType; 12] = [
    DType::Bool,
    DType::U8,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];

impl DType {
    /// Canonical name (`"float32"`), as NumPy spells it (`"bfloat16"` for bf16).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// Parses a dtype name; accepts NumPy, PyTorch and Paddle spellings.
    pub fn from_name(name: &str) -> Result<DType> {
        let n = name.trim().to_ascii_lowercase();
        let n = n
            .strip_prefix("torch.")
            .or_else(|| n.strip_prefix("paddle."))
            .or_else(|| n.strip_prefix("ferrograd."))
            .unwrap_or(&n);
        Ok(match n {
            "bool" | "bool_" => DType::Bool,
            "uint8" | "byte" | "u1" | "ubyte" => DType::U8,
            "int8" | "char" | "i1" => DType::I8,
            "int16" | "short" | "i2" => DType::I16,
            "int32" | "int" | "i4" => DType::I32,
            "int64" | "long" | "i8" => DType::I64,
            "float16" | "half" | "f2" => DType::F16,
            "bfloat16" | "bf16" => DType::BF16,
            "float32" | "float" | "f4" => DType::F32,
            "float64" | "double" | "f8" => DType::F64,
            "complex64" | "cfloat" | "c8" => DType::C64,
            "complex128" | "cdouble" | "c16" => DType::C128,
            _ => {
                return Err(Error::type_err(format!(
                    "unknown dtype '{name}'; expected one of bool, uint8, int8, int16, int32, int64, float16, \
                     bfloat16, float32, float64, complex64, complex128"
                )))
            }
        })
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// Alignment of an element in bytes: its size, except a complex number's, which is
    /// that of one of its two floats (Rust's `Complex<f32>` is aligned to 4).
    pub fn align(self) -> usize {
        match self {
            DType::C64 | DType::C128 => self.size() / 2,
            _ => self.size(),
        }
    }

    /// True for float16, bfloat16, float32, float64.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// True for complex64 and complex128.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// True for the integer dtypes (uint8, int8, int16, int32, int64).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64
        )
    }

    /// True for uint8, int8 and int16: stored narrow, computed in int32 (see
    /// [`DType::compute_dtype`]).
    pub fn is_narrow_int(self) -> bool {
        matches!(self, DType::U8 | DType::I8 | DType::I16)
    }

    /// Floating or complex: the dtypes that may require grad.
    pub fn is_differentiable(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// True for dtypes stored narrow and computed in f32.
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// The dtype kernels compute in: f32 for the half types, i32 for the narrow integers
    /// (results are cast back, which wraps exactly as narrow arithmetic does: every op
    /// kernels compute on integers is exact modulo 2^32, so also modulo 2^8 / 2^16),
    /// itself otherwise. Computing narrow types by widening keeps the elementwise kernels
    /// monomorphised for five types fewer.
    pub fn compute_dtype(self) -> DType {
        if self.is_half() {
            DType::F32
        } else if self.is_narrow_int() {
            DType::I32
        } else {
            self
        }
    }

    /// Real counterpart of a complex dtype (`complex64 -> float32`); itself otherwise.
    pub fn to_real(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }

    /// Complex counterpart of a real floating dtype (`float64 -> complex128`).
    pub fn to_complex(self) -> DType {
        match self {
            DType::F64 | DType::C128 => DType::C128,
            _ => DType::C64,
        }
    }

    /// The dtype float-only ops produce for this input: itself when floating or
    /// complex, the default float for bool and integers.
    pub fn to_floating(self) -> DType {
        if self.is_differentiable() {
            self
        } else {
            default_float()
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type that can be a tensor element.
pub trait Element: Copy + Send + Sync + Default + PartialEq + fmt::Debug + 'static {
    /// The dtype tag of this element type.
    const DTYPE: DType;
    /// Lossy conversion to f64 (real part for complex, 0/1 for bool).
    fn to_f64(self) -> f64;
    /// Lossy conversion from f64.
    fn from_f64(v: f64) -> Self;
    /// Conversion to complex128 (exact for every type).
    fn to_c128(self) -> Complex64;
    /// Conversion from complex128 (imaginary part dropped for real types).
    fn from_c128(v: Complex64) -> Self;
    /// Conversion to i64: exact for bool and the integers, truncating toward zero for the
    /// real part of the floating types.
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self.to_f64() as i64
    }
    /// Conversion from i64: wrapping (two's complement) for the integers, as C, NumPy and
    /// PyTorch cast; nearest for the floating types.
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        Self::from_f64(v as f64)
    }
    /// Additive identity.
    fn zero() -> Self;
    /// Multiplicative identity.
    fn one() -> Self;
}

macro_rules! impl_real_element {
    ($t:ty, $d:expr, $to:expr, $from:expr, $z:expr, $o:expr $(, from_i64 = $fi:expr)?) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                ($to)(self)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                ($from)(v)
            }
            $(
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                ($fi)(v)
            }
            )?
            #[inline(always)]
            fn to_c128(self) -> Complex64 {
                Complex64::new(self.to_f64(), 0.0)
            }
            #[inline(always)]
            fn from_c128(v: Complex64) -> Self {
                Self::from_f64(v.re)
            }
            #[inline(always)]
            fn zero() -> Self {
                $z
            }
            #[inline(always)]
            fn one() -> Self {
                $o
            }
        }
    };
}

impl_real_element!(
    bool,
    DType::Bool,
    |v: bool| v as u8 as f64,
    |v: f64| v != 0.0,
    false,
    true
);
/// Integer elements: from a float they truncate toward zero to i64 and
/// then wrap (what PyTorch's CPU casts do: `300.0 -> uint8` is 44, `-1.0 -> uint8` 255),
/// and they cast from i64 by wrapping, never saturating.
macro_rules! impl_int_element {
    ($t:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                (v as i64) as $t
            }
            #[inline(always)]
            fn to_c128(self) -> Complex64 {
                Complex64::new(self as f64, 0.0)
            }
            #[inline(always)]
            fn from_c128(v: Complex64) -> Self {
                Self::from_f64(v.re)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn one() -> Self {
                1
            }
        }
    };
}
impl_int_element!(u8, DType::U8);
impl_int_element!(i8, DType::I8);
impl_int_element!(i16, DType::I16);
impl_int_element!(i32, DType::I32);
impl_int_element!(i64, DType::I64);
impl_real_element!(
    f32,
    DType::F32,
    |v: f32| v as f64,
    |v: f64| v as f32,
    0.0,
    1.0,
    // one rounding: through f64 an int64 above 2^53 would round twice
    from_i64 = |v: i64| v as f32
);
impl_real_element!(f64, DType::F64, |v: f64| v, |v: f64| v, 0.0, 1.0);
impl_real_element!(
    f16,
    DType::F16,
    |v: f16| v.to_f64(),
    narrow::f64_to_f16,
    f16::ZERO,
    f16::ONE
);
impl_real_element!(
    bf16,
    DType::BF16,
    |v: bf16| v.to_f64(),
    narrow::f64_to_bf16,
    bf16::ZERO,
    bf16::ONE
);

macro_rules! impl_complex_element {
    ($t:ty, $d:expr, $r:ty) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                <$t>::new(v as $r, 0.0)
            }
            #[inline(always)]
            fn to_c128(self) -> Complex64 {
                Complex64::new(self.re as f64, self.im as f64)
            }
            #[inline(always)]
            fn from_c128(v: Complex64) -> Self {
                <$t>::new(v.re as $r, v.im as $r)
            }
            #[inline(always)]
            fn zero() -> Self {
                <$t>::new(0.0, 0.0)
            }
            #[inline(always)]
            fn one() -> Self {
                <$t>::new(1.0, 0.0)
            }
        }
    };
}
impl_complex_element!(Complex32, DType::C64, f32);
impl_complex_element!(Complex64, DType::C128, f64);

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype` (all twelve dtypes).
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident, $body:block) => {{
        use $crate::dtype::DType as __D;
        match $dtype {
            __D::Bool => {
                type $T = bool;
                $body
            }
            __D::U8 => {
                type $T = u8;
                $body
            }
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            __D::F16 => {
                type $T = half::f16;
                $body
            }
            __D::BF16 => {
                type $T = half::bf16;
                $body
            }
            __D::F32 => {
                type $T = f32;
                $body
            }
            __D::F64 => {
                type $T = f64;
                $body
            }
            __D::C64 => {
                type $T = num_complex::Complex32;
                $body
            }
            __D::C128 => {
                type $T = num_complex::Complex64;
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in ALL_DTYPES {
            assert_eq!(DType::from_name(d.name()).unwrap(), d);
        }
        assert!(DType::from_name("float128").is_err());
        assert_eq!(DType::from_name("torch.byte").unwrap(), DType::U8);
        assert_eq!(DType::from_name("torch.char").unwrap(), DType::I8);
        assert_eq!(DType::from_name("paddle.int16").unwrap(), DType::I16);
        assert_eq!(DType::from_name("short").unwrap(), DType::I16);
    }
}
