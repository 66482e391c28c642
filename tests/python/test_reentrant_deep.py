"""Deep re-entrant backward (a custom backward that calls backward, thousands of levels
deep) runs to the end: every 50 levels the engine continues on a fresh thread, as
PyTorch's does, carrying the caller's modes (PyTorch's own `test_deep_reentrant`)."""

from __future__ import annotations

import traceback

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import Function


class DeepReentrant(Function):
    """PyTorch's `test_deep_reentrant` layer: each backward re-enters until x < 0."""

    @staticmethod
    def forward(ctx, x):
        with torch.enable_grad():
            ctx.x = x.detach().requires_grad_(True) - 1
        return ctx.x.detach()

    @staticmethod
    def backward(ctx, g):
        if ctx.x < 0:
            return g
        with torch.enable_grad():
            DeepReentrant.apply(ctx.x).sum().backward()
        return g


@pytest.mark.parametrize("depth", [2000.0, 200.0, 49.0, 50.0, 51.0])
def test_deep_reentrant_backward_runs_to_the_end(depth):
    v = torch.tensor(depth, requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    assert v.grad.item() == 1.0


def test_modes_and_saved_tensor_hooks_reach_every_level():
    """The pack hook of a `saved_tensors_hooks` context around the outer backward sees
    every level's saved tensors, also on the threads that continue the chain, and each
    level sees grad mode as its caller set it."""
    grad_modes = []
    packed = []

    class Level(Function):
        @staticmethod
        def forward(ctx, x, n):
            ctx.n = n
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            grad_modes.append(torch.is_grad_enabled())  # off inside a backward
            if ctx.n > 0:
                with torch.enable_grad():
                    x = torch.tensor([2.0, 3.0], requires_grad=True)
                    y = (x * x).sum()  # saves x: one pack per level
                    Level.apply(y, ctx.n - 1).backward()
                    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 6.0])
            return g, None

    def pack(t):
        packed.append(t.shape)
        return t

    x = torch.tensor(1.0, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        Level.apply(x, 130).backward()
    assert x.grad.item() == 1.0
    assert grad_modes == [False] * 131
    assert len(packed) >= 130


def test_an_exception_deep_in_the_chain_comes_out_unchanged():
    class Boom(ValueError):
        pass

    def raise_deep():
        raise Boom("level 120 failed")

    class Level(Function):
        @staticmethod
        def forward(ctx, x, n):
            ctx.n = n
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            if ctx.n == 0:
                raise_deep()
            with torch.enable_grad():
                x = torch.tensor(1.0, requires_grad=True)
                Level.apply(x, ctx.n - 1).backward()
            return g, None

    x = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(Boom, match="level 120 failed") as info:
        Level.apply(x, 120).backward()
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "raise_deep" in frames
    # the engine is usable afterwards, on this thread
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    (y * y).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 4.0])
