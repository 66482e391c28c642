"""``F.ctc_loss`` and the ``CTCLoss`` layer (Connectionist Temporal Classification), in both
dialects, composed from differentiable ops so that autograd (and double backward)
derives the gradient.

The forward algorithm runs in log space over time, vectorised over the batch and the
positions of the blank-extended label sequence: at each step every position takes the
log-sum-exp of the (up to) three positions it can be reached from, plus its emission.
Unreachable states hold a large negative finite number rather than ``-inf``, so that no
``-inf - -inf`` turns a gradient into NaN; a sample no alignment fits (too few time steps
for its labels and their repeats) gets ``inf`` (0 with ``zero_infinity=True``).

Both peers' inputs are accepted: ``log_probs`` ``[T, B, C]`` go through ``log_softmax``
first. That is Paddle's contract (it takes unnormalised logits) and changes nothing for
PyTorch's (``log_probs`` already are log-probabilities, and ``log_softmax`` of those is
themselves): the gradient is then PyTorch's too, which is the gradient through the
``log_softmax`` PyTorch assumes was applied (``exp(log_probs) - posterior``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .fn_loss import _check_reduction

Tensor = _core.Tensor

#: stands for log(0): finite, so log-sum-exp over unreachable states has finite gradients
_LOG_ZERO = -1e30


def _int_array(v: Any, arg: str, what: str) -> np.ndarray:
    if isinstance(v, Tensor):
        if v.dtype.is_floating_point or v.dtype.is_complex or v.dtype == _core.bool:
            raise TypeError(f"{what}: {arg} must hold integers, got {v.dtype}")
        return np.asarray(v.numpy()).astype(np.int64)
    arr = np.asarray(v)
    if arr.dtype.kind not in "iu" and not (arr.dtype == object or arr.size == 0):
        raise TypeError(f"{what}: {arg} must hold integers, got {arr.dtype}")
    try:
        return arr.astype(np.int64)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"{what}: {arg} must hold integers ({e})") from None


def _label_rows(
    targets: np.ndarray, target_lengths: np.ndarray, batch: int, what: str
) -> list[np.ndarray]:
    """Each sample's labels, from padded ``[B, S]`` or concatenated 1-D targets."""
    if targets.ndim == 2:
        if targets.shape[0] != batch:
            raise ValueError(f"{what}: targets has {targets.shape[0]} rows for a batch of {batch}")
        if target_lengths.size and target_lengths.max() > targets.shape[1]:
            raise ValueError(
                f"{what}: a target length ({int(target_lengths.max())}) exceeds the padded "
                f"targets' width {targets.shape[1]}"
            )
        return [targets[b, : target_lengths[b]] for b in range(batch)]
    if targets.ndim == 1:
        total = int(target_lengths.sum())
        if total != targets.shape[0]:
            raise ValueError(
                f"{what}: concatenated 1-D targets must have sum(target_lengths) = {total} "
                f"entries, got {targets.shape[0]}"
            )
        ends = np.cumsum(target_lengths)
        return [targets[e - n : e] for e, n in zip(ends, target_lengths)]
    raise ValueError(f"{what}: targets must be 1-D or 2-D, got {targets.ndim}-D")


def _lengths(v: Any, batch: int, arg: str, what: str) -> np.ndarray:
    arr = _int_array(v, arg, what).reshape(-1)
    if arr.shape[0] != batch:
        raise ValueError(f"{what}: {arg} must have {batch} entries (the batch), got {arr.shape[0]}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{what}: {arg} must not be negative, got {arr.tolist()}")
    return arr


def _nll(lp: Tensor, labels: list[np.ndarray], in_len: np.ndarray, blank: int) -> Tensor:
    """``-log p(labels | lp)`` per sample, ``[B]``, by the forward algorithm over ``lp``
    ``[T, B, C]`` (log-probabilities)."""
    t_max, batch, _ = lp.shape
    s_max = max((len(lab) for lab in labels), default=0)
    width = 2 * s_max + 1
    ext = np.full((batch, width), blank, dtype=np.int64)  # blank, l1, blank, l2, ..., blank
    skip = np.zeros((batch, width), dtype=bool)  # may come from two positions back
    for b, lab in enumerate(labels):
        ext[b, 1 : 2 * len(lab) : 2] = lab
        for s in range(3, 2 * len(lab), 2):
            skip[b, s] = ext[b, s] != ext[b, s - 2]
    dtype = lp.dtype
    lp = lp.log_softmax(-1)
    idx = _core.tensor(ext).reshape([1, batch, width]).expand([t_max, batch, width])
    emit = lp.take_along_axis(idx, 2)  # [T, B, width]
    log_zero = _core.full([batch, width], _LOG_ZERO, dtype=dtype)
    skip_t = _core.tensor(skip)
    start = np.zeros((batch, width), dtype=bool)
    start[:, 0] = True
    if width > 1:  # (all targets empty: only the blank column)
        start[:, 1] = [len(lab) > 0 for lab in labels]
    alpha = _core.where(_core.tensor(start), emit[0], log_zero)
    pad1 = _core.full([batch, 1], _LOG_ZERO, dtype=dtype)
    pad2 = _core.full([batch, min(2, width)], _LOG_ZERO, dtype=dtype)
    for t in range(1, t_max):
        prev1 = _core.concat([pad1, alpha[:, : width - 1]], 1)
        prev2 = _core.concat([pad2, alpha[:, : max(width - 2, 0)]], 1)
        prev2 = _core.where(skip_t, prev2, log_zero)
        step = _core.stack([alpha, prev1, prev2], 0).logsumexp(0) + emit[t]
        # samples whose input has ended keep their last alpha
        live = _core.tensor((t < in_len).reshape(batch, 1))
        alpha = _core.where(live, step, alpha)
    ends = np.array([[2 * len(lab), max(2 * len(lab) - 1, 0)] for lab in labels], dtype=np.int64)
    last = alpha.take_along_axis(_core.tensor(ends.reshape(batch, 2)), 1)
    no_label = _core.tensor(np.array([[False, len(lab) == 0] for lab in labels]))
    last = _core.where(no_label, _core.full([batch, 2], _LOG_ZERO, dtype=dtype), last)
    return -last.logsumexp(1)


