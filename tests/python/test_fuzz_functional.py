"""Differential fuzzer for ``ferrograd.nn.functional``: activations, softmax, losses,
normalisation, pooling, padding, interpolation, ``one_hot`` and ``embedding`` on random
shapes, parameters and values (float64 and float32, some seen through random views, with
NaN / inf / extremes where the op takes them), checked against float64 NumPy/SciPy
references written from PyTorch's documented formulas, and their gradients against central
finite differences with ``ferrograd.autograd.gradcheck`` on small float64 inputs away from
kinks. This module is PyTorch code (``torch = fg`` below, docs/dialects.md), so the calls
whose defaults differ between the peers (``one_hot``'s dtype, ``embedding``'s
``padding_idx`` rows, ``cross_entropy``'s ignored mean) follow PyTorch.
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import hypothesis.extra.numpy as hnp
import numpy as np
from fuzz_support import CALLS, FUZZ, assert_same, assert_scaled, grad_ok, leaf, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.special import erf, expit, xlogy

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

TOL = {"float64": (1e-10, 1e-12), "float32": (3e-6, 2e-6)}
small = st.integers(0, 3)
REDUCTIONS = ["none", "mean", "sum"]
DTYPES = st.sampled_from(["float32", "float64"])


def check(got, want, dtype, what, scale=1.0):
    assert_scaled(got, want, dtype, what, scale, TOL[dtype])


def arr(draw, shape, lo=-3.0, hi=3.0):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def tt(v, dtype=None):
    return None if v is None else fg.tensor(v, dtype=dtype or v.dtype.name)


def reduce(v, reduction):
    return {"none": v, "mean": np.mean(v) if v.size else np.nan, "sum": np.sum(v)}[reduction]


# ---------------------------------------------------------------- activations
def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.logaddexp(0.0, beta * x) / beta)


def _where(c, a, b):
    return np.where(c, a, b)


# name: (ferrograd call, reference) with the drawn parameter p; KINKS: where not smooth
ACT = {
    "relu6": (lambda t, p: F.relu6(t), lambda x, p: np.clip(x, 0, 6)),
    "elu": (lambda t, p: F.elu(t, p), lambda x, p: _where(x > 0, x, p * np.expm1(x))),
    "selu": (
        lambda t, p: F.selu(t),
        lambda x, p: SELU[0] * _where(x > 0, x, SELU[1] * np.expm1(x)),
    ),
    "celu": (lambda t, p: F.celu(t, p), lambda x, p: _where(x > 0, x, p * np.expm1(x / p))),
    "gelu": (lambda t, p: F.gelu(t), lambda x, p: 0.5 * x * (1 + erf(x / math.sqrt(2)))),
    "gelu_tanh": (
        lambda t, p: F.gelu(t, approximate="tanh"),
        lambda x, p: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "silu": (lambda t, p: F.silu(t), lambda x, p: x * expit(x)),
    "mish": (lambda t, p: F.mish(t), lambda x, p: x * np.tanh(_softplus(x))),
    "softplus": (lambda t, p: F.softplus(t, p, 2.0 * p), lambda x, p: _softplus(x, p, 2.0 * p)),
    "hardtanh": (lambda t, p: F.hardtanh(t, -p, 2 * p), lambda x, p: np.clip(x, -p, 2 * p)),
    "hardswish": (lambda t, p: F.hardswish(t), lambda x, p: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (lambda t, p: F.hardsigmoid(t), lambda x, p: np.clip(x + 3, 0, 6) / 6),
    "leaky_relu": (lambda t, p: F.leaky_relu(t, p), lambda x, p: _where(x > 0, x, x * p)),
    "log_sigmoid": (lambda t, p: F.log_sigmoid(t), lambda x, p: -np.logaddexp(0.0, -x)),
    "softsign": (lambda t, p: F.softsign(t), lambda x, p: x / (1 + np.abs(x))),
    "tanhshrink": (lambda t, p: F.tanhshrink(t), lambda x, p: x - np.tanh(x)),
    "softshrink": (
        lambda t, p: F.softshrink(t, p),
        lambda x, p: _where(x > p, x - p, _where(x < -p, x + p, x * 0)),
    ),
    "hardshrink": (lambda t, p: F.hardshrink(t, p), lambda x, p: _where(np.abs(x) <= p, 0.0, x)),
    "threshold": (lambda t, p: F.threshold(t, p, -2.0), lambda x, p: _where(x <= p, -2.0, x)),
}
SELU = (1.0507009873554805, 1.6732632423543772)


def kinks(name, p):
    """Where the activation is not smooth."""
    table = {"relu6": [0, 6], "softplus": [2.0], "hardtanh": [-p, 2 * p], "threshold": [p]}
    table.update(hardswish=[-3, 3], hardsigmoid=[-3, 3], softshrink=[-p, p], hardshrink=[-p, p])
    return table.get(name, [0] if name in ("elu", "selu", "celu", "leaky_relu") else [])


@FUZZ
@given(st.sampled_from(sorted(ACT)), DTYPES, st.data())
def test_activations(name, dtype, data):
    fn, ref = ACT[name]
    p = data.draw(st.sampled_from([0.25, 0.5, 1.0, 1.5]))
    a, t = data.draw(viewed(dtype, lo=-10, hi=10))
    x = np.asarray(a, dtype=np.float64)
    # the shrinks of NaN: 0 in Paddle, NaN in PyTorch (no shared answer to test)
    assume(name not in ("softshrink", "hardshrink") or not np.isnan(x).any())
    with np.errstate(all="ignore"):
        want = ref(x, p)
    CALLS["activation"] += 1
    check(fn(t, p), want, dtype, name, scale=1 + np.minimum(np.nan_to_num(np.abs(x)), 16))
    g = data.draw(st.lists(st.floats(-4, 4), min_size=1, max_size=5))
    g = np.asarray(g)
    assume(all(abs(g - k).min() > 1e-3 for k in kinks(name, p)))
    grad_ok(lambda u: fn(u, p), g)
    # far from 0 too: the gradient against the reference's central difference
    xs = np.asarray(data.draw(st.lists(st.floats(-700, 700), min_size=1, max_size=5)))
    wide = np.maximum(1.0, np.abs(xs))
    assume(all((np.abs(xs - k) > 1e-2 * wide).all() for k in kinks(name, p)))
    h = 1e-6 * wide
    with np.errstate(all="ignore"):
        fd = (ref(xs + h, p) - ref(xs - h, p)) / (2 * h)
    u = leaf(xs)
    fn(u, p).sum().backward()
    np.testing.assert_allclose(u.grad.numpy(), fd, rtol=1e-5, atol=1e-7, err_msg=f"{name} grad")


@FUZZ
@given(st.sampled_from(["softmax", "log_softmax"]), DTYPES, st.data())
def test_softmax(name, dtype, data):
    shape = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = arr(data.draw, shape, -20, 20)
    x[data.draw(hnp.arrays(bool, tuple(shape)))] = -np.inf
    x = x.astype(dtype).astype(np.float64)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=dim, keepdims=True) if x.size else x
        z = x - m
        lse = np.log(np.sum(np.exp(z), axis=dim, keepdims=True))
        want = z - lse if name == "log_softmax" else np.exp(z - lse)
    CALLS["softmax"] += 1
    sc = 1 + np.abs(x[np.isfinite(x)]).max(initial=0)
    check(getattr(F, name)(fg.tensor(x, dtype=dtype), dim), want, dtype, name, sc)
    g = arr(data.draw, [2, 3])
    grad_ok(lambda u: getattr(F, name)(u, dim % 2 if len(shape) > 1 else -1), g)


@FUZZ
@given(DTYPES, st.data())
def test_glu(dtype, data):
    shape = data.draw(st.lists(st.sampled_from([0, 2, 4]), min_size=1, max_size=3))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a, t = data.draw(viewed(dtype, shape=shape, special=False))
    x = np.asarray(a, np.float64)
    u, v = np.split(x, 2, axis=dim)
    CALLS["glu"] += 1
    check(F.glu(t, dim), u * expit(v), dtype, "glu", scale=1 + np.abs(x).max(initial=0))
    grad_ok(lambda w: F.glu(w, 0), arr(data.draw, [4, 2]))


# ---------------------------------------------------------------- losses
def _smooth_l1(d, beta):
    ad = np.abs(d)
    return ad if beta == 0 else np.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)


POINTWISE = {
    "mse_loss": (lambda x, y, p, r: F.mse_loss(x, y, reduction=r), lambda d, p: d * d),
    "l1_loss": (lambda x, y, p, r: F.l1_loss(x, y, reduction=r), lambda d, p: np.abs(d)),
    "smooth_l1_loss": (lambda x, y, p, r: F.smooth_l1_loss(x, y, reduction=r, beta=p), _smooth_l1),
    "huber_loss": (
        lambda x, y, p, r: F.huber_loss(x, y, reduction=r, delta=p),
        lambda d, p: np.where(np.abs(d) < p, 0.5 * d * d, p * (np.abs(d) - 0.5 * p)),
    ),
}


@FUZZ
@given(st.sampled_from(sorted(POINTWISE)), st.sampled_from(REDUCTIONS), DTYPES, st.data())
def test_pointwise_losses(name, reduction, dtype, data):
    fn, ref = POINTWISE[name]
    p = data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.0] if name == "smooth_l1_loss" else [0.5, 2.0]))
    a, x = data.draw(viewed(dtype, special=False))
    b, y = data.draw(viewed(dtype, shape=np.shape(a), special=False))
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    CALLS["loss"] += 1
    want = reduce(ref(d, p), reduction)
    check(fn(x, y, p, reduction), want, dtype, name, scale=64 * (1 + d.size))
    g1, g2 = arr(data.draw, [5]), arr(data.draw, [5])
    assume(np.abs(np.abs(g1 - g2) - p).min() > 1e-3 and np.abs(g1 - g2).min() > 1e-3)
    grad_ok(lambda u, v: fn(u, v, p, reduction), g1, g2)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.booleans(), st.data())
def test_binary_cross_entropy(reduction, with_weight, with_pos, data):
    n, c = data.draw(small), data.draw(st.integers(1, 3))
    x = arr(data.draw, [n, c], -30, 30)
    y = arr(data.draw, [n, c], 0, 1)
    w = arr(data.draw, [c], 0, 2) if with_weight else None
    pw = arr(data.draw, [c], 0, 3) if with_pos else None
    lw = 1 + (pw - 1) * y if with_pos else 1.0
    want = (1 - y) * x + lw * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
    want = want * (w if with_weight else 1.0)
    CALLS["loss"] += 1
    kw = dict(weight=tt(w), reduction=reduction)
    got = F.binary_cross_entropy_with_logits(tt(x), tt(y), pos_weight=tt(pw), **kw)
    check(got, reduce(want, reduction), "float64", "bce_with_logits", scale=100 * (1 + x.size))
    pr = arr(data.draw, [n, c], 0, 1)
    with np.errstate(divide="ignore"):
        lp, lq = np.maximum(np.log(pr), -100), np.maximum(np.log1p(-pr), -100)
    want = -(w if with_weight else 1.0) * (y * lp + (1 - y) * lq)
    got = F.binary_cross_entropy(tt(pr), tt(y), **kw)
    check(got, reduce(want, reduction), "float64", "bce", scale=100 * (1 + x.size))
    grad_ok(lambda u: F.binary_cross_entropy_with_logits(u, tt(y), pos_weight=tt(pw), **kw), x / 9)
    # the gradient, also at 0 and 1: the true derivative of the clamped loss, documented
    # to differ there from the peers' w (x - y) / max(x (1 - x), 1e-12) (docs/user-scripts.md)
    u = leaf(pr)
    F.binary_cross_entropy(u, tt(y), weight=tt(w), reduction="sum").backward()
    with np.errstate(all="ignore"):
        d = np.where(lp > -100, y / pr, 0) - np.where(lq > -100, (1 - y) / (1 - pr), 0)
    want = -(w if with_weight else 1.0) * d
    check(u.grad, want, "float64", "bce grad")
    pg = np.clip(pr, 0.05, 0.95)
    grad_ok(lambda u: F.binary_cross_entropy(u, tt(y), **kw), pg)


def _log_softmax(x, axis=1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _nll_ref(logp, t, w, ignore, ls, reduction):
    """PyTorch's cross_entropy on class indices (nll when ls == 0), logp [N, C, *]."""
    c = logp.shape[1]
    w = np.ones(c) if w is None else w
    keep = t != ignore
    ts = np.where(keep, t, 0)
    picked = np.take_along_axis(logp, ts[:, None], axis=1)[:, 0]
    wt = np.where(keep, w[ts], 0.0)
    nll = -wt * picked
    smooth = np.where(keep, -(logp * w.reshape([1, c] + [1] * (logp.ndim - 2))).sum(1), 0.0)
    if reduction == "none":
        return (1 - ls) * nll + ls / c * smooth
    if reduction == "sum":
        return (1 - ls) * nll.sum() + ls / c * smooth.sum()
    with np.errstate(all="ignore"):
        return ((1 - ls) * nll.sum() + ls / c * smooth.sum()) / wt.sum()


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.sampled_from([0.0, 0.1, 0.5]), st.data())
def test_cross_entropy_and_nll(reduction, with_weight, ls, data):
    extra = data.draw(st.integers(0, 1))
    n, c = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    shape = [n, c] + [data.draw(st.integers(1, 3))] * extra
    x = arr(data.draw, shape, -5, 5)
    ignore = data.draw(st.sampled_from([-100, 0, 1]))
    tshape = tuple([n] + shape[2:])
    t = data.draw(hnp.arrays(np.int64, tshape, elements=st.sampled_from([*range(c), ignore])))
    w = arr(data.draw, [c], 0.1, 2) if with_weight else None
    logp = _log_softmax(x)
    CALLS["loss"] += 3
    kw = dict(weight=tt(w), reduction=reduction)
    got = F.cross_entropy(tt(x), tt(t), ignore_index=ignore, label_smoothing=ls, **kw)
    check(got, _nll_ref(logp, t, w, ignore, ls, reduction), "float64", "cross_entropy", 100)
    got = F.nll_loss(tt(logp), tt(t), ignore_index=ignore, **kw)
    check(got, _nll_ref(logp, t, w, ignore, 0.0, reduction), "float64", "nll_loss", scale=100)
    prob = np.exp(_log_softmax(arr(data.draw, shape)))
    ps = prob * (1 - ls) + ls / c
    wb = 1.0 if w is None else w.reshape([1, c] + [1] * extra)
    per = -(wb * logp * ps).sum(1)
    want = per.sum() / per.size if reduction == "mean" else reduce(per, reduction)
    got = F.cross_entropy(tt(x), tt(prob), label_smoothing=ls, **kw)
    check(got, want, "float64", "cross_entropy prob", scale=100)
    assume(reduction != "mean" or (t != ignore).any())
    grad_ok(lambda u: F.cross_entropy(u, tt(t), ignore_index=ignore, label_smoothing=ls, **kw), x)
    grad_ok(lambda u: F.cross_entropy(u, tt(prob), label_smoothing=ls, **kw), x)


