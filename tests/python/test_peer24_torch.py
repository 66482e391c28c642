"""PyTorch autograd behaviour that the session-24 peer tests (``docs/peer-tests.md``)
found missing or different, checked in PyTorch code (every value checked on PyTorch 2.x):
grad-mode decorators on a class warn, ``.grad`` read on a non-leaf warns,
``backward(inputs=)`` takes a ``GradientEdge`` into a graph node, ``grad()`` refuses
``materialize_grads`` with a ``GradientEdge`` input and a complex ``grad_outputs`` for a
real output, a module's full backward hook is not called again by a double backward
nor keeps a ``create_graph`` pass's graph alive, and the random factories draw complex
dtypes."""

from __future__ import annotations

import gc
import warnings
import weakref

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd.graph import GradientEdge, get_gradient_edge


def test_grad_mode_decorating_a_class_warns_and_covers_construction_only():
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):

        @torch.no_grad()
        class Foo:
            def __init__(self) -> None:
                self.grad_in_init = torch.is_grad_enabled()

            def method(self) -> bool:
                return torch.is_grad_enabled()

    foo = Foo()
    assert foo.grad_in_init is False
    assert foo.method() is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # functions and methods: no warning

        @torch.enable_grad()
        def f() -> bool:
            return torch.is_grad_enabled()

        with torch.no_grad():
            assert f() is True


def test_grad_of_a_non_leaf_warns_unless_it_retains_it():
    leaf = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert leaf.grad is None
        assert torch.ones(2).grad is None  # a tensor that needs no grad is a leaf
        assert not w
        y = leaf * 2
        assert y.grad is None
        assert len(w) == 1 and issubclass(w[0].category, UserWarning)
        assert "not a leaf Tensor" in str(w[0].message)
        y.retain_grad()
        assert y.grad is None
        y.sum().backward()
        np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])
        assert len(w) == 1


def test_backward_inputs_take_a_gradient_edge_into_a_node():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    x = a.clone()
    edge_x = GradientEdge(x.grad_fn, x.output_nr)
    out = (x * b).sum()
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    # the pass stops at the edge: its gradient reaches x's hooks and goes nowhere else
    torch.autograd.backward(out, inputs=(edge_x, b), retain_graph=True)
    np.testing.assert_allclose(seen[0], [3.0, 4.0])
    assert a.grad is None
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 2.0])
    # an edge into a leaf accumulates into the leaf, as before
    torch.autograd.backward(out, inputs=(get_gradient_edge(b),))
    np.testing.assert_allclose(b.grad.numpy(), [2.0, 4.0])


def test_grad_refuses_materialize_grads_for_an_unreached_gradient_edge():
    x = torch.rand(2, requires_grad=True).clone()
    y = torch.rand(2, requires_grad=True).clone()
    edge_y = GradientEdge(y.grad_fn, y.output_nr)
    out = x.clone().sum()
    with pytest.raises(RuntimeError, match="materialize_grads cannot be used"):
        torch.autograd.grad(
            out, (x, edge_y), allow_unused=True, materialize_grads=True, retain_graph=True
        )
    # an edge the outputs depend on needs no zero: allowed, as in PyTorch
    edge_x = GradientEdge(x.grad_fn, x.output_nr)
    gx, gy = torch.autograd.grad(
        out, (edge_x, y), allow_unused=True, materialize_grads=True, retain_graph=True
    )
    np.testing.assert_allclose(gx.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(gy.numpy(), [0.0, 0.0])
    gx, gy = torch.autograd.grad(out, (x, edge_y), allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), [1.0, 1.0])
    assert gy is None


def test_full_backward_hook_is_not_called_by_a_double_backward():
    x = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([0.5], dtype=torch.float64)
    loss = torch.nn.MSELoss()
    calls = []
    loss.register_full_backward_hook(lambda m, gi, go: calls.append((gi, go)))
    f = loss(x, y)
    (gx,) = torch.autograd.grad(f, x, create_graph=True)
    assert len(calls) == 1
    np.testing.assert_allclose(gx.detach().numpy(), [2 * (0.3 - 0.5)])
    (ggx,) = torch.autograd.grad(gx, x)  # reaches the module's input, not its output
    assert len(calls) == 1
    np.testing.assert_allclose(ggx.numpy(), [2.0])
    # a new pass through the module's output calls the hook again
    f2 = loss(x, y)
    f2.backward()
    assert len(calls) == 2


def test_a_complex_gradient_for_a_real_output_is_refused():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    g = torch.complex(torch.ones(2), torch.ones(2))
    # casting it would silently drop the imaginary part
    with pytest.raises(RuntimeError, match="required to have the same dtype"):
        torch.autograd.grad(y, x, grad_outputs=g, retain_graph=True)
    with pytest.raises(RuntimeError, match="required to have the same dtype"):
        y.backward(g, retain_graph=True)
    assert x.grad is None
    # real dtypes still convert
    (gx,) = torch.autograd.grad(y, x, grad_outputs=torch.ones(2, dtype=torch.float64))
    assert gx.dtype == torch.float32
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])


def test_full_backward_hook_does_not_keep_a_create_graph_pass_alive():
    class Marker:
        pass

    def run() -> weakref.ref:
        t = torch.randn(10)  # the module's argument needs no grad: hooks fire from outputs
        a = torch.tensor(1.0, requires_grad=True)

        class M(torch.nn.Module):
            def forward(self, x):
                return x**2 * a**2

        mod = M()
        mod.register_full_backward_hook(lambda m, gi, go: None)
        out = mod(t)
        marker = Marker()
        out.grad_fn.metadata["m"] = marker
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.exp().sum().backward(create_graph=True)
        a.grad = None
        return weakref.ref(marker)

    ref = run()
    gc.collect()
    assert ref() is None


def test_random_factories_draw_complex_dtypes():
    g = torch.Generator().manual_seed(0)
    z = torch.rand(20000, dtype=torch.complex64, generator=g)
    assert z.dtype == torch.complex64
    re, im = z.real.numpy(), z.imag.numpy()
    # PyTorch's complex uniform: each part in [0, 1), independently
    assert re.min() >= 0 and re.max() < 1 and im.min() >= 0 and im.max() < 1
    assert abs(re.mean() - 0.5) < 0.02 and abs(im.mean() - 0.5) < 0.02
    assert abs(np.corrcoef(re, im)[0, 1]) < 0.05
    # PyTorch's complex normal: each part N(0, 1/2), so E|z|^2 = 1
    n = torch.randn(20000, dtype=torch.complex128, generator=g).numpy()
    assert abs((np.abs(n) ** 2).mean() - 1.0) < 0.05
    assert abs(n.real.var() - 0.5) < 0.03 and abs(n.imag.var() - 0.5) < 0.03
    like = torch.rand_like(torch.zeros(2, 3), dtype=torch.complex128)
    assert like.dtype == torch.complex128 and list(like.shape) == [2, 3]
    with pytest.raises(TypeError, match="dtype must be floating"):
        torch.rand(2, dtype=torch.int32)
