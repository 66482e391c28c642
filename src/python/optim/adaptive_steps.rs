//! `ParamGroupState`'s RMSprop, Adagrad, Adadelta and Adamax steps (one Rust call per
//! group, the GIL released for large groups).

use crate::error::Result;
use crate::optim::{
    adadelta_step, adagrad_step, adamax_step, rmsprop_step, AdadeltaConfig, AdagradConfig,
    AdamaxConfig, ParamState, RmspropConfig,
};
use crate::python::errors::IntoPy;
use crate::python::optim::param_group::PyParamGroupState;
use pyo3::prelude::*;

/// Above this many elements in a group, the update runs with the GIL released.
const DETACH_MIN_ELEMS: usize = 1 << 15;

impl PyParamGroupState {
    /// Runs `f` over the group's parameters, without the GIL when the group is large.
    fn run(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut [ParamState]) -> Result<usize> + Send,
    ) -> PyResult<usize> {
        self.refresh()?;
        let big = self.total_elems() >= DETACH_MIN_ELEMS;
        let params = &mut self.params;
        if big {
            py.detach(|| f(params)).py()
        } else {
            f(params).py()
        }
    }
}

#[pymethods]
impl PyParamGroupState {
    /// One RMSprop step (Paddle's eps and rate placement with `paddle=True`); returns
    /// how many parameters were updated.
    #[pyo3(signature = (lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                        centered=false, maximize=false, paddle=false))]
    #[allow(clippy::too_many_arguments)]
    fn rmsprop_step(
        &mut self,
        py: Python<'_>,
        lr: f64,
        alpha: f64,
        eps: f64,
        weight_decay: f64,
        momentum: f64,
        centered: bool,
        maximize: bool,
        paddle: bool,
    ) -> PyResult<usize> {
        let cfg = RmspropConfig {
            lr,
            alpha,
            eps,
            weight_decay,
            momentum,
            centered,
            maximize,
            paddle,
        };
        self.run(py, |p| rmsprop_step(p, &cfg))
    }

    /// One Adagrad step; new `sum` buffers start at `initial_accumulator_value`.
    #[pyo3(signature = (lr, lr_decay=0.0, weight_decay=0.0, eps=1e-10,
                        initial_accumulator_value=0.0, maximize=false))]
    fn adagrad_step(
        &mut self,
        py: Python<'_>,
        lr: f64,
        lr_decay: f64,
        weight_decay: f64,
        eps: f64,
        initial_accumulator_value: f64,
        maximize: bool,
    ) -> PyResult<usize> {
        let cfg = AdagradConfig {
            lr,
            lr_decay,
            weight_decay,
            eps,
            maximize,
        };
        self.run(py, |p| adagrad_step(p, &cfg, initial_accumulator_value))
    }

    /// One Adadelta step.
    #[pyo3(signature = (lr, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=false))]
    fn adadelta_step(
        &mut self,
        py: Python<'_>,
        lr: f64,
        rho: f64,
        eps: f64,
        weight_decay: f64,
        maximize: bool,
    ) -> PyResult<usize> {
        let cfg = AdadeltaConfig {
            lr,
            rho,
            eps,
            weight_decay,
            maximize,
        };
        self.run(py, |p| adadelta_step(p, &cfg))
    }

    /// One Adamax step (Paddle's eps placement with `paddle=True`).
    #[pyo3(signature = (lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                        maximize=false, paddle=false))]
    #[allow(clippy::too_many_arguments)]
    fn adamax_step(
        &mut self,
        py: Python<'_>,
        lr: f64,
        beta1: f64,
        beta2: f64,
        eps: f64,
        weight_decay: f64,
        maximize: bool,
        paddle: bool,
    ) -> PyResult<usize> {
        let cfg = AdamaxConfig {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            maximize,
            paddle,
        };
        self.run(py, |p| adamax_step(p, &cfg))
    }
}
