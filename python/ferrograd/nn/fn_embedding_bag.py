"""``F.embedding_bag`` (PyTorch): the sum, mean or max of the embedding rows of each
bag of ids, without materialising the per-id embeddings as separate outputs.

Bags are the rows of a 2-D ``input`` ``[B, N]``, or slices of a 1-D ``input`` cut at
``offsets`` (``include_last_offset=True``: ``offsets`` has one more entry, the input's
length, and as in PyTorch that last entry is not read: the last bag ends with the input).
Sums and means accumulate in a wider type (float16 / bfloat16 rows in float32, float32
rows in float64) and are rounded once. Ids equal
to ``padding_idx`` are left out (not counted by ``mean``); an empty bag gives zeros.
``per_sample_weights`` (``mode="sum"`` only) scales each id's row. Built from
``index_select``, ``index_add`` and ``max`` over a padded gather, so gradients of every
order reach ``weight`` and ``per_sample_weights``.

``scale_grad_by_freq=True`` (here and in ``F.embedding``) divides the gradient each
looked-up row sends to ``weight`` by the number of times its id occurs in the input
(PyTorch's and Paddle's rule); the values are unchanged.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from ..autograd.py_layer import Function
from .fn_embedding_sparse import gather_rows

Tensor = _core.Tensor


# the accumulation dtype of a bag's sum, per row dtype (see embedding_bag)
_WIDER = {_core.float16: _core.float32, _core.bfloat16: _core.float32, _core.float32: _core.float64}


class PaddingIdxRangeError(ValueError, RuntimeError):
    """``padding_idx`` outside ``[-num_embeddings, num_embeddings)``: a ``ValueError``,
    and a ``RuntimeError`` as PyTorch's check raises it."""


class PerSampleWeightsModeError(NotImplementedError, ValueError):
    """``per_sample_weights`` with ``mode`` other than ``'sum'``: PyTorch's
    ``NotImplementedError``, and a ``ValueError``."""


class EmbeddingBagIndexError(IndexError, RuntimeError):
    """An id outside ``[0, num_embeddings)``: an ``IndexError``, and a ``RuntimeError``
    as PyTorch's check raises it."""


class _ScaleGrad(Function):
    """``rows`` (times the column ``factor`` when given) whose gradient in ``rows`` is
    multiplied by the constant ``scale``. The gradient in ``factor`` is the plain one,
    and the backward is built of recorded ops, so gradients of gradients are exact."""

    @staticmethod
    def forward(ctx: Any, rows: Tensor, scale: Tensor, factor: Optional[Tensor]) -> Tensor:
        ctx.save_for_backward(rows, factor)
        ctx.scale = scale
        return rows.view_as(rows) if factor is None else rows * factor

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Optional[Tensor], None, Optional[Tensor]]:
        rows, factor = ctx.saved_tensors
        g_rows = g_factor = None
        if ctx.needs_input_grad[0]:
            g_rows = grad * ctx.scale if factor is None else grad * (factor * ctx.scale)
        if factor is not None and ctx.needs_input_grad[2]:
            g_factor = (grad * rows).sum(1, keepdim=True)
        return g_rows, None, g_factor


def grad_scaled_by_freq(
    rows: Tensor,
    row_ids: np.ndarray,
    all_ids: Optional[np.ndarray] = None,
    factor: Optional[Tensor] = None,
) -> Tensor:
    """``rows`` (one looked-up row per id of the 1-D ``row_ids``; times the ``[n, 1]``
    column ``factor`` when given) whose gradient in ``rows`` is divided by how often
    each row's id occurs in ``all_ids`` (the whole mini-batch input; ``row_ids`` when
    not given)."""
    if not rows.requires_grad or row_ids.size == 0:
        return rows if factor is None else rows * factor
    ids, counts = np.unique(row_ids if all_ids is None else all_ids, return_counts=True)
    per_row = counts[np.searchsorted(ids, row_ids)]
    scale = _core.tensor((1.0 / per_row).reshape(-1, 1), dtype=rows.dtype)
    return _ScaleGrad.apply(rows, scale, factor)


