//! The `Tensor` Python class: a thin handle over the Rust [`Tensor`], with its
//! properties, autograd attributes and conversions. Op methods live in `tensor_ops.rs`.

use super::convert::{tensor_item, tensor_to_numpy, to_tensor};
use super::dtype::{parse_opt_dtype, PyDType};
use super::errors::IntoPy;
use crate::autograd::engine::{self, BackwardOptions};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};
use std::sync::atomic::{AtomicU64, Ordering};

/// A multi-dimensional array with reverse-mode autograd.
#[pyclass(name = "Tensor", module = "ferrograd", subclass, weakref, dict, frozen)]
pub struct PyTensor {
    /// False only in the window between Python's allocation of the object (zeroed
    /// memory) and PyO3 writing these fields. On CPython 3.11/3.12 that window contains an
    /// allocation (the eager instance `__dict__`), which can run the GC; `__traverse__`
    /// must then see nothing.
    ready: bool,
    pub(crate) inner: Tensor,
}

static SIZE_CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NEXT_HOOK_ID: AtomicU64 = AtomicU64::new(1);

/// Installs the Python `Size` class (a tuple that also equals lists) used by `.shape`.
#[pyfunction]
pub fn _set_size_class(py: Python<'_>, cls: Bound<'_, PyType>) -> PyResult<()> {
    let _ = SIZE_CLASS.set(py, cls.unbind());
    Ok(())
}

/// Wraps a core tensor as a new Python object.
pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    Py::new(py, PyTensor::new(t))
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
            inner: t,
        }
    }

    /// The wrapped core tensor.
    pub fn tensor(&self) -> &Tensor {
        &self.inner
    }
}

#[pymethods]
impl PyTensor {
    #[new]
    #[pyo3(signature = (data=None, dtype=None))]
    fn py_new(data: Option<&Bound<'_, PyAny>>, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let dtype = parse_opt_dtype(dtype)?;
        let t = match data {
            None => {
                crate::tensor::zeros(&[0], dtype.unwrap_or(crate::dtype::default_float())).py()?
            }
            Some(d) => {
                let t = to_tensor(d, dtype)?;
                // torch.Tensor(data) is float32 unless told otherwise
                if dtype.is_none() && !t.dtype().is_differentiable() {
                    t.cast_raw(crate::dtype::default_float()).py()?
                } else {
                    t
                }
            }
        };
        Ok(PyTensor::new(t))
    }

