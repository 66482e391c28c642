"""``paddle.grad`` (``ferrograd.grad``) reads a ``[1]`` gradient of a 0-d output as its
value, as Paddle's code passes it; ``torch.autograd.grad`` keeps PyTorch's shape check."""

import ferrograd as paddle
import ferrograd as torch
import numpy as np
import pytest


def test_paddle_grad_one_element_gradient_for_a_0d_output():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
    out = paddle.matmul(x, y)  # 0-d
    dout = paddle.to_tensor(np.ones([1]), stop_gradient=False, dtype="float32")
    (dy,) = paddle.grad([out], [y], [dout], retain_graph=True, create_graph=True)
    np.testing.assert_allclose(dy.numpy(), [1.0, 2.0, 3.0])
    ddy = paddle.to_tensor(np.ones([3]), dtype="float32")
    dx, ddout = paddle.grad([dy], [x, dout], [ddy], retain_graph=True, create_graph=True)
    np.testing.assert_allclose(dx.numpy(), [1.0, 1.0, 1.0])
    assert ddout.shape == [1]  # the gradient of the [1] tensor itself
    np.testing.assert_allclose(ddout.numpy(), [6.0])
    # a single tensor too
    (dx2,) = paddle.grad(out, x, dout)
    np.testing.assert_allclose(dx2.numpy(), [4.0, 5.0, 6.0])


def test_other_mismatches_are_still_refused():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    out = (x * x).sum()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        paddle.grad([out], [x], [paddle.ones([2])])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        paddle.grad([x * 2], [x], [paddle.ones([1])])


def test_torch_autograd_grad_keeps_the_strict_check():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (x * x).sum()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        torch.autograd.grad(out, x, torch.ones(1))
