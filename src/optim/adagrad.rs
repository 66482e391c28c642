//! Adagrad, following PyTorch's `torch.optim.Adagrad` (Paddle's `Adagrad` is the same rule
//! with `lr_decay = 0`).

use super::lanes::{Acc, Lane, Update};

/// Adagrad hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdagradConfig {
    /// Learning rate.
    pub lr: f64,
    /// The rate at step `t` is `lr / (1 + (t - 1) * lr_decay)`.
    pub lr_decay: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// Ascend instead of descend.
    pub maximize: bool,
}

impl Default for AdagradConfig {
    fn default() -> Self {
        AdagradConfig {
            lr: 1e-2,
            lr_decay: 0.0,
            weight_decay: 0.0,
            eps: 1e-10,
            maximize: false,
        }
    }
}

/// One Adagrad step number `step` (1 for the first); `state` is `[sum]`.
pub struct AdagradUpdate {
    /// Hyper-parameters.
    pub cfg: AdagradConfig,
    /// The step number after this update.
    pub step: u64,
}

impl Update for AdagradUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let a = L::A::from_f64;
        let clr = c.lr / (1.0 + (self.step.max(1) - 1) as f64 * c.lr_decay);
        let (sign, wd, eps, clr) = (
            a(if c.maximize { -1.0 } else { 1.0 }),
            a(c.weight_decay),
            a(c.eps),
            a(clr),
        );
        let n = p.len();
        let sum = &mut state[0][..n];
        for i in 0..n {
            let w = p[i].load();
            let d = sign * g[i].load() + wd * w;
            let s = sum[i].load() + d * d;
            sum[i] = L::store(s);
            p[i] = L::store(w - clr * d / (s.sqrt() + eps));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::lanes::run_update;

    #[test]
    fn matches_hand_computed_with_decay_and_initial_sum() {
        let c = AdagradConfig {
            lr: 0.1,
            lr_decay: 0.05,
            weight_decay: 0.1,
            ..Default::default()
        };
        let grads = [0.5, -1.5, 2.0, 0.25];
        let (mut p, mut s) = (vec![0.7f64], vec![0.1f64]);
        let (mut rp, mut rs) = (0.7f64, 0.1f64);
        for (k, g) in grads.iter().enumerate() {
            let u = AdagradUpdate {
                cfg: c,
                step: k as u64 + 1,
            };
            run_update(&u, &mut p, &[*g], &mut [&mut s]);
            let d = g + c.weight_decay * rp;
            rs += d * d;
            rp -= c.lr / (1.0 + k as f64 * c.lr_decay) * d / (rs.sqrt() + c.eps);
        }
        assert!((p[0] - rp).abs() < 1e-12 && (s[0] - rs).abs() < 1e-12);
    }
}
