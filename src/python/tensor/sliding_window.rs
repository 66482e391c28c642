//! Bindings of the sliding-window ops behind convolution and pooling (private `_core`
//! functions; the public API is `ferrograd.nn.functional`, written in Python over them).

use crate::kernels::conv::Window;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

fn window(
    kernel: Vec<usize>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
    pad_lo: Vec<isize>,
    pad_hi: Vec<isize>,
) -> Window {
    Window {
        kernel,
        stride,
        dilation,
        pad_lo,
        pad_hi,
    }
}

/// im2col: `x` `[N, C, *S]` → `[N, C*prod(kernel), L]` (differentiable; backward `_fold`).
#[pyfunction]
pub fn _unfold(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    kernel: Vec<usize>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
    pad_lo: Vec<isize>,
    pad_hi: Vec<isize>,
) -> PyT {
    let t = &x.get().inner();
    let w = window(kernel, stride, dilation, pad_lo, pad_hi);
    let work = t.numel().saturating_mul(w.kernel.iter().product());
    wrap(py, maybe_detach(py, work, || t.unfold_window(&w)).py()?)
}

/// col2im: `cols` `[N, C*prod(kernel), L]` → `[N, C, *spatial]`, overlaps summed
/// (differentiable; backward `_unfold`).
#[pyfunction]
pub fn _fold(
    py: Python<'_>,
    cols: &Bound<'_, PyTensor>,
    spatial: Vec<usize>,
    kernel: Vec<usize>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
    pad_lo: Vec<isize>,
    pad_hi: Vec<isize>,
) -> PyT {
    let t = &cols.get().inner();
    let w = window(kernel, stride, dilation, pad_lo, pad_hi);
    wrap(
        py,
        maybe_detach(py, t.numel(), || t.fold_window(&spatial, &w)).py()?,
    )
}

/// Max pooling's positions: int64 `[N, C, *out]`, indices within each `[N, C]` plane.
#[pyfunction]
pub fn _max_pool_indices(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    kernel: Vec<usize>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
    pad_lo: Vec<isize>,
    pad_hi: Vec<isize>,
) -> PyT {
    let t = &x.get().inner();
    let w = window(kernel, stride, dilation, pad_lo, pad_hi);
    let work = t.numel().saturating_mul(w.kernel.iter().product());
    wrap(py, maybe_detach(py, work, || t.max_pool_indices(&w)).py()?)
}

/// `x` `[N, C, *S]` read at per-plane positions `index` `[N, C, *out]` (differentiable).
#[pyfunction]
pub fn _take_in_planes(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    index: &Bound<'_, PyTensor>,
) -> PyT {
    let (t, i) = (&x.get().inner(), &index.get().inner());
    wrap(py, t.take_in_planes(i).py()?)
}

/// max_unpool: zeros `[N, C, *size]` with `x` written at per-plane positions `index`
/// (differentiable in `x`).
#[pyfunction]
pub fn _unpool_put(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    index: &Bound<'_, PyTensor>,
    size: Vec<usize>,
) -> PyT {
    let (t, i) = (&x.get().inner(), &index.get().inner());
    wrap(py, t.unpool_put(i, &size).py()?)
}
