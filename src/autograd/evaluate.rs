//! One node of a backward pass (the engine's `execute` calls it per ready node): the
//! tensor hooks and `retain_grad` of its outputs, the gradients `grad()` captures there,
//! the node's own pre- and post-hooks, and its backward, told which input gradients the
//! pass wants.

use crate::autograd::node::NodeRef;
use crate::autograd::pass_targets::{BackwardOptions, Targets};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Runs one node: its output tensors' hooks and `retain_grad`, captures wanted
/// gradients (`grad()`), then, if the node must execute, its backward. `None` when the
/// node does not execute (it only held a wanted input).
pub(super) fn evaluate_node(
    node: &NodeRef,
    mut buffer: Vec<Option<Tensor>>,
    execute: bool,
    skips: u64,
    targets: &Targets,
    captured: &mut [Option<Tensor>],
    opts: BackwardOptions,
) -> Result<Option<Vec<Option<Tensor>>>> {
    // Tensor hooks registered on this node's outputs, then retain_grad. A hook on an
    // output that got no gradient is called with None (PyTorch); its return value, if
    // any, becomes that output's gradient.
    // copied out of the lock (a hook may add hooks); usually there are none (an `Option`:
    // no empty vector made and dropped per node), and a node none was ever added to is not
    // locked at all (`maybe_hooked`, read again before each list: a hook may add to them)
    let base = node.base();
    let hooks = base.maybe_hooked().then(|| base.pre_hooks().to_vec());
    for (slot, _, hook) in hooks.iter().flatten() {
        let g = buffer[*slot].take();
        buffer[*slot] = match hook(g.as_ref())? {
            Some(r) => Some(r),
            None => g,
        };
    }
    let retained = base.maybe_hooked().then(|| base.retained().to_vec());
    for (slot, weak) in retained.iter().flatten() {
        if let (Some(g), Some(t)) = (&buffer[*slot], weak.upgrade()) {
            crate::autograd::retain::store_retained(&t, g, opts.create_graph)?;
        }
    }
    if let Targets::Inputs { nodes, .. } = targets {
        if let Some(list) = nodes.get(&node.id()) {
            for (slot, k) in list {
                captured[*k] = buffer[*slot].clone();
            }
        }
    }
    if !execute {
        return Ok(None);
    }
    // the node's own hooks (grad_fn.register_prehook / register_hook), rare
    let node_hooks = if base.maybe_hooked() {
        base.node_hooks().as_deref().cloned()
    } else {
        None
    };
    if let Some(h) = &node_hooks {
        for (_, pre) in &h.pre {
            if let Some(r) = pre(&buffer)? {
                check_hook_count(node, "pre-hook", r.len(), buffer.len())?;
                buffer = r;
            }
        }
    }
    // A built-in node that received no gradient at all (an upstream custom layer
    // returned None) passes none on, as in both peers: the leaves' `.grad` stays
    // None instead of becoming zeros. Custom layers still run (their backward sees
    // zeros or None, per `materialize_grads`).
    if node.as_any().is_none() && buffer.iter().all(Option::is_none) {
        if !opts.retain_graph {
            node.release_saved();
        }
        return Ok(Some(vec![None; node.base().edges.len()]));
    }
    let Some(h) = node_hooks.filter(|h| !h.post.is_empty()) else {
        return Ok(Some(node.apply_needed(
            buffer,
            !opts.retain_graph,
            skips,
        )?));
    };
    let grad_outputs = buffer.clone();
    let mut out = node.apply_needed(buffer, !opts.retain_graph, skips)?;
    for (_, post) in &h.post {
        if let Some(r) = post(&out, &grad_outputs)? {
            check_hook_count(node, "hook", r.len(), out.len())?;
            out = r;
        }
    }
    Ok(Some(out))
}

/// A node hook must return one gradient per slot it was given.
fn check_hook_count(node: &NodeRef, what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(Error::runtime(format!(
        "a {what} of {} returned {got} gradients, but {want} were expected (one per slot, \
         None where there is none)",
        node.name()
    )))
}
