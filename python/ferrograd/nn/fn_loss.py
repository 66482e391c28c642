"""Regression, binary and ranking losses of ``nn.functional``.

Each loss is a composition of differentiable tensor ops (gradients of every order flow
through it) reduced by ``fn_class_loss._reduce`` (``"mean"``, ``"sum"`` or ``"none"``).
Names follow both peers: the target is ``target`` (torch) or ``label`` (Paddle), the
logits of ``binary_cross_entropy_with_logits`` may be passed as Paddle's ``logit``.
torch's deprecated keyword-only ``size_average``/``reduce`` are mapped to ``reduction``
as PyTorch does (``nn._reduction.legacy_get_string``, with its warning; a ``reduction``
passed with them is ignored, except that ``kl_div`` still divides by the batch size for
``"batchmean"``, as PyTorch's does).

One dialect conflict: ``smooth_l1_loss``'s threshold is torch's ``beta`` (quadratic part
divided by ``beta``) or Paddle's ``delta`` (Huber's form, not divided); which formula runs
follows the keyword you pass. With neither (the default 1.0) both agree.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from ._reduction import legacy_get_string
from .fn_class_loss import _REDUCTIONS, _reduce

Tensor = _core.Tensor


def _target(label: Any, target: Any, what: str) -> Tensor:
    """Paddle's ``label`` or torch's ``target`` (one of them), as a Tensor."""
    if label is not None and target is not None:
        raise TypeError(f"{what}: pass one of label and target, not both")
    t = label if target is None else target
    if t is None:
        raise TypeError(f"{what}: missing the target (label=... / target=...)")
    return t if isinstance(t, Tensor) else _core.tensor(t)


def _check_reduction(reduction: str, what: str, extra: tuple = ()) -> None:
    if reduction not in _REDUCTIONS + extra:
        raise ValueError(
            f"{what}: reduction must be one of {_REDUCTIONS + extra}, got {reduction!r}"
        )


def _same_shape(a: Tensor, b: Tensor, what: str, names: str = "input and target") -> None:
    if list(a.shape) != list(b.shape):
        raise ValueError(
            f"{what}: {names} must have the same shape, got {list(a.shape)} and {list(b.shape)}"
        )


def _floating(x: Tensor, what: str, arg: str = "input") -> Tensor:
    if x.dtype.is_complex:
        raise TypeError(f"{what}: {arg} must be real, got {x.dtype}")
    return x if x.dtype.is_floating_point else x.astype(_core.float32)


def l1_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Absolute error ``|input - label|``, averaged, summed or per element."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction, "l1_loss")
    y = _target(label, target, "l1_loss")
    return _reduce((input - y).abs(), reduction, "l1_loss")


def _huber(diff: Tensor, delta: float) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, ``delta * (|d| - delta / 2)`` elsewhere."""
    a = diff.abs()
    return _core.where(a < delta, diff * diff * 0.5, (a - 0.5 * delta) * delta)


def huber_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    reduction: str = "mean",
    delta: float = 1.0,
    name: Optional[str] = None,
    *,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Huber loss: ``0.5 d^2`` for ``|d| < delta``, ``delta * (|d| - delta / 2)`` beyond,
    with ``d = input - label``."""
    _check_reduction(reduction, "huber_loss")
    if not delta > 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    y = _target(label, target, "huber_loss")
    return _reduce(_huber(input - y, float(delta)), reduction, "huber_loss")


def smooth_l1_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    reduction: str = "mean",
    delta: Optional[float] = None,
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    beta: Optional[float] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Smooth L1 loss of ``d = input - label``.

    torch (``beta``, default 1): ``0.5 d^2 / beta`` for ``|d| < beta``, ``|d| - beta / 2``
    beyond (``beta=0`` is the L1 loss). Paddle (``delta``): ``0.5 d^2`` for ``|d| < delta``,
    ``delta * |d| - delta^2 / 2`` beyond — torch's value times ``delta``.
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction, "smooth_l1_loss")
    if delta is not None and beta is not None:
        raise TypeError("smooth_l1_loss: pass beta (torch's formula) or delta (Paddle's), not both")
    y = _target(label, target, "smooth_l1_loss")
    diff = input - y
    if delta is not None:
        if not delta > 0:
            raise ValueError(f"smooth_l1_loss: delta must be positive, got {delta}")
        return _reduce(_huber(diff, float(delta)), reduction, "smooth_l1_loss")
    b = 1.0 if beta is None else float(beta)
    if b < 0:
        raise ValueError(f"smooth_l1_loss: beta must be >= 0, got {b}")
    if b == 0.0:
        return _reduce(diff.abs(), reduction, "smooth_l1_loss")
    return _reduce(_huber(diff, b) * (1.0 / b), reduction, "smooth_l1_loss")


def _bce_log(p: Tensor) -> Tensor:
    """``log(p)`` clamped below at -100 (torch's guard); where ``p == 0`` the value is -100
    and the gradient 0, never NaN."""
    positive = p > 0
    safe = _core.where(positive, p, _core.ones_like(p))
    return _core.where(positive, safe.log().clip(min=-100.0), _core.full_like(p, -100.0))


def binary_cross_entropy(
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
    """``-weight * (y log p + (1 - y) log(1 - p))`` for probabilities ``p = input`` in
    ``[0, 1]``; each log is clamped at -100 as in torch, so ``p`` of exactly 0 or 1 gives a
    finite loss."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction, "binary_cross_entropy")
    y = _target(label, target, "binary_cross_entropy")
    p = _floating(input, "binary_cross_entropy")
    _same_shape(p, y, "binary_cross_entropy")
    if p.numel() and bool(((p < 0).logical_or(p > 1)).any()):
        raise ValueError("binary_cross_entropy: all elements of input must lie in [0, 1]")
    y = y.astype(p.dtype)
    loss = -(y * _bce_log(p) + (1.0 - y) * _bce_log(1.0 - p))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy")


def binary_cross_entropy_with_logits(
    input: Optional[Tensor] = None,
    label: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    reduction: str = "mean",
    pos_weight: Optional[Tensor] = None,
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    logit: Optional[Tensor] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), label)`` in the stable form
    ``(1 - y) x - (1 + (pos_weight - 1) y) log_sigmoid(x)``, exact for large ``|x|``.
    ``pos_weight`` weighs the positive term (broadcast over the last dim: one per
    class); ``input`` may be passed as Paddle's ``logit``."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "binary_cross_entropy_with_logits"
    _check_reduction(reduction, what)
    if input is not None and logit is not None:
        raise TypeError(f"{what}: pass one of input and logit, not both")
    x = input if logit is None else logit
    if x is None:
        raise TypeError(f"{what}: missing the logits (input=... / logit=...)")
    x = _floating(x, what)
    y = _target(label, target, what)
    _same_shape(x, y, what, "logits and label")
    y = y.astype(x.dtype)
    log_p = x.log_sigmoid()
    if pos_weight is None:
        loss = (1.0 - y) * x - log_p
    else:
        loss = (1.0 - y) * x - (1.0 + (pos_weight - 1.0) * y) * log_p
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, what)


