//! A leaf's finished gradient: its hooks, in PyTorch's order (the tensor's hooks, the
//! `AccumulateGrad` node's pre-hooks, the accumulation, the post-accumulate-grad hooks,
//! the node's post-hooks), and storing it into `.grad`: in place when the kept gradient
//! is a dense buffer of its own, out of place under `create_graph` (so it stays
//! differentiable).

use super::grad_sum::{add_same_layout, dense_grad, owns_dense_buffer};
use crate::autograd::node::{GradHook, NodeHooks};
use crate::autograd::pass_targets::Targets;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Accumulates a gradient into a leaf whose `.grad` is kept outside the core
/// ([`crate::tensor::AutogradMeta::ext_grad`], a sparse gradient): `(leaf, g,
/// create_graph)`. Installed by the bindings, which own such gradients.
pub type ExtAccumulate = fn(&Tensor, Tensor, bool) -> Result<()>;

static EXT_ACCUMULATE: std::sync::OnceLock<ExtAccumulate> = std::sync::OnceLock::new();

/// Installs the accumulation of gradients kept outside the core (once; later calls are
/// ignored).
pub fn set_ext_accumulator(f: ExtAccumulate) {
    let _ = EXT_ACCUMULATE.set(f);
}

/// Stores `g` into `leaf.grad`: summed in place, or out of place under `create_graph`.
/// A kept gradient is always a dense buffer of its own (never a broadcast view), so
/// later in-place accumulation and user edits of `.grad` are element-exact.
pub(crate) fn accumulate_into_leaf(leaf: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    // The whole read-modify-write happens under the leaf's lock: backward passes run with
    // the GIL released, and concurrent passes into one leaf must not lose an update.
    let mut meta = leaf.meta();
    if meta.ext_grad.is_some() || g.has_ext_grad() {
        // a sparse `.grad`, or a gradient that carries a sparse form (`nn.Embedding(sparse=
        // True)`; see `sparse_grad.rs`), both rare: the bindings sum it, with the GIL,
        // outside our lock
        drop(meta);
        return match EXT_ACCUMULATE.get() {
            Some(f) => f(leaf, g, create_graph),
            None => Err(Error::runtime(
                "this tensor's .grad is kept outside the core (a sparse gradient) and no \
                 accumulation for it is installed",
            )),
        };
    }
    let new = match meta.grad.take() {
        None if create_graph => g,
        None if owns_dense_buffer(&g) => g.detach(),
        None => g.detach().contiguous_copy()?,
        Some(prev) => {
            if create_graph || !dense_grad(&prev) {
                match prev.add(&g) {
                    Ok(sum) => sum,
                    Err(e) => {
                        meta.grad = Some(prev);
                        return Err(e);
                    }
                }
            } else {
                if let Some(r) = add_same_layout(&prev, &g) {
                    meta.grad = Some(prev);
                    return r;
                }
                let r = prev.add_inplace_raw(&g);
                meta.grad = Some(prev);
                return r;
            }
        }
    };
    meta.grad = Some(new);
    Ok(())
}

fn run_hooks(hooks: &[GradHook], mut g: Tensor) -> Result<Tensor> {
    for h in hooks {
        if let Some(replacement) = h(Some(&g))? {
            g = replacement;
        }
    }
    Ok(g)
}

/// A hook on a leaf's `AccumulateGrad` node must return one gradient per slot.
fn check_acc_count(what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(Error::runtime(format!(
        "a {what} of AccumulateGrad returned {got} gradients, but {want} were expected \
         (AccumulateGrad has one gradient flowing in and none flowing out)"
    )))
}

