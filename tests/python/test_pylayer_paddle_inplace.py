"""Paddle's ``PyLayer`` treats an input that ``forward`` returns as is as modified in
place (Paddle 3.3.1, checked): the output is the input itself, rebased on the layer's
node, with its version bumped, so an earlier op that saved it refuses to backward; a
leaf returned so is a ``ValueError`` when the layer records a graph. ``mark_not_inplace``
opts out. PyTorch's ``Function`` does this only for ``mark_dirty``."""

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


class Ident(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, dy):
        return dy * 3


def test_non_leaf_returned_is_the_input_rebased():
    d = paddle.ones([2, 3], dtype="float64")
    d.stop_gradient = False
    b = d**2
    v0 = b.inplace_version
    z = Ident.apply(b)
    assert z is b
    assert b.inplace_version == v0 + 1
    assert b.grad_fn.name() == "GradNodePyLayer_Ident"
    assert b.grad_fn.next_functions[0].name() == "PowGradNode"
    z.sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), np.full((2, 3), 6.0))


def test_saved_input_then_returned_is_a_version_error():
    d = paddle.ones([2, 3], dtype="float64")
    d.stop_gradient = False
    b = d**2
    c = b**2  # saves b at version 0
    Ident.apply(b)
    with pytest.raises(
        RuntimeError, match="received tensor_version:1 != wrapper_version_snapshot:0"
    ):
        paddle.nn.functional.relu(c).sum().backward()


def test_leaf_returned_is_a_value_error():
    d = paddle.ones([2, 3], dtype="float64")
    d.stop_gradient = False
    with pytest.raises(ValueError, match="Ident.*leaf"):
        Ident.apply(d)

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x, x * 2

        @staticmethod
        def backward(ctx, a, b):
            return a + b

    with pytest.raises(ValueError, match="leaf"):
        Two.apply(d)

    class Second(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return y

        @staticmethod
        def backward(ctx, dy):
            return dy, dy

    y = paddle.ones([2, 3], dtype="float64")  # stop_gradient, but the layer records
    with pytest.raises(ValueError, match="leaf"):
        Second.apply(d, y)


def test_no_graph_returns_the_input_unchanged():
    d = paddle.ones([2], dtype="float64")
    assert Ident.apply(d) is d  # nothing requires grad
    d.stop_gradient = False
    with paddle.no_grad():
        assert Ident.apply(d) is d
    assert d.stop_gradient is False and d.grad_fn is None


def test_a_new_tensor_over_the_input_is_not_the_input():
    # paddle.cast to the same dtype gives a new tensor (Paddle's test_pylayer_dtype)
    class SameCast(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return paddle.cast(x, "float64")

        @staticmethod
        def backward(ctx, dy):
            return dy * 3

    d = paddle.ones([2], dtype="float64")
    d.stop_gradient = False
    out = SameCast.apply(d)
    assert out is not d and d.is_leaf
    out.sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), [3.0, 3.0])


def test_mark_not_inplace_opts_out():
    class NI(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, dy):
            return dy * 3

    d = paddle.ones([2], dtype="float64")
    d.stop_gradient = False
    b = d * 1
    v0 = b.inplace_version
    out = NI.apply(b)
    assert out is not b and b.inplace_version == v0
    out.sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), [3.0, 3.0])


def test_torch_function_keeps_a_new_tensor():
    class TIdent(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, dy):
            return dy * 3

    d = paddle.ones([2], dtype="float64", requires_grad=True)
    out = TIdent.apply(d)
    assert out is not d and d.is_leaf
    out.sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), [3.0, 3.0])
