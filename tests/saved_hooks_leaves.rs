//! A hook level that keeps leaves (`keeps_leaves`) packs only non-leaf saved tensors;
//! the default level packs everything. Gradients are the same either way.

use ferrograd::autograd::engine::{self, BackwardOptions};
use ferrograd::autograd::saved::{self, PackedTensor, SavedTensorHooks};
use ferrograd::tensor::Tensor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

struct Keep(Tensor);
impl PackedTensor for Keep {
    fn unpack(&self) -> ferrograd::Result<Tensor> {
        Ok(self.0.clone())
    }
}

struct Counting {
    packs: AtomicUsize,
    keep_leaves: bool,
}
impl SavedTensorHooks for Counting {
    fn pack(&self, t: &Tensor) -> ferrograd::Result<Arc<dyn PackedTensor>> {
        self.packs.fetch_add(1, Ordering::SeqCst);
        Ok(Arc::new(Keep(t.clone())))
    }
    fn keeps_leaves(&self) -> bool {
        self.keep_leaves
    }
}

fn run(keep_leaves: bool) -> (usize, Vec<f64>) {
    let w = Tensor::from_vec(vec![0.5f64, -1.0, 2.0], &[3]).unwrap();
    w.set_requires_grad(true).unwrap();
    let hooks = Arc::new(Counting {
        packs: AtomicUsize::new(0),
        keep_leaves,
    });
    saved::push_saved_tensor_hooks(hooks.clone()).unwrap();
    // w * w saves the leaf w twice; tanh saves its (non-leaf) output
    let y = w.mul(&w).unwrap().tanh().unwrap().sum(None, false).unwrap();
    saved::pop_saved_tensor_hooks();
    let g = y.ones_like().unwrap();
    engine::backward(
        std::slice::from_ref(&y),
        vec![g],
        BackwardOptions {
            retain_graph: false,
            create_graph: false,
        },
    )
    .unwrap();
    let grad = w.grad().unwrap().to_vec::<f64>().unwrap();
    (hooks.packs.load(Ordering::SeqCst), grad)
}

#[test]
fn leaves_are_not_packed_when_the_level_keeps_them() {
    let (all, g_all) = run(false);
    let (kept, g_kept) = run(true);
    assert_eq!(all, 3);
    assert_eq!(kept, 1);
    assert_eq!(g_all, g_kept);
}
