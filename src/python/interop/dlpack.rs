//! DLPack interop: `Tensor.__dlpack__`, `Tensor.__dlpack_device__` and
//! `ferrograd.from_dlpack`, sharing memory with NumPy, PyTorch, JAX and anything else
//! that speaks the DLPack Python protocol (legacy `"dltensor"` capsules and the
//! versioned `"dltensor_versioned"` ones of DLPack 1.x).
//!
//! Exports keep the tensor's storage alive through the manager context until the
//! consumer calls the deleter; imports wrap the producer's memory as a foreign storage
//! whose drop calls the producer's deleter. Everything is CPU memory.

use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::storage::Storage;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::ffi::{c_void, CStr};
use std::os::raw::c_char;
use std::sync::Arc;

use crate::python::interop::dlpack_abi::*;

// ---------------------------------------------------------------------------------------
// export
// ---------------------------------------------------------------------------------------

/// What an exported capsule owns: the tensor (so its storage stays alive) and the
/// shape/strides arrays the `DLTensor` points into. `managed` is one of the two structs.
struct Export<M> {
    managed: M,
    _tensor: Tensor,
    _writable: Option<crate::storage_marks::WritableExport>,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
}

/// Builds the `DLTensor` fields of `t` (data pointer at its first element).
fn describe(t: &Tensor, shape: &mut [i64], strides: &mut [i64]) -> DLTensor {
    let base = t.storage().data_ptr();
    let data = base.wrapping_add(t.layout().offset * t.dtype().size());
    DLTensor {
        data: data as *mut c_void,
        device: DLDevice {
            device_type: DL_CPU,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

/// Drops what an export owns. Consumers call deleters from C, with or without the GIL:
/// attaching makes PyO3 release Python owners (a NumPy array behind `from_numpy`) now
/// rather than at its next entry. A panic must not cross the C boundary.
fn release_export<M>(ctx: *mut Export<M>) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: ctx is the Box<Export> leaked by export_capsule, released exactly once.
        let export = unsafe { Box::from_raw(ctx) };
        // SAFETY: a plain query of the interpreter state.
        if unsafe { ffi::Py_IsInitialized() } != 0 {
            Python::attach(|_| drop(export));
        } else {
            drop(export);
        }
    }));
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if !m.is_null() {
        // SAFETY: m is the managed tensor of a live export.
        release_export(unsafe { (*m).manager_ctx } as *mut Export<DLManagedTensor>);
    }
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if !m.is_null() {
        // SAFETY: m is the managed tensor of a live export.
        release_export(unsafe { (*m).manager_ctx } as *mut Export<DLManagedTensorVersioned>);
    }
}

