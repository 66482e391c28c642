"""Property tests (hypothesis): every elementwise op, broadcasting binary op, reduction and
matmul against NumPy — values and gradients — over random shapes (0-d and 0-size
included), strided and reversed views, broadcasting and dtypes. Gradients are compared
with the analytic derivative evaluated in float64 NumPy (finite differences of the same
ops are in test_elementwise.py / test_reductions.py)."""

from __future__ import annotations

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-11, atol=1e-12)}

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


@st.composite
def arrays(draw, lo=-3.0, hi=3.0, shape=None):
    """A float64 array and a ferrograd tensor of it seen through a random view: plain,
    transposed, or a reversed/stepped slice of a larger buffer."""
    shape = draw(shapes) if shape is None else shape
    dtype = draw(st.sampled_from(["float32", "float64"]))
    kind = draw(st.sampled_from(["plain", "transposed", "sliced"]))
    nd = len(shape)

    def buffer(buf_shape):
        big = draw(hnp.arrays(np.float64, buf_shape, elements=st.floats(lo, hi)))
        return big.astype(dtype).astype(np.float64)  # representable in the tested dtype

    if kind == "transposed" and nd >= 2:
        big = buffer(shape[::-1])
        a, t = big.T, fg.tensor(big, dtype=dtype).permute(*range(nd - 1, -1, -1))
    elif kind == "sliced" and nd >= 1:
        big = buffer(tuple(max(2 * d - 1, 0) for d in shape))
        idx = tuple(slice(None, None, -2) for _ in shape)  # reversed, every other element
        a, t = big[idx], fg.tensor(big, dtype=dtype)[idx]
    else:
        a = buffer(shape)
        t = fg.tensor(a, dtype=dtype)
    assert tuple(t.shape) == a.shape
    return a, t, dtype


def leaf(t):
    t = t.detach()
    t.requires_grad = True
    return t


