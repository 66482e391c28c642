"""``histc`` (PyTorch) and ``histogram`` (Paddle): counts in equal bins, on NumPy (no
gradient). Re-exported by ``_sort_scan``, whose ``install_tensor_methods`` adds
``Tensor.histc``; ``histogram_bin_edges`` / ``histogramdd`` are in ``_histogram_more``."""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from . import _core

Tensor = _core.Tensor


# argument checks shared with _sort_scan (which imports them from here: one copy)
def _check_tensor(x: Any, op: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(x).__name__}")


def _int_k(k: Any, op: str) -> int:
    if isinstance(k, Tensor):
        k = k.item()
    if isinstance(k, builtins.bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{op}(): k must be an int, got {type(k).__name__}")
    return int(k)


def _np_values(x: Tensor) -> np.ndarray:
    """``x`` as a NumPy array (bfloat16 goes through float32)."""
    if "bfloat16" in str(x.dtype):
        return x.astype("float32").numpy()
    return x.numpy()


def _histogram_counts(
    x: Tensor, bins: Any, min: Any, max: Any, weight: Any, density: Any, op: str
) -> np.ndarray:
    _check_tensor(x, op)
    if "complex" in str(x.dtype):
        raise TypeError(f"{op}(): complex tensors have no order; pass x.real or x.abs()")
    if str(x.dtype).endswith("bool"):
        # both peers refuse bool (Paddle's kernels: float, double, int, int64; PyTorch's
        # histc: "not implemented for 'Bool'")
        raise TypeError(f"{op}(): bool tensors are not supported; cast first (x.astype('int64'))")
    bins = _int_k(bins, op)
    if bins <= 0:
        raise ValueError(f"{op}(): bins must be > 0, got {bins}")
    a = _np_values(x).astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ValueError(f"{op}(): max must be >= min, got min={lo}, max={hi}")
    finite = a[np.isfinite(a)] if a.size else a
    # equal bounds (not only both 0, as the peers' docs say) mean the data's range: what
    # PyTorch's and Paddle's code does
    if lo == hi and finite.size:
        lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    w = None
    if weight is not None:
        w = _np_values(weight).astype(np.float64).reshape(-1)
        if w.shape != a.shape:
            raise ValueError(f"{op}(): weight must have the input's shape {list(x.shape)}")
    keep = ~np.isnan(a)
    counts, _ = np.histogram(
        a[keep], bins=bins, range=(lo, hi), weights=None if w is None else w[keep]
    )
    if density:
        total = counts.sum()
        width = (hi - lo) / bins
        counts = counts / (total * width) if total else counts * 0.0
    return counts


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """PyTorch's histogram: ``bins`` equal bins over ``[min, max]`` (``min == max``, as
    both 0 by default: the data's range); elements outside are ignored. The counts have
    the input's dtype."""
    counts = _histogram_counts(input, bins, min, max, None, False, "histc")
    dtype = input.dtype if "float" in str(input.dtype) else "float32"
    return _core.tensor(counts.astype(np.float64)).astype(dtype)


def histogram(
    input: Tensor,
    bins: int = 100,
    min: float = 0,
    max: float = 0,
    weight: Optional[Tensor] = None,
    density: builtins.bool = False,
    name: Any = None,
) -> Tensor:
    """Paddle's histogram: like ``histc`` but int64 counts (float with ``weight`` or
    ``density``)."""
    counts = _histogram_counts(input, bins, min, max, weight, density, "histogram")
    if weight is None and not density:
        return _core.tensor(counts.astype(np.int64))
    return _core.tensor(counts.astype(np.float64)).astype(
        "float32" if "64" not in str(input.dtype) else "float64"
    )
