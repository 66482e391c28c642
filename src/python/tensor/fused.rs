//! Bindings of the fused network ops (private `_core` functions; the public API is
//! `ferrograd.nn.functional`, which calls them on the common path and composes tensor ops
//! for the rare options): layer norm, class-index losses, dropout, eager linear.

use crate::autograd::ops::class_loss::{ClassLossOpts, Reduction};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;
type OptT<'a, 'py> = Option<&'a Bound<'py, PyTensor>>;

/// Layer norm of `x` over its last `normalized_ndim` dims (one graph node).
#[pyfunction]
#[pyo3(signature = (x, normalized_ndim, weight=None, bias=None, eps=1e-5))]
pub fn _layer_norm(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    normalized_ndim: usize,
    weight: OptT<'_, '_>,
    bias: OptT<'_, '_>,
    eps: f64,
) -> PyT {
    let t = &x.get().inner();
    let (w, b) = (
        weight.map(|w| w.get().inner()),
        bias.map(|b| b.get().inner()),
    );
    let (w, b) = (w.as_deref(), b.as_deref());
    let r = maybe_detach(py, t.numel(), || t.layer_norm(normalized_ndim, w, b, eps));
    wrap(py, r.py()?)
}

/// Cross entropy (`log_softmax=True`) or NLL of class ids `target` (one graph node).
#[pyfunction]
#[pyo3(signature = (x, target, weight, ignore_index, reduction, label_smoothing, log_softmax))]
pub fn _class_loss(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    target: &Bound<'_, PyTensor>,
    weight: OptT<'_, '_>,
    ignore_index: i64,
    reduction: &str,
    label_smoothing: f64,
    log_softmax: bool,
) -> PyT {
    let reduction = match reduction {
        "none" => Reduction::None,
        "mean" => Reduction::Mean,
        "sum" => Reduction::Sum,
        other => {
            return Err(PyValueError::new_err(format!(
                "reduction must be one of ('mean', 'sum', 'none'), got {other:?}"
            )))
        }
    };
    let opts = ClassLossOpts {
        ignore_index,
        reduction,
        smoothing: label_smoothing,
        log_softmax,
    };
    let (t, y) = (&x.get().inner(), &target.get().inner());
    let w = weight.map(|w| w.get().inner());
    let w = w.as_deref();
    let r = maybe_detach(py, t.numel(), || t.class_loss(y, w, opts));
    wrap(py, r.py()?)
}

/// Dropout with probability `0 < p < 1` (one graph node; the mask from the default
/// generator, as `rand(x.shape) >= p` drew it).
#[pyfunction]
pub fn _dropout(py: Python<'_>, x: &Bound<'_, PyTensor>, p: f64, upscale: bool) -> PyT {
    let t = &x.get().inner();
    wrap(py, t.dropout(p, upscale).py()?)
}

/// `x @ weight.T + bias` with `weight` `[out, in]`, or with `in_out` `x @ weight + bias`
/// with `weight` `[in, out]` (Paddle's layout); one graph node on the fused path.
#[pyfunction]
#[pyo3(signature = (x, weight, bias=None, in_out=false))]
pub fn _linear(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    weight: &Bound<'_, PyTensor>,
    bias: OptT<'_, '_>,
    in_out: bool,
) -> PyT {
    let (t, w) = (&x.get().inner(), &weight.get().inner());
    let b = bias.map(|b| b.get().inner());
    let b = b.as_deref();
    let work = t.numel().max(w.numel());
    wrap(
        py,
        maybe_detach(py, work, || t.linear_in_layout(w, b, in_out)).py()?,
    )
}
