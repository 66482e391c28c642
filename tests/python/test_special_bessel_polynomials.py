"""``torch.special``'s Bessel functions beyond ``i0``/``i1`` (``bessel_j0/j1/y0/y1``,
``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1``,
``spherical_bessel_j0``), ``airy_ai`` and the orthogonal polynomials
(``chebyshev_polynomial_t/u/v/w``, the ``shifted_`` forms, ``hermite_polynomial_h/he``,
``laguerre_polynomial_l``, ``legendre_polynomial_p``), checked against SciPy in float64
and float32, at the edges (NaN, +-inf, 0, negative, large arguments and degrees) and by a
small hypothesis fuzzer (``FERROGRAD_FUZZ_EXAMPLES``, see fuzz_support.py).

The rules come from PyTorch's kernels (aten/src/ATen/native/Math.h,
``chebyshev_polynomial_t_forward`` and siblings: ``n`` truncated, ``n < 0`` gives 0,
``n == 0`` gives 1 whatever ``x``, closed values at ``|x| == 1``, Hermite NaN above degree
512 / 128 for float32) and derivatives.yaml (``special_bessel_j0`` ...
``special_legendre_polynomial_p``: ``non_differentiable``; here backward raises). This
module is PyTorch code (``torch = fg``)."""

from __future__ import annotations

import math

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.special as sc
from fuzz_support import CALLS, FUZZ
from hypothesis import given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's
S = fg.special
INF, NAN = math.inf, math.nan


def _u(n, x):
    n = np.asarray(n)
    return np.where(n >= 0, sc.eval_chebyu(np.maximum(n, 0), x), 0.0)


# reference of each polynomial in float64 (V_n = U_n - U_n-1, W_n = U_n + U_n-1)
POLY_REF = {
    "chebyshev_polynomial_t": lambda x, n: sc.eval_chebyt(n, x),
    "chebyshev_polynomial_u": lambda x, n: sc.eval_chebyu(n, x),
    "chebyshev_polynomial_v": lambda x, n: _u(n, x) - _u(n - 1, x),
    "chebyshev_polynomial_w": lambda x, n: _u(n, x) + _u(n - 1, x),
    "hermite_polynomial_h": lambda x, n: sc.eval_hermite(n, x),
    "hermite_polynomial_he": lambda x, n: sc.eval_hermitenorm(n, x),
    "laguerre_polynomial_l": lambda x, n: sc.eval_laguerre(n, x),
    "legendre_polynomial_p": lambda x, n: sc.eval_legendre(n, x),
}
for _k in ("t", "u", "v", "w"):
    POLY_REF[f"shifted_chebyshev_polynomial_{_k}"] = (
        lambda f: lambda x, n: f(2 * np.asarray(x, dtype=float) - 1, n)
    )(POLY_REF[f"chebyshev_polynomial_{_k}"])

BESSEL_REF = {
    "bessel_j0": sc.j0,
    "bessel_j1": sc.j1,
    "bessel_y0": sc.y0,
    "bessel_y1": sc.y1,
    "modified_bessel_i0": sc.i0,
    "modified_bessel_i1": sc.i1,
    "modified_bessel_k0": sc.k0,
    "modified_bessel_k1": sc.k1,
    "scaled_modified_bessel_k0": sc.k0e,
    "scaled_modified_bessel_k1": sc.k1e,
    "spherical_bessel_j0": lambda x: sc.spherical_jn(0, x),
    "airy_ai": lambda x: sc.airy(x)[0],
}

XS = np.array(
    [-150.0, -30.0, -12.5, -12.0, -11.9, -5.0, -2.0, -1.0, -0.3, -1e-300, 0.0, 1e-300,
     1e-8, 0.2, 0.49, 0.5, 0.99, 1.0, 1.01, 1.5, 2.0, 5.0, 10.0, 25.0, 49.0, 50.0, 100.0,
     200.0, 700.0, 1000.0]
)  # fmt: skip


def _close(got, ref, rtol, atol):
    arrays = [np.asarray(a, dtype=float) for a in (got, ref, atol)]
    got, ref, atol = (a.reshape(-1) for a in np.broadcast_arrays(*arrays))
    both_nan = np.isnan(got) & np.isnan(ref)
    same = got == ref
    err = np.abs(got - ref)
    with np.errstate(invalid="ignore"):
        ok = both_nan | same | (err <= rtol * np.abs(ref) + atol)
    return bool(ok.all()), [(i, g, r) for i, (g, r, k) in enumerate(zip(got, ref, ok)) if not k]


