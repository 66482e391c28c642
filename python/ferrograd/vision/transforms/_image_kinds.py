"""The three image kinds the transforms take: NumPy HWC arrays, PIL images, CHW Tensors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ... import _core

__all__ = ["Tensor", "is_pil", "to_hwc", "image_size"]

Tensor = _core.Tensor


def is_pil(img: Any) -> bool:
    """True for a PIL image (without importing Pillow when it is not already loaded)."""
    return type(img).__module__.startswith("PIL.")


def to_hwc(img: Any) -> tuple[np.ndarray, Callable[[np.ndarray], Any]]:
    """``img`` as a NumPy HWC / HW array, and a function turning a result back into its kind."""
    if isinstance(img, np.ndarray):
        return img, lambda a: a
    if is_pil(img):
        from PIL import Image  # only reached with a PIL image, so Pillow is installed

        mode = img.mode
        return np.asarray(img), lambda a: Image.fromarray(np.ascontiguousarray(a), mode=mode)
    if isinstance(img, Tensor):
        arr = img.numpy()
        if arr.ndim == 3:
            return arr.transpose(1, 2, 0), lambda a: _core.to_tensor(
                np.ascontiguousarray(a.transpose(2, 0, 1))
            )
        return arr, lambda a: _core.to_tensor(np.ascontiguousarray(a))
    raise TypeError(f"expected a NumPy array, a PIL image or a Tensor, got {type(img).__name__}")


def image_size(img: Any) -> tuple[int, int]:
    """``(width, height)`` of a NumPy HWC array, a PIL image or a CHW Tensor."""
    if is_pil(img):
        w, h = img.size
        return int(w), int(h)
    if isinstance(img, Tensor):
        shape = list(img.shape)
        return int(shape[-1]), int(shape[-2])
    arr = np.asarray(img)
    return int(arr.shape[1]), int(arr.shape[0])
