"""``paddle.vision.ops.yolo_loss``: the YOLOv3 training loss of one detection head.

The target assignment (best anchor per ground-truth box, the ignore mask from predicted
boxes overlapping a ground truth by more than ``ignore_thresh``) is computed in NumPy,
as Paddle's kernel does without gradient; the loss itself is composed of differentiable
ops on ``x``, so ``loss.backward()`` reaches the head.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .. import _core, index_select, matmul, softplus, to_tensor
from .. import abs as tensor_abs
from ..nn import functional as F

__all__ = ["yolo_loss"]

Tensor = _core.Tensor


def _np(x: Any) -> np.ndarray:
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _sce(x: Any, target: Any) -> Any:
    """Sigmoid cross entropy with logits, elementwise: ``max(x, 0) - x t + log(1 + e^-|x|)``."""
    return F.relu(x) - x * target + softplus(-tensor_abs(x))


def _center_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of centre-size boxes ``(..., 4)`` broadcast against each other."""

    def overlap(c1: Any, s1: Any, c2: Any, s2: Any) -> Any:
        return np.minimum(c1 + s1 / 2, c2 + s2 / 2) - np.maximum(c1 - s1 / 2, c2 - s2 / 2)

    ow = np.clip(overlap(a[..., 0], a[..., 2], b[..., 0], b[..., 2]), 0, None)
    oh = np.clip(overlap(a[..., 1], a[..., 3], b[..., 1], b[..., 3]), 0, None)
    inter = ow * oh
    return inter / (a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter)