@pytest.mark.parametrize("name", sorted(BESSEL_REF))
def test_bessel_float64_matches_scipy(name):
    ref = BESSEL_REF[name](XS)
    got = getattr(S, name)(fg.tensor(XS, dtype=fg.float64)).numpy()
    # (libm's J/Y agree with mpmath to an ulp where SciPy's Cephes is 1e-13 off at 1e5:
    # the absolute term covers the oscillating functions near their zeros)
    ok, bad = _close(got, ref, 1e-12, 1e-15)
    assert ok, bad


@pytest.mark.parametrize("name", sorted(BESSEL_REF))
def test_bessel_float32_matches_scipy(name):
    x32 = XS.astype(np.float32)
    ref = BESSEL_REF[name](x32.astype(np.float64)).astype(np.float32)
    out = getattr(S, name)(fg.tensor(x32))
    assert out.dtype == fg.float32
    ok, bad = _close(out.numpy(), ref, 2e-6, 1e-37)
    assert ok, bad


def test_bessel_edges():
    t = fg.tensor([0.0, -1.0, INF, -INF, NAN], dtype=fg.float64)
    assert S.bessel_y0(t)[0].item() == -INF and S.bessel_y1(t)[0].item() == -INF
    assert math.isnan(S.bessel_y0(t)[1].item()) and math.isnan(S.bessel_y1(t)[1].item())
    assert S.modified_bessel_k0(t)[0].item() == INF
    assert math.isnan(S.modified_bessel_k1(t)[1].item())
    assert S.scaled_modified_bessel_k0(t)[2].item() == 0.0
    # the mathematical limits at +-inf (PyTorch's asymptotic forms give NaN there)
    for name in ("bessel_j0", "bessel_j1", "spherical_bessel_j0", "airy_ai"):
        v = getattr(S, name)(t).tolist()
        assert v[2] == 0.0 and v[3] == 0.0 and math.isnan(v[4]), (name, v)
    assert S.spherical_bessel_j0(t)[0].item() == 1.0
    # huge arguments: K0 e^x ~ sqrt(pi / 2x)
    big = fg.tensor([1e300], dtype=fg.float64)
    want = math.sqrt(math.pi / 2e300)
    assert abs(S.scaled_modified_bessel_k0(big).item() / want - 1) < 1e-14
    assert S.airy_ai(big).item() == 0.0


def test_bessel_dtype_promotion_and_out():
    ints = fg.tensor([1, 2, 3])
    assert S.bessel_j0(ints).dtype == fg.float32
    assert S.airy_ai(fg.tensor([True, False])).dtype == fg.float32
    out = fg.empty(3, dtype=fg.float32)
    r = S.modified_bessel_k1(ints, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), sc.k1([1, 2, 3]), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(POLY_REF))
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 9, 12, 25, 60])
def test_polynomials_float64_match_scipy(name, n):
    xs = np.array([-3.0, -1.0, -0.999, -0.7, -0.2, 0.0, 0.1, 0.3, 0.5, 0.75, 0.999, 1.0, 1.5, 4.0])
    ref = POLY_REF[name](xs, n)
    got = getattr(S, name)(fg.tensor(xs, dtype=fg.float64), n).numpy()
    # the scale of the terms that cancel: the polynomial's size at max(|x|, 1) or so
    scale = np.maximum(1.0, np.abs(POLY_REF[name](np.maximum(np.abs(xs), 1.0), n)))
    ok, bad = _close(got, ref, 1e-11, 1e-12 * (n + 1) * scale)
    assert ok, bad


@pytest.mark.parametrize("name", sorted(POLY_REF))
def test_polynomials_float32_and_number_operands(name):
    xs = np.array([-0.9, -0.2, 0.0, 0.3, 0.6, 1.0], dtype=np.float32)
    ref = POLY_REF[name](xs.astype(np.float64), 7)
    fn = getattr(S, name)
    got = fn(fg.tensor(xs), 7)
    assert got.dtype == fg.float32
    np.testing.assert_allclose(got.numpy(), ref, rtol=2e-5, atol=2e-5 * np.abs(ref).max())
    # n as a tensor broadcasting against x; x as a Python number with a tensor n
    ns = fg.tensor([[0], [1], [3]])
    both = fn(fg.tensor(xs, dtype=fg.float64), ns)
    assert list(both.shape) == [3, 6] and both.dtype == fg.float64
    for i, k in enumerate([0, 1, 3]):
        np.testing.assert_allclose(both[i].numpy(), POLY_REF[name](xs.astype(float), k), atol=1e-12)
    from_number = fn(0.25, fg.tensor([2, 3]))
    assert from_number.dtype == fg.float32  # integer n: the default float dtype
    np.testing.assert_allclose(
        from_number.numpy(), POLY_REF[name](0.25, np.array([2, 3])), rtol=1e-6
    )
    with pytest.raises(TypeError, match="Tensor"):
        fn(0.5, 3)


