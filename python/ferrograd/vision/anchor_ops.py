"""``paddle.vision.ops.prior_box`` (SSD anchors) and ``yolo_box`` (YOLOv3 box decoding).

``prior_box`` only reads shapes, so it is computed in NumPy; ``yolo_box`` is composed of
differentiable tensor ops (boxes and scores are differentiable in ``x``; boxes whose
confidence is below ``conf_thresh`` are zero, as in Paddle).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from .. import _core, exp, sigmoid, stack, to_tensor, where

__all__ = ["prior_box", "yolo_box"]

Tensor = _core.Tensor


def _as_list(v: Any) -> list[float]:
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [float(a) for a in v]
    return [float(v)]


def _expand_ratios(ratios: list[float], flip: bool) -> list[float]:
    """``[1.0]`` then each new ratio (and its inverse with ``flip``), duplicates dropped."""
    out = [1.0]
    for ar in ratios:
        if any(abs(ar - seen) < 1e-6 for seen in out):
            continue
        out.append(ar)
        if flip:
            out.append(1.0 / ar)
    return out


def prior_box(
    input: Any,
    image: Any,
    min_sizes: Any,
    max_sizes: Any = None,
    aspect_ratios: Any = (1.0,),
    variance: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
    flip: bool = False,
    clip: bool = False,
    steps: Sequence[float] = (0.0, 0.0),
    offset: float = 0.5,
    min_max_aspect_ratios_order: bool = False,
    name: Optional[str] = None,
) -> tuple[Any, Any]:
    """SSD prior boxes for the feature map ``input`` over ``image`` (both NCHW), as
    ``paddle.vision.ops.prior_box``: ``(boxes, variances)``, each ``[H, W, num_priors, 4]``
    with boxes ``(x1, y1, x2, y2)`` normalised by the image size.

    Per position and per min size: one box per aspect ratio (1 first, then the given ones
    and, with ``flip``, their inverses) and, with ``max_sizes``, a square of side
    ``sqrt(min * max)``; ``min_max_aspect_ratios_order=True`` puts the min and max squares
    first (Caffe's order). ``steps`` ``(step_w, step_h)``: a 0 in either makes both
    image size / map size.
    """
    mins = _as_list(min_sizes)
    maxs = _as_list(max_sizes)
    if maxs and maxs[0] <= 0:
        maxs = []
    if maxs and len(maxs) != len(mins):
        raise ValueError(
            f"prior_box: max_sizes ({len(maxs)}) must pair with min_sizes ({len(mins)})"
        )
    step_list = _as_list(steps)
    if len(step_list) != 2:
        raise ValueError(f"prior_box: steps must be (step_w, step_h), got {steps!r}")
    var = _as_list(variance)
    if len(var) != 4:
        raise ValueError(f"prior_box: variance must have 4 numbers, got {variance!r}")
    ratios = _expand_ratios(_as_list(aspect_ratios), flip)
    fh, fw = int(input.shape[2]), int(input.shape[3])
    ih, iw = int(image.shape[2]), int(image.shape[3])
    # PriorBoxKernel: a 0 in either step makes both automatic (image size / map size)
    if step_list[0] == 0 or step_list[1] == 0:
        step_w, step_h = iw / fw, ih / fh
    else:
        step_w, step_h = step_list[0], step_list[1]
    half_sizes: list[tuple[float, float]] = []  # (half width, half height) per prior
    for s, mn in enumerate(mins):
        squares = [(mn / 2, mn / 2)]
        if maxs:
            side = math.sqrt(mn * maxs[s]) / 2
            squares.append((side, side))
        shaped = [(mn * math.sqrt(ar) / 2, mn / math.sqrt(ar) / 2) for ar in ratios]
        if min_max_aspect_ratios_order:
            half_sizes += squares + [hs for ar, hs in zip(ratios, shaped) if abs(ar - 1.0) >= 1e-6]
        else:
            half_sizes += shaped + squares[1:]
    hw = np.asarray(half_sizes)  # [P, 2]
    cx = (np.arange(fw) + offset) * step_w
    cy = (np.arange(fh) + offset) * step_h
    cxg = cx[None, :, None]
    cyg = cy[:, None, None]
    boxes = np.stack(
        np.broadcast_arrays(
            (cxg - hw[:, 0]) / iw,
            (cyg - hw[:, 1]) / ih,
            (cxg + hw[:, 0]) / iw,
            (cyg + hw[:, 1]) / ih,
        ),
        axis=-1,
    )
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    dtype = np.float64 if str(input.dtype).endswith("float64") else np.float32
    variances = np.broadcast_to(np.asarray(var), boxes.shape)
    return (
        to_tensor(np.ascontiguousarray(boxes, dtype=dtype)),
        to_tensor(np.ascontiguousarray(variances, dtype=dtype)),
    )


def yolo_box(
    x: Any,
    img_size: Any,
    anchors: Sequence[int],
    class_num: int,
    conf_thresh: float,
    downsample_ratio: int,
    clip_bbox: bool = True,
    name: Optional[str] = None,
    scale_x_y: float = 1.0,
    iou_aware: bool = False,
    iou_aware_factor: float = 0.5,
) -> tuple[Any, Any]:
    """Decode a YOLOv3 head ``x`` ``[N, S * (5 + class_num), H, W]`` (``S`` anchors; with
    ``iou_aware`` the first ``S`` channels are IoU predictions) into ``(boxes, scores)``:
    ``[N, S * H * W, 4]`` boxes ``(x1, y1, x2, y2)`` in the pixels of ``img_size``
    (``[N, 2]``, height then width) and ``[N, S * H * W, class_num]`` scores, as
    ``paddle.vision.ops.yolo_box``.

    ``anchors`` is ``[w0, h0, w1, h1, ...]`` in input pixels; the input is
    ``downsample_ratio`` times the grid. A box whose objectness (``sigmoid``, blended with
    the IoU prediction when ``iou_aware``) is below ``conf_thresh`` gets zero box and
    scores; ``clip_bbox`` clips boxes to the image.
    """
    if len(anchors) % 2:
        raise ValueError(f"yolo_box: anchors must be (w, h) pairs, got {len(anchors)} numbers")
    s = len(anchors) // 2
    n, c, h, w = (int(v) for v in x.shape)
    per = 5 + class_num
    want = s * (per + (1 if iou_aware else 0))
    if c != want:
        raise ValueError(
            f"yolo_box: x has {c} channels; {s} anchors with {class_num} classes need {want}"
            + (" (iou_aware adds one per anchor)" if iou_aware else "")
        )
    np_dtype = np.float64 if str(x.dtype).endswith("float64") else np.float32
    size = img_size.numpy() if isinstance(img_size, Tensor) else np.asarray(img_size)
    size = size.astype(np_dtype).reshape(n, 2)
    img_h = to_tensor(size[:, 0].reshape(n, 1, 1, 1))
    img_w = to_tensor(size[:, 1].reshape(n, 1, 1, 1))
    if iou_aware:
        iou = sigmoid(x[:, :s])
        x = x[:, s:]
    p = x.reshape([n, s, per, h, w])
    grid_x = to_tensor(np.arange(w, dtype=np_dtype).reshape(1, 1, 1, w))
    grid_y = to_tensor(np.arange(h, dtype=np_dtype).reshape(1, 1, h, 1))
    anc = np.asarray(anchors, dtype=np_dtype).reshape(s, 2)
    anc_w = to_tensor(anc[:, 0].reshape(1, s, 1, 1))
    anc_h = to_tensor(anc[:, 1].reshape(1, s, 1, 1))
    bias = -0.5 * (scale_x_y - 1.0)
    cx = (grid_x + sigmoid(p[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (grid_y + sigmoid(p[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = exp(p[:, :, 2]) * anc_w * img_w / (downsample_ratio * w)
    bh = exp(p[:, :, 3]) * anc_h * img_h / (downsample_ratio * h)
    conf = sigmoid(p[:, :, 4])
    if iou_aware:
        conf = conf ** (1.0 - iou_aware_factor) * iou**iou_aware_factor
    x1, y1, x2, y2 = cx - bw * 0.5, cy - bh * 0.5, cx + bw * 0.5, cy + bh * 0.5
    if clip_bbox:
        zero = to_tensor(np.zeros((), dtype=np_dtype))
        x1 = where(x1 > 0, x1, zero)
        y1 = where(y1 > 0, y1, zero)
        x2 = where(x2 < img_w - 1, x2, img_w - 1 + 0 * x2)
        y2 = where(y2 < img_h - 1, y2, img_h - 1 + 0 * y2)
    keep = (conf >= conf_thresh).astype(x.dtype)  # [N, S, H, W]
    boxes = stack([x1, y1, x2, y2], axis=-1) * keep.unsqueeze(-1)
    scores = sigmoid(p[:, :, 5:]) * (conf * keep).unsqueeze(2)  # [N, S, classes, H, W]
    boxes = boxes.reshape([n, s * h * w, 4])
    scores = scores.transpose([0, 1, 3, 4, 2]).reshape([n, s * h * w, class_num])
    return boxes, scores
