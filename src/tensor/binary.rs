//! Raw (non-recording) binary elementwise ops: dtype promotion, casting to the compute
//! dtype, broadcasting, and narrowing half results back.

use super::Tensor;
use crate::dtype::DType;
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
    /// [`BinaryDType`](crate::op_defs::BinaryDType) rule).
    pub fn binary_result_dtype(op: BinaryOp, a: DType, b: DType) -> Result<DType> {
        use crate::op_defs::BinaryDType as R;
        let common = DType::promote(a, b);
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

    /// `self op other` with broadcasting and promotion; records nothing.
    pub fn binary_raw(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        let out_dtype = Self::binary_result_dtype(op, self.dtype(), other.dtype())?;
        let compute = if op.returns_bool() {
            DType::promote(self.dtype(), other.dtype()).compute_dtype()
        } else {
            out_dtype.compute_dtype()
        };
        let shape = broadcast_shapes(self.shape(), other.shape(), op.name())?;
        let a = self.cast_raw(compute)?;
        let b = other.cast_raw(compute)?;
        if matches!(op, BinaryOp::FloorDiv | BinaryOp::Rem) && compute.is_int() {
            check_no_zero_divisor(&b, op)?;
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
