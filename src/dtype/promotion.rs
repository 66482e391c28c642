//! Type promotion: the result dtype of an op on two tensors or a tensor and a scalar,
//! and the default floating dtype.
//!
//! Promotion follows PyTorch (which agrees with NumPy 2 / NEP 50 for these cases):
//!
//! | category order | bool < integer < floating < complex |
//! |---|---|
//! | same category | the wider type wins (`int32+int64=int64`, `float16+float32=float32`) |
//! | `float16` + `bfloat16` | `float32` |
//! | integer + floating | the floating type (`int64+float32=float32`) |
//! | floating + complex | complex wide enough for both (`float64+complex64=complex128`) |
//! | tensor op Python scalar | the tensor's dtype unless the scalar's category is higher: then `int64` for an int, the default float (`float32`) for a float, `complex64` (or `complex128` for a float64 tensor) for a complex |
//! | dimensioned tensor op 0-d tensor ([`ZeroDimRule::Torch`], the default) | the dimensioned tensor's dtype unless the 0-d one's category is higher: then the 0-d one's dtype (`int32[3] + float64[] = float64`, `float32[3] + float64[] = float32`, `int8[3] + int64[] = int8`), except a floating tensor with a 0-d complex one: the complex type of the tensor's precision (`float32[3] + complex128[] = complex64`; `complex64` for float16/bfloat16, which have no complex type here) |
//! | dimensioned tensor op 0-d tensor ([`ZeroDimRule::Paddle`], Paddle's arithmetic and comparisons) | the dimensioned tensor's dtype when both are of one category; otherwise as two tensors (`float32[3] + complex128[] = complex128`) |
//! | two 0-d tensors, or two dimensioned ones | as two tensors (the rows above the scalar row) |
//!
//! Which 0-d rule a call uses is the caller's choice ([`ZeroDimRule`]); the Python bindings
//! take Paddle's only for Paddle code, and only where the two rules differ
//! (docs/dialects.md).
//! True division and float-only unary ops on bool/integer tensors produce the default float.

use super::DType;
use crate::error::{Error, Result};

/// Kind of a Python scalar, for weak (scalar) type promotion.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ScalarKind {
    /// Python `bool`.
    Bool,
    /// Python `int`.
    Int,
    /// Python `float`.
    Float,
    /// Python `complex`.
    Complex,
}

/// How a 0-d tensor operand of a binary op takes part in type promotion when the other
/// operand has dimensions (with two 0-d operands, or none, both are plain tensors).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ZeroDimRule {
    /// PyTorch's (`torch.result_type`), ferrograd's default: the 0-d operand decides only
    /// when its category (bool < integer < floating < complex) is higher than the
    /// dimensioned operand's.
    Torch,
    /// Paddle's for its arithmetic and comparison ops: a 0-d operand of the dimensioned
    /// operand's category leaves that operand's dtype; operands of two categories promote
    /// as two tensors.
    Paddle,
    /// No 0-d rule: both operands promote as tensors (Paddle's `maximum`, `atan2`,
    /// `where`, ...).
    Plain,
}

impl DType {
    /// Promotion category: bool < integer < floating < complex.
    fn category(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => 1,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => 2,
            DType::C64 | DType::C128 => 3,
        }
    }

    /// Whether a value of dtype `from` may be stored into a tensor of dtype `to` by an
    /// in-place op or `out=` (PyTorch's `can_cast`): any cast within a kind or to a higher
    /// kind is allowed, narrowing included (`float64` into `float32`), but not one that
    /// changes the kind downward: complex to real, floating to integer, or anything to bool.
    pub fn can_cast(from: DType, to: DType) -> bool {
        from.category() <= to.category()
    }

    /// Result dtype of a binary op between two tensors (see the module table).
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        if a == b {
            return a;
        }
        let (ca, cb) = (a.category(), b.category());
        if ca != cb {
            let (hi, lo) = if ca > cb { (a, b) } else { (b, a) };
            // complex must be wide enough for a float64 partner
            if hi.is_complex() && lo == F64 {
                return C128;
            }
            return hi;
        }
        match (a, b) {
            (F16, BF16) | (BF16, F16) => F32,
            // no 8-bit type holds both: the smallest signed one that does
            (U8, I8) | (I8, U8) => I16,
            _ => a.max(b),
        }
    }

    /// Result dtype of a binary op between a tensor of dtype `a` and one of dtype `b`,
    /// where `a_0d` / `b_0d` say which of them is 0-d (see [`ZeroDimRule`]). Equal dtypes
    /// return at once, before anything else is looked at.
    pub fn promote_ranked(a: DType, a_0d: bool, b: DType, b_0d: bool, rule: ZeroDimRule) -> DType {
        if a == b || a_0d == b_0d {
            return Self::promote(a, b);
        }
        let (dim, zero) = if a_0d { (b, a) } else { (a, b) };
        let (cd, cz) = (dim.category(), zero.category());
        match rule {
            ZeroDimRule::Plain => Self::promote(a, b),
            ZeroDimRule::Paddle if cd == cz => dim,
            ZeroDimRule::Paddle => Self::promote(a, b),
            ZeroDimRule::Torch if cz <= cd => dim,
            // a 0-d complex keeps a floating tensor's precision
            ZeroDimRule::Torch if zero.is_complex() && dim.is_float() => {
                if dim == DType::F64 {
                    DType::C128
                } else {
                    DType::C64
                }
            }
            ZeroDimRule::Torch => zero,
        }
    }

    /// Result dtype of a tensor of dtype `t` combined with a Python scalar of `kind`.
    pub fn promote_scalar(t: DType, kind: ScalarKind) -> DType {
        let tc = t.category();
        let sc = match kind {
            ScalarKind::Bool => 0,
            ScalarKind::Int => 1,
            ScalarKind::Float => 2,
            ScalarKind::Complex => 3,
        };
        if sc <= tc {
            return t;
        }
        match kind {
            ScalarKind::Bool => t,
            ScalarKind::Int => DType::I64,
            ScalarKind::Float => default_float(),
            ScalarKind::Complex => {
                if t == DType::F64 || (!t.is_float() && default_float() == DType::F64) {
                    DType::C128
                } else {
                    DType::C64
                }
            }
        }
    }
}

