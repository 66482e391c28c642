//! Anomaly mode (PyTorch's `torch.autograd.detect_anomaly` / `set_detect_anomaly`).
//!
//! While the mode is on, every node recorded gets metadata from a hook the bindings
//! install (the Python stack of the forward call, and the node whose backward was running
//! when it was created), and the engine checks each node's backward: a node that fails,
//! or returns NaN in an output gradient (`check_nan`), is reported by the hook (a warning
//! with the forward traceback) before the error propagates. The mode is process-wide, as
//! in PyTorch; when it is off, recording and the engine pay one atomic load each.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use num_complex::Complex64;
use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::node::NodeRef;

static ENABLED: AtomicBool = AtomicBool::new(false);
static CHECK_NAN: AtomicBool = AtomicBool::new(true);

/// A node's metadata (PyTorch's `grad_fn.metadata`), owned by the bindings.
pub type Metadata = Box<dyn Any + Send + Sync>;

/// What the bindings plug in: how to record a new node's metadata, and how to report a
/// node whose backward failed.
pub struct AnomalyHooks {
    /// Called when a node is recorded under anomaly mode, with the node whose backward is
    /// running on this thread (if any); returns the new node's metadata.
    pub capture: fn(parent: Option<&NodeRef>) -> Option<Metadata>,
    /// Called when a node's backward failed under anomaly mode (with the error about to
    /// propagate); emits the report and returns the error to raise.
    pub report: fn(node: &NodeRef, err: Error) -> Error,
}

static HOOKS: OnceLock<AnomalyHooks> = OnceLock::new();

thread_local! {
    /// The nodes whose backward runs on this thread under anomaly mode, innermost last.
    static CURRENT: RefCell<Vec<NodeRef>> = const { RefCell::new(Vec::new()) };
}

/// Installs the bindings' hooks (once; later calls are ignored).
pub fn install_hooks(hooks: AnomalyHooks) {
    let _ = HOOKS.set(hooks);
}

/// Whether anomaly mode is on.
#[inline(always)]
pub fn is_enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Whether anomaly mode checks backward results for NaN (PyTorch's `check_nan`).
pub fn is_check_nan_enabled() -> bool {
    CHECK_NAN.load(Ordering::Relaxed)
}

/// Switches the mode (process-wide, as PyTorch's `set_detect_anomaly`).
pub fn set_enabled(enabled: bool, check_nan: bool) {
    CHECK_NAN.store(check_nan, Ordering::Relaxed);
    ENABLED.store(enabled, Ordering::Relaxed);
}

/// The metadata slot of a node being recorded: empty unless the mode is on.
#[inline(always)]
pub fn initial_metadata() -> OnceLock<Metadata> {
    let slot = OnceLock::new();
    if is_enabled() {
        record(&slot);
    }
    slot
}

#[cold]
#[inline(never)]
fn record(slot: &OnceLock<Metadata>) {
    let Some(hooks) = HOOKS.get() else { return };
    let parent = CURRENT
        .try_with(|c| c.borrow().last().cloned())
        .ok()
        .flatten();
    if let Some(m) = (hooks.capture)(parent.as_ref()) {
        let _ = slot.set(m);
    }
}

/// PyTorch's class name of a node (`type(y.grad_fn).__name__`, anomaly messages):
/// built-in nodes carry an overload number (`MulBackward` → `MulBackward0`), custom layers
/// keep theirs.
pub fn display_name(node: &NodeRef) -> String {
    let name = node.name();
    if node.as_any().is_none() && name.ends_with("Backward") {
        format!("{name}0")
    } else {
        name.into_owned()
    }
}

/// Called by the engine under anomaly mode before a node's backward: nodes created until
/// [`leave`] get `node` as their parent.
#[cold]
#[inline(never)]
pub fn enter(node: &NodeRef) {
    CURRENT.with(|c| c.borrow_mut().push(node.clone()));
}

/// Called by the engine under anomaly mode with the result of a node's backward (and of
/// the validation of its outputs): a failure, or NaN in an output gradient when
/// `check_nan` is on, is reported through the hook.
#[cold]
#[inline(never)]
pub fn leave(
    node: &NodeRef,
    out: Result<Option<Vec<Option<Tensor>>>>,
) -> Result<Option<Vec<Option<Tensor>>>> {
    CURRENT.with(|c| c.borrow_mut().pop());
    let out = match out {
        Ok(Some(grads)) if is_check_nan_enabled() => match first_nan(&grads) {
            Ok(None) => Ok(Some(grads)),
            Ok(Some(i)) => Err(Error::runtime(format!(
                "Function '{}' returned nan values in its {i}th output.",
                display_name(node)
            ))),
            Err(e) => Err(e),
        },
        other => other,
    };
    match (out, HOOKS.get()) {
        (Err(e), Some(hooks)) => Err((hooks.report)(node, e)),
        (out, _) => out,
    }
}

/// Index of the first gradient holding a NaN, if any.
fn first_nan(grads: &[Option<Tensor>]) -> Result<Option<usize>> {
    for (i, g) in grads.iter().enumerate() {
        if let Some(g) = g {
            if has_nan(g)? {
                return Ok(Some(i));
            }
        }
    }
    Ok(None)
}

/// Whether `t` holds a NaN (a complex element with a NaN part counts).
pub fn has_nan(t: &Tensor) -> Result<bool> {
    let dt = t.dtype();
    if dt == DType::F64 {
        return Ok(t.to_vec::<f64>()?.iter().any(|v| v.is_nan()));
    }
    if dt == DType::F32 {
        return Ok(t.to_vec::<f32>()?.iter().any(|v| v.is_nan()));
    }
    if dt.is_float() {
        let wide = t.cast_raw(DType::F64)?;
        return Ok(wide.to_vec::<f64>()?.iter().any(|v| v.is_nan()));
    }
    if dt.is_complex() {
        let wide = t.cast_raw(DType::C128)?;
        return Ok(wide
            .to_vec::<Complex64>()?
            .iter()
            .any(|v| v.re.is_nan() || v.im.is_nan()));
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_nan_sees_every_float_dtype() {
        let t = Tensor::from_vec(vec![1.0f64, f64::NAN], &[2]).unwrap();
        assert!(has_nan(&t).unwrap());
        for dt in [DType::F32, DType::F16, DType::BF16, DType::C64, DType::C128] {
            assert!(has_nan(&t.cast_raw(dt).unwrap()).unwrap(), "{dt}");
        }
        let ok = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        assert!(!has_nan(&ok).unwrap());
        assert!(!has_nan(&ok.cast_raw(DType::I64).unwrap()).unwrap());
    }
}
