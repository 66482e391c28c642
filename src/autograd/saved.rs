//! Tensors saved for backward: version stamps, release after use, and packing through
//! the thread's pack/unpack hooks (their stack is `saved_hook_stack.rs`; re-exported here).
//!
//! A saved input keeps the input itself (its history is upstream, so no cycle). A saved
//! output keeps only its data and a weak link to the node that produced it: the output is
//! rebuilt on unpack, so an output never keeps its own node alive.

use crate::autograd::node::{Node, NodeRef};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Shape;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use super::saved_hook_stack::current_hooks;
pub(crate) use super::saved_hook_stack::HookStackGuard;
pub(crate) use super::saved_hook_stack::{
    hook_stack_snapshot, saved_tensor_hooks_disabled, set_hook_stack,
};
pub use super::saved_hook_stack::{
    pop_saved_tensor_hooks, push_saved_tensor_hooks, saved_tensor_hooks_depth,
    set_saved_tensor_hooks_disabled,
};

/// What a pack hook produced; unpacking gives the tensor back.
pub trait PackedTensor: Send + Sync {
    /// Returns the saved tensor's data (shape and dtype are checked by the caller).
    fn unpack(&self) -> Result<Tensor>;

    /// The concrete packed value, for the layer that made it (the bindings read a Python
    /// hook's packed object back: `SavedTensor.data`).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// Runs `f`, which unpacks this and the other saves of one node, inside what this
    /// packed form's unpack needs, entered once for all of them (the Python hooks attach
    /// to the interpreter once per node instead of once per saved tensor).
    fn unpack_scope(&self, f: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        f()
    }
}

/// A pair of pack/unpack hooks (one level of `saved_tensors_hooks`).
pub trait SavedTensorHooks: Send + Sync {
    /// Called once when a recorded node saves `tensor`. (An `Arc`, as the save keeps it:
    /// a `Box` would be copied into a new allocation on every save.)
    fn pack(&self, tensor: &Tensor) -> Result<Arc<dyn PackedTensor>>;

    /// Whether leaves that require grad (parameters) are saved as they are, without
    /// `pack`: they stay alive anyway, so packing them would only add a copy.
    fn keeps_leaves(&self) -> bool {
        false
    }

    /// Whether leaves that do not require grad (the model's input, a batch) are saved as
    /// they are, without `pack`, when a binding object (the caller's Python tensor) holds
    /// them at the moment they are saved: the caller keeps the original alive, so a packed
    /// copy would add memory instead of saving it. A leaf nothing outside holds (made
    /// inside an op) is still packed.
    fn keeps_held_leaves(&self) -> bool {
        false
    }
}

/// Whether `hooks` save `t` as it is instead of packing it: a parameter (a leaf that
/// requires grad) under [`SavedTensorHooks::keeps_leaves`], or a leaf without grad that a
/// binding object holds right now under [`SavedTensorHooks::keeps_held_leaves`]. `t` is
/// what would be saved: a copy made of aliased memory has no owner, so it is packed.
fn kept_as_is(hooks: &dyn SavedTensorHooks, t: &Tensor, identity: &Identity) -> bool {
    match identity {
        Identity::Leaf(_) => hooks.keeps_leaves(),
        Identity::Constant => hooks.keeps_held_leaves() && t.owner() != 0,
        Identity::NonLeaf { .. } | Identity::Output { .. } => false,
    }
}

/// How an unpacked tensor regains its place in the graph. Holds no tensor data, so that
/// packed tensors really leave memory.
enum Identity {
    /// An input that does not require grad.
    Constant,
    /// An input that is a leaf requiring grad (kept: its gradient accumulates there).
    Leaf(Tensor),
    /// An input with history: output `output_nr` of `node`.
    NonLeaf { node: NodeRef, output_nr: usize },
    /// Output `output_nr` of the (weakly held) saving node.
    Output {
        node: Weak<dyn Node>,
        output_nr: usize,
    },
}

impl Identity {
    /// The identity of an input whose gradient edge is `edge`.
    fn of_edge(edge: crate::autograd::node::Edge) -> Identity {
        use crate::autograd::node::Edge;
        match edge {
            Edge::None => Identity::Constant,
            Edge::Leaf(l) => Identity::Leaf(l),
            Edge::Node { node, input_nr } => Identity::NonLeaf {
                node,
                output_nr: input_nr,
            },
        }
    }

