"""Issue 17: ``optim.Rprop`` / ``optim.ASGD`` / ``optim.SparseAdam`` and Paddle's
``optimizer.Rprop`` / ``optimizer.ASGD`` against their update rules written out in NumPy
(float64) for several steps; ``state_dict`` round trips, parameter groups, bad
arguments."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

STEPS = 8


def grads(seed=0, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), [rng.standard_normal(shape) for _ in range(STEPS)]


def run(opt, p, gs):
    for g in gs:
        p.grad = fg.tensor(g)
        opt.step()
    return p.detach().numpy()


def ref_rprop(p, gs, lr=1e-2, etas=(0.5, 1.2), sizes=(1e-6, 50), maximize=False):
    p = p.copy()
    prev = np.zeros_like(p)
    size = np.full_like(p, lr)
    for g in gs:
        g = -g if maximize else g.copy()
        s = np.sign(g * prev)
        size = np.clip(size * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)), *sizes)
        g[s < 0] = 0
        p -= np.sign(g) * size
        prev = g
    return p


def ref_asgd(p, gs, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, wd=0.0, maximize=False):
    p = p.copy()
    eta, mu, ax = lr, 1.0, np.zeros_like(p)
    for t, g in enumerate(gs, 1):
        g = -g if maximize else g
        g = g + wd * p
        p = p * (1 - lambd * eta) - eta * g
        ax = p.copy() if mu == 1 else ax + mu * (p - ax)
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)
    return p, ax


def ref_sparse_adam(p, gs, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
    b1, b2 = betas
    p = p.copy()
    m, v = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(gs, 1):
        g = -g if maximize else g
        rows = np.any(g.reshape(g.shape[0], -1) != 0, axis=1) if g.ndim >= 2 else g != 0
        for r in np.flatnonzero(rows):
            m[r] = b1 * m[r] + (1 - b1) * g[r]
            v[r] = b2 * v[r] + (1 - b2) * g[r] ** 2
            p[r] -= lr * math.sqrt(1 - b2**t) / (1 - b1**t) * m[r] / (np.sqrt(v[r]) + eps)
    return p


def ref_paddle_asgd(p, gs, lr=1e-3, n=1, wd=0.0):
    p = p.copy()
    d, y = np.zeros_like(p), np.zeros((n, *p.shape))
    for m, g in enumerate(gs):
        g = g + wd * p
        i = m % n
        d = d - y[i] + g
        y[i] = g
        p = p - lr / min(m + 1, n) * d
    return p


# ---- Rprop ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, ref_kw",
    [
        ({}, {}),
        ({"lr": 0.1, "etas": (0.3, 1.5)}, {"lr": 0.1, "etas": (0.3, 1.5)}),
        ({"lr": 0.1, "step_sizes": (0.05, 0.2)}, {"lr": 0.1, "sizes": (0.05, 0.2)}),
        ({"maximize": True, "foreach": False}, {"maximize": True}),
    ],
)
def test_rprop_matches_its_rule(kw, ref_kw):
    p0, gs = grads(1)
    # repeat gradients so that signs both persist and flip
    gs = gs[:3] + [g * 0.5 for g in gs[:3]] + gs[3:]
    p = fg.tensor(p0.copy(), requires_grad=True)
    got = run(fg.optim.Rprop([p], **kw), p, gs)
    np.testing.assert_allclose(got, ref_rprop(p0, gs, **ref_kw), rtol=1e-12, atol=1e-14)


def test_rprop_zero_gradient_elements_keep_their_size():
    p = fg.tensor([1.0, 2.0], requires_grad=True)
    opt = fg.optim.Rprop([p], lr=0.1)
    for g in ([1.0, 0.0], [1.0, 0.0], [-1.0, 1.0]):
        p.grad = fg.tensor(g)
        opt.step()
    st = opt.state[p]
    np.testing.assert_allclose(st["step_size"].numpy(), [0.12 * 0.5, 0.1])
    np.testing.assert_allclose(st["prev"].numpy(), [0.0, 1.0])
    assert st["step"] == 3


def test_paddle_rprop_names_and_checks():
    p0, gs = grads(2)
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = fg.optimizer.Rprop(
        learning_rate=0.01, learning_rate_range=(1e-3, 0.05), parameters=[p], etas=(0.4, 1.3)
    )
    got = run(opt, p, gs)
    ref = ref_rprop(p0, gs, lr=0.01, etas=(0.4, 1.3), sizes=(1e-3, 0.05))
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    with pytest.raises(ValueError, match="learning_rate_range"):
        fg.optimizer.Rprop(learning_rate=1.0, learning_rate_range=(1e-3, 0.5), parameters=[p])
    with pytest.raises(ValueError, match="eta"):
        fg.optimizer.Rprop(parameters=[p], etas=(1.5, 1.2))
    # Paddle's defaults: learning_rate 0.001
    opt = fg.optimizer.Rprop(parameters=[p])
    assert opt.param_groups[0]["lr"] == 0.001


# ---- ASGD -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"lr": 0.05, "t0": 3, "weight_decay": 0.1},
        {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 0},
        {"lr": 0.02, "maximize": True, "t0": 2},
    ],
)
def test_asgd_matches_its_rule(kw):
    p0, gs = grads(3)
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = fg.optim.ASGD([p], **kw)
    got = run(opt, p, gs)
    ref_kw = {("wd" if k == "weight_decay" else k): v for k, v in kw.items()}
    ref_p, ref_ax = ref_asgd(p0, gs, **ref_kw)
    np.testing.assert_allclose(got, ref_p, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(opt.state[p]["ax"].numpy(), ref_ax, rtol=1e-12, atol=1e-14)
    st = opt.state[p]
    assert st["step"] == STEPS
    assert st["eta"].ndim == 0 and st["mu"].ndim == 0


def test_asgd_state_dict_round_trip_continues_the_trajectory():
    p0, gs = grads(4)
    kw = {"lr": 0.05, "t0": 2}
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = fg.optim.ASGD([p], **kw)
    run(opt, p, gs[:4])
    saved = opt.state_dict()
    q = fg.tensor(p.detach().numpy().copy(), requires_grad=True)
    opt2 = fg.optim.ASGD([q], lr=1.0)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == 0.05
    got = run(opt2, q, gs[4:])
    np.testing.assert_allclose(got, ref_asgd(p0, gs, **kw)[0], rtol=1e-12)
    # the saved copy is independent of the optimizer
    run(opt, p, gs[4:])
    assert saved["state"][0]["step"] == 4


def test_param_groups_have_their_own_settings():
    p0, gs = grads(5)
    a = fg.tensor(p0.copy(), requires_grad=True)
    b = fg.tensor(p0.copy(), requires_grad=True)
    opt = fg.optim.Rprop([{"params": [a]}, {"params": [b], "lr": 0.1}], lr=0.01)
    for g in gs:
        a.grad, b.grad = fg.tensor(g), fg.tensor(g)
        opt.step()
    np.testing.assert_allclose(a.detach().numpy(), ref_rprop(p0, gs, lr=0.01), rtol=1e-12)
    np.testing.assert_allclose(b.detach().numpy(), ref_rprop(p0, gs, lr=0.1), rtol=1e-12)
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1]
    assert sd["param_groups"][1]["lr"] == 0.1


@pytest.mark.parametrize("n, wd", [(1, 0.0), (3, 0.0), (2, 0.05)])
def test_paddle_asgd_is_sag(n, wd):
    p0, gs = grads(6)
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = fg.optimizer.ASGD(0.1, n, [p], weight_decay=wd or None)
    got = run(opt, p, gs)
    np.testing.assert_allclose(got, ref_paddle_asgd(p0, gs, 0.1, n, wd), rtol=1e-12, atol=1e-14)
    saved = opt.state_dict()
    assert list(saved["state"][0]["y"].shape) == [n, 3, 4]
    opt.load_state_dict(saved)
    bad = dict(saved, state={0: dict(saved["state"][0], y=fg.zeros([n + 1, 3, 4]))})
    with pytest.raises(ValueError, match="shape"):
        opt.load_state_dict(bad)


@pytest.mark.parametrize("n", [0, -1, 2**40, 2**63 - 1, None, True])
def test_paddle_asgd_refuses_bad_batch_num(n):
    p = fg.zeros([2], requires_grad=True)
    with pytest.raises((ValueError, TypeError)):
        fg.optimizer.ASGD(parameters=[p], batch_num=n)


# ---- SparseAdam -----------------------------------------------------------------------


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_updates_only_touched_rows(maximize):
    p0, gs = grads(7, shape=(6, 3))
    for t, g in enumerate(gs):  # a different set of rows has a gradient each step
        g[[(t + k) % 6 for k in range(3)]] = 0.0
    p = fg.tensor(p0.copy(), requires_grad=True)
    got = run(fg.optim.SparseAdam([p], lr=0.1, maximize=maximize), p, gs)
    np.testing.assert_allclose(
        got, ref_sparse_adam(p0, gs, lr=0.1, maximize=maximize), rtol=1e-12, atol=1e-14
    )


def test_sparse_adam_embedding_rows_and_1d():
    w0 = np.arange(12.0).reshape(4, 3) / 10
    w = fg.tensor(w0.copy(), requires_grad=True)
    opt = fg.optim.SparseAdam([w], lr=0.5)
    fg.nn.functional.embedding(fg.tensor([1, 3]), w).sum().backward()
    opt.step()
    moved = np.any(w.detach().numpy() != w0, axis=1)
    assert moved.tolist() == [False, True, False, True]
    b0, gs = grads(8, shape=(5,))
    gs = [np.where(np.abs(g) < 0.5, 0.0, g) for g in gs]
    b = fg.tensor(b0.copy(), requires_grad=True)
    got = run(fg.optim.SparseAdam([b], lr=0.1), b, gs)
    np.testing.assert_allclose(got, ref_sparse_adam(b0, gs, lr=0.1), rtol=1e-12, atol=1e-14)


def test_sparse_adam_state_dict():
    p0, gs = grads(9)
    p = fg.tensor(p0.copy(), requires_grad=True)
    opt = fg.optim.SparseAdam([p])
    run(opt, p, gs[:3])
    sd = opt.state_dict()
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]
    q = fg.tensor(p.detach().numpy().copy(), requires_grad=True)
    opt2 = fg.optim.SparseAdam([q])
    opt2.load_state_dict(sd)
    np.testing.assert_allclose(run(opt2, q, gs[3:]), ref_sparse_adam(p0, gs), rtol=1e-12)


# ---- bad arguments --------------------------------------------------------------------


def test_bad_arguments_raise():
    p = fg.zeros([2], requires_grad=True)
    with pytest.raises(ValueError, match="eta"):
        fg.optim.Rprop([p], etas=(0.5, 0.9))
    with pytest.raises(ValueError, match="step sizes"):
        fg.optim.Rprop([p], step_sizes=(1.0, 0.1))
    with pytest.raises(TypeError, match="pair"):
        fg.optim.Rprop([p], etas=0.5)
    with pytest.raises(ValueError, match="learning rate"):
        fg.optim.ASGD([p], lr=-1.0)
    with pytest.raises(ValueError, match="weight_decay"):
        fg.optim.ASGD([p], weight_decay=-0.1)
    with pytest.raises(ValueError, match="beta"):
        fg.optim.SparseAdam([p], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="epsilon"):
        fg.optim.SparseAdam([p], eps=0.0)
    with pytest.raises(NotImplementedError):
        fg.optim.ASGD([p], differentiable=True)
    with pytest.raises(ValueError, match="no parameters"):
        fg.optim.Rprop()


def test_names_in_both_dialects():
    assert {"Rprop", "ASGD", "SparseAdam"} <= set(fg.optim.__all__)
    assert {"Rprop", "ASGD"} <= set(fg.optimizer.__all__)
    assert fg.optimizer.ASGD is not fg.optim.ASGD  # Paddle's ASGD is SAG
    assert issubclass(fg.optimizer.Rprop, fg.optim.Rprop)
