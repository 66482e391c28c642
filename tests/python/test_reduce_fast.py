"""The large-tensor kernels of issue 23 against NumPy float64: boolean-mask compaction
(``masked_select``, ``a[mask]``), ``argmax``/``argmin`` and ``var``/``std``. Sizes cross
the SIMD widths, the 8-byte mask words, the 2^16-element blocks and the threading
threshold (2^18)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

SIZES = [1, 7, 8, 9, 63, 64, 65, 2**16 + 3, 2**20 + 5]
DTYPES = [np.float32, np.float64, np.int64]


def _data(n: int, dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, n).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


def _masks(n: int):
    rng = np.random.default_rng(n)
    yield "random", rng.random(n) < 0.3
    yield "runs", (np.arange(n) // 16) % 3 == 0
    yield "all", np.ones(n, bool)
    yield "none", np.zeros(n, bool)


# ---- masked_select / a[mask] ----


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_select_matches_numpy(n, dtype):
    x = _data(n, dtype)
    t = fg.from_numpy(x)
    for name, m in _masks(n):
        want = x[m]
        got = t.masked_select(fg.from_numpy(m)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)
        np.testing.assert_array_equal(t[fg.from_numpy(m)].numpy(), want, err_msg=name)


def test_masked_select_of_bool_and_2d_getitem():
    rng = np.random.default_rng(1)
    b = rng.random((300, 301)) < 0.5
    m = rng.random((300, 301)) < 0.4
    np.testing.assert_array_equal(fg.from_numpy(b)[fg.from_numpy(m)].numpy(), b[m])
    x = rng.standard_normal((700, 701)).astype(np.float32)
    t = fg.from_numpy(x)
    np.testing.assert_array_equal(t[t > 1.0].numpy(), x[x > 1.0])
    np.testing.assert_array_equal(t.masked_select(t > 1.0).numpy(), x[x > 1.0])


def test_masked_select_non_contiguous_operands():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((600, 700))
    m = rng.random((700, 600)) < 0.5
    t, tm = fg.from_numpy(x), fg.from_numpy(m)
    np.testing.assert_array_equal(t.t()[tm].numpy(), x.T[m])
    np.testing.assert_array_equal(t.t().masked_select(tm).numpy(), x.T[m])
    np.testing.assert_array_equal(t.masked_select(tm.t()).numpy(), x[m.T])
    np.testing.assert_array_equal(t[::2, 1::3][tm[:300, :233]].numpy(), x[::2, 1::3][m[:300, :233]])


def test_masked_select_broadcasts_mask_and_input():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((513, 257))
    row = rng.random(257) < 0.5
    col = rng.random((513, 1)) < 0.5
    t = fg.from_numpy(x)
    for m in (row, col, row[None, :]):
        want = x[np.broadcast_to(m, x.shape)]
        np.testing.assert_array_equal(t.masked_select(fg.from_numpy(m)).numpy(), want)
    # the input broadcast to the mask's shape
    full = rng.random((4, 513, 257)) < 0.3
    got = t.masked_select(fg.from_numpy(full)).numpy()
    np.testing.assert_array_equal(got, np.broadcast_to(x, full.shape)[full])


def test_masked_select_empty():
    t = fg.from_numpy(np.zeros((0, 5)))
    assert t.masked_select(fg.from_numpy(np.zeros((0, 5), bool))).shape == (0,)
    assert t[fg.from_numpy(np.zeros((0, 5), bool))].shape == (0,)
    x = fg.from_numpy(np.arange(6.0).reshape(2, 3))
    assert x[x > 100].shape == (0,)
    np.testing.assert_array_equal(x[x >= 0].numpy(), np.arange(6.0))


def test_masked_select_rejects_a_non_bool_mask():
    x = fg.from_numpy(np.arange(6.0))
    with pytest.raises(TypeError):
        x.masked_select(fg.from_numpy(np.ones(6, np.int64)))


def test_masked_select_gradients():
    rng = np.random.default_rng(4)
    m = fg.from_numpy(rng.random((5, 6)) < 0.5)
    x = fg.tensor(rng.standard_normal((5, 6)), dtype=fg.float64, requires_grad=True)
    assert gradcheck(lambda a: a.masked_select(m), (x,))
    assert gradcheck(lambda a: a[m], (x,))
    xb = fg.tensor(rng.standard_normal(6), dtype=fg.float64, requires_grad=True)
    assert gradcheck(lambda a: a.masked_select(m), (xb,))
    # the gradient lands on the selected positions, in order
    y = fg.tensor(np.arange(30.0).reshape(5, 6), requires_grad=True)
    w = np.arange(1.0, 1.0 + int(m.numpy().sum()))
    (y[m] * fg.from_numpy(w)).sum().backward()
    want = np.zeros((5, 6))
    want[m.numpy()] = w
    np.testing.assert_array_equal(y.grad.numpy(), want)


# ---- argmax / argmin ----


def _np_arg(x: np.ndarray, axis, is_max: bool):
    return np.argmax(x, axis=axis) if is_max else np.argmin(x, axis=axis)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES + [np.int32])
@pytest.mark.parametrize("is_max", [True, False])
def test_arg_whole_tensor(n, dtype, is_max):
    x = _data(n, dtype)
    t = fg.from_numpy(x)
    got = (t.argmax() if is_max else t.argmin()).item()
    assert got == _np_arg(x, None, is_max)


@pytest.mark.parametrize("is_max", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("shape", [(3, 65, 9), (7, 1, 64), (2, 300, 1100), (1100, 1, 3)])
def test_arg_along_each_dim(shape, dtype, is_max):
    x = _data(int(np.prod(shape)), dtype).reshape(shape)
    t = fg.from_numpy(x)
    for d in range(len(shape)):
        got = (t.argmax(d) if is_max else t.argmin(d)).numpy()
        np.testing.assert_array_equal(got, _np_arg(x, d, is_max), err_msg=f"dim {d}")
        kd = (t.argmax(d, keepdim=True) if is_max else t.argmin(d, keepdim=True)).numpy()
        np.testing.assert_array_equal(kd, np.expand_dims(_np_arg(x, d, is_max), d))


@pytest.mark.parametrize("is_max", [True, False])
def test_arg_ties_take_the_first_occurrence(is_max):
    rng = np.random.default_rng(5)
    # few distinct values: every row and column has many ties, also across blocks
    x = rng.integers(0, 3, (600, 2**10 + 3)).astype(np.float32)
    t = fg.from_numpy(x)
    for d in (None, 0, 1):
        got = (t.argmax(d) if is_max else t.argmin(d)).numpy()
        np.testing.assert_array_equal(got, _np_arg(x, d, is_max))
    # +0.0 and -0.0 are equal: the first wins
    z = np.zeros(2**17 + 5, np.float32)
    z[2**16 + 9 :: 7] = -0.0
    assert fg.from_numpy(z).argmax().item() == 0
    assert fg.from_numpy(-z).argmin().item() == 0
    big = np.zeros(2**20 + 5)
    big[[70_000, 900_000]] = 1.0
    tb = fg.from_numpy(big if is_max else -big)
    assert (tb.argmax() if is_max else tb.argmin()).item() == 70_000


@pytest.mark.parametrize("is_max", [True, False])
def test_arg_nan_counts_as_the_extremum_and_inf(is_max):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((300, 2**10 + 1))
    x[5, 17] = np.inf
    x[5, 3] = -np.inf
    x[::7, 40] = np.nan
    x[2, ::100] = np.nan
    t = fg.from_numpy(x)
    for d in (None, 0, 1):
        got = (t.argmax(d) if is_max else t.argmin(d)).numpy()
        np.testing.assert_array_equal(got, _np_arg(x, d, is_max), err_msg=f"dim {d}")
    flat = np.full(2**20 + 5, np.inf if is_max else -np.inf)
    flat[[123_456, 700_001]] = np.nan
    tf = fg.from_numpy(flat)
    assert (tf.argmax() if is_max else tf.argmin()).item() == 123_456
    inf = np.array([1.0, np.inf, 3.0, np.inf, -np.inf, -np.inf])
    ti = fg.from_numpy(inf)
    assert (ti.argmax() if is_max else ti.argmin()).item() == (1 if is_max else 4)


@pytest.mark.parametrize("is_max", [True, False])
def test_arg_non_contiguous(is_max):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((500, 640)).astype(np.float32)
    t = fg.from_numpy(x)
    for tv, xv in ((t.t(), x.T), (t[::3, 1::2], x[::3, 1::2]), (t[:, ::-1], x[:, ::-1])):
        for d in (None, 0, 1):
            got = (tv.argmax(d) if is_max else tv.argmin(d)).numpy()
            np.testing.assert_array_equal(got, _np_arg(xv, d, is_max))


def test_arg_empty_is_an_error():
    t = fg.from_numpy(np.zeros((0, 4), np.float32))
    with pytest.raises((ValueError, IndexError, RuntimeError)):
        t.argmax()
    with pytest.raises((ValueError, IndexError, RuntimeError)):
        t.argmin(0)
    assert t.argmax(1).shape == (0,)


# ---- var / std ----


def _np_var(x, axis, correction, keepdim=False, sqrt=False):
    x = x.astype(np.float64)
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
    mean = x.mean(axis=axis, keepdims=True)
    ssd = ((x - mean) ** 2).sum(axis=axis, keepdims=keepdim)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = ssd / max(n - correction, 0)
    return np.sqrt(v) if sqrt else v


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sqrt", [False, True])
def test_var_std_whole(n, dtype, sqrt):
    x = _data(n, dtype) * 3 + 2
    t = fg.from_numpy(x)
    for c in (0, 1):
        got = (t.std(correction=c) if sqrt else t.var(correction=c)).numpy()
        rtol = 1e-6 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, _np_var(x, None, c, sqrt=sqrt), rtol=rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 65, 9), (2, 300, 1100), (1100, 3), (9, 2**14 + 3)])
def test_var_std_along_dims(shape, dtype):
    x = (_data(int(np.prod(shape)), dtype) * 2 - 1).reshape(shape)
    t = fg.from_numpy(x)
    nd = len(shape)
    axes = [d for d in range(nd)] + [(0, 1)] + ([(1, 2)] if nd == 3 else [])
    # the absolute floor covers float32 rounding of near-zero variances of two elements
    tol = {"rtol": 2e-6, "atol": 1e-7} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-15}
    for a in axes:
        for c in (0, 1, 2):
            for keep in (False, True):
                got = t.var(a, correction=c, keepdim=keep).numpy()
                want = _np_var(x, a, c, keepdim=keep)
                np.testing.assert_allclose(got, want, **tol, err_msg=f"{a} {c} {keep}")
                got = t.std(a, correction=c, keepdim=keep).numpy()
                np.testing.assert_allclose(got, np.sqrt(want), **tol)


def test_var_of_a_large_mean_is_accurate():
    # float32 values 1e4 + N(0, 1): a one-pass E[x^2] - E[x]^2 would lose every digit
    rng = np.random.default_rng(8)
    x = (1e4 + rng.standard_normal(2**20 + 5)).astype(np.float32)
    want = _np_var(x, None, 1)
    t = fg.from_numpy(x)
    assert abs(t.var().item() / want - 1) < 1e-6
    m = x[: 1024 * 1000].reshape(1000, 1024)
    for d in (0, 1):
        np.testing.assert_allclose(fg.from_numpy(m).var(d).numpy(), _np_var(m, d, 1), rtol=1e-6)


def test_var_std_non_contiguous_int_and_degenerate():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((400, 530))
    t = fg.from_numpy(x)
    for tv, xv in ((t.t(), x.T), (t[::3, 1::2], x[::3, 1::2])):
        for a in (None, 0, 1):
            np.testing.assert_allclose(tv.var(a).numpy(), _np_var(xv, a, 1), rtol=1e-12)
    xi = rng.integers(-9, 9, (70, 80))
    np.testing.assert_allclose(
        fg.from_numpy(xi).std(1).numpy(), _np_var(xi, 1, 1, sqrt=True), rtol=1e-6
    )
    one = fg.from_numpy(np.array([[1.5], [2.5]]))
    assert np.isnan(one.var(1).numpy()).all()  # n - correction = 0: 0 / 0
    assert np.isinf(fg.from_numpy(np.array([1.0, 3.0])).var(correction=2).item())
    assert np.isnan(fg.from_numpy(np.zeros(0)).var().item())
    z = fg.from_numpy(np.full((3, 4), 7.25, np.float32))
    np.testing.assert_array_equal(z.std(1).numpy(), np.zeros(3, np.float32))


def test_var_std_gradients():
    rng = np.random.default_rng(10)
    x = fg.tensor(rng.standard_normal((4, 5, 3)), dtype=fg.float64, requires_grad=True)
    for a in (None, 0, 1, (1, 2)):
        assert gradcheck(lambda v, a=a: v.var(a), (x,))
        assert gradcheck(lambda v, a=a: v.std(a, correction=0), (x,))
