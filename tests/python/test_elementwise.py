"""Elementwise ops: binary arithmetic, comparisons and logical ops (methods, module
functions, Python operators, reflected operators with Python scalars), broadcasting,
dtype promotion, unary math ops and clip; values against NumPy in float64 and gradients
against finite differences (first and, where the op is smooth, second order)."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

RNG = np.random.default_rng(20240501)
_erf = np.vectorize(math.erf, otypes=[np.float64])

FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def f64(a):
    return fg.tensor(np.asarray(a, dtype=np.float64))


def away_from_zero(shape, lo=0.5, hi=3.0):
    mag = RNG.uniform(lo, hi, shape)
    return mag * RNG.choice([-1.0, 1.0], shape)


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


# ---------------------------------------------------------------------------------------
# dtype promotion
# ---------------------------------------------------------------------------------------

# Tensor-tensor promotion (PyTorch's rules, as NumPy 2 for these):
#   category order bool < integer < floating < complex; within a category the wider wins;
#   float16 + bfloat16 = float32; integer + floating = the floating type;
#   floating + complex = the complex type wide enough for both.
TENSOR_PROMOTION = [
    ("int32", "int64", "int64"),
    ("int32", "int32", "int32"),
    ("bool", "int32", "int32"),
    ("bool", "float16", "float16"),
    ("int64", "float32", "float32"),
    ("int32", "float16", "float16"),
    ("int64", "float64", "float64"),
    ("float16", "float32", "float32"),
    ("float16", "bfloat16", "float32"),
    ("bfloat16", "float32", "float32"),
    ("float32", "float64", "float64"),
    ("float32", "complex64", "complex64"),
    ("float64", "complex64", "complex128"),
    ("complex64", "complex128", "complex128"),
    ("int64", "complex64", "complex64"),
]


@pytest.mark.parametrize(("da", "db", "expected"), TENSOR_PROMOTION)
def test_tensor_tensor_promotion(da, db, expected):
    a = fg.tensor([1, 1], dtype=da)
    b = fg.tensor([1, 2], dtype=db)
    fns = [OPERATORS["+"], OPERATORS["*"], OPERATORS["-"]]
    if "complex" not in expected:
        fns.append(fg.maximum)  # complex tensors are not ordered
    for fn in fns:
        assert fn(a, b).dtype == getattr(fg, expected)
        assert fn(b, a).dtype == getattr(fg, expected)
    total = (a + b).numpy()
    np.testing.assert_array_equal(total.real if np.iscomplexobj(total) else total, [2, 3])


# Tensor-scalar promotion (weak scalars): the tensor's dtype, unless the scalar's category
# is higher; then int64 for an int, float32 for a float, complex64 (complex128 for a
# float64 tensor) for a complex.
SCALAR_PROMOTION = [
    ("int32", 2, "int32"),
    ("int32", True, "int32"),
    ("int32", 2.5, "float32"),
    ("int64", 2.5, "float32"),
    ("bool", 1, "int64"),
    ("bool", 1.5, "float32"),
    ("float16", 2.0, "float16"),
    ("bfloat16", 2.0, "bfloat16"),
    ("float16", 3, "float16"),
    ("float64", 2.5, "float64"),
    ("float32", 1j, "complex64"),
    ("float64", 1j, "complex128"),
    ("int64", 1j, "complex64"),
]


@pytest.mark.parametrize(("dt", "scalar", "expected"), SCALAR_PROMOTION)
def test_tensor_scalar_promotion(dt, scalar, expected):
    t = fg.tensor([1, 2], dtype=dt)
    assert (t * scalar).dtype == getattr(fg, expected)
    assert (scalar * t).dtype == getattr(fg, expected)
    assert (t + scalar).dtype == getattr(fg, expected)


def test_promotion_values():
    out = fg.tensor([1, 2], dtype="int32") * 2.5
    assert out.dtype == fg.float32
    np.testing.assert_array_equal(out.numpy(), [2.5, 5.0])
    h = fg.tensor([1.5], dtype="float16") * 2.0
    assert h.dtype == fg.float16
    assert h.item() == 3.0
    assert (fg.tensor([True]) + 1.5).tolist() == [2.5]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (fg.tensor([1, 2]), fg.tensor([2, 4]), "float32"),
        (fg.tensor([1, 2], dtype="int32"), fg.tensor([2, 4], dtype="int32"), "float32"),
        (fg.tensor([1, 2]), 2, "float32"),
        (fg.tensor([True, False]), fg.tensor([True, True]), "float32"),
        (fg.tensor([1.0, 2.0], dtype="float16"), 2, "float16"),
        (fg.tensor([1.0, 2.0], dtype="float64"), fg.tensor([2, 4]), "float64"),
    ],
)
def test_true_division_of_integers_is_float(a, b, expected):
    out = a / b
    assert out.dtype == getattr(fg, expected)
    np.testing.assert_allclose(out.numpy().astype(np.float64), np.asarray(a) / np.asarray(b))


def test_out_of_range_python_int_with_int32_tensor():
    with pytest.raises((OverflowError, ValueError)):
        fg.tensor([1], dtype="int32") + 2**40


# ---------------------------------------------------------------------------------------
# broadcasting: explicit cases and property tests
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sa", "sb"),
    [((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((4,), (2, 3, 4)), ((1, 1, 1), ()), ((3,), ())],
)
def test_broadcast_gradients_reduce_to_input_shapes(sa, sb):
    a = RNG.standard_normal(sa)
    b = RNG.standard_normal(sb)
    x = f64(a).requires_grad_()
    y = f64(b).requires_grad_()
    gx, gy = fg.grad((x * y).sum(), [x, y])
    assert gx.shape == sa
    assert gy.shape == sb
    full = np.broadcast_shapes(sa, sb)
    np.testing.assert_allclose(gx.numpy(), _unbroadcast(np.broadcast_to(b, full), sa))
    np.testing.assert_allclose(gy.numpy(), _unbroadcast(np.broadcast_to(a, full), sb))


def _unbroadcast(g, shape):
    """Sums ``g`` down to ``shape`` (the reverse of broadcasting)."""
    g = np.asarray(g, dtype=np.float64)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


@st.composite
def broadcast_pair(draw, a_elements, b_elements):
    shapes = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=4
        )
    )
    sa, sb = shapes.input_shapes
    a = draw(hnp.arrays(np.float64, sa, elements=a_elements))
    b = draw(hnp.arrays(np.float64, sb, elements=b_elements))
    return a, b


# values on a grid of quarters: exact in float64, and ties in maximum are exact ties
QUARTERS = st.integers(-24, 24).map(lambda i: i / 4)
NONZERO_QUARTERS = st.integers(2, 16).flatmap(lambda i: st.sampled_from([i / 4, -i / 4]))

PROPERTY_OPS = {
    "add": (lambda x, y: x + y, np.add, QUARTERS),
    "mul": (lambda x, y: x * y, np.multiply, QUARTERS),
    "div": (lambda x, y: x / y, np.divide, NONZERO_QUARTERS),
    "maximum": (fg.maximum, np.maximum, QUARTERS),
}


def _analytic_or_numeric_grads(fn, a, b):
    """check_grad needs non-empty inputs; for zero-size ones the gradients must still
    come back with the inputs' shapes, all zero."""
    if a.size and b.size:
        check_grad(fn, a, b)
        return
    x = f64(a).requires_grad_()
    y = f64(b).requires_grad_()
    gx, gy = fg.grad(fn(x, y).sum(), [x, y], allow_unused=True)
    for g, arr in ((gx, a), (gy, b)):
        got = np.zeros_like(arr) if g is None else g.numpy()
        assert got.shape == arr.shape
        assert not got.any()


