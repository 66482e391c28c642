"""float64 (and float32) to bfloat16 / float16 round to nearest even from the exact value.

The reference is independent of ferrograd's kernel: every finite value of the narrow
type is listed exactly in float64, and each input is compared with the midpoint of its
two neighbours (exact in float64: a midpoint needs one bit more than the narrow type's
mantissa). A conversion that first drops low bits of the input (or first rounds to
float32) decides a value just above a midpoint as a tie and rounds it the wrong way;
half 2.7's f64 conversions did, e.g. for the float32 value of bits 0x208001 (a bfloat16
subnormal) and for 1 + 2**-11 + 2**-30 to float16."""

import ferrograd as fg
import numpy as np
import pytest


def _bf16_values():
    bits = np.arange(0x8000, dtype=np.uint32) << 16  # non-negative bfloat16 bit patterns
    with np.errstate(invalid="ignore"):  # the NaN patterns (dropped by the reference)
        values = bits.view(np.float32).astype(np.float64)
    return values, (bits >> 16).astype(np.uint16)


def _f16_values():
    bits = np.arange(0x8000, dtype=np.uint16)
    return bits.view(np.float16).astype(np.float64), bits


def _reference(x, table, emax_next):
    """Round-to-nearest-even bits of |x| into the narrow type whose non-negative values
    (bits ascending, NaN/inf dropped) are ``table``; the sign bit is added back.
    ``emax_next`` is the power of two just past the largest finite value (where an
    unbounded exponent would put the next value): from its midpoint on, the result is
    infinity."""
    values, bits = table
    finite = np.isfinite(values)
    values, bits = values[finite], bits[finite].astype(np.uint32)
    inf_bits = bits[-1] + 1  # the pattern after the largest finite value is infinity
    values = np.append(values, emax_next)
    bits = np.append(bits, inf_bits)
    a = np.abs(x)
    hi = np.clip(np.searchsorted(values, a, side="left"), 1, len(values) - 1)
    lo = hi - 1
    exact = values[hi] == a
    mid = (values[lo] + values[hi]) / 2  # exact in float64
    pick_hi = (a > mid) | ((a == mid) & (bits[hi] % 2 == 0))
    out = np.where(exact | pick_hi, bits[hi], bits[lo])
    out = np.where(a > emax_next, inf_bits, out)
    return (out | (np.signbit(x).astype(np.uint32) << 15)).astype(np.uint16)


def _near_midpoints(table, rng, n):
    """float64 values at, just above and just below midpoints of neighbouring narrow
    values, and near the narrow values themselves, positive and negative, across the
    whole range (subnormals included)."""
    values = table[0][np.isfinite(table[0])]
    i = rng.integers(0, len(values) - 1, n)
    mid = (values[i] + values[i + 1]) / 2
    ulp = np.spacing(mid)
    tiny = np.ldexp(1.0, -30) * mid  # a perturbation far below float32's precision
    xs = np.concatenate(
        [mid, mid + ulp, mid - ulp, mid + tiny, mid - tiny, values[i], values[i] + ulp]
    )
    xs = xs[np.isfinite(xs)]
    return np.concatenate([xs, -xs])


def _bits_of(t):
    """The 16-bit patterns of a bfloat16 / float16 ferrograd tensor."""
    if t.dtype == fg.bfloat16:
        return (t.astype("float32").numpy().view(np.uint32) >> 16).astype(np.uint16)
    return t.numpy().view(np.uint16)


def _check(x, got_bits, want_bits):
    bad = np.flatnonzero(got_bits != want_bits)
    assert bad.size == 0, [
        (float.hex(float(x[j])), hex(int(got_bits[j])), hex(int(want_bits[j]))) for j in bad[:5]
    ]


def test_reference_agrees_with_numpy_float16():
    # the reference itself, checked where NumPy rounds from float64 directly
    rng = np.random.default_rng(1)
    x = _near_midpoints(_f16_values(), rng, 4000)
    want = _reference(x, _f16_values(), 65536.0)
    _check(x, x.astype(np.float16).view(np.uint16), want)


@pytest.mark.parametrize("src", ["float64", "float32"])
def test_to_bfloat16_rounds_from_the_exact_value(src):
    rng = np.random.default_rng(2)
    x = _near_midpoints(_bf16_values(), rng, 6000).astype(src)
    # the case found first: a bfloat16 subnormal just above a midpoint
    special = np.array([0x208001, 0x80208001, 0x00008001, 0x7F7F8000, 0x7F7F8001], np.uint32)
    x = np.concatenate([x, special.view(np.float32).astype(src)])
    x = x[np.isfinite(x)]
    got = _bits_of(fg.tensor(x).astype("bfloat16"))
    _check(x, got, _reference(x.astype(np.float64), _bf16_values(), 2.0**128))


@pytest.mark.parametrize("src", ["float64", "float32"])
def test_to_float16_rounds_from_the_exact_value(src):
    rng = np.random.default_rng(3)
    x = _near_midpoints(_f16_values(), rng, 6000)
    special = [1 + 2**-11 + 2**-30, 2**-25 + 2**-60, 65520.0, 65519.99, 1e-30, -(2**-24)]
    x = np.concatenate([x, special]).astype(src)
    got = _bits_of(fg.tensor(x).astype("float16"))
    want = _reference(x.astype(np.float64), _f16_values(), 65536.0)
    _check(x, got, want)
    with np.errstate(over="ignore"):  # 65520 rounds to inf
        _check(x, got, x.astype(np.float16).view(np.uint16))  # NumPy rounds correctly too


def test_nan_and_inf_and_python_scalars():
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 1e300, -1e300, 5e-324, -0.0])
    got = _bits_of(fg.tensor(x).astype("bfloat16"))
    for b in got[:2]:
        assert (b & 0x7F80) == 0x7F80 and b & 0x7F, hex(b)  # NaN stays NaN
    assert list(got[2:]) == [0x7F80, 0xFF80, 0x7F80, 0xFF80, 0x0000, 0x8000]
    got = _bits_of(fg.tensor(x).astype("float16"))
    assert (got[0] & 0x7C00) == 0x7C00 and got[0] & 0x3FF
    assert list(got[2:]) == [0x7C00, 0xFC00, 0x7C00, 0xFC00, 0x0000, 0x8000]
    # a Python float goes through the same rounding: 1 + 2**-8 (a midpoint) + 2**-40
    # rounds up
    v = 1 + 2**-8 + 2**-40
    t = fg.tensor([v], dtype="bfloat16")
    assert _bits_of(t)[0] == 0x3F81
