//! Python tensors that change what they show while keeping their identity: `x.data = y`
//! and the in-place view ops (`transpose_`, `t_`, `squeeze_`, `unsqueeze_`, Paddle's
//! `reshape_` / `flatten_`, `resize_`). A core tensor's shape, dtype and memory never
//! change; the Python object is re-pointed at a new core tensor instead
//! ([`PyTensor::repoint`]), which takes over the old one's autograd state
//! ([`crate::tensor::Tensor::rebound`]). So `id(x)`, `x` in a module or an optimizer,
//! `x.grad` and the hooks on `x` all stay, as with PyTorch's `set_data`.

use crate::python::errors::IntoPy;
use crate::python::tensor::class::PyTensor;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

/// Points `obj` at `t`, recording `obj` as `t`'s Python object (so a saved `t` unpacks to
/// `obj` and `t._base` finds it) even when a temporary wrapper of `t` recorded itself first.
fn repoint(
    obj: &Bound<'_, PyTensor>,
    t: Tensor,
    temporary: Option<&Bound<'_, PyTensor>>,
) -> PyResult<()> {
    if let Some(tmp) = temporary {
        t.clear_owner(tmp.as_ptr() as usize);
    }
    obj.get().repoint(obj.py(), obj.as_ptr() as usize, t);
    Ok(())
}

#[pymethods]
impl PyTensor {
    /// `x.data = y` (both peers): `x` shows `y`'s memory from now on (any shape or dtype;
    /// the two share it, as in PyTorch and Paddle), keeping its own autograd state:
    /// requires_grad, `.grad`, hooks, history. Not recorded by autograd. With
    /// `keep_version` (PyTorch) `x` keeps its version counter, which the views of `x`
    /// taken before share; otherwise (Paddle) it counts with `y`. With `new_accumulator`
    /// (`x.set_(y)`) `x` gets a new gradient accumulator, as in PyTorch: a graph recorded
    /// before reaches it only through the `GradientEdge` taken before (and still
    /// accumulates into `x.grad`); otherwise it keeps its accumulator when the shape and
    /// dtype stay ([`crate::tensor::Tensor::rebound`]).
    #[pyo3(signature = (value, keep_version=false, new_accumulator=false))]
    fn _repoint_data(
        slf: &Bound<'_, Self>,
        value: &Bound<'_, PyTensor>,
        keep_version: bool,
        new_accumulator: bool,
    ) -> PyResult<()> {
        let x = slf.get().inner().take();
        let y = value.get().inner().take();
        if x.meta().requires_grad && !(y.dtype().is_float() || y.dtype().is_complex()) {
            return Err(PyRuntimeError::new_err(format!(
                "data: the tensor requires grad, so its data must be floating point or \
                 complex, got {}; convert the new data first (y.float()) or stop the \
                 gradient (x.requires_grad_(False))",
                y.dtype()
            )));
        }
        let counter = match keep_version {
            true => Some(x.version_counter()),
            false => y.own_version_counter(),
        };
        let n = x.rebound(
            y.storage().clone(),
            y.layout().clone(),
            counter,
            new_accumulator,
        );
        repoint(slf, n, None)
    }

    /// `x.data` (both peers): `x`'s values as a tensor outside autograd, sharing its
    /// memory (`p.data.mul_(0.5)` changes `p` without recording history). In PyTorch code
    /// it has a version counter of its own, as in PyTorch (writes through it are not seen
    /// by `x`'s saved-tensor checks, which is what `.data` is for); elsewhere it is
    /// `x.detach()`, sharing `x`'s counter (Paddle's `inplace_version` counts the
    /// memory's writes). The dialect check reads the caller's globals (no Python call).
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        let t = match crate::python::dialect::caller_is_torch(py)? {
            true => self.inner().with_new_version(),
            false => self.inner().detach(),
        };
        crate::python::tensor::class::wrap(py, t)
    }

    /// `x.data = y` (both peers): `x` shows `y`'s memory from now on, any shape or dtype,
    /// shared with `y`, outside autograd; `x` stays the same object with its own
    /// requires_grad, `.grad`, hooks and history (PyTorch's `set_data`). In PyTorch code
    /// `x` keeps its version counter (shared with the views of `x` taken before);
    /// elsewhere it counts with `y`'s memory, as Paddle's `inplace_version` does.
    #[setter]
    fn set_data(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let Ok(value) = value.cast::<PyTensor>() else {
            return Err(PyTypeError::new_err(format!(
                "data: expects a Tensor, got {}",
                value.get_type().name()?
            )));
        };
        let torch = crate::python::dialect::caller_is_torch(slf.py())?;
        Self::_repoint_data(slf, value, torch, false)
    }

    /// Finishes an in-place view op (`op`, e.g. `"transpose_"`) whose out-of-place result
    /// is `view`: `x` becomes that view. While grad mode records and `x` has history, the
    /// op's node is `x`'s new `grad_fn` (the transpose's node after `transpose_`); otherwise only the shape changes and the history stays. A leaf
    /// that requires grad is refused under grad mode, as any in-place op is.
    fn _become_view(slf: &Bound<'_, Self>, view: &Bound<'_, PyTensor>, op: &str) -> PyResult<()> {
        let x = slf.get().inner().take();
        let v = view.get().inner().take();
        if x.storage().is_writable() {
            // (a read-only tensor can still be reshaped: nothing is written)
            x.check_inplace(op).py()?;
        }
        let recorded = crate::autograd::is_grad_enabled() && x.grad_fn().is_some();
        // an in-place op, so `x`'s version counts it (PyTorch's rule: a value saved
        // before is stale, views made in inference mode see their base changed); the new
        // tensor itself is in step with it (its history, if any, was just recorded)
        x.bump_version();
        let in_step = |t: &crate::tensor::Tensor| {
            let mut m = t.meta();
            if m.view_base.is_some() {
                m.view_version = t.version();
            }
        };
        if !recorded {
            // the same memory: `x` keeps its counter
            let n = x.rebound(
                v.storage().clone(),
                v.layout().clone(),
                x.own_version_counter(),
                false,
            );
            in_step(&n);
            return repoint(slf, n, None);
        }
        in_step(&v);
        let retains = x.meta().retains_grad;
        if retains {
            // `retain_grad()` follows the tensor to its new version, as for `add_`
            if let Some(node) = v.grad_fn() {
                v.meta().retains_grad = true;
                let nr = v.output_nr();
                node.base().retained().push((nr, v.downgrade()));
            }
        }
        repoint(slf, v, Some(view))
    }
}
