"""cross_entropy as Paddle scripts call it (session 17): the per-sample loss keeps
Paddle's size-1 class dim, and calls only Paddle can mean take Paddle's classes-last
default. Checked against NumPy in float64."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.nn import functional as F

RNG = np.random.default_rng(17)


def _log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def _ids_loss(x, ids, axis):
    lp = _log_softmax(x, axis)
    return -np.take_along_axis(lp, np.expand_dims(ids, axis), axis).squeeze(axis)


def test_none_reduction_keeps_paddles_label_dim_so_a_mask_does_not_broadcast():
    x = RNG.standard_normal((4, 3))
    ids = np.array([0, 2, 1, 2])
    mask = np.array([[1.0], [0.0], [1.0], [1.0]])
    per = F.cross_entropy(fg.tensor(x), fg.tensor(ids[:, None]), reduction="none")
    assert per.shape == [4, 1]
    masked = (per * fg.tensor(mask)).sum() / fg.tensor(mask).sum()
    want = (_ids_loss(x, ids, 1) * mask[:, 0]).sum() / 3
    np.testing.assert_allclose(float(masked), want, rtol=1e-12)
    # PyTorch's [N] ids keep PyTorch's [N] result
    assert F.cross_entropy(fg.tensor(x), fg.tensor(ids), reduction="none").shape == [4]
    layer = fg.nn.CrossEntropyLoss(reduction="none")
    assert layer(fg.tensor(x), fg.tensor(ids[:, None])).shape == [4, 1]


def test_soft_label_keeps_the_class_dim_and_a_float_target_drops_it():
    x = RNG.standard_normal((3, 5))
    p = np.exp(_log_softmax(RNG.standard_normal((3, 5)), 1))
    want = -(p * _log_softmax(x, 1)).sum(1)
    paddle_style = F.cross_entropy(fg.tensor(x), fg.tensor(p), soft_label=True, reduction="none")
    np.testing.assert_allclose(paddle_style.numpy(), want[:, None], rtol=1e-12)
    torch_style = F.cross_entropy(fg.tensor(x), fg.tensor(p), reduction="none")
    np.testing.assert_allclose(torch_style.numpy(), want, rtol=1e-12)


def test_sequence_logits_with_paddle_labels_use_the_last_axis():
    # [B, T, V] logits from a Paddle sequence model; Paddle's default axis is -1
    x = RNG.standard_normal((2, 4, 3))
    ids = RNG.integers(0, 3, (2, 4))
    want = _ids_loss(x, ids, 2)
    got = F.cross_entropy(fg.tensor(x), fg.tensor(ids[..., None]))  # [B, T, 1]
    np.testing.assert_allclose(float(got), want.mean(), rtol=1e-12)
    got = F.cross_entropy(fg.tensor(x), fg.tensor(ids[..., None]), reduction="none")
    np.testing.assert_allclose(got.numpy(), want[..., None], rtol=1e-12)
    got = F.cross_entropy(fg.tensor(x), fg.tensor(ids))  # [B, T]: only classes-last fits
    np.testing.assert_allclose(float(got), want.mean(), rtol=1e-12)
    x_t = fg.tensor(x, requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: F.cross_entropy(t, fg.tensor(ids[..., None])), (x_t,))


def test_soft_label_on_sequence_logits_normalises_over_the_last_axis():
    x = RNG.standard_normal((2, 3, 4))
    p = np.exp(_log_softmax(RNG.standard_normal((2, 3, 4)), 2))
    want = -(p * _log_softmax(x, 2)).sum(2).mean()
    got = F.cross_entropy(fg.tensor(x), fg.tensor(p), soft_label=True)
    np.testing.assert_allclose(float(got), want, rtol=1e-12)


def test_pytorch_layouts_are_unchanged():
    # [N, C, L] logits with [N, L] ids: classes at dim 1 (PyTorch)
    x = RNG.standard_normal((2, 3, 5))
    ids = RNG.integers(0, 3, (2, 5))
    np.testing.assert_allclose(
        float(F.cross_entropy(fg.tensor(x), fg.tensor(ids))),
        _ids_loss(x, ids, 1).mean(),
        rtol=1e-12,
    )
    # square [N, K, K] with [N, K] ids fits both readings: PyTorch's is kept
    x = RNG.standard_normal((2, 3, 3))
    ids = RNG.integers(0, 3, (2, 3))
    np.testing.assert_allclose(
        float(F.cross_entropy(fg.tensor(x), fg.tensor(ids))),
        _ids_loss(x, ids, 1).mean(),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="target shape"):
        F.cross_entropy(fg.tensor(x), fg.tensor(RNG.integers(0, 3, (2, 4))))


def test_softmax_with_cross_entropy_is_unreduced_with_the_class_dim_kept():
    x = RNG.standard_normal((4, 3))
    ids = np.array([1, 0, 2, 1])
    want = _ids_loss(x, ids, 1)[:, None]
    swce = F.softmax_with_cross_entropy
    np.testing.assert_allclose(
        swce(fg.tensor(x), fg.tensor(ids[:, None])).numpy(), want, rtol=1e-12
    )
    np.testing.assert_allclose(swce(fg.tensor(x), fg.tensor(ids)).numpy(), want, rtol=1e-12)
    ignored = swce(fg.tensor(x), fg.tensor(np.array([[1], [-100], [2], [1]])))
    np.testing.assert_allclose(ignored.numpy()[:, 0], [want[0, 0], 0.0, want[2, 0], want[3, 0]])
    p = np.exp(_log_softmax(RNG.standard_normal((4, 3)), 1))
    soft = swce(fg.tensor(x), fg.tensor(p), soft_label=True)
    np.testing.assert_allclose(soft.numpy(), -(p * _log_softmax(x, 1)).sum(1, keepdims=True))
    # axis=0 and the softmax returned alongside
    loss, sm = swce(fg.tensor(x.T), fg.tensor(ids[None, :]), axis=0, return_softmax=True)
    np.testing.assert_allclose(loss.numpy(), want.T, rtol=1e-12)
    np.testing.assert_allclose(sm.numpy(), np.exp(_log_softmax(x.T, 0)), rtol=1e-12)
    x_t = fg.tensor(x, requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: swce(t, fg.tensor(ids[:, None])), (x_t,))
    with pytest.raises(TypeError, match="int64"):
        swce(fg.tensor(x), fg.tensor(ids[:, None].astype(np.float64)))


def test_class_axis_zero():
    # axis=0 used to build the permutation [0, 0, ...] and fail
    x = RNG.standard_normal((3, 4, 2))
    ids = RNG.integers(0, 3, (4, 2))
    got = F.cross_entropy(fg.tensor(x), fg.tensor(ids), axis=0, reduction="none")
    np.testing.assert_allclose(got.numpy(), _ids_loss(x, ids, 0), rtol=1e-12)
