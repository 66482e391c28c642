//! Stochastic gradient descent with momentum, dampening, Nesterov and weight decay,
//! following PyTorch's `torch.optim.SGD` update rule (which Paddle's `Momentum` matches
//! for `dampening = 0`).

use super::lanes::{Acc, Lane, Update};

/// SGD hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgdConfig {
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor (0 disables the momentum buffer).
    pub momentum: f64,
    /// Dampening of the gradient added to the momentum buffer.
    pub dampening: f64,
    /// L2 penalty added to the gradient (`g + weight_decay * p`).
    pub weight_decay: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
    /// Ascend instead of descend.
    pub maximize: bool,
}

impl Default for SgdConfig {
    fn default() -> Self {
        SgdConfig {
            lr: 1e-3,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        }
    }
}

/// One SGD step. `state` holds the momentum buffer when `momentum != 0`; `first` says the
/// buffer is new (it then starts as the gradient, as in PyTorch).
pub struct SgdUpdate {
    /// Hyper-parameters.
    pub cfg: SgdConfig,
    /// True when the momentum buffer has never been written.
    pub first: bool,
}

impl Update for SgdUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let lr = L::A::from_f64(c.lr);
        let wd = L::A::from_f64(c.weight_decay);
        let mu = L::A::from_f64(c.momentum);
        let keep = L::A::from_f64(1.0 - c.dampening);
        let (use_wd, maximize, nesterov) = (c.weight_decay != 0.0, c.maximize, c.nesterov);
        let grad = |gi: L, w: L::A| {
            let mut d = gi.load();
            if maximize {
                d = -d;
            }
            if use_wd {
                d = d + wd * w;
            }
            d
        };
        match state.first_mut() {
            None => {
                for i in 0..p.len() {
                    let w = p[i].load();
                    p[i] = L::store(w - lr * grad(g[i], w));
                }
            }
            Some(buf) => {
                for i in 0..p.len() {
                    let w = p[i].load();
                    let d = grad(g[i], w);
                    let b = if self.first {
                        d
                    } else {
                        mu * buf[i].load() + keep * d
                    };
                    buf[i] = L::store(b);
                    let step = if nesterov { d + mu * b } else { b };
                    p[i] = L::store(w - lr * step);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::lanes::run_update;

    fn close(a: &[f64], b: &[f64]) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn plain_step_with_weight_decay() {
        let mut p = vec![1.0f64, -2.0];
        let cfg = SgdConfig {
            lr: 0.1,
            weight_decay: 0.5,
            ..Default::default()
        };
        run_update(&SgdUpdate { cfg, first: true }, &mut p, &[0.2, 0.4], &mut []);
        // p - lr * (g + wd * p)
        close(&p, &[1.0 - 0.1 * (0.2 + 0.5), -2.0 - 0.1 * (0.4 - 1.0)]);
    }

    #[test]
    fn momentum_dampening_and_nesterov_over_two_steps() {
        let cfg = SgdConfig {
            lr: 0.1,
            momentum: 0.9,
            dampening: 0.5,
            nesterov: false,
            ..Default::default()
        };
        let (mut p, mut b) = (vec![1.0f64], vec![0.0f64]);
        run_update(&SgdUpdate { cfg, first: true }, &mut p, &[2.0], &mut [&mut b]);
        close(&b, &[2.0]); // the first buffer is the gradient, undampened
        close(&p, &[1.0 - 0.2]);
        run_update(&SgdUpdate { cfg, first: false }, &mut p, &[1.0], &mut [&mut b]);
        close(&b, &[0.9 * 2.0 + 0.5 * 1.0]);
        close(&p, &[0.8 - 0.1 * 2.3]);

        let cfg = SgdConfig {
            nesterov: true,
            dampening: 0.0,
            ..cfg
        };
        let (mut p, mut b) = (vec![1.0f64], vec![0.0f64]);
        run_update(&SgdUpdate { cfg, first: true }, &mut p, &[2.0], &mut [&mut b]);
        close(&p, &[1.0 - 0.1 * (2.0 + 0.9 * 2.0)]);
    }

    #[test]
    fn maximize_ascends() {
        let cfg = SgdConfig {
            lr: 0.5,
            maximize: true,
            ..Default::default()
        };
        let mut p = vec![0.0f32];
        run_update(&SgdUpdate { cfg, first: true }, &mut p, &[1.0], &mut []);
        assert_eq!(p, vec![0.5]);
    }

    #[test]
    fn large_update_split_across_threads_matches_serial() {
        let n = 5 * crate::optim::lanes::PAR_MIN_LANES + 3;
        let g: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
        let cfg = SgdConfig {
            lr: 0.01,
            momentum: 0.9,
            ..Default::default()
        };
        let (mut p1, mut b1) = (vec![1.0f32; n], vec![0.0f32; n]);
        let (mut p2, mut b2) = (p1.clone(), b1.clone());
        for first in [true, false] {
            let u = SgdUpdate { cfg, first };
            run_update(&u, &mut p1, &g, &mut [&mut b1]);
            u.apply(&mut p2, &g, &mut [&mut b2]);
        }
        assert_eq!(p1, p2);
        assert_eq!(b1, b2);
    }
}
