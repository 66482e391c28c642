//! The Python buffer protocol on `Tensor`: `memoryview(t)`, `np.asarray(t)` and NumPy
//! functions read a tensor's memory directly (no copy), as Paddle's tensors allow.
//!
//! The export is a strided view of the tensor's storage (the storage is kept alive until
//! the consumer releases the buffer). Formats follow the `struct` module: `?` bool, `i`
//! int32, `q` int64, `e` float16, `f` float32, `d` float64, `Zf` complex64, `Zd`
//! complex128. bfloat16 has no `struct` format: asking for a typed buffer raises
//! BufferError naming the dtype (raw-byte consumers, which ask for no format, still work),
//! and `np.asarray` then falls back to `__array__`, a float32 copy. Memory from a
//! read-only source (a read-only NumPy array) is exported read-only, and so is a tensor
//! that requires grad or whose memory a node saved for backward: a write through NumPy
//! would bypass the version counter and change a gradient unnoticed (docs/reliability.md,
//! "NumPy interop and aliasing"). A writable export is counted on the storage, and saves
//! made while it is alive keep a copy.

use crate::dtype::DType;
use crate::python::tensor::class::PyTensor;
use crate::tensor::Tensor;
use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};

/// What an exported buffer owns until `__releasebuffer__`: the tensor (and so its
/// storage) and the shape/strides arrays `Py_buffer` points into.
struct BufferExport {
    _tensor: Tensor,
    _writable: Option<crate::storage_marks::WritableExport>,
    shape: Vec<ffi::Py_ssize_t>,
    strides: Vec<ffi::Py_ssize_t>,
}

/// The `struct`-module format of a dtype (None for bfloat16, which has none).
fn format_of(d: DType) -> Option<&'static CStr> {
    Some(match d {
        DType::Bool => c"?",
        DType::U8 => c"B",
        DType::I8 => c"b",
        DType::I16 => c"h",
        DType::I32 => c"i",
        DType::I64 => c"q",
        DType::F16 => c"e",
        DType::F32 => c"f",
        DType::F64 => c"d",
        DType::C64 => c"Zf",
        DType::C128 => c"Zd",
        DType::BF16 => return None,
    })
}

/// True when the layout is row-major without gaps (size-1 dims may have any stride).
fn c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expect = 1isize;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d == 0 {
            return true;
        }
        if d != 1 && s != expect {
            return false;
        }
        expect *= d as isize;
    }
    true
}

/// True when the layout is column-major without gaps.
fn f_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expect = 1isize;
    for (&d, &s) in shape.iter().zip(strides) {
        if d == 0 {
            return true;
        }
        if d != 1 && s != expect {
            return false;
        }
        expect *= d as isize;
    }
    true
}

#[pymethods]
impl PyTensor {
    /// Buffer protocol export (see the module documentation).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("Tensor buffer: view is null"));
        }
        let t = slf.get().inner().clone();
        let dtype = t.dtype();
        let source_ro = !t.storage().is_writable();
        let guarded = t.requires_grad() || t.storage().is_saved_for_backward();
        let writable = !source_ro && !guarded;
        if flags & ffi::PyBUF_WRITABLE != 0 && !writable {
            return Err(PyBufferError::new_err(if source_ro {
                "Tensor buffer: the tensor's memory is read-only (it came from a read-only \
                 source); request a read-only buffer or .clone() the tensor first"
            } else {
                "Tensor buffer: a tensor that requires grad, or whose memory is saved for \
                 backward, is exported read-only (a write through it would bypass autograd's \
                 version check); use t.numpy() for a copy, or t.detach().clone() for memory \
                 you may write"
            }));
        }
        let format = if flags & ffi::PyBUF_FORMAT != 0 {
            Some(format_of(dtype).ok_or_else(|| {
                PyBufferError::new_err(format!(
                    "Tensor buffer: {dtype} has no buffer-protocol format; convert with \
                     .astype('float32') or share it through DLPack (from_dlpack), which \
                     supports bfloat16"
                ))
            })?)
        } else {
            None
        };
        let shape_u = t.shape();
        let strides_e = &t.layout().strides;
        let c_cont = c_contiguous(shape_u, strides_e);
        let strided = flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES;
        let want_c = flags & ffi::PyBUF_C_CONTIGUOUS == ffi::PyBUF_C_CONTIGUOUS;
        let want_f = flags & ffi::PyBUF_F_CONTIGUOUS == ffi::PyBUF_F_CONTIGUOUS;
        let want_any = flags & ffi::PyBUF_ANY_CONTIGUOUS == ffi::PyBUF_ANY_CONTIGUOUS;
        let f_cont = f_contiguous(shape_u, strides_e);
        let ok = if want_any && !want_c && !want_f {
            c_cont || f_cont
        } else if want_c && !want_f {
            c_cont
        } else if want_f && !want_c {
            f_cont
        } else if strided {
            true
        } else {
            c_cont
        };
        if !ok {
            return Err(PyBufferError::new_err(
                "Tensor buffer: the tensor is not contiguous in the way the consumer asked \
                 for; call .contiguous() first",
            ));
        }
        let itemsize = dtype.size();
        let export = Box::new(BufferExport {
            shape: shape_u.iter().map(|&d| d as ffi::Py_ssize_t).collect(),
            strides: strides_e
                .iter()
                .map(|&s| (s * itemsize as isize) as ffi::Py_ssize_t)
                .collect(),
            _tensor: t.clone(),
            _writable: writable.then(|| crate::storage_marks::WritableExport::new(t.storage())),
        });
        let data = t
            .storage()
            .data_ptr()
            .wrapping_add(t.layout().offset * itemsize);
        let ndim = shape_u.len();
        let raw = Box::into_raw(export);
        // SAFETY: `view` is the consumer's Py_buffer; the pointers we store live in the
        // leaked BufferExport until __releasebuffer__ reclaims it.
        unsafe {
            (*view).buf = data as *mut c_void;
            (*view).obj = slf.into_any().into_ptr();
            (*view).len = (t.numel() * itemsize) as ffi::Py_ssize_t;
            (*view).readonly = c_int::from(!writable);
            (*view).itemsize = itemsize as ffi::Py_ssize_t;
            (*view).format = format.map_or(std::ptr::null_mut(), |f| f.as_ptr() as *mut _);
            (*view).ndim = ndim as c_int;
            let nd = flags & ffi::PyBUF_ND == ffi::PyBUF_ND;
            (*view).shape = if nd || strided {
                (*raw).shape.as_mut_ptr()
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if strided {
                (*raw).strides.as_mut_ptr()
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = raw as *mut c_void;
        }
        Ok(())
    }

    /// Buffer protocol release: drops what `__getbuffer__` kept alive.
    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        // SAFETY: `internal` is the BufferExport leaked by __getbuffer__ (null if none).
        unsafe {
            let raw = (*view).internal as *mut BufferExport;
            if !raw.is_null() {
                (*view).internal = std::ptr::null_mut();
                drop(Box::from_raw(raw));
            }
        }
    }
}
