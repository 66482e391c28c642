"""Differential fuzzer for complex tensors, dtype conversion and the creation ops.

1. complex64/complex128 tensors: arithmetic (``+ - * / **`` with tensors of every
   category and Python complex/float/int scalars, broadcast), unary math, reductions,
   ``matmul``, ``view_as_real``/``view_as_complex``, ``complex``/``polar``, ``eq``/``ne``
   (ordering must raise), ``isclose``/``allclose`` against complex128 NumPy, with NaN,
   inf and overflowing magnitudes in either component (exact component by component for
   finite input where NumPy and PyTorch agree; the C99 class, NaN or infinite, for
   non-finite input, where libraries differ in the other component), and Wirtinger
   gradients: ``gradcheck`` of real-valued functions of complex leaves, and of complex
   numbers built from two real leaves with ``complex``/``polar``.
2. dtype conversion: ``.to(dtype)``, ``.type(dtype)``, ``astype`` between all twelve
   dtypes against NumPy's ``astype`` for in-range values (out-of-range float -> integer
   is undefined in PyTorch: only "no crash"), float16 against NumPy's float16 and
   bfloat16 against a round-to-nearest-even reference, both rounded once from the source
   (PyTorch rounds float64 through float32 first: a double rounding, not followed).
3. creation ops against NumPy/SciPy: ``arange`` (PyTorch's length rule), ``linspace``,
   ``logspace``, ``full``/``full_like`` dtype inference, ``eye``, ``tril``/``triu``,
   ``tril_indices``/``triu_indices``, ``diag``/``diagflat``/``diag_embed``, ``meshgrid``,
   ``cartesian_prod``, ``combinations``, ``vander``, ``trapezoid``/``cumulative_trapezoid``,
   ``kron``, ``block_diag``, ``cdist``, ``atleast_1d/2d/3d``.

This module is PyTorch code (``torch = fg``). The bugs found are pinned by the
regression tests at the end (all fixed). Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import itertools
import math
import warnings

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.integrate as sint
import scipy.linalg as sla
from ferrograd.autograd import gradcheck, gradgradcheck
from fuzz_support import CALLS, FUZZ, assert_same
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.spatial.distance import cdist as sp_cdist

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's
# NumPy's references meet inf and NaN on purpose
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

CDT = ["complex64", "complex128"]
REAL_OF = {"complex64": "float32", "complex128": "float64"}
CTOL = {"complex64": (2e-5, 2e-6), "complex128": (1e-12, 1e-14)}
# component values: ordinary, signed zeros, infinities, NaN, values whose exp / sinh /
# squares overflow (800, 1e200; 100 and 1e30 in complex64)
SPECIAL_C = [0.0, -0.0, 1.0, -2.5, 0.5, np.inf, -np.inf, np.nan, 1e200, 800.0, -800.0]
SPECIAL_C64 = [0.0, -0.0, 1.0, -2.5, 0.5, np.inf, -np.inf, np.nan, 1e30, 100.0, -100.0]
# the largest x with a finite exp(x), per dtype
EXP_MAX = {"complex64": 88.72, "complex128": 709.78}


def cvals(draw, shape, dtype, special=True, lo=-4.0, hi=4.0):
    """A complex NumPy array of `dtype`: parts drawn from ordinary values (and, with
    `special`, from the special components above)."""
    sp = SPECIAL_C if dtype == "complex128" else SPECIAL_C64
    part = st.floats(lo, hi, width=32 if dtype == "complex64" else 64)
    if special:
        part = st.one_of(part, part, st.sampled_from(sp))
    re = draw(hnp.arrays(np.float64, shape, elements=part))
    im = draw(hnp.arrays(np.float64, shape, elements=part))
    z = np.empty(shape, dtype=dtype)  # not re + 1j * im: 1j * inf has a NaN real part
    z.real, z.imag = re, im
    return z


def ctensor(data, a, dtype):
    """`a` as a ferrograd tensor of `dtype`, plain or seen through a transposed / stepped
    view of a larger buffer."""
    kind = data.draw(st.sampled_from(["plain", "transposed", "sliced"]))
    if kind == "transposed" and a.ndim >= 2:
        perm = list(range(a.ndim))[::-1]
        return fg.tensor(np.ascontiguousarray(a.transpose(perm)), dtype=dtype).permute(*perm)
    if kind == "sliced" and a.ndim >= 1:
        big = np.zeros(tuple(max(2 * d - 1, 0) for d in a.shape), dtype=a.dtype)
        idx = tuple(slice(None, None, -2) for _ in a.shape)
        big[idx] = a
        return fg.tensor(big, dtype=dtype)[idx]
    return fg.tensor(a, dtype=dtype)


def parts(x):
    """float64 `(..., 2)` array of real and imaginary parts (a real array: imag 0)."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return np.stack([x.real, x.imag], -1).astype(np.float64)
    return np.stack([x.astype(np.float64), np.zeros(x.shape)], -1)


def check_c(got, want, dtype, what, scale=1.0):
    """`got` (a ferrograd tensor) equals `want` (NumPy), component by component: shape,
    dtype, NaN and infinity positions exactly, finite parts within the dtype's rtol and
    an atol times `scale` (broadcast to `want`)."""
    g = got.numpy()
    w = np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
    gp, wp = parts(g), parts(w)
    bad_nan = np.isnan(gp) != np.isnan(wp)
    assert not bad_nan.any(), f"{what}: NaN positions\n{g[bad_nan.any(-1)]}\n{w[bad_nan.any(-1)]}"
    inf = np.isinf(wp)
    np.testing.assert_array_equal(gp[inf], wp[inf], err_msg=f"{what}: infinities")
    fin = np.isfinite(wp)
    rtol, atol = CTOL.get(dtype, (2e-5, 2e-6) if dtype in ("float32",) else (1e-12, 1e-14))
    sc = np.broadcast_to(np.asarray(scale, dtype=np.float64), w.shape)[..., None]
    sc = np.broadcast_to(sc, wp.shape)
    tiny = 4 * float(np.finfo(np.float32 if dtype in ("complex64", "float32") else np.float64).tiny)
    bound = atol * sc[fin] + rtol * np.abs(wp[fin]) + tiny  # subnormals: absolute
    bad = np.abs(gp[fin] - wp[fin]) > bound
    assert not bad.any(), f"{what}: got {gp[fin][bad]}, expected {wp[fin][bad]}"


def cclass(x):
    """C99's class of each complex number: 2 infinite (either part), 1 NaN, 0 finite."""
    p = parts(x)
    return np.where(np.isinf(p).any(-1), 2, np.where(np.isnan(p).any(-1), 1, 0))


# ---------------------------------------------------------------- complex arithmetic
CAT = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}
CAT.update(complex64=3, complex128=3)


def complex_promote(a, b):
    """Two tensors (>= 1-d), at least one complex: complex128 if either is complex128 or
    float64, else complex64 (docs/tensors.md)."""
    return "complex128" if {a, b} & {"complex128", "float64"} else "complex64"


OPERAND = ["complex64", "complex128", "float32", "float64", "int32", "int64", "bool"]
OPS = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: x**y,
}


def real_vals(draw, shape, dtype, lo=-4.0, hi=4.0):
    if dtype == "bool":
        return draw(hnp.arrays(bool, shape))
    if dtype in ("int32", "int64"):
        return draw(hnp.arrays(dtype, shape, elements=st.integers(-4, 4)))
    return draw(hnp.arrays(dtype, shape, elements=st.floats(lo, hi, width=int(dtype[-2:]))))


def op_scale(op, a, b, want):
    """The magnitude an op's rounding error is proportional to."""
    aa, bb = np.abs(a).astype(np.float64), np.abs(b).astype(np.float64)
    if op in ("add", "sub"):
        return aa + bb
    if op == "mul":
        return aa * bb
    if op == "div":
        with np.errstate(all="ignore"):
            return aa / bb + np.abs(want)
    # pow: exp(b log a): the error grows with |b log a|
    with np.errstate(all="ignore"):
        return np.abs(want) * (1 + bb * (np.abs(np.log(aa)) + np.pi)) + 1


