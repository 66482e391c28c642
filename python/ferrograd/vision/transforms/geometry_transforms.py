"""Random warps and erasing: ``RandomRotation``, ``RandomAffine``, ``RandomPerspective``
and ``RandomErasing`` (Paddle's names, arguments and ranges).

Angles, shifts and corner offsets come from Python's ``random`` module; ``RandomErasing``
draws from NumPy's global RNG, as Paddle does. Everything is drawn once per call, so an
image and its mask in one tuple get the same warp.
"""

from __future__ import annotations

import math
import numbers
import random
from typing import Any, Optional, Sequence

import numpy as np

from . import functional as F
from .transforms import BaseTransform

__all__ = ["RandomRotation", "RandomAffine", "RandomPerspective", "RandomErasing"]

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic")


def _angle_range(x: Any, name: str, sizes: tuple[int, ...] = (2,)) -> list[float]:
    """A number ``v`` means ``[-v, v]``; a sequence must have one of ``sizes`` lengths."""
    if isinstance(x, numbers.Real):
        if x < 0:
            raise ValueError(f"{name}: a single number must be non-negative, got {x!r}")
        return [-float(x), float(x)]
    if not isinstance(x, (list, tuple)) or len(x) not in sizes:
        raise ValueError(
            f"{name}: expected a number or a sequence of length "
            f"{' or '.join(str(s) for s in sizes)}, got {x!r}"
        )
    return [float(v) for v in x]


def _check_interpolation(name: str, interpolation: str) -> str:
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"{name}: interpolation must be 'nearest' or 'bilinear' ('bicubic' for PIL "
            f"images only), got {interpolation!r}"
        )
    return interpolation


