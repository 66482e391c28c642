"""The Rust kernels behind 2-D ``F.grid_sample`` (forward, input and grid gradients)
against the composed formula they replace (``fn_grid_sample._composed``), which the
loop reference in test_nn_grid_sample.py checks; double backward through the kernels'
custom function (it differentiates the composed formula); edge cases."""

from __future__ import annotations

import itertools

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.nn.fn_grid_sample import _composed

COMBOS = list(
    itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True))
)


def _pair(x, grid, mode, padding, align, fast):
    xt = fg.tensor(x, requires_grad=True)
    gt = fg.tensor(grid, requires_grad=True)
    if fast:
        out = F.grid_sample(xt, gt, mode, padding, align)
    else:
        out = _composed(xt, gt, mode, padding, align)
    w = np.linspace(-1.0, 2.0, out.numel()).reshape(out.shape)
    (out * fg.tensor(w, dtype=out.dtype)).sum().backward()
    return out.numpy(), xt.grad.numpy(), gt.grad.numpy()


@pytest.mark.parametrize("mode, padding, align", COMBOS)
def test_kernels_match_the_composed_formula(mode, padding, align):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 5, 7))
    grid = rng.uniform(-1.4, 1.4, (2, 4, 6, 2))
    fast = _pair(x, grid, mode, padding, align, True)
    slow = _pair(x, grid, mode, padding, align, False)
    for a, b, what in zip(fast, slow, ("output", "input grad", "grid grad")):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12, err_msg=what)


def test_float32_and_a_large_call_split_over_threads():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 8, 40, 50)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (3, 30, 60, 2)).astype(np.float32)
    fast = _pair(x, grid, "bilinear", "reflection", False, True)
    slow = _pair(x, grid, "bilinear", "reflection", False, False)
    assert fast[0].dtype == np.float32
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_gradcheck_and_double_backward(padding):
    rng = np.random.default_rng(13)
    x = fg.tensor(rng.standard_normal((2, 2, 3, 4)), requires_grad=True)
    grid = fg.tensor(rng.uniform(-1.2, 1.2, (2, 3, 2, 2)), requires_grad=True)

    def f(a, g):
        return F.grid_sample(a, g, "bilinear", padding, False)

    assert gradcheck(f, (x, grid))
    assert gradgradcheck(f, (x, grid))
    # the second-order gradient through the kernel's function equals the composed one's
    out = f(x, grid)
    (gx,) = fg.autograd.grad(out.sum(), [grid], create_graph=True)
    (h1,) = fg.autograd.grad((gx * gx).sum(), [x])
    out2 = _composed(x, grid, "bilinear", padding, False)
    (gx2,) = fg.autograd.grad(out2.sum(), [grid], create_graph=True)
    (h2,) = fg.autograd.grad((gx2 * gx2).sum(), [x])
    np.testing.assert_allclose(h1.numpy(), h2.numpy(), rtol=1e-12, atol=1e-12)


def test_only_the_wanted_gradient_is_computed():
    x = fg.tensor(np.arange(12.0).reshape(1, 1, 3, 4), requires_grad=True)
    grid = fg.tensor(np.zeros((1, 1, 1, 2)))
    F.grid_sample(x, grid, align_corners=True).sum().backward()
    assert grid.grad is None
    assert x.grad.numpy()[0, 0, 1, 1] == 0.5 and x.grad.numpy().sum() == 1.0


def test_nan_positions_and_empty_grids():
    x = fg.tensor(np.ones((1, 2, 3, 3)), requires_grad=True)
    grid = fg.tensor([[[[float("nan"), 0.0], [0.0, 0.0]]]], dtype=fg.float64)
    out = F.grid_sample(x, grid, align_corners=False).numpy()
    np.testing.assert_array_equal(out[..., 0], 0.0)
    np.testing.assert_allclose(out[..., 1], 1.0)
    empty = F.grid_sample(x, fg.zeros([1, 0, 4, 2], dtype=fg.float64), align_corners=True)
    assert empty.shape == [1, 2, 0, 4]
    empty.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)


def test_private_entry_points_refuse_bad_input():
    x = fg.ones([1, 1, 2, 2])
    with pytest.raises(ValueError, match="mode"):
        fg._core._grid_sample_2d(x, fg.zeros([1, 1, 1, 2]), "cubic", "zeros", True)
    with pytest.raises(ValueError, match="grid"):
        fg._core._grid_sample_2d(x, fg.zeros([1, 1, 1, 3]), "bilinear", "zeros", True)
    with pytest.raises(TypeError, match="float"):
        fg._core._grid_sample_2d(
            x, fg.zeros([1, 1, 1, 2], dtype=fg.float64), "nearest", "zeros", True
        )
    with pytest.raises(ValueError, match="gradient"):
        fg._core._grid_sample_2d_backward(
            fg.ones([1, 1, 2, 2]), x, fg.zeros([1, 1, 1, 2]), "bilinear", "zeros", True, True, True
        )
