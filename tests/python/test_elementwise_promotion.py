"""Elementwise ops: dtype promotion (tensor-tensor, tensor-scalar, true division) and
broadcasting (explicit cases and hypothesis property tests of values and gradients)."""

from __future__ import annotations

import operator

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from elementwise_support import FAST, RNG, f64
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

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
    fns = [operator.add, operator.mul, operator.sub]  # the Python operators
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