/// Capsule destructor: deletes the tensor unless a consumer took it (renamed the capsule).
unsafe extern "C" fn capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: called by CPython with a live capsule; the names tell us what it holds.
    unsafe {
        if ffi::PyCapsule_IsValid(cap, NAME_LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, NAME_LEGACY.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else if ffi::PyCapsule_IsValid(cap, NAME_VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

/// Wraps `ptr` in a new capsule named `name` with the DLPack destructor.
fn new_capsule<'py>(
    py: Python<'py>,
    ptr: *mut c_void,
    name: &'static CStr,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: name is 'static; the destructor only reads what we stored.
    unsafe {
        let cap = ffi::PyCapsule_New(ptr, name.as_ptr(), Some(capsule_destructor));
        Bound::from_owned_ptr_or_err(py, cap)
    }
}

/// Exports `t` as a DLPack capsule (versioned when `versioned`).
fn export_capsule<'py>(
    py: Python<'py>,
    t: Tensor,
    versioned: bool,
    copied: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let mut strides: Vec<i64> = t.layout().strides.iter().map(|&s| s as i64).collect();
    let dl = describe(&t, &mut shape, &mut strides);
    // memory saved for backward goes out read-only: a write through the consumer would
    // bypass the version counter (docs/reliability.md, "NumPy interop and aliasing")
    let saved = t.storage().is_saved_for_backward() && !copied;
    let read_only = !t.storage().is_writable() || saved;
    let mark = (!read_only).then(|| crate::storage_marks::WritableExport::new(t.storage()));
    if versioned {
        let flags =
            if read_only { FLAG_READ_ONLY } else { 0 } | if copied { FLAG_IS_COPIED } else { 0 };
        let b = Box::new(Export {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion {
                    major: VERSION.0,
                    minor: VERSION.1,
                },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_versioned),
                flags,
                dl_tensor: dl,
            },
            _tensor: t,
            _writable: mark,
            _shape: shape,
            _strides: strides,
        });
        let raw = Box::into_raw(b);
        // SAFETY: raw is a live leaked Box; the deleter reclaims it.
        unsafe {
            (*raw).managed.manager_ctx = raw as *mut c_void;
            let m = &mut (*raw).managed as *mut DLManagedTensorVersioned;
            new_capsule(py, m as *mut c_void, NAME_VERSIONED).inspect_err(|_| delete_versioned(m))
        }
    } else {
        if read_only {
            return Err(PyBufferError::new_err(if saved {
                "cannot export a tensor whose memory is saved for backward through a legacy \
                 (unversioned) DLPack capsule, which cannot say it is read-only; the consumer \
                 should pass max_version=(1, 0), or export a copy with copy=True"
            } else {
                "cannot export a read-only tensor through a legacy (unversioned) DLPack \
                 capsule, which cannot say it is read-only; the consumer should pass \
                 max_version=(1, 0), or export a copy with copy=True"
            }));
        }
        let b = Box::new(Export {
            managed: DLManagedTensor {
                dl_tensor: dl,
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_legacy),
            },
            _tensor: t,
            _writable: mark,
            _shape: shape,
            _strides: strides,
        });
        let raw = Box::into_raw(b);
        // SAFETY: as above.
        unsafe {
            (*raw).managed.manager_ctx = raw as *mut c_void;
            let m = &mut (*raw).managed as *mut DLManagedTensor;
            new_capsule(py, m as *mut c_void, NAME_LEGACY).inspect_err(|_| delete_legacy(m))
        }
    }
}

/// Checks a `dl_device` argument: None or `(kDLCPU, 0)`.
fn check_export_device(dl_device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(d) = dl_device.filter(|d| !d.is_none()) else {
        return Ok(());
    };
    let (ty, id): (i32, i32) = d.extract().map_err(|_| {
        PyTypeError::new_err("__dlpack__: dl_device must be a (device_type, device_id) tuple")
    })?;
    if ty != DL_CPU || id != 0 {
        return Err(PyBufferError::new_err(format!(
            "__dlpack__: ferrograd tensors live on the CPU (device (1, 0)); cannot export to \
             device ({ty}, {id})"
        )));
    }
    Ok(())
}

#[pymethods]
impl PyTensor {
    /// Exports this tensor as a DLPack capsule sharing its memory (the DLPack Python
    /// protocol). `max_version >= (1, 0)` gets a versioned capsule (which can flag
    /// read-only memory); `copy=True` exports a copy. Tensors that require grad must be
    /// detached first, as gradients cannot flow through another library.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(s) = stream.filter(|s| !s.is_none()) {
            // -1 means "no synchronisation"; CPU producers have no streams at all
            if s.extract::<i64>().ok() != Some(-1) {
                return Err(PyValueError::new_err(
                    "__dlpack__: stream must be None for CPU tensors",
                ));
            }
        }
        check_export_device(dl_device)?;
        if self.inner().requires_grad() {
            return Err(PyRuntimeError::new_err(
                "cannot export a tensor that requires grad through DLPack (gradients cannot \
                 flow through another library); export t.detach() instead",
            ));
        }
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        let (t, copied) = if copy == Some(true) {
            (self.inner().contiguous_copy().py()?, true)
        } else {
            (self.inner().take(), false)
        };
        export_capsule(py, t, versioned, copied)
    }

    /// `(device_type, device_id)` for DLPack: always `(1, 0)`, the CPU.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (DL_CPU, 0)
    }
}

