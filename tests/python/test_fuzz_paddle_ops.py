"""Differential fuzzer for the Paddle-dialect tensor functions: Paddle code
(``import ferrograd as paddle``, so the calls whose meaning differs between the peers
follow Paddle, docs/dialects.md) calling Paddle's spellings and argument names —
``to_tensor`` / ``cast`` / ``astype``, the shape family (``reshape`` with 0 and -1,
``flatten``, ``squeeze`` / ``unsqueeze`` with lists, ``transpose(perm)``, ``moveaxis``,
``flip``, ``roll``, ``rot90``), joining and splitting (``concat``, ``stack``, ``split`` with
a ``-1`` section, ``chunk``, ``unbind``), ``slice`` / ``strided_slice`` (clamped and negative
bounds, negative strides), ``expand`` / ``expand_as`` / ``broadcast_to`` / ``tile`` /
``repeat_interleave`` / ``meshgrid``, the gather / scatter family (``gather`` with Paddle's
row selection, ``gather_nd``, ``scatter(overwrite=)``, ``scatter_nd_add``,
``index_select``, ``take_along_axis`` / ``put_along_axis(reduce=)``, ``masked_select``,
``masked_fill``, ``where``, ``nonzero``), reductions (``sum`` ... ``any`` with
``axis=int/list/None`` and ``keepdim``, ``argmax`` / ``argmin``, ``topk``, ``sort`` /
``argsort``, ``unique``, ``median``, ``quantile``, ``kthvalue``, ``mode``, ``std`` /
``var``, ``norm``, ``logsumexp``), scans (``cumsum`` / ``cumprod``, ``diff``,
``trapezoid``), integer arithmetic (``floor_divide`` / ``remainder`` / ``mod`` with
Paddle's floor rules, ``divide`` of ints, ``pow``, ``clip``), ``matmul(transpose_x,
transpose_y)``, creation (``linspace``, ``arange``, ``full``, ``zeros`` / ``ones``,
``eye``, ``diag``, ``tril`` / ``triu``), ``isclose`` / ``allclose`` / ``equal_all``,
``bincount``, ``histogram``, ``searchsorted``, ``bucketize``, ``add_n``, ``multiplex``,
``increment``, Paddle's 0-d operand promotion, and the ``Tensor`` attributes in Paddle's
spelling (``x.size`` an int, ``x.shape`` a list, ``dim()``, ``ndimension()``,
``stop_gradient``) — on operands of random shapes (0-d and size-0 included) and dtypes,
some seen through random views, against float64 NumPy references written from Paddle's
documented semantics (Paddle 3.3.1's docs and kernels; ferrograd's own documented choices
where docs/dialects.md or docs/tensors.md states one), plus ``paddle.grad`` against the
adjoint of the NumPy reference and ``gradcheck`` on small float64 inputs. Bad arguments
must raise a Python exception (never a panic). Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see
fuzz_support.py)."""

from __future__ import annotations

import math

import ferrograd as paddle
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ, grad_ok, viewed
from hypothesis import assume, given
from hypothesis import strategies as st

# this module names ferrograd `paddle` only: its shared spellings are Paddle's
REAL = ["bool", "int32", "int64", "float32", "float64"]
NUM = ["int32", "int64", "float32", "float64"]
FLOATS = ["float32", "float64"]
side = st.one_of(st.integers(1, 4), st.integers(1, 4), st.integers(0, 4))
shapes = st.lists(side, min_size=0, max_size=4).map(tuple)
nonempty = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def chk(got, want, dtype, what, rtol=None, atol=None):
    """`got` (tensor) equals `want` (NumPy, any precision): shape, dtype, values; float32
    results against a float64 reference within float32's tolerance."""
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    g = got.numpy()
    w = np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    if dtype in FLOATS:
        with np.errstate(over="ignore"):  # beyond float32's range: inf
            w = w.astype(dtype).astype(np.float64) if dtype == "float32" else w.astype(np.float64)
        if rtol is None:
            rtol, atol = (2e-5, 1e-5) if dtype == "float32" else (1e-11, 1e-12)
        g64 = g.astype(np.float64)
        assert (np.isnan(g64) == np.isnan(w)).all(), f"{what}: NaN positions\n{g}\n{w}"
        inf = np.isinf(w)
        np.testing.assert_array_equal(g64[inf], w[inf], err_msg=f"{what}: infinities")
        fin = np.isfinite(w)
        np.testing.assert_allclose(g64[fin], w[fin], rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(g, w.astype(dtype), err_msg=what)


def raises(fn, what=""):
    """`fn()` raises a Python exception (a Rust panic is a BaseException, not caught)."""
    with pytest.raises(Exception) as info:
        fn()
    assert str(info.value), f"{what}: an exception without a message"


def draw_viewed(data, dtype=None, shape=None, special=False, lo=-8.0, hi=8.0):
    if dtype is None:
        dtype = data.draw(st.sampled_from(REAL))
    if shape is None:
        shape = data.draw(shapes)
    return data.draw(viewed(dtype, shape=shape, special=special, lo=lo, hi=hi))


def index_tensor(idx, dtype="int64"):
    return paddle.to_tensor(np.asarray(idx, dtype=dtype))


# ---------------------------------------------------------------- creation and attributes
@FUZZ
@given(st.data())
def test_to_tensor_and_attributes(data):
    kind = data.draw(st.sampled_from(["float", "int", "bool"]))
    shape = data.draw(shapes)
    el = {"float": st.floats(-1e3, 1e3), "int": st.integers(-(2**40), 2**40)}.get(
        kind, st.booleans()
    )
    a = data.draw(hnp.arrays(object, shape, elements=el))
    lst = a.tolist()
    # Paddle's defaults: Python floats float32, ints int64, bools bool (an empty list:
    # float32); stop_gradient True
    want_dtype = {"float": "float32", "int": "int64", "bool": "bool"}[kind]
    ref = np.array(lst, dtype={"float": float, "int": np.int64, "bool": bool}[kind])
    shape = ref.shape  # a size-0 dim before the last is lost in the list
    if ref.size == 0:
        want_dtype = "float32"
    kw = data.draw(st.sampled_from([{}, {"place": paddle.CPUPlace()}]))
    t = paddle.to_tensor(lst, **kw)
    CALLS["to_tensor"] += 1
    chk(t, ref.astype(want_dtype), want_dtype, "to_tensor")
    assert t.stop_gradient is True and t.requires_grad is False
    # attributes in Paddle's spelling
    n = int(np.prod(shape, dtype=np.int64))
    assert t.shape == list(shape) and list(t.shape) == list(shape)
    assert t.size == n and isinstance(t.size, int)
    assert t.size() == list(shape)
    assert t.dim() == t.ndimension() == len(shape) == t.ndim
    CALLS["attributes"] += 1
    r = paddle.rank(t)
    assert int(r) == len(shape) and r.shape == []
    m = paddle.numel(t)  # Paddle: a 0-d int64 Tensor
    assert m.dtype.name == "int64" and m.shape == [] and int(m) == n
    assert paddle.shape(t).numpy().tolist() == list(shape)
    # an explicit dtype, and a float tensor that requires grad
    dt = data.draw(st.sampled_from(REAL))
    if dt == "int32" or (kind == "float" and dt == "int64"):
        assume(np.all(np.abs(ref) < 2**31))  # out of range: OverflowError (docs/tensors.md)
    t2 = paddle.to_tensor(lst, dtype=dt)
    CALLS["to_tensor"] += 1
    chk(t2, ref.astype(np.float64).astype(dt) if kind == "float" else ref.astype(dt), dt, "dt")
    if dt in FLOATS:
        t3 = paddle.to_tensor(lst, dtype=dt, stop_gradient=False)
        assert t3.stop_gradient is False and t3.requires_grad is True and t3.is_leaf
    # x.numpy() copies in Paddle code
    arr = t2.numpy()
    if arr.size:
        flat = arr.reshape(-1)
        flat[0] = not flat[0] if dt == "bool" else (0 if flat[0] != 0 else 1)
        assert not np.array_equal(t2.numpy(), arr), "numpy() must copy in Paddle code"


@FUZZ
@given(st.data())
def test_cast_and_astype(data):
    src = data.draw(st.sampled_from(REAL))
    dst = data.draw(st.sampled_from(REAL))
    a, t = draw_viewed(data, src, special=False, lo=-100, hi=100)
    CALLS["cast"] += 1
    # floats truncate toward zero (docs/tensors.md); NumPy's astype does too
    want = a.astype(dst)
    chk(paddle.cast(t, dst), want, dst, f"cast {src}->{dst}")
    chk(t.astype(dst), want, dst, f"astype {src}->{dst}")
    chk(t.astype(getattr(paddle, dst)), want, dst, "astype(paddle.dtype)")


@FUZZ
@given(st.data())
def test_creation(data):
    what = data.draw(
        st.sampled_from(
            [
                "linspace",
                "arange_i",
                "arange_f",
                "full",
                "zeros",
                "ones",
                "eye",
                "diag",
                "tril",
                "triu",
            ]
        )
    )
    CALLS["creation"] += 1
    if what == "linspace":
        start, stop = data.draw(st.floats(-10, 10)), data.draw(st.floats(-10, 10))
        num = data.draw(st.integers(0, 7))
        dt = data.draw(st.sampled_from([None, "float32", "float64"]))
        got = paddle.linspace(start, stop, num, dtype=dt)
        want = np.linspace(np.float64(start), np.float64(stop), num)
        chk(got, want, dt or "float32", "linspace", rtol=1e-5, atol=1e-5)
    elif what == "arange_i":
        start, end = data.draw(st.integers(-10, 10)), data.draw(st.integers(-10, 10))
        step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
        if (end - start) * step < 0:  # Paddle's GetSize refuses a step of the wrong sign
            raises(lambda: paddle.arange(start, end, step), "arange step sign")
        else:
            chk(paddle.arange(start, end, step), np.arange(start, end, step), "int64", "arange")
        chk(paddle.arange(abs(end)), np.arange(abs(end)), "int64", "arange(n)")
    elif what == "arange_f":
        start = data.draw(st.sampled_from([0.0, 0.5, -1.25, 2.0]))
        end = start + data.draw(st.sampled_from([0.0, 1.0, 2.5, 3.75]))
        step = data.draw(st.sampled_from([0.25, 0.5, 1.0]))
        chk(paddle.arange(start, end, step), np.arange(start, end, step), "float32", "arange f")
        chk(
            paddle.arange(start, end, step, dtype="float64"),
            np.arange(start, end, step),
            "float64",
            "arange f64",
        )
    elif what == "full":
        shape = list(data.draw(shapes))
        v = data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5)))
        dt = data.draw(st.sampled_from([None, "float64", "int32", "int64"]))
        if dt in ("int32", "int64"):
            v = int(v)
        got = paddle.full(shape, v, dtype=dt)
        # Paddle: full(shape, int) is float32 (docs/dialects.md)
        chk(got, np.full(shape, v, dtype=dt or "float32"), dt or "float32", "full")
    elif what in ("zeros", "ones"):
        shape = list(data.draw(shapes))
        dt = data.draw(st.sampled_from([None, "float64", "int32", "int64", "bool"]))
        got = getattr(paddle, what)(shape, dtype=dt)
        chk(got, getattr(np, what)(shape, dtype=dt or "float32"), dt or "float32", what)
    elif what == "eye":
        n, m = data.draw(st.integers(0, 4)), data.draw(st.one_of(st.none(), st.integers(0, 4)))
        dt = data.draw(st.sampled_from([None, "float64", "int32", "int64"]))
        chk(paddle.eye(n, m, dtype=dt), np.eye(n, m, dtype=dt or "float32"), dt or "float32", "eye")
    elif what == "diag":
        nd = data.draw(st.sampled_from([1, 2]))
        shape = data.draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd).map(tuple))
        dt = data.draw(st.sampled_from(NUM))
        a, t = draw_viewed(data, dt, shape)
        off = data.draw(st.integers(-3, 3))
        if nd == 1:
            pad = data.draw(st.sampled_from([0, 1, 7]))
            n = a.shape[0] + abs(off)
            want = np.full((n, n), pad, dtype=dt)
            want = np.where(np.eye(n, k=off, dtype=bool), np.diag(a, off), want)
            chk(paddle.diag(t, offset=off, padding_value=pad), want, dt, "diag 1-d")
        else:
            chk(paddle.diag(t, offset=off), np.diagonal(a, off), dt, "diag 2-d")
    else:
        shape = data.draw(st.lists(side, min_size=2, max_size=4).map(tuple))
        a, t = draw_viewed(data, shape=shape)
        k = data.draw(st.integers(-4, 4))
        ref = np.tril if what == "tril" else np.triu
        chk(getattr(paddle, what)(t, diagonal=k), ref(a, k), a.dtype.name, what)


