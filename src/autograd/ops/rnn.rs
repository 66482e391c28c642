//! One graph node per recurrent layer and direction: the fused LSTM / Elman time loop of
//! `kernels::rnn`, with its backward through time in Rust.
//!
//! The op takes the input projection of all steps (`xp`, computed by the caller as one
//! matmul), `W_hh` and the initial states; it returns the states of every step as one
//! tensor `[S, T, B, H]` (`S = 2` for the LSTM: hidden then cell states), from which the
//! caller takes the output and final states as views. First derivatives come from the
//! fused kernel; with `create_graph=True` backward instead recomposes the layer from
//! differentiable ops and differentiates that (slower, but twice-differentiable).

use super::composed_grad::grads_with_graph;
use crate::autograd::{is_grad_enabled, Recorder};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::rnn::{self as kr, Cell, Seq};
use crate::tensor::Tensor;
use smallvec::SmallVec;

/// Runs `f` on the tensor's elements as one contiguous row-major slice.
fn with_slice<T: Element, R>(t: &Tensor, f: impl FnOnce(&[T]) -> Result<R>) -> Result<R> {
    let c = if t.is_contiguous() {
        t.clone()
    } else {
        let _g = crate::autograd::no_grad();
        t.contiguous()?
    };
    let s = c.storage().read::<T>();
    let off = c.layout().offset;
    f(&s[off..off + c.numel()])
}

fn shape_err(what: &str, want: &[usize], got: &[usize]) -> Error {
    Error::value(format!(
        "rnn_layer: {what} must have shape {want:?}, got {got:?}"
    ))
}

impl Tensor {
    /// One recurrent layer over all steps of `self` (`xp`, the input projection
    /// `x @ W_ih^T + b_ih + b_hh`, `[T, B, G*H]`), with recurrent weight `w_hh`
    /// `[G*H, H]` and initial state `h0` `[B, H]`; `extra` is the LSTM's `c0` `[B, H]`
    /// or the GRU's `b_hh` `[3H]` (then `xp` holds only `b_ih`: the GRU's recurrent bias
    /// sits inside its reset gate). Returns the states of every step, `[S, T, B, H]`
    /// (LSTM: `S = 2`, hidden then cell states; otherwise `S = 1`). `reverse` runs from
    /// the last step to the first.
    pub fn rnn_layer(
        &self,
        w_hh: &Tensor,
        h0: &Tensor,
        extra: Option<&Tensor>,
        cell: Cell,
        reverse: bool,
    ) -> Result<Tensor> {
        let dtype = self.dtype();
        if !matches!(dtype, DType::F32 | DType::F64) {
            return Err(Error::type_err(format!(
                "rnn_layer: the fused recurrent layer runs on float32/float64, got {dtype}"
            )));
        }
        let mut ins: Vec<&Tensor> = vec![self, w_hh, h0];
        match cell {
            Cell::Lstm => {
                ins.push(extra.ok_or_else(|| Error::value("rnn_layer: the LSTM needs c0"))?)
            }
            Cell::Gru => {
                ins.push(extra.ok_or_else(|| Error::value("rnn_layer: the GRU needs b_hh"))?)
            }
            _ => {}
        }
        if let Some(t) = ins.iter().find(|t| t.dtype() != dtype) {
            return Err(Error::type_err(format!(
                "rnn_layer: all operands must be {dtype}, got {}; cast them to one dtype",
                t.dtype()
            )));
        }
        if self.ndim() != 3 || self.shape()[0] == 0 {
            return Err(Error::value(format!(
                "rnn_layer: xp must be [T, B, G*H] with T >= 1, got {:?}",
                self.shape()
            )));
        }
        let (steps, batch) = (self.shape()[0], self.shape()[1]);
        if h0.ndim() != 2 || h0.shape()[0] != batch {
            return Err(shape_err("h0", &[batch, 0], h0.shape()));
        }
        let hidden = h0.shape()[1];
        if hidden == 0 {
            return Err(Error::value(
                "rnn_layer: the hidden size must be positive, got 0",
            ));
        }
        let g = cell.gates();
        if self.shape()[2] != g * hidden {
            return Err(shape_err("xp", &[steps, batch, g * hidden], self.shape()));
        }
        if w_hh.shape() != [g * hidden, hidden] {
            return Err(shape_err("w_hh", &[g * hidden, hidden], w_hh.shape()));
        }
        if let Some(c) = ins.get(3) {
            if cell == Cell::Gru && c.shape() != [g * hidden] {
                return Err(shape_err("b_hh", &[g * hidden], c.shape()));
            }
            if cell == Cell::Lstm && c.shape() != [batch, hidden] {
                return Err(shape_err("c0", &[batch, hidden], c.shape()));
            }
        }
        let seq = Seq {
            steps,
            batch,
            hidden,
            reverse,
        };
        let shape = [cell.states(), steps, batch, hidden];
        let acts_shape = [steps, batch, if cell == Cell::Gru { 4 } else { g } * hidden];
        let (out, acts) = with_float(dtype, |d| match d {
            Float2::F32 => run_forward::<f32>(cell, &seq, &ins, &shape, &acts_shape),
            Float2::F64 => run_forward::<f64>(cell, &seq, &ins, &shape, &acts_shape),
        })?;
        let Some(mut rec) = Recorder::begin(&ins) else {
            return Ok(out);
        };
        for t in &ins {
            rec.save(t);
        }
        rec.save_output();
        let n_in = ins.len();
        rec.finish("RnnLayerBackward", &out, move |gr, saved, needs| {
            let get = |i: usize| {
                saved[i]
                    .clone()
                    .ok_or_else(|| Error::runtime("rnn_layer: a saved tensor is missing"))
            };
            let inputs: Vec<Tensor> = (0..n_in).map(get).collect::<Result<_>>()?;
            if is_grad_enabled() {
                return composed_backward(cell, reverse, &inputs, gr, needs);
            }
            let out = get(n_in)?;
            let grads = with_float(gr.dtype(), |d| match d {
                Float2::F32 => run_backward::<f32>(cell, &seq, &inputs, &out, &acts, gr),
                Float2::F64 => run_backward::<f64>(cell, &seq, &inputs, &out, &acts, gr),
            })?;
            Ok(grads
                .into_iter()
                .zip(needs)
                .map(|(g, &n)| if n { Some(g) } else { None })
                .collect())
        })?;
        Ok(out)
    }
}

