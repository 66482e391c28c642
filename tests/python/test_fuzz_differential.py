"""Differential fuzzer: public elementwise, reduction, shape and matmul ops against NumPy
over random shapes (0-d, 0-size, broadcast), dtypes, views (transposed, reversed,
stride-0 expanded) and NaN/inf/extreme values. Expected dtypes follow ferrograd's
documented promotion (README "Type promotion"), not NumPy's where they differ by design.
Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
from fuzz_support import (
    CALLS,
    CATEGORY,
    FLOATS,
    FUZZ,
    REAL,
    assert_same,
    float_result,
    promote,
    shapes,
    viewed,
)
from hypothesis import assume, given
from hypothesis import strategies as st

NUMERIC = ["int32", "int64", "float32", "float64"]

# name: (ferrograd call, NumPy reference, dtypes, float-only math)
UNARY = {
    "neg": (lambda t: -t, np.negative, NUMERIC, False),
    "abs": (fg.abs, np.abs, NUMERIC, False),
    "square": (fg.square, np.square, NUMERIC, False),
    "sign": (fg.sign, np.sign, FLOATS, False),
    "floor": (fg.floor, np.floor, FLOATS, False),
    "ceil": (fg.ceil, np.ceil, FLOATS, False),
    "exp": (fg.exp, np.exp, REAL[1:], True),
    "log": (fg.log, np.log, REAL[1:], True),
    "sqrt": (fg.sqrt, np.sqrt, REAL[1:], True),
    "sin": (fg.sin, np.sin, FLOATS, True),
    "cos": (fg.cos, np.cos, FLOATS, True),
    "tanh": (fg.tanh, np.tanh, REAL[1:], True),
    "expm1": (fg.expm1, np.expm1, FLOATS, True),
    "log1p": (fg.log1p, np.log1p, FLOATS, True),
}


@FUZZ
@given(st.sampled_from(sorted(UNARY)), st.data())
def test_unary_against_numpy(name, data):
    f, ref, dtypes, float_math = UNARY[name]
    dtype = data.draw(st.sampled_from(dtypes))
    a, t = data.draw(viewed(dtype=dtype))
    out_dtype = float_result(dtype) if float_math else dtype
    if dtype == "float32" and name in ("sin", "cos"):
        finite = np.asarray(a, np.float64)[np.isfinite(np.asarray(a, np.float64))]
        assume(not (np.abs(finite) > 1e4).any())  # far out, float32 argument reduction differs
    with np.errstate(all="ignore"):
        want = ref(np.asarray(a).astype(out_dtype))
    CALLS["unary"] += 1
    got = f(t)
    assert_same(got, want, out_dtype, f"{name}({dtype} {a.shape})")


BINARY = {
    "add": (lambda x, y: x + y, np.add),
    "subtract": (lambda x, y: x - y, np.subtract),
    "multiply": (lambda x, y: x * y, np.multiply),
    "divide": (lambda x, y: x / y, np.divide),
    "maximum": (fg.maximum, np.maximum),
    "minimum": (fg.minimum, np.minimum),
    "pow": (lambda x, y: x**y, np.power),
    "floor_divide": (lambda x, y: x // y, np.floor_divide),
    "remainder": (lambda x, y: x % y, np.remainder),
    "less": (lambda x, y: x < y, np.less),
    "equal": (fg.equal, np.equal),
}


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast: one drawn, the other a suffix with some dims set to 1."""
    s = draw(shapes)
    k = draw(st.integers(0, len(s)))
    t = [1 if draw(st.booleans()) else d for d in s[len(s) - k :]]
    return (s, tuple(t)) if draw(st.booleans()) else (tuple(t), s)


def binary_reference(name, x, y, res):
    """NumPy's value of `name` computed in ferrograd's result dtype `res` (comparisons:
    in the operands' common dtype `res`)."""
    return BINARY[name][1](x.astype(res), y.astype(res))


