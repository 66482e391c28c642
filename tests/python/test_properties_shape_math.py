"""Property tests (hypothesis) for the shape and math functions that had fixed-case tests
only: roll, rot90, repeat_interleave, diag_embed, trace, movedim, unflatten, meshgrid,
cdist, lerp, xlogy, nan_to_num, addmm, baddbmm, kron, cosine_similarity and interpolate.

Each draws random shapes (0-d and 0-size where the op takes them) and arguments, compares
the float64 forward with a NumPy reference, and checks the gradient with finite
differences (`autograd.gradcheck`) where the op is differentiable."""

from __future__ import annotations

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
from ferrograd.autograd import gradcheck
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

F = fg.nn.functional
SETTINGS = settings(
    max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
TOL = dict(rtol=1e-12, atol=1e-12)


def floats(shape, lo=-3.0, hi=3.0):
    """A float64 array strategy of `shape`, elements in [lo, hi]."""
    return hnp.arrays(np.float64, shape, elements=st.floats(lo, hi))


def leaf(a):
    """A float64 leaf tensor of `a` that requires grad."""
    return fg.tensor(a, dtype="float64", requires_grad=True)


def check(fn, ref, *arrays):
    """`fn(*tensors)` equals `ref(*arrays)` in float64, and its gradient passes gradcheck
    (skipped for 0-size results, whose gradient is empty)."""
    got = fn(*[fg.tensor(a, dtype="float64") for a in arrays])
    want = np.asarray(ref(*arrays))
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, **TOL)
    if want.size and all(a.size for a in arrays):
        assert gradcheck(fn, [leaf(a) for a in arrays], eps=1e-6, atol=1e-6)


shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
nonempty = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


@SETTINGS
@given(st.data())
def test_roll(data):
    a = data.draw(floats(data.draw(nonempty)))
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    shift = data.draw(st.integers(-7, 7))
    check(lambda t: fg.roll(t, shift, dim), lambda x: np.roll(x, shift, dim), a)
    # no dim: the flattened tensor rolls, then takes its shape back
    check(lambda t: fg.roll(t, shift), lambda x: np.roll(x, shift), a)


@SETTINGS
@given(st.data())
def test_rot90(data):
    a = data.draw(floats(hnp.array_shapes(min_dims=2, max_dims=3, min_side=0, max_side=4)))
    k = data.draw(st.integers(-5, 5))
    dims = data.draw(st.permutations(range(a.ndim)))[:2]
    check(lambda t: fg.rot90(t, k, dims), lambda x: np.rot90(x, k, dims), a)


@SETTINGS
@given(st.data())
def test_repeat_interleave(data):
    a = data.draw(floats(data.draw(nonempty)))
    dim = data.draw(st.integers(0, a.ndim - 1))
    reps = data.draw(st.lists(st.integers(0, 3), min_size=a.shape[dim], max_size=a.shape[dim]))
    check(lambda t: fg.repeat_interleave(t, 2, dim=dim), lambda x: np.repeat(x, 2, axis=dim), a)
    idx = fg.tensor(np.array(reps, dtype=np.int64))
    check(
        lambda t: fg.repeat_interleave(t, idx, dim=dim),
        lambda x: np.repeat(x, reps, axis=dim),
        a,
    )


def diag_embed_ref(x, offset):
    """out[..., i, i + offset] = x[..., i] (offset ≥ 0) or out[..., i - offset, i] (< 0)."""
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n))
    for i in range(x.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., r, c] = x[..., i]
    return out


@SETTINGS
@given(st.data())
def test_diag_embed(data):
    a = data.draw(floats(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3)))
    offset = data.draw(st.integers(-2, 2))
    check(lambda t: fg.diag_embed(t, offset), lambda x: diag_embed_ref(x, offset), a)


@SETTINGS
@given(st.data())
def test_trace(data):
    a = data.draw(floats(hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5)))
    check(fg.trace, lambda x: np.array(np.trace(x)), a)


@SETTINGS
@given(st.data())
def test_movedim(data):
    a = data.draw(floats(shapes.filter(lambda s: len(s) >= 1)))
    src = data.draw(st.integers(-a.ndim, a.ndim - 1))
    dst = data.draw(st.integers(-a.ndim, a.ndim - 1))
    check(lambda t: fg.movedim(t, src, dst), lambda x: np.moveaxis(x, src, dst), a)


