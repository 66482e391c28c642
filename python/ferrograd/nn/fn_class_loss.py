"""The class-index losses ``nll_loss`` and ``cross_entropy`` (one fused Rust op each for
float32/float64 inputs, composed otherwise), ``mse_loss``, and the ``reduction`` helper
the other losses (``fn_loss.py``) share. Re-exported by ``nn.functional``."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .._dialect import caller_dialect
from ._reduction import legacy_get_string
from .functional import _constant_weight

Tensor = _core.Tensor

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(loss: Tensor, reduction: str, what: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{what}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _autocast_fp32(x: Any) -> Any:
    """Inside autocast, a float16/bfloat16 operand of these losses is widened to float32,
    so the loss is float32 and its gradient comes back in the operand's dtype (through a
    differentiable cast). Both peers do this: PyTorch's CPU autocast lists
    ``cross_entropy_loss``, ``nll_loss`` and ``mse_loss`` as float32 ops
    (``KERNEL_CPU(..., fp32)`` in aten/src/ATen/autocast_mode.cpp), Paddle's O1 black
    list ``cross_entropy``, ``softmax_with_cross_entropy`` and ``nll_loss``
    (``FP16_BLACK_LIST`` in python/paddle/amp/amp_lists.py). Without it the loss of
    half-precision logits was computed and returned in half precision."""
    if (
        isinstance(x, Tensor)
        and x.dtype in (_core.float16, _core.bfloat16)
        and _core._get_autocast() is not None
    ):
        return x.astype(_core.float32)
    return x


def _class_labels(label: Tensor, logits_ndim: int, what: str) -> Tensor:
    """Integer class ids; Paddle's ``[N, 1]`` labels of ``[N, C]`` logits lose the 1."""
    if not isinstance(label, Tensor):
        label = _core.tensor(label)
    if label.dtype.is_floating_point or label.dtype.is_complex:
        raise TypeError(
            f"{what}: class labels must be an integer tensor, got {label.dtype} (for "
            f"probabilities use cross_entropy(..., soft_label=True) or a float target)"
        )
    if logits_ndim == 2 and label.ndim == 2 and label.shape[-1] == 1:
        label = label.squeeze(-1)
    return label


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    label: Optional[Tensor] = None,
) -> Tensor:
    """Negative log-likelihood of class ``target`` given log-probabilities ``input`` of
    shape ``[N, C, ...]``. ``weight`` (``[C]``) weighs classes; ``mean`` divides by the
    summed weights of the counted targets; ``ignore_index`` targets count for nothing."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if label is not None:
        target = label
    input = _autocast_fp32(input)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"nll_loss: reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    if input.ndim < 1:
        raise ValueError("nll_loss: input must have a class dimension")
    class_dim = 0 if input.ndim == 1 else 1
    target = _class_labels(target, input.ndim if input.ndim > 1 else 2, "nll_loss")
    num_classes = input.shape[class_dim]
    if list(target.shape) != list(input.shape[:class_dim]) + list(input.shape[class_dim + 1 :]):
        raise ValueError(
            f"nll_loss: target shape {list(target.shape)} does not fit input shape "
            f"{list(input.shape)} (expected the input's shape without its class dim {class_dim})"
        )
    if isinstance(ignore_index, int) and _constant_weight(input, weight):
        return _core._class_loss(input, target, weight, ignore_index, reduction, 0.0, False)
    valid = target != ignore_index
    safe = _core.where(valid, target, 0) if ignore_index is not None else target
    try:
        picked = input.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)
    except IndexError as e:
        # the range check lives in the gather kernel; say it in the loss's terms
        raise IndexError(
            f"nll_loss: target values must lie in [0, {num_classes}) or equal "
            f"ignore_index={ignore_index} ({e})"
        ) from None
    w = valid.astype(input.dtype)
    if weight is not None:
        w = w * weight.index_select(safe.reshape(-1), axis=0).reshape(list(safe.shape))
    loss = -(picked * w)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction, "nll_loss")


def cross_entropy(
    input: Tensor,
    label: Tensor,
    weight: Optional[Tensor] = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
    soft_label: bool = False,
    axis: Optional[int] = None,
    use_softmax: bool = True,
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Softmax cross-entropy of logits ``input`` (``[N, C, ...]``) against class ids, or
    against probabilities when ``label`` is floating (``soft_label=True`` in Paddle).

    ``label_smoothing`` mixes the one-hot target with the uniform distribution;
    ``use_softmax=False`` (Paddle) treats ``input`` as probabilities already.
    With ``reduction="none"`` the per-sample losses keep a size-1 class dimension where
    Paddle keeps it (class ids with one, ``[N, 1]``, or ``soft_label=True``: ``[N, 1]``),
    and drop it where PyTorch does (ids ``[N]``, float targets without ``soft_label``).
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if target is not None:
        label = target
    if not isinstance(label, Tensor):
        label = _core.tensor(label)
    input, label = _autocast_fp32(input), _autocast_fp32(label)
    if (label_smoothing > 0 or (soft_label and weight is not None)) and caller_dialect(
        2, through_layers=True
    ) == "paddle":
        return _paddle_soft(
            input, label, weight, reduction, float(label_smoothing), soft_label, axis,
            use_softmax,
        )  # fmt: skip
    if axis is None:
        axis = _default_class_dim(input, label, soft_label)
    if _paddle_mean_over_all(label, weight, ignore_index, reduction, soft_label):
        # Paddle averages over every sample, ignored ones (loss 0) included, when
        # ignore_index < 0 and no weight is given (its default -100 among them)
        n = label.numel()
        total = _cross_entropy(
            input, label, None, ignore_index, "sum", label_smoothing, False, axis, use_softmax
        )
        return total / n
    loss = _cross_entropy(
        input, label, weight, ignore_index, reduction, label_smoothing, soft_label, axis,
        use_softmax,
    )  # fmt: skip
    if reduction == "none" and input.ndim > 0:
        class_dim = (1 if input.ndim > 1 else 0) if axis is None else axis % input.ndim
        hard_with_dim = (
            not (soft_label or label.dtype.is_floating_point)
            and label.ndim == input.ndim
            and label.shape[class_dim] == 1
        )
        if hard_with_dim or soft_label:
            # Paddle's per-sample loss keeps the class dim (size 1): dropping it would
            # make `loss * mask` with an [N, 1] mask broadcast to [N, N]
            loss = loss.unsqueeze(class_dim)
    return loss


def _paddle_soft(
    input: Tensor,
    label: Tensor,
    weight: Optional[Tensor],
    reduction: str,
    label_smoothing: float,
    soft_label: bool,
    axis: Optional[int],
    use_softmax: bool,
) -> Tensor:
    """Paddle's soft-label cross-entropy, which ``label_smoothing`` also takes (class ids
    become smoothed one-hot rows): the per-sample loss ``-sum(s * log p)`` keeps a size-1
    class dim and, with ``weight``, is multiplied by ``sum(s * weight)``; ``mean`` then
    divides by the sum of those factors (PyTorch: ``weight`` inside the sum, and the
    mean over samples)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"cross_entropy: reduction must be one of {_REDUCTIONS}, got {reduction!r}"
        )
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    cd = (input.ndim - 1 if axis is None else axis) % max(input.ndim, 1)
    n_cls = input.shape[cd]
    if soft_label or label.dtype.is_floating_point:
        probs = label.astype(input.dtype)
    else:
        ids = label.squeeze(cd) if label.ndim == input.ndim else label
        if ids.numel() and bool(((ids < 0).logical_or(ids >= n_cls)).any()):
            raise ValueError(
                f"cross_entropy: with label_smoothing every label must be a class id in "
                f"[0, {n_cls}) (Paddle turns them into one-hot rows; ignore_index is not "
                "applied there)"
            )
        probs = (ids.unsqueeze(-1) == _core.arange(0, n_cls)).astype(input.dtype)
        if cd != input.ndim - 1:
            probs = probs.movedim(-1, cd)
    if list(probs.shape) != list(input.shape):
        raise ValueError(
            f"cross_entropy: soft labels must have the input's shape {list(input.shape)}, "
            f"got {list(probs.shape)}"
        )
    if label_smoothing > 0:
        probs = probs * (1.0 - label_smoothing) + label_smoothing / n_cls
    logp = input.log_softmax(cd) if use_softmax else input.log()
    loss = -(logp * probs).sum(cd, keepdim=True)
    factor = None
    if weight is not None:
        shape = [1] * input.ndim
        shape[cd] = n_cls
        factor = (probs * weight.astype(input.dtype).reshape(shape)).sum(cd, keepdim=True)
        loss = loss * factor
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.mean() if factor is None else loss.sum() / factor.sum()


