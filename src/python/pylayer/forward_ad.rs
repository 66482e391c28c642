//! Forward-mode AD through custom layers: while `autograd.forward_ad.unpack_dual`'s
//! first reverse pass runs, a custom layer's node calls the Python hook
//! (`ferrograd.autograd._fwd_function._node_backward`: a `Function`'s transposed `jvp`)
//! instead of its `backward`; outside the pass the node pays one relaxed load.

use crate::python::pylayer::vcall::call_positional;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Greater than 0 while `autograd.forward_ad.unpack_dual`'s first reverse pass runs
/// (`ferrograd.autograd._fwd_function.unpack_pass`): custom layers' nodes then answer
/// through [`FORWARD_AD_HOOK`] (a `Function`'s transposed `jvp`) instead of calling
/// `backward`. Outside the pass a node pays one relaxed load.
pub(crate) static FORWARD_AD_PASS: AtomicUsize = AtomicUsize::new(0);

/// `_fwd_function._node_backward(cls, backward, *grads_with_ctx)`, set once by that module.
static FORWARD_AD_HOOK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Calls the forward-mode hook for a node of `cls` (its arguments: the class, the
/// original `backward`, then `backward`'s own arguments: ctx and the gradients).
pub(crate) fn forward_ad_backward<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyAny>,
    backward: &Bound<'py, PyAny>,
    call_args: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyAny>> {
    let Some(hook) = FORWARD_AD_HOOK.get(py) else {
        return call_positional(py, backward, call_args);
    };
    let mut args: Vec<Bound<'py, PyAny>> = Vec::with_capacity(call_args.len() + 2);
    args.push(cls.clone());
    args.push(backward.clone());
    args.extend(call_args.iter().cloned());
    call_positional(py, hook.bind(py), &args)
}

/// Enters (`True`) or leaves (`False`) forward-mode AD's reverse pass (see
/// [`FORWARD_AD_PASS`]); the first call also installs `hook`.
#[pyfunction]
pub fn _forward_ad_pass(py: Python<'_>, entering: bool, hook: Bound<'_, PyAny>) -> PyResult<()> {
    let _ = FORWARD_AD_HOOK.get_or_init(py, || hook.unbind());
    if entering {
        FORWARD_AD_PASS.fetch_add(1, Ordering::Relaxed);
    } else {
        let _ = FORWARD_AD_PASS
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
    Ok(())
}
