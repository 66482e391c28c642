//! [`MetaGuard`]: the locked autograd metadata of a tensor, which keeps the tensor's
//! lock-free "tracked" flag in step with it.
//!
//! Whether a tensor requires grad is asked several times per recorded op (the Python
//! binding, the recorder, each input), and each ask locked the metadata: two locked
//! instructions, which cost more time than their instruction count shows. The flag holds
//! `requires_grad || grad_fn.is_some()` as of the last release of the lock, written by the
//! guard itself when it is released, so no write to the metadata can miss it.

use super::AutogradMeta;
use parking_lot::MutexGuard;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// The locked autograd metadata of a tensor (see the module docs).
pub struct MetaGuard<'a> {
    guard: MutexGuard<'a, AutogradMeta>,
    tracked: &'a AtomicBool,
}

impl<'a> MetaGuard<'a> {
    pub(super) fn new(guard: MutexGuard<'a, AutogradMeta>, tracked: &'a AtomicBool) -> Self {
        MetaGuard { guard, tracked }
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
        self.tracked.store(self.guard.tracks(), Ordering::Relaxed);
    }
}

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

    fn y_node() -> crate::autograd::NodeRef {
        let x = leaf();
        x.set_requires_grad(true).unwrap();
        x.mul_scalar(3.0).unwrap().grad_fn().unwrap()
    }
}
