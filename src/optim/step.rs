//! Tensor-level optimizer steps: validate each parameter and its state, take the storage
//! locks, run the update over real lanes, and bump the versions of everything written.
//! Parameters whose gradient is `None` are skipped; no graph is ever recorded.

use super::adam::{AdamConfig, AdamUpdate};
use super::lanes::{lanes, lanes_mut, run_update, AsLanes, Update};
use super::sgd::{SgdConfig, SgdUpdate};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::sync::Arc;

/// A parameter with its optimizer state buffers (created on its first update).
#[derive(Clone, Debug)]
pub struct ParamState {
    /// The parameter (any leaf tensor; it is written in place).
    pub param: Tensor,
    /// State buffers in the optimizer's order (e.g. `[exp_avg, exp_avg_sq]`); empty until
    /// the first step that has a gradient.
    pub buffers: Vec<Tensor>,
    /// Steps taken so far on this parameter.
    pub step: u64,
}

/// Refuses a step when a parameter's `.grad` is a sparse gradient (kept outside the core,
/// [`Tensor::has_ext_grad`]): these steps read the dense slot, and skipping the
/// parameter would silently leave it untrained. Checked before any parameter changes.
pub fn refuse_sparse_grads(params: &[ParamState], opt: &str) -> Result<()> {
    match params.iter().position(|p| p.param.has_ext_grad()) {
        None => Ok(()),
        Some(i) => Err(Error::runtime(format!(
            "{opt} does not support sparse gradients, please consider SparseAdam instead \
             (parameter {i} of this group has a sparse .grad, e.g. from \
             nn.Embedding(sparse=True); SGD without momentum and weight decay also takes \
             one, or make it dense first: p.grad = p.grad.to_dense())"
        ))),
    }
}

/// One SGD step over every parameter in `params`. Returns how many were updated.
pub fn sgd_step(params: &mut [ParamState], cfg: &SgdConfig) -> Result<usize> {
    refuse_sparse_grads(params, "SGD")?;
    let nbuf = usize::from(cfg.momentum != 0.0);
    let mut updated = 0;
    for ps in params.iter_mut() {
        let Some(grad) = ps.param.grad() else {
            continue;
        };
        let first = ps.buffers.len() < nbuf;
        prepare(ps, &grad, nbuf, &[], "SGD")?;
        update_one(
            &ps.param,
            &grad,
            &ps.buffers,
            &SgdUpdate { cfg: *cfg, first },
        )?;
        ps.step += 1;
        updated += 1;
    }
    Ok(updated)
}

/// One Adam/AdamW step over every parameter in `params`. Returns how many were updated.
pub fn adam_step(params: &mut [ParamState], cfg: &AdamConfig) -> Result<usize> {
    refuse_sparse_grads(params, if cfg.decoupled { "AdamW" } else { "Adam" })?;
    let nbuf = if cfg.amsgrad { 3 } else { 2 };
    let mut updated = 0;
    for ps in params.iter_mut() {
        let Some(grad) = ps.param.grad() else {
            continue;
        };
        prepare(ps, &grad, nbuf, &[], "Adam")?;
        let u = AdamUpdate {
            cfg: *cfg,
            step: ps.step + 1,
        };
        update_one(&ps.param, &grad, &ps.buffers, &u)?;
        ps.step += 1;
        updated += 1;
    }
    Ok(updated)
}

/// One step of the rule `make(step)` (`step`: the step number after this update) over every
/// parameter with a gradient; missing state buffers are created, buffer `i` filled with
/// `init[i]` (0 when absent). Returns how many parameters were updated.
pub fn step_with<U: Update>(
    params: &mut [ParamState],
    nbuf: usize,
    init: &[f64],
    opt: &str,
    make: impl Fn(u64) -> U,
) -> Result<usize> {
    refuse_sparse_grads(params, opt)?;
    let mut updated = 0;
    for ps in params.iter_mut() {
        let Some(grad) = ps.param.grad() else {
            continue;
        };
        prepare(ps, &grad, nbuf, init, opt)?;
        update_one(&ps.param, &grad, &ps.buffers, &make(ps.step + 1))?;
        ps.step += 1;
        updated += 1;
    }
    Ok(updated)
}

