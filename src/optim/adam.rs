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

/// Per-step constants of the Adam update, in the arithmetic type.
struct Consts<A> {
    sign: A,
    wd: A,
    shrink: A,
    b1: A,
    b2: A,
    k1: A,
    k2: A,
    eps: A,
    step_size: A,
    inv_bc2_sqrt: A,
}

/// The element loop, monomorphised on the options so that it has no branches (and
/// vectorises for f32/f64).
fn adam_loop<L: Lane, const L2: bool, const DECAY: bool, const AMS: bool>(
    k: &Consts<L::A>,
    p: &mut [L],
    g: &[L],
    m: &mut [L],
    v: &mut [L],
    vmax: &mut [L],
) {
    let n = p.len();
    let (g, m, v) = (&g[..n], &mut m[..n], &mut v[..n]);
    for i in 0..n {
        let mut d = k.sign * g[i].load();
        let mut w = p[i].load();
        if L2 {
            d = d + k.wd * w;
        }
        if DECAY {
            w = w * k.shrink;
        }
        let mi = k.b1 * m[i].load() + k.k1 * d;
        let vi = k.b2 * v[i].load() + k.k2 * d * d;
        m[i] = L::store(mi);
        v[i] = L::store(vi);
        let mut denom_v = vi;
        if AMS {
            let prev = vmax[i].load();
            if prev > denom_v {
                denom_v = prev;
            }
            vmax[i] = L::store(denom_v);
        }
        let denom = denom_v.sqrt() * k.inv_bc2_sqrt + k.eps;
        p[i] = L::store(w - k.step_size * mi / denom);
    }
}

impl Update for AdamUpdate {
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
        let c = &self.cfg;
        let t = self.step.max(1) as i32;
        let bc1 = 1.0 - c.beta1.powi(t);
        let bc2_sqrt = (1.0 - c.beta2.powi(t)).sqrt();
        let a = L::A::from_f64;
        let k = Consts {
            sign: a(if c.maximize { -1.0 } else { 1.0 }),
            wd: a(c.weight_decay),
            shrink: a(1.0 - c.lr * c.weight_decay),
            b1: a(c.beta1),
            b2: a(c.beta2),
            k1: a(1.0 - c.beta1),
            k2: a(1.0 - c.beta2),
            eps: a(c.eps),
            step_size: a(c.lr / bc1),
            inv_bc2_sqrt: a(1.0 / bc2_sqrt),
        };
        let l2 = c.weight_decay != 0.0 && !c.decoupled;
        let decay = c.weight_decay != 0.0 && c.decoupled;
        let [m, v, rest @ ..] = state else {
            panic!("Adam needs exp_avg and exp_avg_sq buffers");
        };
        let mut none: [L; 0] = [];
        let vmax: &mut [L] = match rest.first_mut() {
            Some(vm) if c.amsgrad => vm,
            _ => &mut none,
        };
        match (l2, decay, c.amsgrad) {
            (false, false, false) => adam_loop::<L, false, false, false>(&k, p, g, m, v, vmax),
            (true, false, false) => adam_loop::<L, true, false, false>(&k, p, g, m, v, vmax),
            (false, true, false) => adam_loop::<L, false, true, false>(&k, p, g, m, v, vmax),
            (true, true, false) => adam_loop::<L, true, true, false>(&k, p, g, m, v, vmax),
            (false, false, true) => adam_loop::<L, false, false, true>(&k, p, g, m, v, vmax),
            (true, false, true) => adam_loop::<L, true, false, true>(&k, p, g, m, v, vmax),
            (false, true, true) => adam_loop::<L, false, true, true>(&k, p, g, m, v, vmax),
            (true, true, true) => adam_loop::<L, true, true, true>(&k, p, g, m, v, vmax),
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
        run_update(
            &u,
            &mut p,
            &[half::f16::from_f32(2.0)],
            &mut [&mut m, &mut v],
        );
        assert_eq!(p[0].to_f32(), 0.75);
        assert!((m[0].to_f32() - 0.2).abs() < 1e-3);
    }
}
