"""Parameter initialisers for static programs. Each describes how the startup program
fills a parameter: ``_static_init(shape)`` returns ``(kind, a, b, value)`` with kind one
of ``"constant"``, ``"uniform"``, ``"normal"``, ``"value"``. Any object with such a
method (e.g. an ``nn.initializer``) can be passed as ``default_initializer``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def _fans(shape: Sequence[int]) -> tuple[int, int]:
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[2:])
    # Paddle's convention for 2-D weights [in, out]
    return shape[0] * receptive, shape[1] * receptive


class Constant:
    """Every element equals ``value``."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = float(value)

    def _static_init(self, shape: Sequence[int]) -> tuple[str, float, float, Any]:
        return ("constant", self.value, 0.0, None)


class Uniform:
    """Uniform on ``[low, high)``."""

    def __init__(self, low: float = -1.0, high: float = 1.0) -> None:
        self.low, self.high = float(low), float(high)

    def _static_init(self, shape: Sequence[int]) -> tuple[str, float, float, Any]:
        return ("uniform", self.low, self.high, None)


class Normal:
    """Normal with ``mean`` and ``std``."""

    def __init__(self, mean: float = 0.0, std: float = 1.0) -> None:
        self.mean, self.std = float(mean), float(std)

    def _static_init(self, shape: Sequence[int]) -> tuple[str, float, float, Any]:
        return ("normal", self.mean, self.std, None)


class XavierUniform:
    """Glorot uniform: ``U(-l, l)`` with ``l = sqrt(6 / (fan_in + fan_out))``."""

    def _static_init(self, shape: Sequence[int]) -> tuple[str, float, float, Any]:
        fan_in, fan_out = _fans(shape)
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        return ("uniform", -limit, limit, None)


class XavierNormal:
    """Glorot normal: ``N(0, sqrt(2 / (fan_in + fan_out)))``."""

    def _static_init(self, shape: Sequence[int]) -> tuple[str, float, float, Any]:
        fan_in, fan_out = _fans(shape)
        return ("normal", 0.0, math.sqrt(2.0 / (fan_in + fan_out)), None)


class Assign:
    """A fixed value (array-like or Tensor)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def _static_init(self, shape: Sequence[int]) -> tuple[str, float, float, Any]:
        return ("value", 0.0, 0.0, self.value)


__all__ = ["Assign", "Constant", "Normal", "Uniform", "XavierNormal", "XavierUniform"]
