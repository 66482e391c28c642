"""Issue 17: Paddle's ``F.rnnt_loss`` / ``nn.RNNTLoss`` against a brute-force NumPy
reference that enumerates every alignment of tiny lattices (float64); reductions
(``'mean'`` divides the sum by the batch size), varying lengths, the documented
warp-transducer example, finite-difference gradients, FastEmit, bad input."""

from __future__ import annotations

import itertools

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck


def log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def brute_nll(x, labels, blank):
    """``-log`` of the summed probability of every alignment of ``labels`` through the
    lattice ``x`` [T, U+1, V] (logits), ending with a blank at the last frame."""
    lp = log_softmax(x)
    t_len, u_len = x.shape[0], len(labels)
    total = 0.0
    for pos in itertools.combinations(range(t_len + u_len - 1), u_len):
        t = u = 0
        s = 0.0
        for k in range(t_len + u_len):
            if k in pos:
                s += lp[t, u, labels[u]]
                u += 1
            else:
                s += lp[t, u, blank]
                t += 1
        total += np.exp(s)
    return -np.log(total)


ACTS = np.array(
    [[[[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1], [0.1, 0.1, 0.2, 0.8, 0.1]],
      [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.2, 0.1, 0.1], [0.7, 0.1, 0.2, 0.1, 0.1]]]]
)  # fmt: skip


def test_documented_example():
    # warp-transducer's / torchaudio's example (logits, log_softmax applied): 4.495666
    x = fg.tensor(ACTS)
    loss = nn.RNNTLoss(reduction="sum", fastemit_lambda=0.0)(x, [[1, 2]], [2], [2])
    assert abs(loss.item() - 4.495666) < 1e-6
    assert abs(loss.item() - brute_nll(ACTS[0], [1, 2], 0)) < 1e-12
    # already-normalised log-probabilities are left unchanged by the inner log_softmax
    lp = fg.tensor(log_softmax(ACTS))
    assert abs(F.rnnt_loss(lp, [[1, 2]], [2], [2], reduction="sum").item() - 4.495666) < 1e-6


@pytest.mark.parametrize("blank", [0, 3])
def test_against_brute_force_and_reductions(blank):
    rng = np.random.default_rng(0)
    b, t_max, u_max, v = 3, 4, 3, 5
    x = rng.normal(size=(b, t_max, u_max + 1, v))
    choices = [c for c in range(v) if c != blank]
    labels = rng.choice(choices, size=(b, u_max)).astype(np.int32)
    in_len = np.array([4, 2, 3])
    lab_len = np.array([3, 1, 0])
    want = np.array(
        [brute_nll(x[i, : in_len[i], : lab_len[i] + 1], labels[i, : lab_len[i]], blank)
         for i in range(b)]
    )  # fmt: skip
    xt = fg.tensor(x)
    args = (fg.tensor(labels), fg.tensor(in_len), fg.tensor(lab_len))
    none = F.rnnt_loss(xt, *args, blank=blank, reduction="none")
    np.testing.assert_allclose(none.numpy(), want, rtol=1e-12)
    s = F.rnnt_loss(xt, *args, blank=blank, reduction="sum")
    np.testing.assert_allclose(s.item(), want.sum(), rtol=1e-12)
    m = F.rnnt_loss(xt, *args, blank=blank)
    np.testing.assert_allclose(m.item(), want.sum() / b, rtol=1e-12)
    x32 = F.rnnt_loss(xt.astype(fg.float32), *args, blank=blank, reduction="none")
    assert x32.dtype == fg.float32
    np.testing.assert_allclose(x32.numpy(), want, rtol=1e-5)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    x = fg.tensor(rng.normal(size=(2, 3, 3, 4)), requires_grad=True)
    labels = fg.tensor(np.array([[1, 2], [3, 0]], dtype=np.int32))

    def f(t):
        return F.rnnt_loss(t, labels, [3, 2], [2, 1], fastemit_lambda=0.0, reduction="none")

    assert gradcheck(f, (x,))
    # the padding beyond each sample's lengths gets no gradient
    f(x).sum().backward()
    g = x.grad.numpy()
    assert np.all(g[1, 2:] == 0) and np.all(g[1, :, 2:] == 0)


def test_fastemit_scales_label_gradient_only():
    rng = np.random.default_rng(2)
    x0 = rng.normal(size=(1, 3, 3, 4))
    labels, il, ll = [[1, 2]], [3], [2]
    grads, losses = [], []
    for lam in (0.0, 0.5):
        x = fg.tensor(x0, requires_grad=True)
        loss = F.rnnt_loss(x, labels, il, ll, fastemit_lambda=lam, reduction="sum")
        loss.backward()
        losses.append(loss.item())
        grads.append(x.grad.numpy())
    assert losses[0] == losses[1]
    assert not np.allclose(grads[0], grads[1])


