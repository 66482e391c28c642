//! Unary elementwise ops, clip and dtype casts with their gradients.

use super::complex::abs_grad;
use super::fused_grad::composed_activation_grad;
use super::saved;
use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::Result;
use crate::op_defs::Saves;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use smallvec::smallvec;

/// The gradient formulas of the unary ops, expanded from their declarations in
/// [`crate::op_defs::unary`].
macro_rules! unary_grads {
    ($($v:ident {
        methods: [$($m:ident),+], functional: [$($f:ident),*], extra: [$($ex:ident)?],
        doc: $doc:literal,
        dtype: $dtype:ident, cost: $cost:ident,
        real: $real:expr, fast_f32: [$($fast:ident, $fast1:ident)?],
        int: [$($int:expr)?], complex: [$($cplx:expr)?], boolean: [$($b:expr)?],
        saves: $saves:ident, grad: [$($grad:expr)?], node: $node:literal,
    })*) => {
        /// `g * op'(x)` from the incoming gradient `g` and the saved tensor `v` (the input
        /// or the output, as the op declares).
        fn unary_grad(op: UnaryOp, g: &Tensor, v: &Tensor) -> Result<Tensor> {
            match op {
                $($(UnaryOp::$v => formula(g, v, $grad),)?)*
                _ => Err(crate::error::Error::runtime(format!(
                    "internal: {} has no gradient formula",
                    op.name()
                ))),
            }
        }
    };
}

/// Gives a table's gradient closure its parameter types.
fn formula(
    g: &Tensor,
    v: &Tensor,
    f: impl FnOnce(&Tensor, &Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    f(g, v)
}

crate::op_defs::for_each_unary_op!(unary_grads);

impl Tensor {
    /// `op(self)`, recording the gradient when needed.
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let _profiled = crate::profiler::op(|| op.name(), &[self]);
        let out = self.unary_raw(op)?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[self]) else {
            return Ok(out);
        };
        let name = op.node_name();
        match op.saves() {
            Saves::ZeroGrad | Saves::NoGrad => {
                rec.finish(name, &out, |g, _, _| Ok(smallvec![Some(g.zeros_like()?)]))?;
                return Ok(out);
            }
            Saves::Nothing => {
                rec.finish(name, &out, move |g, _, _| {
                    Ok(smallvec![Some(unary_grad(op, g, g)?)])
                })?;
                return Ok(out);
            }
            Saves::Output => rec.save_output(),
            Saves::Input => rec.save(self),
        }
        rec.finish(name, &out, move |g, s, _| {
            let v = saved(s, 0, name)?; // x, or y = op(x) for ops that save their output
            if let Some(grad) = super::fused_grad::activation_grad(op, g, v)? {
                return Ok(smallvec![Some(grad)]);
            }
            Ok(smallvec![Some(unary_grad(op, g, v)?)])
        })?;
        Ok(out)
    }

    /// `clip(self, min, max)`: gradient passes where `min <= x <= max`.
    pub fn clip(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        let out = self.clip_raw(min, max)?;
        let Some(mut rec) = Recorder::begin(&[self]) else {
            return Ok(out);
        };
        rec.save(self);
        rec.finish("ClipBackward", &out, move |g, s, _| {
            let x = saved(s, 0, "ClipBackward")?;
            let mut mask = x.binary_raw(x, BinaryOp::Eq)?; // true except NaN
            if let Some(lo) = min {
                mask = mask.binary_raw(
                    &x.binary_raw(&x.scalar_like(lo), BinaryOp::Ge)?,
                    BinaryOp::LogicalAnd,
                )?;
            }
            if let Some(hi) = max {
                mask = mask.binary_raw(
                    &x.binary_raw(&x.scalar_like(hi), BinaryOp::Le)?,
                    BinaryOp::LogicalAnd,
                )?;
            }
            Ok(smallvec![Some(g.mul(&mask.to_dtype(g.dtype())?)?)])
        })?;
        Ok(out)
    }

    /// Converts to `dtype`; differentiable between floating/complex dtypes.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let out = self.cast_raw(dtype)?;
        if !dtype.is_differentiable() {
            return Ok(out);
        }
        if let Some(rec) = Recorder::begin(&[self]) {
            // the engine casts the gradient back to the input's dtype
            rec.finish("CastBackward", &out, |g, _, _| {
                Ok(smallvec![Some(g.clone())])
            })?;
        }
        Ok(out)
    }

    /// `-self`.
    pub fn neg(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Neg)
    }
    /// `e^self`.
    pub fn exp(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Exp)
    }
    /// Natural log.
    pub fn log(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Log)
    }
    /// Sine.
    pub fn sin(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Sin)
    }
    /// Cosine.
    pub fn cos(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Cos)
    }
    /// Hyperbolic tangent.
    pub fn tanh(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Tanh)
    }
    /// Logistic sigmoid.
    pub fn sigmoid(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Sigmoid)
    }
    /// `max(self, 0)`.
    pub fn relu(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Relu)
    }
}