@FUZZ
@given(st.sampled_from(sorted(BINARY)), st.data())
def test_binary_tensor_tensor_against_numpy(name, data):
    da, db = data.draw(st.sampled_from(NUMERIC)), data.draw(st.sampled_from(NUMERIC))
    sa, sb = data.draw(broadcast_pair())
    (a, ta), (b, tb) = data.draw(viewed(da, sa)), data.draw(viewed(db, sb))
    # a 0-d operand promotes by PyTorch's rule (not NumPy's: its 0-d arrays are not weak)
    res = promote(da, db, len(sa) == 0, len(sb) == 0)
    for v, s, d in ((a, sa, da), (b, sb, db)):
        if len(s) == 0 and d != res and CATEGORY[d] == CATEGORY[res] == 1:
            # a 0-d integer taking a narrower dtype must fit it (else a ValueError)
            info = np.iinfo(res)
            assume(info.min <= int(np.asarray(v)) <= info.max)
    if name == "divide":
        res = float_result(res)
    if name == "pow" and CATEGORY[res] == 1:
        assume(not (np.asarray(b) < 0).any())  # NumPy refuses; ferrograd follows torch
    if name in ("floor_divide", "remainder") and CATEGORY[res] == 2:
        # ferrograd floors x / y (torch); NumPy uses fmod-based divmod: they differ
        # only where x / y is not finite or y is infinite
        with np.errstate(all="ignore"):
            q = np.asarray(a, np.float64) / np.asarray(b, np.float64)
        assume(np.isfinite(q).all() and np.isfinite(np.asarray(b, np.float64)).all())
    if name in ("floor_divide", "remainder") and CATEGORY[res] < 2:
        # integer division by zero raises (torch, Paddle); NumPy returns 0
        assume((np.asarray(b) != 0).all())
    with np.errstate(all="ignore"):
        want = binary_reference(name, np.asarray(a), np.asarray(b), res)
    out_dtype = "bool" if name in ("less", "equal") else res
    CALLS["binary"] += 1
    got = BINARY[name][0](ta, tb)
    assert_same(got, want, out_dtype, f"{name}({da}{list(sa)}, {db}{list(sb)})")


@FUZZ
@given(st.sampled_from(["add", "subtract", "multiply", "divide", "pow", "maximum"]), st.data())
def test_binary_with_python_scalar(name, data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    a, t = data.draw(viewed(dtype))
    s = data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32)))
    kind = "int64" if isinstance(s, int) else "float32"
    res = dtype if CATEGORY[kind] <= CATEGORY[dtype] else kind
    if name == "divide":
        res = float_result(res)
    if name == "pow" and CATEGORY[res] == 1:
        assume(s >= 0)
    if name == "maximum":
        f = lambda x: fg.maximum(x, s)  # noqa: E731
    else:
        f = lambda x: BINARY[name][0](x, s)  # noqa: E731
    with np.errstate(all="ignore"):
        want = BINARY[name][1](np.asarray(a).astype(res), np.asarray(s).astype(res))
    CALLS["scalar"] += 1
    assert_same(f(t), want, res, f"{name}({dtype}{list(a.shape)}, {s!r})")


REDUCE = {
    "sum": (lambda t, ax, k: t.sum(ax, keepdim=k), np.sum),
    "mean": (lambda t, ax, k: t.mean(ax, keepdim=k), np.mean),
    "max": (lambda t, ax, k: t.max(ax, keepdim=k), np.max),
    "min": (lambda t, ax, k: t.min(ax, keepdim=k), np.min),
    "prod": (lambda t, ax, k: t.prod(ax, keepdim=k), np.prod),
}


