"""autograd.functional (torch) and Paddle's jacobian/hessian against hand-derived
matrices."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import functional as F

X = np.array([0.5, -1.0, 2.0])
A = np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 3.0]])


def t(a, requires_grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def test_jacobian_single_and_multiple_inputs_and_outputs():
    j = F.jacobian(lambda x: x * x, t(X))
    np.testing.assert_allclose(j.numpy(), np.diag(2 * X))
    assert not j.requires_grad

    jx, ja = F.jacobian(lambda x, a: a @ x, (t(X), t(A)))
    np.testing.assert_allclose(jx.numpy(), A)
    want_a = np.zeros((2, 2, 3))
    for i in range(2):
        want_a[i, i, :] = X
    np.testing.assert_allclose(ja.numpy(), want_a)

    (j0,), (j1,) = F.jacobian(lambda x: (x.sum(), x.exp()), (t(X),))
    assert list(j0.shape) == [3]
    np.testing.assert_allclose(j0.numpy(), np.ones(3))
    np.testing.assert_allclose(j1.numpy(), np.diag(np.exp(X)))


def test_jacobian_strict_and_create_graph():
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.jacobian(lambda x, y: x * 2, (t(X), t(X)), strict=True)
    _, jy = F.jacobian(lambda x, y: x * 2, (t(X), t(X)))
    np.testing.assert_array_equal(jy.numpy(), np.zeros((3, 3)))

    x = t(X, requires_grad=True)
    j = F.jacobian(lambda v: v**3, x, create_graph=True)
    assert j.requires_grad
    (g,) = fg.grad(j.sum(), [x])
    np.testing.assert_allclose(g.numpy(), 6 * X)


def test_hessian_single_and_tuple_inputs():
    h = F.hessian(lambda x: (x**3).sum(), t(X))
    np.testing.assert_allclose(h.numpy(), np.diag(6 * X))
    (hxx, hxy), (hyx, hyy) = F.hessian(lambda x, y: (x * x * y).sum(), (t(X), t(A[0])))
    np.testing.assert_allclose(hxx.numpy(), np.diag(2 * A[0]))
    np.testing.assert_allclose(hxy.numpy(), np.diag(2 * X))
    np.testing.assert_allclose(hyx.numpy(), np.diag(2 * X))
    np.testing.assert_allclose(hyy.numpy(), np.zeros((3, 3)))
    # PyTorch's words (torch/autograd/functional.py, hessian's ensure_single_output_function)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.hessian(lambda x: x * 2, t(X))


def test_vjp_jvp_vhp_match_explicit_matrices():
    f = lambda x: (t(A) @ x).tanh()  # noqa: E731
    j = np.diag(1 - np.tanh(A @ X) ** 2) @ A
    v_out, v_in = np.array([1.0, -2.0]), np.array([0.3, 0.1, -0.4])
    out, g = F.vjp(f, t(X), t(v_out))
    np.testing.assert_allclose(out.numpy(), np.tanh(A @ X))
    np.testing.assert_allclose(g.numpy(), v_out @ j)
    out, jv = F.jvp(f, t(X), t(v_in))
    np.testing.assert_allclose(jv.numpy(), j @ v_in)
    s, hv = F.vhp(lambda x: (x**3).sum(), t(X), t(v_in))
    np.testing.assert_allclose(s.numpy(), (X**3).sum())
    np.testing.assert_allclose(hv.numpy(), 6 * X * v_in)
    _, hv2 = F.hvp(lambda x: (x**3).sum(), t(X), t(v_in))
    np.testing.assert_allclose(hv2.numpy(), hv.numpy())
    # PyTorch's words (torch/autograd/functional.py: vjp and _validate_v)
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.vjp(f, t(X))
    with pytest.raises(RuntimeError, match="v has invalid size"):
        F.jvp(f, t(X), t([1.0]))


def test_functional_leaves_the_callers_graph_alone():
    x = t(X, requires_grad=True)
    F.jacobian(lambda v: v * v, x)
    assert x.grad is None


def test_paddle_jacobian_and_hessian_on_computed_tensors():
    x1, x2 = t(X, requires_grad=True), t(A[1], requires_grad=True)
    y = x1 * x2
    j1, j2 = fg.autograd.jacobian(y, (x1, x2))
    np.testing.assert_allclose(j1[:].numpy(), np.diag(A[1]))
    np.testing.assert_allclose(j2[:].numpy(), np.diag(X))
    assert list(fg.autograd.jacobian(y.sum(), x1).shape) == [1, 3]

    xb = t(np.stack([X, 2 * X]), requires_grad=True)  # [B=2, N=3]
    yb = (xb * xb)[:, :2]  # [B, M=2]
    jb = fg.autograd.jacobian(yb, xb, batch_axis=0)
    assert list(jb.shape) == [2, 2, 3]
    np.testing.assert_allclose(jb.numpy()[1], np.eye(2, 3) * 2 * (2 * X))

    h = fg.autograd.hessian((x1**3).sum(), x1)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * X))
    with pytest.raises(ValueError, match="0-D or 1-D"):
        fg.autograd.jacobian(xb * 2, xb)
    # the callable form is torch's
    np.testing.assert_allclose(fg.autograd.jacobian(lambda v: v * 3, t(X)).numpy(), 3 * np.eye(3))
