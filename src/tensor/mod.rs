//! The [`Tensor`] handle: shared storage, a layout, and autograd metadata.
//!
//! Cloning a `Tensor` clones an `Arc`; two clones are the same tensor (same `.grad`, same
//! `grad_fn`). Views are new tensors over the same [`Storage`].

mod binary;
mod bitcast;
mod complex;
mod creation;
mod ext_grad;
pub mod grid_sample;
mod inplace_check;
pub mod linalg;
mod meta_guard;
pub mod random;
mod rebound;
pub mod reduce;
pub mod shape;
mod unary;
mod version;
mod view_meta;
pub use meta_guard::MetaGuard;
pub(crate) use meta_guard::{CONSTANT, LEAF_HOOKED, PLAIN_LEAF, STALE_VIEW_POSSIBLE, TRACKED};
pub use view_meta::ViewCreation;

pub(crate) use binary::check_fits;
pub use binary::BinaryOp;
pub use creation::*;
pub use reduce::ReduceOp;
pub use unary::UnaryOp;

use crate::autograd::node::{Edge, GradHook, NodeRef};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::{Layout, Shape};
use crate::storage::Storage;
use parking_lot::Mutex;
use std::sync::Arc;

/// An opaque gradient object kept outside the core (see [`AutogradMeta::ext_grad`]).
pub type ExtGrad = Arc<dyn std::any::Any + Send + Sync>;

/// Autograd state of one tensor.
#[derive(Default)]
pub struct AutogradMeta {
    /// For leaves: whether gradients accumulate into `.grad`. Non-leaves: true.
    pub requires_grad: bool,
    /// The node that produced this tensor (`None` for leaves).
    pub grad_fn: Option<NodeRef>,
    /// Which output of `grad_fn` this tensor is.
    pub output_nr: usize,
    /// Accumulated gradient.
    pub grad: Option<Tensor>,
    /// A gradient kept outside the core (a sparse `.grad`, a Python object owned by the
    /// bindings); when set, `grad` is `None`, and `TensorImpl::ext` is set so readers of
    /// the dense slot (optimizers) can refuse without taking the lock.
    pub ext_grad: Option<ExtGrad>,
    /// Non-leaf that keeps its gradient in `.grad` (`retain_grad()`).
    pub retains_grad: bool,
    /// Hooks on a leaf's gradient `(id, hook)`; a non-leaf's live on its `grad_fn`.
    pub hooks: crate::rare_list::RareList<(u64, GradHook)>,
    /// Hooks run on a leaf after its `.grad` was updated by a backward pass `(id, hook)`.
    pub post_accumulate_hooks:
        crate::rare_list::RareList<(u64, crate::autograd::callbacks::PostAccumulateHook)>,
    /// For a leaf: the hooks on its `AccumulateGrad` node (`register_prehook` /
    /// `register_hook` on `x.view_as(x).grad_fn.next_functions[0][0]`), rare, so boxed.
    pub acc_hooks: Option<Box<crate::autograd::node::NodeHooks>>,
    /// For a view made by a view op: the tensor whose memory it shares (the root: never
    /// itself a view). In-place writes through the view rebase the root's history
    /// (`autograd::ops::copy_slices`).
    pub view_base: Option<Tensor>,
    /// For a view: the version its `grad_fn` was last in step with its base at;
    /// when the memory changed since, the history is regenerated from the base.
    pub view_version: u64,
    /// For a view: its history is never regenerated from the base (made under no_grad of
    /// a base that required grad, or cut with `stop_gradient = True`).
    pub view_frozen: bool,
    /// For a view made under no_grad of a base that required grad: in-place writes
    /// through it with grad mode on are refused (PyTorch's rule).
    pub view_no_grad: bool,
    /// For a view made inside inference mode of a normal tensor that requires grad: it
    /// reports `requires_grad` but is not tracked (no history, no gradient), and an
    /// in-place write through it, or reading its history after its memory changed, is
    /// refused (PyTorch's rule).
    pub view_inference: bool,
    /// For a view among several a single op returned (`split`, `unbind`) while recording,
    /// and views of it: in-place writes through it are refused (PyTorch's rule).
    pub view_multi_output: bool,
    /// For a view: the mode it was made in (PyTorch's creation meta), whether or not its
    /// base requires grad, and inherited by the views of a view made under `no_grad` or
    /// inference mode; an in-place write with grad mode on to such a view of a view that
    /// requires grad is refused (`check_inplace`).
    pub view_created: ViewCreation,
    /// For a view a custom `Function` returned while recording no graph (no input
    /// required grad), and views of it: a later in-place write that requires grad is
    /// refused, as in PyTorch (the layer's backward would be bypassed).
    pub view_custom_fn: bool,
    /// For an `as_strided` view that reads memory of its root outside its input's
    /// elements, and views of it: set once an in-place write through it is tracked, after
    /// which its `AsStridedBackward` passes that memory's gradient to the root (see
    /// `autograd::ops::as_strided`). None for every other tensor.
    pub view_spill: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// A number the library made into a tensor (a Python scalar operand, a constant of a
    /// backward formula): saved as is, never handed to saved-tensor pack hooks.
    pub constant: bool,
    /// Set when the Python tensor that stood for this one was re-pointed at another core
    /// tensor (`x.data = y`, `x.transpose_(0, 1)` on a leaf, see [`Tensor::rebound`]): a
    /// graph recorded before still delivers its gradient, and a hook handle still removes
    /// its hook, there.
    pub moved_to: Option<WeakTensor>,
}

