"""Random photometric transforms: ``BrightnessTransform``, ``ContrastTransform``,
``SaturationTransform``, ``HueTransform`` and ``ColorJitter`` (Paddle's names and ranges).

The factors come from Python's ``random`` module (seed it with ``random.seed``), drawn
once per call, so an image and its mask in one tuple get the same factor.
"""

from __future__ import annotations

import numbers
import random
from typing import Any, Optional, Sequence

from . import functional as F
from .transforms import BaseTransform

__all__ = [
    "BrightnessTransform",
    "ContrastTransform",
    "SaturationTransform",
    "HueTransform",
    "ColorJitter",
]


def _factor_range(
    value: Any,
    name: str,
    center: float = 1.0,
    bound: tuple[float, float] = (0.0, float("inf")),
    clip_first_on_zero: bool = True,
) -> Optional[tuple[float, float]]:
    """Paddle's range rule: a number ``v`` means ``[center - v, center + v]`` (the low end
    clipped at 0 for factors), a pair is taken as given; None when it is just ``center``.
    """
    if isinstance(value, numbers.Real):
        if value < 0:
            raise ValueError(f"{name}: a single number must be non-negative, got {value!r}")
        lo, hi = center - float(value), center + float(value)
        if clip_first_on_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        lo, hi = float(value[0]), float(value[1])
        if not bound[0] <= lo <= hi <= bound[1]:
            raise ValueError(
                f"{name}: the range must satisfy {bound[0]} <= min <= max <= {bound[1]}"
            )
    else:
        raise TypeError(f"{name}: expected a number or a (min, max) pair, got {value!r}")
    if lo == hi == center:
        return None
    return lo, hi


class _RandomFactor(BaseTransform):
    """One factor drawn uniformly from ``self.value`` per call, handed to ``_adjust``."""

    value: Optional[tuple[float, float]]

    def _get_params(self, inputs: Any) -> Any:
        if self.value is None:
            return None
        return random.uniform(self.value[0], self.value[1])

    def _adjust(self, img: Any, factor: float) -> Any:
        raise NotImplementedError

    def _apply_image(self, img: Any) -> Any:
        if self.params is None:
            return img
        return self._adjust(img, self.params)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(value={self.value})"


class BrightnessTransform(_RandomFactor):
    """Scale the brightness by a factor drawn from ``[max(0, 1 - value), 1 + value]``."""

    def __init__(self, value: Any, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        self.value = _factor_range(value, "BrightnessTransform")

    def _adjust(self, img: Any, factor: float) -> Any:
        return F.adjust_brightness(img, factor)


class ContrastTransform(_RandomFactor):
    """Scale the contrast by a factor drawn from ``[max(0, 1 - value), 1 + value]``."""

    def __init__(self, value: Any, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        self.value = _factor_range(value, "ContrastTransform")

    def _adjust(self, img: Any, factor: float) -> Any:
        return F.adjust_contrast(img, factor)


class SaturationTransform(_RandomFactor):
    """Scale the saturation by a factor drawn from ``[max(0, 1 - value), 1 + value]``."""

    def __init__(self, value: Any, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        self.value = _factor_range(value, "SaturationTransform")

    def _adjust(self, img: Any, factor: float) -> Any:
        return F.adjust_saturation(img, factor)


class HueTransform(_RandomFactor):
    """Shift the hue by a factor drawn from ``[-value, value]`` (``value`` in ``[0, 0.5]``)."""

    def __init__(self, value: Any, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        self.value = _factor_range(
            value, "HueTransform", center=0.0, bound=(-0.5, 0.5), clip_first_on_zero=False
        )
        if self.value is not None and not -0.5 <= self.value[0] <= self.value[1] <= 0.5:
            raise ValueError(f"HueTransform: value must be in [0, 0.5], got {value!r}")

    def _adjust(self, img: Any, factor: float) -> Any:
        return F.adjust_hue(img, factor)


class ColorJitter(BaseTransform):
    """Randomly change brightness, contrast, saturation and hue, in a random order.

    Each argument is a number ``v`` (brightness / contrast / saturation factors drawn from
    ``[max(0, 1 - v), 1 + v]``, the hue shift from ``[-v, v]``) or a ``(min, max)`` pair;
    0 leaves that property alone. The order and the factors are drawn once per call.
    """

    def __init__(
        self,
        brightness: Any = 0,
        contrast: Any = 0,
        saturation: Any = 0,
        hue: Any = 0,
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        # Built once so bad arguments fail here, not on the first image.
        self._parts: list[_RandomFactor] = [
            BrightnessTransform(brightness, keys),
            ContrastTransform(contrast, keys),
            SaturationTransform(saturation, keys),
            HueTransform(hue, keys),
        ]

    def _get_params(self, inputs: Any) -> Any:
        order = [p for p in self._parts if p.value is not None]
        random.shuffle(order)
        return [(p, p._get_params(inputs)) for p in order]

    def _apply_image(self, img: Any) -> Any:
        for part, factor in self.params:
            img = part._adjust(img, factor)
        return img

    def __repr__(self) -> str:
        return (
            f"ColorJitter(brightness={self.brightness}, contrast={self.contrast}, "
            f"saturation={self.saturation}, hue={self.hue})"
        )
