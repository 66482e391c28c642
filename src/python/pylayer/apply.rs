//! Custom differentiable layers written in Python (`PyLayer` / `autograd.Function`).
//!
//! `apply` runs here, in Rust: it finds the tensor inputs, decides whether a graph is
//! needed, runs `forward` under no-grad, attaches the outputs to one [`PyLayerNode`], and
//! re-binds tensors saved during forward that turned out to be outputs so no reference
//! cycle forms. The engine calls the node with the GIL released; the node takes the GIL
//! for exactly the call of the user's `backward`.

use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::node::{InputMeta, Node, NodeBase, NodeRef};
use crate::error::{Error, Result};
use crate::python::errors::{from_pyerr, to_pyerr};
use crate::python::pylayer::ctx::{new_ctx, torch_flags, PyCtx, SavedSlot, SETUP_CONTEXT};
use crate::python::pylayer::ctx_attrs::weaken_output_attributes;
use crate::python::pylayer::dirty::{check_dirty, marked_not_inplace};
use crate::python::pylayer::forward_ad::{forward_ad_backward, FORWARD_AD_PASS};
use crate::python::pylayer::vcall::call_positional;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// The graph node of one application of a custom layer.
pub struct PyLayerNode {
    base: NodeBase,
    name: Arc<str>,
    pub(crate) ctx: Py<PyCtx>,
    backward: Py<PyAny>,
    /// The layer's class, for forward-mode AD's pass (`FORWARD_AD_PASS`), where the
    /// class's `jvp` answers instead of `backward`.
    cls: Py<PyAny>,
    torch_dialect: bool,
    /// Per forward output: `Some(k)` for the k-th tensor output, `None` for other values.
    /// The node's output slots (a tensor's `output_nr`) are PyTorch's in PyTorch code, one
    /// per forward output, so hooks and `backward` see a gradient slot (None) for every
    /// non-tensor output too; Paddle's, one per tensor output (index `k`), otherwise.
    output_kinds: SmallVec<[Option<usize>; 2]>,
    out_metas: SmallVec<[InputMeta; 1]>,
    /// Number of forward arguments (positional, then keyword values).
    n_args: usize,
    /// Which forward arguments are the tensor inputs (the node's edges, in order).
    tensor_arg_pos: SmallVec<[usize; 2]>,
}

impl Node for PyLayerNode {
    fn name(&self) -> Cow<'static, str> {
        Cow::Owned(self.name.to_string())
    }
    fn base(&self) -> &NodeBase {
        &self.base
    }
    fn num_outputs(&self) -> usize {
        if self.torch_dialect {
            self.output_kinds.len()
        } else {
            self.out_metas.len()
        }
    }
    fn output_meta(&self, i: usize) -> Option<InputMeta> {
        if self.torch_dialect {
            let k = (*self.output_kinds.get(i)?)?;
            self.out_metas.get(k).cloned()
        } else {
            self.out_metas.get(i).cloned()
        }
    }
    fn casts_incoming_grads(&self) -> bool {
        !self.ctx.get().state.lock().keep_grad_dtype
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        Python::attach(|py| self.call_backward(py, grads))
    }
    fn release_saved(&self) {
        Python::attach(|py| self.release_saved_attached(py))
    }
    fn apply_then_release(
        &self,
        grads: Vec<Option<Tensor>>,
        release: bool,
    ) -> Result<Vec<Option<Tensor>>> {
        Python::attach(|py| {
            let out = self.call_backward(py, grads)?;
            if release {
                self.release_saved_attached(py);
            }
            Ok(out)
        })
    }
}

