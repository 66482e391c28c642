//! The `Tensor` Python class: a thin handle over the Rust [`Tensor`], with its
//! properties and plain autograd attributes. A leaf of the bindings: it uses only
//! `errors` and `dtype`, so every other binding file can use it without a cycle. The
//! methods that need other binding files are beside them: `autograd_methods.rs`
//! (`grad_fn`, hooks, `backward`), `conversions.rs` (construction, NumPy, `item`, `repr`);
//! op methods are in `math.rs`, `reduce.rs`, `shape.rs`, ...

use crate::python::dtype::PyDType;
use crate::python::errors::IntoPy;
use crate::tensor::Tensor;
use parking_lot::{RwLock, RwLockReadGuard};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};

/// A multi-dimensional array with reverse-mode autograd.
#[pyclass(name = "Tensor", module = "ferrograd", subclass, weakref, dict, frozen)]
pub struct PyTensor {
    /// False only in the window between Python's allocation of the object (zeroed
    /// memory) and PyO3 writing these fields. On CPython 3.11/3.12 that window contains an
    /// allocation (the eager instance `__dict__`), which can run the GC; `__traverse__`
    /// must then see nothing.
    pub(super) ready: bool,
    /// The core tensor this object stands for, read on every call. Replaced only by
    /// `x.data = y` and the in-place view ops (`transpose_`, `unsqueeze_`), which keep the
    /// Python object (its id, its place in modules and optimizers) and change what it
    /// shows, as PyTorch's `set_data` does. See [`PyTensor::repoint`]. The lock is held
    /// only while a reader clones the handle out (never across an op, a GIL release or a
    /// call into Python), so a re-point never waits for an op and cannot deadlock; the
    /// clone keeps the tensor a reader works on alive if the object is re-pointed
    /// meanwhile.
    cell: RwLock<Tensor>,
}

/// A read of a Python tensor's core tensor ([`PyTensor::inner`]): an owned handle that
/// derefs to [`Tensor`] (the lifetime ties it to the object only for the borrow checker).
pub struct TensorRead<'a>(Tensor, std::marker::PhantomData<&'a PyTensor>);

impl TensorRead<'_> {
    /// The handle itself, without cloning it a second time (`inner().take()` rather than
    /// `inner().take()`).
    #[inline]
    pub fn take(self) -> Tensor {
        self.0
    }
}

impl std::ops::Deref for TensorRead<'_> {
    type Target = Tensor;
    fn deref(&self) -> &Tensor {
        &self.0
    }
}

/// Makes each tensor object without an eager instance `__dict__` (see `lazy_dict.rs`).
pub(crate) static TENSOR_ALLOC: crate::python::lazy_dict::LazyDictAlloc =
    crate::python::lazy_dict::LazyDictAlloc::new();

static SIZE_CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Installs the Python `Size` class (a tuple that also equals lists) used by `.shape`.
#[pyfunction]
pub fn _set_size_class(py: Python<'_>, cls: Bound<'_, PyType>) -> PyResult<()> {
    let _ = SIZE_CLASS.set(py, cls.unbind());
    Ok(())
}

/// Wraps a core tensor as a new Python object.
pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    // (no eager instance `__dict__`: see `lazy_dict.rs`)
    let obj = TENSOR_ALLOC.create(py, PyTensor::new(t), |v| Py::new(py, v))?;
    // the first live wrapper is the tensor's Python identity (see `identity.rs`)
    // SAFETY: nothing else can reach the object yet, so no re-point can run meanwhile
    // (this skips the read lock on the path every op's result takes)
    let inner = unsafe { &*obj.get().cell.data_ptr() };
    inner.set_owner_if_none(obj.as_ptr() as usize);
    Ok(obj)
}

impl Drop for PyTensor {
    fn drop(&mut self) {
        if !self.ready {
            return;
        }
        let inner = self.cell.get_mut();
        let p = inner.owner() as *mut pyo3::ffi::PyObject;
        // SAFETY: a recorded wrapper is alive or being deallocated (it clears the record
        // here, before its memory is freed); the one being deallocated has refcount 0.
        if !p.is_null() && unsafe { pyo3::ffi::Py_REFCNT(p) } <= 0 {
            inner.clear_owner(p as usize);
        }
    }
}

/// A `Size` (or plain tuple before the package installed `Size`) of `dims`.
pub fn size_object<'py>(py: Python<'py>, dims: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let tup = PyTuple::new(py, dims)?;
    match SIZE_CLASS.get(py) {
        Some(cls) => cls.bind(py).call1((tup,)),
        None => Ok(tup.into_any()),
    }
}

