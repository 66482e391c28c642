//! Python controls for the cache of large freed buffers (`crate::buffer_cache`).

use crate::buffer_cache;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Sets the most bytes of freed large buffers ferrograd keeps for reuse (0 turns the
/// cache off and frees what it holds); returns the previous limit.
#[pyfunction]
pub fn set_buffer_cache_limit(nbytes: i64) -> PyResult<usize> {
    let n = usize::try_from(nbytes).map_err(|_| {
        PyValueError::new_err(format!(
            "set_buffer_cache_limit: nbytes must be >= 0 (0 disables the cache), got {nbytes}"
        ))
    })?;
    Ok(buffer_cache::set_limit(n))
}

/// Frees every buffer the cache holds (the limit stays), and the small free blocks the
/// calling thread keeps for reuse (`crate::small_blocks`).
#[pyfunction]
pub fn empty_buffer_cache() {
    buffer_cache::clear();
    crate::small_blocks::release_thread();
}

/// What the buffer cache holds: `bytes`, `buffers`, `limit`, the `hits` / `misses` of
/// large allocations so far, and `suspended_by`: how many saved tensors handed to pack
/// hooks are alive (while any is, the cache keeps nothing).
#[pyfunction]
pub fn buffer_cache_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let (bytes, buffers, hits, misses) = buffer_cache::stats();
    let d = PyDict::new(py);
    d.set_item("bytes", bytes)?;
    d.set_item("buffers", buffers)?;
    d.set_item("limit", buffer_cache::limit())?;
    d.set_item("hits", hits)?;
    d.set_item("misses", misses)?;
    d.set_item("suspended_by", buffer_cache::suspensions())?;
    Ok(d)
}

/// Sets whether tensors packed by saved-tensor hooks on this thread suspend the buffer
/// cache (default true; returns the previous setting). The hooks whose packed form stays
/// in memory (checkpoint, `save_compressed`, `save_lossless`, `memory_budget`) turn it
/// off while they are active.
#[pyfunction]
pub fn _set_packs_suspend_cache(on: bool) -> bool {
    buffer_cache::set_packs_suspend(on)
}