/// Checks the parameter and its buffers, creating missing buffers (zeros, or `init[i]`).
fn prepare(ps: &mut ParamState, grad: &Tensor, nbuf: usize, init: &[f64], opt: &str) -> Result<()> {
    let p = &ps.param;
    if !p.dtype().is_differentiable() {
        return Err(Error::type_err(format!(
            "{opt}: can only optimize floating point or complex parameters, got a {} tensor \
             of shape {:?}",
            p.dtype(),
            p.shape()
        )));
    }
    if grad.shape() != p.shape() {
        return Err(Error::value(format!(
            "{opt}: a parameter of shape {:?} has a gradient of shape {:?}",
            p.shape(),
            grad.shape()
        )));
    }
    while ps.buffers.len() < nbuf {
        let fill = init.get(ps.buffers.len()).copied().unwrap_or(0.0);
        ps.buffers.push(if fill == 0.0 {
            crate::tensor::zeros(p.shape(), p.dtype())?
        } else {
            crate::tensor::full(p.shape(), fill, p.dtype())?
        });
    }
    for (i, b) in ps.buffers.iter().enumerate() {
        let shared = Arc::ptr_eq(b.storage(), p.storage())
            || ps.buffers[..i]
                .iter()
                .any(|o| Arc::ptr_eq(o.storage(), b.storage()));
        if b.shape() != p.shape() || b.dtype() != p.dtype() || !b.is_contiguous() || shared {
            return Err(Error::value(format!(
                "{opt}: state buffer {i} of a parameter of shape {:?} ({}) is a {} tensor of \
                 shape {:?}{}; state buffers must be contiguous, unshared, and match their \
                 parameter's shape and dtype (check the loaded state_dict)",
                p.shape(),
                p.dtype(),
                b.dtype(),
                b.shape(),
                if shared { " sharing memory" } else { "" }
            )));
        }
    }
    Ok(())
}

/// Dispatches one parameter's update on its dtype.
fn update_one<U: Update>(p: &Tensor, grad: &Tensor, bufs: &[Tensor], u: &U) -> Result<()> {
    // the gradient is read while the parameter is locked for writing: it must be a
    // separate contiguous buffer of the parameter's dtype
    let g = if grad.dtype() != p.dtype()
        || !grad.is_contiguous()
        || Arc::ptr_eq(grad.storage(), p.storage())
        || bufs
            .iter()
            .any(|b| Arc::ptr_eq(b.storage(), grad.storage()))
    {
        grad.cast_raw(p.dtype())?.contiguous_copy()?
    } else {
        grad.clone()
    };
    match p.dtype() {
        DType::F32 => update_typed::<f32, U>(p, &g, bufs, u),
        DType::F64 => update_typed::<f64, U>(p, &g, bufs, u),
        DType::F16 => update_typed::<f16, U>(p, &g, bufs, u),
        DType::BF16 => update_typed::<bf16, U>(p, &g, bufs, u),
        DType::C64 => update_typed::<Complex32, U>(p, &g, bufs, u),
        DType::C128 => update_typed::<Complex64, U>(p, &g, bufs, u),
        d => Err(Error::type_err(format!(
            "optimizer: cannot update a {d} parameter"
        ))),
    }?;
    p.bump_version();
    for b in bufs {
        b.bump_version();
    }
    Ok(())
}