def _first_image(inputs: Any) -> Any:
    return inputs[0]


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn uniformly from ``degrees`` (a number ``v``: ``[-v, v]``);
    see :func:`functional.rotate` for ``interpolation``, ``expand``, ``center`` and ``fill``.
    """

    def __init__(
        self,
        degrees: Any,
        interpolation: str = "nearest",
        expand: bool = False,
        center: Optional[Sequence[float]] = None,
        fill: Any = 0,
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.degrees = _angle_range(degrees, "RandomRotation: degrees")
        self.interpolation = _check_interpolation("RandomRotation", interpolation)
        self.expand, self.center, self.fill = expand, center, fill

    def _get_params(self, inputs: Any) -> Any:
        return random.uniform(self.degrees[0], self.degrees[1])

    def _apply_image(self, img: Any) -> Any:
        return F.rotate(img, self.params, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """A random affine warp: angle from ``degrees``, shift up to ``translate`` (fractions of
    width and height, whole pixels), scale from ``scale``, shear from ``shear`` (a number
    or pair: along x; four values: x range then y range); see :func:`functional.affine`.
    """

    def __init__(
        self,
        degrees: Any,
        translate: Optional[Sequence[float]] = None,
        scale: Optional[Sequence[float]] = None,
        shear: Any = None,
        interpolation: str = "nearest",
        fill: Any = 0,
        center: Optional[Sequence[float]] = None,
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.degrees = _angle_range(degrees, "RandomAffine: degrees")
        self.interpolation = _check_interpolation("RandomAffine", interpolation)
        if translate is not None:
            if len(translate) != 2 or not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError(
                    f"RandomAffine: translate must be two fractions in [0, 1], got {translate!r}"
                )
        if scale is not None:
            if len(scale) != 2 or not all(s > 0 for s in scale):
                raise ValueError(f"RandomAffine: scale must be two positive numbers, got {scale!r}")
        if center is not None and len(center) != 2:
            raise ValueError(f"RandomAffine: center must be (x, y), got {center!r}")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _angle_range(shear, "RandomAffine: shear", (2, 4))
        self.fill = 0 if fill is None else fill
        self.center = center

    def _get_params(self, inputs: Any) -> Any:
        w, h = F._image_size(_first_image(inputs))
        angle = random.uniform(self.degrees[0], self.degrees[1])
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * w, self.translate[1] * h
            shift = (int(random.uniform(-max_dx, max_dx)), int(random.uniform(-max_dy, max_dy)))
        else:
            shift = (0, 0)
        scale = 1.0 if self.scale is None else random.uniform(self.scale[0], self.scale[1])
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = random.uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear[1] = random.uniform(self.shear[2], self.shear[3])
        return angle, shift, scale, shear

    def _apply_image(self, img: Any) -> Any:
        angle, shift, scale, shear = self.params
        return F.affine(
            img, angle, list(shift), scale, shear, self.interpolation, self.fill, self.center
        )


class RandomPerspective(BaseTransform):
    """With probability ``prob``, move each corner inwards by up to ``distortion_scale`` of
    half the width / height and warp accordingly; see :func:`functional.perspective`.
    """

    def __init__(
        self,
        prob: float = 0.5,
        distortion_scale: float = 0.5,
        interpolation: str = "nearest",
        fill: Any = 0,
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomPerspective: prob must be in [0, 1], got {prob!r}")
        if not 0.0 <= distortion_scale <= 1.0:
            raise ValueError(
                f"RandomPerspective: distortion_scale must be in [0, 1], got {distortion_scale!r}"
            )
        self.prob, self.distortion_scale = prob, distortion_scale
        self.interpolation = _check_interpolation("RandomPerspective", interpolation)
        self.fill = fill

    def get_params(
        self, width: int, height: int, distortion_scale: float
    ) -> tuple[list[list[int]], list[list[int]]]:
        """Random ``(startpoints, endpoints)``: the image corners and where they move."""
        dx = int(distortion_scale * (width // 2))
        dy = int(distortion_scale * (height // 2))

        def near(lo: float, hi: float) -> int:
            return int(random.uniform(lo, hi))

        topleft = [near(0, dx + 1), near(0, dy + 1)]
        topright = [near(width - dx - 1, width), near(0, dy + 1)]
        botright = [near(width - dx - 1, width), near(height - dy - 1, height)]
        botleft = [near(0, dx + 1), near(height - dy - 1, height)]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [topleft, topright, botright, botleft]

    def _get_params(self, inputs: Any) -> Any:
        if random.random() >= self.prob:
            return None
        w, h = F._image_size(_first_image(inputs))
        return self.get_params(w, h, self.distortion_scale)

    def _apply_image(self, img: Any) -> Any:
        if self.params is None:
            return img
        start, end = self.params
        return F.perspective(img, start, end, self.interpolation, self.fill)


def _channels_hw(img: Any) -> tuple[int, int, int]:
    """``(C, H, W)`` of an HWC array / PIL image or a CHW Tensor."""
    if isinstance(img, F.Tensor):
        c, h, w = (int(s) for s in list(img.shape)[-3:])
        return c, h, w
    arr = np.asarray(img)
    if arr.ndim == 2:
        return 1, arr.shape[0], arr.shape[1]
    return arr.shape[2], arr.shape[0], arr.shape[1]


class RandomErasing(BaseTransform):
    """With probability ``prob``, set a random rectangle (``scale`` of the area, aspect
    ``ratio``) to ``value``: a number, one value per channel, or ``"random"`` (normal
    noise, times 255 for arrays and PIL images). Ten failed draws leave the image as is.
    """

    def __init__(
        self,
        prob: float = 0.5,
        scale: Sequence[float] = (0.02, 0.33),
        ratio: Sequence[float] = (0.3, 3.3),
        value: Any = 0,
        inplace: bool = False,
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        if not (len(scale) == 2 and 0 <= scale[0] <= scale[1] <= 1):
            raise ValueError(f"RandomErasing: scale must be (min, max) in [0, 1], got {scale!r}")
        if not (len(ratio) == 2 and 0 < ratio[0] <= ratio[1]):
            raise ValueError(f"RandomErasing: ratio must be a positive (min, max), got {ratio!r}")
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomErasing: prob must be in [0, 1], got {prob!r}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: a string value must be 'random', got {value!r}")
        self.prob, self.scale, self.ratio = prob, tuple(scale), tuple(ratio)
        self.value, self.inplace = value, inplace

    def _get_params(self, inputs: Any) -> Any:
        if random.random() >= self.prob:
            return None
        c, h, w = _channels_hw(_first_image(inputs))
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            area = np.random.uniform(self.scale[0], self.scale[1]) * h * w
            aspect = math.exp(np.random.uniform(log_ratio[0], log_ratio[1]))
            eh = int(round(math.sqrt(area * aspect)))
            ew = int(round(math.sqrt(area / aspect)))
            if eh >= h or ew >= w:
                continue
            noise = None
            if self.value == "random":
                noise = np.random.normal(size=(eh, ew, c))
            top = np.random.randint(0, h - eh + 1)
            left = np.random.randint(0, w - ew + 1)
            return int(top), int(left), eh, ew, noise
        return None

    def _apply_image(self, img: Any) -> Any:
        if self.params is None:
            return img
        top, left, eh, ew, noise = self.params
        if isinstance(img, F.Tensor):
            v: Any = noise.transpose(2, 0, 1) if noise is not None else self.value
        else:
            v = noise * 255 if noise is not None else self.value
        if not isinstance(v, (numbers.Number, np.ndarray)):
            v = np.asarray(v, dtype=np.float64)
            if isinstance(img, F.Tensor):
                v = v[:, None, None]
        return F.erase(img, top, left, eh, ew, v, self.inplace)
