//! Python views of graph nodes (`grad_fn`), hook handles, and Python gradient hooks.

use crate::autograd::node::{Edge, GradHook, NodeRef};
use crate::error::Error;
use crate::python::errors::{from_pyerr, IntoPy};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType, PyWeakrefMethods, PyWeakrefReference};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A node of the backward graph, as seen from Python (`tensor.grad_fn`). Each node is
/// an instance of a subclass named after it (`type(y.grad_fn).__name__ == "MulBackward0"`,
/// as in PyTorch), created on first use and cached: see [`node_object`].
#[pyclass(
    name = "Node",
    module = "ferrograd.autograd",
    frozen,
    subclass,
    weakref
)]
pub struct PyNode {
    pub(crate) node: NodeRef,
}

/// The Python subclass of `Node` for each node name, created once.
static NODE_TYPES: PyOnceLock<Mutex<HashMap<String, Py<PyType>>>> = PyOnceLock::new();

/// PyTorch's class name for a node (`MulBackward` → `MulBackward0`; a custom layer's node
/// keeps its name): the one rule, [`crate::autograd::anomaly::display_name`].
fn type_name(node: &NodeRef) -> String {
    crate::autograd::anomaly::display_name(node)
}

/// Paddle's name for a node, as Paddle's `grad_fn.name()` gives it: `<Op>GradNode` from
/// the op's name (`AddBackward` → `AddGradNode`), with Paddle's op names where ferrograd's
/// differ (`MulBackward` → `MultiplyGradNode`, `PermuteBackward` → `TransposeGradNode`,
/// slicing → `SliceGradNode`, ...), and `GradNodePyLayer_<Class>` for a custom layer.
fn paddle_node_name(node: &NodeRef) -> String {
    let name = node.name();
    let custom = node
        .as_any()
        .is_some_and(|a| a.is::<crate::python::pylayer::apply::PyLayerNode>());
    let op = name
        .strip_suffix("Backward0")
        .or_else(|| name.strip_suffix("Backward"))
        .unwrap_or(&name);
    if custom {
        return format!("GradNodePyLayer_{op}");
    }
    if paddle_scalar_operand(node).is_some() {
        // Paddle's ops with a Python number: `x * 2`, `x + 1`, `x - 1` scale; `x / 2`
        match op {
            "Add" | "Sub" | "Mul" => return "ScaleGradNode".into(),
            "Div" => return "DivScaleGradNode".into(),
            _ => {}
        }
    }
    let op = match op {
        "Mul" => "Multiply",
        "Sub" => "Subtract",
        "Div" => "Divide",
        "FloorDiv" => "FloorDivide",
        "Permute" => "Transpose",
        "Index" | "Select" => "Slice",
        "Cat" => "Concat",
        "Neg" => "Scale",
        "Clone" => "Assign",
        "SplitWithSizes" => "Split",
        "Linear" => "Add",
        other => other,
    };
    format!("{op}GradNode")
}

/// For Paddle's view of a built-in two-input node: the input that was (as far as the
/// graph can tell) a Python number, `x ** 2`'s exponent or `x * 2`'s factor: a 0-d input
/// that needs no gradient, beside an input that is not 0-d or needs one. Paddle's ops with
/// a number have one input (`PowGradNode`, `ScaleGradNode`), so `next_functions` leaves it
/// out. (A 0-d tensor that does not require grad in that place looks the same and is left
/// out too; ferrograd records both alike.)
fn paddle_scalar_operand(node: &NodeRef) -> Option<usize> {
    if node.as_any().is_some() {
        return None;
    }
    let base = node.base();
    if base.edges.len() != 2 || base.inputs.len() != 2 {
        return None;
    }
    let scalar = |i: usize| matches!(base.edges[i], Edge::None) && base.inputs[i].shape.is_empty();
    match (scalar(0), scalar(1)) {
        (false, true) => Some(1),
        (true, false) => Some(0),
        _ => None,
    }
}

/// The live Python object of each node that has one, weakly (node address -> weak
/// reference), so that `y.grad_fn is y.grad_fn` as in PyTorch. An entry whose object
/// died is replaced on the next lookup and swept when the table doubles.
struct NodeObjects {
    by_node: HashMap<usize, Py<PyWeakrefReference>>,
    sweep_at: usize,
}

