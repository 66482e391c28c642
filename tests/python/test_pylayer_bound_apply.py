"""Each custom layer class gets an ``apply`` bound to itself (a builtin function CPython
calls without a method object or argument tuple, ``src/python/pylayer/entry.rs``); it
must behave exactly as the base classes' ``classmethod`` ``apply`` for every class in a
hierarchy, including classes whose own ``__init_subclass__`` does not call ours."""

from __future__ import annotations

import types

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


def _leaf(values):
    return fg.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        return g * 2.0


class Triple(Double):
    @staticmethod
    def forward(ctx, x):
        return x * 3.0

    @staticmethod
    def backward(ctx, g):
        return g * 3.0


def _grad(layer, values=(1.0, 2.0)):
    x = _leaf(values)
    y = layer.apply(x)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__


def test_apply_is_bound_to_its_own_class():
    assert isinstance(Double.apply, types.BuiltinFunctionType)
    assert Double.apply.__self__ is Double
    assert Triple.apply.__self__ is Triple
    assert Triple().apply.__self__ is Triple


def test_subclass_runs_its_own_forward_and_backward():
    y, g, name = _grad(Triple)
    np.testing.assert_allclose(y, [3.0, 6.0])
    np.testing.assert_allclose(g, [3.0, 3.0])
    assert name == "TripleBackward"
    y, g, name = _grad(Double)
    np.testing.assert_allclose(y, [2.0, 4.0])
    np.testing.assert_allclose(g, [2.0, 2.0])
    assert name == "DoubleBackward"


def test_init_subclass_without_super_keeps_apply_right():
    class Quiet(Double):
        def __init_subclass__(cls, **kwargs):  # does not call super()
            pass

    class Five(Quiet):
        @staticmethod
        def forward(ctx, x):
            return x * 5.0

        @staticmethod
        def backward(ctx, g):
            return g * 5.0

    y, g, _ = _grad(Five)
    np.testing.assert_allclose(y, [5.0, 10.0])
    np.testing.assert_allclose(g, [5.0, 5.0])
    y, g, _ = _grad(Quiet)
    np.testing.assert_allclose(y, [2.0, 4.0])


def test_user_apply_is_kept_in_the_class_and_its_subclasses():
    calls = []

    class Custom(Double):
        @classmethod
        def apply(cls, *args):
            calls.append(cls)
            return super().apply(*args)

    class Sub(Custom):
        pass

    y, _, _ = _grad(Sub)
    np.testing.assert_allclose(y, [2.0, 4.0])
    assert calls == [Sub]


def test_keywords_and_non_tensor_arguments():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor=1.0, *, shift=0.0):
            ctx.factor = factor
            return x * factor + shift

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None, None

    x = _leaf([1.0, -1.0])
    y = Scale.apply(x, shift=1.0, factor=4.0)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [5.0, -3.0])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])
    x2 = _leaf([2.0])
    Scale.apply(factor=3.0, x=x2).sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), [3.0])


def test_setup_context_style():
    class Sq(Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = _leaf([3.0])
    Sq.apply(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0])
    assert fg.autograd.gradcheck(Sq.apply, (_leaf([0.5, -1.5]),))


def test_paddle_dialect_layer():
    class Cube(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return 3 * x * x * g

    assert Cube.apply.__self__ is Cube
    x = _leaf([2.0])
    Cube.apply(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [12.0])


def test_forward_error_comes_out_unchanged():
    class Boom(Function):
        @staticmethod
        def forward(ctx, x):
            raise KeyError("boom in forward")

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(KeyError, match="boom in forward") as info:
        Boom.apply(_leaf([1.0]))
    assert any(e.name == "forward" for e in info.traceback)


def test_wrong_call_to_a_bound_apply_raises():
    with pytest.raises(TypeError):
        Double.apply(_leaf([1.0]), _leaf([2.0]))


def test_layer_class_made_with_type():
    Made = type(
        "Made",
        (Function,),
        {
            "forward": staticmethod(lambda ctx, x: x * 7.0),
            "backward": staticmethod(lambda ctx, g: g * 7.0),
        },
    )
    assert Made.apply.__self__ is Made
    _, g, name = _grad(Made)
    np.testing.assert_allclose(g, [7.0, 7.0])
    assert name == "MadeBackward"
