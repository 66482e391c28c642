//! The context object of a custom layer (`PyLayerContext` / `FunctionCtx`): what forward
//! saves for backward (as Rust saved tensors with version stamps and pack hooks), the
//! marks (`mark_dirty`, `mark_non_differentiable`, `mark_not_inplace`), and any attribute
//! the user sets. Takes part in Python's GC so attribute cycles are collected.

use crate::autograd::SavedTensor;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::{PyTraverseError, PyVisit};
use smallvec::SmallVec;

/// One entry of `save_for_backward`.
pub(crate) enum SavedSlot {
    /// A tensor; `original` is the Python object saved, returned again when unpacking
    /// gives back the very same tensor (so `saved is x` holds for inputs).
    Tensor {
        saved: std::sync::Arc<SavedTensor>,
        original: Option<Py<PyAny>>,
    },
    /// A tensor saved while no graph was being recorded: kept as is, never packed.
    Plain(Py<PyAny>),
    /// A non-tensor value (Paddle allows ints, strings, None).
    Object(Py<PyAny>),
}

/// Mutable state of a context.
#[derive(Default)]
pub(crate) struct CtxState {
    pub saved: Vec<SavedSlot>,
    pub saved_any: bool,
    pub released: bool,
    /// PyTorch's `clear_saved_tensors_on_access`: the first read of the saved tensors
    /// takes them out of the ctx; `cleared` records that it happened (a second read is
    /// refused).
    pub clear_on_access: bool,
    pub cleared: bool,
    pub in_forward: bool,
    /// Whether saving must create graph entries (a node will be recorded).
    pub recording: bool,
    /// One flag per forward argument; the tuple is built only when `backward` reads it.
    pub needs_input_grad: smallvec::SmallVec<[bool; 4]>,
    pub non_differentiable: Vec<Tensor>,
    pub dirty: Vec<Tensor>,
    pub not_inplace: Vec<Tensor>,
    pub materialize_grads: bool,
    /// Set by `set_grad_in_dtype_consistent(False)`: output gradients reach backward in
    /// the dtype they were computed in, not cast to the outputs' dtypes.
    pub keep_grad_dtype: bool,
    /// `ClassBackward`, for error messages (shared with the node: no copy per apply).
    pub name: std::sync::Arc<str>,
    /// Attributes that hold the layer's own outputs, kept without owning the node.
    pub output_attrs: Vec<super::output_attribute::OutputAttribute>,
}

/// Context passed to a custom layer's `forward` and `backward`.
#[pyclass(
    name = "FunctionCtx",
    module = "ferrograd.autograd",
    subclass,
    dict,
    weakref,
    frozen
)]
pub struct PyCtx {
    /// False while the object is allocated but not yet initialised (see `PyTensor`):
    /// the GC may traverse it then, and must see nothing.
    ready: bool,
    pub(crate) state: Mutex<CtxState>,
}

impl PyCtx {
    /// A fresh context for layer `name`.
    pub fn new(
        name: std::sync::Arc<str>,
        recording: bool,
        needs_input_grad: smallvec::SmallVec<[bool; 4]>,
    ) -> Self {
        PyCtx {
            ready: true,
            state: Mutex::new(CtxState {
                recording,
                materialize_grads: true,
                name,
                in_forward: true,
                needs_input_grad,
                ..Default::default()
            }),
        }
    }
}

fn tensors_of(args: &Bound<'_, PyTuple>, what: &str) -> PyResult<Vec<Tensor>> {
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            a.cast::<PyTensor>()
                .map(|t| t.get().inner().take())
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{what} takes Tensors, but argument {i} is {}",
                        a.get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default()
                    ))
                })
        })
        .collect()
}

#[pymethods]
impl PyCtx {
    #[new]
    fn py_new() -> Self {
        PyCtx::new(std::sync::Arc::from("Function"), false, Default::default())
    }

