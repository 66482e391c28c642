//! The fused linear layer `act(x @ w + b)`: one op and one graph node instead of three.
//!
//! Forward writes the matmul into a fresh buffer and applies the bias and the activation
//! to it in place ([`crate::kernels::bias_act`]): one activation-sized buffer instead of
//! three, bit-identical to the separate ops. Backward is the composition of the three
//! separate backwards (so it can itself be differentiated) with the activation's
//! gradient computed in one pass when no graph is recorded. The static executor runs
//! `matmul → add → activation` chains of a program through it.

use super::saved;
use crate::autograd::Recorder;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::bias_act::{bias_act_in_place, Activation, BiasActElement};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::{Tensor, UnaryOp};
use smallvec::{smallvec, SmallVec};
use std::sync::Arc;

/// The unary op an activation stands for (None for the identity).
pub fn activation_op(act: Activation) -> Option<UnaryOp> {
    match act {
        Activation::Identity => None,
        Activation::Tanh => Some(UnaryOp::Tanh),
        Activation::Sigmoid => Some(UnaryOp::Sigmoid),
        Activation::Relu => Some(UnaryOp::Relu),
    }
}

fn node_name(act: Activation) -> &'static str {
    match act {
        Activation::Identity => "LinearBackward",
        Activation::Tanh => "LinearTanhBackward",
        Activation::Sigmoid => "LinearSigmoidBackward",
        Activation::Relu => "LinearReluBackward",
    }
}

/// Whether the one-pass forward applies: 2-D `x [m, k]` and `w [k, n]`, a 1-D bias of
/// length `n` (or none), all float32 or all float64.
fn fusable(x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> bool {
    let dtype = x.dtype();
    matches!(dtype, DType::F32 | DType::F64)
        && w.dtype() == dtype
        && x.ndim() == 2
        && w.ndim() == 2
        && x.shape()[1] == w.shape()[0]
        && b.is_none_or(|b| b.dtype() == dtype && b.shape() == [w.shape()[1]])
}

/// `act(x @ w + b)` computed into one buffer (no graph).
fn fused_forward<T: Element + BiasActElement>(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    act: Activation,
) -> Result<Tensor> {
    let n = w.shape()[1];
    let mut out = {
        let (xs, ws) = (x.storage().read::<T>(), w.storage().read::<T>());
        crate::kernels::matmul::matmul::<T>(&xs, x.layout(), &ws, w.layout())?
    };
    match b {
        Some(b) if b.layout().is_contiguous() => {
            let bs = b.storage().read::<T>();
            let off = b.layout().offset;
            bias_act_in_place(&mut out, n, Some(&bs[off..off + n]), act)?;
        }
        Some(b) => {
            let bc = b.contiguous()?;
            let bs = bc.storage().read::<T>();
            let off = bc.layout().offset;
            bias_act_in_place(&mut out, n, Some(&bs[off..off + n]), act)?;
        }
        None => bias_act_in_place(&mut out, n, None, act)?,
    }
    let shape = [x.shape()[0], n];
    Ok(Tensor::from_parts(
        Arc::new(Storage::from_vec(out)),
        Layout::contiguous(&shape),
    ))
}

/// Runs the two independent gradient products, side by side on the pool's threads when
/// both are wanted and no graph is recorded (each then keeps one core busy instead of
/// both splitting every product across all cores); otherwise one after the other.
pub(super) fn both_products(
    both: bool,
    first: impl FnOnce() -> Result<Option<Tensor>> + Send,
    second: impl FnOnce() -> Result<Option<Tensor>> + Send,
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let side_by_side = both
        && !crate::autograd::is_grad_enabled()
        && rayon::current_num_threads() > 1
        && crate::interrupt::parallel_allowed();
    if !side_by_side {
        return Ok((first()?, second()?));
    }
    // grad mode is per thread: the task that runs on another worker must not record
    let (a, b) = rayon::join(
        || {
            let _off = crate::autograd::GradModeGuard::new(false);
            first()
        },
        || {
            let _off = crate::autograd::GradModeGuard::new(false);
            second()
        },
    );
    Ok((a?, b?))
}

impl Tensor {
    /// `act(self @ w + b)` as one op: the same values and gradients as the three separate
    /// ops (bit for bit), with one output buffer and one graph node (`LinearBackward`,
    /// `LinearTanhBackward`, ...). Shapes other than `[m, k] @ [k, n] + [n]` in float32 or
    /// float64 run as the separate ops.
    pub fn linear(&self, w: &Tensor, b: Option<&Tensor>, act: Activation) -> Result<Tensor> {
        use crate::autograd::autocast::{autocast_target, cast_for_autocast, family};
        if let Some(low) = autocast_target(family::LINEAR, &[self, w]) {
            let b = b.map(|b| cast_for_autocast(b, low)).transpose()?;
            let (x, w) = (cast_for_autocast(self, low)?, cast_for_autocast(w, low)?);
            return x.linear(&w, b.as_ref(), act);
        }
        if !fusable(self, w, b) {
            return self.linear_unfused(w, b, act);
        }
        let out = match self.dtype() {
            DType::F32 => fused_forward::<f32>(self, w, b, act)?,
            DType::F64 => fused_forward::<f64>(self, w, b, act)?,
            d => return Err(Error::runtime(format!("internal: linear on dtype {d}"))),
        };
        let mut inputs: SmallVec<[&Tensor; 3]> = smallvec![self, w];
        if let Some(b) = b {
            inputs.push(b);
        }
        let Some(mut rec) = Recorder::begin(&inputs) else {
            return Ok(out);
        };
        // as matmul: each operand's gradient needs only the other one
        if rec.needs(1) {
            rec.save(self);
        } else {
            rec.save_nothing();
        }
        if rec.needs(0) {
            rec.save(w);
        } else {
            rec.save_nothing();
        }
        let op = activation_op(act);
        if op.is_some() {
            rec.save_output();
        }
        let name = node_name(act);
        let has_bias = b.is_some();
        let n_out = w.shape()[1];
        rec.finish(name, &out, move |g, s, needs| {
            let dz = match op {
                Some(op) => super::fused_grad::activation_backward(op, g, saved(s, 2, name)?)?,
                None => g.clone(),
            };
            let grad_x = || -> Result<Option<Tensor>> {
                if !needs[0] {
                    return Ok(None);
                }
                Ok(Some(dz.matmul(&saved(s, 1, name)?.transpose(-1, -2)?)?))
            };
            let grad_w = || -> Result<Option<Tensor>> {
                if !needs[1] {
                    return Ok(None);
                }
                Ok(Some(saved(s, 0, name)?.transpose(-1, -2)?.matmul(&dz)?))
            };
            let (gx, gw) = both_products(needs[0] && needs[1], grad_x, grad_w)?;
            let mut grads = smallvec![gx, gw];
            if has_bias {
                grads.push(if needs[2] {
                    Some(dz.sum_to(&[n_out])?)
                } else {
                    None
                });
            }
            Ok(grads)
        })?;
        Ok(out)
    }

    /// `act(self @ w + b)` op by op (any shapes and dtypes the separate ops accept).
    fn linear_unfused(&self, w: &Tensor, b: Option<&Tensor>, act: Activation) -> Result<Tensor> {
        let mut out = self.matmul(w)?;
        if let Some(b) = b {
            out = out.add(b)?;
        }
        match activation_op(act) {
            Some(op) => out.unary(op),
            None => Ok(out),
        }
    }
}
