"""Custom layers: higher-order gradients through custom backward formulas and
``once_differentiable`` ([D] of ``docs/semantics.md``)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from ferrograd.autograd import Function, PyLayer, once_differentiable
from pylayer_support import assert_values, leaf

# ---------------------------------------------------------------------------------------
# D. Higher order
# ---------------------------------------------------------------------------------------


class CusTanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = fg.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - fg.square(y))


class CusExp(Function):
    @staticmethod
    def forward(ctx, x):
        y = fg.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class CusSinMul(PyLayer):
    """sin(x) * w, saving its inputs (not its output)."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return fg.sin(x) * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensor()
        return g * fg.cos(x) * w, g * fg.sin(x)


class TestHigherOrder:
    @pytest.mark.parametrize("layer", [CusTanh, CusExp], ids=["tanh", "exp"])
    def test_second_derivatives_match_finite_differences(self, layer):  # [D3]
        a = np.array([[-1.2, 0.3, 0.8], [0.1, -0.5, 1.1]])
        check_grad(layer.apply, a, second_order=True)
        # check_grad skips the second-order part if the first-order result has no graph
        x = fg.tensor(a, requires_grad=True)
        (g,) = fg.grad(layer.apply(x).sum(), x, create_graph=True)
        assert g.requires_grad is True

    def test_second_derivatives_with_saved_inputs(self):  # [D3]
        a = np.array([0.4, -1.3, 2.0])
        w = np.array([1.5, -0.5, 0.7])
        check_grad(CusSinMul.apply, a, w, second_order=True)

    def test_squared_layer_second_derivative(self):  # [D3]
        class Sq(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensor()
                return 2 * x * g

        x = leaf()
        (g,) = fg.grad(Sq.apply(x).sum(), x, create_graph=True)
        assert_values(g, [2.0, 4.0])
        assert g.requires_grad is True
        (gg,) = fg.grad(g.sum(), x)
        assert_values(gg, [2.0, 2.0])

    def test_layer_applied_inside_a_backward_is_recorded(self):  # [D2]
        calls = []

        class SqL(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                calls.append("SqL.backward")
                (x,) = ctx.saved_tensor()
                return 2 * x * g

        class Cube(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensor()
                s = SqL.apply(x)
                calls.append(("inner", s.requires_grad, s.grad_fn and s.grad_fn.name()))
                return 3 * s * g

        x = leaf()
        (g,) = fg.grad(Cube.apply(x).sum(), x, create_graph=True)
        assert_values(g, [3.0, 12.0])
        assert calls == [("inner", True, "SqLBackward")]
        (gg,) = fg.grad(g.sum(), x)
        assert_values(gg, [6.0, 12.0])
        assert calls[-1] == "SqL.backward"

    def test_layer_applied_to_the_incoming_grad_is_recorded(self):  # [D2]
        seen = []

        class Inner(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 3

            @staticmethod
            def backward(ctx, g):
                seen.append("inner-bwd")
                return g * 3

        class Outer(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 6

            @staticmethod
            def backward(ctx, g):
                r = Inner.apply(g)
                seen.append(("inner-out", r.requires_grad))
                return r * 2

        x = leaf()
        go = fg.ones([2], requires_grad=True)
        (g,) = fg.grad(Outer.apply(x), x, grad_outputs=go, create_graph=True)
        assert_values(g, [6.0, 6.0])
        assert seen == [("inner-out", True)]
        (ggo,) = fg.grad(g.sum(), go)
        assert_values(ggo, [6.0, 6.0])
        assert seen[-1] == "inner-bwd"


# ---------------------------------------------------------------------------------------
# D4. once_differentiable
# ---------------------------------------------------------------------------------------


class SqOnce(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        SqOnce.modes.append(fg.is_grad_enabled())
        (x,) = ctx.saved_tensor()
        return 2 * x * g

    modes: list = []


class TestOnceDifferentiable:
    def test_first_order_works(self):  # [D4]
        SqOnce.modes.clear()
        x = leaf()
        SqOnce.apply(x).sum().backward()
        assert_values(x.grad, [2.0, 4.0])
        (g,) = fg.grad(SqOnce.apply(x).sum(), x, create_graph=True)
        assert_values(g, [2.0, 4.0])
        assert SqOnce.modes == [False, False]  # runs without grad, even under create_graph

    def test_function_dialect(self):  # [D4]
        class CubeOnce(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        x = leaf()
        CubeOnce.apply(x).sum().backward()
        assert_values(x.grad, [3.0, 12.0])

    def test_differentiating_again_raises_when_the_incoming_grad_requires_grad(self):  # [D4]
        x = leaf()
        go = fg.ones([2], requires_grad=True)
        (g,) = fg.grad(SqOnce.apply(x), x, grad_outputs=go, create_graph=True)
        assert_values(g, [2.0, 4.0])
        with pytest.raises(RuntimeError, match="once_differentiable"):
            fg.grad(g.sum(), go)
        (g,) = fg.grad(SqOnce.apply(x), x, grad_outputs=go, create_graph=True)
        with pytest.raises(RuntimeError, match="once_differentiable"):
            g.sum().backward()

    def test_differentiating_again_wrt_the_input_raises_a_clear_error(self):  # [D4]
        x = leaf()
        (g,) = fg.grad(SqOnce.apply(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="once_differentiable"):
            fg.grad(g.sum(), x)

    def test_differentiating_again_wrt_the_input_with_grad_outputs(self):  # [D4]
        x = leaf()
        go = fg.ones([2], requires_grad=True)
        (g,) = fg.grad(SqOnce.apply(x), x, grad_outputs=go, create_graph=True)
        with pytest.raises(RuntimeError, match="once_differentiable"):
            fg.grad(g.sum(), x)
