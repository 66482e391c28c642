"""The grad-mode and ``autograd.grad`` examples of the ``tensorplay.autograd``
reference page, transcribed with only the import line changed, asserting the documented outputs.

Where the page shows an expression followed by its printed value, the transcription
asserts that value. Statements of the page's prose that have no example get a test each
at the end.
"""

from __future__ import annotations

import ferrograd as tensorplay
import numpy as np
import pytest


def values(t):
    return np.asarray(t.numpy(), dtype=np.float64).tolist()


# ---------------------------------------------------------------------------------------
# class enable_grad
# ---------------------------------------------------------------------------------------


def test_enable_grad_example_context_manager():
    x = tensorplay.tensor([1.0], requires_grad=True)
    with tensorplay.no_grad():
        with tensorplay.enable_grad():
            y = x * 2
    assert y.requires_grad is True  # y.requires_grad -> True
    y.backward()
    assert values(x.grad) == [2.0]  # x.grad -> tensor([2.])
    assert repr(x.grad) == "tensor([2.])"


def test_enable_grad_example_doubler():
    x = tensorplay.tensor([1.0], requires_grad=True)

    @tensorplay.enable_grad()
    def doubler(x):
        return x * 2

    with tensorplay.no_grad():
        z = doubler(x)
    assert z.requires_grad is True  # z.requires_grad -> True


def test_enable_grad_example_tripler():
    x = tensorplay.tensor([1.0], requires_grad=True)

    @tensorplay.enable_grad()
    def tripler(x):
        return x * 3

    with tensorplay.no_grad():
        z = tripler(x)
    assert z.requires_grad is True  # z.requires_grad -> True


# ---------------------------------------------------------------------------------------
# class no_grad
# ---------------------------------------------------------------------------------------


def test_no_grad_example_context_manager():
    x = tensorplay.tensor([1.0], requires_grad=True)
    with tensorplay.no_grad():
        y = x * 2
    assert y.requires_grad is False  # y.requires_grad -> False


def test_no_grad_example_doubler():
    x = tensorplay.tensor([1.0], requires_grad=True)

    @tensorplay.no_grad()
    def doubler(x):
        return x * 2

    z = doubler(x)
    assert z.requires_grad is False  # z.requires_grad -> False


def test_no_grad_example_tripler():
    x = tensorplay.tensor([1.0], requires_grad=True)

    @tensorplay.no_grad()
    def tripler(x):
        return x * 3

    z = tripler(x)
    assert z.requires_grad is False  # z.requires_grad -> False


def test_no_grad_example_factory_function_exception():
    # factory function exception
    with tensorplay.no_grad():
        a = tensorplay.nn.Parameter(tensorplay.rand(10))
    assert a.requires_grad is True  # a.requires_grad -> True


# ---------------------------------------------------------------------------------------
# class set_grad_enabled
# ---------------------------------------------------------------------------------------


def test_set_grad_enabled_example():
    try:
        x = tensorplay.tensor([1.0], requires_grad=True)
        is_train = False
        with tensorplay.set_grad_enabled(is_train):
            y = x * 2
        assert y.requires_grad is False  # y.requires_grad -> False
        _ = tensorplay.set_grad_enabled(True)
        y = x * 2
        assert y.requires_grad is True  # y.requires_grad -> True
        _ = tensorplay.set_grad_enabled(False)
        y = x * 2
        assert y.requires_grad is False  # y.requires_grad -> False
    finally:
        tensorplay.set_grad_enabled(True)  # the example leaves grad off; the suite needs it on


# ---------------------------------------------------------------------------------------
# The page's prose (no example code)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["half", "float", "double", "bfloat16", "cfloat", "cdouble"])
def test_module_prose_floating_and_complex_types_support_autograd(name):
    # "we only support autograd for floating point Tensor types (half, float, double and
    # bfloat16) and complex Tensor types (cfloat, cdouble)"
    t = tensorplay.ones([2], dtype=getattr(tensorplay, name), requires_grad=True)
    assert t.requires_grad


@pytest.mark.parametrize("name", ["int", "long", "bool"])
def test_module_prose_other_types_do_not(name):
    with pytest.raises(RuntimeError, match="floating point or complex"):
        tensorplay.ones([2], dtype=getattr(tensorplay, name), requires_grad=True)


def test_module_prose_requires_grad_keyword_is_all_it_takes():
    # "you only need to declare Tensors for which gradients should be computed with the
    # requires_grad=True keyword"
    w = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    b = tensorplay.tensor([0.5, 0.5])
    loss = (w * w + b).sum()
    loss.backward()
    assert values(w.grad) == [2.0, 4.0]
    assert b.grad is None


