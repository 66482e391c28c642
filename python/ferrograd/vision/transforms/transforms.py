"""``paddle.vision.transforms`` classes: callable wrappers around :mod:`.functional`.

Each transform takes one image, or a tuple / list whose items are named by ``keys``
(default ``("image",)``): items keyed ``"image"`` are transformed, the rest (labels ...)
pass through, as in Paddle. The random transforms draw from Python's global ``random``
module once per call, so an image and its mask in one tuple get the same crop or flip.
"""

from __future__ import annotations

import math
import numbers
import random
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import functional as F

__all__ = [
    "BaseTransform",
    "Compose",
    "ToTensor",
    "Normalize",
    "Resize",
    "CenterCrop",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Transpose",
    "Pad",
    "RandomResizedCrop",
    "Grayscale",
]


class Compose:
    """Apply ``transforms`` in order: ``Compose([Resize(32), ToTensor()])(img)``."""

    def __init__(self, transforms: Sequence[Any]) -> None:
        self.transforms = list(transforms)

    def __call__(self, data: Any) -> Any:
        """Feed ``data`` through each transform in turn."""
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self) -> str:
        inner = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}({inner}\n)"


class BaseTransform:
    """Base of the transforms: ``keys`` routing, one ``_get_params`` draw per call.

    Subclasses implement ``_apply_image(img)`` and, when random, ``_get_params(inputs)``
    (its result is in ``self.params`` while the images are transformed).
    """

    def __init__(self, keys: Optional[Sequence[str]] = None) -> None:
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str):
            keys = (keys,)
        self.keys = tuple(keys)
        self.params: Any = None

    def _get_params(self, inputs: Any) -> Any:
        return None

    def _apply_image(self, img: Any) -> Any:
        raise NotImplementedError

    def __call__(self, inputs: Any) -> Any:
        """Transform ``inputs`` (one image, or a tuple / list routed by ``keys``)."""
        if not isinstance(inputs, (tuple, list)):
            self.params = self._get_params((inputs,))
            return self._apply_image(inputs)
        self.params = self._get_params(inputs)
        out = []
        for i, item in enumerate(inputs):
            key = self.keys[i] if i < len(self.keys) else None
            out.append(self._apply_image(item) if key == "image" else item)
        return tuple(out) if isinstance(inputs, tuple) else out

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _pair(size: Any) -> tuple[int, int]:
    """``(h, w)`` from an int (square) or a pair."""
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    return int(size[0]), int(size[1])


class ToTensor(BaseTransform):
    """HWC image -> float32 Tensor (uint8 scaled to [0, 1]); see :func:`functional.to_tensor`."""

    def __init__(self, data_format: str = "CHW", keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img: Any) -> Any:
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel; a number for ``mean`` / ``std`` means all three channels."""

    def __init__(
        self,
        mean: Any = 0.0,
        std: Any = 1.0,
        data_format: str = "CHW",
        to_rgb: bool = False,
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean, mean, mean]
        if isinstance(std, numbers.Number):
            std = [std, std, std]
        self.mean, self.std = mean, std
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img: Any) -> Any:
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resize to ``size`` (``(h, w)``, or an int for the shorter side); see :func:`functional.resize`."""

    def __init__(
        self,
        size: Union[int, Sequence[int]],
        interpolation: str = "bilinear",
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img: Any) -> Any:
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """Crop the centred ``size`` window (an int gives a square)."""

    def __init__(
        self, size: Union[int, Sequence[int]], keys: Optional[Sequence[str]] = None
    ) -> None:
        super().__init__(keys)
        self.size = _pair(size)

    def _apply_image(self, img: Any) -> Any:
        return F.center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """Crop a random ``size`` window, after optional ``padding`` (see :func:`functional.pad`);
    ``pad_if_needed`` pads an image smaller than ``size`` first.
    """

    def __init__(
        self,
        size: Union[int, Sequence[int]],
        padding: Any = None,
        pad_if_needed: bool = False,
        fill: Any = 0,
        padding_mode: str = "constant",
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.size = _pair(size)
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def _get_param(self, img: Any, output_size: tuple[int, int]) -> tuple[int, int, int, int]:
        w, h = F._image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        if h < th or w < tw:
            raise ValueError(
                f"RandomCrop: crop size {output_size} is larger than the image ({h}, {w})"
            )
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img: Any) -> Any:
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = F._image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        top, left, ch, cw = self._get_param(img, self.size)
        return F.crop(img, top, left, ch, cw)


