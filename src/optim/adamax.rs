//! Adamax (Adam with the infinity norm), following PyTorch's `torch.optim.Adamax`
//! (`u = max(beta2 * u, |g| + eps)`) or, with `paddle = true`, Paddle's `Adamax`
//! (`u = max(beta2 * u + eps, |g|)`).

use super::lanes::{Acc, Lane, Update};

/// Adamax hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamaxConfig {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the first moment.
    pub beta1: f64,
    /// Decay of the infinity norm.
    pub beta2: f64,
    /// Keeps the norm away from zero.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Ascend instead of descend.
    pub maximize: bool,
    /// Paddle's placement of eps.
    pub paddle: bool,
}

impl Default for AdamaxConfig {
    fn default() -> Self {
        AdamaxConfig {
            lr: 2e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            maximize: false,
            paddle: false,
        }
    }
}

/// One Adamax step number `step` (1 for the first); `state` is `[exp_avg, exp_inf]`.
pub struct AdamaxUpdate {
    /// Hyper-parameters.
    pub cfg: AdamaxConfig,
    /// The step number after this update.
    pub step: u64,
}

impl Update for AdamaxUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let a = L::A::from_f64;
        let t = self.step.max(1) as i32;
        let (sign, wd, b1, k1, b2, eps, clr) = (
            a(if c.maximize { -1.0 } else { 1.0 }),
            a(c.weight_decay),
            a(c.beta1),
            a(1.0 - c.beta1),
            a(c.beta2),
            a(c.eps),
            a(c.lr / (1.0 - c.beta1.powi(t))),
        );
        let zero = a(0.0);
        let n = p.len();
        let [m, u, ..] = state else {
            panic!("Adamax needs exp_avg and exp_inf buffers");
        };
        let (m, u) = (&mut m[..n], &mut u[..n]);
        for i in 0..n {
            let w = p[i].load();
            let d = sign * g[i].load() + wd * w;
            let mi = b1 * m[i].load() + k1 * d;
            m[i] = L::store(mi);
            let ad = if d < zero { -d } else { d };
            let (x, y) = if c.paddle {
                (b2 * u[i].load() + eps, ad)
            } else {
                (b2 * u[i].load(), ad + eps)
            };
            let ui = if x > y { x } else { y };
            u[i] = L::store(ui);
            p[i] = L::store(w - clr * mi / ui);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::lanes::run_update;

    #[test]
    fn matches_hand_computed_both_eps_placements() {
        for paddle in [false, true] {
            let c = AdamaxConfig {
                lr: 0.05,
                weight_decay: 0.1,
                paddle,
                ..Default::default()
            };
            let (mut p, mut m, mut u) = (vec![0.7f64], vec![0.0f64], vec![0.0f64]);
            let (mut rp, mut rm, mut ru) = (0.7f64, 0.0f64, 0.0f64);
            for (k, g) in [0.5, -1.5, 2.0, 0.25, -3.0].iter().enumerate() {
                let upd = AdamaxUpdate {
                    cfg: c,
                    step: k as u64 + 1,
                };
                run_update(&upd, &mut p, &[*g], &mut [&mut m, &mut u]);
                let gg = g + c.weight_decay * rp;
                rm = c.beta1 * rm + (1.0 - c.beta1) * gg;
                ru = if paddle {
                    (c.beta2 * ru + c.eps).max(gg.abs())
                } else {
                    (c.beta2 * ru).max(gg.abs() + c.eps)
                };
                rp -= c.lr / (1.0 - c.beta1.powi(k as i32 + 1)) * rm / ru;
            }
            assert!(
                (p[0] - rp).abs() < 1e-12,
                "paddle={paddle}: {} vs {rp}",
                p[0]
            );
        }
    }
}