@SETTINGS
@given(st.data())
def test_unflatten(data):
    a = data.draw(floats(data.draw(nonempty)))
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[dim]
    split = data.draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
    sizes = (split, -1)
    new_shape = a.shape[: dim % a.ndim] + (split, n // split) + a.shape[dim % a.ndim + 1 :]
    check(lambda t: fg.unflatten(t, dim, sizes), lambda x: x.reshape(new_shape), a)


@SETTINGS
@given(st.data())
def test_meshgrid(data):
    n = data.draw(st.integers(1, 3))
    vecs = [data.draw(floats((data.draw(st.integers(0, 3)),))) for _ in range(n)]
    for indexing in ("ij", "xy"):
        got = fg.meshgrid(*[fg.tensor(v) for v in vecs], indexing=indexing)
        want = np.meshgrid(*vecs, indexing=indexing)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    if all(v.size for v in vecs):
        assert gradcheck(
            lambda *ts: sum(
                (g * (i + 1)).sum() for i, g in enumerate(fg.meshgrid(*ts, indexing="ij"))
            ),
            [leaf(v) for v in vecs],
        )


@SETTINGS
@given(st.data())
def test_cdist(data):
    batch = data.draw(st.sampled_from([(), (2,)]))
    m, n, d = (data.draw(st.integers(1, 4)) for _ in range(3))
    p = data.draw(st.sampled_from([1.0, 2.0, 3.0]))
    # points on a grid of 0.25 plus a distinct offset per point keep pairs apart, so the
    # distance is differentiable (p-norms have no gradient at a zero difference)
    x1 = data.draw(floats(batch + (m, d))) + np.arange(m)[:, None] * 10.0
    x2 = data.draw(floats(batch + (n, d))) - 50.0 - np.arange(n)[:, None] * 10.0

    def ref(a, b):
        return np.sum(np.abs(a[..., :, None, :] - b[..., None, :, :]) ** p, axis=-1) ** (1 / p)

    check(lambda a, b: fg.cdist(a, b, p=p), ref, x1, x2)


@SETTINGS
@given(st.data())
def test_lerp(data):
    shape = data.draw(shapes)
    a, b = data.draw(floats(shape)), data.draw(floats(shape))
    w_shape = data.draw(st.sampled_from([shape, shape[1:], ()]))
    w = data.draw(floats(w_shape, 0.0, 1.0))
    check(lambda s, e, t: fg.lerp(s, e, t), lambda s, e, t: s + t * (e - s), a, b, w)
    check(lambda s, e: fg.lerp(s, e, 0.25), lambda s, e: s + 0.25 * (e - s), a, b)


@SETTINGS
@given(st.data())
def test_xlogy(data):
    shape = data.draw(shapes)
    x = data.draw(floats(shape))
    y = data.draw(floats(shape, 0.1, 4.0))
    check(fg.xlogy, lambda a, b: a * np.log(b), x, y)
    # x == 0 gives 0 wherever y is, including y == 0 and NaN-free for y > 0
    zeros = np.zeros(shape)
    got = fg.xlogy(fg.tensor(zeros), fg.tensor(np.zeros(shape))).numpy()
    np.testing.assert_array_equal(got, zeros)


@SETTINGS
@given(st.data())
def test_nan_to_num(data):
    shape = data.draw(shapes)
    special = st.sampled_from([np.nan, np.inf, -np.inf, 0.5, -2.0])
    a = data.draw(hnp.arrays(np.float64, shape, elements=special))
    kwargs = data.draw(
        st.sampled_from([{}, {"nan": 1.5}, {"nan": 0.0, "posinf": 9.0, "neginf": -9.0}])
    )
    got = fg.nan_to_num(fg.tensor(a), **kwargs).numpy()
    np.testing.assert_array_equal(got, np.nan_to_num(a, **kwargs))
    finite = data.draw(floats(shape))
    if finite.size:
        # the gradient passes through where the value is finite
        assert gradcheck(lambda t: fg.nan_to_num(t, **kwargs), [leaf(finite)])


@SETTINGS
@given(st.data())
def test_addmm_and_baddbmm(data):
    n, k, m = (data.draw(st.integers(0, 4)) for _ in range(3))
    beta = data.draw(st.sampled_from([0.0, 1.0, 0.5]))
    alpha = data.draw(st.sampled_from([1.0, -2.0]))
    inp = data.draw(floats(data.draw(st.sampled_from([(n, m), (m,), (1, m)]))))
    a, b = data.draw(floats((n, k))), data.draw(floats((k, m)))
    check(
        lambda i, x, y: fg.addmm(i, x, y, beta=beta, alpha=alpha),
        lambda i, x, y: beta * i + alpha * (x @ y),
        inp,
        a,
        b,
    )
    bs = data.draw(st.integers(1, 3))
    inp3 = data.draw(floats((bs, n, m)))
    a3, b3 = data.draw(floats((bs, n, k))), data.draw(floats((bs, k, m)))
    check(
        lambda i, x, y: fg.baddbmm(i, x, y, beta=beta, alpha=alpha),
        lambda i, x, y: beta * i + alpha * (x @ y),
        inp3,
        a3,
        b3,
    )


@SETTINGS
@given(st.data())
def test_kron(data):
    nd = data.draw(st.integers(1, 3))
    side = hnp.array_shapes(min_dims=nd, max_dims=nd, min_side=0, max_side=3)
    a, b = data.draw(floats(data.draw(side))), data.draw(floats(data.draw(side)))
    check(fg.kron, np.kron, a, b)


@SETTINGS
@given(st.data())
def test_cosine_similarity(data):
    shape = data.draw(nonempty)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    # values bounded away from 0 keep every norm far above eps
    pos = st.floats(0.5, 3.0)
    a = data.draw(hnp.arrays(np.float64, shape, elements=pos))
    b = data.draw(hnp.arrays(np.float64, shape, elements=pos)) * data.draw(st.sampled_from([1, -1]))

    def ref(x, y):
        return np.sum(x * y, axis=dim) / (np.linalg.norm(x, axis=dim) * np.linalg.norm(y, axis=dim))

    check(lambda x, y: F.cosine_similarity(x, y, dim=dim), ref, a, b)


def interp_nearest_ref(x, out):
    """PyTorch's 'nearest' along the last axis: source index floor(i * in / out)."""
    n = x.shape[-1]
    idx = np.minimum(np.floor(np.arange(out) * (n / out)).astype(int), n - 1)
    return x[..., idx]


def interp_linear_ref(x, out, align_corners):
    """'linear' along the last axis, with PyTorch's source coordinates."""
    n = x.shape[-1]
    i = np.arange(out, dtype=np.float64)
    if align_corners:
        src = i * ((n - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:
        src = np.maximum((i + 0.5) * (n / out) - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(int), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    w = src - lo
    return x[..., lo] * (1 - w) + x[..., hi] * w


@SETTINGS
@given(st.data())
def test_interpolate_1d(data):
    nb, c, n = (
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 5)),
    )
    out = data.draw(st.integers(1, 9))
    a = data.draw(floats((nb, c, n)))
    check(
        lambda t: F.interpolate(t, size=out, mode="nearest"),
        lambda x: interp_nearest_ref(x, out),
        a,
    )
    align = data.draw(st.booleans())
    check(
        lambda t: F.interpolate(t, size=out, mode="linear", align_corners=align),
        lambda x: interp_linear_ref(x, out, align),
        a,
    )


@SETTINGS
@given(st.data())
def test_tile_triu_tril_unstack(data):
    a = data.draw(floats(data.draw(nonempty)))
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=a.ndim + 1)))
    check(lambda t: fg.tile(t, reps), lambda x: np.tile(x, reps), a)
    if a.ndim >= 2:
        k = data.draw(st.integers(-3, 3))
        check(lambda t: fg.triu(t, k), lambda x: np.triu(x, k), a)
        check(lambda t: fg.tril(t, k), lambda x: np.tril(x, k), a)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    pieces = fg.unstack(fg.tensor(a), axis=axis)
    want = [np.take(a, i, axis=axis) for i in range(a.shape[axis])]
    assert len(pieces) == len(want)
    for p, w in zip(pieces, want):
        np.testing.assert_array_equal(p.numpy(), w)
    weights = [float(i + 1) for i in range(len(want))]
    assert gradcheck(
        lambda t: sum(w * p.sum() for w, p in zip(weights, fg.unstack(t, axis=axis))), [leaf(a)]
    )


