"""ferrograd.sparse, part 5: Paddle's sparse nn (conv3d / subm_conv3d / conv2d /
subm_conv2d / max_pool3d, their layers, BatchNorm, attention), checked against dense
ops on the densified input and NumPy in float64. (Output patterns and values were also
compared once with Paddle 3.3.1, float32: equal indices, values to 5e-7.)"""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

F = fg.sparse.nn.functional
RNG = np.random.default_rng(18)


def t(a, requires_grad=False):
    return fg.tensor(a, dtype=fg.float64, requires_grad=requires_grad)


def sparse_input(shape, density=0.3, positive=False):
    vals = RNG.standard_normal(shape)
    if positive:
        vals = np.abs(vals) + 0.1
    d = vals * (RNG.random((*shape[:-1], 1)) < density)
    return d, t(d).to_sparse_coo(len(shape) - 1)


def dense_conv(d, w, nd, **kw):
    """The dense channels-last convolution by a [*k, C, M] weight, via the NCHW op."""
    conv = fg.nn.functional.conv3d if nd == 3 else fg.nn.functional.conv2d
    perm_in = [0, nd + 1, *range(1, nd + 1)]
    perm_w = [nd + 1, nd, *range(nd)]
    out = conv(t(d).permute(perm_in), t(w).permute(perm_w), **kw)
    return out.permute([0, *range(2, nd + 2), 1]).numpy()


@pytest.mark.parametrize(
    "stride, padding, dilation",
    [(1, 1, 1), (1, 0, 1), (2, 1, 1), (2, 0, 1), ((1, 2, 1), (1, 0, 1), 1), (1, 2, 2)],
)
def test_conv3d_is_the_dense_conv_at_reached_sites(stride, padding, dilation):
    d, x = sparse_input((2, 5, 4, 6, 2))
    w = RNG.standard_normal((3, 3, 3, 2, 3))
    out = F.conv3d(x, t(w), stride=stride, padding=padding, dilation=dilation)
    ref = dense_conv(d, w, 3, stride=stride, padding=padding, dilation=dilation)
    assert out.layout is fg.sparse_coo and list(out.shape) == list(ref.shape)
    np.testing.assert_allclose(out.to_dense().numpy(), ref, atol=1e-12)
    assert out.is_coalesced() and out.dense_dim() == 1


def test_subm_conv3d_keeps_the_input_sites():
    d, x = sparse_input((1, 5, 5, 4, 2))
    w = RNG.standard_normal((3, 3, 3, 2, 4))
    bias = RNG.standard_normal(4)
    for dil in (1, 2):
        out = F.subm_conv3d(x, t(w), t(bias), dilation=dil, padding=7)  # padding is ignored
        np.testing.assert_array_equal(out.indices().numpy(), x.coalesce().indices().numpy())
        ref = dense_conv(d, w, 3, padding=dil, dilation=dil) + bias
        active = np.abs(d).sum(-1) > 0
        np.testing.assert_allclose(out.to_dense().numpy()[active], ref[active], atol=1e-12)


def test_conv2d_and_subm_conv2d():
    d, x = sparse_input((2, 6, 5, 3), density=0.4)
    w = RNG.standard_normal((3, 2, 3, 2))
    out = F.conv2d(x, t(w), stride=(2, 1), padding=1)
    np.testing.assert_allclose(
        out.to_dense().numpy(), dense_conv(d, w, 2, stride=(2, 1), padding=1), atol=1e-12
    )
    w3 = RNG.standard_normal((3, 3, 3, 2))
    sub = F.subm_conv2d(x, t(w3))
    active = np.abs(d).sum(-1) > 0
    ref = dense_conv(d, w3, 2, padding=1)
    np.testing.assert_allclose(sub.to_dense().numpy()[active], ref[active], atol=1e-12)
    assert F.subm_conv2d_igemm is F.subm_conv2d


def test_conv_gradients_reach_values_weight_and_bias():
    _, x = sparse_input((1, 3, 3, 3, 2), density=0.5)
    x = x.coalesce()
    vals = x.values().detach().clone().requires_grad_(True)
    w = t(RNG.standard_normal((2, 2, 2, 2, 2)), True)
    b = t(RNG.standard_normal(2), True)

    def regular(v, w, b):
        return F.conv3d(x._with_values(v), w, b, padding=1, stride=2).values()

    def subm(v, w, b):
        return F.subm_conv3d(x._with_values(v), w[:1, :1, :1], b).values()

    assert gradcheck(regular, (vals, w, b))
    assert gradcheck(subm, (vals, w, b))


def test_max_pool3d_over_stored_entries():
    d, x = sparse_input((2, 4, 5, 4, 3), density=0.4, positive=True)
    out = F.max_pool3d(x, 2, stride=2)
    ref = fg.nn.functional.max_pool3d(t(d).permute([0, 4, 1, 2, 3]), 2, stride=2)
    ref = ref.permute([0, 2, 3, 4, 1]).numpy()
    np.testing.assert_allclose(out.to_dense().numpy(), ref)  # positive values: zeros lose
    out = F.max_pool3d(x, 3, stride=1, padding=1)
    ref = fg.nn.functional.max_pool3d(t(d).permute([0, 4, 1, 2, 3]), 3, stride=1, padding=1)
    np.testing.assert_allclose(out.to_dense().numpy(), ref.permute([0, 2, 3, 4, 1]).numpy())
    # only stored entries compete: a window holding just -1 gives -1, not the implicit 0
    neg = fg.sparse_coo_tensor([[0], [0], [0], [0]], t([[-1.0]]), (1, 2, 2, 2, 1))
    assert F.max_pool3d(neg, 2).values().tolist() == [[-1.0]]
    vals = x.values().detach().clone().requires_grad_(True)
    assert gradcheck(lambda v: F.max_pool3d(x._with_values(v), 2).values(), (vals,))


