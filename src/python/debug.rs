//! Test hooks (not public API): deliberately failing internals, so the test suite can
//! show that a Rust panic anywhere becomes a Python exception and the process survives.

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
