"""An integer / bool output of a custom layer: Paddle's ``PyLayer`` keeps it
differentiable (a later cast to float carries the gradient back, Paddle's
test_pylayer_dtype), PyTorch's ``Function`` marks it non-differentiable."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


class CastLayer(PyLayer):
    @staticmethod
    def forward(ctx, x, dtype):
        return fg.cast(x, dtype)

    @staticmethod
    def backward(ctx, dy):
        return dy * 2.0


@pytest.mark.parametrize(
    "dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float64"]
)
def test_paddle_pylayer_integer_output_stays_differentiable(dtype):
    x = fg.tensor([[0.5, 1.5], [2.0, -3.0]], stop_gradient=False)
    z = CastLayer.apply(x, dtype)
    assert not z.stop_gradient
    fg.cast(z, "float32").sum().backward()
    # the gradient reaching backward is the float one (ones), not truncated to the dtype
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 2.0))


def test_torch_function_integer_output_is_not_differentiable():
    class CastFn(Function):
        @staticmethod
        def forward(ctx, x):
            return x.to(fg.int64)

        @staticmethod
        def backward(ctx, g):
            return g

    x = fg.tensor([1.0, 2.0], requires_grad=True)
    z = CastFn.apply(x)
    assert not z.requires_grad
    assert z.grad_fn is None
