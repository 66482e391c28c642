"""Differential fuzzer for the losses ``test_fuzz_functional.py`` leaves out, for ``nn.init``
and for ``ferrograd.utils.data``.

Losses: ``F.cross_entropy`` (class ids and class probabilities, ``label_smoothing``,
``weight``, ``ignore_index``, every reduction, unbatched ``[C]`` and K-dimensional
``[N, C, d1, d2]`` inputs), ``F.nll_loss`` K-dim, ``multi_margin_loss``,
``multilabel_margin_loss``, ``multilabel_soft_margin_loss``, ``soft_margin_loss``,
``hinge_embedding_loss``, ``triplet_margin_loss`` / ``triplet_margin_with_distance_loss``,
``poisson_nll_loss`` (``log_input``, ``full``), ``gaussian_nll_loss`` (``full``, ``eps``,
``var`` broadcasting), ``huber_loss`` / ``smooth_l1_loss`` (``delta`` / ``beta``, 0 too),
``ctc_loss`` (against a float64 NumPy forward algorithm on tiny sizes: ``blank``,
``zero_infinity``, reductions, padded and concatenated targets) and the ``nn.*Loss`` layers,
all on random shapes and values against float64 NumPy references written from PyTorch's
documented formulas (checked against torch 2.15 where the page is vague), with gradients
checked by ``ferrograd.autograd.gradcheck`` / ``gradgradcheck`` on small float64 inputs away
from kinks.

``nn.init``: every PyTorch initializer on random shapes: the shape and the identity of the
returned tensor, that it runs without recording a graph, the fans of linear and conv
weights (``_calculate_fan_in_and_fan_out``, ``calculate_gain``), the documented bounds of
the uniform ones, the moments of the random ones with a fixed seed (generous deterministic
bounds), orthogonality, ``eye_`` / ``dirac_`` / ``sparse_``'s structure.

``utils.data``: ``DataLoader`` (``num_workers=0``) over ``TensorDataset``, map-style and
iterable datasets with ``batch_size``, ``drop_last``, a seeded ``shuffle`` (a permutation
every epoch), ``sampler`` / ``batch_sampler``, ``default_collate`` of nested dicts / tuples /
NumPy arrays / Python numbers, ``RandomSampler(replacement, num_samples)``,
``WeightedRandomSampler``, ``SubsetRandomSampler``, ``random_split`` (lengths and fractions),
``ConcatDataset`` and ``Subset``, against what PyTorch documents (checked against torch
2.15). This module is PyTorch code (``torch = fg`` below, docs/dialects.md).
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import math
import warnings
from collections import namedtuple

import ferrograd as fg
import ferrograd.nn.functional as F
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from ferrograd import nn
from fuzz_support import CALLS, FUZZ, assert_scaled, grad_ok, leaf
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.special import log_expit, logsumexp
from scipy.stats import truncnorm

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

TOL = {"float64": (1e-10, 1e-12), "float32": (3e-6, 2e-6)}
REDUCTIONS = ["none", "mean", "sum"]
DTYPES = st.sampled_from(["float32", "float64"])


def check(got, want, dtype, what, scale=1.0):
    assert_scaled(got, want, dtype, what, scale, TOL[dtype])


def arr(draw, shape, lo=-3.0, hi=3.0):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def tt(v, dtype=None):
    if v is None:
        return None
    v = np.asarray(v)
    return fg.tensor(v, dtype=dtype or v.dtype.name)


def reduce(v, reduction):
    return {"none": v, "mean": np.mean(v) if v.size else np.nan, "sum": np.sum(v)}[reduction]


def signs(draw, shape):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.sampled_from([-1.0, 1.0])))


# ================================================================ cross_entropy / nll_loss
def _log_softmax(x, axis=1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _ce_index_ref(logp, t, w, ignore, ls, reduction):
    """PyTorch's cross_entropy on class ids (nll_loss when ls == 0), logp [N, C, *]:
    (1 - ls) * nll + ls / C * sum_c -w_c logp_c, the ignored targets left out; the mean
    divides by the summed weights of the targets counted."""
    c = logp.shape[1]
    w = np.ones(c) if w is None else w
    keep = t != ignore
    ts = np.where(keep, t, 0)
    picked = np.take_along_axis(logp, ts[:, None], axis=1)[:, 0]
    wt = np.where(keep, w[ts], 0.0)
    nll = -wt * picked
    wb = w.reshape([1, c] + [1] * (logp.ndim - 2))
    smooth = np.where(keep, -(logp * wb).sum(1), 0.0)
    per = (1 - ls) * nll + ls / c * smooth
    if reduction != "mean":
        return reduce(per, reduction)
    with np.errstate(all="ignore"):  # torch: the nll's 0 / 0 is NaN, whatever the smoothing
        return (1 - ls) * (nll.sum() / wt.sum()) + ls / c * (smooth.sum() / wt.sum())


def _ce_prob_ref(logp, prob, w, ls, reduction):
    """Class probabilities: -sum_c w_c y'_c logp_c, y' = (1 - ls) y + ls / C; the mean is
    over every position (N * d1 * ...), whatever the weights."""
    c = logp.shape[1]
    wb = 1.0 if w is None else w.reshape([1, c] + [1] * (logp.ndim - 2))
    per = -(wb * logp * (prob * (1 - ls) + ls / c)).sum(1)
    return reduce(per, reduction)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.sampled_from([0.0, 0.2, 1.0]), st.data())
def test_cross_entropy_kdim(reduction, with_weight, ls, data):
    dtype = data.draw(DTYPES)
    unbatched = data.draw(st.booleans())
    n, c = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    extra = (
        []
        if unbatched
        else [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2)))]
    )
    shape = [n, c] + extra
    x = arr(data.draw, shape, -6, 6).astype(dtype).astype(np.float64)
    ignore = data.draw(st.sampled_from([-100, 0, 1, 7]))
    tshape = tuple([n] + extra)
    t = data.draw(hnp.arrays(np.int64, tshape, elements=st.sampled_from([*range(c), ignore])))
    w = arr(data.draw, [c], 0.0, 2).astype(dtype).astype(np.float64) if with_weight else None
    if w is not None:
        # no subnormal weights: in the full suite the NumPy reference once gave NaN for
        # 5e-324 * l / 5e-324 (flushed to 0 / 0), alone it gives 1.0, as ferrograd
        w[w < np.finfo(dtype).tiny] = 0.0
    prob = np.exp(_log_softmax(arr(data.draw, shape)))
    if data.draw(st.booleans()):  # one-hot rows: hard targets given as probabilities
        prob = np.eye(c)[np.clip(t, 0, c - 1)]
        prob = np.moveaxis(prob, -1, 1)
    prob = prob.astype(dtype).astype(np.float64)
    logp = _log_softmax(x)
    kw = dict(weight=tt(w, dtype), reduction=reduction)
    sc = 100 * (1 + x.size)
    sel = (0,) if unbatched else (slice(None),)  # unbatched: input [C], target [] / [C]
    xi, ti, pi = x[sel], t[sel], prob[sel]
    CALLS["cross_entropy"] += 3
    got = F.cross_entropy(tt(xi, dtype), tt(ti), ignore_index=ignore, label_smoothing=ls, **kw)
    want = _ce_index_ref(
        logp[:1] if unbatched else logp, t[:1] if unbatched else t, w, ignore, ls, reduction
    )
    if unbatched and reduction == "none":
        want = want[0]
    check(got, want, dtype, "cross_entropy ids", sc)
    got = F.cross_entropy(tt(xi, dtype), tt(pi, dtype), label_smoothing=ls, **kw)
    want = _ce_prob_ref(
        logp[:1] if unbatched else logp, prob[:1] if unbatched else prob, w, ls, reduction
    )
    if unbatched and reduction == "none":
        want = want[0]
    check(got, want, dtype, "cross_entropy probs", sc)
    got = F.nll_loss(tt(logp[sel], dtype), tt(ti), ignore_index=ignore, **kw)
    want = _ce_index_ref(
        logp[:1] if unbatched else logp, t[:1] if unbatched else t, w, ignore, 0.0, reduction
    )
    if unbatched and reduction == "none":
        want = want[0]
    check(got, want, dtype, "nll_loss", sc)
    # the layers: the same answers
    CALLS["loss layer"] += 2
    layer = nn.CrossEntropyLoss(
        weight=tt(w, dtype), ignore_index=ignore, reduction=reduction, label_smoothing=ls
    )
    check(
        layer(tt(x, dtype), tt(t)),
        _ce_index_ref(logp, t, w, ignore, ls, reduction),
        dtype,
        "CrossEntropyLoss",
        sc,
    )
    layer = nn.NLLLoss(weight=tt(w, dtype), ignore_index=ignore, reduction=reduction)
    check(
        layer(tt(logp, dtype), tt(t)),
        _ce_index_ref(logp, t, w, ignore, 0.0, reduction),
        dtype,
        "NLLLoss",
        sc,
    )
    if with_weight:
        w = np.maximum(w, 0.1)
        kw["weight"] = tt(w)
    x = x[..., :2, :2] if x.ndim == 4 else x
    t, prob = t[..., :2, :2] if t.ndim == 3 else t, prob[..., :2, :2] if prob.ndim == 4 else prob
    assume(reduction != "mean" or (t != ignore).any())  # else NaN (0 / 0)
    grad_ok(lambda u: F.cross_entropy(u, tt(t), ignore_index=ignore, label_smoothing=ls, **kw), x)
    grad_ok(lambda u: F.cross_entropy(u, tt(prob), label_smoothing=ls, **kw), x, second=True)


# ================================================================ margin losses
def _multi_margin_ref(x, y, p, margin, w, reduction):
    """sum_{i != y} w_y max(0, margin - x_y + x_i)^p / C (torch's kernel: the weight
    multiplies after the power)."""
    xb = np.atleast_2d(x)
    yb = np.atleast_1d(y)
    c = xb.shape[1]
    xy = np.take_along_axis(xb, yb[:, None], 1)
    z = np.maximum(0.0, margin - xy + xb) ** p
    z[np.arange(len(yb)), yb] = 0.0
    wy = 1.0 if w is None else w[yb][:, None]
    per = (wy * z).sum(1) / c
    if x.ndim == 1 and reduction == "none":
        per = per.reshape(np.shape(y) or ())
    return reduce(per, reduction)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.sampled_from([1, 2]), st.booleans(), st.data())
def test_multi_margin_loss(reduction, p, with_weight, data):
    dtype = data.draw(DTYPES)
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    margin = data.draw(st.sampled_from([1.0, 0.5, 0.0, 2.0]))
    x = arr(data.draw, [n, c]).astype(dtype).astype(np.float64)
    y = data.draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, c - 1)))
    w = arr(data.draw, [c], 0, 2).astype(dtype).astype(np.float64) if with_weight else None
    one = data.draw(st.sampled_from(["batched", "1d", "1d0d"]))
    if one != "batched":  # an unbatched [C] input, its target [1] or []
        x, y = x[0], (y[:1] if one == "1d" else y[0])
    CALLS["margin"] += 2
    kw = dict(p=p, margin=margin, weight=tt(w, dtype), reduction=reduction)
    want = _multi_margin_ref(x, y, p, margin, w, reduction)
    check(F.multi_margin_loss(tt(x, dtype), tt(y), **kw), want, dtype, "multi_margin_loss", 100)
    check(nn.MultiMarginLoss(**kw)(tt(x, dtype), tt(y)), want, dtype, "MultiMarginLoss", 100)
    xb, yb = np.atleast_2d(x), np.atleast_1d(y)
    z = margin - np.take_along_axis(xb, yb[:, None], 1) + xb
    z[np.arange(len(yb)), yb] = 5.0
    assume(np.abs(z).min() > 1e-3)
    grad_ok(lambda u: F.multi_margin_loss(u, tt(y), **kw), x, second=p == 2)


def _multilabel_margin_ref(x, t, reduction):
    """Per sample: the class ids of `t` up to the first -1 (repeats counted again) against
    every class not among them: sum max(0, 1 - (x_j - x_i)) / C."""
    xb, tb = np.atleast_2d(x), np.atleast_2d(t)
    c = xb.shape[1]
    per = np.zeros(len(xb))
    for k in range(len(xb)):
        ids = []
        for v in tb[k]:
            if v < 0:
                break
            ids.append(int(v))
        others = [i for i in range(c) if i not in ids]
        per[k] = sum(max(0.0, 1 - (xb[k, j] - xb[k, i])) for j in ids for i in others) / c
    if x.ndim == 1:
        per = per.reshape(())
    return reduce(per, reduction)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.data())
def test_multilabel_margin_loss(reduction, data):
    dtype = data.draw(DTYPES)
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 5))
    x = arr(data.draw, [n, c]).astype(dtype).astype(np.float64)
    t = data.draw(hnp.arrays(np.int64, (n, c), elements=st.integers(-1, c - 1)))
    if data.draw(st.booleans()):
        x, t = x[0], t[0]
    CALLS["margin"] += 2
    want = _multilabel_margin_ref(x, t, reduction)
    got = F.multilabel_margin_loss(tt(x, dtype), tt(t), reduction=reduction)
    check(got, want, dtype, "multilabel_margin_loss", 100)
    got = nn.MultiLabelMarginLoss(reduction=reduction)(tt(x, dtype), tt(t))
    check(got, want, dtype, "MultiLabelMarginLoss", 100)
    xb = np.atleast_2d(x)
    assume(np.abs(1 - (xb[:, :, None] - xb[:, None, :])).min() > 1e-3)
    grad_ok(lambda u: F.multilabel_margin_loss(u, tt(t), reduction=reduction), x)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.data())
def test_multilabel_soft_margin_loss(reduction, with_weight, data):
    dtype = data.draw(DTYPES)
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 5))
    x = arr(data.draw, [n, c], -30, 30).astype(dtype).astype(np.float64)
    y = data.draw(hnp.arrays(np.float64, (n, c), elements=st.sampled_from([0.0, 1.0, 0.25])))
    w = arr(data.draw, [c], 0, 2).astype(dtype).astype(np.float64) if with_weight else None
    per = -(y * log_expit(x) + (1 - y) * log_expit(-x)) * (1.0 if w is None else w)
    want = reduce(per.mean(1), reduction)
    CALLS["margin"] += 2
    kw = dict(weight=tt(w, dtype), reduction=reduction)
    got = F.multilabel_soft_margin_loss(tt(x, dtype), tt(y, dtype), **kw)
    check(got, want, dtype, "multilabel_soft_margin_loss", 100 * (1 + x.size))
    got = nn.MultiLabelSoftMarginLoss(**kw)(tt(x, dtype), tt(y, dtype))
    check(got, want, dtype, "MultiLabelSoftMarginLoss", 100 * (1 + x.size))
    grad_ok(lambda u: F.multilabel_soft_margin_loss(u, tt(y), **kw), x / 10, second=True)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.data())
def test_soft_margin_and_hinge_embedding(reduction, data):
    dtype = data.draw(DTYPES)
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    x = arr(data.draw, shape, -40, 40).astype(dtype).astype(np.float64)
    y = signs(data.draw, shape)
    margin = data.draw(st.sampled_from([1.0, 0.0, 0.5, -0.5, 2.0]))
    sc = 100 * (1 + x.size) * (1 + np.abs(x).max(initial=0))
    CALLS["margin"] += 4
    want = reduce(np.logaddexp(0.0, -y * x), reduction)
    check(
        F.soft_margin_loss(tt(x, dtype), tt(y, dtype), reduction=reduction),
        want,
        dtype,
        "soft_margin_loss",
        sc,
    )
    check(
        nn.SoftMarginLoss(reduction=reduction)(tt(x, dtype), tt(y, dtype)),
        want,
        dtype,
        "SoftMarginLoss",
        sc,
    )
    want = reduce(np.where(y > 0, x, np.maximum(0.0, margin - x)), reduction)
    got = F.hinge_embedding_loss(tt(x, dtype), tt(y, dtype), margin=margin, reduction=reduction)
    check(got, want, dtype, "hinge_embedding_loss", sc)
    got = nn.HingeEmbeddingLoss(margin=margin, reduction=reduction)(tt(x, dtype), tt(y, dtype))
    check(got, want, dtype, "HingeEmbeddingLoss", sc)
    g = arr(data.draw, [4])
    yg = signs(data.draw, [4])
    assume(np.abs(margin - g).min() > 1e-3)
    grad_ok(lambda u: F.soft_margin_loss(u, tt(yg), reduction=reduction), g, second=True)
    grad_ok(lambda u: F.hinge_embedding_loss(u, tt(yg), margin=margin, reduction=reduction), g)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.data())
def test_cosine_embedding_and_margin_ranking_layers(reduction, batched, data):
    n, d = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    x1, x2 = arr(data.draw, [n, d]), arr(data.draw, [n, d])
    y = signs(data.draw, [n])
    margin = data.draw(st.sampled_from([0.0, 0.5, -0.3]))
    if not batched:
        x1, x2, y = x1[0], x2[0], y[0]
    nrm = np.sqrt(((x1 * x1).sum(-1) + 1e-12) * ((x2 * x2).sum(-1) + 1e-12))
    cos = (x1 * x2).sum(-1) / nrm
    CALLS["loss layer"] += 2
    want = reduce(np.where(y > 0, 1 - cos, np.maximum(0, cos - margin)), reduction)
    got = nn.CosineEmbeddingLoss(margin=margin, reduction=reduction)(tt(x1), tt(x2), tt(y))
    check(got, want, "float64", "CosineEmbeddingLoss", 100)
    want = reduce(np.maximum(0, -y * (x1 - x2).T + margin).T, reduction)
    got = nn.MarginRankingLoss(margin=margin, reduction=reduction)(
        tt(x1), tt(x2), tt(y[..., None] if batched else y)
    )
    check(got, want, "float64", "MarginRankingLoss", 100)


def _pdist(a, b, p, eps):
    d = np.abs(a - b + eps)
    if p == np.inf:
        return d.max(-1)
    return (d**p).sum(-1) ** (1 / p)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.sampled_from([1.0, 2.0, 3.0]), st.data())
def test_triplet_margin_losses(reduction, swap, p, data):
    dtype = data.draw(DTYPES)
    n, d = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    a, pos, neg = (arr(data.draw, [n, d]).astype(dtype).astype(np.float64) for _ in range(3))
    if data.draw(st.booleans()):
        a, pos, neg = a[0], pos[0], neg[0]
    margin = data.draw(st.sampled_from([1.0, 0.0, 0.5, 2.0]))
    eps = data.draw(st.sampled_from([1e-6, 0.0, 0.1]))

    def ref(dist, a, pos, neg):
        dap, dan = dist(a, pos), dist(a, neg)
        if swap:
            dan = np.minimum(dan, dist(pos, neg))
        return reduce(np.maximum(dap - dan + margin, 0.0), reduction)

    want = ref(lambda u, v: _pdist(u, v, p, eps), a, pos, neg)
    kw = dict(margin=margin, p=p, eps=eps, swap=swap, reduction=reduction)
    CALLS["triplet"] += 4
    ta, tp, tn = (tt(v, dtype) for v in (a, pos, neg))
    check(F.triplet_margin_loss(ta, tp, tn, **kw), want, dtype, "triplet_margin_loss", 100)
    check(nn.TripletMarginLoss(**kw)(ta, tp, tn), want, dtype, "TripletMarginLoss", 100)
    # the default distance is pairwise_distance (p = 2, eps = 1e-6)
    # the distance form refuses margin <= 0 (as torch: "margin must be greater than 0")
    kw = dict(margin=margin or 1.0, swap=swap, reduction=reduction)
    margin = margin or 1.0
    want = ref(lambda u, v: _pdist(u, v, 2.0, 1e-6), a, pos, neg)
    got = F.triplet_margin_with_distance_loss(ta, tp, tn, **kw)
    check(got, want, dtype, "triplet_margin_with_distance_loss", 100)

    def cosd(u, v):
        return 1 - F.cosine_similarity(u, v, dim=-1)

    def cos_ref(u, v):
        nu = np.maximum(np.sqrt((u * u).sum(-1)), 1e-8)
        nv = np.maximum(np.sqrt((v * v).sum(-1)), 1e-8)
        return 1 - (u * v).sum(-1) / (nu * nv)

    want = ref(cos_ref, a, pos, neg)
    got = nn.TripletMarginWithDistanceLoss(distance_function=cosd, **kw)(ta, tp, tn)
    check(got, want, dtype, "TripletMarginWithDistanceLoss(cosine)", 100)
    g = [arr(data.draw, [2, 3]) for _ in range(3)]

    def hinge(u, v, w):
        dd = [_pdist(*q, p, eps) for q in ((u, v), (u, w), (v, w))]
        return dd[0] - (np.minimum(dd[1], dd[2]) if swap else dd[1]) + margin, dd

    h, dd = hinge(*g)
    assume(np.abs(h).min() > 1e-3 and min(np.min(x) for x in dd) > 1e-2)
    assume(not swap or np.abs(dd[1] - dd[2]).min() > 1e-3)
    assume(
        p != 1.0
        or np.abs(np.concatenate([g[0] - g[1], g[0] - g[2], g[1] - g[2]]) + eps).min() > 1e-3
    )
    grad_ok(
        lambda u, v, w: F.triplet_margin_loss(
            u, v, w, margin=margin, p=p, eps=eps, swap=swap, reduction=reduction
        ),
        *g,
    )


# ================================================================ regression-type NLL losses
@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.booleans(), st.data())
def test_poisson_nll_loss(reduction, log_input, full, data):
    dtype = data.draw(DTYPES)
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    x = arr(data.draw, shape, -3, 3) if log_input else arr(data.draw, shape, 0, 5)
    y = data.draw(
        hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 7.0]))
    )
    x, y = (v.astype(dtype).astype(np.float64) for v in (x, y))
    eps = data.draw(st.sampled_from([1e-8, 1e-3, 0.5]))
    per = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        with np.errstate(all="ignore"):
            stirling = y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y)
        per = per + np.where(y > 1, stirling, 0.0)
    want = reduce(per, reduction)
    CALLS["poisson_nll"] += 2
    kw = dict(log_input=log_input, full=full, eps=eps, reduction=reduction)
    sc = 100 * (1 + x.size) * (1 + np.abs(per).max(initial=0))
    check(F.poisson_nll_loss(tt(x, dtype), tt(y, dtype), **kw), want, dtype, "poisson_nll_loss", sc)
    check(nn.PoissonNLLLoss(**kw)(tt(x, dtype), tt(y, dtype)), want, dtype, "PoissonNLLLoss", sc)
    g = arr(data.draw, [4], -2, 2) if log_input else arr(data.draw, [4], 0.2, 4)
    yg = np.array([0.0, 0.5, 2.0, 7.0])
    grad_ok(lambda u: F.poisson_nll_loss(u, tt(yg), **kw), g, second=True)


def _gauss_var(shape, kind, draw):
    """A var of one of the shapes torch accepts for an input of `shape` (ndim >= 1)."""
    if kind == "same":
        return arr(draw, shape, 0, 3)
    if kind == "short":  # one dim short: homoscedastic, unsqueezed at the end
        return arr(draw, shape[:-1], 0, 3)
    if kind == "one":  # one mismatched dim of size 1
        d = draw(st.integers(0, len(shape) - 1))
        s = list(shape)
        s[d] = 1
        return arr(draw, s, 0, 3)
    return draw(st.sampled_from([0.0, 0.5, 2.0]))  # a Python float


@FUZZ
@given(
    st.sampled_from(REDUCTIONS),
    st.booleans(),
    st.sampled_from(["same", "short", "one", "float"]),
    st.data(),
)
def test_gaussian_nll_loss(reduction, full, kind, data):
    dtype = data.draw(DTYPES)
    shape = list(data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)))
    x, y = arr(data.draw, shape), arr(data.draw, shape)
    var = _gauss_var(shape, kind, data.draw)
    if kind != "float" and data.draw(st.booleans()):
        var.flat[0] = 0.0  # clamped at eps
    eps = data.draw(st.sampled_from([1e-6, 1e-2, 0.5]))
    x, y = (v.astype(dtype).astype(np.float64) for v in (x, y))
    vv = np.asarray(var, np.float64).astype(dtype).astype(np.float64)
    vb = vv[..., None] if kind == "short" else vv
    vc = np.maximum(vb, eps)
    per = 0.5 * (np.log(vc) + (x - y) ** 2 / vc) + (0.5 * np.log(2 * np.pi) if full else 0.0)
    per = np.broadcast_to(per, x.shape)
    want = reduce(per, reduction)
    tv = var if kind == "float" else tt(vv, dtype)
    CALLS["gaussian_nll"] += 2
    kw = dict(full=full, eps=eps, reduction=reduction)
    sc = 100 * (1 + x.size) * (1 + np.abs(per).max(initial=0))
    check(
        F.gaussian_nll_loss(tt(x, dtype), tt(y, dtype), tv, **kw),
        want,
        dtype,
        "gaussian_nll_loss",
        sc,
    )
    check(
        nn.GaussianNLLLoss(**kw)(tt(x, dtype), tt(y, dtype), tv), want, dtype, "GaussianNLLLoss", sc
    )
    if kind == "float":
        grad_ok(
            lambda u, v: F.gaussian_nll_loss(u, v, 0.7, **kw),
            arr(data.draw, [3]),
            arr(data.draw, [3]),
        )
        return
    vg = np.abs(np.asarray(var, np.float64)) + eps + 0.3  # away from the clamp
    grad_ok(lambda u, v, s: F.gaussian_nll_loss(u, v, s, **kw), x, y, vg, second=True)
    # where var < eps it is clamped for the value, its gradient taken at eps (torch: a
    # clamp_ under no_grad of a clone)
    if kind == "same":
        u, s = leaf(x), leaf(np.full(shape, eps / 4))
        F.gaussian_nll_loss(u, tt(y), s, eps=eps, reduction="sum").backward()
        want = 0.5 * (1 / eps - (x - y) ** 2 / eps**2)
        check(s.grad, want, "float64", "gaussian_nll var grad at the clamp", 1e3 / eps**2)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.sampled_from([0.0, 1e-3, 0.5, 1.0, 3.0]), st.data())
def test_huber_and_smooth_l1_params(reduction, p, data):
    dtype = data.draw(DTYPES)
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    x, y = arr(data.draw, shape, -5, 5), arr(data.draw, shape, -5, 5)
    x, y = (v.astype(dtype).astype(np.float64) for v in (x, y))
    d = x - y
    ad = np.abs(d)
    sl1 = ad if p == 0 else np.where(ad < p, 0.5 * d * d / p, ad - 0.5 * p)
    sc = 100 * (1 + x.size) * (1 + ad.max(initial=0) / max(p, 1e-3))
    CALLS["huber"] += 2
    kw = dict(reduction=reduction)
    check(
        F.smooth_l1_loss(tt(x, dtype), tt(y, dtype), beta=p, **kw),
        reduce(sl1, reduction),
        dtype,
        "smooth_l1",
        sc,
    )
    check(
        nn.SmoothL1Loss(beta=p, **kw)(tt(x, dtype), tt(y, dtype)),
        reduce(sl1, reduction),
        dtype,
        "SmoothL1Loss",
        sc,
    )
    if p > 0:
        hub = np.where(ad < p, 0.5 * d * d, p * (ad - 0.5 * p))
        CALLS["huber"] += 2
        check(
            F.huber_loss(tt(x, dtype), tt(y, dtype), delta=p, **kw),
            reduce(hub, reduction),
            dtype,
            "huber",
            sc,
        )
        check(
            nn.HuberLoss(delta=p, **kw)(tt(x, dtype), tt(y, dtype)),
            reduce(hub, reduction),
            dtype,
            "HuberLoss",
            sc,
        )
    g1, g2 = arr(data.draw, [5]), arr(data.draw, [5])
    assume(np.abs(np.abs(g1 - g2) - p).min() > 1e-3 and np.abs(g1 - g2).min() > 1e-3)
    grad_ok(lambda u, v: F.smooth_l1_loss(u, v, beta=p, **kw), g1, g2)
    if p > 0:
        grad_ok(lambda u, v: F.huber_loss(u, v, delta=p, **kw), g1, g2, second=True)


def test_huber_and_smooth_l1_refuse_bad_thresholds():
    x = fg.ones([3])
    with pytest.raises(Exception) as e:
        F.huber_loss(x, x, delta=0.0)
    assert not type(e.value).__name__.startswith("Panic")
    with pytest.raises(Exception) as e:
        F.smooth_l1_loss(x, x, beta=-1.0)
    assert not type(e.value).__name__.startswith("Panic")


# ================================================================ ctc_loss
def _ctc_ref(lp, targets, in_lens, tgt_lens, blank):
    """-log p(target | input) by the forward algorithm (Graves 2006) in float64 log space;
    lp [T, N, C] log-probabilities; `targets` a list of label sequences."""
    out = []
    for b in range(lp.shape[1]):
        lab = list(targets[b][: tgt_lens[b]])
        ext = [blank]
        for v in lab:
            ext += [v, blank]
        s_len, t_len = len(ext), in_lens[b]
        alpha = np.full(s_len, -np.inf)
        if t_len == 0:
            out.append(0.0 if not lab else np.inf)
            continue
        alpha[0] = lp[0, b, blank]
        if s_len > 1:
            alpha[1] = lp[0, b, ext[1]]
        for t in range(1, t_len):
            new = np.full(s_len, -np.inf)
            for s in range(s_len):
                terms = [alpha[s]]
                if s >= 1:
                    terms.append(alpha[s - 1])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    terms.append(alpha[s - 2])
                new[s] = logsumexp(terms) + lp[t, b, ext[s]]
            alpha = new
        out.append(-logsumexp(alpha[-2:]) if s_len > 1 else -alpha[-1])
    return np.asarray(out)


@FUZZ
@given(st.sampled_from(REDUCTIONS), st.booleans(), st.data())
def test_ctc_loss(reduction, zero_infinity, data):
    t_max, n, c = (
        data.draw(st.integers(1, 5)),
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(2, 4)),
    )
    blank = data.draw(st.sampled_from([0, c - 1]))
    labels = [i for i in range(c) if i != blank]
    s_max = data.draw(st.integers(1, 4))
    tgt = data.draw(hnp.arrays(np.int64, (n, s_max), elements=st.sampled_from(labels)))
    tgt_lens = data.draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, s_max)))
    in_lens = data.draw(hnp.arrays(np.int64, (n,), elements=st.integers(1, t_max)))
    dtype = data.draw(DTYPES)
    x = arr(data.draw, [t_max, n, c], -3, 3)
    lp = _log_softmax(x, axis=2).astype(dtype).astype(np.float64)
    per = _ctc_ref(lp, tgt, in_lens, tgt_lens, blank)
    if zero_infinity:
        per = np.where(np.isinf(per), 0.0, per)
    if reduction == "mean":
        want = np.mean(per / np.maximum(tgt_lens, 1))
    else:
        want = reduce(per, reduction)
    form = data.draw(st.sampled_from(["padded", "concat", "tensor lens"]))
    if form == "concat":
        targets = tt(np.concatenate([tgt[b, : tgt_lens[b]] for b in range(n)]).astype(np.int64))
    else:
        targets = tt(tgt)
    lens = (
        (tt(in_lens), tt(tgt_lens)) if form != "padded" else (in_lens.tolist(), tgt_lens.tolist())
    )
    kw = dict(blank=blank, reduction=reduction, zero_infinity=zero_infinity)
    CALLS["ctc"] += 2
    sc = 100 * (1 + np.abs(per[np.isfinite(per)]).sum())
    check(F.ctc_loss(tt(lp, dtype), targets, *lens, **kw), want, dtype, "ctc_loss", sc)
    check(nn.CTCLoss(**kw)(tt(lp, dtype), targets, *lens), want, dtype, "CTCLoss", sc)
    if n == 1 and form == "padded":  # unbatched: [T, C] log_probs, [S] targets
        got = F.ctc_loss(
            tt(lp[:, 0], dtype), tt(tgt[0]), in_lens[:1].tolist(), tgt_lens[:1].tolist(), **kw
        )
        w1 = per[0] / max(tgt_lens[0], 1) if reduction == "mean" else per[0]
        check(got, w1, dtype, "ctc_loss unbatched", sc)
    assume(np.isfinite(per).all())
    grad_ok(lambda u: F.ctc_loss(u, targets, *lens, **kw), lp)


# ================================================================ the simple loss layers
@FUZZ
@given(st.sampled_from(REDUCTIONS), st.data())
def test_pointwise_loss_layers(reduction, data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    x, y = arr(data.draw, shape), arr(data.draw, shape)
    p, q = arr(data.draw, shape, 0.01, 0.99), arr(data.draw, shape, 0, 1)
    d = x - y
    CALLS["loss layer"] += 5
    check(
        nn.MSELoss(reduction=reduction)(tt(x), tt(y)),
        reduce(d * d, reduction),
        "float64",
        "MSELoss",
        1e3,
    )
    check(
        nn.L1Loss(reduction=reduction)(tt(x), tt(y)),
        reduce(np.abs(d), reduction),
        "float64",
        "L1Loss",
        1e3,
    )
    bce = -(q * np.log(p) + (1 - q) * np.log1p(-p))
    check(
        nn.BCELoss(reduction=reduction)(tt(p), tt(q)),
        reduce(bce, reduction),
        "float64",
        "BCELoss",
        1e3,
    )
    bcel = -(q * log_expit(x) + (1 - q) * log_expit(-x))
    got = nn.BCEWithLogitsLoss(reduction=reduction)(tt(x), tt(q))
    check(got, reduce(bcel, reduction), "float64", "BCEWithLogitsLoss", 1e3)
    lx = np.log(p)
    kl = np.where(q > 0, q * (np.log(np.where(q > 0, q, 1)) - lx), 0.0)
    check(
        nn.KLDivLoss(reduction=reduction)(tt(lx), tt(q)),
        reduce(kl, reduction),
        "float64",
        "KLDivLoss",
        1e3,
    )


# ================================================================ nn.init
init = nn.init

# PyTorch's calculate_gain table
GAINS = {
    "linear": 1.0,
    "conv1d": 1.0,
    "conv2d": 1.0,
    "conv3d": 1.0,
    "sigmoid": 1.0,
    "tanh": 5.0 / 3,
    "relu": math.sqrt(2.0),
    "selu": 0.75,
}
WEIGHT_SHAPES = st.one_of(
    st.tuples(st.integers(1, 9), st.integers(1, 9)),  # linear [out, in]
    st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4)),  # conv1d
    st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 3), st.integers(1, 3)),
    st.tuples(*[st.integers(1, 3)] * 5),  # conv3d
)


def _fans(shape):
    rec = int(np.prod(shape[2:]))
    return shape[1] * rec, shape[0] * rec


def _fresh(shape, dtype, data):
    """A leaf that requires grad, maybe seen through a strided view of a larger one."""
    if data.draw(st.booleans()):
        t = fg.full(list(shape), 7.25, dtype=dtype)
        t.requires_grad = True
        return t, t
    big = fg.full([2 * shape[0]] + list(shape[1:]), 7.25, dtype=dtype)
    big.requires_grad = True
    with fg.no_grad():
        view = big[::2]  # every other row: not contiguous
    return view, big


def _after(t, base, shape, dtype, what, key="init"):
    """The fill returned the tensor itself, kept its shape / dtype, recorded no graph."""
    CALLS[key] += 1
    assert list(t.shape) == list(shape), f"{what}: shape {list(t.shape)}"
    assert t.dtype.name == dtype, f"{what}: dtype {t.dtype.name}"
    assert base.is_leaf and base.requires_grad and base.grad_fn is None, f"{what}: graph"
    v = t.detach().numpy().astype(np.float64)
    assert np.isfinite(v).all(), f"{what}: not finite"
    return v


def _moments_ok(v, mean, std, what):
    """Sample mean and std within generous deterministic bounds (a fixed seed)."""
    n = v.size
    if n < 30 or std == 0:
        return
    assert abs(v.mean() - mean) <= 6 * std / math.sqrt(n) + 1e-6, f"{what}: mean {v.mean()}"
    assert abs(v.std() / std - 1) <= 6 / math.sqrt(n) + 0.05, f"{what}: std {v.std()} vs {std}"


@FUZZ
@given(WEIGHT_SHAPES, DTYPES, st.data())
def test_init_fans_bounds_and_moments(shape, dtype, data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    fg.manual_seed(seed)
    fan_in, fan_out = _fans(shape)
    CALLS["init"] += 1
    assert init._calculate_fan_in_and_fan_out(fg.empty(list(shape))) == (fan_in, fan_out)
    gain = data.draw(st.sampled_from([1.0, 0.5, 2.0, math.sqrt(2)]))
    # xavier_uniform_: U(-b, b), b = gain sqrt(6 / (fan_in + fan_out))
    t, base = _fresh(shape, dtype, data)
    assert init.xavier_uniform_(t, gain=gain) is t
    v = _after(t, base, shape, dtype, "xavier_uniform_")
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(v).max() <= bound * (1 + 1e-6), "xavier_uniform_ bound"
    _moments_ok(v, 0.0, bound / math.sqrt(3), "xavier_uniform_")
    # xavier_normal_: N(0, std²), std = gain sqrt(2 / (fan_in + fan_out))
    t, base = _fresh(shape, dtype, data)
    assert init.xavier_normal_(t, gain) is t
    v = _after(t, base, shape, dtype, "xavier_normal_")
    _moments_ok(v, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), "xavier_normal_")
    # kaiming: gain = calculate_gain(nonlinearity, a), std = gain / sqrt(fan)
    mode = data.draw(st.sampled_from(["fan_in", "fan_out"]))
    nl = data.draw(st.sampled_from(["leaky_relu", "relu", "linear", "tanh", "selu", "sigmoid"]))
    a = data.draw(st.sampled_from([0.0, 0.01, 0.2, math.sqrt(5)]))
    g = math.sqrt(2.0 / (1 + a * a)) if nl == "leaky_relu" else GAINS[nl]
    CALLS["init"] += 1
    assert math.isclose(init.calculate_gain(nl, a), g, rel_tol=1e-12)
    std = g / math.sqrt(fan_in if mode == "fan_in" else fan_out)
    t, base = _fresh(shape, dtype, data)
    assert init.kaiming_uniform_(t, a=a, mode=mode, nonlinearity=nl) is t
    v = _after(t, base, shape, dtype, "kaiming_uniform_")
    assert np.abs(v).max() <= math.sqrt(3) * std * (1 + 1e-6), "kaiming_uniform_ bound"
    _moments_ok(v, 0.0, std, "kaiming_uniform_")
    t, base = _fresh(shape, dtype, data)
    assert init.kaiming_normal_(t, a, mode, nl) is t
    v = _after(t, base, shape, dtype, "kaiming_normal_")
    _moments_ok(v, 0.0, std, "kaiming_normal_")
    # a layer's own weights start as PyTorch's: kaiming_uniform_(a=sqrt(5)), bias 1/sqrt(fan_in)
    if len(shape) == 2:
        layer = nn.Linear(shape[1], shape[0])
    else:
        conv = {3: nn.Conv1d, 4: nn.Conv2d, 5: nn.Conv3d}[len(shape)]
        layer = conv(shape[1], shape[0], shape[2:])
    CALLS["init"] += 1
    assert list(layer.weight.shape) == list(shape)
    b = 1 / math.sqrt(fan_in)
    assert np.abs(layer.weight.detach().numpy()).max() <= b * (1 + 1e-6), "layer weight bound"
    assert np.abs(layer.bias.detach().numpy()).max() <= b * (1 + 1e-6), "layer bias bound"


@FUZZ
@given(st.lists(st.integers(0, 5), min_size=0, max_size=4), DTYPES, st.data())
def test_init_plain_fills(shape, dtype, data):
    fg.manual_seed(data.draw(st.integers(0, 2**31 - 1)))
    shape = tuple(shape) or (data.draw(st.integers(1, 5)),)
    lo = data.draw(st.sampled_from([-3.0, 0.0, 0.5, -1e-3]))
    hi = lo + data.draw(st.sampled_from([0.0, 1e-3, 1.0, 4.0]))
    t, base = _fresh(shape, dtype, data)
    assert init.uniform_(t, lo, hi) is t
    v = _after(t, base, shape, dtype, "uniform_")
    assert (v >= lo - 1e-6 * abs(lo)).all() and (v <= hi + 1e-6 * abs(hi)).all(), "uniform_ bounds"
    w = hi - lo
    if v.size >= 30 and w > 0:
        assert abs(v.mean() - (lo + hi) / 2) <= 6 * w / math.sqrt(12 * v.size), "uniform_ mean"
    mean, std = data.draw(st.sampled_from([(0.0, 1.0), (2.0, 0.5), (-1.0, 0.0), (0.0, 3.0)]))
    t, base = _fresh(shape, dtype, data)
    assert init.normal_(t, mean, std) is t
    v = _after(t, base, shape, dtype, "normal_")
    _moments_ok(v, mean, std, "normal_")
    if std == 0:
        assert (v == mean).all()
    val = data.draw(st.sampled_from([0.0, -2.5, 1e30, 3.0]))
    for name, fn, want in [
        ("constant_", lambda u: init.constant_(u, val), val),
        ("ones_", init.ones_, 1.0),
        ("zeros_", init.zeros_, 0.0),
    ]:
        t, base = _fresh(shape, dtype, data)
        assert fn(t) is t
        v = _after(t, base, shape, dtype, name)
        np.testing.assert_array_equal(v, np.full(shape, np.asarray(want, dtype)), err_msg=name)
    # trunc_normal_: every sample inside [a, b] (absolute bounds), the truncated moments
    mean, std, a, b = data.draw(
        st.sampled_from(
            [
                (0.0, 1.0, -2.0, 2.0),
                (1.0, 2.0, 0.0, 1.5),
                (0.0, 0.02, -0.04, 0.04),
                (0.0, 1.0, 0.5, 3.0),
            ]
        )
    )
    t, base = _fresh(shape, dtype, data)
    assert init.trunc_normal_(t, mean, std, a, b) is t
    v = _after(t, base, shape, dtype, "trunc_normal_")
    assert (v >= a - 1e-6).all() and (v <= b + 1e-6).all(), "trunc_normal_ bounds"
    dist = truncnorm((a - mean) / std, (b - mean) / std, loc=mean, scale=std)
    _moments_ok(v, dist.mean(), dist.std(), "trunc_normal_")


@FUZZ
@given(st.lists(st.integers(1, 6), min_size=2, max_size=4), DTYPES, st.data())
def test_init_orthogonal_eye_dirac_sparse(shape, dtype, data):
    fg.manual_seed(data.draw(st.integers(0, 2**31 - 1)))
    shape = tuple(shape)
    gain = data.draw(st.sampled_from([1.0, 0.5, 3.0]))
    t, base = _fresh(shape, dtype, data)
    assert init.orthogonal_(t, gain) is t
    v = _after(t, base, shape, dtype, "orthogonal_").reshape(shape[0], -1)
    rows, cols = v.shape
    gram = v @ v.T if rows <= cols else v.T @ v
    tol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(gram, gain**2 * np.eye(min(rows, cols)), atol=tol * gain**2 * 10)
    # eye_: a 2-D tensor's identity (ones on the diagonal of a rectangular one)
    sh2 = shape[:2]
    t, base = _fresh(sh2, dtype, data)
    assert init.eye_(t) is t
    np.testing.assert_array_equal(_after(t, base, sh2, dtype, "eye_"), np.eye(*sh2))
    # dirac_: per group, output channel i copies input channel i at the kernel's centre
    if len(shape) >= 3:
        groups = data.draw(st.sampled_from([g for g in (1, 2, 3) if shape[0] % g == 0]))
        t, base = _fresh(shape, dtype, data)
        assert init.dirac_(t, groups) is t
        v = _after(t, base, shape, dtype, "dirac_")
        want = np.zeros(shape)
        per = shape[0] // groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(groups):
            for i in range(min(per, shape[1])):
                want[(g * per + i, i, *centre)] = 1.0
        np.testing.assert_array_equal(v, want, err_msg="dirac_")
    # sparse_: N(0, std²) with ceil(sparsity * rows) zeros in every column
    sparsity = data.draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
    std = data.draw(st.sampled_from([0.01, 1.0]))
    t, base = _fresh(sh2, dtype, data)
    assert init.sparse_(t, sparsity, std) is t
    v = _after(t, base, sh2, dtype, "sparse_")
    zeros = (v == 0).sum(0)
    np.testing.assert_array_equal(zeros, np.full(sh2[1], math.ceil(sparsity * sh2[0])))
    assert np.abs(v).max() <= 8 * std, "sparse_ values"


@pytest.mark.parametrize("shape", [(0, 3), (4, 0), (2, 0, 3)])
def test_init_zero_element_tensors(shape):
    """Zero-element weights: the fills return the tensor (xavier with one fan non-zero;
    PyTorch's kaiming warns that it is a no-op and returns it)."""
    for fn in (
        init.xavier_uniform_,
        init.xavier_normal_,
        init.orthogonal_,
        init.uniform_,
        init.normal_,
    ):
        t = fg.empty(list(shape))
        CALLS["init"] += 1
        assert fn(t) is t and list(t.shape) == list(shape)
    t = fg.empty(list(shape))
    with pytest.warns(UserWarning, match="zero-element"):
        assert init.kaiming_uniform_(t) is t and init.kaiming_normal_(t) is t


def test_init_refusals():
    CALLS["init"] += 6
    for fn in (init.xavier_uniform_, init.kaiming_normal_, init.orthogonal_):
        with pytest.raises(ValueError):
            fn(fg.empty([3]))
    with pytest.raises(ValueError):
        init.eye_(fg.empty([2, 2, 2]))
    with pytest.raises(ValueError):
        init.dirac_(fg.empty([2, 2]))
    with pytest.raises(ValueError):
        init.calculate_gain("softmax")
    with pytest.raises(ValueError):
        init.kaiming_uniform_(fg.empty([2, 2]), mode="fan_avg")


# ================================================================ utils.data
data_mod = fg.utils.data
DataLoader, TensorDataset = data_mod.DataLoader, data_mod.TensorDataset


def _dn(t):
    """A tensor's dtype name ("float32")."""
    return str(t.dtype).rsplit(".", 1)[-1]


def _gen(kind, seed):
    """A seeded generator as PyTorch code passes it (or ferrograd's int / NumPy forms)."""
    if kind == "torch":
        return torch.Generator().manual_seed(seed)
    return seed if kind == "int" else np.random.default_rng(seed)


def _batch_sizes(n, bs, drop_last):
    full, rest = divmod(n, bs)
    return [bs] * full + ([rest] if rest and not drop_last else [])


@FUZZ
@given(st.integers(0, 13), st.integers(1, 5), st.booleans(), st.booleans(), st.data())
def test_dataloader_tensor_dataset(n, bs, drop_last, shuffle, data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    kind = data.draw(st.sampled_from(["torch", "int", "numpy"]))
    xs = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
    ys = np.arange(n, dtype=np.int64) * 3
    ds = TensorDataset(fg.tensor(xs), fg.tensor(ys))

    def epochs(gen):
        loader = DataLoader(ds, batch_size=bs, shuffle=shuffle, drop_last=drop_last, generator=gen)
        sizes = _batch_sizes(n, bs, drop_last)
        assert len(loader) == len(sizes)
        out = []
        for _ in range(2):
            seen = []
            for k, (xb, yb) in enumerate(loader):
                CALLS["dataloader"] += 1
                assert _dn(xb) == "float32" and _dn(yb) == "int64"
                assert list(xb.shape) == [sizes[k], 2] and list(yb.shape) == [sizes[k]]
                idx = yb.numpy() // 3
                np.testing.assert_array_equal(xb.numpy(), xs[idx])  # the rows stay paired
                seen += idx.tolist()
            assert len(seen) == sum(sizes)
            if shuffle:
                assert len(set(seen)) == len(seen), "an index drawn twice in one epoch"
                if not drop_last:
                    assert sorted(seen) == list(range(n)), "not a permutation"
            else:
                assert seen == list(range(sum(sizes)))
            out.append(seen)
        return out

    first = epochs(_gen(kind, seed))
    if shuffle:  # the same seed gives the same epochs
        assert epochs(_gen(kind, seed)) == first


class _Records(data_mod.Dataset):
    """A map-style dataset of nested samples: dicts, tuples, named tuples, lists, NumPy
    arrays and scalars, Python numbers and strings."""

    Pair = namedtuple("Pair", "a b")

    def __init__(self, n, width, dtype):
        self.n, self.width, self.dtype = n, width, dtype

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {
            "x": np.arange(self.width, dtype=self.dtype) + i,
            "meta": (i, float(i) / 2, bool(i % 2), f"s{i}"),
            "pair": self.Pair(np.float32(i), [i, -i]),
            "m": np.full((2, 1), i, np.int32),
        }


def _check_collated(batch, idx, width, dtype):
    """default_collate's documented mapping: dict -> dict, tuple -> list, named tuple ->
    named tuple, list -> list, arrays stacked, NumPy scalars keep their dtype, Python int
    -> int64, float -> float64, bool -> bool, str -> list of str."""
    CALLS["collate"] += 1
    idx = np.asarray(idx)
    assert isinstance(batch, dict) and sorted(batch) == ["m", "meta", "pair", "x"]
    x = batch["x"]
    assert _dn(x) == np.dtype(dtype).name and list(x.shape) == [len(idx), width]
    np.testing.assert_array_equal(x.numpy(), np.arange(width, dtype=dtype)[None] + idx[:, None])
    meta = batch["meta"]
    assert isinstance(meta, list) and len(meta) == 4
    assert _dn(meta[0]) == "int64" and meta[0].tolist() == idx.tolist()
    assert _dn(meta[1]) == "float64" and meta[1].tolist() == (idx / 2).tolist()
    assert _dn(meta[2]) == "bool" and meta[2].tolist() == (idx % 2 == 1).tolist()
    assert list(meta[3]) == [f"s{i}" for i in idx]
    pair = batch["pair"]
    assert type(pair).__name__ == "Pair" and isinstance(pair, tuple)
    assert _dn(pair.a) == "float32" and pair.a.tolist() == idx.astype(np.float32).tolist()
    assert isinstance(pair.b, list) and [t.tolist() for t in pair.b] == [
        idx.tolist(),
        (-idx).tolist(),
    ]
    m = batch["m"]
    assert _dn(m) == "int32" and list(m.shape) == [len(idx), 2, 1]
    np.testing.assert_array_equal(m.numpy(), np.broadcast_to(idx[:, None, None], (len(idx), 2, 1)))


@FUZZ
@given(
    st.integers(1, 9),
    st.integers(1, 4),
    st.sampled_from(["float32", "float64", "int64", "uint8"]),
    st.data(),
)
def test_dataloader_map_style_collate(n, width, dtype, data):
    ds = _Records(n, width, dtype)
    how = data.draw(st.sampled_from(["batch_size", "sampler", "batch_sampler", "BatchSampler"]))
    bs = data.draw(st.integers(1, 4))
    drop_last = data.draw(st.booleans())
    order = data.draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=12))
    if how == "batch_size":
        loader, want = DataLoader(ds, batch_size=bs, drop_last=drop_last), list(range(n))
    elif how == "sampler":  # any iterable of indices, in its order
        loader, want = DataLoader(ds, batch_size=bs, sampler=order, drop_last=drop_last), order
    else:
        batches = [order[i : i + bs] for i in range(0, len(order), bs)]
        if how == "BatchSampler":
            bsamp = data_mod.BatchSampler(order, bs, drop_last)
            batches = [b for b in batches if len(b) == bs or not drop_last]
            assert list(bsamp) == batches and len(bsamp) == len(batches)
        else:
            bsamp = batches
        loader = DataLoader(ds, batch_sampler=bsamp)
        got = list(loader)
        assert len(got) == len(batches)
        for b, idx in zip(got, batches):
            _check_collated(b, idx, width, dtype)
        return
    sizes = _batch_sizes(len(want), bs, drop_last)
    got = list(loader)
    assert [len(b["meta"][3]) for b in got] == sizes
    start = 0
    for b, k in zip(got, sizes):
        _check_collated(b, want[start : start + k], width, dtype)
        start += k
    # no batching (batch_size=None): each sample converted, arrays to tensors, numbers kept
    one = next(iter(DataLoader(ds, batch_size=None)))
    CALLS["collate"] += 1
    assert _dn(one["x"]) == np.dtype(dtype).name and one["x"].tolist() == list(range(width))
    assert one["meta"][:3] == [0, 0.0, False] or list(one["meta"][:3]) == [0, 0.0, False]


