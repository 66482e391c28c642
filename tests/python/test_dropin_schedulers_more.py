"""The schedules added for drop-in scripts (session 17), against their formulas: LinearLR,
ConstantLR, PolynomialLR / PolynomialDecay, MultiplicativeLR, NaturalExpDecay,
InverseTimeDecay, CosineAnnealingWarmRestarts and SequentialLR."""

import math

import ferrograd as fg
import pytest
from ferrograd.optim import lr_scheduler as L
from ferrograd.optimizer import lr as P


def _opt(lr=0.1):
    return fg.optim.SGD([fg.nn.Parameter(fg.zeros([1]))], lr=lr)


def _run(opt, sched, n):
    out = [opt.param_groups[0]["lr"]]
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(opt.param_groups[0]["lr"])
    return out


def test_linear_constant_polynomial_multiplicative():
    o = _opt()
    got = _run(o, L.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=3), 4)
    assert got == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1])
    o = _opt()
    assert _run(o, L.ConstantLR(o, factor=0.5, total_iters=2), 3) == pytest.approx(
        [0.05, 0.05, 0.1, 0.1]
    )
    o = _opt()
    got = _run(o, L.PolynomialLR(o, total_iters=4, power=2.0), 5)
    assert got == pytest.approx([0.1 * (1 - min(e, 4) / 4) ** 2 for e in range(6)])
    o = _opt()
    got = _run(o, L.MultiplicativeLR(o, lambda e: 0.5 if e % 2 else 0.9), 4)
    assert got == pytest.approx([0.1, 0.05, 0.045, 0.0225, 0.02025])


def test_paddle_spellings_stand_alone():
    s = P.LinearLR(learning_rate=0.2, total_steps=4, start_factor=0.5)
    rates = []
    for _ in range(5):
        rates.append(s())
        s.step()
    assert rates == pytest.approx([0.1, 0.125, 0.15, 0.175, 0.2])
    s = P.LinearLR(0.2, 2)  # positional: (learning_rate, total_steps); start 1/3
    assert s() == pytest.approx(0.2 / 3)
    s = P.PolynomialDecay(learning_rate=1.0, decay_steps=4, end_lr=0.2, power=1.0)
    rates = [s()] + [s.step() or s() for _ in range(5)]
    assert rates == pytest.approx([1.0, 0.8, 0.6, 0.4, 0.2, 0.2])
    s = P.PolynomialDecay(learning_rate=1.0, decay_steps=2, end_lr=0.0, cycle=True)
    rates = [s()] + [s.step() or s() for _ in range(4)]
    assert rates == pytest.approx([1.0, 0.5, 0.0, 1 - 3 / 4, 0.0])
    s = P.NaturalExpDecay(learning_rate=0.5, gamma=0.1)
    s.step(3)
    assert s() == pytest.approx(0.5 * math.exp(-0.3))
    s = P.InverseTimeDecay(learning_rate=0.5, gamma=0.1)
    s.step(3)
    assert s() == pytest.approx(0.5 / 1.3)
    s = P.MultiplicativeDecay(learning_rate=1.0, lr_lambda=lambda e: 0.5)
    s.step()
    s.step()
    assert s() == pytest.approx(0.25)


def _sgdr(base, eta, t_cur, t_i):
    return eta + (base - eta) * (1 + math.cos(math.pi * t_cur / t_i)) / 2


def test_cosine_warm_restarts_periods():
    o = _opt(1.0)
    s = L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.1)
    got = _run(o, s, 7)
    # periods of 2, 4, 8 epochs starting at 0, 2, 6
    want = [
        _sgdr(1.0, 0.1, t, ti)
        for t, ti in [(0, 2), (1, 2), (0, 4), (1, 4), (2, 4), (3, 4), (0, 8), (1, 8)]
    ]
    assert got == pytest.approx(want)
    s.step(2.5)  # a fractional epoch, as in PyTorch's per-iteration use
    assert o.param_groups[0]["lr"] == pytest.approx(_sgdr(1.0, 0.1, 0.5, 4))
    p = P.CosineAnnealingWarmRestarts(learning_rate=1.0, T_0=3)
    rates = [p()] + [p.step() or p() for _ in range(4)]
    assert rates == pytest.approx([_sgdr(1.0, 0.0, t % 3, 3) for t in range(5)])


def test_sequential_lr_warmup_then_cosine():
    o = _opt(0.1)
    warm = L.LinearLR(o, start_factor=0.1, total_iters=3)
    main = L.CosineAnnealingLR(o, T_max=4)
    s = L.SequentialLR(o, [warm, main], milestones=[3])
    got = _run(o, s, 6)
    cos = [0.1 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(4)]
    assert got == pytest.approx([0.01, 0.04, 0.07, *cos])
    assert s.get_last_lr() == pytest.approx([cos[3]])


def test_a_second_scheduler_keeps_the_initial_rate():
    # both schedules must start from the optimizer's rate, not from the rate the
    # first one already set (PyTorch's setdefault of initial_lr)
    o = _opt(0.1)
    L.LinearLR(o, start_factor=0.5, total_iters=2)
    second = L.StepLR(o, step_size=1, gamma=0.5)
    assert second.base_lrs == [0.1]
    assert o.param_groups[0]["lr"] == pytest.approx(0.1)