@pytest.mark.parametrize("name", list(PROPERTY_OPS))
def test_binary_property_values_and_grads(name):
    fn, ref, b_elements = PROPERTY_OPS[name]

    @FAST
    @given(broadcast_pair(QUARTERS, b_elements))
    def run(pair):
        a, b = pair
        expected = ref(a, b)
        out = fn(f64(a), f64(b))
        assert out.shape == expected.shape
        assert out.dtype == fg.float64
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=0)
        out32 = fn(fg.tensor(a.astype(np.float32)), fg.tensor(b.astype(np.float32)))
        assert out32.dtype == fg.float32
        np.testing.assert_allclose(
            out32.numpy(), ref(a.astype(np.float32), b.astype(np.float32)), rtol=1e-6
        )
        _analytic_or_numeric_grads(fn, a, b)

    run()


@pytest.mark.parametrize(
    ("sa", "sb"), [((0, 3), (3,)), ((0, 3), (1, 3)), ((1, 3), (0, 1)), ((0, 0), (0, 0))]
)
def test_zero_size_broadcast(sa, sb):
    out = fg.zeros(*sa) + fg.ones(*sb)
    assert out.shape == np.broadcast_shapes(sa, sb)
    assert out.numpy().shape == out.shape


def test_zero_size_grad_with_leading_zero_dim():
    x = fg.zeros(0, 1, 4, dtype="float64", requires_grad=True)
    y = fg.zeros(0, 1, 4, dtype="float64", requires_grad=True)
    gx, gy = fg.grad((x * y).sum(), [x, y])
    assert gx.shape == (0, 1, 4)
    assert gy.shape == (0, 1, 4)


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
