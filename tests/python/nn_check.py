"""Finite-difference gradient checks shared by the ``test_nn_*`` tests (float64)."""

from __future__ import annotations

from typing import Callable, Sequence

import ferrograd as fg
import numpy as np


def projection(shape: Sequence[int], seed: int = 123) -> np.ndarray:
    """Fixed random weights that turn an output into a scalar ``sum(out * w)``."""
    return np.random.default_rng(seed).standard_normal(tuple(shape))


def check_grads(
    f: Callable[..., fg.Tensor],
    arrays: Sequence[np.ndarray],
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
) -> None:
    """Asserts that backward through ``f`` matches central differences for every input.

    ``f`` takes float64 tensors and returns a tensor; the scalar differentiated is
    ``sum(f(...) * w)`` with fixed random ``w``.
    """
    tensors = [fg.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = f(*tensors)
    w = projection(list(out.shape))
    (out * fg.tensor(w)).sum().backward()

    def scalar(values: list[np.ndarray]) -> float:
        with fg.no_grad():
            o = f(*[fg.tensor(v) for v in values])
        return float((o.numpy() * w).sum())

    base = [np.array(a, dtype=np.float64) for a in arrays]
    for i, t in enumerate(tensors):
        numeric = np.zeros_like(base[i])
        flat = numeric.reshape(-1)
        for j in range(flat.size):
            plus = [b.copy() for b in base]
            minus = [b.copy() for b in base]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            flat[j] = (scalar(plus) - scalar(minus)) / (2 * eps)
        assert t.grad is not None, f"input {i} got no gradient"
        np.testing.assert_allclose(t.grad.numpy(), numeric, atol=atol, rtol=rtol)


def check_second_order(
    f: Callable[[fg.Tensor], fg.Tensor], array: np.ndarray, eps: float = 1e-6
) -> None:
    """Asserts that differentiating ``grad(sum(f(x) * w), x, create_graph=True)`` again
    matches central differences of the first gradient."""
    w = None

    def first_grad(values: np.ndarray, create_graph: bool) -> fg.Tensor:
        nonlocal w
        x = fg.tensor(values, requires_grad=True)
        out = f(x)
        if w is None:
            w = projection(list(out.shape))
        (g,) = fg.grad((out * fg.tensor(w)).sum(), [x], create_graph=create_graph)
        return g, x

    base = np.array(array, dtype=np.float64)
    g, x = first_grad(base, True)
    v = projection(list(g.shape), seed=7)
    (gg,) = fg.grad((g * fg.tensor(v)).sum(), [x])
    numeric = np.zeros_like(base)
    flat = numeric.reshape(-1)
    for j in range(flat.size):
        plus, minus = base.copy(), base.copy()
        plus.reshape(-1)[j] += eps
        minus.reshape(-1)[j] -= eps
        gp = first_grad(plus, False)[0].numpy()
        gm = first_grad(minus, False)[0].numpy()
        flat[j] = ((gp - gm) * v).sum() / (2 * eps)
    np.testing.assert_allclose(gg.numpy(), numeric, atol=1e-5, rtol=1e-4)