# ---------------------------------------------------------------- shapes
def reshape_target(data, shape):
    """A target of `shape`'s element count using Paddle's 0 (copy the input's size at the
    same index) and one -1."""
    n = int(np.prod(shape, dtype=np.int64))
    j = data.draw(st.integers(0, len(shape)))
    target = list(shape[:j]) + ([int(np.prod(shape[j:], dtype=np.int64))] if j < len(shape) else [])
    target += [1] * data.draw(st.integers(0, 1))
    out = list(target)
    for i in range(len(out)):
        if i < len(shape) and target[i] == shape[i] and data.draw(st.booleans()):
            out[i] = 0
    rest = [i for i in range(len(out)) if out[i] != 0]
    if rest and n > 0 and data.draw(st.booleans()):
        out[data.draw(st.sampled_from(rest))] = -1
    return out, target


def unsqueeze_ref(a, axes):
    shp = list(a.shape)
    for ax in axes:
        ax = ax + len(shp) + 1 if ax < 0 else ax
        shp.insert(ax, 1)
    return a.reshape(shp)


@FUZZ
@given(st.data())
def test_shape_ops(data):
    a, t = draw_viewed(data)
    nd = a.ndim
    what = data.draw(
        st.sampled_from(
            [
                "reshape",
                "flatten",
                "squeeze",
                "unsqueeze",
                "transpose",
                "moveaxis",
                "flip",
                "roll",
                "rot90",
            ]
        )
    )
    CALLS["shape:" + what] += 1
    dt = a.dtype.name
    if what == "reshape":
        target, want_shape = reshape_target(data, a.shape)
        if a.size == 0:  # docs/dialects.md: an empty input keeps PyTorch's 0 (a size of 0)
            want_shape = [0 if v == 0 else w for v, w in zip(target, want_shape)]
        chk(paddle.reshape(t, target), a.reshape(want_shape), dt, f"reshape {target}")
        chk(t.reshape(target), a.reshape(want_shape), dt, "x.reshape")
    elif what == "flatten":
        if nd == 0:
            chk(paddle.flatten(t), a.reshape(1), dt, "flatten 0-d")
            return
        s = data.draw(st.integers(-nd, nd - 1))
        e = data.draw(st.integers(s % nd, nd - 1))
        s0 = s % nd
        mid = int(np.prod(a.shape[s0 : e + 1], dtype=np.int64))
        want = a.reshape(a.shape[:s0] + (mid,) + a.shape[e + 1 :])
        chk(paddle.flatten(t, start_axis=s, stop_axis=e), want, dt, f"flatten {s} {e}")
    elif what == "squeeze":
        if nd == 0:
            chk(paddle.squeeze(t), a, dt, "squeeze 0-d")
            return
        axes = data.draw(
            st.lists(st.integers(-nd, nd - 1), max_size=nd, unique_by=lambda v: v % nd)
        )
        # Paddle: a listed axis whose size is not 1 is left as it is
        drop = tuple(sorted({ax % nd for ax in axes if a.shape[ax] == 1}))
        form = data.draw(st.sampled_from(["list", "int", "none"]))
        if form == "none":
            chk(paddle.squeeze(t), np.squeeze(a), dt, "squeeze()")
        elif form == "int" and axes:
            one = tuple(ax % nd for ax in axes[:1] if a.shape[ax] == 1)
            chk(paddle.squeeze(t, axis=axes[0]), np.squeeze(a, one), dt, "squeeze int")
        else:
            chk(paddle.squeeze(t, axis=axes), np.squeeze(a, drop), dt, f"squeeze {axes}")
    elif what == "unsqueeze":
        k = data.draw(st.integers(1, 3))
        axes = []
        for i in range(k):
            r = nd + i + 1
            axes.append(data.draw(st.integers(-r, r - 1)))
        # Paddle inserts the axes one by one, each into the shape built so far
        want = unsqueeze_ref(a, axes)
        chk(paddle.unsqueeze(t, axis=axes), want, dt, f"unsqueeze {axes}")
        chk(paddle.unsqueeze(t, axis=axes[0]), unsqueeze_ref(a, axes[:1]), dt, "unsqueeze int")
    elif what == "transpose":
        perm = data.draw(st.permutations(range(nd)))
        chk(paddle.transpose(t, perm=list(perm)), np.transpose(a, perm), dt, f"transpose {perm}")
        chk(t.transpose(list(perm)), np.transpose(a, perm), dt, "x.transpose(perm)")
    elif what == "moveaxis":
        if nd == 0:
            return
        k = data.draw(st.integers(1, nd))
        src = data.draw(st.permutations(range(nd)))[:k]
        dst = data.draw(st.permutations(range(nd)))[:k]
        src = [s - nd if data.draw(st.booleans()) else s for s in src]
        chk(paddle.moveaxis(t, src, dst), np.moveaxis(a, src, dst), dt, "moveaxis")
    elif what == "flip":
        if nd == 0:
            chk(paddle.flip(t, axis=[]), a, dt, "flip 0-d")
            return
        axes = data.draw(
            st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda v: v % nd)
        )
        ax = axes if len(axes) > 1 or data.draw(st.booleans()) else axes[0]
        chk(paddle.flip(t, axis=ax), np.flip(a, tuple(axes)), dt, f"flip {ax}")
    elif what == "roll":
        if nd == 0 or data.draw(st.booleans()):
            sh = data.draw(st.integers(-7, 7))
            chk(
                paddle.roll(t, shifts=sh),
                np.roll(a.reshape(-1), sh).reshape(a.shape),
                dt,
                "roll flat",
            )
            return
        axes = data.draw(
            st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda v: v % nd)
        )
        shifts = [data.draw(st.integers(-7, 7)) for _ in axes]
        chk(
            paddle.roll(t, shifts=shifts, axis=axes),
            np.roll(a, shifts, tuple(axes)),
            dt,
            f"roll {shifts} {axes}",
        )
    else:  # rot90
        if nd < 2:
            return
        i, j = data.draw(st.permutations(range(nd)))[:2]
        k = data.draw(st.integers(-5, 5))
        chk(paddle.rot90(t, k=k, axes=[i, j]), np.rot90(a, k, (i, j)), dt, f"rot90 {k} {i},{j}")


@FUZZ
@given(st.data())
def test_join_and_split(data):
    shape = data.draw(nonempty)
    nd = len(shape)
    dt = data.draw(st.sampled_from(REAL))
    axis = data.draw(st.integers(-nd, nd - 1))
    ax = axis % nd
    what = data.draw(st.sampled_from(["concat", "stack", "split", "chunk", "unbind"]))
    CALLS["join:" + what] += 1
    if what == "concat":
        k = data.draw(st.integers(1, 3))
        parts = []
        for _ in range(k):
            s = list(shape)
            s[ax] = data.draw(st.integers(0, 3))
            parts.append(draw_viewed(data, dt, tuple(s)))
        got = paddle.concat([p[1] for p in parts], axis=axis)
        chk(got, np.concatenate([p[0] for p in parts], axis=ax), dt, "concat")
    elif what == "stack":
        k = data.draw(st.integers(1, 3))
        parts = [draw_viewed(data, dt, shape) for _ in range(k)]
        sax = data.draw(st.integers(-nd - 1, nd))
        chk(
            paddle.stack([p[1] for p in parts], axis=sax),
            np.stack([p[0] for p in parts], sax),
            dt,
            "stack",
        )
    elif what == "split":
        a, t = draw_viewed(data, dt, shape)
        n = shape[ax]
        if data.draw(st.booleans()):
            divs = [d for d in range(1, n + 1) if n % d == 0]
            num = data.draw(st.sampled_from(divs))
            want = np.split(a, num, axis=ax)
            # Paddle code: an int is the number of sections, in the function and the method
            got = paddle.split(t, num, axis=axis)
            got2 = t.split(num, axis) if ax else t.split(num)
        else:
            secs = []
            left = n
            while left > 0 and len(secs) < 3:
                s = data.draw(st.integers(0, left))
                secs.append(s)
                left -= s
            secs.append(left)
            want = np.split(a, np.cumsum(secs)[:-1], axis=ax)
            arg = list(secs)
            if data.draw(st.booleans()):
                arg[data.draw(st.integers(0, len(arg) - 1))] = -1
            got = paddle.split(t, num_or_sections=arg, axis=axis)
            got2 = paddle.split(t, arg, axis)
        for g_list in (got, got2):
            assert len(g_list) == len(want)
            for g, w in zip(g_list, want):
                chk(g, w, dt, "split")
    elif what == "chunk":
        a, t = draw_viewed(data, dt, shape)
        n = shape[ax]
        num = data.draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
        got = paddle.chunk(t, num, axis=axis)
        want = np.split(a, num, axis=ax)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            chk(g, w, dt, "chunk")
    else:
        a, t = draw_viewed(data, dt, shape)
        got = paddle.unbind(t, axis=axis)
        assert len(got) == shape[ax]
        for i, g in enumerate(got):
            chk(g, np.take(a, i, axis=ax), dt, "unbind")


@FUZZ
@given(st.data())
def test_slice_and_strided_slice(data):
    a, t = draw_viewed(data, shape=data.draw(nonempty))
    nd = a.ndim
    dt = a.dtype.name
    axes = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    starts = [data.draw(st.integers(-8, 8)) for _ in axes]
    ends = [data.draw(st.integers(-8, 8)) for _ in axes]
    CALLS["slice"] += 1
    # Paddle's slice: negative bounds count from the end, out-of-range ones clamp
    idx = [slice(None)] * nd
    for ax, s, e in zip(axes, starts, ends):
        idx[ax] = slice(s, e)
    chk(paddle.slice(t, axes=axes, starts=starts, ends=ends), a[tuple(idx)], dt, "slice")
    strides = [data.draw(st.sampled_from([1, 2, 3, -1, -2, -3])) for _ in axes]
    idx = [slice(None)] * nd
    for ax, s, e, k in zip(axes, starts, ends, strides):
        idx[ax] = slice(s, e, k)
    CALLS["strided_slice"] += 1
    got = paddle.strided_slice(t, axes=axes, starts=starts, ends=ends, strides=strides)
    chk(got, a[tuple(idx)], dt, f"strided_slice {axes} {starts} {ends} {strides}")


