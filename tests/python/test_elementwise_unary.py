"""Elementwise unary math ops against NumPy (float64, low precision, integers, complex,
special values) with first/second-order gradients; clip/clamp; gradients through chains
of elementwise ops."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from elementwise_support import RNG, _erf, away_from_zero, f64

# ---------------------------------------------------------------------------------------
# unary ops
# ---------------------------------------------------------------------------------------


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def _gelu(a):
    return 0.5 * a * (1.0 + _erf(a / math.sqrt(2.0)))


# name -> (NumPy / math reference, domain, smooth: check second order)
#   domains: "any" N(0, 1.5); "positive" [0.2, 4]; "nonzero" |x| in [0.3, 3];
#   "small" [-1.2, 1.2]; "offgrid" away from integers and half-integers
UNARY = {
    "neg": (np.negative, "any", True),
    "negative": (np.negative, "any", True),
    "abs": (np.abs, "nonzero", True),
    "sign": (np.sign, "nonzero", True),
    "exp": (np.exp, "any", True),
    "log": (np.log, "positive", True),
    "log1p": (np.log1p, "positive", True),
    "expm1": (np.expm1, "any", True),
    "sqrt": (np.sqrt, "positive", True),
    "rsqrt": (lambda a: 1.0 / np.sqrt(a), "positive", True),
    "square": (np.square, "any", True),
    "reciprocal": (np.reciprocal, "nonzero", True),
    "sin": (np.sin, "any", True),
    "cos": (np.cos, "any", True),
    "tan": (np.tan, "small", True),
    "tanh": (np.tanh, "any", True),
    "sigmoid": (_sigmoid, "any", True),
    "relu": (lambda a: np.maximum(a, 0.0), "nonzero", True),
    "gelu": (_gelu, "any", True),
    "softplus": (lambda a: np.logaddexp(0.0, a), "any", True),
    "erf": (_erf, "any", True),
    "floor": (np.floor, "offgrid", True),
    "ceil": (np.ceil, "offgrid", True),
    "round": (np.round, "offgrid", True),
}


def unary_input(domain, shape=(3, 4)):
    if domain == "positive":
        return RNG.uniform(0.2, 4.0, shape)
    if domain == "nonzero":
        return away_from_zero(shape, 0.3, 3.0)
    if domain == "small":
        return RNG.uniform(-1.2, 1.2, shape)
    if domain == "offgrid":
        return RNG.integers(-5, 5, shape) + RNG.choice([0.15, 0.35, 0.65, 0.85], shape)
    return RNG.standard_normal(shape) * 1.5


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values_float64(name):
    ref, domain, _ = UNARY[name]
    a = unary_input(domain)
    for fn in (lambda t: getattr(t, name)(), lambda t: getattr(fg, name)(t)):
        out = fn(f64(a))
        assert out.dtype == fg.float64
        assert out.shape == a.shape
        np.testing.assert_allclose(out.numpy(), ref(a), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values_low_precision(name, dtype):
    ref, domain, _ = UNARY[name]
    tol = {"float32": 2e-6, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
    t = fg.tensor(unary_input(domain), dtype=dtype)
    a = t.numpy().astype(np.float64)  # the rounded inputs
    out = getattr(t, name)()
    assert out.dtype == getattr(fg, dtype)
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref(a), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_grad(name):
    _, domain, smooth = UNARY[name]
    a = unary_input(domain)
    check_grad(lambda t: getattr(t, name)(), a, second_order=smooth)


def test_unary_known_derivatives():
    a = np.array([-1.5, -0.2, 0.4, 2.0])
    x = f64(a).requires_grad_()
    cases = {
        "sigmoid": _sigmoid(a) * (1 - _sigmoid(a)),
        "tanh": 1 - np.tanh(a) ** 2,
        "softplus": _sigmoid(a),
        "erf": 2 / math.sqrt(math.pi) * np.exp(-(a**2)),
        "gelu": 0.5 * (1 + _erf(a / math.sqrt(2)))
        + a * np.exp(-(a**2) / 2) / math.sqrt(2 * math.pi),
        "relu": (a > 0).astype(np.float64),
        "abs": np.sign(a),
        "sign": np.zeros_like(a),
        "floor": np.zeros_like(a),
        "round": np.zeros_like(a),
    }
    for name, expected in cases.items():
        (g,) = fg.grad(getattr(x, name)().sum(), [x])
        np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12, atol=1e-15, err_msg=name)


def test_round_half_to_even():
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997, -3.7, 4.2])
    np.testing.assert_array_equal(f64(a).round().numpy(), np.round(a))
    np.testing.assert_array_equal(
        fg.tensor([-2.5, 0.5, 1.5, 2.5]).round().numpy(), np.array([-2.0, 0.0, 2.0, 2.0])
    )
    assert fg.tensor([2.5], dtype="float16").round().item() == 2.0


def test_unary_numerical_stability():
    out = fg.tensor([-1000.0, 1000.0, 0.0]).sigmoid().numpy()
    np.testing.assert_array_equal(out, [0.0, 1.0, 0.5])
    sp = fg.tensor([-1000.0, 1000.0, 100.0], dtype="float64").softplus().numpy()
    np.testing.assert_allclose(sp, [0.0, 1000.0, 100.0])
    tiny = np.array([1e-10, -3e-12])
    np.testing.assert_allclose(f64(tiny).log1p().numpy(), np.log1p(tiny), rtol=1e-15)
    np.testing.assert_allclose(f64(tiny).expm1().numpy(), np.expm1(tiny), rtol=1e-15)
    x = fg.tensor([-1000.0, 1000.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.sigmoid().sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    (g,) = fg.grad(x.softplus().sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [0.0, 1.0])


def test_unary_special_values():
    np.testing.assert_array_equal(f64([-1.0, 0.0, 1.0]).log().numpy(), [np.nan, -np.inf, 0.0])
    np.testing.assert_array_equal(f64([0.0, -0.0, 3.0, -3.0]).sign().numpy(), [0, 0, 1, -1])
    assert np.isnan(f64([np.nan]).sign().numpy()).all()
    assert np.isnan(f64([-1.0]).sqrt().numpy()).all()
    x = fg.tensor([0.0, 4.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.sqrt().sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [np.inf, 0.25])


@pytest.mark.parametrize(
    ("name", "keeps_int"),
    [
        ("neg", True),
        ("abs", True),
        ("sign", True),
        ("square", True),
        ("relu", True),
        ("floor", True),
        ("ceil", True),
        ("round", True),
        ("exp", False),
        ("log", False),
        ("sqrt", False),
        ("sin", False),
        ("sigmoid", False),
        ("gelu", False),
        ("erf", False),
        ("reciprocal", False),
    ],
)
def test_unary_on_integer_tensors(name, keeps_int):
    a = np.array([1, 2, 3])
    out = getattr(fg.tensor(a), name)()
    assert out.dtype == (fg.int64 if keeps_int else fg.float32)
    ref = UNARY[name][0]
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref(a.astype(np.float64)), rtol=1e-6)


def test_complex_unary():
    z = np.array([1 + 1j, 3 - 4j])
    np.testing.assert_allclose(fg.tensor(z).abs().numpy(), np.abs(z), rtol=1e-12)
    assert fg.tensor(z).abs().dtype == fg.float64
    assert fg.tensor(z, dtype="complex64").abs().dtype == fg.float32
    assert fg.tensor([3 + 4j]).abs().item() == 5.0
    np.testing.assert_allclose(
        fg.tensor(z, dtype="complex128").exp().numpy(), np.exp(z), rtol=1e-12
    )


# ---------------------------------------------------------------------------------------
# clip / clamp
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lo", "hi"), [(-0.5, 0.5), (None, 0.2), (-0.2, None), (0.0, 0.0), (None, None)]
)
def test_clip_values(lo, hi):
    a = RNG.standard_normal((4, 5))
    expected = a if lo is None and hi is None else np.clip(a, lo, hi)
    for out in (
        f64(a).clip(lo, hi),
        f64(a).clamp(lo, hi),
        fg.clip(f64(a), lo, hi),
        fg.clamp(f64(a), min=lo, max=hi),
        f64(a).clip(min=lo, max=hi),
    ):
        assert out.dtype == fg.float64
        np.testing.assert_array_equal(out.numpy(), expected)


def test_clip_aliases_and_ints():
    a = np.array([-3.0, 0.5, 5.0])
    np.testing.assert_array_equal(f64(a).clamp_min(0.0).numpy(), [0.0, 0.5, 5.0])
    np.testing.assert_array_equal(f64(a).clamp_max(1.0).numpy(), [-3.0, 0.5, 1.0])
    out = fg.tensor([1, 5, -3]).clip(0, 2)
    assert out.dtype == fg.int64
    assert out.tolist() == [1, 2, 0]


def test_clip_grad():
    a = np.array([-2.0, -0.3, 0.1, 0.4, 1.7])
    check_grad(lambda t: t.clip(-0.5, 0.5), a, second_order=True)
    check_grad(lambda t: t.clamp(min=0.0), a)
    x = f64(a).requires_grad_()
    (g,) = fg.grad(x.clip(-0.5, 0.5).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [0.0, 1.0, 1.0, 1.0, 0.0])


# ---------------------------------------------------------------------------------------
# chains: gradients through several elementwise ops
# ---------------------------------------------------------------------------------------


def test_composite_expression_grad():
    a = RNG.uniform(0.5, 2.0, (3, 2))
    b = RNG.uniform(0.5, 2.0, (2,))

    def f(x, y):
        return (x * y).sin() + (x / y).exp() * (y**2).log() - fg.maximum(x, y).sqrt()

    check_grad(f, a, b, second_order=True)


def test_same_tensor_used_twice():
    x = fg.tensor([3.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad((x * x + x).sum(), [x])
    assert g.item() == 7.0
