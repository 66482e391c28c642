"""The large-tensor fast paths of issue 23: float32 ``erf`` and exact ``gelu`` in vector
lanes (src/kernels/fastmath.rs), ``pow`` by a Python number as multiplications or a square
root (src/kernels/binary.rs, ``PowNumber``), and the AVX2 leaf of the reductions
(src/kernels/reduce_loops.rs). Values against float64 references (``math.erf``), powf's
special values, sizes across the SIMD widths and thread splits, strided inputs, gradcheck.
"""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

SIZES = [0, 1, 7, 8, 9, 63, 64, 65, 2**16 + 3]
SPECIAL32 = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.2e-38, -3e-40, 3.9192, 3.92, -4.0, 1e30],
    dtype=np.float32,
)
_erf = np.vectorize(math.erf, otypes=[np.float64])


def ulps32(got, want64):
    """Distance of float32 `got` from the float64 `want64` rounded to float32, in float32
    steps (0 where both are NaN or equal, bit patterns ordered as integers)."""
    want = np.asarray(want64, dtype=np.float64).astype(np.float32)
    got = np.asarray(got, dtype=np.float32)

    def key(a):
        i = a.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)

    d = np.abs(key(got) - key(want))
    both_nan = np.isnan(got) & np.isnan(want)
    return np.where(both_nan | (got == want), 0, d)


def sample(n, seed=0, scale=2.0):
    rng = np.random.default_rng(seed + n)
    return (rng.standard_normal(n) * scale).astype(np.float32)


# ---- erf / gelu ------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_erf_float32_within_one_ulp(n):
    x = sample(n)
    got = fg.erf(fg.from_numpy(x)).numpy()
    assert got.dtype == np.float32 and got.shape == (n,)
    assert ulps32(got, _erf(x.astype(np.float64))).max(initial=0) <= 1


def test_erf_float32_dense_grid_and_tails():
    x = np.concatenate(
        [
            np.linspace(-6, 6, 400_001, dtype=np.float32),
            np.arange(3.80, 3.95, 1e-6, dtype=np.float32),
        ]
    )
    got = fg.erf(fg.from_numpy(x)).numpy()
    assert ulps32(got, _erf(x.astype(np.float64))).max() <= 1
    assert (got[np.abs(x) >= 3.92] == np.sign(x[np.abs(x) >= 3.92])).all()


def test_erf_float32_special_values():
    got = fg.erf(fg.from_numpy(SPECIAL32)).numpy()
    want = _erf(SPECIAL32.astype(np.float64))
    assert ulps32(got, want).max() <= 1
    assert np.isnan(got[4])
    assert np.signbit(got[1]) and got[1] == 0 and not np.signbit(got[0])
    assert got[2] == 1 and got[3] == -1
    assert got[5] > 0 and got[6] < 0  # subnormals keep their size: 2x/sqrt(pi)


def test_erf_float64_keeps_the_precise_path():
    x = np.concatenate([sample(1000).astype(np.float64), [0.0, -0.0, 5.9, -27.0, 1e-310]])
    got = fg.erf(fg.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, _erf(x), rtol=4e-16, atol=0)


def test_erf_strided_input_matches_the_contiguous_result():
    x = sample(64 * 65).reshape(64, 65)
    t = fg.from_numpy(x)
    np.testing.assert_array_equal(fg.erf(t.t()).numpy(), fg.erf(t).numpy().T)
    np.testing.assert_array_equal(fg.erf(t[:, ::3]).numpy(), fg.erf(t).numpy()[:, ::3])


def _gelu64(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


@pytest.mark.parametrize("n", SIZES)
def test_gelu_float32_against_float64(n):
    x = sample(n, scale=3.0)
    got = F.gelu(fg.from_numpy(x)).numpy()
    want = _gelu64(x.astype(np.float64))
    ok = x > -2.5
    assert ulps32(got[ok], want[ok]).max(initial=0) <= 1
    # where 1 + erf cancels the float32 formula's absolute error was ~1e-7 too
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_gelu_float32_special_values_and_strided():
    got = F.gelu(fg.from_numpy(np.array([0.0, np.inf, np.nan, -30.0], dtype=np.float32))).numpy()
    assert got[0] == 0 and got[1] == np.inf and np.isnan(got[2]) and got[3] == 0
    x = sample(40 * 41, scale=3.0).reshape(40, 41)
    t = fg.from_numpy(x)
    np.testing.assert_array_equal(F.gelu(t.t()).numpy(), F.gelu(t).numpy().T)


def test_gelu_float32_backward_against_float64():
    x = sample(2**16 + 3, scale=3.0)
    t = fg.from_numpy(x).requires_grad_()
    F.gelu(t).sum().backward()
    x64 = x.astype(np.float64)
    want = 0.5 * (1 + _erf(x64 / math.sqrt(2))) + x64 * np.exp(-0.5 * x64 * x64) / math.sqrt(
        2 * math.pi
    )
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=2e-6, atol=2e-7)


