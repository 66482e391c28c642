"""``fft.fftfreq`` / ``fft.rfftfreq``: the sample frequencies of an FFT (both peers'
spellings; ``fft.py`` re-exports them)."""

from __future__ import annotations

from typing import Any

from . import _core
from ._dialect import caller_dialect
from .fft import _size

Tensor = _core.Tensor

__all__ = ["fftfreq", "rfftfreq"]


def fftfreq(
    n: Any,
    d: Any = 1.0,
    dtype: Any = None,
    name: Any = None,
    *,
    out: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of an ``n``-point FFT with sample spacing ``d``:
    ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)``."""
    n = _freq_points("fftfreq", n, d)
    pos = _core.arange(0, (n - 1) // 2 + 1, dtype=_core.float64)
    neg = _core.arange(-(n // 2), 0, dtype=_core.float64)
    return _freq(_core.concat([pos, neg], 0) / (float(d) * n), dtype, requires_grad)


def rfftfreq(
    n: Any,
    d: Any = 1.0,
    dtype: Any = None,
    name: Any = None,
    *,
    out: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of :func:`rfft` of ``n`` points: ``[0, ..., n//2] / (d * n)``."""
    n = _freq_points("rfftfreq", n, d)
    f = _core.arange(0, n // 2 + 1, dtype=_core.float64) / (float(d) * n)
    return _freq(f, dtype, requires_grad)


def _freq_points(fname: str, n: Any, d: Any) -> int:
    """``n`` of fftfreq / rfftfreq: 0 is PyTorch's ``arange(0)`` / ``arange(1) / 0.``
    (empty / ``[nan]``; SpectralOps.cpp ``fft_fftfreq_out``), but Paddle's ValueError
    for ``d * n == 0`` in Paddle code (python/paddle/fft.py ``fftfreq``)."""
    zero = not isinstance(n, bool) and isinstance(n, int) and n == 0
    if (zero or float(d) == 0) and caller_dialect(3) == "paddle":
        raise ValueError(f"{fname}: d or n should not be 0.")
    return 0 if zero else _size(fname, n)


def _freq(f: Tensor, dtype: Any, requires_grad: bool) -> Tensor:
    from ._dtype_info import _dtype

    dt = _dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"fftfreq/rfftfreq requires a floating point or complex dtype, got {dt}")
    f = f.astype(dt)
    if requires_grad:
        f.stop_gradient = False
    return f
