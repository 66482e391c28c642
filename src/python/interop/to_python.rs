//! Tensors to Python values: a NumPy array copy (`tensor_to_numpy`) and the single
//! element as a Python scalar (`tensor_item`); re-exported by `convert.rs`.

use crate::dtype::{DType, Element};
use crate::error::Error;
use crate::python::errors::IntoPy;
use crate::tensor::Tensor;
use half::f16;
use num_complex::{Complex32, Complex64};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat};

/// A new NumPy array holding a copy of the tensor's values (bfloat16 becomes float32,
/// which NumPy lacks).
pub fn tensor_to_numpy<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    let t = if t.dtype() == DType::BF16 {
        t.cast_raw(DType::F32).py()?
    } else {
        t.clone()
    };
    let shape: Vec<usize> = t.shape().to_vec();
    macro_rules! out {
        ($T:ty) => {{
            let v = t.to_vec::<$T>().py()?;
            Ok(PyArray1::from_vec(py, v).reshape(shape)?.into_any())
        }};
    }
    match t.dtype() {
        DType::Bool => out!(bool),
        DType::U8 => out!(u8),
        DType::I8 => out!(i8),
        DType::I16 => out!(i16),
        DType::I32 => out!(i32),
        DType::I64 => out!(i64),
        DType::F16 => out!(f16),
        DType::F32 => out!(f32),
        DType::F64 => out!(f64),
        DType::C64 => out!(Complex32),
        DType::C128 => out!(Complex64),
        DType::BF16 => Err(Error::runtime("unreachable: bf16 was converted")).py(),
    }
}

/// The single element as a Python scalar of the matching type.
pub fn tensor_item<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    if t.numel() != 1 {
        return Err(PyValueError::new_err(format!(
            "only a tensor with exactly one element can be converted to a Python scalar, but \
             this one has shape {:?} ({} elements)",
            t.shape(),
            t.numel()
        )));
    }
    let off = t.layout().offset;
    Ok(match t.dtype() {
        DType::Bool => PyBool::new(py, t.storage().read::<bool>()[off])
            .to_owned()
            .into_any(),
        d @ (DType::U8 | DType::I8 | DType::I16 | DType::I32) => {
            crate::with_dtype!(d, T, { t.storage().read::<T>()[off].to_i64() })
                .into_pyobject(py)?
                .into_any()
        }
        DType::I64 => t.storage().read::<i64>()[off].into_pyobject(py)?.into_any(),
        DType::C64 | DType::C128 => {
            let c = crate::with_dtype!(t.dtype(), T, { t.storage().read::<T>()[off].to_c128() });
            PyComplex::from_doubles(py, c.re, c.im).into_any()
        }
        _ => PyFloat::new(py, t.item_f64().py()?).into_any(),
    })
}