def test_layers_train_and_match_the_functional_forms():
    fg.manual_seed(3)
    conv = fg.sparse.nn.Conv3D(2, 4, 3, padding=1)
    sub = fg.sparse.nn.SubmConv3D(4, 4, 3)
    bn = fg.sparse.nn.BatchNorm(4)
    pool = fg.sparse.nn.MaxPool3D(2)
    assert conv.weight.shape == [3, 3, 3, 2, 4] and conv.bias.tolist() == [0.0] * 4
    assert isinstance(bn, fg.nn.BatchNorm1D)
    _, x = sparse_input((1, 4, 4, 4, 2))
    x = x.astype("float32")
    h = sub(conv(x))
    np.testing.assert_allclose(
        h.values().detach().numpy(),
        F.subm_conv3d(F.conv3d(x, conv.weight, conv.bias, padding=1), sub.weight, sub.bias)
        .values()
        .detach()
        .numpy(),
        rtol=1e-6,
    )
    y = pool(fg.sparse.nn.ReLU()(bn(h)))
    y.values().sum().backward()
    assert conv.weight.grad is not None and sub.bias.grad is not None and bn.weight.grad is not None
    c2 = fg.sparse.nn.Conv2D(3, 2, (3, 1), bias_attr=False)
    assert c2.weight.shape == [3, 1, 3, 2] and c2.bias is None
    assert fg.sparse.nn.SubmConv2D(3, 2, 3).weight.shape == [3, 3, 3, 2]


def test_batch_norm_normalises_the_values():
    _, x = sparse_input((2, 3, 3, 3, 4), density=0.6)
    bn = fg.sparse.nn.BatchNorm(4)
    bn.to(fg.float64)
    out = bn(x)
    v = x.coalesce().values().numpy()
    ref = (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-5)
    np.testing.assert_allclose(out.values().detach().numpy(), ref, atol=1e-10)
    np.testing.assert_array_equal(out.indices().numpy(), x.coalesce().indices().numpy())


def test_attention_at_the_mask_entries():
    b, h, s, d = 2, 2, 5, 3
    q, k, v = (RNG.standard_normal((b, h, s, d)) for _ in range(3))
    m = RNG.random((1, s, s)) < 0.5
    m[:, np.arange(s), np.arange(s)] = True
    m = m.repeat(b * h, 0)  # batched CSR: the same nnz per batch
    mask = t(m.astype(float)).to_sparse_csr()
    kp = (RNG.random((b, s)) < 0.8).astype(float)
    am = np.tril(np.ones((s, s)))
    out = F.attention(t(q), t(k), t(v), mask, t(kp), t(am))
    keep = m.reshape(b, h, s, s) & (kp[:, None, None, :] != 0) & (am != 0)
    sc = np.where(keep, q @ k.transpose(0, 1, 3, 2) / np.sqrt(d), -1e300)
    p = np.where(keep, np.exp(sc - sc.max(-1, keepdims=True)), 0.0)
    p /= np.maximum(p.sum(-1, keepdims=True), 1e-300)  # a fully masked row gives zeros
    np.testing.assert_allclose(out.numpy(), p @ v, atol=1e-12)
    qs = [t(a[:1, :1, :3], True) for a in (q, k, v)]
    small = t(m[:1, :3, :3].astype(float)).to_sparse_csr()
    assert gradcheck(lambda a, b_, c: F.attention(a, b_, c, small), qs)


@pytest.mark.parametrize(
    "call, err, match",
    [
        (lambda x, w: F.conv3d(x.to_dense(), w), ValueError, "COO tensor"),
        (lambda x, w: F.conv3d(x, w[:, :, :, :1]), ValueError, "input channels"),
        (lambda x, w: F.conv3d(x, w, data_format="NCDHW"), ValueError, "data_format"),
        (lambda x, w: F.conv3d(x, w, groups=2), NotImplementedError, "groups"),
        (lambda x, w: F.subm_conv3d(x, w, stride=2), ValueError, "stride 1"),
        (lambda x, w: F.subm_conv3d(x, w[:2]), ValueError, "odd"),
        (lambda x, w: F.conv3d(x, w, padding=[1, 2, 1, 1, 0, 0]), NotImplementedError, "asym"),
        (lambda x, w: F.max_pool3d(x, 2, ceil_mode=True), NotImplementedError, "ceil_mode"),
        (lambda x, w: F.conv3d(x[:, :2], w), ValueError, "does not fit"),
    ],
)
def test_errors_name_the_problem(call, err, match):
    _, x = sparse_input((1, 4, 4, 4, 2))
    w = t(RNG.standard_normal((3, 3, 3, 2, 2)))
    with pytest.raises(err, match=match):
        call(x, w)
