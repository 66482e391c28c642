//! Plan-time fusion: chains of steps that the executor runs as one op.
//!
//! A static program is known in full before it runs, so the executor can do what an
//! eager framework cannot: look at the next op before running this one. Two patterns
//! are rewritten, each only when the intermediate values are used by nothing else (no
//! other step, no fetch, not written back, not differentiated against) and the steps
//! are adjacent in the plan (so no step in between can change an input):
//!
//! - `matmul → add (a 1-D bias) → tanh | sigmoid | relu` (the activation optional)
//!   becomes one [`Tensor::linear`] step: one output buffer instead of three and one graph
//!   node instead of three;
//! - `constant c → multiply (c, g) → subtract (p, c*g) → assign to p` (a gradient-descent
//!   update) becomes one pass computing `p - c*g`.
//!
//! Both give the same values as the unfused steps, bit for bit (same arithmetic, same
//! order), and fall back to the separate ops when run-time shapes or dtypes do not fit.

use super::op::OpKind;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernels::bias_act::Activation;
use crate::kernels::elementwise::map_binary;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use std::sync::Arc;

/// What a fused step computes.
#[derive(Clone)]
pub enum Fused {
    /// `act(x @ w + b)` over inputs `[x, w, b]`.
    Linear(Activation),
    /// `p - c * g` over inputs `[p, g]`, `c` a one-element constant.
    DescentUpdate(Tensor),
}

impl Fused {
    /// Runs the fused op on its inputs.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Tensor> {
        match self {
            Fused::Linear(act) => inputs[0].linear(&inputs[1], Some(&inputs[2]), *act),
            Fused::DescentUpdate(c) => descent_update(&inputs[0], &inputs[1], c),
        }
    }
}

/// `p - c * g` in one pass when `p` and `g` have one shape and one float dtype and no
/// graph is recorded; otherwise as the separate (recorded) ops.
fn descent_update(p: &Tensor, g: &Tensor, c: &Tensor) -> Result<Tensor> {
    let plain = !crate::autograd::is_grad_enabled()
        && p.shape() == g.shape()
        && p.dtype() == g.dtype()
        && c.dtype() == p.dtype()
        && c.numel() == 1;
    match (plain, p.dtype()) {
        (true, DType::F32) => descent_pass::<f32>(p, g, c),
        (true, DType::F64) => descent_pass::<f64>(p, g, c),
        _ => p.sub(&c.mul(g)?),
    }
}

fn descent_pass<T>(p: &Tensor, g: &Tensor, c: &Tensor) -> Result<Tensor>
where
    T: Element + std::ops::Mul<Output = T> + std::ops::Sub<Output = T> + Send + Sync,
{
    let cv = c.storage().read::<T>()[c.layout().offset];
    let (ps, gs) = (p.storage().read::<T>(), g.storage().read::<T>());
    let out = map_binary(&ps, p.layout(), &gs, g.layout(), p.shape(), |pv, gv| {
        pv - cv * gv
    })?;
    Ok(Tensor::from_parts(
        Arc::new(Storage::from_vec(out)),
        Layout::contiguous(p.shape()),
    ))
}

/// What the fusion pass needs to know of one step.
pub struct StepView<'a> {
    /// The recorded op (None for a step that is already fused).
    pub kind: Option<&'a OpKind>,
    /// Input slots.
    pub inputs: &'a [usize],
    /// Output slots.
    pub outputs: &'a [usize],
}

/// One rewrite: steps `start..start + len` become one step computing `fused` from
/// `inputs` into `output`.
pub struct Rewrite {
    /// First step replaced.
    pub start: usize,
    /// Number of steps replaced.
    pub len: usize,
    /// The fused op.
    pub fused: Fused,
    /// Its input slots.
    pub inputs: Vec<usize>,
    /// Its output slot.
    pub output: usize,
}

