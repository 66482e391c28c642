"""Session 42's PyTorch names (_names_s42_torch.py): the ATen spellings of functional ops
that ``torch/overrides.py`` ``get_testing_overrides()`` lists at the top level, with the
signatures of ``aten/src/ATen/native/native_functions.yaml`` (``embedding(Tensor weight,
Tensor indices, SymInt padding_idx=-1, ...)``, ``batch_norm(input, weight, bias,
running_mean, running_var, training, momentum, eps, cudnn_enabled)``, ``kl_div(self,
target, int reduction=Mean, *, bool log_target=False)``, pools with ``stride=[]``), and
small Tensor methods. Values against NumPy in float64; gradients by gradcheck."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

F = fg.nn.functional
rng = np.random.default_rng(42)


def _t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_aten_spellings_are_not_replaced_by_the_functional_objects():
    # ferrograd/__init__.py's traced-op table must leave these alone (their arguments differ)
    for name in ("embedding", "batch_norm", "instance_norm", "dropout", "max_pool2d"):
        assert getattr(fg, name).__module__ == "ferrograd._names_s42_torch", name


def test_embedding_takes_the_table_first_and_negative_padding_is_none():
    w = _t(rng.standard_normal((5, 3)), grad=True)
    idx = fg.tensor([[0, 4], [2, 2]])
    out = fg.embedding(w, idx)
    np.testing.assert_allclose(out.numpy(), w.detach().numpy()[[[0, 4], [2, 2]]])
    out.sum().backward()
    g = np.zeros((5, 3))
    for i in (0, 4, 2, 2):
        g[i] += 1
    np.testing.assert_allclose(w.grad.numpy(), g)
    w.grad = None
    fg.embedding(w, idx, padding_idx=2).sum().backward()  # row 2 gets no gradient
    g[2] = 0
    np.testing.assert_allclose(w.grad.numpy(), g)


def test_batch_norm_and_instance_norm_take_atens_order():
    x = rng.standard_normal((4, 3, 5))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = np.zeros(3), np.ones(3)
    out = fg.batch_norm(_t(x), _t(w), _t(b), _t(rm), _t(rv), True, 0.1, 1e-5, False)
    mu, var = x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)
    ref = (x - mu) / np.sqrt(var + 1e-5) * w[None, :, None] + b[None, :, None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-10)
    out = fg.instance_norm(_t(x), _t(w), _t(b), None, None, True, 0.1, 1e-5, False)
    mu, var = x.mean(2, keepdims=True), x.var(2, keepdims=True)
    ref = (x - mu) / np.sqrt(var + 1e-5) * w[None, :, None] + b[None, :, None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-10)
    with pytest.raises(TypeError):
        fg.batch_norm(_t(x), None, None, None, None)  # every argument is required in ATen


def test_layer_group_rms_norm_values_and_gradients():
    x = rng.standard_normal((2, 4, 3))
    out = fg.layer_norm(_t(x), [3], eps=1e-5)
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-10)
    out = fg.group_norm(_t(x), 2)
    g = x.reshape(2, 2, 6)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(
        x.shape
    )
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-10)
    out = fg.rms_norm(_t(x), [3], eps=1e-6)
    np.testing.assert_allclose(out.numpy(), x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6))
    xt = _t(rng.standard_normal((2, 3)), grad=True)
    assert fg.autograd.gradcheck(lambda a: fg.layer_norm(a, [3]), (xt,))
    assert fg.autograd.gradcheck(lambda a: fg.rms_norm(a, [3], eps=1e-6), (xt,))


def test_group_norm_reads_paddles_positional_epsilon():
    x = _t(rng.standard_normal((2, 4, 3)))
    w, b = _t(rng.standard_normal(4)), _t(rng.standard_normal(4))
    torch_style = fg.group_norm(x, 2, w, b, 1e-3)
    paddle_style = fg.group_norm(x, 2, 1e-3, w, b)  # paddle: (x, num_groups, epsilon, weight, bias)
    np.testing.assert_allclose(paddle_style.numpy(), torch_style.numpy())


def test_dropout_spellings():
    x = _t(np.ones((3, 4, 2)))
    assert fg.dropout(x, 0.5, False) is x or np.array_equal(
        fg.dropout(x, 0.5, False).numpy(), x.numpy()
    )
    y = fg.dropout(x, 0.5, True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    y = fg.feature_dropout(x, 0.5, True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    # whole channels: each [n, c, :] is all zero or all kept
    assert all(len(np.unique(y[n, c])) == 1 for n in range(3) for c in range(4))
    assert np.array_equal(fg.feature_dropout(x, 0.5, False).numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        fg.dropout(x, 1.5, True)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        fg.feature_dropout(_t([1.0, 2.0]), 0.5, True)
    with pytest.raises(TypeError):
        fg.dropout(x, 0.5)  # ATen: train has no default


def test_pools_default_stride_is_the_kernel():
    x = rng.standard_normal((1, 2, 8))
    out = fg.max_pool1d(_t(x), 2)
    np.testing.assert_allclose(out.numpy(), x.reshape(1, 2, 4, 2).max(-1))
    vals, idx = fg.max_pool1d_with_indices(_t(x), 2, [])
    np.testing.assert_allclose(vals.numpy(), out.numpy())
    np.testing.assert_array_equal(idx.numpy(), x.reshape(1, 2, 4, 2).argmax(-1) + np.arange(4) * 2)
    np.testing.assert_allclose(fg.avg_pool1d(_t(x), 4).numpy(), x.reshape(1, 2, 2, 4).mean(-1))
    x2 = rng.standard_normal((1, 1, 4, 4))
    np.testing.assert_allclose(
        fg.max_pool2d(_t(x2), 2).numpy(), x2.reshape(1, 1, 2, 2, 2, 2).max((3, 5))
    )
    x3 = rng.standard_normal((1, 1, 2, 2, 2))
    np.testing.assert_allclose(fg.max_pool3d(_t(x3), 2).numpy().ravel(), [x3.max()])
    v, i = fg.adaptive_max_pool1d(_t(x), 2)  # ATen returns (values, indices)
    np.testing.assert_allclose(v.numpy(), x.reshape(1, 2, 2, 4).max(-1))
    np.testing.assert_allclose(
        fg.adaptive_avg_pool1d(_t(x), 4).numpy(), x.reshape(1, 2, 4, 2).mean(-1)
    )


def test_activation_spellings():
    x = np.array([-2.0, -0.3, 0.0, 0.4, 3.0])
    np.testing.assert_allclose(fg.threshold(_t(x), 0.1, 20.0).numpy(), np.where(x > 0.1, x, 20.0))
    np.testing.assert_allclose(
        fg.celu(_t(x), 2.0).numpy(), np.where(x > 0, x, 2.0 * np.expm1(x / 2.0))
    )
    np.testing.assert_allclose(fg.hardshrink(_t(x), 0.5).numpy(), np.where(np.abs(x) > 0.5, x, 0.0))
    np.testing.assert_allclose(
        fg.rrelu(_t(x)).numpy(), np.where(x >= 0, x, x * (0.125 + 1 / 3) / 2)
    )
    np.testing.assert_allclose(fg.prelu(_t(x), _t([0.25])).numpy(), np.where(x >= 0, x, 0.25 * x))
    xt = _t([-1.3, 0.7, 2.1], grad=True)
    assert fg.autograd.gradcheck(lambda a: fg.celu(a, 1.5), (xt,))


def test_shuffles_pad_bilinear():
    x = rng.standard_normal((1, 8, 2, 3))
    ps = fg.pixel_shuffle(_t(x), 2).numpy()
    ref = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    np.testing.assert_allclose(ps, ref)
    np.testing.assert_allclose(fg.pixel_unshuffle(_t(ps), 2).numpy(), x)
    cs = fg.channel_shuffle(_t(x), 2).numpy()
    np.testing.assert_allclose(
        cs, x.reshape(1, 2, 4, 2, 3).transpose(0, 2, 1, 3, 4).reshape(x.shape)
    )
    p = fg.constant_pad_nd(_t(np.ones((2, 2))), [1, 0, 0, 1], 7.0).numpy()
    np.testing.assert_allclose(p, np.pad(np.ones((2, 2)), ((0, 1), (1, 0)), constant_values=7.0))
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((3, 4))
    w, bias = rng.standard_normal((5, 2, 4)), rng.standard_normal(5)
    out = fg.bilinear(_t(a), _t(b), _t(w), _t(bias)).numpy()
    np.testing.assert_allclose(out, np.einsum("ni,oij,nj->no", a, w, b) + bias)


def test_losses_take_atens_int_reduction():
    x, y = rng.standard_normal(6), rng.random(6)
    lp = np.log(rng.random(6))
    np.testing.assert_allclose(fg.kl_div(_t(lp), _t(y)).numpy(), np.mean(y * (np.log(y) - lp)))
    np.testing.assert_allclose(fg.kl_div(_t(lp), _t(y), 2).numpy(), np.sum(y * (np.log(y) - lp)))
    with pytest.raises(TypeError, match="must be int"):
        fg.kl_div(_t(lp), _t(y), "mean")
    with pytest.raises(ValueError):
        fg.kl_div(_t(lp), _t(y), 3)
    pw = _t([2.0] * 6)
    bce = fg.binary_cross_entropy_with_logits(_t(x), _t(y), None, pw, 0).numpy()
    sig = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(bce, -(2.0 * y * np.log(sig) + (1 - y) * np.log(1 - sig)))
    t = _t([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    np.testing.assert_allclose(
        fg.hinge_embedding_loss(_t(x), t, 1.0, 2).numpy(),
        np.sum(np.where(t.numpy() > 0, x, np.maximum(0, 1.0 - x))),
    )
    x2 = rng.standard_normal(6)
    np.testing.assert_allclose(
        fg.margin_ranking_loss(_t(x), _t(x2), t, 0.1).numpy(),
        np.mean(np.maximum(0, -t.numpy() * (x - x2) + 0.1)),
    )
    np.testing.assert_allclose(
        fg.poisson_nll_loss(_t(x), _t(y), True, False, 1e-8, 1).numpy(), np.mean(np.exp(x) - y * x)
    )
    a, p, n = (rng.standard_normal((4, 3)) for _ in range(3))
    d = lambda u, v: np.sqrt(((u - v + 1e-6) ** 2).sum(-1))  # noqa: E731
    np.testing.assert_allclose(
        fg.triplet_margin_loss(_t(a), _t(p), _t(n)).numpy(),
        np.mean(np.maximum(d(a, p) - d(a, n) + 1.0, 0)),
    )
    u, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    cos = (u * v).sum(-1) / np.linalg.norm(u, axis=-1) / np.linalg.norm(v, axis=-1)
    lab = _t([1.0, -1.0, 1.0, -1.0])
    np.testing.assert_allclose(
        fg.cosine_embedding_loss(_t(u), _t(v), lab, 0.0, 0).numpy(),
        np.where(lab.numpy() > 0, 1 - cos, np.maximum(0, cos)),
        rtol=1e-7,
    )
    xt = _t(x, grad=True)
    assert fg.autograd.gradcheck(
        lambda a: fg.binary_cross_entropy_with_logits(a, _t(y), None, None, 1), (xt,)
    )


def test_small_queries():
    x = _t(rng.standard_normal((2, 3)))
    np.testing.assert_allclose(fg.adjoint(x).numpy(), x.numpy().T)
    assert fg.is_signed(x) is True and fg.is_signed(fg.tensor([1], dtype=fg.uint8)) is False
    assert fg.is_same_size(x, _t(np.zeros((2, 3)))) and not fg.is_same_size(x, _t(np.zeros(6)))
    a, b = fg.split_with_sizes(x, [1, 2], 1)
    assert a.shape == [2, 1] and b.shape == [2, 2]
    np.testing.assert_allclose(fg.rsub(x, 1.0, alpha=2).numpy(), 1.0 - 2 * x.numpy())
    np.testing.assert_allclose(fg.rsub(x, x).numpy(), np.zeros((2, 3)))


def test_tensor_methods():
    x = _t([1.0, -2.0])
    assert x.cfloat().dtype == fg.complex64 and x.cdouble().dtype == fg.complex128
    np.testing.assert_allclose(x.hardshrink(1.5).numpy(), [0.0, -2.0])
    assert x.is_shared() is False and x.share_memory_() is x
    assert x.has_names() is False and x.names == (None,)
    for flag in ("is_meta", "is_xla", "is_mps", "is_quantized", "is_nested", "is_mkldnn"):
        assert getattr(x, flag) is False, flag
