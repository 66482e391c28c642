"""A 0-d tensor operand promotes as PyTorch's ``torch.result_type`` says: it decides the
result dtype only when its category (bool < integer < floating < complex) is higher than
the dimensioned operand's (``float32[3] + float64[]`` is float32). Paddle code gets Paddle
3.3.1's variant (docs/dialects.md). This module names ferrograd ``torch``, so its calls
speak PyTorch; Paddle's and neutral code run through ``_run``.

The expected dtypes are PyTorch 2.x's (and Paddle 3.3.1's) answers, checked on the real
libraries once and written down here; nothing imports them."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest
from test_shared_spellings import _run

# (dimensioned dtype, 0-d dtype, dtype of `x + s` and `s + x`): PyTorch 2.x's answers
CASES = [
    ("float32", "float64", "float32"),
    ("int32", "float64", "float64"),
    ("float16", "float32", "float16"),
    ("int8", "int64", "int8"),
    ("uint8", "int8", "uint8"),
    ("int32", "float32", "float32"),
    ("bool", "int64", "int64"),
    ("bool", "float64", "float64"),
    ("int64", "float16", "float16"),
    ("bfloat16", "float16", "bfloat16"),
    ("float64", "float32", "float64"),
    ("int32", "complex128", "complex128"),
    ("float32", "complex128", "complex64"),
    ("float64", "complex64", "complex128"),
    ("complex64", "float64", "complex64"),
]


def _t(shape, dtype):
    return torch.ones(shape, dtype=getattr(torch, dtype))


@pytest.mark.parametrize(("dim", "zero", "want"), CASES)
def test_add_follows_pytorch(dim, zero, want):
    x, s = _t([3], dim), _t([], zero)
    assert (x + s).dtype == getattr(torch, want)
    assert (s + x).dtype == getattr(torch, want)
    assert torch.add(x, s).dtype == getattr(torch, want)
    assert torch.result_type(x, s) == getattr(torch, want)


def test_values_are_computed_in_the_result_dtype():
    x = torch.tensor([1.5, 2.0, -0.5])
    s = torch.tensor(2.25, dtype=torch.float64)
    y = x * s
    assert y.dtype == torch.float32 and y.shape == [3]
    np.testing.assert_array_equal(y.numpy(), np.array([1.5, 2.0, -0.5], np.float32) * 2.25)
    # int8 wraps, as PyTorch's int8 + 0-d int64 does
    w = torch.tensor([100, 2], dtype=torch.int8) + torch.tensor(100)
    assert w.dtype == torch.int8 and w.tolist() == [-56, 102]


def test_two_0d_or_two_dimensioned_tensors_promote_as_before():
    assert (_t([], "float32") + _t([], "float64")).dtype == torch.float64
    assert (_t([], "int32") + _t([], "float16")).dtype == torch.float16
    assert (_t([3], "float32") + _t([3], "float64")).dtype == torch.float64
    # a one-element [1] tensor has a dimension: PyTorch keeps float32
    assert (_t([1], "float32") + _t([], "float64")).dtype == torch.float32
    assert (_t([0], "float32") + _t([], "float64")).dtype == torch.float32
    assert torch.promote_types(torch.float32, torch.float64) == torch.float64


@pytest.mark.parametrize(
    ("op", "want"),
    [
        (lambda x, s: x - s, "float32"),
        (lambda x, s: s - x, "float32"),
        (lambda x, s: x / s, "float32"),
        (lambda x, s: x // s, "float32"),
        (lambda x, s: x % s, "float32"),
        (lambda x, s: x**s, "float32"),
        (lambda x, s: s**x, "float32"),
        (torch.pow, "float32"),
        (torch.maximum, "float32"),
        (torch.minimum, "float32"),
        (torch.atan2, "float32"),
        (torch.copysign, "float32"),
        (lambda x, s: torch.sub(x, s, alpha=2), "float32"),
        (lambda x, s: torch.div(x, s, rounding_mode="trunc"), "float32"),
        (lambda x, s: x < s, "bool"),
        (lambda x, s: torch.eq(x, s), "bool"),
        (lambda x, s: torch.logical_and(x, s), "bool"),
        (lambda x, s: torch.where(x > 0, x, s), "float32"),
        (lambda x, s: torch.where(x > 0, s, x), "float32"),
        (lambda x, s: torch.lerp(x, torch.zeros(3), s), "float32"),
        (lambda x, s: torch.addcmul(x, x, s), "float32"),
        (lambda x, s: torch.addcdiv(x, x, s), "float32"),
        (lambda x, s: x.masked_fill(x > 0, s), "float32"),
        (lambda x, s: torch.clamp(x, min=s), "float32"),
    ],
)
def test_every_binary_op_follows_pytorch(op, want):
    # PyTorch 2.x: float32[3] op float64[] -> these dtypes
    r = op(torch.tensor([1.0, 2.0, 3.0]), torch.tensor(2.0, dtype=torch.float64))
    assert r.dtype == getattr(torch, want) and r.shape == [3]


def test_integer_ops_keep_the_narrow_dtype():
    x, s = torch.tensor([1, 2, 4], dtype=torch.int8), torch.tensor(6)
    assert (x & s).dtype == torch.int8 and (x & s).tolist() == [0, 2, 4]
    assert (x | s).dtype == torch.int8 and (x ^ s).dtype == torch.int8
    q = torch.floor_divide(torch.tensor([7, -7], dtype=torch.int8), torch.tensor(2))
    assert q.dtype == torch.int8 and q.tolist() == [3, -4]
    assert torch.div(x, s, rounding_mode="trunc").dtype == torch.int8
    assert (x / s).dtype == torch.float32  # true division: the default float
    i = torch.tensor([1, 2], dtype=torch.int32)
    assert torch.where(
        torch.tensor([True, False]), i, torch.tensor(2.5, dtype=torch.float64)
    ).tolist() == [1.0, 2.5]
    assert (i ** torch.tensor(0.5, dtype=torch.float64)).dtype == torch.float64
    assert torch.atan2(i, torch.tensor(2)).dtype == torch.float32


def test_comparisons_compute_in_the_common_dtype():
    # PyTorch compares in float32 here: float32(0.1) == 0-d float64 0.1 rounded to float32
    x, s = torch.tensor([0.1, 0.2]), torch.tensor(0.1, dtype=torch.float64)
    assert (x == s).tolist() == [True, False]
    assert (x > s).tolist() == [False, True]
    assert (x == torch.tensor([0.1], dtype=torch.float64)).tolist() == [False, False]


def test_in_place_ops_keep_the_dtype_or_refuse():
    x = torch.ones(3)
    x += torch.tensor(2.0, dtype=torch.float64)
    assert x.dtype == torch.float32 and x.tolist() == [3.0, 3.0, 3.0]
    x.mul_(torch.tensor(2, dtype=torch.int64))
    assert x.dtype == torch.float32 and x.tolist() == [6.0, 6.0, 6.0]
    i = torch.ones(3, dtype=torch.int32)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i += torch.tensor(2.0, dtype=torch.float64)  # PyTorch: Double can't be cast to Int


@pytest.mark.parametrize(
    ("name", "op"),
    [
        ("add", lambda a, s: a + s),
        ("mul", lambda a, s: a * s),
        ("div", lambda a, s: a / s),
        ("rsub", lambda a, s: s - a),
        ("pow", lambda a, s: a.abs() ** s),
        ("rpow", lambda a, s: s**a),
        ("maximum", torch.maximum),
        ("atan2", torch.atan2),
        ("where", lambda a, s: torch.where(a > 0, a, s)),
    ],
)
def test_gradients_reach_each_input_in_its_dtype(name, op):
    av = np.array([1.5, 2.0, -0.5], np.float32)
    sv = 2.25
    gv = np.array([1.0, 2.0, 3.0], np.float32)
    a = torch.tensor(av, requires_grad=True)
    s = torch.tensor(sv, dtype=torch.float64, requires_grad=True)
    y = op(a, s)
    assert y.dtype == torch.float32
    (y * torch.tensor(gv)).sum().backward()
    assert a.grad.dtype == torch.float32 and a.grad.shape == [3]
    assert s.grad.dtype == torch.float64 and s.grad.shape == []
    # NumPy float64 reference of the derivatives (ferrograd, as PyTorch, computes them in
    # float32 and casts the 0-d input's to float64)
    a64, s64, g64 = av.astype(np.float64), sv, gv.astype(np.float64)
    da, ds = {
        "add": (g64, g64.sum()),
        "mul": (g64 * s64, (g64 * a64).sum()),
        "div": (g64 / s64, (-g64 * a64 / s64**2).sum()),
        "rsub": (-g64, g64.sum()),
        "pow": (
            g64 * s64 * np.abs(a64) ** (s64 - 1) * np.sign(a64),
            (g64 * np.abs(a64) ** s64 * np.log(np.abs(a64))).sum(),
        ),
        "rpow": (g64 * s64**a64 * np.log(s64), (g64 * a64 * s64 ** (a64 - 1)).sum()),
        "maximum": (g64 * (a64 > s64), (g64 * (a64 < s64)).sum()),
        "atan2": (
            g64 * s64 / (a64**2 + s64**2),
            (-g64 * a64 / (a64**2 + s64**2)).sum(),
        ),
        "where": (g64 * (a64 > 0), (g64 * (a64 <= 0)).sum()),
    }[name]
    np.testing.assert_allclose(a.grad.numpy(), da, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.grad.numpy(), ds, rtol=1e-5, atol=1e-6)


# Paddle 3.3.1's answers for a [3] tensor and a 0-d one: one category keeps the tensor's
# dtype in its arithmetic and comparisons; maximum, minimum, floor_divide, atan2 and where
# promote as two tensors; two categories promote as two tensors
PADDLE = """
x = paddle.ones([3]); s = paddle.to_tensor(2.0, dtype='float64')
c128 = paddle.to_tensor(1j, dtype='complex128')
add = (x + s).dtype; mul = paddle.multiply(x, s).dtype; lt = (x < s).dtype
mx = paddle.maximum(x, s).dtype; fd = (x // s).dtype; at = paddle.atan2(x, s).dtype
wh = paddle.where(x > 0, x, s).dtype; cplx = (x + c128).dtype
c64f64 = (paddle.ones([3], dtype='complex64') + s).dtype
i8 = (paddle.ones([3], dtype='int8') + paddle.to_tensor(3, dtype='int64')).dtype
i32 = (paddle.ones([3], dtype='int32') + s).dtype
"""


def test_paddle_code_gets_paddles_rule():
    g = _run(PADDLE, "paddle")
    f32, f64 = torch.float32, torch.float64
    assert (g["add"], g["mul"], g["lt"]) == (f32, f32, torch.bool)
    assert (g["mx"], g["fd"], g["at"], g["wh"]) == (f64, f64, f64, f64)
    assert (g["cplx"], g["c64f64"]) == (torch.complex128, torch.complex128)
    assert (g["i8"], g["i32"]) == (torch.int8, f64)


def test_code_of_no_dialect_gets_pytorchs_rule():
    g = _run(PADDLE.replace("paddle.", "fg."), None)
    assert (g["add"], g["mx"], g["wh"]) == (torch.float32,) * 3
    assert (g["cplx"], g["c64f64"]) == (torch.complex64, torch.complex64)


def test_clamp_with_a_0d_tensor_bound_follows_pytorch():
    # PyTorch 2.x: clamp's dtype is result_type(x, min, max)
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    lo = torch.clamp(i, min=torch.tensor(1.5, dtype=torch.float64))
    assert lo.dtype == torch.float64 and lo.tolist() == [1.5, 2.0, 3.0]
    assert torch.clamp(i, max=torch.tensor(0.5, dtype=torch.float16)).dtype == torch.float16
    assert torch.clamp(i, min=torch.tensor(2)).dtype == torch.int32
    assert torch.clamp(torch.ones(3), min=torch.tensor(1)).dtype == torch.float32
    assert torch.clamp(i, min=0.5).dtype == torch.float32


def test_a_0d_integer_that_does_not_fit_the_result_is_an_error():
    # PyTorch casts the 0-d int64 to int32 first and silently wraps 2**40 to 0
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    big = torch.tensor(2**40)
    for op in (lambda: i + big, lambda: i < big, lambda: i // big, lambda: i & big):
        with pytest.raises(ValueError, match="outside the range of int32"):
            op()
    u = torch.tensor([1, 2], dtype=torch.uint8)
    with pytest.raises(ValueError, match="outside the range of uint8"):
        u - torch.tensor(-1, dtype=torch.int8)
    assert (i + torch.tensor(-(2**31))).tolist() == [-(2**31) + 1, -(2**31) + 2, -(2**31) + 3]
    assert (i / big).dtype == torch.float32  # true division casts to float, no wrap
