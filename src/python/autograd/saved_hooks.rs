//! Python pack/unpack hooks (`saved_tensors_hooks`) on the Rust hook stack. The stack is
//! thread-local and lives in the core; these adapters take the GIL only for the call of
//! the user's hook, and a hook's exception comes out unchanged.

use crate::autograd::saved::{self, PackedTensor, SavedTensorHooks};
use crate::error::{Error, Result};
use crate::python::errors::{from_pyerr, IntoPy};
use crate::python::pylayer::vcall::call_positional;
use crate::python::tensor::class::PyTensor;
use crate::python::tensor::identity::wrap_shared_ref;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use pyo3::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::sync::{Arc, Weak};

/// One `saved_tensors_hooks(pack_hook, unpack_hook)` level.
struct PyHooks {
    pack: Py<PyAny>,
    unpack: Py<PyAny>,
    /// With `once=True`: what `pack_hook` returned per saved view, so a tensor saved by
    /// several nodes is packed once (keyed by storage address; the weak link tells a live
    /// storage from a new one at a reused address).
    once: Option<Mutex<PackedViews>>,
    /// With `keep_leaves=True`: parameters are saved as they are, not packed.
    keep_leaves: bool,
    /// With `keep_held_leaves=True`: leaves without grad that a Python object holds when
    /// saved (the caller's input) are saved as they are, not packed.
    keep_held_leaves: bool,
}

/// A view already packed at this level.
struct PackedView {
    storage: Weak<crate::storage::Storage>,
    version: u64,
    layout: crate::layout::Layout,
    dtype: crate::dtype::DType,
    obj: Py<PyAny>,
}

#[derive(Default)]
struct PackedViews {
    by_storage: HashMap<usize, Vec<PackedView>>,
    /// Entry count at which dead storages are swept next (doubles: amortized O(1)).
    sweep_at: usize,
}

impl PackedViews {
    fn find(&self, py: Python<'_>, t: &Tensor) -> Option<Py<PyAny>> {
        let key = Arc::as_ptr(t.storage()) as usize;
        self.by_storage.get(&key)?.iter().find_map(|v| {
            let live = v.storage.upgrade()?;
            (Arc::ptr_eq(&live, t.storage())
                && v.version == t.storage().memory_version()
                && v.dtype == t.dtype()
                && &v.layout == t.layout())
            .then(|| v.obj.clone_ref(py))
        })
    }

    fn insert(&mut self, py: Python<'_>, t: &Tensor, obj: &Py<PyAny>) {
        let entries: usize = self.by_storage.values().map(Vec::len).sum();
        if entries >= self.sweep_at {
            self.by_storage.retain(|_, vs| {
                vs.retain(|v| v.storage.strong_count() > 0);
                !vs.is_empty()
            });
            self.sweep_at = 2 * self.by_storage.values().map(Vec::len).sum::<usize>() + 8;
        }
        let key = Arc::as_ptr(t.storage()) as usize;
        let vs = self.by_storage.entry(key).or_default();
        vs.retain(|v| v.storage.strong_count() > 0);
        vs.push(PackedView {
            storage: Arc::downgrade(t.storage()),
            version: t.storage().memory_version(),
            layout: t.layout().clone(),
            dtype: t.dtype(),
            obj: obj.clone_ref(py),
        });
    }
}

/// What `pack_hook` returned, with the `unpack_hook` that turns it back into a tensor.
struct PyPacked {
    /// Released by `Drop` (see [`release_packed`]), never dropped in place.
    obj: ManuallyDrop<Py<PyAny>>,
    /// A reference of its own to the level's unpack hook, released by `Drop` like `obj`.
    /// (A Python reference, counted under the GIL that the pack holds anyway: an `Arc`
    /// shared with the level cost two locked instructions per save.)
    unpack: ManuallyDrop<Py<PyAny>>,
}

