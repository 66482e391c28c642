//! What a custom layer's `forward` declared about in-place changes: PyTorch's
//! `ctx.mark_dirty` rules and Paddle's `ctx.mark_not_inplace`, checked by `apply`.

use crate::python::pylayer::ctx::PyCtx;
use crate::tensor::Tensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// PyTorch's rules for `ctx.mark_dirty`: a tensor that is not an input of the layer is
/// warned about (nothing of it changes), or refused when it is a view that the layer
/// returns (a view of an intermediate, as PyTorch refuses it); an input marked dirty must be one of the
/// outputs, since the layer's node becomes its history: left out, its in-place change
/// would be invisible to autograd and the gradients through it silently wrong.
/// `torch_multi`: a PyTorch `Function` whose `forward` returned more than one object (see
/// [`check_dirty_view`]); `non_diff`: the outputs marked non-differentiable.
pub(crate) fn check_dirty(
    py: Python<'_>,
    dirty: &[Tensor],
    inputs: &[Tensor],
    outputs: &[Tensor],
    non_diff: &[Tensor],
    torch_multi: bool,
) -> PyResult<()> {
    if torch_multi {
        check_dirty_view(dirty, inputs, outputs, non_diff)?;
    }
    for d in dirty {
        if !inputs.iter().any(|x| x.same(d)) {
            let is_view = d.meta().view_base.is_some();
            if is_view && outputs.iter().any(|o| o.same(d)) {
                // PyTorch refuses a returned view that is not an input (a view of an
                // intermediate): the layer's node cannot become the history of a view
                // whose base it never saw; a non-view only gets the warning
                return Err(PyRuntimeError::new_err(
                    "ctx.mark_dirty() received a tensor that was not an input. Only input \
                     Tensors that have been mutated should be passed to ctx.mark_dirty(). \
                     (This one is a view, of a tensor made inside forward, and is returned: \
                     clone() it before returning, or do not mark it dirty.)",
                ));
            }
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

/// PyTorch's refusal of a `Function` that writes a view input in place (`mark_dirty`),
/// returns it differentiable and returns more than one object: its engine rebases the
/// view's base only for a node with one output. (ferrograd could compute it, and does so
/// for Paddle's `PyLayer`, which has no `mark_dirty` and accepts the equivalent layer
/// that returns its written view input; PyTorch code gets PyTorch's error.)
fn check_dirty_view(
    dirty: &[Tensor],
    inputs: &[Tensor],
    outputs: &[Tensor],
    non_diff: &[Tensor],
) -> PyResult<()> {
    let refused = dirty.iter().any(|d| {
        inputs.iter().any(|x| x.same(d))
            && outputs.iter().any(|o| o.same(d))
            && !non_diff.iter().any(|x| x.same(d))
            && d.meta().view_base.is_some()
    });
    if refused {
        return Err(PyRuntimeError::new_err(
            "If your Function modifies inplace an input that is a view of another Tensor, \
             your Function cannot return more than one Tensor. This is not supported by the \
             current autograd engine. You should either make sure the input is not a view \
             (using .clone() for example) or make your Function only return one Tensor \
             (potentially splitting it into two Functions: one doing the inplace that returns \
             a single Tensor and a second one that does the other operations). You can ask on \
             the forum https://discuss.pytorch.org/ if you need help to do this change.",
        ));
    }
    Ok(())
}

/// Whether forward named `t` in `ctx.mark_not_inplace` (read only for an input returned
/// as is, a rare case).
pub(crate) fn marked_not_inplace(ctx: &Bound<'_, PyCtx>, t: &Tensor) -> bool {
    ctx.get().state.lock().not_inplace.iter().any(|x| x.same(t))
}
