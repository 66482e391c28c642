//! Tensor-level steps of RMSprop, Adagrad, Adadelta and Adamax over a parameter group,
//! through the shared driver [`step_with`].

use super::adadelta::{AdadeltaConfig, AdadeltaUpdate};
use super::adagrad::{AdagradConfig, AdagradUpdate};
use super::adamax::{AdamaxConfig, AdamaxUpdate};
use super::rmsprop::{RmspropConfig, RmspropUpdate};
use super::step::{step_with, ParamState};
use crate::error::Result;

/// One RMSprop step over every parameter with a gradient; returns how many were updated.
pub fn rmsprop_step(params: &mut [ParamState], cfg: &RmspropConfig) -> Result<usize> {
    step_with(params, cfg.buffers(), &[], "RMSprop", |_| RmspropUpdate {
        cfg: *cfg,
    })
}

/// One Adagrad step; the `sum` buffer starts at `initial_accumulator_value`.
pub fn adagrad_step(
    params: &mut [ParamState],
    cfg: &AdagradConfig,
    initial_accumulator_value: f64,
) -> Result<usize> {
    step_with(params, 1, &[initial_accumulator_value], "Adagrad", |step| {
        AdagradUpdate { cfg: *cfg, step }
    })
}

/// One Adadelta step over every parameter with a gradient.
pub fn adadelta_step(params: &mut [ParamState], cfg: &AdadeltaConfig) -> Result<usize> {
    step_with(params, 2, &[], "Adadelta", |_| AdadeltaUpdate { cfg: *cfg })
}

/// One Adamax step over every parameter with a gradient.
pub fn adamax_step(params: &mut [ParamState], cfg: &AdamaxConfig) -> Result<usize> {
    step_with(params, 2, &[], "Adamax", |step| AdamaxUpdate {
        cfg: *cfg,
        step,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;

    #[test]
    fn adagrad_initial_sum_and_skipped_parameters() {
        let p = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        p.set_requires_grad(true).unwrap();
        p.set_grad(Some(Tensor::from_vec(vec![1.0f64, -1.0], &[2]).unwrap()))
            .unwrap();
        let lone = Tensor::from_vec(vec![3.0f64], &[1]).unwrap();
        let mut ps: Vec<ParamState> = [p.clone(), lone]
            .into_iter()
            .map(|param| ParamState {
                param,
                buffers: vec![],
                step: 0,
            })
            .collect();
        let cfg = AdagradConfig {
            lr: 1.0,
            eps: 0.0,
            ..Default::default()
        };
        assert_eq!(adagrad_step(&mut ps, &cfg, 3.0).unwrap(), 1);
        // sum = 3 + 1 = 4: each coordinate moves by g / 2
        assert_eq!(p.to_vec::<f64>().unwrap(), vec![0.5, 2.5]);
        assert_eq!(ps[0].buffers[0].to_vec::<f64>().unwrap(), vec![4.0, 4.0]);
        assert!(ps[1].buffers.is_empty() && ps[1].step == 0);
    }

    #[test]
    fn rmsprop_allocates_only_the_buffers_it_needs() {
        let p = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
        p.set_requires_grad(true).unwrap();
        p.set_grad(Some(Tensor::from_vec(vec![1.0f32], &[1]).unwrap()))
            .unwrap();
        let mut ps = vec![ParamState {
            param: p,
            buffers: vec![],
            step: 0,
        }];
        rmsprop_step(&mut ps, &RmspropConfig::default()).unwrap();
        assert_eq!(ps[0].buffers.len(), 1);
    }
}
