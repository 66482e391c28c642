//! torch's conversions to the narrow integer dtypes: `Tensor.byte()` (uint8),
//! `Tensor.char()` (int8) and `Tensor.short()` (int16), beside `int()` / `long()`.

use crate::dtype::DType;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

#[pymethods]
impl PyTensor {
    /// Converts to uint8 (values outside 0..=255 wrap, as in PyTorch).
    fn byte(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::U8).py()?)
    }
    /// Converts to int8 (values outside -128..=127 wrap, as in PyTorch).
    fn char(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::I8).py()?)
    }
    /// Converts to int16 (values outside -32768..=32767 wrap, as in PyTorch).
    fn short(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::I16).py()?)
    }
}
