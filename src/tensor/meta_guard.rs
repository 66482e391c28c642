//! [`MetaGuard`]: the locked autograd metadata of a tensor, which keeps the tensor's
//! lock-free flags in step with it.
//!
//! Whether a tensor requires grad, and its gradient edge, are asked several times per
//! recorded op (the Python binding, the recorder, each input, each save), and each ask
//! locked the metadata: two locked instructions, which cost more time than their
//! instruction count shows. The flags ([`AutogradMeta::flags`]: tracked, plain leaf,
//! stale view possible, constant, leaf hooked) hold as of the last release of the lock,
//! written by the guard itself when it is released (or by [`Tensor::with_meta_mut`] on a
//! handle nothing else shares), so no write to the metadata can miss them. Every access
//! to the metadata is one of the functions here.

use super::{AutogradMeta, Tensor};
use parking_lot::MutexGuard;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU8, Ordering};

/// The locked autograd metadata of a tensor (see the module docs).
pub struct MetaGuard<'a> {
    guard: MutexGuard<'a, AutogradMeta>,
    flags: &'a AtomicU8,
}

impl<'a> MetaGuard<'a> {
    fn new(guard: MutexGuard<'a, AutogradMeta>, flags: &'a AtomicU8) -> Self {
        MetaGuard { guard, flags }
    }
}

impl Deref for MetaGuard<'_> {
    type Target = AutogradMeta;
    #[inline]
    fn deref(&self) -> &AutogradMeta {
        &self.guard
    }
}

impl DerefMut for MetaGuard<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut AutogradMeta {
        &mut self.guard
    }
}

impl Drop for MetaGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // (written while the lock is still held: the guard field is dropped after this)
        self.flags.store(self.guard.flags(), Ordering::Relaxed);
    }
}

impl Tensor {
    /// Locks and returns the autograd metadata.
    #[inline]
    pub fn meta(&self) -> MetaGuard<'_> {
        MetaGuard::new(self.0.meta_cell.lock(), &self.0.flags)
    }

    /// The autograd metadata if it is not locked right now (for GC traversal, which
    /// must never block).
    pub fn try_meta(&self) -> Option<MetaGuard<'_>> {
        let g = self.0.meta_cell.try_lock()?;
        Some(MetaGuard::new(g, &self.0.flags))
    }

    /// The lock-free flags ([`AutogradMeta::flags`]) as of the last release of the lock.
    #[inline]
    pub(super) fn flag_bits(&self) -> u8 {
        self.0.flags.load(Ordering::Relaxed)
    }

    /// Runs `f` on the autograd metadata: without the lock when this handle is the only
    /// one (an op's fresh result, which nothing else can reach yet: two locked
    /// instructions fewer per recorded op or view), else under it. Either way the
    /// lock-free flags follow.
    #[inline]
    pub(crate) fn with_meta_mut<R>(&self, f: impl FnOnce(&mut AutogradMeta) -> R) -> R {
        if self.is_unshared() {
            // SAFETY: this handle is the only one and `&self` borrows it, so no other
            // thread or guard can touch the metadata while `f` runs
            let m = unsafe { &mut *self.0.meta_cell.data_ptr() };
            let r = f(m);
            self.0
                .flags
                .store(m.flags(), std::sync::atomic::Ordering::Relaxed);
            return r;
        }
        f(&mut self.meta())
    }
}

impl AutogradMeta {
    /// The lock-free flags this metadata implies ([`TRACKED`], [`PLAIN_LEAF`],
    /// [`STALE_VIEW_POSSIBLE`], [`CONSTANT`], [`LEAF_HOOKED`]), which the metadata guard
    /// stores whenever it releases the lock.
    #[inline]
    pub(crate) fn flags(&self) -> u8 {
        let mut f = 0;
        if self.tracks() {
            f |= TRACKED;
        } else if self.constant {
            f |= CONSTANT;
        }
        if self.view_base.is_some() && !self.view_frozen {
            f |= STALE_VIEW_POSSIBLE;
        }
        if !self.hooks.is_empty()
            || !self.post_accumulate_hooks.is_empty()
            || self.acc_hooks.is_some()
        {
            f |= LEAF_HOOKED;
        }
        // a leaf whose gradient edge is itself: no view history that could go stale, not
        // an inference view (see `Tensor::gradient_edge`)
        if self.requires_grad
            && self.grad_fn.is_none()
            && self.view_base.is_none()
            && !self.view_inference
        {
            f |= PLAIN_LEAF;
        }
        f
    }
}

