"""``paddle.vision.ops.nms`` and ``box_coder``: box selection and box encoding.

``nms`` returns indices (no gradient, as in Paddle); ``box_coder`` is composed of
differentiable tensor ops, so gradients reach the target boxes (and the prior boxes).
"""

from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence

import numpy as np

from .. import _core, exp, log, stack, to_tensor

__all__ = ["nms", "matrix_nms", "box_coder"]

Tensor = _core.Tensor


def _as_numpy(x: Any, name: str, fn: str) -> np.ndarray:
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, (np.ndarray, list, tuple)):
        return np.asarray(x)
    raise TypeError(f"{fn}: {name} must be a Tensor, got {type(x).__name__}")


def _check_boxes(boxes: np.ndarray, fn: str) -> None:
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(
            f"{fn}: boxes must have shape [num_boxes, 4] (x1, y1, x2, y2), got {list(boxes.shape)}"
        )


def _greedy_nms(boxes: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices (into ``boxes``, already in priority order) kept by greedy suppression:
    a box is dropped when its IoU with a kept box is above ``iou_threshold``.
    """
    b = boxes.astype(np.float64)
    areas = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    suppressed = np.zeros(len(b), dtype=bool)
    keep = []
    for i in range(len(b)):
        if suppressed[i]:
            continue
        keep.append(i)
        rest = np.arange(i + 1, len(b))
        rest = rest[~suppressed[rest]]
        if rest.size == 0:
            continue
        w = np.clip(np.minimum(b[i, 2], b[rest, 2]) - np.maximum(b[i, 0], b[rest, 0]), 0, None)
        h = np.clip(np.minimum(b[i, 3], b[rest, 3]) - np.maximum(b[i, 1], b[rest, 1]), 0, None)
        inter = w * h
        union = areas[i] + areas[rest] - inter
        iou = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
        suppressed[rest[iou > iou_threshold]] = True
    return np.asarray(keep, dtype=np.int64)


def _by_score(scores: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``idx`` ordered by descending score (stable, so ties keep index order)."""
    return idx[np.argsort(-scores[idx], kind="stable")]


def nms(
    boxes: Any,
    iou_threshold: float = 0.3,
    scores: Optional[Any] = None,
    category_idxs: Optional[Any] = None,
    categories: Optional[Sequence[int]] = None,
    top_k: Optional[int] = None,
) -> Any:
    """Non-maximum suppression over ``boxes`` (``[num_boxes, 4]``, ``x1, y1, x2, y2``).

    Without ``scores`` the boxes are taken in the given order; with ``scores`` they are
    ranked by score first. With ``category_idxs`` and ``categories`` each category is
    suppressed on its own and the survivors are ranked by score together (equal scores
    in index order, with or without categories). ``top_k`` keeps the first ``top_k``
    survivors (Paddle applies it only with categories; here it applies whenever it is
    given). Returns an int64 Tensor of indices into ``boxes``.
    """
    b = _as_numpy(boxes, "boxes", "nms")
    _check_boxes(b, "nms")
    if not isinstance(iou_threshold, numbers.Real):
        raise TypeError(
            f"nms: iou_threshold must be a number, got {type(iou_threshold).__name__}; the "
            "order is Paddle's nms(boxes, iou_threshold, scores) (torchvision's "
            "nms(boxes, scores, iou_threshold) is nms(boxes, iou_threshold, scores) here)"
        )
    if scores is None:
        if category_idxs is not None:
            raise ValueError("nms: category_idxs needs scores to rank the boxes")
        keep = _greedy_nms(b, float(iou_threshold))
    else:
        s = _as_numpy(scores, "scores", "nms").reshape(-1)
        if s.shape[0] != b.shape[0]:
            raise ValueError(f"nms: scores has {s.shape[0]} entries for {b.shape[0]} boxes")
        if category_idxs is None:
            order = _by_score(s, np.arange(len(b)))
            keep = order[_greedy_nms(b[order], float(iou_threshold))]
        else:
            if categories is None:
                raise ValueError(
                    "nms: categories (the list of category ids) is required with category_idxs"
                )
            c = _as_numpy(category_idxs, "category_idxs", "nms").reshape(-1)
            if c.shape[0] != b.shape[0]:
                raise ValueError(
                    f"nms: category_idxs has {c.shape[0]} entries for {b.shape[0]} boxes"
                )
            kept = []
            for cat in categories:
                members = np.nonzero(c == cat)[0]
                if members.size == 0:
                    continue
                order = _by_score(s, members)
                kept.append(order[_greedy_nms(b[order], float(iou_threshold))])
            keep = np.concatenate(kept) if kept else np.zeros(0, dtype=np.int64)
            # Paddle marks the survivors in a mask, so they are ranked from index order:
            # equal scores keep index order, whatever their categories
            keep = _by_score(s, np.sort(keep))
    if top_k is not None:
        if top_k > b.shape[0]:
            raise ValueError(
                f"nms: top_k ({top_k}) must not exceed the number of boxes ({b.shape[0]})"
            )
        keep = keep[: int(top_k)]
    return to_tensor(np.ascontiguousarray(keep, dtype=np.int64))


def _iou_matrix(b: np.ndarray, normalized: bool) -> np.ndarray:
    """Pairwise IoU of ``[K, 4]`` boxes (pixel boxes, ``normalized=False``, are one wider)."""
    off = 0.0 if normalized else 1.0
    area = (b[:, 2] - b[:, 0] + off) * (b[:, 3] - b[:, 1] + off)
    w = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]) + off
    h = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]) + off
    inter = np.clip(w, 0, None) * np.clip(h, 0, None)
    # boxes that do not touch have no overlap, before the "+1" of pixel boxes (Paddle's rule)
    apart = (
        (b[None, :, 0] > b[:, None, 2])
        | (b[None, :, 2] < b[:, None, 0])
        | (b[None, :, 1] > b[:, None, 3])
        | (b[None, :, 3] < b[:, None, 1])
    )
    inter = np.where(apart, 0.0, inter)
    union = area[:, None] + area[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def matrix_nms(
    bboxes: Any,
    scores: Any,
    score_threshold: float,
    post_threshold: float,
    nms_top_k: int,
    keep_top_k: int,
    use_gaussian: bool = False,
    gaussian_sigma: float = 2.0,
    background_label: int = 0,
    normalized: bool = True,
    return_index: bool = False,
    return_rois_num: bool = True,
    name: Optional[str] = None,
) -> tuple[Any, Any, Any]:
    """Matrix NMS (SOLOv2) as ``paddle.vision.ops.matrix_nms``: scores are decayed by
    their overlap with higher-scored boxes of the same class instead of being dropped.

    ``bboxes`` ``[N, M, 4]``, ``scores`` ``[N, C, M]``. Per image and class (but
    ``background_label``): boxes scoring above ``score_threshold``, the best ``nms_top_k``
    (-1: all), get score ``s * min_j decay(i, j)`` over the higher-scored ``j``, with
    ``decay = (1 - iou_ij) / (1 - max_iou_j)`` or, ``use_gaussian``,
    ``exp((max_iou_j^2 - iou_ij^2) * gaussian_sigma)``; those above
    ``post_threshold`` are kept, then the best ``keep_top_k`` per image (-1: all).
    Returns ``(out, rois_num, index)`` as Paddle does: ``out`` ``[No, 6]`` rows
    ``[label, score, x1, y1, x2, y2]``, ``rois_num`` ``[N]`` (None unless
    ``return_rois_num``), ``index`` ``[No, 1]`` into the flattened ``N * M`` boxes (None
    unless ``return_index``).
    """
    bb = _as_numpy(bboxes, "bboxes", "matrix_nms").astype(np.float64)
    sc = _as_numpy(scores, "scores", "matrix_nms").astype(np.float64)
    if bb.ndim != 3 or bb.shape[2] != 4 or sc.ndim != 3 or sc.shape[2] != bb.shape[1]:
        raise ValueError(
            "matrix_nms: bboxes must be [N, M, 4] and scores [N, C, M] with the same M, got "
            f"{list(bb.shape)} and {list(sc.shape)}"
        )
    n, m = bb.shape[:2]
    rows, index, counts = [], [], []
    for img in range(n):
        dets = []  # (score, label, box index)
        for c in range(sc.shape[1]):
            if c == background_label:
                continue
            cand = np.nonzero(sc[img, c] > score_threshold)[0]
            cand = cand[np.argsort(-sc[img, c, cand], kind="stable")]
            if nms_top_k > -1:
                cand = cand[:nms_top_k]
            if cand.size == 0:
                continue
            iou = np.triu(_iou_matrix(bb[img, cand], normalized), k=1)  # iou[j, i], j < i
            max_iou = iou.max(axis=0)  # each box's largest overlap with a better one
            if use_gaussian:
                decay = np.exp((max_iou[:, None] ** 2 - iou**2) * gaussian_sigma)
            else:
                decay = (1.0 - iou) / (1.0 - max_iou[:, None])
            # only pairs j < i decay box i; the rest count as 1
            decay = np.where(np.triu(np.ones_like(iou), k=1) > 0, decay, 1.0).min(axis=0)
            decayed = sc[img, c, cand] * decay
            # strictly above, as NMSMatrix (matrix_nms_kernel.cc) drops `ds <= post_threshold`
            for k in np.nonzero(decayed > post_threshold)[0]:
                dets.append((decayed[k], c, cand[k]))
        dets.sort(key=lambda d: -d[0])
        if keep_top_k > -1:
            dets = dets[:keep_top_k]
        for score, label, box in dets:
            rows.append([label, score, *bb[img, box]])
            index.append(img * m + box)
        counts.append(len(dets))
    dtype = (
        np.float32 if _as_numpy(bboxes, "bboxes", "matrix_nms").dtype == np.float32 else np.float64
    )
    out = to_tensor(np.asarray(rows, dtype=dtype).reshape(-1, 6))
    idx = to_tensor(np.asarray(index, dtype=np.int64).reshape(-1, 1)) if return_index else None
    num = to_tensor(np.asarray(counts, dtype=np.int32)) if return_rois_num else None
    return out, num, idx


def _corners(t: Any) -> list[Any]:
    return [t[..., i] for i in range(4)]


def box_coder(
    prior_box: Any,
    prior_box_var: Any,
    target_box: Any,
    code_type: str = "encode_center_size",
    box_normalized: bool = True,
    axis: int = 0,
    name: Optional[str] = None,
) -> Any:
    """Encode boxes against priors (anchors) or decode offsets back into boxes, as
    ``paddle.vision.ops.box_coder``.

    ``encode_center_size``: ``target_box`` ``[N, 4]`` against ``prior_box`` ``[M, 4]``
    gives ``[N, M, 4]`` offsets ``((tx - px) / pw, (ty - py) / ph, log(tw / pw),
    log(th / ph))`` divided by the variances. ``decode_center_size``: ``target_box``
    ``[N, M, 4]`` offsets become ``[x1, y1, x2, y2]`` boxes; the priors line up with axis 1
    of the target (``axis=0``, priors ``[M, 4]``) or axis 0 (``axis=1``, priors ``[N, 4]``).
    ``prior_box_var`` is a ``[M, 4]`` Tensor (one row per prior), 4 numbers for all, or
    None. ``box_normalized=False`` treats coordinates as pixel indices (width = x2 - x1 + 1).
    """
    if code_type not in ("encode_center_size", "decode_center_size"):
        raise ValueError(
            "box_coder: code_type must be 'encode_center_size' or 'decode_center_size', "
            f"got {code_type!r}"
        )
    if axis not in (0, 1):
        raise ValueError(f"box_coder: axis must be 0 or 1, got {axis!r}")
    prior = prior_box if isinstance(prior_box, Tensor) else to_tensor(np.asarray(prior_box))
    target = target_box if isinstance(target_box, Tensor) else to_tensor(np.asarray(target_box))
    if len(prior.shape) != 2 or int(prior.shape[1]) != 4:
        raise ValueError(f"box_coder: prior_box must be [M, 4], got {list(prior.shape)}")
    norm = 0.0 if box_normalized else 1.0
    px1, py1, px2, py2 = _corners(prior)
    pw, ph = px2 - px1 + norm, py2 - py1 + norm
    pcx, pcy = px1 + pw * 0.5, py1 + ph * 0.5
    if prior_box_var is None:
        var: Optional[list[Any]] = None
    elif isinstance(prior_box_var, Tensor):
        if list(prior_box_var.shape) != list(prior.shape):
            raise ValueError(
                f"box_coder: a prior_box_var Tensor must have prior_box's shape {list(prior.shape)}, "
                f"got {list(prior_box_var.shape)}"
            )
        var = _corners(prior_box_var)
    else:
        vals = [float(v) for v in prior_box_var]
        if len(vals) != 4:
            raise ValueError(f"box_coder: prior_box_var must have 4 numbers, got {len(vals)}")
        var = vals
    if code_type == "encode_center_size":
        if len(target.shape) != 2 or int(target.shape[1]) != 4:
            raise ValueError(
                f"box_coder: encoding needs target_box of shape [N, 4], got {list(target.shape)}"
            )
        tx1, ty1, tx2, ty2 = (c.unsqueeze(1) for c in _corners(target))  # [N, 1] against [M]
        tw, th = tx2 - tx1 + norm, ty2 - ty1 + norm
        # Paddle's kernel centres the target on its midpoint but the prior on x1 + pw / 2
        # (the "+1" pixel width shifts only the prior's centre when not normalized)
        tcx, tcy = (tx1 + tx2) * 0.5, (ty1 + ty2) * 0.5
        out = [(tcx - pcx) / pw, (tcy - pcy) / ph, log((tw / pw).abs()), log((th / ph).abs())]
        if var is not None:
            out = [o / v for o, v in zip(out, var)]
        return stack(out, axis=-1)
    if len(target.shape) != 3 or int(target.shape[2]) != 4:
        raise ValueError(
            f"box_coder: decoding needs target_box of shape [N, M, 4], got {list(target.shape)}"
        )
    along = int(target.shape[1 - axis])
    if int(prior.shape[0]) != along:
        raise ValueError(
            f"box_coder: with axis={axis} prior_box needs {along} rows (target_box axis "
            f"{1 - axis}), got {int(prior.shape[0])}"
        )

    def lined_up(t: Any) -> Any:
        # priors vary along target axis 1 when axis=0, along axis 0 when axis=1
        return t.unsqueeze(0) if axis == 0 else t.unsqueeze(1)

    pw, ph, pcx, pcy = (lined_up(t) for t in (pw, ph, pcx, pcy))
    if var is None:
        v0 = v1 = v2 = v3 = 1.0
    elif isinstance(var[0], Tensor):
        v0, v1, v2, v3 = (lined_up(t) for t in var)
    else:
        v0, v1, v2, v3 = var
    t0, t1, t2, t3 = _corners(target)
    cx = v0 * t0 * pw + pcx
    cy = v1 * t1 * ph + pcy
    w = exp(v2 * t2) * pw
    h = exp(v3 * t3) * ph
    return stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - norm, cy + h * 0.5 - norm], axis=-1)
