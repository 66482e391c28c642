//! `_core.ParamGroupState`: one optimizer parameter group's parameters and their state
//! buffers, updated by one Rust call per `step()` (no Python work per parameter).

use crate::optim::{adam_step, sgd_step, AdamConfig, ParamState, SgdConfig};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// Above this many elements in a group, the update runs with the GIL released.
const DETACH_MIN_ELEMS: usize = 1 << 15;

/// The parameters of one group with their optimizer state (momentum buffers, Adam
/// moments, step counts).
#[pyclass(name = "ParamGroupState", module = "ferrograd.optim")]
pub struct PyParamGroupState {
    pub(super) params: Vec<ParamState>,
}

impl PyParamGroupState {
    fn slot(&self, i: usize) -> PyResult<&ParamState> {
        self.params.get(i).ok_or_else(|| {
            PyIndexError::new_err(format!(
                "parameter index {i} out of range for a group of {} parameters",
                self.params.len()
            ))
        })
    }

    /// Follows parameters whose Python tensor was re-pointed (`p.data = q` of another
    /// shape or dtype) to the core tensor they stand for now. State kept for the old
    /// shape or dtype is refused rather than applied to data it does not fit.
    pub(super) fn refresh(&mut self) -> PyResult<()> {
        for (i, ps) in self.params.iter_mut().enumerate() {
            let Some(now) = ps.param.replacement() else {
                continue;
            };
            if let Some(b) = ps.buffers.first() {
                if b.shape() != now.shape() || b.dtype() != now.dtype() {
                    return Err(PyValueError::new_err(format!(
                        "parameter {i} of this optimizer was given new data of shape {:?} and                          dtype {} (`p.data = ...`), but its optimizer state is for shape {:?}                          and dtype {}; make a new optimizer for the new parameters",
                        now.shape(),
                        now.dtype(),
                        b.shape(),
                        b.dtype()
                    )));
                }
            }
            ps.param = now;
        }
        Ok(())
    }

    pub(super) fn total_elems(&self) -> usize {
        self.params.iter().map(|p| p.param.numel()).sum()
    }
}

#[pymethods]
impl PyParamGroupState {
    /// Holds `params` (a sequence of Tensors) with empty state.
    #[new]
    fn new(params: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut out = Vec::new();
        for (i, p) in params.try_iter()?.enumerate() {
            let p = p?;
            let t = p.cast::<PyTensor>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "optimizer parameters must be Tensors, but item {i} is {}",
                    p.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            out.push(ParamState {
                param: t.get().inner().take(),
                buffers: Vec::new(),
                step: 0,
            });
        }
        Ok(PyParamGroupState { params: out })
    }

    /// Number of parameters.
    fn __len__(&self) -> usize {
        self.params.len()
    }

    /// One SGD step over every parameter that has a gradient; returns how many.
    #[pyo3(signature = (lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=false,
                        maximize=false))]
    fn sgd_step(
        &mut self,
        py: Python<'_>,
        lr: f64,
        momentum: f64,
        dampening: f64,
        weight_decay: f64,
        nesterov: bool,
        maximize: bool,
    ) -> PyResult<usize> {
        let cfg = SgdConfig {
            lr,
            momentum,
            dampening,
            weight_decay,
            nesterov,
            maximize,
        };
        self.refresh()?;
        let params = &mut self.params;
        if params.iter().map(|p| p.param.numel()).sum::<usize>() >= DETACH_MIN_ELEMS {
            py.detach(|| sgd_step(params, &cfg)).py()
        } else {
            sgd_step(params, &cfg).py()
        }
    }

    /// One Adam (or AdamW with `decoupled=True`) step; returns how many were updated.
    #[pyo3(signature = (lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                        decoupled=false, amsgrad=false, maximize=false))]
    fn adam_step(
        &mut self,
        py: Python<'_>,
        lr: f64,
        beta1: f64,
        beta2: f64,
        eps: f64,
        weight_decay: f64,
        decoupled: bool,
        amsgrad: bool,
        maximize: bool,
    ) -> PyResult<usize> {
        let cfg = AdamConfig {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            decoupled,
            amsgrad,
            maximize,
        };
        self.refresh()?;
        let big = self.total_elems() >= DETACH_MIN_ELEMS;
        let params = &mut self.params;
        if big {
            py.detach(|| adam_step(params, &cfg)).py()
        } else {
            adam_step(params, &cfg).py()
        }
    }

    /// The indices of the parameters whose `.grad` is a sparse gradient (the Rust steps
    /// refuse those; optimizers that take them update them on the Python side).
    fn sparse_grads(&mut self) -> PyResult<Vec<usize>> {
        self.refresh()?;
        Ok((self.params.iter().enumerate())
            .filter(|(_, p)| p.param.has_ext_grad())
            .map(|(i, _)| i)
            .collect())
    }

    /// Drops every parameter's gradient (`set_to_none`), or zeros it in place (a sparse
    /// gradient keeps its shape and loses its entries, as PyTorch's `zero_()`).
    #[pyo3(signature = (set_to_none=true))]
    fn zero_grad(&mut self, py: Python<'_>, set_to_none: bool) -> PyResult<()> {
        self.refresh()?;
        let _guard = crate::autograd::no_grad();
        for ps in &self.params {
            if ps.param.has_ext_grad() {
                if set_to_none {
                    ps.param.set_grad(None).py()?;
                } else {
                    crate::python::tensor::sparse_grad::zero_ext_grad(py, &ps.param)?;
                }
                continue;
            }
            match ps.param.grad() {
                Some(g) if !set_to_none => g.fill_(0.0).py()?,
                Some(_) => ps.param.set_grad(None).py()?,
                None => {}
            }
        }
        Ok(())
    }

    /// The parameters (the same tensors, new Python handles).
    fn params(&mut self, py: Python<'_>) -> PyResult<Vec<Py<PyTensor>>> {
        self.refresh()?;
        self.params
            .iter()
            .map(|p| wrap(py, p.param.clone()))
            .collect()
    }

    /// The state buffers of parameter `i` (shared, not copied).
    fn buffers(&self, py: Python<'_>, i: usize) -> PyResult<Vec<Py<PyTensor>>> {
        self.slot(i)?
            .buffers
            .iter()
            .map(|b| wrap(py, b.clone()))
            .collect()
    }

    /// Steps taken so far by parameter `i`.
    fn step_count(&self, i: usize) -> PyResult<u64> {
        Ok(self.slot(i)?.step)
    }

    /// Replaces parameter `i`'s state: its buffers (copied, as contiguous tensors of the
    /// parameter's dtype) and its step count.
    fn set_state(
        &mut self,
        i: usize,
        buffers: Vec<PyRef<'_, PyTensor>>,
        step: u64,
    ) -> PyResult<()> {
        self.refresh()?;
        let n = self.params.len();
        let slot = self.params.get_mut(i).ok_or_else(|| {
            PyIndexError::new_err(format!(
                "parameter index {i} out of range for a group of {n} parameters"
            ))
        })?;
        let mut out = Vec::with_capacity(buffers.len());
        for (k, b) in buffers.iter().enumerate() {
            let b = &b.inner();
            if b.shape() != slot.param.shape() {
                return Err(PyValueError::new_err(format!(
                    "optimizer state buffer {k} for a parameter of shape {:?} has shape {:?}",
                    slot.param.shape(),
                    b.shape()
                )));
            }
            out.push(
                b.cast_raw(slot.param.dtype())
                    .py()?
                    .contiguous_copy()
                    .py()?,
            );
        }
        slot.buffers = out;
        slot.step = step;
        Ok(())
    }
}
