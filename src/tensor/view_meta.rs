//! The view metadata of a tensor: which base it shares memory with and in which mode it
//! was made (PyTorch's rules for views made under `no_grad` or inference mode).

use super::Tensor;
use crate::error::{Error, Result};

impl Tensor {
    /// Records that this tensor is a view sharing `base`'s memory (see `view_base`); its
    /// current history is in step with the base's memory as it is now.
    pub fn mark_view_of(&self, base: &Tensor) {
        let (root, multi) = {
            let b = base.0.meta.lock();
            let root = b.view_base.clone().unwrap_or_else(|| base.clone());
            (root, b.view_multi_output)
        };
        if root.is_inference() {
            // PyTorch: an inference tensor carries no view metadata (nothing to track)
            return;
        }
        let untracked = !crate::autograd::is_grad_enabled() && root.requires_grad();
        let inference = untracked && crate::inference::is_inference_mode();
        let version = self.version();
        let mut m = self.0.meta.lock();
        m.view_base = Some(root);
        m.view_version = version;
        m.view_frozen = untracked;
        m.view_no_grad = untracked && !inference;
        m.view_inference = inference;
        if inference {
            m.requires_grad = true;
        }
        m.view_multi_output = multi;
    }

    /// Errors for a view made inside inference mode of a tensor that requires grad
    /// (see [`AutogradMeta::view_inference`]) whose memory was modified in place since:
    /// its history cannot be regenerated, so reading it is refused (PyTorch's rule).
    pub fn check_inference_view(&self) -> Result<()> {
        let m = self.0.meta.lock();
        if m.view_inference && m.view_version != self.version() {
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
