"""The fused scatter / scatter_add kernel (an index aligned with the tensor outside
``dim``: src/kernels/scatter_put.rs) against an in-order NumPy reference, bit for bit:
random and duplicate-heavy indices, negative indices, 1-D and 2-D (dim 0 and dim 1),
int32 / int64 indices, float32 / float64 / int64 values, sizes around the prefetch
distance and out of cache, errors and gradients."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

# a size whose float64 destination (2 MB) is larger than this machine's L2 cache
BIG = 1 << 18
# how far ahead the kernel prefetches (AHEAD in src/kernels/scatter_put.rs)
AHEAD = 64


def targets(shape, dim, index):
    """Row-major linear targets of every index position (negative indices wrapped)."""
    idx = np.where(index < 0, index + shape[dim], index).astype(np.int64)
    pos = np.indices(index.shape)
    pos[dim] = idx
    return np.ravel_multi_index(tuple(pos), shape).ravel()


def ref_scatter(x, dim, index, src, accumulate):
    """The serial loop: position by position in row-major order of the index, adding in
    the values' dtype (np.add.at is unbuffered and in order) or overwriting (the last
    write to an element wins)."""
    out = x.copy().ravel()
    lin = targets(x.shape, dim, index)
    vals = src.ravel()
    if accumulate:
        np.add.at(out, lin, vals)
    else:
        # the last position writing each element
        last = len(lin) - 1 - np.unique(lin[::-1], return_index=True)[1]
        out[lin[last]] = vals[last]
    return out.reshape(x.shape)


def loop_scatter(x, dim, index, src, accumulate):
    """The same as a plain Python loop (slow: small cases only)."""
    out = x.copy()
    for m in np.ndindex(*index.shape):
        t = list(m)
        t[dim] = index[m]
        t = tuple(t)
        out[t] = out[t] + src[m] if accumulate else src[m]
    return out


def make(rng, shape, dim, k, distinct, dtype, negative=False):
    ishape = list(shape)
    ishape[dim] = k
    size = shape[dim]
    index = rng.integers(0, distinct, ishape)
    if negative:
        # some indices counted from the end (the same elements)
        index = np.where(rng.random(ishape) < 0.3, index - size, index)
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-1000, 1000, shape).astype(dtype)
        src = rng.integers(-1000, 1000, ishape).astype(dtype)
    else:
        x = rng.standard_normal(shape).astype(dtype)
        src = rng.standard_normal(ishape).astype(dtype)
    return x, index, src


def run(x, dim, index, src, accumulate, index_dtype=np.int64):
    tx, ti, ts = fg.tensor(x), fg.tensor(index.astype(index_dtype)), fg.tensor(src)
    out = tx.scatter_add(dim, ti, ts) if accumulate else tx.scatter(dim, ti, ts)
    return out.numpy()


def assert_same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_reference_is_the_plain_loop():
    rng = np.random.default_rng(0)
    for shape, dim, k in [((7,), 0, 20), ((4, 5), 0, 9), ((4, 5), 1, 3)]:
        x, index, src = make(rng, shape, dim, k, 2, np.float32, negative=True)
        for acc in (True, False):
            assert_same_bits(
                ref_scatter(x, dim, index, src, acc), loop_scatter(x, dim, index, src, acc)
            )


@pytest.mark.parametrize("accumulate", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize(
    "shape,dim,k",
    [
        ((1000,), 0, 3000),
        ((AHEAD - 1,), 0, AHEAD - 1),
        ((AHEAD,), 0, AHEAD + 1),
        ((BIG + 1,), 0, BIG + 5),
        ((600, 500), 0, 700),
        ((500, 600), 1, 650),
        ((3, BIG // 2), 0, 4),
    ],
)
def test_matches_the_serial_loop_bit_for_bit(shape, dim, k, dtype, accumulate):
    rng = np.random.default_rng(k)
    size = shape[dim]
    # random over the whole dimension, a few distinct targets, all equal
    for distinct in (size, 3, 1):
        x, index, src = make(rng, shape, dim, k, distinct, dtype, negative=distinct == 3)
        want = ref_scatter(x, dim, index, src, accumulate)
        assert_same_bits(run(x, dim, index, src, accumulate), want)


@pytest.mark.parametrize("accumulate", [True, False])
def test_int32_index_and_negative_dim(accumulate):
    rng = np.random.default_rng(3)
    x, index, src = make(rng, (300, 1000), 1, 1200, 1000, np.float32, negative=True)
    want = ref_scatter(x, 1, index, src, accumulate)
    assert_same_bits(run(x, -1, index, src, accumulate, np.int32), want)


def test_duplicates_keep_the_last_write_and_sum_in_order():
    # many float32 values on one element: the sum's rounding follows input order
    n = BIG + 7
    rng = np.random.default_rng(5)
    src = (rng.standard_normal(n) * 10.0 ** rng.integers(-4, 5, n)).astype(np.float32)
    x = np.zeros(n, np.float32)
    index = np.full(n, n - 2)
    index[-1] = -2  # the same element, counted from the end
    got = run(x, 0, index, src, True)
    acc = np.float32(0)
    for v in src:
        acc = np.float32(acc + v)
    assert got[n - 2] == acc and not got[: n - 2].any() and got[n - 1] == 0
    got = run(x, 0, index, src, False)
    assert got[n - 2] == src[-1]


@pytest.mark.parametrize("n", [10, BIG + 10])
def test_out_of_range_index_raises_and_names_the_first(n):
    x = fg.tensor(np.zeros(n, np.float32))
    src = fg.tensor(np.ones(n, np.float32))
    index = np.zeros(n, np.int64)
    index[n // 2] = -n - 1
    index[n - 1] = n
    for op in (x.scatter_add, x.scatter):
        with pytest.raises(
            IndexError, match=f"index {-n - 1} is out of bounds for dimension 0 with size {n}"
        ):
            op(0, fg.tensor(index), src)
    # the input is untouched
    assert not x.numpy().any()
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 5"):
        fg.zeros((2, 5)).scatter_add(1, fg.tensor([[0, 5], [1, 1]]), fg.ones((2, 2)))


def test_empty_index():
    x = np.arange(6.0).reshape(2, 3)
    for dim in (0, 1):
        shape = [2, 3]
        shape[dim] = 0
        index = np.zeros(shape, np.int64)
        src = np.zeros(shape)
        for acc in (True, False):
            assert_same_bits(run(x, dim, index, src, acc), x)


@pytest.mark.parametrize("dim", [0, 1])
def test_gradients(dim):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 4))
    index = np.array([[0, 2, 2, 1], [2, 2, 0, 1], [1, 0, 2, 2]])
    index = index if dim == 0 else index[:, :3] % 4
    src = rng.standard_normal(index.shape)
    idx = fg.tensor(index)
    for fn in (
        lambda a, b: a.scatter_add(dim, idx, b),
        lambda a, b: a.scatter(dim, idx, b),
    ):
        ins = (fg.tensor(x, requires_grad=True), fg.tensor(src, requires_grad=True))
        assert gradcheck(fn, ins)
        assert gradgradcheck(fn, ins)


def test_gradients_of_a_large_scatter_add():
    # out of cache, with duplicates: d x = g, d src = g at the targets
    n = BIG + 3
    rng = np.random.default_rng(2)
    index = rng.integers(-n, n, n)
    x = fg.tensor(rng.standard_normal(n), requires_grad=True)
    src = fg.tensor(rng.standard_normal(n), requires_grad=True)
    g = rng.standard_normal(n)
    out = x.scatter_add(0, fg.tensor(index), src)
    want = ref_scatter(x.detach().numpy(), 0, index, src.detach().numpy(), True)
    assert_same_bits(out.detach().numpy(), want)
    out.backward(fg.tensor(g))
    assert_same_bits(x.grad.numpy(), g)
    assert_same_bits(src.grad.numpy(), g[np.where(index < 0, index + n, index)])
