//! Non-leaf tensors that keep their gradient: PyTorch's `retain_grad()` (stored after the
//! tensor's hooks, follows the tensor through in-place ops) and Paddle's `retain_grads()`
//! (a hook among the tensor's hooks, in registration order; an output its node did not
//! reach keeps zeros).

use crate::autograd::node::{GradHook, NodeRef};
use crate::error::Result;
use crate::tensor::{Tensor, WeakTensor};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Adds `g` to `t.grad` (detached unless `create_graph`, so the retained gradient stays
/// differentiable only when the caller asked for a graph of the gradient).
pub fn store_retained(t: &Tensor, g: &Tensor, create_graph: bool) -> Result<()> {
    let value = if create_graph { g.clone() } else { g.detach() };
    let mut m = t.meta();
    m.grad = Some(match m.grad.take() {
        None => value,
        Some(prev) => prev.add(&value)?,
    });
    Ok(())
}

/// After an in-place op gave `t` a new `grad_fn`, moves its `retain_grad()` entry from
/// the old node (`old`, output `old_nr`) to the new one, so `t.grad` is the gradient of
/// the tensor's latest version (PyTorch). Nothing to do when `t` retains no gradient.
pub fn move_retained(t: &Tensor, old: &NodeRef, old_nr: usize) {
    if !t.meta().retains_grad {
        return;
    }
    let Some(new) = t.grad_fn() else { return };
    let new_nr = t.output_nr();
    if new.id() == old.id() && new_nr == old_nr {
        return;
    }
    let mut moved = false;
    old.base().retained().retain(|(slot, w)| {
        let is_t = *slot == old_nr && w.is(t);
        moved |= is_t;
        !is_t
    });
    if moved {
        new.base().retained().push((new_nr, t.downgrade()));
    }
}

/// Paddle's `retain_grads()` as a hook on `t`'s output of its node: it stores the
/// gradient as it is at this point of the hook list (hooks registered later do not change
/// it), and zeros when the node runs without a gradient for this output.
pub fn paddle_retain_hook(t: WeakTensor) -> GradHook {
    Arc::new(move |g: Option<&Tensor>| {
        let Some(t) = t.upgrade() else {
            return Ok(None);
        };
        let create_graph = crate::autograd::is_grad_enabled();
        match g {
            Some(g) => store_retained(&t, g, create_graph)?,
            None => {
                let zeros = t.detach().zeros_like()?;
                store_retained(&t, &zeros, false)?;
            }
        }
        Ok(None)
    })
}

/// Ids of the hooks added by `_retain_grads_in_order`, apart from `register_hook`'s
/// (which count up from 1): no handle refers to them; `retain_grad` recognizes them.
/// The first id of a Paddle `retain_grads()` hook (ids at or above it are those).
pub const RETAIN_ID_BASE: u64 = 1 << 63;
static NEXT_RETAIN_ID: AtomicU64 = AtomicU64::new(RETAIN_ID_BASE);

/// True when Paddle's `retain_grads()` already keeps the gradient of output `slot` of
/// `node`, so PyTorch's `retain_grad()` on the same tensor must not store it a second
/// time (the two would add up).
pub fn retained_in_order(node: &NodeRef, slot: usize) -> bool {
    node.base()
        .pre_hooks()
        .iter()
        .any(|(s, id, _)| *s == slot && *id >= RETAIN_ID_BASE)
}

/// A fresh hook id for a Paddle `retain_grads()` hook (see [`retained_in_order`]).
pub fn next_retain_id() -> u64 {
    NEXT_RETAIN_ID.fetch_add(1, Ordering::Relaxed)
}