@FUZZ
@given(st.sampled_from(sorted(OPS)), st.data())
def test_complex_arithmetic(op, data):
    """Complex tensor (op) tensor / Python scalar, either order, broadcast; finite values
    (zero divisors and zero bases of ** excepted: see the special-value tests)."""
    cdt = data.draw(st.sampled_from(CDT))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    kind = data.draw(st.sampled_from(["tensor", "complex", "float", "int"]))
    a = cvals(data.draw, shape, cdt, special=False)
    if op in ("div", "pow"):
        a[np.abs(a) < 0.25] = 0.5 + 0.5j
    if kind == "tensor":
        odt = data.draw(st.sampled_from(OPERAND))
        bshape = data.draw(hnp.broadcastable_shapes(shape, min_dims=1, max_dims=3, min_side=0))
        if odt.startswith("complex"):
            b = cvals(data.draw, bshape, odt, special=False)
        else:
            b = real_vals(data.draw, bshape, odt)
        if op in ("div", "pow") and odt == "bool":
            odt, b = "int64", np.where(b, 2, 1).astype(np.int64)
        if op == "div":
            b = np.where(np.abs(b) < 0.25, b.dtype.type(1), b)
        tb = ctensor(data, b, odt)
        want_dtype = complex_promote(cdt, odt)
    else:
        b = {
            "complex": complex(*data.draw(st.tuples(st.floats(-4, 4), st.floats(-4, 4)))),
            "float": data.draw(st.floats(-4, 4)),
            "int": data.draw(st.integers(-4, 4)),
        }[kind]
        if op == "div" and abs(b) < 0.25:
            b = type(b)(1)
        tb = b
        want_dtype = cdt
    swap = data.draw(st.booleans())
    if op == "pow" and swap:
        # the base is now `b`: keep it away from 0 (0 ** w: test_complex_zero_pow_regression)
        if kind == "tensor":
            b = np.where(np.abs(b) < 0.25, b.dtype.type(2), b)
            tb = ctensor(data, b, odt)
        elif abs(b) < 0.25:
            b = tb = type(b)(2)
    ta = ctensor(data, a, cdt)
    x, y = (b, a) if swap else (a, b)
    tx, ty = (tb, ta) if swap else (ta, tb)
    # the reference in complex128 from the operands' exact values (a complex64 result
    # may differ from NumPy's complex64 by the rounding of Python scalars)
    x128 = np.asarray(x).astype(np.complex128) if not isinstance(x, complex) else x
    y128 = np.asarray(y).astype(np.complex128) if not isinstance(y, complex) else y
    with np.errstate(all="ignore"):
        want = OPS[op](x128, y128)
    assume(np.isfinite(parts(want)).all())
    CALLS["complex arithmetic"] += 1
    got = OPS[op](tx, ty)
    scale = op_scale(op, x128, y128, want)
    check_c(got, want.astype(want_dtype), want_dtype, f"{op} {kind}", scale=scale)


@FUZZ
@given(st.sampled_from(["add", "sub", "mul", "div"]), st.data())
def test_complex_arithmetic_special(op, data):
    """NaN / inf / overflowing components: `+`/`-` act per component (exactly NumPy's;
    PyTorch computes `x + 1 * y` as a complex product, so `0 + inf j` gains a NaN real
    part there, an artifact not followed); `*`/`/` of finite numbers are compared where
    finite, otherwise by C99 class (libraries differ in the other component)."""
    cdt = data.draw(st.sampled_from(CDT))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4))
    a = cvals(data.draw, shape, cdt)
    b = cvals(data.draw, shape, cdt)
    with np.errstate(all="ignore"):
        want = OPS[op](a.astype(np.complex128), b.astype(np.complex128)).astype(cdt)
    CALLS["complex arithmetic special"] += 1
    got = OPS[op](fg.tensor(a), fg.tensor(b))
    assert got.dtype.name == cdt
    if op in ("add", "sub"):
        check_c(got, want, cdt, op, scale=np.abs(a) + np.abs(b))
        return
    g = got.numpy()
    fin_in = np.isfinite(parts(a)).all(-1) & np.isfinite(parts(b)).all(-1)
    if op == "div":
        fin_in &= b != 0
        # PyTorch's complex division (c10/util/complex.h, complex::operator/=, Smith's
        # method, as NumPy's) scales by `1 / (d + c * (c / d))` in the dtype, for the
        # larger part `d` of the divisor: where `1 / max(|c|, |d|)` overflows (a float32
        # divisor below ~2.9e-39, e.g. `0 / 5.3e-44j`) that scale is inf, and the result
        # NaN or inf (PyTorch and NumPy complex64 give `nan+nanj` there) although the
        # exact quotient is finite: compare only divisors with a finite reciprocal
        rdt = np.finfo(cdt).dtype
        big = np.maximum(np.abs(b.real), np.abs(b.imag)).astype(rdt)
        with np.errstate(all="ignore"):
            fin_in &= np.isfinite(rdt.type(1) / big)
    ok = fin_in & np.isfinite(parts(want)).all(-1)
    with np.errstate(all="ignore"):
        sc = np.abs(a).astype(np.float64) * (
            np.abs(b) if op == "mul" else 1 / np.abs(b).astype(np.float64)
        )
    # a finite exact result whose parts cancel: an absolute error of eps * |a||b|
    sc = np.where(np.isfinite(sc), sc, 0)
    if ok.any():
        rt = CTOL[cdt][0]
        gp, wp = parts(g[ok]), parts(want[ok])
        assert np.isfinite(gp).all(), f"{op}: {a[ok]} {b[ok]} -> {g[ok]}, want {want[ok]}"
        bound = rt * (np.abs(wp) + sc[ok][:, None])
        assert (np.abs(gp - wp) <= bound).all(), f"{op}: {g[ok]} != {want[ok]}"
    # any NaN in the input: no finite result (NumPy and PyTorch agree on that)
    nan_in = np.isnan(parts(a)).any(-1) | np.isnan(parts(b)).any(-1)
    assert (cclass(g[nan_in]) != 0).all(), f"{op}: NaN in, finite out: {g[nan_in]}"
    if op == "div":
        # nonzero / 0 is infinite (NumPy) or NaN (PyTorch): never finite
        zero = (b == 0) & (a != 0)
        assert (cclass(g[zero]) != 0).all(), f"div by 0: {a[zero]} -> {g[zero]}"


# ---------------------------------------------------------------- complex unary math
def _naive_square(z):
    out = np.empty(z.shape, z.dtype)
    out.real = z.real * z.real - z.imag * z.imag
    out.imag = 2 * z.real * z.imag
    return out


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


# name: (ferrograd call, NumPy reference, result is real); NumPy and PyTorch 2.15 give
# the same parts on every special-component grid point for these (checked by hand)
UNARY = {
    "exp": (fg.exp, np.exp, False),
    "log": (fg.log, np.log, False),
    "sqrt": (fg.sqrt, np.sqrt, False),
    "sin": (fg.sin, np.sin, False),
    "cos": (fg.cos, np.cos, False),
    "tan": (fg.tan, np.tan, False),
    "tanh": (fg.tanh, np.tanh, False),
    "abs": (fg.abs, np.abs, True),
    "angle": (fg.angle, np.angle, True),
    "conj": (fg.conj, np.conj, False),
    "neg": (fg.neg, np.negative, False),
    # NumPy's reciprocal(0j) is NaN + NaN j; PyTorch's (and 1 / 0j in NumPy) inf + NaN j
    "reciprocal": (fg.reciprocal, lambda z: 1 / z, False),
    "rsqrt": (fg.rsqrt, lambda z: 1 / np.sqrt(z), False),
    "sigmoid": (fg.sigmoid, _sigmoid, False),
    "expm1": (fg.expm1, np.expm1, False),
    "log1p": (fg.log1p, np.log1p, False),
    # NumPy's square(1e200 + 1e200j) is -inf + inf j; PyTorch's (x^2 - y^2) + 2xy j
    # is NaN + inf j
    "square": (fg.square, lambda z: _naive_square(z), False),
    "real": (lambda t: t.real, np.real, True),
    "imag": (lambda t: t.imag, np.imag, True),
}


