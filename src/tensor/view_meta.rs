//! The view metadata of a tensor: which base it shares memory with and in which mode it
//! was made (PyTorch's rules for views made under `no_grad` or inference mode).

use super::Tensor;
use crate::error::{Error, Result};

/// The mode a view was made in (PyTorch's `CreationMeta`, see
/// [`AutogradMeta::view_created`](super::AutogradMeta::view_created)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewCreation {
    /// Made with grad mode on (or not a view).
    #[default]
    GradMode,
    /// Made under `no_grad`, or a view of such a view.
    NoGrad,
    /// Made inside inference mode, or a view of such a view.
    Inference,
}

impl Tensor {
    /// Records that this tensor is a view sharing `base`'s memory (see `view_base`); its
    /// current history is in step with the base's memory as it is now.
    pub fn mark_view_of(&self, base: &Tensor) {
        let (root, multi, parent_created, custom_fn, spill) = {
            let b = base.meta();
            let root = b.view_base.clone().unwrap_or_else(|| base.clone());
            let spill = b.view_spill.clone();
            (
                root,
                b.view_multi_output,
                b.view_created,
                b.view_custom_fn,
                spill,
            )
        };
        if root.is_inference() {
            // PyTorch: an inference tensor carries no view metadata (nothing to track)
            return;
        }
        let untracked = !crate::autograd::is_grad_enabled() && root.requires_grad();
        let inference = untracked && crate::inference::is_inference_mode();
        // the mode this view is made in; a view of a view keeps its parent's record
        // unless made in a stricter mode (PyTorch's `propagate_creation_meta`)
        let created = if crate::inference::is_inference_mode() {
            ViewCreation::Inference
        } else if !crate::autograd::is_grad_enabled() {
            ViewCreation::NoGrad
        } else {
            ViewCreation::GradMode
        };
        let created = match (parent_created, created) {
            (ViewCreation::Inference, _) | (_, ViewCreation::GradMode) => parent_created,
            _ => created,
        };
        let version = self.version();
        // (a view op's fresh result: written without the lock)
        self.with_meta_mut(|m| {
            m.view_created = created;
            m.view_base = Some(root);
            m.view_version = version;
            m.view_frozen = untracked;
            m.view_no_grad = untracked && !inference;
            m.view_inference = inference;
            if inference {
                m.requires_grad = true;
            }
            m.view_multi_output = multi;
            m.view_custom_fn = custom_fn;
            m.view_spill = spill;
        });
    }

    /// True for a view made under `no_grad` of a tensor that requires grad whose memory
    /// was modified in place since (by it, its base or another view): PyTorch cannot say
    /// what its history is then (`grad_fn` raises, `repr` shows `grad_fn=<Invalid>`).
    pub fn is_stale_no_grad_view(&self) -> bool {
        self.stale_view() == Some(ViewCreation::NoGrad)
    }

    /// The mode an untracked view was made in (`NoGrad` or `Inference`) when its memory
    /// was modified in place since, read under one lock; None for every other tensor
    /// (the common case, which reads no version). Its history cannot be told then
    /// ([`Tensor::check_inference_view`], [`Tensor::check_no_grad_view`]).
    pub fn stale_view(&self) -> Option<ViewCreation> {
        let m = self.meta();
        let made = match (m.view_inference, m.view_no_grad) {
            (true, _) => ViewCreation::Inference,
            (false, true) => ViewCreation::NoGrad,
            (false, false) => return None,
        };
        (m.view_version != self.version()).then_some(made)
    }

    /// Errors for a stale view made under `no_grad` (see
    /// [`Tensor::is_stale_no_grad_view`]), in PyTorch's words; PyTorch code reading its
    /// `grad_fn` or `is_leaf` gets this.
    pub fn check_no_grad_view(&self) -> Result<()> {
        if self.is_stale_no_grad_view() {
            return Err(Error::runtime(
                "A view was created in no_grad mode and its base or another view of its base \
                 has been modified inplace with grad mode enabled. Given that this use case is \
                 ambiguous and error-prone, it is forbidden. You can clarify your code by \
                 moving both the view and the inplace either both inside the no_grad block \
                 (if you don't want the inplace to be tracked) or both outside (if you want \
                 the inplace to be tracked).",
            ));
        }
        Ok(())
    }

    /// Errors for a view made inside inference mode of a tensor that requires grad
    /// (see [`AutogradMeta::view_inference`]) whose memory was modified in place since:
    /// its history cannot be regenerated, so reading it is refused (PyTorch's rule).
    pub fn check_inference_view(&self) -> Result<()> {
        if self.stale_view() == Some(ViewCreation::Inference) {
            return Err(Error::runtime(
                "A view was created in inference mode and its base or another view of its \
                 base has been modified inplace in normal mode. Given that this use case is \
                 ambiguous and error-prone, it is forbidden. You can clarify your code by \
                 moving both the view and the inplace either both inside the inference_mode \
                 block (if you don't want the inplace to be tracked) or both outside (if you \
                 want the inplace to be tracked).",
            ));
        }
        Ok(())
    }
}
