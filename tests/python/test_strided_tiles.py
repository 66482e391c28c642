"""Views whose last dimension is not the one along memory (transposed matrices, batches of
them, flipped ones) are walked in tiles (src/kernels/tiles.rs): copies, unary ops (also
the vectorised ones, which now gather strided runs into a buffer), binary ops, casts and
in-place writes must give exactly what a row-by-row walk gives — checked against NumPy."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

# (rows, cols) of the source matrix: below one tile (31), ragged tile edges (33, 70, 45),
# whole tiles (64), and large enough for the parallel split (300 x 301 > 2^16 elements)
SHAPES = [(31, 40), (33, 70), (45, 70), (64, 64), (300, 301)]


def _src(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_, np.complex64]
)
def test_transposed_copy_is_exact(shape, dtype):
    a = _src(shape, dtype)
    t = fg.tensor(a)
    got = t.t().contiguous()
    assert got.is_contiguous()
    np.testing.assert_array_equal(got.numpy(), a.T)
    np.testing.assert_array_equal(t.t().clone().numpy(), a.T)


@pytest.mark.parametrize("shape", SHAPES)
def test_offset_negative_stride_and_batched_views(shape):
    a = _src((3, *shape))
    t = fg.tensor(a)
    cases = [
        (t.transpose(1, 2), a.transpose(0, 2, 1)),  # a batch of transposed matrices
        (t.permute(2, 0, 1), a.transpose(2, 0, 1)),  # the fast dim moved outermost
        (t[1].flip(0).t(), a[1][::-1].T),  # a negative stride on the rows
        (t[:, 2:, 1:].transpose(1, 2), a[:, 2:, 1:].transpose(0, 2, 1)),  # an offset
        (t[:, ::2].transpose(1, 2), a[:, ::2].transpose(0, 2, 1)),  # stride 2 rows
    ]
    for view, want in cases:
        np.testing.assert_array_equal(view.contiguous().numpy(), want)
        np.testing.assert_array_equal((view * 2.0).numpy(), want * 2.0)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "sin", "log1p", "sqrt"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_of_a_transposed_view_equals_the_contiguous_result(shape, op, dtype):
    a = np.abs(_src(shape, dtype)) if op in ("log1p", "sqrt") else _src(shape, dtype)
    t = fg.tensor(a)
    strided = getattr(t.t(), op)().numpy()
    contiguous = getattr(t.t().contiguous(), op)().numpy()
    np.testing.assert_array_equal(strided, contiguous)
    ref = {
        "exp": np.exp,
        "tanh": np.tanh,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "sin": np.sin,
        "log1p": np.log1p,
        "sqrt": np.sqrt,
    }[op](a.T.astype(np.float64))
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(strided, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", SHAPES)
def test_binary_with_transposed_operands(shape):
    a, b = _src(shape), _src(shape, seed=1)
    ta, tb = fg.tensor(a), fg.tensor(b)
    sq = _src((shape[1], shape[1]), seed=2)
    tsq = fg.tensor(sq)
    np.testing.assert_array_equal((ta.t() + tb.t()).numpy(), a.T + b.T)
    np.testing.assert_array_equal((ta.t() * tb.t().contiguous()).numpy(), a.T * b.T)
    np.testing.assert_array_equal((tsq + tsq.t()).numpy(), sq + sq.T)
    row = _src((shape[0],), seed=3)
    np.testing.assert_array_equal((ta.t() - fg.tensor(row)).numpy(), a.T - row)
    np.testing.assert_array_equal((ta.t() > 0).numpy(), a.T > 0)


@pytest.mark.parametrize("shape", SHAPES)
def test_casts_of_transposed_views(shape):
    a = _src(shape, np.float32)
    t = fg.tensor(a)
    np.testing.assert_array_equal(t.t().double().numpy(), a.T.astype(np.float64))
    np.testing.assert_array_equal(t.t().to(fg.int64).numpy(), a.T.astype(np.int64))


@pytest.mark.parametrize("shape", SHAPES)
def test_writes_into_transposed_views(shape):
    a, b = _src(shape), _src(shape[::-1], seed=1)
    t = fg.tensor(a.copy())
    t.t().copy_(fg.tensor(b))
    np.testing.assert_array_equal(t.numpy(), b.T)
    t = fg.tensor(a.copy())
    view = t.t()
    view += fg.tensor(b)
    np.testing.assert_array_equal(t.numpy(), a + b.T)
    t = fg.tensor(a.copy())
    t.t()[1:] = fg.tensor(b[1:])
    want = a.copy()
    want.T[1:] = b[1:]
    np.testing.assert_array_equal(t.numpy(), want)


def test_gradients_through_transposed_views():
    rng = np.random.default_rng(4)
    x = fg.tensor(rng.normal(size=(40, 37)), requires_grad=True)
    y = fg.tensor(rng.normal(size=(37, 40)), requires_grad=True)
    assert fg.autograd.gradcheck(lambda x, y: (x.t().exp() * y + y.t().t()).sum(), (x, y))
    assert fg.autograd.gradcheck(lambda x: x.t().tanh().contiguous(), (x,))
