"""``F.scaled_dot_product_attention`` in both dialects, and the attention core the
``MultiheadAttention`` layers share.

PyTorch lays the inputs out as ``[..., seq, head_dim]`` (typically ``[batch, heads, seq,
dim]``); Paddle as ``[batch, seq, heads, dim]`` (or ``[seq, heads, dim]``). The function
reads PyTorch's layout unless it is called with Paddle's ``training=`` (or ``name=``)
argument. A bool ``attn_mask`` keeps the positions where it is True (both peers), a float
mask is added to the scores; ``is_causal`` keeps ``j <= i`` (top-left aligned). A query
row with every key masked gets zero weights (PyTorch's own kernel does the same).

For float32/float64 inputs the function is one Rust op (``_core._sdpa``, one graph node):
its backward saves q, k, v, the output and one log-sum-exp per query row, never the
``[L, S]`` weights, and recomputes them block by block; second derivatives flow through a
composed fallback. Its dropout flags come from a seed drawn from the global generator
(``fg.seed`` reproduces them) but differ from the composed version's draws. The
composition below (``attend``) stays the reference, and serves other dtypes, a float mask
that requires grad, and the layers' ``need_weights=True``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core
from .._dialect import caller_dialect
from .._errors import ArgumentCheckError
from . import functional as F

Tensor = _core.Tensor


def causal_keep(rows: int, cols: int) -> Tensor:
    """The bool ``[rows, cols]`` mask that keeps ``j <= i``."""
    return _core.tensor(np.tril(np.ones((rows, cols), dtype=bool)))


def attend(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    keep: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    dropout_p: float = 0.0,
    training: bool = True,
    scale: Optional[float] = None,
) -> tuple[Tensor, Tensor]:
    """``softmax(q @ k^T * scale + bias, masked to keep) @ v`` over the last two dims;
    returns ``(output, weights)``. Rows with nothing kept get zero weights."""
    s = q.shape[-1]
    # no features: every score is 0 whatever the scale (1/sqrt(0) would make them NaN)
    factor = (1.0 / math.sqrt(s) if s else 1.0) if scale is None else float(scale)
    scores = q.matmul(k, False, True)
    if factor != 1.0:
        scores = scores * factor
    if bias is not None:
        scores = scores + bias
    if keep is None:
        weights = scores.softmax(-1)
    else:
        some = keep.any(-1, keepdim=True)
        scores = scores.masked_fill(keep.logical_not(), -math.inf)
        # fully masked rows: softmax of zeros, then zeroed (no NaN, finite gradients)
        scores = scores.masked_fill(some.logical_not(), 0.0)
        weights = scores.softmax(-1) * some.astype(scores.dtype)
    if dropout_p > 0.0 and training:
        weights = F.dropout(weights, dropout_p, True)
    return weights.matmul(v), weights


def _fusable(q: Tensor, k: Tensor, v: Tensor, mask: Optional[Tensor]) -> bool:
    """Whether the fused Rust op takes these operands (else the composition runs)."""
    if q.dtype not in (_core.float32, _core.float64) or k.dtype != q.dtype or v.dtype != q.dtype:
        return False
    if q.ndim != k.ndim or q.ndim != v.ndim:
        return False
    return mask is None or not (mask.requires_grad and _core.is_grad_enabled())


def _same_batch(q: Tensor, k: Tensor, v: Tensor, what: str) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v expanded to one broadcast batch shape (views; no copy when they agree)."""
    shapes = [tuple(t.shape[:-2]) for t in (q, k, v)]
    if shapes[0] == shapes[1] == shapes[2]:
        return q, k, v
    try:
        batch = list(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(
            f"{what}: the batch dims of query, key and value cannot be broadcast together, "
            f"got shapes {list(q.shape)}, {list(k.shape)} and {list(v.shape)}"
        ) from None
    return tuple(  # type: ignore[return-value]
        t if list(t.shape[:-2]) == batch else t.expand(batch + list(t.shape[-2:]))
        for t in (q, k, v)
    )


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    keep: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    dropout_p: float = 0.0,
    training: bool = True,
    scale: Optional[float] = None,
    causal: bool = False,
    what: str = "scaled_dot_product_attention",
) -> Tensor:
    """The attention output alone (no weights): the fused Rust op when it applies, else
    :func:`attend`. ``keep`` and ``bias`` as in ``attend``; ``causal`` keeps ``j <= i``."""
    p = float(dropout_p) if training else 0.0
    mask = bias
    if keep is not None:
        # one mask for the kernel: left-out keys become -inf in the bias
        mask = keep if bias is None else _core.where(keep, bias, -math.inf)
    if _fusable(q, k, v, mask):
        q, k, v = _same_batch(q, k, v, what)
        return _core._sdpa(q, k, v, mask, p, bool(causal), None if scale is None else float(scale))
    if causal:
        ck = causal_keep(q.shape[-2], k.shape[-2])
        keep = ck if keep is None else keep.logical_and(ck)
    return attend(q, k, v, keep, bias, p, training, scale)[0]


