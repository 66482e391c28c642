"""Differential fuzzer for scans, reductions, sorts, selections, searches, counts and
layout ops (``cumsum`` ... ``cat``/``stack``) against NumPy over random shapes (0-d,
0-size, lines long enough for the radix sort and the blocked scan), dims (negative,
tuples, keepdim), dtypes, views (transposed, reversed, stride-0 expanded) and
NaN/±inf/±0/ties. Expected values are PyTorch's where Paddle and PyTorch agree and
ferrograd's documented choice where they differ (docs/tensor-sort-scan.md), computed in
NumPy: NaN sorts as the largest value and is the extreme of amax/argmax/argmin/median
lines, ties take the first index (cummax/cummin: the last), ``median(x, dim=)`` is the
lower middle value and ``median(x)`` Paddle's mean of the middle two, float32 scans
accumulate in float64 (as PyTorch's CPU kernels). The bugs it found are pinned by the
regression tests at the end.
Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import (
    CALLS,
    FLOATS,
    FUZZ,
    REAL,
    assert_same,
    elements,
    float_result,
    promote,
    viewed,
)
from hypothesis import assume, given
from hypothesis import strategies as st

NUMERIC = ["int32", "int64", "float32", "float64"]
INF = float("inf")
# (rtol, eps): a float result may differ from NumPy's by rounding: rtol of itself plus
# eps times the magnitude of what went into it
TOL = {"float32": (2e-5, 2e-6), "float64": (1e-12, 1e-13)}


@contextmanager
def quiet():
    """NumPy's warnings (empty slices, 0/0, overflow) silenced: the values are compared."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def dim_of(data, nd):
    return data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))


def dims_of(data, nd, tuples=True):
    """None, one dim, or (`tuples`) a tuple of distinct dims, negative ones too."""
    kind = data.draw(st.sampled_from(["none", "int", "tuple"][: 3 if tuples and nd else 2]))
    if kind != "tuple":
        return None if kind == "none" else dim_of(data, nd)
    picked = data.draw(st.lists(st.integers(0, nd - 1), unique=True, min_size=1, max_size=nd))
    return tuple(d - nd if data.draw(st.booleans()) else d for d in picked)


def along(a, dim, f, dtype, k=None, keep=False):
    """`f` applied to every 1-D line of `a` along `dim` (a 0-d `a` is one line of one
    element); `f` gives `k` values (k=None: one, and the dim goes unless `keep`)."""
    x = np.atleast_1d(np.asarray(a))
    d = dim % x.ndim
    m = np.moveaxis(x, d, -1)
    flat = m.reshape(int(np.prod(m.shape[:-1])), m.shape[-1])
    out = np.zeros((len(flat), 1 if k is None else k), dtype)
    for i, line in enumerate(flat):
        out[i] = f(line)
    out = np.moveaxis(out.reshape(m.shape[:-1] + out.shape[-1:]), -1, d)
    out = out.squeeze(d) if k is None and not keep else out
    return out.reshape(()) if np.ndim(a) == 0 else out


def order(line, descending=False):
    """Stable sort positions in PyTorch's order: NaN largest, -0.0 equal to 0.0."""
    rank = np.unique(line, return_inverse=True)[1].reshape(-1)
    return np.argsort(-rank if descending else rank, kind="stable")


def taken(a, idx, dim, reduced=False):
    """The elements of `a` at the positions `idx` (which must be in range) along `dim`;
    `reduced`: `idx` lacks the dim."""
    x, i = np.atleast_1d(np.asarray(a)), np.asarray(idx)
    d = dim % x.ndim
    i2 = np.expand_dims(i, d) if reduced and x.ndim == i.ndim + 1 else np.atleast_1d(i)
    assert ((i2 >= 0) & (i2 < x.shape[d])).all(), f"index out of range: {i}"
    return np.take_along_axis(x, i2, d).reshape(i.shape)


def refused(call, what):
    """There is no value (PyTorch refuses): a Python exception, or an empty result."""
    CALLS["refused"] += 1
    try:
        out = call()
    except Exception:
        return
    outs = out if isinstance(out, tuple) else (out,)
    assert all(o.numel() == 0 for o in outs), f"{what}: no value exists, got {out}"


def assert_exact(got, want, dtype=None, what="", signed_zero=True):
    """`got` equals `want` element for element (NaN where NaN; with `signed_zero` the sign
    of every zero too): selections and copies, which round nothing."""
    g, w = got.numpy(), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    if dtype is not None:
        assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    if g.dtype.kind != "f":
        np.testing.assert_array_equal(g, w, err_msg=what)
        return
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    nan = np.isnan(w64)
    assert (np.isnan(g64) == nan).all(), f"{what}: NaN positions differ\n{g}\n{w}"
    np.testing.assert_array_equal(g64[~nan], w64[~nan], err_msg=what)
    if signed_zero:
        assert (np.signbit(g64) == np.signbit(w64))[~nan].all(), f"{what}: zero signs\n{g}\n{w}"


