"""PyTorch autograd API that the session-23 peer tests (``docs/peer-tests.md``) found
missing or different: ``torch.autograd.grad_mode``, ``autograd.graph.increment_version``,
``ctx.saved_variables``, ``ctx.mark_dirty``'s checks, and the errors for in-place writes
to a view made under ``no_grad`` or returned by a custom ``Function``."""

from __future__ import annotations

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function


def test_autograd_grad_mode_module_has_the_switches():
    gm = fg.autograd.grad_mode
    x = fg.ones(2, requires_grad=True)
    with gm.no_grad():
        assert not (x * 2).requires_grad
        with gm.enable_grad():
            assert (x * 2).requires_grad
    with gm.set_grad_enabled(False):
        assert not fg.is_grad_enabled()
    with gm.inference_mode():
        assert fg.is_inference_mode_enabled()
    assert gm.no_grad is fg.no_grad


def test_increment_version_bumps_without_writing():
    a = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = a._version
    fg.autograd.graph.increment_version(a)
    assert a._version == v + 1
    np.testing.assert_array_equal(a.detach().numpy(), [1.0, 2.0, 3.0])
    b = fg.zeros(5, dtype=fg.int32)
    c = fg.zeros(2)
    fg.autograd.graph.increment_version([b, c])
    assert (b._version, c._version) == (1, 1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        fg.autograd.graph.increment_version([b, 3])
    with pytest.raises(TypeError, match="iterable of Tensors"):
        fg.autograd.graph.increment_version(3)


def test_increment_version_makes_backward_refuse_a_saved_tensor():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = (h * h).sum()  # saves h
    fg.autograd.graph.increment_version(h)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_increment_version_on_an_inference_tensor_does_not_raise():
    with fg.inference_mode():
        a = fg.rand(5, requires_grad=True)
        fg.autograd.graph.increment_version(a)
    fg.autograd.graph.increment_version(a)


class _SavesTwo(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_variables
        return g * b, g * a


def test_saved_variables_is_saved_tensors_with_a_deprecation_warning():
    a = fg.tensor([2.0, 3.0], requires_grad=True)
    b = fg.tensor([5.0, 7.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        _SavesTwo.apply(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [5.0, 7.0])
    np.testing.assert_allclose(b.grad.numpy(), [2.0, 3.0])
    msgs = [str(w.message) for w in ws if issubclass(w.category, DeprecationWarning)]
    assert "'saved_variables' is deprecated; use 'saved_tensors'" in msgs


class _DirtyNotInput(Function):
    @staticmethod
    def forward(ctx, a, b):
        c = 3 * a
        c.add_(b)
        ctx.mark_dirty(c)
        return c

    @staticmethod
    def backward(ctx, g):
        return 3 * g, g


class _DirtyNotReturned(Function):
    @staticmethod
    def forward(ctx, a, b):
        a.add_(b)
        ctx.mark_dirty(a)
        return a.clone(), a + b

    @staticmethod
    def backward(ctx, ga, gab):
        return ga + gab, ga + 2 * gab


def test_mark_dirty_of_a_non_input_warns_and_changes_nothing():
    a = fg.ones(2, requires_grad=True)
    b = fg.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        out = _DirtyNotInput.apply(a.clone(), b)
    assert [str(w.message) for w in ws] == [
        "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
        "that have been mutated should be passed to ctx.mark_dirty()."
    ]
    out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 1.0])


def test_mark_dirty_of_an_input_that_is_not_returned_is_refused():
    # the in-place change of x would be invisible to autograd: y's gradient would miss b
    a = fg.ones(2, requires_grad=True)
    b = fg.ones(2, requires_grad=True)
    x = a.clone()
    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward"):
        _DirtyNotReturned.apply(x, b)


def test_inplace_on_a_view_made_under_no_grad_says_so_in_pytorch_words():
    x = fg.rand(2, requires_grad=True).clone()
    with fg.no_grad():
        v = x[:]
    with pytest.raises(
        RuntimeError,
        match="A view was created in no_grad mode and is being modified inplace with grad "
        "mode enabled",
    ):
        v.zero_()


class _Narrow(Function):
    @staticmethod
    def forward(ctx, a):
        return a.narrow(0, 0, 2)

    @staticmethod
    def backward(ctx, g):
        return fg.cat([g, fg.zeros(1, dtype=g.dtype)])


def test_inplace_on_a_view_returned_by_a_function_names_the_function():
    a = fg.ones(3, requires_grad=True)
    out = _Narrow.apply(a.clone())
    with pytest.raises(
        RuntimeError,
        match="Output 0 of _Narrow is a view and is being modified inplace. This view was "
        "created inside a custom Function",
    ):
        out.add_(3)
