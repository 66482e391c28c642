//! Binding of the fused convolution op (a private `_core` function; the public API is
//! `ferrograd.nn.functional.conv1d/2d/3d` and the `nn` layers, written in Python over it).

use crate::autograd::ops::conv_fused::{ConvArgs, ConvPath};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Convolution of `x` `[N, C, *S]` with `weight` `[O, C/groups, *kernel]` and optional
/// `bias` `[O]`, channels first, padding given per side (`pad_lo`, `pad_hi`). `path`
/// picks the kernel: "auto", "gemm" (per-sample im2col + gemm), "shift" (one gemm per
/// kernel tap over the padded input, where the stride is 1; else as "gemm") or "direct"
/// (the depthwise / few-channel kernel). One graph node, differentiable to any order.
#[pyfunction]
#[pyo3(signature = (x, weight, bias, stride, dilation, pad_lo, pad_hi, groups, path = "auto"))]
#[allow(clippy::too_many_arguments)]
pub fn _conv(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    weight: &Bound<'_, PyTensor>,
    bias: Option<&Bound<'_, PyTensor>>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
    pad_lo: Vec<isize>,
    pad_hi: Vec<isize>,
    groups: usize,
    path: &str,
) -> PyResult<Py<PyTensor>> {
    let path = match path {
        "auto" => ConvPath::Auto,
        "gemm" => ConvPath::Gemm,
        "shift" => ConvPath::Shift,
        "direct" => ConvPath::Direct,
        p => {
            return Err(PyValueError::new_err(format!(
                "_conv: path must be 'auto', 'gemm', 'shift' or 'direct', got {p:?}"
            )))
        }
    };
    let args = ConvArgs {
        stride,
        dilation,
        pad_lo,
        pad_hi,
        groups,
        path,
    };
    let (t, w) = (&x.get().inner(), &weight.get().inner());
    let b = bias.map(|b| b.get().inner().take());
    let work = t
        .numel()
        .saturating_mul(w.numel() / w.shape().first().copied().unwrap_or(1).max(1));
    let out = maybe_detach(py, work, || t.conv_nd(w, b.as_ref(), &args));
    wrap(py, out.py()?)
}
