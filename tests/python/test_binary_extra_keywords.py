"""The binary table's extra torch keywords (`extra` column, src/op_defs/binary.rs): `alpha=` on
`add` / `sub` and their in-place forms (`add(x, y, alpha=a)` is `x + a * y`), `div`'s
`rounding_mode=`; and `atan2`, the entry added with them."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))


@pytest.mark.parametrize("alpha", [2, -0.5, 0, 1.0])
def test_add_and_sub_scale_the_second_operand(alpha):
    x, y = fg.tensor(A), fg.tensor(B)
    for got, want in [
        (x.add(y, alpha=alpha), A + alpha * B),
        (fg.add(x, y, alpha=alpha), A + alpha * B),
        (x.sub(y, alpha=alpha), A - alpha * B),
        (fg.subtract(x, y, alpha=alpha), A - alpha * B),
        (x.add(3.0, alpha=alpha), A + alpha * 3.0),
        (x.add(y=y, alpha=alpha), A + alpha * B),
    ]:
        assert got.dtype == fg.float64
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15, atol=1e-15)


def test_in_place_forms_and_the_manual_sgd_idiom():
    p = fg.tensor(A.copy(), requires_grad=True)
    (p * p).sum().backward()
    with fg.no_grad():
        p.data.add_(p.grad, alpha=-0.1)  # the word-language-model example's update
    np.testing.assert_allclose(p.detach().numpy(), A - 0.1 * 2 * A, rtol=1e-15)
    z = fg.tensor(A.copy())
    z.sub_(fg.tensor(B), alpha=2)
    np.testing.assert_allclose(z.numpy(), A - 2 * B, rtol=1e-15)


def test_gradients_through_the_scaled_operand():
    check_grad(lambda x: x.add(x * x, alpha=-1.5), A, second_order=True)
    y = fg.tensor(B, requires_grad=True)
    x = fg.tensor(A, requires_grad=True)
    x.sub(y, alpha=3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.full_like(B, -3.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.ones_like(A))


def test_alpha_one_records_no_extra_node_and_bad_alpha_is_refused():
    x = fg.tensor(A, requires_grad=True)
    y = fg.tensor(B, requires_grad=True)
    assert x.add(y, alpha=1).grad_fn.name() == "AddBackward0"
    assert x.add(y, alpha=1).grad_fn.next_functions[1][0] is not None
    with pytest.raises(TypeError, match=r"add\(\): alpha must be a number .* got str"):
        x.add(y, alpha="2")
    with pytest.raises(TypeError, match=r"alpha must be a number .* got Tensor"):
        x.sub_(y, alpha=fg.tensor(2.0))
    with pytest.raises(TypeError, match="alpha"):
        x.mul(y, alpha=2)  # only add / sub take it, as in PyTorch


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_div_rounding_modes_against_numpy(dtype):
    a = np.array([-7, 7, -6, 6, -1, 0, 5], dtype=dtype)
    b = np.array([2, 2, 3, -4, 3, 5, -5], dtype=dtype)
    x, y = fg.tensor(a), fg.tensor(b)
    trunc, floor = x.div(y, rounding_mode="trunc"), fg.div(x, y, rounding_mode="floor")
    want_dtype = fg.float64 if dtype == "float64" else getattr(fg, dtype)
    assert trunc.dtype == want_dtype and floor.dtype == want_dtype
    np.testing.assert_array_equal(trunc.numpy(), np.trunc(a / b).astype(dtype))
    np.testing.assert_array_equal(floor.numpy(), np.floor_divide(a, b))
    np.testing.assert_array_equal(
        x.div(3, rounding_mode="trunc").numpy(), np.trunc(a / 3).astype(dtype)
    )
    plain = x.div(y, rounding_mode=None)
    np.testing.assert_allclose(plain.numpy(), a / b)
    assert plain.dtype.is_floating_point


def test_div_rounding_mode_errors():
    x = fg.tensor([1, 2])
    with pytest.raises(ValueError, match="rounding_mode must be None, 'trunc' or 'floor'"):
        x.div(x, rounding_mode="round")
    with pytest.raises(TypeError, match="rounding_mode must be None"):
        x.div(x, rounding_mode=1)
    with pytest.raises((RuntimeError, ZeroDivisionError), match="division by zero"):
        x.div(fg.tensor([1, 0]), rounding_mode="trunc")


def test_atan2_against_numpy_with_gradients():
    a = RNG.standard_normal(8)
    b = RNG.standard_normal(8)
    got = fg.atan2(fg.tensor(a), fg.tensor(b))
    np.testing.assert_allclose(got.numpy(), np.arctan2(a, b), rtol=1e-15)
    np.testing.assert_allclose(fg.tensor(a).arctan2(fg.tensor(b)).numpy(), np.arctan2(a, b))
    assert fg.atan2(fg.tensor([1, -1]), fg.tensor([0, 0])).dtype == fg.float32  # ints: float
    check_grad(lambda t: fg.atan2(t, t * t + 0.5), a, second_order=True)
    check_grad(lambda t: fg.atan2(fg.tensor(a), t), b, second_order=True)
    np.testing.assert_allclose(fg.atan2(fg.tensor(a), 2.0).numpy(), np.arctan2(a, 2.0))
