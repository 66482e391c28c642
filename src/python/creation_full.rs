//! `full` and `full_like`: filled factories whose value decides the dtype, with the
//! checks that an integer dtype can hold the value.

use super::creation::{finish, PyT};
use crate::dtype::{DType, ScalarKind};
use crate::python::args::{check_device, parse_dims};
use crate::python::dtype::parse_opt_dtype;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{scalar_kind, tensor_item};
use crate::python::tensor::class::PyTensor;
use crate::tensor as core;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A tensor of `shape` filled with `fill_value` (dtype inferred from the value; in Paddle
/// code an int fill without `dtype` gives the default float dtype, as `paddle.full` does).
/// PyTorch names the shape `size=` (`torch.full(size=(N,), fill_value=T)`).
#[pyfunction]
#[pyo3(signature = (shape=None, fill_value=None, dtype=None, name=None, *, size=None, requires_grad=false, stop_gradient=None, device=None))]
#[allow(clippy::too_many_arguments)] // the peers' keywords, one parameter each
pub fn full(
    py: Python<'_>,
    shape: Option<&Bound<'_, PyAny>>,
    fill_value: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    let shape = match (shape, size) {
        (Some(s), None) | (None, Some(s)) => s,
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "full(): pass the shape once, as shape (Paddle) or size= (PyTorch)",
            ))
        }
        (None, None) => {
            return Err(PyTypeError::new_err(
                "full() missing required argument 'size' (PyTorch) / 'shape' (Paddle)",
            ))
        }
    };
    let Some(fill_value) = fill_value else {
        return Err(PyTypeError::new_err(
            "full() missing required argument 'fill_value'",
        ));
    };
    check_device(device, "full")?;
    let dims = parse_dims(&PyTuple::new(py, [shape])?, "full")?;
    let mut dtype = parse_opt_dtype(dtype)?;
    // Paddle's `full(shape, 3)` is float32, PyTorch's int64: only this rare spelling asks
    // the caller's dialect (docs/dialects.md)
    if dtype.is_none()
        && scalar_kind(fill_value) == Some(ScalarKind::Int)
        && crate::python::dialect::caller_is_paddle(py)?
    {
        dtype = Some(crate::dtype::default_float());
    }
    let (value, d) = fill_value_of(fill_value, dtype)?;
    check_fill_fits(value, d)?;
    finish(
        py,
        "full",
        core::full_complex(&dims, value, d).py()?,
        requires_grad,
        stop_gradient,
    )
}

/// Reads a fill value (a number or a one-element tensor) and the dtype it implies.
fn fill_value_of(
    v: &Bound<'_, PyAny>,
    dtype: Option<DType>,
) -> PyResult<(num_complex::Complex64, DType)> {
    if let Ok(t) = v.cast::<PyTensor>() {
        let inner = &t.get().inner();
        let value = tensor_item(v.py(), inner)?.extract::<num_complex::Complex64>()?;
        return Ok((value, dtype.unwrap_or(inner.dtype())));
    }
    let kind = scalar_kind(v).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "fill_value must be a number, got {}",
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let d = dtype.unwrap_or(match kind {
        ScalarKind::Bool => DType::Bool,
        ScalarKind::Int => DType::I64,
        ScalarKind::Float => crate::dtype::default_float(),
        ScalarKind::Complex => crate::dtype::default_complex(),
    });
    let value = match crate::python::tensor::math::plain_number(v) {
        Some(c) => c,
        None => v.extract::<num_complex::Complex64>()?,
    };
    if kind == ScalarKind::Int {
        if let Some((lo, hi)) = crate::python::interop::convert::int_bounds(d) {
            if value.re < lo as f64 || value.re > hi as f64 {
                return Err(crate::python::interop::convert::out_of_bounds(
                    &v.str()?.to_string(),
                    d,
                ));
            }
        }
    }
    Ok((value, d))
}

/// Refuses a fill value that an integer `dtype` cannot hold once truncated (NaN, an
/// infinity, `3e9` for int32), as PyTorch does ("value cannot be converted to type int32
/// without overflow"), instead of a wrapped or saturated number.
fn check_fill_fits(value: num_complex::Complex64, d: DType) -> PyResult<()> {
    if value.im != 0.0 && !d.is_complex() {
        // PyTorch's refusal (dropping the imaginary part would be silent)
        return Err(PyValueError::new_err(format!(
            "value {value} cannot be converted to type {d} without overflow: a complex fill \
             value needs a complex dtype"
        )));
    }
    let (lo, hi) = match (d, crate::python::interop::convert::int_bounds(d)) {
        (_, Some((lo, hi))) => (lo as f64, hi as f64),
        // i64::MAX is not a float: the bound is 2^63, exclusive
        (DType::I64, None) => (i64::MIN as f64, -(i64::MIN as f64)),
        _ => return Ok(()),
    };
    let t = value.re.trunc();
    let fits = t >= lo && (t < hi || (d != DType::I64 && t == hi));
    if fits {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "value {} cannot be converted to type {d} without overflow",
        value.re
    )))
}

/// A tensor shaped like `x` filled with `fill_value`.
#[pyfunction]
#[pyo3(signature = (x, fill_value, dtype=None, name=None, *, requires_grad=false, stop_gradient=None, device=None))]
pub fn full_like(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    check_device(device, "full_like")?;
    let x = &x.get().inner();
    let (v, _) = fill_value_of(fill_value, None)?;
    let d = parse_opt_dtype(dtype)?.unwrap_or(x.dtype());
    check_fill_fits(v, d)?;
    finish(
        py,
        "full_like",
        core::full_complex(x.shape(), v, d).py()?,
        requires_grad,
        stop_gradient,
    )
}
