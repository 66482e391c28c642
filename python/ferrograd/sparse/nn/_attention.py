"""Paddle's ``sparse.nn.functional.attention``: scaled dot-product attention evaluated
only at the entries of a sparse (batched CSR) mask."""

from __future__ import annotations

import math
from typing import Any

from ... import _core
from .._base import SparseTensor
from .._coo import SparseCooTensor
from .._reduce import softmax

Tensor = _core.Tensor


def attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    sparse_mask: Any,
    key_padding_mask: Any = None,
    attn_mask: Any = None,
    name: Any = None,
) -> Tensor:
    """``softmax(Q K^T / sqrt(d)) V`` with the scores computed and normalised only at the
    stored entries of ``sparse_mask`` ([batch * heads, seq, seq], batched CSR or COO).

    ``query`` / ``key`` / ``value`` are dense [batch, heads, seq, head_dim]. As in
    Paddle's kernel, an entry whose ``key_padding_mask[b, j]`` ([batch, seq]) or
    ``attn_mask[i, j]`` ([seq, seq]) is 0 takes no part; a query row left with no entry
    gives zeros. Differentiable w.r.t. ``query``, ``key`` and ``value`` (the gathers,
    the grouped softmax and the ``index_add`` are dense ops). Paddle runs it on CUDA only;
    here it runs on the CPU.
    """
    what = "sparse.attention"
    if not all(isinstance(t, Tensor) and t.ndim == 4 for t in (query, key, value)):
        raise ValueError(f"{what}: query, key and value must be dense 4-D [B, H, S, D]")
    b, h, s, d = (int(v) for v in query.shape)
    if list(key.shape) != [b, h, s, d] or list(value.shape) != [b, h, s, d]:
        raise ValueError(f"{what}: query, key and value need the same shape [B, H, S, D]")
    if not isinstance(sparse_mask, SparseTensor) or list(sparse_mask.shape) != [b * h, s, s]:
        raise ValueError(
            f"{what}: sparse_mask must be a sparse tensor of shape [{b * h}, {s}, {s}] "
            f"(batch * heads, seq, seq), got {getattr(sparse_mask, 'shape', None)}"
        )
    coo = sparse_mask if isinstance(sparse_mask, SparseCooTensor) else sparse_mask.to_sparse_coo()
    idx = coo.coalesce().indices()
    bh, i, j = idx[0], idx[1], idx[2]
    keep = None
    if key_padding_mask is not None:
        if list(key_padding_mask.shape) != [b, s]:
            raise ValueError(f"{what}: key_padding_mask must be [{b}, {s}]")
        keep = key_padding_mask.reshape([-1]).index_select(0, (bh // h) * s + j) != 0
    if attn_mask is not None:
        if list(attn_mask.shape) != [s, s]:
            raise ValueError(f"{what}: attn_mask must be [{s}, {s}]")
        ok = attn_mask.reshape([-1]).index_select(0, i * s + j) != 0
        keep = ok if keep is None else keep & ok
    if keep is not None:
        sel = keep.nonzero().reshape([-1])
        idx = idx.index_select(1, sel)
        bh, i, j = idx[0], idx[1], idx[2]
    rows, cols = bh * s + i, bh * s + j
    q = query.reshape([b * h * s, d])
    k = key.reshape([b * h * s, d])
    v = value.reshape([b * h * s, d])
    scores = (q.index_select(0, rows) * k.index_select(0, cols)).sum(-1) / math.sqrt(d)
    probs = softmax(SparseCooTensor(idx, scores, (b * h, s, s), coalesced=True), -1).values()
    out = _core.zeros([b * h * s, d], dtype=probs.dtype)
    out = out.index_add(0, rows, probs.unsqueeze(1) * v.index_select(0, cols))
    return out.reshape([b, h, s, d])
