//! `py_func` callbacks: the Python forward/backward functions behind the core's
//! [`PyFuncCallback`] trait, and the eager (dynamic mode) `py_func`.

use crate::error::{Error, Result};
use crate::python::args::parse_static_shape;
use crate::python::dtype::parse_dtype;
use crate::python::errors::{from_pyerr, IntoPy};
use crate::python::interop::convert::{numpy_to_tensor, to_tensor};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::static_graph::{OutSpec, PyFuncCallback, PyFuncOp};
use crate::tensor::Tensor;
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::Arc;

/// The Python functions of one `py_func`, with which inputs/outputs the backward
/// function skips.
pub struct PyCallbacks {
    func: Py<PyAny>,
    backward: Option<Py<PyAny>>,
    skip_inputs: Vec<bool>,
    skip_outputs: Vec<bool>,
    name: String,
    /// The forward function is an eager function run on the inputs themselves (see
    /// [`PyFuncCallback::traced`]): tensors are passed and returned without detaching.
    traced: bool,
}

impl PyCallbacks {
    /// Callbacks for `func` / `backward` skipping the flagged inputs and outputs.
    pub fn new(
        func: Py<PyAny>,
        backward: Option<Py<PyAny>>,
        skip_inputs: Vec<bool>,
        skip_outputs: Vec<bool>,
    ) -> Self {
        let name = Python::attach(|py| {
            func.bind(py)
                .getattr("__name__")
                .and_then(|n| n.extract::<String>())
                .unwrap_or_else(|_| "<callable>".to_string())
        });
        PyCallbacks {
            func,
            backward,
            skip_inputs,
            skip_outputs,
            name,
            traced: false,
        }
    }

    /// The callbacks of a traced op: `func` runs an eager function on the inputs as
    /// they are, so the autograd engine records it (no backward function).
    pub fn traced(func: Py<PyAny>, n_inputs: usize, n_outputs: usize) -> Self {
        let mut cb = PyCallbacks::new(func, None, vec![false; n_inputs], vec![false; n_outputs]);
        cb.traced = true;
        cb
    }
}

/// What a callback returned, as a list of objects (Paddle's rule: a tuple or list is
/// several values, anything else one value, None with nothing expected is nothing).
fn results<'py>(r: &Bound<'py, PyAny>, expected: usize) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(t) = r.cast::<PyTuple>() {
        return Ok(t.iter().collect());
    }
    if let Ok(l) = r.cast::<PyList>() {
        return Ok(l.iter().collect());
    }
    if r.is_none() && expected == 0 {
        return Ok(Vec::new());
    }
    Ok(vec![r.clone()])
}

/// A value returned by a callback as a Tensor (NumPy arrays, tensors, scalars, lists);
/// a tensor keeps its autograd history when `keep_graph` (traced callbacks).
fn as_tensor(obj: &Bound<'_, PyAny>, keep_graph: bool) -> PyResult<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.get().inner();
        return Ok(if keep_graph { t.clone() } else { t.detach() });
    }
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return numpy_to_tensor(a, false);
    }
    if obj.hasattr("__array__")? {
        let arr = obj.call_method0("__array__")?;
        if let Ok(a) = arr.cast::<PyUntypedArray>() {
            return numpy_to_tensor(a, false);
        }
    }
    to_tensor(obj, None)
}

fn wrap_all<'py>(py: Python<'py>, ts: &[Tensor], skip: &[bool]) -> PyResult<Vec<Py<PyAny>>> {
    ts.iter()
        .zip(skip.iter().chain(std::iter::repeat(&false)))
        .filter(|(_, &s)| !s)
        .map(|(t, _)| wrap(py, t.detach()).map(|w| w.into_any()))
        .collect()
}

/// The inputs of a traced callback, as they are (their autograd history is the
/// gradient path).
fn wrap_traced(py: Python<'_>, ts: &[Tensor]) -> PyResult<Vec<Py<PyAny>>> {
    ts.iter()
        .map(|t| wrap(py, t.clone()).map(|w| w.into_any()))
        .collect()
}

