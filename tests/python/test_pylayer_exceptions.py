"""Custom layers: exceptions raised in ``forward``, ``backward`` and hooks come out
unchanged with their traceback ([F] of ``docs/semantics.md``)."""

from __future__ import annotations

import ferrograd as fg
import pytest
from ferrograd.autograd import Function, PyLayer
from pylayer_support import DIALECTS, assert_values, frame_names, leaf

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
