//! `py_func`: an operator whose forward and backward are user callbacks (NumPy code in
//! Python). The core stays Python-free: the callbacks come in through the
//! [`PyFuncCallback`] trait, which the bindings implement.

use super::program::{fmt_shape, Dim};
use crate::autograd::{is_grad_enabled, no_grad, InputMeta, Node, NodeBase, NodeRef};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::borrow::Cow;
use std::sync::Arc;

/// The user side of a `py_func`: the forward callback and the optional backward callback.
pub trait PyFuncCallback: Send + Sync {
    /// Readable name of the forward function, for error messages.
    fn name(&self) -> String;
    /// Computes the outputs from the inputs (called with grad mode off).
    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>>;
    /// Whether a backward function was given (without one no gradient flows).
    fn has_backward(&self) -> bool;
    /// Computes one gradient (or `None`) per input from the inputs, the outputs and one
    /// gradient per output (`None` for an output that received none).
    fn backward(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        grads: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>>;
    /// The implementation as `Any`, so that bindings can reach what they stored in it
    /// (e.g. to show a garbage collector the Python objects held); None by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// Whether the forward callback runs the crate's differentiable ops on the inputs
    /// themselves, with grad mode as the executor set it, so that the autograd engine
    /// records what it does (the static form of an eager function: its gradient is
    /// the eager one, with no backward callback). False by default.
    fn traced(&self) -> bool {
        false
    }
}

/// The contract one `py_func` output is checked against: its declared variable.
#[derive(Clone, Debug)]
pub struct OutSpec {
    /// The output variable's name.
    pub name: String,
    /// Declared dtype.
    pub dtype: DType,
    /// Declared shape (`None` = any size).
    pub shape: Vec<Dim>,
}

/// A `py_func` operator: callbacks plus the declared outputs.
pub struct PyFuncOp {
    /// The user callbacks.
    pub callback: Arc<dyn PyFuncCallback>,
    /// One per output.
    pub outputs: Vec<OutSpec>,
}

impl PyFuncOp {
    /// Whether gradients flow through this op.
    pub fn has_backward(&self) -> bool {
        self.callback.has_backward() || self.callback.traced()
    }

    /// Runs a traced callback ([`PyFuncCallback::traced`]) on the inputs as they are:
    /// the graph its ops record is the gradient path; only the outputs are checked.
    fn apply_traced(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let outs = self.callback.forward(inputs)?;
        self.check_outputs(&outs)?;
        Ok(outs)
    }

    fn check_outputs(&self, outs: &[Tensor]) -> Result<()> {
        let name = self.callback.name();
        if outs.len() != self.outputs.len() {
            return Err(Error::value(format!(
                "py_func '{name}': the forward function returned {} value(s), but {} output \
                 variable(s) were declared in `out`",
                outs.len(),
                self.outputs.len()
            )));
        }
        for (k, (t, spec)) in outs.iter().zip(&self.outputs).enumerate() {
            check_output(&name, k, t, spec)?;
        }
        Ok(())
    }

    /// Runs the forward callback without grad, checks every result against its declared
    /// variable, and records one node when a backward exists, grad mode is on and an
    /// input requires grad.
    pub fn apply(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if self.callback.traced() {
            return self.apply_traced(inputs);
        }
        let detached: Vec<Tensor> = inputs.iter().map(|t| t.detach()).collect();
        let outs = {
            let _guard = no_grad();
            self.callback.forward(&detached)?
        };
        self.check_outputs(&outs)?;
        let outs: Vec<Tensor> = outs.into_iter().map(|t| t.detach()).collect();
        if self.has_backward() && is_grad_enabled() && inputs.iter().any(|t| t.requires_grad()) {
            let base = NodeBase::new(
                inputs.iter().map(|t| t.gradient_edge()).collect(),
                inputs
                    .iter()
                    .map(|t| InputMeta {
                        shape: t.shape_vec(),
                        dtype: t.dtype(),
                    })
                    .collect(),
            );
            let node = Arc::new(PyFuncNode {
                base,
                callback: self.callback.clone(),
                inputs: detached,
                // detached copies: the node must not own its outputs (no reference cycle)
                outputs: outs.iter().map(|t| t.detach()).collect(),
            });
            let node_ref = NodeRef::new(node);
            for (i, t) in outs.iter().enumerate() {
                t.set_grad_fn(node_ref.clone(), i);
            }
        }
        Ok(outs)
    }
}

fn check_output(name: &str, k: usize, t: &Tensor, spec: &OutSpec) -> Result<()> {
    let shape_ok = t.ndim() == spec.shape.len()
        && t.shape()
            .iter()
            .zip(&spec.shape)
            .all(|(&n, d)| d.is_none_or(|d| d == n));
    if !shape_ok {
        return Err(Error::value(format!(
            "py_func '{name}': output {k} ('{}') has shape {:?}, but the variable was declared \
             with shape {}; return an array of the declared shape",
            spec.name,
            t.shape(),
            fmt_shape(&spec.shape)
        )));
    }
    if t.dtype() != spec.dtype {
        return Err(Error::type_err(format!(
            "py_func '{name}': output {k} ('{}') has dtype {}, but the variable was declared \
             with dtype {}; convert it, e.g. with .astype('{}')",
            spec.name,
            t.dtype(),
            spec.dtype,
            spec.dtype
        )));
    }
    Ok(())
}

/// The backward node of one `py_func` call.
struct PyFuncNode {
    base: NodeBase,
    callback: Arc<dyn PyFuncCallback>,
    inputs: Vec<Tensor>,
    outputs: Vec<Tensor>,
}

impl Node for PyFuncNode {
    fn name(&self) -> Cow<'static, str> {
        Cow::Owned(format!("PyFuncBackward({})", self.callback.name()))
    }
    fn base(&self) -> &NodeBase {
        &self.base
    }
    fn num_outputs(&self) -> usize {
        self.outputs.len()
    }
    /// An output that received no gradient reaches `backward_func` as `None`.
    fn materialize_grads(&self) -> bool {
        false
    }
    fn output_meta(&self, i: usize) -> Option<InputMeta> {
        self.outputs.get(i).map(|t| InputMeta {
            shape: t.shape_vec(),
            dtype: t.dtype(),
        })
    }
    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        let got = self
            .callback
            .backward(&self.inputs, &self.outputs, &grads)?;
        if got.len() != self.inputs.len() {
            return Err(Error::value(format!(
                "py_func '{}': the backward function returned {} gradient(s), but the op has \
                 {} input(s); return one gradient (or None) per input",
                self.callback.name(),
                got.len(),
                self.inputs.len()
            )));
        }
        Ok(got)
    }
}
