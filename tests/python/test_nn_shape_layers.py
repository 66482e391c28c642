"""Issue 17's rearranging and two-input layers: ``softmin`` / ``Softmin`` /
``Softmax2d``, ``Unflatten``, ``CosineSimilarity``, ``PairwiseDistance``,
``pixel_shuffle`` / ``pixel_unshuffle`` / ``channel_shuffle`` (and their layers, Paddle's
``data_format``), ``Fold`` / ``Unfold`` layers and ``Bilinear`` / ``F.bilinear``, against
NumPy float64 references, with gradcheck / gradgradcheck and bad input."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def grads_ok(fn, *arrays, second=True):
    ins = tuple(t64(a, True) for a in arrays)
    assert gradcheck(fn, ins)
    if second:
        assert gradgradcheck(fn, ins)


def np_softmax(a, axis):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def test_softmin_and_softmax2d():
    a = RNG.standard_normal((2, 3, 4))
    np.testing.assert_allclose(F.softmin(t64(a), 1).numpy(), np_softmax(-a, 1), rtol=1e-12)
    np.testing.assert_allclose(F.softmin(t64(a)).numpy(), np_softmax(-a, -1), rtol=1e-12)
    np.testing.assert_allclose(nn.Softmin(dim=0)(t64(a)).numpy(), np_softmax(-a, 0), rtol=1e-12)
    np.testing.assert_allclose(nn.Softmin(axis=1)(t64(a)).numpy(), np_softmax(-a, 1), rtol=1e-12)
    b = RNG.standard_normal((2, 3, 2, 2))
    np.testing.assert_allclose(nn.Softmax2d()(t64(b)).numpy(), np_softmax(b, 1), rtol=1e-12)
    np.testing.assert_allclose(nn.Softmax2d()(t64(b[0])).numpy(), np_softmax(b[0], 0), rtol=1e-12)
    grads_ok(lambda x: F.softmin(x, 1), a[:1])
    with pytest.raises(ValueError, match="3-D or 4-D"):
        nn.Softmax2d()(t64(a[0]))
    with pytest.raises(TypeError, match="not both"):
        F.softmin(t64(a), dim=0, axis=1)


def test_unflatten_both_spellings():
    a = RNG.standard_normal((2, 6, 3))
    np.testing.assert_array_equal(nn.Unflatten(1, (2, 3))(t64(a)).numpy(), a.reshape(2, 2, 3, 3))
    np.testing.assert_array_equal(
        nn.Unflatten(axis=-1, shape=[3, 1])(t64(a)).numpy(), a.reshape(2, 6, 3, 1)
    )
    np.testing.assert_array_equal(nn.Unflatten(1, [-1, 2])(t64(a)).numpy(), a.reshape(2, 3, 2, 3))
    with pytest.raises(TypeError, match="sizes"):
        nn.Unflatten(1, 6)
    with pytest.raises(TypeError, match="needs"):
        nn.Unflatten(1)
    with pytest.raises(ValueError):
        nn.Unflatten(1, (4, 2))(t64(a))


def test_cosine_similarity_and_pairwise_distance_layers():
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(nn.CosineSimilarity()(t64(a), t64(b)).numpy(), cos, rtol=1e-12)
    cos0 = (a * b).sum(0) / (np.linalg.norm(a, axis=0) * np.linalg.norm(b, axis=0))
    np.testing.assert_allclose(
        nn.CosineSimilarity(axis=0)(t64(a), t64(b)).numpy(), cos0, rtol=1e-12
    )
    d = (np.abs(a - b + 1e-6) ** 3).sum(-1) ** (1 / 3)
    np.testing.assert_allclose(nn.PairwiseDistance(p=3)(t64(a), t64(b)).numpy(), d, rtol=1e-12)
    d2 = np.linalg.norm(a - b + 0.1, axis=-1, keepdims=True)
    got = nn.PairwiseDistance(2.0, epsilon=0.1, keepdim=True)(t64(a), t64(b)).numpy()
    np.testing.assert_allclose(got, d2, rtol=1e-12)
    grads_ok(lambda x, y: nn.CosineSimilarity(dim=1)(x, y), a[:2], b[:2])
    grads_ok(lambda x, y: nn.PairwiseDistance()(x, y), a[:2], b[:2])
    with pytest.raises(TypeError, match="not both"):
        nn.PairwiseDistance(eps=1e-6, epsilon=1e-6)


def np_pixel_shuffle(a, r):
    *lead, c, h, w = a.shape
    out = np.empty((*lead, c // (r * r), h * r, w * r))
    for ch in range(c // (r * r)):
        for i in range(r):
            for j in range(r):
                out[..., ch, i::r, j::r] = a[..., ch * r * r + i * r + j, :, :]
    return out


def test_pixel_shuffle_and_unshuffle():
    a = RNG.standard_normal((2, 8, 3, 2))
    want = np_pixel_shuffle(a, 2)
    np.testing.assert_array_equal(F.pixel_shuffle(t64(a), 2).numpy(), want)
    np.testing.assert_array_equal(nn.PixelShuffle(2)(t64(a)).numpy(), want)
    # PyTorch: any leading dims; unshuffle inverts shuffle
    b = RNG.standard_normal((2, 2, 9, 2, 1))
    np.testing.assert_array_equal(F.pixel_shuffle(t64(b), 3).numpy(), np_pixel_shuffle(b, 3))
    np.testing.assert_array_equal(F.pixel_unshuffle(t64(want), 2).numpy(), a)
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(t64(want)).numpy(), a)
    # Paddle's NHWC
    last = np.moveaxis(a, 1, -1)
    got = F.pixel_shuffle(t64(last), 2, "NHWC").numpy()
    np.testing.assert_array_equal(got, np.moveaxis(want, 1, -1))
    got = nn.PixelUnshuffle(2, data_format="NHWC")(t64(np.moveaxis(want, 1, -1))).numpy()
    np.testing.assert_array_equal(got, last)
    grads_ok(lambda x: F.pixel_shuffle(x, 2), a[:1, :, :2, :1])
    grads_ok(lambda x: F.pixel_unshuffle(x, 2), a[:1, :2, :2, :2], second=False)
    with pytest.raises(ValueError, match="divisible by upscale_factor"):
        F.pixel_shuffle(t64(a), 3)
    with pytest.raises(ValueError, match="divisible by downscale_factor"):
        F.pixel_unshuffle(t64(a), 2)
    with pytest.raises(ValueError, match="positive"):
        nn.PixelShuffle(0)
    with pytest.raises(ValueError, match="data_format"):
        F.pixel_shuffle(t64(a), 2, "NCL")
    with pytest.raises(ValueError, match="at least 3-D"):
        F.pixel_shuffle(t64(a[0, 0]), 1)


def test_channel_shuffle():
    a = RNG.standard_normal((2, 6, 2, 3))
    g = 3
    want = a.reshape(2, g, 2, 2, 3).swapaxes(1, 2).reshape(2, 6, 2, 3)
    np.testing.assert_array_equal(F.channel_shuffle(t64(a), g).numpy(), want)
    np.testing.assert_array_equal(nn.ChannelShuffle(g)(t64(a)).numpy(), want)
    # output channel j*g + k is input channel k*(C/g) + j
    assert np.array_equal(want[:, 1], a[:, 2]) and np.array_equal(want[:, 3], a[:, 1])
    last = np.moveaxis(a, 1, -1)
    got = nn.ChannelShuffle(g, "NHWC")(t64(last)).numpy()
    np.testing.assert_array_equal(got, np.moveaxis(want, 1, -1))
    grads_ok(lambda x: F.channel_shuffle(x, 2), a[:1, :4, :1, :2], second=False)
    with pytest.raises(ValueError, match="divisible by groups"):
        F.channel_shuffle(t64(a), 4)


def test_fold_unfold_layers_both_spellings():
    a = RNG.standard_normal((1, 2, 4, 5))
    cols = nn.Unfold(2, 1, 1, 2)(t64(a))
    same = nn.Unfold(kernel_sizes=2, dilations=1, paddings=1, strides=2)(t64(a))
    np.testing.assert_array_equal(cols.numpy(), same.numpy())
    # the reference im2col: pad, then windows in row-major order
    p = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.stack(
        [p[0, :, i : i + 2, j : j + 2].reshape(-1) for i in range(0, 5, 2) for j in range(0, 6, 2)],
        axis=-1,
    )
    np.testing.assert_array_equal(cols.numpy()[0], ref)
    # fold(unfold(x)) with non-overlapping windows gives x back
    back = nn.Fold((4, 4), 2, stride=2)(F.unfold(t64(a[..., :4]), 2, stride=2))
    np.testing.assert_array_equal(back.numpy(), a[..., :4])
    back = nn.Fold(output_sizes=[4, 4], kernel_sizes=2, strides=2)(
        F.unfold(t64(a[..., :4]), 2, stride=2)
    )
    np.testing.assert_array_equal(back.numpy(), a[..., :4])
    with pytest.raises(TypeError, match="kernel_size"):
        nn.Unfold()


def np_bilinear(x1, x2, w, b):
    return np.einsum("ni,oij,nj->no", x1, w, x2) + b


def test_bilinear_function_and_layer():
    x1, x2 = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))
    w, b = RNG.standard_normal((5, 3, 2)), RNG.standard_normal(5)
    np.testing.assert_allclose(
        F.bilinear(t64(x1), t64(x2), t64(w), t64(b)).numpy(), np_bilinear(x1, x2, w, b), rtol=1e-12
    )
    # leading dims, Paddle's [1, out] bias
    got = F.bilinear(t64(x1.reshape(2, 2, 3)), t64(x2.reshape(2, 2, 2)), t64(w), t64(b[None]))
    np.testing.assert_allclose(got.numpy(), np_bilinear(x1, x2, w, b).reshape(2, 2, 5), rtol=1e-12)
    grads_ok(lambda p, q, ww, bb: F.bilinear(p, q, ww, bb), x1[:2], x2[:2], w[:2], b[:2])
    fg.manual_seed(0)
    layer = nn.Bilinear(3, 2, 5)
    assert list(layer.weight.shape) == [5, 3, 2] and list(layer.bias.shape) == [5]
    bound = 1 / np.sqrt(3)
    assert np.abs(layer.weight.numpy()).max() <= bound and np.abs(layer.bias.numpy()).max() <= bound
    want = np_bilinear(x1, x2, layer.weight.numpy(), layer.bias.numpy())
    got = layer(t64(x1).astype(layer.weight.dtype), t64(x2).astype(layer.weight.dtype))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    assert nn.Bilinear(3, 2, 5, bias=False).bias is None
    assert nn.Bilinear(3, 2, 5, None, False).bias is None  # Paddle: weight_attr, bias_attr
    assert nn.Bilinear(3, 2, 5, bias_attr=False).bias is None
    fg.manual_seed(1)
    w1 = nn.Bilinear(3, 2, 5).weight.numpy()
    fg.manual_seed(1)
    assert np.array_equal(nn.Bilinear(3, 2, 5).weight.numpy(), w1)
    with pytest.raises(ValueError, match="do not fit"):
        F.bilinear(t64(x2), t64(x2), t64(w))
    with pytest.raises(ValueError, match="3-D"):
        F.bilinear(t64(x1), t64(x2), t64(w[0]))
    with pytest.raises(ValueError, match="positive"):
        nn.Bilinear(0, 2, 5)