def _paddle_mean_over_all(
    label: Tensor, weight: Any, ignore_index: Any, reduction: str, soft_label: bool
) -> bool:
    """Whether the call takes Paddle's mean: in Paddle code (also through
    ``nn.CrossEntropyLoss``), class ids, no weight, a negative ``ignore_index``."""
    return (
        reduction == "mean"
        and weight is None
        and not soft_label
        and not label.dtype.is_floating_point
        and isinstance(ignore_index, int)
        and ignore_index < 0
        and caller_dialect(3, through_layers=True) == "paddle"
    )


def _default_class_dim(input: Tensor, label: Tensor, soft_label: bool) -> Optional[int]:
    """The class dimension when ``axis`` is not given: PyTorch's (1) unless the call can
    only be Paddle's, whose default is the last one: ``soft_label=True`` (a Paddle-only
    keyword), class ids with as many dims as the input and a size-1 last one
    (``[B, T, 1]``), or ids whose shape fits classes-last but not classes-at-1 (a
    ``[B, T]`` label for ``[B, T, V]`` logits). ``None`` keeps PyTorch's."""
    if input.ndim <= 2:
        return None  # dim 1 is the last one: the dialects agree
    last = input.ndim - 1
    if soft_label:
        return last
    if label.dtype.is_floating_point:
        return None  # PyTorch's probability targets (Paddle's need soft_label=True)
    shape, ids = list(input.shape), list(label.shape)
    if len(ids) == len(shape):
        return last if ids[-1] == 1 and ids[1] != 1 else None
    torch_fit = ids == shape[:1] + shape[2:]
    return last if not torch_fit and ids == shape[:-1] else None


