//! The optimizer update of a static program (`optimizer.minimize(loss)`): one op that
//! runs the crate's eager optimizer kernels ([`crate::optim`]) over the parameters and
//! their gradients, so a static step is numerically the eager step. The state (moments,
//! per-parameter step counts, the learning rate) lives in persistable variables, i.e. in
//! the scope between runs.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::optim::{adam_step, sgd_step, AdamConfig, ParamState, SgdConfig};
use crate::tensor::Tensor;

/// Which update rule, with its hyper-parameters (the learning rate is an input).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptRule {
    /// SGD with optional momentum, dampening, Nesterov and L2 weight decay.
    Sgd(SgdConfig),
    /// Adam / AdamW (decoupled weight decay) with optional AMSGrad.
    Adam(AdamConfig),
}

impl OptRule {
    /// Number of state buffers per parameter, in the eager optimizer's order.
    pub fn n_buffers(&self) -> usize {
        match self {
            OptRule::Sgd(c) => usize::from(c.momentum != 0.0),
            OptRule::Adam(c) => 2 + usize::from(c.amsgrad),
        }
    }
}

/// The update op. Inputs: `params[n] ++ grads[n] ++ steps[n] ++ buffers[n * nb] ++ [lr]`;
/// outputs: `params[n] ++ steps[n] ++ buffers[n * nb]` (buffers parameter-major). A
/// step count of 0 means the buffers were never written (SGD's momentum buffer then
/// starts as the gradient, as in eager).
#[derive(Clone, Debug)]
pub struct OptimizerStep {
    /// The rule.
    pub rule: OptRule,
    /// Number of parameters updated.
    pub n_params: usize,
}

impl OptimizerStep {
    /// Number of inputs the op takes.
    pub fn n_inputs(&self) -> usize {
        self.n_params * (3 + self.rule.n_buffers()) + 1
    }

    /// Number of outputs the op writes.
    pub fn n_outputs(&self) -> usize {
        self.n_params * (2 + self.rule.n_buffers())
    }

    /// Runs one update; returns the new parameters, step counts and buffers.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let (n, nb) = (self.n_params, self.rule.n_buffers());
        if inputs.len() != self.n_inputs() {
            return Err(Error::runtime(format!(
                "optimizer: expected {} inputs, got {}",
                self.n_inputs(),
                inputs.len()
            )));
        }
        let lr = inputs[inputs.len() - 1].item_f64()?;
        let mut states = Vec::with_capacity(n);
        for i in 0..n {
            // fresh copies: the scope's tensors are replaced, never written in place
            let param = inputs[i].detach().clone_tensor()?;
            param.set_grad(Some(inputs[n + i].detach()))?;
            let step = inputs[2 * n + i].to_dtype(DType::I64)?.item_f64()? as u64;
            let buffers = if step == 0 {
                Vec::new()
            } else {
                (0..nb)
                    .map(|b| inputs[3 * n + i * nb + b].detach().clone_tensor())
                    .collect::<Result<Vec<_>>>()?
            };
            states.push(ParamState {
                param,
                buffers,
                step,
            });
        }
        match self.rule {
            OptRule::Sgd(c) => sgd_step(&mut states, &SgdConfig { lr, ..c })?,
            OptRule::Adam(c) => adam_step(&mut states, &AdamConfig { lr, ..c })?,
        };
        let mut out = Vec::with_capacity(self.n_outputs());
        let mut steps = Vec::with_capacity(n);
        let mut buffers = Vec::with_capacity(n * nb);
        for ps in states {
            ps.param.set_grad(None)?;
            out.push(ps.param);
            steps.push(Tensor::scalar(ps.step as i64));
            buffers.extend(ps.buffers);
        }
        out.extend(steps);
        out.extend(buffers);
        Ok(out)
    }
}
