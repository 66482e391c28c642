//! What one backward pass is for and what it must not cross: its [`Targets`] (every
//! leaf, or the given inputs of `grad()`), the [`Blocked`] edges (Paddle's
//! `no_grad_vars`), the pointer-keyed maps the engine indexes nodes and leaves by, and
//! the gradient edges of the tensors a pass starts from or ends at.

use crate::autograd::node::Edge;
use crate::error::{Error, Result};
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

/// Options of one backward pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct BackwardOptions {
    /// Keep saved tensors so the graph can be run again.
    pub retain_graph: bool,
    /// Run with grad mode on so the gradients get a graph of their own.
    pub create_graph: bool,
}

/// What the pass is for: accumulating into leaves, or capturing given inputs.
pub(crate) enum Targets {
    /// `backward()`: every reachable leaf accumulates into `.grad`.
    AllLeaves,
    /// `grad()`: capture the gradient of each input; keyed by node id + slot or leaf id.
    /// With `accumulate` (`backward(inputs=)`), leaves among the inputs accumulate into
    /// `.grad` as in a full `backward()` (their `AccumulateGrad` hooks included), and the
    /// nodes of non-leaf inputs run (their node hooks included), as PyTorch's engine does.
    Inputs {
        nodes: PtrMap<Vec<(usize, usize)>>,
        leaves: PtrMap<Vec<usize>>,
        count: usize,
        accumulate: bool,
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
                    b.leaves.insert(l.leaf_key(), ());
                }
                Edge::None => {}
            }
        }
        b
    }
    #[inline(always)]
    pub(crate) fn blocks(&self, e: &Edge) -> bool {
        // nothing blocked (every pass but `grad(..., inputs)` through an input's history):
        // no hashing per edge, and no call (the engine asks once or twice per edge)
        if self.slots.is_empty() && self.leaves.is_empty() {
            return false;
        }
        self.blocks_listed(e)
    }

    #[inline(never)]
    fn blocks_listed(&self, e: &Edge) -> bool {
        match e {
            Edge::Node { node, input_nr } => self
                .slots
                .get(&node.id())
                .is_some_and(|v| v.contains(input_nr)),
            Edge::Leaf(l) => self.leaves.contains_key(&l.leaf_key()),
            Edge::None => false,
        }
    }
}

/// The gradient edge of each root; an error names the first root that needs no grad.
pub fn root_edges(roots: &[Tensor]) -> Result<Vec<Edge>> {
    (roots.iter().enumerate())
        .map(|(i, r)| root_edge(r, i))
        .collect()
}

/// The gradient edge of root `i`; an error when it needs no grad.
pub fn root_edge(r: &Tensor, i: usize) -> Result<Edge> {
    let e = r.gradient_edge();
    if !e.is_some() {
        return Err(Error::runtime(format!(
            "element {i} of the tensors to differentiate does not require grad and has no \
             grad_fn: nothing that requires grad was used to compute it (set \
             requires_grad=True / stop_gradient=False on the inputs first)"
        )));
    }
    Ok(e)
}

/// The gradient edge of each input tensor; an error names the first that needs no grad.
pub(crate) fn tensor_edges(inputs: &[Tensor], what: &str) -> Result<Vec<Edge>> {
    (inputs.iter().enumerate())
        .map(|(k, t)| input_edge(t, k, what))
        .collect()
}

/// The gradient edge of input `k` of `what` (`"grad()"`); an error when it needs no grad.
pub fn input_edge(t: &Tensor, k: usize, what: &str) -> Result<Edge> {
    let e = t.gradient_edge();
    if !e.is_some() {
        return Err(Error::runtime(format!(
            "{what}: input {k} does not require grad, so it has no gradient; set \
             requires_grad=True (stop_gradient=False) on it before computing the outputs"
        )));
    }
    Ok(e)
}

/// The targets of an input-restricted pass over the edges `inputs`.
pub(crate) fn input_targets(inputs: &[Edge], accumulate: bool) -> Result<Targets> {
    let mut nodes: PtrMap<Vec<(usize, usize)>> = PtrMap::default();
    let mut leaves: PtrMap<Vec<usize>> = PtrMap::default();
    for (k, e) in inputs.iter().enumerate() {
        match e {
            Edge::None => {
                return Err(Error::runtime(format!(
                    "input {k} is an edge that carries no gradient (it needs no grad)"
                )))
            }
            Edge::Leaf(l) => leaves.entry(l.leaf_key()).or_default().push(k),
            Edge::Node { node, input_nr } => {
                nodes.entry(node.id()).or_default().push((*input_nr, k))
            }
        }
    }
    Ok(Targets::Inputs {
        nodes,
        leaves,
        count: inputs.len(),
        accumulate,
    })
}

impl Targets {
    /// The edges (bit k: edge k, k < 64) of a node about to run whose gradient reaches
    /// nothing this pass wants — a blocked edge, a child node for which `child_reaches(k)`
    /// is false, a leaf that is not a target — so the node may leave them out
    /// ([`crate::autograd::node::Node::apply_needed`]).
    pub(crate) fn unneeded_edges(
        &self,
        edges: &[Edge],
        blocked: &Blocked,
        child_reaches: impl Fn(usize) -> bool,
    ) -> u64 {
        let mut skips = 0u64;
        for (k, e) in edges.iter().enumerate().take(64) {
            let needed = !blocked.blocks(e)
                && match e {
                    Edge::Node { .. } => child_reaches(k),
                    Edge::Leaf(l) => match self {
                        Targets::AllLeaves => true,
                        Targets::Inputs { leaves, .. } => leaves.contains_key(&l.leaf_key()),
                    },
                    Edge::None => true,
                };
            if !needed {
                skips |= 1 << k;
            }
        }
        skips
    }
}