    /// Whether [`rebuild`] hands the data back unchanged: a constant, or a leaf while grad
    /// mode is off (read now). An unpack that knows this needs no second look at the slot.
    fn passes_through(&self) -> bool {
        match self {
            Identity::Constant => true,
            Identity::Leaf(_) => !crate::autograd::is_grad_enabled(),
            Identity::NonLeaf { .. } | Identity::Output { .. } => false,
        }
    }
}

enum SavedState {
    /// Saved as is, with the storage version at save time.
    Live(LiveSave),
    /// Handed to a pack hook (behind a pointer: most saves are live, and every node holds
    /// its saved slots inline, so the rare case should not size them; shared, so that an
    /// unpack takes what it needs past the lock with one count instead of copying the
    /// shape and the links).
    Packed(Arc<PackedSave>),
    /// Freed after a backward pass without `retain_graph`.
    Released,
}

/// What a save kept as is holds. While it lives, its memory counts as saved for backward
/// (exported read-only to NumPy): the count is taken here and given back on drop through
/// `data`, which keeps that memory alive (a `SavedMark` would follow a weak link of its
/// own: three more locked instructions per save).
struct LiveSave {
    data: Tensor,
    version: u64,
    /// `data` is a copy (the memory had a writable export), not the input handle.
    copied: bool,
}

impl LiveSave {
    fn new(data: Tensor, version: u64, copied: bool) -> LiveSave {
        crate::storage_marks::mark_saved(data.storage());
        LiveSave {
            data,
            version,
            copied,
        }
    }
}

impl Drop for LiveSave {
    fn drop(&mut self) {
        // (a tensor's storage never changes, so this is the storage marked in `new`)
        crate::storage_marks::unmark_saved(self.data.storage());
    }
}

/// What a save handed to a pack hook keeps.
struct PackedSave {
    packed: Arc<dyn PackedTensor>,
    shape: Shape,
    dtype: DType,
    /// The saved tensor's own version counter if it has one (else its storage's, the
    /// one `origin` marks) and its version, so an unpack that hands back that same memory
    /// after an in-place change is caught like an unhooked save.
    counter: Option<Arc<std::sync::atomic::AtomicU64>>,
    version: u64,
    /// The saved tensor's storage, held weakly (packing is meant to let it go) and
    /// marked saved: exports of the original memory are read-only while it is saved.
    origin: crate::storage_marks::SavedMark,
    /// Keeps the buffer cache empty while packed activations exist (see
    /// `buffer_cache`): whoever moved them out of RAM wants the memory, not speed.
    _cache_off: crate::buffer_cache::Suspension,
}

/// What a saved slot holds and how it regains its place in the graph, under one lock.
struct Slot {
    state: SavedState,
    identity: Identity,
}

/// A tensor saved by a node for its backward formula.
pub struct SavedTensor {
    slot: Mutex<Slot>,
    /// Set once the slot was handed to a pack hook (never cleared), so that looking for a
    /// packed slot among a node's saves ([`SavedTensor::with_unpack_scope`]) locks none
    /// of the slots that never were.
    ever_packed: AtomicBool,
    /// For a custom layer's save: the tensor object saved (weak; the allocation cannot be
    /// reused while this lives), so an output can be recognised even when a copy or a
    /// pack was stored instead of the tensor itself.
    source: Option<crate::tensor::WeakTensor>,
}

impl SavedTensor {
    /// Saves a forward input of the node being recorded.
    pub fn input(t: &Tensor) -> Result<SavedTensor> {
        refuse_inference(t)?;
        Self::save(t.clone(), |t| t, Identity::of_edge(t.gradient_edge()))
    }

    /// Saves a forward input of the node being recorded, taking the recorder's handle
    /// and the input's gradient edge, which the recorder already holds (reading the edge
    /// again would lock the input's metadata).
    pub(crate) fn input_with_edge(
        t: Tensor,
        edge: crate::autograd::node::Edge,
    ) -> Result<SavedTensor> {
        refuse_inference(&t)?;
        Self::save(t, |t| t, Identity::of_edge(edge))
    }

    /// Saves a custom layer's tensor (`ctx.save_for_backward`), remembering which tensor
    /// it was so [`SavedTensor::saved_from`] can tell whether it became an output.
    pub fn custom_layer_input(t: &Tensor) -> Result<SavedTensor> {
        let mut saved = Self::input(t)?;
        saved.source = Some(t.downgrade());
        Ok(saved)
    }

    /// Whether this was saved from `t` itself (by [`SavedTensor::custom_layer_input`]),
    /// whatever is stored: the tensor, a copy of aliased memory, or a hook's pack.
    pub fn saved_from(&self, t: &Tensor) -> bool {
        match &self.source {
            Some(w) => w.is(t),
            None => self.live_tensor().is_some_and(|x| x.same(t)),
        }
    }

