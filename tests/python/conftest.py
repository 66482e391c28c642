"""Shared helpers for the Python test suite: finite differences and comparisons."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


def numeric_grad(f, arrays, eps=1e-6):
    """Central-difference gradient of the scalar function ``f(*arrays)`` (float64 NumPy
    arrays) with respect to each array."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a, dtype=np.float64)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (f(*plus) - f(*minus)) / (2 * eps)
        grads.append(g)
    return grads


def check_grad(fn, *arrays, atol=1e-6, rtol=1e-5, second_order=False):
    """Checks ``fn`` (tensors -> tensor) against finite differences in float64: the
    gradient of ``fn(...).sum()`` with respect to every input, and optionally the
    gradient of the sum of those gradients (second order)."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]

    def scalar(*xs):
        ts = [fg.tensor(x) for x in xs]
        return float(fn(*ts).sum().item())

    ts = [fg.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*ts).sum()
    grads = fg.grad(out, ts, create_graph=second_order, allow_unused=True)
    expected = numeric_grad(scalar, arrays)
    for g, e in zip(grads, expected):
        got = np.zeros_like(e) if g is None else g.numpy()
        np.testing.assert_allclose(got, e, atol=atol, rtol=rtol)
    if second_order:

        def first(*xs):
            tt = [fg.tensor(x, requires_grad=True) for x in xs]
            gs = fg.grad(fn(*tt).sum(), tt, create_graph=True, allow_unused=True)
            return float(sum(g.sum() for g in gs if g is not None).item())

        live = [g for g in grads if g is not None and g.requires_grad]
        if live:
            total = live[0].sum()
            for g in live[1:]:
                total = total + g.sum()
            gg = fg.grad(total, ts, allow_unused=True)
            expected2 = numeric_grad(first, arrays, eps=1e-4)
            for g, e in zip(gg, expected2):
                got = np.zeros_like(e) if g is None else g.numpy()
                np.testing.assert_allclose(got, e, atol=1e-4, rtol=1e-3)


@pytest.fixture(autouse=True)
def _fresh_grad_mode():
    """Every test starts with grad mode on and leaves it on."""
    fg.set_grad_enabled(True)
    yield
    assert fg.is_grad_enabled(), "a test left grad mode off"
    fg.set_grad_enabled(True)
