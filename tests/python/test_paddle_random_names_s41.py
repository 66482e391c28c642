"""The peers' plain samplers and histogram helpers added in session 41: ``poisson``,
``binomial`` (both dialects), ``standard_gamma``, ``log_normal``, ``where_`` (Paddle),
``histogram_bin_edges`` (Paddle) and ``histogramdd`` (PyTorch). Samplers: moments over
many draws with a fixed seed, shapes, dtypes and argument errors.

Semantics: Paddle's python/paddle/tensor/random.py (``binomial``: int64 result, ``count``
cast to ``prob``'s dtype and broadcast; ``poisson`` / ``standard_gamma``: ``x``'s shape
and dtype; ``log_normal``: ``exp(normal(mean, std, shape))``, defaults 1.0 / 2.0),
python/paddle/tensor/linalg.py ``histogram_bin_edges`` (float32 edges, data range when
``min == max == 0``, +-0.5 for equal bounds); PyTorch's ``torch.binomial`` (float, of
``count``'s dtype) and ``torch.histogramdd`` docs (the example below is theirs)."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

torch = fg  # this module's own calls are PyTorch's (docs/dialects.md)


def _paddle_ns() -> dict:
    """A namespace whose calls are Paddle's (the dialect rule reads ``paddle``)."""
    return {"paddle": fg, "__name__": "paddle_user_code"}


def _pd(expr: str, **values):
    ns = _paddle_ns()
    ns.update(values)
    return eval(expr, ns)  # noqa: S307  (test-only: runs the call from Paddle code)


def test_poisson_moments_shape_dtype():
    fg.manual_seed(0)
    rate = fg.full([40000], 3.5, dtype=fg.float64)
    draw = fg.poisson(rate)
    assert draw.dtype == fg.float64 and list(draw.shape) == [40000]
    d = draw.numpy()
    assert np.all(d == np.floor(d)) and d.min() >= 0
    assert abs(d.mean() - 3.5) < 0.05 and abs(d.var() - 3.5) < 0.12
    zero = fg.poisson(fg.zeros([2, 3]))
    assert zero.tolist() == [[0.0] * 3] * 2 and zero.dtype == fg.float32
    assert _pd("paddle.poisson(x=r)", r=fg.full([5], 1.0)).dtype == fg.float32


def test_poisson_errors():
    with pytest.raises(ValueError, match=">= 0"):
        fg.poisson(fg.tensor([-1.0]))
    with pytest.raises(TypeError, match="floating"):
        fg.poisson(fg.tensor([1, 2]))
    with pytest.raises(TypeError, match="generator"):
        fg.poisson(fg.tensor([1.0]), generator=3)


def test_poisson_seeded_reproducible():
    fg.manual_seed(7)
    a = fg.poisson(fg.full([50], 4.0)).tolist()
    fg.manual_seed(7)
    assert fg.poisson(fg.full([50], 4.0)).tolist() == a


def test_binomial_paddle_int64_broadcast_and_moments():
    fg.manual_seed(1)
    out = _pd("paddle.binomial(c, p)", c=fg.tensor([[10], [40]]), p=fg.full([1, 20000], 0.3))
    assert out.dtype == fg.int64 and list(out.shape) == [2, 20000]
    d = out.numpy().astype(float)
    for row, n in zip(d, (10, 40)):
        assert abs(row.mean() - n * 0.3) < 0.05 * n**0.5
        assert abs(row.var() - n * 0.21) < 0.1 * n * 0.21
        assert row.min() >= 0 and row.max() <= n