impl PyTensor {
    /// Wraps a core tensor.
    pub fn new(t: Tensor) -> Self {
        PyTensor {
            ready: true,
            cell: RwLock::new(t),
        }
    }

    /// The core tensor this object stands for now.
    #[inline]
    pub fn inner(&self) -> TensorRead<'_> {
        TensorRead(self.cell.read().clone(), std::marker::PhantomData)
    }

    /// [`PyTensor::inner`] for a caller that holds the GIL (the token says so), without
    /// the read lock (two locked instructions per read; the hot paths of every op call
    /// from Python read this way). Sound because the only write, [`PyTensor::repoint`],
    /// holds the GIL too (it takes the token), so no write can run while this reads;
    /// readers without the GIL keep taking the lock, which orders them with the writer.
    /// (The module does not declare itself free-threading safe, so a free-threaded
    /// interpreter turns the GIL back on when it imports it: the token still excludes.)
    #[inline]
    pub fn inner_gil(&self, _py: Python<'_>) -> TensorRead<'_> {
        // SAFETY: see above: no write is in progress while the caller holds the GIL
        TensorRead(
            unsafe { (*self.cell.data_ptr()).clone() },
            std::marker::PhantomData,
        )
    }

    /// Whether this object stands for `t` now: [`PyTensor::inner_gil`]'s read without the
    /// handle's clone (nothing runs between the read and the comparison).
    #[inline]
    pub fn stands_for(&self, _py: Python<'_>, t: &Tensor) -> bool {
        // SAFETY: as in `inner_gil`: no write is in progress while the caller holds the GIL
        unsafe { (*self.cell.data_ptr()).same(t) }
    }

    /// [`PyTensor::inner`] unless it is being replaced right now (for GC traversal,
    /// which must never block).
    pub(super) fn try_inner(&self) -> Option<RwLockReadGuard<'_, Tensor>> {
        self.cell.try_read()
    }

    /// Makes this object stand for `t` from now on (`me` is this object's address, its
    /// Python identity): `t` records it as its wrapper and the tensor it stood for
    /// forgets it, so a saved copy of the old tensor unpacks to an object of its own.
    /// Takes the GIL's token: [`PyTensor::inner_gil`] relies on every write holding it.
    pub fn repoint(&self, _py: Python<'_>, me: usize, t: Tensor) {
        // readers hold the lock only to clone the handle out (no GIL needed), so this
        // blocking write lock is taken at once even with the GIL held
        let mut w = self.cell.write();
        if w.same(&t) {
            // (`t()` of a 1-d tensor gives the tensor itself: nothing changes)
            return;
        }
        t.set_owner_if_none(me);
        let old = std::mem::replace(&mut *w, t);
        drop(w);
        old.clear_owner(me);
    }
}

