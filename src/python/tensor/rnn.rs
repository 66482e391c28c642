//! Binding of the fused recurrent layer op (a private `_core` function; the public API
//! is `ferrograd.nn.LSTM` / `RNN` / `SimpleRNN`, written in Python over it).

use crate::kernels::rnn::Cell;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One recurrent layer and direction over all steps: `xp` `[T, B, G*H]` (the input
/// projection with its bias, and for all but the GRU the recurrent bias too), `w_hh`
/// `[G*H, H]`, `h0` `[B, H]`, `extra` the LSTM's `c0` `[B, H]` or the GRU's `b_hh`
/// `[3H]`; `mode` is "LSTM", "GRU", "RNN_TANH" or "RNN_RELU". Returns the states of
/// every step `[S, T, B, H]` (LSTM: hidden then cell states). Differentiable (twice,
/// through a composed fallback).
#[pyfunction]
#[pyo3(signature = (xp, w_hh, h0, extra, mode, reverse))]
pub fn _rnn_layer(
    py: Python<'_>,
    xp: &Bound<'_, PyTensor>,
    w_hh: &Bound<'_, PyTensor>,
    h0: &Bound<'_, PyTensor>,
    extra: Option<&Bound<'_, PyTensor>>,
    mode: &str,
    reverse: bool,
) -> PyResult<Py<PyTensor>> {
    let cell = match mode {
        "LSTM" => Cell::Lstm,
        "GRU" => Cell::Gru,
        "RNN_TANH" => Cell::Tanh,
        "RNN_RELU" => Cell::Relu,
        m => {
            return Err(PyValueError::new_err(format!(
                "_rnn_layer: mode must be 'LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU', got {m:?}"
            )))
        }
    };
    let (x, w, h) = (&xp.get().inner(), &w_hh.get().inner(), &h0.get().inner());
    let c = extra.map(|c| c.get().inner().take());
    let work = x
        .numel()
        .saturating_mul(h.shape().last().copied().unwrap_or(1));
    let out = maybe_detach(py, work, || x.rnn_layer(w, h, c.as_ref(), cell, reverse));
    wrap(py, out.py()?)
}
