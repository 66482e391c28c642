"""``torch.segment_reduce``: reductions over consecutive segments of one axis, composed of
``scatter_reduce`` (so the gradients come from its backward and the elementwise ops).

The rules are PyTorch's (aten/src/ATen/native/SegmentReduce.cpp,
``_segment_reduce_lengths_cpu_kernel1`` and its backward):

- ``lengths`` has shape ``data.shape[:axis] + (S,)`` (``axis`` is its last dim), or
  ``offsets`` shape ``data.shape[:axis] + (S + 1,)``; the output is
  ``data.shape[:axis] + (S,) + data.shape[axis + 1:]``. With both, ``offsets`` is used.
- Each segment starts from ``initial`` when given, else from the reduction's identity
  (``-inf`` for max, ``inf`` for min, 0 for sum and mean, 1 for prod); an empty segment
  gives that start, except an empty ``mean`` without ``initial``, which is NaN. A
  ``mean`` with ``initial`` divides ``initial + sum`` by the segment's length.
- ``max``/``min`` propagate NaN; their gradient goes to the elements equal to the result
  (and to NaN elements), shared evenly among ties. (PyTorch's kernel divides only the
  positive shares at a tie, so a negative incoming gradient reaches every tied element
  whole; ferrograd shares both signs evenly, the subgradient that sums to the incoming
  one.) A segment whose result is ``initial`` alone passes no gradient.
- Every reduction is differentiable in ``data`` (float dtypes only, as PyTorch's kernel).

ferrograd refuses what PyTorch's kernel would read out of bounds: negative lengths,
lengths summing past the axis (even with ``unsafe=True``, which only lifts the check
that they sum to exactly its size), and offsets that decrease or leave ``[0, size]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._core import Tensor
from .autograd import Function
from .grad_mode import no_grad

__all__ = ["segment_reduce"]

_REDUCTIONS = {"sum": "sum", "mean": "sum", "prod": "prod", "max": "amax", "amax": "amax"}
_REDUCTIONS.update({"min": "amin", "amin": "amin"})
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _index_array(t: Any, name: str) -> np.ndarray:
    """``lengths`` / ``offsets`` as an int64 NumPy array (a tensor or a nested list)."""
    a = np.asarray(t.numpy() if isinstance(t, Tensor) else t)
    if a.dtype.kind not in "iu":
        raise TypeError(f"segment_reduce: {name} must hold integers, got dtype {a.dtype}")
    return a.astype(np.int64)


def _offsets_of(data: Tensor, axis: int, lengths: Any, offsets: Any, unsafe: bool) -> Any:
    """The ``[B, S + 1]`` segment bounds (B: the batch dims before ``axis``, flattened)."""
    n = data.shape[axis]
    batch = tuple(data.shape[:axis])
    name = "offsets" if offsets is not None else "lengths"
    a = _index_array(offsets if offsets is not None else lengths, name)
    if a.ndim - 1 != axis:
        raise ValueError(
            f"segment_reduce: expected axis to be the last dimension of {name} but got "
            f"axis {axis} with {name} of shape {list(a.shape)}"
        )
    if tuple(a.shape[:-1]) != batch:
        raise ValueError(
            f"segment_reduce: {name} of shape {list(a.shape)} does not match the batch "
            f"dims {list(batch)} of data (data.shape[:axis])"
        )
    a = a.reshape(int(np.prod(batch, dtype=np.int64)), a.shape[-1])  # [B, S] / [B, S + 1]
    if offsets is not None:
        if a.shape[-1] < 1:
            raise ValueError("segment_reduce: offsets needs at least one entry along axis")
        if (np.diff(a, axis=-1) < 0).any() or (a < 0).any() or (a > n).any():
            raise ValueError(
                f"segment_reduce: offsets must be non-decreasing within [0, {n}] "
                f"(data.shape[axis]), got {a.tolist()}"
            )
        return a
    if (a < 0).any():
        raise ValueError("segment_reduce: lengths contains negative value!")
    sums = a.sum(-1)
    if (sums > n).any() or not unsafe and (sums != n).any():
        raise ValueError(
            f"segment_reduce: expected every row of lengths to sum to data.shape[axis] = "
            f"{n}, got sums {sums.tolist()}"
            + ("" if unsafe else " (unsafe=True allows a shorter total)")
        )
    return np.concatenate([np.zeros_like(a[:, :1]), np.cumsum(a, -1)], -1)


def _segment_ids(bounds: np.ndarray, n: int) -> np.ndarray:
    """``[B, n]``: each position's segment, ``S`` for those outside every segment."""
    s = bounds.shape[-1] - 1
    pos = np.arange(n)
    ids = np.full((bounds.shape[0], n), s, dtype=np.int64)
    for b, row in enumerate(bounds):
        inside = (pos >= row[0]) & (pos < row[-1])
        ids[b, inside] = np.searchsorted(row[1:], pos[inside], side="right")
    return ids