static NODE_OBJECTS: PyOnceLock<Mutex<NodeObjects>> = PyOnceLock::new();

fn node_objects(py: Python<'_>) -> &Mutex<NodeObjects> {
    NODE_OBJECTS.get_or_init(py, || {
        Mutex::new(NodeObjects {
            by_node: HashMap::new(),
            sweep_at: 64,
        })
    })
}

/// The Python object for `node`: the one already alive for it, or a new instance of its
/// named `Node` subclass. Only `grad_fn`/`next_functions` reads pay for this (dict
/// lookups); recording ops does not.
pub fn node_object(py: Python<'_>, node: NodeRef) -> PyResult<Py<PyAny>> {
    let key = node.id();
    let known = node_objects(py)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .by_node
        .get(&key)
        .map(|w| w.clone_ref(py));
    if let Some(obj) = known.and_then(|w| w.bind(py).upgrade()) {
        // alive, so it still holds this node (an address is reused only once freed)
        return Ok(obj.unbind());
    }
    let obj = new_node_object(py, node)?;
    let weak = PyWeakrefReference::new(obj.bind(py))?.unbind();
    let mut table = node_objects(py).lock().unwrap_or_else(|e| e.into_inner());
    if table.by_node.len() >= table.sweep_at {
        table.by_node.retain(|_, w| w.bind(py).upgrade().is_some());
        table.sweep_at = (2 * table.by_node.len()).max(64);
    }
    table.by_node.insert(key, weak);
    Ok(obj)
}

/// A new Python object for `node` (see [`node_object`]).
fn new_node_object(py: Python<'_>, node: NodeRef) -> PyResult<Py<PyAny>> {
    let name = type_name(&node);
    let types = NODE_TYPES.get_or_init(py, || Mutex::new(HashMap::new()));
    let cached = types
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&name)
        .map(|t| t.clone_ref(py));
    let ty = match cached {
        Some(t) => t,
        None => {
            // created outside the lock: `type(...)` runs Python code
            let base = py.get_type::<PyNode>();
            let ns = PyDict::new(py);
            ns.set_item("__slots__", PyTuple::empty(py))?;
            ns.set_item("__module__", "ferrograd.autograd")?;
            let t = py
                .import("builtins")?
                .getattr("type")?
                .call1((name.as_str(), (base,), ns))?
                .cast_into::<PyType>()
                .map_err(PyErr::from)?
                .unbind();
            types
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(name)
                .or_insert(t)
                .clone_ref(py)
        }
    };
    let plain = Py::new(py, PyNode { node })?;
    ty.call1(py, (plain,))
}

#[pymethods]
impl PyNode {
    /// Rewraps another node object (used to build the named subclasses' instances).
    #[new]
    fn py_new(other: PyRef<'_, PyNode>) -> PyNode {
        PyNode {
            node: other.node.clone(),
        }
    }