    /// Saves tensors (and, Paddle style, other values) for backward. Each tensor is
    /// version-stamped and handed to the active `saved_tensors_hooks` pack hook now.
    #[pyo3(signature = (*tensors))]
    fn save_for_backward(&self, tensors: &Bound<'_, PyTuple>) -> PyResult<()> {
        let py = tensors.py();
        let recording = self.state.lock().recording;
        let mut slots = Vec::with_capacity(tensors.len());
        for obj in tensors.iter() {
            if let Ok(t) = obj.cast::<PyTensor>() {
                if recording {
                    let saved = SavedTensor::custom_layer_input(&t.get().inner_gil(py)).py()?;
                    slots.push(SavedSlot::Tensor {
                        saved: std::sync::Arc::new(saved),
                        original: Some(obj.clone().unbind()),
                    });
                } else {
                    slots.push(SavedSlot::Plain(obj.clone().unbind()));
                }
            } else {
                slots.push(SavedSlot::Object(obj.clone().unbind()));
            }
        }
        let mut st = self.state.lock();
        st.saved = slots; // the last call wins (A12)
        st.saved_any = true;
        Ok(())
    }

    /// The saved tensors as a tuple (torch: a property; `()` when nothing was saved).
    #[getter]
    fn saved_tensors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items = self.unpack_all(py)?;
        PyTuple::new(py, items.unwrap_or_default())
    }

    /// PyTorch's old name for `saved_tensors`: the same tuple, with PyTorch's
    /// `DeprecationWarning`.
    #[getter]
    fn saved_variables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyErr::warn(
            py,
            &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),
            c"'saved_variables' is deprecated; use 'saved_tensors'",
            1,
        )?;
        self.saved_tensors(py)
    }

    /// The saved tensors (Paddle: a method; `None` when nothing was saved).
    fn saved_tensor<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        match self.unpack_all(py)? {
            None => Ok(None),
            Some(items) => Ok(Some(PyTuple::new(py, items)?)),
        }
    }

    /// One bool per forward argument: whether its gradient is needed.
    #[getter]
    fn needs_input_grad<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let flags = self.state.lock().needs_input_grad.clone();
        PyTuple::new(py, flags)
    }

    /// Marks outputs that are not differentiable: they do not require grad, and their
    /// gradient reaches backward as zeros.
    #[pyo3(signature = (*tensors))]
    fn mark_non_differentiable(&self, tensors: &Bound<'_, PyTuple>) -> PyResult<()> {
        let ts = tensors_of(tensors, "mark_non_differentiable")?;
        self.state.lock().non_differentiable.extend(ts);
        Ok(())
    }

    /// Marks inputs that forward modified in place (they are returned as outputs).
    #[pyo3(signature = (*tensors))]
    fn mark_dirty(&self, tensors: &Bound<'_, PyTuple>) -> PyResult<()> {
        let ts = tensors_of(tensors, "mark_dirty")?;
        self.state.lock().dirty.extend(ts);
        Ok(())
    }

    /// Marks inputs returned unchanged that must not be treated as in-place outputs.
    /// ferrograd always returns such an input as a new tensor owned by this layer, so the
    /// gradient reaches backward either way.
    #[pyo3(signature = (*tensors))]
    fn mark_not_inplace(&self, tensors: &Bound<'_, PyTuple>) -> PyResult<()> {
        let ts = tensors_of(tensors, "mark_not_inplace")?;
        self.state.lock().not_inplace.extend(ts);
        Ok(())
    }

    /// With `False`, output gradients that were not computed reach backward as `None`
    /// instead of zeros.
    fn set_materialize_grads(&self, value: bool) {
        self.state.lock().materialize_grads = value;
    }

    /// Paddle: with `False`, the gradients backward receives keep the dtype they were
    /// computed in instead of being cast to the dtypes of forward's outputs (`True`, the
    /// default).
    fn set_grad_in_dtype_consistent(&self, value: bool) {
        self.state.lock().keep_grad_dtype = !value;
    }

    /// Whether missing output gradients are materialized as zeros.
    #[getter]
    fn materialize_grads(&self) -> bool {
        self.state.lock().materialize_grads
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // SAFETY: volatile read of a plain bool that is false in zeroed memory.
        if !unsafe { std::ptr::read_volatile(&self.ready) } {
            return Ok(());
        }
        // never block inside the GC: skip (conservatively) if the state is busy
        let Some(st) = self.state.try_lock() else {
            return Ok(());
        };
        for s in &st.saved {
            match s {
                SavedSlot::Tensor {
                    original: Some(o), ..
                } => visit.call(o)?,
                SavedSlot::Plain(o) | SavedSlot::Object(o) => visit.call(o)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn __clear__(&self) {
        let taken = std::mem::take(&mut self.state.lock().saved);
        drop(taken);
    }
}

impl PyCtx {
    /// Unpacks what was saved: `None` when `save_for_backward` was never called.
    /// (Inline vectors: a layer saves few tensors, and `backward` reads them on every
    /// step, so no heap vector per read.)
    fn unpack_all(&self, py: Python<'_>) -> PyResult<Option<SmallVec<[Py<PyAny>; 4]>>> {
        // copy what is needed, then unpack without the lock (unpack hooks run Python)
        enum Item {
            Obj(Py<PyAny>),
            Saved(std::sync::Arc<SavedTensor>, Option<Py<PyAny>>),
        }
        let (items, name) = {
            let mut st = self.state.lock();
            if st.in_forward || !st.saved_any {
                return Ok(None);
            }
            if st.cleared {
                return Err(PyRuntimeError::new_err(format!(
                    "saved_tensors can only be accessed once when \
                     clear_saved_tensors_on_access is True: {} handed its saved tensors \
                     out at the first read and no longer holds them. Read \
                     ctx.saved_tensors once into local variables",
                    st.name
                )));
            }
            if st.released {
                return Err(PyRuntimeError::new_err(format!(
                    "Trying to backward through the graph a second time (or to read saved \
                     tensors after they were freed): {} has already released what it saved. \
                     Specify retain_graph=True in the first backward() or grad() if you need \
                     them again",
                    st.name
                )));
            }
            let items: SmallVec<[Item; 4]> = if st.clear_on_access {
                // hand the slots over: the ctx keeps no reference to what it saved
                st.cleared = true;
                std::mem::take(&mut st.saved)
                    .into_iter()
                    .map(|s| match s {
                        SavedSlot::Object(o) | SavedSlot::Plain(o) => Item::Obj(o),
                        SavedSlot::Tensor { saved, original } => Item::Saved(saved, original),
                    })
                    .collect()
            } else {
                st.saved
                    .iter()
                    .map(|s| match s {
                        SavedSlot::Object(o) | SavedSlot::Plain(o) => Item::Obj(o.clone_ref(py)),
                        SavedSlot::Tensor { saved, original } => {
                            Item::Saved(saved.clone(), original.as_ref().map(|o| o.clone_ref(py)))
                        }
                    })
                    .collect()
            };
            (items, st.name.clone())
        };
        let mut out = SmallVec::with_capacity(items.len());
        for it in items {
            out.push(match it {
                Item::Obj(o) => o,
                Item::Saved(saved, original) => {
                    let t = saved
                        .unpack(&name)
                        .map_err(crate::python::errors::to_pyerr)?;
                    match original {
                        Some(o)
                            if o.bind(py)
                                .cast::<PyTensor>()
                                .is_ok_and(|p| p.get().stands_for(py, &t)) =>
                        {
                            o
                        }
                        _ => wrap(py, t)?.into_any(),
                    }
                }
            });
        }
        Ok(Some(out))
    }
}

/// A torch-style Function's class flags (`Function._fg_torch_flags`, set once per class
/// by `__init_subclass__`): [`SETUP_CONTEXT`] for `forward(*args)` + `setup_context`,
/// [`CLEAR_ON_ACCESS`] for `clear_saved_tensors_on_access = True`.
pub(crate) fn torch_flags(cls: &Bound<'_, PyAny>) -> u8 {
    cls.getattr(pyo3::intern!(cls.py(), "_fg_torch_flags"))
        .and_then(|v| v.extract::<u8>())
        .unwrap_or(0)
}

/// The ctx of one `apply`, with the class flags that concern it.
pub(crate) fn new_ctx(
    name: std::sync::Arc<str>,
    needs: bool,
    nig: SmallVec<[bool; 4]>,
    flags: u8,
) -> PyCtx {
    let mut ctx = PyCtx::new(name, needs, nig);
    ctx.state.get_mut().clear_on_access = flags & CLEAR_ON_ACCESS != 0;
    ctx
}

/// [`torch_flags`] bit: the Function is written as `forward(*args)` + `setup_context`.
pub(crate) const SETUP_CONTEXT: u8 = 1;
/// [`torch_flags`] bit: `ctx.saved_tensors` hands the saved tensors over once.
const CLEAR_ON_ACCESS: u8 = 2;
