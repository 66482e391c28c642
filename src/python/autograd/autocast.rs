//! `_set_autocast` / `_get_autocast`: the thread-local autocast setting of the core
//! (`crate::autograd::autocast`), set and restored by `ferrograd.amp`'s context managers.

use crate::autograd::autocast;
use crate::dtype::DType;
use crate::python::dtype::parse_dtype;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Sets this thread's autocast: `dtype` (float16 / bfloat16, or None to turn it off) and
/// the op families to run in it (bit mask: 1 matmul, 2 linear). Returns the previous
/// `(dtype name, mask)` or None.
#[pyfunction]
#[pyo3(signature = (dtype, mask=3))]
pub fn _set_autocast(
    dtype: Option<&Bound<'_, PyAny>>,
    mask: u8,
) -> PyResult<Option<(&'static str, u8)>> {
    let state = match dtype {
        None => None,
        Some(d) if d.is_none() => None,
        Some(d) => {
            let d = parse_dtype(d)?;
            if !matches!(d, DType::F16 | DType::BF16) {
                return Err(PyValueError::new_err(format!(
                    "autocast: the low-precision dtype must be float16 or bfloat16, got {}",
                    d.name()
                )));
            }
            Some((d, mask))
        }
    };
    Ok(autocast::set_autocast(state).map(|(d, m)| (d.name(), m)))
}

/// This thread's autocast setting: `(dtype name, mask)` or None.
#[pyfunction]
pub fn _get_autocast() -> Option<(&'static str, u8)> {
    autocast::autocast_state().map(|(d, m)| (d.name(), m))
}
