"""``F.rnnt_loss`` (Paddle's ``paddle.nn.functional.rnnt_loss``): the RNN transducer loss
(Graves, 2012, "Sequence Transduction with Recurrent Neural Networks").

``input`` ``[B, Tmax, Umax+1, V]`` holds the joint network's logits; like Paddle's
warp-transducer kernel they go through ``log_softmax`` over ``V`` first. For one sample with
``T`` frames and labels ``y_1..y_U`` the lattice state ``(t, u)`` (frame ``t``, ``u`` labels
emitted) leaves by a blank (to ``(t+1, u)``) or by emitting ``y_(u+1)`` (to ``(t, u+1)``);
the loss is ``-log`` of the total probability of reaching ``(T-1, U)`` and emitting a final
blank. The forward variables ``alpha`` and backward variables ``beta`` are computed in
float64 NumPy, one frame at a time: within a frame the recursion along ``u`` is a linear
recurrence in log space, solved in closed form with a cumulative sum and
``np.logaddexp.accumulate``. The gradient is the alpha-beta one: each edge's posterior
``exp(alpha + edge + beta_next - log p)`` is subtracted from its log-probability's
gradient and carried through the ``log_softmax``.

FastEmit (Yu et al., 2021; ``fastemit_lambda``), as warp-transducer applies it, scales the
gradient of the label (non-blank) emissions by ``1 + lambda``; the loss value is unchanged.
The gradient is first order only (a second differentiation raises).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ..autograd.py_layer import Function, once_differentiable
from .fn_ctc import _int_array
from .fn_loss import _check_reduction

Tensor = _core.Tensor

__all__ = ["rnnt_loss"]


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    z = x - m
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _sample(x: np.ndarray, labels: np.ndarray, blank: int, lam: float) -> tuple[float, np.ndarray]:
    """Loss and gradient w.r.t. the logits ``x`` ``[T, U+1, V]`` of one sample."""
    t_len, u1, _ = x.shape
    u_len = u1 - 1
    lp = _log_softmax(x)
    blank_lp = lp[:, :, blank]  # [T, U+1]
    emit = lp[:, np.arange(u_len), labels] if u_len else np.zeros((t_len, 0))  # [T, U]
    alpha = np.empty((t_len, u1))
    beta = np.empty((t_len, u1))
    cum = np.concatenate([np.zeros((t_len, 1)), np.cumsum(emit, axis=1)], axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        start = np.full(u1, -np.inf)
        start[0] = 0.0
        for t in range(t_len):
            a = start if t == 0 else alpha[t - 1] + blank_lp[t - 1]
            # alpha[t, u] = logaddexp(a[u], alpha[t, u-1] + emit[t, u-1])
            alpha[t] = cum[t] + np.logaddexp.accumulate(a - cum[t])
        for t in range(t_len - 1, -1, -1):
            if t == t_len - 1:
                b = np.full(u1, -np.inf)
                b[u_len] = blank_lp[t, u_len]
            else:
                b = beta[t + 1] + blank_lp[t]
            # beta[t, u] = logaddexp(b[u], beta[t, u+1] + emit[t, u])
            beta[t] = np.logaddexp.accumulate((b + cum[t])[::-1])[::-1] - cum[t]
        ll = beta[0, 0]
        nxt = np.full((t_len, u1), -np.inf)
        nxt[:-1] = beta[1:]
        nxt[-1, u_len] = 0.0
        p_blank = np.exp(alpha + blank_lp + nxt - ll)
        p_emit = np.exp(alpha[:, :u_len] + emit + beta[:, 1:] - ll)
    p_blank = np.nan_to_num(p_blank, nan=0.0)
    p_emit = np.nan_to_num(p_emit, nan=0.0) * (1.0 + lam)
    g_lp = np.zeros_like(x)
    g_lp[:, :, blank] -= p_blank
    if u_len:
        g_lp[:, np.arange(u_len), labels] -= p_emit
    # through log_softmax: g_x = g_lp - softmax * sum(g_lp)
    g_x = g_lp - np.exp(lp) * g_lp.sum(axis=-1, keepdims=True)
    return -float(ll), g_x


class _RNNT(Function):
    """``logits -> per-sample loss [B]``; the gradient is computed with the loss."""

    @staticmethod
    def forward(ctx: Any, logits: Tensor, loss: Tensor, grad: Tensor) -> Tensor:
        """Returns the precomputed losses, keeping their gradient for backward."""
        # the logits are saved so that differentiating the gradient again raises
        ctx.save_for_backward(grad, logits)
        return loss.clone()

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, g: Tensor) -> Any:
        """The incoming per-sample gradient times each sample's logits gradient."""
        grad = ctx.saved_tensors[0]
        return g.reshape([-1, 1, 1, 1]) * grad, None, None