def unary_excluded(name, z, dtype):
    """The finite inputs where ferrograd's result is not compared with NumPy's."""
    re = z.real.astype(np.float64)
    big = EXP_MAX[dtype]
    if name == "sigmoid":
        # exp(-z) = inf +- inf j: PyTorch's 1 / (1 + exp(-z)) is NaN there too
        return (-re > big) & (z.imag != 0)
    if name == "expm1":
        # expm1(x + 0j) = expm1(x) + 0j exactly (NumPy / PyTorch: inf + NaN j once exp(x)
        # overflows): test_complex_expm1_small_argument_regression
        return (re > big) & (z.imag == 0)
    return np.zeros(z.shape, bool)


def unary_scale(name, z):
    """The magnitude an op's rounding error is proportional to, per element."""
    a = np.abs(z).astype(np.float64)
    with np.errstate(all="ignore"):
        if name in ("exp", "expm1", "sin", "cos", "sigmoid"):
            # error ~ eps |result| |z|: the argument's rounding is amplified
            return (1 + a) * np.abs(UNARY[name][1](z.astype(np.complex128)))
        if name in ("log", "log1p", "angle"):
            return 1 + np.abs(np.log(a + 1e-300))
        return np.abs(UNARY[name][1](z.astype(np.complex128))) + 1e-300


@FUZZ
@given(st.sampled_from(sorted(UNARY)), st.data())
def test_complex_unary(name, data):
    """Finite input (including magnitudes that overflow intermediate results): exact
    NaN/inf positions and values within tolerance of complex128 NumPy."""
    cdt = data.draw(st.sampled_from(CDT))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    lo, hi = (-6, 6) if data.draw(st.booleans()) else (-2e3, 2e3)
    z = cvals(data.draw, shape, cdt, lo=lo, hi=hi)
    pz = parts(z)
    fin = np.isfinite(pz).all(-1)
    z = np.where(fin, z, z.dtype.type(0.5 + 0.5j))
    z = np.where(unary_excluded(name, z, cdt), z.dtype.type(1 + 1j), z)
    fn, ref, is_real = UNARY[name]
    with np.errstate(all="ignore"):
        want = ref(z.astype(np.complex128))
    t = ctensor(data, z, cdt)
    CALLS["complex unary"] += 1
    got = fn(t)
    dtype = REAL_OF[cdt] if is_real else cdt
    with np.errstate(all="ignore"):
        want = want.astype(np.float64 if is_real else np.complex128).astype(dtype)
    if not is_real:
        # a part the dtype's range cannot hold rounds to inf; compare where NumPy's
        # complex64 and the exact value agree on the class
        keep = cclass(want) == cclass(ref(z.astype(np.complex128)))
        want = np.where(keep, want, np.asarray(got.numpy()))
    check_c(got, want, dtype, name, scale=unary_scale(name, z))


@FUZZ
@given(st.sampled_from(sorted(UNARY)), st.data())
def test_complex_unary_special(name, data):
    """Special components on both parts: finite input exactly as NumPy (= PyTorch) part by
    part; non-finite input by C99 class (NaN or infinite), where C libraries differ in the
    other part."""
    cdt = data.draw(st.sampled_from(CDT))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6))
    z = cvals(data.draw, shape, cdt)
    fn, ref, is_real = UNARY[name]
    excl = unary_excluded(name, z, cdt) | class_excluded(name, z)
    CALLS["complex unary special"] += 1
    got = fn(fg.tensor(z))
    with np.errstate(all="ignore"):
        want = ref(z.astype(np.complex128)).astype(REAL_OF[cdt] if is_real else cdt)
        exact = ref(z.astype(np.complex128))
    g = got.numpy()
    fin = np.isfinite(parts(z)).all(-1) & ~excl & (cclass(want) == cclass(exact))
    if fin.any():
        check_c(fg.tensor(g[fin]), want[fin], got.dtype.name, name, scale=unary_scale(name, z[fin]))
    rest = ~fin & ~excl
    assert (cclass(g[rest]) == cclass(want[rest])).all(), (
        f"{name}: class of {z[rest]} -> {g[rest]}, expected {want[rest]}"
    )


def class_excluded(name, z):
    """Non-finite inputs where ferrograd's class is known wrong (regression tests)."""
    re, im = z.real, z.imag
    if name == "tanh":
        # tanh(x + inf j), |x| > 22: 1 + NaN j (glibc's ctanh: NaN + NaN j); left open
        return (np.abs(re) > 22) & np.isfinite(re) & ~np.isfinite(im)
    if name == "tan":
        # tan(+-inf / NaN + large j): NaN + 1j in ferrograd (the mirror of tanh's case)
        return ~np.isfinite(re) & (np.abs(im) > 22) & np.isfinite(im)
    if name == "expm1":
        # expm1(-inf + inf j / NaN j): -1 + 0j in ferrograd, NaN in NumPy / PyTorch;
        # expm1(inf + inf j): inf + NaN j (C99's cexp), NaN in NumPy / PyTorch; left open.
        # On the real axis ferrograd gives expm1(x) + 0j exactly, NumPy / PyTorch a NaN
        # imaginary part where exp(x) overflows (inf * sin 0): test_complex_expm1_*
        return (np.isinf(re) & ~np.isfinite(im)) | ((im == 0) & ~np.isfinite(np.exp(re)))
    if name == "log1p":
        # log1p(inf + NaN j) etc.: inf + NaN j here, NaN + NaN j in PyTorch: both classes
        return np.isnan(parts(z)).any(-1)
    return np.zeros(z.shape, bool)


# ---------------------------------------------------------------- reductions, matmul
@FUZZ
@given(st.sampled_from(["sum", "mean", "prod"]), st.data())
def test_complex_reductions(name, data):
    cdt = data.draw(st.sampled_from(CDT))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    z = cvals(data.draw, shape, cdt, special=False, lo=-2, hi=2)
    dim = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    keep = data.draw(st.booleans()) if dim is not None else False
    assume(name != "mean" or z.size)
    t = ctensor(data, z, cdt)
    ref = {"sum": np.sum, "mean": np.mean, "prod": np.prod}[name]
    z128 = z.astype(np.complex128)
    kw = {} if dim is None else dict(dim=dim, keepdim=keep)
    want = ref(z128) if dim is None else ref(z128, axis=dim, keepdims=keep)
    if name == "mean" and dim is not None and z.shape[dim] == 0:
        return
    CALLS["complex reduction"] += 1
    got = getattr(t, name)(**kw)
    absz = np.abs(z128)
    scale = np.prod(1 + absz) if name == "prod" else np.sum(absz) + 1
    n = max(z.size, 1)
    check_c(got, want.astype(cdt), cdt, name, scale=scale * n)


@FUZZ
@given(st.data())
def test_complex_matmul(data):
    cdt = data.draw(st.sampled_from(CDT))
    n, k, m = (data.draw(st.integers(0, 4)) for _ in range(3))
    kind = data.draw(st.sampled_from(["mm", "mv", "vm", "dot", "batched"]))
    sa, sb = {
        "mm": ((n, k), (k, m)),
        "mv": ((n, k), (k,)),
        "vm": ((k,), (k, m)),
        "dot": ((k,), (k,)),
        "batched": ((2, n, k), (1, k, m)),
    }[kind]
    a = cvals(data.draw, sa, cdt, special=False, lo=-3, hi=3)
    b = cvals(data.draw, sb, cdt, special=False, lo=-3, hi=3)
    want = a.astype(np.complex128) @ b.astype(np.complex128)
    CALLS["complex matmul"] += 1
    got = ctensor(data, a, cdt) @ ctensor(data, b, cdt)
    check_c(got, want.astype(cdt), cdt, f"matmul {kind}", scale=18 * (k + 1))


