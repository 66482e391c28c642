"""Masking, scatter and gather families (both dialects) against NumPy float64 references,
with gradcheck / gradgradcheck, edge cases (0-d, 0-size, broadcast, negative dims and
indices, duplicates) and bad input."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from hypothesis import given, settings
from hypothesis import strategies as st

RNG = np.random.default_rng(19)


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def i64(a):
    return fg.tensor(np.asarray(a, dtype=np.int64))


# ------------------------------------------------------------------ NumPy references
def ref_scatter(x, dim, index, src, mode="set", include_self=True):
    out = x.copy()
    groups: dict = {}
    for m in np.ndindex(*index.shape):
        t = list(m)
        if t:
            t[dim] = index[m]
        groups.setdefault(tuple(t), []).append(src[m])
    for t, vals in groups.items():
        if mode == "set":
            out[t] = vals[-1]
            continue
        pool = ([x[t]] if include_self else []) + vals
        out[t] = {
            "sum": np.sum,
            "prod": np.prod,
            "mean": np.mean,
            "amax": np.max,
            "amin": np.min,
        }[mode](pool)
    return out


SCATTER_CASES = [
    # x shape, dim, index shape, src shape
    ((5,), 0, (7,), (7,)),
    ((3, 4), 0, (5, 4), (5, 4)),
    ((3, 4), 1, (3, 6), (3, 6)),
    ((3, 4), -1, (2, 3), (3, 5)),  # index smaller than x and src
    ((2, 3, 4), 1, (2, 5, 4), (2, 5, 4)),
    ((3, 4), 0, (0, 4), (0, 4)),  # empty index
    ((), 0, (), ()),  # 0-d
]


def _case(xs, dim, ishape, sshape):
    x = RNG.standard_normal(xs)
    d = dim % max(len(xs), 1)
    size = xs[d] if xs else 1
    index = RNG.integers(0, size, ishape) if np.prod(ishape) else np.zeros(ishape, np.int64)
    src = RNG.standard_normal(sshape)
    return x, index, src


@pytest.mark.parametrize("case", SCATTER_CASES)
def test_scatter_and_scatter_add_match_numpy(case):
    xs, dim, ishape, sshape = case
    x, index, src = _case(*case)
    got = fg.scatter(t64(x), dim, i64(index), t64(src)).numpy()
    np.testing.assert_allclose(got, ref_scatter(x, dim % max(x.ndim, 1), index, src))
    got = t64(x).scatter_add(dim, i64(index), t64(src)).numpy()
    np.testing.assert_allclose(got, ref_scatter(x, dim % max(x.ndim, 1), index, src, "sum"))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("case", SCATTER_CASES[:5])
def test_scatter_reduce_matches_numpy(case, reduce, include_self):
    xs, dim, ishape, sshape = case
    x, index, src = _case(*case)
    got = fg.scatter_reduce(t64(x), dim, i64(index), t64(src), reduce, include_self=include_self)
    want = ref_scatter(x, dim % x.ndim, index, src, reduce, include_self)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def test_scatter_reduce_integer_dtypes():
    x = np.array([5, 7, 9], dtype=np.int64)
    idx = np.array([0, 0, 2])
    src = np.array([2, 3, 4], dtype=np.int64)
    for reduce in ("sum", "prod", "amax", "amin", "mean"):
        got = fg.scatter_reduce(fg.tensor(x), 0, i64(idx), fg.tensor(src), reduce).numpy()
        want = ref_scatter(x, 0, idx, src, reduce)
        if reduce == "mean":
            want = np.array([(5 + 2 + 3) // 3, 7, (9 + 4) // 2])
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", SCATTER_CASES[:5])
def test_scatter_family_gradients(case):
    xs, dim, ishape, sshape = case
    x, index, src = _case(*case)
    idx = i64(index)
    for fn in (
        lambda a, b: fg.scatter(a, dim, idx, b),
        lambda a, b: fg.scatter_add(a, dim, idx, b),
        lambda a, b: fg.scatter_reduce(a, dim, idx, b, "mean", include_self=False),
        lambda a, b: fg.scatter_reduce(a, dim, idx, b, "amax"),
        lambda a, b: fg.scatter_reduce(a, dim, idx, b, "amin", include_self=False),
    ):
        ins = (t64(x, True), t64(src, True))
        assert gradcheck(fn, ins)
        assert gradgradcheck(fn, ins)


def test_scatter_prod_gradient_with_zeros_and_no_second_order():
    x = np.array([2.0, 0.0, 3.0, 1.5])
    idx = np.array([0, 0, 1, 1, 3])
    src = np.array([0.5, 4.0, 0.0, 2.0, -1.0])
    for inc in (True, False):

        def fn(a, b, inc=inc):
            return fg.scatter_reduce(a, 0, i64(idx), b, "prod", include_self=inc)

        assert gradcheck(fn, (t64(x, True), t64(src, True)))
    a, b = t64(x, True), t64(src, True)
    (g,) = fg.grad(fg.scatter_reduce(a, 0, i64(idx), b, "prod").sum(), [b], create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        fg.grad(g.sum(), [a])


def test_amax_ties_share_the_gradient():
    a = t64([1.0, 5.0], True)
    b = t64([5.0, 5.0, 2.0], True)
    out = fg.scatter_reduce(a, 0, i64([1, 1, 0]), b, "amax")
    out.sum().backward()
    np.testing.assert_allclose(out.numpy(), [2.0, 5.0])
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 1 / 3])
    np.testing.assert_allclose(b.grad.numpy(), [1 / 3, 1 / 3, 1.0])


def test_scatter_duplicates_last_wins_and_only_it_gets_gradient():
    x = t64([0.0, 0.0, 0.0], True)
    src = t64([1.0, 2.0, 3.0], True)
    out = x.scatter(0, i64([1, 1, 2]), src)
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 3.0])
    (out * t64([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(src.grad.numpy(), [0.0, 10.0, 100.0])


def test_torch_scatter_value_and_reduce():
    x = np.zeros((2, 3))
    idx = np.array([[0, 2], [1, 1]])
    got = t64(x).scatter(1, i64(idx), 7.5).numpy()
    np.testing.assert_array_equal(got, [[7.5, 0, 7.5], [0, 7.5, 0]])
    got = t64(x + 1).scatter(1, i64(idx), t64([[2.0, 3.0], [4.0, 5.0]]), reduce="multiply")
    np.testing.assert_array_equal(got.numpy(), [[2, 1, 3], [1, 20, 1]])
    got = t64(x).scatter(dim=1, index=i64(idx), value=1.0, reduce="add")
    np.testing.assert_array_equal(got.numpy(), [[1, 0, 1], [0, 2, 0]])


def test_paddle_scatter_rows_overwrite_and_accumulate():
    x = t64([[1, 1], [2, 2], [3, 3]])
    index = i64([2, 1, 0, 1])
    updates = t64([[1, 1], [2, 2], [3, 3], [4, 4]])
    np.testing.assert_array_equal(fg.scatter(x, index, updates).numpy(), [[3, 3], [4, 4], [1, 1]])
    got = fg.scatter(x, index, updates, overwrite=False).numpy()
    np.testing.assert_array_equal(got, [[3, 3], [6, 6], [1, 1]])
    got = x.scatter(index=index, updates=updates, overwrite=False).numpy()
    np.testing.assert_array_equal(got, [[3, 3], [6, 6], [1, 1]])
    for ow in (True, False):
        fn = lambda a, b, ow=ow: fg.scatter(a, index, b, overwrite=ow)  # noqa: E731
        ins = (t64(RNG.standard_normal((3, 2)), True), t64(RNG.standard_normal((4, 2)), True))
        assert gradcheck(fn, ins) and gradgradcheck(fn, ins)


def test_index_add_both_dialects():
    x = RNG.standard_normal((4, 3))
    src = RNG.standard_normal((4, 5))
    idx = np.array([0, 2, 2, -1, 1])
    want = x.copy()
    for k, i in enumerate(idx):
        want[:, i] += 2.0 * src[:, k]
    got = fg.index_add(t64(x), 1, i64(idx), t64(src), alpha=2.0).numpy()
    np.testing.assert_allclose(got, want)
    want = x.copy()
    for k, i in enumerate(idx):
        want[:, i] += src[:, k]
    np.testing.assert_allclose(fg.index_add(t64(x), i64(idx), 1, t64(src)).numpy(), want)
    np.testing.assert_allclose(t64(x).index_add(i64(idx), axis=1, value=t64(src)).numpy(), want)

    def fn(a, b):
        return fg.index_add(a, 1, i64(idx), b, alpha=-1.5)

    ins = (t64(x, True), t64(src, True))
    assert gradcheck(fn, ins) and gradgradcheck(fn, ins)
    with pytest.raises(ValueError, match="expected"):
        fg.index_add(t64(x), 1, i64(idx), t64(src[:, :3]))


def test_index_fill_both_dialects_and_tensor_value_gradient():
    x = RNG.standard_normal((3, 4))
    want = x.copy()
    want[[0, 2], :] = -3.0
    np.testing.assert_array_equal(fg.index_fill(t64(x), 0, i64([0, 2, 2]), -3.0).numpy(), want)
    np.testing.assert_array_equal(fg.index_fill(t64(x), i64([0, 2]), 0, -3.0).numpy(), want)
    v = t64(2.0, True)
    a = t64(x, True)
    out = a.index_fill(1, i64([1, 3]), v)
    out.sum().backward()
    assert v.grad.item() == 6.0
    np.testing.assert_array_equal(a.grad.numpy()[:, [1, 3]], 0.0)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_numpy(accumulate):
    x = RNG.standard_normal((4, 3, 2))
    i0 = np.array([[0, 3], [-1, 0]])
    i1 = np.array([1, 2])  # broadcast with i0
    vals = RNG.standard_normal((2, 2, 2))
    want = x.copy()
    if accumulate:
        np.add.at(want, (i0, i1), vals)
    else:
        want[(i0, i1)] = vals
    got = fg.index_put(t64(x), (i64(i0), i64(i1)), t64(vals), accumulate=accumulate)
    np.testing.assert_allclose(got.numpy(), want)

    def fn(a, b):
        return a.index_put((i64(i0), i64(i1)), b, accumulate)

    ins = (t64(x, True), t64(vals, True))
    assert gradcheck(fn, ins) and gradgradcheck(fn, ins)


def test_masked_fill_and_masked_scatter():
    x = RNG.standard_normal((3, 4))
    mask = RNG.random((1, 4)) > 0.5
    want = np.where(mask, 9.0, x)
    np.testing.assert_array_equal(fg.masked_fill(t64(x), fg.tensor(mask), 9.0).numpy(), want)
    np.testing.assert_array_equal(t64(x).masked_fill(fg.tensor(mask), t64(9.0)).numpy(), want)
    src = RNG.standard_normal(20)
    m = np.broadcast_to(mask, x.shape)
    want = x.copy()
    want[m] = src[: m.sum()]
    got = fg.masked_scatter(t64(x), fg.tensor(mask), t64(src)).numpy()
    np.testing.assert_array_equal(got, want)
    got = t64(x).masked_scatter(fg.tensor(mask), source=t64(src)).numpy()  # torch keyword
    np.testing.assert_array_equal(got, want)
    mt = fg.tensor(mask)

    def fill(a, v):
        return a.masked_fill(mt, v)

    def scat(a, b):
        return a.masked_scatter(mt, b)

    for fn, ins in ((fill, (t64(x, True), t64(1.5, True))), (scat, (t64(x, True), t64(src, True)))):
        assert gradcheck(fn, ins) and gradgradcheck(fn, ins)
    with pytest.raises(TypeError, match="bool"):
        t64(x).masked_fill(i64(mask.astype(np.int64)), 1.0)
    with pytest.raises(ValueError, match="does not broadcast"):
        t64(x[0]).masked_fill(fg.tensor(np.ones((2, 4), bool)), 1.0)
    with pytest.raises(ValueError, match="at least as many"):
        t64(x).masked_scatter(fg.tensor(np.ones((3, 4), bool)), t64([1.0]))


def test_take_modes_and_nd_ops():
    x = RNG.standard_normal((3, 4))
    idx = np.array([[0, -1], [5, 11]])
    np.testing.assert_array_equal(fg.take(t64(x), i64(idx)).numpy(), np.take(x, idx))
    big = np.array([13, -14])
    np.testing.assert_array_equal(
        t64(x).take(i64(big), mode="wrap").numpy(), np.take(x, big, mode="wrap")
    )
    np.testing.assert_array_equal(fg.take(t64(x), i64(big), mode="clip").numpy(), x.flat[[11, 0]])
    with pytest.raises(IndexError, match="index 12 is out of range for a tensor of 12"):
        fg.take(t64(x), i64([12]))
    nd = np.array([[[0, 1], [2, 3]], [[1, 0], [0, 0]]])
    np.testing.assert_array_equal(fg.gather_nd(t64(x), i64(nd)).numpy(), x[nd[..., 0], nd[..., 1]])
    np.testing.assert_array_equal(fg.gather_nd(t64(x), i64([[2], [0]])).numpy(), x[[2, 0]])
    upd = RNG.standard_normal((2, 2))
    want = x.copy()
    np.add.at(want, (nd[..., 0], nd[..., 1]), upd)
    np.testing.assert_allclose(fg.scatter_nd_add(t64(x), i64(nd), t64(upd)).numpy(), want)
    want = np.zeros((3, 4))
    np.add.at(want, (nd[..., 0], nd[..., 1]), upd)
    np.testing.assert_allclose(fg.scatter_nd(i64(nd), t64(upd), [3, 4]).numpy(), want)
    for fn in (
        lambda a: fg.take(a, i64(idx)),
        lambda a: fg.gather_nd(a, i64(nd)),
        lambda a: fg.scatter_nd_add(a, i64(nd), a[:2, :2] * 2),
    ):
        assert gradcheck(fn, (t64(x, True),)) and gradgradcheck(fn, (t64(x, True),))


def test_put_along_axis_reductions_and_broadcast():
    arr = RNG.standard_normal((3, 4))
    idx = np.array([[1], [0], [3]])
    got = fg.put_along_axis(t64(arr), i64(idx), 5.0, 1).numpy()
    want = arr.copy()
    np.put_along_axis(want, idx, 5.0, 1)
    np.testing.assert_array_equal(got, want)
    idx2 = np.array([[0, 1, 0, 2]])  # broadcast along axis 1 of the indices
    vals = RNG.standard_normal((1, 4))
    for reduce, mode in (("add", "sum"), ("mul", "prod"), ("mean", "mean"), ("amax", "amax")):
        got = fg.put_along_axis(t64(arr), i64(idx2), t64(vals), 0, reduce).numpy()
        want = ref_scatter(arr, 0, idx2, vals, mode)
        np.testing.assert_allclose(got, want)


def test_inplace_variants_rebase_history():
    base = t64(RNG.standard_normal((3, 4)), True)
    src = t64(RNG.standard_normal((3, 4)), True)
    y = base * 1.0
    r = y.scatter_(1, i64([[0], [1], [2]]), src)
    assert r is y
    y.masked_fill_(fg.tensor(np.eye(3, 4, dtype=bool)), 0.0).index_add_(0, i64([0]), src[:1])
    y.sum().backward()
    assert base.grad is not None and src.grad is not None
    with pytest.raises(RuntimeError):
        base.scatter_(0, i64([[0, 0, 0, 0]]), src)  # a leaf that requires grad


def test_bad_indices_and_operands_raise_clear_errors():
    x = t64(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        x.scatter_add(1, i64([[4]]), t64([[1.0]]))
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x.scatter(0, i64([[-4]]), t64([[1.0]]))
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 4"):
        fg.index_put(x, (i64([0]), i64([5])), 1.0)
    with pytest.raises(TypeError, match="int32 or int64"):
        x.scatter(0, t64([[0.0]]), t64([[1.0]]))
    with pytest.raises(TypeError, match="dtype"):
        x.scatter(0, i64([[0]]), fg.tensor([[1.0]], dtype=fg.float32))
    with pytest.raises(ValueError, match="same number of dimensions"):
        x.scatter(0, i64([0]), t64([1.0]))
    with pytest.raises(ValueError, match="larger than the source"):
        x.scatter(0, i64([[0, 1]]), t64([[1.0]]))
    with pytest.raises(ValueError, match="reduce must be"):
        fg.scatter_reduce(x, 0, i64([[0]]), t64([[1.0]]), "median")
    with pytest.raises(IndexError, match="dimension 2 is out of range"):
        x.scatter_add(2, i64([[0]]), t64([[1.0]]))


def test_0d_and_empty():
    x = t64(3.0)
    np.testing.assert_array_equal(x.scatter(0, i64(0), t64(5.0)).numpy(), 5.0)
    np.testing.assert_array_equal(x.scatter_add(-1, i64(0), t64(5.0)).numpy(), 8.0)
    e = t64(np.zeros((0, 3)))
    assert list(e.scatter_add(0, i64(np.zeros((0, 3), np.int64)), e).shape) == [0, 3]
    assert list(fg.take(e, i64(np.zeros((0,), np.int64))).shape) == [0]
    assert fg.index_add(x, 0, i64([0, 0]), t64([1.0, 2.0])).item() == 6.0


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_scatter_reduce_property(shape, data):
    """Random shapes (0-size included), dims (negative too) and reductions vs NumPy."""
    nd = len(shape)
    dim = data.draw(st.integers(-nd, nd - 1))
    d = dim % nd
    ishape = [data.draw(st.integers(0, s)) for s in shape]
    ishape[d] = data.draw(st.integers(0, 5))
    if shape[d] == 0:
        ishape[d] = 0
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    index = (
        rng.integers(-shape[d], max(shape[d], 1), ishape)
        if shape[d]
        else np.zeros(ishape, np.int64)
    )
    src = rng.standard_normal([i + 1 for i in ishape])
    reduce = data.draw(st.sampled_from(["set", "sum", "prod", "mean", "amax", "amin"]))
    inc = data.draw(st.booleans())
    if reduce == "set":
        got = t64(x).scatter(dim, i64(index), t64(src))
    else:
        got = fg.scatter_reduce(t64(x), dim, i64(index), t64(src), reduce, include_self=inc)
    wrapped = np.where(index < 0, index + max(shape[d], 1), index)
    want = ref_scatter(x, d, wrapped, src, reduce, inc)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
