//! Backward nodes, the edges between them, and drop without recursion.
//!
//! A node is created by an op that recorded history; it holds one [`Edge`] per forward
//! input (where that input's gradient goes) and whatever it saved. Every strong reference
//! to a node is a [`NodeRef`], whose drop is deferred onto a thread-local work list, so
//! that dropping a graph of a million nodes never recurses.

use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Shape;
use crate::rare_list::RareList;
use crate::tensor::Tensor;
use parking_lot::{Mutex, MutexGuard};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static NEXT_SEQUENCE: Cell<u64> = const { Cell::new(0) };
}

/// Next creation sequence number (the engine runs later-created nodes first).
///
/// Counted per thread, as PyTorch does: the number only orders nodes that are ready at
/// the same time (dependencies decide when a node is ready), and a shared counter cost a
/// locked instruction per recorded op.
pub fn next_sequence_nr() -> u64 {
    NEXT_SEQUENCE.with(|c| {
        let n = c.get();
        c.set(n + 1);
        n
    })
}

/// A gradient hook: gets the gradient, returns a replacement or `None` to keep it. A hook
/// on an output of a node that runs although that output got no gradient is called with
/// `None` (PyTorch's semantics: the hook sees an undefined gradient); a hook on a leaf is
/// only called with a gradient.
pub type GradHook = Arc<dyn Fn(Option<&Tensor>) -> Result<Option<Tensor>> + Send + Sync>;

