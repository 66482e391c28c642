"""Paddle's ``F.sequence_mask``, ``F.one_hot`` and the ``F.diag_embed`` alias of
``diag_embed``."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from .._dialect import caller_dialect

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


def one_hot(x: Tensor, num_classes: int = -1, name: Optional[str] = None) -> Tensor:
    """One-hot encoding of the integer tensor ``x``: shape ``x.shape + [num_classes]``.
    The result is float32 as in Paddle, or int64 as in PyTorch in PyTorch code (``import
    ferrograd as torch``; docs/dialects.md); ``num_classes=-1`` means ``x.max() + 1``.
    Not differentiable (indices have no gradient)."""
    ids = x.numpy() if isinstance(x, Tensor) else np.asarray(x)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"one_hot: x must hold integers, got dtype {ids.dtype}")
    if num_classes == -1:
        num_classes = int(ids.max()) + 1 if ids.size else 0
    if not isinstance(num_classes, int) or num_classes < 0:
        raise ValueError(f"one_hot: num_classes must be a non-negative int, got {num_classes!r}")
    if ids.size and (ids.min() < 0 or ids.max() >= num_classes):
        raise ValueError(
            f"one_hot: class values must lie in [0, {num_classes}), got values in "
            f"[{ids.min()}, {ids.max()}]"
        )
    torch = caller_dialect(2) == "torch"
    out = np.zeros(ids.shape + (num_classes,), dtype=np.int64 if torch else np.float32)
    np.put_along_axis(out, ids[..., None].astype(np.int64), 1, axis=-1)
    return _core.tensor(out)


__all__ = ["sequence_mask", "diag_embed", "one_hot"]
