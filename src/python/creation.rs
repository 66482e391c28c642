//! Module-level factories: `tensor`, `to_tensor`, `from_numpy`, `zeros`, `ones`, `full`,
//! `arange`, `linspace`, `eye`, the random family and `seed` (`full` and `full_like`:
//! [`super::creation_full`]).

use crate::dtype::{DType, ScalarKind};
use crate::python::args::{check_device, is_dtype_like, parse_dims};
use crate::python::dtype::parse_opt_dtype;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{numpy_to_tensor, scalar_kind};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::{self as core, Tensor};
use numpy::PyUntypedArray;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

pub(super) type PyT = PyResult<Py<PyTensor>>;

/// Applies the grad flag given as `requires_grad` (torch) or `stop_gradient` (Paddle).
/// Explicit flags are honoured also under `no_grad`, as torch documents for factories.
/// Only floating and complex tensors may require grad (a RuntimeError otherwise).
pub(super) fn finish(
    py: Python<'_>,
    op: &str,
    t: Tensor,
    requires_grad: bool,
    stop_gradient: Option<bool>,
) -> PyT {
    if requires_grad && stop_gradient == Some(true) {
        return Err(PyValueError::new_err(format!(
            "{op}: requires_grad=True and stop_gradient=True contradict each other; pass one"
        )));
    }
    let rg = match stop_gradient {
        Some(sg) => !sg,
        None => requires_grad,
    };
    if rg {
        t.set_requires_grad(true).py()?;
    }
    wrap(py, t)
}

/// `out` in the layout `memory_format` asks for (PyTorch's `memory_format=` of `empty` and
/// the `*_like` factories; for a like factory `None` is `preserve_format`: the layout of
/// `like`), by `ferrograd._memory_format_api._factory_layout`. Only called when a format
/// is given or `like` is not contiguous, so the common call costs nothing.
fn with_layout(
    py: Python<'_>,
    op: &str,
    out: Py<PyTensor>,
    like: Option<&Bound<'_, PyAny>>,
    memory_format: &Bound<'_, PyAny>,
) -> PyT {
    let f = py
        .import(pyo3::intern!(py, "ferrograd._memory_format_api"))?
        .getattr(pyo3::intern!(py, "_factory_layout"))?;
    let like = like.map_or_else(|| py.None().into_bound(py), Clone::clone);
    Ok(f.call1((op, out, like, memory_format))?
        .cast_into::<PyTensor>()?
        .unbind())
}

/// Splits a factory's positional arguments into the shape and Paddle's positional
/// `dtype` / `name` (`zeros([2, 3], "int64")`): when the first argument is a list or
/// tuple, the shape is that argument alone and up to two more may follow.
fn shape_and_extras<'py>(
    args: &Bound<'py, PyTuple>,
    dtype: Option<&Bound<'py, PyAny>>,
    op: &str,
) -> PyResult<(Bound<'py, PyTuple>, Option<Bound<'py, PyAny>>)> {
    let py = args.py();
    if args.len() < 2 {
        return Ok((args.clone(), dtype.cloned()));
    }
    let first = args.get_item(0)?;
    // a shape is a list, a tuple or (Paddle) a 1-D tensor; a 0-d tensor is one dim, and
    // the whole shape when a dtype follows it (`randn(tensor(3), "float64")`)
    let shape_tensor = first
        .cast::<PyTensor>()
        .is_ok_and(|t| match t.borrow().inner().ndim() {
            1 => true,
            0 => args.get_item(1).is_ok_and(|d| is_dtype_like(&d)),
            _ => false,
        });
    if !(first.is_instance_of::<PyList>() || first.is_instance_of::<PyTuple>() || shape_tensor) {
        return Ok((args.clone(), dtype.cloned()));
    }
    if args.len() > 3 {
        return Err(PyTypeError::new_err(format!(
            "{op}() takes a shape, then at most dtype and name positionally ({} given)",
            args.len()
        )));
    }
    let pos_dtype = args.get_item(1)?;
    if dtype.is_some_and(|d| !d.is_none()) && !pos_dtype.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{op}() got multiple values for argument 'dtype'"
        )));
    }
    let d = if pos_dtype.is_none() {
        dtype.cloned()
    } else {
        Some(pos_dtype)
    };
    Ok((PyTuple::new(py, [first])?, d))
}

/// The shape arguments of a factory given positionally (`zeros(2, 3)`, `zeros([2, 3])`)
/// or by keyword: Paddle's `shape=` or PyTorch's `size=` (one of the three ways only).
fn shape_from_keywords<'py>(
    dims: &Bound<'py, PyTuple>,
    shape: Option<&Bound<'py, PyAny>>,
    size: Option<&Bound<'py, PyAny>>,
    op: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let keyword = match (shape, size) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(format!(
                "{op}() got both shape= and size=; pass the shape once"
            )))
        }
        (Some(s), None) | (None, Some(s)) => s,
        (None, None) => return Ok(dims.clone()),
    };
    if !dims.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "{op}() got the shape both positionally {} and by keyword ({})",
            dims.repr()?,
            keyword.repr()?
        )));
    }
    PyTuple::new(dims.py(), [keyword])
}