@FUZZ
@given(st.sampled_from(sorted(REDUCE)), st.data())
def test_reductions_against_numpy(name, data):
    dtype = data.draw(st.sampled_from(FLOATS if name == "mean" else NUMERIC))
    special = name in ("max", "min")  # sums of ±1e30 depend on the summation order
    a, t = data.draw(viewed(dtype, special=special, lo=-2.0, hi=2.0))
    axis = data.draw(st.one_of(st.none(), st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1)))
    keep = data.draw(st.booleans())
    f, ref = REDUCE[name]
    wide = np.asarray(a).astype(np.float64 if CATEGORY[dtype] == 2 else np.int64)
    try:
        with np.errstate(all="ignore"):
            want = ref(wide, axis=axis, keepdims=keep) if a.ndim else ref(wide, keepdims=keep)
    except (ValueError, np.exceptions.AxisError) as e:
        CALLS["reduce-error"] += 1
        try:
            out = f(t, axis, keep)
        except Exception:  # any Python exception, never a panic
            return
        # NumPy refuses max/min over a zero-size axis even when the result is empty;
        # ferrograd returns the empty result (no value is made up)
        assert "zero-size" in str(e) and out.numel() == 0, f"{name}: NumPy raised {e}"
        return
    if a.ndim == 0 and axis not in (None, 0, -1):
        return
    CALLS["reduce"] += 1
    got = f(t, axis, keep)
    g = got.numpy()
    want = np.asarray(want)
    assert g.shape == want.shape, f"{name}: shape {g.shape} != {want.shape}"
    if CATEGORY[dtype] == 1:
        np.testing.assert_array_equal(g, want, err_msg=name)
        return
    g64 = g.astype(np.float64)
    assert (np.isnan(g64) == np.isnan(want)).all(), f"{name}: NaN positions {g} vs {want}"
    fin = np.isfinite(want)
    np.testing.assert_array_equal(g64[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
    if name in ("max", "min"):
        # a selection: exactly one of the inputs (a tolerance scaled by the inputs' sizes
        # was infinite whenever an input was, and then compared nothing)
        np.testing.assert_array_equal(g64[fin], want[fin], err_msg=name)
        return
    a64 = np.asarray(a, np.float64)
    scale = max(1.0, float(np.abs(a64[np.isfinite(a64)]).sum())) if a.size else 1.0
    assert np.isfinite(scale), f"{name}: the tolerance's scale must be finite, got {scale}"
    tol = (
        dict(rtol=2e-5, atol=2e-6 * scale)
        if dtype == "float32"
        else dict(rtol=1e-12, atol=1e-13 * scale)
    )
    np.testing.assert_allclose(
        g64[fin], want[fin], err_msg=f"{name}({dtype}{list(a.shape)}, {axis})", **tol
    )


@FUZZ
@given(st.data())
def test_matmul_against_numpy(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    n, k, m = (data.draw(st.integers(0, 4)) for _ in range(3))
    batch = data.draw(st.lists(st.integers(1, 3), max_size=2))
    left_vec, right_vec = data.draw(st.booleans()), data.draw(st.booleans())
    sa = (k,) if left_vec else (*batch, n, k)
    sb = (k,) if right_vec else (*batch[data.draw(st.integers(0, len(batch))) :], k, m)
    (a, ta), (b, tb) = (
        data.draw(viewed(dtype, sa, special=False)),
        data.draw(viewed(dtype, sb, special=False)),
    )
    want = np.matmul(np.asarray(a, np.float64), np.asarray(b, np.float64))
    CALLS["matmul"] += 1
    assert_same(ta @ tb, want.astype(dtype), dtype, f"matmul({sa}, {sb})")


@FUZZ
@given(st.data())
def test_shape_ops_against_numpy(data):
    a, t = data.draw(viewed())
    nd = a.ndim
    op = data.draw(
        st.sampled_from(
            ["reshape", "transpose", "unsqueeze", "squeeze", "flatten", "concat", "stack"]
        )
    )
    CALLS["shape"] += 1
    if op == "reshape":
        got, want = t.reshape([-1]), np.reshape(a, -1)
        if a.size:
            dims = [d for d in range(1, a.size + 1) if a.size % d == 0]
            d = data.draw(st.sampled_from(dims))
            got, want = t.reshape([d, -1]), np.reshape(a, (d, -1))
    elif op == "transpose" and nd >= 2:
        i, j = data.draw(st.integers(-nd, nd - 1)), data.draw(st.integers(-nd, nd - 1))
        got, want = t.transpose(i, j), np.swapaxes(a, i, j)
    elif op == "unsqueeze":
        i = data.draw(st.integers(-nd - 1, nd))
        got, want = t.unsqueeze(i), np.expand_dims(a, i)
    elif op == "squeeze":
        got, want = t.squeeze(), np.squeeze(a)
    elif op in ("concat", "stack") and nd >= 1:
        i = data.draw(st.integers(-nd, nd - 1))
        b, tb = data.draw(viewed(str(a.dtype), a.shape))
        if op == "concat":
            got, want = fg.concat([t, tb], i), np.concatenate([a, b], i)
        else:
            got, want = fg.stack([t, tb], i), np.stack([a, b], i)
    else:
        got, want = t.flatten(), np.reshape(a, -1)
    assert_same(got, want, str(a.dtype), f"{op}({a.shape})")
    assert_same(got + 0 if str(a.dtype) != "bool" else got, want, None, f"{op} then compute")


@FUZZ
@given(st.data())
def test_huge_expanded_views_stay_cheap_and_right(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    base = data.draw(st.lists(st.floats(-2, 2, width=32), min_size=1, max_size=3))
    big = data.draw(st.sampled_from([10**5, 10**6, 3 * 10**6]))
    t = fg.tensor(np.array(base, dtype=dtype)).reshape([1, -1]).expand([big, len(base)])
    CALLS["expanded"] += 1
    assert_same(t[big - 1], np.array(base, dtype=dtype), dtype, "last row of expand")
    assert_same(
        t[:: -(big // 3)],
        np.broadcast_to(np.array(base, dtype), (big, len(base)))[:: -(big // 3)],
        dtype,
        "strided rows",
    )
    s = t.sum(0).astype("float64").numpy()
    np.testing.assert_allclose(
        s, np.array(base, np.float64) * big, rtol=1e-4 if dtype == "float32" else 1e-12
    )