    /// The node's name, as its class name: e.g. `MulBackward0`, `MyLayerBackward`; called
    /// from Paddle code, Paddle's name for the node (`MultiplyGradNode`,
    /// `GradNodePyLayer_MyLayer`: see [`paddle_node_name`]).
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        if crate::python::dialect::caller_is_paddle(py)? {
            return Ok(paddle_node_name(&self.node));
        }
        Ok(type_name(&self.node))
    }

    /// `((node_or_None, input_nr), ...)`, one per forward input (leaves show as
    /// `AccumulateGrad`); called from Paddle code, Paddle's form: a list of the nodes
    /// alone (`[node_or_None, ...]`), without a Python-number operand
    /// ([`paddle_scalar_operand`]).
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if crate::python::dialect::caller_is_paddle(py)? {
            let skip = paddle_scalar_operand(&self.node);
            let nodes = self
                .node
                .base()
                .edges
                .iter()
                .enumerate()
                .filter(|(i, _)| Some(*i) != skip)
                .map(|(_, e)| -> PyResult<Bound<'py, PyAny>> {
                    Ok(match e {
                        Edge::None => py.None().into_bound(py),
                        Edge::Node { node, .. } => node_object(py, node.clone())?.into_bound(py),
                        Edge::Leaf(t) => Bound::new(
                            py,
                            PyAccumulateGrad {
                                variable: t.clone(),
                            },
                        )?
                        .into_any(),
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(PyList::new(py, nodes)?.into_any());
        }
        let items: Vec<Bound<'py, PyAny>> = self
            .node
            .base()
            .edges
            .iter()
            .map(|e| -> PyResult<Bound<'py, PyAny>> {
                Ok(match e {
                    Edge::None => (py.None(), 0usize).into_pyobject(py)?.into_any(),
                    Edge::Node { node, input_nr } => (node_object(py, node.clone())?, *input_nr)
                        .into_pyobject(py)?
                        .into_any(),
                    Edge::Leaf(t) => (
                        Py::new(
                            py,
                            PyAccumulateGrad {
                                variable: t.clone(),
                            },
                        )?,
                        0usize,
                    )
                        .into_pyobject(py)?
                        .into_any(),
                })
            })
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, items)?.into_any())
    }

    fn __repr__(&self) -> String {
        format!("<{} object>", type_name(&self.node))
    }

    /// `node(*grad_outputs)`: runs the node's backward formula on one gradient per
    /// output of its forward op (None where there is none) and returns its input
    /// gradients: the gradient itself for a node with one input, else a tuple (PyTorch's
    /// `Node.__call__`). No hooks run and the saved tensors stay.
    #[pyo3(signature = (*grad_outputs))]
    fn __call__(&self, py: Python<'_>, grad_outputs: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let want = self.node.num_outputs();
        if grad_outputs.len() != want {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{}: expected {want} arguments, got {} instead (one gradient per output of \
                 the forward op, None where there is none)",
                type_name(&self.node),
                grad_outputs.len()
            )));
        }
        let mut grads = Vec::with_capacity(want);
        for (i, g) in grad_outputs.iter().enumerate() {
            if g.is_none() {
                grads.push(None);
                continue;
            }
            let t = g.cast::<PyTensor>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "{}: argument {i} must be a Tensor or None, got {}",
                    type_name(&self.node),
                    g.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            grads.push(Some(t.get().inner().take()));
        }
        let node = self.node.clone();
        let out = if node.as_any().is_none() && grads.iter().all(Option::is_none) {
            vec![None; node.base().edges.len()]
        } else {
            py.detach(move || node.apply(grads)).py()?
        };
        let mut objs = Vec::with_capacity(out.len());
        for g in out {
            objs.push(match g {
                Some(t) => wrap(py, t)?.into_any(),
                None => py.None(),
            });
        }
        if objs.len() == 1 {
            return Ok(objs.pop().unwrap_or_else(|| py.None()));
        }
        Ok(PyTuple::new(py, objs)?.into_any().unbind())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNode>()
            .map(|o| o.get().node.id() == self.node.id())
            .unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        self.node.id() as u64
    }
}

/// The sink a leaf's gradient flows into (appears in `next_functions`).
#[pyclass(name = "AccumulateGrad", module = "ferrograd.autograd", frozen)]
pub struct PyAccumulateGrad {
    pub(crate) variable: Tensor,
}

#[pymethods]
impl PyAccumulateGrad {
    /// `"AccumulateGrad"`; called from Paddle code, Paddle's `"GradNodeAccumulation"`.
    fn name(&self, py: Python<'_>) -> PyResult<&'static str> {
        Ok(if crate::python::dialect::caller_is_paddle(py)? {
            "GradNodeAccumulation"
        } else {
            "AccumulateGrad"
        })
    }
    /// The leaf tensor: the very Python object the caller holds, while it is alive.
    #[getter]
    fn variable(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        crate::python::tensor::identity::wrap_shared(py, self.variable.current())
    }
    /// No further nodes: `()`; called from Paddle code, Paddle's `[None]`.
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if crate::python::dialect::caller_is_paddle(py)? {
            return Ok(PyList::new(py, [py.None()])?.into_any());
        }
        Ok(PyTuple::empty(py).into_any())
    }
    fn __repr__(&self) -> &'static str {
        "<AccumulateGrad object>"
    }
    /// Two `AccumulateGrad` objects of one accumulator are equal (the leaf has one such
    /// node, kept by `x.data = y` of the same shape and dtype, new after `x.set_(y)`: its
    /// [`Tensor::leaf_key`]).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyAccumulateGrad>()
            .map(|o| o.get().variable.leaf_key() == self.variable.leaf_key())
            .unwrap_or(false)
    }
    fn __hash__(&self) -> u64 {
        self.variable.leaf_key() as u64
    }
}

