//! Binding of the fused attention op (a private `_core` function; the public API is
//! `ferrograd.nn.functional.scaled_dot_product_attention`, which handles both peers'
//! argument spellings and layouts in Python).

use crate::autograd::ops::attention::SdpaOpts;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::prelude::*;

/// `softmax(q k^T * scale + mask) v` over the last two dims as one graph node: `q`
/// `[..., L, E]`, `k` `[..., S, E]`, `v` `[..., S, Ev]` (equal batch dims), `mask` bool
/// (True = attend) or float (added), broadcastable to `[..., L, S]`; `scale=None` is
/// `1/sqrt(E)`; dropout flags come from a seed drawn from the default generator.
#[pyfunction]
#[pyo3(signature = (q, k, v, mask=None, dropout_p=0.0, is_causal=false, scale=None))]
pub fn _sdpa(
    py: Python<'_>,
    q: &Bound<'_, PyTensor>,
    k: &Bound<'_, PyTensor>,
    v: &Bound<'_, PyTensor>,
    mask: Option<&Bound<'_, PyTensor>>,
    dropout_p: f64,
    is_causal: bool,
    scale: Option<f64>,
) -> PyResult<Py<PyTensor>> {
    let (q, k, v) = (&q.get().inner(), &k.get().inner(), &v.get().inner());
    let m = mask.map(|m| m.get().inner().take());
    let opts = SdpaOpts {
        scale,
        causal: is_causal,
        dropout_p,
    };
    let work = q
        .numel()
        .saturating_mul(k.shape().iter().rev().nth(1).copied().unwrap_or(1));
    let out = maybe_detach(py, work, || {
        q.scaled_dot_product_attention(k, v, m.as_ref(), opts)
    });
    wrap(py, out.py()?)
}