// ---------------------------------------------------------------------------------------
// import
// ---------------------------------------------------------------------------------------

/// The producer's tensor, owned by a storage: dropping it calls the producer's deleter.
enum Imported {
    Legacy(*mut DLManagedTensor),
    Versioned(*mut DLManagedTensorVersioned),
}

// SAFETY: DLPack deleters may be called from any thread (producers that need the GIL,
// such as NumPy, take it themselves), and nothing else touches the pointer.
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: the pointers came from consumed capsules; each deleter runs exactly once.
        unsafe {
            match *self {
                Imported::Legacy(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
                Imported::Versioned(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
            }
        }
    }
}

/// Builds a tensor over the memory `dl` describes, owned by `owner`.
///
/// # Safety
/// `dl` must be a valid `DLTensor` whose memory stays alive while `owner` lives.
unsafe fn tensor_from_dl(dl: &DLTensor, owner: Imported, writable: bool) -> PyResult<Tensor> {
    if dl.device.device_type != DL_CPU && dl.device.device_type != DL_CUDA_HOST {
        drop(owner);
        return Err(PyBufferError::new_err(format!(
            "from_dlpack: the tensor lives on DLPack device type {} (id {}); ferrograd only \
             reads CPU memory — move it to the CPU first (e.g. x.cpu())",
            dl.device.device_type, dl.device.device_id
        )));
    }
    let dtype = match dtype_of(dl.dtype) {
        Ok(d) => d,
        Err(e) => {
            drop(owner);
            return Err(e);
        }
    };
    if dl.ndim < 0 {
        drop(owner);
        return Err(PyValueError::new_err(format!(
            "from_dlpack: the producer reports a negative ndim ({})",
            dl.ndim
        )));
    }
    let ndim = dl.ndim as usize;
    // SAFETY: the producer gives ndim shape entries (and strides, when not null).
    let shape_i: &[i64] = if ndim == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(dl.shape, ndim) }
    };
    let strides_i: Option<&[i64]> = if dl.strides.is_null() || ndim == 0 {
        None
    } else {
        // SAFETY: as for the shape
        Some(unsafe { std::slice::from_raw_parts(dl.strides, ndim) })
    };
    // every size and address checked before anything is read (see `crate::foreign`)
    let view = match crate::foreign::validate_aligned(
        "from_dlpack",
        shape_i,
        strides_i,
        dtype.size(),
        dtype.align(),
        dl.data as usize,
        dl.byte_offset,
    ) {
        Ok(v) => v,
        Err(e) => {
            drop(owner);
            return Err(crate::python::errors::to_pyerr(e));
        }
    };
    // SAFETY: every element reachable through the layout lies in [base, base + len), a
    // range `validate` checked to fit the address space; the producer vouches for the memory.
    let storage = unsafe {
        Storage::from_foreign(
            view.base as *mut u8,
            view.len,
            dtype,
            Box::new(owner),
            writable,
        )
    };
    Ok(Tensor::from_parts(Arc::new(storage), view.layout))
}

