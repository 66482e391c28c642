"""Paddle's segment reductions: ``segment_sum`` / ``segment_mean`` / ``segment_max`` /
``segment_min`` (python/paddle/geometric/math.py; kernels in
paddle/phi/kernels/impl/segment_pool_kernel_impl.h and funcs/segment_pooling.cc).

``segment_ids`` must be sorted; the output has ``segment_ids[-1] + 1`` rows and a segment
no row belongs to is 0. The gradient of ``max`` / ``min`` goes whole to every row equal
to its segment's result (ties included), as Paddle's ``SegmentPoolGradFunctor`` does.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from . import _checks
from ._reduce import reduce_rows

Tensor = _core.Tensor

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min"]


def _segment(data: Any, segment_ids: Any, reduce: str, op: str) -> Tensor:
    data = _checks.value_tensor(data, "data", op)
    ids = _checks.index_vector(segment_ids, "segment_ids", op)
    if ids.shape[0] != data.shape[0]:
        raise ValueError(
            f"{op}: segment_ids should be the same size as dimension 0 of data, got "
            f"{ids.shape[0]} ids for {data.shape[0]} rows"
        )
    vals = _checks.to_numpy(ids)
    if vals.size == 0:
        return reduce_rows(data, ids, 0, reduce)
    if vals.min() < 0:
        raise IndexError(
            f"{op}: segment_ids holds {int(vals.min())}, out of range (segment ids must be >= 0)"
        )
    down = np.flatnonzero(np.diff(vals) < 0)
    if down.size:
        i = int(down[0])
        raise ValueError(
            f"{op}: the segment ids should be sorted, but got segment_ids[{i}] = "
            f"{int(vals[i])} > segment_ids[{i + 1}] = {int(vals[i + 1])}"
        )
    return reduce_rows(data, ids, int(vals[-1]) + 1, reduce)


def segment_sum(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Paddle's ``paddle.geometric.segment_sum``: ``out[i]`` is the sum of the rows
    ``data[j]`` with ``segment_ids[j] == i`` (0 for an empty segment).

    ``data``: float16/bfloat16/float32/float64/int32/int64, at least 1-D. ``segment_ids``:
    sorted int32/int64 of shape ``[data.shape[0]]`` (or ``[n, 1]``). The result has
    ``segment_ids[-1] + 1`` rows."""
    return _segment(data, segment_ids, "sum", "segment_sum")


def segment_mean(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Paddle's ``paddle.geometric.segment_mean``: the mean of each segment's rows (0 for
    an empty segment; integer data divides in its own type, toward zero)."""
    return _segment(data, segment_ids, "mean", "segment_mean")


def segment_max(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Paddle's ``paddle.geometric.segment_max``: the elementwise maximum of each
    segment's rows (0 for an empty segment). Its gradient goes whole to every row equal to
    the maximum (Paddle's rule for ties)."""
    return _segment(data, segment_ids, "max", "segment_max")


def segment_min(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Paddle's ``paddle.geometric.segment_min``: the elementwise minimum of each
    segment's rows (0 for an empty segment). Its gradient goes whole to every row equal to
    the minimum (Paddle's rule for ties)."""
    return _segment(data, segment_ids, "min", "segment_min")