def _lengths(v: Any, batch: int, arg: str) -> np.ndarray:
    if v is None:
        raise TypeError(f"rnnt_loss: missing {arg}")
    arr = _int_array(v, arg, "rnnt_loss").reshape(-1)
    if arr.shape[0] != batch:
        raise ValueError(
            f"rnnt_loss: {arg} must have {batch} entries (the batch), got {arr.shape[0]}"
        )
    if arr.size and arr.min() < 0:
        raise ValueError(f"rnnt_loss: {arg} must not be negative, got {arr.tolist()}")
    return arr


def rnnt_loss(
    input: Tensor,
    label: Any,
    input_lengths: Any,
    label_lengths: Any,
    blank: int = 0,
    fastemit_lambda: float = 0.001,
    reduction: str = "mean",
    name: Any = None,
) -> Tensor:
    """The RNN transducer loss of logits ``input`` ``[B, Tmax, Umax+1, V]`` (float32 or
    float64; ``log_softmax`` over ``V`` is applied inside) against padded integer labels
    ``label`` ``[B, Umax]``, with ``input_lengths`` frames (at least 1) and
    ``label_lengths`` labels per sample. ``blank`` is the blank class; ``fastemit_lambda``
    scales the label emissions' gradient by ``1 + lambda`` (FastEmit, as warp-transducer)
    and leaves the loss unchanged. ``reduction``: ``'mean'`` (the sum divided by the batch
    size, as Paddle), ``'sum'`` or ``'none'`` (``[B]``). First-order gradient only.
    """
    what = "rnnt_loss"
    if not isinstance(input, Tensor):
        raise TypeError(f"{what}: input must be a Tensor, got {type(input).__name__}")
    if input.dtype not in (_core.float32, _core.float64):
        raise TypeError(f"{what}: input must be float32 or float64, got {input.dtype}")
    if input.ndim != 4:
        raise ValueError(
            f"{what}: input must be [B, Tmax, Umax+1, V], got shape {list(input.shape)}"
        )
    _check_reduction(reduction, what)
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)):
        raise TypeError(f"{what}: blank must be an int, got {type(blank).__name__}")
    if isinstance(fastemit_lambda, bool) or not isinstance(
        fastemit_lambda, (int, float, np.integer, np.floating)
    ):
        raise TypeError(
            f"{what}: fastemit_lambda must be a number, got {type(fastemit_lambda).__name__}"
        )
    lam = float(fastemit_lambda)
    if not np.isfinite(lam):
        raise ValueError(f"{what}: fastemit_lambda must be finite, got {lam}")
    batch, t_max, u_max1, classes = input.shape
    if not 0 <= blank < classes:
        raise ValueError(f"{what}: blank must lie in [0, {classes}), got {blank}")
    if label is None:
        raise TypeError(f"{what}: missing label")
    lab = _int_array(label, "label", what)
    if lab.ndim == 1 and batch == 1:
        lab = lab.reshape(1, -1)
    if lab.ndim != 2 or lab.shape[0] != batch:
        raise ValueError(f"{what}: label must be [B={batch}, Umax], got shape {list(lab.shape)}")
    in_len = _lengths(input_lengths, batch, "input_lengths")
    lab_len = _lengths(label_lengths, batch, "label_lengths")
    if in_len.size and (in_len.min() < 1 or in_len.max() > t_max):
        raise ValueError(
            f"{what}: input_lengths must lie in [1, {t_max}] (input's Tmax), got {in_len.tolist()}"
        )
    if lab_len.size and (lab_len.max() > u_max1 - 1 or lab_len.max() > lab.shape[1]):
        raise ValueError(
            f"{what}: label_lengths must be at most input's Umax = {u_max1 - 1} and label's "
            f"width {lab.shape[1]}, got {lab_len.tolist()}"
        )
    x = input.detach().astype(_core.float64).numpy()
    losses = np.zeros(batch)
    grads = np.zeros(x.shape)
    for b in range(batch):
        t, u = int(in_len[b]), int(lab_len[b])
        ys = lab[b, :u]
        if ys.size and (ys.min() < 0 or ys.max() >= classes):
            raise ValueError(f"{what}: labels must lie in [0, {classes}), got {ys.tolist()}")
        losses[b], grads[b, :t, : u + 1] = _sample(x[b, :t, : u + 1], ys, int(blank), lam)
    dtype = input.dtype
    loss_t = _core.tensor(losses).astype(dtype)
    nll = _RNNT.apply(input, loss_t, _core.tensor(grads).astype(dtype))
    if reduction == "mean":
        return nll.sum() / max(batch, 1)
    if reduction == "sum":
        return nll.sum()
    return nll