# ---------------------------------------------------------------- views and constructors
@FUZZ
@given(st.data())
def test_complex_views_and_constructors(data):
    cdt = data.draw(st.sampled_from(CDT))
    rdt = REAL_OF[cdt]
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    z = cvals(data.draw, shape, cdt)
    t = ctensor(data, z, cdt)
    CALLS["view_as_real"] += 1
    check_c(fg.view_as_real(t), parts(z).astype(rdt), rdt, "view_as_real")
    check_c(t.real, z.real, rdt, "real")
    check_c(t.imag, z.imag, rdt, "imag")
    CALLS["view_as_complex"] += 1
    # an infinite or NaN imaginary part turns the real part into NaN
    # (test_complex_infinite_imaginary_part_regression)
    z.imag[~np.isfinite(z.imag)] = 1.0
    check_c(fg.view_as_complex(fg.tensor(parts(z).astype(rdt))), z, cdt, "view_as_complex")
    check_c(fg.complex(fg.tensor(z.real), fg.tensor(z.imag)), z, cdt, "complex special")
    re = data.draw(hnp.arrays(rdt, shape, elements=st.floats(-5, 5, width=int(rdt[-2:]))))
    bshape = data.draw(hnp.broadcastable_shapes(shape, max_dims=3, min_side=0))
    im = data.draw(hnp.arrays(rdt, bshape, elements=st.floats(-5, 5, width=int(rdt[-2:]))))
    CALLS["complex"] += 1
    want = (re.astype(np.float64) + 1j * im.astype(np.float64)).astype(cdt)
    check_c(fg.complex(fg.tensor(re), fg.tensor(im)), want, cdt, "complex")
    ab = np.abs(re)
    CALLS["polar"] += 1
    want = (ab.astype(np.float64) * np.exp(1j * im.astype(np.float64))).astype(cdt)
    check_c(fg.polar(fg.tensor(ab), fg.tensor(im)), want, cdt, "polar", scale=ab.max(initial=1))


# ---------------------------------------------------------------- comparisons
@FUZZ
@given(st.data())
def test_complex_comparisons(data):
    cdt = data.draw(st.sampled_from(CDT))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=5))
    a = cvals(data.draw, shape, cdt, lo=-1, hi=1)
    # near-equal, equal and unrelated values, so isclose sees all cases
    kind = data.draw(st.sampled_from(["same", "near", "other"]))
    if kind == "other":
        b = cvals(data.draw, shape, cdt, lo=-1, hi=1)
    else:
        eps = 0.0 if kind == "same" else data.draw(st.sampled_from([1e-9, 1e-7, 1e-5, 1e-3]))
        b = (a + eps * (1 + 1j)).astype(cdt)
        b = np.where(data.draw(hnp.arrays(bool, shape)), b, a)
    ta, tb = ctensor(data, a, cdt), ctensor(data, b, cdt)
    CALLS["complex eq/ne"] += 1
    assert_same(ta == tb, a == b, "bool", "eq")
    assert_same(ta != tb, a != b, "bool", "ne")
    assert_same(fg.eq(ta, tb), a == b, "bool", "fg.eq")
    # against a Python complex scalar
    s = complex(a.flat[0])
    assert_same(ta == s, a == np.asarray(s).astype(cdt), "bool", "eq scalar")
    rtol = data.draw(st.sampled_from([1e-5, 1e-3, 0.0]))
    atol = data.draw(st.sampled_from([1e-8, 1e-4, 0.0]))
    eqn = data.draw(st.booleans())
    CALLS["complex isclose"] += 1
    want = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=eqn)
    got = fg.isclose(ta, tb, rtol=rtol, atol=atol, equal_nan=eqn)
    # PyTorch's isclose: |a - b| <= atol + rtol |b| on complex128 / complex64 values;
    # NumPy's is the same formula; a borderline case may round either way in complex64
    diff = np.abs(a.astype(np.complex128) - b)
    lim = atol + rtol * np.abs(b.astype(np.complex128))
    border = np.isfinite(diff) & (np.abs(diff - lim) <= 1e-6 * (lim + diff + 1e-30))
    g = got.numpy()
    assert got.dtype.name == "bool"
    assert (g == want)[~border].all(), f"isclose {a} {b}: {g} != {want}"
    CALLS["complex allclose"] += 1
    if not border.any():
        assert fg.allclose(ta, tb, rtol=rtol, atol=atol, equal_nan=eqn) == bool(want.all())


ORDERING = {
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
    "fg.lt": lambda x, y: fg.lt(x, y),
    "fg.ge": lambda x, y: fg.ge(x, y),
    "maximum": lambda x, y: fg.maximum(x, y),
    "minimum": lambda x, y: fg.minimum(x, y),
    "max": lambda x, y: x.max(),
    "min": lambda x, y: fg.min(x),
    "argmax": lambda x, y: x.argmax(),
    "sort": lambda x, y: fg.sort(x),
    "clamp": lambda x, y: x.clamp(min=0),
    "lt scalar": lambda x, y: x < 1.0,
}


@FUZZ
@given(st.sampled_from(sorted(ORDERING)), st.data())
def test_complex_ordering_raises(name, data):
    """Complex numbers are unordered: a Python exception (PyTorch's RuntimeError; a
    TypeError here), never a panic or a result."""
    cdt = data.draw(st.sampled_from(CDT))
    z = cvals(data.draw, (data.draw(st.integers(1, 4)),), cdt)
    CALLS["complex ordering"] += 1
    with pytest.raises(Exception) as info:  # noqa: PT011
        ORDERING[name](fg.tensor(z), fg.tensor(z[::-1].copy()))
    assert "complex" in str(info.value).lower(), str(info.value)


# ---------------------------------------------------------------- Wirtinger gradients
def cleaf(z):
    t = fg.tensor(np.ascontiguousarray(z), dtype="complex128")
    t.requires_grad = True
    return t


def rleaf(a):
    t = fg.tensor(np.ascontiguousarray(a), dtype="float64")
    t.requires_grad = True
    return t


# real-valued functions of complex input, smooth where the inputs are drawn (|z| in
# [0.5, 2], Re z > 0.3 for the branch cut of log / sqrt / angle)
WIRT = {
    "abs2": lambda z: (z * z.conj()).real,
    "abs_exp": lambda z: z.exp().abs(),
    "angle": lambda z: z.angle(),
    "log_real": lambda z: z.log().real,
    "sqrt_imag": lambda z: z.sqrt().imag,
    "sigmoid_real": lambda z: z.sigmoid().real,
    "tanh_imag": lambda z: z.tanh().imag,
    "sin_cos": lambda z: (z.sin() * z.cos().conj()).real,
    "recip": lambda z: (1 / (z + 2)).imag,
    "pow": lambda z: (z**2.5).real + (z ** (1 + 0.5j)).imag,
    "rational": lambda z: ((z * z - 1j) / (z + 3)).abs(),
    "view_as_real": lambda z: fg.view_as_real(z * (1 - 2j)) ** 2,
    "sum_prod": lambda z: z.prod().abs() + z.sum().real + z.mean().imag,
    "rsqrt_expm1": lambda z: z.rsqrt().real + z.expm1().imag,
}


@FUZZ
@given(st.sampled_from(sorted(WIRT)), st.data())
def test_complex_gradcheck(name, data):
    """gradcheck on complex128 leaves: the conjugate Wirtinger convention is what makes
    the finite differences of a real function of (x, y) agree (docs/autograd.md)."""
    n = data.draw(st.integers(1, 3))
    r = np.asarray(data.draw(st.lists(st.floats(0.5, 2), min_size=n, max_size=n)))
    th = np.asarray(data.draw(st.lists(st.floats(-1.2, 1.2), min_size=n, max_size=n)))
    z = r * np.exp(1j * th)
    fn = WIRT[name]
    CALLS["complex gradcheck"] += 1
    assert gradcheck(lambda u: fn(u), (cleaf(z),), eps=1e-6, atol=1e-6, rtol=1e-4)
    # matmul: a real function of a complex matrix product
    w = cvals(data.draw, (n, 2), "complex128", special=False, lo=-1, hi=1)
    CALLS["complex gradcheck"] += 1
    assert gradcheck(
        lambda u, v: (u.reshape(1, n) @ v).abs().sum(),
        (cleaf(z), cleaf(w + 0.3)),
        eps=1e-6,
        atol=1e-6,
        rtol=1e-4,
    )


