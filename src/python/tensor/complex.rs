//! Complex methods of the Python `Tensor` (`conj`, `real`, `imag`, `angle`, the views
//! behind `view_as_real` / `view_as_complex`) and the `complex(real, imag)` constructor;
//! gradients follow PyTorch's conjugate Wirtinger convention (see
//! `autograd/ops/complex.rs`).

use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

#[pymethods]
impl PyTensor {
    /// Complex conjugate (the tensor itself for real dtypes).
    fn conj(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().conj().py()?)
    }

    /// Complex conjugate, always materialised (same as `conj` here).
    fn conj_physical(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().conj().py()?)
    }

    /// Real part (torch's property; `ferrograd.real(x)` is the function form).
    #[getter]
    fn real(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().real().py()?)
    }

    /// Imaginary part (torch's property; `ferrograd.imag(x)` is the function form).
    #[getter]
    fn imag(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().imag().py()?)
    }

    /// `view_as_real` (PyTorch's): a view of this complex tensor's memory as real numbers
    /// with a trailing axis of 2 (`ferrograd.view_as_real` checks the argument first).
    fn _view_as_real(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().view_as_real().py()?)
    }

    /// `view_as_complex` (PyTorch's): a view of this float tensor's memory as complex
    /// numbers, its last axis of 2 the (real, imaginary) pairs.
    fn _view_as_complex(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().view_as_complex().py()?)
    }

    /// Phase angle in radians (`pi` for negative reals, `0` otherwise).
    fn angle(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().angle().py()?)
    }
}

/// `real + i * imag` (float32 pair to complex64, float64 pair to complex128).
#[pyfunction]
#[pyo3(name = "complex", signature = (real, imag, name=None))]
pub fn complex_fn(
    py: Python<'_>,
    real: PyRef<'_, PyTensor>,
    imag: PyRef<'_, PyTensor>,
    name: Option<&str>,
) -> PyT {
    let _ = name;
    wrap(py, Tensor::complex(&real.inner(), &imag.inner()).py()?)
}
