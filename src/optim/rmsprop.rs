//! RMSprop, following PyTorch's `torch.optim.RMSprop` (eps outside the square root, the
//! learning rate applied after the momentum buffer) or, with `paddle = true`, Paddle's
//! `RMSProp` (eps inside the square root, the learning rate inside the momentum buffer).
//! The two agree when momentum is 0 and eps is 0.

use super::lanes::{Acc, Lane, Update};

/// RMSprop hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmspropConfig {
    /// Learning rate.
    pub lr: f64,
    /// Smoothing constant of the squared-gradient average (Paddle's `rho`).
    pub alpha: f64,
    /// Added to the denominator (torch) or under its square root (Paddle).
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Momentum factor (0: no momentum buffer is used).
    pub momentum: f64,
    /// Normalise by the variance (`square_avg - grad_avg^2`) instead of the raw average.
    pub centered: bool,
    /// Ascend instead of descend.
    pub maximize: bool,
    /// Paddle's placement of eps and the learning rate.
    pub paddle: bool,
}

impl Default for RmspropConfig {
    fn default() -> Self {
        RmspropConfig {
            lr: 1e-2,
            alpha: 0.99,
            eps: 1e-8,
            weight_decay: 0.0,
            momentum: 0.0,
            centered: false,
            maximize: false,
            paddle: false,
        }
    }
}

impl RmspropConfig {
    /// State buffers used: `[square_avg, momentum_buffer, grad_avg]`, the last two only
    /// when needed (a centered step keeps all three).
    pub fn buffers(&self) -> usize {
        if self.centered {
            3
        } else if self.momentum != 0.0 {
            2
        } else {
            1
        }
    }
}

/// One RMSprop step.
pub struct RmspropUpdate {
    /// Hyper-parameters.
    pub cfg: RmspropConfig,
}

impl Update for RmspropUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let a = L::A::from_f64;
        let (sign, wd, alpha, k, eps, lr, mu) = (
            a(if c.maximize { -1.0 } else { 1.0 }),
            a(c.weight_decay),
            a(c.alpha),
            a(1.0 - c.alpha),
            a(c.eps),
            a(c.lr),
            a(c.momentum),
        );
        let use_mom = c.momentum != 0.0;
        let n = p.len();
        let (sq, rest) = state.split_first_mut().expect("RMSprop needs square_avg");
        let mut none: [L; 0] = [];
        let (buf, rest): (&mut [L], &mut [&mut [L]]) = match rest.split_first_mut() {
            Some((b, r)) => (b, r),
            None => (&mut none, &mut []),
        };
        let mut none2: [L; 0] = [];
        let gavg: &mut [L] = match rest.first_mut() {
            Some(ga) if c.centered => ga,
            _ => &mut none2,
        };
        let sq = &mut sq[..n];
        for i in 0..n {
            let w = p[i].load();
            let d = sign * g[i].load() + wd * w;
            let s = alpha * sq[i].load() + k * d * d;
            sq[i] = L::store(s);
            let v = if c.centered {
                let ga = alpha * gavg[i].load() + k * d;
                gavg[i] = L::store(ga);
                s - ga * ga
            } else {
                s
            };
            let avg = if c.paddle {
                (v + eps).sqrt()
            } else {
                v.sqrt() + eps
            };
            let step = if use_mom {
                let b = if c.paddle {
                    mu * buf[i].load() + lr * d / avg
                } else {
                    mu * buf[i].load() + d / avg
                };
                buf[i] = L::store(b);
                if c.paddle {
                    b
                } else {
                    lr * b
                }
            } else {
                lr * d / avg
            };
            p[i] = L::store(w - step);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::lanes::run_update;

    /// RMSprop by hand, straight from PyTorch's documented algorithm.
    fn reference(c: &RmspropConfig, p0: f64, grads: &[f64]) -> f64 {
        let (mut p, mut s, mut b, mut ga) = (p0, 0.0, 0.0, 0.0f64);
        for &g0 in grads {
            let g = if c.maximize { -g0 } else { g0 } + c.weight_decay * p;
            s = c.alpha * s + (1.0 - c.alpha) * g * g;
            let mut v = s;
            if c.centered {
                ga = c.alpha * ga + (1.0 - c.alpha) * g;
                v -= ga * ga;
            }
            if c.paddle {
                let avg = (v + c.eps).sqrt();
                b = c.momentum * b + c.lr * g / avg;
                p -= b;
            } else {
                let avg = v.sqrt() + c.eps;
                if c.momentum != 0.0 {
                    b = c.momentum * b + g / avg;
                    p -= c.lr * b;
                } else {
                    p -= c.lr * g / avg;
                }
            }
        }
        p
    }

    #[test]
    fn matches_hand_computed_variants() {
        let grads = [0.5, -1.5, 2.0, 0.25, -0.75];
        for (mom, centered, wd, paddle) in [
            (0.0, false, 0.0, false),
            (0.9, false, 0.1, false),
            (0.0, true, 0.0, false),
            (0.5, true, 0.2, false),
            (0.9, true, 0.1, true),
            (0.0, false, 0.0, true),
        ] {
            let c = RmspropConfig {
                lr: 0.05,
                momentum: mom,
                centered,
                weight_decay: wd,
                paddle,
                ..Default::default()
            };
            let (mut p, mut bufs) = (vec![0.7], vec![vec![0.0]; c.buffers()]);
            for g in grads {
                let mut st: Vec<&mut [f64]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
                run_update(&RmspropUpdate { cfg: c }, &mut p, &[g], &mut st);
            }
            let r = reference(&c, 0.7, &grads);
            assert!((p[0] - r).abs() < 1e-12, "{c:?}: {} vs {r}", p[0]);
        }
    }
}