@FUZZ
@given(st.sampled_from(["complex", "polar"]), st.sampled_from(sorted(WIRT)), st.data())
def test_complex_from_real_leaves_gradcheck(how, name, data):
    """The complex number built from two real float64 leaves: ordinary real gradients,
    and the complex leaf's gradient equals dL/dx + i dL/dy."""
    n = data.draw(st.integers(1, 3))
    r = np.asarray(data.draw(st.lists(st.floats(0.5, 2), min_size=n, max_size=n)))
    th = np.asarray(data.draw(st.lists(st.floats(-1.2, 1.2), min_size=n, max_size=n)))
    fn = WIRT[name]
    if how == "complex":
        x, y = r * np.cos(th), r * np.sin(th)
        build = fg.complex
    else:
        x, y = r, th
        build = fg.polar
    CALLS["complex gradcheck"] += 1
    assert gradcheck(lambda u, v: fn(build(u, v)), (rleaf(x), rleaf(y)), eps=1e-6, atol=1e-6)
    if how == "complex":
        # the two routes agree: z.grad == x.grad + i y.grad
        u, v = rleaf(x), rleaf(y)
        out = fn(build(u, v))
        up = fg.tensor(
            data.draw(hnp.arrays(np.float64, tuple(out.shape), elements=st.floats(-1, 1)))
        )
        (out * up).sum().backward()
        zl = cleaf(x + 1j * y)
        (fn(zl) * up).sum().backward()
        np.testing.assert_allclose(
            zl.grad.numpy(), u.grad.numpy() + 1j * v.grad.numpy(), rtol=1e-10, atol=1e-12
        )
    if name in ("abs2", "rational", "recip"):
        CALLS["complex gradgradcheck"] += 1
        assert gradgradcheck(
            lambda u, v: fn(build(u, v)), (rleaf(x), rleaf(y)), eps=1e-6, atol=1e-5
        )


# ---------------------------------------------------------------- dtype conversion
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32"]
ALL += ["float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
RANGE = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in INTS}
RANGE.update(bool=(0, 1), float16=(-60000, 60000), bfloat16=(-1e30, 1e30))
RANGE.update(float32=(-1e30, 1e30), float64=(-1e300, 1e300))
RANGE.update(complex64=(-1e30, 1e30), complex128=(-1e300, 1e300))


def bf16_round(x):
    """float64 -> the nearest bfloat16 value (ties to even; overflow to inf), as float64:
    one rounding from the source value."""
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    fin = np.isfinite(x) & (x != 0)
    _, e = np.frexp(x[fin])
    q = np.ldexp(1.0, np.maximum(e, -125) - 8)  # 8 significant bits; subnormal spacing
    r = np.round(x[fin] / q) * q
    r[np.abs(r) >= 2.0**128] = np.inf * np.sign(r[np.abs(r) >= 2.0**128])
    out[fin] = r
    return out


def as_f64(t):
    """A ferrograd tensor's values as float64/complex128 NumPy (bfloat16 through float32)."""
    if t.dtype.name == "bfloat16":
        t = t.to(fg.float32)
    return t.numpy()


def in_range_values(draw, src, dst, shape):
    """Values of `src` that `dst` holds (after truncation toward zero for float -> int)."""
    lo = max(RANGE[src][0], RANGE[dst][0])
    hi = min(RANGE[src][1], RANGE[dst][1])
    if src == "bool":
        return draw(hnp.arrays(bool, shape))
    if src in INTS:
        ends = st.sampled_from([lo, hi, 0])
        a = draw(hnp.arrays(src, shape, elements=st.one_of(st.integers(lo, hi), ends)))
        return a
    width = {"float16": 16, "bfloat16": 32, "float32": 32, "complex64": 32}.get(src, 64)
    if dst in INTS or dst == "bool":
        # truncation toward zero must land in range; 2**31-sized values are exact in f64
        flo, fhi = (lo - 0.99, hi + 0.99) if width == 64 else (lo / 1.01, hi / 1.01)
        fl = st.floats(
            max(flo, -1e6 if width == 16 else -1e18), min(fhi, 6e4 if width == 16 else 1e18)
        )
    else:
        fl = st.floats(lo, hi)
    fl = st.one_of(fl, st.floats(-300, 300), st.sampled_from([0.0, -0.0, 0.5, -1.5, 2.5]))
    fl = fl.filter(lambda v: lo - 1 < v < hi + 1)
    npdt = {"bfloat16": "float32", "complex64": "float32", "complex128": "float64"}.get(src, src)
    a = draw(hnp.arrays(np.float64, shape, elements=fl)).astype(npdt)
    if src == "bfloat16":
        a = bf16_round(a).astype(np.float32)
    if src.startswith("complex"):
        im = draw(hnp.arrays(np.float64, shape, elements=st.floats(-100, 100))).astype(npdt)
        a = (a + 1j * im).astype(src)
    if dst in INTS:
        a = a[...]  # the truncated real part fits by construction
    return a


CASTS = {
    "to": lambda t, d: t.to(getattr(fg, d)),
    "to_str": lambda t, d: t.to(d),
    "type": lambda t, d: t.type(getattr(fg, d)),
    "astype": lambda t, d: t.astype(d),
}


@FUZZ
@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sampled_from(sorted(CASTS)), st.data())
def test_dtype_conversion(src, dst, how, data):
    """In-range values: as NumPy's astype (float -> int truncates toward zero; complex ->
    real keeps the real part; -> bool is "nonzero"); float16 as NumPy's float16 and
    bfloat16 rounded once to nearest even, from the source value."""
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4))
    a = in_range_values(data.draw, src, dst, shape)
    t = fg.tensor(a, dtype=src)
    assert t.dtype.name == src
    CALLS["dtype conversion"] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real: NumPy's ComplexWarning
        got = CASTS[how](t, dst)
        if dst == "bfloat16":
            src_val = a.real if a.dtype.kind == "c" else a
            want = bf16_round(src_val.astype(np.float64))
            if src == "bool" or src in INTS:
                want = bf16_round(a.astype(np.float64))
        elif dst == "float16" and src in ("bfloat16",):
            want = a.astype(np.float16)
        else:
            want = a.astype(dst)
    assert got.dtype.name == dst, f"{how}({src} -> {dst}): {got.dtype.name}"
    assert tuple(got.shape) == a.shape
    g, w = as_f64(got), np.asarray(want)
    if dst in INTS or dst == "bool":
        np.testing.assert_array_equal(g, w.astype(dst), err_msg=f"{src} -> {dst}")
        return
    gp, wp = (
        parts(g),
        parts(np.asarray(w).astype(np.complex128 if w.dtype.kind == "c" else np.float64)),
    )
    same = (gp == wp) | (np.isnan(gp) & np.isnan(wp))
    assert same.all(), (
        f"{how}({src} -> {dst}): {a[~same.all(-1)]} -> {g[~same.all(-1)]}, want {w[~same.all(-1)]}"
    )
    # a round trip back to the source is exact when `dst` holds every `src` value
    if dst in EXACT.get(src, ()) or src == "bool":
        back = CASTS[how](got, src)
        assert back.dtype.name == src
        bp, ap = (
            parts(as_f64(back)),
            parts(np.asarray(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64)),
        )
        assert ((bp == ap) | (np.isnan(bp) & np.isnan(ap))).all(), f"{src}->{dst}->{src}"


_C = ("complex64", "complex128")
EXACT = {
    "uint8": ("int16", "int32", "int64", "float16", "bfloat16", "float32", "float64") + _C,
    "int8": ("int16", "int32", "int64", "float16", "bfloat16", "float32", "float64") + _C,
    "int16": ("int32", "int64", "float32", "float64") + _C,
    "int32": ("int64", "float64", "complex128"),
    "float16": ("float32", "float64") + _C,
    "bfloat16": ("float32", "float64") + _C,
    "float32": ("float64",) + _C,
    "float64": ("complex128",),
    "complex64": ("complex128",),
}


