//! The `saved_tensors_hooks` context manager, native: constructing it and running its
//! `__enter__` / `__exit__` run no Python frame (it was a Python class: three frames per
//! `with` block, most of the cost of identity hooks on a small step; issue 23 item 4).
//!
//! This class *is* `ferrograd.autograd.graph.saved_tensors_hooks` (no Python subclass in
//! between: a plain `with saved_tensors_hooks(pack, unpack)` block then reads its four
//! settings from the object's fields instead of four attribute lookups). The settings
//! `_pack_once`, `_keep_leaves`, `_keep_held_leaves` and `_in_memory` are fields that an
//! instance may set (as `checkpoint` does); Python subclasses override them as class
//! attributes, so for a subclass's instance `__enter__` reads them as attributes.
//! Subclasses with their own `__init__` call `super().__init__(pack_hook, unpack_hook)`,
//! which is this class's `__init__`.

use crate::python::errors::IntoPy;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

/// `saved_tensors_hooks(pack_hook, unpack_hook)`: installs the pair on this thread for the
/// `with` block (nested blocks stack: the innermost wins and the outer pair is restored on
/// exit, also when an exception leaves the block). `pack_hook(tensor)` runs once when a
/// recorded node saves a tensor and may return any object; `unpack_hook(obj)` runs when
/// backward needs the tensor and must return a Tensor of the saved shape and dtype.
/// `__exit__` without a matching `__enter__` on this thread: see `__exit__`.
#[pyclass(
    name = "saved_tensors_hooks",
    module = "ferrograd.autograd.graph",
    subclass,
    dict,
    weakref
)]
pub struct PySavedTensorsHooks {
    /// Called with each tensor a recorded node saves; returns what is kept instead.
    #[pyo3(get, set)]
    pack_hook: Option<Py<PyAny>>,
    /// Called with what `pack_hook` returned when backward needs the tensor.
    #[pyo3(get, set)]
    unpack_hook: Option<Py<PyAny>>,
    /// The thread of each active `__enter__`, innermost last (inline: a context is
    /// usually entered once, so no heap allocation per `with` block).
    threads: smallvec::SmallVec<[u64; 1]>,
    /// The cache-suspend setting each active `__enter__` replaced, innermost last.
    suspends: smallvec::SmallVec<[bool; 1]>,
    /// Pack a view that this level already packed only once (the compressing hooks).
    #[pyo3(get, set)]
    _pack_once: bool,
    /// Save parameters (leaves requiring grad) as they are instead of packing them.
    #[pyo3(get, set)]
    _keep_leaves: bool,
    /// Save leaves without grad that a Python object holds when saved (the caller's
    /// input) as they are instead of packing them: a copy would add memory.
    #[pyo3(get, set)]
    _keep_held_leaves: bool,
    /// What the pack hook returns stays in RAM (checkpoint handles, compressed copies):
    /// its saves then leave ferrograd's buffer cache on, which other hooks suspend.
    #[pyo3(get, set)]
    _in_memory: bool,
}

/// `threading.get_ident()` of the calling thread.
fn thread_ident() -> u64 {
    // SAFETY: a plain query of the calling thread's identifier (needs no GIL state).
    unsafe { pyo3::ffi::PyThread_get_thread_ident() as u64 }
}

/// A class (or instance) flag read as a bool.
fn flag(obj: &Bound<'_, PyAny>, name: &Bound<'_, pyo3::types::PyString>) -> PyResult<bool> {
    obj.getattr(name)?.is_truthy()
}

