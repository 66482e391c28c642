"""dtype conversion (``astype``/``cast`` and the shortcuts) and in-place ops: values,
versions, broadcasting, leaves, and differentiation through in-place ops on non-leaves."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from linalg_shape_support import f64, randn

# ---------------------------------------------------------------------------------------
# dtype conversion
# ---------------------------------------------------------------------------------------

DTYPES = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("target", DTYPES)
def test_astype_to_cast(target):
    a = np.array([-1.75, 0.0, 0.5, 2.25, 3.0])
    x = f64(a)
    np_target = "float32" if target == "bfloat16" else target
    expected = a.astype(np_target)
    for out in (
        x.astype(target),
        x.astype(getattr(fg, target)),
        x.cast(target),
        fg.cast(x, target),
        fg.astype(x, target),
        x.to(target),
        x.to(getattr(fg, target)),
        x.to(dtype=target),
        x.to("cpu", target),
        x.to(fg.ones(1, dtype=target)),
        x.type_as(fg.ones(1, dtype=target)),
    ):
        assert out.dtype == getattr(fg, target)
        np.testing.assert_array_equal(out.numpy(), expected)


def test_conversion_shortcuts():
    x = f64([1.5, -2.5])
    assert x.float().dtype == fg.float32
    assert x.double().dtype == fg.float64
    assert x.half().dtype == fg.float16
    assert x.bfloat16().dtype == fg.bfloat16
    assert x.int().dtype == fg.int32
    assert x.long().dtype == fg.int64
    assert x.bool().dtype == fg.bool
    assert x.int().tolist() == [1, -2]
    assert x.to("cpu") is x
    assert x.to() is x
    assert x.is_floating_point()
    assert not x.long().is_floating_point()
    assert fg.ones(1, dtype="complex64").is_complex()


def test_conversion_values():
    assert fg.tensor([1.7, -1.7, 2.5]).astype("int64").tolist() == [1, -1, 2]
    assert fg.tensor([1.7, -1.7, 0.0]).astype("bool").tolist() == [True, True, False]
    assert fg.tensor([1 + 2j]).astype("float32").tolist() == [1.0]
    assert fg.tensor([True, False]).astype("float32").tolist() == [1.0, 0.0]
    assert fg.tensor([2**40]).astype("float64").item() == 2.0**40
    np.testing.assert_array_equal(
        fg.tensor([0.1, 1000.0]).astype("float16").numpy(), np.array([0.1, 1000.0], np.float16)
    )


def test_conversion_gradients():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad((x.astype("float32") * 3).sum(), [x])
    assert g.dtype == fg.float64
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])
    assert not x.astype("int64").requires_grad
    (g,) = fg.grad(x.astype("complex128").abs().sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])
    check_grad(lambda t: t.astype("float64").square(), randn(3), second_order=True)


# ---------------------------------------------------------------------------------------
# in-place ops
# ---------------------------------------------------------------------------------------

INPLACE = {
    "add_": (lambda t: t.add_(fg.tensor([1.0, 2.0, 3.0])), lambda a: a + [1.0, 2.0, 3.0]),
    "add_ scalar": (lambda t: t.add_(2.0), lambda a: a + 2.0),
    "sub_": (lambda t: t.sub_(0.5), lambda a: a - 0.5),
    "mul_": (lambda t: t.mul_(fg.tensor([2.0])), lambda a: a * 2.0),
    "multiply_": (lambda t: t.multiply_(3.0), lambda a: a * 3.0),
    "div_": (lambda t: t.div_(4.0), lambda a: a / 4.0),
    "zero_": (lambda t: t.zero_(), lambda a: np.zeros_like(a)),
    "fill_": (lambda t: t.fill_(7.5), lambda a: np.full_like(a, 7.5)),
    "copy_": (
        lambda t: t.copy_(fg.tensor([9.0, 8.0, 7.0])),
        lambda a: np.broadcast_to([9.0, 8.0, 7.0], a.shape),
    ),
    "clip_": (lambda t: t.clip_(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    "clamp_": (lambda t: t.clamp_(min=0.0), lambda a: np.maximum(a, 0.0)),
    "exp_": (lambda t: t.exp_(), np.exp),
    "scale_": (lambda t: t.scale_(2.0, 1.0), lambda a: 2.0 * a + 1.0),
    "scale_ bias first": (
        lambda t: t.scale_(2.0, 1.0, bias_after_scale=False),
        lambda a: 2.0 * (a + 1.0),
    ),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_values_return_self_and_bump_version(name):
    op, ref = INPLACE[name]
    a = randn(2, 3).astype(np.float32)
    t = fg.tensor(a)
    v0 = t._version
    ptr = t.data_ptr()
    r = op(t)
    assert r is t
    assert t.data_ptr() == ptr
    assert t._version == v0 + 1
    assert t._inplace_version() == t._version
    assert t.dtype == fg.float32
    np.testing.assert_allclose(t.numpy(), ref(a.astype(np.float64)).astype(np.float32), rtol=1e-6)


def test_augmented_assignment_is_in_place():
    t = fg.tensor([1.0, 2.0])
    alias = t
    v0 = t._version
    t += 1
    t -= 0.5
    t *= 4
    t /= 2
    assert t is alias
    assert t._version == v0 + 4
    np.testing.assert_array_equal(t.numpy(), [3.0, 5.0])


def test_scale_out_of_place():
    x = f64([1.0, 2.0])
    np.testing.assert_array_equal(x.scale(2.0, 1.0).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(x.scale(2.0, 1.0, bias_after_scale=False).numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(fg.scale(x, 3.0).numpy(), [3.0, 6.0])
    check_grad(lambda t: t.scale(2.5, 1.0), randn(3), second_order=True)


def test_inplace_broadcasts_the_operand():
    t = fg.ones(2, 3)
    t.add_(fg.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(t.numpy(), [[2, 3, 4], [2, 3, 4]])
    t.copy_(fg.tensor([[5.0], [6.0]]))
    np.testing.assert_array_equal(t.numpy(), [[5, 5, 5], [6, 6, 6]])


def test_copy_casts_to_the_destination_dtype():
    t = fg.zeros(3, dtype="float64")
    t.copy_(fg.tensor([1, 2, 3]))
    assert t.dtype == fg.float64
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "name",
    [
        "add_",
        "sub_",
        "mul_",
        "div_",
        "zero_",
        "fill_",
        "copy_",
        "clip_",
        "exp_",
        "scale_",
    ],
)
def test_inplace_on_leaf_requiring_grad_raises(name):
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    op = {
        "add_": lambda t: t.add_(1.0),
        "sub_": lambda t: t.sub_(1.0),
        "mul_": lambda t: t.mul_(2.0),
        "div_": lambda t: t.div_(2.0),
        "zero_": lambda t: t.zero_(),
        "fill_": lambda t: t.fill_(1.0),
        "copy_": lambda t: t.copy_(fg.ones(3)),
        "clip_": lambda t: t.clip_(0.0, 1.0),
        "exp_": lambda t: t.exp_(),
        "scale_": lambda t: t.scale_(2.0),
    }[name]
    with pytest.raises(RuntimeError, match=rf"{name}.*leaf.*requires grad"):
        op(x)
    assert x._version == 0
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="leaf"):
        x += 1


def test_inplace_on_leaf_allowed_under_no_grad():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with fg.no_grad():
        x.add_(1.0)
        x.mul_(2.0)
    assert x.requires_grad
    assert x.is_leaf
    assert x._version == 2
    np.testing.assert_array_equal(x.detach().numpy(), [4.0, 6.0])
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 12.0])


# Differentiation through in-place ops on non-leaves: each case gives (function of x,
# expected gradient of its sum at X).
X = np.array([0.25, 2.0, -1.5])
THROUGH_INPLACE = {
    "mul_": (lambda x: (x * 2).mul_(3), np.full(3, 6.0)),
    "add_ tensor": (lambda x: (x * 1).add_(x * x), 1 + 2 * X),
    "sub_": (lambda x: (x * 3).sub_(x), np.full(3, 2.0)),
    "div_": (lambda x: (x * 1).div_(f64([2.0, 4.0, -8.0])), 1 / np.array([2.0, 4.0, -8.0])),
    "mul_ by constant tensor": (lambda x: (x * x).mul_(f64([1.0, 2.0, 3.0])), 2 * X * [1, 2, 3]),
    "exp_": (lambda x: (x * 2).exp_(), 2 * np.exp(2 * X)),
    "scale_": (lambda x: (x * 1).scale_(3.0, 1.0), np.full(3, 3.0)),
    "chain": (lambda x: (x + 0).mul_(4.0).add_(x).div_(2.0).exp_(), 2.5 * np.exp(2.5 * X)),
    "copy_": (lambda x: fg.zeros(3, dtype="float64").copy_(x * x), 2 * X),
}


@pytest.mark.parametrize("name", list(THROUGH_INPLACE))
def test_grad_through_inplace_on_non_leaf(name):
    fn, expected = THROUGH_INPLACE[name]
    x = f64(X).requires_grad_()
    (g,) = fg.grad(fn(x).sum(), [x])
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
    check_grad(fn, X)


def test_mul_inplace_gives_grad_six_via_backward():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    v0 = h._version
    h.mul_(3)
    assert h._version == v0 + 1
    assert h.grad_fn is not None
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])


def test_copy_into_non_leaf_cuts_the_overwritten_history():
    x = fg.tensor([0.5, 2.0], dtype="float64", requires_grad=True)
    s = fg.tensor([3.0, 4.0], dtype="float64", requires_grad=True)
    h = x + 0
    h.copy_(s * 2)
    gx, gs = fg.grad(h.sum(), [x, s], allow_unused=True)
    assert gx is None or not gx.numpy().any()
    np.testing.assert_array_equal(gs.numpy(), [2.0, 2.0])


INPLACE_NEEDING_ORIGINAL = {
    "mul_": (lambda h, y: h.mul_(y), lambda x, y: (y, x)),
    "imul": (lambda h, y: h.__imul__(y), lambda x, y: (y, x)),
    "div_": (lambda h, y: h.div_(y), lambda x, y: (1 / y, -x / y**2)),
}


@pytest.mark.parametrize("name", list(INPLACE_NEEDING_ORIGINAL))
def test_grad_through_inplace_with_grad_requiring_operand(name):
    op, expected = INPLACE_NEEDING_ORIGINAL[name]
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    x = f64(a).requires_grad_()
    y = f64(b).requires_grad_()
    h = x * 1
    op(h, y)
    gx, gy = fg.grad(h.sum(), [x, y])
    ex, ey = expected(a, b)
    np.testing.assert_allclose(gx.numpy(), ex)
    np.testing.assert_allclose(gy.numpy(), ey)


def test_grad_through_clip_inplace_on_non_leaf():
    x = fg.tensor([0.5, 2.0, -3.0], dtype="float64", requires_grad=True)
    h = x + 0
    h.clip_(-1.0, 1.0)
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 0.0])


@pytest.mark.parametrize("op", ["zero_", "fill_"])
def test_zero_fill_on_non_leaf_keep_it_in_the_graph(op):
    x = fg.tensor([0.5, 2.0], dtype="float64", requires_grad=True)
    h = x * 1
    if op == "zero_":
        h.zero_()
    else:
        h.fill_(3.0)
    assert not h.is_leaf
    h.add_(1.0)  # a later in-place op on the non-leaf must stay legal
    (h * x).sum().backward()
    assert h.grad is None
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0] if op == "zero_" else [4.0, 4.0])


def test_zero_on_plain_tensor_keeps_flags():
    t = fg.ones(2)
    t.zero_()
    assert not t.requires_grad
    assert t.tolist() == [0.0, 0.0]


def test_modifying_a_saved_tensor_is_detected():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    h = x * 1
    y = h * h
    h.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_inplace_through_a_view_updates_the_base():
    b = fg.zeros(2, 3)
    b.t().add_(fg.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(b.numpy(), [[1, 1, 1], [2, 2, 2]])
    r = b.reshape(6)
    r.fill_(4.0)
    assert (b.numpy() == 4.0).all()
    assert b._version == r._version == 2
