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

/// The element loop with a momentum buffer, monomorphised on the options so that it has
/// no branches (and vectorises for f32/f64). `buf` is unused when `!MOMENTUM`.
#[allow(clippy::too_many_arguments)]
fn sgd_loop<
    L: Lane,
    const MOMENTUM: bool,
    const WD: bool,
    const NESTEROV: bool,
    const FIRST: bool,
>(
    sign: L::A,
    lr: L::A,
    wd: L::A,
    mu: L::A,
    keep: L::A,
    p: &mut [L],
    g: &[L],
    buf: &mut [L],
) {
    let n = p.len();
    let g = &g[..n];
    let buf = if MOMENTUM { &mut buf[..n] } else { buf };
    for i in 0..n {
        let w = p[i].load();
        let mut d = sign * g[i].load();
        if WD {
            d = d + wd * w;
        }
        let step = if MOMENTUM {
            let b = if FIRST {
                d
            } else {
                mu * buf[i].load() + keep * d
            };
            buf[i] = L::store(b);
            if NESTEROV {
                d + mu * b
            } else {
                b
            }
        } else {
            d
        };
        p[i] = L::store(w - lr * step);
    }
}

impl Update for SgdUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let a = L::A::from_f64;
        let sign = a(if c.maximize { -1.0 } else { 1.0 });
        let (lr, wd, mu) = (a(c.lr), a(c.weight_decay), a(c.momentum));
        let keep = a(1.0 - c.dampening);
        let wd_on = c.weight_decay != 0.0;
        let mut none: [L; 0] = [];
        let (momentum, buf): (bool, &mut [L]) = match state.first_mut() {
            Some(b) => (true, b),
            None => (false, &mut none),
        };
        macro_rules! run {
            ($m:literal, $w:literal, $n:literal, $f:literal) => {
                sgd_loop::<L, $m, $w, $n, $f>(sign, lr, wd, mu, keep, p, g, buf)
            };
        }
        match (momentum, wd_on, c.nesterov, self.first) {
            (false, false, _, _) => run!(false, false, false, false),
            (false, true, _, _) => run!(false, true, false, false),
            (true, false, false, false) => run!(true, false, false, false),
            (true, false, false, true) => run!(true, false, false, true),
            (true, false, true, false) => run!(true, false, true, false),
            (true, false, true, true) => run!(true, false, true, true),
            (true, true, false, false) => run!(true, true, false, false),
            (true, true, false, true) => run!(true, true, false, true),
            (true, true, true, false) => run!(true, true, true, false),
            (true, true, true, true) => run!(true, true, true, true),
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
        run_update(
            &SgdUpdate { cfg, first: true },
            &mut p,
            &[0.2, 0.4],
            &mut [],
        );
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
        run_update(
            &SgdUpdate { cfg, first: true },
            &mut p,
            &[2.0],
            &mut [&mut b],
        );
        close(&b, &[2.0]); // the first buffer is the gradient, undampened
        close(&p, &[1.0 - 0.2]);
        run_update(
            &SgdUpdate { cfg, first: false },
            &mut p,
            &[1.0],
            &mut [&mut b],
        );
        close(&b, &[0.9 * 2.0 + 0.5 * 1.0]);
        close(&p, &[0.8 - 0.1 * 2.3]);

        let cfg = SgdConfig {
            nesterov: true,
            dampening: 0.0,
            ..cfg
        };
        let (mut p, mut b) = (vec![1.0f64], vec![0.0f64]);
        run_update(
            &SgdUpdate { cfg, first: true },
            &mut p,
            &[2.0],
            &mut [&mut b],
        );
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
