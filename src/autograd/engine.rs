//! The backward engine: iterative graph discovery with dependency counting, a ready
//! queue ordered by creation sequence, per-node input buffers, validation of what each
//! node returns, leaf accumulation, and `grad()` over the part of the graph that matters.

use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::leaf_grad::accumulate_into_leaf;
use crate::autograd::node::{Edge, NodeRef};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

/// Hasher for pointer keys: addresses are already well spread; mixing them once is enough.
#[derive(Default)]
struct PtrHasher(u64);
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
type PtrMap<V> = HashMap<usize, V, BuildHasherDefault<PtrHasher>>;

/// Options of one backward pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct BackwardOptions {
    /// Keep saved tensors so the graph can be run again.
    pub retain_graph: bool,
    /// Run with grad mode on so the gradients get a graph of their own.
    pub create_graph: bool,
}

/// `NodeState::children` entry of an edge that leads to no node (or is blocked).
const NO_CHILD: u32 = u32::MAX;

struct NodeState {
    node: NodeRef,
    deps: usize,
    buffer: Vec<Option<Tensor>>,
    /// Per edge: the index of the child node's state, or [`NO_CHILD`].
    children: smallvec::SmallVec<[u32; 2]>,
    /// Some path from this node leads to a wanted gradient.
    reaches: bool,
    /// The node must run (a child edge reaches a wanted gradient).
    execute: bool,
}

struct LeafState {
    leaf: Tensor,
    deps: usize,
    buffer: Option<Tensor>,
}

/// What the pass is for: accumulating into leaves, or capturing given inputs.
enum Targets {
    /// `backward()`: every reachable leaf accumulates into `.grad`.
    AllLeaves,
    /// `grad()`: capture the gradient of each input; keyed by node id + slot or leaf id.
    Inputs {
        nodes: PtrMap<Vec<(usize, usize)>>,
        leaves: PtrMap<Vec<usize>>,
        count: usize,
    },
}

fn add_into(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(prev) => prev.add(&g)?,
    });
    Ok(())
}

/// Checks and fixes one gradient returned by `node` for its input `i` (shape via sum-to,
/// dtype via cast unless `cast` is false: the receiving node asked for gradients as
/// computed); errors name the node.
fn validate_grad(node: &NodeRef, i: usize, g: Tensor, cast: bool) -> Result<Tensor> {
    let meta = &node.base().inputs[i];
    let mut g = g;
    if g.shape() != meta.shape.as_slice() {
        let compatible = crate::layout::broadcast_shapes(g.shape(), &meta.shape, "")
            .map(|s| s.as_slice() == g.shape())
            .unwrap_or(false);
        if !compatible {
            return Err(Error::runtime(format!(
                "{} returned an invalid gradient at index {i} - got {:?} but expected shape \
                 compatible with {:?} (the shape of forward input {i})",
                node.name(),
                g.shape(),
                meta.shape.as_slice()
            )));
        }
        g = g.sum_to(&meta.shape)?;
    }
    if cast && g.dtype() != meta.dtype {
        g = g.to_dtype(meta.dtype)?;
    }
    Ok(g)
}

fn run_hooks(hooks: &[crate::autograd::node::GradHook], mut g: Tensor) -> Result<Tensor> {
    for h in hooks {
        if let Some(replacement) = h(Some(&g))? {
            g = replacement;
        }
    }
    Ok(g)
}

/// Runs backward from `roots` with gradients `root_grads` (one per root).
pub fn backward(roots: &[Tensor], root_grads: Vec<Tensor>, opts: BackwardOptions) -> Result<()> {
    run(
        roots,
        root_grads,
        Targets::AllLeaves,
        &Blocked::default(),
        opts,
    )
    .map(|_| ())
}

/// Returns the gradients of `roots` (weighted by `root_grads`) with respect to `inputs`,
/// without touching any `.grad`. `None` marks an input that the graph does not reach.
pub fn grad(
    roots: &[Tensor],
    root_grads: Vec<Tensor>,
    inputs: &[Tensor],
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    grad_blocking(roots, root_grads, inputs, &[], opts)
}

/// Edges that gradients must not cross (Paddle's `no_grad_vars`): the tensors are treated
/// as constants.
#[derive(Default)]
struct Blocked {
    slots: PtrMap<Vec<usize>>,
    leaves: PtrMap<()>,
}