@pytest.mark.parametrize("op", ["erf", "gelu"])
def test_erf_gelu_gradcheck_float64(op):
    f = fg.erf if op == "erf" else F.gelu
    x = fg.from_numpy(np.linspace(-3, 3, 13)).requires_grad_()
    assert gradcheck(f, (x,))
    # the second derivative goes through the composed formula (a graph is recorded)
    assert gradgradcheck(f, (x,))


def test_gelu_backward_one_pass_matches_the_composed_formula():
    x = sample(2**16 + 3, scale=3.0).astype(np.float64)
    g = sample(2**16 + 3, seed=1).astype(np.float64)
    t = fg.from_numpy(x).requires_grad_()
    (F.gelu(t) * fg.from_numpy(g)).sum().backward()
    # the composed formula, as the op table writes it, with a graph (so not fused)
    t2 = fg.from_numpy(x).requires_grad_()
    (gx,) = fg.autograd.grad(F.gelu(t2), t2, fg.from_numpy(g), create_graph=True)
    np.testing.assert_allclose(t.grad.numpy(), gx.detach().numpy(), rtol=1e-14, atol=1e-15)
    # float32 with a strided (transposed) gradient
    x32 = sample(64 * 65, scale=3.0).reshape(64, 65)
    t32 = fg.from_numpy(x32).requires_grad_()
    g32 = fg.from_numpy(sample(64 * 65, seed=2).reshape(65, 64)).t()
    F.gelu(t32).backward(g32)
    x64 = x32.astype(np.float64)
    want = 0.5 * (1 + _erf(x64 / math.sqrt(2))) + x64 * np.exp(-0.5 * x64 * x64) / math.sqrt(
        2 * math.pi
    )
    want = want * g32.numpy().astype(np.float64)
    np.testing.assert_allclose(t32.grad.numpy(), want, rtol=2e-6, atol=2e-7)


@pytest.mark.parametrize("n", SIZES)
def test_silu_float32_within_one_ulp(n):
    x = sample(n, scale=8.0)
    got = F.silu(fg.from_numpy(x)).numpy()
    x64 = x.astype(np.float64)
    assert ulps32(got, x64 / (1.0 + np.exp(-x64))).max(initial=0) <= 1


def test_silu_float32_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -200.0, -1e30, 3e-45, 100.0], np.float32)
    got = F.silu(fg.from_numpy(x)).numpy()
    assert got[0] == 0 and got[2] == np.inf and np.isnan(got[3]) and np.isnan(got[4])
    assert got[5] == 0 and got[6] == 0 and got[8] == 100
    assert got[7] == np.float32(1.4e-45)  # two subnormal steps halved: one


# ---- pow by a Python number --------------------------------------------------------

EXPONENTS32 = [0, 1, 2, 3, 4, -1, -2, -3, -4, 0.5, -0.5, 1.5, 2.5, 3.5, -1.5, -2.5, -3.5, 4.5]
POW_SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, -3e38, 1e-20, -2.0, 0.7],
    dtype=np.float32,
)


def _powf(t, n):
    """`t ** n` through the general kernel (a shape-[1] exponent is not a number)."""
    return t.pow(fg.full([1], n, dtype=t.dtype))


@pytest.mark.parametrize("n", EXPONENTS32)
def test_pow_number_float32_is_within_powf_accuracy(n):
    x = np.abs(sample(2**16 + 3)) + np.float32(0.05)
    if n == int(n):
        x = sample(2**16 + 3)  # negative bases too for integer powers
    got = fg.from_numpy(x).pow(n).numpy()
    want = np.power(x.astype(np.float64), float(n))
    assert ulps32(got, want).max() <= 1


