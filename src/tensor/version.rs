//! A tensor's version counter: the number of in-place writes its family made, which saved
//! tensors and views compare against (PyTorch's `VariableVersion`).
//!
//! The counter belongs to the tensor family (a tensor, its views and its `detach()`es), as
//! in PyTorch. Most tensors use the one kept inline in their [`crate::storage::Storage`]
//! (no allocation per tensor); a tensor gets a counter of its own only from PyTorch's
//! `x.data` ([`Tensor::with_new_version`]: in-place writes through it are out of
//! autograd's sight, what `.data` is for) or `x.data = y` in PyTorch code
//! ([`Tensor::version_counter`]: `x` keeps its counter over `y`'s memory).

use super::Tensor;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

impl Tensor {
    /// The current version: in-place writes so far by this tensor's family.
    #[inline]
    pub fn version(&self) -> u64 {
        match &self.0.counter {
            Some(c) => c.load(Ordering::Acquire),
            None => self.0.storage.version(),
        }
    }

    /// Records one in-place write through this tensor (every in-place write calls this).
    #[inline]
    pub fn bump_version(&self) {
        match &self.0.counter {
            Some(c) => {
                c.fetch_add(1, Ordering::AcqRel);
                self.0.storage.note_other_write();
            }
            None => self.0.storage.bump_version(),
        }
    }

    /// This tensor's counter as a shared handle (the storage's becomes shareable when
    /// this tensor uses it: the tensors over this memory that use it keep doing so).
    pub fn version_counter(&self) -> Arc<AtomicU64> {
        match &self.0.counter {
            Some(c) => c.clone(),
            None => self.0.storage.shared_version(),
        }
    }

    /// The counter this tensor carries (`None`: the storage's), for a tensor that must
    /// share it.
    pub fn own_version_counter(&self) -> Option<Arc<AtomicU64>> {
        self.0.counter.clone()
    }

    /// PyTorch's `x.data`: a tensor over the same memory with the same layout, no
    /// history, and a new version counter at 0.
    pub fn with_new_version(&self) -> Tensor {
        Tensor::with_counter(
            self.0.storage.clone(),
            self.0.layout.clone(),
            Some(Arc::new(AtomicU64::new(0))),
        )
    }

    /// Records that PyTorch code detached this tensor in place while it had history
    /// (see `TensorImpl::detached_in_place`).
    pub fn mark_detached_in_place(&self) {
        self.0.detached_in_place.store(true, Ordering::Release);
    }

    /// Whether [`Tensor::mark_detached_in_place`] was called.
    #[inline]
    pub fn was_detached_in_place(&self) -> bool {
        self.0.detached_in_place.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_share_the_counter_and_data_gets_a_new_one() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        let v = x.detach();
        v.bump_version();
        assert_eq!((x.version(), v.version()), (1, 1));
        let d = x.with_new_version();
        d.bump_version();
        d.detach().bump_version();
        assert_eq!((x.version(), d.version()), (1, 2));
        // every write is seen by the memory
        assert_eq!(x.storage().memory_version(), 3);
    }

    #[test]
    fn a_shared_counter_follows_the_family_onto_other_memory() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        let view = x.detach();
        x.bump_version();
        let y = Tensor::from_vec(vec![3.0f64], &[1]).unwrap();
        let moved = x.rebound(
            y.storage().clone(),
            y.layout().clone(),
            Some(x.version_counter()),
            false,
        );
        assert_eq!(moved.version(), 1);
        moved.bump_version();
        assert_eq!((view.version(), moved.version(), y.version()), (2, 2, 0));
        view.bump_version();
        assert_eq!((moved.version(), moved.detach().version()), (3, 3));
    }
}
