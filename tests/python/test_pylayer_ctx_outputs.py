"""A custom layer that keeps its own output as a ctx attribute (``ctx.y = y``).

The attribute is held without owning the layer's node (no reference cycle), and reading
it gives a tensor with the same values, the same memory and the same place in the graph
as the output — so backward formulas that use it, including differentiated ones
(``create_graph=True``), are right.
"""

from __future__ import annotations

import gc
import weakref

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


class Exp(PyLayer):
    """exp whose backward reads the output from a ctx attribute."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, g):
        return g * ctx.y


class ExpTorch(Function):
    """The torch dialect of ``Exp``."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, g):
        return g * ctx.y


@pytest.mark.parametrize("layer", [Exp, ExpTorch])
def test_backward_reads_the_output_attribute(layer):
    x = fg.tensor([0.5, -1.0, 2.0], dtype="float64", requires_grad=True)
    layer.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, -1.0, 2.0]), rtol=1e-12)


def test_second_order_through_the_output_attribute():
    # d2/dx2 exp(x) = exp(x): only right if ctx.y keeps its place in the graph
    x = fg.tensor([0.3, 1.2], dtype="float64", requires_grad=True)
    (g,) = fg.grad(Exp.apply(x).sum(), [x], create_graph=True)
    (gg,) = fg.grad(g.sum(), [x])
    np.testing.assert_allclose(gg.numpy(), np.exp([0.3, 1.2]), rtol=1e-12)


def test_attribute_shares_memory_and_graph_position_with_the_output():
    seen = {}

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.y = y
            return y

        @staticmethod
        def backward(ctx, g):
            seen["y"] = ctx.y
            return g * 2

    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = Keep.apply(x)
    y.sum().backward(retain_graph=True)
    kept = seen["y"]
    np.testing.assert_array_equal(kept.numpy(), y.numpy())
    assert kept.grad_fn is not None and kept.grad_fn.name() == y.grad_fn.name()
    with fg.no_grad():
        y[0] = 7.0  # same memory
    assert kept.numpy()[0] == 7.0


def test_attributes_set_or_deleted_after_forward_behave_normally():
    box = {}

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.y = y
            ctx.other = "kept as is"
            box["ctx"] = ctx
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = fg.tensor([1.0], requires_grad=True)
    y = Keep.apply(x)
    ctx = box["ctx"]
    assert ctx.other == "kept as is"
    np.testing.assert_array_equal(ctx.y.numpy(), [2.0])
    ctx.y = 5  # replaces the output attribute
    assert ctx.y == 5
    del ctx.y
    with pytest.raises(AttributeError, match="no attribute 'y'"):
        _ = ctx.y
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = ctx.missing
    del y


def test_deleting_an_output_attribute():
    box = {}

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.y = x * 2
            box["ctx"] = ctx
            return ctx.y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Keep.apply(fg.tensor([1.0], requires_grad=True))
    del box["ctx"].y
    assert not hasattr(box["ctx"], "y")
    del y


def test_output_modified_in_place_cannot_be_differentiated_through_the_attribute():
    x = fg.tensor([0.5, 1.5], dtype="float64", requires_grad=True)
    y = Exp.apply(x)
    y.mul_(1.0)  # in place on a non-leaf output: the attribute's history is stale
    with pytest.raises(RuntimeError, match="modified in place"):
        fg.grad(y.sum(), [x], create_graph=True)


def test_a_chain_of_layers_holding_outputs_forms_no_cycle():
    gc.collect()
    gc.disable()
    try:
        refs = []

        class Keep(PyLayer):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.y = y
                refs.append(weakref.ref(ctx))
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 2

        h = fg.tensor([1.0], requires_grad=True)
        for _ in range(10):
            h = Keep.apply(h)
        del h
        # reference counting alone frees every ctx: nothing waits for the collector
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


class SquareSavingOutput(Function):
    """x**2 (computed in NumPy and wrapped with from_numpy, so NumPy still holds the
    memory, or computed by ferrograd) with the output saved for a backward that
    differentiates through it."""

    numpy = True

    @classmethod
    def forward(cls, ctx, x):
        y = fg.from_numpy(x.detach().numpy() ** 2) if cls.numpy else x * x
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y / x * 2  # = 2 x g, through the saved output


class SquareSavingOutputPlain(SquareSavingOutput):
    numpy = False


@pytest.mark.parametrize("layer", [SquareSavingOutput, SquareSavingOutputPlain])
@pytest.mark.parametrize("hooked", [False, True])
def test_a_saved_output_keeps_its_place_in_the_graph(layer, hooked):
    """The saved output is stored as a copy (NumPy could change its memory unseen) or as
    a hook's pack, yet it is still this layer's output: double backward must see
    d(2 x g)/dx through y = x**2, not treat y as a constant (which gave -2 before)."""
    x = fg.tensor([1.5, 2.0], dtype=fg.float64, requires_grad=True)
    ident = (lambda t: t, lambda t: t)
    with fg.autograd.graph.saved_tensors_hooks(*ident) if hooked else _nothing():
        out = layer.apply(x)
    (g,) = fg.autograd.grad(out.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 4.0])
    (gg,) = fg.autograd.grad(g.sum(), x)
    # d/dx of 2 * y / x with y = x**2: 2 (dy/dx x - y) / x**2 = 2 (torch 2.15 agrees)
    np.testing.assert_allclose(gg.numpy(), [2.0, 2.0])


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.parametrize("layer_base", [PyLayer, Function])
def test_a_ctx_holding_an_output_is_still_a_function_ctx(layer_base):
    # such a ctx reads the attribute through a subclass (FunctionCtx itself has no
    # __getattr__, for speed); to the user it is a FunctionCtx like any other
    box = {}

    class Keep(layer_base):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.y = y
            box["ctx"] = ctx
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Keep.apply(fg.tensor([1.0], requires_grad=True))
    ctx = box["ctx"]
    assert isinstance(ctx, fg.autograd.FunctionCtx)
    assert isinstance(ctx, fg.autograd.PyLayerContext)
    assert type(ctx).__name__ == "FunctionCtx"
    np.testing.assert_array_equal(ctx.y.numpy(), [2.0])
    with pytest.raises(AttributeError, match="'FunctionCtx' object has no attribute 'zz'"):
        _ = ctx.zz
    ctx.z = 3
    del ctx.z
    with pytest.raises(AttributeError, match="no attribute 'z'"):
        del ctx.z
    del y
