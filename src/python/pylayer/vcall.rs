//! Calls into the user's `forward` / `backward` without an argument tuple.
//!
//! pyo3 0.30 calls through `PyObject_Vectorcall` only where the limited API declares it
//! (CPython ≥ 3.12); this build's stable-ABI floor is 3.11, so `call1` builds a tuple per
//! call (`PyTuple_New` + `tupledealloc`). CPython has exported `PyObject_Vectorcall` as a
//! function since 3.9 (public C API; in the stable ABI from 3.12), so on platforms where an
//! extension resolves interpreter symbols at load time (Linux, macOS) the abi3 build can
//! call it on every version it supports. Windows abi3 extensions link `python3.dll`, which
//! exports it only from 3.12 on: there the tuple path stays.

use pyo3::prelude::*;

#[cfg(all(feature = "abi3", not(windows)))]
extern "C" {
    /// `PyObject *PyObject_Vectorcall(PyObject *callable, PyObject *const *args,
    /// size_t nargsf, PyObject *kwnames)` (CPython ≥ 3.9).
    fn PyObject_Vectorcall(
        callable: *mut pyo3::ffi::PyObject,
        args: *const *mut pyo3::ffi::PyObject,
        nargsf: usize,
        kwnames: *mut pyo3::ffi::PyObject,
    ) -> *mut pyo3::ffi::PyObject;
}
#[cfg(not(feature = "abi3"))]
use pyo3::ffi::PyObject_Vectorcall;

/// `callable(*args)`: positional arguments only, no tuple built where the platform allows.
pub(crate) fn call_positional<'py>(
    py: Python<'py>,
    callable: &Bound<'py, PyAny>,
    args: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyAny>> {
    #[cfg(any(not(feature = "abi3"), not(windows)))]
    {
        // the pointers on the stack for the usual few arguments, filled by a plain loop
        // (collecting into a `SmallVec` goes through its generic `extend`, ~30
        // instructions per call, which every pack and unpack hook call paid)
        let mut inline = [std::ptr::null_mut::<pyo3::ffi::PyObject>(); 6];
        let heap: Vec<*mut pyo3::ffi::PyObject>;
        let ptrs: &[*mut pyo3::ffi::PyObject] = if args.len() <= inline.len() {
            for (p, a) in inline.iter_mut().zip(args) {
                *p = a.as_ptr();
            }
            &inline[..args.len()]
        } else {
            heap = args.iter().map(Bound::as_ptr).collect();
            &heap
        };
        // SAFETY: the GIL is held (`py`); `callable` and every argument are live objects
        // borrowed from `args` for the whole call (the callee takes its own references if
        // it keeps any); `ptrs` holds exactly `ptrs.len()` valid pointers and no keyword
        // names (NULL); the result is a new reference, or NULL with an exception set,
        // which `from_owned_ptr_or_err` turns into `Err`.
        unsafe {
            let r = PyObject_Vectorcall(
                callable.as_ptr(),
                ptrs.as_ptr(),
                ptrs.len(),
                std::ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(py, r)
        }
    }
    #[cfg(all(feature = "abi3", windows))]
    {
        callable.call1(pyo3::types::PyTuple::new(py, args)?)
    }
}