impl AutogradMeta {
    /// Whether gradients flow to or through the tensor by this metadata alone (a view's
    /// stale history aside): what [`Tensor::requires_grad`] answers, and what the
    /// lock-free [`TRACKED`] flag mirrors (see `meta_guard.rs`).
    #[inline]
    pub fn tracks(&self) -> bool {
        self.requires_grad || self.grad_fn.is_some()
    }
}

/// Storage + layout + autograd metadata; always used through [`Tensor`].
pub struct TensorImpl {
    storage: Arc<Storage>,
    layout: Layout,
    /// Reached only through [`Tensor::meta`] / [`Tensor::try_meta`] (their guard keeps
    /// `flags` in step).
    meta_cell: Mutex<AutogradMeta>,
    /// [`AutogradMeta::flags`] as of the last release of the metadata's lock (see
    /// `meta_guard.rs`): [`Tensor::requires_grad`] and a leaf's gradient edge without the
    /// lock.
    flags: std::sync::atomic::AtomicU8,
    /// An opaque handle of the binding object that wraps this tensor (0 when none): the
    /// Python bindings keep the address of the first live Python wrapper here, so that
    /// `view._base` and saved tensors give back that same object. Not a reference.
    owner: std::sync::atomic::AtomicUsize,
    /// Set once [`AutogradMeta::moved_to`] is: lets the hot paths skip the lock.
    moved: std::sync::atomic::AtomicBool,
    /// Set while [`AutogradMeta::ext_grad`] is: a lock-free check for readers of `.grad`.
    ext: std::sync::atomic::AtomicBool,
    /// Set when PyTorch code detached this tensor in place (`detach_()`) while it had
    /// history: a built-in node that saved it as an input refuses to use it (PyTorch).
    detached_in_place: std::sync::atomic::AtomicBool,
    /// This tensor's version counter when it has one of its own (PyTorch's `x.data`, and
    /// `x` after `x.data = y`); `None`, the common case, uses the storage's
    /// ([`Tensor::version`]). Views and `detach()` inherit it.
    counter: Option<Arc<std::sync::atomic::AtomicU64>>,
    /// This tensor's leaf key when it shares its gradient accumulator with another core
    /// tensor (see [`Tensor::leaf_key`]); 0, the common case, means its own [`Tensor::id`].
    leaf_key: std::sync::atomic::AtomicUsize,
}

/// A cheap, shared handle to a tensor.
#[derive(Clone)]
pub struct Tensor(Arc<TensorImpl>);

/// A weak handle: does not keep the tensor alive.
#[derive(Clone)]
pub struct WeakTensor(std::sync::Weak<TensorImpl>);

impl WeakTensor {
    /// The tensor, if it is still alive.
    pub fn upgrade(&self) -> Option<Tensor> {
        self.0.upgrade().map(Tensor)
    }

    /// Whether `t` is the tensor this handle points at. (No upgrade, which costs two
    /// locked instructions: the weak handle keeps the allocation from being reused, so a
    /// live tensor at the same address is this one.)
    pub fn is(&self, t: &Tensor) -> bool {
        std::ptr::eq(self.0.as_ptr(), Arc::as_ptr(&t.0))
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, dtype={})",
            self.shape(),
            self.dtype()
        )
    }
}

