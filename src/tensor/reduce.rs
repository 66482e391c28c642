//! Raw (non-recording) reductions: axis normalisation, keepdim, and dtype handling
//! around the reduction kernels.

use super::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
pub use crate::kernels::reduce::ReduceKind as ReduceOp;
use crate::layout::{normalize_dim, Layout, Shape};
use std::sync::Arc;

/// Normalises `axes` (None = all) against `ndim`: sorted, unique, non-negative.
pub fn normalize_axes(axes: Option<&[isize]>, ndim: usize, op: &str) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = match axes {
        None => (0..ndim).collect(),
        Some(a) => a
            .iter()
            .map(|&d| normalize_dim(d, ndim, op))
            .collect::<Result<_>>()?,
    };
    if ndim == 0 {
        out.clear();
    }
    out.sort_unstable();
    let n = out.len();
    out.dedup();
    if out.len() != n {
        return Err(Error::value(format!(
            "{op}: an axis appears more than once in {axes:?}"
        )));
    }
    Ok(out)
}

/// Shape after reducing `axes` of `shape`, keeping them as size 1 when `keepdim`.
pub fn reduced_shape(shape: &[usize], axes: &[usize], keepdim: bool) -> Shape {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| {
            if axes.contains(&i) {
                keepdim.then_some(1)
            } else {
                Some(d)
            }
        })
        .collect()
}

impl Tensor {
    /// Sum / Prod / Max / Min over `axes`; records nothing. Bool and integer sums give
    /// int64 (like NumPy/PyTorch); half types accumulate in float32.
    pub fn reduce_raw(&self, op: ReduceOp, axes: &[usize], keepdim: bool) -> Result<Tensor> {
        let d = self.dtype();
        let (compute, out_dtype) = match (op, d) {
            (ReduceOp::Sum | ReduceOp::Prod, d)
                if d == DType::Bool || (d.is_int() && d != DType::I64) =>
            {
                (DType::I64, DType::I64)
            }
            (_, DType::Bool) => (DType::I64, DType::Bool),
            (_, d) => (d.compute_dtype(), d),
        };
        let x = self.cast_raw(compute)?;
        let (s, _) = crate::kernels::reduce::reduce_storage(op, x.storage(), x.layout(), axes)?;
        let shape = reduced_shape(self.shape(), axes, keepdim);
        Tensor::from_parts(Arc::new(s), Layout::contiguous(&shape)).cast_raw(out_dtype)
    }

    /// `sum(self * self)` over `axes` for float32/float64 in one fused pass (the 2-norm's
    /// radicand; float64 squares and accumulators); records nothing. Other dtypes are a
    /// type error.
    pub fn sum_squares_raw(&self, axes: &[usize], keepdim: bool) -> Result<Tensor> {
        let (s, _) =
            crate::kernels::reduce::sum_squares_storage(self.storage(), self.layout(), axes)?;
        let shape = reduced_shape(self.shape(), axes, keepdim);
        Ok(Tensor::from_parts(Arc::new(s), Layout::contiguous(&shape)))
    }

    /// Indices of the max / min along `axis` (None = flattened); int64.
    pub fn arg_reduce_raw(
        &self,
        op: ReduceOp,
        axis: Option<usize>,
        keepdim: bool,
    ) -> Result<Tensor> {
        let x = self.cast_raw(if self.dtype() == DType::Bool {
            DType::I64
        } else {
            self.dtype().compute_dtype()
        })?;
        let (s, _) = crate::kernels::reduce::arg_reduce_storage(op, x.storage(), x.layout(), axis)?;
        let shape: Shape = match axis {
            Some(a) => reduced_shape(self.shape(), &[a], keepdim),
            None if keepdim => self.shape().iter().map(|_| 1).collect(),
            None => Shape::new(),
        };
        Ok(Tensor::from_parts(Arc::new(s), Layout::contiguous(&shape)))
    }

    /// All / Any over `axes`; bool.
    pub fn logical_reduce_raw(
        &self,
        op: ReduceOp,
        axes: &[usize],
        keepdim: bool,
    ) -> Result<Tensor> {
        let x = self.cast_raw(self.dtype().compute_dtype())?;
        let (s, _) =
            crate::kernels::reduce::logical_reduce_storage(op, x.storage(), x.layout(), axes)?;
        let shape = reduced_shape(self.shape(), axes, keepdim);
        Ok(Tensor::from_parts(Arc::new(s), Layout::contiguous(&shape)))
    }
}
