"""The vector helpers of ``nn.functional``: ``normalize``, ``cosine_similarity`` and
``pairwise_distance`` (split from _ops_math.py, which re-exports them). Compositions of
differentiable core ops, with finite gradients at the zero vector (see each function)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Optional

import numpy as np

from . import _core
from .grad_mode import no_grad

Tensor = _core.Tensor


def _dim_arg(op: str, dim: Any, axis: Any, default: int) -> int:
    if axis is not None:
        if dim is not None and dim != axis:
            raise TypeError(f"{op}: got both dim={dim} and axis={axis}; pass one")
        dim = axis
    return default if dim is None else dim


def _vector_norm(x: Tensor, p: float, dim: int, keepdim: builtins.bool) -> Tensor:
    """The ``p``-norm over ``dim`` with a gradient of 0 (not NaN) at the zero vector, as
    torch's norm backward defines it."""
    if p == math.inf:
        return x.abs().amax(dim, keepdim)
    if p == -math.inf:
        return x.abs().amin(dim, keepdim)
    if p == 0:
        return (x != 0).astype(x.abs().dtype).sum(dim=dim, keepdim=keepdim)
    if p == 1:
        return x.abs().sum(dim=dim, keepdim=keepdim)
    a = x.abs() if x.dtype.is_complex else x
    s = (
        a.square().sum(dim=dim, keepdim=keepdim)
        if p == 2
        else a.abs().pow(p).sum(dim=dim, keepdim=keepdim)
    )
    with no_grad():
        pos = s != 0  # (a NaN sum stays NaN: `s > 0` would turn it into a 0 norm)
    safe = _core.where(pos, s, 1.0)
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return _core.where(pos, root, 0.0)


def _check_p(op: str, p: Any) -> float:
    if isinstance(p, builtins.bool) or not isinstance(p, (int, float)) or math.isnan(p):
        raise ValueError(f"{op}: p must be a number, got {p!r}")
    return builtins.float(p)


def normalize(
    x: Tensor,
    p: float = 2.0,
    dim: Any = None,
    eps: float = 1e-12,
    out: Any = None,
    *,
    axis: Any = None,
    epsilon: Optional[float] = None,
    name: Any = None,
    input: Any = None,
) -> Tensor:
    """``x / max(||x||_p, eps)`` over ``dim`` (default 1; Paddle's ``axis`` /
    ``epsilon`` too). Zero vectors stay zero, with a zero (not NaN) gradient."""
    if input is not None:
        x = input
    if out is not None:
        raise TypeError("normalize: out= is not supported; assign the result instead")
    if not isinstance(x, Tensor):
        raise TypeError(f"normalize: expects a Tensor, got {type(x).__name__}")
    pv = _check_p("normalize", p)
    d = _dim_arg("normalize", dim, axis, 1)
    e = eps if epsilon is None else epsilon
    n = _vector_norm(x, pv, d, True)
    return x / n.clip(min=e)


def _broadcast(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    shape = list(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    if list(a.shape) != shape:
        a = a.broadcast_to(shape)
    if list(b.shape) != shape:
        b = b.broadcast_to(shape)
    return a, b


def cosine_similarity(
    x1: Tensor,
    x2: Tensor,
    dim: Any = None,
    eps: float = 1e-8,
    *,
    axis: Any = None,
    name: Any = None,
) -> Tensor:
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (default 1;
    Paddle's ``axis``), after broadcasting: ``sum(x1/max(||x1||, eps) *
    x2/max(||x2||, eps))`` as torch computes it (Paddle clamps the product of the norms
    instead; the two differ only for vectors with norm below ``eps``)."""
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError("cosine_similarity: expects two Tensors")
    d = _dim_arg("cosine_similarity", dim, axis, 1)
    a, b = _broadcast(x1, x2)
    return (normalize(a, 2.0, d, eps) * normalize(b, 2.0, d, eps)).sum(dim=d)


def pairwise_distance(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    eps: float = 1e-6,
    keepdim: builtins.bool = False,
    *,
    epsilon: Optional[float] = None,
    name: Any = None,
) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim (both dialects' formula; Paddle's
    ``epsilon``)."""
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError("pairwise_distance: expects two Tensors")
    pv = _check_p("pairwise_distance", p)
    e = eps if epsilon is None else epsilon
    diff = x1 - x2 + e
    if diff.ndim == 0:
        # PyTorch's at::norm over dim -1 of a 0-d tensor: |diff| (keepdim keeps it 0-d)
        return _vector_norm(diff.reshape([1]), pv, -1, False).reshape([])
    return _vector_norm(diff, pv, -1, keepdim)