/// Finishes the gradient `g` of leaf `leaf` at the end of its part of the pass: runs the
/// tensor's hooks, then either accumulates (`backward()`, and `backward(inputs=)` for a
/// leaf among the inputs: with the `AccumulateGrad` node's hooks around it) or captures
/// it (`grad()`: tensor hooks only, as PyTorch, whose `grad()` runs no `AccumulateGrad`).
/// A leaf that is not a target of an input-restricted pass is left alone, hooks included.
pub(crate) fn finish_leaf(
    leaf: &Tensor,
    g: Tensor,
    targets: &Targets,
    captured: &mut [Option<Tensor>],
    create_graph: bool,
) -> Result<()> {
    let wanted = match targets {
        Targets::AllLeaves => None,
        Targets::Inputs { leaves, .. } => match leaves.get(&leaf.leaf_key()) {
            Some(ks) => Some(ks),
            None => return Ok(()),
        },
    };
    // A leaf whose Python object was re-pointed since this graph was recorded
    // (`x.data = y`): its gradient, hooks and `.grad` went to the new core tensor.
    let moved = leaf.replacement();
    let recorded = leaf;
    let leaf = moved.as_ref().unwrap_or(leaf);
    if leaf.shape() != recorded.shape() {
        return Err(Error::runtime(format!(
            "a tensor of shape {:?} was used by this graph, and its data was replaced by data \
             of shape {:?} (`x.data = ...` or an in-place view op) before backward; run \
             backward before changing the tensor's shape",
            recorded.shape(),
            leaf.shape()
        )));
    }
    // (copied out of the lock: a hook may add hooks; an `Option`, so that the usual leaf
    // without hooks makes and drops no vector)
    // (the lock only for a leaf that may have hooks: the usual one has none)
    let hooked = leaf.may_have_hooks();
    let hooks: Option<Vec<_>> = hooked.then(|| leaf.meta()).and_then(|m| {
        (!m.hooks.is_empty()).then(|| m.hooks.iter().map(|(_, h)| h.clone()).collect())
    });
    let g = match &hooks {
        Some(hooks) => run_hooks(hooks, g)?,
        None => g,
    };
    if g.shape() != leaf.shape() {
        return Err(Error::runtime(format!(
            "a gradient hook on a leaf returned a gradient of shape {:?} for a tensor of shape \
             {:?}; hooks must return a gradient of the tensor's shape",
            g.shape(),
            leaf.shape()
        )));
    }
    let g = if g.dtype() != leaf.dtype() {
        g.to_dtype(leaf.dtype())?
    } else {
        g
    };
    let accumulate = match targets {
        Targets::AllLeaves => true,
        Targets::Inputs { accumulate, .. } => *accumulate,
    };
    if !accumulate {
        for k in wanted.into_iter().flatten() {
            captured[*k] = Some(g.clone());
        }
        return Ok(());
    }
    let node_hooks: Option<NodeHooks> = match hooked || leaf.may_have_hooks() {
        true => leaf.meta().acc_hooks.as_deref().cloned(),
        false => None,
    };
    let Some(h) = node_hooks else {
        accumulate_into_leaf(leaf, g, create_graph)?;
        return crate::autograd::callbacks::run_post_accumulate_hooks(leaf);
    };
    accumulate_with_node_hooks(leaf, g, &h, create_graph)
}

/// The accumulation of a leaf whose `AccumulateGrad` node has hooks: its pre-hooks see
/// (and may replace) the gradient flowing in; its post-hooks run last and see no input
/// gradient and, as the gradient that flowed in, the leaf's `.grad` itself when the
/// accumulation adopted the gradient as `.grad` (so changes made by post-accumulate-grad
/// hooks show), else the gradient that was added.
fn accumulate_with_node_hooks(
    leaf: &Tensor,
    g: Tensor,
    h: &NodeHooks,
    create_graph: bool,
) -> Result<()> {
    let mut slot = vec![Some(g)];
    for (_, pre) in &h.pre {
        if let Some(r) = pre(&slot)? {
            check_acc_count("pre-hook", r.len(), 1)?;
            slot = r;
        }
    }
    let mut flowed = vec![None];
    if let Some(g) = slot.pop().flatten() {
        if g.shape() != leaf.shape() {
            return Err(Error::runtime(format!(
                "a pre-hook of AccumulateGrad returned a gradient of shape {:?} for a tensor \
                 of shape {:?}; it must keep the tensor's shape",
                g.shape(),
                leaf.shape()
            )));
        }
        let had_grad = {
            let m = leaf.meta();
            m.grad.is_some() || m.ext_grad.is_some()
        };
        if had_grad && !h.post.is_empty() {
            flowed = vec![Some(g.clone())];
        }
        accumulate_into_leaf(leaf, g, create_graph)?;
        crate::autograd::callbacks::run_post_accumulate_hooks(leaf)?;
        if !had_grad {
            flowed = vec![leaf.meta().grad.clone()];
        }
    }
    for (_, post) in &h.post {
        if let Some(r) = post(&[], &flowed)? {
            check_acc_count("hook", r.len(), 0)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn count(_: &Tensor, _: Tensor, _: bool) -> Result<()> {
        CALLS.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// A leaf whose `.grad` is kept outside the core, or a gradient that carries such a
    /// form, goes to the installed accumulation; the dense slot is never filled instead.
    #[test]
    fn ext_grads_go_to_the_installed_accumulator() {
        set_ext_accumulator(count);
        let leaf = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        leaf.set_ext_grad(Some(std::sync::Arc::new(7u8)));
        assert!(leaf.has_ext_grad() && leaf.grad().is_none());
        let before = CALLS.load(Ordering::SeqCst);
        let g = Tensor::from_vec(vec![1.0f64, 1.0], &[2]).unwrap();
        accumulate_into_leaf(&leaf, g, false).unwrap();
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 1);
        assert!(leaf.grad().is_none());
        // a dense `.grad` assigned replaces it and clears the flag
        leaf.set_grad(Some(Tensor::from_vec(vec![0.0f64, 0.0], &[2]).unwrap()))
            .unwrap();
        assert!(!leaf.has_ext_grad() && leaf.ext_grad().is_none());
        let carrier = Tensor::from_vec(vec![1.0f64, 1.0], &[2]).unwrap();
        carrier.set_ext_grad(Some(std::sync::Arc::new(8u8)));
        accumulate_into_leaf(&leaf, carrier, false).unwrap();
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 2);
    }
}
