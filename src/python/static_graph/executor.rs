//! `ferrograd.static` execution bindings: the scope holding parameter values and the
//! executor that runs a program in Rust (the GIL is released while it runs and taken
//! back only for `py_func` callbacks).

use crate::python::errors::IntoPy;
use crate::python::interop::convert::{numpy_to_tensor, tensor_to_numpy, to_tensor};
use crate::python::static_graph::program::PyProgram;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::static_graph::{Executor, Scope};
use crate::tensor::Tensor;
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::Arc;

/// Named parameter values shared by the programs run in it.
#[pyclass(name = "_Scope", module = "ferrograd.static", frozen)]
pub struct PyScope {
    pub(crate) inner: Arc<Scope>,
}

#[pymethods]
impl PyScope {
    /// An empty scope.
    #[new]
    fn new() -> Self {
        PyScope {
            inner: Arc::new(Scope::new()),
        }
    }
    /// The value called `name` (a Tensor sharing its storage), or None.
    fn get(&self, py: Python<'_>, name: &str) -> PyResult<Option<Py<PyTensor>>> {
        self.inner.get(name).map(|t| wrap(py, t)).transpose()
    }
    /// Sets `name` to `value` (array-like or Tensor; copied).
    fn set(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = match value.cast::<PyTensor>() {
            Ok(t) => t.get().inner().clone_tensor().py()?,
            Err(_) => to_tensor(value, None)?,
        };
        self.inner.set(name, t);
        Ok(())
    }
    /// Names of the values held.
    fn names(&self) -> Vec<String> {
        self.inner.names()
    }
    /// Removes every value.
    fn clear(&self) {
        self.inner.clear()
    }
}

/// Runs programs; caches one compiled plan per (program, version, fetch list).
#[pyclass(name = "_Executor", module = "ferrograd.static", frozen)]
pub struct PyExecutor {
    inner: Executor,
}

#[pymethods]
impl PyExecutor {
    /// An executor with an empty plan cache.
    #[new]
    fn new() -> Self {
        PyExecutor {
            inner: Executor::new(),
        }
    }

    /// Number of cached plans.
    fn cached_plans(&self) -> usize {
        self.inner.cached_plans()
    }

    /// `(steps, fused_steps)` of the plan for `program` and `fetch` (ids): how many steps
    /// a run takes, and how many of them are fused chains of ops.
    fn plan_summary(
        &self,
        program: &Bound<'_, PyProgram>,
        fetch: Vec<usize>,
    ) -> PyResult<(usize, usize)> {
        let p = program.get().inner.lock();
        let plan = self.inner.plan(&p, &fetch).py()?;
        Ok((plan.num_steps(), plan.num_fused_steps()))
    }

    /// Runs `program` with `feed` ({data name: array-like or Tensor}) in `scope` and
    /// returns the variables `fetch` (ids) as NumPy arrays, or Tensors if not
    /// `return_numpy`.
    #[pyo3(signature = (program, feed, fetch, scope, return_numpy=true))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        program: &Bound<'py, PyProgram>,
        feed: Option<&Bound<'py, PyDict>>,
        fetch: Vec<usize>,
        scope: &Bound<'py, PyScope>,
        return_numpy: bool,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let plan = {
            let p = program.get().inner.lock();
            self.inner.plan(&p, &fetch).py()?
        };
        let mut feeds: HashMap<String, Tensor> = HashMap::new();
        // The ops of a program never write into their inputs, so NumPy feeds are read in
        // place (as from_numpy does) unless a py_func could see, modify or keep them.
        let share = !plan.calls_user_code();
        if let Some(feed) = feed {
            for (k, v) in feed.iter() {
                let name: String = k.extract()?;
                let t = if let Ok(t) = v.cast::<PyTensor>() {
                    t.get().inner().detach()
                } else if let (true, Ok(arr)) = (share, v.cast::<PyUntypedArray>()) {
                    // dtypes or strides that cannot be shared are copied
                    numpy_to_tensor(arr, true).or_else(|_| to_tensor(&v, None))?
                } else {
                    to_tensor(&v, None)?
                };
                feeds.insert(name, t);
            }
        }
        let scope = scope.get().inner.clone();
        let outs = py.detach(|| plan.run(&feeds, &scope)).py()?;
        outs.iter()
            .map(|t| {
                if return_numpy {
                    tensor_to_numpy(py, t)
                } else {
                    wrap(py, t.clone()).map(|w| w.into_bound(py).into_any())
                }
            })
            .collect()
    }
}
