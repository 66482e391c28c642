"""`apply` calls the layer's `forward` and the node calls its `backward` without an
argument tuple (`src/python/pylayer/vcall.rs`): what they are given is borrowed for the
call, so nothing passed in (tensors, gradients, other arguments, the ctx) may gain or
lose a reference, and nothing may pile up, over many applications."""

from __future__ import annotations

import gc
import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer

N = 10_000


class Scale(PyLayer):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.save_for_backward(x)
        ctx.factor = factor
        return x * factor.value

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        assert x.shape == dy.shape
        return dy * ctx.factor.value


class TorchTanh(Function):
    @staticmethod
    def forward(ctx, x, tag):
        y = x.tanh()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        return dy * (1 - y * y), None


class Factor:
    value = 3.0


def live_objects() -> int:
    gc.collect()
    return len(gc.get_objects())


@pytest.mark.parametrize("layer", [Scale, TorchTanh])
def test_arguments_keep_their_reference_counts_over_many_calls(layer):
    x = fg.tensor(np.arange(4.0), requires_grad=True)
    other = Factor()

    def step():
        layer.apply(x, other).sum().backward()

    for _ in range(10):
        step()
    x.grad = None
    before = (sys.getrefcount(x), sys.getrefcount(other), live_objects())
    for _ in range(N):
        step()
    x.grad = None
    after = (sys.getrefcount(x), sys.getrefcount(other), live_objects())
    assert after[:2] == before[:2]
    assert after[2] - before[2] < 50


def test_gradients_and_values_are_right_after_many_calls():
    x = fg.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    for _ in range(100):
        x.grad = None
        Scale.apply(x, Factor()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(5, 3.0))
    x.grad = None
    TorchTanh.apply(x, "t").sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(np.linspace(-1, 1, 5)) ** 2)


def test_an_exception_in_forward_or_backward_propagates_and_leaks_nothing():
    class Bad(PyLayer):
        @staticmethod
        def forward(ctx, x, fail_forward):
            if fail_forward:
                raise ValueError("forward failed")
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            raise KeyError("backward failed")

    x = fg.ones(3, requires_grad=True)
    rc = sys.getrefcount(x)
    for _ in range(100):
        with pytest.raises(ValueError, match="forward failed"):
            Bad.apply(x, True)
        with pytest.raises(KeyError, match="backward failed"):
            Bad.apply(x, False).sum().backward()
    gc.collect()
    assert sys.getrefcount(x) == rc