impl Drop for PyPacked {
    fn drop(&mut self) {
        // SAFETY: `obj` and `unpack` are taken once, here, and `self` is not used
        // afterwards.
        let (obj, unpack) = unsafe {
            (
                ManuallyDrop::take(&mut self.obj),
                ManuallyDrop::take(&mut self.unpack),
            )
        };
        release_packed(obj);
        release_packed(unpack);
    }
}

/// This thread's deferred releases of packed objects (one thread-local, so that a release
/// and a backward's bookkeeping look it up once, not once per field).
struct Releases {
    /// Set while this thread runs a backward (detached) inside
    /// [`backward_releasing_packs`], which releases `list` on return.
    on_return: Cell<bool>,
    /// Packed objects dropped while detached, released when the backward returns (a
    /// plain per-thread list: pyo3's deferred-decref pool takes a lock and gives up its
    /// vector on every drain, ~0.6k instructions per step for two saves).
    list: RefCell<Vec<Py<PyAny>>>,
}

thread_local! {
    static RELEASES: Releases = const {
        Releases {
            on_return: Cell::new(false),
            list: RefCell::new(Vec::new()),
        }
    };
}

/// Drops what a pack hook returned (or a pack's reference to the unpack hook): straight
/// away when no backward of this thread will release it on return (attached, pyo3
/// decrements it now; detached elsewhere, pyo3 does at the next attach), else into this
/// thread's list (the node released its saves after its backward, while the engine runs
/// detached).
fn release_packed(obj: Py<PyAny>) {
    // the list is gone during the thread's exit: `obj` is then dropped with the closure
    // (pyo3 takes it); borrowed by a release running now, `obj` is dropped at once, as
    // when no backward will release it (outside the closure: a drop may run Python)
    let now = RELEASES.try_with(move |r| {
        if !r.on_return.get() {
            return Some(obj);
        }
        match r.list.try_borrow_mut() {
            Ok(mut l) => {
                l.push(obj);
                None
            }
            Err(_) => Some(obj),
        }
    });
    drop(now);
}

/// Runs a backward `f` detached, then (attached again) releases the packed objects that
/// its nodes dropped on this thread. Nested backwards (inside a hook or a custom layer)
/// release on their own return; what an inner one leaves, the outer one releases.
pub(crate) fn backward_releasing_packs<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> T {
    /// Restores the flag also when `f` unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            RELEASES.with(|r| r.on_return.set(self.0));
        }
    }
    let restore = Restore(RELEASES.with(|r| r.on_return.replace(true)));
    let out = py.detach(f);
    drop(restore);
    // one at a time: a release may run Python (`__del__`) that backs up more
    while let Some(obj) = RELEASES.with(|r| r.list.borrow_mut().pop()) {
        drop(obj);
    }
    out
}

impl SavedTensorHooks for PyHooks {
    fn keeps_leaves(&self) -> bool {
        self.keep_leaves
    }

    fn keeps_held_leaves(&self) -> bool {
        self.keep_held_leaves
    }

    fn pack(&self, t: &Tensor) -> Result<Arc<dyn PackedTensor>> {
        Python::attach(|py| {
            let known = self.once.as_ref().and_then(|m| m.lock().find(py, t));
            let obj = match known {
                Some(obj) => obj,
                None => {
                    // the caller's own object when it is alive (PyTorch passes the
                    // saved tensor itself: `pack_hook(t)` sees `t is x`)
                    let arg = wrap_shared_ref(py, t).map_err(from_pyerr)?;
                    // (vectorcall: no argument tuple per save)
                    let obj =
                        call_positional(py, self.pack.bind(py), &[arg.into_bound(py).into_any()])
                            .map_err(from_pyerr)?
                            .unbind();
                    if let Some(m) = &self.once {
                        m.lock().insert(py, t, &obj);
                    }
                    obj
                }
            };
            Ok(Arc::new(PyPacked {
                obj: ManuallyDrop::new(obj),
                unpack: ManuallyDrop::new(self.unpack.clone_ref(py)),
            }) as Arc<dyn PackedTensor>)
        })
    }
}

