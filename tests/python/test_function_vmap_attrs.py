"""PyTorch's ``autograd.Function.generate_vmap_rule`` / ``vmap`` attributes (found missing
by PyTorch's ``test_custom_function_vmap_defaults``): present with PyTorch's defaults,
and a custom Function under ``torch.func.vmap`` runs once per sample without a rule."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


class Cube(fg.autograd.Function):
    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


def test_defaults_are_pytorchs():
    assert Cube.generate_vmap_rule is False
    with pytest.raises(NotImplementedError, match="batching rule"):
        Cube.vmap(None, (0,), fg.ones([2]))


def test_vmap_of_a_function_needs_no_rule():
    x = fg.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    y = fg.func.vmap(Cube.apply)(x)
    np.testing.assert_allclose(y.detach().numpy(), np.arange(6.0).reshape(3, 2) ** 3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.arange(6.0).reshape(3, 2) ** 2)
