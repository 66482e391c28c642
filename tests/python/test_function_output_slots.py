"""A PyTorch ``autograd.Function`` has one output slot per value ``forward`` returns, tensor
or not: the node's pre-hooks and ``backward`` see None in a non-tensor's slot, and a
tensor's ``output_nr`` is its position (PyTorch's rule). A Paddle ``PyLayer`` numbers its
tensor outputs only, as Paddle does."""

from __future__ import annotations

import ferrograd as fg
from ferrograd.autograd import Function, PyLayer


class DoubleMul2(Function):
    @staticmethod
    def forward(ctx, x, a, y):
        ctx.a = a
        return a * x * 2, a, a * y * 2

    @staticmethod
    def backward(ctx, g1, ga, g2):
        assert ga is None
        return ctx.a * g1 * 2, None, ctx.a * g2 * 2


def test_a_non_tensor_output_has_a_slot_of_its_own():
    x = fg.ones(2, requires_grad=True)
    y = fg.ones(2, requires_grad=True)
    p, a, q = DoubleMul2.apply(x, 3, y)
    assert a == 3 and (p.output_nr, q.output_nr) == (0, 2)
    seen = []

    def prehook(grad_output):
        seen.append(len(grad_output))
        g1, ga, g2 = grad_output
        assert ga is None
        return (g1 * 2, None, g2 * 2)

    p.grad_fn.register_prehook(prehook)
    (p + q).sum().backward()
    assert seen == [3]
    assert x.grad.tolist() == [12.0, 12.0] and y.grad.tolist() == [12.0, 12.0]
    assert p.grad_fn(fg.ones(2), None, fg.ones(2))[0].tolist() == [6.0, 6.0]


def test_materialized_gradients_keep_none_for_non_tensors():
    x = fg.ones(2, requires_grad=True)
    p, a, q = DoubleMul2.apply(x, 1.5, fg.ones(2))
    p.sum().backward()  # q's gradient is materialized as zeros; a's stays None
    assert x.grad.tolist() == [3.0, 3.0]


class PaddleTwo(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x * 2, "tag", x * 3

    @staticmethod
    def backward(ctx, g1, g2):  # Paddle: one gradient per tensor output
        return g1 * 2 + g2 * 3


def test_paddle_pylayer_numbers_tensor_outputs_only():
    x = fg.ones([2])
    x.stop_gradient = False
    u, tag, v = PaddleTwo.apply(x)
    assert tag == "tag" and (u.output_nr, v.output_nr) == (0, 1)
    (u + v).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
