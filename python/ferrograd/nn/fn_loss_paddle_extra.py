"""Paddle-only losses of ``paddle.nn.functional``: ``square_error_cost``,
``sigmoid_focal_loss``, ``dice_loss``, ``label_smooth``,
``softmax_with_cross_entropy``, ``npair_loss`` and ``margin_cross_entropy``
(single process: the model-parallel ``group`` is not supported).

Each is a composition of differentiable tensor ops (gradients of every order flow
through it) following Paddle's formulas and defaults.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from .. import _core
from .fn_class_loss import _reduce
from .fn_loss import _check_reduction, _floating

Tensor = _core.Tensor


def _tensor(x: Any, what: str, arg: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def _int_ids(label: Any, what: str) -> np.ndarray:
    ids = label.numpy() if isinstance(label, Tensor) else np.asarray(label)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: label must hold integer class ids, got {ids.dtype}")
    return ids.astype(np.int64)


def _one_hot(ids: np.ndarray, c: int) -> np.ndarray:
    """``ids`` (any shape) one-hot over ``c`` classes (float64, memory ``ids.size * c``)."""
    out = np.zeros((ids.size, c))
    out[np.arange(ids.size), ids.reshape(-1)] = 1.0
    return out.reshape(*ids.shape, c)


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:
    """Paddle's ``F.square_error_cost(input, label)``: the element-wise squared error
    ``(input - label) ** 2`` (broadcast, not reduced)."""
    what = "square_error_cost"
    x = _floating(_tensor(input, what, "input"), what)
    d = x - _tensor(label, what, "label")
    return d * d


def label_smooth(
    label: Tensor, prior_dist: Optional[Tensor] = None, epsilon: float = 0.1, name: Any = None
) -> Tensor:
    """Paddle's ``F.label_smooth(label, prior_dist=None, epsilon=0.1)``: the smoothed
    targets ``(1 - epsilon) * label + epsilon * prior_dist`` over the last dimension (``C``
    classes; the prior defaults to uniform, ``1 / C``). ``label`` is a float tensor (a
    one-hot, e.g. ``F.one_hot(ids, C).astype('float32')``); differentiable in both."""
    what = "label_smooth"
    label = _tensor(label, what, "label")
    if not label.dtype.is_floating_point:
        raise TypeError(
            f"{what}: label must be a float tensor (a one-hot of the class ids), got "
            f"{label.dtype}; convert it with label.astype('float32')"
        )
    eps = float(epsilon)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"{what}: epsilon must be in [0, 1], got {eps}")
    if label.ndim == 0:
        raise ValueError(f"{what}: label needs a class dimension (last), got a 0-d tensor")
    if prior_dist is None:
        return label * (1.0 - eps) + eps / label.shape[-1]
    prior = _tensor(prior_dist, what, "prior_dist")
    if prior.shape[-1] != label.shape[-1]:
        raise ValueError(
            f"{what}: prior_dist has {prior.shape[-1]} classes (last dimension), label "
            f"{label.shape[-1]}"
        )
    return label * (1.0 - eps) + prior.astype(label.dtype) * eps


def softmax_with_cross_entropy(
    logits: Tensor,
    label: Tensor,
    soft_label: bool = False,
    ignore_index: int = -100,
    numeric_stable_mode: bool = True,
    return_softmax: bool = False,
    axis: int = -1,
) -> Any:
    """Paddle's older ``F.softmax_with_cross_entropy``: the unreduced softmax cross
    entropy along ``axis`` (default last), shaped like ``logits`` with that dim of size 1;
    ``(loss, softmax)`` with ``return_softmax=True``. Class ids (``[N, 1]`` or ``[N]``)
    unless ``soft_label=True``. ``numeric_stable_mode`` is accepted (always stable)."""
    from .fn_class_loss import cross_entropy

    what = "softmax_with_cross_entropy"
    logits = _tensor(logits, what, "logits")
    label = _tensor(label, what, "label")
    if not soft_label and label.dtype.is_floating_point:
        raise TypeError(
            f"{what}: label has dtype {label.dtype}; class ids must be int64 "
            f"(label.astype('int64')), or pass soft_label=True for probabilities"
        )
    dim = axis % logits.ndim if logits.ndim else 0
    loss = cross_entropy(
        logits, label, ignore_index=ignore_index, reduction="none", soft_label=soft_label,
        axis=dim,
    )  # fmt: skip
    if loss.ndim < logits.ndim:  # ids without the size-1 class dim
        loss = loss.unsqueeze(dim)
    if return_softmax:
        return loss, logits.softmax(dim)
    return loss


def sigmoid_focal_loss(
    logit: Tensor,
    label: Tensor,
    normalizer: Optional[Tensor] = None,
    alpha: float = 0.25,
    gamma: float = 2.0,
    reduction: str = "sum",
    name: Optional[str] = None,
) -> Tensor:
    """Paddle's ``F.sigmoid_focal_loss`` (RetinaNet's focal loss) of logits against 0/1
    labels of the same shape: with ``p = sigmoid(logit)``, ``p_t = p y + (1 - p)(1 - y)``
    and ``alpha_t = alpha y + (1 - alpha)(1 - y)``, each element is
    ``alpha_t (1 - p_t) ** gamma * bce_with_logits(logit, y)``, divided by
    ``normalizer`` (a 0-d or 1-element tensor, e.g. the number of positives) when given,
    then reduced (default ``"sum"``)."""
    what = "sigmoid_focal_loss"
    _check_reduction(reduction, what)
    x = _floating(_tensor(logit, what, "logit"), what)
    y = _tensor(label, what, "label").astype(x.dtype)
    if list(x.shape) != list(y.shape):
        raise ValueError(
            f"{what}: logit and label must have the same shape, got {list(x.shape)} and "
            f"{list(y.shape)}"
        )
    if normalizer is not None:
        normalizer = _tensor(normalizer, what, "normalizer")
        if normalizer.ndim > 1 or normalizer.numel() != 1:
            raise ValueError(
                f"{what}: normalizer must be a 0-d or 1-element tensor, got shape "
                f"{list(normalizer.shape)}"
            )
    # stable bce with logits: max(x, 0) - x y + log(1 + exp(-|x|))
    ce = x.relu() - x * y + (-(x.abs())).exp().log1p()
    p = x.sigmoid()
    p_t = p * y + (1.0 - p) * (1.0 - y)
    a = float(alpha)
    alpha_t = y * a + (1.0 - y) * (1.0 - a)
    loss = alpha_t * (1.0 - p_t) ** float(gamma) * ce
    if normalizer is not None:
        loss = loss / normalizer.reshape([])
    return _reduce(loss, reduction, what)


def dice_loss(
    input: Tensor, label: Tensor, epsilon: float = 1e-5, name: Optional[str] = None
) -> Tensor:
    """Paddle's ``F.dice_loss(input, label, epsilon=1e-5)``: ``input`` ``[N, ..., C]``
    holds class probabilities, ``label`` ``[N, ..., 1]`` integer class ids. Per sample,
    over every dimension but the first, ``1 - 2 sum(input * onehot) / (sum(input) +
    sum(onehot) + epsilon)``; the result is the mean over the batch (0-d)."""
    what = "dice_loss"
    x = _floating(_tensor(input, what, "input"), what)
    if x.ndim < 2:
        raise ValueError(f"{what}: input must have rank >= 2, got shape {list(x.shape)}")
    ids = _int_ids(label, what)
    if ids.ndim != x.ndim or ids.shape[-1] != 1 or tuple(ids.shape[:-1]) != tuple(x.shape[:-1]):
        raise ValueError(
            f"{what}: label must have the shape of input with a last dimension of 1 "
            f"({list(x.shape[:-1]) + [1]}), got {list(ids.shape)}"
        )
    if x.numel() == 0:
        raise ValueError(f"{what}: input and label must not be empty")
    c = x.shape[-1]
    if ids.min() < 0 or ids.max() >= c:
        raise IndexError(f"{what}: class ids must lie in [0, {c}), got [{ids.min()}, {ids.max()}]")
    onehot = _core.tensor(_one_hot(ids[..., 0], c), dtype=x.dtype)
    dims = list(range(1, x.ndim))
    inter = (x * onehot).sum(dims)
    denom = x.sum(dims) + onehot.sum(dims)
    return (1.0 - inter * 2.0 / (denom + float(epsilon))).mean()


def npair_loss(anchor: Tensor, positive: Tensor, labels: Tensor, l2_reg: float = 0.002) -> Tensor:
    """Paddle's ``F.npair_loss(anchor, positive, labels, l2_reg=0.002)`` (Sohn's N-pair
    loss) of ``[B, D]`` embeddings and ``[B]`` labels: with ``T = (labels_i ==
    labels_j)`` row-normalised and ``S = anchor @ positive.T``, ``ce_i = -sum_j T_ij
    log_softmax(S)_ij``; the loss is ``mean_j sum_i T_ij ce_i + l2_reg / 4 *
    (mean |anchor_i|^2 + mean |positive_i|^2)`` (0-d)."""
    what = "npair_loss"
    a = _floating(_tensor(anchor, what, "anchor"), what)
    p = _floating(_tensor(positive, what, "positive"), what)
    if a.ndim != 2 or list(p.shape) != list(a.shape):
        raise ValueError(
            f"{what}: anchor and positive must both be [batch, dims], got {list(a.shape)} "
            f"and {list(p.shape)}"
        )
    lab = labels.numpy() if isinstance(labels, Tensor) else np.asarray(labels)
    b = a.shape[0]
    if lab.size != b or lab.ndim > 2:
        raise ValueError(f"{what}: labels must hold batch_size = {b} values, got {list(lab.shape)}")
    if b == 0:
        raise ValueError(f"{what}: the batch must not be empty")
    lab = lab.reshape(b)
    same = (lab[:, None] == lab[None, :]).astype(np.float64)
    t = _core.tensor(same / same.sum(1, keepdims=True), dtype=a.dtype)
    l2 = (a * a).sum(1).mean() + (p * p).sum(1).mean()
    logp = (a @ p.T).log_softmax(-1)
    ce = -(t * logp).sum(1, keepdim=True)  # [B, 1]
    return l2 * (0.25 * float(l2_reg)) + (t * ce).sum(0).mean()


def margin_cross_entropy(
    logits: Tensor,
    label: Tensor,
    margin1: float = 1.0,
    margin2: float = 0.5,
    margin3: float = 0.0,
    scale: float = 64.0,
    group: Any = None,
    return_softmax: bool = False,
    reduction: Optional[str] = "mean",
) -> Union[Tensor, tuple]:
    """Paddle's ``F.margin_cross_entropy`` (ArcFace / CosFace / SphereFace's combined
    margin) of cosine logits ``[N, C]`` against class ids ``[N]`` or ``[N, 1]``: the
    target logit ``cos(theta)`` becomes ``cos(margin1 * theta + margin2) - margin3``,
    every logit is multiplied by ``scale`` and the softmax cross entropy taken. The loss
    is ``[N, 1]`` with ``reduction=None`` / ``"none"``, else its mean or sum (0-d);
    ``return_softmax=True`` also returns the softmax of the scaled margin logits.

    Single process only: ``group`` must be None or False (Paddle's model-parallel
    sharding of the classes is not supported). The gradient is the exact derivative of
    this formula (through ``acos``), so logits of exactly +-1 at the target give an
    infinite slope when ``margin1 != 1``."""
    what = "margin_cross_entropy"
    if reduction is None:
        reduction = "none"
    _check_reduction(reduction, what)
    if group is not None and group is not False:
        raise NotImplementedError(
            f"{what}: group (model-parallel classes across processes) is not supported; "
            "ferrograd runs one process (pass group=None)"
        )
    x = _floating(_tensor(logits, what, "logits"), what)
    if x.ndim != 2:
        raise ValueError(f"{what}: logits must be [N, C], got {list(x.shape)}")
    n, c = x.shape
    ids = _int_ids(label, what)
    if ids.ndim == 2 and ids.shape[1] == 1:
        ids = ids[:, 0]
    if ids.shape != (n,):
        raise ValueError(f"{what}: label must be [N] or [N, 1] with N = {n}, got {list(ids.shape)}")
    if ids.size and (ids.min() < 0 or ids.max() >= c):
        raise IndexError(f"{what}: class ids must lie in [0, {c}), got [{ids.min()}, {ids.max()}]")
    hot = _core.tensor(_one_hot(ids, c), dtype=x.dtype)
    m1, m2, m3 = float(margin1), float(margin2), float(margin3)
    target = (x * hot).sum(1, keepdim=True)
    if m1 != 1.0 or m2 != 0.0:
        theta = target.clamp(-1.0, 1.0).acos()
        margin_t = (theta * m1 + m2).cos() - m3
    else:
        margin_t = target - m3
    z = (x + hot * (margin_t - target)) * float(scale)
    logp = z.log_softmax(-1)
    loss = -(logp * hot).sum(1, keepdim=True)
    out = loss if reduction == "none" else _reduce(loss, reduction, what)
    if return_softmax:
        return out, logp.exp()
    return out
