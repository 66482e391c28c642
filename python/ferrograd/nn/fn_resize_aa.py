"""``interpolate(..., antialias=True)`` (PyTorch, ``bilinear`` / ``bicubic``): each
output pixel averages the input pixels under a filter stretched by the downscale factor,
so a shrink does not alias (Pillow's resampling). Built as one ``[out, in]`` weight matrix
per spatial dimension and a matmul, so gradients flow through autograd.

Per dimension, with ``scale = in / out`` (``(in - 1) / (out - 1)`` with
``align_corners``; ``1 / scale_factor`` when given), ``support = r * max(scale, 1)``
(``r`` = 1 for bilinear, 2 for bicubic) and ``centre = scale * (i + 0.5)``, output ``i``
takes inputs ``j`` in ``[int(centre - support + 0.5), int(centre + support + 0.5))``
(clipped to the image) with weights ``filter((j - centre + 0.5) / max(scale, 1))``,
normalised to sum 1: the triangle ``1 - |x|`` or Keys' cubic with ``a = -0.5``.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .. import _core

Tensor = _core.Tensor


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _cubic(x: float, a: float = -0.5) -> float:
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    if x < 2.0:
        return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return 0.0


def aa_weights(
    n_in: int, n_out: int, scale_factor: Optional[float], mode: str, align_corners: bool
) -> np.ndarray:
    """The ``[n_out, n_in]`` float64 resampling matrix of one dimension."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    elif scale_factor is not None and scale_factor > 0:
        scale = 1.0 / scale_factor
    else:
        scale = n_in / n_out
    radius, fn = (1.0, _triangle) if mode == "bilinear" else (2.0, _cubic)
    stretch = scale if scale >= 1.0 else 1.0
    support = radius * stretch
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        centre = scale * (i + 0.5)
        lo = max(int(centre - support + 0.5), 0)  # int(): toward zero, as the peer
        hi = min(int(centre + support + 0.5), n_in)
        row = [fn((j - centre + 0.5) / stretch) for j in range(lo, hi)]
        total = math.fsum(row)
        if total != 0.0:
            w[i, lo:hi] = np.asarray(row) / total
    return w


def resize_aa(
    x: Tensor,
    dims: list[int],
    sizes: list[int],
    scales: list[Optional[float]],
    mode: str,
    align_corners: bool,
) -> Tensor:
    """``x`` resized along the two spatial ``dims`` of a 4-D input with antialiasing."""
    if mode not in ("bilinear", "bicubic") or x.ndim != 4:
        raise ValueError(
            f"interpolate: antialias=True needs mode 'bilinear' or 'bicubic' and a 4-D input "
            f"(PyTorch also has 'lanczos', which ferrograd lacks), got mode {mode!r} and a "
            f"{x.ndim}-D input"
        )
    out = x
    for d, n, s in zip(dims, sizes, scales):
        w = aa_weights(out.shape[d], n, s, mode, align_corners)
        wt = _core.tensor(w, dtype=x.dtype)
        # contract dim d with the weights, keeping the other dims in place
        moved = out.movedim(d, -1)
        out = (moved @ wt.t()).movedim(-1, d)
    return out