def _ids(x: Any, what: str, arg: str) -> np.ndarray:
    a = x.numpy() if isinstance(x, Tensor) else np.asarray(x)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what}: {arg} must hold integers, got {a.dtype}")
    return a.astype(np.int64)


def embedding_renorm_(weight: Tensor, ids: Any, max_norm: float, norm_type: float = 2.0) -> None:
    """PyTorch's ``max_norm``: in place and unrecorded, each row of ``weight`` named in
    ``ids`` whose ``norm_type``-norm exceeds ``max_norm`` is scaled by ``max_norm / (norm +
    1e-7)``. The forward pass then reads the renormalised rows."""
    from ..grad_mode import no_grad

    p = float(norm_type)
    if p <= 0:
        raise ValueError(f"embedding: norm_type must be positive, got {norm_type}")
    rows_ids = np.unique(_ids(ids, "embedding", "ids").reshape(-1))
    if rows_ids.size == 0:
        return
    num = weight.shape[0]
    if rows_ids[0] < -num or rows_ids[-1] >= num:
        raise IndexError(f"embedding: ids must lie in [0, {num})")
    with no_grad():
        idx = _core.tensor(rows_ids % num)
        rows = weight.index_select(idx, axis=0)
        a = rows.abs()
        norms = a.max(1) if np.isinf(p) else a.pow(p).sum(1).pow(1.0 / p)
        if isinstance(norms, tuple):
            norms = norms[0]
        scale = _core.where(norms > max_norm, max_norm / (norms + 1e-7), _core.ones_like(norms))
        weight[idx] = rows * scale.unsqueeze(1)