/// For a save packed by Python hooks: what `pack_hook` returned and the `unpack_hook`
/// that will read it (PyTorch's `SavedVariable.data` / `.unpack_hook`).
pub(crate) fn python_packed(
    py: Python<'_>,
    packed: &dyn PackedTensor,
) -> Option<(Py<PyAny>, Py<PyAny>)> {
    let p = packed.as_any()?.downcast_ref::<PyPacked>()?;
    Some((p.obj.clone_ref(py), p.unpack.clone_ref(py)))
}

impl PackedTensor for PyPacked {
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    /// Attached once for all of a node's unpacks: each `unpack` inside then finds the
    /// thread attached, which costs a counter, not a GIL acquisition.
    fn unpack_scope(&self, f: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        Python::attach(|_py| f())
    }

    fn unpack(&self) -> Result<Tensor> {
        Python::attach(|py| {
            let r = call_positional(py, self.unpack.bind(py), &[self.obj.bind(py).clone()])
                .map_err(from_pyerr)?;
            let r = &r;
            match r.cast::<PyTensor>() {
                Ok(t) => Ok(t.get().inner_gil(py).take()),
                Err(_) => Err(Error::type_err(format!(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result \
                     of type {}: the unpack hook must return a Tensor",
                    r.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))),
            }
        })
    }
}

/// Pack/unpack hooks for one saved tensor (`register_hooks` on a node's raw saved
/// tensor): no `once` cache, leaves packed too.
pub(crate) fn single_hooks(pack: Py<PyAny>, unpack: Py<PyAny>) -> impl SavedTensorHooks {
    PyHooks {
        pack,
        unpack,
        once: None,
        keep_leaves: false,
        keep_held_leaves: false,
    }
}

/// Enters a `saved_tensors_hooks` level on this thread. With `once`, a view of a
/// storage that this level already packed (same storage, version, layout and dtype) reuses
/// what `pack_hook` returned instead of calling it again. With `keep_leaves`, leaves that
/// require grad (parameters) are saved as they are instead of being packed; with
/// `keep_held_leaves`, so are leaves without grad that a Python object holds when saved
/// (the caller's input).
#[pyfunction]
#[pyo3(signature = (pack_hook, unpack_hook, once = false, keep_leaves = false, keep_held_leaves = false))]
pub fn _push_saved_tensors_hooks(
    pack_hook: Py<PyAny>,
    unpack_hook: Py<PyAny>,
    once: bool,
    keep_leaves: bool,
    keep_held_leaves: bool,
) -> PyResult<()> {
    push_hooks(pack_hook, unpack_hook, once, keep_leaves, keep_held_leaves).py()
}

/// Pushes a Python hook pair onto this thread's stack (see `_push_saved_tensors_hooks`).
pub(crate) fn push_hooks(
    pack_hook: Py<PyAny>,
    unpack_hook: Py<PyAny>,
    once: bool,
    keep_leaves: bool,
    keep_held_leaves: bool,
) -> Result<()> {
    saved::push_saved_tensor_hooks(Arc::new(PyHooks {
        pack: pack_hook,
        unpack: unpack_hook,
        once: once.then(|| Mutex::new(PackedViews::default())),
        keep_leaves,
        keep_held_leaves,
    }))
}

/// Leaves the innermost `saved_tensors_hooks` level on this thread.
#[pyfunction]
pub fn _pop_saved_tensors_hooks() {
    saved::pop_saved_tensor_hooks();
}

/// Number of active hook levels on this thread.
#[pyfunction]
pub fn _saved_tensors_hooks_depth() -> usize {
    saved::saved_tensor_hooks_depth()
}

/// Disables hooks on this thread with `message` (None re-enables); returns the previous
/// setting. Errors with `message` when hooks are active right now.
#[pyfunction]
#[pyo3(signature = (message))]
pub fn _set_saved_tensors_hooks_disabled(message: Option<String>) -> PyResult<Option<String>> {
    if let Some(m) = &message {
        if saved::saved_tensor_hooks_depth() > 0 {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(m.clone()));
        }
    }
    Ok(saved::set_saved_tensor_hooks_disabled(message))
}