def _check_qkv(q: Any, k: Any, v: Any, what: str) -> None:
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: {name} must be a Tensor, got {type(t).__name__}")
        if t.ndim < 2:
            raise ValueError(f"{what}: {name} needs at least 2 dims, got shape {list(t.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"{what}: query and key must share the last (embedding) dim, got "
            f"{list(q.shape)} and {list(k.shape)}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"{what}: key and value must have the same sequence length, got "
            f"{list(k.shape)} and {list(v.shape)}"
        )


def split_mask(mask: Any, dtype: Any, what: str) -> tuple[Optional[Tensor], Optional[Tensor]]:
    """A user mask as ``(keep, bias)``: bool → keep, float → additive bias."""
    if mask is None:
        return None, None
    if not isinstance(mask, Tensor):
        mask = _core.tensor(mask)
    if mask.dtype == _core.bool:
        return mask, None
    if mask.dtype.is_floating_point:
        return None, mask.astype(dtype) if mask.dtype != dtype else mask
    raise TypeError(f"{what}: attn_mask must be bool (True = attend) or floating, got {mask.dtype}")


def _repeat_heads(q: Tensor, k: Tensor, v: Tensor, what: str) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: key and value heads (dim -3) repeated, each in place,
    to the query's head count (``repeat_interleave``, both peers' order)."""
    if min(q.ndim, k.ndim, v.ndim) < 3:
        raise ValueError(
            f"{what}: enable_gqa needs a heads dim ([..., heads, L, E]), got shapes "
            f"{list(q.shape)}, {list(k.shape)}, {list(v.shape)}"
        )
    hq, hk, hv = q.shape[-3], k.shape[-3], v.shape[-3]
    if hk == 0 or hv == 0 or hq % hk or hq % hv:
        raise ValueError(
            f"{what}: the number of heads in key ({hk}) and value ({hv}) must divide the "
            f"number of heads in query ({hq})"
        )
    k = k if hk == hq else k.repeat_interleave(hq // hk, -3)
    v = v if hv == hq else v.repeat_interleave(hq // hv, -3)
    return k, v


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Optional[Tensor] = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    training: Optional[bool] = None,
    name: Optional[str] = None,
    *,
    scale: Optional[float] = None,
    enable_gqa: Optional[bool] = None,
) -> Tensor:
    """Attention ``softmax(Q K^T / sqrt(d) + mask) V``.

    PyTorch layout ``[..., L, E]`` by default; Paddle's ``[batch, seq, heads, dim]`` in
    Paddle code or when ``training=`` or ``name=`` is passed (Paddle's own arguments). ``dropout_p`` drops
    attention weights (only while ``training``, default True); ``scale`` replaces
    ``1/sqrt(E)``. ``enable_gqa`` (grouped-query attention; default off in PyTorch's
    layout, on in Paddle's, as each peer): each key / value head serves
    ``query heads / key heads`` consecutive query heads."""
    what = "scaled_dot_product_attention"
    _check_qkv(query, key, value, what)
    if not isinstance(dropout_p, (int, float)) or not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{what}: dropout_p must be a probability in [0, 1], got {dropout_p!r}")
    paddle = training is not None or name is not None or caller_dialect(2) == "paddle"
    if paddle:
        if query.ndim not in (3, 4):
            raise ValueError(
                f"{what}: Paddle's layout is [batch, seq, heads, dim] or [seq, heads, dim], "
                f"got shape {list(query.shape)}"
            )
        # [.., seq, heads, dim] -> [.., heads, seq, dim]
        query, key, value = (t.transpose(-3, -2) for t in (query, key, value))
    if paddle if enable_gqa is None else enable_gqa:
        key, value = _repeat_heads(query, key, value, what)
    keep, bias = split_mask(attn_mask, query.dtype, what)
    if is_causal and attn_mask is not None:
        # PyTorch: RuntimeError (attention.cpp TORCH_CHECK "Explicit attn_mask should not
        # be set when is_causal=True"); ferrograd raised ValueError: both
        raise ArgumentCheckError(
            f"{what}: Explicit attn_mask should not be set when is_causal=True; pass either "
            "attn_mask or is_causal=True, not both"
        )
    out = attention(
        query,
        key,
        value,
        keep,
        bias,
        float(dropout_p),
        True if training is None else training,
        scale,
        bool(is_causal),
    )
    return out.transpose(-3, -2) if paddle else out


__all__ = ["scaled_dot_product_attention"]