/// A writable pointer to the value of an `Arc` made just now, to build it in place.
///
/// (`Arc::get_mut` gives the same pointer after checking that no other reference exists,
/// with an atomic compare-exchange on the weak count: a locked instruction per tensor and
/// per node, which costs more time than its instruction count shows.)
///
/// # Safety
/// No other strong or weak reference to `arc` may exist, and no reference into its value
/// may be alive while the pointer is used.
#[inline]
pub(crate) unsafe fn fresh_arc_ptr<T>(arc: &Arc<std::mem::MaybeUninit<T>>) -> *mut T {
    // `Arc::as_ptr` derives the pointer from the Arc's own `NonNull` (write provenance),
    // as `Arc::get_mut` does; the caller guarantees that nothing else can observe it
    Arc::as_ptr(arc) as *mut std::mem::MaybeUninit<T> as *mut T
}

impl Tensor {
    /// A tensor over `storage` seen through `layout`, with no autograd history.
    pub fn from_parts(storage: Arc<Storage>, layout: Layout) -> Tensor {
        Tensor::with_counter(storage, layout, None)
    }

    /// [`Tensor::from_parts`] with the version counter `counter` (see `TensorImpl::counter`).
    fn with_counter(
        storage: Arc<Storage>,
        mut layout: Layout,
        counter: Option<Arc<std::sync::atomic::AtomicU64>>,
    ) -> Tensor {
        if layout.numel() == 0 {
            // A view with no elements reads nothing; an offset left over from the view
            // that made it (`zeros(3, 0)[2]`) may lie past the end of the storage, and
            // kernels slice `offset..offset + numel`, so every empty view starts at 0.
            layout.offset = 0;
        }
        debug_assert!(layout.numel() == 0 || layout.storage_span().1 <= storage.len());
        // built field by field in its heap block: `Arc::new(TensorImpl { .. })` assembles
        // the ~300-byte value on the stack and copies it there (a `memcpy` per tensor)
        let inner = Arc::<TensorImpl>::new_uninit();
        // SAFETY: `inner` was just made: nothing else refers to it
        let p = unsafe { fresh_arc_ptr(&inner) };
        // SAFETY: `p` points at the new Arc's uninitialised, unaliased TensorImpl; each
        // field is written exactly once, nothing reads it before, and `assume_init` comes
        // after the last write.
        unsafe {
            use std::ptr::addr_of_mut;
            use std::sync::atomic::{AtomicBool, AtomicUsize};
            addr_of_mut!((*p).storage).write(storage);
            addr_of_mut!((*p).layout).write(layout);
            addr_of_mut!((*p).meta_cell).write(Mutex::new(AutogradMeta::default()));
            addr_of_mut!((*p).flags).write(std::sync::atomic::AtomicU8::new(0));
            addr_of_mut!((*p).owner).write(AtomicUsize::new(0));
            addr_of_mut!((*p).moved).write(AtomicBool::new(false));
            addr_of_mut!((*p).ext).write(AtomicBool::new(false));
            addr_of_mut!((*p).detached_in_place).write(AtomicBool::new(false));
            addr_of_mut!((*p).counter).write(counter);
            addr_of_mut!((*p).leaf_key).write(AtomicUsize::new(0));
            Tensor(inner.assume_init())
        }
    }

