//! The error bridge: core errors become Python exceptions of the matching class; an
//! exception raised by a Python callback crosses the core as itself and comes out
//! unchanged, traceback intact.

use crate::error::{Error, ErrorKind};
use pyo3::exceptions::{
    PyIndexError, PyMemoryError, PyNotImplementedError, PyRecursionError, PyRuntimeError,
    PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::sync::Arc;

/// Converts a core error into the Python exception to raise.
pub fn to_pyerr(e: Error) -> PyErr {
    if crate::interrupt::is_interrupted(&e) {
        return crate::python::signals::keyboard_interrupt();
    }
    if let Some(payload) = &e.external {
        if let Some(err) = payload.downcast_ref::<PyErr>() {
            return Python::attach(|py| err.clone_ref(py));
        }
    }
    match e.kind {
        ErrorKind::Value => PyValueError::new_err(e.message),
        ErrorKind::Type => PyTypeError::new_err(e.message),
        ErrorKind::Index => PyIndexError::new_err(e.message),
        ErrorKind::Runtime | ErrorKind::External => PyRuntimeError::new_err(e.message),
        ErrorKind::Memory => PyMemoryError::new_err(e.message),
        ErrorKind::Recursion => PyRecursionError::new_err(e.message),
        ErrorKind::NotImplemented => PyNotImplementedError::new_err(e.message),
        ErrorKind::Usage => usage_error(e.message),
    }
}

/// `ferrograd.AutogradUsageError(message)`: raised where Paddle raises `ValueError` and
/// PyTorch `RuntimeError` for the same misuse; it subclasses both, so code written for
/// either peer catches it. (Falls back to `RuntimeError` if the class cannot be loaded.)
pub fn usage_error(message: String) -> PyErr {
    Python::attach(|py| {
        let cls = py
            .import("ferrograd._errors")
            .and_then(|m| m.getattr("AutogradUsageError"))
            .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
        match cls {
            Ok(cls) => PyErr::from_type(cls, message),
            Err(_) => PyRuntimeError::new_err(message),
        }
    })
}

/// Wraps an exception raised by user Python code so it can travel through the core.
pub fn from_pyerr(err: PyErr) -> Error {
    let msg = Python::attach(|py| err.value(py).to_string());
    Error::external(msg, Arc::new(err))
}

/// `Result<T, Error>` → `PyResult<T>`.
pub trait IntoPy<T> {
    /// Maps the error side with [`to_pyerr`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(to_pyerr)
    }
}