enum Float2 {
    F32,
    F64,
}

fn with_float<R>(d: DType, f: impl FnOnce(Float2) -> Result<R>) -> Result<R> {
    match d {
        DType::F32 => f(Float2::F32),
        DType::F64 => f(Float2::F64),
        d => Err(Error::type_err(format!(
            "rnn_layer: expected float32/float64, got {d}"
        ))),
    }
}

fn run_forward<T: kr::RnnFloat>(
    cell: Cell,
    seq: &Seq,
    ins: &[&Tensor],
    shape: &[usize],
    acts_shape: &[usize],
) -> Result<(Tensor, Tensor)> {
    let c0 = ins.get(3).copied().unwrap_or(ins[2]);
    let (out, acts) = with_slice::<T, _>(ins[0], |xp| {
        with_slice::<T, _>(ins[1], |w| {
            with_slice::<T, _>(ins[2], |h0| {
                with_slice::<T, _>(c0, |c0| {
                    if cell == Cell::Gru {
                        crate::kernels::rnn_gru::forward(seq, xp, w, c0, h0)
                    } else {
                        kr::forward(cell, seq, xp, w, h0, c0)
                    }
                })
            })
        })
    })?;
    let acts = if acts.is_empty() {
        Tensor::from_vec::<T>(Vec::new(), &[0])?
    } else {
        Tensor::from_vec(acts, acts_shape)?
    };
    Ok((Tensor::from_vec(out, shape)?, acts))
}

