"""LambdaLR, MultiStepLR, ExponentialLR, OneCycleLR, ReduceLROnPlateau (torch) and
Paddle's LambdaDecay, MultiStepDecay, ExponentialDecay, PiecewiseDecay, NoamDecay,
LinearWarmup, ReduceOnPlateau, OneCycleLR: rates against the peers' documented formulas,
written out independently here, and state_dict round trips."""

from __future__ import annotations

import math

import ferrograd as fg
import pytest
from ferrograd import optim
from ferrograd.optimizer import lr as plr

LS = optim.lr_scheduler


def _sgd(lr=1.0, momentum=0.0, groups=1):
    ps = [fg.zeros([1], requires_grad=True) for _ in range(groups)]
    if groups == 1:
        return optim.SGD(ps, lr=lr, momentum=momentum)
    return optim.SGD(
        [{"params": [p], "lr": lr * (i + 1)} for i, p in enumerate(ps)], lr=lr, momentum=momentum
    )


def _torch_rates(sched, opt, n):
    out = []
    for _ in range(n):
        out.append([g["lr"] for g in opt.param_groups])
        opt.step()
        sched.step()
    return out


def _paddle_rates(sched, n):
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


def test_lambda_multistep_exponential_torch():
    opt = _sgd(0.5, groups=2)
    s = LS.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.9**e])
    got = [r for rates in _torch_rates(s, opt, 5) for r in rates]
    assert got == pytest.approx([r for e in range(5) for r in (0.5 / (e + 1), 1.0 * 0.9**e)])

    opt = _sgd(1.0)
    s = LS.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    assert [r[0] for r in _torch_rates(s, opt, 6)] == pytest.approx([1, 1, 0.5, 0.5, 0.25, 0.25])

    opt = _sgd(2.0)
    s = LS.ExponentialLR(opt, gamma=0.8)
    assert [r[0] for r in _torch_rates(s, opt, 4)] == pytest.approx([2 * 0.8**e for e in range(4)])
    assert s.get_last_lr() == pytest.approx([2 * 0.8**4])


def test_paddle_closed_forms():
    assert _paddle_rates(plr.LambdaDecay(0.5, lambda e: 0.95**e), 4) == pytest.approx(
        [0.5 * 0.95**e for e in range(4)]
    )
    assert _paddle_rates(plr.MultiStepDecay(1.0, [1, 3], gamma=0.1), 5) == pytest.approx(
        [1, 0.1, 0.1, 0.01, 0.01]
    )
    assert _paddle_rates(plr.ExponentialDecay(1.0, 0.5), 3) == pytest.approx([1, 0.5, 0.25])
    pw = plr.PiecewiseDecay(boundaries=[2, 4], values=[1.0, 0.5, 0.1])
    assert _paddle_rates(pw, 6) == pytest.approx([1, 1, 0.5, 0.5, 0.1, 0.1])
    # Noam: lr * d^-0.5 * min(e^-0.5, e * w^-1.5), with e^-0.5 taken as 1 at e = 0
    d, w = 64, 3
    want = [2.0 * d**-0.5 * min(1.0 if e == 0 else e**-0.5, e * w**-1.5) for e in range(7)]
    assert _paddle_rates(plr.NoamDecay(d, w, learning_rate=2.0), 7) == pytest.approx(want)


def test_linear_warmup_with_a_float_and_with_a_scheduler():
    lw = plr.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5)
    assert _paddle_rates(lw, 6) == pytest.approx([0, 0.125, 0.25, 0.375, 0.5, 0.5])
    inner = plr.ExponentialDecay(0.5, 0.5)
    lw = plr.LinearWarmup(inner, warmup_steps=2, start_lr=0.1, end_lr=0.5)
    assert _paddle_rates(lw, 5) == pytest.approx([0.1, 0.3, 0.5, 0.25, 0.125])
    # it drives a Paddle optimizer
    p = fg.ones([1], requires_grad=True)
    sched = plr.LinearWarmup(1.0, warmup_steps=2, start_lr=0.0, end_lr=1.0)
    opt = fg.optimizer.SGD(learning_rate=sched, parameters=[p])
    assert opt.get_lr() == 0.0
    sched.step()
    assert opt.get_lr() == pytest.approx(0.5)


