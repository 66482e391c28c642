//! Custom differentiable layers written in Python (`PyLayer` / `autograd.Function`):
//! `apply` and the graph node that calls the user's `backward` (`apply.rs`), its Python
//! entry points (`entry.rs`), the `ctx`
//! object (`ctx.rs`), and ctx attributes that hold the layer's own outputs without a
//! reference cycle (`ctx_attrs.rs`, `output_attribute.rs`), and the tuple-free call into
//! `forward` / `backward` (`vcall.rs`), `once_differentiable`'s error node
//! (`delayed_error.rs`), and forward-mode AD's switch of the node's call (`forward_ad.rs`).

pub(crate) mod apply;
pub(crate) mod ctx;
pub(crate) mod ctx_attrs;
pub(crate) mod delayed_error;
pub(crate) mod dirty;
pub(crate) mod entry;
pub(crate) mod forward_ad;
pub(crate) mod output_attribute;
pub(crate) mod vcall;
