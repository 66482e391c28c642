"""The gradient of a reduction broadcast back as one view (`ReduceSaved::unreduce`'s fast
path when backward records nothing): values against NumPy in float64 for every axes /
keepdim combination, non-contiguous incoming gradients, the recorded path under
``create_graph``, and that a `.grad` made from it is an ordinary tensor."""

from __future__ import annotations

import itertools

import ferrograd as fg
import numpy as np
import pytest

SHAPE = (2, 3, 4)
AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2)]


def _np_axes(axis):
    if axis is None:
        return tuple(range(len(SHAPE)))
    return tuple(a % len(SHAPE) for a in (axis if isinstance(axis, tuple) else (axis,)))


def _expected(op, axis, keepdim, gout):
    """d(sum(w * op(x)))/dx with w = gout, in NumPy."""
    axes = _np_axes(axis)
    g = gout if keepdim else np.expand_dims(gout, axes)
    g = np.broadcast_to(g, SHAPE)
    if op == "mean":
        g = g / np.prod([SHAPE[a] for a in axes])
    return g


@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("axis,keepdim", list(itertools.product(AXES, [False, True])))
def test_reduction_gradient_matches_numpy(op, axis, keepdim):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal(SHAPE)
    x = fg.tensor(xv, requires_grad=True)
    if axis is None:
        y = getattr(x, op)()
        out_shape = ()
    else:
        y = getattr(x, op)(dim=axis, keepdim=keepdim)
        out_shape = tuple(y.shape)
    gv = rng.standard_normal(out_shape)
    (gx,) = fg.autograd.grad(y, x, fg.tensor(gv))
    want = _expected(op, axis, keepdim and axis is not None, gv)
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-12, atol=1e-12)


def test_non_contiguous_incoming_gradient():
    rng = np.random.default_rng(1)
    x = fg.tensor(rng.standard_normal((5, 4, 3)), requires_grad=True)
    y = x.sum(dim=1)  # (5, 3)
    gv = rng.standard_normal((3, 5))
    g = fg.tensor(gv).t()  # (5, 3), transposed strides
    (gx,) = fg.autograd.grad(y, x, g)
    want = np.broadcast_to(gv.T[:, None, :], (5, 4, 3))
    np.testing.assert_allclose(gx.numpy(), want, rtol=0, atol=0)
    # keepdim with a size-1 dimension in the middle and a non-contiguous gradient
    y = x.sum(dim=1, keepdim=True)  # (5, 1, 3)
    g = fg.tensor(gv).t().unsqueeze(1)
    (gx,) = fg.autograd.grad(y, x, g)
    np.testing.assert_allclose(gx.numpy(), want, rtol=0, atol=0)


def test_create_graph_keeps_the_recorded_path():
    x = fg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = (x * x).sum(dim=0)
    g = fg.ones(3, dtype=fg.float64, requires_grad=True)
    (gx,) = fg.autograd.grad(y, x, g, create_graph=True)
    assert gx.requires_grad
    np.testing.assert_allclose(gx.numpy(), 2 * np.arange(6.0).reshape(2, 3))
    # second order through the broadcast: d/dg sum(gx) = sum over rows of 2x
    (gg,) = fg.autograd.grad(gx.sum(), g)
    np.testing.assert_allclose(gg.numpy(), 2 * np.arange(6.0).reshape(2, 3).sum(0))


def test_leaf_grad_is_an_ordinary_tensor():
    x = fg.ones(3, requires_grad=True)
    x.sum().backward()
    x.grad.add_(1)  # writable: not a stride-0 view into one element
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    x.sum().backward()  # accumulates into it
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_hook_sees_the_broadcast_gradient():
    x = fg.tensor(np.arange(4.0), requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    y.mean().backward()
    np.testing.assert_allclose(seen[0], np.full(4, 0.25))
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 0.5))
