//! Binary ops with a Python number as one operand (`a * 3`, `2 ** a`, `1 - a`).
//!
//! The number becomes a 0-d tensor that nobody else can see, so it is not an input of the
//! node (no edge) and is not a *saved* tensor either: the backward formula captures it by
//! value, as PyTorch does for "wrapped numbers". Saved-tensor hooks therefore see only
//! real tensors (`a * 3` packs nothing; `a ** 3` packs `a`). The formulas are the op's
//! declared ones ([`crate::op_defs::binary`]) with the number in its operand's place, or
//! the cheaper one an op declares for a number on the left (`2 ** a` keeps only its
//! output). Without a graph to record, a real number on a float32/float64 tensor is not
//! made a tensor at all ([`Tensor::binary_number_raw`]; the bindings call it first).

use super::binary::{grad_lhs, grad_rhs, grad_rhs_of_number, save_operands, Number, Operands};
use crate::autograd::{Grads, Recorder};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::{BinaryOp, Tensor};
use smallvec::smallvec;
use std::cell::OnceCell;
use std::sync::Arc;

impl Tensor {
    /// `self op c` (or `c op self` when `reflected`) for a 0-d constant `c` made from a
    /// number.
    pub fn binary_with_scalar(&self, c: &Tensor, op: BinaryOp, reflected: bool) -> Result<Tensor> {
        let direct = if c.ndim() == 0 && c.dtype() == self.dtype() {
            // (a float32 value read as float64 converts back exactly)
            c.item_f64()
                .ok()
                .and_then(|v| self.binary_number_raw(v, op, reflected))
        } else {
            None
        };
        let out = match direct {
            Some(r) => r?,
            None if reflected => c.binary_raw(self, op)?,
            None => self.binary_raw(c, op)?,
        };
        if !op.has_gradient() || !out.dtype().is_differentiable() {
            return Ok(out);
        }
        // the number keeps its place among the inputs (an edge to nothing), so
        // `next_functions` reads as for any binary op, as in PyTorch
        let inputs = if reflected { [c, self] } else { [self, c] };
        let Some(mut rec) = Recorder::begin(&inputs) else {
            return Ok(out);
        };
        // the declared shortcut for `number op x`, except for complex values and a zero
        // number (`0 ** x` needs the masked general formula: its gradient is 0, not NaN)
        let shortcut = op.number_lhs_saves().filter(|_| {
            reflected
                && !c.dtype().is_complex()
                && !self.dtype().is_complex()
                && !c.item_f64().is_ok_and(|v| v == 0.0)
        });
        let rules = shortcut.unwrap_or(op.saves());
        let (pos, operands) = if reflected {
            (0, [None, Some(self)])
        } else {
            (1, [Some(self), None])
        };
        save_operands(&mut rec, rules, operands);
        let node = op.node_name();
        let c = c.clone();
        rec.finish(node, &out, move |g, s, _| {
            let ops = Operands::new(s, rules, Some((pos, Number::Tensor(&c))), node);
            number_grads(op, g, &ops, reflected, shortcut.is_some())
        })?;
        Ok(out)
    }

    /// `self op v` (or `v op self` when `reflected`) for a real Python number `v` whose
    /// 0-d tensor would have `self`'s float32/float64 dtype (the weak scalar rule keeps
    /// it), recording the gradient as [`Tensor::binary_with_scalar`] does, but without
    /// making `v` a tensor: the node keeps the value, and its backward makes the 0-d
    /// constant only if the formula reads it (`y + 1.0`'s never does). `None` where
    /// [`Tensor::binary_number_raw`] declines (the caller takes the general path).
    pub fn binary_number(&self, v: f64, op: BinaryOp, reflected: bool) -> Option<Result<Tensor>> {
        let out = match self.binary_number_raw(v, op, reflected)? {
            Ok(out) => out,
            Err(e) => return Some(Err(e)),
        };
        let d = self.dtype();
        if !op.has_gradient() || !d.is_differentiable() {
            return Some(Ok(out));
        }
        // the number's input slot
        let pos = usize::from(!reflected);
        let Some(mut rec) = Recorder::begin_number(self, pos, d) else {
            return Some(Ok(out));
        };
        // the value the 0-d tensor would hold (exactly representable in `d`)
        let v = if d == DType::F32 { v as f32 as f64 } else { v };
        let shortcut = op.number_lhs_saves().filter(|_| reflected && v != 0.0);
        let rules = shortcut.unwrap_or(op.saves());
        let operands = if reflected {
            [None, Some(self)]
        } else {
            [Some(self), None]
        };
        save_operands(&mut rec, rules, operands);
        let node = op.node_name();
        let r = rec.finish(node, &out, move |g, s, _| {
            let cell = OnceCell::new();
            let number = Number::Real {
                value: v,
                dtype: d,
                cell: &cell,
            };
            let ops = Operands::new(s, rules, Some((pos, number)), node);
            number_grads(op, g, &ops, reflected, shortcut.is_some())
        });
        Some(r.map(|()| out))
    }

    /// `self op v` (or `v op self` when `reflected`) for a real number `v`, without a graph
    /// and without making `v` a tensor first, when the result keeps `self`'s float32 /
    /// float64 dtype: the values [`Tensor::binary_raw`] gives with `v` as a 0-d tensor of
    /// that dtype. `None` for every other case (the caller takes the general path, which
    /// also raises its errors).
    pub fn binary_number_raw(
        &self,
        v: f64,
        op: BinaryOp,
        reflected: bool,
    ) -> Option<Result<Tensor>> {
        let d = self.dtype();
        if !matches!(d, DType::F32 | DType::F64)
            || op.returns_bool()
            || !matches!(Self::binary_result_dtype(op, d, d), Ok(o) if o == d)
        {
            return None;
        }
        Some(
            crate::kernels::binary::binary_storage_number(
                op,
                self.storage(),
                self.layout(),
                v,
                reflected,
            )
            .map(|s| Tensor::from_parts(Arc::new(s), Layout::contiguous(self.shape()))),
        )
    }
}

/// The gradients of a binary op with a number operand: the tensor operand's in its slot
/// (the right one when `reflected`), none in the number's.
fn number_grads(
    op: BinaryOp,
    g: &Tensor,
    ops: &Operands<'_>,
    reflected: bool,
    shortcut: bool,
) -> Result<Grads> {
    Ok(if reflected {
        let grad = if shortcut {
            grad_rhs_of_number(op, g, ops)?
        } else {
            grad_rhs(op, g, ops)?
        };
        smallvec![None, Some(grad)]
    } else {
        smallvec![Some(grad_lhs(op, g, ops)?), None]
    })
}
