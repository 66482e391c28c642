//! Bindings of 2-D grid sampling's kernels (private `_core` functions; the public API is
//! `ferrograd.nn.functional.grid_sample`, a custom autograd function over them).

use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use crate::tensor::grid_sample::parse_options;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

/// The input and grid gradients (each only when asked for).
type GradPair = (Option<Py<PyTensor>>, Option<Py<PyTensor>>);

/// `input` `[N, C, H, W]` sampled at `grid` `[N, Ho, Wo, 2]` (records no graph).
#[pyfunction]
pub fn _grid_sample_2d(
    py: Python<'_>,
    input: &Bound<'_, PyTensor>,
    grid: &Bound<'_, PyTensor>,
    mode: &str,
    padding_mode: &str,
    align_corners: bool,
) -> PyT {
    let (m, p) = parse_options(mode, padding_mode).py()?;
    let (x, g) = (&input.get().inner(), &grid.get().inner());
    let work = g
        .numel()
        .saturating_mul(x.shape().get(1).copied().unwrap_or(1));
    let out = maybe_detach(py, work, || x.grid_sample_2d(g, m, p, align_corners));
    wrap(py, out.py()?)
}

/// The gradients of `_grid_sample_2d` for the input and the grid (each None unless
/// asked for), given the output's gradient.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _grid_sample_2d_backward(
    py: Python<'_>,
    grad: &Bound<'_, PyTensor>,
    input: &Bound<'_, PyTensor>,
    grid: &Bound<'_, PyTensor>,
    mode: &str,
    padding_mode: &str,
    align_corners: bool,
    need_input: bool,
    need_grid: bool,
) -> PyResult<GradPair> {
    let (m, p) = parse_options(mode, padding_mode).py()?;
    let (gy, x, g) = (
        &grad.get().inner(),
        &input.get().inner(),
        &grid.get().inner(),
    );
    let work = gy.numel();
    let (gx, gg) = maybe_detach(py, work, || {
        gy.grid_sample_2d_backward(x, g, m, p, align_corners, need_input, need_grid)
    })
    .py()?;
    let gx = gx.map(|t| wrap(py, t)).transpose()?;
    let gg = gg.map(|t| wrap(py, t)).transpose()?;
    Ok((gx, gg))
}
