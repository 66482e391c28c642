//! Test hooks (not public API): deliberately failing internals, so the test suite can
//! show that a Rust panic anywhere becomes a Python exception and the process survives;
//! and a probe of the objects made without the eager `__dict__` (`lazy_dict.rs`).

use pyo3::prelude::*;

/// Panics on purpose: `where_="here"` in the binding itself, `"worker"` inside a rayon
/// worker thread, `"detached"` inside a section that released the GIL. The panic reaches
/// Python as `pyo3_runtime.PanicException` (a BaseException) carrying `message`.
#[pyfunction]
#[pyo3(signature = (message, where_="here"))]
pub fn _debug_panic(py: Python<'_>, message: String, where_: &str) -> PyResult<()> {
    match where_ {
        "here" => panic!("{message}"),
        "worker" => {
            let m = message.clone();
            rayon::join(|| (), move || panic!("{m}"));
            Ok(())
        }
        "detached" => py.detach(move || panic!("{message}")),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "_debug_panic: where_ must be 'here', 'worker' or 'detached', got {other:?}"
        ))),
    }
}

/// `{"Tensor": bool | None, "FunctionCtx": bool | None}`: whether each class's objects are
/// made without the eager instance dict (None: no object made yet). For tests: the fast
/// path must not switch itself off unnoticed.
#[pyfunction]
pub fn _lazy_dict_active(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item(
        "Tensor",
        crate::python::tensor::class::TENSOR_ALLOC.active(py),
    )?;
    d.set_item(
        "FunctionCtx",
        crate::python::pylayer::apply::CTX_ALLOC.active(py),
    )?;
    Ok(d)
}