UNARY = {
    # name: (numpy value, numpy derivative, domain)
    "neg": (np.negative, lambda x: -np.ones_like(x), (-3, 3)),
    "exp": (np.exp, np.exp, (-3, 3)),
    "tanh": (np.tanh, lambda x: 1 - np.tanh(x) ** 2, (-3, 3)),
    "sin": (np.sin, np.cos, (-3, 3)),
    "cos": (np.cos, lambda x: -np.sin(x), (-3, 3)),
    "sigmoid": (
        lambda x: 1 / (1 + np.exp(-x)),
        lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2,
        (-3, 3),
    ),
    "square": (np.square, lambda x: 2 * x, (-3, 3)),
    "log": (np.log, lambda x: 1 / x, (0.1, 4)),
    "sqrt": (np.sqrt, lambda x: 0.5 / np.sqrt(x), (0.1, 4)),
    "log1p": (np.log1p, lambda x: 1 / (1 + x), (-0.5, 3)),
    "expm1": (np.expm1, np.exp, (-3, 3)),
    "reciprocal": (np.reciprocal, lambda x: -1 / x**2, (0.2, 3)),
    "softplus": (lambda x: np.log1p(np.exp(x)), lambda x: 1 / (1 + np.exp(-x)), (-3, 3)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_and_gradients(name):
    f, df, (lo, hi) = UNARY[name]

    @SETTINGS
    @given(arrays(lo, hi), st.integers(0, 2**32 - 1))
    def check(data, seed):
        a, t, dtype = data
        x = leaf(t)
        y = getattr(x, name)()
        assert str(y.dtype).endswith(dtype) and tuple(y.shape) == a.shape
        np.testing.assert_allclose(y.detach().numpy().astype(np.float64), f(a), **TOL[dtype])
        w = np.random.default_rng(seed).standard_normal(a.shape)
        (y * fg.tensor(w, dtype=dtype)).sum().backward()
        np.testing.assert_allclose(
            x.grad.numpy().astype(np.float64),
            df(a) * w,
            rtol=TOL[dtype]["rtol"] * 10,
            atol=TOL[dtype]["atol"] * 10,
        )

    check()


BINARY = {
    "add": (np.add, lambda a, b: (np.ones_like(a), np.ones_like(b))),
    "sub": (np.subtract, lambda a, b: (np.ones_like(a), -np.ones_like(b))),
    "mul": (np.multiply, lambda a, b: (b, a)),
    "div": (np.divide, lambda a, b: (1 / b, -a / b**2)),
    "maximum": (np.maximum, lambda a, b: ((a > b) * 1.0, (a < b) * 1.0)),
}


def unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdims=True)
    return g


@pytest.mark.parametrize("name", sorted(BINARY))
def test_broadcasting_binary_values_and_gradients(name):
    f, df = BINARY[name]

    @SETTINGS
    @given(
        hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
        st.data(),
    )
    def check(bshapes, data):
        sa, sb = bshapes.input_shapes
        a, ta, dtype = data.draw(arrays(0.5, 3.0, shape=sa))
        b = data.draw(hnp.arrays(np.float64, sb, elements=st.floats(0.5, 3.0)))
        b = b.astype(dtype).astype(np.float64)
        if name == "maximum":  # ties have no derivative: keep them apart
            b = b + 0.25 * (np.abs(np.broadcast_to(b, bshapes.result_shape).sum()) % 1 + 0.1)
            b = b.astype(dtype).astype(np.float64)
            if (
                np.broadcast_to(a, bshapes.result_shape) == np.broadcast_to(b, bshapes.result_shape)
            ).any():
                return
        x, y = leaf(ta), fg.tensor(b, dtype=dtype, requires_grad=True)
        out = getattr(x, name)(y)
        assert tuple(out.shape) == bshapes.result_shape
        np.testing.assert_allclose(out.detach().numpy().astype(np.float64), f(a, b), **TOL[dtype])
        out.sum().backward()
        ga, gb = (np.broadcast_to(g, bshapes.result_shape) for g in df(a, b))
        np.testing.assert_allclose(
            x.grad.numpy(),
            unbroadcast(np.asarray(ga), sa),
            rtol=TOL[dtype]["rtol"] * 10,
            atol=TOL[dtype]["atol"] * 10,
        )
        np.testing.assert_allclose(
            y.grad.numpy(),
            unbroadcast(np.asarray(gb), sb),
            rtol=TOL[dtype]["rtol"] * 10,
            atol=TOL[dtype]["atol"] * 10,
        )

    check()


@SETTINGS
@given(arrays(), st.data(), st.booleans())
def test_sum_and_mean_over_any_axes(data, choose, keepdim):
    a, t, dtype = data
    axes = choose.draw(st.lists(st.integers(0, max(a.ndim - 1, 0)), unique=True, max_size=a.ndim))
    axis = tuple(axes) if axes else None
    x = leaf(t)
    s = x.sum(axis=axis, keepdim=keepdim)
    np.testing.assert_allclose(s.detach().numpy(), a.sum(axis=axis, keepdims=keepdim), **TOL[dtype])
    s.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(a.shape))
    n = a.size if axis is None else int(np.prod([a.shape[i] for i in axis]))
    if n > 0:
        x2 = leaf(t)
        m = x2.mean(axis=axis, keepdim=keepdim)
        np.testing.assert_allclose(
            m.detach().numpy(), a.mean(axis=axis, keepdims=keepdim), **TOL[dtype]
        )
        m.sum().backward()
        np.testing.assert_allclose(x2.grad.numpy(), np.full(a.shape, 1.0 / n), **TOL[dtype])


@SETTINGS
@given(
    st.integers(0, 3),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(0, 3),
    st.sampled_from(["float32", "float64"]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_batched_matmul_values_and_gradients(batch, m, k, n, dtype, transpose_b, seed):
    rng = np.random.default_rng(seed)
    bshape = (batch,) if batch else ()
    a = rng.standard_normal(bshape + (m, k)).astype(dtype).astype(np.float64)
    b = rng.standard_normal(bshape + (k, n)).astype(dtype).astype(np.float64)
    x = fg.tensor(a, dtype=dtype, requires_grad=True)
    if transpose_b:  # a strided (transposed) right operand
        y0 = fg.tensor(np.swapaxes(b, -1, -2).copy(), dtype=dtype, requires_grad=True)
        y = y0.transpose(-1, -2)
    else:
        y0 = y = fg.tensor(b, dtype=dtype, requires_grad=True)
    out = x @ y
    np.testing.assert_allclose(out.detach().numpy(), a @ b, **TOL[dtype])
    g = rng.standard_normal(out.shape)
    (out * fg.tensor(g, dtype=dtype)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), g @ np.swapaxes(b, -1, -2), rtol=1e-4, atol=1e-4)
    gb = np.swapaxes(a, -1, -2) @ g
    np.testing.assert_allclose(
        y0.grad.numpy(), np.swapaxes(gb, -1, -2) if transpose_b else gb, rtol=1e-4, atol=1e-4
    )