/// When the graph lets go of the node (its outputs were deleted, or the graph was freed),
/// what forward saved goes too, even if user code stashed the `ctx`: reading
/// `ctx.saved_tensors` then raises the "freed" error, as in PyTorch, and a stashed `ctx`
/// cannot keep the saved tensors alive. (`ctx` is frozen: no GIL needed for its lock;
/// Python objects in the slots are released by PyO3 when the GIL is next held.)
impl Drop for PyLayerNode {
    fn drop(&mut self) {
        let ctx = self.ctx.get();
        // try_lock: never wait on a lock held further up this thread's stack
        let taken = match ctx.state.try_lock() {
            Some(mut st) if !st.released => {
                st.released = true;
                for s in &st.saved {
                    if let SavedSlot::Tensor { saved, .. } = s {
                        saved.release();
                    }
                }
                std::mem::take(&mut st.saved)
            }
            _ => return,
        };
        drop(taken);
    }
}

impl PyLayerNode {
    /// Frees what forward saved (the GIL is held: dropping slots drops Python objects).
    fn release_saved_attached(&self, py: Python<'_>) {
        let ctx = self.ctx.bind(py).get();
        let taken = {
            let mut st = ctx.state.lock();
            st.released = true;
            for s in &st.saved {
                if let SavedSlot::Tensor { saved, .. } = s {
                    saved.release();
                }
            }
            std::mem::take(&mut st.saved)
        };
        drop(taken);
    }

