"""``paddle.tensor.random``: random tensor creation under Paddle's names."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core

__all__ = ["gaussian", "uniform", "randn", "rand", "randint"]

randn = _core.randn
rand = _core.rand
randint = _core.randint


def gaussian(
    shape: Any,
    mean: float = 0.0,
    std: float = 1.0,
    seed: int = 0,
    dtype: Any = None,
    name: Optional[str] = None,
) -> Any:
    """Normal samples of the given ``shape`` (a list or tuple) with ``mean`` and ``std``,
    from ferrograd's generator (``seed`` must be 0: use ``ferrograd.seed`` to seed)."""
    if seed != 0:
        raise ValueError("gaussian: seed= is not supported; call ferrograd.seed(n) instead")
    out = _core.randn(list(shape), dtype=dtype or "float32")
    if std != 1.0:
        out = out * std
    if mean != 0.0:
        out = out + mean
    return out


def uniform(
    shape: Any,
    dtype: Any = None,
    min: float = -1.0,
    max: float = 1.0,
    seed: int = 0,
    name: Optional[str] = None,
) -> Any:
    """Uniform samples in ``[min, max)`` of the given ``shape``."""
    if seed != 0:
        raise ValueError("uniform: seed= is not supported; call ferrograd.seed(n) instead")
    return _core.rand(list(shape), dtype=dtype or "float32") * (max - min) + min
