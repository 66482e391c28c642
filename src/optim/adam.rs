//! Adam and AdamW (decoupled weight decay), following PyTorch's `torch.optim.Adam` /
//! `AdamW` update rules, with optional AMSGrad. Paddle's `Adam`/`AdamW` compute the same
//! step (their `epsilon * sqrt(1 - beta2^t)` form is this one rearranged).

use super::lanes::{Acc, Lane, Update};

/// Adam / AdamW hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamConfig {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the first moment.
    pub beta1: f64,
    /// Decay of the second moment.
    pub beta2: f64,
    /// Added to the denominator for stability.
    pub eps: f64,
    /// Weight decay: an L2 term in the gradient (Adam), or a decoupled shrink of the
    /// parameter (AdamW, `decoupled = true`).
    pub weight_decay: f64,
    /// AdamW's decoupled weight decay.
    pub decoupled: bool,
    /// Keep the running maximum of the second moment (AMSGrad).
    pub amsgrad: bool,
    /// Ascend instead of descend.
    pub maximize: bool,
}

impl Default for AdamConfig {
    fn default() -> Self {
        AdamConfig {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            decoupled: false,
            amsgrad: false,
            maximize: false,
        }
    }
}

/// One Adam step number `step` (1 for the first). `state` is `[exp_avg, exp_avg_sq]`,
/// plus `max_exp_avg_sq` with AMSGrad.
pub struct AdamUpdate {
    /// Hyper-parameters.
    pub cfg: AdamConfig,
    /// The step number after this update (starts at 1).
    pub step: u64,
}

impl Update for AdamUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let t = self.step.max(1) as i32;
        let bc1 = 1.0 - c.beta1.powi(t);
        let bc2_sqrt = (1.0 - c.beta2.powi(t)).sqrt();
        let step_size = L::A::from_f64(c.lr / bc1);
        let inv_bc2_sqrt = L::A::from_f64(1.0 / bc2_sqrt);
        let (b1, b2) = (L::A::from_f64(c.beta1), L::A::from_f64(c.beta2));
        let (k1, k2) = (L::A::from_f64(1.0 - c.beta1), L::A::from_f64(1.0 - c.beta2));
        let eps = L::A::from_f64(c.eps);
        let wd = L::A::from_f64(c.weight_decay);
        let shrink = L::A::from_f64(1.0 - c.lr * c.weight_decay);
        let l2 = c.weight_decay != 0.0 && !c.decoupled;
        let decay = c.weight_decay != 0.0 && c.decoupled;
        let (m, rest) = state.split_first_mut().expect("Adam needs exp_avg");
        let (v, rest) = rest.split_first_mut().expect("Adam needs exp_avg_sq");
        let mut vmax = rest.first_mut().filter(|_| c.amsgrad);
        for i in 0..p.len() {
            let mut d = g[i].load();
            if c.maximize {
                d = -d;
            }
            let mut w = p[i].load();
            if l2 {
                d = d + wd * w;
            }
            if decay {
                w = w * shrink;
            }
            let mi = b1 * m[i].load() + k1 * d;
            let vi = b2 * v[i].load() + k2 * d * d;
            m[i] = L::store(mi);
            v[i] = L::store(vi);
            let mut denom_v = vi;
            if let Some(vm) = vmax.as_deref_mut() {
                let prev = vm[i].load();
                if prev > denom_v {
                    denom_v = prev;
                }
                vm[i] = L::store(denom_v);
            }
            let denom = denom_v.sqrt() * inv_bc2_sqrt + eps;
            p[i] = L::store(w - step_size * mi / denom);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::lanes::run_update;

    /// Adam by hand, straight from the paper's algorithm, in f64.
    fn reference(cfg: &AdamConfig, p0: f64, grads: &[f64]) -> f64 {
        let (mut p, mut m, mut v, mut vmax) = (p0, 0.0, 0.0, 0.0f64);
        for (k, &g0) in grads.iter().enumerate() {
            let t = (k + 1) as i32;
            let mut g = if cfg.maximize { -g0 } else { g0 };
            if cfg.decoupled {
                p *= 1.0 - cfg.lr * cfg.weight_decay;
            } else {
                g += cfg.weight_decay * p;
            }
            m = cfg.beta1 * m + (1.0 - cfg.beta1) * g;
            v = cfg.beta2 * v + (1.0 - cfg.beta2) * g * g;
            vmax = vmax.max(v);
            let mhat = m / (1.0 - cfg.beta1.powi(t));
            let vhat = if cfg.amsgrad { vmax } else { v } / (1.0 - cfg.beta2.powi(t));
            p -= cfg.lr * mhat / (vhat.sqrt() + cfg.eps);
        }
        p
    }

    fn run(cfg: &AdamConfig, p0: f64, grads: &[f64]) -> f64 {
        let (mut p, mut m, mut v, mut vm) = (vec![p0], vec![0.0], vec![0.0], vec![0.0]);
        for (k, g) in grads.iter().enumerate() {
            let u = AdamUpdate {
                cfg: *cfg,
                step: k as u64 + 1,
            };
            run_update(&u, &mut p, &[*g], &mut [&mut m, &mut v, &mut vm]);
        }
        p[0]
    }

    #[test]
    fn first_step_moves_by_lr_times_sign() {
        let cfg = AdamConfig {
            lr: 0.1,
            eps: 0.0,
            ..Default::default()
        };
        // with bias correction, step 1 is exactly lr * sign(g)
        assert!((run(&cfg, 1.0, &[3.0]) - 0.9).abs() < 1e-12);
        assert!((run(&cfg, 1.0, &[-0.01]) - 1.1).abs() < 1e-12);
    }

    #[test]
    fn matches_hand_computed_adam_adamw_amsgrad() {
        let grads = [0.5, -1.5, 2.0, 0.25, -0.75];
        for (wd, decoupled, amsgrad, maximize) in [
            (0.0, false, false, false),
            (0.1, false, false, false),
            (0.1, true, false, false),
            (0.0, false, true, false),
            (0.2, true, true, true),
        ] {
            let cfg = AdamConfig {
                lr: 0.05,
                weight_decay: wd,
                decoupled,
                amsgrad,
                maximize,
                ..Default::default()
            };
            let (a, b) = (run(&cfg, 0.7, &grads), reference(&cfg, 0.7, &grads));
            assert!((a - b).abs() < 1e-12, "{cfg:?}: {a} vs {b}");
        }
    }

    #[test]
    fn half_lanes_compute_in_f32() {
        let cfg = AdamConfig {
            lr: 0.25,
            ..Default::default()
        };
        let u = AdamUpdate { cfg, step: 1 };
        let mut p = vec![half::f16::from_f32(1.0)];
        let (mut m, mut v) = (vec![half::f16::ZERO], vec![half::f16::ZERO]);
        run_update(&u, &mut p, &[half::f16::from_f32(2.0)], &mut [&mut m, &mut v]);
        assert_eq!(p[0].to_f32(), 0.75);
        assert!((m[0].to_f32() - 0.2).abs() < 1e-3);
    }
}
