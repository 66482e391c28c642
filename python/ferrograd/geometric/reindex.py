"""Paddle's ``reindex_graph`` / ``reindex_heter_graph`` (python/paddle/geometric/
reindex.py; kernel paddle/phi/kernels/cpu/graph_reindex_kernel.cc).

The input nodes ``x`` get ids ``0..len(x)-1``; every neighbor not among them gets the
next id in order of first appearance. ``reindex_src`` is each neighbor's new id,
``reindex_dst`` the new id of the node it is a neighbor of (``x[j]`` repeated
``count[j]`` times, edge type after edge type), ``out_nodes`` the original ids in new-id
order. ``value_buffer`` / ``index_buffer`` only speed up Paddle's GPU kernel: they are
accepted and not used.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from . import _checks

Tensor = _core.Tensor

__all__ = ["reindex_graph", "reindex_heter_graph"]


def _nodes(value: Any, what: str, op: str) -> Tensor:
    t = _checks.as_tensor(value, what, op)
    if t.dtype not in _checks.INDEX_DTYPES:
        raise TypeError(f"{op}: {what} must be an int32 or int64 tensor, got {t.dtype}")
    if not (t.ndim == 1 or (t.ndim == 2 and t.shape[1] == 1)):
        raise ValueError(f"{op}: {what} must have shape [n] or [n, 1], got {list(t.shape)}")
    return t


def _reindex(x: Tensor, neighbors: np.ndarray, count: np.ndarray, op: str) -> tuple:
    xs = _checks.to_numpy(x).reshape(-1)
    bs = xs.size
    if bs == 0:
        raise ValueError(f"{op}: x must hold at least one node, got an empty tensor")
    uniq, first = np.unique(xs, return_index=True)
    if uniq.size != bs:
        dup = xs[np.setdiff1d(np.arange(bs), first)[0]]
        raise ValueError(f"{op}: the nodes in x must be unique, but {int(dup)} repeats")
    if count.size == 0 or count.size % bs:
        raise ValueError(
            f"{op}: count must hold len(x) = {bs} entries per edge type, got {count.size}"
        )
    if (count < 0).any():
        raise ValueError(f"{op}: count must not be negative, got {int(count.min())}")
    if int(count.sum()) != neighbors.size:
        raise ValueError(
            f"{op}: the counts add up to {int(count.sum())} but there are "
            f"{neighbors.size} neighbors; they must match"
        )
    both = np.concatenate([xs, neighbors])
    _, first, inverse = np.unique(both, return_index=True, return_inverse=True)
    new_id = np.empty(first.size, dtype=np.int64)
    new_id[np.argsort(first, kind="stable")] = np.arange(first.size)
    ids = new_id[inverse.reshape(-1)]
    src = ids[bs:]
    dst = np.repeat(np.tile(np.arange(bs), count.size // bs), count)
    out_nodes = both[np.sort(first)]
    return tuple(_checks.from_numpy(a, x.dtype) for a in (src, dst, out_nodes))


def _count_values(count: Tensor, op: str) -> np.ndarray:
    if count.dtype not in _checks.INDEX_DTYPES:
        raise TypeError(f"{op}: count must be an int32 tensor, got {count.dtype}")
    return _checks.to_numpy(count).reshape(-1).astype(np.int64)


def _same_dtype(x: Tensor, neighbors: Tensor, op: str) -> np.ndarray:
    if neighbors.dtype != x.dtype:
        raise TypeError(f"{op}: neighbors must have x's dtype {x.dtype}, got {neighbors.dtype}")
    return _checks.to_numpy(neighbors).reshape(-1).astype(np.int64)


def reindex_graph(
    x: Any,
    neighbors: Any,
    count: Any,
    value_buffer: Any = None,
    index_buffer: Any = None,
    name: Optional[str] = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Paddle's ``paddle.geometric.reindex_graph``: renumbers the sampled subgraph of the
    input nodes ``x`` (unique, int32/int64) whose neighbors ``neighbors`` (``x``'s dtype)
    come in groups of ``count[j]`` (int32) per node. Returns ``(reindex_src, reindex_dst,
    out_nodes)`` in ``x``'s dtype (see the module docs)."""
    op = "reindex_graph"
    x = _nodes(x, "x", op)
    nb = _same_dtype(x, _nodes(neighbors, "neighbors", op), op)
    cnt = _count_values(_nodes(count, "count", op), op)
    if cnt.size != x.shape[0]:
        raise ValueError(
            f"{op}: count must have one entry per node of x ({x.shape[0]}), got {cnt.size}"
        )
    return _reindex(x, nb, cnt, op)


def reindex_heter_graph(
    x: Any,
    neighbors: Any,
    count: Any,
    value_buffer: Any = None,
    index_buffer: Any = None,
    name: Optional[str] = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Paddle's ``paddle.geometric.reindex_heter_graph``: ``reindex_graph`` over several
    edge types at once. ``neighbors`` and ``count`` are lists (one tensor per edge type,
    each ``count`` of length ``len(x)``); the edges of each type follow those of the one
    before. Returns ``(reindex_src, reindex_dst, out_nodes)``."""
    op = "reindex_heter_graph"
    x = _nodes(x, "x", op)
    nbs = [neighbors] if isinstance(neighbors, Tensor) else list(neighbors)
    cnts = [count] if isinstance(count, Tensor) else list(count)
    if not nbs or len(nbs) != len(cnts):
        raise ValueError(
            f"{op}: neighbors and count must be lists of one length (one tensor per edge "
            f"type), got {len(nbs)} and {len(cnts)}"
        )
    nb_parts, cnt_parts = [], []
    for i, (nb, c) in enumerate(zip(nbs, cnts)):
        cv = _count_values(_nodes(c, f"count[{i}]", op), op)
        if cv.size != x.shape[0]:
            raise ValueError(
                f"{op}: count[{i}] must have one entry per node of x ({x.shape[0]}), got {cv.size}"
            )
        nb_parts.append(_same_dtype(x, _nodes(nb, f"neighbors[{i}]", op), op))
        cnt_parts.append(cv)
    return _reindex(x, np.concatenate(nb_parts), np.concatenate(cnt_parts), op)
