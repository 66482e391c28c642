//! Core tensors that stand for one another: the Python object of `x` is re-pointed at a
//! new core tensor when `x.data = y`, `x.set_(y)` or an in-place view op changes what it
//! shows ([`Tensor::rebound`]); the old one keeps a forward pointer
//! ([`Tensor::replacement`]) and, when the gradient accumulator stays, shares its leaf key
//! ([`Tensor::leaf_key`]) with the new one.

use super::{Tensor, WeakTensor};
use crate::layout::Layout;
use crate::storage::Storage;
use std::sync::Arc;

/// Hands out the leaf keys shared by core tensors that stand for one leaf (see
/// [`Tensor::leaf_key`]): odd numbers, which no tensor's address ([`Tensor::id`], the
/// address of an 8-aligned allocation) can be, so a shared key never collides with the
/// own key of a tensor allocated where a freed one lived.
static NEXT_SHARED_LEAF_KEY: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(1);

impl Tensor {
    /// The identity of this tensor's gradient accumulator (PyTorch's `AccumulateGrad`
    /// node): what the engine matches leaves by, so a graph edge, a `GradientEdge` and
    /// `grad()`'s inputs name the same leaf exactly when their keys are equal. Its own
    /// [`Tensor::id`], unless [`Tensor::rebound`] kept the accumulator (`x.data = y` of
    /// the same shape and dtype): then the old and the new core tensor share a key, read
    /// here at match time, so edges recorded before the change still match `x`. One
    /// relaxed atomic load (no lock).
    #[inline]
    pub fn leaf_key(&self) -> usize {
        match self.0.leaf_key.load(std::sync::atomic::Ordering::Relaxed) {
            0 => self.id(),
            k => k,
        }
    }

    /// The tensor that now stands for this one: itself, unless its Python object was
    /// re-pointed (see [`AutogradMeta::moved_to`](super::AutogradMeta::moved_to)), then the newest replacement alive.
    pub fn current(&self) -> Tensor {
        self.replacement().unwrap_or_else(|| self.clone())
    }

    /// The newest live tensor that replaced this one ([`Tensor::current`]), `None` when
    /// it was never replaced (one atomic load: the common case on hot paths).
    #[inline]
    pub fn replacement(&self) -> Option<Tensor> {
        if !self.0.moved.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        let mut t = self
            .meta()
            .moved_to
            .as_ref()
            .and_then(WeakTensor::upgrade)?;
        while let Some(n) = t.replacement() {
            t = n;
        }
        Some(t)
    }

    /// A new core tensor over `storage` / `layout` that takes over this tensor's autograd
    /// state (requires_grad, `.grad`, history, hooks, `retain_grad`), leaving behind a
    /// forward pointer so a graph recorded earlier still reaches the new one. What the
    /// Python object gets when `x.data = y` changes its shape or dtype, or an in-place
    /// view op (`transpose_`) changes a leaf's layout; `x`'s id stays, as in PyTorch.
    /// `counter` is the new tensor's version counter (see `TensorImpl::counter`).
    ///
    /// The new tensor keeps the old one's gradient accumulator ([`Tensor::leaf_key`]:
    /// `grad()` of a graph recorded before, or a `GradientEdge` taken before, still
    /// names the tensor) unless `new_accumulator` (`x.set_(y)`, as in PyTorch) or the
    /// shape or dtype changed (gradients of the two shapes must never meet in one
    /// accumulator); either way the forward pointer stays, so a graph recorded before
    /// still accumulates into `.grad`.
    pub fn rebound(
        &self,
        storage: Arc<Storage>,
        layout: Layout,
        counter: Option<Arc<std::sync::atomic::AtomicU64>>,
        new_accumulator: bool,
    ) -> Tensor {
        let new = Tensor::with_counter(storage, layout, counter);
        if !new_accumulator && new.shape() == self.shape() && new.dtype() == self.dtype() {
            self.share_leaf_key(&new);
        }
        let mut old = self.meta();
        let mut m = new.meta();
        m.requires_grad = old.requires_grad;
        m.grad_fn = old.grad_fn.clone();
        m.output_nr = old.output_nr;
        m.grad = old.grad.take();
        if let Some(e) = old.ext_grad.take() {
            m.ext_grad = Some(e);
            self.0
                .ext
                .store(false, std::sync::atomic::Ordering::Release);
            new.0.ext.store(true, std::sync::atomic::Ordering::Release);
        }
        m.retains_grad = old.retains_grad;
        m.hooks = std::mem::take(&mut old.hooks);
        m.post_accumulate_hooks = std::mem::take(&mut old.post_accumulate_hooks);
        m.acc_hooks = old.acc_hooks.take();
        m.constant = old.constant;
        if Arc::ptr_eq(&self.0.storage, &new.0.storage) {
            // the same memory seen another way: still a view of the same base
            m.view_base = old.view_base.clone();
            m.view_version = old.view_version;
            m.view_frozen = old.view_frozen;
            m.view_no_grad = old.view_no_grad;
            m.view_inference = old.view_inference;
            m.view_multi_output = old.view_multi_output;
            m.view_created = old.view_created;
            m.view_custom_fn = old.view_custom_fn;
            m.view_spill = old.view_spill.clone();
        }
        if let (true, Some(node)) = (m.retains_grad, &m.grad_fn) {
            // `retain_grad()` keeps a weak handle per output: the new tensor joins it
            node.base().retained().push((m.output_nr, new.downgrade()));
        }
        drop(m);
        old.moved_to = Some(new.downgrade());
        drop(old);
        self.0
            .moved
            .store(true, std::sync::atomic::Ordering::Release);
        new
    }

