//! The backward engine: iterative graph discovery with dependency counting, a ready
//! queue ordered by creation sequence, per-node input buffers, validation of what each
//! node returns, leaf accumulation, and `grad()` over the part of the graph that matters.

use crate::autograd::anomaly;
use crate::autograd::evaluate::evaluate_node;
use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::leaf_grad::{accumulate_into_leaf, finish_leaf};
use crate::autograd::node::{node_id, Edge, Node, NodeRef};
pub use crate::autograd::pass_targets::BackwardOptions;
pub use crate::autograd::pass_targets::{input_edge, root_edge, root_edges};
use crate::autograd::pass_targets::{input_targets, tensor_edges, Blocked, PtrMap, Targets};
use crate::autograd::validate::validate_outputs;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// First capacity of a pass's per-node vectors: most passes are small graphs, and a first
/// push into an empty vector takes Rust's slower growth path.
const SMALL_GRAPH: usize = 8;

/// `NodeState::children` entry of an edge that leads to no node (or is blocked).
const NO_CHILD: u32 = u32::MAX;

// A pass's containers: kept from the last small pass, or made with the last pass's room.
#[path = "engine_room.rs"]
mod room;
use room::LAST_SIZE;
#[cfg(test)]
use room::{KEEP_CAPACITY, KEPT};

struct NodeState {
    node: NodeRef,
    deps: usize,
    /// One slot per output of the node, allocated when the first gradient arrives (see
    /// [`NodeState::slot`]): in a chain it is the vector the parent node returned.
    buffer: Vec<Option<Tensor>>,
    /// Per edge: the index of the child node's state, or [`NO_CHILD`].
    children: smallvec::SmallVec<[u32; 2]>,
    /// Some path from this node leads to a wanted gradient.
    reaches: bool,
    /// The node must run (a child edge reaches a wanted gradient).
    execute: bool,
}

impl NodeState {
    /// The node's input buffer with one slot per output, filled with `None` first if no
    /// gradient arrived yet. `spare` is an emptied vector to build it in (the parent's
    /// returned gradients, whose allocation is then reused), taken only when needed.
    fn buffer_with(&mut self, spare: &mut Option<Vec<Option<Tensor>>>) -> &mut Vec<Option<Tensor>> {
        let n = self.node.num_outputs();
        if self.buffer.len() != n {
            if self.buffer.capacity() == 0 {
                if let Some(v) = spare.take() {
                    self.buffer = v;
                }
            }
            // room for the gradients the node returns in this same vector (one per edge)
            let want = n.max(self.node.base().edges.len());
            self.buffer.reserve(want.saturating_sub(self.buffer.len()));
            self.buffer.resize(n, None);
        }
        &mut self.buffer
    }
}

struct LeafState {
    leaf: Tensor,
    deps: usize,
    buffer: Option<Tensor>,
}

fn add_into(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(prev) => super::grad_sum::sum_gradients(prev, g)?,
    });
    Ok(())
}

/// Runs backward from `roots` with gradients `root_grads` (one per root).
pub fn backward(roots: &[Tensor], root_grads: Vec<Tensor>, opts: BackwardOptions) -> Result<()> {
    backward_edges(root_edges(roots)?, root_grads, None, opts)
}