class _Stream(data_mod.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield np.array([i, i * i], np.int64), float(i)


@FUZZ
@given(st.integers(0, 11), st.integers(1, 5), st.booleans())
def test_dataloader_iterable_dataset(n, bs, drop_last):
    loader = DataLoader(_Stream(n), batch_size=bs, drop_last=drop_last)
    for _ in range(2):  # an iterable dataset is read again each epoch
        got = list(loader)
        CALLS["dataloader"] += 1
        assert [len(b[1]) for b in got] == _batch_sizes(n, bs, drop_last)
        flat = [v for b in got for v in b[0][:, 0].tolist()]
        assert flat == list(range(len(flat)))
        for a, f in got:
            assert _dn(a) == "int64" and _dn(f) == "float64"
            np.testing.assert_array_equal(a.numpy()[:, 1], a.numpy()[:, 0] ** 2)
    CALLS["dataloader"] += 1
    for kw in (dict(shuffle=True), dict(sampler=[0, 1])):
        with pytest.raises(ValueError):
            DataLoader(_Stream(n), **kw)


@FUZZ
@given(st.integers(1, 12), st.booleans(), st.data())
def test_random_samplers(n, replacement, data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    kind = data.draw(st.sampled_from(["torch", "int", "numpy"]))
    num = data.draw(st.one_of(st.none(), st.integers(1, 3 * n)))
    s = data_mod.RandomSampler(
        range(n), replacement=replacement, num_samples=num, generator=_gen(kind, seed)
    )
    m = n if num is None else num
    for _ in range(2):
        got = list(s)
        CALLS["sampler"] += 1
        assert len(s) == m and len(got) == m and all(0 <= i < n for i in got)
        assert all(isinstance(i, int) for i in got)
        if not replacement:  # whole permutations, then the start of one more
            for k in range(0, m, n):
                chunk = got[k : k + n]
                assert len(set(chunk)) == len(chunk)
    # SubsetRandomSampler: the given indices, each once, in a random order
    idx = data.draw(st.lists(st.integers(-5, 50), min_size=0, max_size=8, unique=True))
    s = data_mod.SubsetRandomSampler(idx, generator=_gen(kind, seed))
    CALLS["sampler"] += 1
    got = list(s)
    assert len(s) == len(idx) and sorted(got) == sorted(idx)
    # WeightedRandomSampler: zero weights never drawn; without replacement distinct
    w = np.asarray(
        data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    )
    assume(w.sum() > 0)
    nz = int((w > 0).sum())
    k = data.draw(st.integers(1, 3 * n if replacement else nz))
    wt = data.draw(st.sampled_from([list, np.asarray, fg.tensor]))(w.tolist())
    s = data_mod.WeightedRandomSampler(wt, k, replacement=replacement, generator=_gen(kind, seed))
    got = list(s)
    CALLS["sampler"] += 1
    assert len(s) == k and len(got) == k and all(0 <= i < n and w[i] > 0 for i in got)
    if not replacement:
        assert len(set(got)) == k
    # the frequencies of many draws follow the weights (a binomial bound, fixed seed)
    many = 4000
    s = data_mod.WeightedRandomSampler(w, many, replacement=True, generator=_gen(kind, seed))
    counts = np.bincount(list(s), minlength=n)
    p = w / w.sum()
    sd = np.sqrt(many * p * (1 - p))
    assert (np.abs(counts - many * p) <= 6 * sd + 1).all(), f"{counts} vs {many * p}"


def _split_lengths(n, lengths):
    """torch.utils.data.random_split's lengths: fractions summing to 1 become
    floor(n * f), the remainder given one by one round-robin from the first."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        out = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(out)):
            out[i % len(out)] += 1
        return out
    return list(lengths)


@FUZZ
@given(st.integers(0, 20), st.data())
def test_random_split_concat_subset(n, data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    kind = data.draw(st.sampled_from(["torch", "int", "numpy"]))
    parts = data.draw(st.integers(1, 4))
    if data.draw(st.booleans()):  # lengths summing to n
        cuts = sorted(
            data.draw(st.lists(st.integers(0, n), min_size=parts - 1, max_size=parts - 1))
        )
        lengths = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        assume(sum(lengths) != 1 or n == 1)  # [.., 1, ..] on n != 1: torch reads fractions
    else:  # fractions summing to 1 (up to rounding)
        ks = data.draw(st.lists(st.integers(0, 6), min_size=parts, max_size=parts))
        assume(sum(ks) > 0)
        lengths = [k / sum(ks) for k in ks]
        assume(math.isclose(sum(lengths), 1) and sum(lengths) <= 1)
    want = _split_lengths(n, lengths)
    base = list(range(100, 100 + n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns of an empty split too
        subsets = data_mod.random_split(base, lengths, generator=_gen(kind, seed))
        again = data_mod.random_split(base, lengths, generator=_gen(kind, seed))
    CALLS["random_split"] += 1
    assert [len(s) for s in subsets] == want
    items = [[s[i] for i in range(len(s))] for s in subsets]
    assert sorted(v for it in items for v in it) == base, "not a partition"
    assert items == [[s[i] for i in range(len(s))] for s in again], "not reproducible"
    for s in subsets:
        assert isinstance(s, data_mod.Subset) and [base[i] for i in s.indices] == [
            s[i] for i in range(len(s))
        ]
    # ConcatDataset: the datasets one after another, negative indices from the end
    cat = data_mod.ConcatDataset(subsets + [list(range(-3, 0))])
    flat = [v for it in items for v in it] + [-3, -2, -1]
    CALLS["concat"] += 1
    assert len(cat) == len(flat)
    assert cat.cumulative_sizes == list(np.cumsum([len(s) for s in subsets] + [3]))
    assert [cat[i] for i in range(len(flat))] == flat
    assert [cat[-i] for i in range(1, len(flat) + 1)] == flat[::-1]
    for bad in (len(flat), -len(flat) - 1):
        with pytest.raises((IndexError, ValueError)):
            cat[bad]
    # Subset of the concatenation, repeats and negative indices allowed
    pick = data.draw(st.lists(st.integers(-len(flat), len(flat) - 1), max_size=6))
    sub = data_mod.Subset(cat, pick)
    CALLS["concat"] += 1
    assert len(sub) == len(pick) and [sub[i] for i in range(len(pick))] == [flat[i] for i in pick]
    # a DataLoader over it: batches of the picked items
    if pick:
        got = [v for b in DataLoader(sub, batch_size=2) for v in b.tolist()]
        assert got == [flat[i] for i in pick]
    # the errors
    with pytest.raises(ValueError):
        data_mod.random_split(base, [n + 2])


def test_collate_refusals():
    CALLS["collate"] += 2
    with pytest.raises(RuntimeError):  # ragged arrays: a clear error, no panic
        data_mod.default_collate([np.zeros(2), np.zeros(3)])
    with pytest.raises(RuntimeError):
        data_mod.default_collate([[1, 2], [3]])
    for kw in (dict(batch_sampler=[[0]], batch_size=2), dict(sampler=[0], shuffle=True)):
        with pytest.raises(ValueError):
            DataLoader(range(3), **kw)


# ------------------------------------------------- regressions: bugs this fuzzer found
def test_ctc_all_targets_empty_regression():
    # torch: -sum_t log p(blank) = 2 log 2 here; ferrograd's _nll indexes column 1 of a
    # width-1 extended label array (fn_ctc.py)
    lp = fg.full([2, 1, 2], math.log(0.5), dtype="float64")
    got = F.ctc_loss(lp, fg.zeros([1, 0], dtype="int64"), [2], [0], reduction="none")
    np.testing.assert_allclose(got.numpy(), [2 * math.log(2)], rtol=1e-12)


def test_multi_margin_unbatched_target_regression():
    # torch 2.15 accepts target [1] with input [C] and gives a [1] loss with 'none'
    got = F.multi_margin_loss(fg.tensor([0.1, 0.5, -0.3]), fg.tensor([1]), reduction="none")
    np.testing.assert_allclose(got.numpy(), [0.8 / 3], rtol=1e-6)


def test_kaiming_zero_fan_regression():
    # torch warns "Initializing zero-element tensors is a no-op" and returns the tensor
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        t = fg.empty([3, 0])
        with pytest.warns(UserWarning):
            assert fn(t) is t


def test_calculate_gain_conv_transpose_regression():
    # PyTorch's table gives 1 for every linear function, the transposed convs included
    assert [init.calculate_gain(f"conv_transpose{d}d") for d in (1, 2, 3)] == [1.0, 1.0, 1.0]


def test_init_generator_keyword_regression():
    # torch 2.x: uniform_, normal_, xavier_*_, kaiming_*_, trunc_normal_, orthogonal_ take
    # generator=; the same seed gives the same fill
    fills = [init.uniform_, init.normal_, init.xavier_uniform_, init.xavier_normal_]
    fills += [init.kaiming_uniform_, init.kaiming_normal_, init.trunc_normal_, init.orthogonal_]
    for fn in fills:
        a = fn(fg.empty([3, 4]), generator=torch.Generator().manual_seed(5))
        b = fn(fg.empty([3, 4]), generator=torch.Generator().manual_seed(5))
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_default_convert_tuple_regression():
    # torch's default_convert (batch_size=None) returns a list for a tuple sample, as
    # default_collate does ("backwards compatibility"); ferrograd keeps the tuple
    ds = TensorDataset(fg.arange(3), fg.arange(3))
    assert isinstance(next(iter(DataLoader(ds, batch_size=None))), list)
