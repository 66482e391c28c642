"""Hooks and retained gradients where the peers' own tests pin the behaviour: a tensor hook
on an output its node did not give a gradient (PyTorch: called with None), PyTorch's
``retain_grad()`` after an in-place op, Paddle's ``retain_grads()`` ordered among the
hooks, and the one exception class for a non-Tensor gradient."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


class _TwoOut(Function):
    """One node with two outputs (as built-in split/unbind are)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2.0, x * 3.0

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2.0 + gb * 3.0


def test_hook_on_output_without_gradient_gets_none():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a, b = _TwoOut.apply(x)
    seen = []
    a.register_hook(lambda g: seen.append(g))
    a.sum().backward(retain_graph=True)
    assert len(seen) == 1 and seen[0] is not None
    np.testing.assert_array_equal(seen[0].numpy(), [1.0, 1.0])
    b.sum().backward()  # the node runs; output 0 gets no gradient
    assert len(seen) == 2 and seen[1] is None
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


def test_hook_may_supply_a_missing_gradient():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a, b = _TwoOut.apply(x)
    a.register_hook(lambda g: fg.ones([2]) if g is None else g)
    b.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


def test_hook_on_an_unused_piece_of_unbind_gets_none():
    # built-in split/unbind are one node with several outputs: it runs once, and a hook
    # on a piece without a gradient is called with None (PyTorch's UnbindBackward0)
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    parts = x.unbind()
    seen = []
    parts[0].register_hook(lambda g: seen.append(g))
    parts[1].backward()
    assert seen == [None]
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.0])


def test_leaf_hooks_never_see_none():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = fg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g))
    (y * 2.0).sum().backward()
    assert seen == []


def test_retain_grad_follows_inplace_ops():
    a = fg.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0])

    a = fg.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.mul_(2)
    (a * 3.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0])


def test_retain_grad_stored_after_hooks_retain_grads_in_order():
    def run(retain_first, spelling):
        x = fg.tensor([1.0, 2.0], requires_grad=True)
        w = x * 1.0
        if retain_first:
            getattr(w, spelling)()
        w.register_hook(lambda g: g * 2.0)
        if not retain_first:
            getattr(w, spelling)()
        (w * fg.tensor([3.0, 4.0])).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [6.0, 8.0])
        return w.grad.numpy()

    # PyTorch: retain_grad always sees the gradient after the tensor's hooks
    np.testing.assert_array_equal(run(True, "retain_grad"), [6.0, 8.0])
    np.testing.assert_array_equal(run(False, "retain_grad"), [6.0, 8.0])
    # Paddle: retain_grads keeps the gradient as it is at its place among the hooks
    np.testing.assert_array_equal(run(True, "retain_grads"), [3.0, 4.0])
    np.testing.assert_array_equal(run(False, "retain_grads"), [6.0, 8.0])


def test_retain_grads_on_output_without_gradient_is_zeros_retain_grad_none():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a, b = _TwoOut.apply(x)
    b.retain_grads()
    a.sum().backward()
    np.testing.assert_array_equal(b.gradient(), np.zeros(2))

    a, b = _TwoOut.apply(x)
    b.retain_grad()
    a.sum().backward()
    assert b.grad is None


def test_retain_grads_twice_counts_once():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    w = x * 2.0
    w.retain_grads()
    w.retain_grads()
    w.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("base", [Function, PyLayer])
def test_non_tensor_gradient_is_type_and_value_error(base):
    class Bad(base):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, g):
            return 1

    x = fg.tensor([1.0], requires_grad=True)
    with pytest.raises(fg.AutogradTypeError, match="backward must return Tensors or None"):
        Bad.apply(x).sum().backward()
    assert issubclass(fg.AutogradTypeError, TypeError)
    assert issubclass(fg.AutogradTypeError, ValueError)
    with pytest.raises(ValueError):
        Bad.apply(x).sum().backward()
    with pytest.raises(TypeError):
        Bad.apply(x).sum().backward()


def test_pack_hook_modifying_input_message():
    a = fg.randn(5, requires_grad=True)

    def inc(t):
        t += 1
        return t

    with fg.autograd.graph.saved_tensors_hooks(inc, lambda t: t):
        with pytest.raises(RuntimeError, match="A saved tensor pack hook is modifying its input"):
            fg.exp(a)


@pytest.mark.parametrize("base", [Function, PyLayer])
def test_layer_without_backward_is_not_implemented_and_os_error(base):
    class NoBackward(base):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

    x = fg.tensor([1.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="must implement.* backward"):
        NoBackward.apply(x).sum().backward()
    with pytest.raises(OSError):  # Paddle's class for it
        NoBackward.apply(x).sum().backward()
    assert issubclass(fg.BackwardNotImplementedError, NotImplementedError)


def test_retain_grad_and_retain_grads_together_store_the_gradient_once():
    for first, second in (("retain_grads", "retain_grad"), ("retain_grad", "retain_grads")):
        x = fg.tensor([1.0, 2.0], requires_grad=True)
        w = x * 2.0
        getattr(w, first)()
        getattr(w, second)()
        w.sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0])