/// Finds the fusable chains among `steps`. `pinned[v]` marks slots whose value is
/// needed beyond the steps' own inputs (fetched, written back, fed, differentiated).
pub fn find_rewrites(steps: &[StepView<'_>], pinned: &[bool], bias_1d: &[bool]) -> Vec<Rewrite> {
    let mut uses = vec![0usize; pinned.len()];
    for s in steps {
        for &i in s.inputs {
            uses[i] += 1;
        }
    }
    // an intermediate value read by exactly the next step of the chain and nothing else
    let private = |v: usize| uses[v] == 1 && !pinned[v];
    let mut out = Vec::new();
    let mut i = 0;
    while i < steps.len() {
        if let Some(r) =
            linear_at(steps, i, &private, bias_1d).or_else(|| descent_update_at(steps, i, &private))
        {
            i = r.start + r.len;
            out.push(r);
        } else {
            i += 1;
        }
    }
    out
}

fn single_output(s: &StepView<'_>) -> Option<usize> {
    (s.outputs.len() == 1).then(|| s.outputs[0])
}

fn linear_at(
    steps: &[StepView<'_>],
    i: usize,
    private: &impl Fn(usize) -> bool,
    bias_1d: &[bool],
) -> Option<Rewrite> {
    let mm = steps.get(i)?;
    let add = steps.get(i + 1)?;
    if !matches!(mm.kind?, OpKind::Matmul) || !matches!(add.kind?, OpKind::Binary(BinaryOp::Add)) {
        return None;
    }
    let m = single_output(mm)?;
    if !private(m) {
        return None;
    }
    // the bias may be either operand of the add
    let bias = match *add.inputs {
        [a, b] if a == m && b != m => b,
        [a, b] if b == m && a != m => a,
        _ => return None,
    };
    if !bias_1d[bias] {
        return None;
    }
    let s = single_output(add)?;
    let mut inputs = mm.inputs.to_vec();
    inputs.push(bias);
    let activation = steps.get(i + 2).and_then(|next| {
        let act = match next.kind? {
            OpKind::Unary(UnaryOp::Tanh) => Activation::Tanh,
            OpKind::Unary(UnaryOp::Sigmoid) => Activation::Sigmoid,
            OpKind::Unary(UnaryOp::Relu) => Activation::Relu,
            _ => return None,
        };
        (next.inputs == [s] && private(s)).then(|| (act, single_output(next)))
    });
    Some(match activation {
        Some((act, Some(y))) => Rewrite {
            start: i,
            len: 3,
            fused: Fused::Linear(act),
            inputs,
            output: y,
        },
        _ => Rewrite {
            start: i,
            len: 2,
            fused: Fused::Linear(Activation::Identity),
            inputs,
            output: s,
        },
    })
}

fn descent_update_at(
    steps: &[StepView<'_>],
    i: usize,
    private: &impl Fn(usize) -> bool,
) -> Option<Rewrite> {
    let [cst, mul, sub, assign] = [
        steps.get(i)?,
        steps.get(i + 1)?,
        steps.get(i + 2)?,
        steps.get(i + 3)?,
    ];
    let OpKind::Constant(c) = cst.kind? else {
        return None;
    };
    if c.numel() != 1
        || !matches!(mul.kind?, OpKind::Binary(BinaryOp::Mul))
        || !matches!(sub.kind?, OpKind::Binary(BinaryOp::Sub))
        || !matches!(assign.kind?, OpKind::Assign)
    {
        return None;
    }
    let c_slot = single_output(cst)?;
    let g = match *mul.inputs {
        [a, b] if a == c_slot && b != c_slot => b,
        [a, b] if b == c_slot && a != c_slot => a,
        _ => return None,
    };
    let t = single_output(mul)?;
    let p = match *sub.inputs {
        [p, x] if x == t && p != t => p,
        _ => return None,
    };
    let u = single_output(sub)?;
    let target = single_output(assign)?;
    let chain_private = private(c_slot) && private(t) && private(u);
    (chain_private && assign.inputs == [u] && target == p).then(|| Rewrite {
        start: i,
        len: 4,
        fused: Fused::DescentUpdate(c.clone()),
        inputs: vec![p, g],
        output: target,
    })
}
