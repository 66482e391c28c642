"""Custom differentiable layers: ``ferrograd.autograd.PyLayer`` (Paddle dialect) and
``ferrograd.autograd.Function`` (PyTorch dialect).

Every rule of ``docs/semantics.md`` that concerns layers has a test here; the item of the
contract each comes from is named in brackets (its section letter, A–M). Expected
values are worked out by hand, or by finite differences through ``check_grad``.
"""

from __future__ import annotations

import re
import traceback

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from ferrograd.autograd import Function, PyLayer, once_differentiable


def leaf(values=(1.0, 2.0)):
    """A float32 tensor that requires grad (the reference document's ``leaf()``)."""
    return fg.tensor(list(values), requires_grad=True)


def arr(t):
    return np.asarray(t.numpy(), dtype=np.float64)


def assert_values(t, expected):
    assert t is not None, "expected a tensor, got None"
    np.testing.assert_allclose(arr(t), np.asarray(expected, dtype=np.float64), rtol=1e-6, atol=1e-6)


def frame_names(exc):
    """(function name, file) of every frame of the traceback of ``exc``."""
    return [(f.name, f.filename) for f in traceback.extract_tb(exc.__traceback__)]


DIALECTS = pytest.mark.parametrize("base", [PyLayer, Function], ids=["paddle", "torch"])


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


# ---------------------------------------------------------------------------------------
# C/D. Graph construction and grad mode
# ---------------------------------------------------------------------------------------


