"""Strided layouts after session 27 (docs/performance-memory-bound.md): transposed tiles
are copied out along memory into a small buffer before the kernel runs
(src/kernels/tiles.rs ``Tile``), and in-place writes into a strided destination are split
across threads when the destination's elements are distinct
(src/kernels/strided_assign.rs). Each path against NumPy, exactly; destinations that
repeat elements take fills only (a copy of several values is refused, as in PyTorch),
destinations sharing memory with their source keep their old results."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

# below one tile, ragged tile edges, whole tiles, and past the parallel split (2^16)
SIZES = [(5, 40), (33, 70), (64, 64), (300, 301)]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex64]


def _src(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def _views(t, a):
    """Strided views of a 3-D source ``[B, R, C]`` and their NumPy twins: transposed (with
    an offset, a step, a negative stride), permuted, a 4-D batch, and non-transposed
    strided ones (a column step)."""
    b, r, c = a.shape
    a4 = a.reshape(1, b, r, c)
    t4 = t.reshape(1, b, r, c)
    return [
        (t.transpose(1, 2), a.transpose(0, 2, 1)),
        (t[1:, 1:, 2:].transpose(1, 2), a[1:, 1:, 2:].transpose(0, 2, 1)),
        (t[:, ::2].transpose(1, 2), a[:, ::2].transpose(0, 2, 1)),
        (t[:, ::-1].transpose(1, 2), a[:, ::-1].transpose(0, 2, 1)),
        (t.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (t4.permute(1, 0, 3, 2), a4.transpose(1, 0, 3, 2)),
        (t[:, :, ::2], a[:, :, ::2]),
        (t[:, ::3, 1:], a[:, ::3, 1:]),
    ]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_copies_and_unary_maps_of_strided_views(size, dtype):
    a = _src((2, *size), dtype)
    t = fg.tensor(a)
    for view, want in _views(t, a):
        np.testing.assert_array_equal(view.contiguous().numpy(), want)
        np.testing.assert_array_equal(view.clone().numpy(), want)
        if dtype != np.bool_:
            # complex abs may differ from NumPy's hypot in the last bit: against the kernel
            # on a contiguous copy exactly, against NumPy within rounding
            np.testing.assert_array_equal(view.abs().numpy(), view.contiguous().abs().numpy())
            np.testing.assert_allclose(view.abs().numpy(), np.abs(want), rtol=2e-7)
            np.testing.assert_array_equal((-view).numpy(), -want)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "erf", "gelu", "silu"])
def test_vectorised_unary_of_strided_views(size, op):
    f = {
        "erf": fg.erf,
        "gelu": fg.nn.functional.gelu,
        "silu": fg.nn.functional.silu,
    }.get(op, lambda x: getattr(x, op)())
    a = _src((2, *size), np.float32)
    t = fg.tensor(a)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    ref = {
        "exp": np.exp,
        "tanh": np.tanh,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "erf": erf,
        "gelu": lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))),
        "silu": lambda x: x / (1 + np.exp(-x)),
    }[op]
    for view, want in _views(t, a):
        got = f(view).numpy()
        # bit for bit what the same kernel gives on a contiguous copy
        np.testing.assert_array_equal(got, f(view.contiguous()).numpy())
        np.testing.assert_allclose(got, ref(want.astype(np.float64)), rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_writes_into_strided_destinations(size, dtype):
    a = _src((2, *size), dtype)
    for k, (_, want_view) in enumerate(_views(fg.tensor(a), a)):
        val = _src(want_view.shape, dtype, seed=1 + k)
        swapped = fg.tensor(np.ascontiguousarray(np.swapaxes(val, -1, -2)))
        sources = [
            (fg.tensor(val), val),  # contiguous
            (swapped.transpose(-1, -2), val),  # transposed
            (fg.tensor(val[..., :1, :]).expand(*val.shape), val[..., :1, :]),  # broadcast
        ]
        for src, ref in sources:
            t = fg.tensor(a.copy())
            want = a.copy()
            view, wv = _views(t, want)[k]
            view.copy_(src)
            wv[...] = ref
            np.testing.assert_array_equal(t.numpy(), want)
        if dtype == np.bool_:
            continue
        t = fg.tensor(a.copy())
        want = a.copy()
        view, wv = _views(t, want)[k]
        view += fg.tensor(val)
        wv += val
        np.testing.assert_array_equal(t.numpy(), want)
        if dtype == np.complex64:
            continue  # complex products round differently from NumPy's
        view.mul_(swapped.transpose(-1, -2))
        wv *= val
        np.testing.assert_array_equal(t.numpy(), want)


def test_writes_with_zero_size_dims():
    t = fg.zeros(0, 40, 50)
    t.transpose(1, 2).copy_(fg.ones(0, 50, 40))
    assert t.shape == (0, 40, 50)
    t = fg.zeros(40, 0)
    t.t().copy_(fg.ones(0, 40))
    t = fg.zeros(64, 64)
    t.t()[:, 5:5] = fg.ones(64, 0)
    assert not t.numpy().any()


@pytest.mark.parametrize("n", [4, 64, 300])
def test_write_of_a_view_into_its_own_storage(n):
    # the source is copied first (it shares the buffer): a.t().copy_(a) gives a.T
    a = _src((n, n))
    t = fg.tensor(a.copy())
    t.t().copy_(t)
    np.testing.assert_array_equal(t.numpy(), a.T)
    t = fg.tensor(a.copy())
    t.t().add_(t)
    np.testing.assert_array_equal(t.numpy(), a.T + a)


@pytest.mark.parametrize("rows", [3, 400])
def test_destination_that_repeats_elements_refuses_a_copy_but_takes_a_fill(rows):
    # an expanded destination: its rows share memory, so a copy of different rows into it
    # is refused (PyTorch's rule) and leaves it unchanged; one value fills every row
    base = fg.zeros(300)
    src = _src((rows, 300), np.float32)
    with pytest.raises(RuntimeError, match="single memory location"):
        base.expand(rows, 300).copy_(fg.tensor(src))
    np.testing.assert_array_equal(base.numpy(), 0)
    base.expand(rows, 300).fill_(2.5)
    np.testing.assert_array_equal(base.numpy(), 2.5)
    # a batch of transposed matrices all over one matrix (past the parallel split)
    m = fg.zeros(64, 700)
    with pytest.raises(RuntimeError, match="single memory location"):
        m.t().expand(5, 700, 64).copy_(fg.tensor(_src((5, 700, 64), np.float32, seed=2)))
    m.t().expand(5, 700, 64)[...] = 1.5
    np.testing.assert_array_equal(m.numpy(), 1.5)


def test_gradients_through_strided_writes_and_maps():
    rng = np.random.default_rng(4)
    x = fg.tensor(rng.normal(size=(3, 40, 37)), requires_grad=True)
    assert fg.autograd.gradcheck(lambda x: x.transpose(1, 2).exp().contiguous(), (x,))
    assert fg.autograd.gradcheck(lambda x: fg.nn.functional.gelu(x.permute(2, 0, 1)).sum(1), (x,))
