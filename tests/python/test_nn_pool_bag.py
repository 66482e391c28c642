"""Issue 17's sampling, normalisation, pooling and bag layers: ``gumbel_softmax``
(both spellings, hard straight-through), ``local_response_norm`` /
``LocalResponseNorm``, ``lp_pool1d/2d/3d`` / ``LPPool*`` (both peers' argument orders)
and ``embedding_bag`` / ``EmbeddingBag`` (sum / mean / max, offsets, padding_idx,
per-sample weights), against NumPy float64 references, with gradients and bad input."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(9)


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_gumbel_softmax():
    logits = np.log(np.array([0.1, 0.2, 0.7]))
    fg.manual_seed(0)
    y = F.gumbel_softmax(t64(np.tile(logits, (20000, 1))), tau=0.5, hard=True)
    out = y.numpy()
    # one-hot rows, drawn with the softmax's probabilities
    assert np.all(out.sum(1) == 1) and set(np.unique(out)) == {0.0, 1.0}
    np.testing.assert_allclose(out.mean(0), [0.1, 0.2, 0.7], atol=0.015)
    # soft samples: rows sum to 1; Paddle's spelling; reproducible with the seed
    fg.manual_seed(4)
    soft = F.gumbel_softmax(t64(RNG.standard_normal((3, 4))), temperature=2.0, axis=0).numpy()
    np.testing.assert_allclose(soft.sum(0), np.ones(4), rtol=1e-12)
    fg.manual_seed(4)
    again = F.gumbel_softmax(logits=t64(RNG.standard_normal((3, 4))), tau=2.0, dim=0).numpy()
    assert again.shape == soft.shape
    x = t64(RNG.standard_normal((2, 3)), True)
    fg.manual_seed(1)
    hard = F.gumbel_softmax(x, hard=True)
    fg.manual_seed(1)
    soft_same = F.gumbel_softmax(x.detach())
    # straight-through: the hard sample's gradient is the soft sample's
    w = t64(RNG.standard_normal((2, 3)))
    (g_hard,) = fg.grad((hard * w).sum(), [x])
    x2 = t64(x.numpy(), True)
    fg.manual_seed(1)
    (g_soft,) = fg.grad((F.gumbel_softmax(x2) * w).sum(), [x2])
    np.testing.assert_allclose(g_hard.numpy(), g_soft.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(hard.numpy().argmax(1), soft_same.numpy().argmax(1))

    def seeded(t):
        fg.manual_seed(2)
        return F.gumbel_softmax(t, tau=0.7)

    assert gradcheck(seeded, (x,)) and gradgradcheck(seeded, (x,))
    with pytest.raises(ValueError, match="positive"):
        F.gumbel_softmax(x, tau=0.0)
    with pytest.raises(TypeError, match="not both"):
        F.gumbel_softmax(x, 1.0, tau=1.0)


def ref_lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    sq = x * x
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(0, ch - size // 2), min(c, ch + (size - 1) // 2 + 1)
        div[:, ch] = sq[:, lo:hi].sum(1)
    return x / (k + alpha / size * div) ** beta


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_local_response_norm(size):
    x = RNG.standard_normal((2, 5, 3, 2))
    got = F.local_response_norm(t64(x), size, alpha=0.5, beta=0.6, k=1.5).numpy()
    np.testing.assert_allclose(got, ref_lrn(x, size, 0.5, 0.6, 1.5), rtol=1e-12)
    x3 = x[:, :, :, 0]
    np.testing.assert_allclose(
        nn.LocalResponseNorm(size)(t64(x3)).numpy(), ref_lrn(x3, size), rtol=1e-12
    )
    last = np.moveaxis(x, 1, -1)
    got = nn.LocalResponseNorm(size, 0.5, 0.6, 1.5, data_format="NHWC")(t64(last)).numpy()
    np.testing.assert_allclose(got, np.moveaxis(ref_lrn(x, size, 0.5, 0.6, 1.5), 1, -1), rtol=1e-12)


def test_local_response_norm_gradients_and_errors():
    x = (t64(RNG.standard_normal((1, 4, 2)), True),)
    fn = lambda t: F.local_response_norm(t, 3, alpha=0.3)  # noqa: E731
    assert gradcheck(fn, x) and gradgradcheck(fn, x)
    with pytest.raises(ValueError, match="3 or more"):
        F.local_response_norm(t64(np.ones((2, 3))), 2)
    with pytest.raises(ValueError, match="size"):
        nn.LocalResponseNorm(0)
    with pytest.raises(ValueError, match="data_format"):
        F.local_response_norm(t64(np.ones((1, 2, 3))), 2, data_format="NWC")


def ref_lp_pool_1d(x, p, k, stride, ceil=False):
    """PyTorch's rule: k times the mean of x^p over the window's in-bounds part (a partial
    last window under ceil_mode is scaled up), then ^(1/p)."""
    n = x.shape[-1]
    out_len = (-(-(n - k) // stride) if ceil else (n - k) // stride) + 1
    cols = []
    for i in range(out_len):
        s = i * stride
        cols.append(((x[..., s : min(s + k, n)] ** p).mean(-1) * k) ** (1 / p))
    return np.stack(cols, -1)


def test_lp_pool_values_both_orders():
    x = np.abs(RNG.standard_normal((2, 3, 7))) + 0.1
    want = ref_lp_pool_1d(x, 2.5, 3, 2)
    np.testing.assert_allclose(F.lp_pool1d(t64(x), 2.5, 3, 2).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(nn.LPPool1d(2.5, 3, 2)(t64(x)).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(nn.LPPool1D(2.5, 3, 2, 0)(t64(x)).numpy(), want, rtol=1e-10)
    # PyTorch's fourth argument ceil_mode (a bool) vs Paddle's padding
    got = F.lp_pool1d(t64(x), 2, 2, 2, True).numpy()
    np.testing.assert_allclose(got, ref_lp_pool_1d(x, 2, 2, 2, ceil=True), rtol=1e-10)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    got = F.lp_pool1d(t64(x), 2, 3, 2, 1).numpy()
    np.testing.assert_allclose(got, ref_lp_pool_1d(padded, 2, 3, 2), rtol=1e-10)
    # 2-D: the window sum over both dims; stride defaults to the kernel
    y = np.abs(RNG.standard_normal((1, 2, 4, 6))) + 0.1
    want2 = (y**3).reshape(1, 2, 2, 2, 3, 2).sum((3, 5)) ** (1 / 3)
    np.testing.assert_allclose(F.lp_pool2d(t64(y), 3, 2).numpy(), want2, rtol=1e-10)
    np.testing.assert_allclose(nn.LPPool2D(3, 2)(t64(y)).numpy(), want2, rtol=1e-10)
    last = np.moveaxis(y, 1, -1)
    got = nn.LPPool2D(3, 2, data_format="NHWC")(t64(last)).numpy()
    np.testing.assert_allclose(got, np.moveaxis(want2, 1, -1), rtol=1e-10)
    z = np.abs(RNG.standard_normal((1, 1, 2, 2, 2))) + 0.1
    np.testing.assert_allclose(
        nn.LPPool3d(2, 2)(t64(z)).numpy().reshape(-1), [np.sqrt((z**2).sum())], rtol=1e-10
    )
    # p = inf: the max of |x|
    s = RNG.standard_normal((1, 2, 6))
    np.testing.assert_allclose(
        F.lp_pool1d(t64(s), float("inf"), 3).numpy(), np.abs(s).reshape(1, 2, 2, 3).max(-1)
    )
    g = (t64(x[:1, :1], True),)
    fn = lambda t: F.lp_pool1d(t, 2.0, 3, 2)  # noqa: E731
    assert gradcheck(fn, g) and gradgradcheck(fn, g)
    with pytest.raises(ValueError, match="norm_type"):
        F.lp_pool1d(t64(x), 0, 2)
    with pytest.raises(ValueError, match="norm_type"):
        nn.LPPool2d("2", 2)


def ref_bags(weight, ids, bags, n_bags, mode, pad=None, psw=None):
    out = np.zeros((n_bags, weight.shape[1]))
    for b in range(n_bags):
        rows = [
            weight[i] * (1.0 if psw is None else psw[j])
            for j, (i, bb) in enumerate(zip(ids, bags))
            if bb == b and i != pad
        ]
        if rows:
            out[b] = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode](rows, axis=0)
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_values(mode):
    w = RNG.standard_normal((10, 3))
    ids = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = np.array([0, 3, 3, 6])  # the second bag is empty
    bags = np.array([0, 0, 0, 2, 2, 2, 3, 3])
    got = F.embedding_bag(fg.tensor(ids), t64(w), fg.tensor(offsets), mode=mode).numpy()
    np.testing.assert_allclose(got, ref_bags(w, ids, bags, 4, mode), rtol=1e-12)
    got = F.embedding_bag(fg.tensor(ids), t64(w), fg.tensor(offsets), mode=mode, padding_idx=4)
    np.testing.assert_allclose(got.numpy(), ref_bags(w, ids, bags, 4, mode, pad=4), rtol=1e-12)
    # include_last_offset: the last offset is not read, the last bag runs to the end, so
    # id 9 is in it (aten/src/ATen/native/EmbeddingBag.cpp, make_offset2bag_out and
    # make_bag_size_out; upstream's test_embeddingbag_include_last_offset)
    last = np.array([0, 3, 3, 7])
    got = F.embedding_bag(
        fg.tensor(ids), t64(w), fg.tensor(last), mode=mode, include_last_offset=True
    ).numpy()
    np.testing.assert_allclose(got, ref_bags(w, ids, [0, 0, 0, 2, 2, 2, 2, 2], 3, mode), rtol=1e-12)
    two_d = F.embedding_bag(fg.tensor(ids.reshape(2, 4)), t64(w), mode=mode).numpy()
    np.testing.assert_allclose(two_d, ref_bags(w, ids, np.repeat([0, 1], 4), 2, mode), rtol=1e-12)
    grad_w = (t64(w, True),)
    fn = lambda ww: F.embedding_bag(  # noqa: E731
        fg.tensor(ids), ww, fg.tensor(offsets), mode=mode, padding_idx=2
    )
    assert gradcheck(fn, grad_w)
    if mode != "max":
        assert gradgradcheck(fn, grad_w)


def test_embedding_bag_weights_layer_and_errors():
    w = RNG.standard_normal((6, 2))
    ids, offsets = np.array([0, 5, 5, 2]), np.array([0, 1])
    psw = RNG.standard_normal(4)
    got = F.embedding_bag(
        fg.tensor(ids), t64(w), fg.tensor(offsets), mode="sum", per_sample_weights=t64(psw)
    ).numpy()
    np.testing.assert_allclose(got, ref_bags(w, ids, [0, 1, 1, 1], 2, "sum", psw=psw), rtol=1e-12)
    ins = (t64(w, True), t64(psw, True))
    fn = lambda ww, pp: F.embedding_bag(  # noqa: E731
        fg.tensor(ids), ww, fg.tensor(offsets), mode="sum", per_sample_weights=pp
    )
    assert gradcheck(fn, ins)
    fg.manual_seed(0)
    bag = nn.EmbeddingBag(6, 2, mode="max", padding_idx=5)
    assert np.all(bag.weight.numpy()[5] == 0) and list(bag.weight.shape) == [6, 2]
    want = ref_bags(bag.weight.numpy(), ids, [0, 1, 1, 1], 2, "max", pad=5)
    np.testing.assert_allclose(bag(fg.tensor(ids), fg.tensor(offsets)).numpy(), want, rtol=1e-6)
    fixed = nn.EmbeddingBag(6, 2, _weight=t64(w), mode="sum")
    got = fixed(fg.tensor(ids.reshape(2, 2))).numpy()
    np.testing.assert_allclose(got, ref_bags(w, ids, [0, 0, 1, 1], 2, "sum"), rtol=1e-12)
    with pytest.raises(ValueError, match="mode"):
        F.embedding_bag(fg.tensor(ids), t64(w), fg.tensor(offsets), mode="prod")
    with pytest.raises(ValueError, match="mode"):
        nn.EmbeddingBag(6, 2, mode="min")
    with pytest.raises(ValueError, match="needs offsets"):
        F.embedding_bag(fg.tensor(ids), t64(w))
    with pytest.raises(ValueError, match="offsets must be None"):
        F.embedding_bag(fg.tensor(ids.reshape(2, 2)), t64(w), fg.tensor(offsets))
    with pytest.raises(ValueError, match="start at 0"):
        F.embedding_bag(fg.tensor(ids), t64(w), fg.tensor([1, 2]))
    with pytest.raises(IndexError, match="ids must lie"):
        F.embedding_bag(fg.tensor([0, 6]), t64(w), fg.tensor([0]))
    with pytest.raises(ValueError, match="only supported for mode='sum'"):
        F.embedding_bag(fg.tensor(ids), t64(w), fg.tensor(offsets), per_sample_weights=t64(psw))
    with pytest.raises(TypeError, match="integers"):
        F.embedding_bag(t64([0.0, 1.0]), t64(w), fg.tensor([0]))