    /// Saves forward output `output_nr` of `node` (the node under construction).
    pub fn output(t: &Tensor, node: &Weak<dyn Node>, output_nr: usize) -> Result<SavedTensor> {
        Self::save(
            t.clone(),
            |t| t.detach(),
            Identity::Output {
                node: node.clone(),
                output_nr,
            },
        )
    }

    /// `keep` makes what a live (unhooked) save holds from `t` (a handle of the caller's
    /// tensor): the input itself, or an output's data (made only for a live save: a packed
    /// one would drop it at once, and an output's `detach` is a new tensor).
    fn save(t: Tensor, keep: fn(Tensor) -> Tensor, identity: Identity) -> Result<SavedTensor> {
        // A writable alias held by another library (np.asarray, memoryview, DLPack, the
        // array behind from_numpy) could change this memory without bumping its version:
        // save a copy instead.
        let aliased = t.storage().has_writable_aliases();
        let (owned, copy) = if aliased {
            let c = t.detach().contiguous_copy()?;
            (c.clone(), Some(c))
        } else {
            (t, None)
        };
        let t = &owned;
        let hooks = if t.is_constant() {
            None // library-made numbers are not the user's saved tensors
        } else {
            current_hooks().filter(|h| !kept_as_is(h.as_ref(), t, &identity))
        };
        let state = match hooks {
            None => {
                let version = t.version();
                let keep = match copy {
                    Some(c) => c,
                    None => keep(owned),
                };
                SavedState::Live(LiveSave::new(keep, version, aliased))
            }
            Some(hooks) => {
                let before = t.version();
                // the saved input itself, as the caller holds it (PyTorch: `pack_hook(t)`
                // sees `t is x`); an output detached, so that a pack that keeps it does
                // not tie the node to itself
                let detached;
                let arg = match identity {
                    Identity::Output { .. } => {
                        detached = t.detach();
                        &detached
                    }
                    _ => t,
                };
                let packed = {
                    let _g = crate::autograd::grad_mode::no_grad();
                    hooks.pack(arg)?
                };
                if t.version() != before {
                    return Err(Error::runtime(
                        "A saved tensor pack hook is modifying its input in place: a \
                         saved_tensors_hooks pack hook must not change the tensor it is given \
                         (copy it first, e.g. x.clone())",
                    ));
                }
                SavedState::Packed(Arc::new(PackedSave {
                    packed,
                    shape: t.shape_vec(),
                    dtype: t.dtype(),
                    counter: t.own_version_counter(),
                    version: before,
                    origin: crate::storage_marks::SavedMark::new(t.storage()),
                    _cache_off: crate::buffer_cache::Suspension::new(),
                }))
            }
        };
        let ever_packed = AtomicBool::new(matches!(state, SavedState::Packed(_)));
        Ok(SavedTensor {
            slot: Mutex::new(Slot { state, identity }),
            ever_packed,
            source: None,
        })
    }

    /// What a pack hook returned for this save, if it was handed to one (and not yet
    /// released).
    pub fn packed(&self) -> Option<Arc<dyn PackedTensor>> {
        if !self.ever_packed.load(Ordering::Acquire) {
            return None;
        }
        match &self.slot.lock().state {
            SavedState::Packed(p) => Some(p.packed.clone()),
            _ => None,
        }
    }