def _cross_entropy(
    input: Tensor,
    label: Tensor,
    weight: Optional[Tensor],
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
    soft_label: bool,
    axis: Optional[int],
    use_softmax: bool,
) -> Tensor:
    """``cross_entropy`` with the class dimension of a ``"none"`` reduction dropped."""
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"cross_entropy: reduction must be one of {_REDUCTIONS}, got {reduction!r}"
        )
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    if not isinstance(label, Tensor):
        label = _core.tensor(label)
    natural = 1 if input.ndim > 1 else 0  # where nll_loss expects the classes
    class_dim = natural if axis is None else axis % input.ndim
    is_soft = soft_label or label.dtype.is_floating_point
    if not is_soft and label.ndim == input.ndim and label.shape[class_dim] == 1:
        label = label.squeeze(class_dim)  # Paddle's labels keep a size-1 class dim
    if class_dim != natural:
        # move the class dim to position 1, the other dims keeping their order
        others = [d for d in range(input.ndim) if d != class_dim]
        perm = [others[0], class_dim, *others[1:]]
        input = input.permute(perm)
        if is_soft:
            label = label.permute(perm)
        class_dim = natural
    if (
        not is_soft
        and use_softmax
        and isinstance(ignore_index, int)
        and _constant_weight(input, weight)
    ):
        # one op: log-softmax, pick, weigh, smooth and reduce (the common path)
        label = _class_labels(label, input.ndim if input.ndim > 1 else 2, "cross_entropy")
        return _core._class_loss(
            input, label, weight, ignore_index, reduction, float(label_smoothing), True
        )
    logp = input.log_softmax(class_dim) if use_softmax else input.log()
    num_classes = input.shape[class_dim]
    if is_soft:
        if list(label.shape) != list(input.shape) and not soft_label:
            # A float label of another shape is almost always class ids of the wrong dtype.
            raise ValueError(
                f"cross_entropy: the label has dtype {label.dtype} and shape "
                f"{list(label.shape)}; class ids must be int64 (convert with "
                f"label.astype('int64') or label.long()); a floating label is read as "
                f"class probabilities, which must have the input's shape {list(input.shape)}"
            )
        if list(label.shape) != list(input.shape):
            raise ValueError(
                f"cross_entropy: probability targets must have the input's shape "
                f"{list(input.shape)}, got {list(label.shape)}"
            )
        probs = label
        if label_smoothing > 0:
            probs = probs * (1.0 - label_smoothing) + label_smoothing / num_classes
        per_class = logp * probs
        if weight is not None:
            shape = [1] * input.ndim
            shape[class_dim] = num_classes
            per_class = per_class * weight.reshape(shape)
        return _reduce(-per_class.sum(class_dim), reduction, "cross_entropy")
    nll = nll_loss(logp, label, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return nll
    # smoothing term: mean over classes of -log p, weighted like the targets
    label = _class_labels(label, input.ndim, "cross_entropy")
    valid = (label != ignore_index).astype(input.dtype)
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = num_classes
        smooth = -(logp * weight.reshape(shape)).sum(class_dim) / num_classes
        safe = _core.where(label != ignore_index, label, 0)
        denom = (
            weight.index_select(safe.reshape(-1), axis=0).reshape(list(safe.shape)) * valid
        ).sum()
    else:
        smooth = -logp.sum(class_dim) / num_classes
        denom = valid.sum()
    smooth = smooth * valid
    if reduction == "mean":
        smooth_r = smooth.sum() / denom
    else:
        smooth_r = _reduce(smooth, reduction, "cross_entropy")
    return nll * (1.0 - label_smoothing) + smooth_r * label_smoothing


def mse_loss(
    input: Tensor,
    label: Tensor,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
) -> Tensor:
    """Squared error ``(input - label)**2``, averaged (``mean``), summed or per element."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if target is not None:
        label = target
    diff = _autocast_fp32(input) - _autocast_fp32(label)
    return _reduce(diff * diff, reduction, "mse_loss")