def kl_div(
    input: Tensor,
    label: Optional[Tensor] = None,
    reduction: str = "mean",
    log_target: bool = False,
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Kullback-Leibler divergence with ``input`` holding log-probabilities:
    ``y (log y - input)`` per element (0 where ``y == 0``), or with ``log_target=True``
    ``exp(y) (y - input)``. ``reduction="batchmean"`` divides the sum by the batch size
    (the mathematically right KL); ``"mean"`` averages over all elements."""
    legacy = None
    if size_average is not None or reduce is not None:
        legacy = legacy_get_string(size_average, reduce)
    else:
        _check_reduction(reduction, "kl_div", ("batchmean",))
    y = _target(label, target, "kl_div")
    if log_target:
        loss = y.exp() * (y - input)
    else:
        positive = y > 0
        safe = _core.where(positive, y, _core.ones_like(y))
        loss = _core.where(positive, y * safe.log(), _core.zeros_like(y)) - y * input
    if legacy is not None:
        # PyTorch's kl_div reduces by the legacy pair, yet still divides by the batch size
        # when reduction="batchmean" is passed as well (torch/nn/functional.py, kl_div)
        out = _reduce(loss, legacy, "kl_div")
        return out / input.shape[0] if reduction == "batchmean" and input.ndim > 0 else out
    if reduction == "batchmean":
        batch = input.shape[0] if input.ndim > 0 else 1
        return loss.sum() / batch if batch else loss.sum() * float("nan")
    return _reduce(loss, reduction, "kl_div")


def margin_ranking_loss(
    input: Tensor,
    other: Tensor,
    label: Optional[Tensor] = None,
    margin: float = 0.0,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """``max(0, -label * (input - other) + margin)``, ``label`` holding 1 or -1 (which
    input should rank higher)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction, "margin_ranking_loss")
    y = _target(label, target, "margin_ranking_loss")
    return _reduce(((input - other) * -y + float(margin)).relu(), reduction, "margin_ranking_loss")


def soft_margin_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-label * input))``, ``label`` in {1, -1}."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction, "soft_margin_loss")
    y = _target(label, target, "soft_margin_loss")
    x = _floating(input, "soft_margin_loss")
    return _reduce(-((x * y.astype(x.dtype)).log_sigmoid()), reduction, "soft_margin_loss")


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    label: Optional[Tensor] = None,
    margin: float = 0.0,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """``1 - cos(x1, x2)`` where ``label == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``label == -1``; the cosine is taken along the last dim (``[N, D]`` or ``[D]``
    inputs), with torch's 1e-12 guard in the norms."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "cosine_embedding_loss"
    _check_reduction(reduction, what)
    y = _target(label, target, what)
    _same_shape(input1, input2, what, "input1 and input2")
    if input1.ndim not in (1, 2):
        raise ValueError(f"{what}: inputs must be [N, D] or [D], got {list(input1.shape)}")
    if list(y.shape) != list(input1.shape[:-1]):
        raise ValueError(
            f"{what}: label must have shape {list(input1.shape[:-1])}, got {list(y.shape)}"
        )
    eps = 1e-12
    dot = (input1 * input2).sum(-1)
    n1 = (input1 * input1).sum(-1) + eps
    n2 = (input2 * input2).sum(-1) + eps
    cos = dot / (n1 * n2).sqrt()
    pos = y == 1
    loss = _core.where(pos, 1.0 - cos, (cos - float(margin)).relu())
    loss = _core.where(pos.logical_or(y == -1), loss, _core.zeros_like(loss))
    return _reduce(loss, reduction, what)


__all__ = [
    "l1_loss",
    "huber_loss",
    "smooth_l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "margin_ranking_loss",
    "soft_margin_loss",
    "cosine_embedding_loss",
]
