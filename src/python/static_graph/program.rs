//! `ferrograd.static` program bindings: `_Program` wraps the core [`Program`]; the
//! Python `Program`/`Block`/`Variable` classes are thin layers over it.

use crate::python::args::parse_static_shape;
use crate::python::dtype::parse_dtype;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::operand;
use crate::python::static_graph::ext_op_attrs::{parse_ext, parse_rule};
use crate::python::static_graph::op_kinds::parse_op;
use crate::python::static_graph::py_func::PyCallbacks;
use crate::python::tensor::class::PyTensor;
use crate::static_graph::{InitKind, OpKind, Program, VarKind};
use parking_lot::Mutex;
use pyo3::exceptions::PyValueError;
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::PyTraverseError;
use std::sync::Arc;

/// The Rust side of a static program (the core program behind a lock).
#[pyclass(name = "_Program", module = "ferrograd.static", frozen)]
pub struct PyProgram {
    pub(crate) inner: Mutex<Program>,
}

fn parse_kind(kind: &str) -> PyResult<VarKind> {
    Ok(match kind {
        "data" => VarKind::Data,
        "parameter" => VarKind::Parameter,
        "temp" => VarKind::Temp,
        "declared" => VarKind::Declared,
        "grad" => VarKind::Grad,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown variable kind '{kind}'"
            )))
        }
    })
}

fn kind_name(kind: VarKind) -> &'static str {
    match kind {
        VarKind::Data => "data",
        VarKind::Parameter => "parameter",
        VarKind::Temp => "temp",
        VarKind::Declared => "declared",
        VarKind::Grad => "grad",
    }
}

#[pymethods]
impl PyProgram {
    /// An empty program.
    #[new]
    fn new() -> Self {
        PyProgram {
            inner: Mutex::new(Program::new()),
        }
    }

    /// A copy with its own identity.
    fn duplicate(&self) -> Self {
        PyProgram {
            inner: Mutex::new(self.inner.lock().duplicate()),
        }
    }

    /// Process-unique id of the program.
    #[getter]
    fn id(&self) -> u64 {
        self.inner.lock().id
    }

    /// Changes with every edit (executors recompile their plan when it does).
    #[getter]
    fn version(&self) -> u64 {
        self.inner.lock().version
    }

    /// Number of variables.
    fn num_vars(&self) -> usize {
        self.inner.lock().vars.len()
    }

    /// The op names in execution order.
    fn op_types(&self) -> Vec<String> {
        self.inner
            .lock()
            .ops
            .iter()
            .map(|o| o.kind.name())
            .collect()
    }

    /// Declares a variable; returns its id.
    fn create_var(
        &self,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        kind: &str,
    ) -> PyResult<usize> {
        let (dtype, shape, kind) = (
            parse_dtype(dtype)?,
            parse_static_shape(shape)?,
            parse_kind(kind)?,
        );
        self.inner.lock().add_var(name, dtype, shape, kind).py()
    }

    /// `(name, dtype_name, shape with -1 for run-time dims, kind)` of variable `id`.
    fn var_info(&self, id: usize) -> PyResult<(String, String, Vec<i64>, &'static str)> {
        let p = self.inner.lock();
        let v = p.var(id).py()?;
        Ok((
            v.name.clone(),
            v.dtype.name().to_string(),
            v.shape.iter().map(|d| d.map_or(-1, |n| n as i64)).collect(),
            kind_name(v.kind),
        ))
    }

    /// The id of the variable called `name`, or None.
    fn find_var(&self, name: &str) -> Option<usize> {
        self.inner.lock().find_var(name)
    }