@pytest.mark.parametrize("n", EXPONENTS32)
def test_pow_number_special_values_are_powfs(n):
    t = fg.from_numpy(POW_SPECIAL)
    got, ref = t.pow(n).numpy(), _powf(t, n).numpy()
    assert got.dtype == np.float32
    same = (got == ref) & (np.signbit(got) == np.signbit(ref))
    assert (same | (np.isnan(got) & np.isnan(ref))).all(), (n, got, ref)
    # ** is the same op
    np.testing.assert_array_equal((t**n).numpy(), got)


@pytest.mark.parametrize("n", [0, 1, 2, 3, -1, -2, 0.5, -0.5])
def test_pow_number_float64(n):
    x = np.concatenate([np.abs(sample(1000).astype(np.float64)) + 0.1, [0.0, -0.0, np.inf]])
    if n == int(n):
        x = np.concatenate([x, -x])
    t = fg.from_numpy(x)
    got, ref = t.pow(n).numpy(), _powf(t, n).numpy()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))
    np.testing.assert_allclose(got, ref, rtol=2.3e-16, atol=0)


@pytest.mark.parametrize("n", SIZES)
def test_pow_number_sizes_and_strides(n):
    x = sample(n)
    t = fg.from_numpy(x)
    # the correctly rounded square root (powf was 1 ulp off at 17 of these 2^16 + 3)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(t.pow(0.5).numpy(), np.sqrt(x))
    for e in (3, 0.5, -2):
        with np.errstate(invalid="ignore"):  # negative ** 0.5 is NaN in both
            want = np.power(x.astype(np.float64), e)
        assert ulps32(t.pow(e).numpy(), want).max(initial=0) <= 1
    m = fg.from_numpy(sample(33 * 34).reshape(33, 34))
    np.testing.assert_array_equal(m.t().pow(3).numpy(), m.pow(3).numpy().T)


def test_pow_number_int32_stays_exact_and_wraps():
    x = np.array([3, -7, 1291, 46341, -2, 0], dtype=np.int32)
    for n in (2, 3, 4):
        got = fg.from_numpy(x).pow(n)
        assert got.dtype == fg.int32
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(got.numpy(), np.power(x, n))


@pytest.mark.parametrize("n", [3, -2, 0.5, -0.5, -1, 4, 2.5, -1.5])
def test_pow_number_gradcheck(n):
    x = fg.from_numpy(np.linspace(0.3, 2.0, 9)).requires_grad_()
    assert gradcheck(lambda a: a.pow(n), (x,))
    x32 = fg.from_numpy(np.linspace(0.3, 2.0, 9).astype(np.float32)).requires_grad_()
    x32.pow(n).sum().backward()
    xs = np.linspace(0.3, 2.0, 9)
    np.testing.assert_allclose(x32.grad.numpy(), n * xs ** (n - 1), rtol=1e-6)


# ---- reductions ---------------------------------------------------------------------


