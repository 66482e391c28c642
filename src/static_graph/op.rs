//! The operations a static [`Program`](super::Program) records: one enum variant per op
//! family with its attributes, how each runs over the crate's differentiable tensor ops,
//! and which of them carry gradients.

use super::op_index_join_reduce::ExtOp;
use super::optim_op::OptimizerStep;
use super::pyfunc::PyFuncOp;
use crate::dtype::{DType, ZeroDimRule};
use crate::error::{Error, Result};
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use std::sync::Arc;

/// Which reduction a [`OpKind::Reduce`] performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    /// Sum.
    Sum,
    /// Arithmetic mean (integer input gives float32).
    Mean,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
}

impl ReduceKind {
    /// The reduction's entry in the table (`src/op_defs/reduce.rs`), which gives its
    /// dtype rule.
    pub fn reduction(self) -> crate::op_defs::Reduction {
        use crate::op_defs::Reduction;
        match self {
            ReduceKind::Sum => Reduction::Sum,
            ReduceKind::Mean => Reduction::Mean,
            ReduceKind::Max => Reduction::Max,
            ReduceKind::Min => Reduction::Min,
        }
    }
}

/// How a parameter is initialised by the startup program.
#[derive(Clone, Debug)]
pub enum InitKind {
    /// Every element equals the value.
    Constant(f64),
    /// Uniform on `[low, high)`.
    Uniform(f64, f64),
    /// Normal with `(mean, std)`.
    Normal(f64, f64),
    /// A fixed value (copied on every run).
    Value(Tensor),
}

/// One recorded operation with its attributes. Inputs and outputs are variable ids held
/// by the [`OpRecord`](super::OpRecord) around it.
#[derive(Clone)]
pub enum OpKind {
    /// Elementwise binary op with broadcasting and promotion.
    Binary(BinaryOp),
    /// Elementwise unary op.
    Unary(UnaryOp),
    /// `clip(x, min, max)`.
    Clip(Option<f64>, Option<f64>),
    /// Conversion to a dtype.
    Cast(DType),
    /// Matrix product (NumPy rules).
    Matmul,
    /// Reduction over `axes` (None = all).
    Reduce {
        /// Which reduction.
        kind: ReduceKind,
        /// Axes, None for all.
        axes: Option<Vec<isize>>,
        /// Keep reduced dimensions as size 1.
        keepdim: bool,
    },
    /// Softmax along an axis.
    Softmax(isize),
    /// Log-softmax along an axis.
    LogSoftmax(isize),
    /// Concatenation of the inputs along an axis.
    Concat(isize),
    /// A constant tensor embedded in the program (scalars and eager tensors used while building).
    Constant(Tensor),
    /// Parameter initialisation (startup programs).
    Init(InitKind),
    /// Copies its input into its output variable (e.g. a parameter update).
    Assign,
    /// A Python operator whose forward and backward are user callbacks.
    PyFunc(Arc<PyFuncOp>),
    /// Indexing, joining/splitting, selection, statistics and shape ops ([`ExtOp`]).
    Ext(ExtOp),
    /// An optimizer update of parameters and their state (`optimizer.minimize`).
    OptimizerStep(OptimizerStep),
    /// The backward section: inputs are `targets ++ wrt ++ target_grads ++ blocked`,
    /// outputs are the gradients of the `wrt` variables; gradients do not flow through
    /// the `blocked` variables (Paddle's `no_grad_set`).
    Gradients {
        /// Number of target variables.
        n_targets: usize,
        /// Number of variables differentiated against.
        n_wrt: usize,
        /// Whether gradients of the targets are given (else ones).
        has_target_grads: bool,
        /// Number of variables gradients must not flow through.
        n_blocked: usize,
    },
}

impl OpKind {
    /// The op's user-facing name (the eager function of the same meaning).
    pub fn name(&self) -> String {
        match self {
            OpKind::Binary(op) => op.name().to_string(),
            OpKind::Unary(op) => op.name().to_string(),
            OpKind::Clip(..) => "clip".into(),
            OpKind::Cast(_) => "cast".into(),
            OpKind::Matmul => "matmul".into(),
            OpKind::Reduce { kind, .. } => match kind {
                ReduceKind::Sum => "sum",
                ReduceKind::Mean => "mean",
                ReduceKind::Max => "max",
                ReduceKind::Min => "min",
            }
            .into(),
            OpKind::Softmax(_) => "softmax".into(),
            OpKind::LogSoftmax(_) => "log_softmax".into(),
            OpKind::Concat(_) => "concat".into(),
            OpKind::Constant(_) => "constant".into(),
            OpKind::Init(_) => "init".into(),
            OpKind::Assign => "assign".into(),
            OpKind::PyFunc(_) => "py_func".into(),
            OpKind::Gradients { .. } => "gradients".into(),
            OpKind::Ext(op) => op.name().into(),
            OpKind::OptimizerStep(_) => "optimizer_step".into(),
        }
    }

