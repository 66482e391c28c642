"""``paddle.vision.ops.generate_proposals`` (RPN proposals) and
``distribute_fpn_proposals`` (proposals to FPN levels).

Both select and reorder boxes, so they are computed in NumPy and return constant tensors
(Paddle gives them no gradient either).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core, to_tensor

__all__ = ["generate_proposals", "distribute_fpn_proposals"]

Tensor = _core.Tensor

# the largest log-scale a decoded width or height may take (Paddle's kBBoxClipDefault)
_BBOX_CLIP = math.log(1000.0 / 16.0)


def _np(x: Any) -> np.ndarray:
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _area(b: np.ndarray, off: float) -> np.ndarray:
    """Box areas, 0 for boxes with x2 < x1 or y2 < y1; pixel boxes (``off=1``) are one wider."""
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    return np.where((w < 0) | (h < 0), 0.0, (w + off) * (h + off))


def distribute_fpn_proposals(
    fpn_rois: Any,
    min_level: int,
    max_level: int,
    refer_level: int,
    refer_scale: int,
    pixel_offset: bool = False,
    rois_num: Optional[Any] = None,
    name: Optional[str] = None,
) -> tuple[list[Any], Any, Optional[list[Any]]]:
    """Assign each RoI to the FPN level ``floor(log2(sqrt(area) / refer_scale) +
    refer_level)``, clipped to ``[min_level, max_level]``, as
    ``paddle.vision.ops.distribute_fpn_proposals``.

    Returns ``(multi_rois, restore_ind, rois_num_per_level)``: the RoIs of each level (in
    their original order), the ``[R, 1]`` int32 positions that put the concatenated levels
    back in the input order, and with ``rois_num`` (RoIs per image) the per-level counts
    per image (else None).
    """
    rois = _np(fpn_rois)
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise ValueError(
            f"distribute_fpn_proposals: fpn_rois must be [R, 4], got {list(rois.shape)}"
        )
    if not min_level <= max_level:
        raise ValueError("distribute_fpn_proposals: min_level must not exceed max_level")
    off = 1.0 if pixel_offset else 0.0
    scale = np.sqrt(_area(rois.astype(np.float64), off))
    # the 1e-6 of Paddle's CPU kernel (distribute_fpn_proposals_kernel.cc)
    level = np.floor(np.log2(scale / refer_scale + 1e-6) + refer_level)
    level = np.clip(level, min_level, max_level).astype(np.int64)
    if rois_num is not None:
        counts = _np(rois_num).astype(np.int64).reshape(-1)
        if counts.sum() != rois.shape[0]:
            raise ValueError(
                f"distribute_fpn_proposals: rois_num sums to {int(counts.sum())}, "
                f"but there are {rois.shape[0]} RoIs"
            )
        image = np.repeat(np.arange(counts.size), counts)
    multi, order, per_level = [], [], []
    for lvl in range(min_level, max_level + 1):
        members = np.nonzero(level == lvl)[0]
        multi.append(to_tensor(np.ascontiguousarray(rois[members]).reshape(-1, 4)))
        order.append(members)
        if rois_num is not None:
            per_level.append(
                to_tensor(np.bincount(image[members], minlength=counts.size).astype(np.int32))
            )
    restore = np.empty(rois.shape[0], dtype=np.int32)
    restore[np.concatenate(order)] = np.arange(rois.shape[0], dtype=np.int32)
    return multi, to_tensor(restore.reshape(-1, 1)), per_level if rois_num is not None else None


def _decode(anchors: np.ndarray, deltas: np.ndarray, var: np.ndarray, off: float) -> np.ndarray:
    aw = anchors[:, 2] - anchors[:, 0] + off
    ah = anchors[:, 3] - anchors[:, 1] + off
    acx, acy = anchors[:, 0] + 0.5 * aw, anchors[:, 1] + 0.5 * ah
    cx = var[:, 0] * deltas[:, 0] * aw + acx
    cy = var[:, 1] * deltas[:, 1] * ah + acy
    w = np.exp(np.minimum(var[:, 2] * deltas[:, 2], _BBOX_CLIP)) * aw
    h = np.exp(np.minimum(var[:, 3] * deltas[:, 3], _BBOX_CLIP)) * ah
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off], axis=1)


def _adaptive_nms(boxes: np.ndarray, thresh: float, eta: float, off: float) -> list[int]:
    """Greedy NMS in the given order; after each kept box the threshold is multiplied by
    ``eta`` while it is above 0.5 (adaptive NMS).
    """
    area = _area(boxes, off)
    keep: list[int] = []
    for i in range(boxes.shape[0]):
        ok = True
        if keep:
            k = boxes[keep]
            b = boxes[i]
            apart = (k[:, 0] > b[2]) | (k[:, 2] < b[0]) | (k[:, 1] > b[3]) | (k[:, 3] < b[1])
            w = np.minimum(k[:, 2], b[2]) - np.maximum(k[:, 0], b[0]) + off
            h = np.minimum(k[:, 3], b[3]) - np.maximum(k[:, 1], b[1]) + off
            inter = np.where(apart, 0.0, np.clip(w, 0, None) * np.clip(h, 0, None))
            union = area[keep] + area[i] - inter
            iou = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
            ok = bool((iou <= thresh).all())
        if ok:
            keep.append(i)
            if eta < 1.0 and thresh > 0.5:
                thresh *= eta
    return keep


def generate_proposals(
    scores: Any,
    bbox_deltas: Any,
    img_size: Any,
    anchors: Any,
    variances: Any,
    pre_nms_top_n: int = 6000,
    post_nms_top_n: int = 1000,
    nms_thresh: float = 0.5,
    min_size: float = 0.1,
    eta: float = 1.0,
    pixel_offset: bool = False,
    return_rois_num: bool = False,
    name: Optional[str] = None,
) -> tuple[Any, Any, Optional[Any]]:
    """RPN proposals as ``paddle.vision.ops.generate_proposals``: per image, the best
    ``pre_nms_top_n`` anchors by score (``<= 0``: all) are decoded with ``bbox_deltas`` and
    ``variances``, clipped to ``img_size`` (``[N, 2]``: height, width), boxes narrower or
    shorter than ``max(min_size, 1)`` dropped, NMS applied (``nms_thresh <= 0`` skips it
    and the ``post_nms_top_n`` cut) and the best ``post_nms_top_n`` kept.

    ``scores`` ``[N, A, H, W]``, ``bbox_deltas`` ``[N, 4A, H, W]``, ``anchors`` and
    ``variances`` ``[H, W, A, 4]``. Returns ``(rpn_rois [K, 4], rpn_roi_probs [K, 1],
    rpn_rois_num [N])`` (the last None unless ``return_rois_num``). An image left with
    no box contributes one all-zero box, as in Paddle.
    """
    sc, dl = _np(scores), _np(bbox_deltas)
    n, a, h, w = sc.shape
    if dl.shape != (n, 4 * a, h, w):
        raise ValueError(
            f"generate_proposals: bbox_deltas must be {[n, 4 * a, h, w]}, got {list(dl.shape)}"
        )
    anc = _np(anchors).reshape(-1, 4).astype(np.float64)
    var = _np(variances).reshape(-1, 4).astype(np.float64)
    if anc.shape[0] != h * w * a or var.shape[0] != h * w * a:
        raise ValueError(
            f"generate_proposals: anchors and variances must be [{h}, {w}, {a}, 4] "
            "(feature map height, width, anchors per position)"
        )
    sizes = _np(img_size).astype(np.float64).reshape(n, 2)
    off = 1.0 if pixel_offset else 0.0
    rois, probs, counts = [], [], []
    for i in range(n):
        s = sc[i].transpose(1, 2, 0).reshape(-1).astype(np.float64)
        d = dl[i].reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4).astype(np.float64)
        order = np.argsort(-s, kind="stable")
        if 0 < pre_nms_top_n < s.size:
            order = order[:pre_nms_top_n]
        props = _decode(anc[order], d[order], var[order], off)
        im_h, im_w = sizes[i]
        props[:, 0::2] = np.clip(props[:, 0::2], 0, im_w - off)
        props[:, 1::2] = np.clip(props[:, 1::2], 0, im_h - off)
        ws = props[:, 2] - props[:, 0] + off
        hs = props[:, 3] - props[:, 1] + off
        ok = (ws >= max(min_size, 1.0)) & (hs >= max(min_size, 1.0))
        if pixel_offset:
            ok &= (props[:, 0] + ws / 2 <= im_w) & (props[:, 1] + hs / 2 <= im_h)
        props, kept_scores = props[ok], s[order][ok]
        if props.shape[0] == 0:
            props, kept_scores = np.zeros((1, 4)), np.zeros(1)
        elif nms_thresh > 0:
            keep = _adaptive_nms(props, float(nms_thresh), float(eta), off)
            if 0 < post_nms_top_n < len(keep):
                keep = keep[:post_nms_top_n]
            props, kept_scores = props[keep], kept_scores[keep]
        rois.append(props)
        probs.append(kept_scores)
        counts.append(props.shape[0])
    dtype = sc.dtype if sc.dtype in (np.float32, np.float64) else np.float32
    rpn_rois = to_tensor(np.concatenate(rois).astype(dtype))
    rpn_probs = to_tensor(np.concatenate(probs).reshape(-1, 1).astype(dtype))
    num = to_tensor(np.asarray(counts, dtype=np.int32)) if return_rois_num else None
    return rpn_rois, rpn_probs, num