@SETTINGS
@given(st.data())
def test_broadcast_tensors_and_hypot(data):
    shape = data.draw(shapes)
    other = data.draw(st.sampled_from([shape, shape[1:], ()]))
    a, b = data.draw(floats(shape, 0.2, 3.0)), data.draw(floats(other, -3.0, -0.2))
    got = fg.broadcast_tensors(fg.tensor(a), fg.tensor(b))
    for g, w in zip(got, np.broadcast_arrays(a, b)):
        np.testing.assert_array_equal(g.numpy(), w)
    check(fg.hypot, np.hypot, a, b)


@SETTINGS
@given(st.data())
def test_cross_and_mv(data):
    batch = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    a, b = data.draw(floats(batch + (3,))), data.draw(floats(batch + (3,)))
    check(lambda x, y: fg.cross(x, y, dim=-1), lambda x, y: np.cross(x, y), a, b)
    n, m = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    mat, vec = data.draw(floats((n, m))), data.draw(floats((m,)))
    check(fg.mv, lambda x, y: x @ y, mat, vec)


@SETTINGS
@given(st.data())
def test_vector_and_matrix_norms(data):
    # entries bounded away from 0: p-norms have no gradient at a zero vector
    a = data.draw(hnp.arrays(np.float64, data.draw(nonempty), elements=st.floats(0.25, 3.0)))
    # a distinct offset per element: max-based norms (inf, matrix 1/inf) have no gradient
    # at a tie, where the peers split it evenly and finite differences disagree
    a = a + np.arange(a.size).reshape(a.shape) * 1e-2
    a = a * data.draw(hnp.arrays(np.float64, a.shape, elements=st.sampled_from([1.0, -1.0])))
    ord_ = data.draw(st.sampled_from([1, 2, 3, np.inf]))
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    check(
        lambda t: fg.linalg.vector_norm(t, ord_, dim=dim),
        lambda x: np.linalg.norm(x, ord_, axis=dim),
        a,
    )
    check(
        lambda t: F.normalize(t, 2.0, dim=dim),
        lambda x: x / np.linalg.norm(x, 2, axis=dim, keepdims=True),
        a,
    )
    if a.ndim >= 2:
        mord = data.draw(st.sampled_from(["fro", 1, np.inf]))
        check(
            lambda t: fg.linalg.matrix_norm(t, mord),
            lambda x: np.linalg.norm(x, mord, axis=(-2, -1)),
            a,
        )