#[pymethods]
impl PySavedTensorsHooks {
    /// Accepts (and ignores) any arguments: subclasses have constructors of their own
    /// (`save_on_cpu(pin_memory=False)`); the hooks are set by `__init__`.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PySavedTensorsHooks {
            pack_hook: None,
            unpack_hook: None,
            threads: smallvec::SmallVec::new(),
            suspends: smallvec::SmallVec::new(),
            _pack_once: false,
            _keep_leaves: false,
            _keep_held_leaves: false,
            _in_memory: false,
        }
    }

    fn __init__(&mut self, pack_hook: Py<PyAny>, unpack_hook: Py<PyAny>) {
        self.pack_hook = Some(pack_hook);
        self.unpack_hook = Some(unpack_hook);
    }

    /// The hooks often close over the object itself (`memory_budget`'s do): the
    /// collector must see them, or such an object and its cycle would never be freed.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(p) = &self.pack_hook {
            visit.call(p)?;
        }
        if let Some(u) = &self.unpack_hook {
            visit.call(u)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.pack_hook = None;
        self.unpack_hook = None;
    }

    fn __enter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        // this class itself: its settings are its fields (no class attribute can shadow
        // them); a Python subclass may override them as class attributes: read those
        // (before the borrow below: an attribute read may run Python that uses `slf`)
        let exact = slf.get_type_ptr() == <Self as pyo3::PyTypeInfo>::type_object_raw(py);
        let inherited = if exact {
            None
        } else {
            let any = slf.as_any();
            Some((
                flag(any, pyo3::intern!(py, "_pack_once"))?,
                flag(any, pyo3::intern!(py, "_keep_leaves"))?,
                flag(any, pyo3::intern!(py, "_keep_held_leaves"))?,
                flag(any, pyo3::intern!(py, "_in_memory"))?,
            ))
        };
        // one borrow for the rest (nothing below runs Python)
        let mut me = slf.borrow_mut();
        let (once, keep_leaves, keep_held, in_memory) = inherited.unwrap_or((
            me._pack_once,
            me._keep_leaves,
            me._keep_held_leaves,
            me._in_memory,
        ));
        let hook =
            |h: &Option<Py<PyAny>>| h.as_ref().map_or_else(|| py.None(), |h| h.clone_ref(py));
        let (pack, unpack) = (hook(&me.pack_hook), hook(&me.unpack_hook));
        super::saved_hooks::push_hooks(pack, unpack, once, keep_leaves, keep_held).py()?;
        me.threads.push(thread_ident());
        me.suspends
            .push(crate::buffer_cache::set_packs_suspend(!in_memory));
        Ok(slf.clone())
    }

    /// Leaves the block: pops the level this context pushed on this thread. An exit with
    /// no matching enter on this thread (more exits than enters, an exit inside backward,
    /// an exit on another thread than the enter's) follows the calling code: PyTorch code
    /// pops this thread's innermost level, as PyTorch does, and Paddle code too (Paddle's
    /// `__exit__` resets the hooks and never raises, so on an empty stack it does nothing);
    /// other code gets a RuntimeError, since popping another context's level would leave
    /// that context's hooks off. PyTorch code exiting on an empty stack also gets one (so
    /// does PyTorch: an internal assert).
    /// The three exception arguments are named parameters (not `*args`), so the fast
    /// call builds no tuple for them.
    #[pyo3(signature = (_exc_type=None, _exc_value=None, _traceback=None))]
    fn __exit__(
        &mut self,
        py: Python<'_>,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc_value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let here = thread_ident();
        if self.threads.last() == Some(&here) {
            self.threads.pop();
            crate::autograd::saved::pop_saved_tensor_hooks();
            if let Some(prev) = self.suspends.pop() {
                crate::buffer_cache::set_packs_suspend(prev);
            }
            return Ok(());
        }
        // the rare path: no enter of this context to undo on this thread
        let depth = crate::autograd::saved::saved_tensor_hooks_depth();
        let torch = crate::python::dialect::caller_is_torch(py)?;
        if torch && depth > 0 {
            crate::autograd::saved::pop_saved_tensor_hooks();
            return Ok(());
        }
        if !torch && crate::python::dialect::caller_is_paddle(py)? {
            if depth > 0 {
                crate::autograd::saved::pop_saved_tensor_hooks();
            }
            return Ok(());
        }
        if torch {
            return Err(PyRuntimeError::new_err(
                "saved_tensors_hooks.__exit__: no saved_tensors_hooks level is active on this \
                 thread (more exits than enters); every __exit__ must follow an __enter__ on \
                 the same thread",
            ));
        }
        let entered = match self.threads.last() {
            Some(t) => format!("thread {t}"),
            None => "no thread".to_string(),
        };
        Err(PyRuntimeError::new_err(format!(
            "saved_tensors_hooks.__exit__ on thread {here}, but this context was entered on \
             {entered}; the hooks are installed per thread, so enter and exit the context on \
             the same thread (one `with` block per thread)"
        )))
    }
}
