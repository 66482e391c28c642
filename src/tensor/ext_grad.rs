//! A `.grad` kept outside the core ([`super::AutogradMeta::ext_grad`]): a sparse gradient the
//! Python bindings own, with the dense slot empty and a flag readers check lock-free.

use super::{ExtGrad, Tensor};

impl Tensor {
    /// True while `.grad` is a gradient kept outside the core ([`super::AutogradMeta::ext_grad`],
    /// a sparse gradient): the dense slot is then empty and must not be read as "no
    /// gradient".
    pub fn has_ext_grad(&self) -> bool {
        self.0.ext.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The gradient kept outside the core, if any.
    pub fn ext_grad(&self) -> Option<ExtGrad> {
        self.meta().ext_grad.clone()
    }

    /// Makes `g` this tensor's `.grad`, kept outside the core (the dense slot is emptied);
    /// `None` clears it (and leaves the dense slot alone).
    pub fn set_ext_grad(&self, g: Option<ExtGrad>) {
        let mut m = self.meta();
        let set = g.is_some();
        if set {
            m.grad = None;
        }
        m.ext_grad = g;
        self.0.ext.store(set, std::sync::atomic::Ordering::Release);
    }
}