def ctc_loss(
    log_probs: Tensor,
    targets: Any = None,
    input_lengths: Any = None,
    target_lengths: Any = None,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
    *,
    labels: Any = None,
    label_lengths: Any = None,
    norm_by_times: bool = False,
) -> Tensor:
    """The CTC loss of ``log_probs`` ``[T, B, C]`` (``[T, C]`` unbatched) against
    ``targets``: padded ``[B, S]`` or the ``B`` label sequences concatenated (1-D), of
    ``target_lengths``; ``input_lengths`` are the valid time steps per sample.

    ``reduction``: ``'mean'`` divides each loss by its target length (at least 1) and
    averages over the batch (both peers), ``'sum'``, or ``'none'`` (``[B]``).
    ``zero_infinity`` (torch) gives impossible samples loss 0 and no gradient.
    Paddle's names: ``labels``, ``label_lengths``, and ``norm_by_times``, which divides
    each sample's gradient (not its loss) by its number of time steps; it is keyword-only
    here (the seventh positional argument is torch's ``zero_infinity``). Inputs go
    through ``log_softmax`` first (Paddle takes logits; see the module docstring).
    """
    what = "ctc_loss"
    if labels is not None:
        if targets is not None:
            raise TypeError(f"{what}: pass one of targets and labels, not both")
        targets = labels
    if label_lengths is not None:
        if target_lengths is not None:
            raise TypeError(f"{what}: pass one of target_lengths and label_lengths, not both")
        target_lengths = label_lengths
    for arg, v in (("targets", targets), ("input_lengths", input_lengths)):
        if v is None:
            raise TypeError(f"{what}: missing {arg}")
    if target_lengths is None:
        raise TypeError(f"{what}: missing target_lengths")
    if not isinstance(log_probs, Tensor):
        raise TypeError(f"{what}: log_probs must be a Tensor, got {type(log_probs).__name__}")
    if log_probs.dtype not in (_core.float32, _core.float64):
        raise TypeError(f"{what}: log_probs must be float32 or float64, got {log_probs.dtype}")
    _check_reduction(reduction, what)
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)):
        raise TypeError(f"{what}: blank must be an int, got {type(blank).__name__}")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.ndim != 3:
        raise ValueError(
            f"{what}: log_probs must be [T, B, C] or [T, C], got shape {list(log_probs.shape)}"
        )
    t_max, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise ValueError(f"{what}: blank must lie in [0, {classes}), got {blank}")
    tgt = _int_array(targets, "targets", what)
    if unbatched:
        tgt = tgt.reshape(1, -1)
    in_len = _lengths(input_lengths, batch, "input_lengths", what)
    tgt_len = _lengths(target_lengths, batch, "target_lengths", what)
    if in_len.size and in_len.max() > t_max:
        raise ValueError(
            f"{what}: an input length ({int(in_len.max())}) exceeds log_probs' {t_max} steps"
        )
    rows = _label_rows(tgt, tgt_len, batch, what)
    for lab in rows:
        if lab.size and (lab.min() < 0 or lab.max() >= classes):
            raise ValueError(
                f"{what}: target labels must lie in [0, {classes}), got {lab.tolist()}"
            )
        if lab.size and (lab == blank).any():
            raise ValueError(f"{what}: targets must not contain the blank label {blank}")
    if t_max == 0 or batch == 0:
        nll = _core.zeros([batch], dtype=lp.dtype) + lp.sum() * 0.0
    else:
        nll = _nll(lp, rows, in_len, int(blank))
    # an alignment needs one step per label plus one blank between equal neighbours
    need = np.array([len(lab) + int((lab[1:] == lab[:-1]).sum()) for lab in rows], dtype=np.int64)
    possible = need <= in_len
    empty = (in_len == 0) & (tgt_len == 0)
    nll = _core.where(_core.tensor(empty), _core.zeros([batch], dtype=lp.dtype), nll)
    if not possible.all():
        fill = 0.0 if zero_infinity else float("inf")
        nll = _core.where(_core.tensor(possible), nll, _core.full([batch], fill, dtype=lp.dtype))
    if norm_by_times:
        # Paddle: the loss stays, each sample's gradient is divided by its time steps
        steps = _core.tensor(np.maximum(in_len, 1).astype(np.float64)).astype(lp.dtype)
        scaled = nll / steps
        nll = scaled + (nll - scaled).detach()
    if reduction == "mean":
        lengths = _core.tensor(np.maximum(tgt_len, 1).astype(np.float64)).astype(lp.dtype)
        return (nll / lengths).mean()
    if reduction == "sum":
        return nll.sum()
    return nll.reshape([]) if unbatched else nll


__all__ = ["ctc_loss"]
