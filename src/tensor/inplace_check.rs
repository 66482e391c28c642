//! Whether an in-place write is allowed on a tensor (`Tensor::check_inplace`): the
//! inference-tensor rule and autograd's leaf and view rules, in one place for every
//! in-place op.

use super::{Tensor, ViewCreation};
use crate::error::{Error, Result};

impl Tensor {
    /// Errors if in-place modification is forbidden here: an inference tensor outside
    /// inference mode (PyTorch's rule: its version is not tracked, so a later backward
    /// could not notice the change), and, while grad mode is on, a leaf that requires
    /// grad, a view of such a leaf, or a view made under no_grad of a tensor that requires
    /// grad, or one made inside inference mode. `op` names the op.
    pub fn check_inplace(&self, op: &str) -> Result<()> {
        if self.is_inference() && !crate::inference::is_inference_mode() {
            return Err(Error::runtime(format!(
                "{op}: Inplace update to inference tensor outside InferenceMode is not \
                 allowed: this tensor was made under inference_mode(). Modify a clone made \
                 outside it (x = x.clone()), or do the update inside inference_mode()"
            )));
        }
        if crate::autograd::is_grad_enabled() {
            let (base, no_grad_view, inference_view, multi, created, requires_grad) = {
                let m = self.meta();
                (
                    m.view_base.clone(),
                    m.view_no_grad,
                    m.view_inference,
                    m.view_multi_output,
                    m.view_created,
                    m.requires_grad,
                )
            };
            if let (Some(_), true, false) =
                (&base, requires_grad, created == ViewCreation::GradMode)
            {
                // a view (with history) of a view made under no_grad or inference mode:
                // PyTorch refuses an in-place write to it, whether or not the root
                // requires grad (the view made there may since require grad itself)
                // (a custom layer's view output, made in its no_grad forward, has its
                // own rule below)
                if let Some(node) = self.grad_fn().filter(|n| n.as_any().is_none()) {
                    let name = node.name();
                    let name = name.trim_end_matches(|c: char| c.is_ascii_digit());
                    let name = name.strip_suffix("Backward").unwrap_or(name);
                    let (made, then) = match created {
                        ViewCreation::Inference => (
                            "inference mode and is being modified inplace in normal mode",
                            "inference_mode",
                        ),
                        _ => (
                            "no_grad mode and is being modified inplace with grad mode enabled",
                            "no_grad",
                        ),
                    };
                    return Err(Error::runtime(format!(
                        "{op}: Output {} of {name} is a view of a view which was created in \
                         {made}. Given that this use case is ambiguous and error-prone, it \
                         is forbidden. You can clarify your code by moving both the view and \
                         the inplace either both inside the {then} block (if you don't want \
                         the inplace to be tracked) or both outside (if you want the inplace \
                         to be tracked).",
                        self.output_nr()
                    )));
                }
            }
            if let Some(b) = base.filter(|b| b.requires_grad()) {
                if multi {
                    // PyTorch's words, with the ops named
                    let who = match self.grad_fn() {
                        Some(node) => format!("Output {} of {}", self.output_nr(), {
                            let name = node.name();
                            let name = name.trim_end_matches(|c: char| c.is_ascii_digit());
                            name.strip_suffix("Backward").unwrap_or(name).to_string()
                        }),
                        None => "This tensor".to_string(),
                    };
                    return Err(Error::runtime(format!(
                        "{op}: {who} is a view and is being modified inplace. This view is the \
                         output of a function that returns multiple views (one of several \
                         views a single function returned: split, chunk, unbind). Such \
                         functions do not allow the output views to be modified inplace. You \
                         should replace the inplace operation by an out-of-place one, or \
                         clone() the view"
                    )));
                }
                if no_grad_view {
                    // a custom layer's forward runs under no_grad: a view it returns is
                    // refused for its own reason (the layer's backward would be bypassed)
                    if let Some(layer) = self.grad_fn().filter(|n| n.as_any().is_some()) {
                        let name = layer.name();
                        let name = name.strip_suffix("Backward").unwrap_or(&name);
                        return Err(Error::runtime(format!(
                            "{op}: Output {} of {name} is a view and is being modified \
                             inplace. This view was created inside a custom Function (or \
                             because an input was returned as-is) and the autograd logic to \
                             handle view+inplace would override the custom backward \
                             associated with the custom Function, leading to incorrect \
                             gradients. This behavior is forbidden. You can fix this by \
                             cloning the output of the custom Function.",
                            self.output_nr()
                        )));
                    }
                    return Err(Error::runtime(format!(
                        "{op}: A view was created in no_grad mode and is being modified \
                         inplace with grad mode enabled. Given that this use case is \
                         ambiguous and error-prone, it is forbidden. You can clarify your \
                         code by moving both the view and the inplace either both inside the \
                         no_grad block (if you don't want the inplace to be tracked) or both \
                         outside (if you want the inplace to be tracked)."
                    )));
                }
                if inference_view {
                    return Err(Error::runtime(format!(
                        "{op}: A view was created in inference mode and is being modified \
                         inplace in normal mode. Given that this use case is ambiguous and \
                         error-prone, it is forbidden. You can clarify your code by moving both \
                         the view and the inplace either both inside the inference_mode block \
                         (if you don't want the inplace to be tracked) or both outside (if you \
                         want the inplace to be tracked)."
                    )));
                }
                if b.is_leaf() {
                    return Err(Error::runtime(format!(
                        "{op}: a view of a leaf Variable that requires grad is being used in an \
                         in-place operation; modify a copy (y = x.clone(); then write into a \
                         view of y), or do it under no_grad() if you mean to change the leaf \
                         itself"
                    )));
                }
            }
            let m = self.meta();
            if m.grad_fn.is_none() && m.requires_grad {
                // The fix differs between an in-place method (`add_`: its out-of-place
                // twin) and item assignment (`x[i] = v`: assign into a clone).
                let fix = match op.strip_suffix('_') {
                    Some("zero") => {
                        "make a new tensor instead (x = ferrograd.zeros_like(x))".into()
                    }
                    Some("fill") => {
                        "make a new tensor instead (x = ferrograd.full_like(x, value))".into()
                    }
                    Some("copy") => "use the source itself instead (x = src.clone())".into(),
                    Some(plain) if !op.starts_with("__") => {
                        format!("use the out-of-place op instead (x = x.{plain}(...))")
                    }
                    _ => "assign into a copy instead (y = x.clone(); y[i] = value; \
                          gradients flow back to x through the copy)"
                        .to_string(),
                };
                let what = if op == "__setitem__" {
                    "x[i] = value"
                } else {
                    op
                };
                // Paddle raises ValueError here, PyTorch RuntimeError: one class for both
                return Err(Error::usage(format!(
                    "{what}: a leaf tensor that requires grad cannot be modified in place; \
                     {fix}, or do it under no_grad() if you mean to change the parameter \
                     itself (with ferrograd.no_grad(): ...)"
                )));
            }
        }
        if !self.storage().is_writable() {
            return Err(Error::value(format!(
                "{op}: the tensor's memory is read-only (created from a read-only NumPy array)"
            )));
        }
        Ok(())
    }

