"""Session 24 (issue #17): a custom Function that marks dirty and saves a view input
must not keep it alive through the core, and the repr of tensors with history or of a
stale view made under no_grad (PyTorch's ``test_autograd_more.py`` cases)."""

import weakref

import ferrograd as torch
import numpy as np
import pytest


class _DirtySave(torch.autograd.Function):
    """Doubles ``x`` in place, marks it dirty and saves it (an output then)."""

    seen = []

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        _DirtySave.seen.append(y.detach().numpy().copy())
        return grad * 2


def test_dirty_saved_view_input_does_not_leak():
    """PyTorch's ``test_custom_function_saving_mutated_view_no_leak``: the view dies with
    the graph (no reference cycle node -> ctx -> save -> view -> CopySlices -> node)."""

    def scope():
        x = torch.tensor(1.0, requires_grad=True).clone()
        x = x.view_as(x)
        _DirtySave.apply(x)
        return weakref.ref(x)

    ref = scope()
    assert ref() is None


def test_dirty_saved_view_input_gradient():
    """The save of the written view still unpacks to its new value in backward, and the
    gradient reaches the base through the view (checked against NumPy)."""
    _DirtySave.seen.clear()
    leaf_np = np.array([1.0, 2.0, 3.0])
    leaf = torch.tensor(leaf_np, requires_grad=True)
    base = leaf.clone()
    v = base[:2]
    out = _DirtySave.apply(v)
    assert out is v
    np.testing.assert_allclose(base.detach().numpy(), [2.0, 4.0, 3.0])
    (base * torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), [2.0, 20.0, 100.0])
    np.testing.assert_allclose(_DirtySave.seen[0], [2.0, 4.0])


def test_repr_prints_node_class_name():
    """``repr`` names the node by its class name, as PyTorch prints it."""
    a = torch.ones(1, requires_grad=True)
    assert repr(a) == "tensor([1.], requires_grad=True)"
    assert repr(a.clone()) == "tensor([1.], grad_fn=<CloneBackward0>)"
    assert repr(a * 2) == "tensor([2.], grad_fn=<MulBackward0>)"


def test_stale_no_grad_view_repr_and_grad_fn():
    """A view made under no_grad of a tensor that requires grad, written in place there:
    PyTorch's repr shows ``grad_fn=<Invalid>`` and reading ``grad_fn``/``is_leaf``
    raises; ``detach`` still works, and a custom Function's node keeps its name."""
    a = torch.ones(1, requires_grad=True)
    with torch.no_grad():
        b = a[:]
        fresh = a[:]
        assert "Invalid" not in repr(fresh)
        b *= 2
    assert repr(b) == "tensor([2.], grad_fn=<Invalid>)"
    assert str(b) == "tensor([2.], grad_fn=<Invalid>)"
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        _ = b.grad_fn
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        _ = b.is_leaf
    assert repr(b.detach()) == "tensor([2.])"

    class Func(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, x):
            return x

    assert repr(Func.apply(a)) == "tensor([2.], grad_fn=<FuncBackward>)"


def test_stale_inference_view_repr():
    """A view made in inference mode whose base was written since prints
    ``grad_fn=<Invalid>`` too (PyTorch)."""
    a = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        w = a[:1]
    with torch.no_grad():
        a.mul_(2)
    assert repr(w) == "tensor([2.], grad_fn=<Invalid>)"


class _TripleSave(torch.autograd.Function):
    """Triples ``x`` in place, marks it dirty and saves it; backward uses the save."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(3)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_dirty_saved_view_input_double_backward():
    """With ``create_graph=True`` the save of the written view is differentiable through
    the layer's node (values as PyTorch 2.x gives them for this layer)."""
    leaf = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    base = leaf * 1
    _TripleSave.apply(base[1:])
    out = (base * base).sum()
    (g,) = torch.autograd.grad(out, leaf, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2.0, 72.0, 162.0])
    g.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), [2.0, 144.0, 324.0])
