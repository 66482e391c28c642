//! One ctx attribute that holds an output of its own layer, kept without owning the
//! layer's node (see `ctx_attrs.rs` for why); a leaf the ctx and the attribute code share.

use crate::autograd::node::{Node, NodeRef};
use crate::tensor::Tensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::Weak;

/// A ctx attribute that was one of the layer's outputs, held without owning the node.
pub(crate) struct OutputAttribute {
    pub(super) name: String,
    /// The output's data (a detached alias: same storage and layout).
    pub(super) data: Tensor,
    /// The storage version when forward returned; a later in-place change is caught.
    pub(super) version: u64,
    pub(super) node: Weak<dyn Node>,
    pub(super) output_nr: usize,
}

impl OutputAttribute {
    /// The attribute's tensor, rebuilt as output `output_nr` of the layer's node.
    pub(super) fn rebuild(&self, layer: &str) -> PyResult<Tensor> {
        let t = self.data.detach();
        let Some(node) = self.node.upgrade() else {
            return Ok(t); // the graph is gone: only the values remain meaningful
        };
        if self.data.version() != self.version && crate::autograd::is_grad_enabled() {
            // its history now runs through the in-place op, which this handle cannot see;
            // differentiating through the old node would give a wrong higher-order gradient
            return Err(PyRuntimeError::new_err(format!(
                "{layer}: ctx.{} holds an output of forward that was modified in place \
                 afterwards, so it cannot be differentiated through (create_graph=True). Save \
                 it with ctx.save_for_backward(...) instead, or clone it before the in-place op",
                self.name
            )));
        }
        t.set_grad_fn(NodeRef::new(node), self.output_nr);
        Ok(t)
    }
}