class RandomHorizontalFlip(BaseTransform):
    """Mirror left to right with probability ``prob``."""

    def __init__(self, prob: float = 0.5, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomHorizontalFlip: prob must be in [0, 1], got {prob!r}")
        self.prob = prob

    def _get_params(self, inputs: Any) -> Any:
        return random.random() < self.prob

    def _apply_image(self, img: Any) -> Any:
        return F.hflip(img) if self.params else img


class RandomVerticalFlip(BaseTransform):
    """Mirror top to bottom with probability ``prob``."""

    def __init__(self, prob: float = 0.5, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomVerticalFlip: prob must be in [0, 1], got {prob!r}")
        self.prob = prob

    def _get_params(self, inputs: Any) -> Any:
        return random.random() < self.prob

    def _apply_image(self, img: Any) -> Any:
        return F.vflip(img) if self.params else img


class Transpose(BaseTransform):
    """Permute the axes of a NumPy / PIL image (default HWC -> CHW); a 2-D image gains a channel."""

    def __init__(
        self, order: Sequence[int] = (2, 0, 1), keys: Optional[Sequence[str]] = None
    ) -> None:
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img: Any) -> Any:
        import numpy as np

        if isinstance(img, F.Tensor):
            return img.transpose(list(self.order))
        arr = np.asarray(img)
        if arr.ndim == 2:
            arr = arr[..., np.newaxis]
        return arr.transpose(self.order)


class Pad(BaseTransform):
    """Pad the borders; see :func:`functional.pad` for ``padding`` / ``fill`` / ``padding_mode``."""

    def __init__(
        self,
        padding: Any,
        fill: Any = 0,
        padding_mode: str = "constant",
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img: Any) -> Any:
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomResizedCrop(BaseTransform):
    """Crop a random area (``scale`` of the image) with a random aspect ratio (``ratio``,
    drawn log-uniformly), then resize it to ``size``; after ten failed draws, a centre crop.

    The area and ratio come from NumPy's global RNG and the position from ``random``, as
    in Paddle.
    """

    def __init__(
        self,
        size: Any,
        scale: Sequence[float] = (0.08, 1.0),
        ratio: Sequence[float] = (3.0 / 4, 4.0 / 3),
        interpolation: str = "bilinear",
        keys: Optional[Sequence[str]] = None,
    ) -> None:
        super().__init__(keys)
        self.size = _pair(size)
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("RandomResizedCrop: scale and ratio must be (min, max) ranges")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = interpolation

    def _get_param(self, img: Any, attempts: int = 10) -> tuple[int, int, int, int]:
        width, height = F._image_size(img)
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target_area = np.random.uniform(self.scale[0], self.scale[1]) * area
            aspect = math.exp(np.random.uniform(log_ratio[0], log_ratio[1]))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h, w = height, int(round(height * max(self.ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img: Any) -> Any:
        top, left, h, w = self._get_param(img)
        return F.resize(F.crop(img, top, left, h, w), self.size, self.interpolation)


class Grayscale(BaseTransform):
    """RGB -> luma with ``num_output_channels`` (1 or 3) channels; see :func:`functional.to_grayscale`."""

    def __init__(self, num_output_channels: int = 1, keys: Optional[Sequence[str]] = None) -> None:
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img: Any) -> Any:
        return F.to_grayscale(img, self.num_output_channels)
