"""``F.scaled_dot_product_attention`` in both dialects, and the attention core the
``MultiheadAttention`` layers share.

PyTorch lays the inputs out as ``[..., seq, head_dim]`` (typically ``[batch, heads, seq,
dim]``); Paddle as ``[batch, seq, heads, dim]`` (or ``[seq, heads, dim]``). The function
reads PyTorch's layout unless it is called with Paddle's ``training=`` (or ``name=``)
argument. A bool ``attn_mask`` keeps the positions where it is True (both peers), a float
mask is added to the scores; ``is_causal`` keeps ``j <= i`` (top-left aligned). A query
row with every key masked gets zero weights (PyTorch's own kernel does the same).

A composition of differentiable ops (matmul, softmax, masked_fill), so first and second
derivatives flow; there is no fused Rust kernel (nor its memory-saving backward) yet.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core
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
    factor = 1.0 / math.sqrt(s) if scale is None else float(scale)
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
    enable_gqa: bool = False,
) -> Tensor:
    """Attention ``softmax(Q K^T / sqrt(d) + mask) V``.

    PyTorch layout ``[..., L, E]`` by default; Paddle's ``[batch, seq, heads, dim]`` when
    ``training=`` or ``name=`` is passed (Paddle's own arguments). ``dropout_p`` drops
    attention weights (only while ``training``, default True); ``scale`` replaces
    ``1/sqrt(E)``."""
    what = "scaled_dot_product_attention"
    _check_qkv(query, key, value, what)
    if enable_gqa:
        raise NotImplementedError(f"{what}: enable_gqa=True is not supported")
    if not isinstance(dropout_p, (int, float)) or not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{what}: dropout_p must be a probability in [0, 1], got {dropout_p!r}")
    paddle = training is not None or name is not None
    if paddle:
        if query.ndim not in (3, 4):
            raise ValueError(
                f"{what}: Paddle's layout is [batch, seq, heads, dim] or [seq, heads, dim], "
                f"got shape {list(query.shape)}"
            )
        # [.., seq, heads, dim] -> [.., heads, seq, dim]
        query, key, value = (t.transpose(-3, -2) for t in (query, key, value))
    keep, bias = split_mask(attn_mask, query.dtype, what)
    if is_causal:
        if attn_mask is not None:
            raise ValueError(f"{what}: pass either attn_mask or is_causal=True, not both")
        keep = causal_keep(query.shape[-2], key.shape[-2])
    out, _ = attend(
        query,
        key,
        value,
        keep,
        bias,
        float(dropout_p),
        True if training is None else training,
        scale,
    )
    return out.transpose(-3, -2) if paddle else out


__all__ = ["scaled_dot_product_attention"]