/// Takes the tensor out of a DLPack capsule (renaming it so nobody else does).
fn consume_capsule(cap: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let p = cap.as_ptr();
    // SAFETY: `p` is a live object; the capsule API checks its type and name.
    unsafe {
        if ffi::PyCapsule_IsValid(p, NAME_VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if m.is_null() {
                return Err(PyErr::fetch(cap.py()));
            }
            if (*m).version.major != VERSION.0 {
                // not ours to delete: leave the capsule untouched so its owner frees it
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: DLPack version {}.{} is not supported (ferrograd reads 1.x)",
                    (*m).version.major,
                    (*m).version.minor
                )));
            }
            if ffi::PyCapsule_SetName(p, NAME_USED_VERSIONED.as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            let writable = (*m).flags & FLAG_READ_ONLY == 0;
            return tensor_from_dl(&(*m).dl_tensor, Imported::Versioned(m), writable);
        }
        if ffi::PyCapsule_IsValid(p, NAME_LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, NAME_LEGACY.as_ptr()) as *mut DLManagedTensor;
            if m.is_null() {
                return Err(PyErr::fetch(cap.py()));
            }
            if ffi::PyCapsule_SetName(p, NAME_USED_LEGACY.as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            return tensor_from_dl(&(*m).dl_tensor, Imported::Legacy(m), true);
        }
    }
    let type_name = cap
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    Err(match capsule_name(cap) {
        Some(n) if n.starts_with("used_dltensor") => PyValueError::new_err(
            "from_dlpack: this capsule was already consumed (a DLPack capsule can be \
             imported only once); call x.__dlpack__() again",
        ),
        Some(n) => PyTypeError::new_err(format!(
            "from_dlpack: capsule named {n:?} is not a DLPack capsule"
        )),
        None => PyTypeError::new_err(format!(
            "from_dlpack expects an object with __dlpack__ (a NumPy array, a torch tensor, \
             ...) or a DLPack capsule, got {type_name}"
        )),
    })
}

/// Asks `x` for a capsule, preferring the versioned protocol.
fn capsule_of<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(dev) = x.call_method0("__dlpack_device__") {
        if let Ok((ty, id)) = dev.extract::<(i32, i32)>() {
            if ty != DL_CPU && ty != DL_CUDA_HOST {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: the tensor lives on DLPack device type {ty} (id {id}); \
                     ferrograd only reads CPU memory — move it to the CPU first (e.g. x.cpu())"
                )));
            }
        }
    }
    let py = x.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("max_version", PyTuple::new(py, [VERSION.0, VERSION.1])?)?;
    match x.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(c) => Ok(c),
        // producers older than DLPack 1.0 do not know max_version
        Err(e) if e.is_instance_of::<PyTypeError>(py) => x.call_method0("__dlpack__"),
        Err(e) => Err(e),
    }
}

/// A tensor sharing the memory of `x` (an object with `__dlpack__`, such as a NumPy array
/// or a torch tensor, or a DLPack capsule). `copy=True` returns an independent copy.
/// Read-only producers (a read-only NumPy array) give a read-only tensor.
#[pyfunction]
#[pyo3(signature = (x, *, device=None, copy=None))]
pub fn from_dlpack(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Py<PyTensor>> {
    crate::python::args::check_device(device, "from_dlpack")?;
    if let Ok(t) = x.cast::<PyTensor>() {
        let t = &t.get().inner();
        return wrap(
            py,
            if copy == Some(true) {
                t.contiguous_copy().py()?
            } else {
                t.detach()
            },
        );
    }
    let has_protocol = x.hasattr("__dlpack__")?;
    let cap = if has_protocol {
        capsule_of(x)?
    } else {
        x.clone()
    };
    let t = consume_capsule(&cap)?;
    let t = if copy == Some(true) {
        t.contiguous_copy().py()?
    } else {
        t
    };
    wrap(py, t)
}

/// The name of a capsule, or None for any other object.
fn capsule_name(cap: &Bound<'_, PyAny>) -> Option<String> {
    // SAFETY: reading the name of a live capsule (null for other objects, error cleared).
    unsafe {
        if ffi::PyCapsule_CheckExact(cap.as_ptr()) == 0 {
            return None;
        }
        let n: *const c_char = ffi::PyCapsule_GetName(cap.as_ptr());
        if n.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(CStr::from_ptr(n).to_string_lossy().into_owned())
    }
}
