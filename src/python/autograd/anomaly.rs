//! The Python side of anomaly mode (see [`crate::autograd::anomaly`]): the switches,
//! `grad_fn.metadata`, the hooks that record a node's forward traceback and report a
//! failing node as PyTorch does, and PyTorch's `set_warn_always` with the one warning
//! that uses it here (`backward(create_graph=True)`).

use crate::autograd::anomaly::{self, display_name, AnomalyHooks, Metadata};
use crate::autograd::node::NodeRef;
use crate::error::Error;
use crate::python::autograd::node::{node_object, PyNode};
use pyo3::exceptions::{PyRuntimeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};

/// PyTorch's key for the forward traceback in `grad_fn.metadata`.
const TRACEBACK_KEY: &str = "traceback_";
/// PyTorch's key for the node whose backward created this node.
const PARENT_KEY: &str = "parent_";
const NO_INFO: &str = "No forward pass information available. Enable detect anomaly during \
                       forward pass for more information.";

/// Installs the hooks the core calls under anomaly mode (at module init).
pub fn install() {
    anomaly::install_hooks(AnomalyHooks { capture, report });
}

/// Switches anomaly mode (`torch.autograd.set_detect_anomaly`'s core).
#[pyfunction]
pub fn _set_anomaly_enabled(enabled: bool, check_nan: bool) {
    anomaly::set_enabled(enabled, check_nan);
}

/// Whether anomaly mode is on.
#[pyfunction]
pub fn _is_anomaly_enabled() -> bool {
    anomaly::is_enabled()
}

/// Whether anomaly mode checks backward results for NaN.
#[pyfunction]
pub fn _is_anomaly_check_nan_enabled() -> bool {
    anomaly::is_check_nan_enabled()
}

#[pymethods]
impl PyNode {
    /// PyTorch's `grad_fn.metadata`: a dict per node, empty unless anomaly mode recorded
    /// the forward traceback (`"traceback_"`) and the creating node (`"parent_"`).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        metadata_dict(py, &self.node)
    }
}

/// The node's metadata dict, created empty on first use.
fn metadata_dict(py: Python<'_>, node: &NodeRef) -> PyResult<Py<PyDict>> {
    let slot = &node.base().metadata;
    let m = slot.get_or_init(|| Box::new(PyDict::new(py).unbind()) as Metadata);
    m.downcast_ref::<Py<PyDict>>()
        .map(|d| d.clone_ref(py))
        .ok_or_else(|| PyRuntimeError::new_err("grad_fn.metadata: not a dict"))
}

/// Under anomaly mode, a new node's metadata: the Python stack of the call that records
/// it and the node whose backward is running (when recorded during a backward).
fn capture(parent: Option<&NodeRef>) -> Option<Metadata> {
    Python::attach(|py| {
        let dict = PyDict::new(py);
        // a failure to capture leaves the dict without a traceback (reported as such)
        if let Ok(stack) = py
            .import("traceback")
            .and_then(|m| m.call_method0("format_stack"))
        {
            let _ = dict.set_item(TRACEBACK_KEY, stack);
        }
        if let Some(p) = parent {
            if let Ok(obj) = node_object(py, p.clone()) {
                let _ = dict.set_item(PARENT_KEY, obj);
            }
        }
        Some(Box::new(dict.unbind()) as Metadata)
    })
}

/// The recorded traceback of `dict` as one string, if it has one.
fn traceback_text(dict: &Bound<'_, PyDict>) -> Option<String> {
    let tb = dict.get_item(TRACEBACK_KEY).ok()??;
    let list = tb.cast::<PyList>().ok()?;
    let mut s = String::new();
    for line in list.iter() {
        s.push_str(&line.extract::<String>().ok()?);
    }
    Some(s)
}

/// The metadata dict of `node`, if anything was recorded or read.
fn existing_dict<'py>(py: Python<'py>, node: &NodeRef) -> Option<Bound<'py, PyDict>> {
    let m = node.base().metadata.get()?;
    Some(m.downcast_ref::<Py<PyDict>>()?.bind(py).clone())
}

/// Reports a node whose backward failed under anomaly mode, as PyTorch does: a warning
/// with its forward traceback, then one per ancestor that created it. A warning the
/// filters turn into an error is printed to `sys.stderr` instead (the backward error
/// is the one raised).
fn report(node: &NodeRef, err: Error) -> Error {
    Python::attach(|py| {
        let name = display_name(node);
        let dict = existing_dict(py, node);
        let first = match dict.as_ref().and_then(traceback_text) {
            Some(tb) => format!(
                "Error detected in {name}. Traceback of forward call that caused the error:\n{tb}"
            ),
            None => format!("Error detected in {name}. {NO_INFO}"),
        };
        warn_or_print(py, &first);
        let mut parent = dict.and_then(|d| d.get_item(PARENT_KEY).ok().flatten());
        // bounded walk: a parent chain is acyclic, but never loop on a broken one
        for _ in 0..10_000 {
            let Some(p) = parent.take() else { break };
            let Ok(pnode) = p.cast::<PyNode>() else { break };
            let pnode = pnode.get().node.clone();
            let pname = display_name(&pnode);
            let pdict = existing_dict(py, &pnode);
            let msg = match pdict.as_ref().and_then(traceback_text) {
                Some(tb) => format!(
                    "\n\nPrevious calculation was induced by {pname}. Traceback of forward call \
                     that induced the previous calculation:\n{tb}"
                ),
                None => format!("\n\nPrevious calculation was induced by {pname}. {NO_INFO}"),
            };
            warn_or_print(py, &msg);
            parent = pdict.and_then(|d| d.get_item(PARENT_KEY).ok().flatten());
        }
    });
    err
}

/// Emits a `UserWarning`; if the filters make it an exception, prints that to stderr.
fn warn_or_print(py: Python<'_>, msg: &str) {
    let text = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    if let Err(e) = PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1) {
        e.display(py);
    }
}

static WARN_ALWAYS: AtomicBool = AtomicBool::new(false);
static CREATE_GRAPH_WARNED: AtomicBool = AtomicBool::new(false);

/// PyTorch's `torch.set_warn_always`: warnings meant to be issued once are issued every
/// time.
#[pyfunction]
pub fn _set_warn_always(enabled: bool) {
    WARN_ALWAYS.store(enabled, Ordering::Relaxed);
}

/// PyTorch's `torch.is_warn_always_enabled`.
#[pyfunction]
pub fn _is_warn_always_enabled() -> bool {
    WARN_ALWAYS.load(Ordering::Relaxed)
}

/// PyTorch's warning on `backward(create_graph=True)` (once per process, or every time
/// under `set_warn_always(True)`).
pub fn warn_backward_create_graph(py: Python<'_>) -> PyResult<()> {
    if !WARN_ALWAYS.load(Ordering::Relaxed) && CREATE_GRAPH_WARNED.swap(true, Ordering::Relaxed) {
        return Ok(());
    }
    PyErr::warn(
        py,
        &py.get_type::<PyUserWarning>(),
        c"Using backward() with create_graph=True will create a reference cycle between the \
          parameter and its gradient which can cause a memory leak. We recommend using \
          autograd.grad when creating the graph to avoid this. If you have to use this \
          function, make sure to reset the .grad fields of your parameters to None after use \
          to break the cycle and avoid the leak.",
        1,
    )
}
