//! `ferrograd.float32` and friends: dtype objects that compare equal to their names.

use crate::dtype::{DType, ALL_DTYPES};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};

/// One Python object per dtype, made once: `t.dtype is ferrograd.float32` holds, as
/// `x.dtype is torch.float32` does in PyTorch.
static DTYPE_OBJECTS: PyOnceLock<Vec<Py<PyDType>>> = PyOnceLock::new();

/// The module's own object for `d` (the same object every time).
pub fn dtype_object(py: Python<'_>, d: DType) -> PyResult<Py<PyDType>> {
    let all = DTYPE_OBJECTS.get_or_try_init(py, || {
        ALL_DTYPES
            .iter()
            .map(|&d| Py::new(py, PyDType { d }))
            .collect::<PyResult<Vec<_>>>()
    })?;
    let i = ALL_DTYPES.iter().position(|&x| x == d).ok_or_else(|| {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "internal error: dtype {d} is missing from ALL_DTYPES; please report it"
        ))
    })?;
    Ok(all[i].clone_ref(py))
}

/// A tensor element type as a Python object.
#[pyclass(name = "dtype", module = "ferrograd", frozen)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub(crate) d: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("ferrograd.{}", self.d.name())
    }
    fn __str__(&self) -> String {
        self.__repr__()
    }
    /// Canonical name, e.g. `"float32"`.
    #[getter]
    fn name(&self) -> &'static str {
        self.d.name()
    }
    /// Bytes per element.
    #[getter]
    fn itemsize(&self) -> usize {
        self.d.size()
    }
    /// True for float16, bfloat16, float32, float64.
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.d.is_float()
    }
    /// True for complex64 and complex128.
    #[getter]
    fn is_complex(&self) -> bool {
        self.d.is_complex()
    }
    /// Equal to the same dtype, its name (`"float32"`), or a NumPy dtype of that name.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        parse_dtype(other).map(|d| d == self.d).unwrap_or(false)
    }
    fn __ne__(&self, other: &Bound<'_, PyAny>) -> bool {
        !self.__eq__(other)
    }
    /// Hash of the name, so that `dtype == name` implies equal hashes.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyString::new(py, self.d.name()).hash()
    }
    /// Pickle support: rebuilt by `ferrograd.dtype_from_name(name)`, so unpickling gives
    /// back the module's own dtype object.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (&'static str,))> {
        // imported lazily: the package imports this module, not the other way round
        let rebuild = py.import("ferrograd")?.getattr("dtype_from_name")?;
        Ok((rebuild, (self.d.name(),)))
    }
}

/// Reads a dtype argument: a `ferrograd.dtype`, a name, a NumPy dtype or scalar type,
/// or one of Python's `bool`, `int`, `float`, `complex`.
pub fn parse_dtype(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(d) = obj.cast::<PyDType>() {
        return Ok(d.get().d);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let name = s.to_cow()?;
        if let Some(d) = numpy_name_in_paddle_code(obj.py(), &name)? {
            return Ok(d);
        }
        return DType::from_name(&name).map_err(super::errors::to_pyerr);
    }
    if let Ok(t) = obj.cast::<PyType>() {
        let name = t.name()?.to_string();
        match name.as_str() {
            "bool" => return Ok(DType::Bool),
            "int" => return Ok(DType::I64),
            "float" => return Ok(DType::F64),
            "complex" => return Ok(DType::C128),
            // NumPy scalar types (numpy.float32, ...)
            other => {
                if let Ok(d) = DType::from_name(other) {
                    return Ok(d);
                }
            }
        }
    }
    // NumPy dtypes and scalar types, torch/paddle dtype objects: go by their name
    let name = if let Ok(n) = obj.getattr(pyo3::intern!(obj.py(), "name")) {
        n.str()?.to_string()
    } else {
        obj.str()?.to_string()
    };
    DType::from_name(&name).map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "cannot interpret {} as a ferrograd dtype; use one of bool, uint8, int8, int16, int32, \
             int64, float16, bfloat16, float32, float64, complex64, complex128",
            obj.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

/// NumPy's meaning of the dtype names NumPy reads otherwise than PyTorch (`'float'`
/// float64, `'int'` int64, `'byte'` int8), for Paddle code: Paddle reads a dtype string
/// through `np.dtype` (`convert_np_dtype_to_dtype_` in python/paddle/base/framework.py and
/// python/paddle/pir/core.py). `None` for every other name, and outside Paddle code,
/// where the names keep PyTorch's meaning (`torch.float` is float32). Only these three
/// names ask the dialect, through ferrograd's own frames (`astype` / `to_tensor` are
/// Python wrappers; ferrograd itself never spells a dtype this way).
fn numpy_name_in_paddle_code(py: Python<'_>, name: &str) -> PyResult<Option<DType>> {
    let d = match name {
        "float" => DType::F64,
        "int" => DType::I64,
        "byte" => DType::I8,
        _ => return Ok(None),
    };
    // depth 1: the Python frame that called into Rust (a Rust function has no frame)
    let dialect = py
        .import("ferrograd._dialect")?
        .getattr("caller_dialect")?
        .call1((1, true))?;
    let paddle = dialect.extract::<Option<String>>()?.as_deref() == Some("paddle");
    Ok(paddle.then_some(d))
}

/// Optional dtype argument.
pub fn parse_opt_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => parse_dtype(o).map(Some),
    }
}

/// Registers the dtype class and one object per dtype on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDType>()?;
    for d in ALL_DTYPES {
        m.add(d.name(), dtype_object(m.py(), d)?)?;
    }
    Ok(())
}
