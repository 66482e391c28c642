"""Power-average pooling and local response normalisation of ``nn.functional``:
``lp_pool1d/2d/3d`` and ``local_response_norm``, in both dialects, composed from
``avg_pool`` / ``max_pool`` and elementwise ops (gradients of every order).

- ``lp_poolNd(x, p, kernel_size, stride)``: ``(sum over the window of x^p)^(1/p)``,
  PyTorch's formula (``avg_pool(x^p) * window size``, then ``^(1/p)``; negative sums
  with a fractional ``1/p`` give NaN as there; ``p = inf`` is the max of ``|x|``).
  PyTorch's fourth argument is ``ceil_mode``, Paddle's ``padding`` (zeros) then
  ``ceil_mode`` and ``data_format``: a bool fourth argument is read as ``ceil_mode``.
- ``local_response_norm(x, size, alpha, beta, k)``: ``x / (k + alpha/size *
  sum of x^2 over size neighbouring channels)^beta``, the window zero-padded by
  ``size // 2`` before and ``(size - 1) // 2`` after (both peers' rule); Paddle's
  channels-last ``data_format`` too.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from .. import _core
from . import _window as W
from . import fn_pool as P

Tensor = _core.Tensor

_AVG = {1: P.avg_pool1d, 2: P.avg_pool2d, 3: P.avg_pool3d}
_MAX = {1: P.max_pool1d, 2: P.max_pool2d, 3: P.max_pool3d}


def _lp_pool(
    nd: int,
    x: Any,
    norm_type: Any,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    ceil_mode: Any,
    data_format: Optional[str],
) -> Tensor:
    what = f"lp_pool{nd}d"
    if isinstance(padding, bool):  # PyTorch's fourth argument
        padding, ceil_mode = 0, padding
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a Tensor, got {type(x).__name__}")
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type == 0:
        raise ValueError(f"{what}: norm_type must be a non-zero number, got {norm_type!r}")
    k = W.ints(kernel_size, nd, "kernel_size", what)
    fmt = data_format if data_format is not None else W.LAYOUTS[nd][0]
    kw: dict[str, Any] = {"data_format": fmt}
    if math.isinf(norm_type):
        pooled = _MAX[nd](x.abs(), k, stride, padding, ceil_mode=bool(ceil_mode), **kw)
        return pooled if norm_type > 0 else -_MAX[nd](-x.abs(), k, stride, padding, **kw)
    p = float(norm_type)
    out = _AVG[nd](x.pow(p), k, stride, padding, bool(ceil_mode), True, **kw)
    return (out * float(math.prod(k))).pow(1.0 / p)


def lp_pool1d(
    x: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
) -> Tensor:
    """Power-average pooling over ``[N, C, L]`` (see the module docs)."""
    return _lp_pool(1, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def lp_pool2d(
    x: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
) -> Tensor:
    """Power-average pooling over ``[N, C, H, W]`` (see the module docs)."""
    return _lp_pool(2, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def lp_pool3d(
    x: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
) -> Tensor:
    """Power-average pooling over ``[N, C, D, H, W]`` (see the module docs)."""
    return _lp_pool(3, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


_LAST = ("NLC", "NHWC", "NDHWC")
_FIRST = ("NCL", "NCHW", "NCDHW")


def local_response_norm(
    x: Optional[Tensor] = None,
    size: Any = None,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """Local response normalisation across channels (see the module docs) of an
    ``[N, C, *]`` input (at least 3-D; Paddle's ``data_format`` may put C last)."""
    what = "local_response_norm"
    x = input if input is not None else x
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a Tensor, got {type(x).__name__}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"{what}: size must be a positive int, got {size!r}")
    if x.ndim < 3:
        raise ValueError(
            f"{what}: expects an [N, C, *] input of 3 or more dims, got {list(x.shape)}"
        )
    if data_format is not None and data_format not in _LAST + _FIRST:
        raise ValueError(
            f"{what}: data_format must be one of {_FIRST + _LAST}, got {data_format!r}"
        )
    c_dim = x.ndim - 1 if data_format in _LAST else 1
    c = x.shape[c_dim]
    sq = x * x
    before, after = size // 2, (size - 1) // 2
    zeros = [list(x.shape), list(x.shape)]
    zeros[0][c_dim], zeros[1][c_dim] = before, after
    padded = _core.concat(
        [_core.zeros(zeros[0], dtype=x.dtype), sq, _core.zeros(zeros[1], dtype=x.dtype)], c_dim
    )
    window = padded.narrow(c_dim, 0, c)
    for i in range(1, size):
        window = window + padded.narrow(c_dim, i, c)
    div = (window * (float(alpha) / size) + float(k)).pow(float(beta))
    return x / div


__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d", "local_response_norm"]
