"""Integer ``**`` / ``pow`` wraps like NumPy for every integer dtype and exponent (issue 16,
item 1: int32 powers were computed as ``x ** u32::MAX`` through a bad saturation cast), and
float floor division is Python's (found by the differential fuzzer)."""

import ferrograd as fg
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_small_powers_match_numpy(dtype):
    base = np.array([5, -1, -3, 0, 1, 2, 7, -8], dtype=dtype)
    for k in range(0, 12):
        got = (fg.tensor(base, dtype=dtype) ** k).numpy()
        np.testing.assert_array_equal(got, base**k)
        got = fg.pow(fg.tensor(base, dtype=dtype), k).numpy()
        np.testing.assert_array_equal(got, base**k)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_tensor_exponents_and_wrapping(dtype):
    info = np.iinfo(dtype)
    base = np.array([3, -3, 2, -2, 5], dtype=dtype)
    exps = np.array([5, 7, info.bits - 1, info.bits, 40], dtype=dtype)
    with np.errstate(over="ignore"):
        want = base**exps
    got = (fg.tensor(base, dtype=dtype) ** fg.tensor(exps, dtype=dtype)).numpy()
    np.testing.assert_array_equal(got, want)


def test_huge_exponent_is_exact_modular_power():
    big = 2**40 + 3
    got = (fg.tensor([3, -1, 1], dtype="int64") ** big).numpy()
    assert list(got) == [pow(3, big, 2**64) - 2**64 * (pow(3, big, 2**64) >= 2**63), -1, 1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_floor_divide_matches_python(dtype):
    # found by the differential fuzzer: floor(a / b) rounds 1.0 / 0.1 up to 10.0
    a = np.array([1.0, -1.0, 7.0, -7.5, 0.5, 3.3, 0.0], dtype=dtype)
    b = np.array([0.1, 0.1, -2.0, 2.0, -3.0, 1.1, -3.0], dtype=dtype)
    got = (fg.tensor(a) // fg.tensor(b)).numpy()
    np.testing.assert_array_equal(got, np.floor_divide(a, b))