/// A node pre-hook (`grad_fn.register_prehook`): sees every gradient flowing into the
/// node (`None` for an output that got none) and may return replacements, one per output.
pub type NodePreHook =
    Arc<dyn Fn(&[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> + Send + Sync>;

/// A node post-hook (`grad_fn.register_hook`): sees the gradients the node computed for
/// its inputs and the ones that flowed in; may return replacements for the computed ones.
pub type NodePostHook = Arc<
    dyn Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>
        + Send
        + Sync,
>;

/// The node hooks of one node, by registration id (run in registration order).
#[derive(Default, Clone)]
pub struct NodeHooks {
    /// Pre-hooks: run before the node's backward.
    pub pre: Vec<(u64, NodePreHook)>,
    /// Post-hooks: run after it.
    pub post: Vec<(u64, NodePostHook)>,
}

/// A backward function in the graph.
pub trait Node: Send + Sync + 'static {
    /// Readable name, e.g. `MulBackward`.
    fn name(&self) -> Cow<'static, str>;
    /// Edges, metadata and hooks shared by all nodes.
    fn base(&self) -> &NodeBase;
    /// Computes one gradient per forward input (`None` = no gradient) from one gradient
    /// per forward output (`None` = not reached; see [`Node::materialize_grads`]).
    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>>;
    /// Frees saved tensors after a backward pass that does not retain the graph.
    fn release_saved(&self) {}
    /// `apply`, then `release_saved` when `release` is set and `apply` succeeded. One
    /// call, so a node that needs the GIL for both (a Python layer) takes it once.
    fn apply_then_release(
        &self,
        grads: Vec<Option<Tensor>>,
        release: bool,
    ) -> Result<Vec<Option<Tensor>>> {
        let out = self.apply(grads)?;
        if release {
            self.release_saved();
        }
        Ok(out)
    }
    /// [`Node::apply_then_release`] in a pass that needs only some input gradients: bit
    /// `k` of `skips` is set when edge `k`'s gradient reaches nothing the pass wants
    /// (`grad(y, x)` with another input that requires grad), so the node may return None
    /// there instead of computing it (PyTorch's output mask). The default computes all.
    fn apply_needed(
        &self,
        grads: Vec<Option<Tensor>>,
        release: bool,
        skips: u64,
    ) -> Result<Vec<Option<Tensor>>> {
        let _ = skips;
        self.apply_then_release(grads, release)
    }
    /// Number of forward outputs, i.e. of gradients `apply` receives.
    fn num_outputs(&self) -> usize {
        1
    }
    /// When true (the default), missing output gradients reach `apply` as zeros.
    fn materialize_grads(&self) -> bool {
        true
    }
    /// Shape and dtype of forward output `i`, used to materialize zero gradients.
    fn output_meta(&self, i: usize) -> Option<InputMeta> {
        let _ = i;
        None
    }
    /// Whether gradients flowing into this node are cast to its outputs' dtypes (the
    /// default); a custom layer may ask to receive them as computed.
    fn casts_incoming_grads(&self) -> bool {
        true
    }
    /// The concrete node, for code that owns a node type (the bindings' PyLayer node).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// The saved tensors that have a name (`self`, `other`, `result`, ...: see
    /// [`crate::autograd::SavedRole`]), for PyTorch's `grad_fn._saved_<name>`; empty for
    /// nodes that save nothing by name.
    fn saved_named(&self) -> Vec<(Cow<'static, str>, &crate::autograd::SavedTensor)> {
        Vec::new()
    }
}

/// Shape and dtype of a forward input, used to validate the gradient produced for it.
#[derive(Clone, Debug)]
pub struct InputMeta {
    /// Shape of the forward input.
    pub shape: Shape,
    /// Dtype of the forward input.
    pub dtype: DType,
}

/// State every node carries.
pub struct NodeBase {
    /// Creation order; larger runs earlier in backward.
    pub sequence_nr: u64,
    /// One per forward input.
    pub edges: SmallVec<[Edge; 2]>,
    /// One per forward input: what its gradient must look like.
    pub inputs: SmallVec<[InputMeta; 2]>,
    /// Hooks on this node's outputs: `(output_nr, id, hook)`, run before `apply`.
    pre_hooks: Mutex<RareList<(usize, u64, GradHook)>>,
    /// Non-leaf outputs that keep their gradient (`retain_grad()`): `(output_nr, tensor)`.
    retained: Mutex<RareList<(usize, crate::tensor::WeakTensor)>>,
    /// Hooks on the node itself (rare: boxed, `None` for almost every node).
    node_hooks: Mutex<Option<Box<NodeHooks>>>,
    /// Set once any of the three lists above was reached (see [`NodeBase::maybe_hooked`]).
    hooked: AtomicBool,
    /// PyTorch's `grad_fn.metadata`, filled by anomaly mode (see
    /// [`crate::autograd::anomaly`]) or on first read; empty for almost every node.
    pub metadata: std::sync::OnceLock<crate::autograd::anomaly::Metadata>,
}

impl NodeBase {
    /// Writes [`NodeBase::new`]`(edges, inputs)` at `p` field by field (a node built in
    /// its heap block: no ~320-byte value assembled on the stack and copied there).
    ///
    /// # Safety
    /// `p` must be valid for writes and properly aligned; whatever it held is overwritten
    /// without being dropped.
    pub unsafe fn write_new(
        p: *mut NodeBase,
        edges: SmallVec<[Edge; 2]>,
        inputs: SmallVec<[InputMeta; 2]>,
    ) {
        use std::ptr::addr_of_mut;
        // SAFETY: the caller's contract; each field is written once
        unsafe {
            addr_of_mut!((*p).sequence_nr).write(next_sequence_nr());
            addr_of_mut!((*p).edges).write(edges);
            addr_of_mut!((*p).inputs).write(inputs);
            addr_of_mut!((*p).pre_hooks).write(Mutex::new(RareList::new()));
            addr_of_mut!((*p).retained).write(Mutex::new(RareList::new()));
            addr_of_mut!((*p).node_hooks).write(Mutex::new(None));
            addr_of_mut!((*p).hooked).write(AtomicBool::new(false));
            addr_of_mut!((*p).metadata).write(crate::autograd::anomaly::initial_metadata());
        }
    }

    /// The hooks on this node's outputs, locked. Every access marks the node as maybe
    /// hooked ([`NodeBase::maybe_hooked`]), so a hook added through it is never skipped.
    pub fn pre_hooks(&self) -> MutexGuard<'_, RareList<(usize, u64, GradHook)>> {
        self.hooked.store(true, Ordering::Release);
        self.pre_hooks.lock()
    }

    /// The outputs that keep their gradient (`retain_grad()`), locked; marks the node as
    /// maybe hooked.
    pub fn retained(&self) -> MutexGuard<'_, RareList<(usize, crate::tensor::WeakTensor)>> {
        self.hooked.store(true, Ordering::Release);
        self.retained.lock()
    }

    /// The node's own hooks, locked; marks the node as maybe hooked.
    pub fn node_hooks(&self) -> MutexGuard<'_, Option<Box<NodeHooks>>> {
        self.hooked.store(true, Ordering::Release);
        self.node_hooks.lock()
    }

    /// False when [`NodeBase::pre_hooks`], [`NodeBase::retained`] and
    /// [`NodeBase::node_hooks`] were never reached: all three are empty, and a backward
    /// pass skips them without taking their locks (six locked instructions per node,
    /// which cost more time than their instruction count shows).
    #[inline]
    pub fn maybe_hooked(&self) -> bool {
        self.hooked.load(Ordering::Acquire)
    }

    /// A base with the given edges and input metadata and a fresh sequence number.
    pub fn new(edges: SmallVec<[Edge; 2]>, inputs: SmallVec<[InputMeta; 2]>) -> Self {
        // (one list of the initial fields: `write_new`'s)
        let mut base = std::mem::MaybeUninit::<NodeBase>::uninit();
        // SAFETY: `base` is valid for writes and aligned; `write_new` initialises every
        // field, so `assume_init` reads an initialised value.
        unsafe {
            NodeBase::write_new(base.as_mut_ptr(), edges, inputs);
            base.assume_init()
        }
    }
}

