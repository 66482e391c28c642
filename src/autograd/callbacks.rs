//! Two ways to act on a backward pass while it runs, for data-parallel training and
//! other gradient consumers:
//!
//! - post-accumulate hooks on a leaf: run right after the leaf's gradient of this pass has
//!   been stored into its `.grad` (PyTorch's `register_post_accumulate_grad_hook`);
//! - final callbacks (`queue_callback`): queued from inside a pass (a hook), run once the
//!   whole pass has finished successfully, before `backward()` returns.

use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::cell::RefCell;
use std::sync::Arc;

/// A post-accumulate hook: gets the leaf whose `.grad` has just been updated.
pub type PostAccumulateHook = Arc<dyn Fn(&Tensor) -> Result<()> + Send + Sync>;

/// A callback run at the end of the backward pass that queued it.
pub type FinalCallback = Box<dyn FnOnce() -> Result<()>>;

impl Tensor {
    /// Registers `hook` under `id`, to run after each backward pass that accumulated into
    /// this leaf's `.grad`. Errors on a non-leaf or a tensor that does not require grad.
    pub fn register_post_accumulate_grad_hook(
        &self,
        id: u64,
        hook: PostAccumulateHook,
    ) -> Result<()> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "cannot register a post-accumulate-grad hook on a tensor that does not \
                 require grad (set requires_grad=True / stop_gradient=False first)",
            ));
        }
        if !self.is_leaf() {
            return Err(Error::runtime(
                "post accumulate grad hooks cannot be registered on non-leaf tensors (they \
                 run after .grad is updated, and only leaves accumulate into .grad); use \
                 register_hook on a non-leaf",
            ));
        }
        self.meta().post_accumulate_hooks.push((id, hook));
        Ok(())
    }

    /// Removes the post-accumulate hook registered under `id` (no-op when absent).
    /// Returns whether it was registered.
    pub fn remove_post_accumulate_grad_hook(&self, id: u64) -> bool {
        let mut meta = self.meta();
        let before = meta.post_accumulate_hooks.len();
        meta.post_accumulate_hooks.retain(|(i, _)| *i != id);
        meta.post_accumulate_hooks.len() != before
    }
}

/// Runs the post-accumulate hooks of `leaf` (a snapshot: hooks may (un)register hooks).
pub(crate) fn run_post_accumulate_hooks(leaf: &Tensor) -> Result<()> {
    if !leaf.may_have_hooks() {
        return Ok(()); // (no lock for the usual leaf)
    }
    let hooks: Vec<PostAccumulateHook> = {
        let m = leaf.meta();
        if m.post_accumulate_hooks.is_empty() {
            return Ok(());
        }
        m.post_accumulate_hooks
            .iter()
            .map(|(_, h)| h.clone())
            .collect()
    };
    for h in hooks {
        h(leaf)?;
    }
    Ok(())
}

thread_local! {
    /// One frame of queued callbacks per backward pass running on this thread (passes
    /// nest when a hook itself calls backward).
    static FRAMES: RefCell<Vec<Vec<FinalCallback>>> = const { RefCell::new(Vec::new()) };
}

/// Queues `cb` to run when the innermost backward pass on this thread finishes. Errors
/// outside a backward pass.
pub fn queue_callback(cb: FinalCallback) -> Result<()> {
    FRAMES.with(|f| match f.borrow_mut().last_mut() {
        Some(frame) => {
            frame.push(cb);
            Ok(())
        }
        None => Err(Error::runtime(
            "queue_callback() can only be called while a backward pass runs (from a hook)",
        )),
    })
}

/// The callback frame of one backward pass; dropping it without [`CallbackFrame::finish`]
/// (the pass failed) discards what was queued.
pub(crate) struct CallbackFrame(());

impl CallbackFrame {
    /// Opens a frame for a pass starting on this thread.
    pub(crate) fn begin() -> Self {
        FRAMES.with(|f| f.borrow_mut().push(Vec::new()));
        CallbackFrame(())
    }

    /// Runs the queued callbacks in order, including any they queue; stops at the first
    /// error (the rest are discarded).
    pub(crate) fn finish(self) -> Result<()> {
        loop {
            let batch =
                FRAMES.with(|f| std::mem::take(f.borrow_mut().last_mut().expect("callback frame")));
            if batch.is_empty() {
                return Ok(());
            }
            for cb in batch {
                cb()?;
            }
        }
    }
}

impl Drop for CallbackFrame {
    fn drop(&mut self) {
        FRAMES.with(|f| {
            f.borrow_mut().pop();
        });
    }
}
