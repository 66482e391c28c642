"""Float sums through the hand-vectorised lane kernels (``kernels/reduce_simd.rs``) and the
column tiles of the outer kernel (issue 23, session 28).

The kernels must give the bits of the generic 16-lane pairwise fold, so the expected
values here are that fold written out in NumPy float64 (``_model_sum``), compared bit for
bit, and NumPy's own float64 sum checks the model. Sizes cross the 16-element chunks,
the 4096-element pairwise blocks and the threading threshold (2^18 elements)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

LANES, BLOCK = 16, 4096
SIZES = [1, 15, 16, 17, 31, 32, 33, 47, 48, 4095, 4096, 4097, 3 * 4096 + 5, 2**18 + 3, 2**20 + 5]
FLOATS = [np.float32, np.float64]


def _lanes(x: np.ndarray) -> float:
    """16 accumulators from +0.0, lane j adding elements j, j + 16, ... in order; the tail
    into lanes 0..; then the tree acc[i] + acc[i + w] for w = 8, 4, 2, 1."""
    full = len(x) // LANES * LANES
    rows = np.vstack([np.zeros((1, LANES)), x[:full].reshape(-1, LANES)])
    acc = np.cumsum(rows, axis=0)[-1]  # cumsum adds strictly in order
    tail = x[full:]
    acc[: len(tail)] += tail
    w = LANES
    while w > 1:
        w //= 2
        acc[:w] = acc[:w] + acc[w : 2 * w]
    return acc[0]


def _pairwise(x: np.ndarray) -> float:
    if len(x) <= BLOCK:
        return _lanes(x)
    cut = -(-(len(x) // BLOCK) // 2) * BLOCK
    return _pairwise(x[:cut]) + _pairwise(x[cut:])


def _model_sum(x: np.ndarray) -> np.float64:
    """A contiguous run's sum as the `sum` reduction folds it, in float64."""
    x = x.astype(np.float64)
    if len(x) >= 2 * LANES:
        return np.float64(0.0) + np.float64(_pairwise(x))
    return np.cumsum(np.concatenate([[0.0], x]))[-1]


