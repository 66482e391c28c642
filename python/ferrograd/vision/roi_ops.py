"""``paddle.vision.ops.roi_align`` / ``roi_pool`` / ``psroi_pool`` and their layers.

Both are composed of differentiable tensor ops, so gradients reach ``x`` (not the boxes,
as in Paddle). RoI Align's bilinear sampling is separable: for each box, a ``[ph, H]``
matrix of row weights and a ``[pw, W]`` matrix of column weights (the sampling points'
interpolation weights summed per bin, computed in NumPy from the box) turn the feature
map into the pooled bins with two matrix products; position-sensitive pooling averages
the same way (uniform weights over each bin's pixels). RoI pooling gathers each bin's
pixels (padded with -inf) and takes the max.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from .. import (
    _core,
    amax,
    concat,
    full,
    index_select,
    matmul,
    nn,
    take_along_axis,
    to_tensor,
    where,
)

__all__ = ["roi_align", "roi_pool", "psroi_pool", "RoIAlign", "RoIPool", "PSRoIPool"]

Tensor = _core.Tensor


def _pair(output_size: Any, fn: str) -> tuple[int, int]:
    if isinstance(output_size, numbers.Integral):
        return int(output_size), int(output_size)
    if isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        return int(output_size[0]), int(output_size[1])
    raise TypeError(f"{fn}: output_size must be an int or (h, w), got {output_size!r}")


def _box_batches(x: Any, boxes: Any, boxes_num: Any, fn: str) -> tuple[np.ndarray, np.ndarray]:
    """The boxes as float64 NumPy ``[R, 4]`` and the image index of each."""
    if not isinstance(x, Tensor) or len(x.shape) != 4:
        raise ValueError(f"{fn}: x must be a [N, C, H, W] Tensor")
    b = boxes.numpy() if isinstance(boxes, Tensor) else np.asarray(boxes)
    b = b.astype(np.float64)
    if b.ndim != 2 or b.shape[1] != 4:
        hint = ""
        if b.ndim == 2 and b.shape[1] == 5:
            hint = (
                " (torchvision's [K, 5] boxes carry the image index first: pass boxes[:, 1:] "
                "and the number of boxes per image as boxes_num)"
            )
        raise ValueError(
            f"{fn}: boxes must have shape [num_boxes, 4] (x1, y1, x2, y2), got "
            f"{list(b.shape)}{hint}"
        )
    n = int(x.shape[0])
    if boxes_num is None:
        if n != 1:
            raise ValueError(
                f"{fn}: boxes_num (boxes per image) is required when the batch has {n} images"
            )
        counts = np.array([b.shape[0]])
    else:
        counts = boxes_num.numpy() if isinstance(boxes_num, Tensor) else np.asarray(boxes_num)
        counts = counts.astype(np.int64).reshape(-1)
    if counts.shape[0] != n or counts.sum() != b.shape[0] or (counts < 0).any():
        raise ValueError(
            f"{fn}: boxes_num must give the number of boxes of each of the {n} images and "
            f"sum to {b.shape[0]}, got {counts.tolist()}"
        )
    return b, np.repeat(np.arange(n), counts)


def _axis_weights(start: float, length: float, bins: int, grid: int, size: int) -> np.ndarray:
    """``[bins, size]``: each bin's summed 1-D bilinear weights of its ``grid`` sample
    points (a point beyond ``[-1, size]`` contributes nothing).
    """
    out = np.zeros((bins, size))
    if grid <= 0:
        return out
    step = length / bins
    pts = start + np.arange(bins)[:, None] * step + (np.arange(grid)[None, :] + 0.5) * step / grid
    valid = (pts >= -1.0) & (pts <= size)
    p = np.maximum(pts, 0.0)
    low = np.floor(p).astype(np.int64)
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    frac = np.where(at_end, 0.0, p - low)
    rows = np.repeat(np.arange(bins), grid)
    np.add.at(out, (rows, low.ravel()), ((1.0 - frac) * valid).ravel())
    np.add.at(out, (rows, high.ravel()), (frac * valid).ravel())
    return out


def roi_align(
    x: Any,
    boxes: Any,
    boxes_num: Any,
    output_size: Any,
    spatial_scale: float = 1.0,
    sampling_ratio: int = -1,
    aligned: bool = True,
    name: Optional[str] = None,
) -> Any:
    """RoI Align (Mask R-CNN) as ``paddle.vision.ops.roi_align``: ``[R, C, ph, pw]``.

    ``boxes`` is ``[R, 4]`` (``x1, y1, x2, y2`` in input coordinates, scaled by
    ``spatial_scale``), ``boxes_num`` the number of boxes of each image, in order. Each
    bin averages ``sampling_ratio``\\ ² bilinear samples (adaptive ``ceil(box / bins)``
    per side when ``<= 0``); ``aligned=True`` shifts the box by half a pixel (Detectron2),
    ``False`` is the legacy form (boxes at least one pixel wide).
    """
    ph, pw = _pair(output_size, "roi_align")
    b, batch = _box_batches(x, boxes, boxes_num, "roi_align")
    _, _, h, w = (int(s) for s in x.shape)
    off = 0.5 if aligned else 0.0
    wy = np.zeros((b.shape[0], ph, h))
    wx = np.zeros((b.shape[0], pw, w))
    for r in range(b.shape[0]):
        x1, y1, x2, y2 = b[r] * spatial_scale - off
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / ph)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pw)
        wy[r] = _axis_weights(y1, rh, ph, gh, h) / max(gh * gw, 1)
        wx[r] = _axis_weights(x1, rw, pw, gw, w)
    return _separable_bins(x, batch, wy, wx)


def _separable_bins(x: Any, batch: np.ndarray, wy: np.ndarray, wx: np.ndarray) -> Any:
    """``out[r, c] = wy[r] @ x[batch[r], c] @ wx[r].T``: ``[R, C, ph, pw]`` from per-box
    row weights ``wy`` ``[R, ph, H]`` and column weights ``wx`` ``[R, pw, W]`` (constants).
    """
    _, c, h, w = (int(s) for s in x.shape)
    nb, ph, pw = wy.shape[0], wy.shape[1], wx.shape[1]
    dtype = _np_dtype(x)
    outs = []
    for img in range(int(x.shape[0])):
        members = np.nonzero(batch == img)[0]
        if members.size == 0:
            continue
        wy_t = to_tensor(wy[members].reshape(members.size * ph, h).astype(dtype))
        wx_t = to_tensor(np.ascontiguousarray(wx[members].transpose(0, 2, 1)).astype(dtype))
        # rows: [R*ph, H] @ [H, C*W] -> [R, ph*C, W]; columns: @ [R, W, pw] -> [R, ph*C, pw]
        feat = x[img].transpose([1, 0, 2]).reshape([h, c * w])
        t = matmul(wy_t, feat).reshape([members.size, ph * c, w])
        t = matmul(t, wx_t).reshape([members.size, ph, c, pw])
        outs.append((members, t.transpose([0, 2, 1, 3])))
    return _in_box_order(outs, nb, (c, ph, pw), x)


def _np_dtype(x: Any) -> Any:
    return np.float64 if str(x.dtype).endswith("float64") else np.float32


def _in_box_order(outs: list[Any], n_boxes: int, tail: tuple[int, int, int], x: Any) -> Any:
    """Concatenate per-image results and put them back in the boxes' order."""
    if not outs:
        return full([0, *tail], 0.0, dtype=x.dtype)
    order = np.concatenate([m for m, _ in outs])
    res = concat([t for _, t in outs], axis=0)
    if (order == np.arange(n_boxes)).all():
        return res
    inverse = np.empty_like(order)
    inverse[order] = np.arange(n_boxes)
    return index_select(res, to_tensor(inverse), axis=0)


