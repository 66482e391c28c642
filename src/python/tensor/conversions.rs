//! The `Tensor` methods that convert from and to Python values: the constructor, NumPy
//! arrays (`numpy`, `__array__`), lists, scalars (`item`, `complex(t)`) and `repr`.

use super::class::PyTensor;
use crate::python::dtype::parse_opt_dtype;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{tensor_item, tensor_to_numpy, to_tensor};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    #[new]
    #[pyo3(signature = (data=None, dtype=None))]
    fn py_new(data: Option<&Bound<'_, PyAny>>, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let dtype = parse_opt_dtype(dtype)?;
        let t = match data {
            None => {
                crate::tensor::zeros(&[0], dtype.unwrap_or(crate::dtype::default_float())).py()?
            }
            Some(d) => {
                let t = to_tensor(d, dtype)?;
                // torch.Tensor(data) is float32 unless told otherwise
                if dtype.is_none() && !t.dtype().is_differentiable() {
                    t.cast_raw(crate::dtype::default_float()).py()?
                } else {
                    t
                }
            }
        };
        Ok(PyTensor::new(t))
    }

    /// A NumPy array holding a copy of the values.
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_to_numpy(py, &self.inner)
    }

    /// NumPy array protocol. `np.asarray(t)` gets a view of the tensor's memory (no
    /// copy; the array keeps the storage alive, see `array_interface.rs`); `copy=True`, a
    /// `dtype` other than the tensor's, and bfloat16 (which NumPy lacks: a float32 copy)
    /// give a copy.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = if copy == Some(true) {
            None
        } else {
            crate::python::interop::array_interface::numpy_view(py, &self.inner)?
        };
        let a = match view {
            Some(v) => v,
            None if copy == Some(false) => {
                return Err(PyValueError::new_err(
                    "this tensor cannot be viewed by NumPy without a copy (copy=False): NumPy \
                     has no bfloat16, so only a float32 copy is possible; use copy=None, or \
                     from_dlpack to share bfloat16 memory with a library that has it",
                ))
            }
            None => tensor_to_numpy(py, &self.inner)?,
        };
        match dtype {
            Some(d) if !d.is_none() => {
                let kw = pyo3::types::PyDict::new(py);
                kw.set_item("copy", false)?; // `a` is already a copy when one was asked for
                a.call_method("astype", (d,), Some(&kw))
            }
            _ => Ok(a),
        }
    }

    /// Nested Python lists (a Python scalar for 0-d tensors).
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_to_numpy(py, &self.inner)?.call_method0("tolist")
    }

    /// The single element as a Python scalar.
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_item(py, &self.inner)
    }

    /// `complex(t)`: the single element as a Python complex (one-element tensors only).
    fn __complex__(&self, py: Python<'_>) -> PyResult<num_complex::Complex64> {
        tensor_item(py, &self.inner)?.extract()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        crate::python::tensor::repr::tensor_repr(py, &self.inner)
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        crate::python::tensor::repr::tensor_repr(py, &self.inner)
    }
}