def test_binomial_torch_float_and_errors():
    fg.manual_seed(2)
    out = fg.binomial(fg.tensor([5.0, 0.0]), fg.tensor([1.0, 0.5]))
    assert out.dtype == fg.float32 and out.tolist() == [5.0, 0.0]
    with pytest.raises(TypeError, match="one dtype"):
        fg.binomial(fg.tensor([5.0]), fg.tensor([0.5], dtype=fg.float64))
    with pytest.raises(TypeError, match="floating"):
        fg.binomial(fg.tensor([5]), fg.tensor([0.5]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fg.binomial(fg.tensor([5.0]), fg.tensor([1.5]))
    with pytest.raises(ValueError, match="non-negative integers"):
        fg.binomial(fg.tensor([2.5]), fg.tensor([0.5]))


def test_standard_gamma_moments():
    fg.manual_seed(3)
    alpha = fg.full([40000], 2.5, dtype=fg.float64)
    d = fg.standard_gamma(alpha)
    assert d.dtype == fg.float64 and list(d.shape) == [40000]
    v = d.numpy()
    assert abs(v.mean() - 2.5) < 0.04 and abs(v.var() - 2.5) < 0.12 and v.min() > 0
    with pytest.raises(ValueError, match="> 0"):
        fg.standard_gamma(fg.tensor([0.0, 1.0]))


def test_log_normal():
    fg.manual_seed(4)
    d = _pd("paddle.log_normal(shape=[40000])")
    assert d.dtype == fg.float32 and list(d.shape) == [40000]
    logs = np.log(d.numpy().astype(float))
    assert abs(logs.mean() - 1.0) < 0.04 and abs(logs.std() - 2.0) < 0.04
    m = fg.tensor([0.0, 1.0, 2.0], dtype=fg.float64)
    out = _pd("paddle.log_normal(mean=m, std=0.0)", m=m)
    np.testing.assert_allclose(out.numpy(), np.exp([0.0, 1.0, 2.0]))
    with pytest.raises(TypeError, match="shape"):
        fg.log_normal(1.0, 2.0)
    with pytest.raises(ValueError, match="std"):
        fg.log_normal(1.0, -1.0, shape=[2])


def test_where_inplace():
    x = fg.tensor([[1.0, 2.0, 3.0]])
    y = fg.tensor([9.0])
    r = _pd("paddle.where_(x > 1.5, x, y)", x=x, y=y)
    assert r is x and x.tolist() == [[9.0, 2.0, 3.0]]
    with pytest.raises(TypeError, match="both"):
        fg.where_(x > 0, x)
    with pytest.raises(RuntimeError, match="shape"):
        fg.where_(fg.tensor([[True], [False]]), fg.tensor([1.0, 2.0]), fg.tensor([0.0, 0.0]))


def test_histogram_bin_edges():
    edges = _pd("paddle.histogram_bin_edges(x, bins=4, min=0, max=3)", x=fg.tensor([1, 2, 1]))
    assert edges.dtype == fg.float32
    np.testing.assert_allclose(edges.numpy(), [0.0, 0.75, 1.5, 2.25, 3.0])
    data = np.array([0.0, 1.5, 3.0, 4.5, 6.0], dtype=np.float32)
    got = fg.histogram_bin_edges(fg.tensor(data), bins=4)
    np.testing.assert_allclose(got.numpy(), np.histogram_bin_edges(data, bins=4), rtol=1e-6)
    same = fg.histogram_bin_edges(fg.tensor([2.0, 2.0]), bins=2, min=1, max=1)
    np.testing.assert_allclose(same.numpy(), [0.5, 1.0, 1.5])
    with pytest.raises(ValueError, match="larger"):
        fg.histogram_bin_edges(fg.tensor([1.0]), bins=2, min=3, max=1)
    with pytest.raises(TypeError, match="int"):
        fg.histogram_bin_edges(fg.tensor([1.0]), bins=2.5)


def test_histogramdd_torch_doc_example_and_options():
    pts = fg.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    hist, edges = fg.histogramdd(pts, bins=[3, 3], weight=fg.tensor([1.0, 2.0, 4.0, 8.0]))
    assert hist.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]
    assert len(edges) == 2
    np.testing.assert_allclose(edges[0].numpy(), [0.0, 2 / 3, 4 / 3, 2.0], rtol=1e-6)
    hist, _ = fg.histogramdd(pts, bins=[2, 2], range=[0.0, 1.0, 0.0, 1.0], density=True)
    # (two points inside, each alone in a bin of area 1/4: density 1 / (2 * 1/4))
    np.testing.assert_allclose(hist.numpy(), [[0.0, 2.0], [2.0, 0.0]])
    r = fg.histogramdd(
        pts.astype(fg.float64), bins=[fg.tensor([0.0, 1.0, 2.0]), fg.tensor([0.0, 2.0])]
    )
    assert r.hist.dtype == fg.float64 and r.hist.tolist() == [[1.0], [3.0]]
    with pytest.raises(ValueError, match="2 dimensions"):
        fg.histogramdd(fg.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="floating"):
        fg.histogramdd(fg.tensor([[1, 2]]))
    with pytest.raises(ValueError, match="range"):
        fg.histogramdd(pts, bins=2, range=[0.0, 1.0])
    empty, _ = fg.histogramdd(fg.zeros([0, 2]), bins=2)
    assert empty.tolist() == [[0.0, 0.0], [0.0, 0.0]] and not math.isnan(_[0][0].item())