impl Blocked {
    fn new(tensors: &[Tensor]) -> Blocked {
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
    fn blocks(&self, e: &Edge) -> bool {
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

/// [`grad`] treating the tensors in `blocked` as constants.
pub fn grad_blocking(
    roots: &[Tensor],
    root_grads: Vec<Tensor>,
    inputs: &[Tensor],
    blocked: &[Tensor],
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let mut nodes: PtrMap<Vec<(usize, usize)>> = PtrMap::default();
    let mut leaves: PtrMap<Vec<usize>> = PtrMap::default();
    for (k, t) in inputs.iter().enumerate() {
        match t.gradient_edge() {
            Edge::None => {
                return Err(Error::runtime(format!(
                    "grad(): input {k} does not require grad, so it has no gradient; set \
                     requires_grad=True (stop_gradient=False) on it before computing the outputs"
                )))
            }
            Edge::Leaf(l) => leaves.entry(l.id()).or_default().push(k),
            Edge::Node { node, input_nr } => {
                nodes.entry(node.id()).or_default().push((input_nr, k))
            }
        }
    }
    run(
        roots,
        root_grads,
        Targets::Inputs {
            nodes,
            leaves,
            count: inputs.len(),
        },
        &Blocked::new(blocked),
        opts,
    )
}

/// One pass, then the callbacks its hooks queued (`queue_callback`), if it succeeded.
fn run(
    roots: &[Tensor],
    root_grads: Vec<Tensor>,
    targets: Targets,
    blocked: &Blocked,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let _depth = super::reentry::DepthGuard::enter()?;
    let frame = crate::autograd::callbacks::CallbackFrame::begin();
    let out = run_pass(roots, root_grads, targets, blocked, opts)?;
    frame.finish()?;
    Ok(out)
}

fn run_pass(
    roots: &[Tensor],
    root_grads: Vec<Tensor>,
    targets: Targets,
    blocked: &Blocked,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let _mode = GradModeGuard::new(opts.create_graph);
    let watch = crate::interrupt::Watch::begin(); // Ctrl-C stops the pass between nodes
                                                  // Nodes live in a dense vector in discovery order; the only hash lookups are one per
                                                  // edge while discovering (node id -> index). Every later pass follows the indices
                                                  // recorded per edge, so a graph of a million nodes is not a million random probes
                                                  // into a large table per pass.
    let mut index: PtrMap<u32> = PtrMap::default();
    let mut states: Vec<NodeState> = Vec::new();
    let mut leaves: PtrMap<LeafState> = PtrMap::default();

    // Root edges.
    let mut root_edges = Vec::with_capacity(roots.len());
    for (i, r) in roots.iter().enumerate() {
        let e = r.gradient_edge();
        if !e.is_some() {
            return Err(Error::runtime(format!(
                "element {i} of the tensors to differentiate does not require grad and has no \
                 grad_fn: nothing that requires grad was used to compute it (set \
                 requires_grad=True / stop_gradient=False on the inputs first)"
            )));
        }
        root_edges.push(e);
    }

    // 1. Discover the graph iteratively; record a post-order (children before parents).
    let mut post: Vec<u32> = Vec::new();
    let mut stack: Vec<(u32, usize)> = Vec::new(); // (node index, next edge to visit)
    for e in &root_edges {
        if let Edge::Node { node, .. } = e {
            if !index.contains_key(&node.id()) {
                let i = insert_state(&mut states, &mut index, node)?;
                stack.push((i, 0));
            }
        }
        while let Some(&mut (i, ref mut next)) = stack.last_mut() {
            let node = states[i as usize].node.clone();
            let edges = &node.base().edges;
            if *next < edges.len() {
                let k = *next;
                *next += 1;
                let e = &edges[k];
                if blocked.blocks(e) {
                    continue;
                }
                match e {
                    Edge::Node { node: child, .. } => {
                        let c = match index.get(&child.id()) {
                            Some(&c) => c,
                            None => {
                                let c = insert_state(&mut states, &mut index, child)?;
                                stack.push((c, 0));
                                c
                            }
                        };
                        states[i as usize].children[k] = c;
                    }
                    Edge::Leaf(l) => {
                        leaves.entry(l.id()).or_insert_with(|| LeafState {
                            leaf: l.clone(),
                            deps: 0,
                            buffer: None,
                        });
                    }
                    Edge::None => {}
                }
            } else {
                post.push(i);
                stack.pop();
            }
        }
    }
    for e in &root_edges {
        if let Edge::Leaf(l) = e {
            leaves.entry(l.id()).or_insert_with(|| LeafState {
                leaf: l.clone(),
                deps: 0,
                buffer: None,
            });
        }
    }

    // 2. Which nodes matter, then dependency counts from the nodes that will run.
    let leaf_wanted = |id: usize| match &targets {
        Targets::AllLeaves => true,
        Targets::Inputs { leaves, .. } => leaves.contains_key(&id),
    };
    for &i in &post {
        let st = &states[i as usize];
        let mut execute = false;
        for (e, &c) in st.node.base().edges.iter().zip(&st.children) {
            if blocked.blocks(e) {
                continue;
            }
            match e {
                Edge::Node { .. } => execute |= states[c as usize].reaches,
                Edge::Leaf(l) => execute |= leaf_wanted(l.id()),
                Edge::None => {}
            }
        }
        let is_target =
            matches!(&targets, Targets::Inputs { nodes, .. } if nodes.contains_key(&st.node.id()));
        let st = &mut states[i as usize];
        st.execute = execute;
        st.reaches = execute || is_target;
    }
    for &i in &post {
        if !states[i as usize].execute {
            continue;
        }
        let node = states[i as usize].node.clone();
        for (k, e) in node.base().edges.iter().enumerate() {
            if blocked.blocks(e) {
                continue;
            }
            match e {
                Edge::Node { .. } => {
                    let c = states[i as usize].children[k];
                    let cs = &mut states[c as usize];
                    if cs.reaches {
                        cs.deps += 1;
                    }
                }
                Edge::Leaf(l) => {
                    if let Some(ls) = leaves.get_mut(&l.id()) {
                        ls.deps += 1;
                    }
                }
                Edge::None => {}
            }
        }
    }

    // 3. Seed root gradients.
    let mut ready: BinaryHeap<(u64, u32)> = BinaryHeap::new();
    let mut ready_leaves: Vec<usize> = Vec::new();
    for (e, g) in root_edges.iter().zip(root_grads) {
        match e {
            Edge::Node { node, input_nr } => {
                let st = &mut states[index[&node.id()] as usize];
                add_into(&mut st.buffer[*input_nr], g)?;
            }
            Edge::Leaf(l) => add_into(&mut leaves.get_mut(&l.id()).expect("root leaf").buffer, g)?,
            Edge::None => {}
        }
    }
    for e in &root_edges {
        match e {
            Edge::Node { node, .. } => {
                let i = index[&node.id()];
                let st = &states[i as usize];
                if st.deps == 0 && st.reaches && !ready.iter().any(|&(_, r)| r == i) {
                    ready.push((node.base().sequence_nr, i));
                }
            }
            Edge::Leaf(l) => {
                if leaves[&l.id()].deps == 0 && !ready_leaves.contains(&l.id()) {
                    ready_leaves.push(l.id());
                }
            }
            Edge::None => {}
        }
    }
    drop(index);

    let mut captured: Vec<Option<Tensor>> = match &targets {
        Targets::AllLeaves => Vec::new(),
        Targets::Inputs { count, .. } => vec![None; *count],
    };

    // 4. Execute.
    loop {
        for lid in ready_leaves.drain(..) {
            finish_leaf(&mut leaves, lid, &targets, &mut captured, opts.create_graph)?;
        }
        let Some((_, i)) = ready.pop() else { break };
        watch.check()?;
        let st = &mut states[i as usize];
        let node = st.node.clone();
        let mut buffer = std::mem::take(&mut st.buffer);
        let execute = st.execute;
        let children = std::mem::take(&mut st.children);
        // Tensor hooks registered on this node's outputs, then retain_grad. A hook on an
        // output that got no gradient is called with None (PyTorch); its return value,
        // if any, becomes that output's gradient.
        let hooks: Vec<_> = node.base().pre_hooks.lock().clone();
        for (slot, _, hook) in &hooks {
            let g = buffer[*slot].take();
            buffer[*slot] = match hook(g.as_ref())? {
                Some(r) => Some(r),
                None => g,
            };
        }
        let retained: Vec<_> = node.base().retained.lock().clone();
        for (slot, weak) in &retained {
            if let (Some(g), Some(t)) = (&buffer[*slot], weak.upgrade()) {
                crate::autograd::retain::store_retained(&t, g, opts.create_graph)?;
            }
        }
        if let Targets::Inputs { nodes, .. } = &targets {
            if let Some(list) = nodes.get(&node.id()) {
                for (slot, k) in list {
                    captured[*k] = buffer[*slot].clone();
                }
            }
        }
        if !execute {
            continue;
        }
        // A built-in node that received no gradient at all (an upstream custom layer
        // returned None) passes none on, as in both peers: the leaves' `.grad` stays
        // None instead of becoming zeros. Custom layers still run (their backward sees
        // zeros or None, per `materialize_grads`).
        let outputs = if node.as_any().is_none() && buffer.iter().all(Option::is_none) {
            if !opts.retain_graph {
                node.release_saved();
            }
            vec![None; node.base().edges.len()]
        } else {
            node.apply_then_release(buffer, !opts.retain_graph)?
        };
        let edges = &node.base().edges;
        if outputs.len() != edges.len() {
            return Err(Error::usage(format!(
                "{} returned an incorrect number of gradients (expected {}, got {})",
                node.name(),
                edges.len(),
                outputs.len()
            )));
        }
        for (k, (e, g)) in edges.iter().zip(outputs).enumerate() {
            if blocked.blocks(e) {
                continue;
            }
            let g = match (e, g) {
                (Edge::None, _) | (_, None) => None,
                (Edge::Node { node: c, .. }, Some(g)) => {
                    Some(validate_grad(&node, k, g, c.casts_incoming_grads())?)
                }
                (_, Some(g)) => Some(validate_grad(&node, k, g, true)?),
            };
            match e {
                Edge::Node { node: c, input_nr } => {
                    let ci = children[k];
                    let cs = &mut states[ci as usize];
                    if !cs.reaches {
                        continue;
                    }
                    if let Some(g) = g {
                        add_into(&mut cs.buffer[*input_nr], g)?;
                    }
                    cs.deps -= 1;
                    if cs.deps == 0 {
                        ready.push((c.base().sequence_nr, ci));
                    }
                }
                Edge::Leaf(l) => {
                    let lid = l.id();
                    let Some(ls) = leaves.get_mut(&lid) else {
                        continue;
                    };
                    if let Some(g) = g {
                        add_into(&mut ls.buffer, g)?;
                    }
                    ls.deps -= 1;
                    if ls.deps == 0 {
                        ready_leaves.push(lid);
                    }
                }
                Edge::None => {}
            }
        }
    }
    Ok(captured)
}

/// Adds `node` to the dense state vector and the id index; returns its index.
fn insert_state(
    states: &mut Vec<NodeState>,
    index: &mut PtrMap<u32>,
    node: &NodeRef,
) -> Result<u32> {
    let i = u32::try_from(states.len())
        .map_err(|_| Error::runtime("backward: the graph has more than 4,294,967,295 nodes"))?;
    index.insert(node.id(), i);
    states.push(NodeState {
        node: node.clone(),
        deps: 0,
        buffer: vec![None; node.num_outputs()],
        children: smallvec::smallvec![NO_CHILD; node.base().edges.len()],
        reaches: false,
        execute: false,
    });
    Ok(i)
}

fn finish_leaf(
    leaves: &mut PtrMap<LeafState>,
    lid: usize,
    targets: &Targets,
    captured: &mut [Option<Tensor>],
    create_graph: bool,
) -> Result<()> {
    let Some(ls) = leaves.remove(&lid) else {
        return Ok(());
    };
    let Some(g) = ls.buffer else { return Ok(()) };
    let hooks: Vec<_> = ls
        .leaf
        .meta()
        .hooks
        .iter()
        .map(|(_, h)| h.clone())
        .collect();
    let g = run_hooks(&hooks, g)?;
    if g.shape() != ls.leaf.shape() {
        return Err(Error::runtime(format!(
            "a gradient hook on a leaf returned a gradient of shape {:?} for a tensor of shape \
             {:?}; hooks must return a gradient of the tensor's shape",
            g.shape(),
            ls.leaf.shape()
        )));
    }
    let g = if g.dtype() != ls.leaf.dtype() {
        g.to_dtype(ls.leaf.dtype())?
    } else {
        g
    };
    match targets {
        Targets::AllLeaves => {
            accumulate_into_leaf(&ls.leaf, g, create_graph)?;
            crate::autograd::callbacks::run_post_accumulate_hooks(&ls.leaf)
        }
        Targets::Inputs { leaves: wanted, .. } => {
            if let Some(ks) = wanted.get(&lid) {
                for k in ks {
                    captured[*k] = Some(g.clone());
                }
            }
            Ok(())
        }
    }
}