@FUZZ
@given(st.data())
def test_expand_tile_repeat(data):
    what = data.draw(
        st.sampled_from(
            ["expand", "expand_as", "broadcast_to", "tile", "repeat_interleave", "meshgrid"]
        )
    )
    CALLS["expand:" + what] += 1
    if what in ("expand", "expand_as", "broadcast_to"):
        shape = data.draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
        a, t = draw_viewed(data, shape=shape)
        lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
        target = lead + [s if s != 1 else data.draw(st.integers(0, 3)) for s in shape]
        want = np.broadcast_to(a, target)
        dt = a.dtype.name
        if what == "expand":
            arg = [
                (
                    -1
                    if i >= len(lead)
                    and data.draw(st.booleans())
                    and target[i] == shape[i - len(lead)]
                    else v
                )
                for i, v in enumerate(target)
            ]
            chk(paddle.expand(t, arg), want, dt, f"expand {arg}")
            chk(t.expand(arg), want, dt, "x.expand")
        elif what == "broadcast_to":
            chk(paddle.broadcast_to(t, target), want, dt, "broadcast_to")
        else:
            y = paddle.zeros(target, dtype="float64")
            chk(paddle.expand_as(t, y), want, dt, "expand_as")
    elif what == "tile":
        a, t = draw_viewed(data, shape=data.draw(st.lists(side, max_size=3).map(tuple)))
        reps = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
        chk(paddle.tile(t, repeat_times=reps), np.tile(a, reps), a.dtype.name, f"tile {reps}")
    elif what == "repeat_interleave":
        a, t = draw_viewed(data, shape=data.draw(st.lists(side, max_size=3).map(tuple)))
        if a.ndim == 0 or data.draw(st.booleans()):
            r = data.draw(st.integers(0, 3))
            chk(
                paddle.repeat_interleave(t, r),
                np.repeat(a.reshape(-1), r),
                a.dtype.name,
                "repeat_interleave flat",
            )
            return
        ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
        if data.draw(st.booleans()):
            r = data.draw(st.integers(0, 3))
            want = np.repeat(a, r, axis=ax)
        else:
            r = data.draw(st.lists(st.integers(0, 3), min_size=a.shape[ax], max_size=a.shape[ax]))
            want = np.repeat(a, r, axis=ax)
            r = index_tensor(r)
        chk(paddle.repeat_interleave(t, r, axis=ax), want, a.dtype.name, "repeat_interleave")
    else:
        dt = data.draw(st.sampled_from(NUM))
        k = data.draw(st.integers(1, 3))
        parts = [draw_viewed(data, dt, (data.draw(st.integers(0, 3)),)) for _ in range(k)]
        got = paddle.meshgrid(*[p[1] for p in parts])
        want = np.meshgrid(*[p[0] for p in parts], indexing="ij")
        assert len(got) == k
        for g, w in zip(got, want):
            chk(g, w, dt, "meshgrid")
        got = paddle.meshgrid([p[1] for p in parts])
        for g, w in zip(got, want):
            chk(g, w, dt, "meshgrid(list)")


# ---------------------------------------------------------------- gather / scatter family
@FUZZ
@given(st.data())
def test_gather_family(data):
    shape = data.draw(nonempty)
    nd = len(shape)
    a, t = draw_viewed(data, shape=shape, special=True)
    dt = a.dtype.name
    idt = data.draw(st.sampled_from(["int32", "int64"]))
    what = data.draw(
        st.sampled_from(
            [
                "gather",
                "gather_nd",
                "index_select",
                "take_along_axis",
                "masked_select",
                "masked_fill",
                "where3",
                "nonzero",
            ]
        )
    )
    CALLS["gather:" + what] += 1
    ax = data.draw(st.integers(-nd, nd - 1))
    n = shape[ax]
    if what == "gather":
        idx = data.draw(
            st.lists(st.integers(-n if data.draw(st.booleans()) else 0, n - 1), max_size=5)
        )
        want = np.take(a, np.asarray(idx, dtype=np.int64), axis=ax)
        chk(paddle.gather(t, index_tensor(idx, idt), axis=ax), want, dt, f"gather {idx} {ax}")
        if ax % nd == 0:
            chk(paddle.gather(t, index_tensor(idx, idt)), want, dt, "gather default axis")
        # a 0-d index drops the axis (Paddle's GatherInferMeta)
        i = data.draw(st.integers(-n, n - 1))
        got = paddle.gather(t, index_tensor(i, idt), axis=ax)
        chk(got, np.take(a, i, axis=ax), dt, f"gather 0-d index {i} {ax}")
    elif what == "gather_nd":
        k = data.draw(st.integers(1, nd))
        lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
        idx = np.zeros(lead + [k], dtype=np.int64)
        for j in range(k):
            idx[..., j] = data.draw(
                hnp.arrays(np.int64, tuple(lead), elements=st.integers(0, shape[j] - 1))
            )
        want = a[tuple(idx[..., j] for j in range(k))]
        chk(paddle.gather_nd(t, index_tensor(idx, idt)), want, dt, "gather_nd")
    elif what == "index_select":
        idx = data.draw(st.lists(st.integers(0, n - 1), max_size=5))
        want = np.take(a, np.asarray(idx, dtype=np.int64), axis=ax)
        chk(paddle.index_select(t, index_tensor(idx, idt), axis=ax), want, dt, "index_select")
    elif what == "take_along_axis":
        s = list(shape)
        s[ax] = data.draw(st.integers(0, 4))
        idx = data.draw(hnp.arrays(np.int64, tuple(s), elements=st.integers(0, n - 1)))
        want = np.take_along_axis(a, idx, axis=ax)
        chk(paddle.take_along_axis(t, index_tensor(idx, idt), axis=ax), want, dt, "take_along_axis")
    elif what == "masked_select":
        mshape = tuple(s if data.draw(st.booleans()) else 1 for s in shape)
        m = data.draw(hnp.arrays(bool, mshape))
        want = a[np.broadcast_to(m, shape)]
        chk(paddle.masked_select(t, paddle.to_tensor(m)), want, dt, "masked_select")
    elif what == "masked_fill":
        mshape = tuple(s if data.draw(st.booleans()) else 1 for s in shape)
        m = data.draw(hnp.arrays(bool, mshape))
        v = {"bool": True, "int32": 5, "int64": -3}.get(dt, 2.5)
        chk(
            paddle.masked_fill(t, paddle.to_tensor(m), v),
            np.where(m, np.asarray(v, dt), a),
            dt,
            "masked_fill",
        )
    elif what == "where3":
        b, u = draw_viewed(data, dt, shape, special=True)
        c = data.draw(hnp.arrays(bool, shape))
        chk(paddle.where(paddle.to_tensor(c), t, u), np.where(c, a, b), dt, "where")
    else:
        nzw = np.stack(np.nonzero(a), axis=1).astype(np.int64)
        chk(paddle.nonzero(t), nzw, "int64", "nonzero")
        # Paddle's as_tuple pieces are [z, 1] columns
        got = paddle.nonzero(t, as_tuple=True)
        assert len(got) == nd
        for j, g in enumerate(got):
            chk(g, nzw[:, j : j + 1], "int64", "nonzero as_tuple")
        # where(c) gives [z] pieces, Paddle [z, 1] (test_nonzero_as_tuple_shape_regression):
        # only the values are compared here
        got = paddle.where(t.astype("bool"))
        assert len(got) == nd
        for j, g in enumerate(got):
            np.testing.assert_array_equal(g.numpy().reshape(-1), nzw[:, j])


@FUZZ
@given(st.data())
def test_scatter_family(data):
    what = data.draw(
        st.sampled_from(["scatter", "scatter_add", "scatter_nd_add", "put_along_axis"])
    )
    dt = data.draw(st.sampled_from(NUM))
    idt = data.draw(st.sampled_from(["int32", "int64"]))
    CALLS["scatter:" + what] += 1
    if what in ("scatter", "scatter_add"):
        shape = data.draw(nonempty)
        a, t = draw_viewed(data, dt, shape)
        n = shape[0]
        if what == "scatter":  # overwrite: distinct rows (a repeated one is any of them)
            idx = data.draw(st.permutations(range(n)))[: data.draw(st.integers(0, n))]
        else:
            idx = data.draw(st.lists(st.integers(0, n - 1), max_size=5))
        u, ut = draw_viewed(data, dt, (len(idx),) + shape[1:])
        want = a.copy()
        if what == "scatter":
            want[np.asarray(idx, dtype=np.int64)] = u
            got = paddle.scatter(t, index_tensor(idx, idt), ut)
        else:
            # overwrite=False: the indexed rows are zeroed, then the updates added
            want[np.asarray(idx, dtype=np.int64)] = 0
            np.add.at(want, np.asarray(idx, dtype=np.int64), u)
            got = paddle.scatter(t, index_tensor(idx, idt), ut, overwrite=False)
        chk(got, want, dt, what)
        chk(t, a, dt, "scatter leaves x alone")
    elif what == "scatter_nd_add":
        shape = data.draw(nonempty)
        k = data.draw(st.integers(1, len(shape)))
        lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
        idx = np.zeros(lead + [k], dtype=np.int64)
        for j in range(k):
            idx[..., j] = data.draw(
                hnp.arrays(np.int64, tuple(lead), elements=st.integers(0, shape[j] - 1))
            )
        a, t = draw_viewed(data, dt, shape)
        u, ut = draw_viewed(data, dt, tuple(lead) + shape[k:])
        want = a.copy()
        np.add.at(want, tuple(idx[..., j] for j in range(k)), u)
        chk(paddle.scatter_nd_add(t, index_tensor(idx, idt), ut), want, dt, "scatter_nd_add")
    else:
        shape = data.draw(nonempty)
        nd = len(shape)
        ax = data.draw(st.integers(-nd, nd - 1))
        n = shape[ax]
        # the mean of ints rounds toward zero in Paddle code (Paddle divides in the int type)
        reduces = ["assign", "add", "multiply", "mul", "amax", "amin", "mean"]
        reduce = data.draw(st.sampled_from(reduces))
        include_self = data.draw(st.booleans()) if reduce != "assign" else True
        a, t = draw_viewed(data, dt, shape, lo=-4, hi=4)
        s = list(shape)
        s[ax] = data.draw(st.integers(1, n)) if reduce == "assign" else data.draw(st.integers(1, 4))
        if reduce == "assign":  # distinct targets along the axis
            perm = data.draw(st.permutations(range(n)))[: s[ax]]
            idx = np.moveaxis(
                np.broadcast_to(
                    np.asarray(perm, np.int64), tuple(np.moveaxis(np.empty(s), ax, -1).shape)
                ),
                -1,
                ax,
            )
        else:
            idx = data.draw(hnp.arrays(np.int64, tuple(s), elements=st.integers(0, n - 1)))
        v, vt = draw_viewed(data, dt, tuple(s), lo=-4, hi=4)
        want = a.astype(np.float64).copy()
        am = np.moveaxis(want, ax, -1)
        im, vm = np.moveaxis(idx, ax, -1), np.moveaxis(v.astype(np.float64), ax, -1)
        # Paddle: the targets of a reduce start from x (include_self) or from the first
        # value written; mean divides by the count (plus one for x)
        acc = {}
        for pos in np.ndindex(im.shape):
            key = pos[:-1] + (int(im[pos]),)
            acc.setdefault(key, []).append(vm[pos])
        for key, vals in acc.items():
            base = [am[key]] if include_self else []
            allv = base + vals
            if reduce == "assign":
                am[key] = vals[-1]
            elif reduce == "add":
                am[key] = sum(allv)
            elif reduce in ("multiply", "mul"):
                am[key] = np.prod(allv)
            elif reduce == "mean":
                m = sum(allv) / len(allv)
                am[key] = math.trunc(m) if dt.startswith("int") else m
            elif reduce == "amax":
                am[key] = max(allv)
            else:
                am[key] = min(allv)
        kw = {} if reduce == "assign" and data.draw(st.booleans()) else {"reduce": reduce}
        if reduce != "assign":
            kw["include_self"] = include_self
        got = paddle.put_along_axis(t, index_tensor(idx, idt), vt, axis=ax, **kw)
        if dt.startswith("int"):
            with np.errstate(over="ignore"):
                want = want.astype(np.int64).astype(dt) if np.all(np.abs(want) < 2**62) else None
            assume(want is not None)
        chk(got, want, dt, f"put_along_axis {reduce} self={include_self}")


