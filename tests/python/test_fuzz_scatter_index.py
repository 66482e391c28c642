"""Differential fuzzer for the scatter / gather / index / mask family: ``scatter`` (src,
value, ``reduce=``), ``scatter_add``, ``scatter_reduce``, ``put_along_axis``, ``gather``,
``take_along_dim``, ``index_add`` / ``index_copy`` / ``index_fill``, ``index_put``,
``masked_fill`` / ``masked_scatter`` / ``masked_select``, ``take``, ``gather_nd``,
``scatter_nd`` / ``scatter_nd_add``, ``index_sample``, ``nonzero`` / ``argwhere``, the
``*_scatter`` copies and ``unique_consecutive``, against NumPy references on operands seen
through random views, with in-range, negative, repeated and out-of-range indices (those
must raise a Python exception), plus ``gradcheck`` of the float64 cases. Repeated targets
of an overwriting write are checked only for "one of the written values" (PyTorch's
promise). Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import contextlib

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from fuzz_support import CALLS, FUZZ, assert_same, viewed
from hypothesis import assume, given
from hypothesis import strategies as st

DTYPES = ["float64", "int64", "int32", "float32"]
DATA = st.data()
FLAT = "take take_wrap gather_nd scatter_nd scatter_nd_add index_sample paddle_scatter".split()
# shapes of rank 1-3, mostly non-empty (a size-0 dim one time in ~5)
side = st.one_of(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 3))
small = st.lists(side, min_size=1, max_size=3).map(tuple)


def grad_ok(fn, *args):
    CALLS["gradcheck"] += 1
    leaves = tuple(a.detach().requires_grad_() for a in args)
    assert gradcheck(fn, leaves, eps=1e-6, atol=1e-6, rtol=1e-4)


def check(got, want, dtype, what):
    """assert_same, with float32 checked against a float64 reference (sums reorder)."""
    if dtype == "float32":
        g = got.numpy()
        assert got.dtype.name == "float32" and g.shape == np.shape(want), what
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5, err_msg=what)
    else:
        assert_same(got, np.asarray(want).astype(dtype), dtype, what)


def same(g, w):
    """Equal arrays, NaN equal to NaN (a value among several written)."""
    return np.array_equal(np.asarray(g, np.float64), np.asarray(w, np.float64), equal_nan=True)


def overlapping(t):
    """A view with several elements on one memory position (an expand): in-place ops on it
    are refused (as by PyTorch); see test_inplace_scatter_on_expanded_view_regression."""
    return any(st_ == 0 and n > 1 for st_, n in zip(t.stride(), t.shape))


def raises(fn, empty=False):
    """`fn` raises a Python exception; `empty`: the operand has no elements, where the
    peers differ on checking the indices: only no crash."""
    CALLS["index-error"] += 1
    if empty:
        with contextlib.suppress(Exception):
            fn()
        return
    with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
        fn()


def itensor(draw, vals, shape):
    """An int64/int32 index tensor of `vals` (a NumPy array), sometimes through a view."""
    dt = draw(st.sampled_from(["int64", "int32"]))
    arr = np.asarray(vals, dtype=dt).reshape(shape)
    if arr.ndim >= 2 and draw(st.booleans()):
        return fg.tensor(np.ascontiguousarray(arr.T), dtype=dt).permute(
            *range(arr.ndim - 1, -1, -1)
        )
    return fg.tensor(arr, dtype=dt)


def draw_index(draw, shape, size, neg=True):
    """Index values in [-size, size) (or [0, size)); (vals, bad): bad marks an
    out-of-range entry planted at random."""
    n = int(np.prod(shape))
    lo = -size if neg else 0
    vals = np.array(draw(st.lists(st.integers(lo, max(size - 1, lo)), min_size=n, max_size=n)))
    vals = vals.reshape(shape).astype(np.int64)
    bad = False
    if n and draw(st.integers(0, 5)) == 0:
        vals.flat[draw(st.integers(0, n - 1))] = draw(st.sampled_from([size, size + 3, -size - 1]))
        bad = True
    elif size == 0 and n:
        bad = True
    return vals, bad


# -- scatter / gather along a dim ----------------------------------------------------------


def ref_copy(a, dtype):
    """A writable copy for a reference: floats in float64, ints in their own dtype."""
    return np.array(a, np.float64 if dtype.startswith("float") else dtype)


REDUCE = {"assign": lambda vs: vs[-1], "add": np.sum, "mul": np.prod, "amax": np.max}
REDUCE.update(sum=np.sum, prod=np.prod, amin=np.min)
RED_OPS = ("sum", "prod", "mean", "amax", "amin")  # scatter_reduce's


def scatter_ref(a, dim, idx, src, how, include_self=True):
    """PyTorch's scatter family on NumPy (float64 for floats); returns (out, written):
    written[pos] lists the values written there (for non-deterministic overwrites)."""
    out = ref_copy(a, str(a.dtype))
    groups: dict = {}
    for m in np.ndindex(idx.shape):
        pos = list(m)
        pos[dim] = idx[m] % a.shape[dim]
        groups.setdefault(tuple(pos), []).append(src[m] if np.ndim(src) else src)
    for pos, vs in groups.items():
        vs = np.array(([out[pos]] if include_self else []) + list(vs), out.dtype)
        if how == "mean":
            s = np.sum(vs)
            out[pos] = s / len(vs) if out.dtype.kind == "f" else s // len(vs)
        else:
            out[pos] = REDUCE[how](vs)
    return out, groups


SCATTER = [
    "scatter", "scatter_value", "scatter_radd", "scatter_rmul", "scatter_add",
    "sum", "prod", "mean", "amax", "amin", "pa_assign", "pa_add", "pa_mul",
]  # fmt: skip


@pytest.mark.parametrize("op", SCATTER)
@FUZZ
@given(dtype=st.sampled_from(DTYPES), data=DATA)
def test_scatter_along_dim(op, dtype, data):
    draw = data.draw
    shape = draw(small)
    # NaN, inf and range ends only where the reference is exact (no sums or products)
    exact = op in ("scatter", "scatter_value", "amax", "amin", "pa_assign")
    a, t = draw(viewed(dtype, shape, special=exact))
    nd = len(shape)
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    pa = op.startswith("pa_")
    # Paddle's put_along_axis broadcasts size-1 index dims to `arr` outside `axis`
    some = (lambda s: draw(st.sampled_from([1, s]))) if pa else (lambda s: draw(st.integers(0, s)))
    ishape = [draw(st.integers(0, 5)) if i == d else some(s) for i, s in enumerate(shape)]
    idx, bad = draw_index(draw, ishape, shape[d])
    ti = itensor(draw, idx, ishape)
    if pa:
        ishape = [i if j == d else s for j, (i, s) in enumerate(zip(ishape, shape))]
        idx = np.broadcast_to(idx, ishape)
    sshape = [i if pa else i + draw(st.integers(0, 1)) for i in ishape]
    s, ts = draw(viewed(dtype, sshape, special=exact))
    include_self = draw(st.booleans())
    inplace = draw(st.booleans())
    on_view = inplace and not overlapping(t) and draw(st.booleans())
    value = draw(st.integers(-3, 3))
    mode = {"view": False}
    target = lambda x: x if mode["view"] else x.clone()  # noqa: E731
    src = s[tuple(slice(0, i) for i in ishape)]
    if pa and draw(st.booleans()):
        op += "_scalar"  # a number as `values`
    base = op.removesuffix("_scalar")
    how = {"scatter_radd": "add", "scatter_rmul": "mul", "scatter_add": "add"}.get(base, base)
    how = {"scatter": "assign", "scatter_value": "assign"}.get(how, how).replace("pa_", "")
    if op.endswith(("_value", "_scalar")):
        src = value
    red = {"scatter_radd": "add", "scatter_rmul": "multiply"}.get(op)
    name = (
        "scatter_reduce" if op in RED_OPS else "scatter_add" if op == "scatter_add" else "scatter"
    )

    def call(x, y):
        y = value if op.endswith(("_value", "_scalar")) else y
        if pa and inplace:
            return target(x).put_along_axis_(ti, y, dim, reduce=how)
        if pa:
            return fg.put_along_axis(x, ti, y, dim, reduce=how)
        f = getattr(target(x), name + "_") if inplace else getattr(x, name)
        if name == "scatter_reduce":
            return f(dim, ti, y, op, include_self=include_self)
        return f(dim, ti, y, **({"reduce": red} if red else {}))

    if bad:
        return raises(lambda: call(t, ts), a.size == 0)
    CALLS["scatter"] += 1
    inc = include_self if op in RED_OPS else True
    want, groups = scatter_ref(a, d, idx, src, how, inc)
    what = f"{op} {shape} dim={dim} idx={idx.tolist()} inplace={inplace} self={inc}"
    if on_view:  # the in-place form on the view itself writes through to it
        CALLS["scatter-on-view"] += 1
        keep, mode["view"] = t.clone(), True
        got = call(t, ts)
        assert_same(t, got.numpy(), dtype, what + " (view after)")
        t, mode["view"] = keep, False
    got = call(t, ts)
    if how == "assign":
        # repeated targets: only "one of the written values" is promised
        for pos, vs in groups.items():
            if len(vs) > 1:
                assert any(same(got.numpy()[pos], w) for w in vs), what
                want[pos] = got.numpy()[pos]
    check(got, want, dtype, what)
    if dtype != "float64" or op.startswith(("scatter_rmul", "pa_mul")):
        return
    # gradients: distinct values for amax/amin, non-zero members for prod
    flat = np.concatenate([np.ravel(a), np.ravel(src)])
    assume((np.abs(flat) < 100).all())  # finite differences: ordinary values
    if op in ("amax", "amin"):  # distinct, and far apart for the finite differences
        assume(flat.size < 2 or np.diff(np.sort(flat)).min() > 1e-3)
    if op == "prod":
        assume((np.abs(flat) > 0.1).all())
    if how == "assign" and any(len(v) > 1 for v in groups.values()):
        return  # which write wins is unspecified: no gradient contract for src
    if op.endswith(("_value", "_scalar")):
        return grad_ok(lambda x: call(x, None), t)
    grad_ok(call, t, ts)


@pytest.mark.parametrize("op", ["gather", "take_along_dim"])
@FUZZ
@given(dtype=st.sampled_from(DTYPES), data=DATA)
def test_gather_along_dim(op, dtype, data):
    draw = data.draw
    shape = draw(small)
    a, t = draw(viewed(dtype, shape, special=op != "gather" or dtype != "float64"))
    nd = len(shape)
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    full = op == "take_along_dim"
    ishape = [draw(st.integers(0, 4)) if i == d else (s if full else draw(st.integers(0, s)))
              for i, s in enumerate(shape)]  # fmt: skip
    idx, bad = draw_index(draw, ishape, shape[d])
    ti = itensor(draw, idx, ishape)
    call = (lambda x: fg.take_along_dim(x, ti, dim)) if full else (lambda x: x.gather(dim, ti))
    if bad:
        return raises(lambda: call(t), a.size == 0)
    CALLS["gather"] += 1
    part = a[tuple(slice(None) if i == d else slice(0, s) for i, s in enumerate(ishape))]
    want = np.take_along_axis(part, idx % max(shape[d], 1), d)
    if full:
        want = np.take_along_axis(a, idx % max(shape[d], 1), d)
    assert_same(call(t), want, dtype, f"{op} {shape} dim={dim} idx={idx.tolist()}")
    if dtype == "float64" and (np.abs(a) < 100).all():  # finite differences: ordinary values
        grad_ok(call, t)


# -- index_add / index_copy / index_fill / index_put ---------------------------------------


@pytest.mark.parametrize("op", ["index_add", "index_copy", "index_fill"])
@FUZZ
@given(dtype=st.sampled_from(DTYPES), data=DATA)
def test_index_ops(op, dtype, data):
    draw = data.draw
    shape = draw(small)
    exact = op != "index_add"
    a, t = draw(viewed(dtype, shape, special=exact))
    nd = len(shape)
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    k = draw(st.integers(0, 4))
    idx, bad = draw_index(draw, (k,), shape[d])
    ti = itensor(draw, idx, (k,))
    sshape = list(shape)
    sshape[d] = k
    s, ts = draw(viewed(dtype, sshape, special=exact))
    alpha = draw(st.sampled_from([1, 2, -1])) if op == "index_add" else None
    inplace = draw(st.booleans())
    scalar = draw(st.integers(-5, 5))
    fill_0d = op == "index_fill" and dtype == "float64" and draw(st.booleans())

    def call(x, y):
        x = x.clone() if inplace else x
        f = getattr(x, op + "_" if inplace else op)
        if op == "index_add":
            return f(dim, ti, y, alpha=alpha)
        if op == "index_copy":
            return f(dim, ti, y)
        return f(dim, ti, y if fill_0d else scalar)

    if bad:
        return raises(lambda: call(t, ts), a.size == 0)
    CALLS["index"] += 1
    want = ref_copy(a, dtype)
    mv = np.moveaxis(want, d, 0)  # a view: writes land in want
    sv = np.moveaxis(s, d, 0)
    written: dict = {}
    for j, i in enumerate(idx % max(shape[d], 1)):
        if op == "index_add":
            mv[i] += alpha * sv[j]
        elif op == "index_copy":
            mv[i] = sv[j]
            written.setdefault(int(i), []).append(sv[j])
        else:
            mv[i] = scalar
    got = call(t, fg.tensor(scalar, dtype="float64") if fill_0d else ts)
    what = f"{op} {shape} dim={dim} idx={idx.tolist()} alpha={alpha}"
    g = np.moveaxis(got.numpy(), d, 0)
    for i, vs in written.items():
        if len(vs) > 1:  # repeated index_copy targets: one of the copied slices
            assert any(same(g[i], v) for v in vs), what
            mv[i] = g[i]
    check(got, want, dtype, what)
    finite = (np.abs(a) < 100).all() and (np.abs(s) < 100).all()
    if dtype == "float64" and finite and not (op == "index_copy" and len(set(idx.tolist())) < k):
        if op == "index_fill":
            if fill_0d:
                return grad_ok(call, t, fg.tensor(float(scalar), dtype="float64"))
            return grad_ok(lambda x: call(x, None), t)
        grad_ok(call, t, ts)


@FUZZ
@given(st.sampled_from(DTYPES), st.booleans(), st.data())
def test_index_put(dtype, accumulate, data):
    draw = data.draw
    shape = draw(small)
    a, t = draw(viewed(dtype, shape, special=not accumulate))
    nd = len(shape)
    k = draw(st.integers(1, nd))
    n = draw(st.integers(0, 4))
    cols = [draw_index(draw, (n,), shape[i]) for i in range(k)]
    bad = any(b for _, b in cols)
    idx = tuple(c for c, _ in cols)
    tidx = tuple(itensor(draw, c, (n,)) for c in idx)
    vshape = (n,) + tuple(shape[k:])
    v, tv = draw(viewed(dtype, vshape, special=not accumulate))
    inplace = draw(st.booleans())

    def call(x, y):
        if inplace:
            return x.clone().index_put_(tidx, y, accumulate=accumulate)
        return fg.index_put(x, tidx, y, accumulate=accumulate)

    if bad:
        return raises(lambda: call(t, tv), a.size == 0)
    CALLS["index_put"] += 1
    want = ref_copy(a, dtype)
    what = f"index_put {shape} idx={[c.tolist() for c in idx]} acc={accumulate}"
    keys = [tuple(int(c[j]) % shape[i] for i, c in enumerate(idx)) for j in range(n)]
    got = call(t, tv)
    if accumulate:
        np.add.at(want, idx, v)
    else:
        want[idx] = v
        g = got.numpy()
        for key in set(keys):
            js = [j for j in range(n) if keys[j] == key]
            if len(js) > 1:  # repeated targets: one of the written values
                assert any(same(g[key], v[j]) for j in js), what
                want[key] = g[key]
    check(got, want, dtype, what)
    finite = (np.abs(a) < 100).all() and (np.abs(v) < 100).all()
    if dtype == "float64" and finite and (accumulate or len(set(keys)) == n):
        grad_ok(call, t, tv)


# -- masks -----------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["fill", "fill_0d", "scatter", "select"])
@FUZZ
@given(dtype=st.sampled_from(DTYPES), data=DATA)
def test_masked(op, dtype, data):
    draw = data.draw
    a, t = draw(viewed(dtype))
    shape = a.shape
    # a mask broadcasting to `shape`: some dims 1, some leading dims dropped
    drop = draw(st.integers(0, len(shape)))
    mshape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in shape[drop:])
    m, tm = draw(viewed("bool", mshape))
    n = int(np.broadcast_to(m, shape).sum())
    s, ts = draw(viewed(dtype, (draw(st.integers(max(n - 1, 0), n + 2)),)))
    value = draw(st.integers(-4, 4))
    inplace = draw(st.booleans()) and op != "select"

    def call(x, y):
        x = x.clone() if inplace else x
        if op == "select":
            return fg.masked_select(x, tm)
        if op == "scatter":
            return (x.masked_scatter_ if inplace else x.masked_scatter)(tm, y)
        return (x.masked_fill_ if inplace else x.masked_fill)(tm, y)

    if op == "scatter" and s.size < n:  # too short a source
        return raises(lambda: call(t, ts))
    CALLS["masked"] += 1
    mb = np.broadcast_to(m, shape)
    want = np.array(a, copy=True)
    if op == "select":
        want = a[mb]
    elif op == "scatter":
        want[mb] = s[:n]
    else:
        want[mb] = value
    y = ts if op == "scatter" else value
    if op == "fill_0d":
        y = fg.tensor(value, dtype=dtype)
    check(call(t, y), want, dtype, f"masked_{op} {shape} mask={m.tolist()} inplace={inplace}")
    if dtype == "float64" and (np.abs(a) < 100).all() and (np.abs(s) < 100).all():
        if op == "fill_0d":
            return grad_ok(call, t, fg.tensor(float(value), dtype="float64"))
        if op == "scatter":
            return grad_ok(call, t, ts)
        grad_ok(lambda x: call(x, y), t)


@FUZZ
@given(st.sampled_from(["float64", "int64", "int32", "bool", "float32"]), st.data())
def test_nonzero_argwhere(dtype, data):
    a, t = data.draw(viewed(dtype))
    nz = np.nonzero(np.atleast_1d(a))
    want = np.stack(nz, axis=1) if a.ndim else np.zeros((int(a != 0), 0), np.int64)
    CALLS["nonzero"] += 1
    assert_same(fg.nonzero(t), want, "int64", f"nonzero {a!r}")
    assert_same(fg.argwhere(t), want, "int64", f"argwhere {a!r}")
    # (a 0-d tensor reads as one element: test_nonzero_as_tuple_0d_regression)
    got = t.nonzero(as_tuple=True)
    assert len(got) == max(a.ndim, 1)
    for g, w in zip(got, nz):
        assert_same(g, w, "int64", f"nonzero(as_tuple) {a!r}")


# -- Paddle's flat / nd forms ------------------------------------------------------------------


@pytest.mark.parametrize("op", FLAT)
@FUZZ
@given(dtype=st.sampled_from(DTYPES), data=DATA)
def test_flat_and_nd(op, dtype, data):
    draw = data.draw
    shape = draw(small)
    if op == "index_sample":
        shape = (shape + (2,))[:2]
    a, t = draw(viewed(dtype, shape, special=op not in ("scatter_nd", "scatter_nd_add")))
    k, n = draw(st.integers(1, len(shape))), draw(st.integers(0, 4))
    rows, bad = draw_index(draw, (n,), shape[0], False)  # Paddle's scatter: whole rows
    overwrite = draw(st.booleans())
    if op in ("take", "take_wrap"):  # take wraps negative positions; mode='wrap': any
        idx, bad = draw_index(draw, draw(small), a.size)
        if op == "take_wrap":
            idx = np.array(draw(st.lists(st.integers(-9, 9), max_size=5)), np.int64)
            bad = a.size == 0 and idx.size > 0
        ti = itensor(draw, idx, idx.shape)
        fn = lambda x: fg.take(x, ti, mode="wrap" if op == "take_wrap" else "raise")  # noqa: E731
        ref = lambda x: np.ravel(x)[idx % max(a.size, 1)]  # noqa: E731
    elif op == "index_sample":
        cols, bad = draw_index(draw, (shape[0], n), shape[1], False)
        ti = itensor(draw, cols, cols.shape)
        fn = lambda x: fg.index_sample(x, ti)  # noqa: E731
        ref = lambda x: np.take_along_axis(x, cols, 1)  # noqa: E731
    elif op == "paddle_scatter":  # rows: overwrite, or zero the named rows and sum
        u, tu = draw(viewed(dtype, (n,) + shape[1:], special=False))
        ti = itensor(draw, rows, (n,))
        fn = lambda x, y: fg.scatter(x, ti, y, overwrite=overwrite)  # noqa: E731
        assume(not overwrite or len(set(rows.tolist())) == n)  # repeated: order unset

        def ref(x):
            out = ref_copy(x, dtype)
            out[rows] = u if overwrite else 0
            if not overwrite:
                np.add.at(out, rows, u)
            return out
    else:
        cols = [draw_index(draw, (n,), shape[i], False) for i in range(k)]
        bad = any(b for _, b in cols)
        idx = tuple(c for c, _ in cols)
        ti = itensor(draw, np.stack(idx, -1) if n else np.zeros((0, k)), (n, k))
        u, tu = draw(viewed(dtype, (n,) + shape[k:], special=False))
        if op == "gather_nd":
            fn = lambda x: fg.gather_nd(x, ti)  # noqa: E731
            ref = lambda x: x[idx]  # noqa: E731
        else:  # scatter_nd sums into zeros of `shape`, scatter_nd_add into x

            def ref(x):
                out = ref_copy(x if op == "scatter_nd_add" else np.zeros(shape), dtype)
                np.add.at(out, idx, u)
                return out

            fn = lambda x, y: fg.scatter_nd_add(x, ti, y)  # noqa: E731
            if op == "scatter_nd":
                fn = lambda y: fg.scatter_nd(ti, y, list(shape))  # noqa: E731
                t = tu
    args = (t, tu) if op in ("scatter_nd_add", "paddle_scatter") else (t,)
    if bad:
        return raises(lambda: fn(*args), a.size == 0)
    CALLS[op] += 1
    check(fn(*args), ref(a), dtype, f"{op} {shape}")
    if dtype == "float64" and all((np.abs(x.numpy()) < 100).all() for x in args):
        grad_ok(fn, *args)


# -- *_scatter copies, unique_consecutive -----------------------------------------------------


@pytest.mark.parametrize("op", ["select", "slice", "diagonal"])
@FUZZ
@given(dtype=st.sampled_from(DTYPES), data=DATA)
def test_part_scatter(op, dtype, data):
    draw = data.draw
    shape = draw(small)
    a, t = draw(viewed(dtype, shape))
    nd = len(shape)
    dim = draw(st.integers(-nd, nd - 1))
    d = dim % nd
    if op == "select":
        assume(shape[d] > 0)
        i = draw(st.integers(-shape[d], shape[d] - 1))
        region = (slice(None),) * d + (i,)
        fn = lambda x, y: fg.select_scatter(x, y, dim, i)  # noqa: E731
    elif op == "slice":
        lo = draw(st.one_of(st.none(), st.integers(-5, 5)))
        hi = draw(st.one_of(st.none(), st.integers(-5, 5)))
        step = draw(st.integers(1, 3))
        region = (slice(None),) * d + (slice(lo, hi, step),)
        fn = lambda x, y: fg.slice_scatter(x, y, dim, lo, hi, step)  # noqa: E731
    else:
        assume(nd >= 2)
        d2 = draw(st.integers(-nd, nd - 1))
        assume(d2 % nd != d)
        off = draw(st.integers(-3, 3))
        fn = lambda x, y: fg.diagonal_scatter(x, y, off, dim, d2)  # noqa: E731
    want = ref_copy(a, dtype)
    target = np.diagonal(want, off, d, d2 % nd) if op == "diagonal" else want[region]
    s, ts = draw(viewed(dtype, target.shape))
    if op == "diagonal":  # the diagonal's positions in the last two dims of a view
        r = np.arange(target.shape[-1])
        np.moveaxis(want, (d, d2 % nd), (-2, -1))[..., r + max(-off, 0), r + max(off, 0)] = s
    else:
        want[region] = s
    CALLS["part_scatter"] += 1
    check(fn(t, ts), want, dtype, f"{op}_scatter {shape} dim={dim}")
    if dtype == "float64" and (np.abs(a) < 100).all() and (np.abs(s) < 100).all():
        grad_ok(fn, t, ts)


def unique_consecutive_ref(a, dim):
    """(values, inverse, counts) of consecutive runs along `dim` (None: flattened)."""
    x = np.ravel(a) if dim is None else np.moveaxis(a, dim, 0)
    starts = [i for i in range(len(x)) if i == 0 or not np.array_equal(x[i], x[i - 1])]
    counts = np.diff(starts + [len(x)]).astype(np.int64)
    vals = x[starts] if len(x) else x[:0]
    inverse = np.repeat(np.arange(len(starts)), counts).astype(np.int64)
    if dim is None:
        return vals, inverse.reshape(a.shape), counts
    return np.moveaxis(vals, 0, dim), inverse, counts


@FUZZ
@given(st.sampled_from(["float64", "int64", "int32", "bool"]), st.data())
def test_unique_consecutive(dtype, data):
    draw = data.draw
    a, t = draw(viewed(dtype, special=False, lo=-1, hi=1))
    if dtype == "float64":  # few distinct values, so runs occur
        a = np.round(a)
        t = t.round() if draw(st.booleans()) else fg.tensor(a, dtype=dtype)
    dim = None if a.ndim == 0 or draw(st.booleans()) else draw(st.integers(-a.ndim, a.ndim - 1))
    inv, cnt = draw(st.booleans()), draw(st.booleans())
    CALLS["unique_consecutive"] += 1
    got = fg.unique_consecutive(t, return_inverse=inv, return_counts=cnt, dim=dim)
    vals, inverse, counts = unique_consecutive_ref(a, dim)
    what = f"unique_consecutive {a!r} dim={dim}"
    if not (inv or cnt):
        return assert_same(got, vals, dtype, what)
    assert isinstance(got, tuple) and len(got) == 1 + inv + cnt, what
    assert_same(got[0], vals, dtype, what)
    if inv:
        assert_same(got[1], inverse, "int64", what + " inverse")
    if cnt:
        assert_same(got[-1], counts, "int64", what + " counts")


# -- regressions found by the fuzzers ---------------------------------------------------------


def test_nonzero_as_tuple_0d_regression():
    got = fg.tensor(5.0).nonzero(as_tuple=True)
    assert len(got) == 1 and got[0].tolist() == [0]


def test_unique_consecutive_empty_dim_regression():
    out, counts = fg.unique_consecutive(fg.zeros([0, 2]), return_counts=True, dim=0)
    assert out.shape == (0, 2) and counts.shape == (0,)


# 0-d operands (the fuzzers above draw rank >= 1): dim 0 / -1 names the one element
ZERO_D = {
    "scatter": (lambda x, i, s: x.scatter(-1, i, s), 5.0),
    "scatter_add": (lambda x, i, s: x.scatter_add(0, i, s), 6.0),
    "scatter_reduce": (lambda x, i, s: x.scatter_reduce(0, i, s, "amin"), 1.0),
    "gather": (lambda x, i, s: x.gather(0, i), 1.0),
    "take_along_dim": (lambda x, i, s: fg.take_along_dim(x, i, 0), 1.0),
    "take": (lambda x, i, s: fg.take(x, i), 1.0),
    "index_add": (lambda x, i, s: x.index_add(0, i, s, alpha=2), 11.0),
    "index_fill": (lambda x, i, s: x.index_fill(-1, i, 3.0), 3.0),
    "masked_fill": (lambda x, i, s: x.masked_fill(fg.tensor(True), s), 5.0),
    "masked_scatter": (lambda x, i, s: x.masked_scatter(fg.tensor(True), s.reshape([1])), 5.0),
}


@pytest.mark.parametrize("op", sorted(ZERO_D))
def test_zero_dim_operands(op):
    fn, want = ZERO_D[op]
    x, s = fg.tensor(1.0, dtype="float64"), fg.tensor(5.0, dtype="float64")
    got = fn(x, fg.tensor(0), s)
    CALLS["zero-d"] += 1
    assert_same(got, np.array(want), "float64", op)
    grad_ok(lambda a, b: fn(a, fg.tensor(0), b) * 1.0 + 0 * b.sum(), x, s)
    if not op.startswith("masked"):
        raises(lambda: fn(x, fg.tensor(1), s))


def test_index_copy_zero_dim_regression():
    assert fg.tensor(1.0).index_copy(0, fg.tensor([0]), fg.tensor(5.0)).tolist() == 5.0
    assert fg.zeros([3]).index_copy(0, fg.tensor([1]), fg.tensor(5.0)).tolist() == [0, 5, 0]


def test_inplace_scatter_on_expanded_view_regression():
    # refused as in PyTorch (the rule for every in-place op: test_expanded_inplace.py)
    v = fg.zeros([1]).expand([3])
    with pytest.raises(RuntimeError, match="scatter_: unsupported operation"):
        v.scatter_(0, fg.tensor([1]), fg.tensor([5.0]))
    assert v.tolist() == [0.0, 0.0, 0.0]
    # fills are allowed: every element sharing memory gets the value
    assert fg.zeros([1]).expand([3]).index_fill_(0, fg.tensor([1]), 5.0).tolist() == [5.0] * 3


def test_select_scatter_out_of_range_regression():
    with pytest.raises(IndexError):
        fg.select_scatter(fg.zeros([3]), fg.tensor(1.0), 0, 3)
