//! Objects of our `#[pyclass(dict)]` classes made without the eager instance `__dict__`.
//!
//! pyo3 makes every object through the base type's `tp_new`, `object.__new__`, which on
//! CPython 3.11 and 3.12 also creates the instance dict (`_PyObject_InitializeDict`), and
//! the object's dealloc frees it again: ~0.25k instructions per object, on every op's
//! result (a tensor), every custom layer's ctx and every gradient handed to Python. The
//! dict is rarely used (`t.my_flag = 1`, `ctx.constant = 2`). CPython creates a missing
//! dict on the first attribute store or `__dict__` read (`_PyObject_GetDictPtr` sees a
//! NULL slot), as 3.13 does for every object, so skipping the eager one changes nothing
//! a user can see.
//!
//! [`LazyDictAlloc::create`] allocates the object with the type's own `tp_alloc` (zeroed
//! memory: the dict and weakref slots read as empty, exactly pyo3's initial values) and
//! moves the Rust value to the contents offset. It relies on pyo3's object layout for a
//! class with `object` as base: the object header, then the value, then zero-sized borrow
//! and thread checkers (a frozen, `Send` class), then the dict and weakref slots. That
//! layout is not a documented pyo3 API, so the first call checks it against what pyo3
//! itself made (an object made the ordinary way, the type's `__dictoffset__`,
//! `__weakrefoffset__` and `__basicsize__`); if anything differs, every call takes the
//! ordinary path.

use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use pyo3::PyClass;

/// The checked layout decision for one class (one static per class): the address of the
/// type's `tp_alloc` when its objects can be made without the eager dict, 0 when not.
pub(crate) struct LazyDictAlloc(PyOnceLock<usize>);

/// `PyObject` header size, also the value's offset when the value's alignment is ≤ 8.
const HEADER: usize = std::mem::size_of::<pyo3::ffi::PyObject>();

impl LazyDictAlloc {
    /// Not yet checked.
    pub(crate) const fn new() -> Self {
        LazyDictAlloc(PyOnceLock::new())
    }

    /// Whether objects are made without the eager dict: `None` before the first object.
    pub(crate) fn active(&self, py: Python<'_>) -> Option<bool> {
        self.0.get(py).map(|&a| a != 0)
    }

    /// A new object of exactly class `T` holding `value`, without an instance dict until
    /// one is needed; `ordinary` makes one the ordinary way (`Py::new`), used until the
    /// layout is checked and whenever it does not match.
    pub(crate) fn create<T: PyClass<Frozen = True> + Sync>(
        &self,
        py: Python<'_>,
        value: T,
        ordinary: impl FnOnce(T) -> PyResult<Py<T>>,
    ) -> PyResult<Py<T>> {
        if let Some(&alloc) = self.0.get(py) {
            if alloc != 0 {
                // SAFETY: `alloc` is `T`'s own `tp_alloc` (read below), and `T`'s layout
                // was checked against the one `alloc_lazy` writes
                return unsafe { alloc_lazy(py, value, alloc) };
            }
            return ordinary(value);
        }
        // the first object is made the ordinary way and measured
        let obj = ordinary(value)?;
        let alloc = if layout_matches::<T>(py, &obj).unwrap_or(false) {
            type_alloc::<T>(py)
        } else {
            0
        };
        let _ = self.0.set(py, alloc);
        Ok(obj)
    }
}

/// Whether `T`'s objects are laid out as [`alloc_lazy`] writes them (see the module docs).
fn layout_matches<T: PyClass<Frozen = True> + Sync>(
    py: Python<'_>,
    probe: &Py<T>,
) -> PyResult<bool> {
    if std::mem::align_of::<T>() > 8 {
        return Ok(false);
    }
    let value_at = (probe.get() as *const T as usize).wrapping_sub(probe.as_ptr() as usize);
    let ty = py.get_type::<T>();
    let num = |name: &str| -> PyResult<usize> { ty.getattr(name)?.extract() };
    let dict_at = num("__dictoffset__")?;
    let weak_at = num("__weakrefoffset__")?;
    let size = num("__basicsize__")?;
    let value_end = HEADER + std::mem::size_of::<T>();
    let dict_expected = value_end.next_multiple_of(std::mem::align_of::<usize>());
    Ok(value_at == HEADER
        && dict_at == dict_expected
        && weak_at == dict_at + std::mem::size_of::<usize>()
        && size == weak_at + std::mem::size_of::<usize>()
        && is_object_subtype(&ty))
}

/// The class derives directly from `object` (pyo3's layout above assumes that base).
fn is_object_subtype(ty: &Bound<'_, PyType>) -> bool {
    ty.getattr("__base__")
        .map(|b| b.is(ty.py().get_type::<pyo3::types::PyAny>()))
        .unwrap_or(false)
}

/// The address of `T`'s `tp_alloc` (`PyType_GenericAlloc` unless the type sets its own).
fn type_alloc<T: PyClass>(py: Python<'_>) -> usize {
    // SAFETY: a read of a slot of `T`'s live type object
    let slot = unsafe {
        pyo3::ffi::PyType_GetSlot(py.get_type::<T>().as_type_ptr(), pyo3::ffi::Py_tp_alloc)
    };
    if slot.is_null() {
        pyo3::ffi::PyType_GenericAlloc as *const () as usize
    } else {
        slot as usize
    }
}

/// Allocates with the type's `tp_alloc` and moves `value` in.
///
/// # Safety
/// `alloc` is the address [`type_alloc`] returned for `T`, whose layout
/// [`layout_matches`].
unsafe fn alloc_lazy<T: PyClass>(py: Python<'_>, value: T, alloc: usize) -> PyResult<Py<T>> {
    let tp = py.get_type::<T>().as_type_ptr();
    // SAFETY: `tp` is the type object of `T` (pyo3 keeps it alive for the process);
    // `alloc` is its `tp_alloc`, which returns a new reference to zeroed, GC-tracked memory
    // of `__basicsize__` bytes, or NULL with an exception set. The layout check established
    // that the value lives `HEADER` bytes in and that the remaining contents (zero-sized
    // checkers, dict and weakref slots) are valid when zeroed; the write below runs no
    // Python code and allocates nothing, so no GC pass can see the object before its value
    // is in place (and the classes' `ready` flag reads false in zeroed memory, so a
    // traversal would skip it anyway).
    unsafe {
        let alloc = std::mem::transmute::<usize, pyo3::ffi::allocfunc>(alloc);
        let obj = alloc(tp, 0);
        if obj.is_null() {
            drop(value);
            return Err(PyErr::fetch(py));
        }
        std::ptr::write(obj.cast::<u8>().add(HEADER).cast::<T>(), value);
        Ok(Bound::from_owned_ptr(py, obj)
            .cast_into_unchecked::<T>()
            .unbind())
    }
}
