//! Adadelta (Zeiler), following PyTorch's `torch.optim.Adadelta`; Paddle's `Adadelta`
//! computes the same step.

use super::lanes::{Acc, Lane, Update};

/// Adadelta hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdadeltaConfig {
    /// Learning rate (scales the computed delta).
    pub lr: f64,
    /// Decay of the running averages.
    pub rho: f64,
    /// Added under both square roots.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Ascend instead of descend.
    pub maximize: bool,
}

impl Default for AdadeltaConfig {
    fn default() -> Self {
        AdadeltaConfig {
            lr: 1.0,
            rho: 0.9,
            eps: 1e-6,
            weight_decay: 0.0,
            maximize: false,
        }
    }
}

/// One Adadelta step; `state` is `[square_avg, acc_delta]`.
pub struct AdadeltaUpdate {
    /// Hyper-parameters.
    pub cfg: AdadeltaConfig,
}

impl Update for AdadeltaUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let a = L::A::from_f64;
        let (sign, wd, rho, k, eps, lr) = (
            a(if c.maximize { -1.0 } else { 1.0 }),
            a(c.weight_decay),
            a(c.rho),
            a(1.0 - c.rho),
            a(c.eps),
            a(c.lr),
        );
        let n = p.len();
        let [sq, acc, ..] = state else {
            panic!("Adadelta needs square_avg and acc_delta buffers");
        };
        let (sq, acc) = (&mut sq[..n], &mut acc[..n]);
        for i in 0..n {
            let w = p[i].load();
            let d = sign * g[i].load() + wd * w;
            let s = rho * sq[i].load() + k * d * d;
            sq[i] = L::store(s);
            let ad = acc[i].load();
            let delta = (ad + eps).sqrt() / (s + eps).sqrt() * d;
            acc[i] = L::store(rho * ad + k * delta * delta);
            p[i] = L::store(w - lr * delta);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::lanes::run_update;

    #[test]
    fn matches_hand_computed() {
        let c = AdadeltaConfig {
            lr: 0.5,
            weight_decay: 0.1,
            ..Default::default()
        };
        let (mut p, mut s, mut d) = (vec![0.7f64], vec![0.0f64], vec![0.0f64]);
        let (mut rp, mut rs, mut rd) = (0.7f64, 0.0f64, 0.0f64);
        for g in [0.5, -1.5, 2.0, 0.25] {
            run_update(
                &AdadeltaUpdate { cfg: c },
                &mut p,
                &[g],
                &mut [&mut s, &mut d],
            );
            let gg = g + c.weight_decay * rp;
            rs = c.rho * rs + (1.0 - c.rho) * gg * gg;
            let delta = ((rd + c.eps) / (rs + c.eps)).sqrt() * gg;
            rd = c.rho * rd + (1.0 - c.rho) * delta * delta;
            rp -= c.lr * delta;
        }
        assert!((p[0] - rp).abs() < 1e-12 && (d[0] - rd).abs() < 1e-12);
    }
}
