//! Zero-copy NumPy views of tensors that work in every build, the stable-ABI (`abi3`)
//! wheel included: `np.asarray(t)` calls `Tensor.__array__`, which hands NumPy an
//! [`ArrayExport`] — a small object owning a reference to the tensor's storage and
//! describing it through NumPy's `__array_interface__` (version 3). NumPy keeps that
//! object as the new array's `base`, so the memory stays alive as long as the array does,
//! whatever later happens to the tensor object.
//!
//! This is how NumPy interop works without the buffer protocol, which PyO3 can implement
//! under CPython's limited API only from 3.11 on (`buffer.rs` is compiled only in builds
//! without the `abi3` feature).

use crate::dtype::DType;
use crate::storage_marks::WritableExport;
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};

static NP_ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The NumPy type string (`__array_interface__["typestr"]`) of a dtype; None for
/// bfloat16, which NumPy lacks.
fn typestr(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool => "|b1",
        DType::U8 => "|u1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C64 => "<c8",
        DType::C128 => "<c16",
        DType::BF16 => return None,
    })
}

/// Owns a tensor's storage while a NumPy array views it (the array's `base`).
///
/// The export rule (docs/reliability.md, "NumPy interop and aliasing"): memory of a tensor
/// that requires grad, or that a node saved for backward, goes out read-only; a writable
/// export carries a [`WritableExport`] mark while the array lives, so a save made meanwhile
/// keeps a copy and a later NumPy-side write can never change a gradient.
#[pyclass(frozen, module = "ferrograd._core", name = "_ArrayExport")]
pub struct ArrayExport {
    tensor: Tensor,
    writable: bool,
    _mark: Option<WritableExport>,
}

#[pymethods]
impl ArrayExport {
    /// NumPy's array interface (version 3): pointer, read-only flag, shape, byte strides.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.tensor;
        let d = t.dtype();
        let ts = typestr(d).ok_or_else(|| PyTypeError::new_err("bfloat16 has no NumPy type"))?;
        let item = d.size();
        let ptr = t
            .storage()
            .data_ptr()
            .wrapping_add(t.layout().offset * item) as usize;
        let shape = PyTuple::new(py, t.shape().iter().copied())?;
        let strides = PyTuple::new(py, t.layout().strides.iter().map(|&s| s * item as isize))?;
        let dict = PyDict::new(py);
        dict.set_item("version", 3)?;
        dict.set_item("typestr", ts)?;
        dict.set_item("data", (ptr, !self.writable))?;
        dict.set_item("shape", shape)?;
        dict.set_item("strides", strides)?;
        Ok(dict)
    }
}

/// A NumPy array sharing `t`'s memory, or None for bfloat16 (the caller copies).
pub fn numpy_view<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Option<Bound<'py, PyAny>>> {
    if typestr(t.dtype()).is_none() {
        return Ok(None);
    }
    let asarray = NP_ASARRAY.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("numpy")?.getattr("asarray")?.unbind())
    })?;
    let guarded = t.requires_grad() || t.storage().is_saved_for_backward();
    let writable = t.storage().is_writable() && !guarded;
    let export = ArrayExport {
        tensor: t.clone(),
        writable,
        _mark: writable.then(|| WritableExport::new(t.storage())),
    };
    let export = Bound::new(py, export)?;
    asarray.bind(py).call1((export,)).map(Some)
}