enum HookSite {
    Node(NodeRef),
    /// A hook on the node itself (`grad_fn.register_hook` / `register_prehook`).
    NodeHooks(NodeRef),
    Leaf(Tensor),
    PostAccumulate(Tensor),
    /// A hook on a leaf's `AccumulateGrad` node.
    AccumulateGrad(Tensor),
}

/// Returned by `register_hook`; `remove()` unregisters the hook.
#[pyclass(name = "RemovableHandle", module = "ferrograd.autograd", frozen)]
pub struct PyHookHandle {
    site: HookSite,
    id: u64,
}

impl PyHookHandle {
    /// A handle for a hook on a node's output.
    pub fn on_node(node: NodeRef, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::Node(node),
            id,
        }
    }
    /// A handle for a hook on a node itself (pre- or post-hook).
    pub fn on_node_hooks(node: NodeRef, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::NodeHooks(node),
            id,
        }
    }
    /// A handle for a post-accumulate-grad hook on a leaf.
    pub fn on_post_accumulate(t: Tensor, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::PostAccumulate(t),
            id,
        }
    }
    /// A handle for a hook on a leaf's `AccumulateGrad` node.
    pub fn on_accumulate_grad(t: Tensor, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::AccumulateGrad(t),
            id,
        }
    }
    /// A handle for a hook on a leaf.
    pub fn on_leaf(t: Tensor, id: u64) -> Self {
        PyHookHandle {
            site: HookSite::Leaf(t),
            id,
        }
    }
}

#[pymethods]
impl PyHookHandle {
    /// Unregisters the hook. Returns True when it was registered, False when it was
    /// already removed (Paddle's return value; PyTorch ignores it).
    fn remove(&self) -> bool {
        match &self.site {
            HookSite::Node(n) => {
                let mut hooks = n.base().pre_hooks();
                let before = hooks.len();
                hooks.retain(|(_, id, _)| *id != self.id);
                hooks.len() != before
            }
            HookSite::NodeHooks(n) => {
                let mut slot = n.base().node_hooks();
                let Some(h) = slot.as_mut() else { return false };
                let before = h.pre.len() + h.post.len();
                h.pre.retain(|(id, _)| *id != self.id);
                h.post.retain(|(id, _)| *id != self.id);
                before != h.pre.len() + h.post.len()
            }
            HookSite::Leaf(t) => {
                // the tensor's Python object may stand for another core tensor by now
                let t = t.current();
                let mut meta = t.meta();
                let before = meta.hooks.len();
                meta.hooks.retain(|(id, _)| *id != self.id);
                meta.hooks.len() != before
            }
            HookSite::PostAccumulate(t) => t.current().remove_post_accumulate_grad_hook(self.id),
            HookSite::AccumulateGrad(t) => {
                let t = t.current();
                let mut meta = t.meta();
                let Some(h) = meta.acc_hooks.as_mut() else {
                    return false;
                };
                let before = h.pre.len() + h.post.len();
                h.pre.retain(|(id, _)| *id != self.id);
                h.post.retain(|(id, _)| *id != self.id);
                before != h.pre.len() + h.post.len()
            }
        }
    }
}

/// Wraps a Python callable as a gradient hook run by the engine: it takes the GIL for
/// the call only; its exception comes out of `backward()` unchanged. A missing gradient
/// (an output its node did not reach) is passed as `None`, as in PyTorch.
pub fn python_grad_hook(f: Py<PyAny>) -> GradHook {
    Arc::new(move |g: Option<&Tensor>| {
        Python::attach(|py| {
            let arg = match g {
                Some(g) => wrap(py, g.clone()).map_err(from_pyerr)?.into_any(),
                None => py.None(),
            };
            let r = f.call1(py, (arg,)).map_err(from_pyerr)?;
            let r = r.bind(py);
            if r.is_none() {
                return Ok(None);
            }
            match r.cast::<PyTensor>() {
                Ok(t) => Ok(Some(t.get().inner().take())),
                Err(_) => Err(Error::type_err(format!(
                    "a tensor hook must return a Tensor or None, but returned {}",
                    r.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))),
            }
        })
    })
}
