"""``torch.autograd.functional`` as PyTorch's own tests check it (session 41: PyTorch's
``test/autograd/test_functional.py`` at 08151c60, run by ``scripts/peer_tests.py``,
docs/peer-tests.md). Each test failed before session 41's changes to
``python/ferrograd/autograd/functional.py``; the expected words and behaviour are
PyTorch's ``torch/autograd/functional.py`` (``_as_tuple``, ``_validate_v``,
``_check_requires_grad``, ``_fill_in_zeros``, ``jacobian``, ``hessian``, ``hvp``)."""

from __future__ import annotations

import weakref

import ferrograd as torch
import ferrograd.autograd.functional as autogradF
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def _x(*shape, requires_grad=False):
    g = np.random.default_rng(0)
    return torch.tensor(g.random(shape), dtype=torch.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("name", ["vjp", "jvp", "vhp", "hvp", "jacobian", "hessian"])
def test_non_tensor_input_is_refused_in_pytorch_words(name):
    fn = getattr(autogradF, name)
    args = (_x(4),) if name in ("jacobian", "hessian") else (_x(4), _x(4))
    with pytest.raises(TypeError, match=f"The inputs given to {name} must be either a Tensor"):
        fn(lambda a, b: (a * b).sum(), (args[0], 2), *args[1:])


@pytest.mark.parametrize("name", ["vjp", "jvp", "vhp", "hvp", "jacobian", "hessian"])
def test_strict_refuses_an_output_that_does_not_require_grad(name):
    fn = getattr(autogradF, name)
    extra = () if name in ("jacobian", "hessian") else (_x(4),)
    f = (
        (lambda a: a.detach().sum())
        if name in ("vhp", "hvp", "hessian")
        else (lambda a: a.detach())
    )
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not"):
        fn(f, _x(4), *extra, strict=True)


@pytest.mark.parametrize("name", ["vhp", "hvp", "hessian"])
def test_strict_refuses_a_linear_function_for_second_derivatives(name):
    # PyTorch's _check_requires_grad(jac, "jacobian"): the gradient of (3 * a).sum() is a
    # constant. ferrograd's own modules got Paddle's answer for a constant gradient under
    # create_graph (a new leaf that requires grad), so the check never fired.
    fn = getattr(autogradF, name)
    extra = () if name == "hessian" else (_x(4),)
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with respect"):
        fn(lambda a: (3 * a).sum(), _x(4), *extra, strict=True)
    res = fn(lambda a: (3 * a).sum(), _x(4), *extra, strict=False)
    out = res if name == "hessian" else res[1]
    assert float(out.abs().sum()) == 0.0


@pytest.mark.parametrize("name", ["vjp", "jvp", "jacobian"])
def test_constant_jacobian_under_create_graph_is_a_constant(name):
    fn = getattr(autogradF, name)
    inp = _x(4, requires_grad=True)
    v = _x(4)
    extra = () if name == "jacobian" else (v,)
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function is indep"):
        fn(lambda a: a.clone(), inp, *extra, create_graph=True, strict=True)
    res = fn(lambda a: a.clone(), inp, *extra, create_graph=True, strict=False)
    out = res if name == "jacobian" else res[1]
    assert not out.requires_grad  # PyTorch: a constant, with no graph
    expected = np.eye(4) if name == "jacobian" else v.numpy()
    np.testing.assert_allclose(out.numpy(), expected)


def test_create_graph_builds_a_graph_under_no_grad():
    inp = _x(2, 2)
    with torch.no_grad():
        jac = autogradF.jacobian(lambda x: x.exp().sum(dim=1), inp, create_graph=True)
        hes = autogradF.hessian(lambda x: x.pow(3).sum(), inp, create_graph=True)
        plain = autogradF.hessian(lambda x: x.pow(3).sum(), inp)
    assert jac.grad_fn is not None and hes.grad_fn is not None
    assert plain.grad_fn is None
    np.testing.assert_allclose(hes.detach().numpy(), plain.numpy())


@pytest.mark.parametrize("name", ["jacobian", "hessian"])
def test_strict_and_vectorize_are_refused_together(name):
    fn = getattr(autogradF, name)
    with pytest.raises(RuntimeError, match="not supported together"):
        fn(lambda x: (x**3).sum(), _x(4), strict=True, vectorize=True)


def test_hvp_errors_name_hvp():
    with pytest.raises(RuntimeError, match="given to hvp should contain a single element"):
        autogradF.hvp(lambda a: 3 * a, _x(4), _x(4))
    with pytest.raises(TypeError, match="The v given to hvp must be either a Tensor"):
        autogradF.hvp(lambda a: a.sum(), _x(4), (_x(4), 2))


def test_vectorized_and_forward_mode_jacobians_match_the_loop():
    def f(x, y):
        return (x * x) @ y, x @ (x.sum(1) * y), y.sum()

    inputs = (_x(5, 3), _x(3, 5))
    expected = autogradF.jacobian(f, inputs)
    for kwargs in ({"vectorize": True}, {"strategy": "forward-mode", "vectorize": True}):
        got = autogradF.jacobian(f, inputs, **kwargs)
        for row_e, row_g in zip(expected, got):
            for e, g in zip(row_e, row_g):
                assert tuple(g.shape) == tuple(e.shape)
                np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)
    h = autogradF.hessian(lambda x: (x**3).sum(), _x(3), outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(h.numpy(), np.diag(6 * _x(3).numpy()), rtol=1e-12)


def test_forward_mode_jacobian_has_the_output_dtype_and_refuses_create_graph():
    x = _x(3)
    jac = autogradF.jacobian(lambda a: a.float() * 2, x, strategy="forward-mode", vectorize=True)
    assert jac.dtype == torch.float32
    with pytest.raises(NotImplementedError, match="create_graph=True"):
        autogradF.jacobian(lambda a: a * 2, x, create_graph=True, strategy="forward-mode")


def test_vectorized_jacobian_is_twice_differentiable():
    inputs = _x(3, 3, requires_grad=True)

    def jac(inp):
        return autogradF.jacobian(
            lambda x: x.exp().sum(dim=1), inp, create_graph=True, vectorize=True
        )

    assert gradcheck(jac, (inputs,))
    assert gradgradcheck(jac, (inputs,))


def test_construct_standard_basis_for():
    inputs = (_x(2, 3), torch.randn(3, dtype=torch.float32), torch.randn([], dtype=torch.float64))
    numels = tuple(t.numel() for t in inputs)
    chunks = autogradF._construct_standard_basis_for(inputs, numels)
    assert [c.dtype for c in chunks] == [t.dtype for t in inputs]
    whole = np.concatenate([c.numpy().astype(np.float64) for c in chunks], axis=1)
    np.testing.assert_array_equal(whole, np.eye(10))


def test_function_clear_saved_tensors_on_access_regression():
    # PyTorch's test/test_autograd.py at 5c322af1,
    # TestAutograd.test_clear_saved_tensors_on_access_double_access_error (the session-41
    # extract test_autograd_s41.py): with the class switch on, a second read is refused.
    class MyFn(torch.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad_output):
            _ = ctx.saved_tensors
            _ = ctx.saved_tensors  # the second read must raise
            return grad_output

    y = MyFn.apply(_x(3, requires_grad=True))
    with pytest.raises(RuntimeError, match="can only be accessed once"):
        y.sum().backward()


def test_clear_saved_tensors_on_access_drops_the_ctx_reference():
    # PyTorch's TestAutograd.test_clear_saved_tensors_on_access (test_autograd.py at
    # 5c322af1): after the one read, the local variable holds the last reference.
    seen = []

    class MyFn(torch.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            ref = weakref.ref(x)
            del x
            seen.append(ref() is None)
            return grad_output

    x = _x(3, requires_grad=True)
    MyFn.apply(x.clone()).sum().backward()
    assert seen == [True]
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_saved_tensors_read_twice_without_the_switch():
    # the default (False) keeps PyTorch's usual rule: any number of reads in backward
    class MyFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            (b,) = ctx.saved_tensors
            assert a is b
            return g * 2

    x = _x(3, requires_grad=True)
    MyFn.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
