"""Norms: linalg.vector_norm / matrix_norm / norm, torch.norm / paddle.norm / Tensor.norm,
dist — values against numpy.linalg.norm in float64 (batched, 0-d, 0-size), gradients
(gradcheck, gradgradcheck, the subgradient 0 at a zero vector), and clear errors."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
INF = math.inf


def t(*shape, grad=False):
    return fg.tensor(RNG.standard_normal(shape), requires_grad=grad)


@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, INF, -INF, -1, -2.5])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2), (2, 1, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm_matches_numpy(ord, dim, keepdim):
    x = t(3, 4, 5)
    a = x.numpy()
    axes = tuple(range(3)) if dim is None else ((dim,) if isinstance(dim, int) else dim)
    moved = np.moveaxis(a, axes, range(-len(axes), 0))
    flat = moved.reshape(moved.shape[: a.ndim - len(axes)] + (-1,))
    want = np.linalg.norm(flat, ord, axis=-1)
    if keepdim:
        want = np.expand_dims(want, tuple(d % 3 for d in axes))
    got = fg.linalg.vector_norm(x, ord, dim, keepdim).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the differentiable path (a graph node) computes the same values
    xg = x.detach().requires_grad_()
    got_g = fg.linalg.vector_norm(xg, ord, dim, keepdim).detach().numpy()
    np.testing.assert_allclose(got_g, want, rtol=1e-12)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, INF, -INF])
def test_vector_norm_gradcheck_and_gradgradcheck(ord):
    x = t(3, 4, grad=True)
    assert gradcheck(lambda v: fg.linalg.vector_norm(v, ord, 1), (x,))
    assert gradgradcheck(lambda v: fg.linalg.vector_norm(v, ord, 1), (x,))


@pytest.mark.parametrize("ord", [2, 3, 1, 0.5])
def test_gradient_at_zero_is_zero(ord):
    z = fg.zeros(2, 3, dtype=fg.float64, requires_grad=True)
    fg.linalg.vector_norm(z, ord, dim=1).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), np.zeros((2, 3)))


def test_zero_norm_has_zero_gradient():
    x = t(4, grad=True)
    fg.linalg.vector_norm(x, 0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))


def test_zero_d_and_zero_size():
    x = fg.tensor(np.float64(-3.0))
    assert fg.linalg.vector_norm(x).item() == 3.0
    assert fg.linalg.vector_norm(x).shape == []
    e = fg.zeros(0, 3, dtype=fg.float64)
    np.testing.assert_array_equal(fg.linalg.vector_norm(e, dim=0).numpy(), np.zeros(3))
    assert fg.linalg.vector_norm(e).item() == 0.0
    with pytest.raises(ValueError, match="empty"):
        fg.linalg.vector_norm(e, INF, dim=0)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, INF, -INF])
def test_matrix_norm_matches_numpy_batched(ord):
    x = t(2, 3, 4)
    want = np.linalg.norm(x.numpy(), ord, axis=(-2, -1))
    np.testing.assert_allclose(fg.linalg.matrix_norm(x, ord).numpy(), want, rtol=1e-10)
    # other dims, keepdim
    want2 = np.linalg.norm(x.numpy(), ord, axis=(0, 2), keepdims=True)
    got2 = fg.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True).numpy()
    np.testing.assert_allclose(got2, want2, rtol=1e-10)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, 2, -2, INF])
def test_matrix_norm_gradients(ord):
    x = t(3, 4, grad=True)
    assert gradcheck(lambda v: fg.linalg.matrix_norm(v, ord), (x,))
    assert gradgradcheck(lambda v: fg.linalg.matrix_norm(v, ord), (x,))


def test_linalg_norm_rules():
    v, m, b = t(5), t(3, 4), t(2, 3, 4)
    np.testing.assert_allclose(fg.linalg.norm(v).item(), np.linalg.norm(v.numpy()))
    np.testing.assert_allclose(fg.linalg.norm(m, 2).item(), np.linalg.norm(m.numpy(), 2))
    np.testing.assert_allclose(fg.linalg.norm(v, 3).item(), np.linalg.norm(v.numpy(), 3))
    np.testing.assert_allclose(fg.linalg.norm(b).item(), np.linalg.norm(b.numpy().ravel()))
    np.testing.assert_allclose(
        fg.linalg.norm(b, 1, dim=(1, 2)).numpy(), np.linalg.norm(b.numpy(), 1, axis=(1, 2))
    )
    np.testing.assert_allclose(
        fg.linalg.norm(b, dim=-1).numpy(), np.linalg.norm(b.numpy(), axis=-1)
    )
    with pytest.raises(ValueError, match="1-D or 2-D"):
        fg.linalg.norm(b, 2)


def test_paddle_keywords_follow_paddle():
    import ferrograd as paddle

    m = t(3, 4)
    # axis=None with p: the vector norm of all elements (Paddle's rule)
    np.testing.assert_allclose(paddle.linalg.norm(m, p=2).item(), np.linalg.norm(m.numpy().ravel()))
    # two axes and a number: the matrix norm
    np.testing.assert_allclose(
        paddle.linalg.norm(m, p=2, axis=[0, 1]).item(), np.linalg.norm(m.numpy(), 2)
    )
    np.testing.assert_allclose(
        paddle.norm(m, p=2, axis=[0, 1]).item(), np.linalg.norm(m.numpy(), 2)
    )
    np.testing.assert_allclose(
        paddle.linalg.vector_norm(m, p=1, axis=1).numpy(), np.abs(m.numpy()).sum(1)
    )
    np.testing.assert_allclose(
        paddle.linalg.matrix_norm(m, p="nuc", axis=[0, 1]).item(), np.linalg.norm(m.numpy(), "nuc")
    )


def test_torch_norm_and_tensor_norm():
    b = t(2, 3, 4)
    a = b.numpy()
    np.testing.assert_allclose(fg.norm(b).item(), np.linalg.norm(a.ravel()))
    # torch.norm with a number and two dims: the vector norm over both
    np.testing.assert_allclose(
        fg.norm(b, 3, dim=(1, 2)).numpy(), (np.abs(a) ** 3).sum((1, 2)) ** (1 / 3)
    )
    np.testing.assert_allclose(b.norm(p=1, dim=1).numpy(), np.abs(a).sum(1))
    np.testing.assert_allclose(
        b.norm(dim=2, keepdim=True).numpy(), np.linalg.norm(a, axis=2, keepdims=True)
    )
    # torch/functional.py `norm`: 'nuc' without dim is matrix_norm over all dims, so a 3-D
    # input raises; the batched nuclear norm takes dim=(-2, -1) (session 41)
    with pytest.raises(ValueError, match="2-D"):
        fg.norm(b, "nuc")
    np.testing.assert_allclose(
        fg.norm(b, "nuc", dim=(-2, -1)).numpy(), np.linalg.norm(a, "nuc", axis=(-2, -1))
    )
    np.testing.assert_allclose(
        fg.norm(b, "fro", dim=(0, 1)).numpy(), np.linalg.norm(a, "fro", axis=(0, 1))
    )


def test_dist():
    x, y = t(3, 4), t(4)
    np.testing.assert_allclose(
        fg.dist(x, y).item(), np.linalg.norm((x.numpy() - y.numpy()).ravel())
    )
    np.testing.assert_allclose(x.dist(y, 1).item(), np.abs(x.numpy() - y.numpy()).sum())


def test_float32_and_dtype_argument():
    x = t(3, 4).astype(fg.float32)
    assert fg.linalg.vector_norm(x).dtype == fg.float32
    assert fg.linalg.vector_norm(x, dtype=fg.float64).dtype == fg.float64


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="floating-point"):
        fg.linalg.vector_norm(fg.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="ord"):
        fg.linalg.matrix_norm(t(3, 3), 3)
    with pytest.raises(ValueError, match="ord must be a number"):
        fg.linalg.vector_norm(t(3), "fro")
    with pytest.raises(IndexError, match="out of range"):
        fg.linalg.vector_norm(t(3), dim=2)
    with pytest.raises(ValueError, match="at least 2"):
        fg.linalg.matrix_norm(t(3))