@SETTINGS
@given(st.data())
def test_pairwise_distance(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4))
    a = data.draw(floats(shape))
    b = data.draw(floats(shape)) + 10.0  # every difference far from 0
    p = data.draw(st.sampled_from([1.0, 2.0, 3.0]))
    check(
        lambda x, y: F.pairwise_distance(x, y, p=p),
        lambda x, y: np.sum(np.abs(x - y + 1e-6) ** p, axis=-1) ** (1 / p),
        a,
        b,
    )


@SETTINGS
@given(st.data())
def test_pad(data):
    a = data.draw(floats(hnp.array_shapes(min_dims=3, max_dims=3, min_side=2, max_side=4)))
    left, right = data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))
    value = data.draw(st.sampled_from([0.0, 1.5]))
    check(
        lambda t: F.pad(t, (left, right), mode="constant", value=value),
        lambda x: np.pad(x, ((0, 0), (0, 0), (left, right)), constant_values=value),
        a,
    )
    # reflect needs pads smaller than the side; replicate and circular take any pad here
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")):
        lo, hi = min(left, a.shape[-1] - 1), min(right, a.shape[-1] - 1)
        check(
            lambda t, m=mode, lo=lo, hi=hi: F.pad(t, (lo, hi), mode=m),
            lambda x, m=np_mode, lo=lo, hi=hi: np.pad(x, ((0, 0), (0, 0), (lo, hi)), mode=m),
            a,
        )


@SETTINGS
@given(st.data())
def test_isclose_allclose(data):
    shape = data.draw(shapes)
    special = st.sampled_from([0.0, 1.0, 1.0 + 1e-9, 1.1, np.nan, np.inf, -np.inf])
    a = data.draw(hnp.arrays(np.float64, shape, elements=special))
    b = data.draw(hnp.arrays(np.float64, shape, elements=special))
    equal_nan = data.draw(st.booleans())
    got = fg.isclose(fg.tensor(a), fg.tensor(b), equal_nan=equal_nan).numpy()
    np.testing.assert_array_equal(got, np.isclose(a, b, equal_nan=equal_nan))
    assert fg.allclose(fg.tensor(a), fg.tensor(b), equal_nan=equal_nan) == np.allclose(
        a, b, equal_nan=equal_nan
    )