impl PyCallbacks {
    /// Shows the garbage collector the Python functions held.
    pub fn traverse(
        &self,
        visit: &pyo3::gc::PyVisit<'_>,
    ) -> std::result::Result<(), pyo3::PyTraverseError> {
        visit.call(&self.func)?;
        visit.call(&self.backward)
    }
}

impl PyFuncCallback for PyCallbacks {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn has_backward(&self) -> bool {
        self.backward.is_some()
    }

    fn traced(&self) -> bool {
        self.traced
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Python::attach(|py| {
            let wrapped = if self.traced {
                wrap_traced(py, inputs)
            } else {
                wrap_all(py, inputs, &[])
            };
            let args = PyTuple::new(py, wrapped.map_err(from_pyerr)?).map_err(from_pyerr)?;
            let r = self.func.call1(py, args).map_err(from_pyerr)?;
            let r = r.bind(py);
            let items = results(r, self.skip_outputs.len()).map_err(from_pyerr)?;
            items
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    as_tensor(o, self.traced).map_err(|e| {
                        Error::type_err(format!(
                            "py_func '{}': forward output {k} cannot be converted to a tensor: {}",
                            self.name,
                            e.value(py)
                        ))
                    })
                })
                .collect()
        })
    }

    fn backward(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        grads: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        let Some(bwd) = &self.backward else {
            return Ok(vec![None; inputs.len()]);
        };
        Python::attach(|py| {
            let mut args = wrap_all(py, inputs, &self.skip_inputs).map_err(from_pyerr)?;
            args.extend(wrap_all(py, outputs, &self.skip_outputs).map_err(from_pyerr)?);
            for g in grads {
                args.push(match g {
                    Some(g) => wrap(py, g.detach()).map_err(from_pyerr)?.into_any(),
                    None => py.None(),
                });
            }
            let args = PyTuple::new(py, args).map_err(from_pyerr)?;
            let r = bwd.call1(py, args).map_err(from_pyerr)?;
            let r = r.bind(py);
            if r.is_none() && inputs.len() > 1 {
                return Err(Error::value(format!(
                    "py_func '{}': the backward function returned None, but the op has {} \
                     inputs; return one gradient (or None) per input",
                    self.name,
                    inputs.len()
                )));
            }
            let items = if r.is_none() {
                vec![r.clone()]
            } else {
                results(r, inputs.len()).map_err(from_pyerr)?
            };
            items
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    if o.is_none() {
                        return Ok(None);
                    }
                    as_tensor(o, false).map(Some).map_err(|e| {
                        Error::type_err(format!(
                            "py_func '{}': gradient {k} returned by the backward function cannot \
                             be converted to a tensor: {}",
                            self.name,
                            e.value(py)
                        ))
                    })
                })
                .collect()
        })
    }
}

/// Dynamic-mode `py_func`: runs `func` on `inputs` now, checks the results against
/// `out_specs` (`(name, dtype, shape)` of the `out` tensors) and records one node like a
/// PyLayer when `backward_func` is given and an input requires grad.
#[pyfunction]
#[pyo3(signature = (func, backward_func, inputs, out_specs, skip_inputs, skip_outputs))]
pub fn _py_func_eager(
    py: Python<'_>,
    func: Py<PyAny>,
    backward_func: Option<Py<PyAny>>,
    inputs: Vec<Bound<'_, PyTensor>>,
    out_specs: Vec<(String, Bound<'_, PyAny>, Bound<'_, PyAny>)>,
    skip_inputs: Vec<bool>,
    skip_outputs: Vec<bool>,
) -> PyResult<Vec<Py<PyTensor>>> {
    let outputs = out_specs
        .iter()
        .map(|(name, dtype, shape)| {
            Ok(OutSpec {
                name: name.clone(),
                dtype: parse_dtype(dtype)?,
                shape: parse_static_shape(shape)?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let op = PyFuncOp {
        callback: Arc::new(PyCallbacks::new(
            func,
            backward_func,
            skip_inputs,
            skip_outputs,
        )),
        outputs,
    };
    let ts: Vec<Tensor> = inputs.iter().map(|t| t.get().inner().take()).collect();
    let outs = op.apply(&ts).py()?;
    outs.into_iter().map(|t| wrap(py, t)).collect()
}
