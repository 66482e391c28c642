//! Raw (non-recording) unary elementwise ops and clip.

use super::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
pub use crate::kernels::unary::UnaryOp;
use crate::layout::Layout;
use crate::op_defs::DTypeRule;
use std::sync::Arc;

impl Tensor {
    /// The dtype `op` produces for an input of `dtype`.
    pub fn unary_result_dtype(op: UnaryOp, dtype: DType) -> DType {
        match op.dtype_rule() {
            DTypeRule::Bool => DType::Bool,
            DTypeRule::Modulus if dtype.is_complex() => dtype.to_real(),
            DTypeRule::Float => dtype.to_floating(),
            DTypeRule::Same | DTypeRule::Modulus | DTypeRule::Integral => dtype,
        }
    }

    /// Whether `op` accepts input of `dtype` (an `Integral` op takes integers and bools
    /// only); the error names the op and the dtype.
    pub fn check_unary_dtype(op: UnaryOp, dtype: DType) -> Result<()> {
        if op.dtype_rule() == DTypeRule::Integral && (dtype.is_float() || dtype.is_complex()) {
            return Err(crate::error::Error::type_err(format!(
                "{}: needs an integer or bool tensor, got {dtype} (it works on the bits of \
                 integers; convert with .astype('int64') first if that is what you mean)",
                op.name()
            )));
        }
        Ok(())
    }

    /// `op(self)`; records nothing.
    pub fn unary_raw(&self, op: UnaryOp) -> Result<Tensor> {
        Self::check_unary_dtype(op, self.dtype())?;
        let out_dtype = Self::unary_result_dtype(op, self.dtype());
        let compute = if op.dtype_rule() == DTypeRule::Bool
            || (op.dtype_rule() == DTypeRule::Modulus && self.dtype().is_complex())
        {
            self.dtype().compute_dtype()
        } else {
            out_dtype.compute_dtype()
        };
        let x = self.cast_raw(compute)?;
        let s = crate::kernels::unary::unary_storage(op, x.storage(), x.layout())?;
        let out = Tensor::from_parts(Arc::new(s), Layout::contiguous(self.shape()));
        if out.dtype() != out_dtype {
            return out.cast_raw(out_dtype);
        }
        Ok(out)
    }

    /// `clip(self, min, max)`; records nothing. On an integer tensor a bound beyond the
    /// dtype's range on the side where it clamps nothing is dropped, and one that would
    /// clamp every value to an unrepresentable number is a `ValueError` (PyTorch's rule;
    /// converting it would wrap: `clip(int32, max=2**31)` gave `-2**31` everywhere).
    pub fn clip_raw(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        let d = self.dtype();
        let (min, max) = int_clip_bounds(d, min, max)?;
        let x = self.cast_raw(d.compute_dtype())?;
        let s = crate::kernels::unary::clip_storage(x.storage(), x.layout(), min, max)?;
        Tensor::from_parts(Arc::new(s), Layout::contiguous(self.shape())).cast_raw(d)
    }
}

/// `clip`'s bounds for dtype `d` (see [`Tensor::clip_raw`]): unchanged unless `d` is an
/// integer dtype and a bound lies outside its range.
fn int_clip_bounds(
    d: DType,
    min: Option<f64>,
    max: Option<f64>,
) -> Result<(Option<f64>, Option<f64>)> {
    let (lo, hi) = match d {
        DType::U8 => (0.0, f64::from(u8::MAX)),
        DType::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        DType::I16 => (f64::from(i16::MIN), f64::from(i16::MAX)),
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        // (i64::MAX rounds up to 2**63 as f64; a bound of 2**63 converts saturating)
        DType::I64 => (i64::MIN as f64, i64::MAX as f64),
        _ => return Ok((min, max)),
    };
    let outside = |name: &str, v: f64| {
        Error::value(format!(
            "clip: {name} value {v} is outside the representable range of {d}; cast the \
             tensor to a wider dtype first"
        ))
    };
    let min = match min {
        Some(v) if v > hi => return Err(outside("min", v)),
        Some(v) if v < lo => None,
        m => m,
    };
    let max = match max {
        Some(v) if v < lo => return Err(outside("max", v)),
        Some(v) if v > hi => None,
        m => m,
    };
    Ok((min, max))
}
