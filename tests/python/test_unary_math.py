"""The unary ops of ``src/op_defs/unary_math.rs`` (and the ``absolute``/``sgn`` names):
values against NumPy in float64 and float32, gradients by gradcheck and gradgradcheck,
integer and bool input, both dialects' names."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
# name -> (NumPy reference, a sampler of points inside the domain, differentiable)
OPS = {
    "asin": (np.arcsin, lambda n: RNG.uniform(-0.9, 0.9, n), True),
    "acos": (np.arccos, lambda n: RNG.uniform(-0.9, 0.9, n), True),
    "atan": (np.arctan, lambda n: RNG.uniform(-3, 3, n), True),
    "sinh": (np.sinh, lambda n: RNG.uniform(-3, 3, n), True),
    "cosh": (np.cosh, lambda n: RNG.uniform(-3, 3, n), True),
    "asinh": (np.arcsinh, lambda n: RNG.uniform(-3, 3, n), True),
    "acosh": (np.arccosh, lambda n: RNG.uniform(1.1, 4, n), True),
    "atanh": (np.arctanh, lambda n: RNG.uniform(-0.9, 0.9, n), True),
    "log2": (np.log2, lambda n: RNG.uniform(0.1, 5, n), True),
    "log10": (np.log10, lambda n: RNG.uniform(0.1, 5, n), True),
    "exp2": (np.exp2, lambda n: RNG.uniform(-3, 3, n), True),
    "erfc": (None, lambda n: RNG.uniform(-3, 3, n), True),
    "trunc": (np.trunc, lambda n: RNG.uniform(-3, 3, n), False),
    "frac": (lambda a: a - np.trunc(a), lambda n: RNG.uniform(-3, 3, n) + 0.05, True),
    "deg2rad": (np.deg2rad, lambda n: RNG.uniform(-360, 360, n), True),
    "rad2deg": (np.rad2deg, lambda n: RNG.uniform(-7, 7, n), True),
}
ALIASES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "fix": "trunc",
    "absolute": "abs",
    "sgn": "sign",
}


def _erfc(a):
    import math

    return np.vectorize(math.erfc)(a)


@pytest.mark.parametrize("name", sorted(OPS))
def test_values_match_numpy(name):
    ref, sample, _ = OPS[name]
    ref = ref or _erfc
    a = sample((3, 4))
    np.testing.assert_allclose(
        getattr(fg, name)(fg.tensor(a)).numpy(), ref(a), rtol=1e-13, atol=1e-14
    )
    got32 = getattr(fg.tensor(a.astype(np.float32)), name)()
    assert got32.dtype == fg.float32
    np.testing.assert_allclose(got32.numpy(), ref(a.astype(np.float32)), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(n for n, v in OPS.items() if v[2]))
def test_gradients_first_and_second_order(name):
    _, sample, _ = OPS[name]
    x = fg.tensor(sample(5), requires_grad=True)
    fn = getattr(fg, name)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_piecewise_constant_ops_have_zero_gradient():
    x = fg.tensor([-1.5, 0.5, 2.7], dtype=fg.float64, requires_grad=True)
    fg.trunc(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_integer_and_bool_input():
    i = fg.tensor([-2, 0, 3])
    assert fg.asin(fg.tensor([0, 1])).dtype == fg.float32  # integers compute in the default float
    assert fg.trunc(i).tolist() == [-2, 0, 3] and fg.trunc(i).dtype == fg.int64
    assert fg.frac(i).tolist() == [0, 0, 0] and fg.frac(i).dtype == fg.int64
    assert fg.signbit(i).tolist() == [True, False, False]
    assert fg.signbit(fg.tensor([-0.0, 0.0, -1.0, float("nan")])).tolist() == [
        True,
        False,
        True,
        False,
    ]
    assert fg.signbit(fg.tensor([True])).tolist() == [False]
    with pytest.raises(TypeError, match="asin"):
        fg.asin(fg.tensor([1j]))


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_second_names(alias, name):
    x = fg.tensor([1.5, 2.25] if name == "acosh" else [-0.5, 0.25], dtype=fg.float64)
    assert getattr(fg, alias)(x).tolist() == getattr(fg, name)(x).tolist()
    assert getattr(x, alias)().tolist() == getattr(x, name)().tolist()


def test_edge_values():
    assert np.isnan(fg.asin(fg.tensor([2.0])).item())
    assert fg.atanh(fg.tensor([1.0])).item() == float("inf")
    assert fg.log2(fg.tensor([0.0])).item() == float("-inf")
    assert fg.erfc(fg.tensor([30.0], dtype=fg.float64)).item() == 0.0
    assert fg.erfc(fg.tensor([-30.0], dtype=fg.float64)).item() == 2.0
    assert fg.erfc(fg.tensor([5.0], dtype=fg.float64)).item() == pytest.approx(
        1.5374597944280349e-12, rel=1e-14
    )
