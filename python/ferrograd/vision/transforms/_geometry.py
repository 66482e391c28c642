"""Warps and erasing: ``affine``, ``rotate``, ``perspective`` and ``erase``.

NumPy arrays and Tensors are warped here by inverse mapping: each output pixel centre
``(x + 0.5, y + 0.5)`` is mapped back into the input and sampled (``"nearest"``: the pixel
containing the point; ``"bilinear"``: the four nearest pixel centres, a neighbour outside
the image counting as ``fill``). The geometry is that of Paddle's PIL and Tensor paths
(and torchvision): the default centre is ``(width / 2, height / 2)`` in these continuous
coordinates, ``rotate`` turns counter-clockwise, ``expand`` grows the canvas to the
rotated bounding box. PIL images are handed to Pillow's own warps, as in Paddle. Paddle's
OpenCV path (its NumPy route) differs and is not copied: it rotates about a centre half
a pixel off, and its ``affine`` replaces the centring translation by ``translate``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Sequence

import numpy as np

from ._image_kinds import Tensor, is_pil, to_hwc

__all__ = ["affine", "rotate", "perspective", "erase"]

_INTERPOLATIONS = ("nearest", "bilinear")


def _pil_resample(interpolation: str) -> Any:
    from PIL import Image

    # Pillow >= 9.1 names the filters in Image.Resampling; older versions on Image itself
    filters: Any = getattr(Image, "Resampling", Image)
    table = {
        "nearest": filters.NEAREST,
        "bilinear": filters.BILINEAR,
        "bicubic": filters.BICUBIC,
    }
    if interpolation not in table:
        raise ValueError(
            f"interpolation must be one of {sorted(table)} for a PIL image, got {interpolation!r}"
        )
    return table[interpolation]


def _pil_fill(img: Any, fill: Any) -> Any:
    """Pillow's ``fillcolor`` for ``img``: a number for one band, a tuple for several."""
    bands = len(img.getbands())
    if isinstance(fill, numbers.Real):
        return fill if bands == 1 else tuple([fill] * bands)
    fill = tuple(fill)
    return fill[0] if bands == 1 else fill


def _fill_vector(fill: Any, channels: int, fn: str) -> np.ndarray:
    """``fill`` as one value per channel (float64)."""
    if fill is None:
        fill = 0
    if isinstance(fill, numbers.Real):
        return np.full(channels, float(fill))
    vals = [float(v) for v in fill]
    if len(vals) == 1:
        return np.full(channels, vals[0])
    if len(vals) != channels:
        raise ValueError(
            f"{fn}: fill has {len(vals)} values but the image has {channels} channel(s)"
        )
    return np.asarray(vals)


def _sample(
    arr: np.ndarray, sx: np.ndarray, sy: np.ndarray, interpolation: str, fill: Any, fn: str
) -> np.ndarray:
    """Sample the HW / HWC ``arr`` at continuous points ``(sx, sy)`` (each ``[oh, ow]``)."""
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"{fn}: interpolation must be 'nearest' or 'bilinear' for NumPy arrays and "
            f"Tensors, got {interpolation!r}"
        )
    squeeze = arr.ndim == 2
    a = arr[:, :, None] if squeeze else arr
    h, w, c = a.shape
    fv = _fill_vector(fill, c, fn)
    # The image padded by one pixel of `fill`, so out-of-range taps read the fill value.
    padded = np.empty((h + 2, w + 2, c), dtype=np.float64)
    padded[...] = fv
    padded[1:-1, 1:-1] = a
    if interpolation == "nearest":
        ix, iy = np.floor(sx), np.floor(sy)
        ok = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        ix = np.where(ok, ix, -1).astype(np.int64) + 1
        iy = np.where(ok, iy, -1).astype(np.int64) + 1
        out = padded[iy, ix]
    else:
        px, py = sx - 0.5, sy - 0.5
        x0, y0 = np.floor(px), np.floor(py)
        wx, wy = (px - x0)[..., None], (py - y0)[..., None]
        # clip to the padded frame: a tap further out than the pad still reads the fill
        x0i = np.clip(x0, -1, w).astype(np.int64) + 1
        y0i = np.clip(y0, -1, h).astype(np.int64) + 1
        x1i = np.clip(x0 + 1, -1, w).astype(np.int64) + 1
        y1i = np.clip(y0 + 1, -1, h).astype(np.int64) + 1
        top = padded[y0i, x0i] * (1 - wx) + padded[y0i, x1i] * wx
        bottom = padded[y1i, x0i] * (1 - wx) + padded[y1i, x1i] * wx
        out = top * (1 - wy) + bottom * wy
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    out = out.astype(arr.dtype)
    return out[:, :, 0] if squeeze else out