/// Updates one parameter whose storage holds `T`.
fn update_typed<T: AsLanes, U: Update>(
    p: &Tensor,
    g: &Tensor,
    bufs: &[Tensor],
    u: &U,
) -> Result<()> {
    let n = p.numel();
    let goff = g.layout().offset;
    let gs = g.storage().read::<T>();
    let gl = lanes(&gs[goff..goff + n]);
    let mut guards = bufs
        .iter()
        .map(|b| b.storage().write::<T>())
        .collect::<Result<Vec<_>>>()?;
    let mut states: Vec<&mut [T::L]> = guards
        .iter_mut()
        .zip(bufs)
        .map(|(s, b)| {
            let off = b.layout().offset;
            lanes_mut(&mut s[off..off + n])
        })
        .collect();
    let mut ps = p.storage().write::<T>()?;
    if p.is_contiguous() {
        let off = p.layout().offset;
        run_update(u, lanes_mut(&mut ps[off..off + n]), gl, &mut states);
    } else {
        // a strided leaf (e.g. made from a transpose): update a packed copy, write it back
        let offsets = p.layout().offsets()?;
        let mut packed: Vec<T> = offsets.iter().map(|&o| ps[o]).collect();
        run_update(u, lanes_mut(&mut packed), gl, &mut states);
        for (&o, v) in offsets.iter().zip(packed) {
            ps[o] = v;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(v: Vec<f64>, g: Vec<f64>) -> ParamState {
        let n = v.len();
        let p = Tensor::from_vec(v, &[n]).unwrap();
        p.set_requires_grad(true).unwrap();
        p.set_grad(Some(Tensor::from_vec(g, &[n]).unwrap()))
            .unwrap();
        ParamState {
            param: p,
            buffers: vec![],
            step: 0,
        }
    }

    #[test]
    fn sgd_updates_in_place_bumps_versions_and_skips_missing_grads() {
        let mut ps = vec![param(vec![1.0, 2.0], vec![0.5, -0.5])];
        let lone = Tensor::from_vec(vec![3.0f64], &[1]).unwrap();
        ps.push(ParamState {
            param: lone.clone(),
            buffers: vec![],
            step: 0,
        });
        let v0 = ps[0].param.version();
        let cfg = SgdConfig {
            lr: 0.1,
            momentum: 0.9,
            ..Default::default()
        };
        assert_eq!(sgd_step(&mut ps, &cfg).unwrap(), 1);
        assert_eq!(ps[0].param.to_vec::<f64>().unwrap(), vec![0.95, 2.05]);
        assert_eq!(ps[0].param.version(), v0 + 1);
        assert_eq!(ps[0].buffers[0].to_vec::<f64>().unwrap(), vec![0.5, -0.5]);
        assert_eq!(lone.to_vec::<f64>().unwrap(), vec![3.0]);
        assert!(ps[1].buffers.is_empty());
    }

    #[test]
    fn complex_parameters_update_as_real_pairs() {
        let z = |r: f64, i: f64| Complex64::new(r, i);
        let p = Tensor::from_vec(vec![z(1.0, 1.0)], &[1]).unwrap();
        p.set_requires_grad(true).unwrap();
        p.set_grad(Some(Tensor::from_vec(vec![z(2.0, -4.0)], &[1]).unwrap()))
            .unwrap();
        let mut ps = vec![ParamState {
            param: p.clone(),
            buffers: vec![],
            step: 0,
        }];
        let cfg = AdamConfig {
            lr: 0.1,
            eps: 0.0,
            ..Default::default()
        };
        adam_step(&mut ps, &cfg).unwrap();
        // each component moves by lr * sign on the first step
        assert_eq!(p.to_vec::<Complex64>().unwrap(), vec![z(0.9, 1.1)]);
    }

    #[test]
    fn strided_parameter_and_gradient_aliasing_the_parameter() {
        let base = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let p = base.transpose(0, 1).unwrap();
        p.set_requires_grad(true).unwrap();
        p.set_grad(Some(p.detach())).unwrap(); // grad shares p's memory: read a copy
        let mut ps = vec![ParamState {
            param: p.clone(),
            buffers: vec![],
            step: 0,
        }];
        let cfg = SgdConfig {
            lr: 0.5,
            ..Default::default()
        };
        sgd_step(&mut ps, &cfg).unwrap();
        assert_eq!(base.to_vec::<f32>().unwrap(), vec![0.5, 1.0, 1.5, 2.0]);
    }

    #[test]
    fn mismatched_state_is_an_error() {
        let mut ps = vec![param(vec![1.0], vec![1.0])];
        ps[0].buffers = vec![Tensor::from_vec(vec![0.0f32], &[1]).unwrap()];
        let cfg = SgdConfig {
            momentum: 0.5,
            ..Default::default()
        };
        let e = sgd_step(&mut ps, &cfg).unwrap_err();
        assert!(e.message.contains("state buffer 0"), "{}", e.message);
    }
}