fn run_backward<T: kr::RnnFloat>(
    cell: Cell,
    seq: &Seq,
    ins: &[Tensor],
    out: &Tensor,
    acts: &Tensor,
    gr: &Tensor,
) -> Result<Vec<Tensor>> {
    if cell == Cell::Gru {
        let r = with_slice::<T, _>(&ins[1], |w| {
            with_slice::<T, _>(&ins[2], |h0| {
                with_slice::<T, _>(out, |o| {
                    with_slice::<T, _>(acts, |a| {
                        with_slice::<T, _>(gr, |g| {
                            crate::kernels::rnn_gru::backward(seq, w, h0, o, a, g)
                        })
                    })
                })
            })
        })?;
        return Ok(vec![
            Tensor::from_vec(r.dxp, ins[0].shape())?,
            Tensor::from_vec(r.dw, ins[1].shape())?,
            Tensor::from_vec(r.dh0, ins[2].shape())?,
            Tensor::from_vec(r.db, ins[3].shape())?,
        ]);
    }
    let c0 = ins.get(3).unwrap_or(&ins[2]);
    let r = with_slice::<T, _>(&ins[1], |w| {
        with_slice::<T, _>(&ins[2], |h0| {
            with_slice::<T, _>(c0, |c0| {
                with_slice::<T, _>(out, |o| {
                    with_slice::<T, _>(acts, |a| {
                        with_slice::<T, _>(gr, |g| kr::backward(cell, seq, w, h0, c0, o, a, g))
                    })
                })
            })
        })
    })?;
    let mut v = vec![
        Tensor::from_vec(r.dxp, ins[0].shape())?,
        Tensor::from_vec(r.dw, ins[1].shape())?,
        Tensor::from_vec(r.dh0, ins[2].shape())?,
    ];
    if ins.len() > 3 {
        v.push(Tensor::from_vec(r.dc0, ins[3].shape())?);
    }
    Ok(v)
}

/// The layer written with differentiable ops (the same arithmetic as the kernel),
/// states stacked as `[S, T, B, H]`.
pub fn rnn_layer_composed(cell: Cell, reverse: bool, ins: &[Tensor]) -> Result<Tensor> {
    let (xp, w) = (&ins[0], &ins[1]);
    let wt = w.transpose(0, 1)?;
    let xs = xp.unbind(0)?;
    let steps = xs.len();
    let mut h = ins[2].clone();
    let mut c = ins.get(3).cloned();
    let mut hs: Vec<Option<Tensor>> = vec![None; steps];
    let mut cs: Vec<Option<Tensor>> = vec![None; steps];
    for k in 0..steps {
        let t = if reverse { steps - 1 - k } else { k };
        match cell {
            Cell::Lstm => {
                let q = xs[t].add(&h.matmul(&wt)?)?.chunk(4, -1)?;
                let (i, f) = (q[0].sigmoid()?, q[1].sigmoid()?);
                let (g, o) = (q[2].tanh()?, q[3].sigmoid()?);
                let c_prev = c.take().ok_or_else(|| Error::runtime("rnn: missing c"))?;
                let c_new = f.mul(&c_prev)?.add(&i.mul(&g)?)?;
                h = o.mul(&c_new.tanh()?)?;
                cs[t] = Some(c_new.clone());
                c = Some(c_new);
            }
            Cell::Tanh => h = xs[t].add(&h.matmul(&wt)?)?.tanh()?,
            Cell::Relu => h = xs[t].add(&h.matmul(&wt)?)?.relu()?,
            Cell::Gru => h = gru_step(&xs[t], &h, &wt, &ins[3])?,
        }
        hs[t] = Some(h.clone());
    }
    let collect = |v: Vec<Option<Tensor>>| -> Result<Tensor> {
        let v: Vec<Tensor> = v.into_iter().flatten().collect();
        Tensor::stack(&v, 0)
    };
    let mut parts = vec![collect(hs)?];
    if cell == Cell::Lstm {
        parts.push(collect(cs)?);
    }
    Tensor::stack(&parts, 0)
}

/// One GRU step from differentiable ops: `x` `[B, 3H]`, `h` `[B, H]`, `wt` `W_hh^T`.
fn gru_step(x: &Tensor, h: &Tensor, wt: &Tensor, b: &Tensor) -> Result<Tensor> {
    let gh = h.matmul(wt)?.add(b)?.chunk(3, -1)?;
    let gx = x.chunk(3, -1)?;
    let r = gx[0].add(&gh[0])?.sigmoid()?;
    let z = gx[1].add(&gh[1])?.sigmoid()?;
    let n = gx[2].add(&r.mul(&gh[2])?)?.tanh()?;
    n.add(&z.mul(&h.sub(&n)?)?)
}

/// Backward with `create_graph=True`: differentiates the composed layer, so the
/// gradients carry a graph of their own (double backward).
fn composed_backward(
    cell: Cell,
    reverse: bool,
    inputs: &[Tensor],
    gr: &Tensor,
    needs: &[bool],
) -> Result<SmallVec<[Option<Tensor>; 2]>> {
    let out = rnn_layer_composed(cell, reverse, inputs)?;
    grads_with_graph(out, inputs, |i| needs[i], gr)
}
