//! This thread's stack of saved-tensor pack/unpack hooks (`saved_tensors_hooks`), the
//! switch that disables them, and the guard that restores both around a backward pass.

use super::saved::SavedTensorHooks;
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static HOOK_STACK: RefCell<Vec<Arc<dyn SavedTensorHooks>>> = const { RefCell::new(Vec::new()) };
    static HOOKS_DISABLED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Pushes a hook pair onto this thread's stack (innermost wins); errors while disabled.
pub fn push_saved_tensor_hooks(hooks: Arc<dyn SavedTensorHooks>) -> Result<()> {
    if let Some(msg) = saved_tensor_hooks_disabled() {
        return Err(Error::runtime(msg));
    }
    HOOK_STACK.with(|s| s.borrow_mut().push(hooks));
    Ok(())
}

/// Pops the innermost hook pair of this thread.
pub fn pop_saved_tensor_hooks() {
    HOOK_STACK.with(|s| {
        s.borrow_mut().pop();
    });
}

/// Number of hook pairs active on this thread.
pub fn saved_tensor_hooks_depth() -> usize {
    HOOK_STACK.with(|s| s.borrow().len())
}

/// This thread's disabled-hooks message (`Some` while hooks are disabled).
pub(crate) fn saved_tensor_hooks_disabled() -> Option<String> {
    HOOKS_DISABLED.with(|d| d.borrow().clone())
}

/// Disables (with `Some(message)`) or re-enables hooks on this thread; returns the old
/// setting.
pub fn set_saved_tensor_hooks_disabled(message: Option<String>) -> Option<String> {
    HOOKS_DISABLED.with(|d| std::mem::replace(&mut *d.borrow_mut(), message))
}

/// This thread's hook stack, outermost first (carried to a thread that continues a
/// re-entrant backward pass).
pub(crate) fn hook_stack_snapshot() -> Vec<Arc<dyn SavedTensorHooks>> {
    HOOK_STACK.with(|s| s.borrow().clone())
}

/// Replaces this thread's hook stack (on a thread that continues a re-entrant pass).
pub(crate) fn set_hook_stack(stack: Vec<Arc<dyn SavedTensorHooks>>) {
    HOOK_STACK.with(|s| *s.borrow_mut() = stack);
}

/// Restores this thread's saved-tensor hook stack (and its buffer-cache suspend setting)
/// when dropped, as it was when created: held across one backward pass, so that a
/// `saved_tensors_hooks` entered or left inside a hook during backward does not stay in
/// effect after it (PyTorch restores the thread's state the same way).
pub(crate) struct HookStackGuard {
    stack: Vec<Arc<dyn SavedTensorHooks>>,
    suspend: bool,
}

impl HookStackGuard {
    /// Records the current stack.
    pub(crate) fn new() -> HookStackGuard {
        let suspend = crate::buffer_cache::set_packs_suspend(true);
        crate::buffer_cache::set_packs_suspend(suspend);
        HookStackGuard {
            stack: hook_stack_snapshot(),
            suspend,
        }
    }
}

impl Drop for HookStackGuard {
    fn drop(&mut self) {
        let same = HOOK_STACK.with(|s| {
            let s = s.borrow();
            s.len() == self.stack.len() && s.iter().zip(&self.stack).all(|(a, b)| Arc::ptr_eq(a, b))
        });
        if !same {
            let old = HOOK_STACK.with(|s| std::mem::take(&mut *s.borrow_mut()));
            set_hook_stack(std::mem::take(&mut self.stack));
            drop(old);
        }
        crate::buffer_cache::set_packs_suspend(self.suspend);
    }
}

/// The innermost hook pair of this thread, if any.
pub(super) fn current_hooks() -> Option<Arc<dyn SavedTensorHooks>> {
    HOOK_STACK.with(|s| s.borrow().last().cloned())
}
