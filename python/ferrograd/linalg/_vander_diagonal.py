"""``linalg.vander`` (torch's: increasing powers, batched) and ``linalg.diagonal`` (torch's
keyword-only alias of ``diagonal`` over the last two dims; Paddle's ``linalg.diagonal`` is
its top-level ``diagonal``, over dims 0 and 1). Both are compositions of differentiable
ops."""

from __future__ import annotations

import operator
from typing import Any

from .. import _core
from .._ops_shape import diagonal as _diagonal
from ._lu import _called_as_paddle

Tensor = _core.Tensor


def vander(x: Any = None, *, N: Any = None, out: Any = None) -> Tensor:
    """``torch.linalg.vander(x, *, N=None)``: the Vandermonde matrix with columns
    ``x⁰, x¹, ..., x^(N-1)`` (increasing powers, unlike ``numpy.vander`` and the top-level
    ``vander``) for each vector of a batch ``[..., n]``: shape ``[..., n, N]``, ``N``
    defaulting to ``n``. Float and integer dtypes; differentiable (each power is the
    previous one times ``x``, as torch's cumulative product, so ``x = 0`` is fine)."""
    op = "linalg.vander"
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if x.dtype == _core.bool:
        raise TypeError(f"{op}: supports floating point and integer tensors, got {x.dtype}")
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least 1 dimension (a vector or a batch of them)")
    if N is None:
        n = x.shape[-1]
    else:
        if isinstance(N, bool) or not isinstance(N, int) and not hasattr(N, "__index__"):
            raise TypeError(f"{op}: N must be an int, got {type(N).__name__}")
        n = operator.index(N)
    if n <= 1:
        raise ValueError(f"{op}: N must be greater than 1, got {n}")
    if n > 1 << 16:
        raise ValueError(f"{op}: N={n} columns (one power each) is more than the 65536 supported")
    cols = [_core.ones_like(x), x]
    for _ in range(2, n):
        cols.append(cols[-1] * x)
    return _core.stack(cols, -1)


def diagonal(
    A: Any = None,
    *args: Any,
    offset: Any = None,
    dim1: Any = None,
    dim2: Any = None,
    x: Any = None,
    axis1: Any = None,
    axis2: Any = None,
    name: Any = None,
) -> Tensor:
    """``torch.linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1)`` or
    ``paddle.linalg.diagonal(x, offset=0, axis1=0, axis2=1)``: diagonal ``offset`` of the
    planes of the two dims, as the last dim of the result: a view of ``A``, as torch's
    (differentiable).

    The dialects differ in the default dims. Paddle's are used when an argument only
    Paddle has is given (``x=``, ``axis1=``/``axis2=``, ``name=``, ``offset`` or the axes
    positionally); torch's with ``dim1=``/``dim2=``; a bare ``diagonal(t)`` (or
    with ``offset=`` only) uses Paddle's when the calling module names ferrograd
    ``paddle`` and not ``torch``, torch's otherwise."""
    op = "linalg.diagonal"
    if len(args) > 3:
        raise TypeError(f"{op}() takes at most 4 positional arguments ({1 + len(args)} given)")
    paddle = bool(args) or x is not None or axis1 is not None or axis2 is not None
    paddle = paddle or name is not None
    torch = dim1 is not None or dim2 is not None
    if paddle and torch:
        raise TypeError(
            f"{op}: mixes torch's keywords (dim1/dim2) with Paddle's (x, axis1/axis2, name, "
            "positional offset/axes); use one dialect"
        )
    t = A if A is not None else x
    if A is not None and x is not None:
        raise TypeError(f"{op}() got the input twice, as A and as x")
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: the input must be a Tensor, got {type(t).__name__}")
    pos = list(args) + [None] * (3 - len(args))
    if pos[0] is not None and offset is not None:
        raise TypeError(f"{op}() got offset twice (positionally and as a keyword)")
    off = pos[0] if pos[0] is not None else (0 if offset is None else offset)
    if not torch and not paddle:
        paddle = _called_as_paddle()
    if paddle:
        a1 = pos[1] if pos[1] is not None else (0 if axis1 is None else axis1)
        a2 = pos[2] if pos[2] is not None else (1 if axis2 is None else axis2)
    else:
        a1 = -2 if dim1 is None else dim1
        a2 = -1 if dim2 is None else dim2
    if t.ndim < 2:
        raise ValueError(
            f"{op}: the input must have at least 2 dimensions, got shape {list(t.shape)}"
        )
    return _diagonal(t, off, a1, a2)
