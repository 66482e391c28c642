"""Shared pieces of the differential fuzzers (test_fuzz_*.py): the example budget,
strategies for arrays seen through random tensor views, ferrograd's documented dtype
promotion, and a NumPy-vs-ferrograd comparison that treats NaN, inf and signed zeros
exactly.

The budget comes from ``FERROGRAD_FUZZ_EXAMPLES`` (examples per fuzz test; small by
default so CI stays fast and deterministic). A long run by hand::

    FERROGRAD_FUZZ_EXAMPLES=5000 pytest tests/python/test_fuzz_*.py -q -s

prints how many ferrograd calls were compared (``-s`` shows the tally).
"""

from __future__ import annotations

import atexit
import os
from collections import Counter

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("FERROGRAD_FUZZ_EXAMPLES", "30"))
LONG = "FERROGRAD_FUZZ_EXAMPLES" in os.environ

#: hypothesis settings of every fuzz test: deterministic in CI, random in long runs.
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG,
    database=None,
    suppress_health_check=list(HealthCheck),
)

#: ferrograd calls compared against a reference, by family (printed at exit with -s).
CALLS: Counter[str] = Counter()


@atexit.register
def _report() -> None:
    if CALLS and LONG:
        total = sum(CALLS.values())
        print(
            f"\nferrograd differential fuzz: {total} calls compared {dict(sorted(CALLS.items()))}"
        )


REAL = ["bool", "int32", "int64", "float32", "float64"]
FLOATS = ["float32", "float64"]
CATEGORY = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}
WIDTH = {"bool": 1, "int32": 4, "int64": 8, "float32": 4, "float64": 8}

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)

SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e30, 1e-30, 3.4e38, 1e-45]


def elements(dtype: str, lo: float = -8.0, hi: float = 8.0, special: bool = True):
    """Values of `dtype`: ordinary ones, plus NaN/inf/extremes for floats and the range
    ends for integers."""
    if dtype == "bool":
        return st.booleans()
    if dtype in ("int32", "int64"):
        info = np.iinfo(dtype)
        ends = st.sampled_from([int(info.min), int(info.max), 0, -1, 1])
        return st.one_of(st.integers(-20, 20), ends) if special else st.integers(-20, 20)
    width = 32 if dtype == "float32" else 64
    plain = st.floats(lo, hi, width=width)
    if not special:
        return plain
    return st.one_of(plain, plain, st.sampled_from(SPECIAL).map(lambda v: np.dtype(dtype).type(v)))


@st.composite
def viewed(draw, dtype=None, shape=None, special=True, lo=-8.0, hi=8.0):
    """``(a, t)``: a NumPy array and a ferrograd tensor equal to it, the tensor seen
    through a random view (plain, transposed, reversed/stepped slice of a larger buffer,
    or a broadcast expand of a size-1 dim)."""
    dtype = draw(st.sampled_from(REAL)) if dtype is None else dtype
    shape = draw(shapes) if shape is None else tuple(shape)
    nd = len(shape)
    kind = draw(st.sampled_from(["plain", "transposed", "sliced", "expanded"]))
    el = elements(dtype, lo, hi, special)
    if kind == "transposed" and nd >= 2:
        big = draw(hnp.arrays(dtype, shape[::-1], elements=el))
        return big.T, fg.tensor(big, dtype=dtype).permute(*range(nd - 1, -1, -1))
    if kind == "sliced" and nd >= 1:
        big = draw(hnp.arrays(dtype, tuple(max(2 * d - 1, 0) for d in shape), elements=el))
        idx = tuple(slice(None, None, -2) for _ in shape)
        return big[idx], fg.tensor(big, dtype=dtype)[idx]
    if kind == "expanded" and nd >= 1 and 1 in shape:
        one = draw(hnp.arrays(dtype, shape, elements=el))
        return one, fg.tensor(one, dtype=dtype)
    if kind == "expanded" and nd >= 1:
        # a size-1 buffer broadcast along one dim: a view with stride 0
        d = draw(st.integers(0, nd - 1))
        small = list(shape)
        small[d] = 1
        base = draw(hnp.arrays(dtype, tuple(small), elements=el))
        return np.broadcast_to(base, shape), fg.tensor(base, dtype=dtype).expand(list(shape))
    a = draw(hnp.arrays(dtype, shape, elements=el))
    return a, fg.tensor(a, dtype=dtype)


