"""Paddle's ``F.sequence_mask`` and the ``F.diag_embed`` alias of ``diag_embed``."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core

Tensor = _core.Tensor


def sequence_mask(
    x: Any, maxlen: Any = None, dtype: Any = "int64", name: Optional[str] = None
) -> Tensor:
    """``mask[..., j] = j < x[...]`` for integer lengths ``x``: shape ``x.shape +
    [maxlen]`` (``maxlen`` defaults to ``max(x)``), of ``dtype`` (Paddle's default
    int64). Not differentiable (a mask)."""
    if not isinstance(x, Tensor):
        x = _core.tensor(np.asarray(x))
    if x.dtype == _core.bool or x.dtype.is_floating_point or x.dtype.is_complex:
        raise TypeError(f"sequence_mask: x must hold integer lengths, got {x.dtype}")
    lengths = x.numpy()
    if isinstance(maxlen, Tensor):
        maxlen = int(maxlen.item())
    if maxlen is None:
        maxlen = int(lengths.max()) if lengths.size else 0
    if not isinstance(maxlen, (int, np.integer)) or isinstance(maxlen, bool) or maxlen < 0:
        raise ValueError(f"sequence_mask: maxlen must be a non-negative int, got {maxlen!r}")
    mask = np.arange(int(maxlen)) < lengths[..., None]
    return _core.tensor(mask).astype(dtype)


def diag_embed(
    input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1, name: Optional[str] = None
) -> Tensor:
    """Paddle's ``F.diag_embed``: ``paddle.diag_embed`` (the last dimension of ``input``
    placed on the ``offset`` diagonal of the ``dim1`` / ``dim2`` planes)."""
    from .. import diag_embed as _diag_embed

    return _diag_embed(input, offset, dim1, dim2)


__all__ = ["sequence_mask", "diag_embed"]
