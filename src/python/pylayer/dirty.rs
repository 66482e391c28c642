//! What a custom layer's `forward` declared about in-place changes: PyTorch's
//! `ctx.mark_dirty` rules and Paddle's `ctx.mark_not_inplace`, checked by `apply`.

use crate::python::pylayer::ctx::PyCtx;
use crate::tensor::Tensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// PyTorch's rules for `ctx.mark_dirty`: a tensor that is not an input of the layer is
/// warned about (nothing of it changes); an input marked dirty must be one of the
/// outputs, since the layer's node becomes its history: left out, its in-place change
/// would be invisible to autograd and the gradients through it silently wrong.
pub(crate) fn check_dirty(
    py: Python<'_>,
    dirty: &[Tensor],
    inputs: &[Tensor],
    outputs: &[Tensor],
) -> PyResult<()> {
    for d in dirty {
        if !inputs.iter().any(|x| x.same(d)) {
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"ctx.mark_dirty() received a tensor that was not an input. Only input \
                  Tensors that have been mutated should be passed to ctx.mark_dirty().",
                1,
            )?;
        } else if !outputs.iter().any(|o| o.same(d)) {
            return Err(PyRuntimeError::new_err(
                "Some elements marked as dirty during the forward method were not returned \
                 as output. The inputs that are modified inplace must all be outputs of the \
                 Function.",
            ));
        }
    }
    Ok(())
}

/// Whether forward named `t` in `ctx.mark_not_inplace` (read only for an input returned
/// as is, a rare case).
pub(crate) fn marked_not_inplace(ctx: &Bound<'_, PyCtx>, t: &Tensor) -> bool {
    ctx.get().state.lock().not_inplace.iter().any(|x| x.same(t))
}
