"""Margin and embedding losses of ``nn.functional``: ``triplet_margin_loss``,
``triplet_margin_with_distance_loss``, ``hinge_embedding_loss``, ``multi_margin_loss``
and ``multilabel_soft_margin_loss`` (Paddle: ``multi_label_soft_margin_loss``).

Each is a composition of differentiable tensor ops (gradients of every order flow
through it) with PyTorch's formulas, which Paddle shares; the reductions are
``"mean"``, ``"sum"`` and ``"none"``. The target is ``target`` (torch) or ``label``
(Paddle); torch's ``eps`` is Paddle's ``epsilon``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from .. import _core
from .._ops_math import pairwise_distance
from ._reduction import legacy_get_string
from .fn_class_loss import _reduce
from .fn_loss import _check_reduction, _floating, _target
from .fn_loss_nll import _eps

Tensor = _core.Tensor


def _tensor(x: Any, what: str, arg: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def _triplet(
    anchor: Any,
    positive: Any,
    negative: Any,
    dist: Callable[[Tensor, Tensor], Tensor],
    margin: float,
    swap: bool,
    reduction: str,
    what: str,
) -> Tensor:
    _check_reduction(reduction, what)
    a = _tensor(anchor, what, "anchor")
    p = _tensor(positive, what, "positive")
    n = _tensor(negative, what, "negative")
    if not a.ndim == p.ndim == n.ndim or a.ndim == 0:
        raise ValueError(
            f"{what}: anchor, positive and negative must have the same number (>= 1) of "
            f"dimensions, got shapes {list(a.shape)}, {list(p.shape)}, {list(n.shape)}"
        )
    if what.endswith("distance_loss") and not margin > 0:
        raise ValueError(f"{what}: margin must be positive, got {margin}")
    d_pos = dist(a, p)
    d_neg = dist(a, n)
    if swap:
        d_neg = d_neg.minimum(dist(p, n))
    return _reduce((d_pos - d_neg + float(margin)).relu(), reduction, what)


def triplet_margin_loss(
    input: Optional[Tensor] = None,
    positive: Optional[Tensor] = None,
    negative: Optional[Tensor] = None,
    margin: float = 1.0,
    p: float = 2.0,
    epsilon: Optional[float] = None,
    swap: bool = False,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    anchor: Optional[Tensor] = None,
    eps: Optional[float] = None,
) -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the ``p``-norm distance
    ``||x1 - x2 + eps||_p`` over the last dim (``eps`` default 1e-6); ``swap=True`` uses
    ``min(d(a, n), d(p, n))`` as the negative distance. The anchor is torch's ``anchor``
    or Paddle's ``input``."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "triplet_margin_loss"
    e = _eps(eps, epsilon, 1e-6, what)
    if anchor is not None:
        input = anchor
    return _triplet(
        input,
        positive,
        negative,
        lambda x1, x2: pairwise_distance(x1, x2, p, e),
        margin,
        swap,
        reduction,
        what,
    )


def triplet_margin_with_distance_loss(
    input: Optional[Tensor] = None,
    positive: Optional[Tensor] = None,
    negative: Optional[Tensor] = None,
    distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    anchor: Optional[Tensor] = None,
) -> Tensor:
    """:func:`triplet_margin_loss` with any ``distance_function(x1, x2)`` (default: the
    Euclidean ``pairwise_distance``)."""
    if anchor is not None:
        input = anchor
    dist = distance_function if distance_function is not None else pairwise_distance
    return _triplet(
        input,
        positive,
        negative,
        dist,
        margin,
        swap,
        reduction,
        "triplet_margin_with_distance_loss",
    )


def hinge_embedding_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    margin: float = 1.0,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """``x`` where ``label == 1``, ``max(0, margin - x)`` where ``label == -1`` (PyTorch's
    rule for other labels: the first term where ``label != -1`` plus the second where
    ``label != 1``)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "hinge_embedding_loss"
    _check_reduction(reduction, what)
    x = _floating(_tensor(input, what, "input"), what)
    y = _target(label, target, what)
    zero = _core.zeros_like(x)
    hinge = _core.where(y != 1, (float(margin) - x).relu(), zero)
    return _reduce(_core.where(y != -1, x, zero) + hinge, reduction, what)