    /// A contiguous tensor owning `data` with `shape`; errors if the sizes differ.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let n = crate::layout::checked_numel(shape)?;
        if n != data.len() {
            return Err(Error::value(format!(
                "cannot make a tensor of shape {shape:?} ({n} elements) from {} values",
                data.len()
            )));
        }
        Ok(Tensor::from_parts(
            Arc::new(Storage::from_vec(data)),
            Layout::contiguous(shape),
        ))
    }

    /// A 0-d tensor holding `value`.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::from_parts(
            Arc::new(Storage::from_vec(vec![value])),
            Layout::contiguous(&[]),
        )
    }

    /// The shared storage.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.0.storage
    }

    /// An inference tensor: its memory was allocated inside inference mode (views of it
    /// share that memory and are inference tensors too). Autograd treats it as a constant.
    #[inline]
    pub fn is_inference(&self) -> bool {
        self.0.storage.is_inference()
    }

    /// Shape, strides and offset.
    pub fn layout(&self) -> &Layout {
        &self.0.layout
    }

    /// Dimensions.
    pub fn shape(&self) -> &[usize] {
        &self.0.layout.shape
    }

    /// Dimensions as an owned small vector.
    pub fn shape_vec(&self) -> Shape {
        // (as a slice copy: smallvec's `clone` pushes element by element)
        Shape::from_slice(&self.0.layout.shape)
    }

    /// Element dtype.
    pub fn dtype(&self) -> DType {
        self.0.storage.dtype()
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.0.layout.ndim()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.0.layout.numel()
    }

    /// True when the elements are row-major without gaps.
    pub fn is_contiguous(&self) -> bool {
        self.0.layout.is_contiguous()
    }

    /// Identity of this tensor object (address of its shared state).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// True when `self` and `other` are the same tensor object.
    pub fn same(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// A weak handle to this tensor object.
    pub fn downgrade(&self) -> WeakTensor {
        WeakTensor(Arc::downgrade(&self.0))
    }

    /// Number of live handles to this tensor object.
    pub fn handle_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// The binding object recorded by [`Tensor::set_owner_if_none`] (0 when none).
    pub fn owner(&self) -> usize {
        self.0.owner.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Records `owner` as this tensor's binding object unless one is recorded.
    pub fn set_owner_if_none(&self, owner: usize) {
        use std::sync::atomic::Ordering;
        if self.is_unshared() {
            // no other handle: nothing can write the record meanwhile (a plain store
            // instead of a locked compare-exchange on every op's result)
            if self.0.owner.load(Ordering::Relaxed) == 0 {
                self.0.owner.store(owner, Ordering::Release);
            }
            return;
        }
        let _ = self
            .0
            .owner
            .compare_exchange(0, owner, Ordering::AcqRel, Ordering::Relaxed);
    }

    /// True when this handle is the only one, strong or weak: nothing else can reach the
    /// tensor, so writes that must otherwise be atomic or locked can be plain. (Two plain
    /// loads; while `&self` is held, no other handle can be made from nothing.)
    #[inline]
    pub(crate) fn is_unshared(&self) -> bool {
        Arc::strong_count(&self.0) == 1 && Arc::weak_count(&self.0) == 0
    }

    /// Forgets `owner` if it is the recorded binding object (it is going away).
    pub fn clear_owner(&self, owner: usize) {
        use std::sync::atomic::Ordering;
        // A record of `owner` is changed by nobody but `owner`'s own deallocation (here):
        // `set_owner_if_none` writes only over 0. So a load and a store do what a locked
        // compare-exchange did, on every tensor object freed.
        if self.0.owner.load(Ordering::Acquire) == owner {
            self.0.owner.store(0, Ordering::Release);
        }
    }

    /// True when gradients flow to or through this tensor.
    #[inline]
    pub fn requires_grad(&self) -> bool {
        // (the lock-free flag answers "yes" exactly when the locked check below would)
        let flags = self.flag_bits();
        if flags & TRACKED != 0 {
            return true;
        }
        if flags & STALE_VIEW_POSSIBLE == 0 {
            return false;
        }
        let m = self.meta();
        if m.tracks() {
            return true;
        }
        // a view of a base that began to require grad after the view was taken
        let stale = self.view_is_stale(&m);
        drop(m);
        if stale {
            crate::autograd::ops::copy_slices::regenerate_view(self);
            return self.meta().tracks();
        }
        false
    }

    /// True for a view whose base's memory was written since its history was recorded
    /// (its `grad_fn` must be regenerated from the base before use).
    #[inline]
    fn view_is_stale(&self, m: &AutogradMeta) -> bool {
        m.view_base.is_some() && !m.view_frozen && m.view_version != self.version()
    }

    /// Regenerates a stale view's history from its base (see [`Self::view_is_stale`]).
    #[inline]
    fn refresh_view(&self) {
        let stale = {
            let m = self.meta();
            self.view_is_stale(&m)
        };
        if stale {
            crate::autograd::ops::copy_slices::regenerate_view(self);
        }
    }

    /// Marks this tensor as a library-made constant (see [`AutogradMeta::constant`]).
    pub fn mark_constant(self) -> Tensor {
        self.with_meta_mut(|m| m.constant = true);
        self
    }

    /// True for a library-made constant that does not take part in autograd.
    pub fn is_constant(&self) -> bool {
        // (the lock-free flag: asked by every save)
        self.flag_bits() & CONSTANT != 0
    }

    /// Whether this tensor may have hooks of any kind ([`LEAF_HOOKED`]): when not, a
    /// backward pass finishing its gradient skips looking for them under the lock.
    #[inline]
    pub(crate) fn may_have_hooks(&self) -> bool {
        self.flag_bits() & LEAF_HOOKED != 0
    }

    /// True when the tensor has no `grad_fn` (created by the user, or not requiring grad).
    pub fn is_leaf(&self) -> bool {
        self.refresh_view();
        self.meta().grad_fn.is_none()
    }

    /// The node that produced this tensor, if any.
    pub fn grad_fn(&self) -> Option<NodeRef> {
        {
            let m = self.meta();
            if !self.view_is_stale(&m) {
                return m.grad_fn.clone();
            }
        }
        crate::autograd::ops::copy_slices::regenerate_view(self);
        self.meta().grad_fn.clone()
    }

    /// Which output of its `grad_fn` this tensor is.
    pub fn output_nr(&self) -> usize {
        self.refresh_view();
        self.meta().output_nr
    }

    /// Sets whether gradients are tracked. Only floating and complex tensors may require
    /// grad. Setting `false` on a non-leaf detaches it from its graph (Paddle semantics).
    pub fn set_requires_grad(&self, flag: bool) -> Result<()> {
        if flag && !self.dtype().is_differentiable() {
            return Err(Error::runtime(format!(
                "only tensors of floating point or complex dtype can require gradients, but \
                 this tensor is {}; convert it first, e.g. x.astype('float32')",
                self.dtype()
            )));
        }
        let mut m = self.meta();
        if !flag {
            m.grad_fn = None;
            m.output_nr = 0;
            // a view cut from its graph stays cut when its base's memory changes
            m.view_frozen = true;
        }
        m.requires_grad = flag;
        Ok(())
    }

    /// Attaches history: this tensor becomes output `output_nr` of `node`.
    pub fn set_grad_fn(&self, node: NodeRef, output_nr: usize) {
        self.with_meta_mut(|m| {
            m.grad_fn = Some(node);
            m.output_nr = output_nr;
            m.requires_grad = true;
        });
    }

    /// The accumulated gradient.
    pub fn grad(&self) -> Option<Tensor> {
        self.meta().grad.clone()
    }

    /// Replaces `.grad`; a gradient must have this tensor's shape.
    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.shape() != self.shape() {
                return Err(Error::value(format!(
                    "attempting to assign a gradient of shape {:?} to a tensor of shape {:?}; \
                     the shapes must match",
                    g.shape(),
                    self.shape()
                )));
            }
        }
        let mut m = self.meta();
        m.grad = grad;
        if m.ext_grad.take().is_some() {
            self.0
                .ext
                .store(false, std::sync::atomic::Ordering::Release);
        }
        Ok(())
    }

    /// Where a gradient for this tensor goes in backward.
    pub fn gradient_edge(&self) -> Edge {
        // a plain leaf's edge is itself: no lock (asked for every input of every op)
        if self.flag_bits() & PLAIN_LEAF != 0 {
            return Edge::Leaf(self.clone());
        }
        let mut m = self.meta();
        if self.view_is_stale(&m) {
            drop(m);
            crate::autograd::ops::copy_slices::regenerate_view(self);
            m = self.meta();
        }
        match &m.grad_fn {
            Some(node) => Edge::Node {
                node: node.clone(),
                input_nr: m.output_nr,
            },
            // a view made in inference mode is not tracked (see `view_inference`)
            None if m.requires_grad && !m.view_inference => Edge::Leaf(self.clone()),
            None => Edge::None,
        }
    }

    /// A new tensor over the same storage with another layout and no history.
    /// It shares this tensor's version counter.
    pub fn view_with(&self, layout: Layout) -> Tensor {
        Tensor::with_counter(self.0.storage.clone(), layout, self.0.counter.clone())
    }

    /// Same data, no history, never requires grad (shares storage).
    pub fn detach(&self) -> Tensor {
        self.view_with(self.0.layout.clone())
    }

    /// Copies the elements out in row-major order as `Vec<T>`; `T` must match the dtype.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype() {
            return Err(Error::type_err(format!(
                "to_vec: tensor is {}, asked for {}",
                self.dtype(),
                T::DTYPE
            )));
        }
        crate::kernels::copy::gather::<T>(&self.storage().read::<T>(), self.layout())
    }

    /// The single element as f64 (real part for complex); errors unless numel is 1.
    pub fn item_f64(&self) -> Result<f64> {
        if self.numel() != 1 {
            return Err(Error::value(format!(
                "only a tensor with one element can be converted to a Python scalar, but this \
                 one has shape {:?} ({} elements)",
                self.shape(),
                self.numel()
            )));
        }
        let off = self.layout().offset;
        Ok(crate::with_dtype!(self.dtype(), T, {
            self.storage().read::<T>()[off].to_f64()
        }))
    }
}
