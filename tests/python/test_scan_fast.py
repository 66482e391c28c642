"""The blocked cumulative sum for long lines (issue 23): values against NumPy in float64,
lengths around every segment and task boundary of src/kernels/scan_blocked.rs, the
reverse scan (cumsum's backward), NaN / inf, integers bit-exact with wrap-around,
non-contiguous inputs, several lines, and gradcheck through a long line."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(23)

# the kernel's constants: SEG elements per segment, GROUP = 8 segments scanned together,
# TASK = 32 groups per pool task, lines from BLOCKED_MIN = GROUP on are blocked
SEG, GROUP, TASK = 512, 4096, 131072

LENGTHS = [
    0,
    1,
    SEG - 1,
    SEG,
    SEG + 1,
    GROUP - 1,
    GROUP,
    GROUP + 1,
    GROUP + SEG + 1,
    3 * GROUP + 7,
    TASK - 1,
    TASK,
    TASK + GROUP + 3,
    (1 << 20) + 3,
]


def running_magnitude(a64, reverse=False):
    """|x| summed along the line: the scale any association's rounding error follows."""
    m = np.abs(a64)
    m = np.cumsum(m[::-1])[::-1] if reverse else np.cumsum(m)
    return np.maximum(m, 1.0)


@pytest.mark.parametrize("n", LENGTHS)
def test_float32_matches_numpy_float64(n):
    a = RNG.standard_normal(n).astype(np.float32) + np.float32(0.1)
    got = fg.cumsum(fg.tensor(a), 0)
    assert got.dtype == fg.float32
    ref = np.cumsum(a.astype(np.float64))
    err = np.abs(got.numpy().astype(np.float64) - ref)
    assert np.all(err <= 1e-6 * running_magnitude(a.astype(np.float64)))


@pytest.mark.parametrize("n", LENGTHS)
def test_float64_matches_a_longdouble_reference(n):
    a = RNG.standard_normal(n) * 1e3 + 1.0
    got = fg.cumsum(fg.tensor(a), 0).numpy()
    ref = np.cumsum(a.astype(np.longdouble))
    err = np.abs(got.astype(np.longdouble) - ref).astype(np.float64)
    assert np.all(err <= 1e-12 * running_magnitude(a))


@pytest.mark.parametrize("n", [GROUP - 1, GROUP + 1, 5 * GROUP + 11, TASK + 3, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integers_are_exact_with_wrap_around(n, dtype):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    got = fg.cumsum(fg.tensor(a), 0)
    assert got.dtype == fg.int64
    # int64 arithmetic wraps in NumPy too; the sums wrap around many times here
    with np.errstate(over="ignore"):
        ref = np.cumsum(a.astype(np.int64))
    np.testing.assert_array_equal(got.numpy(), ref)


def test_bool_sums_count_exactly():
    a = RNG.random(3 * GROUP + 5) < 0.5
    np.testing.assert_array_equal(fg.cumsum(fg.tensor(a), 0).numpy(), np.cumsum(a))


def test_float16_rounds_the_float32_result():
    a = RNG.standard_normal(GROUP + 9).astype(np.float16)
    got = fg.cumsum(fg.tensor(a), 0)
    assert got.dtype == fg.float16
    ref = np.cumsum(a.astype(np.float64))
    err = np.abs(got.numpy().astype(np.float64) - ref)
    assert np.all(err <= 1e-3 * running_magnitude(a.astype(np.float64)))


@pytest.mark.parametrize("reverse_first", [False, True])
def test_nan_and_inf_propagate_as_in_numpy(reverse_first):
    n = 3 * GROUP + 17
    a = np.ones(n, dtype=np.float32)
    a[GROUP + 5] = np.inf
    a[2 * GROUP + 600] = -np.inf
    a[-3] = np.nan
    if reverse_first:
        a = a[::-1].copy()
    got = fg.cumsum(fg.tensor(a), 0).numpy()
    with np.errstate(invalid="ignore"):  # inf + -inf
        ref = np.cumsum(a.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, ref)


def test_negative_zero_line_keeps_its_sign():
    a = np.full(2 * GROUP + 3, -0.0, dtype=np.float32)
    got = fg.cumsum(fg.tensor(a), 0).numpy()
    assert np.all(got == 0) and np.all(np.signbit(got))


@pytest.mark.parametrize("n", [GROUP + 1, TASK + 3, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reverse_scan_through_the_backward(n, dtype):
    # d/dx sum(cumsum(x) * g) is the reverse cumulative sum of g
    x = fg.tensor(RNG.standard_normal(n).astype(dtype), requires_grad=True)
    g = (RNG.standard_normal(n) + 0.1).astype(dtype)
    (fg.cumsum(x, 0) * fg.tensor(g)).sum().backward()
    g64 = g.astype(np.float64)
    ref = np.cumsum(g64[::-1])[::-1]
    err = np.abs(x.grad.numpy().astype(np.float64) - ref)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    assert np.all(err <= tol * running_magnitude(g64, reverse=True))


def test_transposed_input_and_several_lines():
    # (n, 3) transposed: three lines of n along the last dim, read through a copy
    n = 2 * GROUP + 3
    a = RNG.standard_normal((n, 3)).astype(np.float32)
    got = fg.cumsum(fg.tensor(a).t(), 1).numpy()
    ref = np.cumsum(a.T.astype(np.float64), axis=1)
    mag = np.maximum(np.cumsum(np.abs(a.T.astype(np.float64)), axis=1), 1.0)
    assert np.all(np.abs(got - ref) <= 1e-6 * mag)


@pytest.mark.parametrize("shape,dim", [((2, GROUP + 5, 1), 1), ((3, GROUP + 5, 2), 1)])
def test_a_dim_that_is_not_the_last_with_outer_lines(shape, dim):
    a = RNG.standard_normal(shape)
    got = fg.cumsum(fg.tensor(a), dim).numpy()
    ref = np.cumsum(a, axis=dim)
    mag = np.maximum(np.cumsum(np.abs(a), axis=dim), 1.0)
    assert np.all(np.abs(got - ref) <= 1e-12 * mag)


def test_many_long_lines_in_parallel():
    # enough elements for the lines themselves to run on the pool
    a = RNG.integers(-(2**62), 2**62, size=(12, GROUP + 77), dtype=np.int64)
    with np.errstate(over="ignore"):
        ref = np.cumsum(a, axis=1)
    np.testing.assert_array_equal(fg.cumsum(fg.tensor(a), -1).numpy(), ref)


def test_gradcheck_through_a_long_line():
    # 4 parameters spread over a line of 4 * (GROUP + 3) elements; the output folds the
    # long cumsum back into 4 values, so the Jacobian stays 4 x 4
    n = GROUP + 3
    weights = fg.tensor(RNG.standard_normal(4 * n))

    def f(w):
        line = (w.reshape(4, 1) * fg.ones(4, n, dtype=fg.float64)).reshape(-1)
        return (fg.cumsum(line, 0) * weights).reshape(4, n).sum(1)

    w = fg.tensor(RNG.standard_normal(4), requires_grad=True)
    assert gradcheck(f, (w,))


def test_no_lines_of_a_blocked_length():
    got = fg.cumsum(fg.zeros(0, GROUP + 1), 1)
    assert tuple(got.shape) == (0, GROUP + 1)
