//! Binding of the fused batch-norm op (a private `_core` function; the public API is
//! `ferrograd.nn.functional.batch_norm` and the `BatchNorm*` layers, which keep the
//! peers' argument conventions and the running-statistics update in Python).

use crate::autograd::ops::batch_norm::BnStats;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

type OptT<'a, 'py> = Option<&'a Bound<'py, PyTensor>>;

/// Batch norm of `x` over every dim but `cdim` (one graph node). With
/// `use_batch_stats` returns `(out, batch_mean, batch_biased_var)`, otherwise
/// `(out, None, None)` normalising with `running_mean` / `running_var`.
#[pyfunction]
#[pyo3(signature = (x, weight, bias, running_mean, running_var, use_batch_stats, eps, cdim))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn _batch_norm(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    weight: OptT<'_, '_>,
    bias: OptT<'_, '_>,
    running_mean: OptT<'_, '_>,
    running_var: OptT<'_, '_>,
    use_batch_stats: bool,
    eps: f64,
    cdim: usize,
) -> PyResult<(Py<PyTensor>, Option<Py<PyTensor>>, Option<Py<PyTensor>>)> {
    let t = &x.get().inner();
    let (w, b) = (
        weight.map(|w| w.get().inner()),
        bias.map(|b| b.get().inner()),
    );
    let (w, b) = (w.as_deref(), b.as_deref());
    let (rm, rv) = (
        running_mean.map(|m| m.get().inner()),
        running_var.map(|v| v.get().inner()),
    );
    let stats =
        if use_batch_stats {
            BnStats::Batch
        } else {
            match (&rm, &rv) {
                (Some(m), Some(v)) => BnStats::Running(m, v),
                _ => return Err(PyValueError::new_err(
                    "batch_norm: running_mean and running_var are needed without batch statistics",
                )),
            }
        };
    let (out, st) = maybe_detach(py, t.numel(), || t.batch_norm(w, b, stats, eps, cdim)).py()?;
    let (m, v) = match st {
        Some((m, v)) => (Some(wrap(py, m)?), Some(wrap(py, v)?)),
        None => (None, None),
    };
    Ok((wrap(py, out)?, m, v))
}
