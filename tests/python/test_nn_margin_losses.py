"""Issue 17's losses: ``triplet_margin_loss`` (+ ``_with_distance``),
``hinge_embedding_loss``, ``multi_margin_loss``, ``multilabel_soft_margin_loss``
(Paddle: ``multi_label_soft_margin_loss``), ``poisson_nll_loss``, ``gaussian_nll_loss``
and their layers: values against NumPy float64 references for every reduction, both
dialects' argument names, gradcheck / gradgradcheck, bad input."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)
A, P, N = (RNG.standard_normal((4, 5)) for _ in range(3))
W5 = RNG.uniform(0.2, 2.0, 5)
IDS = np.array([0, 3, 4, 1])
L01 = (RNG.uniform(size=(4, 5)) > 0.5).astype(float)
COUNTS = RNG.poisson(2.0, (4, 5)).astype(float)
VAR = RNG.uniform(0.1, 2.0, (4, 5))


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def red(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda x: x}[reduction](v)


def log_sig(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def dist(x, y, p=2.0, eps=1e-6):
    return (np.abs(x - y + eps) ** p).sum(-1) ** (1 / p)


def ref_triplet(a, p, n, margin=1.0, norm=2.0, eps=1e-6, swap=False):
    dp, dn = dist(a, p, norm, eps), dist(a, n, norm, eps)
    if swap:
        dn = np.minimum(dn, dist(p, n, norm, eps))
    return np.maximum(dp - dn + margin, 0)


def ref_multi_margin(x, y, p=1, margin=1.0, w=None):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        for j in range(c):
            if j != y[i]:
                z = max(0.0, margin - x[i, y[i]] + x[i, j]) ** p
                out[i] += z * (1.0 if w is None else w[y[i]])
    return out / c


def ref_poisson(x, y, log_input=True, full=False, eps=1e-8):
    loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            st = y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y)
        loss = loss + np.where(y > 1, st, 0.0)
    return loss


REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_values_against_numpy(reduction):
    def check(got, want):
        np.testing.assert_allclose(got.numpy(), red(want, reduction), rtol=1e-10, atol=1e-12)

    r = reduction
    check(F.triplet_margin_loss(t64(A), t64(P), t64(N), reduction=r), ref_triplet(A, P, N))
    check(
        F.triplet_margin_loss(t64(A), t64(P), t64(N), 0.5, 1.5, swap=True, reduction=r, eps=1e-3),
        ref_triplet(A, P, N, 0.5, 1.5, 1e-3, True),
    )
    check(  # Paddle: input=, epsilon=
        F.triplet_margin_loss(
            input=t64(A), positive=t64(P), negative=t64(N), epsilon=0.1, reduction=r
        ),
        ref_triplet(A, P, N, eps=0.1),
    )
    check(
        F.triplet_margin_with_distance_loss(
            t64(A), t64(P), t64(N), lambda x, y: ((x - y) ** 2).sum(-1), 2.0, reduction=r
        ),
        np.maximum(((A - P) ** 2).sum(-1) - ((A - N) ** 2).sum(-1) + 2.0, 0),
    )
    y = np.array([1.0, -1.0, 1.0, -1.0, 0.5])
    x = RNG.standard_normal(5) + 0.3
    hinge = np.where(y != -1, x, 0) + np.where(y != 1, np.maximum(0.7 - x, 0), 0)
    check(F.hinge_embedding_loss(t64(x), t64(y), 0.7, r), hinge)
    check(F.hinge_embedding_loss(t64(x), target=t64(y), margin=0.7, reduction=r), hinge)
    for p in (1, 2):
        check(
            F.multi_margin_loss(t64(A), fg.tensor(IDS), p, 0.8, t64(W5), r),
            ref_multi_margin(A, IDS, p, 0.8, W5),
        )
    check(F.multi_margin_loss(t64(A), target=fg.tensor(IDS), reduction=r), ref_multi_margin(A, IDS))
    msm = -(L01 * log_sig(A) + (1 - L01) * log_sig(-A))
    check(F.multilabel_soft_margin_loss(t64(A), t64(L01), reduction=r), msm.mean(-1))
    check(F.multi_label_soft_margin_loss(t64(A), t64(L01), t64(W5), r), (msm * W5).sum(-1) / 5)
    for log_input in (True, False):
        for full in (False, True):
            x = A if log_input else np.abs(A) + 0.1
            check(
                F.poisson_nll_loss(t64(x), t64(COUNTS), log_input, full, reduction=r),
                ref_poisson(x, COUNTS, log_input, full),
            )
    check(  # torch's keywords
        F.poisson_nll_loss(
            t64(np.abs(A)), target=t64(COUNTS), log_input=False, eps=0.5, reduction=r
        ),
        ref_poisson(np.abs(A), COUNTS, False, eps=0.5),
    )
    g = 0.5 * (np.log(VAR) + (A - P) ** 2 / VAR)
    check(F.gaussian_nll_loss(t64(A), t64(P), t64(VAR), reduction=r), g)
    check(
        F.gaussian_nll_loss(t64(A), target=t64(P), var=t64(VAR), full=True, reduction=r),
        g + 0.5 * math.log(2 * math.pi),
    )
    # homoscedastic: var one dim short, or one broadcast dim, or a float
    v = VAR[:, 0]
    check(
        F.gaussian_nll_loss(t64(A), t64(P), t64(v), reduction=r),
        0.5 * (np.log(v[:, None]) + (A - P) ** 2 / v[:, None]),
    )
    check(
        F.gaussian_nll_loss(t64(A), t64(P), t64(v[:, None]), reduction=r),
        0.5 * (np.log(v[:, None]) + (A - P) ** 2 / v[:, None]),
    )
    check(
        F.gaussian_nll_loss(t64(A), t64(P), 0.5, reduction=r),
        0.5 * (np.log(0.5) + (A - P) ** 2 / 0.5),
    )


def test_layers_both_dialects():
    a, p, n = t64(A), t64(P), t64(N)
    np.testing.assert_allclose(
        nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True)(a, p, n).numpy(),
        ref_triplet(A, P, N, 0.5, 1.0, swap=True).mean(),
        rtol=1e-10,
    )
    np.testing.assert_allclose(  # Paddle's epsilon=
        nn.TripletMarginLoss(epsilon=0.1, reduction="sum")(a, p, n).numpy(),
        ref_triplet(A, P, N, eps=0.1).sum(),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        nn.TripletMarginWithDistanceLoss(margin=0.3)(a, p, n).numpy(),
        ref_triplet(A, P, N, 0.3).mean(),
        rtol=1e-10,
    )
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0])
    x = A[0]
    np.testing.assert_allclose(
        nn.HingeEmbeddingLoss(margin=2.0)(t64(x), t64(y)).numpy(),
        np.where(y == 1, x, np.maximum(2.0 - x, 0)).mean(),
        rtol=1e-10,
    )
    mm = nn.MultiMarginLoss(p=2, weight=t64(W5), reduction="sum")
    np.testing.assert_allclose(
        mm(a, fg.tensor(IDS)).numpy(), ref_multi_margin(A, IDS, 2, 1.0, W5).sum(), rtol=1e-10
    )
    assert "weight" in mm.state_dict()
    msm = nn.MultiLabelSoftMarginLoss(reduction="none")(a, t64(L01)).numpy()
    np.testing.assert_allclose(
        msm, (-(L01 * log_sig(A) + (1 - L01) * log_sig(-A))).mean(-1), rtol=1e-10
    )
    np.testing.assert_allclose(
        nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3)(
            t64(np.abs(A)), t64(COUNTS)
        ).numpy(),
        ref_poisson(np.abs(A), COUNTS, False, True, 1e-3).mean(),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        nn.PoissonNLLLoss(True, False, 1e-8, "sum")(a, t64(COUNTS)).numpy(),
        ref_poisson(A, COUNTS).sum(),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        nn.GaussianNLLLoss(full=True, epsilon=1e-6)(a, p, t64(VAR)).numpy(),
        (0.5 * (np.log(VAR) + (A - P) ** 2 / VAR) + 0.5 * math.log(2 * math.pi)).mean(),
        rtol=1e-10,
    )


def test_gradients():
    def ok(fn, *arrays, second=True):
        ins = tuple(t64(x, True) for x in arrays)
        assert gradcheck(fn, ins)
        if second:
            assert gradgradcheck(fn, ins)

    a, p, n = A[:2, :3], P[:2, :3], N[:2, :3]
    ok(lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=2.0, swap=True), a, p, n)
    ok(lambda x: F.hinge_embedding_loss(x, t64([1.0, -1.0, -1.0]), 5.0, "sum"), a[0])
    ok(lambda x: F.multi_margin_loss(x, fg.tensor([0, 2]), 2, 3.0), a)
    ok(lambda x: F.multilabel_soft_margin_loss(x, t64(L01[:2, :3])), a)
    ok(lambda x: F.poisson_nll_loss(x, t64(COUNTS[:2, :3]), full=True), a)
    ok(lambda x, v: F.gaussian_nll_loss(x, t64(p), v), a, VAR[:2, :3])
    # the clamp at eps changes the value only: var's gradient is its own below eps too
    v = t64([[1e-9, 0.5]], True)
    x = t64([[0.3, 0.2]])
    F.gaussian_nll_loss(x, t64([[0.0, 0.0]]), v, eps=1e-6, reduction="sum").backward()
    want = 0.5 * (1 / np.array([1e-6, 0.5]) - np.array([0.09, 0.04]) / np.array([1e-6, 0.5]) ** 2)
    np.testing.assert_allclose(v.grad.numpy()[0], want, rtol=1e-10)


def test_bad_input():
    a = t64(A)
    with pytest.raises(ValueError, match="reduction"):
        F.triplet_margin_loss(a, a, a, reduction="avg")
    with pytest.raises(ValueError, match="same number"):
        F.triplet_margin_loss(a, a, t64(A[0]))
    with pytest.raises(ValueError, match="margin must be positive"):
        nn.TripletMarginWithDistanceLoss(margin=0.0)
    with pytest.raises(TypeError, match="not both"):
        F.triplet_margin_loss(a, a, a, epsilon=1e-6, eps=1e-6)
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        F.multi_margin_loss(a, fg.tensor(IDS), p=3)
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(IndexError, match="class ids"):
        F.multi_margin_loss(a, fg.tensor([0, 1, 2, 5]))
    with pytest.raises(TypeError, match="integer"):
        F.multi_margin_loss(a, t64([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="shape"):
        F.multi_margin_loss(a, fg.tensor([0, 1]))
    with pytest.raises(ValueError, match="weight must have shape"):
        F.multi_margin_loss(a, fg.tensor(IDS), weight=t64([1.0]))
    with pytest.raises(ValueError, match="same shape"):
        F.multilabel_soft_margin_loss(a, t64(L01[:, :2]))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(a, a, t64(-VAR))
    with pytest.raises(ValueError, match="does not fit"):
        F.gaussian_nll_loss(a, a, t64(VAR[:2]))
    with pytest.raises(TypeError, match="variance"):
        F.gaussian_nll_loss(a, a)
    with pytest.raises(ValueError, match="reduction"):
        nn.PoissonNLLLoss(reduction="batchmean")