def _warp_affine(
    arr: np.ndarray,
    matrix: Sequence[float],
    ow: int,
    oh: int,
    interpolation: str,
    fill: Any,
    fn: str,
) -> np.ndarray:
    """Warp by the inverse affine ``matrix`` (output -> input), both in coordinates centred
    on their image's centre.
    """
    h, w = arr.shape[:2]
    xs = np.arange(ow, dtype=np.float64) + 0.5 - ow / 2.0
    ys = np.arange(oh, dtype=np.float64) + 0.5 - oh / 2.0
    gx, gy = np.meshgrid(xs, ys)
    a, b, c, d, e, f = matrix
    sx = a * gx + b * gy + c + w / 2.0
    sy = d * gx + e * gy + f + h / 2.0
    return _sample(arr, sx, sy, interpolation, fill, fn)


def _inverse_affine_matrix(
    center: Sequence[float],
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: Sequence[float],
) -> list[float]:
    """The inverse of ``T * C * RotateScaleShear * C^-1`` as six numbers (output -> input)."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    # det([[a, b], [c, d]]) == 1, so the inverse is the adjugate, divided by the scale
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _normalize_shear(shear: Any) -> list[float]:
    if isinstance(shear, numbers.Real):
        return [float(shear), 0.0]
    shear = [float(s) for s in shear]
    if len(shear) == 1:
        return [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"affine: shear must be a number or 1 or 2 values, got {shear!r}")
    return shear


def affine(
    img: Any,
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: Any,
    interpolation: str = "nearest",
    fill: Any = 0,
    center: Optional[Sequence[float]] = None,
) -> Any:
    """Rotate by ``angle`` degrees, shift by ``translate`` pixels ``(dx, dy)``, scale by
    ``scale`` and shear by ``shear`` degrees (a number: along x; a pair: x then y), about
    ``center`` (``(x, y)``, default the image centre), as ``paddle.vision.transforms.affine``.
    """
    if not isinstance(angle, numbers.Real):
        raise TypeError(f"affine: angle must be a number, got {type(angle).__name__}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError(f"affine: translate must be a sequence of 2 numbers, got {translate!r}")
    if not scale > 0.0:
        raise ValueError(f"affine: scale must be positive, got {scale!r}")
    shear = _normalize_shear(shear)
    if is_pil(img):
        w, h = img.size
        ctr = [w * 0.5, h * 0.5] if center is None else list(center)
        m = _inverse_affine_matrix(ctr, float(angle), translate, float(scale), shear)
        return img.transform(
            (w, h),
            _pil_image().AFFINE,
            m,
            _pil_resample(interpolation),
            fillcolor=_pil_fill(img, fill),
        )
    arr, back = to_hwc(img)
    h, w = arr.shape[:2]
    rel = [0.0, 0.0] if center is None else [center[0] - w * 0.5, center[1] - h * 0.5]
    m = _inverse_affine_matrix(rel, float(angle), translate, float(scale), shear)
    return back(_warp_affine(arr, m, w, h, interpolation, fill, "affine"))


def _pil_image() -> Any:
    from PIL import Image

    return Image


def rotate(
    img: Any,
    angle: float,
    interpolation: str = "nearest",
    expand: bool = False,
    center: Optional[Sequence[float]] = None,
    fill: Any = 0,
) -> Any:
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (``(x, y)``, default
    the image centre); ``expand=True`` enlarges the output to hold the whole rotated image.
    """
    if not isinstance(angle, numbers.Real):
        raise TypeError(f"rotate: angle must be a number, got {type(angle).__name__}")
    if is_pil(img):
        return img.rotate(
            angle,
            _pil_resample(interpolation),
            expand,
            None if center is None else tuple(center),
            fillcolor=_pil_fill(img, fill),
        )
    arr, back = to_hwc(img)
    h, w = arr.shape[:2]
    rel = [0.0, 0.0] if center is None else [center[0] - w * 0.5, center[1] - h * 0.5]
    m = _inverse_affine_matrix(rel, -float(angle), [0.0, 0.0], 1.0, [0.0, 0.0])
    ow, oh = w, h
    if expand:
        # Pillow's rule: the inverse map of the corners, in absolute coordinates about the
        # absolute centre, rounded outwards (a 90-degree turn of 9x7 gives 7x9).
        ctr = [w * 0.5, h * 0.5] if center is None else [float(center[0]), float(center[1])]
        ma = _inverse_affine_matrix(ctr, -float(angle), [0.0, 0.0], 1.0, [0.0, 0.0])
        ma = [round(v, 12) for v in ma]  # cos(90 deg) = 6e-17 must not add a pixel
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
        px = ma[0] * corners[:, 0] + ma[1] * corners[:, 1] + ma[2]
        py = ma[3] * corners[:, 0] + ma[4] * corners[:, 1] + ma[5]
        ow = int(math.ceil(round(px.max(), 9)) - math.floor(round(px.min(), 9)))
        oh = int(math.ceil(round(py.max(), 9)) - math.floor(round(py.min(), 9)))
    return back(_warp_affine(arr, m, ow, oh, interpolation, fill, "rotate"))