def test_no_grad_prose_every_result_stops_requiring_grad():
    # "the result of every computation will have requires_grad=False, even when the inputs
    # have requires_grad=True"
    x = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    with tensorplay.no_grad():
        results = [x * 2, x + x, x.exp(), x.sum(), (x * x).mean(), x.reshape([2, 1])]
    assert [r.requires_grad for r in results] == [False] * len(results)


def test_no_grad_prose_factories_with_requires_grad_are_not_affected():
    # "All factory functions, or functions that create a new Tensor and take a
    # requires_grad kwarg, will NOT be affected by this mode."
    with tensorplay.no_grad():
        a = tensorplay.rand(10, requires_grad=True)
    assert a.requires_grad is True


def test_grad_mode_prose_bases_and_clone():
    # "class no_grad ... Bases: _NoParamDecoratorContextManager", "set_grad_enabled ...
    # Bases: _DecoratorContextManager", "clone(self) -> 'set_grad_enabled'"
    for cls in (tensorplay.no_grad, tensorplay.enable_grad):
        assert "_NoParamDecoratorContextManager" in [c.__name__ for c in cls.__mro__]
    assert "_DecoratorContextManager" in [c.__name__ for c in tensorplay.set_grad_enabled.__mro__]
    c = tensorplay.set_grad_enabled(True).clone()
    assert isinstance(c, tensorplay.set_grad_enabled)
    c2 = tensorplay.no_grad().clone()
    assert isinstance(c2, tensorplay.no_grad)
    with c2:
        assert tensorplay.is_grad_enabled() is False
    assert tensorplay.is_grad_enabled() is True


def test_grad_mode_prose_thread_local():
    # "This context manager is thread local; it will not affect computation in other
    # threads."
    import threading

    seen = []
    with tensorplay.no_grad():
        t = threading.Thread(target=lambda: seen.append(tensorplay.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_grad_prose_returns_sum_of_gradients_without_touching_grad():
    # "Computes and returns the sum of gradients of outputs with respect to the inputs."
    # "inputs: ... gradients will be returned (and not accumulated into .grad)"
    x = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    out = tensorplay.autograd.grad([(x * x).sum(), (x * 3).sum()], [x])
    assert isinstance(out, tuple)
    assert values(out[0]) == [5.0, 7.0]
    assert x.grad is None


def test_grad_prose_grad_outputs_vector_jacobian_product():
    # "grad_outputs: The 'vector' in the vector-Jacobian product ... None values can be
    # specified for scalar Tensors"
    x = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    (g,) = tensorplay.autograd.grad(x * x, x, grad_outputs=[tensorplay.tensor([1.0, 10.0])])
    assert values(g) == [2.0, 40.0]
    (g,) = tensorplay.autograd.grad((x * x).sum(), x, grad_outputs=[None])
    assert values(g) == [2.0, 4.0]


def test_grad_prose_retain_graph_defaults_to_create_graph():
    # "retain_graph: If False, the graph used to compute the grad will be freed ...
    # Defaults to the value of create_graph."
    x = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    z = (x * x).sum()
    tensorplay.autograd.grad(z, x)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        tensorplay.autograd.grad(z, x)
    z = (x * x).sum()
    tensorplay.autograd.grad(z, x, create_graph=True)
    (g,) = tensorplay.autograd.grad(z, x)
    assert values(g) == [2.0, 4.0]


def test_grad_prose_create_graph_allows_higher_order():
    # "create_graph: If True, graph of the derivative will be constructed, allowing to
    # compute higher order derivative products."
    x = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    (g,) = tensorplay.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = tensorplay.autograd.grad(g.sum(), x)
    assert values(gg) == [6.0, 12.0]


def test_grad_prose_allow_unused():
    # "allow_unused: If False, specifying inputs that were not used when computing outputs
    # (and therefore their grad is always zero) is an error. Defaults to the value of
    # materialize_grads."
    x = tensorplay.tensor([1.0, 2.0], requires_grad=True)
    unused = tensorplay.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        tensorplay.autograd.grad((x * x).sum(), [x, unused])
    _, g = tensorplay.autograd.grad((x * x).sum(), [x, unused], allow_unused=True)
    assert g is None
    _, g = tensorplay.autograd.grad((x * x).sum(), [x, unused], materialize_grads=True)
    assert values(g) == [0.0]


def test_is_grad_enabled_listed():
    # "is_grad_enabled()"
    assert tensorplay.autograd.is_grad_enabled() is True
    with tensorplay.no_grad():
        assert tensorplay.autograd.is_grad_enabled() is False
