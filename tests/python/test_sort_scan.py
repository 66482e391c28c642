"""Scans, sorting, searching and counting (issue #19): cumsum, cumprod, logcumsumexp,
cummax/cummin, sort, argsort, topk, kthvalue, median, nanmedian, mode, unique,
unique_consecutive, searchsorted, bucketize, count_nonzero, histc, histogram.

Values against NumPy in float64 over random shapes (0-d, 0-size, dim=-1/0, ties, NaN),
gradients with gradcheck / gradgradcheck, both dialects' spellings and bad inputs."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from hypothesis import given, settings
from hypothesis import strategies as st

RNG = np.random.default_rng(19)

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def dims_of(shape):
    return [None] if len(shape) == 0 else [0, -1, len(shape) // 2]


def np_dim(a, d):
    return -1 if a.ndim == 0 else d


# --- scans ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_cumsum_cumprod_match_numpy(shape):
    a = RNG.standard_normal(shape)
    x = t64(a)
    for d in dims_of(shape):
        if d is None:
            np.testing.assert_allclose(fg.cumsum(x, dim=0).numpy(), a)
            continue
        np.testing.assert_allclose(
            x.cumsum(d).numpy(), np.cumsum(a, axis=d), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(
            fg.cumprod(x, dim=d).numpy(), np.cumprod(a, axis=d), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(
            fg.cumsum(x, axis=d).numpy(), np.cumsum(a, axis=d), rtol=1e-12, atol=1e-12
        )
    # Paddle: axis=None flattens
    np.testing.assert_allclose(fg.cumsum(x).numpy(), np.cumsum(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fg.cumprod(x).numpy(), np.cumprod(a), rtol=1e-12, atol=1e-12)


def test_cumsum_dtypes():
    i = fg.tensor([1, 2, 3], dtype=fg.int32)
    assert i.cumsum(0).dtype == fg.int64
    assert i.cumsum(0).tolist() == [1, 3, 6]
    b = fg.tensor([True, False, True])
    assert fg.cumsum(b, 0).tolist() == [1, 1, 2]
    f = fg.tensor([1.0, 2.0], dtype=fg.float32)
    assert f.cumsum(0, dtype=fg.float64).dtype == fg.float64
    h = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float16)
    assert h.cumsum(0).dtype == fg.float16
    assert h.cumsum(0).astype("float32").tolist() == [1.0, 3.0, 6.0]
    assert fg.cumprod(fg.tensor([2, 3, 4]), dim=0).tolist() == [2, 6, 24]


def test_logcumsumexp_matches_numpy_and_is_stable():
    a = RNG.standard_normal((3, 5)) * 3
    x = t64(a)
    for d in (0, 1, -1):
        ref = np.logaddexp.accumulate(a, axis=d)
        np.testing.assert_allclose(fg.logcumsumexp(x, dim=d).numpy(), ref, rtol=1e-12)
    big = t64([1000.0, 1000.0, -1000.0])
    np.testing.assert_allclose(
        big.logcumsumexp(0).numpy(), [1000.0, 1000.0 + np.log(2), 1000.0 + np.log(2)]
    )
    ninf = t64([-np.inf, -np.inf, 0.0])
    np.testing.assert_allclose(ninf.logcumsumexp(0).numpy(), [-np.inf, -np.inf, 0.0])
    np.testing.assert_allclose(fg.logcumsumexp(x).numpy(), np.logaddexp.accumulate(a.reshape(-1)))


@pytest.mark.parametrize("is_max", [True, False])
def test_cummax_cummin(is_max):
    a = RNG.integers(0, 4, size=(3, 6)).astype(np.float64)
    x = t64(a)
    f = fg.cummax if is_max else fg.cummin
    acc = np.maximum.accumulate if is_max else np.minimum.accumulate
    for d in (0, 1, -1):
        v, i = f(x, dim=d)
        np.testing.assert_array_equal(v.numpy(), acc(a, axis=d))
        np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), axis=d), v.numpy())
        # ties take the later index (PyTorch)
        pos = np.arange(a.shape[d]).reshape([-1 if k == (d % 2) else 1 for k in range(2)])
        expect = np.where(a == v.numpy(), pos, 0)
        expect = np.maximum.accumulate(expect, axis=d)
        np.testing.assert_array_equal(i.numpy(), expect)
    res = f(x, axis=1)
    assert res.values.shape == [3, 6] and res.indices.dtype == fg.int64
    assert f(x, 1, dtype="int32")[1].dtype == fg.int32
    n = t64([1.0, np.nan, 3.0])
    v, i = f(n, 0)
    assert np.isnan(v.numpy()[1:]).all() and i.tolist() == [0, 1, 1]
    ints = fg.tensor([3, 1, 2])
    assert f(ints, 0)[0].tolist() == ([3, 3, 3] if is_max else [3, 1, 1])


@pytest.mark.parametrize("d", [0, 1])
def test_scan_gradients(d):
    x = t64(RNG.standard_normal((3, 4)), grad=True)
    assert gradcheck(lambda t: t.cumsum(d), (x,))
    assert gradgradcheck(lambda t: t.cumsum(d), (x,))
    assert gradcheck(lambda t: t.cumprod(d), (x,))
    assert gradgradcheck(lambda t: t.cumprod(d), (x,))
    assert gradcheck(lambda t: t.logcumsumexp(d), (x,))
    assert gradgradcheck(lambda t: t.logcumsumexp(d), (x,))
    assert gradcheck(lambda t: fg.cummax(t, d)[0], (x,))
    assert gradgradcheck(lambda t: fg.cummin(t, d)[0], (x,))


def test_cumprod_gradient_with_zeros():
    for row in (
        [2.0, 0.0, 3.0, 4.0],
        [0.0, 2.0, 0.0, 5.0],
        [1.5, 2.0, 3.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
    ):
        x = t64([row, row[::-1]], grad=True)
        assert gradcheck(lambda t: t.cumprod(1), (x,))
        assert gradgradcheck(lambda t: t.cumprod(1), (x,))
    x = t64([2.0, 0.0, 3.0], grad=True)
    x.cumprod(0).sum().backward()
    # d/dx of [x0, x0 x1, x0 x1 x2] summed at x = [2, 0, 3]
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0 + 6.0, 0.0])


# --- sorting -----------------------------------------------------------------------------


def _check_sorted(a, v, i, d, descending):
    ref = np.sort(a, axis=d)  # NaN last
    if descending:
        # PyTorch: NaN first, then descending
        ref = np.flip(np.sort(a, axis=d), axis=d)
    np.testing.assert_array_equal(v, ref)
    np.testing.assert_array_equal(np.take_along_axis(a, i, axis=d), v)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_numpy(shape, descending):
    a = RNG.integers(-3, 3, size=shape).astype(np.float64)  # ties
    if a.size > 2:
        a.reshape(-1)[1] = np.nan
    x = t64(a)
    for d in dims_of(shape):
        if d is None:
            v, i = x.sort()
            assert v.shape == [] and i.tolist() == 0
            continue
        v, i = fg.sort(x, d, descending=descending)
        _check_sorted(a, v.numpy(), i.numpy(), d, descending)
        # stable: equal values keep their original order
        ii = i.numpy()
        vv = np.moveaxis(v.numpy(), d, -1)
        jj = np.moveaxis(ii, d, -1)
        if vv.shape[-1] > 1:
            lo, hi = vv[..., :-1], vv[..., 1:]
            same = (lo == hi) | (np.isnan(lo) & np.isnan(hi))
            assert (jj[..., 1:] > jj[..., :-1])[same].all()
        np.testing.assert_array_equal(fg.argsort(x, axis=d, descending=descending).numpy(), ii)
        np.testing.assert_array_equal(x.argsort(dim=d, descending=descending).numpy(), ii)


def test_sort_dialects():
    x = fg.tensor([[3.0, 1.0, 2.0]])
    res = x.sort()
    assert res.values.tolist() == [[1.0, 2.0, 3.0]] and res.indices.tolist() == [[1, 2, 0]]
    vals, idx = fg.sort(x, dim=1, descending=True)
    assert vals.tolist() == [[3.0, 2.0, 1.0]]
    # Paddle: axis= gives the values alone
    only = fg.sort(x, axis=-1)
    assert isinstance(only, fg.Tensor) and only.tolist() == [[1.0, 2.0, 3.0]]
    with pytest.raises(AttributeError, match="axis="):
        res.numpy()


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float16", "bool"])
def test_sort_dtypes(dtype):
    a = RNG.integers(0, 5, size=(4, 7))
    x = fg.tensor(a).astype(dtype)
    v, i = x.sort(dim=1)
    ref = np.sort(a.astype(dtype), axis=1, kind="stable")
    np.testing.assert_array_equal(v.numpy(), ref)
    assert v.dtype == x.dtype and i.dtype == fg.int64
    np.testing.assert_array_equal(i.numpy(), np.argsort(a.astype(dtype), axis=1, kind="stable"))


def test_sort_large_matches_numpy_argsort_stable():
    a = RNG.integers(0, 1000, size=70000).astype(np.float32)
    x = fg.tensor(a)
    v, i = x.sort()
    np.testing.assert_array_equal(i.numpy(), np.argsort(a, kind="stable"))
    b = RNG.standard_normal((40, 2000))
    v, i = t64(b).sort(dim=1, descending=True)
    np.testing.assert_array_equal(v.numpy(), -np.sort(-b, axis=1))


def test_sort_topk_gradients():
    x = t64(RNG.standard_normal((3, 5)), grad=True)
    assert gradcheck(lambda t: t.sort(dim=1)[0], (x,))
    assert gradgradcheck(lambda t: t.sort(dim=0, descending=True)[0], (x,))
    assert gradcheck(lambda t: fg.topk(t, 2, axis=1)[0], (x,))
    assert gradgradcheck(lambda t: fg.topk(t, 2, dim=0, largest=False)[0], (x,))
    assert gradcheck(lambda t: t.kthvalue(2, dim=1)[0], (x,))
    assert gradcheck(lambda t: fg.median(t, dim=1)[0], (x,))
    assert gradgradcheck(lambda t: fg.median(t), (x,))
    assert gradcheck(lambda t: fg.median(t, axis=0), (x,))
    assert gradcheck(lambda t: fg.sort(t, axis=1), (x,))
    m = t64([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 0.0, 1.0]], grad=True)
    v, i = fg.mode(m, dim=1)
    v.sum().backward()
    expect = np.zeros((2, 4))
    expect[0, i.numpy()[0]] = 1.0
    expect[1, i.numpy()[1]] = 1.0
    np.testing.assert_array_equal(m.grad.numpy(), expect)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_numpy(largest):
    a = RNG.standard_normal((4, 9))
    x = t64(a)
    for d, k in ((1, 3), (0, 4), (-1, 9), (1, 0)):
        v, i = fg.topk(x, k, dim=d, largest=largest)
        s = np.sort(a, axis=d)
        ref = np.flip(s, axis=d) if largest else s
        ref = np.take(ref, np.arange(k), axis=d)
        np.testing.assert_array_equal(v.numpy(), ref)
        np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), axis=d), ref)
    v, i = x.topk(2)
    assert v.shape == [4, 2]
    n = t64([1.0, np.nan, 3.0])
    v, i = n.topk(1)
    assert np.isnan(v.numpy()[0]) and i.tolist() == [1]
    with pytest.raises(ValueError, match="larger than"):
        x.topk(10)
    with pytest.raises(ValueError, match="k must be"):
        x.topk(-1)


def test_kthvalue_median_mode():
    a = RNG.standard_normal((5, 6))
    x = t64(a)
    for k in (1, 3, 6):
        v, i = x.kthvalue(k, dim=1)
        np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=1)[:, k - 1])
        np.testing.assert_array_equal(a[np.arange(5), i.numpy()], v.numpy())
    v, i = fg.kthvalue(x, 2, axis=0, keepdim=True)
    assert v.shape == [1, 6] and i.shape == [1, 6]
    with pytest.raises(ValueError, match="k = 7"):
        x.kthvalue(7)
    with pytest.raises(ValueError, match="counts from 1"):
        x.kthvalue(0)
    # PyTorch: the lower median, with indices
    v, i = fg.median(x, dim=1)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=1)[:, 2])
    np.testing.assert_array_equal(a[np.arange(5), i.numpy()], v.numpy())
    # Paddle: the average of the two middle values
    np.testing.assert_allclose(fg.median(x, axis=1).numpy(), np.median(a, axis=1))
    np.testing.assert_allclose(x.median().numpy(), np.median(a))
    assert fg.median(x, axis=1, keepdim=True).shape == [5, 1]
    assert x.median(keepdim=True).shape == [1, 1]
    assert fg.median(x, axis=1, mode="min")[0].tolist() == v.tolist()
    assert fg.median(fg.tensor([1, 2, 3, 4])).dtype == fg.float32
    assert fg.median(fg.tensor([1, 2, 3, 4]), dim=0)[0].tolist() == 2
    with pytest.raises(ValueError, match="mode must be"):
        fg.median(x, mode="mean")
    # NaN propagates in median, is skipped by nanmedian
    n = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 1.0, 2.0, 3.0]])
    assert np.isnan(fg.median(t64(n), axis=1).numpy()[0])
    np.testing.assert_allclose(fg.nanmedian(t64(n), axis=1).numpy(), np.nanmedian(n, axis=1))
    assert fg.nanmedian(t64(n), dim=1)[0].tolist() == [2.0, 2.0]
    # mode: the smallest most frequent value, the last index holding it
    m = np.array([[1, 2, 2, 3, 3], [5, 5, 5, 0, 0]])
    v, i = fg.mode(fg.tensor(m), dim=1)
    assert v.tolist() == [2, 5] and i.tolist() == [2, 2]
    v, i = fg.tensor(m).mode(0)
    assert v.tolist() == [1, 2, 2, 0, 0]


# --- searching and counting -----------------------------------------------------------


@given(
    st.lists(st.integers(-5, 5), min_size=0, max_size=12),
    st.lists(st.integers(-6, 6), min_size=0, max_size=8),
    st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_searchsorted_matches_numpy(seq, vals, right):
    s = np.sort(np.array(seq, dtype=np.float64))
    v = np.array(vals, dtype=np.float64)
    out = fg.searchsorted(t64(s), t64(v), right=right)
    np.testing.assert_array_equal(
        out.numpy(), np.searchsorted(s, v, side="right" if right else "left")
    )
    side = fg.searchsorted(t64(s), t64(v), side="right" if right else "left")
    np.testing.assert_array_equal(side.numpy(), out.numpy())


def test_searchsorted_batched_sorter_and_bucketize():
    s = np.sort(RNG.standard_normal((3, 6)), axis=1)
    v = RNG.standard_normal((3, 4))
    out = fg.searchsorted(t64(s), t64(v))
    for r in range(3):
        np.testing.assert_array_equal(out.numpy()[r], np.searchsorted(s[r], v[r]))
    raw = np.array([3.0, 1.0, 2.0])
    order = np.argsort(raw)
    got = fg.searchsorted(t64(raw), t64([2.5]), sorter=fg.tensor(order))
    assert got.tolist() == [2]
    assert fg.searchsorted(t64([1.0, 2.0]), 1.5).tolist() == 1
    assert fg.searchsorted(t64([1.0, 2.0]), t64([2.0]), out_int32=True).dtype == fg.int32
    b = t64([1.0, 3.0, 5.0])
    x = t64([[0.0, 1.0], [4.0, 6.0]])
    assert fg.bucketize(x, b).tolist() == [[0, 0], [2, 3]]
    assert fg.bucketize(x, b, right=True).tolist() == [[0, 1], [2, 3]]
    assert fg.bucketize(x, boundaries=b).tolist() == [[0, 0], [2, 3]]
    with pytest.raises(ValueError, match="1-D"):
        fg.bucketize(x, x)
    with pytest.raises(ValueError, match="must match"):
        fg.searchsorted(t64(s), t64(v[:2]))
    with pytest.raises(ValueError, match="contradict"):
        fg.searchsorted(b, x, right=True, side="left")
    nan_seq = t64([1.0, 2.0, np.nan])
    assert fg.searchsorted(nan_seq, t64([np.nan, 3.0])).tolist() == [2, 2]


def test_count_nonzero():
    a = RNG.integers(0, 3, size=(3, 4))
    x = fg.tensor(a)
    assert fg.count_nonzero(x).tolist() == np.count_nonzero(a)
    assert fg.count_nonzero(x, dim=1).tolist() == np.count_nonzero(a, axis=1).tolist()
    assert x.count_nonzero(axis=0, keepdim=True).shape == [1, 4]
    assert fg.count_nonzero(x, axis=[0, 1]).tolist() == np.count_nonzero(a)
    assert fg.count_nonzero(fg.zeros([0])).tolist() == 0


def test_histc_and_histogram():
    a = RNG.standard_normal(200)
    x = t64(a)
    h = fg.histc(x, bins=10, min=-2, max=2)
    ref, _ = np.histogram(a, bins=10, range=(-2, 2))
    np.testing.assert_array_equal(h.numpy(), ref)
    assert h.dtype == fg.float64
    h = x.histc(bins=5)
    ref, _ = np.histogram(a, bins=5, range=(a.min(), a.max()))
    np.testing.assert_array_equal(h.numpy(), ref)
    p = fg.histogram(fg.tensor([1, 2, 1]), bins=4, min=0, max=3)
    assert p.dtype == fg.int64 and p.tolist() == [0, 2, 1, 0]
    w = fg.histogram(t64([1.0, 2.0]), bins=2, min=0, max=2, weight=t64([0.5, 2.0]))
    assert w.tolist() == [0.0, 2.5]
    with pytest.raises(ValueError, match="bins"):
        fg.histc(x, bins=0)
    with pytest.raises(TypeError, match="complex"):
        fg.histc(fg.tensor([1 + 2j]))
    assert fg.histc(fg.tensor([1.0, 1.0]), bins=2).tolist() == [0.0, 2.0]


def test_unique():
    a = np.array([[3, 1, 2], [1, 3, 3]])
    x = fg.tensor(a)
    assert fg.unique(x).tolist() == [1, 2, 3]
    out, inv, cnt = fg.unique(x, return_inverse=True, return_counts=True)
    assert inv.shape == [2, 3]
    np.testing.assert_array_equal(out.numpy()[inv.numpy()], a)
    assert cnt.tolist() == [2, 1, 3]
    out, index, inv, cnt = x.unique(return_index=True, return_inverse=True, return_counts=True)
    assert index.tolist() == [1, 2, 0]
    rows = fg.unique(fg.tensor([[1, 2], [0, 5], [1, 2]]), dim=0)
    assert rows.tolist() == [[0, 5], [1, 2]]
    cols, inv = fg.unique(fg.tensor([[1, 0, 1], [2, 5, 2]]), axis=1, return_inverse=True)
    assert cols.tolist() == [[0, 1], [5, 2]] and inv.tolist() == [1, 0, 1]
    assert fg.unique(fg.zeros([0])).shape == [0]
    f = fg.unique(t64([2.0, np.nan, 2.0, np.nan]))
    assert f.shape == [2] and f.dtype == fg.float64
    assert fg.unique(x, return_counts=True, dtype="int32")[1].dtype == fg.int32


def test_unique_consecutive():
    x = fg.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    assert fg.unique_consecutive(x).tolist() == [1, 2, 3, 1, 2]
    out, inv, cnt = fg.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert inv.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and cnt.tolist() == [2, 2, 1, 2, 1]
    m = fg.tensor([[1, 1, 2], [1, 1, 2]])
    assert fg.unique_consecutive(m, dim=1).tolist() == [[1, 2], [1, 2]]
    assert x.unique_consecutive(return_counts=True)[1].tolist() == [2, 2, 1, 2, 1]
    assert fg.unique_consecutive(fg.zeros([0])).shape == [0]


# --- bad inputs and edge cases ------------------------------------------------------------


def test_bad_inputs_raise_clear_errors():
    x = t64([[1.0, 2.0]])
    with pytest.raises(IndexError, match="out of range"):
        x.cumsum(2)
    with pytest.raises(IndexError, match="out of range"):
        x.sort(dim=3)
    with pytest.raises(TypeError, match="no order"):
        fg.tensor([1 + 2j]).sort()
    with pytest.raises(TypeError, match="complex"):
        fg.tensor([1 + 2j]).cumsum(0)
    with pytest.raises(TypeError, match="either axis= or dim="):
        fg.cumsum(x, axis=0, dim=0)
    with pytest.raises(TypeError, match="k must be an int"):
        fg.topk(x, 1.5)
    with pytest.raises(ValueError, match="empty"):
        fg.median(fg.zeros([2, 0]), dim=1)
    with pytest.raises(TypeError, match="expected a Tensor"):
        fg.sort([3, 1, 2])


def test_zero_d_and_empty():
    s = t64(3.0)
    assert s.cumsum(0).tolist() == 3.0
    assert fg.cummax(s, 0)[1].tolist() == 0
    v, i = fg.topk(s, 1)
    assert v.tolist() == 3.0 and i.tolist() == 0
    assert s.kthvalue(1)[0].tolist() == 3.0
    e = fg.zeros([2, 0])
    assert e.cumsum(1).shape == [2, 0]
    assert e.sort(dim=1).values.shape == [2, 0]
    assert fg.topk(e, 0)[0].shape == [2, 0]
    assert fg.argsort(fg.zeros([0, 3]), axis=0).shape == [0, 3]
    g = t64(2.0, grad=True)
    fg.sort(g, axis=0).backward()
    assert g.grad.tolist() == 1.0


def test_non_contiguous_input():
    a = RNG.standard_normal((4, 5))
    x = t64(a).t()
    np.testing.assert_allclose(x.cumsum(1).numpy(), np.cumsum(a.T, axis=1))
    np.testing.assert_array_equal(x.sort(dim=1).values.numpy(), np.sort(a.T, axis=1))


@given(
    st.lists(st.integers(0, 4), min_size=0, max_size=3),
    st.integers(0, 10_000),
    st.booleans(),
)
@settings(max_examples=40, deadline=None)
def test_sort_and_cumsum_properties(shape, seed, descending):
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, size=shape).astype(np.float64)
    x = t64(a)
    for d in range(-a.ndim, a.ndim) if a.ndim else []:
        v, i = x.sort(dim=d, descending=descending)
        ref = np.sort(a, axis=d)
        np.testing.assert_array_equal(v.numpy(), np.flip(ref, axis=d) if descending else ref)
        np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), axis=d), v.numpy())
        np.testing.assert_array_equal(x.cumsum(d).numpy(), np.cumsum(a, axis=d))
        k = a.shape[d] // 2
        tv = fg.topk(x, k, dim=d, largest=not descending)[0].numpy()
        ref_k = np.take(np.flip(ref, axis=d) if not descending else ref, np.arange(k), axis=d)
        np.testing.assert_array_equal(tv, ref_k)


@settings(max_examples=120, deadline=None)
@given(
    st.sampled_from(["float32", "float64", "int32", "int64"]),
    st.integers(1, 3),
    st.integers(1, 3000),
    st.integers(1, 300),
    st.booleans(),
    st.sampled_from(["ties", "spread", "ascending", "descending"]),
    st.integers(0, 2**32 - 1),
)
def test_topk_of_a_few_is_the_stable_sorts_head(dtype, rows, n, k, largest, kind, seed):
    # k <= 256 first scans each row once keeping the best k (kernels/sort.rs
    # `few_of_row`), giving up for a partition of a copy when a row makes it insert too
    # often (sorted against the order); every path must give the head of the stable full
    # sort: ties in position order, NaN as the largest value
    k = min(k, n)
    rng = np.random.default_rng(seed)
    if kind == "ties":
        a = rng.integers(-3, 4, (rows, n)).astype(dtype)
    else:
        a = rng.integers(-(10**6), 10**6, (rows, n)).astype(dtype)
        if kind != "spread":
            a = np.sort(a, axis=1)
            a = a if kind == "ascending" else a[:, ::-1].copy()
    if dtype.startswith("float") and kind in ("ties", "spread"):
        a[rng.random((rows, n)) < 0.1] = np.nan
        a[rng.random((rows, n)) < 0.1] = -0.0
    x = fg.from_numpy(a)
    v, i = x.topk(k, dim=1, largest=largest)
    order = x.argsort(dim=1, descending=largest, stable=True).numpy()[:, :k]
    np.testing.assert_array_equal(i.numpy(), order)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, order, axis=1))
    # along dim 0 (a transposed copy) too
    v0, i0 = fg.from_numpy(np.ascontiguousarray(a.T)).topk(k, dim=0, largest=largest)
    np.testing.assert_array_equal(i0.numpy(), order.T)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_long_sorted_rows_fall_back_to_the_partition(largest):
    # a row sorted against the requested order makes every element an insertion: the
    # one-scan path gives up after its budget and the partition path answers
    a = np.arange(200_000, dtype=np.float32)
    a = a if largest else a[::-1].copy()
    for k in (1, 10, 100, 256):
        v, i = fg.from_numpy(a).topk(k, largest=largest)
        want = np.argsort(-a if largest else a, kind="stable")[:k]
        np.testing.assert_array_equal(i.numpy(), want)
        np.testing.assert_array_equal(v.numpy(), a[want])