def _one_cycle_reference(step, total, max_lr, initial, low, pct, strategy, three):
    """torch's documented OneCycleLR phases, written out."""
    if three:
        phases = [
            (pct * total - 1, initial, max_lr),
            (2 * pct * total - 2, max_lr, initial),
            (total - 1, initial, low),
        ]
    else:
        phases = [(pct * total - 1, initial, max_lr), (total - 1, max_lr, low)]
    start = 0.0
    for i, (end, a, b) in enumerate(phases):
        if step <= end or i == len(phases) - 1:
            frac = (step - start) / (end - start)
            if strategy == "cos":
                return b + (a - b) / 2 * (math.cos(math.pi * frac) + 1)
            return (b - a) * frac + a
        start = end
    raise AssertionError


@pytest.mark.parametrize("strategy,three", [("cos", False), ("linear", False), ("cos", True)])
def test_one_cycle_torch_and_paddle(strategy, three):
    total = 20
    opt = _sgd(1.0, momentum=0.9)
    s = LS.OneCycleLR(
        opt, max_lr=0.1, total_steps=total, anneal_strategy=strategy, three_phase=three
    )
    initial = 0.1 / 25
    got = [r[0] for r in _torch_rates(s, opt, total)]
    want = [
        _one_cycle_reference(k, total, 0.1, initial, initial / 1e4, 0.3, strategy, three)
        for k in range(total)
    ]
    assert got == pytest.approx(want)
    assert max(got) == pytest.approx(0.1, rel=0.05)
    with pytest.raises(ValueError, match="total steps"):
        s.step()
        s.step()

    p = plr.OneCycleLR(
        max_learning_rate=0.1,
        total_steps=total,
        end_learning_rate=1e-4,
        anneal_strategy=strategy,
        three_phase=three,
    )
    want = [
        _one_cycle_reference(k, total, 0.1, initial, 1e-4, 0.3, strategy, three)
        for k in range(total)
    ]
    assert _paddle_rates(p, total) == pytest.approx(want)


def test_one_cycle_cycles_momentum_and_betas():
    opt = _sgd(1.0, momentum=0.9)
    s = LS.OneCycleLR(opt, max_lr=0.1, epochs=2, steps_per_epoch=5)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)  # starts at max_momentum
    for _ in range(2):
        s.step()
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.85)  # peak rate, low momentum
    adam = optim.Adam([fg.zeros([1], requires_grad=True)], lr=0.1)
    s = LS.OneCycleLR(adam, max_lr=0.1, total_steps=10)
    s.step()
    assert adam.param_groups[0]["betas"][0] < 0.95
    with pytest.raises(ValueError, match="total_steps OR"):
        LS.OneCycleLR(_sgd(), max_lr=0.1)


def test_reduce_lr_on_plateau_torch():
    opt = _sgd(1.0)
    s = LS.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    lrs = []
    for metric in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        s.step(metric)
        lrs.append(opt.param_groups[0]["lr"])
    # bad epochs: 1, 2 -> reduce (cooldown 1: next epoch not counted), then 1, 2 -> reduce...
    assert lrs == pytest.approx([1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25])
    # floored at min_lr
    for _ in range(6):
        s.step(2.0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.2)
    # mode max, abs threshold: an improvement smaller than the threshold counts as bad
    opt = _sgd(1.0)
    s = LS.ReduceLROnPlateau(opt, mode="max", threshold=0.1, threshold_mode="abs", patience=0)
    s.step(1.0)
    s.step(1.05)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="Factor"):
        LS.ReduceLROnPlateau(_sgd(), factor=1.5)


