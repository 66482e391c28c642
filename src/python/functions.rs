//! Module-level factories: `tensor`, `to_tensor`, `from_numpy`, `zeros`, `ones`, `full`,
//! `arange`, `linspace`, `eye`, the random family and `seed`.

use super::convert::{numpy_to_tensor, scalar_kind};
use super::dtype::parse_opt_dtype;
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use super::tensor_shape::parse_dims;
use crate::dtype::{DType, ScalarKind};
use crate::tensor::{self as core, Tensor};
use numpy::PyUntypedArray;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type PyT = PyResult<Py<PyTensor>>;

/// Applies the grad flag given as `requires_grad` (torch) or `stop_gradient` (Paddle).
/// Explicit flags are honoured also under `no_grad`, as torch documents for factories.
fn finish(py: Python<'_>, t: Tensor, requires_grad: bool, stop_gradient: Option<bool>) -> PyT {
    let rg = match stop_gradient {
        Some(sg) => !sg,
        None => requires_grad,
    };
    if rg {
        t.set_requires_grad(true).py()?;
    }
    wrap(py, t)
}

/// Builds a tensor from data (torch dialect), copying.
#[pyfunction]
#[pyo3(name = "tensor", signature = (data, dtype=None, device=None, requires_grad=false, pin_memory=false))]
pub fn tensor_fn(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyT {
    let _ = (device, pin_memory);
    let t = super::convert::to_tensor(data, parse_opt_dtype(dtype)?)?;
    finish(py, t, requires_grad, None)
}

/// Builds a tensor from data (Paddle dialect), copying; `stop_gradient=True` by default.
#[pyfunction]
#[pyo3(signature = (data, dtype=None, place=None, stop_gradient=true))]
pub fn to_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    place: Option<&Bound<'_, PyAny>>,
    stop_gradient: bool,
) -> PyT {
    let _ = place;
    let t = super::convert::to_tensor(data, parse_opt_dtype(dtype)?)?;
    finish(py, t, false, Some(stop_gradient))
}

/// A tensor sharing memory with the NumPy array `a` (writes show on both sides).
#[pyfunction]
pub fn from_numpy(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyT {
    let arr = a.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "from_numpy expects a numpy.ndarray, got {}",
            a.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    wrap(py, numpy_to_tensor(arr, true)?)
}

macro_rules! filled_factory {
    ($name:ident, $value:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (*shape, dtype=None, requires_grad=false, stop_gradient=None, name=None, device=None))]
        pub fn $name(py: Python<'_>, shape: &Bound<'_, PyTuple>, dtype: Option<&Bound<'_, PyAny>>, requires_grad: bool, stop_gradient: Option<bool>, name: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>) -> PyT {
            let _ = (name, device);
            let dims = parse_dims(shape, stringify!($name))?;
            let d = parse_opt_dtype(dtype)?.unwrap_or(DType::F32);
            finish(py, core::full(&dims, $value, d).py()?, requires_grad, stop_gradient)
        }
    };
}

filled_factory!(
    zeros,
    0.0,
    "Zeros of the given shape (float32 unless `dtype`)."
);
filled_factory!(
    ones,
    1.0,
    "Ones of the given shape (float32 unless `dtype`)."
);
filled_factory!(
    empty,
    0.0,
    "An uninitialised tensor (ferrograd zero-fills it)."
);

/// A tensor of `shape` filled with `fill_value` (dtype inferred from the value).
#[pyfunction]
#[pyo3(signature = (shape, fill_value, dtype=None, requires_grad=false, stop_gradient=None, name=None))]
pub fn full(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    let dims = parse_dims(&PyTuple::new(py, [shape])?, "full")?;
    let (value, d) = fill_value_of(fill_value, parse_opt_dtype(dtype)?)?;
    finish(
        py,
        core::full_complex(&dims, value, d).py()?,
        requires_grad,
        stop_gradient,
    )
}

fn fill_value_of(
    v: &Bound<'_, PyAny>,
    dtype: Option<DType>,
) -> PyResult<(num_complex::Complex64, DType)> {
    if let Ok(t) = v.cast::<PyTensor>() {
        let t = &t.get().inner;
        return Ok((
            num_complex::Complex64::new(t.item_f64().py()?, 0.0),
            dtype.unwrap_or(t.dtype()),
        ));
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
        ScalarKind::Float => DType::F32,
        ScalarKind::Complex => DType::C64,
    });
    Ok((v.extract::<num_complex::Complex64>()?, d))
}

macro_rules! like_factory {
    ($name:ident, $value:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (x, dtype=None, requires_grad=false, stop_gradient=None, name=None))]
        pub fn $name(
            py: Python<'_>,
            x: &Bound<'_, PyTensor>,
            dtype: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            stop_gradient: Option<bool>,
            name: Option<&Bound<'_, PyAny>>,
        ) -> PyT {
            let _ = name;
            let x = &x.get().inner;
            let d = parse_opt_dtype(dtype)?.unwrap_or(x.dtype());
            finish(
                py,
                core::full(x.shape(), $value, d).py()?,
                requires_grad,
                stop_gradient,
            )
        }
    };
}

like_factory!(zeros_like, 0.0, "Zeros shaped like `x`.");
like_factory!(ones_like, 1.0, "Ones shaped like `x`.");
like_factory!(empty_like, 0.0, "An (zero-filled) tensor shaped like `x`.");