    /// Dimensions as a `Size` (equal to both a tuple and a list).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_object(py, self.inner.shape())
    }

    /// `size()` → shape; `size(dim)` → that dimension.
    #[pyo3(signature = (dim=None))]
    fn size<'py>(&self, py: Python<'py>, dim: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => size_object(py, self.inner.shape()),
            Some(d) => {
                let d = crate::layout::normalize_axis(d, self.inner.ndim(), "size").py()?;
                Ok(self.inner.shape()[d].into_pyobject(py)?.into_any())
            }
        }
    }

    /// Element type.
    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType {
            d: self.inner.dtype(),
        }
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.ndim()
    }

    /// Number of dimensions (torch spelling).
    fn dim(&self) -> usize {
        self.inner.ndim()
    }

    /// Number of elements.
    fn numel(&self) -> usize {
        self.inner.numel()
    }

    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d tensor"))
    }

    /// Element strides.
    #[pyo3(signature = (dim=None))]
    fn stride<'py>(&self, py: Python<'py>, dim: Option<isize>) -> PyResult<Bound<'py, PyAny>> {
        let s = &self.inner.layout().strides;
        match dim {
            None => Ok(PyTuple::new(py, s.iter())?.into_any()),
            Some(d) => {
                let d = crate::layout::normalize_axis(d, self.inner.ndim(), "stride").py()?;
                Ok(s[d].into_pyobject(py)?.into_any())
            }
        }
    }

    /// True when elements are row-major without gaps.
    fn is_contiguous(&self) -> bool {
        self.inner.is_contiguous()
    }

    /// Address of the first element.
    fn data_ptr(&self) -> usize {
        let l = self.inner.layout();
        self.inner.storage().data_ptr() as usize + l.offset * self.inner.dtype().size()
    }

    /// Bytes per element.
    fn element_size(&self) -> usize {
        self.inner.dtype().size()
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
        self.inner.requires_grad()
    }

    #[setter]
    fn set_requires_grad(&self, flag: bool) -> PyResult<()> {
        self.inner.set_requires_grad(flag).py()
    }

    /// Paddle's view of the same flag: `stop_gradient == not requires_grad`.
    #[getter]
    fn stop_gradient(&self) -> bool {
        !self.inner.requires_grad()
    }

    #[setter]
    fn set_stop_gradient(&self, flag: bool) -> PyResult<()> {
        self.inner.set_requires_grad(!flag).py()
    }

    /// Sets `requires_grad` in place and returns the tensor.
    #[pyo3(signature = (requires_grad=true))]
    fn requires_grad_(slf: Py<Self>, py: Python<'_>, requires_grad: bool) -> PyResult<Py<Self>> {
        slf.get().inner.set_requires_grad(requires_grad).py()?;
        let _ = py;
        Ok(slf)
    }

    /// True for tensors without a `grad_fn`.
    #[getter]
    fn is_leaf(&self) -> bool {
        self.inner.is_leaf()
    }

    /// The node that produced this tensor (None for leaves).
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.inner
            .grad_fn()
            .map(|n| super::node::node_object(py, n))
            .transpose()
    }

    /// Accumulated gradient (None until a backward pass reaches this tensor).
    #[getter]
    fn grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyTensor>>> {
        self.inner.grad().map(|g| wrap(py, g)).transpose()
    }

    #[setter]
    fn set_grad(&self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let g = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) => Some(
                v.cast::<PyTensor>()
                    .map_err(|_| PyTypeError::new_err("assigned grad must be a Tensor or None"))?
                    .get()
                    .inner
                    .clone(),
            ),
        };
        self.inner.set_grad(g).py()
    }

    /// Clears the accumulated gradient: zeros it in place (Paddle's default), or drops it
    /// (`set_to_zero=False`, like torch's `x.grad = None`).
    #[pyo3(signature = (set_to_zero=true))]
    fn clear_grad(&self, set_to_zero: bool) -> PyResult<()> {
        if set_to_zero {
            if let Some(g) = self.inner.grad() {
                let _guard = crate::autograd::no_grad();
                g.fill_(0.0).py()?;
                return Ok(());
            }
        }
        self.inner.set_grad(None).py()
    }

    /// Same as `clear_grad`.
    #[pyo3(signature = (set_to_zero=true))]
    fn clear_gradient(&self, set_to_zero: bool) -> PyResult<()> {
        self.clear_grad(set_to_zero)
    }

    /// Number of in-place writes to this tensor's memory so far.
    #[getter]
    fn _version(&self) -> u64 {
        self.inner.storage().version()
    }

    /// Paddle's spelling of `_version`.
    fn _inplace_version(&self) -> u64 {
        self.inner.storage().version()
    }

    /// Same data, no history, never requires grad (shares storage).
    fn detach(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.inner.detach())
    }

    /// Detaches this tensor from its graph in place.
    fn detach_(slf: Py<Self>) -> PyResult<Py<Self>> {
        slf.get().inner.set_requires_grad(false).py()?;
        Ok(slf)
    }

    /// Keeps the gradient of this non-leaf in `.grad` during backward.
    fn retain_grad(&self) -> PyResult<()> {
        let t = &self.inner;
        match t.grad_fn() {
            None => {
                if !t.requires_grad() {
                    return Err(super::errors::usage_error(
                        "retain_grad() on a tensor that does not require grad".to_string(),
                    ));
                }
                Ok(()) // leaves keep their gradient anyway
            }
            Some(node) => {
                let slot = t.output_nr();
                if super::dropin::retained_in_order(&node, slot) {
                    return Ok(()); // retain_grads() keeps it already
                }
                let mut r = node.base().retained.lock();
                if !r
                    .iter()
                    .any(|(s, w)| *s == slot && w.upgrade().is_some_and(|x| x.same(t)))
                {
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

    /// Registers `hook(grad)`, run when this tensor's gradient is computed; a non-None
    /// return value replaces the gradient. Returns a handle with `remove()`.
    fn register_hook(&self, hook: Py<PyAny>) -> PyResult<super::node::PyHookHandle> {
        let t = &self.inner;
        if !t.requires_grad() {
            return Err(super::errors::usage_error(
                "cannot register a hook on a tensor that does not require grad (set \
                 requires_grad=True / stop_gradient=False first)"
                    .to_string(),
            ));
        }
        let id = NEXT_HOOK_ID.fetch_add(1, Ordering::Relaxed);
        let f = super::node::python_grad_hook(hook);
        match t.grad_fn() {
            Some(node) => {
                node.base().pre_hooks.lock().push((t.output_nr(), id, f));
                Ok(super::node::PyHookHandle::on_node(node, id))
            }
            None => {
                t.meta().hooks.push((id, f));
                Ok(super::node::PyHookHandle::on_leaf(t.clone(), id))
            }
        }
    }

    /// Runs backward from this tensor. Without `grad_tensor`, the gradient is ones of this
    /// tensor's shape (Paddle semantics; torch requires a scalar here).
    #[pyo3(signature = (grad_tensor=None, retain_graph=None, create_graph=false, gradient=None))]
    fn backward(
        &self,
        py: Python<'_>,
        grad_tensor: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        gradient: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if !self.inner.requires_grad() {
            // Paddle: a no-op (seed code relies on it); say so instead of failing silently
            pyo3::PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"backward() was called on a tensor that does not require grad (nothing that \
                  requires grad was used to compute it); no gradient was computed",
                1,
            )?;
            return Ok(());
        }
        let g = super::autograd::root_grad(&self.inner, grad_tensor.or(gradient), 0)?;
        let root = self.inner.clone();
        let opts = BackwardOptions {
            retain_graph: retain_graph.unwrap_or(create_graph),
            create_graph,
        };
        py.detach(move || engine::backward(&[root], vec![g], opts))
            .py()
    }

    // ---- conversions -----------------------------------------------------------------

    /// A NumPy array holding a copy of the values.
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_to_numpy(py, &self.inner)
    }

    /// NumPy array protocol. `np.asarray(t)` gets a view of the tensor's memory (no
    /// copy; the array keeps the storage alive, see `array_interface.rs`); `copy=True`, a
    /// `dtype` other than the tensor's, and bfloat16 (which NumPy lacks: a float32 copy)
    /// give a copy.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = if copy == Some(true) {
            None
        } else {
            super::array_interface::numpy_view(py, &self.inner)?
        };
        let a = match view {
            Some(v) => v,
            None if copy == Some(false) => {
                return Err(PyValueError::new_err(
                    "this tensor cannot be viewed by NumPy without a copy (copy=False): NumPy \
                     has no bfloat16, so only a float32 copy is possible; use copy=None, or \
                     from_dlpack to share bfloat16 memory with a library that has it",
                ))
            }
            None => tensor_to_numpy(py, &self.inner)?,
        };
        match dtype {
            Some(d) if !d.is_none() => {
                let kw = pyo3::types::PyDict::new(py);
                kw.set_item("copy", false)?; // `a` is already a copy when one was asked for
                a.call_method("astype", (d,), Some(&kw))
            }
            _ => Ok(a),
        }
    }

    /// Nested Python lists (a Python scalar for 0-d tensors).
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_to_numpy(py, &self.inner)?.call_method0("tolist")
    }

    /// The single element as a Python scalar.
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tensor_item(py, &self.inner)
    }

    fn __float__(&self) -> PyResult<f64> {
        if self.inner.numel() != 1 {
            return Err(PyValueError::new_err(format!(
                "only one-element tensors can be converted to Python scalars (shape {:?})",
                self.inner.shape()
            )));
        }
        self.inner.item_f64().py()
    }

    fn __int__(&self) -> PyResult<i64> {
        let v = self.__float__()?;
        if !v.is_finite() {
            return Err(PyValueError::new_err(format!(
                "cannot convert {v} to an integer"
            )));
        }
        if self.inner.dtype() == crate::DType::I64 {
            return Ok(self.inner.storage().read::<i64>()[self.inner.layout().offset]);
        }
        Ok(v.trunc() as i64)
    }

    fn __index__(&self) -> PyResult<i64> {
        if !(self.inner.dtype().is_int() || self.inner.dtype() == crate::DType::Bool) {
            return Err(PyTypeError::new_err(format!(
                "only integer tensors of a single element can be used as an index; this one is {}",
                self.inner.dtype()
            )));
        }
        self.__int__()
    }

    fn __bool__(&self) -> PyResult<bool> {
        if self.inner.numel() != 1 {
            return Err(PyValueError::new_err(format!(
                "the truth value of a tensor with {} elements is ambiguous; use .any() or .all()",
                self.inner.numel()
            )));
        }
        Ok(self.inner.item_f64().py()? != 0.0
            || (self.inner.dtype().is_complex() && tensor_item_is_nonzero_complex(&self.inner)))
    }

    /// `complex(t)`: the single element as a Python complex (one-element tensors only).
    fn __complex__(&self, py: Python<'_>) -> PyResult<num_complex::Complex64> {
        tensor_item(py, &self.inner)?.extract()
    }

    fn __hash__(&self) -> u64 {
        self.inner.id() as u64
    }

    /// GC support: when this object is the only owner of its tensor and of the custom
    /// layer node that produced it, the node's ctx is reachable only through us, so we
    /// report it (cycles like `ctx.y = y` are then collectable). Shared owners report
    /// nothing, which keeps the GC's reference arithmetic exact.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        // SAFETY: a volatile read of a plain bool; zeroed (not yet initialised) memory
        // reads as false, and then no other field is touched.
        if !unsafe { std::ptr::read_volatile(&self.ready) } {
            return Ok(());
        }
        if self.inner.handle_count() != 1 {
            return Ok(());
        }
        let Some(meta) = self.inner.try_meta() else {
            return Ok(());
        };
        if let Some(node) = &meta.grad_fn {
            if std::sync::Arc::strong_count(node.arc()) == 1 {
                if let Some(layer) = node
                    .as_any()
                    .and_then(|a| a.downcast_ref::<super::pylayer::PyLayerNode>())
                {
                    visit.call(&layer.ctx)?;
                }
            }
        }
        Ok(())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        super::repr::tensor_repr(py, &self.inner)
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        super::repr::tensor_repr(py, &self.inner)
    }
}

fn tensor_item_is_nonzero_complex(t: &Tensor) -> bool {
    use crate::dtype::Element;
    let off = t.layout().offset;
    crate::with_dtype!(t.dtype(), T, {
        t.storage().read::<T>()[off].to_c128().im != 0.0
    })
}