@FUZZ
@given(st.sampled_from(REDUCTIONS + ["batchmean"]), st.booleans(), st.data())
def test_kl_div(reduction, log_target, data):
    shape = [data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))]
    x = arr(data.draw, shape, -4, 0)
    y = arr(data.draw, shape, -4, 0) if log_target else arr(data.draw, shape, 0, 1)
    if not log_target:
        y[data.draw(hnp.arrays(bool, tuple(shape)))] = 0.0
    per = np.exp(y) * (y - x) if log_target else xlogy(y, y) - y * x
    want = per.sum() / shape[0] if reduction == "batchmean" else reduce(per, reduction)
    CALLS["loss"] += 1
    got = F.kl_div(fg.tensor(x), fg.tensor(y), reduction=reduction, log_target=log_target)
    check(got, want, "float64", "kl_div", scale=100)
    grad_ok(lambda u: F.kl_div(u, fg.tensor(y), reduction=reduction, log_target=log_target), x)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.sampled_from([0.0, 0.3, -0.2]), st.booleans(), st.data())
def test_pair_losses(reduction, margin, batched, data):
    n, d = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    x1, x2 = arr(data.draw, [n, d]), arr(data.draw, [n, d])
    y = np.asarray(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    if not batched:
        x1, x2, y = x1[0], x2[0], y[:1].reshape(())
    cos = (x1 * x2).sum(-1) / np.sqrt(((x1 * x1).sum(-1) + 1e-12) * ((x2 * x2).sum(-1) + 1e-12))
    want = np.where(y > 0, 1 - cos, np.maximum(0, cos - margin))
    CALLS["loss"] += 2
    kw = dict(margin=margin, reduction=reduction)
    got = F.cosine_embedding_loss(tt(x1), tt(x2), tt(y), **kw)
    check(got, reduce(want, reduction), "float64", "cosine_embedding_loss", scale=100)
    a, b = x1[..., 0], x2[..., 0]
    want = np.maximum(0, -y * (a - b) + margin)
    got = F.margin_ranking_loss(tt(a), tt(b), tt(y), **kw)
    check(got, reduce(want, reduction), "float64", "margin_ranking_loss", scale=100)
    assume(min(np.abs(x1).sum(-1).min(), np.abs(x2).sum(-1).min()) > 0.3)
    assume(np.abs(cos - margin).min() > 1e-3 and np.abs(-y * (a - b) + margin).min() > 1e-3)
    grad_ok(lambda u, v: F.cosine_embedding_loss(u, v, tt(y), **kw), x1, x2)
    grad_ok(lambda u, v: F.margin_ranking_loss(u, v, tt(y), **kw), a, b)


# ---------------------------------------------------------------- normalisation
def _norm(x, axes, eps):
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


@FUZZ
@given(DTYPES, st.booleans(), st.data())
def test_layer_group_instance_norm(dtype, affine, data):
    n, g = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    c = g * data.draw(st.integers(1, 2))
    sp = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    shape = [n, c] + sp
    a, t = data.draw(viewed(dtype, shape=shape, special=False))
    x = np.asarray(a, np.float64)
    eps = data.draw(st.sampled_from([1e-5, 1e-3]))
    w = arr(data.draw, [c]) if affine else np.ones(c)
    b = arr(data.draw, [c]) if affine else np.zeros(c)
    wt, bt = (tt(w, dtype), tt(b, dtype)) if affine else (None, None)
    bc = [1, c] + [1] * len(sp)
    sc = 1e3 * (1 + np.abs(x).max())
    CALLS["norm"] += 4
    want = _norm(x.reshape([n, g, -1]), 2, eps).reshape(shape) * w.reshape(bc) + b.reshape(bc)
    check(F.group_norm(t, g, wt, bt, eps), want, dtype, "group_norm", sc)
    want = _norm(x, tuple(range(2, x.ndim)), eps) * w.reshape(bc) + b.reshape(bc)
    if np.prod(sp) > 1:  # PyTorch refuses one value per channel in training
        check(F.instance_norm(t, weight=wt, bias=bt, eps=eps), want, dtype, "instance_norm", sc)
    k = data.draw(st.integers(1, len(shape) - 1))
    ns = shape[-k:]
    lw, lb = (arr(data.draw, ns), arr(data.draw, ns)) if affine else (1.0, 0.0)
    lwt, lbt = (tt(lw, dtype), tt(lb, dtype)) if affine else (None, None)
    want = _norm(x, tuple(range(x.ndim - k, x.ndim)), eps) * lw + lb
    check(F.layer_norm(t, ns, lwt, lbt, eps), want, dtype, "layer_norm", sc)
    p, dim = data.draw(st.sampled_from([1.0, 2.0, 3.0])), data.draw(st.integers(0, len(shape) - 1))
    nrm = (np.abs(x) ** p).sum(axis=dim, keepdims=True) ** (1 / p)
    check(F.normalize(t, p=p, dim=dim), x / np.maximum(nrm, 1e-12), dtype, "normalize", sc)
    xg = arr(data.draw, [2, 2, 3])
    w2, w3 = arr(data.draw, [2]), arr(data.draw, [3])
    grad_ok(lambda u, wv, bv: F.group_norm(u, 2, wv, bv), xg, w2, w2[::-1])
    grad_ok(lambda u, wv, bv: F.layer_norm(u, [3], wv, bv), xg, w3, w3[::-1])
    grad_ok(lambda u: F.instance_norm(u), xg)
    grad_ok(lambda u: F.normalize(u, p=p, dim=1), xg + 3.5)


@FUZZ
@given(st.booleans(), st.booleans(), st.sampled_from([0.1, 0.5, 1.0]), st.data())
def test_batch_norm(training, affine, momentum, data):
    n, c = data.draw(st.integers(2, 4)), data.draw(st.integers(1, 3))
    sp = data.draw(st.lists(st.integers(1, 3), max_size=2))
    x = arr(data.draw, [n, c] + sp)
    rm, rv = arr(data.draw, [c]), arr(data.draw, [c], 0.1, 3)
    w, b = (arr(data.draw, [c]), arr(data.draw, [c])) if affine else (np.ones(c), np.zeros(c))
    axes = tuple(i for i in range(x.ndim) if i != 1)
    bc = [1, c] + [1] * len(sp)
    eps = 1e-5
    if training:
        mean, var = x.mean(axes), x.var(axes)
        cnt = x.size // c
        want_rm = (1 - momentum) * rm + momentum * mean
        want_rv = (1 - momentum) * rv + momentum * var * cnt / (cnt - 1)
    else:
        mean, var, want_rm, want_rv = rm, rv, rm, rv
    want = (x - mean.reshape(bc)) / np.sqrt(var.reshape(bc) + eps) * w.reshape(bc) + b.reshape(bc)
    trm, trv = fg.tensor(rm), fg.tensor(rv)
    wt, bt = (tt(w), tt(b)) if affine else (None, None)
    CALLS["norm"] += 1
    got = F.batch_norm(fg.tensor(x), trm, trv, wt, bt, training, momentum, eps)
    check(got, want, "float64", "batch_norm", 1e3)
    check(trm, want_rm, "float64", "running_mean", 10)
    check(trv, want_rv, "float64", "running_var", 10)
    bn = lambda u, wv, bv: F.batch_norm(u, tt(rm), tt(rv), wv, bv, training, momentum, eps)  # noqa: E731
    grad_ok(bn, x, w, b)


# ---------------------------------------------------------------- pooling
def _out_len(L, k, s, p, d, ceil):
    num = L + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= L + p:
        o -= 1
    return o


def _pool_ref(x, nd, k, s, p, ceil, kind, cip=True, div=None, dil=None):
    """PyTorch's avg/max pooling over the last `nd` dims: (values, max's flat indices)."""
    L, dil = x.shape[-nd:], dil or [1] * nd
    outs = [_out_len(L[i], k[i], s[i], p[i], dil[i], ceil) for i in range(nd)]
    res = np.empty(x.shape[:-nd] + tuple(outs))
    arg = np.zeros(res.shape, np.int64)
    for idx in np.ndindex(*outs):
        pos, full = [], 1
        for i, o in enumerate(idx):
            st0 = o * s[i] - p[i]
            full *= min(st0 + k[i], L[i] + p[i]) - st0
            pos.append(
                [q for q in range(st0, st0 + (k[i] - 1) * dil[i] + 1, dil[i]) if 0 <= q < L[i]]
            )
        if not all(pos):  # a dilated window wholly in the padding: skipped
            return None
        win = x[(Ellipsis, *np.ix_(*pos))].reshape(x.shape[:-nd] + (-1,))
        flat = np.ravel_multi_index(np.meshgrid(*pos, indexing="ij"), L).reshape(-1)
        if kind == "max":
            res[(Ellipsis, *idx)] = win.max(-1)
            arg[(Ellipsis, *idx)] = flat[win.argmax(-1)]
        else:
            dv = div if div else (full if cip else win.shape[-1])
            res[(Ellipsis, *idx)] = win.sum(-1) / dv
    return res, arg


@FUZZ
@given(st.sampled_from(["avg", "max"]), st.sampled_from([1, 2]), st.booleans(), st.data())
def test_pools(kind, nd, ceil, data):
    cip = data.draw(st.booleans())
    L = [data.draw(st.integers(1, 6)) for _ in range(nd)]
    k = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    s = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    p = [data.draw(st.integers(0, ki // 2)) for ki in k]
    dil = [data.draw(st.integers(1, 2)) if kind == "max" else 1 for _ in range(nd)]
    assume(all(L[i] + 2 * p[i] >= dil[i] * (k[i] - 1) + 1 for i in range(nd)))
    div = data.draw(st.sampled_from([None, 2])) if kind == "avg" else None
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + L
    dtype = data.draw(DTYPES)
    a, t = data.draw(viewed(dtype, shape=shape, special=kind == "max"))
    x = np.asarray(a, np.float64)
    fn = getattr(F, f"{kind}_pool{nd}d")
    kw = dict(count_include_pad=cip, divisor_override=div) if kind == "avg" else dict(dilation=dil)
    want = _pool_ref(x, nd, k, s, p, ceil, kind, cip, div, dil)
    assume(want is not None)
    want = want[0]
    CALLS["pool"] += 1
    sc = 10 * (1 + np.abs(x).max())
    check(fn(t, k, s, p, ceil_mode=ceil, **kw), want, dtype, f"{kind}_pool{nd}d", sc)
    g = np.asarray(data.draw(st.permutations(range(int(np.prod(shape)))))).reshape(shape) / 7.0
    grad_ok(lambda u: fn(u, k, s, p, ceil_mode=ceil, **kw), g)
    if kind == "max":  # indices of distinct values: flat positions within each plane
        got = fn(fg.tensor(g), k, s, p, ceil_mode=ceil, return_indices=True, **kw)[1]
        want = _pool_ref(g, nd, k, s, p, ceil, kind, dil=dil)[1]
        assert_same(got, want, "int64", "max_pool indices")


def _adaptive(x, nd, out, kind):
    L = x.shape[-nd:]
    res = np.empty(x.shape[:-nd] + tuple(out))
    for idx in np.ndindex(*out):
        sl = tuple(slice(o * n // m, -(-(o + 1) * n // m)) for o, n, m in zip(idx, L, out))
        win = x[(Ellipsis, *sl)].reshape(x.shape[:-nd] + (-1,))
        res[(Ellipsis, *idx)] = win.max(-1) if kind == "max" else win.mean(-1)
    return res


@FUZZ
@given(st.sampled_from(["avg1", "avg2", "max2"]), st.data())
def test_adaptive_pools(which, data):
    nd = int(which[-1])
    L = [data.draw(st.integers(1, 7)) for _ in range(nd)]
    out = [data.draw(st.integers(1, 5)) for _ in range(nd)]
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + L
    a, t = data.draw(viewed("float64", shape=shape, special=False))
    fn = getattr(F, f"adaptive_{which[:3]}_pool{nd}d")
    CALLS["pool"] += 1
    check(fn(t, out), _adaptive(np.asarray(a), nd, out, which[:3]), "float64", which, 10)
    g = np.asarray(data.draw(st.permutations(range(int(np.prod(shape)))))).reshape(shape) / 7.0
    grad_ok(lambda u: fn(u, out), g)


# ---------------------------------------------------------------- pad, interpolate, one_hot, embedding
@FUZZ
@given(st.sampled_from(["constant", "reflect", "replicate", "circular"]), st.data())
def test_pad(mode, data):
    nd = data.draw(st.sampled_from([1, 2]))
    lead = [data.draw(st.integers(1, 2)) for _ in range(data.draw(st.integers(1, 2)))]
    L = [data.draw(st.integers(1, 4)) for _ in range(nd)]
    hi = {"constant": 3, "reflect": None, "replicate": 3, "circular": None}[mode]
    pads = []  # PyTorch order: last dim first
    for li in L[::-1]:
        top = hi if hi is not None else (li - 1 if mode == "reflect" else li)
        pads += [data.draw(st.integers(0, top)), data.draw(st.integers(0, top))]
    shape = lead + L
    a, t = data.draw(viewed("float64", shape=shape, special=mode == "constant"))
    width = [(0, 0)] * len(lead) + [(pads[2 * i], pads[2 * i + 1]) for i in range(nd)][::-1]
    np_mode = dict(replicate="edge", circular="wrap").get(mode, mode)
    kw = dict(constant_values=1.5) if mode == "constant" else {}
    want = np.pad(np.asarray(a), width, mode=np_mode, **kw)
    CALLS["pad"] += 1
    value = 1.5 if mode == "constant" else None
    assert_same(F.pad(t, pads, mode=mode, value=value), want, "float64", f"pad {mode}")
    grad_ok(lambda u: F.pad(u, pads, mode=mode, value=value), arr(data.draw, shape))


def _bilinear_axis(n_in, n_out, align):
    if align:
        src = np.arange(n_out) * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        src = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
    i0 = np.floor(src).astype(int)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    m = np.zeros((n_out, n_in))
    np.add.at(m, (np.arange(n_out), i0), 1 - lam)
    np.add.at(m, (np.arange(n_out), i1), lam)
    return m


@FUZZ
@given(st.sampled_from(["nearest", "bilinear"]), st.booleans(), st.data())
def test_interpolate(mode, align, data):
    hw = [data.draw(st.integers(1, 5)) for _ in range(2)]
    out = [data.draw(st.integers(1, 9)) for _ in range(2)]
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + hw
    a, t = data.draw(viewed("float64", shape=shape, special=False))
    x = np.asarray(a)
    if mode == "nearest":
        # PyTorch's float32 scale: src = min(floor(dst * (in / out)), in - 1)
        f32 = [np.arange(o, dtype=np.float32) * np.float32(n / o) for n, o in zip(hw, out)]
        ix = [np.minimum(np.floor(v).astype(int), n - 1) for v, n in zip(f32, hw)]
        want = x[..., ix[0][:, None], ix[1][None, :]]
        kw = {}
    else:
        mh, mw = (_bilinear_axis(n, o, align) for n, o in zip(hw, out))
        want = np.einsum("ih,nchw,jw->ncij", mh, x, mw)
        kw = dict(align_corners=align)
    CALLS["interpolate"] += 1
    check(F.interpolate(t, size=out, mode=mode, **kw), want, "float64", f"interpolate {mode}", 10)
    grad_ok(lambda u: F.interpolate(u, size=out, mode=mode, **kw), arr(data.draw, shape))


@FUZZ
@given(st.data())
def test_one_hot_and_embedding(data):
    shape = data.draw(st.lists(st.integers(0, 3), max_size=2))
    n = data.draw(st.integers(1, 5))
    idx = data.draw(hnp.arrays(np.int64, tuple(shape), elements=st.integers(0, n - 1)))
    nc = data.draw(st.sampled_from([-1, n]))
    CALLS["one_hot"] += 1
    if nc == -1 and idx.size == 0:
        return
    width = idx.max() + 1 if nc == -1 else nc
    want = np.eye(width, dtype=np.int64)[idx]
    assert_same(F.one_hot(fg.tensor(idx), nc), want, "int64", "one_hot")
    d = data.draw(st.integers(1, 3))
    w = arr(data.draw, [n, d])
    pi = data.draw(st.sampled_from([None, 0, n - 1, -1]))
    tw = leaf(w)
    out = F.embedding(fg.tensor(idx), tw, padding_idx=pi)
    CALLS["embedding"] += 1
    assert_same(out, w[idx], "float64", "embedding")
    up = arr(data.draw, list(shape) + [d])
    (out * fg.tensor(up)).sum().backward()
    want = np.zeros_like(w)
    np.add.at(want, idx, up)
    if pi is not None:
        want[pi % n] = 0.0
    got = np.zeros_like(w) if tw.grad is None else tw.grad.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg="embedding grad")


# ------------------------------------------------- regressions: bugs this fuzzer found
def test_threshold_of_nan_is_nan():
    # PyTorch's kernel is x <= threshold ? value : x (it mapped NaN to value)
    got = F.threshold(fg.tensor([np.nan, 2.0]), 0.5, 1.0).numpy()
    assert np.isnan(got[0]) and got[1] == 2.0


def test_glu_of_empty_halving_dim():
    # 0 is even: two empty halves (split refused a section size of 0)
    assert F.glu(fg.zeros([0]), 0).shape == [0]