/// Builds a tensor from data (torch dialect), copying.
#[pyfunction]
#[pyo3(name = "tensor", signature = (data, dtype=None, device=None, requires_grad=false, pin_memory=false, *, stop_gradient=None, name=None))]
pub fn tensor_fn(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
    stop_gradient: Option<bool>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = (pin_memory, name);
    check_device(device, "tensor")?;
    let t = crate::python::interop::convert::to_tensor(data, parse_opt_dtype(dtype)?)?;
    finish(py, "tensor", t, requires_grad, stop_gradient)
}

/// Builds a tensor from data (Paddle dialect), copying; `stop_gradient=True` by default.
#[pyfunction]
#[pyo3(
    signature = (data, dtype=None, place=None, stop_gradient=None, *, requires_grad=false, device=None, name=None),
    text_signature = "(data, dtype=None, place=None, stop_gradient=True, *, requires_grad=False, device=None, name=None)"
)]
pub fn to_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    place: Option<&Bound<'_, PyAny>>,
    stop_gradient: Option<bool>,
    requires_grad: bool,
    device: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    check_device(place, "to_tensor")?;
    check_device(device, "to_tensor")?;
    let t = crate::python::interop::convert::to_tensor(data, parse_opt_dtype(dtype)?)?;
    finish(py, "to_tensor", t, requires_grad, stop_gradient)
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
        #[pyo3(signature = (*dims, dtype=None, requires_grad=false, stop_gradient=None, name=None, device=None, shape=None, size=None, memory_format=None))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            py: Python<'_>,
            dims: &Bound<'_, PyTuple>,
            dtype: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            stop_gradient: Option<bool>,
            name: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            shape: Option<&Bound<'_, PyAny>>,
            size: Option<&Bound<'_, PyAny>>,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> PyT {
            let _ = name;
            let op = stringify!($name);
            check_device(device, op)?;
            let shape = shape_from_keywords(dims, shape, size, op)?;
            let (shape, dtype) = shape_and_extras(&shape, dtype, op)?;
            let dims = parse_dims(&shape, op)?;
            let d = parse_opt_dtype(dtype.as_ref())?.unwrap_or(crate::dtype::default_float());
            let out = finish(py, op, core::full(&dims, $value, d).py()?, requires_grad, stop_gradient)?;
            match memory_format {
                Some(f) if !f.is_none() => with_layout(py, op, out, None, f),
                _ => Ok(out),
            }
        }
    };
}

macro_rules! like_factory {
    ($name:ident, $value:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (x, dtype=None, name=None, *, requires_grad=false, stop_gradient=None, device=None, memory_format=None))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            py: Python<'_>,
            x: &Bound<'_, PyTensor>,
            dtype: Option<&Bound<'_, PyAny>>,
            name: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            stop_gradient: Option<bool>,
            device: Option<&Bound<'_, PyAny>>,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> PyT {
            let _ = name;
            let op = stringify!($name);
            check_device(device, op)?;
            let (out, contiguous) = {
                let t = &x.get().inner();
                let d = parse_opt_dtype(dtype)?.unwrap_or(t.dtype());
                let out = core::full(t.shape(), $value, d).py()?;
                (out, t.is_contiguous())
            };
            let out = finish(py, op, out, requires_grad, stop_gradient)?;
            // PyTorch's default `preserve_format`: a non-contiguous `x` lends its layout
            match memory_format {
                Some(f) if !f.is_none() => with_layout(py, op, out, Some(x.as_any()), f),
                _ if !contiguous => with_layout(py, op, out, Some(x.as_any()), &py.None().into_bound(py)),
                _ => Ok(out),
            }
        }
    };
}