class _Extremum(Function):
    """``max``/``min`` of the segments: the values from ``scatter_reduce`` (``full``, with
    the slot of the positions outside every segment), the gradient shared evenly among
    the elements equal to their segment's result and the NaN elements (``weight``)."""

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, full: Tensor, weight: Tensor, index: Tensor, dim: int
    ) -> Tensor:
        ctx.save_for_backward(weight, index)
        ctx.dim = dim
        return full

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Any, ...]:
        weight, index = ctx.saved_tensors
        return g.gather(ctx.dim, index) * weight, None, None, None, None


def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Any = None,
    indices: Any = None,
    offsets: Any = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: Any = None,
) -> Tensor:
    """Reduce ``data`` over consecutive segments of ``axis`` (``torch.segment_reduce``):
    ``reduce`` is ``'sum'``, ``'mean'``, ``'prod'``, ``'max'`` or ``'min'``; the segments
    are given by ``lengths`` or ``offsets`` (see the module docstring for the rules)."""
    if not isinstance(data, Tensor):
        raise TypeError(f"segment_reduce: data must be a Tensor, got {type(data).__name__}")
    if indices is not None:
        raise NotImplementedError("segment_reduce(): indices based reduction is not supported")
    if reduce not in _REDUCTIONS:
        raise ValueError(
            f"segment_reduce: reduce must be 'sum', 'prod', 'mean', 'max' or 'min', got {reduce!r}"
        )
    if str(data.dtype).replace("ferrograd.", "") not in _FLOATS:
        raise TypeError(
            f"segment_reduce: data must be a floating-point tensor, got {data.dtype}; "
            "convert it first (data.float())"
        )
    if lengths is None and offsets is None:
        raise ValueError("segment_reduce(): Either lengths or offsets must be defined.")
    nd = data.ndim
    if not -max(nd, 1) <= axis < max(nd, 1) or nd == 0:
        raise IndexError(f"segment_reduce: axis {axis} is out of range for {nd}-D data")
    axis %= nd
    bounds = _offsets_of(data, axis, lengths, offsets, unsafe)
    n, s = data.shape[axis], bounds.shape[-1] - 1
    batch, inner = list(data.shape[:axis]), list(data.shape[axis + 1 :])
    ids = _segment_ids(bounds, n).reshape(batch + [n] + [1] * len(inner))
    index = _core.tensor(np.broadcast_to(ids, tuple(data.shape)).copy())
    out_shape = batch + [s + 1] + inner
    how = _REDUCTIONS[reduce]
    init = None if initial is None else float(initial)
    dim = axis

    def scatter(src: Tensor, fill: float, mode: str) -> Tensor:
        base = _core.full(out_shape, fill, dtype=data.dtype)
        return base.scatter_reduce(dim, index, src, mode)

    def segments(t: Tensor) -> Tensor:
        return t.narrow(dim, 0, s)  # drop the slot of the positions outside every segment

    if how in ("sum", "prod"):
        start = init if init is not None else (1.0 if how == "prod" else 0.0)
        total = segments(scatter(data, start, how))
        if reduce != "mean":
            return total
        counts = np.diff(bounds, axis=-1).reshape(batch + [s] + [1] * len(inner))
        count = _core.tensor(counts.astype(np.float64)).to(data.dtype)
        empty = _core.full([1], init if init is not None else float("nan"), dtype=data.dtype)
        return _core.where(count > 0, total / count.clamp(min=1), empty)
    return segments(_extremum(data, index, scatter, dim, s, how, init))


def _extremum(
    data: Tensor, index: Tensor, scatter: Any, dim: int, s: int, how: str, init: Any
) -> Tensor:
    """``max``/``min`` over the segments (``how``: ``amax``/``amin``), ``initial``
    included in each; see :class:`_Extremum`."""
    start = init if init is not None else (-np.inf if how == "amax" else np.inf)
    with no_grad():
        x = data.detach()
        full = scatter(x, start, how)
        hit = ((x == full.gather(dim, index)) | x.isnan()) & (index < s)
        hits = hit.to(data.dtype)
        ties = scatter(hits, 0.0, "sum").gather(dim, index).clamp(min=1)
        weight = hits / ties
    return _Extremum.apply(data, full, weight, index, dim)