def assert_close(got, want, dtype, scale, what="", skip=None, floor=0.0):
    """`got` equals `want` (float64, rounded to `dtype` first) up to rounding: NaN and
    infinities exactly, finite values within the tolerance (TOL; `scale` per element,
    plus `floor`); elements marked in `skip` are not compared."""
    g = got.numpy()
    assert g.shape == np.shape(want), f"{what}: shape {g.shape} != {np.shape(want)}"
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    with quiet():
        w = np.asarray(want, np.float64).astype(dtype).astype(np.float64)
    keep = np.ones(w.shape, bool) if skip is None else ~np.broadcast_to(skip, w.shape)
    g, w, sc = g.astype(np.float64)[keep], w[keep], np.broadcast_to(scale, keep.shape)[keep]
    assert (np.isnan(g) == np.isnan(w)).all(), f"{what}: NaN positions differ\n{g}\n{w}"
    inf = np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf], err_msg=f"{what}: infinities differ")
    fin = np.isfinite(w)
    rtol, eps = TOL[dtype]
    bad = np.abs(g[fin] - w[fin]) > rtol * np.abs(w[fin]) + eps * sc[fin] + floor
    assert not bad.any(), f"{what}: {g[fin][bad]} != {w[fin][bad]}"


def drawn(data, dtype):
    """`viewed(dtype)`, or (one time in 8) lines of 511 to 5000 elements along a strided dim,
    of a few values (many ties): the radix sort takes lines of 512+, cumsum's blocked scan
    4096+."""
    if data.draw(st.integers(0, 7)):
        return data.draw(viewed(dtype))
    n = data.draw(st.sampled_from([511, 512, 1000, 4095, 4096, 5000]))
    pool = np.array(data.draw(st.lists(elements(dtype), min_size=1, max_size=6)), dtype)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    buf = rng.choice(pool, size=(n, data.draw(st.integers(1, 3))))
    return buf.T, fg.tensor(buf, dtype=dtype).permute(1, 0)


def wide(dtype):
    """What PyTorch accumulates in: int64 for integers and bools, float64 for floats."""
    return np.float64 if dtype in FLOATS else np.int64


def finite_abs(a):
    x = np.abs(np.asarray(a, np.float64))
    return np.where(np.isfinite(x), x, 0.0)


# --- scans ------------------------------------------------------------------------------


def cum_extreme(line, largest, part):
    """PyTorch's cummax/cummin of a line (values: part 0, indices: 1): a later tie or a
    NaN takes over, and a NaN stays."""
    vals, idx = line.copy(), np.zeros(len(line), np.int64)
    best, j = (line[0] if len(line) else None), 0
    for i, v in enumerate(line):
        if v != v or (best == best and (v >= best if largest else v <= best)):
            best, j = v, i
        vals[i], idx[i] = best, j
    return (vals, idx)[part]


