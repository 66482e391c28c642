//! Binary ops with a Python number as one operand (`a * 3`, `2 ** a`, `1 - a`).
//!
//! The number becomes a 0-d tensor that nobody else can see, so it is not an input of the
//! node (no edge) and is not a *saved* tensor either: the backward formula captures it by
//! value, as PyTorch does for "wrapped numbers". Saved-tensor hooks therefore see only
//! real tensors (`a * 3` packs nothing; `a ** 3` packs `a`).

use super::saved;
use crate::autograd::{Grads, Recorder};
use crate::error::Result;
use crate::tensor::{BinaryOp, Tensor};
use smallvec::smallvec;

impl Tensor {
    /// `self op c` (or `c op self` when `reflected`) for a 0-d constant `c` made from a
    /// number. Complex constants and ops without a scalar formula take the general path.
    pub fn binary_with_scalar(&self, c: &Tensor, op: BinaryOp, reflected: bool) -> Result<Tensor> {
        use BinaryOp::*;
        let has_formula = matches!(op, Add | Sub | Mul | Div | Pow);
        // 0 ** a needs the masked formula of the general path (its gradient is 0, not NaN)
        let zero_base = op == Pow && reflected && c.item_f64().is_ok_and(|v| v == 0.0);
        if !has_formula || zero_base || c.dtype().is_complex() || self.dtype().is_complex() {
            return if reflected {
                c.binary(self, op)
            } else {
                self.binary(c, op)
            };
        }
        let out = if reflected {
            c.binary_raw(self, op)?
        } else {
            self.binary_raw(c, op)?
        };
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        // the number keeps its place among the inputs (an edge to nothing), so
        // `next_functions` reads as for any binary op, as in PyTorch
        let inputs = if reflected { [c, self] } else { [self, c] };
        let Some(mut rec) = Recorder::begin(&inputs) else {
            return Ok(out);
        };
        let c = c.clone();
        // the gradient of the tensor operand, in its slot; the number's slot gets none
        let place = move |grad: Tensor| -> Grads {
            if reflected {
                smallvec![None, Some(grad)]
            } else {
                smallvec![Some(grad), None]
            }
        };
        match (op, reflected) {
            (Add, _) => rec.finish("AddBackward", &out, move |g, _, _| Ok(place(g.clone())))?,
            (Sub, false) => rec.finish("SubBackward", &out, move |g, _, _| Ok(place(g.clone())))?,
            (Sub, true) => rec.finish("SubBackward", &out, move |g, _, _| Ok(place(g.neg()?)))?,
            (Mul, _) => rec.finish("MulBackward", &out, move |g, _, _| {
                Ok(place(g.mul_conj(&c)?))
            })?,
            (Div, false) => rec.finish("DivBackward", &out, move |g, _, _| {
                Ok(place(g.div_conj(&c)?))
            })?,
            (Div, true) => {
                // d(c / a)/da = -c / a^2 = -out / a
                rec.save(self);
                rec.save_output();
                rec.finish("DivBackward", &out, move |g, s, _| {
                    let a = saved(s, 0, "DivBackward")?;
                    let y = saved(s, 1, "DivBackward")?;
                    Ok(place(g.neg()?.mul_conj(&y.div(a)?)?))
                })?
            }
            (Pow, false) => {
                // d(a^c)/da = c * a^(c-1)
                rec.save(self);
                rec.finish("PowBackward", &out, move |g, s, _| {
                    let a = saved(s, 0, "PowBackward")?;
                    let c_minus_one = c.binary_raw(&c.scalar_like(1.0), Sub)?.mark_constant();
                    Ok(place(g.mul_conj(&c.mul(&a.pow(&c_minus_one)?)?)?))
                })?
            }
            (Pow, true) => {
                // d(c^a)/da = c^a * ln c
                rec.save_output();
                rec.finish("PowBackward", &out, move |g, s, _| {
                    let y = saved(s, 0, "PowBackward")?;
                    Ok(place(g.mul_conj(&y.mul(&c.log()?)?)?))
                })?
            }
            // every other op took the general path at the top
            _ => return self.binary(&c, op),
        }
        Ok(out)
    }
}
