"""Calls the session-19 differential run found missing or answering differently from the
peers (docs/user-scripts.md, "Session 19 differential run"): ``Tensor.put`` / ``put_``,
``Tensor.unfold`` (sliding windows) and ``paddle.index_sample`` (``>>`` / ``<<`` on
integer tensors moved to ``_ops_shift.py``). (``argmax``/``argmin``'s ``dtype=``, ``reshape`` with 0,
Paddle's ``mean`` of an integer tensor and ``full(shape, int)`` in Paddle code are in the
Rust functions, where they cost the other calls nothing.)"""

from __future__ import annotations

from typing import Any

from . import _core

Tensor = _core.Tensor


def put(x: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``x`` with ``source`` written at the flat (row-major) positions ``index``
    (negative positions count from the end; ``accumulate`` adds instead). Gradients flow
    to ``x`` (not at overwritten positions) and to ``source``."""
    n = x.numel()
    idx = index.reshape(-1).long()
    idx = _core.where(idx < 0, idx + n, idx)
    flat = x.reshape(-1).index_put((idx,), source.reshape(-1), accumulate=accumulate)
    return flat.reshape(list(x.shape))


def put_(x: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place :func:`put`; returns ``x``."""
    x.copy_(put(x.detach() if not x.requires_grad else x, index, source, accumulate))
    return x


def unfold_windows(x: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold(dim, size, step)``: every window of ``size`` elements along ``dim``,
    ``step`` apart, as a new last dimension (``dim`` becomes the window count). A view
    of ``x`` (``as_strided`` over its storage), as PyTorch's: writes reach ``x``."""
    nd = max(x.ndim, 1)
    d = dimension + nd if dimension < 0 else dimension
    if not 0 <= d < nd:
        raise IndexError(f"unfold: dimension {dimension} out of range for a {x.ndim}-D tensor")
    if x.ndim == 0:
        x = x.reshape([1])
    length = x.shape[d]
    if size > length or step <= 0 or size < 0:
        raise RuntimeError(
            f"unfold: size {size} must be in [0, {length}] (the dimension's length) and "
            f"step {step} positive"
        )
    count = (length - size) // step + 1
    shape, stride = list(x.shape), list(x.stride())
    return x.as_strided(
        shape[:d] + [count] + shape[d + 1 :] + [size],
        stride[:d] + [stride[d] * step] + stride[d + 1 :] + [stride[d]],
        x.storage_offset(),
    )


def index_sample(x: Tensor, index: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``index_sample``: ``out[i, j] = x[i, index[i, j]]`` for a 2-D ``x`` and
    an integer ``index`` with as many rows (gradients add up at repeated picks)."""
    if x.ndim != 2 or index.ndim != 2 or index.shape[0] != x.shape[0]:
        raise ValueError(
            f"index_sample: x [N, M] and index [N, K] expected, got {list(x.shape)} and "
            f"{list(index.shape)}"
        )
    return x.take_along_axis(index.long(), 1)


def install() -> None:
    """Adds the methods to ``Tensor`` (the functions ``put`` and ``index_sample`` are
    re-exported by ``_namespace_composed``)."""
    # (the stub declares these methods on Tensor: _core.pyi)
    for name, fn in (
        ("put", _put_method),
        ("put_", _put_method_),
        ("unfold", _unfold_method),
    ):
        setattr(Tensor, name, fn)


def _put_method(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``Tensor.put``: :func:`put` on this tensor."""
    return put(self, index, source, accumulate)


def _put_method_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``Tensor.put_``: :func:`put_` on this tensor."""
    return put_(self, index, source, accumulate)


def _unfold_method(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: :func:`unfold_windows` on this tensor."""
    return unfold_windows(self, dimension, size, step)


install()  # imported once, last, by the package's __init__
