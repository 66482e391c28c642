"""The one reduction every ``ferrograd.geometric`` op ends with: rows ``msg[e]`` combined
into ``out[dst[e]]`` with ``sum`` / ``mean`` / ``max`` / ``min``; rows that receive
nothing are 0.

Values and gradients follow Paddle 3.3.1's CPU kernels:

* ``sum`` / ``mean``: the chain rule (``send_u_recv_grad_kernel.cc`` adds
  ``g[dst] / count[dst]`` to each message's row for ``mean``); built from the
  differentiable ``_scatter_add``.
* ``max`` / ``min``: every message equal to its row's result gets the *whole* incoming
  gradient, ties included (``send_u_recv_grad_kernel.cc``: ``x_grad += g * (out == x)``;
  ``segment_pooling.cc``: ``(in == out) * g``). That is not PyTorch's rule (which shares
  the gradient between ties), hence the custom node below.
* integer ``mean`` divides in the integer type, truncating toward zero (the kernels'
  ``sum / static_cast<T>(count)``).
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ..autograd.py_layer import Function
from . import _checks

Tensor = _core.Tensor


class _ExtremeRows(Function):
    """``max`` / ``min`` of the messages landing on each row (0 where none lands). The
    backward is linear in the incoming gradient with a constant mask, so it is exact at
    every order."""

    @staticmethod
    def forward(ctx, msg, index, n, reduce):  # type: ignore[override]
        base = _core.zeros([n, *msg.shape[1:]], dtype=msg.dtype)
        out = base._scatter_reduce_raw(0, index, msg, reduce, False)
        ctx.save_for_backward(msg, index, out)
        return out

    @staticmethod
    def backward(ctx, g):  # type: ignore[override]
        msg, index, out = ctx.saved_tensors
        hit = msg == out.gather(0, index)
        gmsg = _core.where(hit, g.gather(0, index), _core.zeros([], dtype=g.dtype))
        return gmsg, None, None, None


def _row_index(dst: Tensor, msg: Tensor) -> Tensor:
    """``dst`` broadcast to ``msg``'s shape (the scatter index along dim 0)."""
    feat = list(msg.shape[1:])
    return dst.reshape([dst.shape[0]] + [1] * len(feat)).expand([dst.shape[0], *feat])


def _counts(dst: Tensor, n: int) -> np.ndarray:
    """How many messages land on each of the ``n`` rows."""
    return np.bincount(_checks.to_numpy(dst), minlength=n)[:n]


def reduce_rows(msg: Tensor, dst: Tensor, n: int, reduce: str) -> Tensor:
    """``msg`` (``[E, *F]``) reduced into ``n`` rows by the int64 vector ``dst`` (``[E]``,
    every entry in ``[0, n)``) with ``reduce`` in ``sum`` / ``mean`` / ``max`` / ``min``."""
    index = _row_index(dst, msg)
    zeros = _core.zeros([n, *msg.shape[1:]], dtype=msg.dtype)
    if reduce in ("max", "min"):
        if msg.shape[0] == 0:  # nothing lands anywhere: zeros, still on the graph
            return zeros._scatter_add(0, index, msg)
        return _ExtremeRows.apply(msg, index, n, "amax" if reduce == "max" else "amin")
    total = zeros._scatter_add(0, index, msg)
    if reduce == "sum":
        return total
    shape = [n] + [1] * (msg.ndim - 1)
    count = np.maximum(_counts(dst, n), 1).reshape(shape)
    if msg.is_floating_point():
        return total / _checks.from_numpy(count, msg.dtype)
    # integers: divide in the integer type, truncating toward zero (no gradient here)
    vals = _checks.to_numpy(total)
    q = np.abs(vals) // count * np.sign(vals)
    return _checks.from_numpy(q.astype(vals.dtype), msg.dtype)
