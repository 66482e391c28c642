"""Custom layers: the ``ctx`` object (saved tensors, attributes, ``needs_input_grad``,
``mark_*``), [A] of ``docs/semantics.md``."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
from ferrograd.autograd import Function, PyLayer
from pylayer_support import DIALECTS, arr, assert_values, leaf


class TestCtx:
    @DIALECTS
    def test_ctx_attributes_and_identity_reach_backward(self, base):  # [A1, A10]
        seen = {}

        class Attrs(base):
            @staticmethod
            def forward(ctx, x, tag):
                ctx.tag = tag
                ctx.table = {"k": [1, 2]}
                ctx.fn = np.sum
                seen["fwd"] = ctx
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen["bwd"] = ctx
                seen["attrs"] = (ctx.tag, ctx.table, ctx.fn)
                return g * 2

        x = leaf()
        Attrs.apply(x, "hello").sum().backward()
        assert seen["fwd"] is seen["bwd"]
        assert seen["attrs"] == ("hello", {"k": [1, 2]}, np.sum)
        assert isinstance(seen["fwd"], fg.autograd.FunctionCtx)
        assert fg.autograd.PyLayerContext is fg.autograd.FunctionCtx

    def test_needs_input_grad_in_forward_and_backward(self):  # [A17]
        seen = {}

        class NIG(Function):
            @staticmethod
            def forward(ctx, x, y, k):
                seen["fwd"] = ctx.needs_input_grad
                return x * y * k

            @staticmethod
            def backward(ctx, g):
                seen["bwd"] = ctx.needs_input_grad
                return g, None, None

        x, y = leaf(), fg.tensor([1.0, 1.0])
        NIG.apply(x, y, 3).sum().backward()
        assert seen["fwd"] == (True, False, False)
        assert seen["bwd"] == (True, False, False)
        assert all(type(v) is bool for v in seen["fwd"])

    def test_needs_input_grad_is_all_false_under_no_grad(self):  # [A17, C2]
        seen = {}

        class NIG(Function):
            @staticmethod
            def forward(ctx, x, y):
                seen["fwd"] = ctx.needs_input_grad
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, g

        with fg.no_grad():
            NIG.apply(leaf(), leaf())
        assert seen["fwd"] == (False, False)

    @DIALECTS
    def test_nothing_saved(self, base):  # [A11]
        seen = {}

        class NoSave(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen["method"] = ctx.saved_tensor()
                seen["property"] = ctx.saved_tensors
                return g * 2

        NoSave.apply(leaf()).sum().backward()
        assert seen["method"] is None
        assert seen["property"] == ()
        assert type(seen["property"]) is tuple

    @DIALECTS
    def test_saved_tensor_method_and_saved_tensors_property(self, base):  # [A11]
        seen = {}

        class Save(base):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x * y

            @staticmethod
            def backward(ctx, g):
                seen["method"] = ctx.saved_tensor()
                seen["property"] = ctx.saved_tensors
                a, b = ctx.saved_tensors
                return g * b, g * a

        x, y = leaf((1.0, 2.0)), leaf((3.0, 4.0))
        Save.apply(x, y).sum().backward()
        assert type(seen["method"]) is tuple and len(seen["method"]) == 2
        assert type(seen["property"]) is tuple and len(seen["property"]) == 2
        assert_values(seen["method"][0], [1.0, 2.0])
        assert_values(seen["property"][1], [3.0, 4.0])
        assert_values(x.grad, [3.0, 4.0])
        assert_values(y.grad, [1.0, 2.0])

    @DIALECTS
    def test_save_for_backward_twice_last_call_wins(self, base):  # [A12]
        seen = {}

        class Twice(base):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x)
                ctx.save_for_backward(y)
                return x * y

            @staticmethod
            def backward(ctx, g):
                seen["saved"] = ctx.saved_tensors
                return g, g

        x, y = leaf([1.0]), leaf([2.0])
        Twice.apply(x, y).sum().backward()
        assert len(seen["saved"]) == 1
        assert_values(seen["saved"][0], [2.0])
        assert seen["saved"][0] is y

    def test_paddle_saves_non_tensor_values(self):  # [A13]
        seen = {}

        class SaveMixed(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3, None, "abc")
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen["saved"] = ctx.saved_tensor()
                return g * seen["saved"][1]

        x = leaf()
        SaveMixed.apply(x).sum().backward()
        saved = seen["saved"]
        assert [type(v).__name__ for v in saved] == ["Tensor", "int", "NoneType", "str"]
        assert saved[1:] == (3, None, "abc")
        assert saved[0] is x
        assert_values(x.grad, [3.0, 3.0])

    @DIALECTS
    def test_saved_input_identity(self, base):  # [A14]
        seen = {}

        class Ident(base):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.save_for_backward(x, y)
                seen["x"] = x
                return y

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                a2, _ = ctx.saved_tensors
                seen["is_x"] = a is seen["x"]
                seen["stable"] = a is a2
                seen["b"] = arr(b).tolist()
                return g * 2

        x = leaf()
        Ident.apply(x).sum().backward()
        assert seen["is_x"] is True
        assert seen["stable"] is True
        assert seen["b"] == [2.0, 4.0]
        assert_values(x.grad, [2.0, 2.0])

    @DIALECTS
    def test_saved_tensors_inside_forward_is_empty(self, base):  # [A16]
        seen = {}

        class Peek(base):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                seen["property"] = ctx.saved_tensors
                try:
                    ctx.saved_tensors[0]
                except IndexError as e:
                    seen["index_error"] = e
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen["bwd"] = ctx.saved_tensors
                return g

        x = leaf()
        Peek.apply(x).sum().backward()
        assert seen["property"] == ()
        assert isinstance(seen.get("index_error"), IndexError)
        assert len(seen["bwd"]) == 1 and seen["bwd"][0] is x

    def test_setup_context_style_function(self):  # [A18]
        seen = {}

        class SetupCtx(Function):
            @staticmethod
            def forward(x, k):
                seen["grad_mode"] = fg.is_grad_enabled()
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                seen["output"] = output
                ctx.k = k
                ctx.save_for_backward(x)

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                seen["saved"] = x
                return g * ctx.k, None

        x = leaf()
        y = SetupCtx.apply(x, 5)
        assert seen["grad_mode"] is False
        assert_values(seen["output"], [5.0, 10.0])
        assert y.grad_fn is not None
        y.sum().backward()
        assert_values(x.grad, [5.0, 5.0])
        assert seen["saved"] is x