def _data(n: int, dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + n)
    # a wide dynamic range, so that any change of order changes the rounding
    return (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(dtype)


def _same_bits(got: np.ndarray, want: np.ndarray, dtype) -> None:
    want = np.atleast_1d(np.asarray(want).astype(dtype))
    got = np.atleast_1d(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_whole_sum_bits_match_the_lane_fold(n, dtype):
    x = _data(n, dtype)
    t = fg.from_numpy(x)
    want = _model_sum(x)
    _same_bits(t.sum().numpy(), want, dtype)
    # the model itself against NumPy's float64 sum (a relative bound well inside float32)
    np.testing.assert_allclose(want, x.astype(np.float64).sum(), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(
        t.mean().numpy(), x.astype(np.float64).mean(), rtol=2e-7 if dtype == np.float32 else 1e-12
    )


@pytest.mark.parametrize("n", [17, 33, 4097, 2**16 + 7])
@pytest.mark.parametrize("dtype", FLOATS)
def test_row_sums_bits_match_the_lane_fold(n, dtype):
    x = _data(5 * n, dtype).reshape(5, n)
    got = fg.from_numpy(x).sum(1).numpy()
    _same_bits(got, np.array([_model_sum(r) for r in x]), dtype)


@pytest.mark.parametrize(
    "shape", [(9, 63), (300, 64), (257, 1024), (70, 1025), (129, 4096), (65, 5000), (3, 100000)]
)
@pytest.mark.parametrize("dtype", FLOATS)
def test_column_sums_add_rows_in_order(shape, dtype):
    """sum(0): each column adds its rows in order from +0.0, however the columns are cut
    into tiles and threads."""
    x = _data(shape[0] * shape[1], dtype).reshape(shape)
    rows = np.vstack([np.zeros((1, shape[1])), x.astype(np.float64)])
    want = np.cumsum(rows, axis=0)[-1]
    _same_bits(fg.from_numpy(x).sum(0).numpy(), want, dtype)
    # and a batch of them (sum over the middle dim keeps the same order)
    x3 = np.stack([x, x[::-1]])
    want3 = np.stack(
        [
            want,
            np.cumsum(np.vstack([np.zeros((1, shape[1])), x[::-1].astype(np.float64)]), axis=0)[-1],
        ]
    )
    _same_bits(fg.from_numpy(x3).sum(1).numpy(), want3, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_large_matrix_sums(dtype):
    x = _data(4096 * 4096, dtype).reshape(4096, 4096)
    t = fg.from_numpy(x)
    _same_bits(t.sum().numpy(), _model_sum(x.ravel()), dtype)
    _same_bits(
        t.sum(0).numpy(),
        np.cumsum(np.vstack([np.zeros((1, 4096)), x.astype(np.float64)]), axis=0)[-1],
        dtype,
    )
    got1 = t.sum(1).numpy()
    for i in (0, 1, 2047, 4095):
        _same_bits(got1[i : i + 1], np.array([_model_sum(x[i])]), dtype)
    np.testing.assert_allclose(
        got1, x.astype(np.float64).sum(1), rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-3
    )


@pytest.mark.parametrize("dtype", FLOATS)
def test_non_contiguous_and_special_values(dtype):
    x = _data(1001 * 1003, dtype).reshape(1001, 1003)
    t = fg.from_numpy(x)
    x64 = x.astype(np.float64)
    tol = dict(rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-2)
    np.testing.assert_allclose(t.t().sum(0).numpy(), x64.T.sum(0), **tol)
    np.testing.assert_allclose(t.t().sum(1).numpy(), x64.T.sum(1), **tol)
    np.testing.assert_allclose(t[::2, 1::3].sum().numpy(), x64[::2, 1::3].sum(), rtol=1e-6)
    np.testing.assert_allclose(t[:, ::2].sum(1).numpy(), x64[:, ::2].sum(1), **tol)
    np.testing.assert_allclose(t.flip(0).sum().numpy(), x64.sum(), rtol=1e-6)
    for n in (40, 4097):
        v = _data(n, dtype)
        v[n // 2] = np.nan
        assert np.isnan(fg.from_numpy(v).sum().numpy())
        v[n // 2] = np.inf
        assert fg.from_numpy(v).sum().numpy() == np.inf
        v[3] = -np.inf
        assert np.isnan(fg.from_numpy(v).sum().numpy())
        # all -0.0: the fold starts at +0.0 (as before), in every tail position
        z = fg.from_numpy(-np.zeros(n, dtype)).sum().numpy()
        assert z == 0 and not np.signbit(z)


@pytest.mark.parametrize("n", [1, 16])
def test_tiny_sums(n):
    x = np.arange(1, n + 1, dtype=np.float32) / 3
    t = fg.from_numpy(x)
    _same_bits(t.sum().numpy(), _model_sum(x), np.float32)
    np.testing.assert_allclose(t.mean().numpy(), x.astype(np.float64).mean(), rtol=1e-7)


def test_integer_and_complex_sums_unchanged():
    rng = np.random.default_rng(5)
    for dtype in (np.int32, np.int64):
        x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, (513, 4099), dtype=dtype)
        t = fg.from_numpy(x)
        with np.errstate(over="ignore"):
            x64 = x.astype(np.int64)
            assert t.sum().item() == int(x64.sum())  # int64 wraps as NumPy's does
            np.testing.assert_array_equal(t.sum(0).numpy(), x64.sum(0))
            np.testing.assert_array_equal(t.sum(1).numpy(), x64.sum(1))
    c = (rng.standard_normal((700, 701)) + 1j * rng.standard_normal((700, 701))).astype(
        np.complex64
    )
    tc = fg.from_numpy(c)
    np.testing.assert_allclose(tc.sum().numpy(), c.astype(np.complex128).sum(), rtol=1e-6)
    np.testing.assert_allclose(
        tc.sum(0).numpy(), c.astype(np.complex128).sum(0), rtol=1e-5, atol=1e-4
    )
