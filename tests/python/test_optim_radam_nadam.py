"""Issue 17: ``optim.RAdam`` / ``optim.NAdam`` (and Paddle's ``optimizer.RAdam`` / ``NAdam``)
against their update formulas written out in NumPy (float64) for several steps: L2 and
decoupled weight decay, ``maximize``, ``momentum_decay``, RAdam's un-rectified first
steps, Paddle's argument names, ``state_dict`` round trips, bad arguments."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

STEPS = 10


def grads(seed=0, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), [rng.standard_normal(shape) for _ in range(STEPS)]


def ref_radam(
    p, gs, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, wd=0.0, decoupled=False, maximize=False
):
    b1, b2 = betas
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    p = p.copy()
    rho_inf = 2 / (1 - b2) - 1
    for t, g in enumerate(gs, 1):
        g = -g if maximize else g
        if wd:
            if decoupled:
                p = p * (1 - lr * wd)
            else:
                g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1**t)
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho > 5:
            r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            p = p - lr * mhat * r * math.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
        else:
            p = p - lr * mhat
    return p


def ref_nadam(
    p, gs, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, wd=0.0, psi=4e-3, decoupled=False, maximize=False
):
    b1, b2 = betas
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    p = p.copy()
    prod = 1.0
    for t, g in enumerate(gs, 1):
        g = -g if maximize else g
        if wd:
            if decoupled:
                p = p * (1 - lr * wd)
            else:
                g = g + wd * p
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        prod *= mu
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        d = np.sqrt(v / (1 - b2**t)) + eps
        p = p - lr * (1 - mu) / (1 - prod) * g / d - lr * mu_next / (1 - prod * mu_next) * m / d
    return p


def run(opt_cls, p0, gs, **kw):
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = opt_cls([p], **kw)
    for g in gs:
        p.grad = fg.tensor(g)
        opt.step()
    return p.detach().numpy(), opt, p


RADAM_CASES = [
    ({}, {}),
    ({"lr": 0.01, "weight_decay": 0.1}, {"lr": 0.01, "wd": 0.1}),
    (
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.01, "wd": 0.1, "decoupled": True},
    ),
    ({"lr": 0.02, "maximize": True}, {"lr": 0.02, "maximize": True}),
    # b2 = 0.9: rho_t passes 5 at step 6, so both branches run
    (
        {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3},
        {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3},
    ),
]


@pytest.mark.parametrize("kw, ref_kw", RADAM_CASES)
def test_radam_matches_its_formula(kw, ref_kw):
    p0, gs = grads(1)
    got, _, _ = run(fg.optim.RAdam, p0, gs, **kw)
    np.testing.assert_allclose(got, ref_radam(p0, gs, **ref_kw), rtol=1e-12, atol=1e-14)


NADAM_CASES = [
    ({}, {}),
    ({"lr": 0.01, "weight_decay": 0.1}, {"lr": 0.01, "wd": 0.1}),
    (
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.01, "wd": 0.1, "decoupled": True},
    ),
    (
        {"lr": 0.02, "maximize": True, "momentum_decay": 0.05},
        {"lr": 0.02, "maximize": True, "psi": 0.05},
    ),
    ({"betas": (0.5, 0.9), "eps": 1e-4}, {"betas": (0.5, 0.9), "eps": 1e-4}),
]


@pytest.mark.parametrize("kw, ref_kw", NADAM_CASES)
def test_nadam_matches_its_formula(kw, ref_kw):
    p0, gs = grads(2)
    got, opt, p = run(fg.optim.NAdam, p0, gs, **kw)
    np.testing.assert_allclose(got, ref_nadam(p0, gs, **ref_kw), rtol=1e-12, atol=1e-14)
    assert set(opt.state[p]) == {"step", "exp_avg", "exp_avg_sq", "mu_product"}
    assert opt.state[p]["step"] == STEPS


def test_paddle_spellings():
    p0, gs = grads(3)
    got, _, _ = run(
        lambda ps, **kw: fg.optimizer.RAdam(parameters=ps, **kw),
        p0, gs, learning_rate=0.01, beta1=0.8, beta2=0.9, epsilon=1e-6, weight_decay=0.01,
    )  # fmt: skip
    want = ref_radam(p0, gs, lr=0.01, betas=(0.8, 0.9), eps=1e-6, wd=0.01)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    got, _, _ = run(
        lambda ps, **kw: fg.optimizer.NAdam(parameters=ps, **kw),
        p0, gs, beta1=0.8, momentum_decay=0.01, weight_decay=fg.regularizer.L2Decay(0.01),
    )  # fmt: skip
    want = ref_nadam(p0, gs, lr=2e-3, betas=(0.8, 0.999), psi=0.01, wd=0.01)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", ["RAdam", "NAdam"])
def test_state_dict_round_trip_continues_the_same_run(cls):
    p0, gs = grads(4)
    opt_cls = getattr(fg.optim, cls)
    straight, _, _ = run(opt_cls, p0, gs, lr=0.01)
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = opt_cls([p], lr=0.01)
    for g in gs[:4]:
        p.grad = fg.tensor(g)
        opt.step()
    saved = opt.state_dict()
    q = fg.tensor(p.detach().numpy(), requires_grad=True)
    opt2 = opt_cls([q], lr=0.5)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == 0.01
    for g in gs[4:]:
        q.grad = fg.tensor(g)
        opt2.step()
    np.testing.assert_allclose(q.detach().numpy(), straight, rtol=1e-12, atol=1e-14)


def test_skips_parameters_without_gradients_and_trains():
    w = fg.tensor([[2.0, -1.0]], requires_grad=True)
    unused = fg.tensor([1.0], requires_grad=True)
    for cls in (fg.optim.RAdam, fg.optim.NAdam):
        x = w.detach().clone().requires_grad_()
        opt = cls([x, unused], lr=0.1)
        for _ in range(100):
            opt.zero_grad()
            (x * x).sum().backward()
            opt.step()
        assert float((x * x).sum().item()) < 0.5
        assert unused.tolist() == [1.0]


def test_bad_arguments():
    p = fg.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        fg.optim.RAdam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="learning rate"):
        fg.optim.NAdam([p], lr=-1.0)
    with pytest.raises(ValueError, match="momentum_decay"):
        fg.optim.NAdam([p], momentum_decay=-0.1)
    with pytest.raises(ValueError, match="epsilon"):
        fg.optim.RAdam([p], eps=-1.0)
    with pytest.raises(NotImplementedError, match="differentiable"):
        fg.optim.NAdam([p], differentiable=True)
