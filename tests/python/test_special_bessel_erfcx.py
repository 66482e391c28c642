"""The special functions added to the unary op table (``src/op_defs/unary_math.rs``):
``i0`` / ``i0e`` / ``i1`` / ``i1e`` (modified Bessel functions of the first kind) and
``erfcx`` (the scaled complementary error function). Values against PyTorch's float64
kernels (computed once with torch 2.x and hard-coded here) and against series formulas,
float32 against float64, gradients with gradcheck/gradgradcheck, edge cases and names."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

XS = [-50.0, -3.5, -0.5, 0.0, 0.25, 1.0, 2.5, 7.0, 19.5, 20.5, 35.0, 100.0, 700.0]
# torch.special.<op>(torch.tensor(XS, dtype=torch.float64)) with torch 2.x
TORCH = {
    "i0": [2.9325537838493355e20, 7.3782034322254795, 1.0634833707413236, 1.0,
           1.015686141223608, 1.2660658777520082, 3.289839144050123, 168.59390851028968,
           26760525.339838758, 70922869.83431698, 107338818494514.08, 1.0737517071310738e42,
           1.5295933476718735e302],
    "i0e": [0.056561626647454184, 0.22280243801077917, 0.6450352704491501, 1.0,
            0.7910171621397194, 0.46575960759364043, 0.27004644161220276,
            0.15373774467288123, 0.09093943209515647, 0.08866442901574523,
            0.06767837835041363, 0.03994437929909668, 0.015081295651531355],
    "i1": [-2.9030785901035566e20, -6.205834922258364, -0.25789430539089636, 0.0,
           0.12597910894546793, 0.5651591039924851, 2.5167162452886984, 156.03909286995534,
           26065069.264457162, 69170831.67918436, 105794126051896.27, 1.0683693903381625e42,
           1.5285003902339006e302],
    "i1e": [-0.055993123892895395, -0.18739997660304997, -0.15642080318487173, 0.0,
            0.09811262869736825, 0.2079104153497085, 0.20658464953126654, 0.1422892347095986,
            0.08857608609431485, 0.08647411349408725, 0.06670443172949143,
            0.03974415302513025, 0.015070519444716846],
}  # fmt: skip
XE = [-30.0, -26.0, -5.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 3.0, 10.0, 24.9, 25.1, 100.0]
XE += [1e6, 1e10, math.inf]
ERFCX = [math.inf, 7.657724931490568e293, 144009798674.66104, 5.008980080762283,
         1.001129379919849, 1.0, 0.9988726200811509, 0.6156903441929258, 0.427583576155807,
         0.17900115118138998, 0.05614099274382259, 0.022639987776049506,
         0.02245987581758139, 0.005641613782989433, 5.641895835474742e-07,
         5.641895835477563e-11, 0.0]  # fmt: skip
BESSEL = ["i0", "i0e", "i1", "i1e"]


@pytest.mark.parametrize("op", BESSEL)
def test_bessel_values_match_torch_in_float64(op):
    got = getattr(fg.special, op)(fg.tensor(XS, dtype="float64")).numpy()
    np.testing.assert_allclose(got, TORCH[op], rtol=1e-13, atol=0)


def _series(x, nu):
    """``sum_k (x/2)^(2k+nu) / (k! (k+nu)!)`` with ``math.fsum`` (the definition)."""
    return math.fsum((x / 2) ** (2 * k + nu) / (math.factorial(k) * math.factorial(k + nu))
                     for k in range(80))  # fmt: skip


def test_bessel_values_match_the_power_series():
    xs = np.linspace(-12.0, 12.0, 49)
    t = fg.tensor(xs)
    np.testing.assert_allclose(fg.i0(t).numpy(), [_series(x, 0) for x in xs], rtol=1e-14)
    np.testing.assert_allclose(t.i1().numpy(), [_series(x, 1) for x in xs], rtol=1e-14)
    np.testing.assert_allclose(
        t.i0e().numpy(), [_series(x, 0) * math.exp(-abs(x)) for x in xs], rtol=1e-14
    )
    np.testing.assert_allclose(
        t.i1e().numpy(), [_series(x, 1) * math.exp(-abs(x)) for x in xs], rtol=1e-14
    )


@pytest.mark.parametrize("op", [*BESSEL, "erfcx"])
def test_float32_follows_float64_and_integers_promote(op):
    xs = np.array([-6.0, -1.25, 0.0, 0.5, 3.0, 9.0])
    f = getattr(fg.special, op)
    y32 = f(fg.tensor(xs, dtype="float32"))
    assert y32.dtype == fg.float32
    np.testing.assert_allclose(y32.numpy(), f(fg.tensor(xs)).numpy(), rtol=2e-6)
    yi = getattr(fg, op)(fg.tensor([1, 2], dtype="int64"))  # (default float dtype)
    assert yi.dtype == fg.float32
    np.testing.assert_allclose(yi.numpy(), f(fg.tensor([1.0, 2.0])).numpy(), rtol=1e-6)


def test_bessel_edge_cases():
    t = fg.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 800.0], dtype="float64")
    np.testing.assert_array_equal(t.i0().numpy(), [math.inf, math.inf, math.nan, 1, 1, math.inf])
    np.testing.assert_array_equal(t.i0e().numpy()[:4], [0.0, 0.0, math.nan, 1.0])
    np.testing.assert_array_equal(t.i1().numpy()[:4], [math.inf, -math.inf, math.nan, 0.0])
    np.testing.assert_array_equal(t.i1e().numpy()[:4], [0.0, -0.0, math.nan, 0.0])
    assert math.isfinite(t.i0e().numpy()[5]) and math.isfinite(t.i1e().numpy()[5])
    assert fg.i0(fg.zeros([0, 3])).shape == [0, 3]


def test_erfcx_matches_torch_and_stays_finite_for_large_inputs():
    got = fg.special.erfcx(fg.tensor(XE, dtype="float64")).numpy()
    np.testing.assert_allclose(got, ERFCX, rtol=1e-13, atol=0)
    assert math.isnan(fg.tensor([math.nan]).erfcx().item())
    # the naive exp(x^2) * erfc(x) is inf * 0 here
    x = fg.tensor([30.0, 1e3], dtype="float64")
    naive = (x * x).exp() * x.erfc()
    assert not np.isfinite(naive.numpy()).all()
    np.testing.assert_allclose(
        x.erfcx().numpy(), [0.018795888861416754, 0.0005641893014533876], rtol=1e-12
    )
    # against exp(x^2) erfc(x) where that product is exact enough
    xs = np.linspace(-4, 4, 33)
    want = [math.exp(v * v) * math.erfc(v) for v in xs]
    np.testing.assert_allclose(fg.tensor(xs).erfcx().numpy(), want, rtol=1e-13)


@pytest.mark.parametrize("op", [*BESSEL, "erfcx"])
def test_gradcheck_and_gradgradcheck(op):
    f = getattr(fg.special, op)
    x = fg.tensor(np.array([-3.2, -0.7, 0.4, 1.9, 6.5]), requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_gradients_have_the_closed_forms():
    xs = np.array([-2.0, 0.0, 0.5, 3.0, 30.0])
    x = fg.tensor(xs, requires_grad=True)
    (g,) = fg.autograd.grad(fg.i0(x).sum(), [x])
    np.testing.assert_allclose(g.numpy(), fg.i1(fg.tensor(xs)).numpy(), rtol=1e-14)
    (g,) = fg.autograd.grad(fg.special.i1(x).sum(), [x])
    assert g.numpy()[1] == 0.5  # (i0(0) - lim i1(x)/x = 1 - 1/2)
    (g,) = fg.autograd.grad(fg.special.i1e(x).sum(), [x])
    assert g.numpy()[1] == 0.5
    (g,) = fg.autograd.grad(fg.special.erfcx(x).sum(), [x])
    e = fg.tensor(xs).erfcx().numpy()
    np.testing.assert_allclose(g.numpy(), 2 * xs * e - 2 / math.sqrt(math.pi), rtol=1e-9)


@pytest.mark.parametrize("op", [*BESSEL, "erfcx"])
def test_bad_dtypes_raise(op):
    with pytest.raises(TypeError, match=op):
        getattr(fg.Tensor, op)(fg.tensor([1 + 2j]))


def test_names_in_both_dialects():
    x = fg.tensor([0.5, 1.5])
    for op in BESSEL:
        np.testing.assert_array_equal(getattr(fg, op)(x).numpy(), getattr(x, op)().numpy())
        assert op in fg.special.__all__
    assert fg.special.i0 is not None and "erfcx" in fg.special.__all__
