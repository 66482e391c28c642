"""Shared helpers of test_linalg_shape.py and test_cast_inplace.py: a seeded generator
and float64 tensors."""

from __future__ import annotations

import ferrograd as fg
import numpy as np

RNG = np.random.default_rng(99)


def f64(a):
    return fg.tensor(np.asarray(a, dtype=np.float64))


def randn(*shape):
    return RNG.standard_normal(shape)