/// `arange(end)`, `arange(start, end, step)`; int64 for integer arguments, else float32.
#[pyfunction]
#[pyo3(signature = (start=None, end=None, step=None, dtype=None, name=None, *, requires_grad=false, stop_gradient=None, device=None))]
pub fn arange(
    py: Python<'_>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    check_device(device, "arange")?;
    let num = |o: Option<&Bound<'_, PyAny>>, default: f64| -> PyResult<(f64, bool)> {
        match o {
            None => Ok((default, true)),
            Some(v) if v.is_none() => Ok((default, true)),
            Some(v) => {
                if let Ok(t) = v.cast::<PyTensor>() {
                    let t = &t.get().inner();
                    let int = t.dtype().is_int() || t.dtype() == DType::Bool;
                    return Ok((t.item_f64().py()?, int));
                }
                // a NumPy integer (np.int64(10)) is an integer too: it has __index__;
                // so is a bool, as in PyTorch (`arange(False, True)` is int64)
                let int = match scalar_kind(v) {
                    Some(k) => k == ScalarKind::Int || k == ScalarKind::Bool,
                    None => v.call_method0("__index__").is_ok(),
                };
                Ok((v.extract::<f64>()?, int))
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
        crate::dtype::default_float()
    });
    if d == DType::I64 && ai && bi && si {
        // exact in integers: f64 steps lose integers beyond 2**53
        let exact = |o: Option<&Bound<'_, PyAny>>, default: i64| -> PyResult<i64> {
            match o {
                Some(v) if !v.is_none() => match v.cast::<PyTensor>() {
                    Ok(t) => Ok(t
                        .get()
                        .inner()
                        .to_dtype(DType::I64)
                        .py()?
                        .to_vec::<i64>()
                        .py()?[0]),
                    Err(_) => v.extract::<i64>(),
                },
                _ => Ok(default),
            }
        };
        let (a, s) = (exact(start, 0)?, exact(step, 1)?);
        let (lo, hi) = match end {
            Some(e) if !e.is_none() => (a, exact(Some(e), 0)?),
            _ => (0, a),
        };
        return finish(
            py,
            "arange",
            int_arange(lo, hi, s)?,
            requires_grad,
            stop_gradient,
        );
    }
    finish(
        py,
        "arange",
        core::arange(lo, hi, s, d).py()?,
        requires_grad,
        stop_gradient,
    )
}

/// `arange(lo, hi, step)` of integers, computed in integers (so exact beyond 2**53), int64.
fn int_arange(lo: i64, hi: i64, step: i64) -> PyResult<Tensor> {
    if step == 0 {
        return Err(PyValueError::new_err(format!(
            "arange: step must be finite and non-zero (got start={lo}, end={hi}, step={step})"
        )));
    }
    let (lo, hi, st) = (lo as i128, hi as i128, step as i128);
    if (hi - lo) * st.signum() < 0 {
        return Err(PyValueError::new_err(format!(
            "arange: upper bound and lower bound inconsistent with step sign (start={lo}, \
             end={hi}, step={step}); use a {} step",
            if step > 0 { "negative" } else { "positive" }
        )));
    }
    let span = (hi - lo).abs();
    let n = (span + st.abs() - 1) / st.abs();
    let n = usize::try_from(n)
        .map_err(|_| PyValueError::new_err(format!("arange: {n} elements do not fit in memory")))?;
    let mut v = crate::storage::try_vec_with_capacity::<i64>(n).py()?;
    // every value lies between lo and hi, so it fits in i64
    v.extend((0..n).map(|i| (lo + i as i128 * st) as i64));
    Tensor::from_vec(v, &[n]).py()
}

/// `num` evenly spaced values from `start` to `stop` inclusive.
#[pyfunction]
#[pyo3(signature = (start, stop, num, dtype=None, name=None, *, requires_grad=false, stop_gradient=None, device=None))]
pub fn linspace(
    py: Python<'_>,
    start: f64,
    stop: f64,
    num: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    check_device(device, "linspace")?;
    let n = usize::try_from(num).map_err(|_| {
        PyValueError::new_err(format!("linspace: num must be non-negative, got {num}"))
    })?;
    let d = parse_opt_dtype(dtype)?.unwrap_or(crate::dtype::default_float());
    finish(
        py,
        "linspace",
        core::linspace(start, stop, n, d).py()?,
        requires_grad,
        stop_gradient,
    )
}

/// Identity matrix `n x m`.
#[pyfunction]
#[pyo3(signature = (num_rows, num_columns=None, dtype=None, name=None, *, requires_grad=false, stop_gradient=None, device=None))]
pub fn eye(
    py: Python<'_>,
    num_rows: i64,
    num_columns: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyT {
    let _ = name;
    check_device(device, "eye")?;
    let m = num_columns.unwrap_or(num_rows);
    if num_rows < 0 || m < 0 {
        return Err(PyValueError::new_err(format!(
            "eye: sizes must be non-negative, got {num_rows} x {m}"
        )));
    }
    let d = parse_opt_dtype(dtype)?.unwrap_or(crate::dtype::default_float());
    finish(
        py,
        "eye",
        core::eye(num_rows as usize, m as usize, d).py()?,
        requires_grad,
        stop_gradient,
    )
}

macro_rules! random_factory {
    ($name:ident, $f:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (*dims, dtype=None, requires_grad=false, stop_gradient=None, name=None, device=None, generator=None, shape=None, size=None))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            py: Python<'_>,
            dims: &Bound<'_, PyTuple>,
            dtype: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            stop_gradient: Option<bool>,
            name: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            generator: Option<PyRef<'_, crate::python::random::PyGenerator>>,
            shape: Option<&Bound<'_, PyAny>>,
            size: Option<&Bound<'_, PyAny>>,
        ) -> PyT {
            let _ = name;
            let op = stringify!($name);
            check_device(device, op)?;
            let shape = shape_from_keywords(dims, shape, size, op)?;
            let (shape, dtype) = shape_and_extras(&shape, dtype, op)?;
            let dims = parse_dims(&shape, op)?;
            let d = parse_opt_dtype(dtype.as_ref())?.unwrap_or(crate::dtype::default_float());
            if !d.is_differentiable() {
                return Err(PyTypeError::new_err(format!(
                    "{op}: dtype must be floating, got {d}"
                )));
            }
            let g = generator.as_ref().map(|g| g.get());
            finish(py, op, ($f)(dims.as_slice(), d, g).py()?, requires_grad, stop_gradient)
        }
    };
}