    /// Whether a gradient flows from the op's outputs back to its inputs (given that the
    /// op's output dtype is floating).
    pub fn passes_grad(&self) -> bool {
        match self {
            // no gradient (as in eager): bool results and integer-valued ops
            OpKind::Binary(op) => op.has_gradient(),
            OpKind::Unary(op) => op.has_gradient(),
            OpKind::Cast(d) => d.is_differentiable(),
            OpKind::PyFunc(op) => op.has_backward(),
            OpKind::Ext(op) => op.passes_grad(),
            OpKind::Constant(_)
            | OpKind::Init(_)
            | OpKind::Gradients { .. }
            | OpKind::OptimizerStep(_) => false,
            _ => true,
        }
    }

    /// Runs the op on `inputs` with the crate's differentiable ops (so the autograd
    /// engine records it when grad mode is on and an input requires grad).
    /// `Init`, `Gradients` and `Assign` are run by the executor itself.
    pub fn run(
        &self,
        inputs: &[Tensor],
        out_shape: &[usize],
        out_dtype: DType,
    ) -> Result<Vec<Tensor>> {
        let x = || -> Result<&Tensor> {
            inputs
                .first()
                .ok_or_else(|| Error::runtime(format!("{}: missing input", self.name())))
        };
        let one = |t: Result<Tensor>| t.map(|t| vec![t]);
        match self {
            // Paddle's 0-d promotion: static programs are Paddle's API (as in `infer`)
            OpKind::Binary(op) => {
                one(inputs[0].binary_ranked(&inputs[1], *op, ZeroDimRule::Paddle))
            }
            OpKind::Unary(op) => one(x()?.unary(*op)),
            OpKind::Clip(lo, hi) => one(x()?.clip(*lo, *hi)),
            OpKind::Cast(d) => one(x()?.to_dtype(*d)),
            OpKind::Matmul => one(inputs[0].matmul(&inputs[1])),
            OpKind::Reduce {
                kind,
                axes,
                keepdim,
            } => {
                let ax = axes.as_deref();
                one(match kind {
                    ReduceKind::Sum => x()?.sum(ax, *keepdim),
                    ReduceKind::Mean => x()?.mean(ax, *keepdim),
                    ReduceKind::Max => x()?.amax_amin(ax, *keepdim, true),
                    ReduceKind::Min => x()?.amax_amin(ax, *keepdim, false),
                })
            }
            OpKind::Softmax(a) => one(x()?.softmax(*a)),
            OpKind::LogSoftmax(a) => one(x()?.log_softmax(*a)),
            OpKind::Concat(a) => one(Tensor::cat(inputs, *a)),
            OpKind::Constant(t) => Ok(vec![t.clone()]),
            OpKind::Init(init) => one(run_init(init, out_shape, out_dtype)),
            OpKind::Assign => Ok(vec![x()?.detach()]),
            OpKind::PyFunc(op) => op.apply(inputs),
            OpKind::Ext(op) => op.run(inputs),
            OpKind::OptimizerStep(op) => op.run(inputs),
            OpKind::Gradients { .. } => Err(Error::runtime(
                "gradients: the backward section is run by the executor, not as an op",
            )),
        }
    }
}

/// A fresh initial value for a parameter of `shape` and `dtype`.
fn run_init(init: &InitKind, shape: &[usize], dtype: DType) -> Result<Tensor> {
    match init {
        InitKind::Constant(v) => crate::tensor::full(shape, *v, dtype),
        InitKind::Uniform(lo, hi) => {
            let u = crate::tensor::rand(shape, DType::F64)?;
            u.mul_scalar(hi - lo)?.add_scalar(*lo)?.to_dtype(dtype)
        }
        InitKind::Normal(mean, std) => {
            let n = crate::tensor::randn(shape, DType::F64)?;
            n.mul_scalar(*std)?.add_scalar(*mean)?.to_dtype(dtype)
        }
        InitKind::Value(t) => {
            if t.shape() != shape {
                return Err(Error::value(format!(
                    "init: the initial value has shape {:?}, but the parameter has shape {:?}",
                    t.shape(),
                    shape
                )));
            }
            t.to_dtype(dtype)?.clone_tensor()
        }
    }
}
