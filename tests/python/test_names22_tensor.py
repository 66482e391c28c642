"""Session 22's Tensor methods and top-level functions (_tensor_peer_names.py,
_ops_gammainc.py), against values worked out with NumPy / mpmath and checked on torch 2.15
and Paddle 3.3.1."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd._tensor_peer_names import TOP_LEVEL_INPLACE


def _run(code: str, dialect: str) -> dict:
    ns = {dialect: fg}
    exec(compile(code, f"<{dialect} code>", "exec"), ns)
    return ns


def test_top_level_inplace_spellings_call_the_method():
    for name in TOP_LEVEL_INPLACE:
        assert callable(getattr(fg, name)), name
    x = fg.tensor([0.25, 4.0], dtype=fg.float64)
    assert fg.sqrt_(x) is x and x.tolist() == [0.5, 2.0]
    ns = _run("x = paddle.to_tensor([0.5, 1.0])\ny = paddle.tanh_(x, name=None)", "paddle")
    assert ns["y"] is ns["x"]
    np.testing.assert_allclose(ns["x"].numpy(), np.tanh([0.5, 1.0]), rtol=1e-6)
    w = fg.tensor([4.0])
    assert fg.sqrt_(input=w) is w and fg.floor_(x=fg.tensor([1.5])).tolist() == [1.0]
    z = fg.tensor([1.0, 2.0])
    assert fg.clamp_(z, max=1.5).tolist() == [1.0, 1.5]
    with pytest.raises(TypeError, match="must be Tensor"):
        fg.sqrt_([1.0])


def test_split_with_sizes_and_sum_to_size():
    a = np.arange(12.0).reshape(3, 4)
    x = fg.tensor(a)
    parts = x.split_with_sizes([1, 3], dim=1)
    assert [p.numpy().tolist() for p in parts] == [a[:, :1].tolist(), a[:, 1:].tolist()]
    with pytest.raises(RuntimeError, match="sum exactly to 3"):
        x.split_with_sizes([1, 1])
    np.testing.assert_array_equal(x.sum_to_size(1, 4).numpy(), a.sum(0, keepdims=True))
    np.testing.assert_array_equal(x.sum_to_size((3, 1)).numpy(), a.sum(1, keepdims=True))
    np.testing.assert_array_equal(x.sum_to_size([4]).numpy(), a.sum(0))
    assert x.sum_to_size(3, 4) is x
    with pytest.raises(RuntimeError, match="not expandable"):
        x.sum_to_size(2, 4)
    w = fg.tensor(a, requires_grad=True)
    w.sum_to_size(1, 4).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.ones((3, 4)))


def test_retains_grad():
    w = fg.ones(2, requires_grad=True)
    v = w * 2
    assert not v.retains_grad and not w.retains_grad
    v.retain_grad()
    w.retain_grad()
    assert v.retains_grad and not w.retains_grad  # a leaf answers False, as PyTorch
    v.sum().backward()
    assert v.grad.tolist() == [1.0, 1.0]


def test_conjugate_transposes():
    a = np.array([[1 + 2j, 3j], [4, 5 - 1j]], dtype=np.complex128)
    x = fg.tensor(a)
    np.testing.assert_array_equal(x.H.numpy(), a.conj().T)
    b = np.arange(12.0).reshape(2, 2, 3)
    np.testing.assert_array_equal(fg.tensor(b).mH.numpy(), b.transpose(0, 2, 1))
    np.testing.assert_array_equal(fg.tensor(b).adjoint().numpy(), b.transpose(0, 2, 1))
    assert fg.tensor(2.0).H.item() == 2.0
    with pytest.raises(RuntimeError, match="only supported on matrices"):
        _ = fg.tensor(b).H
    with pytest.raises(RuntimeError, match="matrices or batches"):
        _ = fg.ones(3).mH


def test_random_fills_have_the_peers_distributions():
    fg.manual_seed(0)
    c = fg.zeros(20000, dtype=fg.float64).cauchy_(1.0, 2.0)
    assert abs(np.median(c.numpy()) - 1.0) < 0.1
    q = np.quantile(c.numpy(), [0.25, 0.75])  # Cauchy quartiles: median -+ sigma
    np.testing.assert_allclose(q, [-1.0, 3.0], atol=0.15)
    ln = np.log(fg.zeros(20000, dtype=fg.float64).log_normal_().numpy())
    assert abs(ln.mean() - 1.0) < 0.05 and abs(ln.std() - 2.0) < 0.05  # defaults 1, 2
    g = fg.zeros(20000).geometric_(0.3).numpy()
    assert set(np.unique(g)) <= set(range(1, 200)) and abs(g.mean() - 1 / 0.3) < 0.1
    gi = fg.zeros(5, dtype=fg.int64).geometric_(0.5)  # PyTorch fills integer tensors too
    assert gi.dtype == fg.int64 and min(gi.tolist()) >= 1
    # Paddle's geometric_ is continuous: log(u) / log1p(-p), mean -1 / log(0.7)
    ns = _run("x = paddle.zeros([20000])\nx.geometric_(0.3)", "paddle")
    gp = ns["x"].numpy()
    assert len(np.unique(gp)) > 1000 and abs(gp.mean() + 1 / np.log(0.7)) < 0.1
    with pytest.raises(RuntimeError, match="p to be in"):
        fg.zeros(2).geometric_(1.5)
    with pytest.raises(RuntimeError, match="sigma > 0"):
        fg.zeros(2).cauchy_(0.0, -1.0)
    with pytest.raises(TypeError, match="floating-point"):
        fg.zeros(2, dtype=fg.int64).cauchy_()


def test_cast_inplace():
    x = fg.tensor([1.5, 2.7])
    assert fg.cast_(x, "int32") is x and x.dtype == fg.int32 and x.tolist() == [1, 2]
    assert x.cast_("float64").dtype == fg.float64
    w = fg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        fg.cast_(w * 2, "float64")


# mpmath.gammainc(a, 0, x, regularized=True)
GAMMAINC = [
    (0.5, 0.3, 0.561421973919),
    (2.0, 1.0, 0.264241117657115),
    (3.0, 5.0, 0.875347980516919),
    (0.001, 0.001, 0.99368764670886),
    (7.5, 2.0, 0.00226265584708308),
    (50.0, 49.0, 0.46210439360094),
    (200.0, 210.0, 0.763969674501154),
]


def test_gammainc_values_edges_and_gradient():
    a = fg.tensor([r[0] for r in GAMMAINC], dtype=fg.float64)
    x = fg.tensor([r[1] for r in GAMMAINC], dtype=fg.float64)
    want = np.array([r[2] for r in GAMMAINC])
    np.testing.assert_allclose(fg.gammainc(a, x).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(fg.special.gammaincc(a, x).numpy(), 1 - want, rtol=1e-11)
    np.testing.assert_allclose(a.igamma(x).numpy(), want, rtol=1e-12)
    # the upper tail computed directly (mpmath: Q(1, 30) = exp(-30))
    q = fg.gammaincc(fg.tensor([1.0], dtype=fg.float64), fg.tensor([30.0], dtype=fg.float64))
    np.testing.assert_allclose(q.numpy(), [np.exp(-30.0)], rtol=1e-12)
    # edges as torch.special.gammainc
    ea = fg.tensor([0.0, 1.0, 2.0, -1.0, 2.0, 2.0], dtype=fg.float64)
    ex = fg.tensor([1.0, 0.0, -1.0, 1.0, np.inf, np.nan], dtype=fg.float64)
    np.testing.assert_array_equal(
        fg.gammainc(ea, ex).numpy(), [1.0, 0.0, np.nan, np.nan, 1.0, np.nan]
    )
    av = fg.tensor([0.5, 2.0, 3.5], dtype=fg.float64)
    xv = fg.tensor([0.3, 1.0, 5.0], dtype=fg.float64, requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: fg.gammainc(av, t), (xv,))
    assert fg.autograd.gradcheck(lambda t: fg.gammaincc(av, t), (xv,))
    assert fg.autograd.gradgradcheck(lambda t: fg.gammainc(av, t), (xv,))
    with pytest.raises(RuntimeError, match="not implemented"):
        fg.gammainc(av.clone().requires_grad_(), xv)
    np.testing.assert_allclose(
        fg.gammaln(fg.tensor([0.5, 3.0], dtype=fg.float64)).numpy(),
        [np.log(np.sqrt(np.pi)), np.log(2.0)],
    )
    y = fg.tensor([0.5, 3.0], dtype=fg.float64)
    assert y.gammaln_() is y
    np.testing.assert_allclose(y.numpy(), [np.log(np.sqrt(np.pi)), np.log(2.0)])


def test_paddle_small_functions():
    a, b = fg.tensor([[1.0, 2], [3, 4]]), fg.tensor([[5.0, 6], [7, 8]])
    out = fg.multiplex([a, b], fg.tensor([[1], [0]], dtype=fg.int32))
    assert out.tolist() == [[5.0, 6.0], [3.0, 4.0]]
    aw = fg.tensor([[1.0, 2], [3, 4]], requires_grad=True)
    fg.multiplex([aw, b], fg.tensor([[1], [0]])).sum().backward()
    assert aw.grad.tolist() == [[0.0, 0.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match="not less than 2"):
        fg.multiplex([fg.ones(2), fg.ones(2)], fg.tensor([[1], [0]]))
    with pytest.raises(IndexError, match="index values"):
        fg.multiplex([a, b], fg.tensor([[2], [0]]))
    assert fg.reverse(fg.tensor([[1, 2], [3, 4]]), 0).tolist() == [[3, 4], [1, 2]]
    assert fg.vecdot(fg.tensor([[1.0, 2], [3, 4]]), fg.tensor([[1.0, 1], [2, 2]])).tolist() == [
        3.0,
        14.0,
    ]
    assert complex(fg.vecdot(fg.tensor([1 + 2j, 3j]), fg.tensor([1 + 1j, 2 + 0j])).item()) == (
        3 - 7j
    )
    xs = np.array([0.5, -1.0])
    np.testing.assert_allclose(
        fg.stanh(fg.tensor(xs, dtype=fg.float64)).numpy(), 1.7159 * np.tanh(0.67 * xs)
    )
    xg = fg.tensor(xs, dtype=fg.float64, requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: fg.stanh(t, 0.5, 2.0), (xg,))
    assert fg.tolist(fg.tensor([[1, 2]])) == [[1, 2]]


def test_bit_shifts_match_the_peers():
    x = fg.tensor([-8, 5, 1], dtype=fg.int32)
    y = fg.tensor([1, 1, 31], dtype=fg.int32)
    # torch 2.15 / Paddle 3.3.1 values
    assert fg.bitwise_right_shift(x, y).tolist() == [-4, 2, 0]
    assert fg.bitwise_right_shift(x, y, is_arithmetic=False).tolist() == [2147483644, 2, 0]
    assert fg.bitwise_left_shift(x, y).tolist() == [-16, 10, -2147483648]
    assert (x >> y).tolist() == [-4, 2, 0]  # was [-4, 2, -1]: 1 // (2**31 wrapped)
    assert (x << 40).tolist() == [0, 0, 0] and (x >> 40).tolist() == [-1, 0, 0]
    assert (x >> -1).tolist() == [-1, 0, 0]
    wide = x >> fg.tensor([31, 31, 31])
    assert wide.dtype == fg.int64 and wide.tolist() == [-1, 0, 0]
    assert (5 << fg.tensor([1, 2])).tolist() == [10, 20]
    u = fg.tensor([200, 3], dtype=fg.uint8)
    assert (u >> 1).tolist() == [100, 1] and (u << 1).tolist() == [144, 6]
    i8 = fg.bitwise_left_shift(fg.tensor([1], dtype=fg.int8), fg.tensor([1], dtype=fg.uint8))
    assert i8.dtype == fg.int16
    z = fg.tensor([-8, 5, 1], dtype=fg.int32)
    assert z.bitwise_left_shift_(1) is z and z.tolist() == [-16, 10, 2]
    assert fg.bitwise_right_shift_(z, 1).tolist() == [-8, 5, 1]
    assert x.bitwise_left_shift(2).tolist() == [-32, 20, 4]
    with pytest.raises(TypeError, match="integer"):
        _ = fg.tensor([1.0]) << 1


def test_paddle_view_as_broadcast_shape_unfold():
    assert fg.broadcast_shape([2, 1, 3], [4, 3]) == [2, 4, 3]
    assert fg.unfold(fg.arange(6.0), 0, 2, 2).tolist() == [[0, 1], [2, 3], [4, 5]]
    assert list(fg.view_as(fg.arange(6.0), fg.ones(2, 3)).shape) == [2, 3]
