"""Binary module functions with a Python number first, as PyTorch accepts them
(``torch.pow(2, x)``), with gradients; the ones PyTorch refuses raise a clear TypeError."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

CASES = {
    "add": lambda s, x: s + x,
    "sub": lambda s, x: s - x,
    "subtract": lambda s, x: s - x,
    "mul": lambda s, x: s * x,
    "multiply": lambda s, x: s * x,
    "div": lambda s, x: s / x,
    "divide": lambda s, x: s / x,
    "true_divide": lambda s, x: s / x,
    "pow": lambda s, x: s**x,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_number_first_matches_numpy_and_has_gradients(name):
    xn = np.array([0.5, 1.5, 2.5])
    x = fg.tensor(xn, dtype="float64", requires_grad=True)
    out = getattr(fg, name)(2, x)
    np.testing.assert_allclose(out.numpy(), CASES[name](2.0, xn))
    assert gradcheck(lambda t: getattr(fg, name)(3.0, t), (x,))


def test_pow_with_a_number_base():
    a = fg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    y = fg.pow(2, a)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.log(2) * 2 ** np.array([1.0, 2.0, 3.0]))


def test_floor_divide_and_remainder_values():
    x = fg.tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose(fg.floor_divide(7, x).numpy(), [7.0, 3.0, 2.0])
    np.testing.assert_allclose(fg.remainder(7, x).numpy(), [0.0, 1.0, 1.0])


@pytest.mark.parametrize("name", ["maximum", "minimum", "eq", "lt", "copysign", "logical_and"])
def test_ops_that_pytorch_refuses_raise_a_type_error(name):
    x = fg.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=f"{name}\\(\\): the first argument must be a Tensor"):
        getattr(fg, name)(2, x)
