"""Paddle's ``histogram_bin_edges`` and PyTorch's ``histogramdd`` (the 1-D histograms
``histc`` / ``histogram`` are in ``_sort_scan``). Both count in float64 through NumPy."""

from __future__ import annotations

import builtins
import operator
from typing import Any, NamedTuple

import numpy as np

from . import _core

Tensor = _core.Tensor


def _np64(x: Tensor) -> np.ndarray:
    return x.detach().astype(_core.float64).numpy()


def histogram_bin_edges(
    input: Tensor, bins: int = 100, min: float = 0.0, max: float = 0.0, name: Any = None
) -> Tensor:
    """Paddle's ``histogram_bin_edges``: the ``bins + 1`` edges ``histogram`` uses, as
    float32. ``min == max == 0`` (the default) takes the data's range; equal bounds are
    widened by 0.5 each side; ``max < min`` is a ``ValueError`` (Paddle's
    python/paddle/tensor/linalg.py, ``histogram_bin_edges``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histogram_bin_edges(): expected a Tensor, got {type(input).__name__}")
    if input.is_complex() or input.dtype == _core.bool:
        raise TypeError(f"histogram_bin_edges(): input must be a real tensor, got {input.dtype}")
    if isinstance(bins, builtins.bool) or not isinstance(bins, int):
        raise TypeError(f"histogram_bin_edges(): bins must be an int, got {bins!r}")
    if bins <= 0:
        raise ValueError(f"histogram_bin_edges(): bins must be > 0, got {bins}")
    lo, hi = float(min), float(max)
    if lo == 0.0 and hi == 0.0:
        a = _np64(input).reshape(-1)
        if a.size:
            lo, hi = float(a.min()), float(a.max())
    elif hi < lo:
        raise ValueError("histogram_bin_edges(): max must be larger than min")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _core.tensor(np.linspace(lo, hi, bins + 1)).astype(_core.float32)


class HistogramddResult(NamedTuple):
    """``(hist, bin_edges)`` of ``histogramdd`` (PyTorch's ``torch.return_types.histogramdd``)."""

    hist: Tensor
    bin_edges: tuple


def _dim_bins(bins: Any, d: int) -> list:
    """Per dimension: an int count or a float64 edge array."""
    if isinstance(bins, builtins.bool):
        raise TypeError(f"histogramdd(): bins must be an int or a sequence, got {bins!r}")
    if isinstance(bins, int):
        return [bins] * d
    items = list(bins)
    if len(items) != d:
        raise ValueError(
            f"histogramdd(): bins must give one entry per dimension ({d}), got {len(items)}"
        )
    out: list = []
    for b in items:
        if isinstance(b, Tensor):
            edges = _np64(b)
            # (NaN edges compare false either way: refused rather than binned at random)
            if edges.ndim != 1 or edges.size < 1 or not np.all(np.diff(edges) >= 0):
                raise ValueError(
                    "histogramdd(): bin edges must be non-empty increasing 1-D tensors"
                )
            out.append(edges)
        else:
            out.append(operator.index(b))
    return out


def histogramdd(
    input: Any = None,
    bins: Any = 10,
    range: Any = None,  # noqa: A002  (PyTorch's name)
    weight: Any = None,
    density: builtins.bool = False,
    *,
    x: Any = None,
    ranges: Any = None,
    weights: Any = None,
    name: Any = None,
) -> HistogramddResult:
    """PyTorch's ``histogramdd``: the ``D``-dimensional histogram of the points in the last
    dimension of ``input`` (a floating tensor of shape ``(..., D)``). ``bins``: an int
    for every dimension, one int per dimension, or one increasing 1-D tensor of edges per
    dimension; ``range``: ``[lo_0, hi_0, lo_1, hi_1, ...]`` (default: the data's range,
    widened by 0.5 each side when empty); ``weight``: one weight per point. Each last bin
    includes its right edge. Returns ``(hist, bin_edges)`` in ``input``'s dtype. Paddle's
    keywords ``x``, ``ranges`` and ``weights`` name the same arguments."""
    # Paddle's spellings (tensor/linalg.py histogramdd(x, bins, ranges, density, weights))
    for ours, theirs, label in ((input, x, "input/x"), (range, ranges, "range/ranges")):
        if ours is not None and theirs is not None:
            raise TypeError(f"histogramdd() got {label} twice")
    if weight is not None and weights is not None:
        raise TypeError("histogramdd() got weight/weights twice")
    input = input if x is None else x
    range = range if ranges is None else ranges  # noqa: A001
    weight = weight if weights is None else weights
    if not isinstance(input, Tensor):
        raise TypeError(f"histogramdd(): expected a Tensor, got {type(input).__name__}")
    if not input.is_floating_point() or input.is_complex():
        raise TypeError(f"histogramdd(): input must be a real floating tensor, got {input.dtype}")
    if input.ndim < 2:
        raise ValueError(
            f"histogramdd(): input must have at least 2 dimensions (..., D), got shape "
            f"{list(input.shape)}"
        )
    d = int(input.shape[-1])
    pts = _np64(input).reshape(-1, d)
    per_dim = _dim_bins(bins, d)
    for b in per_dim:
        if isinstance(b, int) and b <= 0:
            raise ValueError(f"histogramdd(): bin counts must be > 0, got {b}")
    ranges = None  # (now the (lo, hi) pairs for NumPy)
    if range is not None:
        flat = [float(v) for v in range]
        if len(flat) != 2 * d:
            raise ValueError(
                f"histogramdd(): range must hold 2 * D = {2 * d} numbers, got {len(flat)}"
            )
        ranges = [(flat[2 * i], flat[2 * i + 1]) for i in builtins.range(d)]
        for lo, hi in ranges:
            if not lo <= hi:
                raise ValueError(f"histogramdd(): range needs min <= max, got ({lo}, {hi})")
    w = None
    if weight is not None:
        if not isinstance(weight, Tensor) or list(weight.shape) != list(input.shape[:-1]):
            raise ValueError(
                f"histogramdd(): weight must be a tensor of shape {list(input.shape[:-1])}"
            )
        if weight.dtype != input.dtype:
            # PyTorch's histogramdd_check_inputs (aten/src/ATen/native/Histogram.cpp); a
            # complex weight would otherwise lose its imaginary part
            raise TypeError(
                "histogramdd(): input tensor and weight tensor should have the same dtype, "
                f"but got input({input.dtype}) and weight({weight.dtype})"
            )
        w = _np64(weight).reshape(-1)
    # (NumPy widens an empty range by 0.5 each side, as PyTorch's select_outer_bin_edges)
    hist, edges = np.histogramdd(pts, bins=per_dim, range=ranges, weights=w, density=density)
    dtype = input.dtype
    return HistogramddResult(
        _core.tensor(hist).astype(dtype),
        tuple(_core.tensor(np.asarray(e, dtype=np.float64)).astype(dtype) for e in edges),
    )


__all__ = ["histogram_bin_edges", "histogramdd"]