def _perspective_coeffs(startpoints: Any, endpoints: Any) -> np.ndarray:
    """``(a, b, c, d, e, f, g, h)`` taking an end point back to its start point:
    ``x_in = (a x + b y + c) / (g x + h y + 1)``, ``y_in = (d x + e y + f) / (g x + h y + 1)``.
    """
    start = np.asarray(startpoints, dtype=np.float64)
    end = np.asarray(endpoints, dtype=np.float64)
    if start.shape != (4, 2) or end.shape != (4, 2):
        raise ValueError(
            "perspective: startpoints and endpoints must each be 4 [x, y] points "
            "(top-left, top-right, bottom-right, bottom-left)"
        )
    rows = []
    for (x, y), (u, v) in zip(end, start):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    return np.linalg.lstsq(np.asarray(rows), start.reshape(8), rcond=None)[0]


def perspective(
    img: Any, startpoints: Any, endpoints: Any, interpolation: str = "nearest", fill: Any = 0
) -> Any:
    """Warp so that the four ``startpoints`` (``[x, y]``: top-left, top-right, bottom-right,
    bottom-left) land on ``endpoints``; the output keeps the input's size.
    """
    coeffs = _perspective_coeffs(startpoints, endpoints)
    if is_pil(img):
        return img.transform(
            img.size,
            _pil_image().PERSPECTIVE,
            [float(v) for v in coeffs],
            _pil_resample(interpolation),
            fillcolor=_pil_fill(img, fill),
        )
    arr, back = to_hwc(img)
    h, w = arr.shape[:2]
    gx, gy = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    a, b, c, d, e, f, g, hh = coeffs
    den = g * gx + hh * gy + 1.0
    sx = (a * gx + b * gy + c) / den
    sy = (d * gx + e * gy + f) / den
    return back(_sample(arr, sx, sy, interpolation, fill, "perspective"))


def erase(img: Any, i: int, j: int, h: int, w: int, v: Any, inplace: bool = False) -> Any:
    """Set the ``h x w`` region whose top-left corner is row ``i``, column ``j`` to ``v``
    (a number, a per-channel sequence or an array / Tensor broadcastable to the region:
    ``[h, w, C]`` for HWC arrays and PIL images, ``[C, h, w]`` for CHW Tensors).

    ``inplace=True`` writes into a NumPy array or Tensor instead of a copy.
    """
    if isinstance(img, Tensor):
        out = img if inplace else img.clone()
        if isinstance(v, (list, tuple)):
            v = np.asarray(v, dtype=np.float64)[:, None, None]
        if isinstance(v, np.ndarray):
            v = np.ascontiguousarray(v.astype(img.numpy().dtype))
        out[..., i : i + h, j : j + w] = v
        return out
    if is_pil(img):
        arr = np.array(img)
        arr[i : i + h, j : j + w] = _in_range(v, arr.dtype)
        return to_hwc(img)[1](arr)
    if not isinstance(img, np.ndarray):
        raise TypeError(
            f"erase: expected a NumPy array, a PIL image or a Tensor, got {type(img).__name__}"
        )
    result = img if inplace else img.copy()
    result[i : i + h, j : j + w] = _in_range(v, result.dtype)
    return result


def _in_range(v: Any, dtype: Any) -> np.ndarray:
    """``v`` as an array, rounded and clipped into an integer ``dtype``'s range (noise
    values would otherwise wrap around).
    """
    v = np.asarray(v)
    if np.issubdtype(dtype, np.integer) and not np.issubdtype(v.dtype, np.integer):
        info = np.iinfo(dtype)
        v = np.clip(np.rint(v), info.min, info.max)
    return v
