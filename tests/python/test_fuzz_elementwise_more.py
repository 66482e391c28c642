"""Differential fuzzer, part two: the elementwise ops test_fuzz_differential.py leaves out
(the rest of the unary float math, the float binary functions, the integer-only and logical
ops, comparisons, ``clamp`` with number bounds and ``where``) against NumPy and SciPy over
random shapes (0-d, 0-size, broadcast), dtypes, views and NaN/inf/signed-zero/extreme
values. Expected dtypes follow ferrograd's documented promotion (docs/tensors.md "Type
promotion"); where NumPy/SciPy and PyTorch disagree on an edge value, ferrograd follows
PyTorch and the reference says so. The bugs it found are pinned by the regression tests
at the end.
Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
import scipy.special as sp
from fuzz_support import (
    CALLS,
    CATEGORY,
    FLOATS,
    FUZZ,
    REAL,
    assert_same,
    float_result,
    promote,
    viewed,
)
from hypothesis import assume, given
from hypothesis import strategies as st
from test_fuzz_differential import broadcast_pair

NUMERIC = ["int32", "int64", "float32", "float64"]
INTS = ["int32", "int64"]


def check(got, want, dtype, what, exact=False, zero_sign=True, nan_sign=False):
    """assert_same, plus: `exact` compares finite values bit for bit, `zero_sign` the sign
    of every zero NumPy gives (where the reference defines it), `nan_sign` that of NaNs."""
    want = np.asarray(want)
    if dtype not in (None, "bool") and CATEGORY[dtype] == 2:
        with np.errstate(all="ignore"):
            want = want.astype(dtype)
    assert_same(got, want, dtype, what)
    g, w = got.numpy(), want
    if g.dtype.kind != "f":
        return
    if exact:
        fin = np.isfinite(w)
        np.testing.assert_array_equal(g[fin], w[fin], err_msg=f"{what}: not exact")
    pick = (w == 0) if zero_sign else np.zeros(w.shape, bool)
    if nan_sign:
        pick |= np.isnan(w)
    bad = np.signbit(g[pick]) != np.signbit(w[pick])
    assert not bad.any(), f"{what}: signs of zero/NaN differ\n{g}\n{w}"


def fits_0d(values, shapes, dtypes, res):
    """False when a 0-d integer operand takes a narrower integer dtype `res` without fitting
    it (docs/tensors.md: a ValueError, where PyTorch wraps)."""
    for v, s, d in zip(values, shapes, dtypes):
        if len(s) == 0 and d != res and CATEGORY[d] == CATEGORY[res] == 1:
            info = np.iinfo(res)
            if not info.min <= int(np.asarray(v)) <= info.max:
                return False
    return True


# ---- unary ---------------------------------------------------------------------------


def _wide(f):
    return lambda x: f(x.astype(np.float64))


def _lgamma(x):
    # C's lgamma (PyTorch's std::lgamma) gives +inf at -inf, SciPy's gammaln -inf; SciPy
    # also gives inf for subnormal x, where lgamma(x) = -log|x| (about 710)
    tiny = (x != 0) & (np.abs(x) < 1e-300)
    return np.where(x == -np.inf, np.inf, np.where(tiny, -np.log(np.abs(x)), sp.gammaln(x)))


def _digamma(x):
    # SciPy's reflection loses digits next to negative poles (psi(-0.9999999999) is off
    # by 6e-7); reflect with the exact fractional part x - round(x) instead
    r = x - np.round(x)
    with np.errstate(all="ignore"):
        refl = sp.digamma(1 - x) - np.pi / np.tan(np.pi * r)
    return np.where((x < 0) & (r != 0) & np.isfinite(x), refl, sp.digamma(x))


def _i0(x):
    # Cephes (SciPy, PyTorch) computes exp(inf) / sqrt(inf) = NaN at ±inf; ferrograd gives
    # the limit +inf
    return np.where(np.isinf(x), np.inf, sp.i0(x))


def _keep_ints(f):
    return lambda x: x if x.dtype.kind in "biu" else f(x)


ALL = REAL
NUM_B = ["bool", *NUMERIC]
# name: (ferrograd call, reference, dtypes, result kind, (lo, hi), exact)
# result kind "float": float math (ints give float32); "same": the input's dtype; "bool".
UNARY = {
    "sinh": (fg.sinh, _wide(np.sinh), NUM_B, "float", (-100, 100), False),
    "cosh": (fg.cosh, _wide(np.cosh), NUM_B, "float", (-100, 100), False),
    "tan": (fg.tan, _wide(np.tan), NUM_B, "float", (-8, 8), False),
    "asin": (fg.asin, _wide(np.arcsin), NUM_B, "float", (-1.25, 1.25), False),
    "acos": (fg.acos, _wide(np.arccos), NUM_B, "float", (-1.25, 1.25), False),
    "atan": (fg.atan, _wide(np.arctan), NUM_B, "float", (-8, 8), False),
    "asinh": (fg.asinh, _wide(np.arcsinh), NUM_B, "float", (-8, 8), False),
    "acosh": (fg.acosh, _wide(np.arccosh), NUM_B, "float", (0.5, 8), False),
    "atanh": (fg.atanh, _wide(np.arctanh), NUM_B, "float", (-1.25, 1.25), False),
    "sigmoid": (fg.sigmoid, _wide(sp.expit), NUM_B, "float", (-120, 120), False),
    "erf": (fg.erf, _wide(sp.erf), NUM_B, "float", (-8, 8), False),
    "erfc": (fg.erfc, _wide(sp.erfc), NUM_B, "float", (-8, 30), False),
    "log2": (fg.log2, _wide(np.log2), NUM_B, "float", (-1, 8), False),
    "log10": (fg.log10, _wide(np.log10), NUM_B, "float", (-1, 8), False),
    "exp2": (fg.exp2, _wide(np.exp2), NUM_B, "float", (-160, 160), False),
    "expm1": (fg.expm1, _wide(np.expm1), NUM_B, "float", (-8, 8), False),
    "rsqrt": (fg.rsqrt, _wide(lambda x: 1 / np.sqrt(x)), NUM_B, "float", (-1, 8), False),
    "reciprocal": (fg.reciprocal, _wide(lambda x: 1 / x), NUM_B, "float", (-8, 8), False),
    "sinc": (fg.sinc, np.sinc, NUM_B, "float", (-8, 8), False),  # in the dtype, as torch
    "deg2rad": (fg.deg2rad, _wide(np.deg2rad), NUM_B, "float", (-720, 720), False),
    "rad2deg": (fg.rad2deg, _wide(np.rad2deg), NUM_B, "float", (-8, 8), False),
    "logit": (fg.logit, _wide(sp.logit), NUM_B, "float", (-0.25, 1.25), False),
    "lgamma": (fg.lgamma, _wide(_lgamma), NUM_B, "float", (-8, 8), False),
    "gammaln": (fg.gammaln, _wide(_lgamma), NUM_B, "float", (-8, 8), False),
    "digamma": (fg.digamma, _wide(_digamma), NUM_B, "float", (-8, 8), False),
    "i0": (fg.i0, _wide(_i0), NUM_B, "float", (-100, 100), False),
    # trunc / round keep integers (tensor-math-random.md); frac of an integer is an error
    # in PyTorch, so only floats; round halves to even (PyTorch and NumPy)
    "trunc": (fg.trunc, _keep_ints(np.trunc), NUMERIC, "same", (-8, 8), True),
    "round": (fg.round, _keep_ints(np.round), NUMERIC, "same", (-8, 8), True),
    "frac": (fg.frac, lambda x: x - np.trunc(x), FLOATS, "same", (-8, 8), True),
    "nan_to_num": (fg.nan_to_num, np.nan_to_num, ALL, "same", (-8, 8), True),
    "nan_to_num(args)": (
        lambda t: fg.nan_to_num(t, nan=1.5, posinf=-2.0, neginf=7.0),
        lambda x: np.nan_to_num(x, nan=1.5, posinf=-2.0, neginf=7.0),
        ALL,
        "same",
        (-8, 8),
        True,
    ),
    "bitwise_not": (fg.bitwise_not, np.invert, ["bool", *INTS], "same", (-8, 8), True),
    "signbit": (fg.signbit, _wide(np.signbit), ALL, "bool", (-8, 8), True),
    "isnan": (fg.isnan, _wide(np.isnan), ALL, "bool", (-8, 8), True),
    "isinf": (fg.isinf, _wide(np.isinf), ALL, "bool", (-8, 8), True),
    "isfinite": (fg.isfinite, _wide(np.isfinite), ALL, "bool", (-8, 8), True),
    "isposinf": (fg.isposinf, _wide(np.isposinf), ALL, "bool", (-8, 8), True),
    "isneginf": (fg.isneginf, _wide(np.isneginf), ALL, "bool", (-8, 8), True),
    "logical_not": (fg.logical_not, np.logical_not, ALL, "bool", (-8, 8), True),
}


@FUZZ
@given(st.sampled_from(sorted(UNARY)), st.data())
def test_unary_against_numpy_scipy(name, data):
    f, ref, dtypes, kind, (lo, hi), exact = UNARY[name]
    dtype = data.draw(st.sampled_from(dtypes))
    a, t = data.draw(viewed(dtype=dtype, lo=lo, hi=hi))
    out = {"float": float_result(dtype), "same": dtype, "bool": "bool"}[kind]
    x = np.asarray(a).astype(out) if kind == "float" else np.asarray(a)
    if name == "i0" and out == "float64":
        # ferrograd's i0 stays finite up to |x| ~ 713, Cephes overflows from 709.8 (tensor-
        # math-random.md)
        assume(not ((np.abs(x) > 709) & (np.abs(x) < 714)).any())
    with np.errstate(all="ignore"):
        want = ref(x)
    CALLS["unary-more"] += 1
    got = f(t)
    check(got, want, out, f"{name}({dtype}{list(a.shape)})", exact=exact)


# ---- binary float functions ------------------------------------------------------------


def _remainder(x, y):
    # PyTorch's float remainder: fmod, moved into y's sign; unlike NumPy it keeps fmod's
    # zero (remainder(-4.0, 2.0) is -0.0, NumPy's +0.0): ferrograd follows PyTorch
    if x.dtype.kind in "iu":
        return np.remainder(x, y)
    m = np.fmod(x, y)
    return np.where((m != 0) & ((y < 0) != (m < 0)), m + y, m)


def _heaviside(x, v):
    # PyTorch and Paddle: x == 0 ? v : x > 0, so NaN gives 0 (NumPy's heaviside gives NaN)
    return np.where(x == 0, v, (x > 0).astype(x.dtype))


def _ldexp(x, e):
    # x * 2**e, PyTorch's (and Paddle's) definition: an exponent past the dtype's range
    # overflows the power (ldexp(1e-300, 1100) is inf, NumPy's ldexp 1.4e31)
    return x * np.power(np.asarray(2.0, x.dtype), e.astype(x.dtype))


def _w2(f):
    return lambda x, y: f(x.astype(np.float64), y.astype(np.float64))


# name: (ferrograd call, reference, x dtypes, y dtypes, result rule, exact, zero_sign);
# the reference gets both operands in the result dtype ("float": float_result of the
# promotion; "promote": the promotion; "float64": always; "same": one float dtype)
BINARY = {
    "atan2": (fg.atan2, _w2(np.arctan2), NUM_B, NUM_B, "float", False, True),
    "hypot": (fg.hypot, _w2(np.hypot), NUM_B, NUM_B, "float", False, True),
    "copysign": (fg.copysign, np.copysign, NUM_B, NUM_B, "float", True, True),
    "logaddexp": (fg.logaddexp, _w2(np.logaddexp), NUM_B, NUM_B, "float", False, True),
    "logaddexp2": (fg.logaddexp2, _w2(np.logaddexp2), NUM_B, NUM_B, "float", False, True),
    "xlogy": (fg.xlogy, _w2(sp.xlogy), NUM_B, NUM_B, "float", False, True),
    "ldexp": (fg.ldexp, _ldexp, NUM_B, INTS, "float", False, True),
    "float_power": (fg.float_power, np.float_power, NUM_B, NUM_B, "float64", False, True),
    "fmod": (fg.fmod, np.fmod, NUMERIC, NUMERIC, "promote", True, True),
    "remainder": (fg.remainder, _remainder, NUMERIC, NUMERIC, "promote", True, True),
    # which zero fmax(-0.0, 0.0) picks is unspecified (C's fmax too)
    "fmax": (fg.fmax, np.fmax, NUM_B, NUM_B, "promote", True, False),
    "fmin": (fg.fmin, np.fmin, NUM_B, NUM_B, "promote", True, False),
    # nextafter: one dtype, as PyTorch requires; heaviside of two dtypes (PyTorch refuses
    # them) computes in their promoted dtype
    "nextafter": (fg.nextafter, np.nextafter, FLOATS, None, "same", True, True),
    "heaviside": (fg.heaviside, _heaviside, NUMERIC, NUMERIC, "promote", True, True),
}


@FUZZ
@given(st.sampled_from(sorted(BINARY)), st.data())
def test_binary_float_functions_against_numpy_scipy(name, data):
    f, ref, xd, yd, rule, exact, zero_sign = BINARY[name]
    da = data.draw(st.sampled_from(xd))
    db = da if yd is None else data.draw(st.sampled_from(yd))
    sa, sb = data.draw(broadcast_pair())
    lo, hi = (-40, 40) if name == "ldexp" else (-8, 8)
    (a, ta), (b, tb) = data.draw(viewed(da, sa)), data.draw(viewed(db, sb, lo=lo, hi=hi))
    res = promote(da, db, len(sa) == 0, len(sb) == 0)
    res = {"float": float_result(res), "promote": res, "float64": "float64", "same": da}[rule]
    x, y = np.asarray(a), np.asarray(b)
    if not fits_0d((x, y), (sa, sb), (da, db), res):
        CALLS["binary-more-error"] += 1
        with pytest.raises(ValueError):
            f(ta, tb)
        return
    if name in ("fmod", "remainder") and CATEGORY[res] == 1:
        if (y == 0).any():
            # integer division by zero raises (docs/tensors.md), NumPy gives 0; with an
            # empty result nothing is divided, and raising or not are both fine
            CALLS["binary-more-error"] += 1
            try:
                got = f(ta, tb)
            except RuntimeError as e:
                assert "ZeroDivisionError" in str(e)
                return
            assert got.numel() == 0, f"{name}: an integer division by zero did not raise"
            return
    with np.errstate(all="ignore"):
        want = ref(x.astype(res), y.astype(res))
    CALLS["binary-more"] += 1
    got = f(ta, tb)
    what = f"{name}({da}{list(sa)}, {db}{list(sb)})"
    check(got, want, res, what, exact=exact, zero_sign=zero_sign, nan_sign=name == "copysign")


# ---- integer, logical and comparison ops ------------------------------------------------


def _shift(left):
    def ref(x, y):
        # a shift by a negative amount or by at least the width gives 0 to the left and
        # the sign fill to the right (tensor-math-random.md, as PyTorch and Paddle)
        width = x.dtype.itemsize * 8
        ok = (y >= 0) & (y < width)
        s = np.where(ok, y, 0)
        if left:
            return np.where(ok, np.left_shift(x, s), 0).astype(x.dtype)
        return np.where(ok, np.right_shift(x, s), np.right_shift(x, width - 1))

    return ref


def _logical_right_shift(x, y):
    u = x.view(f"uint{x.dtype.itemsize * 8}")
    return np.right_shift(u, y.astype(u.dtype)).view(x.dtype)


# name: (ferrograd call, reference on operands in the result dtype, dtypes, result rule)
INTEGER = {
    "gcd": (fg.gcd, np.gcd, INTS, "promote"),
    "lcm": (fg.lcm, np.lcm, INTS, "promote"),
    "bitwise_and": (fg.bitwise_and, np.bitwise_and, ["bool", *INTS], "promote"),
    "bitwise_or": (fg.bitwise_or, np.bitwise_or, ["bool", *INTS], "promote"),
    "bitwise_xor": (fg.bitwise_xor, np.bitwise_xor, ["bool", *INTS], "promote"),
    "bitwise_left_shift": (fg.bitwise_left_shift, _shift(True), INTS, "promote"),
    "bitwise_right_shift": (fg.bitwise_right_shift, _shift(False), INTS, "promote"),
    # Paddle's is_arithmetic=False: a logical shift, amounts within the width only
    "logical_right_shift": (
        lambda x, y: fg.bitwise_right_shift(x, y, is_arithmetic=False),
        _logical_right_shift,
        INTS,
        "promote",
    ),
    # comparisons and logical ops take the operands in their promoted dtype, as PyTorch
    # (logical_or(float32 [0.0], float64 tensor(1e-308)) is False: 1e-308 is 0 in float32)
    "logical_and": (fg.logical_and, np.logical_and, REAL, "compare"),
    "logical_or": (fg.logical_or, np.logical_or, REAL, "compare"),
    "logical_xor": (fg.logical_xor, np.logical_xor, REAL, "compare"),
    "ge": (fg.ge, np.greater_equal, REAL, "compare"),
    "le": (fg.le, np.less_equal, REAL, "compare"),
    "gt": (fg.gt, np.greater, REAL, "compare"),
    "ne": (fg.ne, np.not_equal, REAL, "compare"),
}


@FUZZ
@given(st.sampled_from(sorted(INTEGER)), st.data())
def test_integer_logical_comparison_ops_against_numpy(name, data):
    f, ref, dtypes, rule = INTEGER[name]
    da, db = data.draw(st.sampled_from(dtypes)), data.draw(st.sampled_from(dtypes))
    sa, sb = data.draw(broadcast_pair())
    big = name != "lcm"  # lcm overflows past +-20
    (a, ta), (b, tb) = (data.draw(viewed(d, s, special=big)) for d, s in ((da, sa), (db, sb)))
    x, y = np.asarray(a), np.asarray(b)
    if name == "gcd":
        # |iinfo.min| does not fit: NumPy and PyTorch both give a negative number there
        assume(not np.isin(np.concatenate([x.ravel(), y.ravel()]), [np.iinfo(da).min]).any())
    res = promote(da, db, len(sa) == 0, len(sb) == 0)
    if not fits_0d((x, y), (sa, sb), (da, db), res):
        CALLS["integer-more-error"] += 1
        with pytest.raises(ValueError):
            f(ta, tb)
        return
    if name == "logical_right_shift":
        y = np.abs(y) % (np.iinfo(res).bits)
        tb = fg.tensor(y, dtype=db)
    with np.errstate(all="ignore"):
        want = ref(x.astype(res), y.astype(res))
    out = res if rule == "promote" else "bool"
    CALLS["integer-more"] += 1
    check(f(ta, tb), want, out, f"{name}({da}{list(sa)}, {db}{list(sb)})", exact=True)


@pytest.mark.parametrize("name", ["gcd", "lcm", "bitwise_and", "bitwise_left_shift"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_integer_ops_refuse_floats(name, dtype):
    x = fg.tensor([1.0, 2.0], dtype=dtype)
    with pytest.raises(TypeError):
        getattr(fg, name)(x, x)
    CALLS["integer-more-error"] += 1


# ---- clamp / clip with number bounds, where -------------------------------------------


@FUZZ
@given(st.data())
def test_clamp_with_number_bounds_against_numpy(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    a, t = data.draw(viewed(dtype))
    bound = st.one_of(st.integers(-10, 10), st.floats(-10, 10, width=32))
    form = data.draw(st.sampled_from(["min", "max", "both", "crossed"]))
    lo = data.draw(bound) if form != "max" else None
    hi = data.draw(bound) if form != "min" else None
    if form == "crossed":  # min > max: every element becomes max (PyTorch, NumPy)
        lo, hi = max(lo, hi) + 1, min(lo, hi)
    # a Python float bound on an integer tensor gives float32 ("tensor op Python scalar",
    # docs/tensors.md; torch.clamp does the same)
    floats = any(isinstance(v, float) for v in (lo, hi))
    res = "float32" if floats and CATEGORY[dtype] == 1 else dtype
    want = np.asarray(a).astype(res)
    with np.errstate(all="ignore"):
        if lo is not None:
            want = np.maximum(want, np.asarray(lo).astype(res))
        if hi is not None:
            want = np.minimum(want, np.asarray(hi).astype(res))
    f = data.draw(st.sampled_from([fg.clamp, fg.clip, lambda t, **k: t.clip(**k)]))
    kw = {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}
    CALLS["clamp"] += 1
    # which zero clamp(-0.0, min=0.0) keeps is unspecified
    check(f(t, **kw), want, res, f"clamp({dtype}{list(a.shape)}, {kw})", True, False)


@FUZZ
@given(st.data())
def test_where_broadcast_against_numpy(data):
    sc, sx = data.draw(broadcast_pair())
    full = np.broadcast_shapes(sc, sx)
    k = data.draw(st.integers(0, len(full)))
    sy = tuple(1 if data.draw(st.booleans()) else d for d in full[len(full) - k :])
    c, tc = data.draw(viewed("bool", sc))
    dx, dy = data.draw(st.sampled_from(REAL)), data.draw(st.sampled_from(REAL))
    (x, tx), (y, ty) = data.draw(viewed(dx, sx)), data.draw(viewed(dy, sy))
    if data.draw(st.booleans()):
        # a Python number: the tensor's dtype unless its category is higher (docs/tensors.md)
        y = data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32)))
        ty, dy, sy = y, ("int64" if isinstance(y, int) else "float32"), None
        res = dx if CATEGORY[dy] <= CATEGORY[dx] else dy
    else:
        res = promote(dx, dy, len(sx) == 0, len(sy) == 0)
        if not fits_0d((x, y), (sx, sy), (dx, dy), res):
            # a 0-d int narrowed to the other's dtype must fit it, as for `+`
            CALLS["where-error"] += 1
            with pytest.raises(ValueError, match="where"):
                fg.where(tc, tx, ty)
            return
    want = np.where(np.asarray(c), np.asarray(x).astype(res), np.asarray(y).astype(res))
    CALLS["where"] += 1
    got = fg.where(tc, tx, ty)
    check(got, want, res, f"where({list(sc)}, {dx}{list(sx)}, {dy}{sy})", exact=True)


# ---- regressions: bugs the fuzzers found ------------------------------------------------


def test_gcd_promotes_mixed_integer_dtypes():
    x = fg.tensor([0, 6], dtype="int32")
    y = fg.tensor([2**40, 4], dtype="int64")
    check(fg.gcd(x, y), np.array([2**40, 2]), "int64", "gcd")
    check(fg.lcm(y, fg.tensor([True, True])), np.array([2**40, 4]), "int64", "lcm")
    check(fg.gcd(fg.tensor([True]), fg.tensor([6], dtype="int32")), [1], "int32", "gcd")


def test_heaviside_does_not_truncate_values():
    got = fg.heaviside(fg.tensor([0, 3], dtype="int32"), fg.tensor([0.5, 0.5], dtype="float64"))
    check(got, np.array([0.5, 1.0]), "float64", "heaviside")


def test_digamma_just_below_negative_integers_is_accurate():
    x = np.array([-1e-10, -1e-300, -1.00000001, -3.0000001], dtype=np.float64)
    check(fg.digamma(fg.tensor(x)), _digamma(x), "float64", "digamma")
    x32 = np.array([-1e-30, -1e-8], dtype=np.float32)
    want = _digamma(x32.astype(np.float64)).astype(np.float32)
    check(fg.digamma(fg.tensor(x32)), want, "float32", "digamma")


def test_where_0d_int_out_of_range_raises():
    c = fg.tensor([True, False])
    with pytest.raises(ValueError):
        fg.where(c, fg.tensor([1, 2], dtype="int32"), fg.tensor(2**40, dtype="int64"))


def test_fmod_int_min_operand():
    for dtype in INTS:
        m = int(np.iinfo(dtype).min)
        x = fg.tensor([1, m, m, 7], dtype=dtype)
        y = fg.tensor([m, 3, -1, m], dtype=dtype)
        want = np.fmod(np.array([1, m, m, 7], dtype), np.array([m, 3, -1, m], dtype))
        check(fg.fmod(x, y), want, dtype, f"fmod {dtype}")
        # also when the other operand is a float: |y| wraps before the promotion
        check(fg.fmod(fg.tensor([1.0]), y[:1]), [1.0], "float32", f"fmod float32, {dtype}")


def test_shift_with_0d_operand_keeps_the_tensors_dtype():
    x = fg.tensor([1, 2], dtype="int32")
    one = fg.tensor(1, dtype="int64")
    check(fg.bitwise_left_shift(x, one), np.array([2, 4]), "int32", "<<")
    check(fg.bitwise_right_shift(one, x), np.array([0, 0]), "int32", ">>")


def test_acosh_asinh_do_not_overflow_for_huge_inputs():
    for dtype, v in (("float32", 3.4e38), ("float64", 1e308)):
        x = np.array([v, 2.0], dtype=dtype)
        check(fg.acosh(fg.tensor(x)), np.arccosh(x), dtype, f"acosh {dtype}")
        check(fg.asinh(fg.tensor(-x)), np.arcsinh(-x), dtype, f"asinh {dtype}")


def test_atanh_is_accurate_near_minus_one():
    for dtype in FLOATS:
        x = np.array([-0.999999, 0.999999], dtype=dtype)
        want = np.arctanh(x.astype(np.float64))
        check(fg.atanh(fg.tensor(x)), want, dtype, f"atanh {dtype}")


def test_float_functions_promote_operands_first():
    zero, big = fg.tensor([0.0], dtype="float64"), fg.tensor([2**31 - 1], dtype="int32")
    for f in (fg.hypot, fg.logaddexp):
        check(f(zero, big), [2147483647.0], "float64", f.__name__)
    one, two = fg.tensor(1.0, dtype="float64"), fg.tensor([2], dtype="int32")
    check(fg.xlogy(one, two), [np.log(2.0)], "float64", "xlogy")
    # a 0-d float64 beside a float32 tensor: float32 (the 0-d rule, as PyTorch)
    check(fg.xlogy(one, fg.tensor([2.0])), [np.log(np.float32(2.0))], "float32", "xlogy f32 y")
    check(fg.xlogy(fg.tensor([2.0]), one), [0.0], "float32", "xlogy float32[1], float64[]")
    check(fg.logaddexp2(one, two), [np.logaddexp2(1.0, 2.0)], "float64", "logaddexp2")
    check(fg.ldexp(big, fg.tensor([0.0], dtype="float64")), [2147483647.0], "float64", "ldexp")


def test_xlogy_at_zero_x_is_positive_zero():
    got = fg.xlogy(fg.tensor([0.0, -0.0, 0.0]), fg.tensor([0.5, 2.0, 1.0]))
    check(got, np.zeros(3), "float32", "xlogy")
