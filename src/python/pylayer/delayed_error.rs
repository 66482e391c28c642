//! `once_differentiable` support: the outputs of a once-differentiable `backward` are
//! given a node that raises when it is differentiated again.

use crate::autograd::Recorder;
use crate::error::Error;
use crate::python::errors::to_pyerr;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;

/// `once_differentiable` support: returns views of `outputs` whose backward raises
/// `message` (so differentiating a once-differentiable backward again is a clear error).
#[pyfunction]
pub fn _delayed_error(
    py: Python<'_>,
    outputs: Vec<Py<PyAny>>,
    inputs: Vec<Bound<'_, PyTensor>>,
    message: String,
) -> PyResult<Vec<Py<PyAny>>> {
    let ins: Vec<Tensor> = inputs.iter().map(|t| t.get().inner().take()).collect();
    let refs: Vec<&Tensor> = ins.iter().collect();
    outputs
        .into_iter()
        .map(|o| {
            let b = o.bind(py);
            let Ok(t) = b.cast::<PyTensor>() else {
                return Ok(o);
            };
            let out = t.get().inner().detach();
            if let Some(rec) = Recorder::begin(&refs) {
                let msg = message.clone();
                rec.finish("DelayedError", &out, move |_, _, _| {
                    Err(Error::runtime(msg.clone()))
                })
                .map_err(to_pyerr)?;
            }
            Ok(wrap(py, out)?.into_any())
        })
        .collect()
}