#[pymethods]
impl PyTensor {
    /// Dimensions as a `Size` (equal to both a tuple and a list).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_object(py, self.inner().shape())
    }

    /// `size()` → shape; `size(dim)` → that dimension.
    #[pyo3(signature = (dim=None))]
    fn size<'py>(&self, py: Python<'py>, dim: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => size_object(py, self.inner().shape()),
            Some(d) => {
                let d = crate::layout::normalize_axis(d, self.inner().ndim(), "size").py()?;
                Ok(self.inner().shape()[d].into_pyobject(py)?.into_any())
            }
        }
    }

    /// Element type.
    #[getter]
    fn dtype(&self, py: Python<'_>) -> PyResult<Py<PyDType>> {
        crate::python::dtype::dtype_object(py, self.inner().dtype())
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner().ndim()
    }

    /// Number of dimensions (torch spelling).
    fn dim(&self) -> usize {
        self.inner().ndim()
    }

    /// Number of elements: an int; in Paddle code a 0-d int64 tensor, as Paddle's
    /// `numel` gives (the dialect check is a few dictionary reads, no frame walk).
    fn numel(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let n = self.inner().numel();
        if crate::python::dialect::caller_is_paddle(py)? {
            let count = i64::try_from(n).unwrap_or(i64::MAX);
            return Ok(wrap(py, Tensor::scalar(count))?.into_any());
        }
        Ok(n.into_pyobject(py)?.into_any().unbind())
    }

    fn __len__(&self) -> PyResult<usize> {
        self.inner()
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d tensor"))
    }

    /// Element strides.
    #[pyo3(signature = (dim=None))]
    fn stride<'py>(&self, py: Python<'py>, dim: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner();
        let s = &inner.layout().strides;
        match dim {
            None => Ok(PyTuple::new(py, s.iter())?.into_any()),
            Some(d) => {
                let d = crate::layout::normalize_axis(d, self.inner().ndim(), "stride").py()?;
                Ok(s[d].into_pyobject(py)?.into_any())
            }
        }
    }

    /// True when elements are row-major without gaps; always for a tensor without
    /// elements (PyTorch's answer: `zeros(3, 0).is_contiguous()`).
    fn is_contiguous(&self) -> bool {
        let t = self.inner();
        t.numel() == 0 || t.is_contiguous()
    }

    /// Address of the first element.
    fn data_ptr(&self) -> usize {
        let t = self.inner();
        t.storage().data_ptr() as usize + t.layout().offset * t.dtype().size()
    }

    /// Bytes per element.
    fn element_size(&self) -> usize {
        self.inner().dtype().size()
    }

    /// Where the tensor lives (always the CPU).
    #[getter]
    fn place(&self) -> &'static str {
        "Place(cpu)"
    }

    /// Device (always the CPU).
    #[getter]
    fn device(&self) -> &'static str {
        "cpu"
    }

    /// Itself (ferrograd tensors live on the CPU).
    fn cpu(slf: Py<Self>) -> Py<Self> {
        slf
    }

    // ---- autograd attributes -------------------------------------------------------

    /// Whether gradients are tracked (the inverse of `stop_gradient`).
    #[getter]
    fn requires_grad(&self) -> bool {
        self.inner().requires_grad()
    }

    #[setter]
    fn set_requires_grad(&self, flag: bool) -> PyResult<()> {
        self.inner().set_requires_grad(flag).py()
    }

    /// Paddle's view of the same flag: `stop_gradient == not requires_grad`.
    #[getter]
    fn stop_gradient(&self) -> bool {
        !self.inner().requires_grad()
    }

    #[setter]
    fn set_stop_gradient(&self, flag: bool) -> PyResult<()> {
        self.inner().set_requires_grad(!flag).py()
    }

    /// Sets `requires_grad` in place and returns the tensor.
    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(slf: Py<Self>, py: Python<'_>, requires_grad: bool) -> PyResult<Py<Self>> {
        slf.get().inner().set_requires_grad(requires_grad).py()?;
        let _ = py;
        Ok(slf)
    }

    /// True for tensors without a `grad_fn`.
    #[getter]
    fn is_leaf(&self, py: Python<'_>) -> PyResult<bool> {
        // (PyTorch reads the history here, so a stale view made in inference mode, or in
        // no_grad mode in PyTorch code, raises)
        check_history_readable(py, &self.inner())?;
        Ok(self.inner().is_leaf())
    }

    /// Clears the accumulated gradient: zeros it in place (Paddle's default), or drops it
    /// (`set_to_zero=False`, like torch's `x.grad = None`).
    #[pyo3(signature = (set_to_zero=true))]
    fn clear_grad(&self, py: Python<'_>, set_to_zero: bool) -> PyResult<()> {
        if set_to_zero && self.inner().has_ext_grad() {
            return crate::python::tensor::sparse_grad::zero_ext_grad(py, &self.inner());
        }
        if set_to_zero {
            if let Some(g) = self.inner().grad() {
                let _guard = crate::autograd::no_grad();
                g.fill_(0.0).py()?;
                return Ok(());
            }
        }
        self.inner().set_grad(None).py()
    }

    /// Same as `clear_grad`.
    #[pyo3(signature = (set_to_zero=true))]
    fn clear_gradient(&self, py: Python<'_>, set_to_zero: bool) -> PyResult<()> {
        self.clear_grad(py, set_to_zero)
    }

    /// Number of in-place writes to this tensor's memory so far.
    #[getter]
    fn _version(&self) -> u64 {
        self.inner().version()
    }

    /// Paddle's spelling of `_version`.
    fn _inplace_version(&self) -> u64 {
        self.inner().version()
    }

    /// Adds one to the version counter without writing anything: what
    /// `autograd.graph.increment_version` does for code that changes the memory behind
    /// autograd's back (so a saved copy of this tensor is refused in backward).
    fn _increment_version(&self) {
        self.inner().bump_version()
    }

    /// Same data, no history, never requires grad (shares storage).
    fn detach(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.inner().detach())
    }

    /// Detaches this tensor from its graph in place.
    fn detach_(slf: Py<Self>, py: Python<'_>) -> PyResult<Py<Self>> {
        let base = slf.get().inner().meta().view_base.clone();
        if base.is_some_and(|b| b.requires_grad()) {
            // PyTorch's rule: its base would still see the history through it
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "Can't detach views in-place. Use detach() instead (it returns a new tensor \
                 without history over the same memory)",
            ));
        }
        let t = slf.get().inner().take();
        let had_history = t.meta().grad_fn.is_some();
        if had_history && crate::python::dialect::caller_is_torch(py)? {
            // PyTorch refuses a built-in node's saved input detached so at backward
            t.mark_detached_in_place();
        }
        t.set_requires_grad(false).py()?;
        Ok(slf)
    }

    /// Keeps the gradient of this non-leaf in `.grad` during backward.
    fn retain_grad(&self) -> PyResult<()> {
        let t = &self.inner();
        match t.grad_fn() {
            None => {
                if !t.requires_grad() {
                    return Err(crate::python::errors::usage_error(
                        "retain_grad() on a tensor that does not require grad".to_string(),
                    ));
                }
                Ok(()) // leaves keep their gradient anyway
            }
            Some(node) => {
                let slot = t.output_nr();
                if crate::autograd::retain::retained_in_order(&node, slot) {
                    return Ok(()); // retain_grads() keeps it already
                }
                let mut r = node.base().retained();
                if !r.iter().any(|(s, w)| *s == slot && w.is(t)) {
                    r.push((slot, t.downgrade()));
                }
                t.meta().retains_grad = true;
                Ok(())
            }
        }
    }

    /// Paddle spelling of `retain_grad`.
    fn retain_grads(&self) -> PyResult<()> {
        self.retain_grad()
    }

    fn __float__(&self) -> PyResult<f64> {
        if self.inner().numel() != 1 {
            return Err(PyValueError::new_err(format!(
                "only one-element tensors can be converted to Python scalars (shape {:?})",
                self.inner().shape()
            )));
        }
        // PyTorch's item<double>() treats complex -> real with a non-zero imaginary
        // part as an overflow (c10 `overflows`); dropping it would be a silent loss
        if self.inner().dtype().is_complex() && tensor_item_is_nonzero_complex(&self.inner()) {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "value cannot be converted to type double without overflow: the complex \
                 value has a non-zero imaginary part; use .real, .abs() or .item()",
            ));
        }
        self.inner().item_f64().py()
    }

    fn __int__(&self) -> PyResult<i64> {
        let v = self.__float__()?;
        if !v.is_finite() {
            return Err(PyValueError::new_err(format!(
                "cannot convert {v} to an integer"
            )));
        }
        if self.inner().dtype() == crate::DType::I64 {
            return Ok(self.inner().storage().read::<i64>()[self.inner().layout().offset]);
        }
        Ok(v.trunc() as i64)
    }

    fn __index__(&self) -> PyResult<i64> {
        if !(self.inner().dtype().is_int() || self.inner().dtype() == crate::DType::Bool) {
            return Err(PyTypeError::new_err(format!(
                "only integer tensors of a single element can be used as an index; this one is {}",
                self.inner().dtype()
            )));
        }
        self.__int__()
    }

    fn __bool__(&self) -> PyResult<bool> {
        if self.inner().numel() != 1 {
            return Err(PyValueError::new_err(format!(
                "the truth value of a tensor with {} elements is ambiguous; use .any() or .all()",
                self.inner().numel()
            )));
        }
        Ok(self.inner().item_f64().py()? != 0.0
            || (self.inner().dtype().is_complex() && tensor_item_is_nonzero_complex(&self.inner())))
    }

    fn __hash__(&self) -> u64 {
        self.inner().id() as u64
    }
}

fn tensor_item_is_nonzero_complex(t: &Tensor) -> bool {
    use crate::dtype::Element;
    let off = t.layout().offset;
    crate::with_dtype!(t.dtype(), T, {
        t.storage().read::<T>()[off].to_c128().im != 0.0
    })
}

/// Refuses reading the history (`grad_fn`, `is_leaf`) of an untracked view whose memory
/// changed since it was made, as PyTorch does: one made in inference mode in every
/// dialect, one made under `no_grad` in PyTorch code only (Paddle reads `None`/`True`).
/// One meta lock for every other tensor.
pub(crate) fn check_history_readable(py: Python<'_>, t: &crate::tensor::Tensor) -> PyResult<()> {
    use crate::tensor::ViewCreation;
    match t.stale_view() {
        Some(ViewCreation::Inference) => t.check_inference_view().py(),
        Some(ViewCreation::NoGrad) if crate::python::dialect::caller_is_torch(py)? => {
            t.check_no_grad_view().py()
        }
        _ => Ok(()),
    }
}
