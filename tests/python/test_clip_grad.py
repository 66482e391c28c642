"""clip_grad_norm_ / clip_grad_value_ and Paddle's ClipGradBy* objects (alone and as an
optimizer's grad_clip=), against NumPy in float64."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def _params_with_grads(grads):
    ps = []
    for g in grads:
        p = fg.zeros(list(np.shape(g)), dtype=fg.float64, requires_grad=True)
        p.grad = fg.tensor(np.asarray(g, np.float64))
        ps.append(p)
    return ps


G = [np.array([3.0, -4.0]), np.array([[1.0, 2.0], [-2.0, 0.5]])]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
def test_clip_grad_norm_matches_numpy(norm_type):
    ps = _params_with_grads(G)
    flat = np.concatenate([g.ravel() for g in G])
    total = np.abs(flat).max() if math.isinf(norm_type) else np.linalg.norm(flat, norm_type)
    out = nn.utils.clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
    assert out.item() == pytest.approx(total, rel=1e-12)
    coef = min(1.0, 1.0 / (total + 1e-6))
    for p, g in zip(ps, G):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-12)


def test_clip_grad_norm_below_the_limit_single_tensor_and_nonfinite():
    ps = _params_with_grads(G)
    nn.utils.clip_grad_norm_(ps, max_norm=100.0)
    np.testing.assert_array_equal(ps[0].grad.numpy(), G[0])
    p = _params_with_grads([np.array([6.0, 8.0])])[0]
    assert nn.utils.clip_grad_norm_(p, 5.0).item() == pytest.approx(10.0)
    np.testing.assert_allclose(p.grad.numpy(), [3.0, 4.0], rtol=1e-6)
    bad = _params_with_grads([np.array([np.inf, 1.0])])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    none = fg.zeros([2], requires_grad=True)  # no grad: skipped
    assert nn.utils.clip_grad_norm_([none], 1.0).item() == 0.0


def test_clip_grad_value():
    ps = _params_with_grads(G)
    nn.utils.clip_grad_value_(ps, 1.5)
    for p, g in zip(ps, G):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -1.5, 1.5))


def test_paddle_clip_objects_on_pairs():
    ps = _params_with_grads(G)
    pairs = [(p, p.grad) for p in ps]
    flat = np.concatenate([g.ravel() for g in G])
    gn = np.linalg.norm(flat)
    out = nn.ClipGradByGlobalNorm(clip_norm=2.0)(pairs)
    for (_, g), ref in zip(out, G):
        np.testing.assert_allclose(g.numpy(), ref * 2.0 / max(gn, 2.0), rtol=1e-12)
    np.testing.assert_array_equal(ps[0].grad.numpy(), G[0])  # inputs untouched
    out = nn.ClipGradByNorm(clip_norm=3.0)(pairs)
    for (_, g), ref in zip(out, G):
        n = np.linalg.norm(ref)
        np.testing.assert_allclose(g.numpy(), ref * (3.0 / n if n > 3.0 else 1.0), rtol=1e-12)
    out = nn.ClipGradByValue(max=1.0, min=-0.5)(pairs)
    for (_, g), ref in zip(out, G):
        np.testing.assert_array_equal(g.numpy(), np.clip(ref, -0.5, 1.0))
    with pytest.raises(ValueError, match="clip_norm"):
        nn.ClipGradByGlobalNorm(0.0)


@pytest.mark.parametrize(
    "clip,ref",
    [
        (
            nn.ClipGradByGlobalNorm(1.0),
            lambda gs: [
                g / max(1.0, np.linalg.norm(np.concatenate([h.ravel() for h in gs]))) for g in gs
            ],
        ),
        (nn.ClipGradByValue(0.5), lambda gs: [np.clip(g, -0.5, 0.5) for g in gs]),
    ],
)
def test_optimizer_grad_clip(clip, ref):
    ps = _params_with_grads(G)
    opt = fg.optimizer.SGD(learning_rate=0.1, parameters=ps, grad_clip=clip)
    opt.step()
    for p, g in zip(ps, ref(G)):
        np.testing.assert_allclose(p.detach().numpy(), -0.1 * g, rtol=1e-12)
    # torch-style constructors take it too
    ps = _params_with_grads(G)
    fg.optim.Adam(ps, lr=0.1, grad_clip=clip).step()
    with pytest.raises(TypeError, match="grad_clip"):
        fg.optim.SGD(ps, lr=0.1, grad_clip=1.0)
