//! The profiler's Python face (`ferrograd.profiler` builds on it): start and stop a
//! session, the clock, and user ranges (`record_function`, `RecordEvent`). The observer
//! itself is [`crate::profiler`].

use crate::profiler::{self, Kind, Scope};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// Starts recording ops (with their input shapes if `record_shapes`); a RuntimeError
/// while a session is on.
#[pyfunction]
#[pyo3(signature = (record_shapes = false))]
fn _profiler_start(record_shapes: bool) -> PyResult<()> {
    profiler::start(record_shapes).map_err(|_| {
        PyRuntimeError::new_err(
            "a profiler is already running: stop it (leave its `with` block, or call \
             stop()) before starting another",
        )
    })
}

/// Stops recording and returns the events, as tuples `(name, thread_id, start_ns,
/// duration_ns, input_shapes or None, kind)` with `kind` one of `'op'`, `'backward'`,
/// `'range'`; each thread's events in the order they ended. Empty when none was on.
#[pyfunction]
fn _profiler_stop(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let events = py.detach(profiler::stop);
    let out = PyList::empty(py);
    for e in &events {
        let kind = match e.kind {
            Kind::Op => "op",
            Kind::Backward => "backward",
            Kind::Range => "range",
        };
        let shapes = e.shapes.clone();
        let item = (e.full_name(), e.tid, e.start_ns, e.dur_ns, shapes, kind);
        out.append(item)?;
    }
    Ok(out)
}

/// Whether a profiler session is on.
#[pyfunction]
fn _profiler_enabled() -> bool {
    profiler::is_on()
}

/// The profiler's clock: nanoseconds since it began (the events' `start_ns` scale).
#[pyfunction]
fn _profiler_now() -> u64 {
    profiler::now_ns()
}

/// An open user range; `end()` records it (once).
#[pyclass(module = "ferrograd._core")]
struct ProfilerRange {
    scope: Option<Scope>,
}

#[pymethods]
impl ProfilerRange {
    /// Ends the range (recording it if its session is still on); later calls do nothing.
    fn end(&mut self) {
        self.scope.take();
    }
}

/// Opens a user range named `name` on this thread; `None` when no profiler is on.
#[pyfunction]
fn _profiler_range(name: String) -> Option<ProfilerRange> {
    profiler::named(Kind::Range, || name.into(), Vec::new).map(|s| ProfilerRange { scope: Some(s) })
}

/// Adds the profiler functions to `_core`.
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ProfilerRange>()?;
    m.add_function(wrap_pyfunction!(_profiler_start, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_stop, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_now, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_range, m)?)?;
    Ok(())
}
