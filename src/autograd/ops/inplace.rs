//! In-place ops. Each computes its result out of place (recording history when needed),
//! writes it into this tensor's memory (bumping the version so stale saved tensors are
//! caught), and rebases this tensor onto the new node.

use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// Replaces this tensor's values and history with `result`'s (same shape).
    pub fn apply_inplace(&self, op: &str, result: &Tensor) -> Result<()> {
        self.check_inplace(op)?;
        self.assign_raw(result)?;
        if crate::autograd::is_grad_enabled() {
            if let Some(node) = result.grad_fn() {
                self.set_grad_fn(node, result.output_nr());
            }
        }
        Ok(())
    }

    /// In-place binary op `self = self op other` (`op` names it, e.g. `add_`).
    pub fn binary_(&self, other: &Tensor, bop: crate::tensor::BinaryOp, op: &str) -> Result<()> {
        self.check_inplace(op)?;
        let r = self.binary(other, bop)?;
        if r.shape() != self.shape() {
            return Err(crate::error::Error::value(format!(
                "{op}: the result has shape {:?}, which does not fit this tensor's shape {:?} \
                 (an in-place op cannot grow a tensor by broadcasting)",
                r.shape(),
                self.shape()
            )));
        }
        let r = if r.dtype() != self.dtype() { r.to_dtype(self.dtype())? } else { r };
        self.apply_inplace(op, &r)
    }

    /// In-place copy of `src` (broadcast and cast) into this tensor; differentiable in
    /// `src` for non-leaf targets.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        self.check_inplace("copy_")?;
        let r = src.to_dtype(self.dtype())?.expand(self.shape())?;
        self.apply_inplace("copy_", &r)
    }

    /// Fills with `value` (cuts the gradient to the old values).
    pub fn fill_(&self, value: f64) -> Result<()> {
        self.check_inplace("fill_")?;
        let r = crate::tensor::full(self.shape(), value, self.dtype())?;
        self.apply_inplace("fill_", &r)?;
        if crate::autograd::is_grad_enabled() && !self.is_leaf() {
            // the values no longer depend on anything: detach the history
            self.set_requires_grad(false)?;
            self.set_requires_grad(true)?;
        }
        Ok(())
    }
}