def _bags(
    ids: np.ndarray, offsets: Any, include_last: bool, what: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """The flat ids, the bag of each, and the number of bags."""
    if ids.ndim == 2:
        if offsets is not None:
            raise ValueError(f"{what}: offsets must be None for a 2-D input (each row is a bag)")
        b, n = ids.shape
        return ids.reshape(-1), np.repeat(np.arange(b, dtype=np.int64), n), b
    if ids.ndim != 1:
        raise ValueError(f"{what}: input must be 1-D (with offsets) or 2-D, got {ids.ndim}-D")
    if offsets is None:
        raise ValueError(f"{what}: a 1-D input needs offsets (where each bag starts)")
    off = _ids(offsets, what, "offsets")
    if off.ndim != 1 or off.size == 0:
        raise ValueError(f"{what}: offsets must be a non-empty 1-D tensor, got shape {off.shape}")
    if off[0] != 0 or np.any(np.diff(off) < 0) or off[-1] > ids.size:
        raise ValueError(
            f"{what}: offsets must start at 0, not decrease and not exceed the input's "
            f"length {ids.size}, got {off.tolist()}"
        )
    if include_last:
        # PyTorch ignores the last offset (aten/src/ATen/native/EmbeddingBag.cpp,
        # make_offset2bag_out and make_bag_size_out): the last bag runs to the end
        off = off[:-1]
    ends = np.append(off[1:], ids.size)
    bag = np.repeat(np.arange(off.size, dtype=np.int64), ends - off)
    return ids[: bag.size], bag, off.size


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Optional[Tensor] = None,
    max_norm: Optional[float] = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Optional[Tensor] = None,
    include_last_offset: bool = False,
    padding_idx: Optional[int] = None,
) -> Tensor:
    """``[B, D]``: per bag, the ``sum`` / ``mean`` / ``max`` of ``weight``'s rows picked by
    its ids (see the module docs)."""
    what = "embedding_bag"
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"{what}: mode must be 'sum', 'mean' or 'max', got {mode!r}")
    if scale_grad_by_freq and mode == "max":
        raise ValueError(f"{what}: max mode does not support scaling the gradient by the frequency")
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ValueError(f"{what}: weight must be a 2-D Tensor [num_embeddings, dim]")
    num, dim = weight.shape
    ids = _ids(input, what, "input")
    flat, bag, n_bags = _bags(ids, offsets, bool(include_last_offset), what)
    if flat.size and (flat.min() < 0 or flat.max() >= num):
        raise EmbeddingBagIndexError(
            f"{what}: ids must lie in [0, {num}), got [{flat.min()}, {flat.max()}] "
            f"(Expected idx >= 0 && idx < num_embeddings)"
        )
    if max_norm is not None:  # PyTorch's: every id of the input renormalised first
        embedding_renorm_(weight, ids, float(max_norm), norm_type)
    if padding_idx is not None:
        if not -num <= padding_idx < num:  # PyTorch's words (EmbeddingBag.cpp)
            raise PaddingIdxRangeError(
                f"{what}: padding_idx must be within the number of embeddings, -{num} "
                f"through {num - 1}, but got {padding_idx}"
            )
        padding_idx = padding_idx + num if padding_idx < 0 else padding_idx
    keep = np.ones(flat.size, dtype=bool) if padding_idx is None else flat != padding_idx
    if sparse and mode == "max":
        raise ValueError("max mode does not support sparse weights")
    # sparse=True: weight gets a sparse COO gradient (indices: every kept id of every bag)
    rows = gather_rows(weight, _core.tensor(flat[keep]), bool(sparse), None)
    kept_bag = bag[keep]
    factor = None
    if per_sample_weights is not None:
        if mode != "sum":  # PyTorch's class and words (torch/nn/functional.py)
            raise PerSampleWeightsModeError(
                f"{what}: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}')"
            )
        psw = per_sample_weights
        if not isinstance(psw, Tensor) or list(psw.shape) != list(ids.shape):
            raise ValueError(
                f"{what}: per_sample_weights must have the same shape as the input "
                f"{list(ids.shape)}"
            )
        if psw.dtype != weight.dtype:  # PyTorch's checkSameType (no silent cast)
            raise RuntimeError(
                f"{what}: expected per_sample_weights ({psw.dtype}) to have the same type "
                f"as weight ({weight.dtype}); cast one of them"
            )
        psw_flat = psw.reshape([-1])[: flat.size]
        factor = psw_flat.index_select(_core.tensor(np.nonzero(keep)[0]), axis=0).unsqueeze(1)
    if scale_grad_by_freq:  # counted over the ids in bags (padding ids too)
        rows = grad_scaled_by_freq(rows, flat[keep], flat, factor)
    elif factor is not None:
        rows = rows * factor
    counts = np.bincount(kept_bag, minlength=n_bags)
    if mode in ("sum", "mean"):
        # the rows are summed one after another in a wider type and rounded once
        # (half precision in float32, PyTorch's opmath type; float32 in float64, so
        # that a long bag's sum is as exact as a pairwise ``sum``)
        acc = _WIDER.get(weight.dtype, weight.dtype)
        wide = acc != weight.dtype
        out = _core.zeros([n_bags, dim], dtype=acc).index_add(
            0, _core.tensor(kept_bag), rows.astype(acc) if wide else rows
        )
        if mode == "mean":
            scale = 1.0 / np.maximum(counts, 1)
            out = out * _core.tensor(scale.reshape(-1, 1), dtype=acc)
        return out.astype(weight.dtype) if wide else out
    # max: the rows of each bag in a padded [B, L, D] block, the gaps at -inf
    width = int(counts.max(initial=0))
    if width == 0:
        return _core.zeros([n_bags, dim], dtype=weight.dtype) + rows.sum(0)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(kept_bag.size) - starts[kept_bag]
    where = np.full((n_bags, width), kept_bag.size, dtype=np.int64)  # the gap row
    where[kept_bag, slot] = np.arange(kept_bag.size)
    gap = _core.full([1, dim], float("-inf"), dtype=weight.dtype)
    block = _core.concat([rows, gap], 0).index_select(_core.tensor(where.reshape(-1)), axis=0)
    best = block.reshape([n_bags, width, dim]).amax(1)
    empty = _core.tensor((counts == 0).reshape(-1, 1))
    return _core.where(empty, _core.zeros_like(best), best)


__all__ = ["embedding_bag"]
