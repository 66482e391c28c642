//! The `Tensor` methods that convert from and to Python values: the constructor, NumPy
//! arrays (`numpy`, `__array__`), lists, scalars (`item`, `complex(t)`) and `repr`.

use super::class::PyTensor;
use crate::python::dtype::parse_opt_dtype;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{tensor_item, tensor_to_numpy, to_tensor};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

#[pymethods]
impl PyTensor {
    #[new]
    #[pyo3(signature = (*args, dtype=None))]
    fn py_new(args: &Bound<'_, PyTuple>, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let dtype = parse_opt_dtype(dtype)?;
        let float = dtype.unwrap_or(crate::dtype::default_float());
        // PyTorch's legacy constructor: `Tensor(2, 3)` / `Tensor(Size([2, 3]))` is a tensor
        // of that shape (zeros here, never stale memory), `Tensor(data)` one of the data
        if let Some(shape) = legacy_sizes(args)? {
            return Ok(PyTensor::new(crate::tensor::zeros(&shape, float).py()?));
        }
        let t = match args.len() {
            0 => crate::tensor::zeros(&[0], float).py()?,
            1 => {
                let arg = args.get_item(0)?;
                if let Ok(src) = arg.cast::<PyTensor>() {
                    let src = src.borrow();
                    let src = src.inner();
                    if dtype.is_none() || dtype == Some(src.dtype()) {
                        // PyTorch's `Tensor(t)`, and so `nn.Parameter(t)`: a new tensor on
                        // `t`'s memory with its dtype and layout, without its history
                        return Ok(PyTensor::new(src.detach()));
                    }
                }
                let t = to_tensor(&arg, dtype)?;
                // torch.Tensor(data) is float32 unless told otherwise
                if dtype.is_none() && !t.dtype().is_differentiable() {
                    t.cast_raw(crate::dtype::default_float()).py()?
                } else {
                    t
                }
            }
            n => {
                return Err(PyTypeError::new_err(format!(
                    "Tensor(): expects sizes (ints), a Size, or one sequence of data, got {n} \
                     arguments that are not all ints"
                )))
            }
        };
        Ok(PyTensor::new(t))
    }

    /// The values as a NumPy array. Paddle code (and code of no dialect) gets a copy, as
    /// Paddle's `numpy()` does. PyTorch code gets PyTorch's rules: under grad mode a tensor
    /// that requires grad is refused (PyTorch's RuntimeError) unless `force=True`, which
    /// gives a copy;
    /// otherwise an array on the tensor's memory, read-only while autograd may need the
    /// values (a saved tensor: PyTorch lets a write silently change a gradient), and a
    /// float32 copy for bfloat16, which NumPy lacks. Paddle's `numpy()` takes and ignores
    /// positional arguments (its tests call `numpy(False)`); PyTorch's takes none.
    #[pyo3(signature = (*args, force=false))]
    fn numpy<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        force: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.inner();
        if !crate::python::dialect::caller_is_torch(py)? {
            return tensor_to_numpy(py, &t);
        }
        if !args.is_empty() {
            return Err(PyTypeError::new_err(format!(
                "numpy() takes no positional arguments ({} given); use numpy(force=True)",
                args.len()
            )));
        }
        if t.requires_grad() && crate::autograd::grad_mode::is_grad_enabled() {
            if force {
                return tensor_to_numpy(py, &t);
            }
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() \
                 instead.",
            ));
        }
        match crate::python::interop::array_interface::numpy_view(py, &t)? {
            Some(view) => Ok(view),
            None => tensor_to_numpy(py, &t),
        }
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
            crate::python::interop::array_interface::numpy_view(py, &self.inner())?
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
            None => tensor_to_numpy(py, &self.inner())?,
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
        tensor_to_numpy(py, &self.inner())?.call_method0("tolist")
    }

    /// The single element as a Python scalar.
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_item(py, &self.inner())
    }

    /// `complex(t)`: the single element as a Python complex (one-element tensors only).
    fn __complex__(&self, py: Python<'_>) -> PyResult<num_complex::Complex64> {
        tensor_item(py, &self.inner())?.extract()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        crate::python::tensor::repr::tensor_repr(py, &self.inner())
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        crate::python::tensor::repr::tensor_repr(py, &self.inner())
    }

    /// `f"{loss:.4f}"`: a 0-d tensor formats as its value, as in both peers; any other
    /// tensor takes only the empty spec (its `str`), as `object.__format__` does.
    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        let py = slf.py();
        if slf.get().inner().ndim() == 0 {
            let v = tensor_item(py, &slf.get().inner())?;
            return v.call_method1("__format__", (spec,))?.extract();
        }
        if spec.is_empty() {
            return Ok(slf.str()?.to_cow()?.into_owned());
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "unsupported format string {spec:?} passed to a tensor of shape {:?}: only 0-d \
             tensors format as numbers; use t.item() or t.tolist()",
            slf.get().inner().shape()
        )))
    }
}

/// The shape when the constructor's arguments are sizes: ints (not bools), or one `Size`.
fn legacy_sizes(args: &Bound<'_, PyTuple>) -> PyResult<Option<Vec<usize>>> {
    let items: Vec<Bound<'_, PyAny>> =
        if args.len() == 1 && args.get_item(0)?.get_type().name()?.to_cow()? == "Size" {
            args.get_item(0)?.try_iter()?.collect::<PyResult<_>>()?
        } else if !args.is_empty()
            && args
                .iter()
                .all(|a| a.is_exact_instance_of::<pyo3::types::PyInt>())
        {
            args.iter().collect()
        } else {
            return Ok(None);
        };
    items
        .iter()
        .map(|a| {
            let n: i64 = a.extract()?;
            usize::try_from(n).map_err(|_| {
                PyValueError::new_err(format!("Tensor(): negative dimension {n} in the sizes"))
            })
        })
        .collect::<PyResult<Vec<usize>>>()
        .map(Some)
}
