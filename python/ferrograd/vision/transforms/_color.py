"""Photometric adjustments: ``adjust_brightness`` / ``contrast`` / ``saturation`` / ``hue``.

NumPy arrays and Tensors follow Paddle's Tensor path (and torchvision): a blend with a
black image (brightness), the mean grey level (contrast) or the grey image (saturation),
clipped to the dtype's range (``[0, 1]`` for floating images, ``[0, 255]`` for integer
ones) and truncated back to an integer dtype; hue rotates the H channel in HSV. PIL
images go through ``PIL.ImageEnhance`` as in Paddle's PIL path. Paddle's OpenCV path
differs on purpose and is not copied: its contrast pivots on the fixed grey level 74 and
its saturation draws a random factor inside the function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._image_kinds import is_pil, to_hwc

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue"]

_LUMA = np.array([0.299, 0.587, 0.114])


def _check_factor(name: str, value: float) -> float:
    value = float(value)
    if not value >= 0.0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return value


def _channels(arr: np.ndarray, fn: str) -> int:
    """The channel count of an HW / HWC array (1 or 3), or a ValueError naming ``fn``."""
    c = 1 if arr.ndim == 2 else arr.shape[2]
    if arr.ndim not in (2, 3) or c not in (1, 3):
        raise ValueError(
            f"{fn}: expected an image with 1 or 3 channels (HWC array / CHW Tensor), "
            f"got shape {arr.shape}"
        )
    return c


def _max_value(arr: np.ndarray) -> float:
    return 1.0 if np.issubdtype(arr.dtype, np.floating) else 255.0


def _blend(arr: np.ndarray, target: Any, factor: float) -> np.ndarray:
    """``factor * arr + (1 - factor) * target``, clipped to the dtype's range, in ``arr``'s dtype."""
    out = factor * arr.astype(np.float64) + (1.0 - factor) * target
    out = np.clip(out, 0.0, _max_value(arr))
    return out.astype(arr.dtype)


def _gray(arr: np.ndarray) -> np.ndarray:
    """ITU-R 601 luma of an HWC RGB array (float64, ``[H, W, 1]``)."""
    return (arr[:, :, :3].astype(np.float64) @ _LUMA)[:, :, None]


def adjust_brightness(img: Any, brightness_factor: float) -> Any:
    """Scale the intensities by ``brightness_factor`` (0: black, 1: unchanged, 2: twice as bright)."""
    f = _check_factor("adjust_brightness: brightness_factor", brightness_factor)
    if is_pil(img):
        from PIL import ImageEnhance

        return ImageEnhance.Brightness(img).enhance(f)
    arr, back = to_hwc(img)
    _channels(arr, "adjust_brightness")
    return back(_blend(arr, 0.0, f))


def adjust_contrast(img: Any, contrast_factor: float) -> Any:
    """Blend with the mean grey level (0: a flat grey image, 1: unchanged, 2: twice the contrast)."""
    f = _check_factor("adjust_contrast: contrast_factor", contrast_factor)
    if is_pil(img):
        from PIL import ImageEnhance

        return ImageEnhance.Contrast(img).enhance(f)
    arr, back = to_hwc(img)
    c = _channels(arr, "adjust_contrast")
    mean = float(arr.astype(np.float64).mean()) if c == 1 else float(_gray(arr).mean())
    return back(_blend(arr, mean, f))


def adjust_saturation(img: Any, saturation_factor: float) -> Any:
    """Blend with the grey image (0: grey, 1: unchanged, 2: twice the saturation); 1-channel
    images come back unchanged.
    """
    f = _check_factor("adjust_saturation: saturation_factor", saturation_factor)
    if is_pil(img):
        from PIL import ImageEnhance

        return ImageEnhance.Color(img).enhance(f)
    arr, back = to_hwc(img)
    if _channels(arr, "adjust_saturation") == 1:
        return img
    return back(_blend(arr, _gray(arr), f))


def _rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """HSV (each in [0, 1]) of float RGB in [0, 1], last axis the channel."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    delta = maxc - minc
    flat = delta == 0
    safe = np.where(flat, 1.0, delta)
    s = np.where(maxc == 0, 0.0, delta / np.where(maxc == 0, 1.0, maxc))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(flat, 0.0, (h / 6.0) % 1.0)
    return np.stack([h, s, maxc], axis=-1)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """Float RGB in [0, 1] from HSV in [0, 1], last axis the channel."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.astype(np.int64) % 6
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = np.zeros(hsv.shape, dtype=np.float64)
    for k, (rr, gg, bb) in enumerate(table):
        m = i == k
        out[..., 0][m], out[..., 1][m], out[..., 2][m] = rr[m], gg[m], bb[m]
    return out


def adjust_hue(img: Any, hue_factor: float) -> Any:
    """Rotate the hue by ``hue_factor`` turns, in ``[-0.5, 0.5]`` (±0.5: complementary colours).

    Integer images are scaled to ``[0, 1]`` and rounded back, so ``hue_factor=0`` returns
    the image unchanged; 1-channel images come back unchanged.
    """
    hue_factor = float(hue_factor)
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor must be in [-0.5, 0.5], got {hue_factor!r}")
    if is_pil(img):
        from PIL import Image

        mode = img.mode
        if mode in ("L", "1", "I", "F"):
            return img
        h, s, v = img.convert("HSV").split()
        shifted = (np.asarray(h, dtype=np.int64) + int(hue_factor * 255)) % 256
        h = Image.fromarray(shifted.astype(np.uint8), "L")
        return Image.merge("HSV", (h, s, v)).convert(mode)
    arr, back = to_hwc(img)
    if _channels(arr, "adjust_hue") == 1:
        return img
    integer = not np.issubdtype(arr.dtype, np.floating)
    rgb = arr.astype(np.float64) / (255.0 if integer else 1.0)
    hsv = _rgb_to_hsv(rgb)
    hsv[..., 0] = (hsv[..., 0] + hue_factor) % 1.0
    out = _hsv_to_rgb(hsv)
    if integer:
        return back(np.clip(np.rint(out * 255.0), 0, 255).astype(arr.dtype))
    return back(out.astype(arr.dtype))