@FUZZ
@given(st.sampled_from(["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]), st.data())
def test_scans_against_numpy(name, data):
    dtype = data.draw(st.sampled_from(FLOATS if name == "logcumsumexp" else REAL))
    a, t = drawn(data, dtype)
    sums = name in ("cumsum", "cumprod")
    flat = sums and data.draw(st.booleans())  # Paddle's axis=None: the flattened tensor
    x = np.asarray(a).reshape(-1) if flat else np.asarray(a)
    dim = 0 if flat else dim_of(data, a.ndim)
    cast = sums and data.draw(st.booleans())  # dtype=float64 casts first
    kw = ({} if flat else {"dim": dim}) | ({"dtype": "float64"} if cast else {})
    method = data.draw(st.booleans()) and not flat and not cast
    n = np.atleast_1d(x).shape[dim % max(x.ndim, 1)]
    got = getattr(t, name)(dim) if method else getattr(fg, name)(t, **kw)
    what = f"{name}({dtype}{list(a.shape)}, {kw})"
    CALLS["scan"] += 1
    if name in ("cummax", "cummin"):
        # values exactly, zero signs too: the later of equal elements wins
        vals = along(x, dim, lambda r: cum_extreme(r, name == "cummax", 0), x.dtype, n)
        idx = along(x, dim, lambda r: cum_extreme(r, name == "cummax", 1), np.int64, n)
        assert_exact(got[0], vals, dtype, what)
        assert_exact(got[1], idx, "int64", what + " indices")
        return
    w, out = (np.float64, "float64") if cast else (wide(dtype), dtype)
    ref = {"cumsum": np.cumsum, "cumprod": np.cumprod, "logcumsumexp": np.logaddexp.accumulate}
    with quiet():
        want = along(x.astype(w), dim, ref[name], w, n)
    if w == np.int64:
        assert_exact(got, want, "int64", what)  # wraps around like NumPy's int64
    elif name == "cumsum":  # long lines: the blocked scan groups float64 additions otherwise
        scale = along(finite_abs(x), dim, np.cumsum, np.float64, n)
        assert_close(got, want, out, scale * (n if out == "float64" else 1), what)
    else:  # a product or log-sum: its relative rounding only
        with quiet():
            assert_same(got, want.astype(out), out, what)


# --- reductions -------------------------------------------------------------------------

RED_DTYPES = dict.fromkeys(["prod", "nansum", "amax", "amin", "count_nonzero", "all"], REAL)
RED_DTYPES.update(dict.fromkeys(["any", "argmax", "argmin"], REAL), logsumexp=NUMERIC)
RED_DTYPES.update(dict.fromkeys(["var", "std", "nanmean", "norm"], FLOATS))
EXACT = dict(all="bool", any="bool", count_nonzero="int64", argmax="int64", argmin="int64")


def first_extreme(line, largest):
    """argmax/argmin of a line: the first NaN if any, else the first extreme element."""
    nan = np.flatnonzero(line != line)
    return nan[0] if nan.size else (np.argmax(line) if largest else np.argmin(line))


@FUZZ
@given(st.sampled_from(sorted(RED_DTYPES)), st.data())
def test_reductions_against_numpy(name, data):
    dtype = data.draw(st.sampled_from(RED_DTYPES[name]))
    a, t = drawn(data, dtype)
    nd, x, a64, fa = a.ndim, np.asarray(a), np.asarray(a, np.float64), finite_abs(a)
    dim = dims_of(data, nd, tuples=name not in ("norm", "argmax", "argmin"))
    keep = dim is not None and data.draw(st.booleans())
    ax = None if dim is None or nd == 0 else tuple(d % nd for d in np.atleast_1d(dim))
    kw, q, p, corr = {} if dim is None else {"dim": dim, "keepdim": keep}, 1, None, 0
    if name in ("var", "std"):
        corr, q = data.draw(st.sampled_from([True, False, 0, 1, 2, 3])), 2
        kw["unbiased" if isinstance(corr, bool) else "correction"] = corr
    if name == "norm":
        kw["p"] = p = data.draw(st.sampled_from([1, 2, INF, -INF, 0, "fro", 3]))
        q = {2: 2, "fro": 2, 3: 3}.get(p, 1)

    def red(f, v, **k):
        return f(v, axis=ax, keepdims=keep, **k)

    def logsumexp():  # PyTorch's: the max subtracted first, an infinite max taken as 0
        m = np.max(a64, axis=ax, keepdims=True, initial=-INF)
        m = np.where(np.isinf(m), 0.0, m)
        out = np.log(np.sum(np.exp(a64 - m), axis=ax, keepdims=True)) + m
        return out if keep else (out.reshape(()) if ax is None else out.squeeze(ax))

    def arg(largest):  # the whole tensor flattened, or lines; PyTorch refuses empty ones
        v, d = (x.reshape(-1), 0) if dim is None else (x, dim)
        if np.atleast_1d(v).shape[d % max(v.ndim, 1)] == 0:
            raise ValueError("no element")
        return along(v, d, lambda r: first_extreme(r, largest), int, None, keep)

    def norm():  # p=0 counts the nonzeros (NaN too), ±inf: the largest / smallest |x|
        if p in (INF, -INF):
            return red(np.max if p > 0 else np.min, abs(a64))
        return red(np.sum, (a64 != 0) * 1.0) if p == 0 else red(np.sum, abs(a64) ** q) ** (1 / q)

    refs = {
        "prod": lambda: red(np.prod, x.astype(wide(dtype))),
        "nansum": lambda: red(np.nansum, x.astype(wide(dtype))),
        "nanmean": lambda: red(np.nanmean, a64),
        "var": lambda: red(np.var, a64, ddof=int(corr)),
        "std": lambda: red(np.std, a64, ddof=int(corr)),
        **{k: lambda f=f: red(f, x) for k, f in [("amax", np.max), ("amin", np.min)]},
        **{k: lambda f=f: red(f, x) for k, f in [("all", np.all), ("any", np.any)]},
        "count_nonzero": lambda: red(np.count_nonzero, x),  # NaN counts
        "argmax": lambda: arg(True),
        "argmin": lambda: arg(False),
        "logsumexp": logsumexp,
        "norm": norm,
    }
    what = f"{name}({dtype}{list(a.shape)}, {kw})"
    CALLS["reduce"] += 1
    try:
        with quiet():
            want = refs[name]()
    except ValueError:  # NumPy refuses a max/min/argmax of nothing (and so does PyTorch)
        return refused(lambda: getattr(fg, name)(t, **kw), what)
    got = getattr(fg, name)(t, **kw)
    out = EXACT.get(name, dtype if name in ("amax", "amin") else float_result(dtype))
    out = "int64" if name in ("prod", "nansum") and wide(dtype) == np.int64 else out
    if name in EXACT or out == "int64" or name in ("amax", "amin") or p in (0, INF, -INF):
        # selections and counts (which of 0.0 / -0.0 a tie gives is not fixed); integer
        # products and sums in int64, wrapping around (PyTorch)
        return assert_exact(got, np.asarray(want).astype(out), out, what, signed_zero=False)
    if name == "prod":
        # rounding is relative; an intermediate overflow or underflow depends on the order
        # of the factors: such products are not compared
        big = red(np.sum, np.log10(np.maximum(fa, 1.0)))
        small = red(np.sum, np.log10(np.where((fa > 0) & (fa < 1), fa, 1.0)))
        lim = 35 if out == "float32" else 300
        return assert_close(got, want, out, 0.0, what, skip=(big > lim) | (small < -lim))
    scale = 1.0 + red(np.max, fa, initial=0.0) if name == "logsumexp" else red(np.sum, fa**q)
    # a float32 sum (of squares, cubes) past float32's range overflows in PyTorch's order
    skip = (scale > 1e37) if out == "float32" and name != "logsumexp" else None
    floor = 10 * np.finfo(out).tiny ** (1 / q) if q > 1 else 0.0  # tiny squares underflow
    if name in ("norm", "std"):  # a root: p-th root of the sum, square root of var's rounding
        scale = scale ** (1 / q) if name == "norm" else np.sqrt(scale / TOL[out][1])
    assert_close(got, want, out, scale, what, skip=skip, floor=floor)


# --- selections: median, nanmedian, kthvalue, topk, quantile ------------------------------


def lower_median(line, skip_nan):
    """PyTorch's median of a line: the lower middle value; NaN if the line holds one
    (nanmedian: the NaNs left out, NaN when nothing is left)."""
    line = line[line == line] if skip_nan else line
    if (line != line).any() or not len(line):
        return np.nan
    return np.sort(line)[(len(line) - 1) // 2]


def mid_average(line):
    """Paddle's median of a line: NaN if it holds one, else the mean of the middle two."""
    s = np.sort(line.astype(np.float64))
    return np.nan if np.isnan(s).any() else (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2


def torch_quantile(line, q, how, skip_nan):
    """PyTorch's quantile of a line: NaN if it holds one (nanquantile: NaNs left out); rank
    q (n - 1), rounded half to even for 'nearest'; torch.lerp for 'linear'/'midpoint'."""
    s = np.sort(line[line == line] if skip_nan else line).astype(np.float64)
    if np.isnan(s).any() or not len(s):
        return np.nan
    rank = q * (len(s) - 1)
    lo, hi = int(np.floor(rank)), int(np.ceil(rank))
    if how in ("lower", "higher", "nearest"):
        return s[{"lower": lo, "higher": hi, "nearest": int(np.round(rank))}[how]]
    w, a, b = 0.5 if how == "midpoint" else rank - lo, s[lo], s[hi]
    return a + w * (b - a) if w < 0.5 else b - (b - a) * (1 - w)


SELECT = ["median", "nanmedian", "kthvalue", "topk", "quantile", "nanquantile"]
SELECT += ["median_avg", "median_min"]  # Paddle's median(x) / median(x, mode='min')


@FUZZ
@given(st.sampled_from(SELECT), st.data())
def test_selections_against_numpy(name, data):
    quant, paddle = name.endswith("quantile"), name.startswith("median_")
    dtype = data.draw(st.sampled_from(FLOATS if quant else NUMERIC))
    a, t = drawn(data, dtype)
    whole = (quant or paddle) and data.draw(st.booleans())  # no dim: all elements
    dim = None if whole else dim_of(data, a.ndim)
    keep = not whole and name != "topk" and data.draw(st.booleans())
    x, d = (np.asarray(a).reshape(-1), 0) if whole else (np.asarray(a), dim)
    n = np.atleast_1d(x).shape[d % max(x.ndim, 1)]
    kw = {} if whole else {"axis" if paddle else "dim": dim, "keepdim": keep}
    kw.update({"mode": "min"} if name == "median_min" else {})
    k = data.draw(st.integers(0 if a.ndim else 1, max(n, 1) + 1))  # out of range too
    largest, srt = data.draw(st.booleans()), data.draw(st.booleans())
    how = data.draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))
    qs = data.draw(st.lists(st.sampled_from([0.0, 0.125, 0.25, 0.5, 0.625, 1.0]), max_size=3))
    q = data.draw(st.sampled_from(qs)) if qs and data.draw(st.booleans()) else qs
    qt = fg.tensor(np.array(q, dtype)) if isinstance(q, list) else q
    f = getattr(fg, name.split("_")[0])
    call = {
        "kthvalue": lambda: f(t, k, **kw),
        "topk": lambda: f(t, k, dim=dim, largest=largest, sorted=srt),
        "quantile": lambda: f(t, qt, **kw, interpolation=how),
        "nanquantile": lambda: f(t, qt, **kw, interpolation=how),
    }.get(name, lambda: f(t, **kw))
    what = f"{name}({dtype}{list(a.shape)}, {kw}, k={k}, q={q}, {how}, largest={largest})"
    CALLS["select"] += 1
    bad_k = k > max(n, 1) or (k == 0 and name == "kthvalue")
    if n == 0 or (quant and (a.size == 0 or q == [])) or (bad_k and name in ("topk", "kthvalue")):
        # PyTorch refuses an empty line (quantile: any empty input or q), k out of range
        return refused(call, what)
    with quiet():
        if quant:
            nan = name == "nanquantile"
            per = [
                along(x, d, lambda r, v=v: torch_quantile(r, v, how, nan), float, None, keep)
                for v in np.atleast_1d(q)
            ]
            want = np.stack(per) if isinstance(q, list) else per[0]
        elif name == "median_avg":
            want = along(x, d, mid_average, float, None, keep)
        elif name == "topk":
            want = along(x, d, lambda r: r[order(r, largest)][:k], x.dtype, k)
        else:
            g = {
                "kthvalue": lambda r: r[order(r)][k - 1],
                "nanmedian": lambda r: lower_median(r, True),
            }
            want = along(x, d, g.get(name, lambda r: lower_median(r, False)), x.dtype, None, keep)
    got = call()
    if quant or name == "median_avg":
        out = "float64" if dtype == "float64" else "float32"
        scale = np.broadcast_to(along(finite_abs(x), d, np.max, float, None, keep), np.shape(want))
        # PyTorch's lerp (and a float32 sum of the middle two) is not defined to the
        # rounding on an infinity or past float32's range: those lines are not compared
        wild = along(x, d, lambda r: (np.abs(r.astype(float)) > 1e37).any(), bool, None, keep)
        if how in ("linear", "midpoint") or name == "median_avg":
            assert_close(got, want, out, 2 * scale, what, skip=np.broadcast_to(wild, scale.shape))
        else:
            assert_exact(got, want, out, what, signed_zero=False)
        return
    if whole:  # Paddle's median(x, mode='min'): the value alone
        assert_exact(got, want, dtype, what, signed_zero=False)
        return
    vals, idx = got
    if name == "topk" and not srt:  # any order: compare the values sorted
        vals = fg.tensor(along(vals.numpy(), d, lambda r: r[order(r, largest)], x.dtype, k))
    # which of equal elements is taken is not fixed: the value at the index must be the value
    assert_exact(vals, want, dtype, what, signed_zero=False)
    assert idx.dtype.name == "int64" and idx.shape == got[0].shape, what
    assert_exact(got[0], taken(x, idx.numpy(), d, not keep and name != "topk"), dtype, what)


# --- sorting ----------------------------------------------------------------------------


@FUZZ
@given(st.sampled_from(["sort", "argsort", "msort", "unique"]), st.data())
def test_sorts_against_numpy(name, data):
    dtype = data.draw(st.sampled_from(REAL))
    a, t = drawn(data, dtype)
    x, nd = np.asarray(a), a.ndim
    what = f"{name}({dtype}{list(a.shape)})"
    CALLS["sort"] += 1
    if name == "unique":
        inv, cnt = data.draw(st.booleans()), data.draw(st.booleans())
        kw = dict(return_inverse=inv, return_counts=cnt)
        if dtype not in FLOATS and a.size and nd and data.draw(st.booleans()):
            d = dim_of(data, nd)  # slices along a dim (NaN-free: NumPy's compare bytes)
            vals, i, c = np.unique(x, axis=d % nd, return_inverse=True, return_counts=True)
            i, got = i.reshape(-1), fg.unique(t, dim=d, **kw)
        else:  # NaNs count as one value: NumPy's rule, ferrograd's documented choice
            vals, i, c = np.unique(x.reshape(-1), return_inverse=True, return_counts=True)
            i, got = i.reshape(x.shape), fg.unique(t, **kw)
        got = got if isinstance(got, tuple) else (got,)
        assert_exact(got[0], vals, dtype, what, signed_zero=False)
        for g, w in zip(got[1:], [w for w, asked in ((i, inv), (c, cnt)) if asked]):
            assert_exact(g, w, "int64", f"{what} {kw}")
        return
    desc, stable = name != "msort" and data.draw(st.booleans()), data.draw(st.booleans())
    dim = 0 if name == "msort" else dim_of(data, nd)
    n = np.atleast_1d(x).shape[dim % max(nd, 1)]
    idx = along(x, dim, lambda r: order(r, desc), np.int64, n)
    vals = taken(x, idx, dim)
    how = data.draw(st.sampled_from(["function", "method", "paddle"]))
    kw = dict(descending=desc, stable=stable)
    what += f" dim={dim} {kw} {how}"
    if name == "msort":
        got = (fg.msort(t) if how == "function" else t.msort(), None)
        stable = False  # PyTorch's msort is not stable
    elif how == "paddle":  # axis=: Paddle's sort gives the values alone
        got = getattr(fg, name)(t, axis=dim, **kw)
        got = (got, None) if name == "sort" else (None, got)
    elif name == "sort":
        got = fg.sort(t, dim=dim, **kw) if how == "function" else t.sort(dim, **kw)
    else:
        got = (None, fg.argsort(t, dim=dim, **kw) if how == "function" else t.argsort(dim, **kw))
    if got[0] is not None:  # the sign of equal zeros is fixed by a stable sort only
        assert_exact(got[0], vals, dtype, what, signed_zero=stable)
    if got[1] is not None and stable:
        assert_exact(got[1], idx, "int64", what)  # equal elements keep their order
    elif got[1] is not None:  # any order of equal elements: a permutation to sorted values
        assert_exact(fg.tensor(taken(x, got[1].numpy(), dim)), vals, None, what, False)
        perm = np.sort(np.atleast_1d(got[1].numpy()), axis=dim % max(nd, 1))
        assert (perm == np.sort(np.atleast_1d(idx), axis=dim % max(nd, 1))).all(), what


# --- searching and counting ---------------------------------------------------------------


def reversed_view(arr, dtype):
    """A tensor equal to `arr` (at least 1-D), seen through a reversed, stepped view."""
    return fg.tensor(np.repeat(arr[..., ::-1], 2, axis=-1), dtype=dtype)[..., ::-2]


@FUZZ
@given(st.data())
def test_searchsorted_bucketize_against_numpy(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    v, tv = data.draw(viewed(dtype))
    bucket = data.draw(st.booleans())
    rows = () if bucket or v.ndim == 0 or data.draw(st.booleans()) else v.shape[:-1]
    # NaN-free: PyTorch's binary search has no order for a NaN in the sequence
    el = elements(dtype).filter(lambda e: e == e)
    seq = data.draw(hnp.arrays(dtype, (*rows, data.draw(st.integers(0, 5))), elements=el))
    use_sorter = not bucket and data.draw(st.booleans())
    sorter = np.argsort(seq, axis=-1, kind="stable") if use_sorter else None
    seq = seq if use_sorter else np.sort(seq, axis=-1)
    right, int32 = data.draw(st.booleans()), data.draw(st.booleans())
    side = "right" if right else "left"
    ts = reversed_view(seq, dtype) if data.draw(st.booleans()) else fg.tensor(seq, dtype=dtype)
    kw = {"out_int32": int32, **({"right": right} if data.draw(st.booleans()) else {"side": side})}
    if v.ndim == 0 and data.draw(st.booleans()):
        tv = v.item()  # a Python number: a 0-d result
    if bucket:
        got = fg.bucketize(tv, ts, right=right, out_int32=int32)
    else:
        got = fg.searchsorted(ts, tv, sorter=None if sorter is None else fg.tensor(sorter), **kw)
    want = np.zeros(v.shape, np.int64)
    for r in np.ndindex(rows):  # one row, or one per leading index
        s = None if sorter is None else sorter[r]
        want[r] = np.searchsorted(seq[r], v[r], side, sorter=s)
    CALLS["search"] += 1
    what = f"{'bucketize' if bucket else 'searchsorted'}({list(seq)}, {v!r}, {kw})"
    assert_exact(got, want, "int32" if int32 else "int64", what)


@FUZZ
@given(st.data())
def test_histc_against_numpy(data):
    dtype, bins = data.draw(st.sampled_from(FLOATS)), data.draw(st.integers(1, 6))
    a, t = data.draw(viewed(dtype))
    bounds = data.draw(st.lists(st.sampled_from([-2, -0.5, 0, 1, 2.5]), min_size=2, max_size=2))
    lo, hi = bounds = sorted(bounds)
    x = np.asarray(a, np.float64).reshape(-1)
    fin = x[np.isfinite(x)]
    if lo == hi and fin.size:
        # the data's range (PyTorch and Paddle); NaNs and infinities left out: ferrograd's
        # documented choice where PyTorch refuses
        lo, hi = fin.min(), fin.max()
    if lo == hi:  # widened by 1 each side (PyTorch, Paddle)
        lo, hi = lo - 1, hi + 1
    assume(lo < hi)  # too narrow to widen (|lo| ~ 1e30): PyTorch versions differ
    method = data.draw(st.booleans())
    got = t.histc(bins, *bounds) if method else fg.histc(t, bins=bins, min=bounds[0], max=bounds[1])
    want = np.histogram(x[~np.isnan(x)], bins, (lo, hi))[0]  # NaNs and outliers not counted
    CALLS["count"] += 1
    assert_exact(got, want.astype(dtype), dtype, f"histc({a!r}, {bins}, {bounds})")


@FUZZ
@given(st.data())
def test_bincount_against_numpy(data):
    n, idtype = data.draw(st.integers(0, 6)), data.draw(st.sampled_from(["int32", "int64"]))
    neg = -(data.draw(st.integers(0, 7)) == 0)  # sometimes a -1: refused
    x = np.array(data.draw(st.lists(st.integers(neg, 6), min_size=n, max_size=n)), idtype)
    tx = reversed_view(x, idtype) if data.draw(st.booleans()) else fg.tensor(x, dtype=idtype)
    minlength = data.draw(st.integers(0, 8))
    what = f"bincount({list(x)}, minlength={minlength})"
    CALLS["count"] += 1
    if (x < 0).any():
        return refused(lambda: fg.bincount(tx, minlength=minlength), what)
    if data.draw(st.booleans()):
        want = np.bincount(x, minlength=minlength)
        assert_exact(fg.bincount(tx, minlength=minlength), want, "int64", what)
        return
    wdtype = data.draw(st.sampled_from(REAL))
    w, tw = data.draw(viewed(wdtype, (n,)))
    out = wdtype if wdtype in FLOATS else "float64"  # PyTorch: other weights sum in float64
    want = np.zeros(max(x.max(initial=-1) + 1, minlength), out)
    with quiet():
        np.add.at(want, x, np.asarray(w).astype(out))  # one by one, in order
    scale = np.bincount(x, finite_abs(w), minlength=minlength)
    skip = (scale > 1e37) if out == "float32" else None  # float32 order-dependent overflow
    got = fg.bincount(tx, weights=tw, minlength=minlength)
    assert_close(got, want, out, scale, f"{what} weights {w!r}", skip=skip)


# --- layout: diff, trace, tril/triu, flip, roll, rot90, gather, index_select, ... ---------

LAYOUT = ["diff", "trace", "tril", "triu", "flip", "roll", "rot90", "gather", "take_along_axis"]
LAYOUT += ["index_select", "repeat_interleave", "tile", "cat", "stack"]


@FUZZ
@given(st.sampled_from(LAYOUT), st.data())
def test_layout_ops_against_numpy(name, data):
    dtype, method = data.draw(st.sampled_from(REAL)), data.draw(st.booleans())
    low = {"trace": 2, "tril": 2, "triu": 2, "rot90": 2, "tile": 0, "stack": 0}.get(name, 1)
    shape = data.draw(hnp.array_shapes(min_dims=max(low, 1), max_dims=4, max_side=4, min_side=0))
    a, t = data.draw(viewed(dtype, shape if low or data.draw(st.booleans()) else ()))
    x, nd = np.asarray(a), a.ndim
    d, ints = dim_of(data, nd), lambda lo, hi: data.draw(st.integers(lo, hi))
    other = [e for e in range(-nd, nd) if e % nd != d % nd]  # a second, different dim
    what, res = f"{name}({dtype}{list(a.shape)}, dim={d})", dtype
    CALLS["layout"] += 1
    if name == "diff":
        n, ends, s = ints(0, 3), {}, list(a.shape)
        for end in [e for e in ("prepend", "append") if ints(0, 1)]:
            s[d] = ints(0, 2)
            ends[end] = data.draw(viewed(dtype, s))
        got = fg.diff(t, n=n, dim=d, **{e: v[1] for e, v in ends.items()})
        pre, post = ([np.asarray(ends[e][0])] if e in ends else [] for e in ("prepend", "append"))
        # bools: xor; n=0 with prepend/append: the joined input (PyTorch; NumPy drops them)
        with quiet():
            want = np.diff(np.concatenate(pre + [x] + post, d), n, d)
        what += f" n={n} {sorted(ends)}"
    elif name == "trace":
        if nd == 2 and method:  # PyTorch's trace of a matrix
            o, i, j, got = 0, 0, 1, t.trace()
        else:  # Paddle's offset, axis1, axis2
            o, i, j = ints(-3, 3), d, data.draw(st.sampled_from(other))
            got = fg.trace(t, offset=o, axis1=i, axis2=j)
        want, what = np.trace(x.astype(wide(dtype)), o, i, j), f"{what} offset={o} axes={i},{j}"
        res = dtype if dtype in FLOATS else "int64"  # PyTorch sums integers in int64
        if dtype in FLOATS:  # a float32 order-dependent overflow is not compared
            scale = np.trace(finite_abs(x), o, i, j)
            skip = (scale > 1e37) if dtype == "float32" else None
            return assert_close(got, want, dtype, scale, what, skip=skip)
    elif name in ("tril", "triu"):
        k = ints(-4, 4)
        got = getattr(t, name)(k) if method else getattr(fg, name)(t, k)
        want, what = getattr(np, name)(x, k), f"{what} diagonal={k}"
    elif name == "flip":
        dims = data.draw(st.lists(st.integers(0, nd - 1), unique=True, min_size=1, max_size=nd))
        dims = [e - nd * ints(0, 1) for e in dims]
        got, want = t.flip(dims) if method else fg.flip(t, dims), np.flip(x, tuple(dims))
    elif name == "roll":  # no dims: the flattened tensor rolls
        dims = None if method else [dim_of(data, nd) for _ in range(ints(1, 3))]
        shifts = ints(-9, 9) if dims is None else [ints(-9, 9) for _ in dims]
        got = fg.roll(t, shifts, dims)
        want, what = np.roll(x, shifts, dims and tuple(dims)), f"{what} {shifts} {dims}"
    elif name == "rot90":
        k, j = ints(-5, 5), data.draw(st.sampled_from(other))
        got = t.rot90(k, [d, j]) if method else fg.rot90(t, k, [d, j])
        want, what = np.rot90(x, k, (d, j)), f"{what} k={k} dims={d},{j}"
    elif name in ("gather", "take_along_axis"):
        # torch's gather: an index no larger than the input in the other dims; Paddle's
        # take_along_axis and take_along_dim: the input's sizes there
        size = [ints(0, s) if name == "gather" else s for s in a.shape]
        size[d] = ints(0, 4) if a.shape[d] else 0
        idx = data.draw(hnp.arrays(np.int64, size, elements=st.integers(0, max(a.shape[d] - 1, 0))))
        rev = tuple(range(nd))[::-1]  # the index seen through a transposed view, or not
        ti = fg.tensor(idx.transpose(rev).copy()).permute(*rev) if ints(0, 1) else fg.tensor(idx)
        part = x[tuple(slice(None) if e == d % nd else slice(0, s) for e, s in enumerate(size))]
        want, what = np.take_along_axis(part, idx, d), f"{what} index {list(size)}"
        if name == "gather":
            got = t.gather(d, ti)
        else:
            got = fg.take_along_axis(t, ti, d) if method else fg.take_along_dim(t, ti, dim=d)
    elif name == "index_select":
        k, idtype = ints(0, 5) if a.shape[d] else 0, data.draw(st.sampled_from(["int32", "int64"]))
        idx = np.array([ints(0, a.shape[d] - 1 + (ints(0, 7) == 0)) for _ in range(k)], idtype)
        ti = fg.tensor(idx, dtype=idtype)
        call = lambda: t.index_select(d, ti) if method else fg.index_select(t, ti, dim=d)  # noqa: E731
        if (idx >= a.shape[d]).any():
            return refused(call, f"{what} index {list(idx)}")  # out of range: an IndexError
        got = call()
        want, what = np.take(x, idx, axis=d), f"{what} index {list(idx)}"
    elif name == "repeat_interleave":
        dd = None if nd == 0 or ints(0, 1) else d  # None: the flattened tensor
        size = a.size if dd is None else a.shape[d]
        kind = ints(0, 2)  # an int, one count for all, or a count per element
        reps = [ints(0, 3) for _ in range(size if kind == 2 else 1)]
        reps = reps[0] if kind == 0 else np.array(reps, np.int64)
        tr = fg.tensor(reps) if isinstance(reps, np.ndarray) else reps
        got = t.repeat_interleave(tr, dim=dd) if method else fg.repeat_interleave(t, tr, dim=dd)
        want, what = np.repeat(x, reps, axis=dd), f"{name}({list(a.shape)}, {reps}, dim={dd})"
    elif name == "tile":
        reps = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
        if method and len(reps) >= nd:  # PyTorch's Tensor.repeat: tile with >= ndim sizes
            got = t.repeat(*reps)
        else:
            got = t.tile(reps) if method else fg.tile(t, reps)
        want, what = np.tile(x, reps), f"{name}({list(a.shape)}, {reps})"
    else:  # cat / stack of views of any dtypes: promoted (PyTorch's result_type)
        parts = [(a, t)]
        for _ in range(ints(0, 2)):
            s = list(a.shape)
            if name == "cat":
                s[d] = ints(0, 3)
            parts.append(data.draw(viewed(data.draw(st.sampled_from(REAL)), s)))
            res = promote(res, str(parts[-1][0].dtype))
        ts, xs = [p[1] for p in parts], [np.asarray(p[0]).astype(res) for p in parts]
        if name == "cat":
            got = fg.cat(ts, dim=d) if method else fg.concat(ts, axis=d)
            want = np.concatenate(xs, d)
        else:
            d = ints(-nd - 1, nd)
            got, want = fg.stack(ts, d) if method else fg.stack(ts, axis=d), np.stack(xs, d)
        what = f"{name}({[str(p[0].dtype) + str(list(p[0].shape)) for p in parts]}, {d})"
    assert_exact(got, want, res, what)


# --- regression tests of the bugs the fuzzers found --------------------------------------


def test_logcumsumexp_of_two_infinities_is_inf():
    # PyTorch's log-add-exp gives x when both are the same infinity; so does NumPy's
    got = fg.logcumsumexp(fg.tensor([1.0, INF, INF]), dim=0)
    assert got.tolist() == [1.0, INF, INF]  # was [1.0, inf, nan]


def test_histc_equal_nonzero_bounds_use_the_data_range():
    # PyTorch (histc_select_outer_bin_edges) and Paddle (its histogram kernel) both take
    # the data's range whenever min == max, not only when both are 0
    got = fg.histc(fg.tensor([1.0, 1.7, 0.3, 2.0]), bins=4, min=1, max=1)
    assert got.tolist() == [1.0, 1.0, 0.0, 2.0]  # bins over [0.3, 2]; were over [0, 2]


@pytest.mark.parametrize("f", [fg.quantile, fg.nanquantile])
def test_quantile_keepdim_of_0d_adds_no_dim(f):
    # PyTorch keeps a 0-d input's (empty) shape: q's dims alone, as with keepdim=False
    x = fg.tensor(0.5)
    assert list(f(x, 0.5, dim=0, keepdim=True).shape) == []  # was [1]
    assert list(f(x, fg.tensor([0.0, 1.0]), dim=0, keepdim=True).shape) == [2]  # was [2, 1]