/// A tensor shaped like `x` filled with `fill_value`.
#[pyfunction]
#[pyo3(signature = (x, fill_value, dtype=None, requires_grad=false, stop_gradient=None, name=None))]
pub fn full_like(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    let x = &x.get().inner;
    let (v, _) = fill_value_of(fill_value, None)?;
    let d = parse_opt_dtype(dtype)?.unwrap_or(x.dtype());
    finish(
        py,
        core::full_complex(x.shape(), v, d).py()?,
        requires_grad,
        stop_gradient,
    )
}

/// `arange(end)`, `arange(start, end, step)`; int64 for integer arguments, else float32.
#[pyfunction]
#[pyo3(signature = (start=None, end=None, step=None, dtype=None, requires_grad=false, name=None))]
pub fn arange(
    py: Python<'_>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    let num = |o: Option<&Bound<'_, PyAny>>, default: f64| -> PyResult<(f64, bool)> {
        match o {
            None => Ok((default, true)),
            Some(v) if v.is_none() => Ok((default, true)),
            Some(v) => {
                if let Ok(t) = v.cast::<PyTensor>() {
                    let t = &t.get().inner;
                    return Ok((t.item_f64().py()?, t.dtype().is_int()));
                }
                Ok((v.extract::<f64>()?, scalar_kind(v) == Some(ScalarKind::Int)))
            }
        }
    };
    let (a, ai) = num(start, 0.0)?;
    let (b, bi) = num(end, f64::NAN)?;
    let (s, si) = num(step, 1.0)?;
    let (lo, hi) = if b.is_nan() { (0.0, a) } else { (a, b) };
    let d = parse_opt_dtype(dtype)?.unwrap_or(if ai && bi && si {
        DType::I64
    } else {
        DType::F32
    });
    finish(py, core::arange(lo, hi, s, d).py()?, requires_grad, None)
}

/// `num` evenly spaced values from `start` to `stop` inclusive.
#[pyfunction]
#[pyo3(signature = (start, stop, num, dtype=None, requires_grad=false, name=None))]
pub fn linspace(
    py: Python<'_>,
    start: f64,
    stop: f64,
    num: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    let n = usize::try_from(num).map_err(|_| {
        PyValueError::new_err(format!("linspace: num must be non-negative, got {num}"))
    })?;
    let d = parse_opt_dtype(dtype)?.unwrap_or(DType::F32);
    finish(
        py,
        core::linspace(start, stop, n, d).py()?,
        requires_grad,
        None,
    )
}

/// Identity matrix `n x m`.
#[pyfunction]
#[pyo3(signature = (num_rows, num_columns=None, dtype=None, requires_grad=false, name=None))]
pub fn eye(
    py: Python<'_>,
    num_rows: i64,
    num_columns: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    let m = num_columns.unwrap_or(num_rows);
    if num_rows < 0 || m < 0 {
        return Err(PyValueError::new_err(format!(
            "eye: sizes must be non-negative, got {num_rows} x {m}"
        )));
    }
    let d = parse_opt_dtype(dtype)?.unwrap_or(DType::F32);
    finish(
        py,
        core::eye(num_rows as usize, m as usize, d).py()?,
        requires_grad,
        None,
    )
}

macro_rules! random_factory {
    ($name:ident, $f:path, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (*shape, dtype=None, requires_grad=false, stop_gradient=None, name=None))]
        pub fn $name(py: Python<'_>, shape: &Bound<'_, PyTuple>, dtype: Option<&Bound<'_, PyAny>>, requires_grad: bool, stop_gradient: Option<bool>, name: Option<&Bound<'_, PyAny>>) -> PyT {
            let _ = name;
            let dims = parse_dims(shape, stringify!($name))?;
            let d = parse_opt_dtype(dtype)?.unwrap_or(DType::F32);
            if !d.is_differentiable() {
                return Err(PyTypeError::new_err(format!("{}: dtype must be floating, got {d}", stringify!($name))));
            }
            finish(py, $f(&dims, d).py()?, requires_grad, stop_gradient)
        }
    };
}

random_factory!(rand, core::rand, "Uniform samples in [0, 1).");
random_factory!(randn, core::randn, "Standard normal samples.");

/// Integers uniform in `[low, high)`; `randint(high, shape)` or `randint(low, high, shape)`.
#[pyfunction]
#[pyo3(signature = (low=0, high=None, size=None, dtype=None, *, shape=None, requires_grad=false))]
pub fn randint(
    py: Python<'_>,
    low: i64,
    high: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    shape: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyT {
    let _ = requires_grad;
    // torch: randint(high, size) puts the shape in `high`'s slot
    let (lo, hi, shp) = match (high, size.or(shape)) {
        (Some(h), Some(s)) if !h.is_none() => (low, h.extract::<i64>()?, Some(s.clone())),
        (Some(h), None) if h.extract::<i64>().is_err() => (0, low, Some(h.clone())),
        (Some(h), None) if !h.is_none() => (low, h.extract::<i64>()?, None),
        (_, s) => (0, low, s.cloned()),
    };
    let dims = match shp {
        Some(s) => parse_dims(&PyTuple::new(py, [s])?, "randint")?,
        None => vec![1],
    };
    let d = parse_opt_dtype(dtype)?.unwrap_or(DType::I64);
    wrap(py, core::randint(lo, hi, &dims, d).py()?)
}

/// Seeds the random generator (`seed` in Paddle, `manual_seed` in torch).
#[pyfunction]
pub fn seed(s: i64) {
    core::manual_seed(s as u64);
}