def brute_nll_weighted(lp, labels, blank, lam):
    """FastEmit's surrogate: label log-probabilities count ``1 + lam`` times in the
    gradient while the posterior weights stay those of the exact loss; its gradient equals
    ``d/dz [-sum_paths w(path) ((1 + lam) * label terms + blank terms)]`` with ``w`` held
    at the exact posterior, evaluated here by enumerating paths."""
    t_len, u_len = lp.shape[0], len(labels)
    paths = []
    for pos in itertools.combinations(range(t_len + u_len - 1), u_len):
        t = u = 0
        lab = blk = 0.0
        for k in range(t_len + u_len):
            if k in pos:
                lab += lp[t, u, labels[u]]
                u += 1
            else:
                blk += lp[t, u, blank]
                t += 1
        paths.append((lab, blk))
    lab, blk = np.array(paths).T
    w = np.exp(lab + blk - np.logaddexp.reduce(lab + blk))
    return -float(np.sum(_FROZEN.get("w", w) * ((1 + lam) * lab + blk)))


_FROZEN: dict = {}


def test_fastemit_matches_frozen_posterior_surrogate():
    rng = np.random.default_rng(3)
    x0 = rng.normal(size=(3, 3, 4))
    lam = 0.7
    x = fg.tensor(x0[None], requires_grad=True)
    F.rnnt_loss(x, [[1, 2]], [3], [2], fastemit_lambda=lam, reduction="sum").backward()
    # freeze the path weights at x0, then differentiate the surrogate numerically
    lp0 = log_softmax(x0)
    t_len, u_len = 3, 2
    tot = []
    for pos in itertools.combinations(range(t_len + u_len - 1), u_len):
        t = u = 0
        s = 0.0
        for k in range(t_len + u_len):
            if k in pos:
                s += lp0[t, u, [1, 2][u]]
                u += 1
            else:
                s += lp0[t, u, 0]
                t += 1
        tot.append(s)
    tot = np.array(tot)
    _FROZEN["w"] = np.exp(tot - np.logaddexp.reduce(tot))
    try:
        eps = 1e-6
        num = np.zeros_like(x0)
        for idx in np.ndindex(*x0.shape):
            zp, zm = x0.copy(), x0.copy()
            zp[idx] += eps
            zm[idx] -= eps
            num[idx] = (
                brute_nll_weighted(log_softmax(zp), [1, 2], 0, lam)
                - brute_nll_weighted(log_softmax(zm), [1, 2], 0, lam)
            ) / (2 * eps)
    finally:
        _FROZEN.clear()
    np.testing.assert_allclose(x.grad.numpy()[0], num, atol=1e-6)


def test_second_order_raises():
    x = fg.tensor(ACTS, requires_grad=True)
    loss = F.rnnt_loss(x, [[1, 2]], [2], [2])
    (g,) = fg.autograd.grad(loss, x, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_layer_and_dialects():
    layer = nn.RNNTLoss(blank=0, fastemit_lambda=0.0, reduction="none")
    assert "fastemit_lambda=0.0" in repr(layer)
    out = layer(fg.tensor(ACTS), fg.tensor([[1, 2]], dtype=fg.int32), [2], [2])
    assert list(out.shape) == [1]
    import ferrograd as paddle

    assert paddle.nn.functional.rnnt_loss is F.rnnt_loss
    assert paddle.nn.RNNTLoss is nn.RNNTLoss


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        (dict(input=np.zeros((1, 2, 3, 5))), TypeError),
        (dict(input=fg.zeros([2, 3, 5])), ValueError),
        (dict(input=fg.zeros([1, 2, 3, 5], dtype=fg.int64)), TypeError),
        (dict(blank=5), ValueError),
        (dict(blank=1.0), TypeError),
        (dict(reduction="avg"), ValueError),
        (dict(fastemit_lambda="x"), TypeError),
        (dict(fastemit_lambda=float("nan")), ValueError),
        (dict(label=[[1.5, 2.0]]), TypeError),
        (dict(label=[[1, 7]]), ValueError),
        (dict(label=[[1, 2], [1, 2]]), ValueError),
        (dict(input_lengths=[3]), ValueError),
        (dict(input_lengths=[0]), ValueError),
        (dict(input_lengths=[2, 2]), ValueError),
        (dict(label_lengths=[3]), ValueError),
        (dict(label_lengths=[-1]), ValueError),
        (dict(label_lengths=[2**63 - 1]), ValueError),
        (dict(input_lengths=[2**40]), ValueError),
    ],
)
def test_bad_input(kwargs, exc):
    args = dict(input=fg.tensor(ACTS), label=[[1, 2]], input_lengths=[2], label_lengths=[2])
    args.update(kwargs)
    with pytest.raises(exc):
        F.rnnt_loss(**args)