# ---------------------------------------------------------------- reductions
def ref_logsumexp(x, axes, keep):
    m = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return out if keep else np.squeeze(out, axis=axes)


def axis_arg(data, nd):
    """Paddle's axis forms: None, an int, a list (unique dims)."""
    form = data.draw(st.sampled_from(["none", "int", "list"]))
    if form == "none" or nd == 0:
        return None, tuple(range(nd))
    if form == "int":
        ax = data.draw(st.integers(-nd, nd - 1))
        return ax, (ax % nd,)
    # (an empty list reduces every axis, in Paddle and PyTorch)
    axes = data.draw(
        st.lists(st.integers(-nd, nd - 1), min_size=0, max_size=nd, unique_by=lambda v: v % nd)
    )
    return axes, tuple(sorted(a % nd for a in axes)) if axes else tuple(range(nd))


@FUZZ
@given(st.data())
def test_reductions(data):
    name = data.draw(
        st.sampled_from(["sum", "mean", "max", "min", "prod", "all", "any", "logsumexp"])
    )
    dt = data.draw(st.sampled_from(REAL if name in ("all", "any", "sum", "max", "min") else NUM))
    if name == "logsumexp":
        dt = data.draw(st.sampled_from(FLOATS))
    a, t = draw_viewed(data, dt, lo=-3, hi=3, special=dt in FLOATS and name != "prod")
    nd = a.ndim
    axis, axes = axis_arg(data, nd)
    keep = data.draw(st.booleans())
    fn = getattr(paddle, name)
    CALLS["reduce:" + name] += 1
    reduced = int(np.prod([a.shape[i] for i in axes], dtype=np.int64))
    if name in ("max", "min") and reduced == 0:
        out_shape = np.sum(a, axis=axes, keepdims=keep).shape
        if int(np.prod(out_shape)) > 0:
            raises(lambda: fn(t, axis=axis, keepdim=keep), f"{name} of nothing")
        else:  # no value to compute: an empty result or an error
            try:
                got = fn(t, axis=axis, keepdim=keep)
            except Exception:
                return
            assert got.shape == list(out_shape), f"{name}: shape {got.shape}"
        return
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        if name == "sum":
            want, odt = (
                np.sum(x, axis=axes, keepdims=keep),
                ("int64" if dt in ("bool", "int32") else dt),
            )
        elif name == "mean":
            w = (
                np.sum(x, axis=axes, keepdims=keep) / reduced
                if reduced
                else np.full(np.sum(x, axis=axes, keepdims=keep).shape, np.nan)
            )
            # Paddle code: the mean of ints keeps the int dtype, rounded toward zero
            if dt.startswith("int"):
                assume(reduced > 0)
                w = np.trunc(w)
            want, odt = w, dt
        elif name in ("max", "min"):
            r = np.max if name == "max" else np.min
            want, odt = r(x, axis=axes, keepdims=keep), dt
            if dt == "bool":
                want = want.astype(bool)
        elif name == "prod":
            want = np.prod(
                a.astype(np.int64) if dt.startswith("int") else x, axis=axes, keepdims=keep
            )
            odt = (
                "int64" if dt.startswith("int") else dt
            )  # docs/tensors.md: ints accumulate in int64
        elif name in ("all", "any"):
            r = np.all if name == "all" else np.any
            want, odt = r(a.astype(bool), axis=axes, keepdims=keep), "bool"
        else:
            want, odt = ref_logsumexp(x, axes, keep), dt
    got = fn(t, axis=axis, keepdim=keep)
    if odt == "bool" and name not in ("all", "any"):
        chk(got, want.astype(bool), odt, name)
    else:
        chk(
            got,
            want,
            odt,
            f"{name} axis={axis} keepdim={keep}",
            rtol=1e-5 if odt == "float32" else None,
            atol=1e-5 * (1 + np.nanmax(np.abs(x[np.isfinite(x)]), initial=0)) * max(reduced, 1)
            if odt == "float32"
            else None,
        )
    if name in ("sum", "mean", "max", "min", "prod") and data.draw(st.booleans()):
        m = getattr(t, name)(axis=axis, keepdim=keep)
        chk(m, got.numpy(), odt, f"x.{name}")


