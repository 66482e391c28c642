"""Paddle's neighbor sampling on a CSC graph: ``sample_neighbors`` and
``weighted_sample_neighbors`` (python/paddle/geometric/sampling/neighbors.py; kernels
paddle/phi/kernels/cpu/graph_sample_neighbors_kernel.cc and
weighted_sample_neighbors_kernel.cc).

The neighbors of node ``v`` are ``row[colptr[v]:colptr[v + 1]]``. A node with at most
``sample_size`` neighbors (or ``sample_size=-1``, "all") keeps them all, in CSC order.
Otherwise ``sample_neighbors`` draws ``sample_size`` of them without replacement (the
kernel's partial Fisher-Yates shuffle: the first ``k`` after ``k`` swaps), and
``weighted_sample_neighbors`` keeps the ``sample_size`` largest keys
``log2(u) / weight`` (the kernel's weighted reservoir), listed from the smallest kept key
up, as the kernel's min-heap gives them. The uniform draws ``u`` come from ferrograd's
default generator, so ``paddle.seed`` makes a run reproducible (Paddle's CPU kernels seed
from ``std::random_device``, so their draws differ from run to run).

Paddle's CPU kernels read ``sample_size=-1`` as a count of -1; ferrograd gives the
documented meaning (every neighbor). ``perm_buffer`` only speeds up Paddle's GPU kernel:
it is accepted and not used.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from .. import _core
from . import _checks

Tensor = _core.Tensor

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]


def _vector(value: Any, what: str, op: str, dtype: Any = None) -> tuple[Tensor, np.ndarray]:
    t = _checks.as_tensor(value, what, op)
    if dtype is not None and t.dtype != dtype:
        raise TypeError(f"{op}: {what} must have row's dtype {dtype}, got {t.dtype}")
    if t.dtype not in _checks.INDEX_DTYPES:
        raise TypeError(f"{op}: {what} must be an int32 or int64 tensor, got {t.dtype}")
    if not (t.ndim == 1 or (t.ndim == 2 and t.shape[1] == 1)):
        raise ValueError(f"{op}: {what} must have shape [n] or [n, 1], got {list(t.shape)}")
    return t, _checks.to_numpy(t).reshape(-1).astype(np.int64)


def _graph(row: Any, colptr: Any, input_nodes: Any, sample_size: Any, op: str) -> tuple:
    """Checked ``(row tensor, row, colptr, nodes, sample_size)``."""
    row_t, rows = _vector(row, "row", op)
    _, ptr = _vector(colptr, "colptr", op, row_t.dtype)
    _, nodes = _vector(input_nodes, "input_nodes", op, row_t.dtype)
    if ptr.size == 0:
        raise ValueError(f"{op}: colptr must have num_nodes + 1 entries, got none")
    if (np.diff(ptr) < 0).any() or ptr[0] < 0 or ptr[-1] > rows.size:
        raise ValueError(
            f"{op}: colptr must be non-decreasing, from 0 up to len(row) = {rows.size}; "
            f"got values from {int(ptr.min())} to {int(ptr.max())}"
        )
    if nodes.size and (nodes.min() < 0 or nodes.max() >= ptr.size - 1):
        bad = int(nodes.min()) if nodes.min() < 0 else int(nodes.max())
        raise IndexError(
            f"{op}: input_nodes holds {bad}, out of range [0, {ptr.size - 1}) (the nodes "
            f"colptr describes)"
        )
    if isinstance(sample_size, bool):
        raise TypeError(f"{op}: sample_size must be an int, got a bool")
    k = operator.index(sample_size)
    if k < -1:
        raise ValueError(f"{op}: sample_size must be -1 (all neighbors) or >= 0, got {k}")
    return row_t, rows, ptr, nodes, k


def _eids(eids: Any, return_eids: bool, row_t: Tensor, n_edges: int, op: str) -> Any:
    if not return_eids:
        return None
    if eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    _, e = _vector(eids, "eids", op, row_t.dtype)
    if e.size != n_edges:
        raise ValueError(f"{op}: eids must have one entry per edge ({n_edges}), got {e.size}")
    return e


def _uniform(n: int) -> np.ndarray:
    """``n`` draws from [0, 1) of ferrograd's default generator."""
    if n == 0:
        return np.zeros(0)
    return _checks.to_numpy(_core.rand([n], dtype=_core.float64))


