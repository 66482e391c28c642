//! Raw (non-recording) binary elementwise ops: dtype promotion, casting to the compute
//! dtype, broadcasting, and narrowing half results back.

use super::Tensor;
use crate::dtype::{DType, ZeroDimRule};
use crate::error::{Error, Result};
pub use crate::kernels::binary::BinaryOp;
use crate::layout::{broadcast_shapes, Layout};
use std::sync::Arc;

impl Tensor {
    /// This tensor converted to `dtype` (a new contiguous tensor), or itself if already so.
    pub fn cast_raw(&self, dtype: DType) -> Result<Tensor> {
        if self.dtype() == dtype {
            return Ok(self.clone());
        }
        let s = crate::kernels::cast::cast_storage(self.storage(), self.layout(), dtype)?;
        Ok(Tensor::from_parts(
            Arc::new(s),
            Layout::contiguous(self.shape()),
        ))
    }

    /// The dtype `op` produces for `self op other` (its declared
    /// [`BinaryDType`](crate::op_defs::BinaryDType) rule), for two operands of equal rank
    /// class (both 0-d or both dimensioned; see [`Tensor::binary_result_dtype_ranked`]).
    pub fn binary_result_dtype(op: BinaryOp, a: DType, b: DType) -> Result<DType> {
        Self::result_dtype_of_common(op, DType::promote(a, b))
    }

    /// The dtype `op` produces for operands of dtypes `a`, `b`, of which those with
    /// `a_0d` / `b_0d` set are 0-d, under the 0-d promotion `rule`
    /// ([`DType::promote_ranked`]).
    pub fn binary_result_dtype_ranked(
        op: BinaryOp,
        (a, a_0d): (DType, bool),
        (b, b_0d): (DType, bool),
        rule: ZeroDimRule,
    ) -> Result<DType> {
        let common = DType::promote_ranked(a, a_0d, b, b_0d, zero_dim_rule_of(op, rule));
        Self::result_dtype_of_common(op, common)
    }

    /// `op`'s result dtype from its operands' common dtype.
    fn result_dtype_of_common(op: BinaryOp, common: DType) -> Result<DType> {
        use crate::op_defs::BinaryDType as R;
        if common.is_complex() && !op.supports_complex() {
            return Err(Error::type_err(format!(
                "{}: not supported for complex tensors (got {common})",
                op.name()
            )));
        }
        Ok(match (op.dtype_rule(), common) {
            (R::Bool, _) => DType::Bool,
            (R::IntOrBool, d) if !(d.is_int() || d == DType::Bool) => {
                return Err(Error::type_err(format!(
                    "{}: only integer and bool tensors support bitwise operations, got {d}",
                    op.name()
                )))
            }
            (R::Float, d) if !d.is_differentiable() => crate::dtype::default_float(),
            (R::PromoteNotBool, DType::Bool) => {
                return Err(Error::type_err(format!(
                    "{}: not supported for two bool tensors; use logical_xor, or cast to an \
                     integer dtype first",
                    op.name()
                )))
            }
            (R::PromoteBoolToInt, DType::Bool) => DType::I64,
            (_, d) => d,
        })
    }

    /// `self op other` with broadcasting and promotion (PyTorch's 0-d rule,
    /// [`ZeroDimRule::Torch`]); records nothing.
    pub fn binary_raw(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        self.binary_raw_ranked(other, op, ZeroDimRule::Torch)
    }

    /// The common dtype of `self` and `other` for `op` under the 0-d `rule`.
    pub fn binary_common_dtype(&self, other: &Tensor, op: BinaryOp, rule: ZeroDimRule) -> DType {
        let (a, b) = (self.dtype(), other.dtype());
        if a == b {
            return a;
        }
        let rule = zero_dim_rule_of(op, rule);
        DType::promote_ranked(a, self.ndim() == 0, b, other.ndim() == 0, rule)
    }