    fn call_backward(
        &self,
        py: Python<'_>,
        mut grads: Vec<Option<Tensor>>,
    ) -> Result<Vec<Option<Tensor>>> {
        let ctx = self.ctx.bind(py);
        let materialize = ctx.get().state.lock().materialize_grads;
        // (each output's gradient is handed over once: taken, not cloned; `slot`: the
        // node's output slot, `k`: the tensor output's index)
        let mut grad_obj = |slot: usize, k: usize| -> Result<Py<PyAny>> {
            match grads.get_mut(slot).and_then(Option::take) {
                Some(g) => wrap(py, g).map(|t| t.into_any()).map_err(from_pyerr),
                None if materialize => {
                    let m = &self.out_metas[k];
                    let z = crate::tensor::zeros(&m.shape, m.dtype)?;
                    wrap(py, z).map(|t| t.into_any()).map_err(from_pyerr)
                }
                None => Ok(py.None()),
            }
        };
        // (inline: a layer has few outputs, so no heap vector per call; passed to
        // `backward` as a vector, no argument tuple)
        let mut call_args: SmallVec<[Bound<'_, PyAny>; 4]> = SmallVec::new();
        call_args.push(ctx.clone().into_any());
        if self.torch_dialect {
            for (slot, kind) in self.output_kinds.iter().enumerate() {
                call_args.push(match kind {
                    Some(k) => grad_obj(slot, *k)?.into_bound(py),
                    // (a hook's value for a non-tensor slot is dropped)
                    None => py.None().into_bound(py),
                });
            }
        } else {
            for k in 0..self.out_metas.len() {
                call_args.push(grad_obj(k, k)?.into_bound(py));
            }
        }
        let result = if FORWARD_AD_PASS.load(Ordering::Relaxed) > 0 {
            forward_ad_backward(py, self.cls.bind(py), self.backward.bind(py), &call_args)
        } else {
            call_positional(py, self.backward.bind(py), &call_args)
        }
        .map_err(from_pyerr)?;
        drop(call_args);
        self.map_results(py, &result)
    }

    /// Maps what backward returned onto the tensor inputs: one per tensor input, or one
    /// per forward argument (non-tensor positions must be None); extra trailing `None`s
    /// are ignored.
    fn map_results(
        &self,
        _py: Python<'_>,
        result: &Bound<'_, PyAny>,
    ) -> Result<Vec<Option<Tensor>>> {
        let items: SmallVec<[Bound<'_, PyAny>; 4]> =
            if result.is_instance_of::<PyTuple>() || result.is_instance_of::<PyList>() {
                result
                    .try_iter()
                    .map_err(from_pyerr)?
                    .collect::<PyResult<_>>()
                    .map_err(from_pyerr)?
            } else {
                smallvec::smallvec![result.clone()]
            };
        let n_t = self.tensor_arg_pos.len();
        let n_args = self.n_args;
        let mut r = items.len();
        // drop trailing Nones beyond what any convention expects
        while r > n_t.max(n_args) && items[r - 1].is_none() {
            r -= 1;
        }
        let picked: SmallVec<[&Bound<'_, PyAny>; 4]> = if r == n_t {
            items[..r].iter().collect()
        } else if r == n_args {
            for (i, it) in items[..r].iter().enumerate() {
                if !self.tensor_arg_pos.contains(&i) && !it.is_none() {
                    return Err(Error::runtime(format!(
                        "{} returned a gradient different from None at position {i}, but forward \
                         argument {i} is not a Tensor",
                        self.name
                    )));
                }
            }
            self.tensor_arg_pos.iter().map(|&p| &items[p]).collect()
        } else {
            return Err(Error::usage(format!(
                "{} returned an incorrect number of gradients (expected {n_t}{}, got {})",
                self.name,
                if n_args != n_t {
                    format!(" — one per Tensor input — or {n_args}, one per argument")
                } else {
                    String::new()
                },
                items.len()
            )));
        };
        picked
            .into_iter()
            .enumerate()
            .map(|(i, it)| {
                if it.is_none() {
                    return Ok(None);
                }
                match it.cast::<PyTensor>() {
                    Ok(t) => Ok(Some(t.get().inner_gil(t.py()).take())),
                    Err(_) => {
                        Err(crate::python::autograd::dropin::grad_type_error(format!(
                        "{}: backward must return Tensors or None, but returned {} at position {i}",
                        self.name,
                        it.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                    )))
                    }
                }
            })
            .collect()
    }
}

/// Makes each ctx without an eager instance `__dict__` (see `lazy_dict.rs`).
pub(crate) static CTX_ALLOC: crate::python::lazy_dict::LazyDictAlloc =
    crate::python::lazy_dict::LazyDictAlloc::new();

static ORDER_ARGS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// The layer's class name, for error messages.
fn class_name(cls: &Bound<'_, PyAny>) -> String {
    cls.getattr(pyo3::intern!(cls.py(), "__name__"))
        .and_then(|n| n.extract())
        .unwrap_or_else(|_| "PyLayer".into())
}

/// The node name, `ClassBackward`: set once per class by `PyLayer.__init_subclass__`
/// (`_fg_node_name`), so `apply` does not format it on every call; one shared copy per
/// apply serves the node and its ctx.
fn node_name(cls: &Bound<'_, PyAny>) -> PyResult<Arc<str>> {
    match cls.getattr(pyo3::intern!(cls.py(), "_fg_node_name")) {
        Ok(n) => {
            let n = n.cast_into::<pyo3::types::PyString>()?;
            // the last name converted, kept with its (immutable) string object: the same
            // object again (the same layer applied again) reuses the copy; a held
            // reference keeps the object's address from being reused by another string
            let mut last = LAST_NODE_NAME.lock();
            if let Some((obj, name)) = &*last {
                if obj.as_ptr() == n.as_ptr() {
                    return Ok(name.clone());
                }
            }
            let name: Arc<str> = Arc::from(&*n.to_cow()?);
            *last = Some((n.unbind(), name.clone()));
            Ok(name)
        }
        Err(_) => Ok(Arc::from(format!("{}Backward", class_name(cls)))),
    }
}

static LAST_NODE_NAME: parking_lot::Mutex<Option<(Py<pyo3::types::PyString>, Arc<str>)>> =
    parking_lot::Mutex::new(None);

enum Container {
    Single,
    Tuple,
    List,
}

/// `cls.apply(*args, **kwargs)`: `args` are the positional arguments (see `entry.rs` for
/// the Python entry points).
pub(crate) fn apply<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyAny>,
    torch_dialect: bool,
    args: &[Bound<'py, PyAny>],
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let name = node_name(cls)?;
    // torch's `forward(*args)` + `setup_context(ctx, inputs, output)` style
    let flags = if torch_dialect { torch_flags(cls) } else { 0 };
    let setup_style = flags & SETUP_CONTEXT != 0;
    // forward arguments in forward's parameter order (tensors passed by keyword are inputs;
    // binding to the signature keeps `apply(y=b, x=a)` from swapping gradients)
    // (the per-call lists below are inline vectors: a layer has few arguments and outputs,
    // and each heap vector cost an allocation and a free per apply)
    let all_args: SmallVec<[Bound<'_, PyAny>; 4]> = match kwargs {
        Some(kw) if !kw.is_empty() => {
            let helper = ORDER_ARGS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
                Ok(py
                    .import("ferrograd.autograd.py_layer")?
                    .getattr("_ordered_arguments")?
                    .unbind())
            })?;
            let ordered =
                helper
                    .bind(py)
                    .call1((cls, PyTuple::new(py, args)?, kw, !setup_style))?;
            ordered.try_iter()?.collect::<PyResult<_>>()?
        }
        _ => args.iter().cloned().collect(),
    };
    // one pass over the arguments: tensor positions, inputs, needs_input_grad
    let grad_on = crate::autograd::is_grad_enabled();
    let mut tensor_arg_pos: SmallVec<[usize; 2]> = SmallVec::new();
    let mut inputs: SmallVec<[Tensor; 2]> = SmallVec::new();
    let mut nig: SmallVec<[bool; 4]> = SmallVec::new();
    for (i, a) in all_args.iter().enumerate() {
        if let Ok(t) = a.cast::<PyTensor>() {
            let t = t.get().inner_gil(py).take();
            tensor_arg_pos.push(i);
            nig.push(grad_on && t.requires_grad());
            inputs.push(t);
        } else {
            nig.push(false);
        }
    }
    let needs = nig.contains(&true);
    let ctx = CTX_ALLOC
        .create(py, new_ctx(name.clone(), needs, nig, flags), |v| {
            Py::new(py, v)
        })?
        .into_bound(py);
    let forward = cls.getattr(pyo3::intern!(cls.py(), "forward"))?;
    let out = {
        let _no_grad = GradModeGuard::new(false);
        if setup_style {
            let args = PyTuple::new(py, args)?;
            forward.call(&args, kwargs).and_then(|o| {
                cls.getattr(pyo3::intern!(cls.py(), "setup_context"))?
                    .call1((ctx.clone(), args, o.clone()))?;
                Ok(o)
            })
        } else {
            let mut fargs: SmallVec<[Bound<'_, PyAny>; 4]> = SmallVec::new();
            fargs.push(ctx.clone().into_any());
            fargs.extend(args.iter().cloned());
            match kwargs {
                Some(kw) if !kw.is_empty() => forward.call(PyTuple::new(py, fargs)?, Some(kw)),
                _ => call_positional(py, &forward, &fargs),
            }
        }
    };
    // (what forward marked is read under the same lock: nothing after it runs forward)
    let (non_diff, dirty) = {
        let mut st = ctx.get().state.lock();
        st.in_forward = false;
        (st.non_differentiable.clone(), st.dirty.clone())
    };
    let out = out?;

    let (container, mut items): (Container, SmallVec<[Bound<'_, PyAny>; 2]>) =
        if let Ok(t) = out.cast::<PyTuple>() {
            (Container::Tuple, t.iter().collect())
        } else if let Ok(l) = out.cast::<PyList>() {
            (Container::List, l.iter().collect())
        } else {
            (Container::Single, smallvec::smallvec![out.clone()])
        };
    let output_kinds: SmallVec<[Option<usize>; 2]> = {
        let mut k = 0;
        items
            .iter()
            .map(|it| {
                it.cast::<PyTensor>().is_ok().then(|| {
                    k += 1;
                    k - 1
                })
            })
            .collect()
    };
    let n_tensor_out = output_kinds.iter().flatten().count();
    if !torch_dialect && n_tensor_out == 0 {
        return Err(PyValueError::new_err(format!(
            "{}: at least one output of PyLayer.forward must be a Tensor",
            class_name(cls)
        )));
    }
    if !needs || n_tensor_out == 0 {
        if torch_dialect && grad_on {
            mark_untracked_views(&items, &inputs);
        }
        return Ok(out.unbind());
    }

    let out_tensors: SmallVec<[Tensor; 2]> = items
        .iter()
        .filter_map(|it| {
            it.cast::<PyTensor>()
                .ok()
                .map(|t| t.get().inner_gil(py).take())
        })
        .collect();
    let out_metas: SmallVec<[InputMeta; 1]> = out_tensors
        .iter()
        .map(|t| InputMeta {
            shape: t.shape_vec(),
            dtype: t.dtype(),
        })
        .collect();
    let edges = inputs.iter().map(|t| t.gradient_edge()).collect();
    let metas = inputs
        .iter()
        .map(|t| InputMeta {
            shape: t.shape_vec(),
            dtype: t.dtype(),
        })
        .collect();
    let backward = cls.getattr(pyo3::intern!(cls.py(), "backward"))?.unbind();
    let node: Arc<PyLayerNode> = Arc::new(PyLayerNode {
        base: NodeBase::new(edges, metas),
        name: name.clone(),
        ctx: ctx.clone().unbind(),
        backward,
        cls: cls.clone().unbind(),
        torch_dialect,
        output_kinds: output_kinds.clone(),
        out_metas,
        n_args: all_args.len(),
        tensor_arg_pos,
    });
    let weak: Weak<dyn Node> = {
        let w: Weak<PyLayerNode> = Arc::downgrade(&node);
        w
    };
    let node_ref = NodeRef::new(node);

    if !dirty.is_empty() {
        let torch_multi = torch_dialect && items.len() > 1;
        check_dirty(py, &dirty, &inputs, &out_tensors, &non_diff, torch_multi)?;
    }
    let mut bound_outputs: SmallVec<[(Tensor, usize); 2]> = SmallVec::new();
    // forward's own objects, to spot one tensor returned twice
    let originals: Vec<Bound<'_, PyAny>> = if items.len() > 1 {
        items.to_vec()
    } else {
        Vec::new()
    };
    for (pos, kind) in output_kinds.iter().enumerate() {
        let Some(k) = *kind else { continue };
        // the output's slot on the node
        let slot = if torch_dialect { pos } else { k };
        // the same tensor object returned again comes back as the same object (PyTorch);
        // its later output slots get no gradient of their own
        if let Some(q) = (0..pos).find(|&q| originals[q].is(&originals[pos])) {
            // (pos > 0 here, so `originals` was filled)
            items[pos] = items[q].clone();
            continue;
        }
        let t = out_tensors[k].clone();
        // An integer / bool output: PyTorch's Function marks it non-differentiable;
        // Paddle's PyLayer keeps it differentiable (stop_gradient=False), so a later cast
        // to float carries a gradient back through the layer (Paddle's test_pylayer_dtype).
        let int_out = !t.dtype().is_differentiable();
        if non_diff.iter().any(|x| x.same(&t)) || (int_out && torch_dialect) {
            // not differentiable: never requires grad (an input returned as is is detached)
            if t.requires_grad() {
                items[pos] = wrap(py, t.detach())?.into_bound(py).into_any();
            }
            continue;
        }
        let is_input = inputs.iter().any(|x| x.same(&t));
        // Paddle's PyLayer treats an input returned as is (the very object it was given)
        // as modified in place (unless `ctx.mark_not_inplace` names it), as `mark_dirty`
        // does in PyTorch
        let implicit_inplace = is_input
            && !torch_dialect
            && all_args.iter().any(|a| a.is(&items[pos]))
            && !dirty.iter().any(|x| x.same(&t))
            && !marked_not_inplace(&ctx, &t);
        if implicit_inplace && t.is_leaf() {
            return Err(PyValueError::new_err(format!(
                "{}: PyLayer.forward returned its input, a leaf tensor, as an output. Paddle \
                 treats that as an in-place change, and a leaf that doesn't stop gradient \
                 can't use inplace strategy (its values must not change under autograd). \
                 Return a copy (x.clone()), or call ctx.mark_not_inplace(x) in forward",
                class_name(cls)
            )));
        }
        if is_input && (implicit_inplace || dirty.iter().any(|x| x.same(&t))) {
            if t.is_leaf() && t.requires_grad() {
                return Err(PyRuntimeError::new_err(format!(
                    "{}: forward modified a leaf tensor that requires grad in place \
                     (mark_dirty); a leaf's values must not change under autograd. Clone it \
                     first, or modify it under no_grad() outside the layer",
                    class_name(cls)
                )));
            }
            // a view modified in place: its base's history is rebased too (CopySlices)
            let out = t.view_with(t.layout().clone());
            out.set_grad_fn(node_ref.clone(), slot);
            // (a view's new history runs through its base's CopySlices to the node: a save
            // of it must hold the node weakly too, or node -> ctx -> save -> view -> node)
            if !t.write_view_history("mark_dirty", &out).map_err(to_pyerr)? {
                t.bump_version();
                t.set_grad_fn(node_ref.clone(), slot);
            }
            rebind_saved(py, &ctx, &t, &weak, slot);
            bound_outputs.push((t, slot));
        } else if is_input || t.grad_fn().is_some() || t.requires_grad() {
            // an input (or a tensor with history of its own) returned as is: a new tensor
            // over the same memory, produced by this layer, so its gradient reaches backward
            let nt = t.view_with(t.layout().clone());
            nt.set_grad_fn(node_ref.clone(), slot);
            items[pos] = wrap(py, nt)?.into_bound(py).into_any();
        } else {
            t.set_grad_fn(node_ref.clone(), slot);
            rebind_saved(py, &ctx, &t, &weak, slot);
            bound_outputs.push((t, slot));
        }
    }
    weaken_output_attributes(&ctx, &bound_outputs, &weak)?;
    Ok(match container {
        Container::Single => items.remove(0).unbind(),
        Container::Tuple => PyTuple::new(py, items)?.into_any().unbind(),
        Container::List => PyList::new(py, items)?.into_any().unbind(),
    })
}

/// PyTorch's `Function` with no input requiring grad: a view among the outputs (not an
/// input returned as is) is marked, so a later write into it that requires grad is
/// refused (`Tensor::check_untracked_view_write`).
fn mark_untracked_views(items: &[Bound<'_, PyAny>], inputs: &[Tensor]) {
    for it in items {
        if let Ok(t) = it.cast::<PyTensor>() {
            let t = t.get().inner().take();
            if !inputs.iter().any(|i| i.same(&t)) {
                let mut m = t.meta();
                if m.view_base.is_some() {
                    m.view_custom_fn = true;
                }
            }
        }
    }
}

/// A saved tensor that is output `k` keeps only a weak link to the node, and the ctx
/// drops its Python object (which now leads back to the node).
fn rebind_saved(
    _py: Python<'_>,
    ctx: &Bound<'_, PyCtx>,
    t: &Tensor,
    weak: &Weak<dyn Node>,
    k: usize,
) {
    let mut st = ctx.get().state.lock();
    for slot in st.saved.iter_mut() {
        if let SavedSlot::Tensor { saved, original } = slot {
            // (an output made over NumPy memory was saved as a copy: matched by source)
            if saved.saved_from(t) {
                saved.rebind_as_output(weak, k);
                *original = None;
            }
        }
    }
}