@FUZZ
@given(st.sampled_from(["float16", "bfloat16"]), st.sampled_from(["float64", "float32"]), st.data())
def test_half_rounding(dst, src, data):
    """Rounding to float16 / bfloat16: ties to even, subnormals, overflow to inf, NaN,
    values just around the half-way points."""
    n = data.draw(st.integers(1, 12))
    kind = data.draw(st.sampled_from(["wide", "halfway", "edges"]))
    if kind == "wide":
        a = np.asarray(
            data.draw(
                st.lists(
                    st.floats(allow_nan=True, width=32 if src == "float32" else 64),
                    min_size=n,
                    max_size=n,
                )
            )
        )
    elif kind == "halfway":
        # m * 2^e with m odd at the dtype's half-ulp, nudged by a few source ulps
        bits = 11 if dst == "float16" else 8
        e = data.draw(
            hnp.arrays(
                np.int64,
                n,
                elements=st.integers(
                    -30 if dst == "float16" else -140, 16 if dst == "float16" else 127
                ),
            )
        )
        m = data.draw(hnp.arrays(np.int64, n, elements=st.integers(2**bits, 2 ** (bits + 1) - 1)))
        a = np.ldexp(2.0 * m + 1, e - bits - 1)
        nudge = data.draw(hnp.arrays(np.int64, n, elements=st.integers(-2, 2)))
        a = a.astype(src)
        a = np.nextafter(a, np.where(nudge > 0, np.inf, -np.inf).astype(src)) if True else a
        a = np.where(nudge == 0, np.ldexp(2.0 * m + 1, e - bits - 1).astype(src), a)
        a = a * np.where(data.draw(hnp.arrays(bool, n)), -1, 1)
    else:
        edges = [65504.0, 65519.0, 65520.0, 65536.0, 6e-8, 5.96e-8, 2.98e-8, 3e-8, 1e-45]
        edges += [3.3895e38, 3.3896e38, 3.4e38, 9.2e-41, 1e-40, 5e-324, np.nan, np.inf, -0.0]
        a = np.asarray(data.draw(st.lists(st.sampled_from(edges), min_size=n, max_size=n)))
    with np.errstate(all="ignore"):
        a = np.asarray(a, dtype=src)
    t = fg.tensor(a, dtype=src)
    CALLS["half rounding"] += 1
    got = as_f64(t.to(getattr(fg, dst))).astype(np.float64)
    with np.errstate(all="ignore"):
        want = a.astype(np.float16).astype(np.float64) if dst == "float16" else bf16_round(a)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same.all(), f"{src} -> {dst}: {a[~same]!r} -> {got[~same]}, want {want[~same]}"
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), "sign of zero"


@FUZZ
@given(
    st.sampled_from(INTS + ["bool"]),
    st.sampled_from(["float16", "bfloat16", "float32", "float64", "complex64"]),
    st.data(),
)
def test_out_of_range_float_to_int_does_not_crash(dst, src, data):
    """Out-of-range float -> int is undefined in PyTorch: any value, or an Exception, but
    never a panic or an abort."""
    vals = data.draw(
        st.lists(
            st.sampled_from(
                [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9, -3e9, 70000.0, 300.0, -1.5, 1e300]
            ),
            min_size=1,
            max_size=6,
        )
    )
    with np.errstate(all="ignore"):
        a = np.asarray(vals).astype({"bfloat16": "float32"}.get(src, src))
    CALLS["float->int out of range"] += 1
    try:
        got = fg.tensor(a, dtype=src).to(getattr(fg, dst))
    except Exception:  # noqa: BLE001  a refusal is fine
        return
    assert got.dtype.name == dst and tuple(got.shape) == a.shape
    got.tolist()


# ---------------------------------------------------------------- creation ops
num = st.one_of(st.integers(-6, 6), st.sampled_from([-2.5, -0.75, 0.1, 0.3, 1.5, 2.25, 3.7]))


@FUZZ
@given(st.data())
def test_arange(data):
    """PyTorch's length ceil((end - start) / step) in float64, values start + i * step
    computed in float64 and rounded to the dtype; int64 for integer arguments, else the
    default float."""
    start, end = data.draw(num), data.draw(num)
    step = data.draw(st.sampled_from([1, 2, 3, -1, -2, 0.1, 0.25, 0.3, -0.5, -0.7, 1.5]))
    form = data.draw(st.sampled_from(["end", "start_end", "full"]))
    dtype = data.draw(st.sampled_from([None, "float64", "float32", "int64", "int32"]))
    args = {"end": (end,), "start_end": (start, end), "full": (start, end, step)}[form]
    s0, e0, d0 = {"end": (0, end, 1), "start_end": (start, end, 1), "full": (start, end, step)}[
        form
    ]
    floats = any(isinstance(v, float) for v in args)
    n = math.ceil((e0 - s0) / d0)
    kw = {} if dtype is None else dict(dtype=getattr(fg, dtype))
    CALLS["arange"] += 1
    if (e0 - s0) * d0 < 0:
        # both peers refuse a step of the wrong sign (arange(-0.75) too)
        with pytest.raises(ValueError, match="inconsistent with step sign"):
            fg.arange(*args, **kw)
        return
    want_dtype = dtype or ("float32" if floats else "int64")
    if want_dtype.startswith("int"):
        # an integer dtype takes start and step as integers first (PyTorch)
        s0, d0 = math.trunc(s0), math.trunc(d0)
    want = (s0 + np.arange(n, dtype=np.float64) * d0).astype(want_dtype)
    assert_same(fg.arange(*args, **kw), want, want_dtype, f"arange{args}")


@FUZZ
@given(st.sampled_from(["linspace", "logspace"]), st.data())
def test_linspace_logspace(name, data):
    steps = data.draw(st.sampled_from([0, 1, 2, 3, 5, 8]))
    dtype = data.draw(st.sampled_from([None, "float64", "float32", "int64", "int32"]))
    base = data.draw(st.sampled_from([10.0, 2.0, 3, 0.5]))
    if dtype in ("int64", "int32"):
        start, end = data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 3))
    else:
        start, end = data.draw(num), data.draw(num)
    kw = {} if dtype is None else dict(dtype=getattr(fg, dtype))
    out_dtype = dtype or "float32"
    s0, e0 = (
        (float(int(start)), float(int(end))) if (dtype or "").startswith("int") else (start, end)
    )
    i = np.arange(steps, dtype=np.float64)
    if steps == 1:
        lin = np.array([s0])
    else:
        # PyTorch's kernel: from the start for the first half, from the end for the rest
        st_ = (e0 - s0) / max(steps - 1, 1)
        lin = np.where(i < steps / 2, s0 + st_ * i, e0 - st_ * (steps - 1 - i))
    CALLS[name] += 1
    if name == "linspace":
        got = fg.linspace(start, end, steps, **kw)
        want = lin
    else:
        got = fg.logspace(start, end, steps, base=base, **kw)
        want = np.float64(base) ** lin
    if out_dtype.startswith("int"):
        want = np.trunc(np.round(want, 6))
    assert_same(got, want.astype(out_dtype), out_dtype, f"{name}({start}, {end}, {steps})")