    /// Runs `f` (the unpacks of one node's saved slots) inside the unpack scope of the
    /// first packed slot among `slots`, so hooks that need a context (the interpreter)
    /// enter it once per node; runs `f` directly when none is packed.
    pub fn with_unpack_scope<'a>(
        slots: impl IntoIterator<Item = &'a SavedTensor>,
        f: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        match slots.into_iter().find_map(SavedTensor::packed) {
            Some(packed) => packed.unpack_scope(f),
            None => f(),
        }
    }

    /// Whether this slot holds the saving node's own output.
    pub fn is_output(&self) -> bool {
        matches!(self.slot.lock().identity, Identity::Output { .. })
    }

    /// Returns the saved tensor, rebuilt with its place in the graph. `op` names the node
    /// for error messages.
    pub fn unpack(&self, op: &str) -> Result<Tensor> {
        let slot = self.slot.lock();
        let p = match &slot.state {
            SavedState::Released => return Err(freed_error(op)),
            SavedState::Live(live) => {
                let (data, version) = (&live.data, live.version);
                let now = data.version();
                if now != version {
                    return Err(Error::runtime(format!(
                        "one of the variables needed for gradient computation has been \
                         modified by an inplace operation: {op} saved a {} tensor of shape \
                         {:?} at version {version}, and it is now at version {now} (it was \
                         modified by an in-place operation after it was saved; received \
                         tensor_version:{now} != wrapper_version_snapshot:{version}). \
                         Hint: avoid the in-place op (use its out-of-place form), or clone \
                         the tensor before modifying it",
                        data.dtype(),
                        data.shape()
                    )));
                }
                let live_data = data.clone();
                let is_output = matches!(slot.identity, Identity::Output { .. });
                // (rebuilt under the same lock: nothing it does reaches user code)
                return Ok(match is_output || live.copied {
                    true => rebuild(&slot.identity, live_data),
                    false => live_data, // the input handle itself
                });
            }
            // (the hook is user code, which may read or release this save: the lock is
            // not held while it runs)
            SavedState::Packed(p) => p.clone(),
        };
        // whether the unpacked tensor is handed back as is, which spares locking the slot
        // again (the grad mode is the same after the hook: it runs under its own guard)
        let as_is = slot.identity.passes_through();
        drop(slot);
        let t = {
            let _g = crate::autograd::grad_mode::no_grad();
            p.packed.unpack()?
        };
        let (shape, dtype, version) = (&p.shape, p.dtype, p.version);
        if t.shape() != shape.as_slice() || t.dtype() != dtype {
            return Err(Error::runtime(format!(
                "{op}: the unpack hook returned a {} tensor of shape {:?}, but a {} \
                 tensor of shape {:?} was saved; unpack must return the packed \
                 tensor's data unchanged in shape and dtype",
                t.dtype(),
                t.shape(),
                dtype,
                shape.as_slice()
            )));
        }
        if p.origin.marks(t.storage()) {
            let now = p.counter.as_ref().map_or_else(
                || t.storage().version(),
                |c| c.load(std::sync::atomic::Ordering::Acquire),
            );
            if now != version {
                return Err(Error::runtime(format!(
                    "one of the tensors needed for gradient computation by {op} has \
                     been modified by an in-place operation after it was packed: a \
                     {dtype} tensor of shape {:?} was saved at version {version} and \
                     is now at version {now}",
                    shape.as_slice()
                )));
            }
        }
        if as_is {
            return Ok(t);
        }
        Ok(rebuild(&self.slot.lock().identity, t))
    }

    /// [`SavedTensor::unpack`] for a built-in node's backward formula. A saved input
    /// that had history and that PyTorch code detached in place since (`detach_()`) is
    /// refused, as PyTorch refuses it; custom layers' saves and the `_saved_*` accessors
    /// still read it, and so does Paddle code (its `detach_` marks nothing).
    pub fn unpack_for_backward(&self, op: &str) -> Result<Tensor> {
        let t = self.unpack(op)?;
        if t.was_detached_in_place()
            && matches!(self.slot.lock().identity, Identity::NonLeaf { .. })
        {
            return Err(Error::runtime(format!(
                "Trying to use a saved tensor that has been detached in-place, i.e. with \
                 .detach_(): {op} saved this {} tensor of shape {:?} as an input while it had \
                 history, and its backward needs it. This is not supported, please use \
                 out-of-place `.detach()` instead",
                t.dtype(),
                t.shape()
            )));
        }
        Ok(t)
    }

    /// Points an output's save (made with an empty weak link while its node was being
    /// built) at that node; other saves are left as they are.
    pub(crate) fn bind_output_node(&self, node: &Weak<dyn Node>) {
        if let Identity::Output { node: n, .. } = &mut self.slot.lock().identity {
            *n = node.clone();
        }
    }

    /// Re-binds a tensor saved during a custom layer's forward as output `output_nr` of
    /// `node`, once the outputs are known: the saved entry then holds only the data and a
    /// weak link, so the output does not keep its own node (and ctx) alive.
    pub fn rebind_as_output(&self, node: &Weak<dyn Node>, output_nr: usize) {
        let mut slot = self.slot.lock();
        if let SavedState::Live(live) = &mut slot.state {
            // (a detached handle of the same memory: the saved mark stays right)
            live.data = live.data.detach();
            // the saved value is the output as it leaves forward (after mark_dirty's bump)
            live.version = live.data.version();
        }
        let old = std::mem::replace(
            &mut slot.identity,
            Identity::Output {
                node: node.clone(),
                output_nr,
            },
        );
        drop(slot);
        drop(old); // (an input's link may hold the last handle of a graph: dropped unlocked)
    }

    /// The saved tensor object itself when it was saved without hooks (to compare it
    /// against a custom layer's outputs).
    pub fn live_tensor(&self) -> Option<Tensor> {
        match &self.slot.lock().state {
            SavedState::Live(live) => Some(live.data.clone()),
            _ => None,
        }
    }

    /// Hands the saved tensor to `hooks` now (PyTorch's `SavedVariable.register_hooks`,
    /// e.g. `grad_fn._raw_saved_self.register_hooks(pack, unpack)`): from then on it is
    /// kept packed and unpacked through them. A tensor can be given hooks once, and not
    /// when a `saved_tensors_hooks` context packed it already.
    pub fn register_hooks(&self, hooks: &dyn SavedTensorHooks, op: &str) -> Result<()> {
        let slot = self.slot.lock();
        let (data, version) = match &slot.state {
            SavedState::Released => return Err(freed_error(op)),
            SavedState::Packed(_) => {
                return Err(Error::runtime(format!(
                    "{op}: this saved tensor already has pack/unpack hooks (register_hooks can \
                     be called once per saved tensor, and not on one that saved_tensors_hooks \
                     packed)"
                )))
            }
            SavedState::Live(live) => (live.data.clone(), live.version),
        };
        drop(slot); // the pack hook is user code, which may read this saved tensor
        if data.version() != version {
            return Err(Error::runtime(format!(
                "{op}: the saved tensor was modified by an in-place operation after it was \
                 saved, so it cannot be packed"
            )));
        }
        let packed = {
            let _g = crate::autograd::grad_mode::no_grad();
            hooks.pack(&data.detach())?
        };
        if data.version() != version {
            return Err(Error::runtime(
                "A saved tensor pack hook is modifying its input in place: a pack hook must \
                 not change the tensor it is given (copy it first, e.g. x.clone())",
            ));
        }
        let mut slot = self.slot.lock();
        if !matches!(slot.state, SavedState::Live(_)) {
            // the hook itself released or packed it: keep what happened
            return Err(freed_error(op));
        }
        let old = std::mem::replace(
            &mut slot.state,
            SavedState::Packed(Arc::new(PackedSave {
                packed,
                shape: data.shape_vec(),
                dtype: data.dtype(),
                counter: data.own_version_counter(),
                version,
                origin: crate::storage_marks::SavedMark::new(data.storage()),
                _cache_off: crate::buffer_cache::Suspension::new(),
            })),
        );
        self.ever_packed.store(true, Ordering::Release);
        drop(slot);
        drop(old);
        Ok(())
    }

    /// Frees the saved data; later unpacks raise the "backward a second time" error.
    pub fn release(&self) {
        let old = std::mem::replace(&mut self.slot.lock().state, SavedState::Released);
        // (dropped unlocked: a packed value's drop is user code, which may read this slot)
        drop(old);
    }
}