/// Declares the factories that share a signature family, one line each:
/// `family name(value) "doc";`. Every line expands into the Python function (through its
/// family's macro above), its registration in `_core` ([`register_factories`]) and its row
/// of [`_creation_op_table`], from which `scripts/gen_op_bindings.py` writes the stubs and
/// the package's names — so adding a factory of a known family is this one line.
macro_rules! creation_factories {
    ($($family:ident $name:ident ($value:expr) $doc:literal;)*) => {
        $($family!($name, $value, $doc);)*

        /// Adds every table-declared factory to the extension module.
        pub fn register_factories(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
            use pyo3::types::PyModuleMethods;
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }

        /// `(name, family macro, doc)` of each table-declared factory, in declaration order.
        const FACTORIES: &[(&str, &str, &str)] = &[$((stringify!($name), stringify!($family), $doc),)*];
    };
}

creation_factories! {
    filled_factory zeros(0.0) "Zeros of the given shape (float32 unless `dtype`).";
    filled_factory ones(1.0) "Ones of the given shape (float32 unless `dtype`).";
    filled_factory empty(0.0) "An uninitialised tensor (ferrograd zero-fills it).";
    like_factory zeros_like(0.0) "Zeros shaped like `x`.";
    like_factory ones_like(1.0) "Ones shaped like `x`.";
    like_factory empty_like(0.0) "An (zero-filled) tensor shaped like `x`.";
    random_factory rand(|s, d, g| core::random::uniform(s, 0.0, 1.0, d, g)) "Uniform samples in [0, 1) (from `generator`, or the default generator).";
    random_factory randn(|s, d, g| core::random::normal(s, 0.0, 1.0, d, g)) "Standard normal samples (from `generator`, or the default generator).";
}

/// The table-declared factories as `(name, family, doc)` tuples, the family being the
/// macro that shapes the signature (`filled_factory`: `zeros(*shape, ...)`,
/// `like_factory`: `zeros_like(x, ...)`, `random_factory`: `rand(*shape, ..., generator=)`);
/// `scripts/gen_op_bindings.py` writes the stubs and the package's names from it.
#[pyfunction]
pub fn _creation_op_table() -> Vec<(&'static str, &'static str, &'static str)> {
    FACTORIES.to_vec()
}

/// Integers uniform in `[low, high)`; `randint(high, shape)` or `randint(low, high, shape)`.
/// int64 unless `dtype`; `requires_grad=True` needs a floating `dtype`.
#[pyfunction]
#[pyo3(signature = (low=0, high=None, size=None, dtype=None, name=None, *, shape=None, requires_grad=false, stop_gradient=None, device=None, generator=None))]
pub fn randint(
    py: Python<'_>,
    low: i64,
    high: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    shape: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    stop_gradient: Option<bool>,
    device: Option<&Bound<'_, PyAny>>,
    generator: Option<PyRef<'_, crate::python::random::PyGenerator>>,
) -> PyT {
    let _ = name;
    check_device(device, "randint")?;
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
    finish(
        py,
        "randint",
        core::random::randint_with(lo, hi, &dims, d, generator.as_ref().map(|g| g.get())).py()?,
        requires_grad,
        stop_gradient,
    )
}

/// Seeds the random generator (`seed` in Paddle, `manual_seed` in torch).
#[pyfunction]
pub fn seed(seed: i64) {
    core::manual_seed(seed as u64);
}

/// The random generator's state as four 64-bit words (`get_rng_state` wraps it).
#[pyfunction]
pub fn _rng_state() -> (u64, u64, u64, u64) {
    let [a, b, c, d] = core::rng_state();
    (a, b, c, d)
}

/// Restores a state from `_rng_state` (`set_rng_state` wraps it).
#[pyfunction]
pub fn _set_rng_state(state: (u64, u64, u64, u64)) -> PyResult<()> {
    core::set_rng_state([state.0, state.1, state.2, state.3]).py()
}