/// Lock-free flag: [`AutogradMeta::tracks`].
pub(crate) const TRACKED: u8 = 1;
/// Lock-free flag: a leaf that requires grad, not a view, so its gradient edge is itself
/// (read by [`Tensor::gradient_edge`] without the lock).
pub(crate) const PLAIN_LEAF: u8 = 2;
/// Lock-free flag: a view whose history may have to be regenerated from its base (see
/// `Tensor::view_is_stale`); without it, an untracked tensor is known not to require grad.
pub(crate) const STALE_VIEW_POSSIBLE: u8 = 4;
/// Lock-free flag: [`Tensor::is_constant`].
pub(crate) const CONSTANT: u8 = 8;
/// Lock-free flag: the tensor has gradient hooks, post-accumulate hooks or hooks on its
/// `AccumulateGrad` node (the engine locks a leaf's metadata for them only then).
pub(crate) const LEAF_HOOKED: u8 = 16;

#[cfg(test)]
mod tests {
    use crate::tensor::Tensor;

    fn leaf() -> Tensor {
        Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap()
    }

    /// `requires_grad` (answered without the lock when the flag says yes) follows every
    /// change of the metadata: the setter, a direct write through the guard, an op's
    /// fresh result (its `grad_fn` written without the lock), a shared one, and `detach`.
    #[test]
    fn requires_grad_follows_every_write() {
        let x = leaf();
        assert!(!x.requires_grad());
        x.set_requires_grad(true).unwrap();
        assert!(x.requires_grad());
        x.set_requires_grad(false).unwrap();
        assert!(!x.requires_grad(), "the flag kept a stale yes");
        x.meta().requires_grad = true;
        assert!(x.requires_grad());
        x.meta().requires_grad = false;
        assert!(!x.requires_grad(), "a write through the guard was missed");

        x.set_requires_grad(true).unwrap();
        let y = x.mul_scalar(2.0).unwrap(); // unshared when its grad_fn was set
        assert!(y.requires_grad() && y.grad_fn().is_some());
        let d = y.detach();
        assert!(!d.requires_grad());
        {
            let mut m = y.meta();
            m.grad_fn = None;
            m.requires_grad = false;
        }
        assert!(!y.requires_grad(), "clearing the history was missed");

        // a result with a second handle takes the locked path
        let z = leaf();
        let other = z.clone();
        let node = y_node();
        z.set_grad_fn(node, 0);
        assert!(other.requires_grad() && other.grad_fn().is_some());
    }

    /// A leaf's gradient edge (read without the lock while the "plain leaf" flag is set)
    /// follows every change that makes it something else: requires_grad turned off, a
    /// `grad_fn` given by an in-place op, and a view of it.
    #[test]
    fn a_leaf_edge_follows_every_write() {
        use crate::autograd::Edge;
        let x = leaf();
        assert!(matches!(x.gradient_edge(), Edge::None));
        x.set_requires_grad(true).unwrap();
        assert!(matches!(x.gradient_edge(), Edge::Leaf(l) if l.same(&x)));
        x.set_requires_grad(false).unwrap();
        assert!(
            matches!(x.gradient_edge(), Edge::None),
            "the flag kept a stale leaf"
        );
        x.meta().requires_grad = true;
        assert!(matches!(x.gradient_edge(), Edge::Leaf(_)));
        // a leaf given history (what an in-place op through the guard does)
        x.meta().grad_fn = Some(y_node());
        assert!(
            matches!(x.gradient_edge(), Edge::Node { .. }),
            "a leaf turned non-leaf kept its leaf edge"
        );
        // a view of a leaf is no plain leaf: its edge is its own view node
        let z = leaf();
        z.set_requires_grad(true).unwrap();
        let v = z.reshape(&[2, 1]).unwrap();
        assert!(!matches!(v.gradient_edge(), Edge::Leaf(_)));
    }

    fn y_node() -> crate::autograd::NodeRef {
        let x = leaf();
        x.set_requires_grad(true).unwrap();
        x.mul_scalar(3.0).unwrap().grad_fn().unwrap()
    }
}