/// `data` given back its place in the graph as `identity` says.
fn rebuild(identity: &Identity, data: Tensor) -> Tensor {
    match identity {
        Identity::Constant => data,
        Identity::Leaf(_) if identity.passes_through() => data,
        Identity::Leaf(orig) => crate::autograd::alias::alias_of(&data, orig),
        Identity::NonLeaf { node, output_nr } => {
            let t = data.detach();
            t.set_grad_fn(node.clone(), *output_nr);
            t
        }
        Identity::Output { node, output_nr } => {
            if let Some(node) = node.upgrade() {
                let t = data.detach();
                t.set_grad_fn(NodeRef::new(node), *output_nr);
                t
            } else {
                data
            }
        }
    }
}

/// PyTorch's rule: an inference tensor may be changed in place inside inference mode, out
/// of autograd's sight, so it cannot be saved.
fn refuse_inference(t: &Tensor) -> Result<()> {
    if t.is_inference() {
        return Err(Error::runtime(
            "Inference tensors cannot be saved for backward. Please do not use Tensors \
             created in inference mode in computation tracked by autograd. To work around \
             this, make a clone of the inference tensor outside inference mode \
             (x = x.clone()) and use that instead",
        ));
    }
    Ok(())
}

fn freed_error(op: &str) -> Error {
    Error::runtime(format!(
        "Trying to backward through the graph a second time (or directly access saved tensors \
         after they have already been freed): {op} has already released what it saved. Saved \
         values are freed by backward() and grad(). Specify retain_graph=True in the first call \
         if you need to run backward through the graph again or to read saved tensors after it"
    ))
}
