"""Functional names both peers' code calls (session 22): PyTorch's
``max_pool{1,2,3}d_with_indices`` and ``adaptive_max_pool{1,2,3}d_with_indices`` (the
``return_indices=True`` forms under their own names: they always return ``(output,
indices)``), PyTorch's ``fractional_max_pool2d/3d`` (from ``fractional_pool.py``); Paddle's
``maxout``, ``log_loss``, ``zeropad2d`` and ``swiglu``. All are
composites of existing ops (differentiable through them)."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from .. import _core
from . import fn_pool
from .fractional_pool import fractional_max_pool2d as fractional_max_pool2d
from .fractional_pool import (
    fractional_max_pool2d_with_indices as fractional_max_pool2d_with_indices,
)
from .fractional_pool import fractional_max_pool3d as fractional_max_pool3d
from .fractional_pool import (
    fractional_max_pool3d_with_indices as fractional_max_pool3d_with_indices,
)

Tensor = _core.Tensor


def _with_indices(nd: int) -> Any:
    pool = getattr(fn_pool, f"max_pool{nd}d")

    def max_pool_with_indices(
        input: Tensor,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        return_indices: bool = False,
    ) -> tuple:
        return pool(input, kernel_size, stride, padding, dilation, ceil_mode, True)

    max_pool_with_indices.__name__ = max_pool_with_indices.__qualname__ = (
        f"max_pool{nd}d_with_indices"
    )
    max_pool_with_indices.__doc__ = (
        f"``max_pool{nd}d(..., return_indices=True)``: ``(output, indices)`` (the "
        f"``return_indices`` argument is ignored, as in PyTorch)."
    )
    return max_pool_with_indices


def _adaptive_with_indices(nd: int) -> Any:
    pool = getattr(fn_pool, f"adaptive_max_pool{nd}d")

    def adaptive_max_pool_with_indices(
        input: Tensor, output_size: Any, return_indices: bool = False
    ) -> tuple:
        return pool(input, output_size, True)

    adaptive_max_pool_with_indices.__name__ = f"adaptive_max_pool{nd}d_with_indices"
    adaptive_max_pool_with_indices.__qualname__ = adaptive_max_pool_with_indices.__name__
    adaptive_max_pool_with_indices.__doc__ = (
        f"``adaptive_max_pool{nd}d(..., return_indices=True)``: ``(output, indices)``."
    )
    return adaptive_max_pool_with_indices


max_pool1d_with_indices = _with_indices(1)
max_pool2d_with_indices = _with_indices(2)
max_pool3d_with_indices = _with_indices(3)
adaptive_max_pool1d_with_indices = _adaptive_with_indices(1)
adaptive_max_pool2d_with_indices = _adaptive_with_indices(2)
adaptive_max_pool3d_with_indices = _adaptive_with_indices(3)


def maxout(x: Tensor, groups: int, axis: int = 1, name: Optional[str] = None) -> Tensor:
    """Paddle's ``maxout``: the ``C`` channels on ``axis`` (1 or -1 / 3 of a 4-D input)
    split into ``C / groups`` runs of ``groups`` consecutive channels; each output channel
    is the maximum of its run."""
    if not isinstance(x, Tensor) or x.ndim != 4:
        raise ValueError(f"maxout: expects a 4-D Tensor, got {getattr(x, 'shape', x)!r}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"maxout: groups must be a positive int, got {groups!r}")
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    ax = axis % 4
    c = int(x.shape[ax])
    if c % groups:
        raise ValueError(
            f"maxout: the number of channels ({c}) must be divisible by groups ({groups})"
        )
    shape = [int(s) for s in x.shape]
    split = shape[:ax] + [c // groups, groups] + shape[ax + 1 :]
    return x.reshape(split).amax(ax + 1)


def log_loss(
    input: Tensor, label: Tensor, epsilon: float = 1e-4, name: Optional[str] = None
) -> Tensor:
    """Paddle's ``log_loss``: ``-label * log(input + eps) - (1 - label) * log(1 - input +
    eps)`` elementwise (no reduction)."""
    if not isinstance(input, Tensor) or not isinstance(label, Tensor):
        raise TypeError("log_loss: input and label must be Tensors")
    return -label * (input + epsilon).log() - (1.0 - label) * (1.0 - input + epsilon).log()


def zeropad2d(
    x: Tensor, padding: Any, data_format: str = "NCHW", name: Optional[str] = None
) -> Tensor:
    """Paddle's ``zeropad2d`` (deprecated since Paddle 3.0; as there, a visible warning — a
    ``UserWarning``, Paddle's ``VisibleDeprecationWarning`` is one — that names
    ``nn.ZeroPad2D``): zeros around a 4-D input, ``padding`` an int or ``[left, right, top,
    bottom]``."""
    from .layers_pad import ZeroPad2D

    warnings.warn(
        'API "paddle.nn.functional.zeropad2d" is deprecated since 3.0.0; use '
        '"paddle.nn.ZeroPad2D" instead',
        UserWarning,
        stacklevel=2,
    )
    return ZeroPad2D(padding, data_format)(x)


def swiglu(x: Tensor, y: Optional[Tensor] = None, name: Optional[str] = None) -> Tensor:
    """Paddle's ``swiglu``: ``silu(x) * y``; with ``y`` None, ``x`` is split in two halves
    along its last dimension (``silu(first) * second``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"swiglu: x must be a Tensor, got {type(x).__name__}")
    if y is None:
        n = int(x.shape[-1]) if x.ndim else 0
        if n % 2:
            raise ValueError(f"swiglu: the last dimension of x ({n}) must be even")
        x, y = x[..., : n // 2], x[..., n // 2 :]
    if list(x.shape) != list(y.shape):
        raise ValueError(f"swiglu: x and y shapes differ: {list(x.shape)} vs {list(y.shape)}")
    return x * x.sigmoid() * y


__all__ = [
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "maxout", "log_loss", "zeropad2d", "swiglu",
    "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices",
]  # fmt: skip