/// The default floating dtype as a small integer (0: f16, 1: bf16, 2: f32, 3: f64).
static DEFAULT_FLOAT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(2);

/// The dtype of floating tensors made without one (float32 unless changed with
/// [`set_default_float`]): Python float data, float factories, and the result of
/// float-only ops and true division on integers.
pub fn default_float() -> DType {
    match DEFAULT_FLOAT.load(std::sync::atomic::Ordering::Relaxed) {
        0 => DType::F16,
        1 => DType::BF16,
        3 => DType::F64,
        _ => DType::F32,
    }
}

/// The complex dtype matching [`default_float`]: complex128 for float64, else complex64.
pub fn default_complex() -> DType {
    if default_float() == DType::F64 {
        DType::C128
    } else {
        DType::C64
    }
}

/// Sets [`default_float`] (`torch.set_default_dtype` / `paddle.set_default_dtype`); only
/// floating dtypes are accepted.
pub fn set_default_float(d: DType) -> Result<()> {
    let code = match d {
        DType::F16 => 0,
        DType::BF16 => 1,
        DType::F32 => 2,
        DType::F64 => 3,
        other => {
            return Err(Error::type_err(format!(
                "set_default_dtype: only floating dtypes (float16, bfloat16, float32, \
                 float64) can be the default, got {other}"
            )))
        }
    };
    DEFAULT_FLOAT.store(code, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_table() {
        use DType::*;
        assert_eq!(DType::promote(I32, I64), I64);
        assert_eq!(DType::promote(Bool, I32), I32);
        assert_eq!(DType::promote(I64, F32), F32);
        assert_eq!(DType::promote(F16, BF16), F32);
        assert_eq!(DType::promote(F16, F32), F32);
        assert_eq!(DType::promote(F64, C64), C128);
        assert_eq!(DType::promote(F32, C64), C64);
        assert_eq!(DType::promote(C64, C128), C128);
        assert_eq!(DType::promote(U8, I8), I16);
        assert_eq!(DType::promote(I8, U8), I16);
        assert_eq!(DType::promote(U8, I16), I16);
        assert_eq!(DType::promote(I8, I16), I16);
        assert_eq!(DType::promote(I8, I32), I32);
        assert_eq!(DType::promote(U8, I64), I64);
        assert_eq!(DType::promote(Bool, U8), U8);
        assert_eq!(DType::promote(U8, F16), F16);
        assert_eq!(DType::promote(I16, F32), F32);
    }

    #[test]
    fn zero_dim_promotion() {
        use DType::*;
        use ZeroDimRule::*;
        let r = DType::promote_ranked;
        // PyTorch 2.x's torch.result_type for a [3] tensor and a 0-d one
        assert_eq!(r(F32, false, F64, true, Torch), F32);
        assert_eq!(r(F64, true, F32, false, Torch), F32);
        assert_eq!(r(I32, false, F64, true, Torch), F64);
        assert_eq!(r(F16, false, F32, true, Torch), F16);
        assert_eq!(r(I8, false, I64, true, Torch), I8);
        assert_eq!(r(U8, false, I8, true, Torch), U8);
        assert_eq!(r(Bool, false, I64, true, Torch), I64);
        assert_eq!(r(Bool, false, F64, true, Torch), F64);
        assert_eq!(r(I64, false, F16, true, Torch), F16);
        assert_eq!(r(BF16, false, F16, true, Torch), BF16);
        assert_eq!(r(F32, false, C128, true, Torch), C64);
        assert_eq!(r(F64, false, C64, true, Torch), C128);
        assert_eq!(r(I32, false, C128, true, Torch), C128);
        assert_eq!(r(C64, false, F64, true, Torch), C64);
        // two 0-d tensors, or two dimensioned ones: plain promotion
        assert_eq!(r(F32, true, F64, true, Torch), F64);
        assert_eq!(r(F32, false, F64, false, Torch), F64);
        // Paddle 3.3.1: one category keeps the tensor's dtype, two promote as tensors
        assert_eq!(r(F32, false, F64, true, Paddle), F32);
        assert_eq!(r(I8, false, I64, true, Paddle), I8);
        assert_eq!(r(I32, false, F64, true, Paddle), F64);
        assert_eq!(r(F32, false, C128, true, Paddle), C128);
        assert_eq!(r(C64, false, F64, true, Paddle), C128);
        assert_eq!(r(C64, false, C128, true, Paddle), C64);
        assert_eq!(r(F32, false, F64, true, Plain), F64);
    }

    #[test]
    fn scalar_promotion_is_weak() {
        use DType::*;
        assert_eq!(DType::promote_scalar(F16, ScalarKind::Float), F16);
        assert_eq!(DType::promote_scalar(I32, ScalarKind::Int), I32);
        assert_eq!(DType::promote_scalar(I32, ScalarKind::Float), F32);
        assert_eq!(DType::promote_scalar(Bool, ScalarKind::Int), I64);
        assert_eq!(DType::promote_scalar(F64, ScalarKind::Complex), C128);
        assert_eq!(DType::promote_scalar(U8, ScalarKind::Int), U8);
        assert_eq!(DType::promote_scalar(I8, ScalarKind::Float), F32);
        assert_eq!(DType::promote_scalar(I16, ScalarKind::Bool), I16);
    }
}
