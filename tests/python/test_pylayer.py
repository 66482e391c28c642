"""Custom differentiable layers: ``ferrograd.autograd.PyLayer`` (Paddle dialect) and
``ferrograd.autograd.Function`` (PyTorch dialect): definition, ``apply`` and outputs.

Every rule of ``docs/semantics.md`` that concerns layers has a test in this file or its
siblings (``test_pylayer_*.py``); the item of the contract each comes from is named in
brackets (its section letter, A–M). Expected values are worked out by hand, or by finite
differences through ``check_grad``.
"""

from __future__ import annotations

import ferrograd as fg
import pytest
from ferrograd.autograd import Function, PyLayer
from pylayer_support import DIALECTS, arr, assert_values, leaf

# ---------------------------------------------------------------------------------------
# A. Definition, apply, ctx
# ---------------------------------------------------------------------------------------


class Scale(PyLayer):
    @staticmethod
    def forward(ctx, x, k, scale=1.0):
        ctx.k, ctx.scale = k, scale
        return x * scale * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale * ctx.k


class ScaleT(Function):
    @staticmethod
    def forward(ctx, x, k, scale=1.0):
        ctx.k, ctx.scale = k, scale
        return x * scale * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale * ctx.k, None, None


class TestApply:
    def test_paddle_positional_and_keyword_arguments(self):  # [A1]
        x = leaf((1.0, 1.0))
        y = Scale.apply(x, 3, scale=2.0)
        assert_values(y, [6.0, 6.0])
        assert y.requires_grad is True
        assert y.stop_gradient is False
        y.sum().backward()
        assert_values(x.grad, [6.0, 6.0])

    def test_paddle_all_keyword_arguments(self):  # [A1]
        x = leaf((1.0, 1.0))
        y = Scale.apply(x=x, k=3, scale=2.0)
        y.sum().backward()
        assert_values(x.grad, [6.0, 6.0])

    def test_torch_one_gradient_per_argument(self):  # [A1, A2]
        x = leaf((1.0, 1.0))
        y = ScaleT.apply(x, 3, scale=2.0)
        assert y.grad_fn is not None
        assert y.grad_fn.name() == "ScaleTBackward"
        y.sum().backward()
        assert_values(x.grad, [6.0, 6.0])

    def test_node_name_follows_each_subclass(self):
        # the name is computed once per class: a subclass of a layer gets its own
        class Outer(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, dy):
                return dy * 2

        class Inner(Outer):
            pass

        x = leaf((1.0, 1.0))
        assert Outer.apply(x).grad_fn.name() == "OuterBackward"
        assert Inner.apply(x).grad_fn.name() == "InnerBackward"
        # applied to a class that is not a PyLayer subclass, the name is still formed
        plain = type("Plain", (), {"forward": Outer.forward, "backward": Outer.backward})
        y = fg._core._apply_paddle(plain, x)
        assert y.grad_fn.name() == "PlainBackward"
        y.sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    def test_torch_one_gradient_per_tensor_input_is_accepted(self):
        class OnePerTensor(Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = leaf()
        OnePerTensor.apply(x, 3).sum().backward()
        assert_values(x.grad, [3.0, 3.0])

    def test_paddle_one_gradient_per_argument_is_accepted(self):  # [A2]
        class PerArg(PyLayer):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * 3, None

        x = leaf()
        PerArg.apply(x, 3).sum().backward()
        assert_values(x.grad, [3.0, 3.0])

    @DIALECTS
    def test_trailing_nones_are_accepted(self, base):  # [B2]
        class Trailing(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None

        x = leaf()
        Trailing.apply(x).sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    def test_gradient_for_a_non_tensor_argument_is_an_error(self):  # [B8]
        class GradForInt(Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g

        y = GradForInt.apply(leaf(), 2)
        with pytest.raises(RuntimeError, match=r"GradForInt.*position 1"):
            y.sum().backward()

    @DIALECTS
    def test_tensor_passed_by_keyword_is_an_input(self, base):  # [A3]
        seen = {}

        class KwTensor(base):
            @staticmethod
            def forward(ctx, x, y=None):
                seen["fwd"] = ctx.needs_input_grad
                return x * y

            @staticmethod
            def backward(ctx, g):
                seen["bwd"] = ctx.needs_input_grad
                return g * 2, g * 3

        x, y = leaf(), leaf()
        out = KwTensor.apply(x, y=y)
        assert out.requires_grad is True
        out.sum().backward()
        assert_values(x.grad, [2.0, 2.0])
        assert_values(y.grad, [3.0, 3.0])
        assert seen["fwd"] == (True, True)
        assert seen["bwd"] == (True, True)

    def test_only_a_keyword_tensor_requires_grad(self):  # [A3]
        class KwOnly(PyLayer):
            @staticmethod
            def forward(ctx, x, y=None):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return None, g * 3

        x, y = fg.tensor([1.0, 2.0]), leaf()
        out = KwOnly.apply(x, y=y)
        assert out.requires_grad is True
        out.sum().backward()
        assert x.grad is None
        assert_values(y.grad, [3.0, 3.0])

    @DIALECTS
    def test_keyword_tensors_follow_forward_parameter_order(self, base):  # [A3, A17]
        seen = {}

        class Ordered(base):
            @staticmethod
            def forward(ctx, x, y):
                seen["nig"] = ctx.needs_input_grad
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g * 2, g * 3  # d/dx, d/dy

        a, b = leaf(), fg.tensor([1.0, 1.0])
        Ordered.apply(y=b, x=a).sum().backward()
        assert seen["nig"] == (True, False)
        a, b = leaf(), leaf()
        Ordered.apply(y=b, x=a).sum().backward()
        assert_values(a.grad, [2.0, 2.0])
        assert_values(b.grad, [3.0, 3.0])


class TestOutputs:
    def test_paddle_non_tensor_outputs_pass_through_and_get_no_grad(self):  # [A4]
        got = []

        class Mixed(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5, "s", None, x * 3

            @staticmethod
            def backward(ctx, *gs):
                got.append(gs)
                return gs[0] * 2 + gs[-1] * 3

        x = leaf()
        out = Mixed.apply(x)
        assert isinstance(out, tuple)
        assert [type(o).__name__ for o in out] == ["Tensor", "int", "str", "NoneType", "Tensor"]
        assert out[1:4] == (5, "s", None)
        (out[0].sum() + out[4].sum()).backward()
        (gs,) = got
        assert len(gs) == 2
        assert_values(gs[0], [1.0, 1.0])
        assert_values(gs[1], [1.0, 1.0])
        assert_values(x.grad, [5.0, 5.0])

    def test_torch_gets_one_grad_per_output_with_none_for_non_tensors(self):  # [A4]
        got = []

        class MixedT(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5, "s", None, x * 3

            @staticmethod
            def backward(ctx, *gs):
                got.append(gs)
                return gs[0] * 2 + gs[-1] * 3

        x = leaf()
        out = MixedT.apply(x)
        assert [type(o).__name__ for o in out] == ["Tensor", "int", "str", "NoneType", "Tensor"]
        (out[0].sum() + out[4].sum()).backward()
        (gs,) = got
        assert len(gs) == 5
        assert gs[1] is None and gs[2] is None and gs[3] is None
        assert_values(gs[0], [1.0, 1.0])
        assert_values(gs[4], [1.0, 1.0])
        assert_values(x.grad, [5.0, 5.0])

    @DIALECTS
    @pytest.mark.parametrize(
        "make, kind, length",
        [
            (lambda x: [x * 2, x * 3], list, 2),
            (lambda x: (x * 2, x * 3), tuple, 2),
            (lambda x: (x * 2,), tuple, 1),
            (lambda x: [x * 2], list, 1),
        ],
        ids=["list", "tuple", "1-tuple", "1-list"],
    )
    def test_container_type_is_kept(self, base, make, kind, length):  # [A5]
        class Container(base):
            @staticmethod
            def forward(ctx, x):
                return make(x)

            @staticmethod
            def backward(ctx, *gs):
                return gs[0] * 2

        x = leaf()
        out = Container.apply(x)
        assert type(out) is kind
        assert len(out) == length
        assert all(o.requires_grad for o in out)
        out[0].sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    @DIALECTS
    def test_single_tensor_output_is_returned_bare(self, base):  # [A5]
        class Bare(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        out = Bare.apply(leaf())
        assert isinstance(out, fg.Tensor)

    @pytest.mark.parametrize(
        "value",
        [lambda x: None, lambda x: 1, lambda x: {"a": x * 2}, lambda x: (1, "s"), lambda x: []],
        ids=["None", "int", "dict", "tuple-of-non-tensors", "empty-list"],
    )
    @pytest.mark.parametrize("requires_grad", [True, False])
    def test_paddle_forward_without_tensor_output_is_a_value_error(self, value, requires_grad):
        class RetNothing(PyLayer):  # [A6]
            @staticmethod
            def forward(ctx, x):
                return value(x)

            @staticmethod
            def backward(ctx, g):
                return g

        x = fg.tensor([1.0, 2.0], requires_grad=requires_grad)
        with pytest.raises(ValueError, match="RetNothing") as info:
            RetNothing.apply(x)
        assert "Tensor" in str(info.value)

    @pytest.mark.parametrize(
        "value, check",
        [
            (lambda x: None, lambda r: r is None),
            (lambda x: 1, lambda r: r == 1),
            (lambda x: {"a": x * 2}, lambda r: list(r) == ["a"] and arr(r["a"]).tolist() == [2, 4]),
        ],
        ids=["None", "int", "dict"],
    )
    def test_torch_forward_may_return_non_tensors(self, value, check):  # [A6]
        class RetAnything(Function):
            @staticmethod
            def forward(ctx, x):
                return value(x)

            @staticmethod
            def backward(ctx, g):
                return g

        assert check(RetAnything.apply(leaf()))
