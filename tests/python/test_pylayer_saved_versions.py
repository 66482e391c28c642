"""Custom layers: saved tensors modified in place (version checks, [C10]) and
``retain_graph`` ([E] of ``docs/semantics.md``)."""

from __future__ import annotations

import re

import ferrograd as fg
import pytest
from ferrograd.autograd import PyLayer
from pylayer_support import DIALECTS, assert_values, leaf

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
