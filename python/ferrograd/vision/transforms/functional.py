"""``paddle.vision.transforms.functional``: image ops on NumPy HWC arrays.

Every function takes a NumPy array in HWC layout (or HW for one channel), and also a PIL
image when Pillow is installed (the result is a PIL image again) or a ferrograd Tensor in
CHW layout (the result is a Tensor again; the data goes through NumPy, so no gradient
flows). Pillow is optional: nothing here imports it unless the input is a PIL image.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence, Union

import numpy as np

from ... import _core
from ._color import adjust_brightness as adjust_brightness
from ._color import adjust_contrast as adjust_contrast
from ._color import adjust_hue as adjust_hue
from ._color import adjust_saturation as adjust_saturation
from ._geometry import affine as affine
from ._geometry import erase as erase
from ._geometry import perspective as perspective
from ._geometry import rotate as rotate
from ._image_kinds import image_size, is_pil, to_hwc

__all__ = [
    "to_tensor",
    "normalize",
    "resize",
    "crop",
    "center_crop",
    "hflip",
    "vflip",
    "pad",
    "to_grayscale",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "affine",
    "rotate",
    "perspective",
    "erase",
]

Tensor = _core.Tensor
_is_pil = is_pil
_to_hwc = to_hwc
_image_size = image_size


def to_tensor(pic: Any, data_format: str = "CHW") -> Any:
    """A float32 Tensor from an HWC image: uint8 is scaled to [0, 1], other dtypes are kept.

    ``data_format="CHW"`` (default) moves channels first; ``"HWC"`` keeps the layout. A 2-D
    array gains a channel axis, as in Paddle.
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    if isinstance(pic, Tensor):
        return pic
    arr = np.asarray(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255.0)
    elif arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return _core.to_tensor(np.ascontiguousarray(arr))


def normalize(img: Any, mean: Any, std: Any, data_format: str = "CHW", to_rgb: bool = False) -> Any:
    """``(img - mean) / std`` per channel; ``to_rgb`` first reverses the channel order (BGR -> RGB).

    ``data_format`` says where the channel axis is (``"CHW"`` or ``"HWC"``). A NumPy or PIL
    input comes back as a float32 NumPy array, a Tensor as a Tensor.
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"normalize: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    m = np.asarray(mean, dtype=np.float32).reshape(shape)
    s = np.asarray(std, dtype=np.float32).reshape(shape)
    if isinstance(img, Tensor):
        arr = img.numpy().astype(np.float32)
        if to_rgb:
            arr = arr[::-1] if data_format == "CHW" else arr[..., ::-1]
        return _core.to_tensor(np.ascontiguousarray((arr - m) / s))
    arr = np.asarray(img).astype(np.float32)
    if to_rgb:
        arr = arr[::-1] if data_format == "CHW" else arr[..., ::-1]
    return (arr - m) / s


def _output_size(w: int, h: int, size: Any) -> tuple[int, int]:
    """Paddle's target ``(height, width)``: an int sets the shorter side, keeping the aspect."""
    if isinstance(size, numbers.Integral):
        size = int(size)
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    if len(size) != 2:
        raise ValueError(f"resize: size must be an int or (h, w), got {size!r}")
    return int(size[0]), int(size[1])


def _source_coords(n_out: int, n_in: int) -> np.ndarray:
    """Half-pixel-centre source coordinates (``align_corners=False``), clamped to the image."""
    scale = n_in / n_out
    return np.clip((np.arange(n_out, dtype=np.float64) + 0.5) * scale - 0.5, 0.0, n_in - 1)


