//! In-place ops. Each computes its result out of place (recording history when needed),
//! writes it into this tensor's memory (bumping the version so stale saved tensors are
//! caught), and rebases this tensor onto the new node.

use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// Replaces this tensor's values and history with `result`'s (same shape). Refused
    /// when this tensor repeats memory along an expanded dimension (PyTorch's rule: the
    /// elements sharing it would get different values); fills use [`Tensor::fill_with`].
    pub fn apply_inplace(&self, op: &str, result: &Tensor) -> Result<()> {
        self.check_no_internal_overlap(op)?;
        self.store_inplace(op, result)
    }

    /// [`Tensor::apply_inplace`] without the overlap check: for writes of one value
    /// (fills), which give every element sharing memory the same value.
    pub(crate) fn store_inplace(&self, op: &str, result: &Tensor) -> Result<()> {
        self.check_inplace(op)?;
        if crate::autograd::is_grad_enabled() {
            let base = self.meta().view_base.clone();
            if let Some(base) = base.filter(|b| {
                b.dtype().is_differentiable()
                    && !b.is_inference()
                    && (b.requires_grad() || result.requires_grad())
            }) {
                if !base.requires_grad() && result.requires_grad() {
                    self.check_untracked_view_write(op)?;
                }
                // a write through a view: the base's history changes too (CopySlices)
                return super::copy_slices::write_through_view(self, &base, result);
            }
        }
        self.assign_raw(result)?;
        let old_history = self.grad_fn().map(|n| (n, self.output_nr()));
        if crate::autograd::is_grad_enabled() {
            if let Some(node) = result.grad_fn() {
                self.set_grad_fn(node, result.output_nr());
            } else if !self.is_leaf() {
                // the new values do not depend on the old ones: the old history gets a
                // zero gradient (keeping it would send gradients through stale values)
                let cut = result.detach();
                if let Some(rec) = crate::autograd::Recorder::begin(&[self]) {
                    rec.finish("OverwriteBackward", &cut, |g, _, _| {
                        Ok(smallvec::smallvec![Some(g.zeros_like()?)])
                    })?;
                }
                if let Some(node) = cut.grad_fn() {
                    self.set_grad_fn(node, 0);
                }
            }
        }
        if let Some((old, old_nr)) = old_history {
            // retain_grad() follows the tensor to its new version (PyTorch)
            crate::autograd::retain::move_retained(self, &old, old_nr);
        }
        Ok(())
    }

    /// When this tensor is a view whose base takes part in autograd: records that its
    /// memory now holds `result` (a tensor over the same memory with the history of the
    /// write, e.g. a custom layer's dirty output), rebasing the base (CopySlices), and
    /// returns true. False (nothing done) for any other tensor.
    pub fn write_view_history(&self, op: &str, result: &Tensor) -> Result<bool> {
        let base = self.meta().view_base.clone();
        let Some(base) = base.filter(|b| b.dtype().is_differentiable() && !b.is_inference()) else {
            return Ok(false);
        };
        if !base.requires_grad() && !result.requires_grad() {
            return Ok(false);
        }
        self.check_inplace(op)?;
        super::copy_slices::write_through_view(self, &base, result)?;
        Ok(true)
    }

    /// The operand an in-place op should read `self` through: a differentiable copy when
    /// a node will be recorded that may save it (the write would make the saved value
    /// stale), else `self`. `other_grad`: another operand requires grad (then the node is
    /// recorded even when `self` does not require grad: `zeros(2).mul_(w)`).
    fn inplace_source(&self, saves_self: bool, other_grad: bool) -> Result<Tensor> {
        if saves_self && crate::autograd::is_grad_enabled() && (other_grad || self.requires_grad())
        {
            self.clone_tensor()
        } else {
            Ok(self.clone())
        }
    }

    /// Errors unless a result of dtype `result` can be stored in this tensor by an in-place
    /// op: PyTorch's rule (`DType::can_cast`), so a wider dtype of the same kind is cast
    /// down (`float32.add_(float64)` stays float32) and a kind change is refused.
    fn check_inplace_cast(&self, result: crate::dtype::DType, op: &str) -> Result<()> {
        if !crate::dtype::DType::can_cast(result, self.dtype()) {
            return Err(crate::error::Error::runtime(format!(
                "{op}: result type {result} can't be cast to the desired output type {} (an \
                 in-place op cannot change a tensor's kind: complex to real, floating to \
                 integer, or to bool); use the out-of-place op, or cast first",
                self.dtype()
            )));
        }
        Ok(())
    }

    /// In-place binary op `self = self op other` (`op` names it, e.g. `add_`).
    pub fn binary_(&self, other: &Tensor, bop: crate::tensor::BinaryOp, op: &str) -> Result<()> {
        use crate::tensor::BinaryOp as B;
        self.check_inplace(op)?;
        let saves_self =
            !matches!(bop, B::Add | B::Sub) && (other.requires_grad() || !matches!(bop, B::Mul));
        let src = self.inplace_source(saves_self, other.requires_grad())?;
        let r = src.binary(other, bop)?;
        self.check_inplace_cast(r.dtype(), op)?;
        if r.shape() != self.shape() {
            return Err(crate::error::Error::value(format!(
                "{op}: the result has shape {:?}, which does not fit this tensor's shape {:?} \
                 (an in-place op cannot grow a tensor by broadcasting)",
                r.shape(),
                self.shape()
            )));
        }
        let r = if r.dtype() != self.dtype() {
            r.to_dtype(self.dtype())?
        } else {
            r
        };
        self.apply_inplace(op, &r)
    }

    /// In-place copy of `src` (broadcast and cast) into this tensor; differentiable in
    /// `src` for non-leaf targets.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        self.check_inplace("copy_")?;
        let r = src.to_dtype(self.dtype())?.expand(self.shape())?;
        self.apply_inplace("copy_", &r)
    }

    /// Fills with `value`; the old values get a zero gradient (`op` names the caller,
    /// e.g. `zero_`).
    pub fn fill_named(&self, value: f64, op: &str) -> Result<()> {
        self.fill_with(&crate::tensor::full(self.shape(), value, self.dtype())?, op)
    }

    /// Fills with `r`, a tensor of this tensor's shape and dtype holding one value
    /// everywhere (a complex fill builds it with `full_complex`); the old values get a
    /// zero gradient. Allowed on an expanded view: every element sharing memory gets
    /// the same value, as PyTorch's `fill_` allows.
    pub fn fill_with(&self, r: &Tensor, op: &str) -> Result<()> {
        self.check_inplace(op)?;
        if let Some(rec) = crate::autograd::Recorder::begin(&[self]) {
            rec.finish("FillBackward", r, |g, _, _| {
                Ok(smallvec::smallvec![Some(g.zeros_like()?)])
            })?;
        }
        self.store_inplace(op, r)
    }

    /// Fills with `value`.
    pub fn fill_(&self, value: f64) -> Result<()> {
        self.fill_named(value, "fill_")
    }

    /// In-place `clip`.
    pub fn clip_(&self, min: Option<f64>, max: Option<f64>) -> Result<()> {
        self.clip_named_(min, max, "clip_")
    }

    /// [`Tensor::clip_`] under the name the caller used (`clamp_`), which its errors name.
    pub fn clip_named_(&self, min: Option<f64>, max: Option<f64>, op: &str) -> Result<()> {
        self.check_inplace(op)?;
        let r = self.inplace_source(true, false)?.clip(min, max)?;
        self.apply_inplace(op, &r)
    }

    /// In-place unary op (`exp_` and friends).
    pub fn unary_(&self, uop: crate::tensor::UnaryOp, op: &str) -> Result<()> {
        self.check_inplace(op)?;
        let r = self.inplace_source(true, false)?.unary(uop)?;
        self.check_inplace_cast(r.dtype(), op)?;
        let r = if r.dtype() != self.dtype() {
            r.to_dtype(self.dtype())?
        } else {
            r
        };
        self.apply_inplace(op, &r)
    }
}