def _round_half_away(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def roi_pool(
    x: Any,
    boxes: Any,
    boxes_num: Any,
    output_size: Any,
    spatial_scale: float = 1.0,
    name: Optional[str] = None,
) -> Any:
    """RoI max pooling (Fast R-CNN) as ``paddle.vision.ops.roi_pool``: ``[R, C, ph, pw]``.

    Box corners are scaled by ``spatial_scale`` and rounded to whole pixels (inclusive);
    each bin is the max over its pixels, 0 for a bin with none.
    """
    ph, pw = _pair(output_size, "roi_pool")
    b, batch = _box_batches(x, boxes, boxes_num, "roi_pool")
    n, c, h, w = (int(s) for s in x.shape)
    r = b.shape[0]
    corners = _round_half_away(b * spatial_scale).astype(np.int64)
    regions = []  # per (box, bin): flat pixel indices into [N*H*W]
    for k in range(r):
        x1, y1, x2, y2 = corners[k]
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        bh, bw = rh / ph, rw / pw
        base = batch[k] * h * w
        for i in range(ph):
            hs = min(max(math.floor(i * bh) + y1, 0), h)
            he = min(max(math.ceil((i + 1) * bh) + y1, 0), h)
            for j in range(pw):
                ws = min(max(math.floor(j * bw) + x1, 0), w)
                we = min(max(math.ceil((j + 1) * bw) + x1, 0), w)
                ys, xs = np.meshgrid(np.arange(hs, he), np.arange(ws, we), indexing="ij")
                regions.append((base + ys * w + xs).ravel())
    width = max([len(g) for g in regions] + [1])
    pad = n * h * w  # the index of an extra -inf row
    idx = np.full((len(regions), width), pad, dtype=np.int64)
    for q, g in enumerate(regions):
        idx[q, : len(g)] = g
    empty = np.array([len(g) == 0 for g in regions]).reshape(r * ph * pw, 1)
    rows = x.transpose([0, 2, 3, 1]).reshape([n * h * w, c])
    rows = concat([rows, full([1, c], float("-inf"), dtype=x.dtype)], axis=0)
    picked = index_select(rows, to_tensor(idx.ravel()), axis=0).reshape([r * ph * pw, width, c])
    best = amax(picked, axis=1)
    best = where(to_tensor(np.ascontiguousarray(empty)), full([1, c], 0.0, dtype=x.dtype), best)
    return best.reshape([r, ph, pw, c]).transpose([0, 3, 1, 2])


def _span_weights(start: np.ndarray, end: np.ndarray, size: int) -> np.ndarray:
    """``[bins, size]``: 1 / length over each bin's pixel span ``[start, end)`` (all zero
    for an empty span).
    """
    out = np.zeros((len(start), size))
    for i, (a, e) in enumerate(zip(start, end)):
        if e > a:
            out[i, a:e] = 1.0 / (e - a)
    return out


def psroi_pool(
    x: Any,
    boxes: Any,
    boxes_num: Any,
    output_size: Any,
    spatial_scale: float = 1.0,
    name: Optional[str] = None,
) -> Any:
    """Position-sensitive RoI average pooling (R-FCN) as ``paddle.vision.ops.psroi_pool``.

    ``x`` has ``C = out_channels * ph * pw`` channels; output bin ``(i, j)`` of channel
    ``k`` averages input channel ``(k * ph + i) * pw + j`` over the bin. Box corners are
    rounded to whole pixels (the far corner inclusive), then scaled by ``spatial_scale``.
    Returns ``[R, out_channels, ph, pw]``, differentiable in ``x``.
    """
    ph, pw = _pair(output_size, "psroi_pool")
    if ph <= 0 or pw <= 0:
        raise ValueError(f"psroi_pool: output_size must be positive, got {output_size!r}")
    b, batch = _box_batches(x, boxes, boxes_num, "psroi_pool")
    _, c, h, w = (int(s) for s in x.shape)
    if c % (ph * pw):
        raise ValueError(
            f"psroi_pool: the input's {c} channels must be a multiple of output_size h*w "
            f"({ph}*{pw})"
        )
    oc = c // (ph * pw)
    corners = _round_half_away(b)
    wy = np.zeros((b.shape[0], ph, h))
    wx = np.zeros((b.shape[0], pw, w))
    for r in range(b.shape[0]):
        x1, y1 = corners[r, 0] * spatial_scale, corners[r, 1] * spatial_scale
        x2, y2 = (corners[r, 2] + 1) * spatial_scale, (corners[r, 3] + 1) * spatial_scale
        bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
        ys = np.clip(np.floor(np.arange(ph) * bh + y1), 0, h).astype(np.int64)
        ye = np.clip(np.ceil(np.arange(1, ph + 1) * bh + y1), 0, h).astype(np.int64)
        xs = np.clip(np.floor(np.arange(pw) * bw + x1), 0, w).astype(np.int64)
        xe = np.clip(np.ceil(np.arange(1, pw + 1) * bw + x1), 0, w).astype(np.int64)
        wy[r], wx[r] = _span_weights(ys, ye, h), _span_weights(xs, xe, w)
    full = _separable_bins(x, batch, wy, wx)  # every channel pooled over every bin
    # keep, for bin (i, j), the channels of group i * pw + j: a diagonal in (group, bin)
    full = full.reshape([b.shape[0], oc, ph * pw, ph * pw])
    diag = np.broadcast_to(
        np.arange(ph * pw).reshape(1, 1, ph * pw, 1), (b.shape[0], oc, ph * pw, 1)
    )
    return take_along_axis(full, to_tensor(np.ascontiguousarray(diag)), 3).reshape(
        [b.shape[0], oc, ph, pw]
    )


class PSRoIPool(nn.Layer):
    """Layer form of :func:`psroi_pool`: ``PSRoIPool(output_size, spatial_scale=1.0)``,
    called as ``layer(x, boxes, boxes_num)``.
    """

    def __init__(self, output_size: Any, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, x: Any, boxes: Any, boxes_num: Any) -> Any:
        """:func:`psroi_pool` with the layer's size and scale."""
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)


class RoIAlign(nn.Layer):
    """Layer form of :func:`roi_align`: ``RoIAlign(output_size, spatial_scale=1.0)``,
    called as ``layer(x, boxes, boxes_num, aligned=True)``.
    """

    def __init__(self, output_size: Any, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x: Any, boxes: Any, boxes_num: Any, aligned: bool = True) -> Any:
        """:func:`roi_align` with the layer's size and scale."""
        return roi_align(
            x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned
        )

    def extra_repr(self) -> str:
        """The output size and spatial scale."""
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class RoIPool(nn.Layer):
    """Layer form of :func:`roi_pool`: ``RoIPool(output_size, spatial_scale=1.0)``, called as
    ``layer(x, boxes, boxes_num)``.
    """

    def __init__(self, output_size: Any, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x: Any, boxes: Any, boxes_num: Any) -> Any:
        """:func:`roi_pool` with the layer's size and scale."""
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self) -> str:
        """The output size and spatial scale."""
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"
