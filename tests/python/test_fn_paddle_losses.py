"""Issue 17's functional names: torch's ``multilabel_margin_loss`` (+
``nn.MultiLabelMarginLoss``), ``upsample_nearest`` / ``upsample_bilinear``; Paddle's
``square_error_cost``, ``sigmoid_focal_loss``, ``dice_loss``, ``npair_loss``,
``margin_cross_entropy`` and ``temporal_shift``: values against NumPy float64
references, gradcheck / gradgradcheck, bad input."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(17)


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def red(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda x: x}[reduction](v)


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


# ---- multilabel_margin_loss ------------------------------------------------------------

X5 = RNG.standard_normal((3, 5))
Y5 = np.array([[3, 0, -1, 1, 1], [1, 1, 2, 4, 0], [-1, 2, 3, 0, 0]])


def ref_multilabel(x, y):
    out = []
    for xs, ys in zip(np.atleast_2d(x), np.atleast_2d(y)):
        targets = []
        for v in ys:
            if v < 0:
                break
            targets.append(int(v))
        others = [i for i in range(len(xs)) if i not in targets]
        s = sum(max(0.0, 1 - (xs[j] - xs[i])) for j in targets for i in others)
        out.append(s / len(xs))
    return np.array(out)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_values(reduction):
    got = F.multilabel_margin_loss(t64(X5), fg.tensor(Y5), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), red(ref_multilabel(X5, Y5), reduction), rtol=1e-12)
    layer = nn.MultiLabelMarginLoss(reduction=reduction)
    np.testing.assert_allclose(layer(t64(X5), fg.tensor(Y5)).numpy(), got.numpy())


def test_multilabel_margin_loss_1d_and_grad():
    got = F.multilabel_margin_loss(t64(X5[0]), fg.tensor(Y5[0]), reduction="none")
    assert got.ndim == 0
    np.testing.assert_allclose(got.item(), ref_multilabel(X5[0], Y5[0])[0], rtol=1e-12)
    y = fg.tensor(Y5)
    assert gradcheck(lambda x: F.multilabel_margin_loss(x, y), (t64(X5, True),))


def test_multilabel_margin_loss_bad_input():
    x = t64(X5)
    with pytest.raises(IndexError, match=r"\[-1, 5\)"):
        F.multilabel_margin_loss(x, fg.tensor(np.full((3, 5), 5)))
    with pytest.raises(ValueError, match="shape"):
        F.multilabel_margin_loss(x, fg.tensor(Y5[:, :3]))
    with pytest.raises(TypeError, match="integer"):
        F.multilabel_margin_loss(x, t64(Y5))
    with pytest.raises(ValueError, match="reduction"):
        F.multilabel_margin_loss(x, fg.tensor(Y5), reduction="avg")
    with pytest.raises(ValueError, match=r"\[N, C\]"):
        F.multilabel_margin_loss(t64(np.zeros((2, 2, 2))), fg.tensor(np.zeros((2, 2, 2), int)))


# ---- upsample aliases -------------------------------------------------------------------


def test_upsample_aliases_match_interpolate():
    x = t64(RNG.standard_normal((1, 2, 3, 4)))
    with pytest.warns(UserWarning, match="deprecated"):
        got = F.upsample_bilinear(x, scale_factor=2)
    want = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # align_corners=True: the corners map onto each other
    np.testing.assert_allclose(got.numpy()[..., 0, 0], x.numpy()[..., 0, 0])
    np.testing.assert_allclose(got.numpy()[..., -1, -1], x.numpy()[..., -1, -1])
    with pytest.warns(UserWarning):
        got = F.upsample_nearest(x, size=(6, 8))
    np.testing.assert_array_equal(got.numpy(), x.numpy().repeat(2, 2).repeat(2, 3))
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="4-D"):
        F.upsample_bilinear(t64(np.zeros((1, 1, 4))), size=8)


# ---- square_error_cost / sigmoid_focal_loss ---------------------------------------------


def test_square_error_cost():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    np.testing.assert_allclose(F.square_error_cost(t64(a), t64(b)).numpy(), (a - b) ** 2)
    assert gradcheck(F.square_error_cost, (t64(a, True), t64(b, True)))
    with pytest.raises(TypeError, match="Tensor"):
        F.square_error_cost([1.0], t64(b))


LOGIT = RNG.standard_normal((4, 3)) * 2
LAB01 = (RNG.uniform(size=(4, 3)) > 0.5).astype(float)


def ref_focal(x, y, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum"):
    p = 1 / (1 + np.exp(-x))
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    p_t = p * y + (1 - p) * (1 - y)
    a_t = alpha * y + (1 - alpha) * (1 - y)
    loss = a_t * (1 - p_t) ** gamma * ce
    if normalizer is not None:
        loss = loss / normalizer
    return red(loss, reduction)


@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "mean", "alpha": 0.5}, {"reduction": "none", "gamma": 0.0}, {"gamma": 1.5}],
)
def test_sigmoid_focal_loss_values(kw):
    got = F.sigmoid_focal_loss(t64(LOGIT), t64(LAB01), **kw)
    np.testing.assert_allclose(got.numpy(), ref_focal(LOGIT, LAB01, **kw), rtol=1e-10)
    got = F.sigmoid_focal_loss(t64(LOGIT), t64(LAB01), normalizer=t64([3.0]), **kw)
    np.testing.assert_allclose(got.numpy(), ref_focal(LOGIT, LAB01, 3.0, **kw), rtol=1e-10)


def test_sigmoid_focal_loss_grads_and_checks():
    y = t64(LAB01)
    assert gradcheck(lambda x: F.sigmoid_focal_loss(x, y), (t64(LOGIT, True),))
    assert gradgradcheck(lambda x: F.sigmoid_focal_loss(x, y), (t64(LOGIT, True),))
    with pytest.raises(ValueError, match="same shape"):
        F.sigmoid_focal_loss(t64(LOGIT), t64(LAB01[:2]))
    with pytest.raises(ValueError, match="normalizer"):
        F.sigmoid_focal_loss(t64(LOGIT), y, normalizer=t64([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="reduction"):
        F.sigmoid_focal_loss(t64(LOGIT), y, reduction="avg")


# ---- dice_loss --------------------------------------------------------------------------


def ref_dice(p, ids, eps=1e-5):
    c = p.shape[-1]
    hot = np.eye(c)[ids[..., 0]]
    axes = tuple(range(1, p.ndim))
    inter = (p * hot).sum(axes)
    den = p.sum(axes) + hot.sum(axes)
    return np.mean(1 - 2 * inter / (den + eps))


def test_dice_loss_values_and_grad():
    z = RNG.standard_normal((2, 3, 4))
    prob = np.exp(log_softmax(z))
    ids = RNG.integers(0, 4, (2, 3, 1))
    got = F.dice_loss(t64(prob), fg.tensor(ids))
    assert got.ndim == 0
    np.testing.assert_allclose(got.item(), ref_dice(prob, ids), rtol=1e-12)
    got = F.dice_loss(t64(prob), fg.tensor(ids), epsilon=0.5)
    np.testing.assert_allclose(got.item(), ref_dice(prob, ids, 0.5), rtol=1e-12)
    lab = fg.tensor(ids)
    assert gradcheck(lambda p: F.dice_loss(p, lab), (t64(prob, True),))
    assert gradgradcheck(lambda p: F.dice_loss(p, lab), (t64(prob, True),))


def test_dice_loss_bad_input():
    p = t64(np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="last dimension of 1"):
        F.dice_loss(p, fg.tensor(np.zeros((2, 3), dtype=np.int64)))
    with pytest.raises(IndexError, match=r"\[0, 3\)"):
        F.dice_loss(p, fg.tensor(np.array([[0], [3]])))
    with pytest.raises(TypeError, match="integer"):
        F.dice_loss(p, t64([[0.0], [1.0]]))
    with pytest.raises(ValueError, match="rank"):
        F.dice_loss(t64([0.5, 0.5]), fg.tensor([0]))


# ---- npair_loss -------------------------------------------------------------------------


def ref_npair(a, p, labels, l2_reg=0.002):
    b = len(labels)
    t = (labels[:, None] == labels[None, :]).astype(float)
    t = t / t.sum(1, keepdims=True)
    l2 = np.mean((a**2).sum(1)) + np.mean((p**2).sum(1))
    ce = -(t * log_softmax(a @ p.T)).sum(1)
    return 0.25 * l2_reg * l2 + np.mean([(t[:, j] * ce).sum() for j in range(b)])


@pytest.mark.parametrize("labels", [[1, 2, 1, 3, 2], [0, 1, 2, 3, 4], [1.0, 1.0, 2.0, 2.0, 2.0]])
def test_npair_loss_values_and_grad(labels):
    a, p = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    lab = fg.tensor(labels)
    got = F.npair_loss(t64(a), t64(p), lab)
    np.testing.assert_allclose(got.item(), ref_npair(a, p, np.array(labels)), rtol=1e-12)
    got = F.npair_loss(t64(a), t64(p), lab, l2_reg=0.5)
    np.testing.assert_allclose(got.item(), ref_npair(a, p, np.array(labels), 0.5), rtol=1e-12)
    fn = lambda x, y: F.npair_loss(x, y, lab)  # noqa: E731
    assert gradcheck(fn, (t64(a, True), t64(p, True)))
    assert gradgradcheck(fn, (t64(a, True), t64(p, True)))


def test_npair_loss_bad_input():
    a = t64(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="batch_size = 3"):
        F.npair_loss(a, a, fg.tensor([1, 2]))
    with pytest.raises(ValueError, match=r"\[batch, dims\]"):
        F.npair_loss(a, t64(np.zeros((3, 3))), fg.tensor([1, 2, 3]))


# ---- margin_cross_entropy ---------------------------------------------------------------

COS = RNG.uniform(-0.9, 0.9, (4, 6))
IDS = np.array([2, 0, 5, 2])


def ref_margin_ce(x, ids, m1=1.0, m2=0.5, m3=0.0, s=64.0):
    z = x.copy()
    rows = np.arange(len(ids))
    z[rows, ids] = np.cos(m1 * np.arccos(x[rows, ids]) + m2) - m3
    logp = log_softmax(z * s)
    return -logp[rows, ids], np.exp(logp)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"margin1": 1.35, "margin2": 0.0, "margin3": 0.0, "scale": 30.0},  # SphereFace-like
        {"margin1": 1.0, "margin2": 0.0, "margin3": 0.35, "scale": 10.0},  # CosFace
        {"margin1": 0.9, "margin2": 0.2, "margin3": 0.1, "scale": 5.0},
    ],
)
def test_margin_cross_entropy_values(kw):
    ref_kw = {"m1": kw.get("margin1", 1.0), "m2": kw.get("margin2", 0.5)}
    ref_kw.update(m3=kw.get("margin3", 0.0), s=kw.get("scale", 64.0))
    loss, soft = ref_margin_ce(COS, IDS, **ref_kw)
    got, got_soft = F.margin_cross_entropy(
        t64(COS), fg.tensor(IDS), reduction=None, return_softmax=True, **kw
    )
    assert list(got.shape) == [4, 1]
    np.testing.assert_allclose(got.numpy()[:, 0], loss, rtol=1e-10)
    np.testing.assert_allclose(got_soft.numpy(), soft, rtol=1e-9, atol=1e-300)
    got = F.margin_cross_entropy(t64(COS), fg.tensor(IDS[:, None]), **kw)
    np.testing.assert_allclose(got.item(), loss.mean(), rtol=1e-10)
    got = F.margin_cross_entropy(t64(COS), fg.tensor(IDS), reduction="sum", **kw)
    np.testing.assert_allclose(got.item(), loss.sum(), rtol=1e-10)


def test_margin_cross_entropy_paddle_example():
    # the example in Paddle's docstring (printed there to 8 decimals)
    x = t64([[0.85204151, -0.55557678, 0.04994566, 0.71986042],
             [-0.20198586, -0.35270476, -0.55182702, 0.09749021]])  # fmt: skip
    loss = F.margin_cross_entropy(x, fg.tensor([2, 3]), reduction=None)
    np.testing.assert_allclose(loss.numpy()[:, 0], [82.37059586, 12.13448420], rtol=1e-7)


def test_margin_cross_entropy_grads_and_checks():
    lab = fg.tensor(IDS)
    fn = lambda x: F.margin_cross_entropy(x, lab, margin1=0.9, margin2=0.2, scale=4.0)  # noqa: E731
    assert gradcheck(fn, (t64(COS, True),))
    assert gradgradcheck(fn, (t64(COS, True),))
    with pytest.raises(NotImplementedError, match="group"):
        F.margin_cross_entropy(t64(COS), lab, group=object())
    with pytest.raises(IndexError, match=r"\[0, 6\)"):
        F.margin_cross_entropy(t64(COS), fg.tensor([0, 1, 2, 6]))
    with pytest.raises(ValueError, match=r"\[N\]"):
        F.margin_cross_entropy(t64(COS), fg.tensor([0, 1]))
    with pytest.raises(ValueError, match="reduction"):
        F.margin_cross_entropy(t64(COS), lab, reduction="avg")


# ---- temporal_shift ---------------------------------------------------------------------


def ref_temporal_shift(x, seg, ratio=0.25, nhwc=False):
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    nt, c, h, w = x.shape
    x5 = x.reshape(nt // seg, seg, c, h, w)
    out = np.zeros_like(x5)
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    for t in range(seg):
        for ch in range(c):
            src = t - 1 if ch < c1 else t + 1 if ch < c2 else t
            if 0 <= src < seg:
                out[:, t, ch] = x5[:, src, ch]
    out = out.reshape(nt, c, h, w)
    return out.transpose(0, 2, 3, 1) if nhwc else out


@pytest.mark.parametrize(
    "seg, ratio, fmt",
    [(3, 0.25, "NCHW"), (2, 0.5, "NCHW"), (3, 0.2, "NHWC"), (2, 0.7, "NCHW"), (3, 1.5, "NHWC")],
)
def test_temporal_shift_values_and_grad(seg, ratio, fmt):
    shape = (6, 8, 2, 3) if fmt == "NCHW" else (6, 2, 3, 8)
    x = RNG.standard_normal(shape)
    got = F.temporal_shift(t64(x), seg, ratio, data_format=fmt)
    np.testing.assert_array_equal(got.numpy(), ref_temporal_shift(x, seg, ratio, fmt == "NHWC"))
    fn = lambda v: F.temporal_shift(v, seg, ratio, data_format=fmt)  # noqa: E731
    assert gradcheck(fn, (t64(x, True),))


@pytest.mark.parametrize("seg", [0, -1, 4, 7, 2**40, 2**63 - 1])
def test_temporal_shift_refuses_bad_seg_num(seg):
    with pytest.raises(ValueError, match="seg_num"):
        F.temporal_shift(t64(np.zeros((6, 4, 1, 1))), seg)


def test_temporal_shift_bad_input():
    x = t64(np.zeros((6, 4, 1, 1)))
    for bad in (-0.1, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="shift_ratio"):
            F.temporal_shift(x, 3, bad)
    with pytest.raises(ValueError, match="data_format"):
        F.temporal_shift(x, 3, data_format="NCL")
    with pytest.raises(ValueError, match="4-D"):
        F.temporal_shift(t64(np.zeros((6, 4, 1))), 3)
    with pytest.raises(TypeError):
        F.temporal_shift(x, 1.5)


def test_names_are_exported():
    names = {
        "multilabel_margin_loss", "upsample_bilinear", "upsample_nearest", "square_error_cost",
        "sigmoid_focal_loss", "dice_loss", "npair_loss", "margin_cross_entropy",
        "temporal_shift",
    }  # fmt: skip
    assert names <= set(F.__all__)
    assert "MultiLabelMarginLoss" in nn.__all__
    assert math.isfinite(F.square_error_cost(t64([1.0]), t64([2.0])).item())
