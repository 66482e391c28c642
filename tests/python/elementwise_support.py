"""Shared helpers of the elementwise tests (test_elementwise*.py): a seeded generator,
hypothesis settings, float64 tensors and inputs away from zero."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
from hypothesis import HealthCheck, settings

RNG = np.random.default_rng(20240501)
_erf = np.vectorize(math.erf, otypes=[np.float64])

FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def f64(a):
    return fg.tensor(np.asarray(a, dtype=np.float64))


def away_from_zero(shape, lo=0.5, hi=3.0):
    mag = RNG.uniform(lo, hi, shape)
    return mag * RNG.choice([-1.0, 1.0], shape)