def _resize_array(arr: np.ndarray, oh: int, ow: int, interpolation: str) -> np.ndarray:
    """Resize an HW / HWC array to ``(oh, ow)`` with nearest or bilinear sampling."""
    h, w = arr.shape[:2]
    if interpolation == "nearest":
        ys = np.minimum((np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        xs = np.minimum((np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return arr[ys][:, xs]
    if interpolation != "bilinear":
        raise ValueError(
            f"resize: interpolation must be 'bilinear' or 'nearest', got {interpolation!r}"
        )
    sy, sx = _source_coords(oh, h), _source_coords(ow, w)
    y0 = np.floor(sy).astype(np.int64)
    x0 = np.floor(sx).astype(np.int64)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = sy - y0, sx - x0
    extra = (1,) * (arr.ndim - 2)
    wy = wy.reshape((-1, 1) + extra)
    wx = wx.reshape((1, -1) + extra)
    a = arr.astype(np.float64)
    top = a[y0][:, x0] * (1 - wx) + a[y0][:, x1] * wx
    bottom = a[y1][:, x0] * (1 - wx) + a[y1][:, x1] * wx
    out = top * (1 - wy) + bottom * wy
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(arr.dtype)
    return out.astype(arr.dtype)


def resize(img: Any, size: Union[int, Sequence[int]], interpolation: str = "bilinear") -> Any:
    """Resize to ``size``: ``(h, w)``, or an int for the shorter side (aspect ratio kept).

    ``interpolation`` is ``"bilinear"`` (half-pixel centres, as OpenCV / PIL) or
    ``"nearest"``; integer images are rounded back to their dtype.
    """
    arr, back = _to_hwc(img)
    h, w = arr.shape[:2]
    if isinstance(size, numbers.Integral) and min(w, h) == int(size):
        return img
    oh, ow = _output_size(w, h, size)
    return back(_resize_array(arr, oh, ow, interpolation))


def crop(img: Any, top: int, left: int, height: int, width: int) -> Any:
    """The ``height x width`` window whose top-left corner is ``(top, left)``."""
    arr, back = _to_hwc(img)
    return back(arr[top : top + height, left : left + width])


def center_crop(img: Any, output_size: Any) -> Any:
    """The centred ``output_size`` window (an int gives a square), rounding as Paddle does."""
    if isinstance(output_size, numbers.Integral):
        th, tw = int(output_size), int(output_size)
    else:
        th, tw = int(output_size[0]), int(output_size[1])
    w, h = _image_size(img)
    top = int(round((h - th) / 2.0))
    left = int(round((w - tw) / 2.0))
    return crop(img, top, left, th, tw)


def hflip(img: Any) -> Any:
    """Mirror left to right."""
    arr, back = _to_hwc(img)
    return back(arr[:, ::-1])


def vflip(img: Any) -> Any:
    """Mirror top to bottom."""
    arr, back = _to_hwc(img)
    return back(arr[::-1])


_PAD_MODES: dict[str, Any] = {
    "constant": "constant",
    "edge": "edge",
    "reflect": "reflect",
    "symmetric": "symmetric",
}


def pad(img: Any, padding: Any, fill: Any = 0, padding_mode: str = "constant") -> Any:
    """Pad the borders: ``padding`` is an int (all sides), ``(left/right, top/bottom)`` or
    ``(left, top, right, bottom)``; ``padding_mode`` is ``constant`` (with ``fill``),
    ``edge``, ``reflect`` or ``symmetric``.
    """
    if padding_mode not in _PAD_MODES:
        raise ValueError(
            f"pad: padding_mode must be one of {sorted(_PAD_MODES)}, got {padding_mode!r}"
        )
    if isinstance(padding, numbers.Integral):
        left = top = right = bottom = int(padding)
    elif len(padding) == 2:
        left = right = int(padding[0])
        top = bottom = int(padding[1])
    elif len(padding) == 4:
        left, top, right, bottom = (int(p) for p in padding)
    else:
        raise ValueError(f"pad: padding must be an int or a 2- or 4-sequence, got {padding!r}")
    arr, back = _to_hwc(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    if padding_mode == "constant":
        if arr.ndim == 3 and not isinstance(fill, numbers.Number):
            planes = [
                np.pad(arr[:, :, c], widths[:2], mode="constant", constant_values=fill[c])
                for c in range(arr.shape[2])
            ]
            return back(np.stack(planes, axis=2))
        return back(np.pad(arr, widths, mode="constant", constant_values=fill))
    return back(np.pad(arr, widths, mode=_PAD_MODES[padding_mode]))


def to_grayscale(img: Any, num_output_channels: int = 1) -> Any:
    """Luma of an RGB image (ITU-R 601: 0.299 R + 0.587 G + 0.114 B) with 1 or 3 channels.

    Integer images are rounded back to their dtype; the result is HWC (``[H, W, 1]`` or
    ``[H, W, 3]``).
    """
    if num_output_channels not in (1, 3):
        raise ValueError(
            f"to_grayscale: num_output_channels must be 1 or 3, got {num_output_channels!r}"
        )
    if _is_pil(img):
        return img.convert("L") if num_output_channels == 1 else img.convert("L").convert("RGB")
    arr, back = _to_hwc(img)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.shape[2] == 1:
        gray = arr.astype(np.float64)[:, :, 0]
    else:
        gray = arr[:, :, :3].astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        gray = np.clip(np.rint(gray), info.min, info.max)
    out = np.repeat(gray[:, :, None], num_output_channels, axis=2).astype(arr.dtype)
    return back(out)