class TestRecording:
    @DIALECTS
    def test_forward_runs_without_grad_and_backward_with_create_graph(self, base):  # [D1]
        modes = []

        class Mode(base):
            @staticmethod
            def forward(ctx, x):
                modes.append(("fwd", fg.is_grad_enabled()))
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                modes.append(("bwd", fg.is_grad_enabled()))
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = leaf()
        with fg.enable_grad():
            y = Mode.apply(x)
        y.sum().backward()
        assert modes == [("fwd", False), ("bwd", False)]
        assert fg.is_grad_enabled()
        modes.clear()
        (g,) = fg.grad(Mode.apply(x).sum(), x, create_graph=True)
        assert modes == [("fwd", False), ("bwd", True)]
        assert g.requires_grad is True
        assert fg.is_grad_enabled()

    @DIALECTS
    def test_ops_in_forward_are_not_recorded(self, base):  # [D1]
        seen = {}

        class Inside(base):
            @staticmethod
            def forward(ctx, x):
                t = x * 3
                seen["t"] = (t.requires_grad, t.grad_fn)
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return g * 5

        x = leaf()
        Inside.apply(x).sum().backward()
        assert seen["t"] == (False, None)
        assert_values(x.grad, [5.0, 5.0])  # the custom backward, not the ops' gradient

    @DIALECTS
    def test_no_node_and_no_backward_when_no_input_requires_grad(self, base):  # [C1]
        calls = []

        class Dbl(base):
            @staticmethod
            def forward(ctx, x, y):
                calls.append("fwd")
                return x * y

            @staticmethod
            def backward(ctx, g):
                calls.append("bwd")
                return g, g

        x, y = fg.tensor([1.0, 2.0]), fg.tensor([3.0, 4.0])
        out = Dbl.apply(x, y)
        assert_values(out, [3.0, 8.0])
        assert out.requires_grad is False
        assert out.stop_gradient is True
        assert out.grad_fn is None
        assert out.is_leaf is True
        assert calls == ["fwd"]
        # a later computation that does require grad never calls into the layer
        w = leaf()
        (out * w).sum().backward()
        assert_values(w.grad, [3.0, 8.0])
        assert calls == ["fwd"]
        assert x.grad is None and y.grad is None

    @DIALECTS
    def test_nothing_recorded_under_no_grad(self, base):  # [C2]
        calls = []

        class Dbl(base):
            @staticmethod
            def forward(ctx, x):
                calls.append("fwd")
                return x * 2

            @staticmethod
            def backward(ctx, g):
                calls.append("bwd")
                return g

        with fg.no_grad():
            out = Dbl.apply(leaf())
        assert out.requires_grad is False
        assert out.grad_fn is None
        assert calls == ["fwd"]

    @DIALECTS
    def test_layer_inside_forward_is_not_recorded(self, base):  # [D2]
        calls = []

        class Inner(base):
            @staticmethod
            def forward(ctx, x):
                return x * 3

            @staticmethod
            def backward(ctx, g):
                calls.append("inner")
                return g * 3

        class Outer(base):
            @staticmethod
            def forward(ctx, x):
                r = Inner.apply(x)
                calls.append(("inner-out", r.requires_grad))
                return r * 2

            @staticmethod
            def backward(ctx, g):
                return g * 6

        x = leaf()
        Outer.apply(x).sum().backward()
        assert calls == [("inner-out", False)]
        assert_values(x.grad, [6.0, 6.0])

    @DIALECTS
    def test_mark_non_differentiable(self, base):  # [C5]
        got = []

        class MND(base):
            @staticmethod
            def forward(ctx, x):
                a, b = x * 2, x * 3
                ctx.mark_non_differentiable(a)
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                got.append((ga, gb))
                return gb * 3

        x = leaf()
        a, b = MND.apply(x)
        assert a.requires_grad is False
        assert a.stop_gradient is True
        assert a.grad_fn is None
        assert b.requires_grad is True
        (a.sum() + b.sum()).backward()
        ((ga, gb),) = got
        assert ga is not None, "a non-differentiable output's gradient arrives as zeros"
        assert_values(ga, [0.0, 0.0])
        assert_values(gb, [1.0, 1.0])
        assert_values(x.grad, [3.0, 3.0])

    @DIALECTS
    def test_mark_non_differentiable_on_a_returned_input(self, base):  # [C5]
        class NDInput(base):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x, x * 2

            @staticmethod
            def backward(ctx, ga, gb):
                return gb * 2

        x = leaf()
        a, b = NDInput.apply(x * 1)
        assert b.requires_grad is True
        assert a.requires_grad is False

    @DIALECTS
    def test_integer_outputs_do_not_require_grad(self, base):  # [C7, L10]
        class IntOut(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2, (x * 2).astype("int64")

            @staticmethod
            def backward(ctx, g, gi):
                return g * 2

        x = leaf()
        a, i = IntOut.apply(x)
        assert a.requires_grad is True
        assert i.dtype == fg.int64
        # PyTorch's Function marks an integer output non-differentiable; Paddle's PyLayer
        # keeps it differentiable (issue 17; see test_dropin_pylayer_int_outputs.py)
        assert i.requires_grad is (base is not Function)

    @DIALECTS
    @pytest.mark.parametrize("flag", [None, True, False], ids=["default", "True", "False"])
    def test_set_materialize_grads(self, base, flag):  # [C6]
        got = []

        class Mat(base):
            @staticmethod
            def forward(ctx, x):
                if flag is not None:
                    ctx.set_materialize_grads(flag)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                got.append((g1, g2))
                return g1 * 2

        x = leaf()
        Mat.apply(x)[0].sum().backward()
        ((g1, g2),) = got
        assert_values(g1, [1.0, 1.0])
        if flag is False:
            assert g2 is None
        else:
            assert_values(g2, [0.0, 0.0])
        assert_values(x.grad, [2.0, 2.0])

    def test_hook_on_a_layer_output_replaces_the_gradient(self):  # [E6]
        got = []

        class Dbl(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                got.append(arr(g).tolist())
                return g * 2

        x = leaf()
        y = Dbl.apply(x)
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        assert got == [[10.0, 10.0]]
        assert_values(x.grad, [20.0, 20.0])


class TestReturnedInputs:
    @DIALECTS
    def test_returned_non_leaf_input_becomes_a_new_tensor_of_the_layer(self, base):  # [C3]
        class Ident(base):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = leaf()
        h = x * 1
        h_fn = h.grad_fn
        y = Ident.apply(h)
        assert y is not h
        assert y.grad_fn is not None and y.grad_fn.name() == "IdentBackward"
        assert h.grad_fn == h_fn  # the input's own graph is untouched
        assert h.grad_fn.name() != "IdentBackward"
        assert y.data_ptr() == h.data_ptr()  # shares the input's storage
        y.sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    @DIALECTS
    def test_returned_leaf_input(self, base):  # [C3]
        class Ident(base):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = leaf()
        y = Ident.apply(x)
        assert y is not x
        assert x.is_leaf is True and x.grad_fn is None
        assert y.is_leaf is False
        y.sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    def test_mark_not_inplace_gradient_reaches_backward(self):  # [C4]
        got = []

        class IdentNI(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_not_inplace(x)
                return x

            @staticmethod
            def backward(ctx, g):
                got.append(arr(g).tolist())
                return g * 2

        x = leaf()
        y = IdentNI.apply(x)
        assert y is not x
        assert y.grad_fn is not None
        y.sum().backward()
        assert got == [[1.0, 1.0]]
        assert_values(x.grad, [2.0, 2.0])  # Paddle 3.3.1 gives None here
        (g,) = fg.grad(IdentNI.apply(x).sum(), x)
        assert_values(g, [2.0, 2.0])

    def test_mark_not_inplace_on_a_non_leaf(self):  # [C4]
        class IdentNI(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_not_inplace(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = leaf()
        h = x * 3
        y = IdentNI.apply(h)
        assert y is not h
        assert h.grad_fn.name() != "IdentNIBackward"
        y.sum().backward()
        assert_values(x.grad, [6.0, 6.0])

    def test_mark_not_inplace_with_two_outputs(self):  # [C4]
        got = []

        class NI2(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_not_inplace(x)
                return x, x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                got.append((arr(g1).tolist(), arr(g2).tolist()))
                return g1 + g2 * 2

        x = leaf()
        a, b = NI2.apply(x)
        (a.sum() + b.sum()).backward()
        assert got == [([1.0, 1.0], [1.0, 1.0])]  # Paddle 3.3.1 passes g1 = [0, 0]
        assert_values(x.grad, [3.0, 3.0])

    @DIALECTS
    def test_mark_dirty_returns_the_input_rebased(self, base):  # [C8]
        class Dirty(base):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = leaf()
        h = x * 1
        v0 = h._version
        y = Dirty.apply(h)
        assert y is h
        assert h.grad_fn.name() == "DirtyBackward"
        assert h._version > v0
        assert_values(h, [2.0, 4.0])
        y.sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    @DIALECTS
    def test_mark_dirty_on_a_leaf_that_requires_grad_is_an_error(self, base):  # [C8]
        class DirtyLeaf(base):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        with pytest.raises(RuntimeError, match=r"DirtyLeaf.*leaf"):
            DirtyLeaf.apply(leaf())


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
# B. Validation of what backward returns
# ---------------------------------------------------------------------------------------


def make_layer(base, backward, name="Custom"):
    """The layer ``2 * x * y * ...`` over its tensor arguments, with the given backward."""

    def forward(ctx, *xs):
        out = xs[0] * 2
        for t in xs[1:]:
            out = out * t
        return out

    return type(
        name, (base,), {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    )


class TestBackwardResultValidation:
    @DIALECTS
    def test_too_few_gradients(self, base):  # [B1]
        layer = make_layer(base, lambda ctx, g: g, name="TooFew")
        y = layer.apply(leaf(), leaf())
        with pytest.raises(RuntimeError, match=r"TooFew.*expected 2.*got 1"):
            y.sum().backward()

    @DIALECTS
    def test_too_many_gradients(self, base):  # [B2]
        layer = make_layer(base, lambda ctx, g: (g, g), name="TooMany")
        y = layer.apply(leaf())
        with pytest.raises(RuntimeError, match=r"TooMany.*expected 1.*got 2"):
            y.sum().backward()

    def test_too_many_counts_name_both_conventions(self):  # [B1, B2]
        class Extra(PyLayer):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g, g

        y = Extra.apply(leaf(), 2)
        with pytest.raises(RuntimeError, match=r"Extra.*expected 1.*2.*got 3"):
            y.sum().backward()

    @DIALECTS
    @pytest.mark.parametrize(
        "shape, expected",
        [([1, 2], [1.0, 1.0]), ([3, 2], [3.0, 3.0]), ([4, 1, 2], [4.0, 4.0])],
        ids=["1x2", "3x2", "4x1x2"],
    )
    def test_broadcast_compatible_gradient_is_summed(self, base, shape, expected):  # [B4]
        layer = make_layer(base, lambda ctx, g: fg.ones(shape), name="Bcast")
        x = leaf()
        layer.apply(x).sum().backward()
        assert list(x.grad.shape) == [2]
        assert_values(x.grad, expected)

    @DIALECTS
    @pytest.mark.parametrize("shape", [[5], [2, 3]], ids=["5", "2x3"])
    def test_incompatible_gradient_shape_is_an_error(self, base, shape):  # [B4]
        layer = make_layer(base, lambda ctx, g: fg.ones(shape), name="WrongShape")
        x = leaf()
        y = layer.apply(x)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        msg = str(info.value)
        assert "WrongShape" in msg
        assert "index 0" in msg
        assert str(shape) in msg
        assert "[2]" in msg
        assert x.grad is None

    def test_incompatible_shape_names_the_index(self):  # [B4]
        layer = make_layer(PyLayer, lambda ctx, g: (g, fg.ones([4])), name="Two")
        y = layer.apply(leaf(), leaf())
        with pytest.raises(RuntimeError, match=r"Two.*index 1.*\[4\].*\[2\]"):
            y.sum().backward()

    @DIALECTS
    @pytest.mark.parametrize(
        "cast, expected",
        [
            (lambda g: g.astype("float64") * 2, [2.0, 2.0]),
            (lambda g: g.astype("int32"), [1.0, 1.0]),
        ],
        ids=["float64", "int32"],
    )
    def test_gradient_dtype_is_cast_to_the_input_dtype(self, base, cast, expected):  # [B5]
        layer = make_layer(base, lambda ctx, g: cast(g), name="WrongDtype")
        x = leaf()
        assert x.dtype == fg.float32
        layer.apply(x).sum().backward()
        assert x.grad.dtype == fg.float32
        assert_values(x.grad, expected)

    def test_gradient_dtype_is_cast_to_float64_input(self):  # [B5]
        layer = make_layer(PyLayer, lambda ctx, g: g.astype("float32") * 3, name="ToF64")
        x = fg.tensor([1.0, 2.0], dtype=fg.float64, requires_grad=True)
        layer.apply(x).sum().backward()
        assert x.grad.dtype == fg.float64
        assert_values(x.grad, [3.0, 3.0])

    @DIALECTS
    @pytest.mark.parametrize(
        "value, type_name",
        [(1.0, "float"), (np.ones(2, dtype=np.float32), "ndarray"), ([1.0, 1.0], "list")],
        ids=["float", "numpy", "list"],
    )
    def test_non_tensor_gradient_is_a_type_error(self, base, value, type_name):  # [B6]
        layer = make_layer(base, lambda ctx, g: (g, value), name="NonTensor")
        y = layer.apply(leaf(), leaf())
        with pytest.raises(TypeError) as info:
            y.sum().backward()
        msg = str(info.value)
        assert "NonTensor" in msg
        assert "position 1" in msg
        assert type_name in msg

    @DIALECTS
    def test_none_for_an_input_that_needs_grad_means_no_gradient(self, base):  # [B7]
        layer = make_layer(base, lambda ctx, g: None, name="NoneGrad")
        x = leaf()
        layer.apply(x).sum().backward()
        assert x.grad is None
        with pytest.raises(RuntimeError, match="allow_unused=True"):
            fg.grad(layer.apply(x).sum(), x)
        assert fg.grad(layer.apply(x).sum(), x, allow_unused=True) == (None,)

    @DIALECTS
    def test_none_for_one_of_two_inputs(self, base):  # [B7]
        layer = make_layer(base, lambda ctx, g: (None, g), name="NoneOne")
        x, y = leaf(), leaf()
        layer.apply(x, y).sum().backward()
        assert x.grad is None
        assert_values(y.grad, [1.0, 1.0])

    @DIALECTS
    def test_gradient_for_an_input_that_needs_none_is_dropped(self, base):  # [B8]
        layer = make_layer(base, lambda ctx, g: (g, g * 5), name="GradForSG")
        x, y = leaf(), fg.tensor([1.0, 1.0])
        layer.apply(x, y).sum().backward()
        assert_values(x.grad, [1.0, 1.0])
        assert y.grad is None


# ---------------------------------------------------------------------------------------
# F. Exceptions
# ---------------------------------------------------------------------------------------


class Boom(Exception):
    pass


class TestExceptions:
    @DIALECTS
    @pytest.mark.parametrize("grad_on", [True, False], ids=["grad", "no_grad"])
    def test_exception_in_forward_propagates_unchanged(self, base, grad_on):  # [F1]
        err = Boom("boom-forward")

        class ExcF(base):
            @staticmethod
            def forward(ctx, x):
                assert not fg.is_grad_enabled()
                raise err

            @staticmethod
            def backward(ctx, g):
                return g

        with fg.set_grad_enabled(grad_on):
            with pytest.raises(Boom) as info:
                ExcF.apply(leaf())
            assert fg.is_grad_enabled() is grad_on
        assert info.value is err
        assert ("forward", __file__) in frame_names(info.value)

    @DIALECTS
    @pytest.mark.parametrize("exc_type", [KeyError, ValueError, Boom, Exception])
    def test_exception_in_backward_propagates_unchanged(self, base, exc_type):  # [F2, F3]
        err = exc_type("boom-backward")

        class ExcB(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise err

        x = leaf()
        y = ExcB.apply(x)
        with pytest.raises(exc_type) as info:
            y.sum().backward()
        assert info.value is err
        assert type(info.value) is exc_type
        assert ("backward", __file__) in frame_names(info.value)
        assert fg.is_grad_enabled() is True
        assert x.grad is None

    def test_exception_in_backward_under_create_graph_restores_grad_mode(self):  # [F3]
        err = Boom("boom")

        class ExcB(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise err

        x = leaf()
        with pytest.raises(Boom) as info:
            fg.grad(ExcB.apply(x).sum(), x, create_graph=True)
        assert info.value is err
        assert fg.is_grad_enabled() is True
        with fg.no_grad():
            y = ExcB.apply(x)
            assert fg.is_grad_enabled() is False
        assert y.requires_grad is False

    def test_backward_works_again_after_a_failure(self):  # [F3]
        fail = [True]

        class Flaky(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                if fail[0]:
                    raise Boom("once")
                return g * 2

        x = leaf()
        with pytest.raises(Boom):
            Flaky.apply(x).sum().backward()
        fail[0] = False
        Flaky.apply(x).sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    def test_exception_in_a_hook_on_a_layer_output(self):  # [E6, F2]
        err = Boom("boom-hook")
        calls = []

        class Dbl(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                calls.append("bwd")
                return g * 2

        def hook(g):
            raise err

        x = leaf()
        y = Dbl.apply(x)
        handle = y.register_hook(hook)
        with pytest.raises(Boom) as info:
            y.sum().backward(retain_graph=True)
        assert info.value is err
        assert ("hook", __file__) in frame_names(info.value)
        assert calls == [] and x.grad is None
        assert fg.is_grad_enabled() is True
        handle.remove()
        y.sum().backward()
        assert calls == ["bwd"]
        assert_values(x.grad, [2.0, 2.0])

    def test_missing_forward_is_not_implemented_at_apply(self):  # [A8]
        class NoForward(PyLayer):
            @staticmethod
            def backward(ctx, g):
                return g

        class NoForwardT(Function):
            @staticmethod
            def backward(ctx, g):
                return g

        with pytest.raises(NotImplementedError, match="forward"):
            NoForward.apply(leaf())
        with pytest.raises(NotImplementedError, match="forward"):
            NoForwardT.apply(leaf())

    @DIALECTS
    def test_missing_backward_is_not_implemented_at_backward(self, base):  # [A8]
        class NoBackward(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        x = leaf()
        y = NoBackward.apply(x)  # no error yet
        assert y.requires_grad is True
        with pytest.raises(NotImplementedError, match="backward"):
            y.sum().backward()
        assert x.grad is None

    @DIALECTS
    def test_backward_with_too_many_parameters(self, base):  # [B3]
        class TooManyParams(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g, h):
                return g

        y = TooManyParams.apply(leaf())
        with pytest.raises(TypeError, match="'h'"):
            y.sum().backward()


# ---------------------------------------------------------------------------------------
# C10. Saved tensors modified in place; E. retain_graph
# ---------------------------------------------------------------------------------------


class TestSavedVersions:
    @DIALECTS
    def test_saved_input_modified_in_place_before_backward(self, base):  # [C10, L7]
        class SaveIn(base):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x

        x = leaf()
        h = x * 1
        y = SaveIn.apply(h)
        h.add_(fg.ones([2]))
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        msg = str(info.value)
        assert "SaveIn" in msg
        assert "[2]" in msg
        assert re.search(r"version 0\b", msg) and re.search(r"version 1\b", msg), msg
        assert x.grad is None

    def test_saved_output_modified_in_place_before_backward(self):  # [C10]
        class SaveOut(PyLayer):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensor()
                return g * y

        x = leaf()
        y = SaveOut.apply(x)
        y.add_(fg.ones([2]))
        with pytest.raises(RuntimeError, match=r"SaveOut.*\[2\].*version 0.*version 1"):
            y.sum().backward()

    def test_saved_input_untouched_gives_the_right_values(self):  # [C10]
        class SaveIn(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensor()
                return g * x

        x = leaf()
        h = x * 1
        y = SaveIn.apply(h)
        h2 = h + 1  # out of place: no version bump
        y.sum().backward()
        assert_values(x.grad, [1.0, 2.0])
        assert_values(h2, [2.0, 3.0])


class Sq(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return 2 * x * g


class TestRetainGraph:
    def test_second_backward_without_retain_graph_is_an_error(self):  # [E1]
        x = leaf()
        z = Sq.apply(x).sum()
        z.backward()
        with pytest.raises(RuntimeError, match=r"retain_graph=True"):
            z.backward()
        assert_values(x.grad, [2.0, 4.0])  # the first backward's result, unchanged

    def test_second_backward_directly_on_the_layer_output(self):  # [E1, E2]
        x = leaf()
        y = Sq.apply(x)
        y.backward(fg.ones([2]))
        with pytest.raises(RuntimeError, match=r"retain_graph=True"):
            y.backward(fg.ones([2]))

    def test_retain_graph_runs_again_and_accumulates(self):  # [E2]
        calls = []

        class SqC(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                calls.append("bwd")
                (x,) = ctx.saved_tensor()
                return 2 * x * g

        x = leaf()
        z = SqC.apply(x).sum()
        z.backward(retain_graph=True)
        z.backward()
        assert calls == ["bwd", "bwd"]
        assert_values(x.grad, [4.0, 8.0])

    def test_retain_graph_directly_on_the_layer_output(self):  # [E2]
        x = leaf()
        y = Sq.apply(x)
        y.backward(fg.ones([2]), retain_graph=True)
        y.backward(fg.ones([2]))
        assert_values(x.grad, [4.0, 8.0])

    def test_layer_that_saved_nothing_never_crashes_on_a_second_backward(self):  # [E1]
        class Dbl(PyLayer):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = leaf()
        y = Dbl.apply(x)
        y.backward(fg.ones([2]))
        try:
            y.backward(fg.ones([2]))
        except RuntimeError as e:  # either refused, with the way out named ...
            assert "retain_graph=True" in str(e)
            assert_values(x.grad, [2.0, 2.0])
        else:  # ... or run again (nothing was freed), accumulating the right value
            assert_values(x.grad, [4.0, 4.0])

    def test_grad_frees_the_graph_unless_retain_graph(self):  # [E3, J7]
        x = leaf()
        z = Sq.apply(x).sum()
        assert_values(fg.grad(z, x)[0], [2.0, 4.0])
        with pytest.raises(RuntimeError, match=r"retain_graph=True"):
            fg.grad(z, x)
        z = Sq.apply(x).sum()
        assert_values(fg.grad(z, x, retain_graph=True)[0], [2.0, 4.0])
        assert_values(fg.grad(z, x)[0], [2.0, 4.0])
        z = Sq.apply(x).sum()
        assert_values(fg.grad(z, x, create_graph=True)[0], [2.0, 4.0])  # retains by default
        assert_values(fg.grad(z, x)[0], [2.0, 4.0])


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