    /// Errors when this tensor repeats memory along a broadcast (stride-0) dimension and
    /// `op` would write different values into the elements that share it, with PyTorch's
    /// words: which value the shared element keeps would depend on the order of the
    /// writes. Fills (`fill_`, `zero_`, `x[i] = number`, `masked_fill_`, `index_fill_`)
    /// write one value and are allowed, as in PyTorch.
    pub(crate) fn check_no_internal_overlap(&self, op: &str) -> Result<()> {
        match self.layout().broadcast_dim() {
            None => Ok(()),
            Some(d) => Err(Error::runtime(format!(
                "{op}: unsupported operation: more than one element of the written-to tensor \
                 refers to a single memory location (it is an expanded view: dimension {d} of \
                 shape {:?} has stride 0). Please clone() the tensor before performing the \
                 operation",
                self.shape()
            ))),
        }
    }

    /// Errors for a write that requires grad into a view whose base does not: PyTorch
    /// refuses it for one of several views an op returned (`unbind`, `split`) and for a
    /// view a custom `Function` returned (its backward would be bypassed), whether or not
    /// history was recorded when the view was made. Checked before the write.
    pub(crate) fn check_untracked_view_write(&self, op: &str) -> Result<()> {
        let (multi, custom_fn) = {
            let m = self.meta();
            (m.view_multi_output, m.view_custom_fn)
        };
        if multi {
            return Err(Error::runtime(format!(
                "{op}: A view was created in no_grad mode and is being modified inplace with \
                 grad mode enabled. This view is the output of a function that returns \
                 multiple views. Such functions do not allow the output views to be modified \
                 inplace. You should replace the inplace operation by an out-of-place one, \
                 or clone() the view"
            )));
        }
        if custom_fn {
            return Err(Error::runtime(format!(
                "{op}: A view was created in no_grad mode and is being modified inplace with \
                 grad mode enabled. This view was created inside a custom Function (or \
                 because an input was returned as-is) and the autograd logic to handle \
                 view+inplace would override the custom backward associated with the custom \
                 Function, leading to incorrect gradients. This behavior is forbidden. You \
                 can fix this by cloning the output of the custom Function."
            )));
        }
        Ok(())
    }
}