def test_float32_sum_of_2_24_values_does_not_drift():
    # a float32 running sum of these stalls far from the truth; pairwise float64 lanes do not
    rng = np.random.default_rng(5)
    x = (rng.random(2**24, dtype=np.float32) + np.float32(0.1)).astype(np.float32)
    t = fg.from_numpy(x)
    exact = math.fsum(x.astype(np.float64))
    naive = np.cumsum(x[: 2**20], dtype=np.float32)[-1]
    assert abs(naive - math.fsum(x[: 2**20].astype(np.float64))) > 1.0  # it would drift
    assert abs(float(t.sum()) - exact) <= abs(exact) * 2**-24
    assert abs(float(t.mean()) - exact / 2**24) <= abs(exact / 2**24) * 2**-23
    assert (
        abs(float(t.norm()) - math.sqrt(math.fsum(x.astype(np.float64) ** 2)))
        <= float(t.norm()) * 2**-22
    )


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reductions_across_sizes(n, dtype):
    x = sample(n).astype(dtype)
    t = fg.from_numpy(x)
    x64 = x.astype(np.float64)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(float(t.sum()), math.fsum(x64), rtol=tol, atol=tol)
    np.testing.assert_allclose(float(t.norm()), math.sqrt(math.fsum(x64 * x64)), rtol=tol, atol=tol)
    if n:
        assert float(t.max()) == x.max() and float(t.min()) == x.min()
        y = x.copy()
        y[n // 2] = np.nan
        assert math.isnan(float(fg.from_numpy(y).max()))
        assert math.isnan(float(fg.from_numpy(y).sum()))


def test_row_and_column_sums_and_strided():
    x = sample(257 * 131).reshape(257, 131)
    t = fg.from_numpy(x)
    x64 = x.astype(np.float64)
    for dim in (0, 1):
        np.testing.assert_allclose(t.sum(dim).numpy(), x64.sum(dim), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(float(t.t().sum()), x64.sum(), rtol=1e-6)
    np.testing.assert_allclose(float(t[:, ::2].sum()), x64[:, ::2].sum(), rtol=1e-6)


# ---- tril / triu and where with one single value -------------------------------------


@pytest.mark.parametrize("shape", [(1, 1), (7, 9), (9, 7), (65, 64), (3, 33, 31), (2, 0, 5)])
@pytest.mark.parametrize("k", [0, 1, -2, 100, -100])
def test_tril_triu_against_numpy(shape, k):
    x = sample(int(np.prod(shape))).reshape(shape)
    x.flat[:: max(1, x.size // 5)] = np.inf  # kept where selected, zeroed elsewhere
    t = fg.from_numpy(x)
    np.testing.assert_array_equal(t.tril(k).numpy(), np.tril(x, k))
    np.testing.assert_array_equal(t.triu(k).numpy(), np.triu(x, k))
    if len(shape) == 2 and shape[0] > 1:  # a transposed (strided) input
        np.testing.assert_array_equal(t.t().tril(k).numpy(), np.tril(x.T, k))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_tril_dtypes_and_nan(dtype):
    x = (sample(8 * 8).reshape(8, 8) * 10).astype(dtype)
    np.testing.assert_array_equal(fg.from_numpy(x).tril().numpy(), np.tril(x))
    y = sample(6 * 6).reshape(6, 6)
    y[0, 5] = np.nan
    y[5, 0] = np.nan
    got = fg.from_numpy(y).tril().numpy()
    assert got[0, 5] == 0 and np.isnan(got[5, 0])


def test_tril_gradcheck():
    x = fg.from_numpy(np.linspace(-1, 1, 12).reshape(3, 4)).requires_grad_()
    assert gradcheck(lambda a: a.tril(1), (x,))
    assert gradcheck(lambda a: a.triu(-1), (x,))


def test_where_with_a_single_value_on_either_side():
    rng = np.random.default_rng(3)
    c = rng.random((2**16 + 3,)) < 0.5
    x = sample(2**16 + 3)
    tc, tx = fg.from_numpy(c), fg.from_numpy(x)
    zero = fg.zeros([], dtype=fg.float32)
    np.testing.assert_array_equal(fg.where(tc, tx, zero).numpy(), np.where(c, x, 0))
    np.testing.assert_array_equal(fg.where(tc, zero, tx).numpy(), np.where(c, 0, x))
    # broadcast condition, strided x, a Python number
    c2 = rng.random((1, 33)) < 0.5
    x2 = sample(40 * 33).reshape(33, 40)
    got = fg.where(fg.from_numpy(c2), fg.from_numpy(x2).t(), 2.5).numpy()
    np.testing.assert_array_equal(got, np.where(c2, x2.T, np.float32(2.5)))
    # both single values, empty shapes
    assert fg.where(tc, fg.ones([]), zero).numpy().sum() == c.sum()
    empty = fg.where(fg.from_numpy(np.zeros((0, 3), bool)), fg.ones([0, 3]), zero)
    assert list(empty.shape) == [0, 3]


@pytest.mark.parametrize("n", [1, 7, 65, 65537])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_, np.complex64])
def test_where_on_three_dense_operands(n, dtype):
    # all three contiguous and of the output's shape: the one-pass select
    rng = np.random.default_rng(n)
    c = rng.random(n) < 0.5
    x = rng.normal(size=n).astype(dtype)
    y = rng.normal(size=n).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        x[::3] = np.nan
    got = fg.where(fg.tensor(c), fg.tensor(x), fg.tensor(y)).numpy()
    np.testing.assert_array_equal(got, np.where(c, x, y))
    # the same values through a non-dense operand (the general path)
    got2 = fg.where(fg.tensor(c), fg.tensor(np.stack([x, x], 1))[:, 0], fg.tensor(y)).numpy()
    np.testing.assert_array_equal(got2, np.where(c, x, y))