def test_polynomial_degree_rules():
    x = fg.tensor([NAN, 0.5, -2.0], dtype=fg.float64)
    T = S.chebyshev_polynomial_t
    assert T(x, -1).tolist() == [0.0, 0.0, 0.0]  # n < 0 (PyTorch's first check)
    assert T(x, 0).tolist() == [1.0, 1.0, 1.0]  # n == 0 whatever x
    # a non-integer degree truncates (PyTorch's static_cast<int64_t>)
    assert T(x, 2.9).tolist()[1:] == T(x, 2).tolist()[1:]
    assert all(math.isnan(v) for v in T(x, fg.tensor(NAN, dtype=fg.float64)).tolist())
    # |x| == 1 closed values
    ones = fg.tensor([1.0, -1.0], dtype=fg.float64)
    assert S.chebyshev_polynomial_u(ones, 5).tolist() == [6.0, -6.0]
    assert S.chebyshev_polynomial_v(ones, 5).tolist() == [1.0, -11.0]
    assert S.chebyshev_polynomial_w(ones, 5).tolist() == [11.0, -1.0]
    # +-inf: the signed infinity of the leading term (PyTorch's loop says NaN)
    infs = fg.tensor([INF, -INF], dtype=fg.float64)
    assert S.legendre_polynomial_p(infs, 3).tolist() == [INF, -INF]
    assert S.laguerre_polynomial_l(infs, 3).tolist() == [-INF, INF]
    assert S.hermite_polynomial_h(infs, 4).tolist() == [INF, INF]
    # Hermite above PyTorch's degree limit: NaN
    assert math.isnan(S.hermite_polynomial_h(fg.tensor([0.5], dtype=fg.float64), 513).item())
    assert math.isnan(S.hermite_polynomial_he(fg.tensor([0.5]), 129).item())
    # an overflow beyond the largest root is the signed infinity
    assert S.chebyshev_polynomial_t(fg.tensor([-3.0], dtype=fg.float64), 1001).item() == -INF
    # a huge Chebyshev degree outside [-1, 1] takes the closed form (no 1e15-step loop)
    assert S.chebyshev_polynomial_t(fg.tensor([1.5], dtype=fg.float64), 1e15).item() == INF


def test_not_differentiable():
    x = fg.tensor([0.5, 1.5], dtype=fg.float64, requires_grad=True)
    for y in (S.bessel_j0(x), S.airy_ai(x), S.chebyshev_polynomial_t(x, 3)):
        with pytest.raises(NotImplementedError, match="not differentiable"):
            y.sum().backward()
    # modified_bessel_i0 is i0 (differentiable: d i0 = i1)
    x.grad = None
    S.modified_bessel_i0(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), sc.i1([0.5, 1.5]), rtol=1e-13)


NAMES_1 = sorted(BESSEL_REF)
NAMES_2 = sorted(POLY_REF)


@FUZZ
@given(
    name=st.sampled_from(NAMES_1),
    dtype=st.sampled_from(["float32", "float64"]),
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=4),
        elements=st.one_of(
            st.floats(-60, 120, allow_nan=False), st.sampled_from([0.0, -0.0, INF, -INF, NAN])
        ),
    ),
)
def test_fuzz_bessel(name, dtype, x):
    CALLS[name] += 1
    xin = x.astype(dtype)
    got = getattr(S, name)(fg.tensor(xin, dtype=getattr(fg, dtype))).numpy().astype(float)
    ref = np.asarray(BESSEL_REF[name](xin.astype(float)), dtype=float)
    # PyTorch and ferrograd give the limits 0 at +-inf where SciPy says NaN
    ref = np.where(np.isinf(xin) & np.isnan(ref) & ~np.isnan(got), got, ref)
    if dtype == "float64":
        ok, bad = _close(got, ref, 1e-12, 1e-15)
    else:
        ok, bad = _close(got, ref.astype(np.float32), 2e-6, 1e-37)
    assert ok, (name, dtype, bad)


@FUZZ
@given(
    name=st.sampled_from(NAMES_2),
    n=st.integers(-3, 40),
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=4),
        elements=st.floats(-1.2, 1.2, allow_nan=False),
    ),
)
def test_fuzz_polynomials(name, n, x):
    CALLS[name] += 1
    got = getattr(S, name)(fg.tensor(x, dtype=fg.float64), n).numpy()
    ref = np.asarray(POLY_REF[name](x, n), dtype=float) if n >= 0 else np.zeros_like(x)
    big = np.maximum(1.0, np.abs(np.asarray(POLY_REF[name](np.full_like(x, 1.2), max(n, 0)))))
    ok, bad = _close(got, ref, 1e-10, 1e-12 * (abs(n) + 1) * big)
    assert ok, (name, n, bad)