    /// Appends the op `op` over `inputs` (variable ids) with keyword attributes; shapes
    /// and dtypes are inferred now. Returns the output variable's id.
    #[pyo3(signature = (op, inputs, **attrs))]
    fn append_op(
        &self,
        op: &str,
        inputs: Vec<usize>,
        attrs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<usize> {
        let mut p = self.inner.lock();
        let kind = match parse_ext(op, attrs, &p, &inputs)? {
            Some(k) => k,
            None => parse_op(op, attrs)?,
        };
        p.append_op(kind, inputs).py()
    }

    /// Appends an op with several outputs (`split`, `unbind`); returns their ids.
    #[pyo3(signature = (op, inputs, **attrs))]
    fn append_op_multi(
        &self,
        op: &str,
        inputs: Vec<usize>,
        attrs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Vec<usize>> {
        let mut p = self.inner.lock();
        let kind = match parse_ext(op, attrs, &p, &inputs)? {
            Some(k) => k,
            None => parse_op(op, attrs)?,
        };
        p.append_op_multi(kind, inputs).py()
    }

    /// Appends an optimizer update (`rule` "sgd" or "adam" with its hyper-parameters as
    /// keywords) of `params` from `grads`, with persistable `steps`, `buffers` and `lr`.
    #[pyo3(signature = (rule, params, grads, steps, buffers, lr, **hyper))]
    fn append_optimizer_step(
        &self,
        rule: &str,
        params: Vec<usize>,
        grads: Vec<usize>,
        steps: Vec<usize>,
        buffers: Vec<usize>,
        lr: usize,
        hyper: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let rule = parse_rule(rule, hyper)?;
        self.inner
            .lock()
            .append_optimizer_step(rule, params, grads, steps, buffers, lr)
            .py()
    }

    /// Appends a constant: a Tensor, or a Python scalar typed like variable `like`
    /// (the eager rules for `tensor op scalar`).
    #[pyo3(signature = (value, like=None))]
    fn append_constant(&self, value: &Bound<'_, PyAny>, like: Option<usize>) -> PyResult<usize> {
        let t = if let Ok(t) = value.cast::<PyTensor>() {
            t.get().inner().take()
        } else {
            let dtype = match like {
                Some(id) => self.inner.lock().var(id).py()?.dtype,
                None => crate::dtype::DType::F32,
            };
            operand(value, dtype)?
        };
        self.inner.lock().append_constant(t).py()
    }

    /// Appends the startup initialisation of parameter `param`: `kind` is "constant"
    /// (a), "uniform" (a=low, b=high), "normal" (a=mean, b=std) or "value" (a Tensor).
    #[pyo3(signature = (param, kind, a=0.0, b=0.0, value=None))]
    fn append_init(
        &self,
        param: usize,
        kind: &str,
        a: f64,
        b: f64,
        value: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<()> {
        let init = match (kind, value) {
            ("constant", _) => InitKind::Constant(a),
            ("uniform", _) => InitKind::Uniform(a, b),
            ("normal", _) => InitKind::Normal(a, b),
            ("value", Some(t)) => InitKind::Value(t.get().inner().detach()),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown initializer kind '{kind}' (or 'value' without a value)"
                )))
            }
        };
        self.inner.lock().append_init(param, init).py()
    }

    /// Appends `dst = src`.
    fn append_assign(&self, src: usize, dst: usize) -> PyResult<()> {
        self.inner.lock().append_assign(src, dst).py()
    }

    /// Appends a traced op: `func(*input_tensors)` runs an eager function when the
    /// program runs, on the input values as they are, so the autograd engine records it
    /// (its gradient is the eager one); it returns one tensor per output variable
    /// (declared with `create_var`, checked like `py_func` outputs).
    fn append_traced(
        &self,
        func: Py<PyAny>,
        inputs: Vec<usize>,
        outputs: Vec<usize>,
    ) -> PyResult<()> {
        // built before taking the program lock: it calls into Python
        let callbacks = PyCallbacks::traced(func, inputs.len(), outputs.len());
        let mut p = self.inner.lock();
        p.append_py_func(Arc::new(callbacks), inputs, outputs).py()
    }

    /// Appends a `py_func` op. `skip` lists input/output variable ids left out of the
    /// backward function's arguments.
    fn append_py_func(
        &self,
        func: Py<PyAny>,
        backward_func: Option<Py<PyAny>>,
        inputs: Vec<usize>,
        outputs: Vec<usize>,
        skip: Vec<usize>,
    ) -> PyResult<()> {
        for &s in &skip {
            if !inputs.contains(&s) && !outputs.contains(&s) {
                let name = {
                    let p = self.inner.lock();
                    p.var(s)
                        .map(|v| v.name.clone())
                        .unwrap_or_else(|_| s.to_string())
                };
                return Err(PyValueError::new_err(format!(
                    "py_func: skip_vars_in_backward_input variable '{name}' is not found in the \
                     forward inputs and outputs; only inputs and outputs can be skipped"
                )));
            }
        }
        // built before taking the program lock: it calls into Python (no Rust lock is held
        // while Python runs)
        let callbacks = PyCallbacks::new(
            func,
            backward_func,
            inputs.iter().map(|i| skip.contains(i)).collect(),
            outputs.iter().map(|o| skip.contains(o)).collect(),
        );
        let mut p = self.inner.lock();
        p.append_py_func(Arc::new(callbacks), inputs, outputs).py()
    }

    /// Appends the backward section (gradients do not flow through `blocked`); returns
    /// one gradient variable id (or None) per `wrt`.
    #[pyo3(signature = (targets, wrt, target_grads=Vec::new(), blocked=Vec::new()))]
    fn append_gradients(
        &self,
        targets: Vec<usize>,
        wrt: Vec<usize>,
        target_grads: Vec<usize>,
        blocked: Vec<usize>,
    ) -> PyResult<Vec<Option<usize>>> {
        self.inner
            .lock()
            .append_gradients(targets, wrt, target_grads, blocked)
            .py()
    }

    /// A readable listing of variables and ops.
    fn describe(&self) -> String {
        self.inner.lock().describe()
    }

    /// Garbage collection: the Python objects the program holds (the `py_func`
    /// callbacks), so that a cycle through them (a callback referring to the program) is
    /// found. A program locked by another thread is skipped this time.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        let Some(p) = self.inner.try_lock() else {
            return Ok(());
        };
        for op in &p.ops {
            if let OpKind::PyFunc(f) = &*op.kind {
                if let Some(cb) = f
                    .callback
                    .as_any()
                    .and_then(|a| a.downcast_ref::<PyCallbacks>())
                {
                    cb.traverse(&visit)?;
                }
            }
        }
        Ok(())
    }

    /// Garbage collection: breaks a cycle by emptying the (unreachable) program, which
    /// drops its callbacks.
    fn __clear__(&self) {
        let old = std::mem::take(&mut *self.inner.lock());
        drop(old); // outside the lock: dropping callbacks may run Python code
    }
}
