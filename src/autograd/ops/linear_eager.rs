//! Eager `F.linear` / `nn.Linear`: `x @ weight.T + bias` with `weight` `[out, in]`
//! (PyTorch's layout) or `x @ weight + bias` with `weight` `[in, out]` (Paddle's) as ONE
//! op and one graph node (`AddmmBackward`), instead of a (transpose,) a matmul and an add
//! with a buffer each.
//!
//! The forward multiplies by the weight or a transposed *view* of it (no copy) and adds the bias
//! in place ([`crate::kernels::bias_act`], as the static plans' fused linear op does), so
//! values are those of the separate ops. Backward is two matrix products and a row sum,
//! written with differentiable ops (double backward works) and run side by side when no
//! graph is recorded.

use super::linear::both_products;
use super::saved;
use crate::autograd::Recorder;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernels::bias_act::{bias_act_in_place, Activation, BiasActElement};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use smallvec::{smallvec, SmallVec};
use std::sync::Arc;

/// `(k, n)`: the weight's input and output feature counts in its layout (`in_out`:
/// `[k, n]`, else `[n, k]`). `w` must be 2-D.
fn features(w: &Tensor, in_out: bool) -> (usize, usize) {
    let (a, b) = (w.shape()[0], w.shape()[1]);
    if in_out {
        (a, b)
    } else {
        (b, a)
    }
}

/// Whether the one-node path applies: float32/float64 throughout, `x` `[..., k]` with
/// k > 0 and at least 2 dims, `weight` `[n, k]` (`[k, n]` if `in_out`), `bias` `[n]` or
/// none.
fn fusable(x: &Tensor, w: &Tensor, b: Option<&Tensor>, in_out: bool) -> bool {
    let dtype = x.dtype();
    if !(matches!(dtype, DType::F32 | DType::F64)
        && w.dtype() == dtype
        && x.ndim() >= 2
        && w.ndim() == 2)
    {
        return false;
    }
    let (k, n) = features(w, in_out);
    x.shape()[x.ndim() - 1] == k
        && k > 0
        && b.is_none_or(|b| b.dtype() == dtype && b.shape() == [n])
}

fn forward<T: Element + BiasActElement>(
    x2: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    out_shape: &[usize],
    in_out: bool,
) -> Result<Tensor> {
    let (_, n) = features(w, in_out);
    let wt = if in_out {
        w.layout().clone()
    } else {
        w.layout().permute(&[1, 0])?
    };
    let mut out = {
        let (xs, ws) = (x2.storage().read::<T>(), w.storage().read::<T>());
        crate::kernels::matmul::matmul::<T>(&xs, x2.layout(), &ws, &wt)?
    };
    if let Some(b) = b {
        let bc = b.contiguous_raw()?;
        let bs = bc.storage().read::<T>();
        let off = bc.layout().offset;
        bias_act_in_place(&mut out, n, Some(&bs[off..off + n]), Activation::Identity)?;
    }
    Ok(Tensor::from_parts(
        Arc::new(Storage::from_vec(out)),
        Layout::contiguous(out_shape),
    ))
}

fn as_isize(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

impl Tensor {
    /// `self @ weight + bias` (`in_out`: `weight` `[in_features, out_features]`,
    /// Paddle's layout) or `self @ weight.T + bias` (`weight` `[out, in]`, PyTorch's), as
    /// one op. Shapes or dtypes outside the fused path run as the separate ops.
    pub fn linear_in_layout(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        in_out: bool,
    ) -> Result<Tensor> {
        use crate::autograd::autocast::{autocast_target, cast_for_autocast, family};
        if let Some(low) = autocast_target(family::LINEAR, &[self, weight]) {
            let b = bias.map(|b| cast_for_autocast(b, low)).transpose()?;
            let (x, w) = (
                cast_for_autocast(self, low)?,
                cast_for_autocast(weight, low)?,
            );
            return x.linear_in_layout(&w, b.as_ref(), in_out);
        }
        if !fusable(self, weight, bias, in_out) {
            let out = if in_out {
                self.matmul(weight)?
            } else {
                self.matmul(&weight.transpose(-1, -2)?)?
            };
            return match bias {
                Some(b) => out.add(b),
                None => Ok(out),
            };
        }
        let (k, n) = features(weight, in_out);
        let m = self.numel() / k;
        let x2 = if self.ndim() == 2 {
            self.clone()
        } else {
            self.contiguous_raw()?.reshape_raw(&[m, k])?
        };
        let mut out_shape = self.shape().to_vec();
        *out_shape.last_mut().expect("ndim >= 2") = n;
        let out = match self.dtype() {
            DType::F32 => forward::<f32>(&x2, weight, bias, &out_shape, in_out)?,
            _ => forward::<f64>(&x2, weight, bias, &out_shape, in_out)?,
        };
        let mut inputs: SmallVec<[&Tensor; 3]> = smallvec![self, weight];
        inputs.extend(bias);
        let Some(mut rec) = Recorder::begin(&inputs) else {
            return Ok(out);
        };
        // each operand's gradient needs only the other one
        if rec.needs(1) {
            rec.save(self);
        } else {
            rec.save_nothing();
        }
        if rec.needs(0) {
            rec.save(weight);
        } else {
            rec.save_nothing();
        }
        let has_bias = bias.is_some();
        let x_shape = as_isize(self.shape());
        const NAME: &str = "AddmmBackward";
        rec.finish(NAME, &out, move |g, s, needs| {
            let flat = [m as isize, n as isize];
            let dz = if g.ndim() == 2 {
                g.clone()
            } else {
                g.reshape(&flat)?
            };
            let grad_x = || -> Result<Option<Tensor>> {
                if !needs[0] {
                    return Ok(None);
                }
                let w = saved(s, 1, NAME)?;
                let gx = if in_out {
                    dz.matmul(&w.transpose(-1, -2)?)?
                } else {
                    dz.matmul(w)?
                };
                Ok(Some(if x_shape.len() == 2 {
                    gx
                } else {
                    gx.reshape(&x_shape)?
                }))
            };
            let grad_w = || -> Result<Option<Tensor>> {
                if !needs[1] {
                    return Ok(None);
                }
                let x = saved(s, 0, NAME)?;
                let x2 = if x.ndim() == 2 {
                    x.clone()
                } else {
                    x.reshape(&[m as isize, k as isize])?
                };
                Ok(Some(if in_out {
                    x2.transpose(-1, -2)?.matmul(&dz)?
                } else {
                    dz.transpose(-1, -2)?.matmul(&x2)?
                }))
            };
            let (gx, gw) = both_products(needs[0] && needs[1], grad_x, grad_w)?;
            let mut grads = smallvec![gx, gw];
            if has_bias {
                grads.push(if needs[2] {
                    Some(dz.sum(Some(&[0]), false)?)
                } else {
                    None
                });
            }
            Ok(grads)
        })?;
        Ok(out)
    }
}