    /// [`Tensor::binary_raw`] with a 0-d operand promoted by `rule`.
    pub fn binary_raw_ranked(
        &self,
        other: &Tensor,
        op: BinaryOp,
        rule: ZeroDimRule,
    ) -> Result<Tensor> {
        let common = self.binary_common_dtype(other, op, rule);
        let out_dtype = Self::result_dtype_of_common(op, common)?;
        let compute = if op.returns_bool() {
            common.compute_dtype()
        } else {
            out_dtype.compute_dtype()
        };
        if compute.is_int() && self.dtype() != other.dtype() {
            check_fits(self, common, op.name())?;
            check_fits(other, common, op.name())?;
        }
        let shape = broadcast_shapes(self.shape(), other.shape(), op.name())?;
        // (operands already in the compute dtype are used as they are, without a clone; an
        // operand of another dtype is first rounded to the common dtype, as PyTorch's
        // TensorIterator does: `half == tensor(1000.2)` compares 1000.2 rounded to half,
        // except a 0-d operand of mul/div, which PyTorch's kernels read unrounded, as a
        // scalar: `bfloat16 1000 * tensor(1.003)` is 1004)
        let scalar_read = matches!(op, BinaryOp::Mul | BinaryOp::Div);
        let prepare = |t: &Tensor| -> Result<Option<Tensor>> {
            let read_as_scalar = scalar_read && t.ndim() == 0;
            if t.dtype() != common && common != compute && !read_as_scalar {
                Ok(Some(t.cast_raw(common)?.cast_raw(compute)?))
            } else if t.dtype() != compute {
                Ok(Some(t.cast_raw(compute)?))
            } else {
                Ok(None)
            }
        };
        let (a_cast, b_cast) = (prepare(self)?, prepare(other)?);
        let a = a_cast.as_ref().unwrap_or(self);
        let b = b_cast.as_ref().unwrap_or(other);
        if matches!(op, BinaryOp::FloorDiv | BinaryOp::Rem) && compute.is_int() {
            check_no_zero_divisor(b, op)?;
        }
        let s = crate::kernels::binary::binary_storage(
            op,
            a.storage(),
            a.layout(),
            b.storage(),
            b.layout(),
            &shape,
        )?;
        let out = Tensor::from_parts(Arc::new(s), Layout::contiguous(&shape));
        if out.dtype() != out_dtype {
            return out.cast_raw(out_dtype);
        }
        Ok(out)
    }
}

/// The 0-d rule `op` follows under `rule`: Paddle applies its 0-d rule only to its
/// arithmetic and comparison ops (add, subtract, multiply, divide, remainder, pow,
/// comparisons, copysign; `floor_divide`, `maximum`, `minimum`, `atan2`, logical and
/// bitwise ops promote as tensors: Paddle 3.3.1's answers).
fn zero_dim_rule_of(op: BinaryOp, rule: ZeroDimRule) -> ZeroDimRule {
    use BinaryOp as B;
    match (rule, op) {
        (
            ZeroDimRule::Paddle,
            B::Add
            | B::Sub
            | B::Mul
            | B::Div
            | B::Rem
            | B::Pow
            | B::Eq
            | B::Ne
            | B::Lt
            | B::Le
            | B::Gt
            | B::Ge
            | B::Copysign,
        ) => ZeroDimRule::Paddle,
        (ZeroDimRule::Paddle, _) => ZeroDimRule::Plain,
        (r, _) => r,
    }
}

/// A 0-d integer operand that takes a narrower integer tensor's dtype (the 0-d rule:
/// `int32[3] + int64[]` is int32) must hold a value of that dtype: PyTorch would wrap
/// `2**40` to 0 silently; here, as for a Python integer, it is an error (`op`: the name
/// the message gives).
pub(crate) fn check_fits(t: &Tensor, common: DType, op: &str) -> Result<()> {
    if t.dtype() == common || t.ndim() != 0 || !t.dtype().is_int() {
        return Ok(());
    }
    let (lo, hi): (i64, i64) = match common {
        DType::U8 => (0, u8::MAX.into()),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => return Ok(()),
    };
    let v = t.cast_raw(DType::I64)?.to_vec::<i64>()?[0];
    if v < lo || v > hi {
        return Err(Error::value(format!(
            "{}: the 0-d {} tensor holds {v}, outside the range of {common}, the dtype of the \
             result (a 0-d tensor takes the dimensioned operand's dtype within its category, \
             PyTorch's rule); cast one operand explicitly (e.g. x.astype('int64'))",
            op,
            t.dtype()
        )));
    }
    Ok(())
}

/// Integer `//` and `%` by zero: an error, as in PyTorch and Paddle (NumPy returns 0 with
/// a warning), never a made-up value.
fn check_no_zero_divisor(b: &Tensor, op: BinaryOp) -> Result<()> {
    let has_zero = match b.dtype() {
        DType::I32 => b.to_vec::<i32>()?.contains(&0),
        DType::I64 => b.to_vec::<i64>()?.contains(&0),
        _ => false,
    };
    if has_zero {
        return Err(Error::runtime(format!(
            "{}: integer division by zero (ZeroDivisionError); the divisor holds a 0 — \
             mask it out first (e.g. where(b == 0, 1, b)) or divide in floating point",
            op.name()
        )));
    }
    Ok(())
}
