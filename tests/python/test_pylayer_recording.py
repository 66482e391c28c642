"""Custom layers: graph construction and grad mode ([C]/[D] of ``docs/semantics.md``),
and layers that return their inputs."""

from __future__ import annotations

import ferrograd as fg
import pytest
from ferrograd.autograd import Function, PyLayer
from pylayer_support import DIALECTS, arr, assert_values, leaf

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
    # (PyTorch's Function; Paddle's PyLayer treats a returned input as modified in place:
    # test_pylayer_paddle_inplace.py)
    def test_returned_non_leaf_input_becomes_a_new_tensor_of_the_layer(self):  # [C3]
        class Ident(Function):
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

    def test_returned_leaf_input(self):  # [C3]
        class Ident(Function):
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