    /// Gives `new` this tensor's leaf key, first moving this tensor off its own id onto a
    /// shared key (see `NEXT_SHARED_LEAF_KEY`), which edges recorded with it then read.
    fn share_leaf_key(&self, new: &Tensor) {
        use std::sync::atomic::Ordering::Relaxed;
        let mut k = self.0.leaf_key.load(Relaxed);
        if k == 0 {
            let fresh = NEXT_SHARED_LEAF_KEY.fetch_add(2, Relaxed);
            // (another thread rebinding this tensor at once may have given it one first)
            k = match self.0.leaf_key.compare_exchange(0, fresh, Relaxed, Relaxed) {
                Ok(_) => fresh,
                Err(other) => other,
            };
        }
        new.0.leaf_key.store(k, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use crate::autograd::engine::{self, BackwardOptions};
    use crate::tensor::Tensor;

    fn leaf(v: &[f64]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
        t.set_requires_grad(true).unwrap();
        t
    }

    fn moved(x: &Tensor, v: &[f64], new_accumulator: bool) -> Tensor {
        let y = Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
        x.rebound(
            y.storage().clone(),
            y.layout().clone(),
            None,
            new_accumulator,
        )
    }

    /// The gradient of `root` with respect to `input`; `None` when the graph does not
    /// reach it.
    fn grad_of(root: &Tensor, input: &Tensor) -> Option<Vec<f64>> {
        let opts = BackwardOptions {
            retain_graph: true,
            create_graph: false,
        };
        let one = Tensor::scalar(1.0f64);
        let g = engine::grad(
            std::slice::from_ref(root),
            vec![one],
            std::slice::from_ref(input),
            opts,
        )
        .unwrap();
        g[0].as_ref().map(|g| g.to_vec::<f64>().unwrap())
    }

    #[test]
    fn a_kept_accumulator_shares_an_odd_key_and_old_graphs_name_the_new_tensor() {
        let x = leaf(&[1.0, 2.0]);
        assert_eq!(x.leaf_key(), x.id());
        let out = x.mul(&x).unwrap().sum(None, false).unwrap();
        let x1 = moved(&x, &[3.0, 4.0], false);
        assert_eq!(x.leaf_key(), x1.leaf_key());
        assert_eq!(x1.leaf_key() % 2, 1, "a shared key is no address");
        assert_eq!(grad_of(&out, &x1), Some(vec![2.0, 4.0]));
        // a second move keeps the same key
        let x2 = moved(&x1, &[5.0, 6.0], false);
        assert_eq!(x2.leaf_key(), x.leaf_key());
    }

    #[test]
    fn a_new_accumulator_or_another_shape_or_dtype_gets_its_own_key() {
        let x = leaf(&[1.0, 2.0]);
        let out = x.mul(&x).unwrap().sum(None, false).unwrap();
        let x1 = moved(&x, &[3.0, 4.0], true);
        assert_eq!((x.leaf_key(), x1.leaf_key()), (x.id(), x1.id()));
        assert_eq!(grad_of(&out, &x1), None);
        assert_eq!(grad_of(&out, &x), Some(vec![2.0, 4.0]));
        let x2 = moved(&x1, &[3.0, 4.0, 5.0], false);
        assert_ne!(x2.leaf_key(), x1.leaf_key());
        let f = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let x3 = x2.rebound(f.storage().clone(), f.layout().clone(), None, false);
        assert_ne!(x3.leaf_key(), x2.leaf_key());
    }
}
