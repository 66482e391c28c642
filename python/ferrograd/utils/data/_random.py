"""Where the data utilities draw their randomness: a NumPy ``Generator`` seeded from the
``generator=`` argument or, by default, from ferrograd's global generator (so that
``ferrograd.manual_seed`` / ``paddle.seed`` make shuffling reproducible)."""

from __future__ import annotations

from typing import Any

import numpy as np


def fresh_seed() -> int:
    """A 62-bit seed drawn from ferrograd's global random generator."""
    from ... import randint

    hi = int(randint(0, 2**31 - 1, [1]).item())
    lo = int(randint(0, 2**31 - 1, [1]).item())
    return (hi << 31) | lo


def make_rng(generator: Any = None) -> np.random.Generator:
    """A NumPy generator from ``generator``: None (seeded from ferrograd's global
    generator), an integer seed, a NumPy ``Generator`` (used as is) or an object with
    ``initial_seed()``."""
    if generator is None:
        return np.random.default_rng(fresh_seed())
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
        return np.random.default_rng(int(generator))
    if hasattr(generator, "initial_seed"):
        return np.random.default_rng(int(generator.initial_seed()))
    raise TypeError(
        "generator must be None, an integer seed or a numpy.random.Generator, got "
        f"{type(generator).__name__}"
    )
