"""Optimizers and learning-rate schedulers against hand-computed (NumPy) updates."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import optim


def leaf(values, dtype="float64"):
    return fg.tensor(np.asarray(values, dtype=np.float64), dtype=dtype, requires_grad=True)


def set_grad(p, g):
    p.grad = fg.tensor(np.asarray(g, dtype=np.float64), dtype=p.dtype)


def sgd_reference(
    p, grads, lr, momentum=0.0, dampening=0.0, wd=0.0, nesterov=False, maximize=False
):
    p, buf = np.array(p, dtype=np.float64), None
    for g in grads:
        g = -np.asarray(g) if maximize else np.asarray(g, dtype=np.float64)
        g = g + wd * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def adam_reference(
    p, grads, lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, decoupled=False, amsgrad=False
):
    p = np.array(p, dtype=np.float64)
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        g = np.asarray(g, dtype=np.float64)
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        mhat = m / (1 - b1**t)
        vhat = (vmax if amsgrad else v) / (1 - b2**t)
        p = p - lr * mhat / (np.sqrt(vhat) + eps)
    return p


GRADS = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-0.75, 1.0, 0.125]]
P0 = [1.0, -2.0, 0.5]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"momentum": 0.9},
        {"momentum": 0.9, "dampening": 0.3},
        {"momentum": 0.8, "nesterov": True},
        {"momentum": 0.5, "weight_decay": 0.1},
        {"weight_decay": 0.2, "maximize": True},
    ],
)
def test_sgd_matches_hand_computed_updates(kw):
    p = leaf(P0)
    opt = optim.SGD([p], lr=0.1, **kw)
    for g in GRADS:
        set_grad(p, g)
        opt.step()
    ref = sgd_reference(
        P0,
        GRADS,
        0.1,
        kw.get("momentum", 0.0),
        kw.get("dampening", 0.0),
        kw.get("weight_decay", 0.0),
        kw.get("nesterov", False),
        kw.get("maximize", False),
    )
    np.testing.assert_allclose(p.numpy(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("cls", "kw", "ref_kw"),
    [
        (optim.Adam, {}, {}),
        (optim.Adam, {"weight_decay": 0.1}, {"wd": 0.1}),
        (
            optim.Adam,
            {"amsgrad": True, "betas": (0.8, 0.9)},
            {"amsgrad": True, "b1": 0.8, "b2": 0.9},
        ),
        (optim.AdamW, {}, {"wd": 0.01, "decoupled": True}),
        (
            optim.AdamW,
            {"weight_decay": 0.5, "eps": 1e-3},
            {"wd": 0.5, "decoupled": True, "eps": 1e-3},
        ),
    ],
)
def test_adam_family_matches_hand_computed_updates(cls, kw, ref_kw):
    p = leaf(P0)
    opt = cls([p], lr=0.05, **kw)
    for g in GRADS:
        set_grad(p, g)
        opt.step()
    np.testing.assert_allclose(
        p.numpy(), adam_reference(P0, GRADS, 0.05, **ref_kw), rtol=1e-12, atol=1e-12
    )


def test_step_bumps_versions_and_records_no_graph():
    p = leaf(P0)
    opt = optim.Adam([p], lr=0.1)
    y = (p * p).sum()
    y.backward()
    v0 = p._version
    opt.step()
    assert p._version == v0 + 1
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    st = opt.state[p]
    assert st["step"] == 1 and set(st) == {"step", "exp_avg", "exp_avg_sq"}
    np.testing.assert_allclose(st["exp_avg"].numpy(), 0.1 * 2 * np.array(P0))


def test_a_saved_parameter_modified_by_step_is_caught_at_backward():
    p = leaf(P0)
    opt = optim.SGD([p], lr=0.1)
    y = (p * p).sum()  # saves p
    p.grad = fg.ones_like(p)
    opt.step()
    with pytest.raises(RuntimeError, match="version|modified"):
        y.backward()


def test_parameters_without_grad_are_skipped():
    a, b = leaf([1.0, 2.0]), leaf([3.0])
    opt = optim.SGD([a, b], lr=0.5, momentum=0.9)
    set_grad(a, [1.0, 1.0])
    opt.step()
    np.testing.assert_allclose(a.numpy(), [0.5, 1.5])
    np.testing.assert_allclose(b.numpy(), [3.0])
    assert opt.state[b] == {} and "momentum_buffer" in opt.state[a]
    assert len(opt.state) == 1


def test_param_groups_use_their_own_hyperparameters():
    a, b = leaf([1.0]), leaf([1.0])
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    for _ in range(2):
        set_grad(a, [1.0])
        set_grad(b, [1.0])
        opt.step()
    np.testing.assert_allclose(a.numpy(), [1.0 - 0.2])
    np.testing.assert_allclose(b.numpy(), [1.0 - 0.5 - 0.5 * 1.9])
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[0]["momentum"] == 0.0


def test_zero_grad_and_clear_grad():
    p = leaf([1.0, 2.0])
    opt = optim.SGD([p], lr=0.1)
    set_grad(p, [3.0, 4.0])
    g = p.grad
    opt.clear_grad()  # Paddle: zero in place
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    assert p.grad is not None
    opt.zero_grad()  # torch: drop
    assert p.grad is None
    set_grad(p, [1.0, 1.0])
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])


def test_paddle_dialect_constructors_and_lr_access():
    p = leaf(P0)
    opt = fg.optimizer.Adam(
        learning_rate=0.05, beta1=0.8, beta2=0.9, epsilon=1e-6, parameters=[p], weight_decay=0.1
    )
    for g in GRADS:
        set_grad(p, g)
        opt.step()
    ref = adam_reference(P0, GRADS, 0.05, b1=0.8, b2=0.9, eps=1e-6, wd=0.1)
    np.testing.assert_allclose(p.numpy(), ref, rtol=1e-12)
    assert opt.get_lr() == 0.05
    opt.set_lr(0.01)
    assert opt.get_lr() == 0.01 and opt.param_groups[0]["lr"] == 0.01

    q = leaf([1.0])
    sgd = fg.optimizer.SGD(learning_rate=0.1, parameters=[q])
    set_grad(q, [2.0])
    sgd.step()
    sgd.clear_grad()
    np.testing.assert_allclose(q.numpy(), [0.8])
    np.testing.assert_array_equal(q.grad.numpy(), [0.0])

    r = leaf([1.0])
    mom = fg.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[r])
    for _ in range(2):
        set_grad(r, [1.0])
        mom.step()
    np.testing.assert_allclose(r.numpy(), sgd_reference([1.0], [[1.0]] * 2, 0.1, 0.9))

    w = leaf([2.0])
    adamw = fg.optimizer.AdamW(learning_rate=0.1, parameters=[w])
    assert adamw.param_groups[0]["weight_decay"] == 0.01


def test_paddle_scheduler_drives_the_optimizer():
    p = leaf([0.0])
    sched = fg.optimizer.lr.StepDecay(learning_rate=1.0, step_size=2, gamma=0.5)
    opt = fg.optimizer.SGD(learning_rate=sched, parameters=[p])
    moved = []
    for _ in range(4):
        before = float(p.numpy()[0])
        set_grad(p, [1.0])
        opt.step()
        moved.append(before - float(p.numpy()[0]))
        sched.step()
    np.testing.assert_allclose(moved, [1.0, 1.0, 0.5, 0.5])
    assert opt.get_lr() == 0.25
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.1)


def test_torch_schedulers_follow_closed_forms():
    p = leaf([0.0])
    opt = optim.SGD([p], lr=0.8)
    sched = optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.1)
    lrs = []
    for _ in range(7):
        lrs.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    np.testing.assert_allclose(lrs, [0.8] * 3 + [0.08] * 3 + [0.008])

    opt = optim.Adam([leaf([0.0])], lr=1.0)
    cos = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.1)
    seen = [opt.param_groups[0]["lr"]]
    for _ in range(4):
        cos.step()
        seen.append(opt.param_groups[0]["lr"])
    want = [0.1 + 0.9 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(5)]
    np.testing.assert_allclose(seen, want)
    d = fg.optimizer.lr.CosineAnnealingDecay(learning_rate=1.0, T_max=4)
    d.step()
    d.step()
    assert abs(d() - 0.5) < 1e-12 and abs(d.get_lr() - 0.5) < 1e-12


def test_state_dict_round_trip_continues_identically():
    def make():
        p = leaf(P0)
        return p, optim.Adam([p], lr=0.05, amsgrad=True)

    p1, o1 = make()
    for g in GRADS[:2]:
        set_grad(p1, g)
        o1.step()
    sd = o1.state_dict()
    assert sd["state"][0]["step"] == 2 and sd["param_groups"][0]["params"] == [0]
    p2, o2 = make()
    with fg.no_grad():
        p2.copy_(p1)
    o2.load_state_dict(sd)
    for p, o in ((p1, o1), (p2, o2)):
        set_grad(p, GRADS[2])
        o.step()
    np.testing.assert_array_equal(p1.numpy(), p2.numpy())
    # the loaded buffers are copies: the source state_dict is untouched
    assert sd["state"][0]["step"] == 2
    np.testing.assert_allclose(
        p1.numpy(), adam_reference(P0, GRADS, 0.05, amsgrad=True), rtol=1e-12
    )


def test_load_state_dict_rejects_mismatches():
    p = leaf(P0)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    other = optim.SGD([leaf([1.0]), leaf([2.0])], lr=0.1)
    with pytest.raises(ValueError, match="group 0"):
        opt.load_state_dict(other.state_dict())
    bad = {
        "state": {0: {"momentum_buffer": fg.zeros([5]), "step": 1}},
        "param_groups": [dict(opt.state_dict()["param_groups"][0])],
    }
    with pytest.raises(ValueError, match="shape"):
        opt.load_state_dict(bad)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_narrow_dtypes_update_in_their_own_dtype(dtype):
    p = leaf(P0, dtype=dtype)
    opt = optim.Adam([p], lr=0.05)
    for g in GRADS:
        set_grad(p, g)
        opt.step()
    assert p.dtype == getattr(fg, dtype)
    assert opt.state[p]["exp_avg"].dtype == p.dtype
    tol = {"float32": 1e-6, "float16": 2e-3, "bfloat16": 2e-2}[dtype]
    got = p.astype("float64").numpy()
    np.testing.assert_allclose(got, adam_reference(P0, GRADS, 0.05), rtol=tol, atol=tol)


def test_complex_parameters_update_per_real_component():
    z0 = np.array([1 + 1j, -0.5 + 2j])
    p = fg.tensor(z0, requires_grad=True)
    opt = optim.Adam([p], lr=0.1)
    grads = [np.array([0.5 - 1j, 2 + 0.25j]), np.array([-1 + 1j, 0.5 - 0.5j])]
    for g in grads:
        p.grad = fg.tensor(g)
        opt.step()
    # PyTorch's rule: Adam on view_as_real(p)
    re = adam_reference(
        np.stack([z0.real, z0.imag], -1), [np.stack([g.real, g.imag], -1) for g in grads], 0.1
    )
    np.testing.assert_allclose(p.numpy(), re[..., 0] + 1j * re[..., 1], rtol=1e-12)


def test_large_and_strided_parameters():
    n = 300_000  # above the threaded-update threshold
    rng = np.random.default_rng(0)
    a0, g = rng.standard_normal(n), rng.standard_normal(n)
    a = leaf(a0, dtype="float32")
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    for _ in range(2):
        a.grad = fg.tensor(g.astype(np.float32))
        opt.step()
    np.testing.assert_allclose(a.numpy(), sgd_reference(a0, [g, g], 0.1, 0.9), rtol=1e-5, atol=1e-6)

    base = np.arange(6.0).reshape(2, 3)
    t = fg.tensor(base).T  # a non-contiguous leaf
    t.requires_grad_(True)
    opt = optim.SGD([t], lr=1.0)
    t.grad = fg.ones([3, 2], dtype="float64")
    opt.step()
    np.testing.assert_allclose(t.numpy(), base.T - 1.0)


def test_closure_and_training_loop_converges():
    rng = np.random.default_rng(1)
    x = fg.tensor(rng.standard_normal((64, 3)))
    w_true = np.array([[1.5], [-2.0], [0.5]])
    y = fg.tensor(x.numpy() @ w_true)
    w = fg.zeros([3, 1], dtype="float64").requires_grad_(True)
    opt = optim.Adam([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        return loss

    first = float(opt.step(closure).item())
    for _ in range(300):
        last = float(opt.step(closure).item())
    assert last < 1e-6 < first
    np.testing.assert_allclose(w.numpy(), w_true, atol=1e-3)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: optim.SGD([p], lr=-1.0), "learning rate"),
        (lambda p: optim.SGD([p], lr=0.1, momentum=-0.5), "momentum"),
        (lambda p: optim.SGD([p], lr=0.1, nesterov=True), "Nesterov"),
        (lambda p: optim.Adam([p], betas=(1.0, 0.9)), "beta"),
        (lambda p: optim.Adam([p], eps=-1.0), "epsilon"),
        (lambda p: optim.SGD([p, p], lr=0.1), "twice"),
        (lambda p: optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1), "more than one"),
        (lambda p: optim.SGD([], lr=0.1), "empty"),
        (lambda p: optim.SGD(p, lr=0.1), "single Tensor"),
        (lambda p: optim.SGD([p * 2], lr=0.1), "non-leaf"),
        (lambda p: optim.SGD([1.0], lr=0.1), "Tensors"),
        (lambda p: fg.optimizer.SGD(learning_rate=0.1), "no parameters"),
    ],
)
def test_bad_arguments_raise_clear_errors(make, match):
    p = leaf([1.0])
    with pytest.raises((ValueError, TypeError), match=match):
        make(p)


def test_repr_and_aliases():
    p = leaf([1.0])
    opt = optim.SGD([p], lr=0.1)
    assert "SGD" in repr(opt) and "lr: 0.1" in repr(opt)
    assert fg.optimizer.SGD is optim.SGD and fg.optimizer.lr.StepLR is optim.lr_scheduler.StepLR
