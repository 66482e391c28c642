"""Autograd behaviour the peers' own tests check: node class names, one exception class
for misuses the peers report differently, hook handles, ``grad(create_graph=True)``
results, materialized zeros, and ``backward(inputs=...)``."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


def test_node_classes_are_named_after_the_node():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert y.grad_fn.name() == "MulBackward0"
    assert isinstance(y.grad_fn, fg.autograd.Node)
    # one class per name, reused
    assert type((x * 3.0).grad_fn) is type(y.grad_fn)
    z = y + 1.0
    nxt = z.grad_fn.next_functions[0][0]
    assert type(nxt).__name__ == "MulBackward0" and nxt == y.grad_fn

    class Twice(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    assert type(Twice.apply(x).grad_fn).__name__ == "TwiceBackward"


def _two_inputs_one_grad(base):
    class Bad(base):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g  # one gradient for two inputs

    return Bad


@pytest.mark.parametrize("base", [PyLayer, Function])
def test_wrong_number_of_gradients_is_both_value_and_runtime_error(base):
    a = fg.tensor([1.0], requires_grad=True)
    b = fg.tensor([2.0], requires_grad=True)
    out = _two_inputs_one_grad(base).apply(a, b)
    with pytest.raises(fg.AutogradUsageError, match="incorrect number of gradients") as info:
        out.sum().backward()
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)


def test_hook_on_tensor_without_grad_is_both_value_and_runtime_error():
    x = fg.tensor([1.0, 2.0])
    for cls in (ValueError, RuntimeError, fg.AutogradUsageError):
        with pytest.raises(cls, match="does not require grad"):
            x.register_hook(lambda g: g)


@pytest.mark.parametrize("leaf", [True, False])
def test_hook_handle_remove_says_whether_it_removed(leaf):
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    t = x if leaf else x * 1.0
    h = t.register_hook(lambda g: g * 2)
    assert h.remove() is True
    assert h.remove() is False
    t.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])  # the hook did not run


def test_grad_create_graph_results_can_be_differentiated_again():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    seed = fg.tensor([3.0, 4.0])
    (dx,) = fg.grad(x, x, grad_outputs=seed, create_graph=True)
    assert dx.requires_grad and not dx.stop_gradient
    assert seed.stop_gradient  # the user's tensor is untouched
    np.testing.assert_array_equal(dx.numpy(), [3.0, 4.0])
    (dx2,) = fg.grad(x, x, grad_outputs=seed)
    assert not dx2.requires_grad  # without create_graph: as before


def test_materialized_zeros_require_grad_only_with_create_graph():
    x = fg.tensor(0.5, requires_grad=True)
    a = fg.tensor(1.0, requires_grad=True)
    (dydx,) = fg.grad(x * a, x, create_graph=True)
    (d2,) = fg.grad(dydx, x, create_graph=True, materialize_grads=True)
    assert float(d2) == 0.0 and d2.requires_grad
    (d3,) = fg.grad(d2, x, materialize_grads=True)  # works: d2 requires grad
    assert float(d3) == 0.0
    y = fg.ones(3, requires_grad=True)
    g = fg.grad((x * 2).sum(), (x, y), materialize_grads=True)
    assert not g[0].requires_grad and not g[1].requires_grad


def test_backward_with_inputs_accumulates_only_there():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    y = fg.tensor([3.0, 4.0], dtype="float64", requires_grad=True)
    mid = x * 1.0

    def fn():
        return (mid**2 + y * mid + y**2).sum()

    fn().backward(inputs=[x])
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() + y.numpy())
    assert y.grad is None
    fg.autograd.backward(fn(), inputs=y)
    np.testing.assert_allclose(y.grad.numpy(), x.numpy() + 2 * y.numpy())
    fn().backward(inputs=[mid])  # a non-leaf gets a .grad too
    np.testing.assert_allclose(mid.grad.numpy(), 2 * x.numpy() + y.numpy())
    z = fg.tensor([1.0], requires_grad=True)
    fn().backward(inputs=[z])  # not in the graph: stays None
    assert z.grad is None
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() + y.numpy())  # accumulated once
    with pytest.raises(RuntimeError, match="cannot be empty"):
        fn().backward(inputs=[])


@pytest.mark.parametrize("base", [PyLayer, Function])
def test_none_from_a_custom_backward_leaves_grad_none(base):
    class Drop(base):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return None

    x = fg.ones(3, requires_grad=True)
    Drop.apply(x).sum().backward()
    assert x.grad is None
    Drop.apply(x**2).sum().backward()  # through a built-in node that gets no gradient
    assert x.grad is None
    (g,) = fg.grad(Drop.apply(x * 3.0).sum(), x, allow_unused=True)
    assert g is None
    # a second path that does carry a gradient still arrives
    (Drop.apply(x**2) + x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_set_grad_in_dtype_consistent_false_keeps_the_incoming_dtype():
    seen = {}

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, t):
            ctx.set_grad_in_dtype_consistent(False)
            return t * 1.0

        @staticmethod
        def backward(ctx, g):
            seen["keep"] = g.dtype
            return g

    class Cast(PyLayer):
        @staticmethod
        def forward(ctx, t):
            return t * 1.0

        @staticmethod
        def backward(ctx, g):
            seen["cast"] = g.dtype
            return g

    class ToHalf(PyLayer):
        @staticmethod
        def forward(ctx, t):
            return t * 1.0

        @staticmethod
        def backward(ctx, g):
            return g.astype("float16")

    x = fg.ones(2, stop_gradient=False)
    ToHalf.apply(Keep.apply(x)).sum().backward()
    ToHalf.apply(Cast.apply(x)).sum().backward()
    assert seen == {"keep": fg.float16, "cast": fg.float32}
    assert x.grad.dtype == fg.float32  # the leaf's gradient has the leaf's dtype


def test_error_texts_name_the_shapes_as_the_peers_do():
    x = fg.ones(2, 2, requires_grad=True)
    y = x * 2
    grad_out = fg.ones(2)
    with pytest.raises(RuntimeError) as info:
        fg.grad(y, x, grad_outputs=grad_out)
    assert str(info.value) == (
        "Mismatch in shape: grad_output[0] has a shape of "
        + str(grad_out.shape)
        + " and output[0] has a shape of "
        + str(y.shape)
        + "."
    )

    class Bad(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return fg.ones(10)

    with pytest.raises(RuntimeError, match=r"expected shape compatible with \[2, 2\]"):
        Bad.apply(x).sum().backward()
    with pytest.raises(ValueError, match="grad requires non-empty inputs"):
        fg.grad(y.sum(), [])
    with pytest.raises(RuntimeError, match="does not require grad"):
        fg.ones(2).retain_grad()


def test_a_tensor_returned_twice_comes_back_as_one_object():
    # PyTorch's test_return_duplicate: the same object twice; the second output slot
    # gets no gradient of its own (materialized as zeros for backward)
    from ferrograd.autograd import gradcheck, gradgradcheck

    class DoubleDuplicate(Function):
        @staticmethod
        def forward(ctx, x):
            output = x * 2
            return output, output

        @staticmethod
        def backward(ctx, grad1, grad2):
            return grad1 * 2 + grad2 * 2

    def fn(x):
        a, b = DoubleDuplicate.apply(x)
        assert a is b
        return a + b

    x = fg.tensor(np.random.default_rng(0).standard_normal((3, 3)), requires_grad=True)
    fn(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 3), 4.0))
    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])


def test_calling_a_node_runs_its_backward_formula():
    """PyTorch's `Node.__call__` (`test_grad_fn_badcalls`): one gradient per forward
    output; the input gradients come back (one tensor for one input, else a tuple)."""
    x = fg.tensor([1.0, 3.0], dtype=fg.float64, requires_grad=True)
    t = fg.tanh(x)  # one input: the gradient itself
    np.testing.assert_allclose(
        t.grad_fn(fg.ones(2, dtype=fg.float64)).numpy(), 1 - np.tanh([1.0, 3.0]) ** 2
    )
    y = x**2  # one slot per forward operand, as in next_functions: (grad, None)
    g, none = y.grad_fn(fg.ones(2, dtype=fg.float64))
    np.testing.assert_array_equal(g.numpy(), [2.0, 6.0])
    assert none is None and len(y.grad_fn.next_functions) == 2
    with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
        y.grad_fn(x.detach(), x.detach())
    with pytest.raises(TypeError, match="expected 1 arguments, got 0 instead"):
        y.grad_fn()
    with pytest.raises(TypeError, match="must be a Tensor or None"):
        y.grad_fn([1.0, 2.0])
    w = fg.tensor([5.0, 7.0], dtype=fg.float64, requires_grad=True)
    gx, gw = (x * w).grad_fn(fg.ones(2, dtype=fg.float64))
    np.testing.assert_array_equal(gx.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(gw.numpy(), [1.0, 3.0])
    assert t.grad_fn(None) is None
    # the graph is untouched: backward still runs
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 6.0])
