//! Unary elementwise ops, clip and dtype casts with their gradients.

use super::saved;
use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use smallvec::smallvec;

/// Whether `op`'s formula needs the input (`false`) or the output (`true`).
fn saves_output(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(
        op,
        Exp | Expm1 | Sqrt | Rsqrt | Reciprocal | Tan | Tanh | Sigmoid | Relu
    )
}

impl Tensor {
    /// `op(self)`, recording the gradient when needed.
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let out = self.unary_raw(op)?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[self]) else {
            return Ok(out);
        };
        use UnaryOp::*;
        if matches!(op, Sign | Floor | Ceil | Round) {
            rec.finish("ZeroGradBackward", &out, |g, _, _| {
                Ok(smallvec![Some(g.zeros_like()?)])
            })?;
            return Ok(out);
        }
        if op == Neg {
            rec.finish("NegBackward", &out, |g, _, _| Ok(smallvec![Some(g.neg()?)]))?;
            return Ok(out);
        }
        if saves_output(op) {
            rec.save_output();
        } else {
            rec.save(self);
        }
        let name = backward_name(op);
        rec.finish(name, &out, move |g, s, _| {
            let v = saved(s, 0, name)?; // x, or y = op(x) for ops that save their output
            if let Some(grad) = super::fused_grad::activation_grad(op, g, v)? {
                return Ok(smallvec![Some(grad)]);
            }
            let grad = match op {
                Abs => g.mul(&v.unary(Sign)?)?,
                Exp => g.mul_conj(v)?,
                Log => g.div_conj(v)?,
                Log1p => g.div_conj(&v.add_scalar(1.0)?)?,
                Expm1 => g.mul_conj(&v.add_scalar(1.0)?)?,
                Sqrt => g.div_conj(&v.mul_scalar(2.0)?)?,
                Rsqrt => g.mul_conj(&v.mul(v)?.mul(v)?.mul_scalar(-0.5)?)?,
                Square => g.mul_conj(&v.mul_scalar(2.0)?)?,
                Reciprocal => g.mul_conj(&v.mul(v)?.neg()?)?,
                Sin => g.mul_conj(&v.cos()?)?,
                Cos => g.mul_conj(&v.sin()?.neg()?)?,
                Tan => g.mul_conj(&v.mul(v)?.add_scalar(1.0)?)?,
                Tanh | Sigmoid | Relu => super::fused_grad::composed_activation_grad(op, g, v)?,
                Softplus => g.mul(&v.sigmoid()?)?,
                Erf => {
                    let c = 2.0 / std::f64::consts::PI.sqrt();
                    g.mul(&v.mul(v)?.neg()?.exp()?.mul_scalar(c)?)?
                }
                Gelu => {
                    // d/dx x*Phi(x) = Phi(x) + x*phi(x)
                    let cdf = v
                        .mul_scalar(std::f64::consts::FRAC_1_SQRT_2)?
                        .unary(Erf)?
                        .add_scalar(1.0)?
                        .mul_scalar(0.5)?;
                    let pdf = v
                        .mul(v)?
                        .mul_scalar(-0.5)?
                        .exp()?
                        .mul_scalar(1.0 / (2.0 * std::f64::consts::PI).sqrt())?;
                    g.mul(&cdf.add(&v.mul(&pdf)?)?)?
                }
                _ => unreachable!("ops without a formula return earlier"),
            };
            Ok(smallvec![Some(grad)])
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

fn backward_name(op: UnaryOp) -> &'static str {
    use UnaryOp::*;
    match op {
        Abs => "AbsBackward",
        Exp => "ExpBackward",
        Log => "LogBackward",
        Log1p => "Log1pBackward",
        Expm1 => "Expm1Backward",
        Sqrt => "SqrtBackward",
        Rsqrt => "RsqrtBackward",
        Square => "SquareBackward",
        Reciprocal => "ReciprocalBackward",
        Sin => "SinBackward",
        Cos => "CosBackward",
        Tan => "TanBackward",
        Tanh => "TanhBackward",
        Sigmoid => "SigmoidBackward",
        Relu => "ReluBackward",
        Softplus => "SoftplusBackward",
        Erf => "ErfBackward",
        Gelu => "GeluBackward",
        _ => "UnaryBackward",
    }
}
