//! The `create_graph=True` fallback of the fused layers (convolution, recurrent layers,
//! batch norm, attention): their one-pass backward kernels record no graph, so when a
//! gradient must itself be differentiable the layer is recomposed from differentiable
//! ops and that composition is differentiated instead.

use crate::autograd::engine::{grad, BackwardOptions};
use crate::error::Result;
use crate::tensor::Tensor;
use smallvec::SmallVec;

/// Gradients of `out` (the recomposed layer, built from `inputs`) for the incoming
/// gradient `g`, recorded with `create_graph=True`: one entry per input, `None` where
/// `wanted(i)` is false (those inputs are not differentiated at all).
pub(super) fn grads_with_graph(
    out: Tensor,
    inputs: &[Tensor],
    wanted: impl Fn(usize) -> bool,
    g: &Tensor,
) -> Result<SmallVec<[Option<Tensor>; 2]>> {
    let picked: Vec<usize> = (0..inputs.len()).filter(|&i| wanted(i)).collect();
    let targets: Vec<Tensor> = picked.iter().map(|&i| inputs[i].clone()).collect();
    let opts = BackwardOptions {
        retain_graph: true,
        create_graph: true,
    };
    let got = grad(&[out], vec![g.clone()], &targets, opts)?;
    let mut res: SmallVec<[Option<Tensor>; 2]> = SmallVec::from_elem(None, inputs.len());
    for (i, t) in picked.into_iter().zip(got) {
        res[i] = t;
    }
    Ok(res)
}
