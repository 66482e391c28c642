"""Session-20 differential run: schedulers and optimizers against the peers' numbers
(torch 2.15 and Paddle 3.3.1, recorded on 2026-11-29; rounded to 8 digits)."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.optim import lr_scheduler as S


def _sgd(lr=0.1, momentum=0.9):
    p = fg.nn.Parameter(fg.tensor(np.ones(2)))
    return fg.optim.SGD([p], lr=lr, momentum=momentum)


def _run(opt, sched, n):
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(n):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    return lrs


def test_cyclic_lr_triangular_and_momentum():
    o = _sgd()
    s = S.CyclicLR(o, 0.01, 0.1, step_size_up=4)
    # torch 2.15
    ref = [0.01, 0.0325, 0.055, 0.0775, 0.1, 0.0775, 0.055, 0.0325, 0.01, 0.0325, 0.055, 0.0775]
    np.testing.assert_allclose(_run(o, s, 11), ref, rtol=1e-7)
    # momentum swings the other way: 3 steps into the second cycle, 0.9 - 0.75 * 0.1
    assert o.param_groups[0]["momentum"] == pytest.approx(0.825)
    for _ in range(19):
        o.step()
        s.step()
    assert o.param_groups[0]["momentum"] == pytest.approx(0.85)  # torch 2.15, 30 steps


def test_cyclic_lr_exp_range_and_triangular2():
    o = _sgd()
    s = S.CyclicLR(o, 0.01, 0.1, step_size_up=4, mode="exp_range", gamma=0.9)
    ref = [0.01, 0.03025, 0.04645, 0.0592075, 0.069049, 0.04985808, 0.03391485, 0.02076168]
    np.testing.assert_allclose(_run(o, s, 7), ref, rtol=1e-6)
    o = _sgd()
    s = S.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5, mode="triangular2")
    ref = [0.01, 0.04, 0.07, 0.1, 0.082, 0.064, 0.046, 0.028, 0.01, 0.025, 0.04, 0.055]
    np.testing.assert_allclose(_run(o, s, 11), ref, rtol=1e-7)


def test_cyclic_lr_paddle_spelling():
    s = fg.optimizer.lr.CyclicLR(0.01, 0.1, step_size_up=3, step_size_down=5, mode="triangular2")
    lrs = [s()]
    for _ in range(11):
        s.step()
        lrs.append(s.last_lr)
    # Paddle 3.3.1 (the same numbers as torch's)
    ref = [0.01, 0.04, 0.07, 0.1, 0.082, 0.064, 0.046, 0.028, 0.01, 0.025, 0.04, 0.055]
    np.testing.assert_allclose(lrs, ref, rtol=1e-7)
    s = fg.optimizer.lr.CyclicLR(0.01, 0.1, 4, mode="exp_range", exp_gamma=0.9)
    s.step()
    assert s.last_lr == pytest.approx(0.03025)


def test_cyclic_lr_bad_mode():
    with pytest.raises(ValueError, match="mode"):
        S.CyclicLR(_sgd(), 0.01, 0.1, mode="square")


def test_chained_scheduler_multiplies_factors():
    o = _sgd()
    s = S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=5), S.ExponentialLR(o, 0.9)])
    # torch 2.15
    ref = [0.05, 0.045, 0.0405, 0.03645, 0.032805, 0.059049, 0.0531441, 0.04782969, 0.04304672]
    np.testing.assert_allclose(_run(o, s, 8), ref, rtol=1e-7)
    assert s.get_last_lr() == pytest.approx([0.04304672])
    o = _sgd()
    s = S.ChainedScheduler([S.StepLR(o, 4, 0.5), S.LinearLR(o, 0.5, total_iters=6)], optimizer=o)
    ref = [0.05, 0.05833333, 0.06666667, 0.075, 0.04166667, 0.04583333, 0.05, 0.05, 0.025]
    np.testing.assert_allclose(_run(o, s, 8), ref, rtol=1e-6)


def test_chained_scheduler_refuses_non_multiplicative():
    o = _sgd()
    with pytest.raises(TypeError, match="multiplicative"):
        S.ChainedScheduler([S.LambdaLR(o, lambda e: 1.0), S.ExponentialLR(o, 0.9)])


def test_adam_decoupled_weight_decay_is_adamw():
    def run(cls, **kw):
        p = fg.nn.Parameter(fg.tensor(np.array([1.0, -2.0, 0.5])))
        o = cls([p], lr=0.05, weight_decay=0.3, **kw)
        for _ in range(4):
            o.zero_grad()
            (p**3).sum().backward()
            o.step()
        return p.detach().numpy(), o

    got, o = run(fg.optim.Adam, decoupled_weight_decay=True)
    want, _ = run(fg.optim.AdamW)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert o.param_groups[0]["decoupled_weight_decay"] is True  # torch 2.15's group key
    plain, o = run(fg.optim.Adam)
    assert not np.allclose(plain, want) and o.param_groups[0]["decoupled_weight_decay"] is False
    with pytest.raises(TypeError, match="decoupled_weight_decay"):
        fg.optim.AdamW([fg.nn.Parameter(fg.zeros(1))], decoupled_weight_decay=False)


@pytest.mark.parametrize("ls", [None, "strong_wolfe"])
def test_lbfgs_maximize(ls):
    x = fg.nn.Parameter(fg.tensor(np.array([0.5, -0.3])))
    o = fg.optim.LBFGS([x], lr=0.5, max_iter=5, line_search_fn=ls, maximize=True)
    target = fg.tensor(np.array([1.0, 2.0]))

    def closure():
        o.zero_grad()
        loss = -((x - target) ** 2).sum() - (x**4).sum() * 0.1
        loss.backward()
        return loss

    first = o.step(closure)
    assert float(first) == pytest.approx(-5.54706)
    o.step(closure)
    o.step(closure)
    # torch 2.15 (both line searches end there after 3 steps)
    np.testing.assert_allclose(x.detach().numpy(), [0.8688127062, 1.4233029909], rtol=1e-8)


@pytest.mark.parametrize("kind", ["chained", "sequential"])
def test_composed_schedules_state_dict_round_trip(kind):
    """A schedule made of others saves its schedulers' states and resumes from them."""

    def make():
        o = _sgd()
        parts = [S.ConstantLR(o, factor=0.5, total_iters=3), S.ExponentialLR(o, 0.9)]
        if kind == "chained":
            return o, S.ChainedScheduler(parts)
        return o, S.SequentialLR(o, parts, milestones=[2])

    o1, s1 = make()
    _run(o1, s1, 3)
    o2, s2 = make()
    s2.load_state_dict(s1.state_dict())
    o2.param_groups[0]["lr"] = o1.param_groups[0]["lr"]
    assert "_schedulers" in s1.state_dict() and "optimizer" not in s1.state_dict()
    np.testing.assert_allclose(_run(o2, s2, 4), _run(o1, s1, 4), rtol=1e-12)
