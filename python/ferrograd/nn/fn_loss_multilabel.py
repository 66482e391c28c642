"""PyTorch's ``F.multilabel_margin_loss``: the multi-class multi-label hinge loss whose
targets are lists of class ids padded with -1 (``nn.MultiLabelMarginLoss`` is in
``loss_multilabel.py``)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from ._reduction import legacy_get_string
from .fn_class_loss import _reduce
from .fn_loss import _check_reduction, _floating

Tensor = _core.Tensor


def _targets(target: Any, n: int, c: int, batched: bool, what: str) -> tuple:
    """Each sample's target ids before its first -1, as ``[N, T]`` ids (T the longest
    list; padding points at class 0), the ``[N, T]`` 0/1 mask of the real ones and the
    ``[N, C]`` 0/1 mask of the classes that are not targets."""
    ids = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: the target must hold integer class ids, got {ids.dtype}")
    want = (n, c) if batched else (c,)
    if ids.shape != want:
        raise ValueError(
            f"{what}: the target must have the input's shape {list(want)}, got {list(ids.shape)}"
        )
    ids = ids.reshape(n, c).astype(np.int64)
    if ids.size and (ids.min() < -1 or ids.max() >= c):
        raise IndexError(
            f"{what}: target ids must lie in [-1, {c}) (-1 ends the list), got "
            f"[{ids.min()}, {ids.max()}]"
        )
    valid = np.cumprod(ids >= 0, axis=1).astype(bool)  # before the first -1
    t = max(int(valid.sum(1).max()) if n else 0, 1)
    ids, valid = ids[:, :t], valid[:, :t]
    is_target = np.zeros((n, c), dtype=bool)
    rows = np.nonzero(valid)
    is_target[rows[0], ids[rows]] = True
    return np.where(valid, ids, 0), valid.astype(np.float64), (~is_target).astype(np.float64)


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    reduction: str = "mean",
) -> Tensor:
    """torch's ``F.multilabel_margin_loss(input, target, reduction="mean")`` of scores
    ``[N, C]`` (or ``[C]``) against int targets of the same shape, each row a list of
    class ids ended by the first -1: per sample ``sum_{j in targets} sum_{i not in
    targets} max(0, 1 - (x[j] - x[i])) / C``. torch's deprecated ``size_average`` /
    ``reduce`` are mapped to ``reduction`` as in PyTorch (with its warning)."""
    what = "multilabel_margin_loss"
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction, what)
    if not isinstance(input, Tensor):
        raise TypeError(f"{what}: input must be a Tensor, got {type(input).__name__}")
    x = _floating(input, what)
    if x.ndim not in (1, 2):
        raise ValueError(f"{what}: input must be [N, C] or [C], got {list(x.shape)}")
    batched = x.ndim == 2
    x2 = x if batched else x.unsqueeze(0)
    n, c = x2.shape
    ids, valid, others = _targets(target, n, c, batched, what)
    if c == 0:
        loss = x2.sum(1) * 0.0
    else:
        # [N, T, C]: target j of each sample against every class i (memory N * T * C,
        # T the longest target list)
        x_t = x2.gather(1, _core.tensor(ids))
        hinge = (1.0 - x_t.unsqueeze(2) + x2.unsqueeze(1)).relu()
        mask = _core.tensor(valid[:, :, None] * others[:, None, :], dtype=x.dtype)
        loss = (hinge * mask).sum([1, 2]) / c
    return _reduce(loss if batched else loss.reshape([]), reduction, what)
