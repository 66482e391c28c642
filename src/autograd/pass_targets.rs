//! What one backward pass is for and what it must not cross: its [`Targets`] (every
//! leaf, or the given inputs of `grad()`), the [`Blocked`] edges (Paddle's
//! `no_grad_vars`), and the pointer-keyed maps the engine indexes nodes and leaves by.

use crate::autograd::node::Edge;
use crate::tensor::Tensor;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hasher for pointer keys: addresses are already well spread; mixing them once is enough.
#[derive(Default)]
pub(crate) struct PtrHasher(u64);
impl Hasher for PtrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("PtrHasher only hashes usize keys")
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_right(29);
    }
}
pub(crate) type PtrMap<V> = HashMap<usize, V, BuildHasherDefault<PtrHasher>>;

/// What the pass is for: accumulating into leaves, or capturing given inputs.
pub(crate) enum Targets {
    /// `backward()`: every reachable leaf accumulates into `.grad`.
    AllLeaves,
    /// `grad()`: capture the gradient of each input; keyed by node id + slot or leaf id.
    Inputs {
        nodes: PtrMap<Vec<(usize, usize)>>,
        leaves: PtrMap<Vec<usize>>,
        count: usize,
    },
}

/// Edges that gradients must not cross (Paddle's `no_grad_vars`): the tensors are treated
/// as constants.
#[derive(Default)]
pub(crate) struct Blocked {
    slots: PtrMap<Vec<usize>>,
    leaves: PtrMap<()>,
}

impl Blocked {
    pub(crate) fn new(tensors: &[Tensor]) -> Blocked {
        let mut b = Blocked::default();
        for t in tensors {
            match t.gradient_edge() {
                Edge::Node { node, input_nr } => {
                    b.slots.entry(node.id()).or_default().push(input_nr)
                }
                Edge::Leaf(l) => {
                    b.leaves.insert(l.id(), ());
                }
                Edge::None => {}
            }
        }
        b
    }
    pub(crate) fn blocks(&self, e: &Edge) -> bool {
        match e {
            Edge::Node { node, input_nr } => self
                .slots
                .get(&node.id())
                .is_some_and(|v| v.contains(input_nr)),
            Edge::Leaf(l) => self.leaves.contains_key(&l.id()),
            Edge::None => false,
        }
    }
}
