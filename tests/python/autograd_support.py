"""Shared helpers of the autograd engine tests (test_autograd*.py): leaves and value checks."""

from __future__ import annotations

import ferrograd as fg
import numpy as np


def leaf(values=(1.0, 2.0), dtype=None):
    """A float tensor that requires grad (the reference document's ``leaf()``)."""
    if dtype is None:
        return fg.tensor(list(values), requires_grad=True)
    return fg.tensor(list(values), dtype=dtype, requires_grad=True)


def arr(t):
    """The values of a tensor as a float64 NumPy array."""
    return np.asarray(t.numpy(), dtype=np.float64)


def assert_values(t, expected):
    assert t is not None, "expected a tensor, got None"
    np.testing.assert_allclose(arr(t), np.asarray(expected, dtype=np.float64), rtol=1e-6, atol=1e-6)