@FUZZ
@given(st.data())
def test_full_and_full_like(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    value = data.draw(
        st.one_of(
            st.booleans(),
            st.integers(-9, 9),
            st.floats(-9, 9),
            st.sampled_from([1 + 2j, -0.5j, np.inf, np.nan]),
        )
    )
    infer = {bool: "bool", int: "int64", float: "float32", complex: "complex64"}[type(value)]
    CALLS["full"] += 1
    assert_full(fg.full(shape, value), shape, value, infer)
    like = data.draw(st.sampled_from(["int32", "float64", "bool", "complex128", "uint8"]))
    dtype = data.draw(st.sampled_from([None, "float32", "int64", "complex64"]))
    base = fg.zeros(shape, dtype=like)
    out = dtype or like
    if isinstance(value, complex) and not out.startswith("complex"):
        if value.imag != 0:  # refused, as PyTorch refuses it
            with pytest.raises(ValueError, match="cannot be converted"):
                fg.full_like(base, value, **({} if dtype is None else {"dtype": dtype}))
        return
    cast_ok = True
    if out in ("int32", "int64", "uint8") and isinstance(value, float) and not math.isfinite(value):
        cast_ok = False  # NaN / inf into an integer: a ValueError (docs/tensors.md)
    if out == "uint8" and not isinstance(value, complex) and value <= -1:
        cast_ok = False  # an OverflowError (docs/tensors.md)
    CALLS["full_like"] += 1
    kw = {} if dtype is None else dict(dtype=getattr(fg, dtype))
    if not cast_ok:
        with pytest.raises((ValueError, OverflowError, RuntimeError)):
            fg.full_like(base, value, **kw)
        return
    assert_full(fg.full_like(base, value, **kw), shape, value, out)


def assert_full(got, shape, value, dtype):
    want = np.full(shape, value if dtype != "bool" else bool(value))
    if dtype in ("int32", "int64", "uint8"):
        want = np.trunc(want.real).astype(dtype)
    assert got.dtype.name == dtype, f"full({value}): {got.dtype.name} != {dtype}"
    if dtype.startswith("complex"):
        check_c(got, want.astype(dtype), dtype, "full")
    else:
        assert_same(got, want.astype(dtype), dtype, "full")


@FUZZ
@given(st.data())
def test_eye_tril_triu(data):
    n, m = data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5))
    CALLS["eye"] += 1
    assert_same(fg.eye(n, m), np.eye(n, m, dtype=np.float32), "float32", "eye(n, m)")
    assert_same(fg.eye(n, dtype=fg.int64), np.eye(n, dtype=np.int64), "int64", "eye(n)")
    batch = data.draw(st.lists(st.integers(0, 3), max_size=2))
    dtype = data.draw(st.sampled_from(["float64", "int32", "bool", "complex64"]))
    a = data.draw(hnp.arrays(np.int64, tuple(batch) + (n, m), elements=st.integers(-9, 9)))
    a = a.astype(dtype)
    k = data.draw(st.integers(-6, 6))
    t = ctensor(data, a, dtype)
    CALLS["tril/triu"] += 2
    assert_same(fg.tril(t, k), np.tril(a, k), dtype, f"tril {k}")
    assert_same(t.triu(k), np.triu(a, k), dtype, f"triu {k}")
    CALLS["tril/triu_indices"] += 2
    assert_same(
        fg.tril_indices(n, m, k),
        np.stack(np.tril_indices(n, k, m)).astype(np.int64).reshape(2, -1),
        "int64",
        "tril_indices",
    )
    assert_same(
        fg.triu_indices(n, m, k),
        np.stack(np.triu_indices(n, k, m)).astype(np.int64).reshape(2, -1),
        "int64",
        "triu_indices",
    )


def _diag_embed(x, offset, dim1, dim2):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), dtype=x.dtype)
    i = np.arange(x.shape[-1])
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., r, c] = x
    nd = x.ndim + 1
    return np.moveaxis(out, [nd - 2, nd - 1], [dim1 % nd, dim2 % nd])


@FUZZ
@given(st.data())
def test_diag_family(data):
    k = data.draw(st.integers(-4, 4))
    dtype = data.draw(st.sampled_from(["float64", "int64", "complex128", "bool"]))
    v = data.draw(
        hnp.arrays(np.int64, data.draw(st.integers(0, 4)), elements=st.integers(-9, 9))
    ).astype(dtype)
    CALLS["diag"] += 2
    assert_same(fg.diag(fg.tensor(v), k), np.diag(v, k), dtype, f"diag 1-d {k}")
    mat = data.draw(
        hnp.arrays(
            np.int64,
            (data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))),
            elements=st.integers(-9, 9),
        )
    ).astype(dtype)
    assert_same(fg.diag(ctensor(data, mat, dtype), k), np.diag(mat, k), dtype, f"diag 2-d {k}")
    CALLS["diagflat"] += 1
    assert_same(fg.diagflat(fg.tensor(mat), k), np.diagflat(mat, k), dtype, f"diagflat {k}")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    x = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-9, 9))).astype(dtype)
    nd = len(shape) + 1
    d1, d2 = data.draw(
        st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2, unique_by=lambda d: d % nd)
    )
    CALLS["diag_embed"] += 1
    assert_same(
        fg.diag_embed(ctensor(data, x, dtype), k, d1, d2),
        _diag_embed(x, k, d1, d2),
        dtype,
        f"diag_embed {k} {d1} {d2}",
    )


@FUZZ
@given(st.data())
def test_meshgrid_cartesian_combinations(data):
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    xs = [np.arange(n, dtype=np.int64) * 10 + i for i, n in enumerate(sizes)]
    indexing = data.draw(st.sampled_from(["ij", "xy"]))
    CALLS["meshgrid"] += 1
    got = fg.meshgrid(*[fg.tensor(x) for x in xs], indexing=indexing)
    want = np.meshgrid(*xs, indexing=indexing)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, "int64", f"meshgrid {indexing}")
    CALLS["cartesian_prod"] += 1
    want = np.asarray(list(itertools.product(*xs)), dtype=np.int64).reshape(-1, len(xs))
    if len(xs) == 1:
        want = xs[0]
    assert_same(fg.cartesian_prod(*[fg.tensor(x) for x in xs]), want, "int64", "cartesian_prod")
    x = np.arange(data.draw(st.integers(1, 5)), dtype=np.float64) * 1.5
    r = data.draw(st.integers(1, 4))
    rep = data.draw(st.booleans())
    comb = itertools.combinations_with_replacement if rep else itertools.combinations
    want = np.asarray(list(comb(x, r)), dtype=np.float64).reshape(-1, r)
    CALLS["combinations"] += 1
    assert_same(
        fg.combinations(fg.tensor(x), r, with_replacement=rep),
        want,
        "float64",
        f"combinations {r} {rep}",
    )


@FUZZ
@given(st.data())
def test_vander_kron_block_diag_atleast(data):
    dtype = data.draw(st.sampled_from(["float64", "int64"]))
    x = data.draw(
        hnp.arrays(np.int64, data.draw(st.integers(0, 4)), elements=st.integers(-4, 4))
    ).astype(dtype)
    N = data.draw(st.sampled_from([None, 0, 1, 3, 5]))
    inc = data.draw(st.booleans())
    CALLS["vander"] += 1
    assume(N is not None or x.size)
    assert_same(
        fg.vander(fg.tensor(x), N=N, increasing=inc),
        np.vander(x, N, increasing=inc),
        dtype,
        "vander",
    )
    sa = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    sb = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    a = data.draw(hnp.arrays(np.int64, sa, elements=st.integers(-5, 5)))
    b = data.draw(hnp.arrays(np.float64, sb, elements=st.floats(-5, 5)))
    CALLS["kron"] += 1
    assert_same(
        fg.kron(ctensor(data, a, "int64"), ctensor(data, b, "float64")),
        np.kron(a, b),
        "float64",
        "kron",
    )
    mats = [
        data.draw(
            hnp.arrays(
                np.int64,
                data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)),
                elements=st.integers(-5, 5),
            )
        )
        for _ in range(data.draw(st.integers(1, 3)))
    ]
    as_float = data.draw(st.booleans())
    if as_float:
        mats[0] = mats[0].astype(np.float64)
    CALLS["block_diag"] += 1
    want = sla.block_diag(*mats)
    assert_same(
        fg.block_diag(*[fg.tensor(m) for m in mats]),
        want,
        "float64" if as_float else "int64",
        "block_diag",
    )
    for name in ["atleast_1d", "atleast_2d", "atleast_3d"]:
        CALLS[name] += 1
        assert_same(getattr(fg, name)(fg.tensor(a)), getattr(np, name)(a), "int64", name)
        got = getattr(fg, name)(fg.tensor(a), fg.tensor(b))
        for g, w in zip(got, getattr(np, name)(a, b)):
            assert_same(g, w, None, name + " (two)")


@FUZZ
@given(st.data())
def test_trapezoid(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    dtype = data.draw(st.sampled_from(["float64", "float32"]))
    y = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-5, 5))).astype(dtype)
    kind = data.draw(st.sampled_from(["none", "dx", "x1d", "xfull"]))
    kw, skw = {}, {}
    if kind == "dx":
        dx = data.draw(st.sampled_from([0.5, 2.0, -1.0]))
        kw, skw = dict(dx=dx), dict(dx=dx)
    elif kind == "x1d":
        xs = np.sort(
            data.draw(hnp.arrays(np.float64, shape[dim], elements=st.floats(-5, 5)))
        ).astype(dtype)
        kw, skw = dict(x=fg.tensor(xs)), dict(x=xs)
    elif kind == "xfull":
        xs = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-5, 5))).astype(dtype)
        kw, skw = dict(x=fg.tensor(xs)), dict(x=xs)
    t = ctensor(data, y, dtype)
    y64 = y.astype(np.float64)
    skw = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) else v) for k, v in skw.items()}
    scale = 1 + 25 * max(shape[dim], 1)
    CALLS["trapezoid"] += 1
    want = (
        sint.trapezoid(y64, axis=dim, **skw)
        if shape[dim]
        else np.zeros(np.delete(shape, dim % len(shape)))
    )
    check_c(
        fg.trapezoid(t, dim=dim, **kw),
        np.asarray(want).astype(dtype),
        dtype,
        f"trapezoid {kind}",
        scale=scale,
    )
    CALLS["cumulative_trapezoid"] += 1
    if shape[dim]:
        want = sint.cumulative_trapezoid(y64, axis=dim, **skw)
    else:
        want = np.zeros(shape)
    check_c(
        fg.cumulative_trapezoid(t, dim=dim, **kw),
        want.astype(dtype),
        dtype,
        f"cumulative_trapezoid {kind}",
        scale=scale,
    )