/// Runs backward from the gradient edges `roots` (a tensor's is
/// [`Tensor::gradient_edge`]; PyTorch's `GradientEdge`). With `inputs`, only those
/// tensors' `.grad` change (`backward(inputs=)`): a leaf among them accumulates with its
/// hooks as in a full pass, a non-leaf keeps the gradient that reached it after its
/// tensor hooks (as `retain_grad` would), and the nodes of non-leaf inputs run; an input
/// the roots do not reach keeps its `.grad`. Each input is its gradient edge and the
/// tensor whose `.grad` receives the gradient (None: only the edge is known).
pub fn backward_edges(
    roots: Vec<Edge>,
    root_grads: Vec<Tensor>,
    inputs: Option<&[(Edge, Option<Tensor>)]>,
    opts: BackwardOptions,
) -> Result<()> {
    let blocked = Blocked::default();
    let Some(inputs) = inputs else {
        return run(roots, root_grads, Targets::AllLeaves, &blocked, opts).map(|_| ());
    };
    let edges: Vec<Edge> = inputs.iter().map(|(e, _)| e.clone()).collect();
    let targets = input_targets(&edges, true)?;
    let captured = run(roots, root_grads, targets, &blocked, opts)?;
    // an input without a tensor (PyTorch's `GradientEdge` into a graph node) has no `.grad`:
    // the pass stops there and its gradient is dropped, as in PyTorch
    for ((_, t), g) in inputs.iter().zip(captured) {
        let Some(t) = t else { continue };
        let t = t.current();
        // (a tensor that retains its gradient got it during the pass already)
        if let Some(g) = g.filter(|_| !t.meta().retains_grad) {
            accumulate_into_leaf(&t, g, opts.create_graph)?;
        }
    }
    Ok(())
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

/// [`grad`] treating the tensors in `blocked` as constants.
pub fn grad_blocking(
    roots: &[Tensor],
    root_grads: Vec<Tensor>,
    inputs: &[Tensor],
    blocked: &[Tensor],
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let inputs = tensor_edges(inputs, "grad()")?;
    grad_edges(root_edges(roots)?, root_grads, &inputs, blocked, opts)
}

/// [`grad_blocking`] from gradient edges to gradient edges (PyTorch's `GradientEdge`s
/// as `outputs` / `inputs`): the gradient that flows along each input edge.
pub fn grad_edges(
    roots: Vec<Edge>,
    root_grads: Vec<Tensor>,
    inputs: &[Edge],
    blocked: &[Tensor],
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let targets = input_targets(inputs, false)?;
    run(roots, root_grads, targets, &Blocked::new(blocked), opts)
}

/// One pass, then the callbacks its hooks queued (`queue_callback`), if it succeeded.
/// A pass nested deep inside custom backwards continues on a fresh thread (`reentry`).
/// The thread's saved-tensor hook stack is restored when the pass ends: hooks entered
/// (or left) inside a hook during backward do not outlive it, as in PyTorch.
fn run(
    roots: Vec<Edge>,
    root_grads: Vec<Tensor>,
    targets: Targets,
    blocked: &Blocked,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let _hooks = crate::autograd::saved::HookStackGuard::new();
    super::reentry::nested(move || {
        let frame = crate::autograd::callbacks::CallbackFrame::begin();
        let out = run_pass(roots, root_grads, targets, blocked, opts)?;
        frame.finish()?;
        Ok(out)
    })
}

fn run_pass(
    root_edges: Vec<Edge>,
    root_grads: Vec<Tensor>,
    targets: Targets,
    blocked: &Blocked,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let _mode = GradModeGuard::new(opts.create_graph);
    let mut graph = discover(&root_edges, &targets, blocked)?;
    let mut ready = seed_roots(&mut graph, &root_edges, root_grads)?;
    let out = execute(&mut graph, &mut ready, &targets, blocked, opts);
    graph.keep(ready);
    out
}

/// The part of the graph one pass runs over, as discovery found it. Nodes live in a dense
/// vector in discovery order; the only hash lookups are one per edge while discovering
/// (node id -> index). Every later phase follows the indices recorded per edge, so a
/// graph of a million nodes is not a million random probes into a large table per phase.
struct GraphTask {
    states: Vec<NodeState>,
    /// Node id -> index into `states`; dropped once the roots are seeded.
    index: PtrMap<u32>,
    leaves: PtrMap<LeafState>,
    /// Node indices in post-order (children before parents).
    post: Vec<u32>,
    /// Discovery's stack (empty outside `discover`): see [`Pending`].
    stack: Vec<Pending>,
    /// The containers of [`Ready`] while the pass does not hold them (empty).
    spare_ready: Option<Ready>,
}

/// A node on discovery's stack: its index, the node, and the next edge to visit. The node
/// is reached through a plain pointer to it, not a counted reference (a clone and a drop
/// per node were two locked instructions): `states[index]` holds a counted reference for
/// the whole pass, and the node lives in its own heap block, which the state vector's
/// growth does not move.
type Pending = (u32, *const dyn Node, usize);

/// Nodes ready to run, newest first (highest creation sequence), and ready leaves.
struct Ready {
    nodes: BinaryHeap<(u64, u32)>,
    leaves: Vec<usize>,
}

fn new_leaf(l: &Tensor) -> LeafState {
    LeafState {
        leaf: l.clone(),
        deps: 0,
        buffer: None,
    }
}

/// Phase 1: finds every node and leaf reachable from the roots without crossing a
/// blocked edge, iteratively (no recursion, so a 10^6-node chain is fine), recording
/// each node's child indices and a post-order, and counts each node's dependencies as
/// it is finished ([`count_dependencies`]: its children are finished before it).
fn discover(root_edges: &[Edge], targets: &Targets, blocked: &Blocked) -> Result<Box<GraphTask>> {
    let mut g = GraphTask::take();
    // (node index, the node, next edge to visit: see `Pending`)
    let mut stack = std::mem::take(&mut g.stack);
    for e in root_edges {
        if let Edge::Node { node, .. } = e {
            if !g.index.contains_key(&node.id()) {
                let i = insert_state(&mut g.states, &mut g.index, node)?;
                stack.push((i, Arc::as_ptr(node.arc()), 0));
            }
        }
        while let Some((i, node, next)) = stack.last_mut() {
            let i = *i;
            // SAFETY: `states[i]` holds a counted reference to this node until the pass
            // ends (see `Pending`), so the node outlives this borrow
            let node: &dyn Node = unsafe { &**node };
            let edges = &node.base().edges;
            if *next >= edges.len() {
                g.post.push(i);
                // (counted here, while the node is fresh in the cache, instead of in two
                // more sweeps over the post-order)
                count_dependencies(&mut g, i, node, targets, blocked);
                stack.pop();
                continue;
            }
            let k = *next;
            *next += 1;
            let e = &edges[k];
            if blocked.blocks(e) {
                continue;
            }
            match e {
                Edge::Node { node: child, .. } => {
                    let c = match g.index.get(&child.id()) {
                        Some(&c) => c,
                        None => {
                            let c = insert_state(&mut g.states, &mut g.index, child)?;
                            stack.push((c, Arc::as_ptr(child.arc()), 0));
                            c
                        }
                    };
                    g.states[i as usize].children[k] = c;
                }
                Edge::Leaf(l) => {
                    g.leaves.entry(l.leaf_key()).or_insert_with(|| new_leaf(l));
                }
                Edge::None => {}
            }
        }
    }
    for e in root_edges {
        if let Edge::Leaf(l) = e {
            g.leaves.entry(l.leaf_key()).or_insert_with(|| new_leaf(l));
        }
    }
    g.stack = stack;
    // (the next pass's new containers start this big: see `GraphTask::take`)
    let _ = LAST_SIZE.try_with(|n| n.set((g.states.len(), g.leaves.len())));
    Ok(g)
}

/// Phase 2, per node as discovery finishes it (its children are finished already, a
/// post-order): whether it matters (`execute`: some child edge reaches a wanted gradient;
/// `reaches`: that, or the node holds a wanted input), then, if it executes, one more
/// dependency for each child node that reaches and each leaf it sends a gradient to (a
/// node's or leaf's count is the number of executing parents that will send it one).
fn count_dependencies(
    g: &mut GraphTask,
    i: u32,
    node: &dyn Node,
    targets: &Targets,
    blocked: &Blocked,
) {
    // (a full backward wants every leaf: no key read)
    let leaf_wanted = |l: &Tensor| match targets {
        Targets::AllLeaves => true,
        Targets::Inputs { leaves, .. } => leaves.contains_key(&l.leaf_key()),
    };
    let edges = &node.base().edges;
    let mut execute = false;
    for (e, &c) in edges.iter().zip(&g.states[i as usize].children) {
        match e {
            // (a blocked edge to a node has no child index)
            Edge::Node { .. } if c != NO_CHILD => execute |= g.states[c as usize].reaches,
            Edge::Leaf(l) if !blocked.blocks(e) => execute |= leaf_wanted(l),
            _ => {}
        }
    }
    let (is_target, runs_as_target) = match targets {
        Targets::Inputs {
            nodes, accumulate, ..
        } if nodes.contains_key(&node_id(node)) => (true, *accumulate),
        _ => (false, false),
    };
    let st = &mut g.states[i as usize];
    // `backward(inputs=)` runs the node of a non-leaf input, as PyTorch's engine does
    // (its node hooks fire; what it computes goes nowhere that is not wanted)
    st.execute = execute || runs_as_target;
    st.reaches = execute || is_target;
    if !st.execute {
        return;
    }
    for (k, e) in edges.iter().enumerate() {
        match e {
            Edge::Node { .. } => {
                let c = g.states[i as usize].children[k];
                if c == NO_CHILD {
                    continue; // blocked
                }
                let cs = &mut g.states[c as usize];
                if cs.reaches {
                    cs.deps += 1;
                }
            }
            Edge::Leaf(l) => {
                if blocked.blocks(e) {
                    continue;
                }
                if let Some(ls) = g.leaves.get_mut(&l.leaf_key()) {
                    ls.deps += 1;
                }
            }
            Edge::None => {}
        }
    }
}

/// Phase 3: puts each root's gradient into its node's (or leaf's) input buffer and
/// returns what is ready to run. Empties the id index: later phases use indices only.
fn seed_roots(g: &mut GraphTask, root_edges: &[Edge], root_grads: Vec<Tensor>) -> Result<Ready> {
    let mut ready = g.spare_ready.take().unwrap_or_else(|| Ready {
        nodes: BinaryHeap::with_capacity(SMALL_GRAPH),
        leaves: Vec::with_capacity(SMALL_GRAPH),
    });
    for (e, grad) in root_edges.iter().zip(root_grads) {
        match e {
            Edge::Node { node, input_nr } => {
                let st = &mut g.states[g.index[&node.id()] as usize];
                add_into(&mut st.buffer_with(&mut None)[*input_nr], grad)?;
            }
            Edge::Leaf(l) => {
                let ls = g.leaves.get_mut(&l.leaf_key()).ok_or_else(|| {
                    Error::runtime("backward: a root leaf was not discovered (internal error)")
                })?;
                add_into(&mut ls.buffer, grad)?
            }
            Edge::None => {}
        }
    }
    for e in root_edges {
        match e {
            Edge::Node { node, .. } => {
                let i = g.index[&node.id()];
                let st = &g.states[i as usize];
                if st.deps == 0 && st.reaches && !ready.nodes.iter().any(|&(_, r)| r == i) {
                    ready.nodes.push((node.base().sequence_nr, i));
                }
            }
            Edge::Leaf(l) => {
                let key = l.leaf_key();
                if g.leaves[&key].deps == 0 && !ready.leaves.contains(&key) {
                    ready.leaves.push(key);
                }
            }
            Edge::None => {}
        }
    }
    g.index.clear();
    Ok(ready)
}

/// Phase 4: runs ready nodes newest first until none is left, handing each gradient a
/// node returns to its child (validated by [`validate_outputs`]) and finishing leaves
/// whose count reached zero. Ctrl-C stops the pass between nodes.
fn execute(
    g: &mut GraphTask,
    ready: &mut Ready,
    targets: &Targets,
    blocked: &Blocked,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let watch = crate::interrupt::Watch::begin();
    let mut captured: Vec<Option<Tensor>> = match targets {
        Targets::AllLeaves => Vec::new(),
        Targets::Inputs { count, .. } => vec![None; *count],
    };
    loop {
        for lid in ready.leaves.drain(..) {
            if let Some(LeafState {
                leaf,
                buffer: Some(grad),
                ..
            }) = g.leaves.remove(&lid)
            {
                finish_leaf(&leaf, grad, targets, &mut captured, opts.create_graph)?;
            }
        }
        let Some((_, i)) = ready.nodes.pop() else {
            break;
        };
        watch.check()?;
        let st = &mut g.states[i as usize];
        // (a node none of whose parents sent a gradient gets its `None` slots here)
        st.buffer_with(&mut None);
        // moved out of its state, not cloned (a node runs once, and nothing reads an
        // executed node's state again): two locked instructions per node fewer
        let node = st.node.take();
        let buffer = std::mem::take(&mut st.buffer);
        let execute = st.execute;
        let children = std::mem::take(&mut st.children);
        // anomaly mode (rare) brackets the node's backward: NaN check, forward traceback
        let anomalous = anomaly::is_enabled();
        if anomalous {
            anomaly::enter(&node);
        }
        let skips = targets.unneeded_edges(&node.base().edges, blocked, |k| {
            children[k] != NO_CHILD && g.states[children[k] as usize].reaches
        });
        // (the profiler's event of the node, when one is on)
        let profiled = if execute {
            crate::profiler::backward(|| anomaly::display_name(&node).into())
        } else {
            None
        };
        let mut evaluated =
            evaluate_node(&node, buffer, execute, skips, targets, &mut captured, opts)
                .and_then(|o| o.map(|o| validate_outputs(&node, o, blocked)).transpose());
        drop(profiled);
        if anomalous {
            evaluated = anomaly::leave(&node, evaluated);
        }
        let Some(mut outputs) = evaluated? else {
            continue;
        };
        // the gradients move out; the emptied vector becomes a child's input buffer if one
        // needs one (a chain allocates no buffer per node), else it is freed below
        let mut grads: smallvec::SmallVec<[Option<Tensor>; 2]> = smallvec::SmallVec::new();
        for g in outputs.drain(..) {
            grads.push(g); // (smallvec's generic `collect` costs ~100 instructions more)
        }
        let mut spare = Some(outputs);
        for (k, (e, grad)) in node.base().edges.iter().zip(grads).enumerate() {
            match e {
                Edge::Node { node: c, input_nr } => {
                    let ci = children[k];
                    if ci == NO_CHILD {
                        continue; // a blocked edge
                    }
                    let cs = &mut g.states[ci as usize];
                    if !cs.reaches {
                        continue;
                    }
                    if let Some(grad) = grad {
                        add_into(&mut cs.buffer_with(&mut spare)[*input_nr], grad)?;
                    }
                    cs.deps -= 1;
                    if cs.deps == 0 {
                        ready.nodes.push((c.base().sequence_nr, ci));
                    }
                }
                Edge::Leaf(l) => {
                    let lid = l.leaf_key();
                    if blocked.blocks(e) {
                        continue;
                    }
                    let Some(ls) = g.leaves.get_mut(&lid) else {
                        continue;
                    };
                    if let Some(grad) = grad {
                        add_into(&mut ls.buffer, grad)?;
                    }
                    ls.deps -= 1;
                    if ls.deps == 0 {
                        ready.leaves.push(lid);
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
        buffer: Vec::new(),
        children: smallvec::smallvec![NO_CHILD; node.base().edges.len()],
        reaches: false,
        execute: false,
    });
    Ok(i)
}

#[cfg(test)]
#[path = "engine_phase_tests.rs"]
mod phase_tests;
