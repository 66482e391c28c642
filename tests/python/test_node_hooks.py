"""Hooks on a node itself (PyTorch ``grad_fn.register_prehook`` / ``register_hook``,
Paddle ``grad_fn._register_post_hook``): they see (and may replace) the gradients
flowing into the node and those it computes, and run only when the node runs."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function


class Mul2(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


@pytest.mark.parametrize("mul2", [lambda x: x * 2, Mul2.apply])
def test_prehooks_and_posthooks_order_and_replacement(mul2):
    a = fg.tensor([1.0], requires_grad=True)
    b = mul2(a)
    pre, post = [], []

    def prehook(grad_outputs):
        pre.append(grad_outputs[0].item())
        return (grad_outputs[0] * 2,)

    def posthook(grad_inputs, grad_outputs):
        post.append((grad_inputs[0].item(), grad_outputs[0].item()))
        return grad_inputs

    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_prehook(prehook)
    b.grad_fn.register_prehook(lambda g: None)
    b.grad_fn.register_prehook(prehook)
    b.sum().backward()
    assert pre == [1.0, 2.0]
    assert post == [(8.0, 4.0)]
    np.testing.assert_array_equal(a.grad.numpy(), [8.0])


def test_posthook_replaces_computed_gradients_and_remove():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    b = fg.tensor([1.0, 2.0], requires_grad=True)
    c = a + b
    d = c + c
    handle = d.grad_fn._register_post_hook(lambda outs, ins: [o + o for o in outs])
    d.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 4.0])
    assert handle.remove() is True
    assert handle.remove() is False
    a.grad = None
    d.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0])


def test_node_hooks_not_run_for_a_node_that_does_not_execute():
    a = fg.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    calls = []
    b.grad_fn.register_prehook(lambda g: calls.append("pre"))
    b.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    fg.autograd.grad(c, inputs=(b,), retain_graph=True)
    assert calls == []
    c.backward()
    assert calls == ["pre", "post"]


def test_bad_node_hook_results():
    a = fg.tensor([1.0], requires_grad=True)
    b = a * 2
    b.grad_fn.register_prehook(lambda g: (g[0], g[0]))
    with pytest.raises(RuntimeError, match="returned 2 gradients, but 1 were expected"):
        b.sum().backward()
    b = a * 2
    b.grad_fn.register_prehook(lambda g: 3)
    with pytest.raises(TypeError, match="node hook must return None or a tuple"):
        b.sum().backward()
    b = a * 2

    def boom(g):
        raise KeyError("mine")

    b.grad_fn.register_prehook(boom)
    with pytest.raises(KeyError, match="mine"):
        b.sum().backward()


def test_node_object_identity():
    a = fg.tensor([1.0], requires_grad=True)
    b = a * 2
    assert b.grad_fn is b.grad_fn
    parts = (a * 3).split(1)
    assert parts[0].grad_fn is parts[0].grad_fn
