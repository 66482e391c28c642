"""Elementwise binary ops: arithmetic, comparisons and logical ops (methods, module
functions, Python operators, reflected operators with Python scalars); values against
NumPy in float64 and gradients against finite differences (first and, where the op is
smooth, second order). Siblings: ``test_elementwise_promotion.py`` (dtype promotion and
broadcasting), ``test_elementwise_unary.py`` (unary math, clip, chains)."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from elementwise_support import RNG, away_from_zero, f64

# ---------------------------------------------------------------------------------------
# binary ops: values and gradients
# ---------------------------------------------------------------------------------------

# name -> (ferrograd spellings, NumPy reference, input domain, smooth?)
#   domain "any": a, b ~ N(0, 1); "b_nonzero": |b| >= 0.5; "a_positive": a in [0.5, 3]
BINARY = {
    "add": (["add", "+"], np.add, "any", True),
    "subtract": (["subtract", "sub", "-"], np.subtract, "any", True),
    "multiply": (["multiply", "mul", "*"], np.multiply, "any", True),
    "divide": (["divide", "div", "true_divide", "/"], np.divide, "b_nonzero", True),
    "pow": (["pow", "**"], np.power, "a_positive", True),
    "maximum": (["maximum"], np.maximum, "any", False),
    "minimum": (["minimum"], np.minimum, "any", False),
    "remainder": (["remainder", "mod", "%"], np.remainder, "b_nonzero", False),
    "floor_divide": (["floor_divide", "//"], np.floor_divide, "b_nonzero", False),
}

OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}


def spelled(spelling):
    """The op as a function of two tensors: a Python operator, a method, or a module
    function (both are checked for method names)."""
    if spelling in OPERATORS:
        return [OPERATORS[spelling]]
    return [
        lambda a, b: getattr(a, spelling)(b),
        lambda a, b: getattr(fg, spelling)(a, b),
    ]


def binary_inputs(domain, sa, sb):
    if domain == "a_positive":
        return RNG.uniform(0.5, 3.0, sa), RNG.standard_normal(sb)
    a = RNG.standard_normal(sa) * 2
    b = away_from_zero(sb) if domain == "b_nonzero" else RNG.standard_normal(sb)
    return a, b


BROADCAST_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((5,), ()),
    ((1,), (2, 2)),
]


@pytest.mark.parametrize(("sa", "sb"), BROADCAST_SHAPES)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_values_match_numpy(name, sa, sb):
    spellings, ref, domain, _ = BINARY[name]
    a, b = binary_inputs(domain, sa, sb)
    expected = ref(a, b)
    for spelling in spellings:
        for fn in spelled(spelling):
            out = fn(f64(a), f64(b))
            assert out.dtype == fg.float64
            assert out.shape == expected.shape
            np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("sa", "sb"), BROADCAST_SHAPES)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow"])
def test_binary_grad_second_order(name, sa, sb):
    spellings, _, domain, _ = BINARY[name]
    a, b = binary_inputs(domain, sa, sb)
    for spelling in spellings[:1] + spellings[-1:]:
        check_grad(spelled(spelling)[0], a, b, second_order=True)


@pytest.mark.parametrize(("sa", "sb"), BROADCAST_SHAPES)
@pytest.mark.parametrize("name", ["maximum", "minimum", "remainder"])
def test_binary_grad_piecewise(name, sa, sb):
    spellings = BINARY[name][0]
    # inputs that keep every broadcast pair away from the kinks: a = m + 1/2 (m integer)
    # against b = +-2, +-4 (a/b is never within 1/8 of an integer, so the remainder does
    # not jump), and against b = k + 1/4 (no ties for maximum/minimum)
    a = RNG.integers(-5, 5, sa) + 0.5
    if name == "remainder":
        b = RNG.choice([-4.0, -2.0, 2.0, 4.0], sb)
    else:
        b = RNG.integers(-5, 5, sb) + 0.25
    check_grad(spelled(spellings[-1])[0], np.asarray(a), np.asarray(b))


def test_maximum_minimum_ties_split_gradient():
    x = fg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    y = fg.tensor([1.0, 5.0, 3.0], dtype="float64", requires_grad=True)
    gx, gy = fg.grad(fg.maximum(x, y).sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(gy.numpy(), [0.5, 1.0, 0.5])
    gx, gy = fg.grad(fg.minimum(x, y).sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.5, 1.0, 0.5])
    np.testing.assert_array_equal(gy.numpy(), [0.5, 0.0, 0.5])


def test_maximum_minimum_propagate_nan_and_ints():
    out = fg.maximum(fg.tensor([np.nan, 1.0]), fg.tensor([0.0, np.nan])).numpy()
    assert np.isnan(out).all()
    assert fg.minimum(fg.tensor([1, 5]), fg.tensor([3, 2])).tolist() == [1, 2]
    assert fg.maximum(fg.tensor([1, 5]), fg.tensor([3, 2])).dtype == fg.int64
    np.testing.assert_array_equal(fg.maximum(f64([0.2, 0.7]), 0.5).numpy(), [0.5, 0.7])


def test_remainder_gradient_wrt_divisor():
    x = fg.tensor([7.0, -7.0], dtype="float64", requires_grad=True)
    y = fg.tensor([2.0, 2.0], dtype="float64", requires_grad=True)
    gx, gy = fg.grad((x % y).sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(gy.numpy(), [-3.0, 4.0])


def test_floor_divide_and_remainder_follow_python_signs():
    a = np.array([-7.0, -3.5, 3.5, 7.0])
    b = np.array([2.0, 2.0, -2.0, -2.0])
    np.testing.assert_array_equal((f64(a) // f64(b)).numpy(), np.floor_divide(a, b))
    np.testing.assert_array_equal((f64(a) % f64(b)).numpy(), np.remainder(a, b))
    ai = fg.tensor([-7, -3, 3, 7])
    bi = fg.tensor([2, 2, -2, -2])
    assert (ai // bi).tolist() == [-4, -2, -2, -4]
    assert (ai % bi).tolist() == [1, 1, -1, -1]
    assert (ai // bi).dtype == fg.int64
    assert (fg.tensor(-5) // 2).item() == -3
    assert (fg.tensor(-5) % 3).item() == 1
    assert (7 // fg.tensor(2)).item() == 3
    assert (7 % fg.tensor(-2)).item() == -1


def test_floor_divide_is_not_differentiable():
    x = fg.tensor([7.0], requires_grad=True)
    assert not (x // 2.0).requires_grad


def test_pow_special_points():
    x = fg.tensor([0.0, 2.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad((x**2).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [0.0, 4.0])
    x = fg.tensor([0.0, 2.0], dtype="float64", requires_grad=True)
    y = fg.tensor([3.0, 2.0], dtype="float64", requires_grad=True)
    gx, gy = fg.grad((x**y).sum(), [x, y])
    np.testing.assert_allclose(gx.numpy(), [0.0, 4.0])
    np.testing.assert_allclose(gy.numpy(), [0.0, 4.0 * math.log(2.0)])
    assert fg.pow(f64([2.0]), 3).item() == 8.0
    assert (fg.tensor([2, 3]) ** 2).tolist() == [4, 9]


def test_pow_base_gradient_at_zero_exponent_is_zero():
    # d(x ** y)/dx = y * x ** (y - 1) is 0 where y == 0, also at x == 0 (PyTorch's
    # test_pow_zero_tensor_gradient); the unmasked formula gives 0 * inf = NaN
    x = fg.tensor([0.0, 0.0, 2.0], dtype="float64", requires_grad=True)
    y = fg.tensor([0.0, 1.0, 0.0], dtype="float64", requires_grad=True)
    gx, gy = fg.grad((x**y).sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 1.0, 0.0])
    np.testing.assert_allclose(gy.numpy(), [0.0, 0.0, math.log(2.0)])
    (g0,) = fg.grad((x**0.0).sum(), [x])
    np.testing.assert_array_equal(g0.numpy(), [0.0, 0.0, 0.0])
    # second order through the mask stays finite
    (g,) = fg.grad((x**y).sum(), [x], create_graph=True)
    (gg,) = fg.grad(g.sum(), [x], allow_unused=True)
    assert gg is None or np.isfinite(gg.numpy()).all()


# ---------------------------------------------------------------------------------------
# comparisons and logical ops
# ---------------------------------------------------------------------------------------

COMPARISONS = {
    "equal": (["equal", "eq", "=="], np.equal),
    "not_equal": (["not_equal", "ne", "!="], np.not_equal),
    "less_than": (["less_than", "lt", "<"], np.less),
    "less_equal": (["less_equal", "le", "<="], np.less_equal),
    "greater_than": (["greater_than", "gt", ">"], np.greater),
    "greater_equal": (["greater_equal", "ge", ">="], np.greater_equal),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
@pytest.mark.parametrize("name", list(COMPARISONS))
def test_comparisons(name, dtype):
    spellings, ref = COMPARISONS[name]
    a = RNG.integers(-2, 3, (3, 4)).astype(dtype)
    b = RNG.integers(-2, 3, (4,)).astype(dtype)
    expected = ref(a, b)
    for spelling in spellings:
        for fn in spelled(spelling):
            out = fn(fg.tensor(a), fg.tensor(b))
            assert out.dtype == fg.bool
            np.testing.assert_array_equal(out.numpy(), expected)
    # against Python scalars, both orders
    np.testing.assert_array_equal((fg.tensor(a) < 1).numpy(), a < 1)
    np.testing.assert_array_equal((1 < fg.tensor(a)).numpy(), 1 < a)
    np.testing.assert_array_equal((fg.tensor(a) == 0.5).numpy(), a == 0.5)


def test_comparisons_are_not_differentiable_and_mix_dtypes():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    assert not (x > 1.5).requires_grad
    assert (fg.tensor([1, 2]) != fg.tensor([1.0, 2.5])).tolist() == [False, True]
    assert (fg.tensor([1 + 1j, 2]) == fg.tensor([1 + 1j, 3])).tolist() == [True, False]
    assert (fg.tensor([1.0]) == None) is False  # noqa: E711
    assert (fg.tensor([1.0]) != None) is True  # noqa: E711


LOGICAL = {
    "logical_and": (["logical_and", "&"], np.logical_and),
    "logical_or": (["logical_or", "|"], np.logical_or),
    "logical_xor": (["logical_xor", "^"], np.logical_xor),
}


@pytest.mark.parametrize("name", list(LOGICAL))
def test_logical_ops_on_bool(name):
    spellings, ref = LOGICAL[name]
    a = np.array([[True, False], [True, True]])
    b = np.array([False, True])
    for spelling in spellings:
        for fn in spelled(spelling):
            out = fn(fg.tensor(a), fg.tensor(b))
            assert out.dtype == fg.bool
            np.testing.assert_array_equal(out.numpy(), ref(a, b))
    # with a Python bool, both orders for the operator form
    op = OPERATORS[spellings[-1]]
    np.testing.assert_array_equal(op(fg.tensor(a), True).numpy(), ref(a, True))
    np.testing.assert_array_equal(op(True, fg.tensor(a)).numpy(), ref(True, a))


@pytest.mark.parametrize("name", list(LOGICAL))
def test_logical_functions_on_numbers(name):
    _, ref = LOGICAL[name]
    a = np.array([1, 0, 2, 0])
    b = np.array([1.0, 1.0, 0.0, 0.0])
    out = getattr(fg, name)(fg.tensor(a), fg.tensor(b))
    assert out.dtype == fg.bool
    np.testing.assert_array_equal(out.numpy(), ref(a, b))


def test_logical_not_and_invert():
    np.testing.assert_array_equal(
        fg.logical_not(fg.tensor([0.0, 2.0, -1.0])).numpy(), [True, False, False]
    )
    np.testing.assert_array_equal(fg.tensor([True, False]).logical_not().numpy(), [False, True])
    np.testing.assert_array_equal((~fg.tensor([True, False])).numpy(), [False, True])


def test_bitwise_operators_on_int_tensors():
    a = np.array([1, 2, 3, 12])
    b = np.array([3, 1, 1, 10])
    assert (fg.tensor(a) & fg.tensor(b)).tolist() == (a & b).tolist()
    assert (fg.tensor(a) | fg.tensor(b)).tolist() == (a | b).tolist()
    assert (fg.tensor(a) ^ fg.tensor(b)).tolist() == (a ^ b).tolist()


# ---------------------------------------------------------------------------------------
# reflected operators and Python scalars
# ---------------------------------------------------------------------------------------

SCALAR_FORMS = {
    "2 * x": (lambda x: 2 * x, lambda a: 2 * a),
    "x * 2": (lambda x: x * 2, lambda a: a * 2),
    "x + 1.5": (lambda x: x + 1.5, lambda a: a + 1.5),
    "1.5 + x": (lambda x: 1.5 + x, lambda a: 1.5 + a),
    "1 - x": (lambda x: 1 - x, lambda a: 1 - a),
    "x - 1": (lambda x: x - 1, lambda a: a - 1),
    "x / 4": (lambda x: x / 4, lambda a: a / 4),
    "3 / x": (lambda x: 3 / x, lambda a: 3 / a),
    "x ** 2": (lambda x: x**2, lambda a: a**2),
    "x ** 3": (lambda x: x**3, lambda a: a**3),
    "x ** 0.5": (lambda x: x**0.5, lambda a: a**0.5),
    "x ** -1": (lambda x: x**-1, lambda a: a**-1.0),
    "2 ** x": (lambda x: 2**x, lambda a: 2**a),
    "0.5 ** x": (lambda x: 0.5**x, lambda a: 0.5**a),
    "-x": (lambda x: -x, lambda a: -a),
    "+x": (lambda x: +x, lambda a: +a),
    "abs(x)": (lambda x: abs(x), lambda a: abs(a)),
}


@pytest.mark.parametrize("form", list(SCALAR_FORMS))
def test_python_scalar_forms(form):
    fn, ref = SCALAR_FORMS[form]
    a = RNG.uniform(0.5, 3.0, (2, 3))
    out = fn(f64(a))
    assert out.dtype == fg.float64
    np.testing.assert_allclose(out.numpy(), ref(a), rtol=1e-12)
    check_grad(fn, a, second_order=True)
    out32 = fn(fg.tensor(a.astype(np.float32)))
    assert out32.dtype == fg.float32
    np.testing.assert_allclose(out32.numpy(), ref(a.astype(np.float32)), rtol=1e-6)


def test_scalar_gradients_exact_values():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad((2 * x).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])
    (g,) = fg.grad((1 - x).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [-1.0, -1.0])
    (g,) = fg.grad((x**2).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    (gg,) = fg.grad(g.sum(), [x])
    np.testing.assert_array_equal(gg.numpy(), [2.0, 2.0])
    (g,) = fg.grad((2**x).sum(), [x])
    np.testing.assert_allclose(g.numpy(), [2 * math.log(2), 4 * math.log(2)])


def test_numpy_array_on_the_left_defers_to_tensor():
    t = fg.tensor([1.0, 2.0], requires_grad=True)
    out = np.array([3.0, 4.0]) * t
    assert isinstance(out, fg.Tensor)
    assert out.dtype == fg.float64
    np.testing.assert_array_equal(out.detach().numpy(), [3.0, 8.0])
    assert out.requires_grad
    assert isinstance(np.ones(2) + t, fg.Tensor)


def test_list_operand_is_converted():
    np.testing.assert_array_equal((fg.ones(3) + [1, 2, 3]).numpy(), [2, 3, 4])


def test_unsupported_operand_returns_not_implemented():
    with pytest.raises(TypeError, match="unsupported operand"):
        fg.ones(2) + "a"
    with pytest.raises(TypeError, match="unsupported operand"):
        fg.ones(2) * None
