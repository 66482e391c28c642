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
//!
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