def test_reduce_on_plateau_paddle_drives_optimizer():
    sched = plr.ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=1, cooldown=1)
    p = fg.ones([1], requires_grad=True)
    opt = fg.optimizer.SGD(learning_rate=sched, parameters=[p])
    metrics = [1.0, 1.0, 1.0, 0.5, 0.9, 0.9, 0.9, 0.9]
    lrs = []
    for metric in metrics:
        sched.step(fg.to_tensor(metric))
        lrs.append(sched())
    # Paddle skips the metric during the cooldown epoch (the 0.5): 0.9 then improves
    assert lrs == pytest.approx([1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25])
    assert opt.get_lr() == pytest.approx(0.25)
    # torch records the 0.5 as the best, so the 0.9s are bad epochs at once
    t_opt = _sgd(1.0)
    t = LS.ReduceLROnPlateau(t_opt, factor=0.5, patience=1, cooldown=1)
    t_lrs = []
    for metric in metrics:
        t.step(metric)
        t_lrs.append(t_opt.param_groups[0]["lr"])
    assert t_lrs == pytest.approx([1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25])


def _round_trip(make, steps, more):
    a = make()
    for _ in range(steps):
        a.step()
    b = make()
    b.load_state_dict(a.state_dict())
    ra, rb = [], []
    for _ in range(more):
        a.step()
        b.step()
        ra.append(a.last_lr)
        rb.append(b.last_lr)
    assert ra == rb


@pytest.mark.parametrize(
    "make",
    [
        lambda: LS.LambdaLR(_sgd(), lambda e: 0.5**e),
        lambda: LS.MultiStepLR(_sgd(), [3, 5]),
        lambda: LS.ExponentialLR(_sgd(), 0.9),
        lambda: LS.OneCycleLR(_sgd(momentum=0.9), max_lr=1.0, total_steps=12),
        lambda: plr.NoamDecay(16, 4),
        lambda: plr.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1]),
        lambda: plr.LinearWarmup(plr.ExponentialDecay(1.0, 0.5), 3, 0.0, 1.0),
        lambda: plr.OneCycleLR(1.0, 12),
    ],
)
def test_state_dict_round_trip(make):
    _round_trip(make, 4, 5)


def test_set_state_dict_runs_the_subclass_load():
    # Paddle's name must restore a composed schedule's nested states (it ran the base
    # class's load, which overwrote the schedulers with their state dicts)
    def make():
        opt = _sgd()
        return LS.SequentialLR(
            opt, [LS.ConstantLR(opt, 0.5, total_iters=2), LS.ExponentialLR(opt, 0.9)], [2]
        )

    a = make()
    for _ in range(4):
        a.step()
    b = make()
    b.set_state_dict(a.state_dict())
    a.step()
    b.step()
    assert b.get_last_lr() == pytest.approx(a.get_last_lr())


def test_plateau_state_dict_round_trip():
    a = LS.ReduceLROnPlateau(_sgd(), patience=1)
    for m in [3.0, 2.0, 2.0]:
        a.step(m)
    sd = a.state_dict()
    assert "optimizer" not in sd and sd["best"] == 2.0 and sd["num_bad_epochs"] == 1
    b = LS.ReduceLROnPlateau(_sgd(), patience=1)
    b.load_state_dict(sd)
    a.step(2.0)
    b.step(2.0)
    assert a.get_last_lr() == b.get_last_lr() == pytest.approx([0.1])


def test_bad_arguments():
    with pytest.raises(ValueError, match="increasing"):
        LS.MultiStepLR(_sgd(), [3, 1])
    with pytest.raises(ValueError, match="one more value"):
        plr.PiecewiseDecay([1, 2], [1.0])
    with pytest.raises(ValueError, match="lr_lambdas"):
        LS.LambdaLR(_sgd(groups=2), [lambda e: 1.0])
    with pytest.raises(ValueError, match="anneal_strategy"):
        LS.OneCycleLR(_sgd(momentum=0.9), max_lr=1.0, total_steps=5, anneal_strategy="x")
    with pytest.raises(ValueError, match="momentum or beta1"):
        LS.OneCycleLR(optim.Adagrad([fg.zeros([1], requires_grad=True)]), 1.0, 5)
    with pytest.raises(TypeError, match="learning_rate"):
        plr.LinearWarmup("x", 2, 0.0, 1.0)