def promote(a: str, b: str, a_0d: bool = False, b_0d: bool = False) -> str:
    """ferrograd's documented promotion of two tensor dtypes (docs/tensors.md "Type
    promotion"); `a_0d` / `b_0d` mark 0-d operands: with exactly one, PyTorch's rule (it
    decides only when its category is higher; these dtypes have no complex)."""
    if a != b and a_0d != b_0d:
        dim, zero = (b, a) if a_0d else (a, b)
        return dim if CATEGORY[zero] <= CATEGORY[dim] else zero
    ca, cb = CATEGORY[a], CATEGORY[b]
    if ca != cb:
        return a if ca > cb else b
    return a if WIDTH[a] >= WIDTH[b] else b


def float_result(dtype: str) -> str:
    """Float-only math (true division, exp, ...) on ints and bools computes in float32."""
    return dtype if CATEGORY[dtype] == 2 else "float32"


def tolerance(dtype: str) -> dict:
    return {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-300)}.get(
        dtype, dict(rtol=0, atol=0)
    )


def assert_same(got, want, dtype: str | None = None, what: str = "") -> None:
    """`got` (a ferrograd tensor) equals `want` (NumPy): shape, dtype if given, NaN and
    infinity positions exactly, finite values within the dtype's tolerance."""
    g = got.numpy()
    w = np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != NumPy's {w.shape}"
    if dtype is not None:
        assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    if g.dtype.kind in "biu" and w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w, err_msg=what)
        return
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    assert (np.isnan(g64) == np.isnan(w64)).all(), f"{what}: NaN positions differ\n{g}\n{w}"
    inf = np.isinf(w64)
    np.testing.assert_array_equal(g64[inf], w64[inf], err_msg=f"{what}: infinities differ")
    fin = ~np.isnan(w64) & ~inf
    np.testing.assert_allclose(
        g64[fin], w64[fin], err_msg=what, **tolerance(dtype or got.dtype.name)
    )


def assert_scaled(got, want, dtype: str, what: str, scale, tol: tuple) -> None:
    """`got` (tensor) equals `want` (float64 NumPy): shape, dtype, NaN/inf positions
    exactly, finite values within ``tol = (rtol, atol)``, the atol scaled by `scale` (the
    magnitudes involved in each value)."""
    g = got.numpy()
    with np.errstate(over="ignore"):  # a float32 result beyond float32's range is inf
        w = np.asarray(want, dtype=dtype).astype(np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
    g = g.astype(np.float64)
    assert (np.isnan(g) == np.isnan(w)).all(), f"{what}: NaN positions\n{g}\n{w}"
    inf = np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf], err_msg=f"{what}: infinities")
    fin = np.isfinite(w)
    rtol, atol = tol
    bound = atol * np.broadcast_to(scale, w.shape)[fin] + rtol * np.abs(w[fin])
    bad = np.abs(g[fin] - w[fin]) > bound
    assert not bad.any(), f"{what}: got {g[fin][bad]}, expected {w[fin][bad]}"


def leaf(a, dtype: str = "float64"):
    """A contiguous tensor of `a` that requires grad (an input of gradcheck)."""
    t = fg.tensor(np.ascontiguousarray(a), dtype=dtype)
    t.requires_grad = True
    return t


def grad_ok(fn, *arrays, second: bool = False) -> None:
    """gradcheck (and with `second`, gradgradcheck) of `fn` at float64 leaves of `arrays`."""
    from ferrograd.autograd import gradcheck, gradgradcheck

    CALLS["gradcheck"] += 1
    inputs = tuple(leaf(a) for a in arrays)
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-6, rtol=1e-4)
    if second:
        CALLS["gradgradcheck"] += 1
        assert gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
