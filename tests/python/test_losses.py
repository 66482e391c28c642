"""Regression, binary and ranking losses: values against NumPy in float64 for every
reduction, gradcheck / gradgradcheck, torch's and Paddle's argument names, the loss
layers of both dialects, bad input."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)) * 2
B = RNG.standard_normal((3, 4)) * 2
P = RNG.uniform(0.05, 0.95, (3, 4))
Y01 = (RNG.uniform(size=(3, 4)) > 0.5).astype(float)
SIGN = np.where(RNG.uniform(size=(3, 4)) > 0.5, 1.0, -1.0)


def _red(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction](v)


def _huber(d, delta):
    a = np.abs(d)
    return np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def _log_sig(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


CASES = {
    # name -> (ferrograd call on tensors (a, b), numpy reference on arrays (a, b), b data)
    "l1": (lambda a, b, r: F.l1_loss(a, b, r), lambda a, b: np.abs(a - b), B),
    "huber": (lambda a, b, r: F.huber_loss(a, b, r, 1.5), lambda a, b: _huber(a - b, 1.5), B),
    "smooth_l1_torch": (
        lambda a, b, r: F.smooth_l1_loss(a, b, r, beta=0.5),
        lambda a, b: _huber(a - b, 0.5) / 0.5,
        B,
    ),
    "smooth_l1_paddle": (
        lambda a, b, r: F.smooth_l1_loss(a, b, r, delta=0.5),
        lambda a, b: _huber(a - b, 0.5),
        B,
    ),
    "smooth_l1_beta0": (
        lambda a, b, r: F.smooth_l1_loss(a, b, r, beta=0.0),
        lambda a, b: np.abs(a - b),
        B,
    ),
    "bce_logits": (
        lambda a, b, r: F.binary_cross_entropy_with_logits(a, b, reduction=r),
        lambda a, b: -(b * _log_sig(a) + (1 - b) * _log_sig(-a)),
        Y01,
    ),
    "bce_logits_posw": (
        lambda a, b, r: F.binary_cross_entropy_with_logits(
            a, b, fg.tensor([1.0, 2.0, 0.5, 1.0]), r, fg.tensor([3.0, 1.0, 0.5, 2.0])
        ),
        lambda a, b: (
            -np.array([1.0, 2.0, 0.5, 1.0])
            * (np.array([3.0, 1.0, 0.5, 2.0]) * b * _log_sig(a) + (1 - b) * _log_sig(-a))
        ),
        Y01,
    ),
    "soft_margin": (
        lambda a, b, r: F.soft_margin_loss(a, b, r),
        lambda a, b: np.log1p(np.exp(-a * b)),
        SIGN,
    ),
    "kl_div": (
        lambda a, b, r: F.kl_div(a, b, r),
        lambda a, b: b * (np.log(b) - a),
        P,
    ),
    "kl_div_log_target": (
        lambda a, b, r: F.kl_div(a, b, r, log_target=True),
        lambda a, b: np.exp(b) * (b - a),
        B,
    ),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_numpy(name, reduction):
    fn, ref, bdata = CASES[name]
    got = fn(fg.tensor(A), fg.tensor(bdata), reduction).numpy()
    np.testing.assert_allclose(got, _red(ref(A, bdata), reduction), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, _, bdata = CASES[name]
    a = fg.tensor(A + 0.013, requires_grad=True)  # off the kinks of the piecewise losses
    b = fg.tensor(bdata)
    assert gradcheck(lambda t: fn(t, b, "mean"), (a,))
    assert gradgradcheck(lambda t: fn(t, b, "sum"), (a,))


def test_empty_and_0d_inputs():
    e = fg.zeros([0, 4], dtype="float64")
    assert F.l1_loss(e, e, "none").shape == [0, 4]
    assert float(F.l1_loss(e, e, "sum")) == 0.0
    assert np.isnan(float(F.l1_loss(e, e)))  # the mean of nothing, as NumPy
    s = fg.tensor(2.0, dtype="float64")
    assert float(F.huber_loss(s, fg.tensor(0.0, dtype="float64"))) == 1.5


def test_binary_cross_entropy_values_weights_and_clamp():
    w = RNG.uniform(0.5, 2.0, (3, 4))
    for r in ("mean", "sum", "none"):
        got = F.binary_cross_entropy(fg.tensor(P), fg.tensor(Y01), fg.tensor(w), r).numpy()
        ref = -w * (Y01 * np.log(P) + (1 - Y01) * np.log(1 - P))
        np.testing.assert_allclose(got, _red(ref, r), rtol=1e-13)
    # log clamped at -100: p of exactly 0 or 1 gives a finite loss and gradient
    p = fg.tensor([0.0, 1.0, 0.0, 1.0], dtype="float64", requires_grad=True)
    y = fg.tensor([1.0, 0.0, 0.0, 1.0], dtype="float64")
    loss = F.binary_cross_entropy(p, y, reduction="none")
    np.testing.assert_array_equal(loss.numpy(), [100.0, 100.0, 0.0, 0.0])
    loss.sum().backward()
    assert np.isfinite(p.grad.numpy()).all()
    pt = fg.tensor(P + 0.0, requires_grad=True)
    yt = fg.tensor(Y01)
    assert gradcheck(lambda t: F.binary_cross_entropy(t, yt), (pt,))
    assert gradgradcheck(lambda t: F.binary_cross_entropy(t, yt), (pt,))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        F.binary_cross_entropy(fg.tensor([1.5]), fg.tensor([1.0]))
    with pytest.raises(ValueError, match="shape"):
        F.binary_cross_entropy(fg.tensor([0.5, 0.5]), fg.tensor([1.0]))


def test_bce_with_logits_is_stable_for_huge_logits():
    x = fg.tensor([-800.0, 800.0, -800.0, 800.0], requires_grad=True, dtype="float64")
    y = fg.tensor([1.0, 0.0, 0.0, 1.0], dtype="float64")
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [800.0, 800.0, 0.0, 0.0])
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, 1.0, 0.0, 0.0])


def test_kl_div_batchmean_and_zero_targets():
    got = F.kl_div(fg.tensor(A), fg.tensor(P), reduction="batchmean").numpy()
    np.testing.assert_allclose(got, np.sum(P * (np.log(P) - A)) / 3, rtol=1e-13)
    # target 0 contributes 0 (0 * log 0 := 0), with a finite gradient
    t = fg.tensor([0.0, 0.5], dtype="float64")
    x = fg.tensor([-1.0, -2.0], dtype="float64", requires_grad=True)
    loss = F.kl_div(x, t, reduction="sum")
    np.testing.assert_allclose(float(loss), 0.5 * (np.log(0.5) + 2.0))
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -0.5])
    with pytest.raises(ValueError, match="batchmean"):
        F.kl_div(x, t, reduction="avg")


def test_margin_ranking_and_cosine_embedding():
    m = 0.3
    got = F.margin_ranking_loss(fg.tensor(A), fg.tensor(B), fg.tensor(SIGN), m, "none")
    np.testing.assert_allclose(got.numpy(), np.maximum(0, -SIGN * (A - B) + m), rtol=1e-14)
    a = fg.tensor(A + 0.01, requires_grad=True)
    b = fg.tensor(B, requires_grad=True)
    assert gradcheck(lambda s, t: F.margin_ranking_loss(s, t, fg.tensor(SIGN), m), (a, b))
    lab = np.array([1.0, -1.0, -1.0])
    got = F.cosine_embedding_loss(fg.tensor(A), fg.tensor(B), fg.tensor(lab), 0.1, "none")
    cos = (A * B).sum(1) / np.sqrt(((A * A).sum(1) + 1e-12) * ((B * B).sum(1) + 1e-12))
    np.testing.assert_allclose(
        got.numpy(), np.where(lab == 1, 1 - cos, np.maximum(0, cos - 0.1)), rtol=1e-13
    )
    assert gradcheck(lambda s, t: F.cosine_embedding_loss(s, t, fg.tensor(lab), -0.5), (a, b))
    assert gradgradcheck(lambda s, t: F.cosine_embedding_loss(s, t, fg.tensor(lab), -0.5), (a, b))


def test_torch_and_paddle_argument_names():
    a, b = fg.tensor(A), fg.tensor(Y01)
    want = F.binary_cross_entropy_with_logits(a, b).numpy()
    np.testing.assert_array_equal(
        F.binary_cross_entropy_with_logits(logit=a, label=b).numpy(), want
    )
    np.testing.assert_array_equal(F.binary_cross_entropy_with_logits(a, target=b).numpy(), want)
    np.testing.assert_array_equal(F.l1_loss(a, target=b).numpy(), F.l1_loss(a, label=b).numpy())
    with pytest.raises(TypeError, match="not both"):
        F.l1_loss(a, b, target=b)
    with pytest.raises(TypeError, match="not both"):
        F.smooth_l1_loss(a, b, delta=1.0, beta=1.0)
    # default threshold 1: both formulas agree
    np.testing.assert_array_equal(
        F.smooth_l1_loss(a, b).numpy(), F.smooth_l1_loss(a, b, delta=1.0).numpy()
    )


def test_bad_reduction_and_thresholds():
    a = fg.tensor(A)
    for fn in (F.l1_loss, F.huber_loss, F.smooth_l1_loss, F.soft_margin_loss, F.kl_div):
        with pytest.raises(ValueError, match="reduction"):
            fn(a, a, "avg")
    with pytest.raises(ValueError, match="delta"):
        F.huber_loss(a, a, delta=0.0)
    with pytest.raises(ValueError, match="beta"):
        F.smooth_l1_loss(a, a, beta=-1.0)
    with pytest.raises(ValueError, match="reduction"):
        nn.L1Loss("avg")


LAYERS = [
    (lambda: nn.L1Loss(), lambda a, b: F.l1_loss(a, b), B),
    (lambda: nn.L1Loss(reduction="sum"), lambda a, b: F.l1_loss(a, b, "sum"), B),
    (lambda: nn.HuberLoss(delta=0.7), lambda a, b: F.huber_loss(a, b, delta=0.7), B),
    (lambda: nn.SmoothL1Loss(beta=0.5), lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), B),
    (lambda: nn.SmoothL1Loss(delta=0.5), lambda a, b: F.smooth_l1_loss(a, b, delta=0.5), B),
    (lambda: nn.BCEWithLogitsLoss(), F.binary_cross_entropy_with_logits, Y01),
    (lambda: nn.KLDivLoss(reduction="batchmean"), lambda a, b: F.kl_div(a, b, "batchmean"), P),
    (lambda: nn.SoftMarginLoss(), F.soft_margin_loss, SIGN),
]


@pytest.mark.parametrize("make,fn,bdata", LAYERS)
def test_loss_layers(make, fn, bdata):
    a, b = fg.tensor(A), fg.tensor(bdata)
    np.testing.assert_array_equal(make()(a, b).numpy(), fn(a, b).numpy())


def test_weighted_loss_layers_keep_weights_as_buffers():
    w = fg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64")
    layer = nn.BCELoss(weight=w)
    assert list(layer.state_dict()) == ["weight"]
    np.testing.assert_array_equal(
        layer(fg.tensor(P), fg.tensor(Y01)).numpy(),
        F.binary_cross_entropy(fg.tensor(P), fg.tensor(Y01), w).numpy(),
    )
    layer = nn.BCEWithLogitsLoss(pos_weight=w)
    assert list(layer.state_dict()) == ["pos_weight"]
    mr = nn.MarginRankingLoss(margin=0.2)
    np.testing.assert_array_equal(
        mr(fg.tensor(A), fg.tensor(B), fg.tensor(SIGN)).numpy(),
        F.margin_ranking_loss(fg.tensor(A), fg.tensor(B), fg.tensor(SIGN), 0.2).numpy(),
    )
    lab = fg.tensor([1.0, -1.0, 1.0])
    ce = nn.CosineEmbeddingLoss(margin=0.1)
    np.testing.assert_array_equal(
        ce(fg.tensor(A), fg.tensor(B), lab).numpy(),
        F.cosine_embedding_loss(fg.tensor(A), fg.tensor(B), lab, 0.1).numpy(),
    )


def test_a_loss_trains_a_parameter():
    import ferrograd as paddle

    w = paddle.to_tensor(np.zeros(4), stop_gradient=False)
    x = paddle.to_tensor(A)
    y = paddle.to_tensor((A @ np.array([1.0, -1.0, 0.5, 0.0]) > 0).astype(float))
    loss_fn = paddle.nn.BCEWithLogitsLoss()
    first = None
    for _ in range(50):
        loss = loss_fn(x @ w, y)
        first = float(loss) if first is None else first
        (g,) = paddle.grad(loss, [w])
        w = (w - g * 0.5).detach()
        w.stop_gradient = False
    assert float(loss) < first