/// Where a gradient goes: nowhere, into a node's input slot, or into a leaf's `.grad`.
#[derive(Clone)]
pub enum Edge {
    /// The input needs no gradient.
    None,
    /// Input slot `input_nr` of `node` (the input was output `input_nr` of `node`).
    Node {
        /// The producing node.
        node: NodeRef,
        /// Which output of `node` the input was.
        input_nr: usize,
    },
    /// A leaf tensor that requires grad: the gradient accumulates into its `.grad`.
    Leaf(Tensor),
}

impl Edge {
    /// True when a gradient flows along this edge.
    pub fn is_some(&self) -> bool {
        !matches!(self, Edge::None)
    }
}

/// A node's identity in the engine: its address (what [`NodeRef::id`] gives).
#[inline]
pub fn node_id(node: &dyn Node) -> usize {
    node as *const dyn Node as *const () as usize
}

/// A strong reference to a node whose drop never recurses (see the module docs).
pub struct NodeRef(Option<Arc<dyn Node>>);

impl NodeRef {
    /// Wraps a freshly created node.
    pub fn new(node: Arc<dyn Node>) -> Self {
        NodeRef(Some(node))
    }
    /// The shared pointer.
    pub fn arc(&self) -> &Arc<dyn Node> {
        self.0.as_ref().expect("NodeRef used after drop")
    }
    /// Address used as the node's identity in the engine ([`node_id`]).
    pub fn id(&self) -> usize {
        node_id(&**self.arc())
    }
    /// A weak reference.
    pub fn downgrade(&self) -> std::sync::Weak<dyn Node> {
        Arc::downgrade(self.arc())
    }
    /// Moves the reference out, leaving this one empty (any later use of it panics).
    pub fn take(&mut self) -> NodeRef {
        NodeRef(self.0.take())
    }
}

impl Clone for NodeRef {
    fn clone(&self) -> Self {
        NodeRef(self.0.clone())
    }
}

impl Deref for NodeRef {
    type Target = dyn Node;
    fn deref(&self) -> &dyn Node {
        &**self.arc()
    }
}

/// The thread's queue of nodes whose last reference went, and whether a frame is draining
/// it: one thread-local, looked up once per queued node and once per node taken off.
struct Drain {
    draining: Cell<bool>,
    pending: RefCell<Vec<Arc<dyn Node>>>,
}

thread_local! {
    static DRAIN: Drain = const {
        Drain { draining: Cell::new(false), pending: RefCell::new(Vec::new()) }
    };
}

impl Drop for NodeRef {
    fn drop(&mut self) {
        let Some(arc) = self.0.take() else { return };
        if Arc::strong_count(&arc) > 1 {
            return; // not the last reference: plain decrement
        }
        // Last reference: dropping the node may drop more nodes. Queue them and drain
        // in a loop so the stack depth stays constant.
        // (queued: is an outer frame draining already? Err: the thread is shutting down, the
        // closure and the node in it are dropped unqueued, a direct drop)
        let Ok(outer) = DRAIN.try_with(move |d| {
            d.pending.borrow_mut().push(arc);
            d.draining.replace(true)
        }) else {
            return;
        };
        if outer {
            return; // an outer frame is draining
        }
        loop {
            let next = DRAIN.with(|d| d.pending.borrow_mut().pop());
            match next {
                Some(n) => drop(n),
                None => break,
            }
        }
        DRAIN.with(|d| d.draining.set(false));
    }
}