def yolo_loss(
    x: Any,
    gt_box: Any,
    gt_label: Any,
    anchors: Sequence[int],
    anchor_mask: Sequence[int],
    class_num: int,
    ignore_thresh: float,
    downsample_ratio: int,
    gt_score: Optional[Any] = None,
    use_label_smooth: bool = True,
    name: Optional[str] = None,
    scale_x_y: float = 1.0,
) -> Any:
    """YOLOv3 loss per image (``[N]``), as ``paddle.vision.ops.yolo_loss``.

    ``x`` ``[N, S * (5 + class_num), H, W]`` is the head for the ``S`` anchors picked by
    ``anchor_mask`` out of ``anchors`` (``[w0, h0, w1, h1, ...]`` in input pixels; the
    input is ``downsample_ratio`` times the grid). ``gt_box`` ``[N, B, 4]`` holds centre
    x, y, width, height divided by the input size (a box with zero width or height is
    padding), ``gt_label`` ``[N, B]`` class ids, ``gt_score`` ``[N, B]`` optional mixup
    weights. Each ground truth is matched to the anchor (of all of them) whose shape fits
    it best; when that anchor is in ``anchor_mask`` its cell pays the location loss
    (sigmoid cross entropy on x, y, L1 on log w, h, weighted by ``2 - w * h``), the class
    loss (label smoothing to ``1 - 1 / max(class_num, 40)`` with ``use_label_smooth``)
    and positive objectness; cells whose predicted box overlaps a ground truth by more
    than ``ignore_thresh`` pay no negative objectness.
    """
    n, c, h, w = (int(v) for v in x.shape)
    mask = [int(m) for m in anchor_mask]
    s = len(mask)
    per = 5 + class_num
    if c != s * per:
        raise ValueError(
            f"yolo_loss: x has {c} channels; {s} masked anchors with {class_num} classes "
            f"need {s * per}"
        )
    if len(anchors) % 2:
        raise ValueError(f"yolo_loss: anchors must be (w, h) pairs, got {len(anchors)} numbers")
    anc = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    if any(not 0 <= m < anc.shape[0] for m in mask):
        raise ValueError(f"yolo_loss: anchor_mask {mask} indexes past the {anc.shape[0]} anchors")
    gt = _np(gt_box).astype(np.float64)
    labels = _np(gt_label).astype(np.int64)
    b = gt.shape[1]
    if gt.shape != (n, b, 4) or labels.shape != (n, b):
        raise ValueError(
            f"yolo_loss: gt_box must be [N, B, 4] and gt_label [N, B] with N = {n}, got "
            f"{list(gt.shape)} and {list(labels.shape)}"
        )
    score = np.ones((n, b)) if gt_score is None else _np(gt_score).astype(np.float64)
    input_size = downsample_ratio * h
    np_dtype = np.float64 if str(x.dtype).endswith("float64") else np.float32
    xv = _np(x).astype(np.float64).reshape(n, s, per, h, w)
    sig = 1.0 / (1.0 + np.exp(-xv[:, :, :4]))
    bias = -0.5 * (scale_x_y - 1.0)
    # predicted boxes (centre-size, relative to the input) for the ignore mask
    pred = np.stack(
        [
            (np.arange(w) + sig[:, :, 0] * scale_x_y + bias) / w,
            (np.arange(h)[:, None] + sig[:, :, 1] * scale_x_y + bias) / h,
            np.exp(xv[:, :, 2]) * anc[mask, 0][None, :, None, None] / input_size,
            np.exp(xv[:, :, 3]) * anc[mask, 1][None, :, None, None] / input_size,
        ],
        axis=-1,
    )  # [N, S, H, W, 4]
    valid = (gt[:, :, 2] > 0) & (gt[:, :, 3] > 0)
    obj = np.zeros((n, s, h, w))
    for i in range(n):
        if valid[i].any():
            ious = _center_iou(pred[i][..., None, :], gt[i, valid[i]][None, None, None])
            obj[i][ious.max(axis=-1) > ignore_thresh] = -1.0
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    rows, image, targets, weights, onehots, cls_w = [], [], [], [], [], []
    shapes = np.concatenate([np.zeros_like(anc), anc / input_size], axis=1)
    for i in range(n):
        for t in range(b):
            if not valid[i, t]:
                continue
            gx, gy, gw, gh = gt[i, t]
            gi, gj = int(gx * w), int(gy * h)
            fit = _center_iou(shapes, np.array([0.0, 0.0, gw, gh]))
            best = int(np.argmax(fit))
            if best not in mask:
                continue
            m = mask.index(best)
            sc = score[i, t]
            rows.append(((i * s + m) * h + gj) * w + gi)
            image.append(i)
            targets.append([gx * w - gi, gy * h - gj, np.log(gw * input_size / anc[best, 0]),
                            np.log(gh * input_size / anc[best, 1])])  # fmt: skip
            weights.append((2.0 - gw * gh) * sc)
            onehot = np.full(class_num, smooth)
            onehot[labels[i, t]] = 1.0 - smooth
            onehots.append(onehot)
            cls_w.append(sc)
            obj[i, m, gj, gi] = sc
    conf = x.reshape([n, s, per, h, w])[:, :, 4]
    pos = to_tensor(np.where(obj > 1e-5, obj, 0.0).astype(np_dtype))
    neg = to_tensor(((obj <= 1e-5) & (obj > -0.5)).astype(np_dtype))
    loss = (_sce(conf, 1.0) * pos + _sce(conf, 0.0) * neg).reshape([n, s * h * w]).sum(axis=1)
    if rows:
        cells = x.reshape([n, s, per, h * w]).transpose([0, 1, 3, 2]).reshape([n * s * h * w, per])
        picked = index_select(cells, to_tensor(np.asarray(rows, dtype=np.int64)), axis=0)
        tg = to_tensor(np.asarray(targets, dtype=np_dtype))
        wt = to_tensor(np.asarray(weights, dtype=np_dtype))
        loc = (_sce(picked[:, 0:2], tg[:, 0:2]).sum(axis=1)
               + tensor_abs(picked[:, 2:4] - tg[:, 2:4]).sum(axis=1)) * wt  # fmt: skip
        cls = _sce(picked[:, 5:], to_tensor(np.asarray(onehots, dtype=np_dtype))).sum(axis=1)
        per_gt = loc + cls * to_tensor(np.asarray(cls_w, dtype=np_dtype))
        owner = np.zeros((n, len(rows)), dtype=np_dtype)
        owner[np.asarray(image), np.arange(len(rows))] = 1.0
        loss = loss + matmul(to_tensor(owner), per_gt.unsqueeze(1)).reshape([n])
    return loss