def _finish(row_t: Tensor, picks: list, counts: list, edges: Optional[np.ndarray], rows) -> tuple:
    pos = np.concatenate(picks) if picks else np.zeros(0, dtype=np.int64)
    out = (
        _checks.from_numpy(rows[pos], row_t.dtype),
        _checks.from_numpy(np.asarray(counts, dtype=np.int32), _core.int32),
    )
    if edges is None:
        return out
    return (*out, _checks.from_numpy(edges[pos], row_t.dtype))


def sample_neighbors(
    row: Any,
    colptr: Any,
    input_nodes: Any,
    sample_size: int = -1,
    eids: Any = None,
    return_eids: bool = False,
    perm_buffer: Any = None,
    name: Optional[str] = None,
) -> tuple:
    """Paddle's ``paddle.geometric.sample_neighbors``: up to ``sample_size`` neighbors of
    each input node, drawn uniformly without replacement (``-1``: all of them).

    ``row`` / ``colptr``: the CSC graph (int32/int64, ``[n]`` or ``[n, 1]``);
    ``input_nodes``, ``eids``: ``row``'s dtype. Returns ``(out_neighbors, out_count)``, or
    with ``return_eids=True`` also ``out_eids`` (then ``eids`` is required);
    ``out_count`` is int32."""
    op = "sample_neighbors"
    row_t, rows, ptr, nodes, k = _graph(row, colptr, input_nodes, sample_size, op)
    edges = _eids(eids, return_eids, row_t, rows.size, op)
    caps = ptr[nodes + 1] - ptr[nodes]
    sampled = caps > k if k >= 0 else np.zeros(nodes.size, dtype=bool)
    u = _uniform(int(k * sampled.sum()))
    picks, counts, used = [], [], 0
    for v, cap, draw in zip(nodes, caps, sampled):
        pos = np.arange(ptr[v], ptr[v + 1])
        if draw:  # partial Fisher-Yates: swap a random remaining one into place i
            for i in range(k):
                j = i + int(u[used] * (cap - i))
                used += 1
                pos[i], pos[j] = pos[j], pos[i]
            pos = pos[:k]
        picks.append(pos)
        counts.append(pos.size)
    return _finish(row_t, picks, counts, edges, rows)


def weighted_sample_neighbors(
    row: Any,
    colptr: Any,
    edge_weight: Any,
    input_nodes: Any,
    sample_size: int = -1,
    eids: Any = None,
    return_eids: bool = False,
    name: Optional[str] = None,
) -> tuple:
    """Paddle's ``paddle.geometric.weighted_sample_neighbors``: up to ``sample_size``
    neighbors of each input node without replacement, a neighbor's chance growing with its
    ``edge_weight`` (float32 or float64, one per edge, CSC order, not negative; a zero
    weight is picked only when fewer than ``sample_size`` others remain).

    Arguments and results as in ``sample_neighbors``."""
    op = "weighted_sample_neighbors"
    row_t, rows, ptr, nodes, k = _graph(row, colptr, input_nodes, sample_size, op)
    edges = _eids(eids, return_eids, row_t, rows.size, op)
    w_t = _checks.as_tensor(edge_weight, "edge_weight", op)
    if w_t.dtype not in (_core.float32, _core.float64):
        raise TypeError(f"{op}: edge_weight must be a float32 tensor, got {w_t.dtype}")
    w = _checks.to_numpy(w_t).reshape(-1).astype(np.float64)
    if w.size != rows.size:
        raise ValueError(
            f"{op}: edge_weight must have one entry per edge ({rows.size}), got {w.size}"
        )
    if np.isnan(w).any() or (w < 0).any():
        raise ValueError(f"{op}: edge_weight must hold non-negative numbers (no NaN)")
    caps = ptr[nodes + 1] - ptr[nodes]
    sampled = caps > k if k >= 0 else np.zeros(nodes.size, dtype=bool)
    u = _uniform(int(caps[sampled].sum()))
    picks, counts, used = [], [], 0
    for v, cap, draw in zip(nodes, caps, sampled):
        pos = np.arange(ptr[v], ptr[v + 1])
        if draw:
            with np.errstate(divide="ignore", invalid="ignore"):
                key = np.log2(u[used : used + cap]) / w[pos]
            key = np.where(np.isnan(key), -np.inf, key)  # log2(0) / 0
            used += cap
            keep = np.argsort(-key, kind="stable")[:k]
            pos = pos[keep[np.argsort(key[keep], kind="stable")]]
        picks.append(pos)
        counts.append(pos.size)
    return _finish(row_t, picks, counts, edges, rows)