@FUZZ
@given(st.data())
def test_cdist(data):
    p = data.draw(st.sampled_from([0.0, 1.0, 2.0, 3.5, 0.5, np.inf]))
    batch = data.draw(st.lists(st.integers(1, 2), max_size=1))
    r1, r2, d = (data.draw(st.integers(1, 4)) for _ in range(3))
    dtype = data.draw(st.sampled_from(["float64", "float32"]))
    x1 = data.draw(
        hnp.arrays(np.float64, tuple(batch) + (r1, d), elements=st.floats(-3, 3))
    ).astype(dtype)
    x2 = data.draw(
        hnp.arrays(np.float64, tuple(batch) + (r2, d), elements=st.floats(-3, 3))
    ).astype(dtype)
    if data.draw(st.booleans()):
        x2[..., :1, :] = x1[..., :1, :]  # a zero distance
    a, b = x1.astype(np.float64).reshape(-1, r1, d), x2.astype(np.float64).reshape(-1, r2, d)

    def one(u, v):
        if p == 0:
            return sp_cdist(u, v, "hamming") * d
        if p == np.inf:
            return sp_cdist(u, v, "chebyshev")
        return sp_cdist(u, v, "minkowski", p=p)

    want = np.stack([one(u, v) for u, v in zip(a, b)]).reshape(tuple(batch) + (r1, r2))
    CALLS["cdist"] += 1
    got = fg.cdist(ctensor(data, x1, dtype), ctensor(data, x2, dtype), p=p)
    check_c(got, want.astype(dtype), dtype, f"cdist p={p}", scale=10 * d)
    if p in (1.0, 2.0, 3.5) and dtype == "float64":
        # gradients away from zero distances and, for p = 1, from equal coordinates
        u = data.draw(hnp.arrays(np.float64, (2, 2), elements=st.floats(-2, 2)))
        v = u[::-1] + np.array([[0.6, -0.7], [0.8, 0.5]])
        CALLS["gradcheck"] += 1
        assert gradcheck(
            lambda s, w: fg.cdist(s, w, p=p), (rleaf(u), rleaf(v)), eps=1e-6, atol=1e-5
        )


# ------------------------------------------------- regressions: bugs this fuzzer found
def test_complex_exp_real_overflow_regression():
    z = fg.tensor([800 + 0j, -800 + 0j], dtype="complex128")
    assert fg.exp(z).tolist() == [complex(np.inf, 0), 0j]  # NumPy, PyTorch: inf + 0j
    # through it: sigmoid(-800 + 0j) is 0 (was NaN), (800 + 0j) ** 800 is inf + 0j
    assert fg.sigmoid(-z[:1]).tolist() == [0j]
    assert (z[:1] ** 800).tolist() == [complex(np.inf, 0)]


def test_complex_sin_cos_imaginary_overflow_regression():
    z = fg.tensor([800j], dtype="complex128")
    assert fg.sin(z).tolist() == [complex(0, np.inf)]  # i sinh(800); NumPy, PyTorch
    assert fg.cos(z).tolist() == [complex(np.inf, 0)]  # cosh(800) (PyTorch: inf - 0j)
    w = np.empty(1, np.complex128)
    w.real, w.imag = np.inf, np.inf
    assert np.isinf(fg.cos(fg.tensor(w)).numpy().real).all()  # C99, NumPy, PyTorch: inf + NaN j


def test_complex_sqrt_of_infinite_part_regression():
    z = fg.tensor([complex(np.inf, 1.0), complex(-np.inf, 1.0)], dtype="complex128")
    assert fg.sqrt(z).tolist() == [complex(np.inf, 0), complex(0, np.inf)]  # C99, NumPy, PyTorch
    assert fg.rsqrt(z[:1]).tolist() == [0j]
    w = np.empty(2, np.complex128)
    w.real, w.imag = [np.nan, np.inf], [np.inf, np.nan]
    # C99, NumPy, PyTorch: inf + inf j and inf + NaN j (ferrograd: NaN + NaN j)
    assert np.isinf(fg.sqrt(fg.tensor(w)).numpy().real).all()


def test_complex_infinite_imaginary_part_regression():
    re, im = fg.tensor([0.0, 1.0]), fg.tensor([np.inf, np.nan])
    got = fg.complex(re, im).numpy()
    assert got.real.tolist() == [0.0, 1.0]  # PyTorch: [0.+infj, 1.+nanj]
    got = fg.view_as_complex(fg.stack([re, im], -1)).numpy()
    assert got.real.tolist() == [0.0, 1.0]


def test_complex_expm1_small_argument_regression():
    got = fg.expm1(fg.tensor([1e-12 + 0j, 1e-5j], dtype="complex128")).numpy()
    want = np.expm1(np.array([1e-12 + 0j, 1e-5j]))  # PyTorch agrees
    np.testing.assert_allclose(got.real, want.real, rtol=1e-10)
    # the real axis stays real (PyTorch: inf + NaN j, from exp(800) * sin(0))
    big = fg.expm1(fg.tensor([800 + 0j, complex(np.nan, 0)], dtype="complex128")).numpy()
    assert big[0] == complex(np.inf, 0) and np.isnan(big[1].real) and big[1].imag == 0


def test_complex_zero_pow_regression():
    got = (fg.tensor([0j, 0j], dtype="complex128") ** fg.tensor([-2.5 + 0j, -1 + 1j])).numpy()
    # |0 ** w| = 0 ** Re w is infinite: PyTorch inf + NaN j, NumPy NaN + NaN j
    assert not np.isfinite(got).any(), got


def test_complex_log1p_branch_cut_regression():
    got = fg.log1p(fg.tensor([complex(-2.5, -0.0)], dtype="complex128")).numpy()
    assert got.imag[0] == -np.pi  # as log(-1.5 - 0j); NumPy and PyTorch: -pi


def test_complex_log_of_tiny_subnormal_regression():
    got = fg.log(fg.tensor([5e-324 + 5e-324j], dtype="complex128")).numpy()
    assert abs(got.real[0] - (-744.0934983311014)) < 1e-9  # NumPy, PyTorch


def test_arange_integer_dtype_regression():
    # PyTorch and NumPy cast start and step to the dtype first: [0, 0, 0, 0, 0]
    assert fg.arange(0, 2.5, 0.5, dtype=fg.int64).tolist() == [0, 0, 0, 0, 0]
    assert fg.arange(-2.5, 2.5, 1.5, dtype=fg.int64).tolist() == [-2, -1, 0, 1]


def test_arange_inconsistent_step_sign_regression():
    # PyTorch: RuntimeError "upper bound and lower bound inconsistent with step sign"
    with pytest.raises((RuntimeError, ValueError)):
        fg.arange(5, 0)
    with pytest.raises((RuntimeError, ValueError)):
        fg.arange(0, 1, -0.5)


def test_logspace_integer_dtype_regression():
    assert fg.logspace(0, 3, 4, base=2, dtype=fg.int64).tolist() == [1, 2, 4, 8]  # PyTorch


def test_full_complex_value_into_real_dtype_regression():
    # PyTorch: RuntimeError "value cannot be converted to type int without overflow"
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        fg.full((2,), 1 + 2j, dtype=fg.int32)
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        fg.full_like(fg.zeros(2), 1 + 2j)
