"""Shared helpers of the custom-layer tests (test_pylayer*.py): leaves, value checks,
traceback frames and the two dialects' base classes as a parametrization."""

from __future__ import annotations

import traceback

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer


def leaf(values=(1.0, 2.0)):
    """A float32 tensor that requires grad (the reference document's ``leaf()``)."""
    return fg.tensor(list(values), requires_grad=True)


def arr(t):
    return np.asarray(t.numpy(), dtype=np.float64)


def assert_values(t, expected):
    assert t is not None, "expected a tensor, got None"
    np.testing.assert_allclose(arr(t), np.asarray(expected, dtype=np.float64), rtol=1e-6, atol=1e-6)


def frame_names(exc):
    """(function name, file) of every frame of the traceback of ``exc``."""
    return [(f.name, f.filename) for f in traceback.extract_tb(exc.__traceback__)]


DIALECTS = pytest.mark.parametrize("base", [PyLayer, Function], ids=["paddle", "torch"])
