"""What an unpack hands back, by where the saved tensor sits in the graph: a leaf's save
comes back as is when backward records nothing (no second look at the slot), and as a
tracked alias of the leaf when it records (``create_graph=True``); an in-place change of
the saved memory is caught when the unpack hands that memory back, whether the save was a
leaf, a non-leaf or a custom layer's output, and not when it hands back a copy."""

from __future__ import annotations

import ferrograd as torch  # PyTorch's examples run with only this import changed
import numpy as np
import pytest
from ferrograd.autograd.graph import saved_tensors_hooks


def ident(t):
    return t


def leaves():
    a = torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)
    return a, b


@pytest.mark.parametrize("hooked", [False, True])
def test_leaf_saves_give_the_same_first_and_second_derivatives(hooked):
    a, b = leaves()
    if hooked:
        with saved_tensors_hooks(ident, ident):
            y = (a * a * b).sum()
    else:
        y = (a * a * b).sum()
    (ga,) = torch.autograd.grad(y, a, create_graph=True)
    np.testing.assert_array_equal(ga.detach().numpy(), 2 * a.detach().numpy() * b.detach().numpy())
    # the unpacked leaves of a recording backward carry their place in the graph
    ga.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), 2 * a.detach().numpy())
    np.testing.assert_array_equal(a.grad.numpy(), 2 * b.detach().numpy())


def test_a_plain_backward_through_hooked_leaf_saves_accumulates_each_step():
    a, b = leaves()
    for _ in range(3):
        with saved_tensors_hooks(ident, ident):
            y = (a * b + a).sum()
        y.backward()
    np.testing.assert_array_equal(a.grad.numpy(), 3 * (b.detach().numpy() + 1))
    np.testing.assert_array_equal(b.grad.numpy(), 3 * a.detach().numpy())


def test_an_in_place_change_of_a_packed_leaf_is_caught_when_unpack_hands_it_back():
    a, b = leaves()
    with saved_tensors_hooks(ident, ident):
        y = (a * b).sum()
    with torch.no_grad():
        a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_an_unpack_that_hands_back_a_copy_is_not_checked_against_the_original():
    a, b = leaves()
    with saved_tensors_hooks(lambda t: t.detach().clone(), ident):
        y = (a * b).sum()
    with torch.no_grad():
        a.add_(1.0)
    y.backward()  # the copies were taken before the change: they are what backward uses
    np.testing.assert_array_equal(b.grad.numpy(), [1.5, -0.5])


def test_a_custom_layer_output_saved_through_hooks_is_checked_too():
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            (y,) = ctx.saved_tensors
            return dy * y

    a, _ = leaves()
    with saved_tensors_hooks(ident, ident):
        y = Exp.apply(a)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.exp(a.detach().numpy()), rtol=0, atol=0)
    with saved_tensors_hooks(ident, ident):
        y = Exp.apply(a)
    with torch.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()