@FUZZ
@given(st.data())
def test_dialect_shared_spellings(data):
    """Shared spellings that Paddle code reads Paddle's way (docs/dialects.md)."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=3).map(tuple))
    a, t = draw_viewed(data, data.draw(st.sampled_from(FLOATS)), shape)
    dt = a.dtype.name
    ax = data.draw(st.integers(0, len(shape) - 1))
    CALLS["dialect"] += 1
    chk(paddle.max(t, ax), np.max(a, axis=ax), dt, "max(x, 1) is the values")
    chk(paddle.min(t, ax), np.min(a, axis=ax), dt, "min(x, 1) is the values")
    chk(t.max(ax), np.max(a, axis=ax), dt, "x.max(1)")
    chk(paddle.sort(t, ax), np.sort(a, axis=ax), dt, "sort(x, 1) is the values")
    b = a.copy()
    b.reshape(-1)[::2] = 0
    chk(paddle.equal(t, paddle.to_tensor(b)), a == b, "bool", "equal is elementwise")
    chk(paddle.not_equal(t, paddle.to_tensor(b)), a != b, "bool", "not_equal")
    got = paddle.allclose(t, paddle.to_tensor(b))
    chk(got, np.asarray(np.allclose(a, b)), "bool", "allclose is a 0-d bool tensor")
    chk(
        paddle.equal_all(t, paddle.to_tensor(b)),
        np.asarray(np.array_equal(a, b)),
        "bool",
        "equal_all",
    )
    flat = a.reshape(-1)
    med = np.median(flat)  # the mean of the two middle values (Paddle's 'avg')
    chk(paddle.median(t), med, dt, "median(x) is the average of the middle pair")
    vals = np.sort(flat)
    chk(paddle.median(t, mode="min"), vals[(flat.size - 1) // 2], dt, "median mode=min")
    # histogram(x, 3): Paddle's int64 counts
    lo, hi = float(flat.min()), float(flat.max())
    if lo < hi:
        edges = np.linspace(lo, hi, 4)
        cnt = np.histogram(flat.astype(np.float64), bins=3, range=(lo, hi))[0]
        got = paddle.histogram(t, 3)
        assert got.dtype.name == "int64" and got.shape == [3]
        # float32 rounding of the bin edges may move an element that sits on an edge
        if not np.isin(flat, edges[1:-1]).any():
            chk(got, cnt, "int64", "histogram(x, 3)")


# 0-d operand promotion in Paddle code (docs/dialects.md, "a 0-d tensor operand of another
# dtype"): one category keeps the tensor's dtype in + - * / % and comparisons; two
# categories, maximum/minimum, //, where promote as two tensors
CAT = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}
WIDTH = {"bool": 1, "int32": 4, "int64": 8, "float32": 4, "float64": 8}


def two_tensor_promote(p, q):
    if CAT[p] != CAT[q]:
        return p if CAT[p] > CAT[q] else q
    return p if WIDTH[p] >= WIDTH[q] else q


@FUZZ
@given(st.data())
def test_zero_dim_operand_promotion(data):
    dx = data.draw(st.sampled_from(NUM))
    ds = data.draw(st.sampled_from(NUM))
    assume(dx != ds)
    a, t = draw_viewed(data, dx, data.draw(nonempty), lo=1, hi=5)
    s = np.asarray(data.draw(st.integers(1, 4)), dtype=ds)
    st_ = paddle.to_tensor(s, dtype=ds)
    op = data.draw(st.sampled_from(["+", "-", "*", "maximum", "minimum", "where", "<", "=="]))
    CALLS["promote0d"] += 1
    same_cat = CAT[dx] == CAT[ds]
    two = two_tensor_promote(dx, ds)
    if op in ("+", "-", "*"):
        want_dt = dx if same_cat else two
        f = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
        got = {"+": lambda: t + st_, "-": lambda: t - st_, "*": lambda: t * st_}[op]()
        want = f(a.astype(np.float64), s.astype(np.float64))
    elif op in ("maximum", "minimum"):
        want_dt = two
        got = getattr(paddle, op)(t, st_)
        want = getattr(np, op)(a.astype(np.float64), s.astype(np.float64))
    elif op == "where":
        want_dt = two
        c = data.draw(hnp.arrays(bool, a.shape))
        got = paddle.where(paddle.to_tensor(c), t, st_)
        want = np.where(c, a.astype(np.float64), s.astype(np.float64))
    else:
        want_dt = "bool"
        got = t < st_ if op == "<" else t == st_
        want = a < s if op == "<" else a == s
    if want_dt.startswith("int"):
        want = np.asarray(want).astype(np.int64)
    chk(
        got,
        np.asarray(want).astype(want_dt) if want_dt != "bool" else want,
        want_dt,
        f"{dx}[...] {op} {ds}[]",
    )


@FUZZ
@given(st.data())
def test_arg_reductions_and_sorts(data):
    dt = data.draw(st.sampled_from(NUM))
    shape = data.draw(nonempty)
    nd = len(shape)
    a, t = draw_viewed(data, dt, shape, lo=-3, hi=3)
    if dt in FLOATS:  # ties matter: round to a few values
        a = np.round(a * 2) / 2
        t = paddle.to_tensor(a, dtype=dt)
    ax = data.draw(st.integers(-nd, nd - 1))
    what = data.draw(st.sampled_from(["argmax", "sort", "topk", "kthvalue", "mode", "unique"]))
    CALLS["sorts:" + what] += 1
    if what == "argmax":
        keep = data.draw(st.booleans())
        idt = data.draw(st.sampled_from([None, "int32", "int64"]))
        kw = {} if idt is None else {"dtype": idt}
        for fn, ref in ((paddle.argmax, np.argmax), (paddle.argmin, np.argmin)):
            if data.draw(st.booleans()):  # axis=None: the flattened index
                want = np.asarray(ref(a.reshape(-1)))
                if keep:
                    want = want.reshape([1] * nd)
                chk(fn(t, keepdim=keep, **kw), want, idt or "int64", f"{fn.__name__} flat")
            else:
                want = ref(a, axis=ax)
                if keep:
                    want = np.expand_dims(want, ax)
                chk(fn(t, axis=ax, keepdim=keep, **kw), want, idt or "int64", fn.__name__)
    elif what == "sort":
        desc = data.draw(st.booleans())
        stable = data.draw(st.booleans())
        key = -a.astype(np.float64) if desc else a
        order = np.argsort(key, axis=ax, kind="stable")
        vals = np.take_along_axis(a, order, axis=ax)
        chk(paddle.sort(t, axis=ax, descending=desc), vals, dt, "sort")
        got = paddle.argsort(t, axis=ax, descending=desc, stable=stable)
        if stable:
            chk(got, order, "int64", "argsort stable")
        else:
            assert got.dtype.name == "int64"
            chk(paddle.take_along_axis(t, got, axis=ax), vals, dt, "argsort order")
    elif what == "topk":
        n = shape[ax]
        k = data.draw(st.integers(1, n))
        largest = data.draw(st.booleans())
        key = -a.astype(np.float64) if largest else a
        order = np.argsort(key, axis=ax, kind="stable")
        vals = np.take(np.take_along_axis(a, order, axis=ax), range(k), axis=ax)
        v, i = paddle.topk(t, k, axis=ax, largest=largest)
        chk(v, vals, dt, "topk values")
        assert i.dtype.name == "int64" and i.shape == list(vals.shape)
        np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), axis=ax), vals)
    elif what == "kthvalue":
        n = shape[ax]
        k = data.draw(st.integers(1, n))
        keep = data.draw(st.booleans())
        want = np.take(np.sort(a, axis=ax), k - 1, axis=ax)
        v, i = paddle.kthvalue(t, k, axis=ax, keepdim=keep)
        if keep:
            want = np.expand_dims(want, ax)
        chk(v, want, dt, "kthvalue")
        assert i.dtype.name == "int64" and i.shape == list(want.shape)
        ii = i.numpy() if keep else np.expand_dims(i.numpy(), ax)
        np.testing.assert_array_equal(np.take_along_axis(a, ii, axis=ax).reshape(want.shape), want)
    elif what == "mode":
        keep = data.draw(st.booleans())
        v, i = paddle.mode(t, axis=ax, keepdim=keep)
        lines = np.moveaxis(a, ax, -1)
        vv = v.numpy() if not keep else np.squeeze(v.numpy(), ax)
        iv = i.numpy() if not keep else np.squeeze(i.numpy(), ax)
        assert v.dtype.name == dt and i.dtype.name == "int64"
        assert vv.shape == lines.shape[:-1]
        for pos in np.ndindex(lines.shape[:-1]):
            line = lines[pos]
            u, c = np.unique(line, return_counts=True)
            # a most frequent value (ties: any of them), at one of its positions
            assert vv[pos] in u[c == c.max()], f"mode {line} -> {vv[pos]}"
            assert line[iv[pos]] == vv[pos]
    else:
        flags = [data.draw(st.booleans()) for _ in range(3)]
        use_axis = data.draw(st.booleans())
        axis = ax if use_axis else None
        ref = np.unique(
            a,
            return_index=flags[0],
            return_inverse=flags[1],
            return_counts=flags[2],
            axis=None if axis is None else ax % nd,
        )
        got = paddle.unique(
            t, return_index=flags[0], return_inverse=flags[1], return_counts=flags[2], axis=axis
        )
        ref = ref if isinstance(ref, tuple) else (ref,)
        got = got if isinstance(got, (tuple, list)) else (got,)
        assert len(got) == len(ref)
        chk(got[0], ref[0], dt, "unique values")
        for g, r in zip(got[1:], ref[1:]):
            # Paddle's inverse of axis=None is 1-D [numel]
            chk(g, np.asarray(r).reshape(-1), "int64", "unique index/inverse/counts")


@FUZZ
@given(st.data())
def test_statistics(data):
    dt = data.draw(st.sampled_from(NUM))
    shape = data.draw(st.lists(side, min_size=0, max_size=3).map(tuple))
    a, t = draw_viewed(data, dt, shape, lo=-5, hi=5)
    nd = a.ndim
    x = a.astype(np.float64)
    what = data.draw(st.sampled_from(["std", "var", "median", "quantile", "norm"]))
    CALLS["stats:" + what] += 1
    fdt = dt if dt in FLOATS else "float32"
    tol = dict(rtol=1e-4, atol=1e-5) if fdt == "float32" else {}
    if what in ("std", "var"):
        axis, axes = axis_arg(data, nd)
        unbiased = data.draw(st.booleans())
        keep = data.draw(st.booleans())
        n = int(np.prod([a.shape[i] for i in axes], dtype=np.int64))
        # Paddle's stat.py var: the unbiased divisor is `where(n > 1, n - 1, 1)`, so one
        # element (or none) gives 0, not NaN
        div = (n - 1 if n > 1 else 1) if unbiased else n
        with np.errstate(all="ignore"):
            dev = x - np.mean(x, axis=axes, keepdims=True)
            v = np.sum(dev * dev, axis=axes, keepdims=keep) / div
            want = v if what == "var" else np.sqrt(v)
        got = getattr(paddle, what)(t, axis=axis, unbiased=unbiased, keepdim=keep)
        chk(got, want, fdt, f"{what} axis={axis} unbiased={unbiased}", **tol)
    elif what == "median":
        assume(a.size > 0)
        if nd == 0 or data.draw(st.booleans()):
            chk(paddle.median(t), np.median(x), fdt, "median")
            return
        ax = data.draw(st.integers(-nd, nd - 1))
        assume(a.shape[ax] > 0)
        keep = data.draw(st.booleans())
        want = np.median(x, axis=ax, keepdims=keep)
        chk(paddle.median(t, axis=ax, keepdim=keep), want, fdt, "median axis", **tol)
    elif what == "quantile":
        assume(a.size > 0 and dt in FLOATS)
        q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3)))
        if nd == 0 or data.draw(st.booleans()):
            want = np.quantile(x, q)
            chk(paddle.quantile(t, q), want, fdt, f"quantile {q}", **tol)
            return
        ax = data.draw(st.integers(-nd, nd - 1))
        assume(a.shape[ax] > 0)
        keep = data.draw(st.booleans())
        want = np.quantile(x, q, axis=ax, keepdims=keep)
        chk(paddle.quantile(t, q, axis=ax, keepdim=keep), want, fdt, f"quantile {q} ax", **tol)
    else:
        assume(dt in FLOATS)
        p = data.draw(st.sampled_from(["fro", 1, 2, 3, np.inf, -np.inf, 0]))
        if p in (np.inf, -np.inf):  # max/min over no elements: an error (as in PyTorch)
            assume(all(s_ > 0 for s_ in a.shape))
        keep = data.draw(st.booleans())
        if p == "fro" or nd == 0 or data.draw(st.booleans()):
            if p != "fro" and nd >= 1 and data.draw(st.booleans()):
                ax = data.draw(st.integers(-nd, nd - 1))
                want = vec_norm(x, p, (ax % nd,), keep)
                chk(paddle.norm(t, p=p, axis=ax, keepdim=keep), want, fdt, f"norm p={p} ax", **tol)
            else:
                want = np.sqrt(np.sum(x * x))
                chk(paddle.norm(t), want, fdt, "norm fro", **tol)
        else:
            ax = data.draw(st.integers(-nd, nd - 1))
            want = vec_norm(x, p, (ax % nd,), keep)
            chk(paddle.norm(t, p=p, axis=ax, keepdim=keep), want, fdt, f"norm p={p}", **tol)


def vec_norm(x, p, axes, keep):
    ax = axes
    if p == np.inf:
        return np.max(np.abs(x), axis=ax, keepdims=keep, initial=0)
    if p == -np.inf:
        return np.min(np.abs(x), axis=ax, keepdims=keep, initial=np.inf)
    if p == 0:
        return np.sum(x != 0, axis=ax, keepdims=keep).astype(np.float64)
    return np.sum(np.abs(x) ** p, axis=ax, keepdims=keep) ** (1.0 / p)


@FUZZ
@given(st.data())
def test_scans(data):
    dt = data.draw(st.sampled_from(NUM))
    a, t = draw_viewed(data, dt, lo=-2, hi=2)
    nd = a.ndim
    x = a.astype(np.float64)
    what = data.draw(st.sampled_from(["cumsum", "cumprod", "diff", "trapezoid"]))
    CALLS["scan:" + what] += 1
    acc = "int64" if dt.startswith("int") else dt  # docs/tensors.md: ints scan in int64
    if what in ("cumsum", "cumprod"):
        fn = getattr(paddle, what)
        ref = np.cumsum if what == "cumsum" else np.cumprod
        odt = data.draw(st.sampled_from([None, "float64"]))
        # ints accumulate (and wrap) in int64
        xi = a.astype(np.int64) if dt.startswith("int") and odt is None else x
        if nd == 0 or data.draw(st.booleans()):  # None: the flattened scan
            want = ref(xi.reshape(-1))
            got = fn(t, dtype=odt) if odt else fn(t)
        else:
            ax = data.draw(st.integers(-nd, nd - 1))
            want = ref(xi, axis=ax)
            kw = {"axis": ax} if what == "cumsum" else {"dim": ax}
            got = fn(t, dtype=odt, **kw) if odt else fn(t, **kw)
        chk(got, want, odt or acc, f"{what}", rtol=1e-5, atol=1e-5)
    elif what == "diff":
        assume(nd > 0)
        ax = data.draw(st.integers(-nd, nd - 1))
        n = data.draw(st.integers(1, 2))
        pre = app = None
        parts = [a]
        kw = {}
        if data.draw(st.booleans()):
            s = list(a.shape)
            s[ax] = data.draw(st.integers(0, 2))
            pre, pt = draw_viewed(data, dt, tuple(s))
            kw["prepend"] = pt
            parts.insert(0, pre)
        if data.draw(st.booleans()):
            s = list(a.shape)
            s[ax] = data.draw(st.integers(0, 2))
            app, at = draw_viewed(data, dt, tuple(s))
            kw["append"] = at
            parts.append(app)
        full = np.concatenate(parts, axis=ax)
        assume(full.shape[ax] >= n)
        want = np.diff(full, n=n, axis=ax)
        chk(paddle.diff(t, n=n, axis=ax, **kw), want, dt, "diff")
    else:
        assume(nd > 0 and dt in FLOATS)
        ax = data.draw(st.integers(-nd, nd - 1))
        if data.draw(st.booleans()):
            dx = data.draw(st.sampled_from([0.5, 1.0, 2.0]))
            want = (
                np.trapezoid(x, dx=dx, axis=ax)
                if hasattr(np, "trapezoid")
                else np.trapz(x, dx=dx, axis=ax)
            )
            got = paddle.trapezoid(t, dx=dx, axis=ax)
        else:
            xs = np.sort(
                np.asarray(
                    data.draw(
                        st.lists(st.floats(-3, 3), min_size=a.shape[ax], max_size=a.shape[ax])
                    )
                )
            )
            xs = xs.astype(dt)
            want = (np.trapezoid if hasattr(np, "trapezoid") else np.trapz)(
                x, x=xs.astype(np.float64), axis=ax
            )
            got = paddle.trapezoid(t, x=paddle.to_tensor(xs), axis=ax)
        chk(got, want, dt, "trapezoid", rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- arithmetic
@FUZZ
@given(st.data())
def test_integer_division_family(data):
    dt = data.draw(st.sampled_from(NUM))
    shape = data.draw(shapes)
    # small integer values (floats too): floor(x / y) and Python's x // y agree there
    a = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-20, 20))).astype(dt)
    b = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-6, 6).filter(bool))).astype(dt)
    ta, tb = paddle.to_tensor(a), paddle.to_tensor(b)
    what = data.draw(st.sampled_from(["floor_divide", "remainder", "mod", "divide", "//", "%"]))
    CALLS["intdiv:" + what] += 1
    x, y = a.astype(np.float64), b.astype(np.float64)
    if what in ("floor_divide", "//"):
        # Paddle >= 2.6: rounds toward negative infinity (floor(x / y)), ints too
        got = paddle.floor_divide(ta, tb) if what == "floor_divide" else ta // tb
        chk(got, np.floor_divide(x, y).astype(dt), dt, what)
    elif what in ("remainder", "mod", "%"):
        # the sign of the divisor (Python's %)
        got = ta % tb if what == "%" else getattr(paddle, what)(ta, tb)
        chk(got, np.mod(x, y).astype(dt), dt, what)
    else:
        # int / int is a true division into float32 (Paddle; docs/tensors.md)
        odt = dt if dt in FLOATS else "float32"
        chk(paddle.divide(ta, tb), x / y, odt, "divide", rtol=1e-6, atol=0)
    if dt.startswith("int") and a.size:
        z = b.copy()
        z.reshape(-1)[0] = 0
        for f in (paddle.floor_divide, paddle.remainder):
            raises(lambda f=f: f(ta, paddle.to_tensor(z)), f"{f.__name__} by zero")


@FUZZ
@given(st.data())
def test_pow_clip_matmul(data):
    what = data.draw(st.sampled_from(["pow_int", "pow_float", "pow_tensor", "clip", "matmul"]))
    CALLS["arith:" + what] += 1
    if what == "pow_int":
        dt = data.draw(st.sampled_from(["int32", "int64"]))
        a, t = draw_viewed(data, dt, lo=-5, hi=5)
        e = data.draw(st.integers(0, 4))
        chk(paddle.pow(t, e), a.astype(np.int64) ** e, dt, "pow int")
    elif what == "pow_float":
        dt = data.draw(st.sampled_from(FLOATS))
        a, t = draw_viewed(data, dt, lo=0.125, hi=4)
        e = data.draw(st.sampled_from([0.5, 2.0, -1.0, 3.0, 1.5]))
        chk(paddle.pow(t, e), a.astype(np.float64) ** e, dt, "pow float", rtol=1e-5, atol=1e-6)
        chk(t**e, a.astype(np.float64) ** e, dt, "x ** e", rtol=1e-5, atol=1e-6)
    elif what == "pow_tensor":
        dt = data.draw(st.sampled_from(FLOATS))
        shape = data.draw(shapes)
        a, t = draw_viewed(data, dt, shape, lo=0.125, hi=3)
        b, u = draw_viewed(data, dt, shape, lo=-2, hi=2)
        chk(paddle.pow(t, u), a.astype(np.float64) ** b, dt, "pow tensor", rtol=1e-5, atol=1e-6)
    elif what == "clip":
        dt = data.draw(st.sampled_from(NUM))
        a, t = draw_viewed(data, dt, lo=-8, hi=8)
        lo = data.draw(st.one_of(st.none(), st.integers(-5, 5)))
        hi = data.draw(st.one_of(st.none(), st.integers(-5, 5)))
        if dt in FLOATS:
            lo = None if lo is None else lo + 0.5
            hi = None if hi is None else hi + 0.25
        if lo is not None and hi is not None:
            assume(lo <= hi)
        want = a
        if lo is not None:
            want = np.maximum(want, np.asarray(lo).astype(dt))
        if hi is not None:
            want = np.minimum(want, np.asarray(hi).astype(dt))
        chk(paddle.clip(t, min=lo, max=hi), want, dt, f"clip {lo} {hi}")
    else:
        dt = data.draw(st.sampled_from(NUM))
        m, k, n = (data.draw(st.integers(0, 3)) for _ in range(3))
        batch = data.draw(st.lists(st.integers(1, 3), max_size=2))
        bx = [b if data.draw(st.booleans()) else 1 for b in batch]
        tx, ty = data.draw(st.booleans()), data.draw(st.booleans())
        xs = tuple(bx) + ((k, m) if tx else (m, k))
        ys = tuple(batch) + ((n, k) if ty else (k, n))
        if data.draw(st.booleans()) and not tx and not ty:  # 1-D operands
            xs = (k,) if data.draw(st.booleans()) else xs
            ys = (k,) if xs != (k,) or data.draw(st.booleans()) else ys
        a, t = draw_viewed(data, dt, xs, lo=-3, hi=3)
        b, u = draw_viewed(data, dt, ys, lo=-3, hi=3)
        xa = np.swapaxes(a, -1, -2) if tx else a
        yb = np.swapaxes(b, -1, -2) if ty else b
        want = np.matmul(xa.astype(np.float64), yb.astype(np.float64))
        got = paddle.matmul(t, u, transpose_x=tx, transpose_y=ty)
        chk(
            got,
            want.astype(dt) if dt.startswith("int") else want,
            dt,
            f"matmul {xs} {ys}",
            rtol=1e-5,
            atol=1e-5,
        )


@FUZZ
@given(st.data())
def test_compare_and_count(data):
    what = data.draw(
        st.sampled_from(
            [
                "isclose",
                "bincount",
                "histogram",
                "searchsorted",
                "bucketize",
                "add_n",
                "multiplex",
                "increment",
            ]
        )
    )
    CALLS["misc:" + what] += 1
    if what == "isclose":
        dt = data.draw(st.sampled_from(FLOATS))
        shape = data.draw(shapes)
        a, t = draw_viewed(data, dt, shape, special=True)
        b = a + data.draw(
            hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, 1e-9, 1e-6, 1e-3, -1e-5]))
        ).astype(dt)
        rtol = data.draw(st.sampled_from([1e-5, 1e-3, 0.0]))
        atol = data.draw(st.sampled_from([1e-8, 1e-4, 0.0]))
        en = data.draw(st.booleans())
        # in the tensor's dtype: |a - b| <= atol + rtol * |b| (Paddle's kernel)
        with np.errstate(all="ignore"):
            want = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=en)
        borderline = np.abs(np.abs(a.astype(np.float64) - b) - (atol + rtol * np.abs(b))) < 1e-6 * (
            1 + np.abs(b)
        )
        keep = ~np.nan_to_num(borderline, nan=0).astype(bool)
        got = paddle.isclose(t, paddle.to_tensor(b), rtol=rtol, atol=atol, equal_nan=en)
        assert got.dtype.name == "bool" and got.shape == list(shape)
        np.testing.assert_array_equal(got.numpy()[keep], want[keep])
        if keep.all():
            chk(
                paddle.allclose(t, paddle.to_tensor(b), rtol=rtol, atol=atol, equal_nan=en),
                np.asarray(want.all()),
                "bool",
                "allclose",
            )
    elif what == "bincount":
        n = data.draw(st.integers(0, 6))
        x = np.asarray(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), np.int64)
        ml = data.draw(st.integers(0, 9))
        if data.draw(st.booleans()):
            w = np.asarray(data.draw(st.lists(st.floats(-3, 3), min_size=n, max_size=n)))
            wdt = data.draw(st.sampled_from(FLOATS))
            got = paddle.bincount(
                paddle.to_tensor(x), weights=paddle.to_tensor(w, dtype=wdt), minlength=ml
            )
            chk(
                got,
                np.bincount(x, w.astype(wdt).astype(np.float64), minlength=ml),
                wdt,
                "bincount weights",
                rtol=1e-5,
                atol=1e-5,
            )
        else:
            got = paddle.bincount(paddle.to_tensor(x), minlength=ml)
            chk(got, np.bincount(x, minlength=ml), "int64", "bincount")
    elif what == "histogram":
        dt = data.draw(st.sampled_from(NUM))
        a, t = draw_viewed(data, dt, data.draw(shapes), lo=-4, hi=4)
        bins = data.draw(st.integers(1, 5))
        lo0, hi0 = data.draw(st.sampled_from([(0, 0), (-2, 2), (-4, 1), (0, 3)]))
        x = a.astype(np.float64).reshape(-1)
        lo, hi = lo0, hi0
        if lo == hi == 0:  # Paddle: min = max = 0 takes the data's own range
            lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        edges = np.linspace(lo, hi, bins + 1)
        # an element on an inner edge may fall either side after float32 rounding
        assume(not np.isin(x, edges[1:-1]).any())
        want = np.histogram(x, bins=bins, range=(lo, hi))[0]
        got = paddle.histogram(t, bins=bins, min=lo0, max=hi0)
        chk(got, want, "int64", f"histogram {bins} {lo} {hi}")
    elif what in ("searchsorted", "bucketize"):
        dt = data.draw(st.sampled_from(NUM))
        n = data.draw(st.integers(0, 6))
        seq = np.sort(data.draw(hnp.arrays(np.int64, (n,), elements=st.integers(-5, 5)))).astype(dt)
        a, t = draw_viewed(data, dt, data.draw(shapes), lo=-6, hi=6)
        right = data.draw(st.booleans())
        o32 = data.draw(st.booleans())
        want = np.searchsorted(seq, a, side="right" if right else "left")
        if what == "searchsorted":
            if a.ndim == 0:
                return
            got = paddle.searchsorted(paddle.to_tensor(seq), t, out_int32=o32, right=right)
            want = np.searchsorted(seq, a.reshape(-1), side="right" if right else "left").reshape(
                a.shape
            )
        else:
            got = paddle.bucketize(t, paddle.to_tensor(seq), out_int32=o32, right=right)
        chk(got, want, "int32" if o32 else "int64", what)
    elif what == "add_n":
        dt = data.draw(st.sampled_from(NUM))
        shape = data.draw(shapes)
        parts = [draw_viewed(data, dt, shape) for _ in range(data.draw(st.integers(1, 4)))]
        want = sum(p[0].astype(np.float64) for p in parts)
        chk(paddle.add_n([p[1] for p in parts]), want.astype(dt), dt, "add_n", rtol=1e-5, atol=1e-5)
        if len(parts) == 1:
            chk(paddle.add_n(parts[0][1]), parts[0][0], dt, "add_n(tensor)")
    elif what == "multiplex":
        dt = data.draw(st.sampled_from(NUM))
        rows = data.draw(st.integers(1, 4))
        # Paddle's multiplex: two or more candidates of rank 2 or more
        shape = (rows,) + tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
        parts = [draw_viewed(data, dt, shape) for _ in range(data.draw(st.integers(2, 3)))]
        idx = np.asarray(
            data.draw(st.lists(st.integers(0, len(parts) - 1), min_size=rows, max_size=rows))
        ).reshape(rows, 1)
        want = np.stack([parts[idx[i, 0]][0][i] for i in range(rows)])
        idt = data.draw(st.sampled_from(["int32", "int64"]))
        got = paddle.multiplex([p[1] for p in parts], index_tensor(idx, idt))
        chk(got, want, dt, "multiplex")
    else:
        dt = data.draw(st.sampled_from(NUM))
        shape = data.draw(st.sampled_from([(), (1,), (1, 1)]))
        v = data.draw(st.integers(-3, 3))
        a = np.asarray(data.draw(st.integers(-5, 5))).astype(dt).reshape(shape)
        t = paddle.to_tensor(a)
        val = float(v) if dt in FLOATS else v
        got = paddle.increment(t, val)
        chk(got, (a + v).astype(dt), dt, "increment")


# ---------------------------------------------------------------- gradients
def adjoint(ref, x, g):
    """J^T g of the linear NumPy function `ref` at shape x.shape, column by column."""
    out = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = 1.0
        out[i] = np.sum(ref(e.reshape(x.shape)) * g)
    return out.reshape(x.shape)


LINEAR = {
    "reshape": (lambda t: paddle.reshape(t, [0, -1]), lambda a: a.reshape(a.shape[0], -1)),
    "transpose": (lambda t: paddle.transpose(t, perm=[1, 0, 2]), lambda a: a.transpose(1, 0, 2)),
    "flip": (lambda t: paddle.flip(t, axis=[0, 2]), lambda a: a[::-1, :, ::-1]),
    "roll": (
        lambda t: paddle.roll(t, shifts=[1, -1], axis=[0, 2]),
        lambda a: np.roll(a, [1, -1], (0, 2)),
    ),
    "slice": (
        lambda t: paddle.slice(t, axes=[1, 2], starts=[-2, 0], ends=[10, 2]),
        lambda a: a[:, -2:, 0:2],
    ),
    "strided_slice": (
        lambda t: paddle.strided_slice(t, axes=[2], starts=[-1], ends=[-10], strides=[-2]),
        lambda a: a[:, :, -1:-10:-2],
    ),
    "gather": (
        lambda t: paddle.gather(t, index_tensor([1, 0, 1]), axis=1),
        lambda a: a[:, [1, 0, 1]],
    ),
    "gather_nd": (
        lambda t: paddle.gather_nd(t, index_tensor([[0, 1], [0, 1], [1, 0]])),
        lambda a: a[[0, 0, 1], [1, 1, 0]],
    ),
    "index_select": (
        lambda t: paddle.index_select(t, index_tensor([2, 2, 0]), axis=2),
        lambda a: a[:, :, [2, 2, 0]],
    ),
    "take_along_axis": (
        lambda t: paddle.take_along_axis(t, index_tensor(np.zeros((2, 3, 2), np.int64)), axis=2),
        lambda a: np.take_along_axis(a, np.zeros((2, 3, 2), np.int64), axis=2),
    ),
    "tile": (lambda t: paddle.tile(t, [2, 1, 1]), lambda a: np.tile(a, [2, 1, 1])),
    "expand": (
        lambda t: paddle.expand(paddle.unsqueeze(t, 0), [2, -1, -1, -1]),
        lambda a: np.broadcast_to(a, (2,) + a.shape),
    ),
    "cumsum": (lambda t: paddle.cumsum(t, axis=1), lambda a: np.cumsum(a, axis=1)),
    "cumsum_flat": (lambda t: paddle.cumsum(t), lambda a: np.cumsum(a.reshape(-1))),
    "sum": (
        lambda t: paddle.sum(t, axis=[0, 2], keepdim=True),
        lambda a: np.sum(a, axis=(0, 2), keepdims=True),
    ),
    "mean": (lambda t: paddle.mean(t, axis=-1), lambda a: np.mean(a, axis=-1)),
    "concat": (
        lambda t: paddle.concat([t, t * 2], axis=1),
        lambda a: np.concatenate([a, a * 2], axis=1),
    ),
    "stack": (lambda t: paddle.stack([t, t], axis=3), lambda a: np.stack([a, a], axis=3)),
    "split": (lambda t: paddle.split(t, [1, -1], axis=2)[1], lambda a: a[:, :, 1:]),
    "unbind": (lambda t: paddle.unbind(t, axis=1)[2], lambda a: a[:, 2]),
    "masked_select": (
        lambda t: paddle.masked_select(
            t, paddle.to_tensor(np.arange(18).reshape(2, 3, 3) % 4 == 1)
        ),
        lambda a: a[np.arange(18).reshape(2, 3, 3) % 4 == 1],
    ),
    "where": (
        lambda t: paddle.where(paddle.to_tensor(np.arange(18).reshape(2, 3, 3) % 3 == 0), t, t * 3),
        lambda a: np.where(np.arange(18).reshape(2, 3, 3) % 3 == 0, a, a * 3),
    ),
    "scatter_nd_add": (
        lambda t: paddle.scatter_nd_add(
            t, index_tensor([[1, 2], [1, 2]]), paddle.ones([2, 3], "float64")
        ),
        lambda a: a,
    ),
    "diff": (lambda t: paddle.diff(t, axis=1), lambda a: np.diff(a, axis=1)),
    "rot90": (lambda t: paddle.rot90(t, 1, axes=[0, 2]), lambda a: np.rot90(a, 1, (0, 2))),
    "moveaxis": (lambda t: paddle.moveaxis(t, 0, -1), lambda a: np.moveaxis(a, 0, -1)),
    "repeat_interleave": (
        lambda t: paddle.repeat_interleave(t, 2, axis=1),
        lambda a: np.repeat(a, 2, axis=1),
    ),
    "trapezoid": (
        lambda t: paddle.trapezoid(t, dx=0.5, axis=2),
        lambda a: 0.25 * (a[..., :-1] + a[..., 1:]).sum(-1),
    ),
}

SMOOTH = {
    "logsumexp": lambda t: paddle.logsumexp(t, axis=1),
    "prod": lambda t: paddle.prod(t, axis=[0, 2]),
    "cumprod": lambda t: paddle.cumprod(t, dim=2),
    "std": lambda t: paddle.std(t, axis=1),
    "var": lambda t: paddle.var(t, axis=[0, 1], unbiased=False),
    "norm": lambda t: paddle.norm(t, p=2, axis=2),
    "norm_fro": lambda t: paddle.norm(t),
    "pow": lambda t: paddle.pow(t * t + 1, 1.5),
    "matmul": lambda t: paddle.matmul(t, t, transpose_y=True),
    "matmul_tx": lambda t: paddle.matmul(t, t, transpose_x=True),
    "put_along_axis_add": lambda t: paddle.put_along_axis(
        t,
        index_tensor(np.ones((2, 3, 1), np.int64)),
        t[:, :, :1] * t[:, :, 1:2],
        axis=2,
        reduce="add",
    ),
    "scatter": lambda t: paddle.scatter(t.reshape([6, 3]), index_tensor([4, 0]), t[0, :2] * 2),
}


@FUZZ
@given(st.sampled_from(sorted(LINEAR)), st.data())
def test_paddle_grad_linear(name, data):
    fn, ref = LINEAR[name]
    a = data.draw(hnp.arrays(np.float64, (2, 3, 3), elements=st.floats(-2, 2)))
    x = paddle.to_tensor(a, dtype="float64", stop_gradient=False)
    y = fn(x)
    want_y = ref(a) if name != "scatter_nd_add" else None
    if want_y is not None:
        chk(y, want_y, "float64", f"{name} forward")
    g = data.draw(hnp.arrays(np.float64, tuple(y.shape), elements=st.floats(-2, 2)))
    CALLS["paddle.grad"] += 1
    (gx,) = paddle.grad([y], [x], grad_outputs=[paddle.to_tensor(g)])
    chk(gx, adjoint(ref, a, g), "float64", f"{name} grad")
    # the default grad_outputs: ones (Paddle), create_graph off
    (g1,) = paddle.grad(fn(x), x)
    chk(g1, adjoint(ref, a, np.ones(y.shape)), "float64", f"{name} grad of ones")
    assert g1.stop_gradient


@FUZZ
@given(st.sampled_from(sorted(SMOOTH)), st.data())
def test_gradcheck_smooth(name, data):
    fn = SMOOTH[name]
    a = data.draw(hnp.arrays(np.float64, (2, 3, 3), elements=st.floats(0.5, 2)))
    a = a + np.arange(18).reshape(2, 3, 3) * 1e-2  # no ties
    grad_ok(fn, a, second=name in ("logsumexp", "norm", "std", "cumprod", "matmul"))


# ---------------------------------------------------------------- bad arguments
BAD = {
    "reshape two -1": lambda: paddle.reshape(paddle.ones([2, 3]), [-1, -1]),
    "reshape count": lambda: paddle.reshape(paddle.ones([2, 3]), [4, 2]),
    "reshape 0 beyond": lambda: paddle.reshape(paddle.ones([6]), [1, 0]),
    "transpose perm": lambda: paddle.transpose(paddle.ones([2, 3]), perm=[0, 0]),
    "transpose perm length": lambda: paddle.transpose(paddle.ones([2, 3]), perm=[0]),
    "concat shapes": lambda: paddle.concat([paddle.ones([2, 3]), paddle.ones([2, 4])], axis=0),
    "concat axis": lambda: paddle.concat([paddle.ones([2])], axis=3),
    "stack shapes": lambda: paddle.stack([paddle.ones([2]), paddle.ones([3])]),
    "split sections": lambda: paddle.split(paddle.ones([5]), [2, 2]),
    "split two -1": lambda: paddle.split(paddle.ones([5]), [-1, -1]),
    "split uneven": lambda: paddle.split(paddle.ones([5]), 2),
    "squeeze axis": lambda: paddle.squeeze(paddle.ones([2, 1]), axis=5),
    "unsqueeze axis": lambda: paddle.unsqueeze(paddle.ones([2]), axis=5),
    "flatten axes": lambda: paddle.flatten(paddle.ones([2, 3]), 1, 0),
    "flip axis": lambda: paddle.flip(paddle.ones([2]), axis=2),
    "roll axis": lambda: paddle.roll(paddle.ones([2]), 1, axis=3),
    "rot90 axes": lambda: paddle.rot90(paddle.ones([2, 2]), axes=[0, 0]),
    "slice axis": lambda: paddle.slice(paddle.ones([2]), axes=[3], starts=[0], ends=[1]),
    "strided_slice 0": lambda: paddle.strided_slice(paddle.ones([2]), [0], [0], [2], [0]),
    "expand": lambda: paddle.expand(paddle.ones([2]), [3]),
    "broadcast_to": lambda: paddle.broadcast_to(paddle.ones([2, 3]), [3]),
    "tile negative": lambda: paddle.tile(paddle.ones([2]), [-1]),
    "gather range": lambda: paddle.gather(paddle.ones([2, 3]), index_tensor([2])),
    "gather float index": lambda: paddle.gather(paddle.ones([2, 3]), paddle.to_tensor([0.0])),
    "gather_nd range": lambda: paddle.gather_nd(paddle.ones([2, 3]), index_tensor([[0, 3]])),
    "gather_nd depth": lambda: paddle.gather_nd(paddle.ones([2, 3]), index_tensor([[0, 0, 0]])),
    "index_select range": lambda: paddle.index_select(paddle.ones([2]), index_tensor([-3])),
    "scatter range": lambda: paddle.scatter(
        paddle.ones([2, 2]), index_tensor([5]), paddle.ones([1, 2])
    ),
    "scatter shape": lambda: paddle.scatter(
        paddle.ones([2, 2]), index_tensor([0]), paddle.ones([1, 3])
    ),
    "scatter_nd_add range": lambda: paddle.scatter_nd_add(
        paddle.ones([2]), index_tensor([[2]]), paddle.ones([1])
    ),
    "take_along_axis range": lambda: paddle.take_along_axis(
        paddle.ones([2, 2]), index_tensor([[0, 2]]), axis=1
    ),
    "put_along_axis reduce": lambda: paddle.put_along_axis(
        paddle.ones([2, 2]), index_tensor([[0], [1]]), 1.0, axis=1, reduce="median"
    ),
    "put_along_axis range": lambda: paddle.put_along_axis(
        paddle.ones([2, 2]), index_tensor([[0], [7]]), 1.0, axis=1
    ),
    "masked_select shape": lambda: paddle.masked_select(
        paddle.ones([2, 3]), paddle.to_tensor([True, False])
    ),
    "where shapes": lambda: paddle.where(
        paddle.to_tensor([True, False]), paddle.ones([3]), paddle.ones([2])
    ),
    "sum axis": lambda: paddle.sum(paddle.ones([2]), axis=1),
    "max axis list": lambda: paddle.max(paddle.ones([2]), axis=[0, 0, 4]),
    "max empty": lambda: paddle.max(paddle.ones([0, 2]), axis=0),
    "argmax axis": lambda: paddle.argmax(paddle.ones([2]), axis=2),
    "topk k": lambda: paddle.topk(paddle.ones([2]), 3),
    "topk axis": lambda: paddle.topk(paddle.ones([2]), 1, axis=4),
    "sort axis": lambda: paddle.sort(paddle.ones([2]), axis=1),
    "kthvalue k": lambda: paddle.kthvalue(paddle.ones([2]), 0),
    "unique axis": lambda: paddle.unique(paddle.ones([2]), axis=3),
    "floor_divide zero": lambda: paddle.floor_divide(index_tensor([3]), index_tensor([0])),
    "remainder zero": lambda: paddle.remainder(index_tensor([3]), index_tensor([0])),
    "matmul shapes": lambda: paddle.matmul(paddle.ones([2, 3]), paddle.ones([2, 3])),
    "matmul transpose": lambda: paddle.matmul(
        paddle.ones([2, 3]), paddle.ones([2, 3]), transpose_x=True, transpose_y=True
    ),
    "arange step 0": lambda: paddle.arange(0, 4, 0),
    "linspace num": lambda: paddle.linspace(0, 1, -1),
    "eye negative": lambda: paddle.eye(-1),
    "full shape": lambda: paddle.full([-2], 1.0),
    "zeros dtype": lambda: paddle.zeros([2], dtype="float7"),
    "cast dtype": lambda: paddle.cast(paddle.ones([2]), "int3"),
    "diag 3-d": lambda: paddle.diag(paddle.ones([2, 2, 2])),
    "tril 1-d": lambda: paddle.tril(paddle.ones([2])),
    "cumsum axis": lambda: paddle.cumsum(paddle.ones([2]), axis=1),
    "cumprod dim": lambda: paddle.cumprod(paddle.ones([2]), dim=-2),
    "quantile q": lambda: paddle.quantile(paddle.ones([2]), 1.5),
    "median axis": lambda: paddle.median(paddle.ones([2]), axis=2),
    "mode axis": lambda: paddle.mode(paddle.ones([2]), axis=2),
    "std axis": lambda: paddle.std(paddle.ones([2]), axis=2),
    "logsumexp axis": lambda: paddle.logsumexp(paddle.ones([2]), axis=2),
    "norm p": lambda: paddle.norm(paddle.ones([2]), p="nuc", axis=0),
    "isclose shapes": lambda: paddle.isclose(paddle.ones([2]), paddle.ones([3])),
    "bincount negative": lambda: paddle.bincount(index_tensor([-1, 2])),
    "bincount float": lambda: paddle.bincount(paddle.to_tensor([1.0])),
    "bincount weights": lambda: paddle.bincount(index_tensor([1, 2]), weights=paddle.ones([3])),
    "histogram bins": lambda: paddle.histogram(paddle.ones([2]), bins=0),
    "histogram range": lambda: paddle.histogram(paddle.ones([2]), bins=2, min=3, max=1),
    "searchsorted dims": lambda: paddle.searchsorted(paddle.ones([2, 3]), paddle.ones([3, 1])),
    "bucketize 2-d": lambda: paddle.bucketize(paddle.ones([2]), paddle.ones([2, 2])),
    "add_n shapes": lambda: paddle.add_n([paddle.ones([2]), paddle.ones([3])]),
    "add_n empty": lambda: paddle.add_n([]),
    "multiplex range": lambda: paddle.multiplex([paddle.ones([2, 2])], index_tensor([[0], [1]])),
    "increment size": lambda: paddle.increment(paddle.ones([2])),
    "repeat_interleave len": lambda: paddle.repeat_interleave(
        paddle.ones([2]), index_tensor([1, 2, 3]), axis=0
    ),
    "repeat_interleave neg": lambda: paddle.repeat_interleave(paddle.ones([2]), -1),
    "meshgrid 2-d": lambda: paddle.meshgrid(paddle.ones([2, 2]), paddle.ones([2])),
    "moveaxis repeat": lambda: paddle.moveaxis(paddle.ones([2, 3]), [0, 0], [0, 1]),
    "chunk zero": lambda: paddle.chunk(paddle.ones([2]), 0),
    "unbind axis": lambda: paddle.unbind(paddle.ones([2]), axis=1),
    "to_tensor ragged": lambda: paddle.to_tensor([[1.0], [1.0, 2.0]]),
    "to_tensor dtype": lambda: paddle.to_tensor([1.0], dtype="float99"),
    "int requires grad": lambda: setattr(paddle.to_tensor([1, 2]), "stop_gradient", False),
}


BAD.update(
    {
        "diff axis": lambda: paddle.diff(paddle.ones([2, 3]), axis=5),
        "trapezoid axis": lambda: paddle.trapezoid(paddle.ones([2, 3]), axis=-3),
        "argmax float dtype": lambda: paddle.argmax(paddle.ones([2]), dtype="float32"),
        "argmin float dtype": lambda: paddle.argmin(paddle.ones([2]), dtype="float64"),
        "trapezoid x and dx": lambda: paddle.trapezoid(
            paddle.ones([2]), x=paddle.to_tensor([0.0, 1.0]), dx=2.0
        ),
        "unsqueeze list axis": lambda: paddle.unsqueeze(paddle.ones([2]), axis=[0, 4]),
    }
)


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_arguments_raise(name):
    CALLS["bad argument"] += 1
    raises(BAD[name], name)


# ---------------------------------------------------------------- regressions
def test_gather_0d_index_regression():
    x = paddle.to_tensor([[1, 2], [3, 4], [5, 6]])
    # Paddle's GatherInferMeta: "0D index will decrease the dimension"
    assert paddle.gather(x, paddle.to_tensor(1), axis=0).shape == [2]
    assert paddle.gather(x, paddle.to_tensor(1), axis=1).shape == [3]
    assert paddle.gather(paddle.to_tensor([7, 8]), paddle.to_tensor(1)).shape == []


def test_nonzero_as_tuple_shape_regression():
    x = paddle.to_tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    # Paddle 3.3.1 (tensor/search.py nonzero): each piece is a slice [z, 1] of the [z, n]
    # result; where(c) returns nonzero(c, as_tuple=True)
    assert [p.shape for p in paddle.nonzero(x, as_tuple=True)] == [[3, 1], [3, 1]]
    assert [p.shape for p in paddle.nonzero(paddle.to_tensor([0.0, 1.0]), as_tuple=True)] == [
        [1, 1]
    ]


def test_where_one_argument_pieces_regression():
    x = paddle.to_tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    assert [p.shape for p in paddle.where(x != 0)] == [[3, 1], [3, 1]]


def test_numel_tensor_regression():
    n = paddle.numel(paddle.ones([4, 5, 7]))
    # Paddle's own doc example: print(paddle.numel(x).numpy()) -> 140
    assert isinstance(n, paddle.Tensor) and n.dtype == paddle.int64 and n.shape == []
    assert n.numpy() == 140


def test_split_method_positional_axis_regression():
    x = paddle.ones([6, 2])
    # Paddle's Tensor.split(num_or_sections, axis=0): 2 sections, as x.split(2) gives
    assert [p.shape for p in x.split(2)] == [[3, 2], [3, 2]]
    assert [p.shape for p in x.split(2, 0)] == [[3, 2], [3, 2]]
    assert [p.shape for p in x.split(2, 1)] == [[6, 1], [6, 1]]


def test_reduce_empty_axis_list_regression():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    # Paddle's _get_reduce_axis: `if axis == [] or len(axis) == len(x.shape): reduce_all`
    # (PyTorch's sum(dim=[]) reduces all too)
    assert paddle.sum(x, axis=[]).numpy().tolist() == 10.0
    assert paddle.mean(x, axis=[]).numpy().tolist() == 2.5
    assert paddle.max(x, axis=[]).numpy().tolist() == 4.0
    assert paddle.logsumexp(x, axis=[]).shape == []


def test_trapezoid_axis_regression():
    y = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    # integrating down the columns: [1.5, 2.5, 3.5] (Paddle's trapezoid(y, x, dx, axis))
    np.testing.assert_allclose(paddle.trapezoid(y, dx=1.0, axis=0).numpy(), [1.5, 2.5, 3.5])
    got = paddle.trapezoid(y, x=paddle.to_tensor([0.0, 2.0]), axis=0)
    np.testing.assert_allclose(got.numpy(), [3.0, 5.0, 7.0])
    got = paddle.cumulative_trapezoid(y, axis=0)
    np.testing.assert_allclose(got.numpy(), [[1.5, 2.5, 3.5]])


def test_diff_axis_out_of_range_regression():
    x = paddle.to_tensor([[1.0, 2.0, 4.0], [0.0, 5.0, 5.0]])
    # axis=5 of a 2-d tensor is an error in Paddle and PyTorch; ferrograd diffs along 1
    with pytest.raises((IndexError, ValueError)):
        paddle.diff(x, axis=5)
    with pytest.raises((IndexError, ValueError)):
        paddle.diff(x, axis=-3)


def test_argmax_float_dtype_regression():
    # Paddle's ArgMinMaxInferMeta: dtype must be int32 or int64
    with pytest.raises((TypeError, ValueError)):
        paddle.argmax(paddle.ones([2]), dtype="float32")
    with pytest.raises((TypeError, ValueError)):
        paddle.argmin(paddle.ones([2]), dtype="float64")


def test_trapezoid_x_and_dx_regression():
    # Paddle: "Not permitted to specify both x and dx input args." (PyTorch refuses too)
    with pytest.raises((TypeError, ValueError)):
        paddle.trapezoid(paddle.ones([2]), x=paddle.to_tensor([0.0, 1.0]), dx=2.0)


def test_unsqueeze_axis_order_regression():
    # Paddle's GetUnsqueezeShape inserts the axes one by one, each into the shape so far:
    # [5] -> insert at 1 -> [5, 1] -> insert at 0 -> [1, 5, 1]
    assert paddle.unsqueeze(paddle.ones([5]), axis=[1, 0]).shape == [1, 5, 1]
    assert paddle.unsqueeze(paddle.ones([5, 6]), axis=[2, 0]).shape == [1, 5, 6, 1]


def test_put_along_axis_int_mean_regression():
    x = paddle.to_tensor([0, 0], dtype="int32")
    got = paddle.put_along_axis(
        x, index_tensor([0, 1]), paddle.to_tensor([-1, 3], dtype="int32"), axis=0, reduce="mean"
    )
    # Paddle's cpu_gather_scatter_functor: self / (count + 1) in the int type (toward zero)
    assert got.numpy().tolist() == [0, 1]


def test_unique_inverse_shape_regression():
    x = paddle.to_tensor([[2, 1], [1, 3]])
    _, inverse = paddle.unique(x, return_inverse=True)
    # Paddle's UniqueRawInferMeta (axis empty): inverse dims {numel(x)}
    assert inverse.shape == [4]
    assert inverse.numpy().tolist() == [1, 0, 0, 2]


def test_outer_method_flattens_in_paddle_code_regression():
    # Paddle 3.3.1's Tensor.outer is paddle.outer (x.reshape([-1, 1]) @ y.reshape([1, -1]));
    # ferrograd's method kept PyTorch's 1-D-only rule in Paddle code
    a, b = np.arange(4.0).reshape(2, 2), np.arange(3.0)
    x, y = paddle.to_tensor(a), paddle.to_tensor(b)
    np.testing.assert_array_equal(x.outer(y).numpy(), np.outer(a.ravel(), b))
    np.testing.assert_array_equal(y.outer(x).numpy(), np.outer(b, a.ravel()))
    np.testing.assert_array_equal(paddle.to_tensor(2.0).outer(y).numpy(), np.outer([2.0], b))
    w = paddle.to_tensor(a, stop_gradient=False)
    w.outer(y).sum().backward()  # d/dw sum(outer(w.ravel(), b)) = sum(b) everywhere
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 2), b.sum()))
