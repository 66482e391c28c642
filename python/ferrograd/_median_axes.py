"""Paddle's ``nanmedian`` over several axes, its axis checks and its empty input.

``paddle.nanmedian(x, axis=[0, 2])`` reduces over all elements of the named axes (values
only, also for ``mode='min'``); the axes are moved last and flattened into one, so the
single-axis kernel does the work. An axis out of range, an empty or repeated list are
Paddle's ValueErrors (the out-of-range one is also PyTorch's IndexError).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _core

Tensor = _core.Tensor


class MedianAxisError(IndexError, ValueError):
    """An axis out of range: PyTorch raises IndexError, Paddle ValueError."""


def check_dtype(x: Tensor, op: str) -> None:
    """Refuses a bool tensor (neither peer has a median of booleans)."""
    if x.dtype == _core.bool:
        raise TypeError(f"{op}(): expects a float or integer tensor, got {x.dtype}; cast it first")


def check_axis(axis: Any, ndim: int, op: str) -> None:
    """Refuses an int axis outside ``[-ndim, ndim)`` (a 0-d tensor counts as 1-d)."""
    n = max(ndim, 1)
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, builtins.bool):
        if not -n <= axis < n:
            raise MedianAxisError(
                f"{op}(): axis {axis} is out of range for a {ndim}-d tensor "
                f"(expected to be in range of [{-n}, {n - 1}])"
            )


def flatten_axes(x: Tensor, axis: Any, keepdim: bool, op: str) -> tuple[Tensor, list[int]]:
    """``x`` with the axes of the list ``axis`` moved last and flattened into one, and the
    result's shape (1 for each reduced axis with ``keepdim``, else without them)."""
    items = list(axis)
    if not items:
        raise ValueError(f"{op}(): axis must not be an empty list; pass None for all axes")
    n = max(x.ndim, 1)
    axes = []
    for a in items:
        if isinstance(a, builtins.bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{op}(): axis entries must be ints, got {a!r}")
        check_axis(a, x.ndim, op)
        axes.append(int(a) % n)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}(): axis {items} names a dimension twice")
    if x.ndim == 0:
        return x.reshape([1]), []
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = x.permute([*rest, *sorted(axes)]).reshape([*(x.shape[a] for a in rest), -1])
    shape = (
        [1 if a in axes else x.shape[a] for a in range(x.ndim)]
        if keepdim
        else [x.shape[a] for a in rest]
    )
    return moved, shape


def empty_median(x: Tensor, keepdim: bool, mode: str) -> Tensor:
    """The median of all elements of an empty float tensor: NaN (Paddle's and PyTorch's
    answer), float32 for ``mode='avg'`` unless ``x`` is float64."""
    if not x.is_floating_point():
        raise ValueError("nanmedian(): the input is empty and integer, so it has no median")
    dtype = x.dtype if mode == "min" or x.dtype == _core.float64 else _core.float32
    return _core.full([1] * x.ndim if keepdim else [], float("nan"), dtype=dtype)


__all__ = ["MedianAxisError", "check_axis", "check_dtype", "empty_median", "flatten_axes"]