def _class_ids(target: Tensor, n: int, c: int, batched: bool, what: str) -> np.ndarray:
    ids = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: the target must hold integer class ids, got {ids.dtype}")
    if batched and ids.ndim == 2 and ids.shape[1] == 1:  # Paddle's [N, 1]
        ids = ids[:, 0]
    want = (n,) if batched else ()
    if ids.shape != want:
        raise ValueError(f"{what}: the target must have shape {list(want)}, got {list(ids.shape)}")
    if ids.size and (ids.min() < 0 or ids.max() >= c):
        raise IndexError(f"{what}: class ids must lie in [0, {c}), got [{ids.min()}, {ids.max()}]")
    return ids.astype(np.int64).reshape(-1)


def multi_margin_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    p: int = 1,
    margin: float = 1.0,
    weight: Optional[Tensor] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Multi-class hinge loss of scores ``[N, C]`` (or ``[C]``) against class ids:
    ``sum_{i != y} w[y] * max(0, margin - x[y] + x[i])^p / C`` per sample, ``p`` 1 or 2."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "multi_margin_loss"
    _check_reduction(reduction, what)
    x = _floating(_tensor(input, what, "input"), what)
    if p not in (1, 2):
        raise ValueError(f"{what}: p must be 1 or 2, got {p!r}")
    if x.ndim not in (1, 2) or x.shape[-1] == 0:
        raise ValueError(f"{what}: input must be [N, C] or [C] with C > 0, got {list(x.shape)}")
    tgt = _target(label, target, what)
    if x.ndim == 1 and getattr(tgt, "ndim", 0) == 1:
        x = x.unsqueeze(0)  # PyTorch: a [C] input with a [1] target is a batch of one
    batched = x.ndim == 2
    x2 = x if batched else x.unsqueeze(0)
    n, c = x2.shape
    ids = _class_ids(tgt, n, c, batched, what)
    onehot = np.zeros((n, c))
    onehot[np.arange(n), ids] = 1.0
    hot = _core.tensor(onehot, dtype=x.dtype)
    x_y = (x2 * hot).sum(1, keepdim=True)
    z = (float(margin) - x_y + x2).relu()
    if p == 2:
        z = z * z
    z = z * (1.0 - hot)  # the true class does not count
    if weight is not None:
        w = _tensor(weight, what, "weight")
        if list(w.shape) != [c]:
            raise ValueError(f"{what}: weight must have shape [{c}], got {list(w.shape)}")
        z = z * w.index_select(_core.tensor(ids), axis=0).unsqueeze(1)
    loss = z.sum(1) / c
    return _reduce(loss if batched else loss.reshape([]), reduction, what)


def multilabel_soft_margin_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Multi-label one-vs-all logistic loss of ``[N, C]`` (or ``[C]``) logits against 0/1
    labels: ``-mean_c w_c (y log sigmoid(x) + (1 - y) log sigmoid(-x))`` per sample."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "multilabel_soft_margin_loss"
    _check_reduction(reduction, what)
    x = _floating(_tensor(input, what, "input"), what)
    y = _target(label, target, what)
    if x.ndim not in (1, 2) or list(y.shape) != list(x.shape):
        raise ValueError(
            f"{what}: input must be [N, C] or [C] and the label the same shape, got "
            f"{list(x.shape)} and {list(y.shape)}"
        )
    y = y.astype(x.dtype)
    loss = -(y * x.log_sigmoid() + (1.0 - y) * (-x).log_sigmoid())
    if weight is not None:
        loss = loss * _tensor(weight, what, "weight")
    return _reduce(loss.sum(-1) / x.shape[-1], reduction, what)


def multi_label_soft_margin_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
) -> Tensor:
    """Paddle's name for :func:`multilabel_soft_margin_loss`."""
    return multilabel_soft_margin_loss(input, label, weight, reduction)


__all__ = [
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "hinge_embedding_loss",
    "multi_margin_loss",
    "multilabel_soft_margin_loss",
    "multi_label_soft_margin_loss",
]
