"""PyTorch's memory formats: ``torch.contiguous_format``, ``channels_last``,
``channels_last_3d``, ``preserve_format`` (objects of type ``torch.memory_format``) and
the stride rules behind them.

ferrograd tensors are strided, so a memory format is only an order of the elements in
memory: ``channels_last`` of an ``[N, C, H, W]`` tensor has strides
``(H*W*C, 1, W*C, C)``. The rules follow PyTorch (``c10/core/MemoryFormat.h``:
``get_channels_last_strides_2d/3d``; ``c10/core/Contiguity.h``:
``compute_channels_last_contiguous_2d``; ``aten/src/ATen/ExpandUtils.cpp``:
``infer_dense_strides``; ``TensorImpl::compute_non_overlapping_and_dense``). Values
never depend on the format; the ``memory_format=`` keywords that use these rules are
installed by ``_memory_format_api.py``.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _core

Tensor = _core.Tensor


class memory_format:  # noqa: N801  (PyTorch's spelling: torch.memory_format)
    """The type of ``torch.contiguous_format`` / ``channels_last`` / ``channels_last_3d``
    / ``preserve_format``: how a new tensor's elements are ordered in memory."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return "torch." + self._name

    def __reduce__(self) -> str:
        # pickled by name: the module global of the same name (one object per format)
        return self._name

    def __copy__(self) -> memory_format:
        return self

    def __deepcopy__(self, memo: Any) -> memory_format:
        return self


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

#: PyTorch's ``MemoryFormat`` names (its error messages print them)
_CPP_NAMES = {
    "contiguous_format": "Contiguous",
    "channels_last": "ChannelsLast",
    "channels_last_3d": "ChannelsLast3d",
    "preserve_format": "Preserve",
}


def check_format(fmt: Any, op: str, allow_none: bool = True) -> Any:
    """``fmt`` if it is a ``torch.memory_format`` (or ``None`` where allowed), else
    PyTorch's ``TypeError``."""
    if isinstance(fmt, memory_format) or (fmt is None and allow_none):
        return fmt
    raise TypeError(
        f"{op}(): argument 'memory_format' must be torch.memory_format (torch.contiguous_format, "
        f"torch.channels_last, torch.channels_last_3d or torch.preserve_format), "
        f"not {type(fmt).__name__}"
    )


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides, a size-0 dim counted as 1 (``TensorImpl::empty_tensor_restride``)."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(shape[i + 1], 1)
    return tuple(strides)


def format_strides(shape: Sequence[int], fmt: memory_format) -> tuple[int, ...]:
    """The strides of a new ``shape`` tensor in format ``fmt`` (not ``preserve_format``);
    PyTorch's ``RuntimeError`` for a wrong rank."""
    n = len(shape)
    if fmt is channels_last or fmt is channels_last_3d:
        rank, name = (4, "channels_last") if fmt is channels_last else (5, "channels_last_3d")
        if n != rank:
            raise RuntimeError(
                f"required rank {rank} tensor to use {name} format "
                f"(got a {n}-D tensor of shape {list(shape)})"
            )
        # channels innermost, then the spatial dims from the last, the batch outermost
        s, step = [0] * n, 1
        for d in (1, *range(n - 1, 1, -1), 0):
            s[d] = step
            step *= shape[d]
        return tuple(s)
    if fmt is preserve_format:
        raise RuntimeError(
            "unsupported memory format Preserve: a new tensor has no layout to preserve; "
            "use torch.contiguous_format or torch.channels_last"
        )
    return contiguous_strides(shape)


def is_contiguous_as(shape: Sequence[int], strides: Sequence[int], fmt: memory_format) -> bool:
    """PyTorch's ``is_contiguous(memory_format=fmt)`` for channels_last(_3d): the strides
    of the dims of size other than 1, taken channels first then from the last dim
    inwards, are the running products of the sizes. False for another rank."""
    order = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}[fmt]
    if len(shape) != order[0]:
        return False
    expected = 1
    for d in order[1]:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """True when the elements fill a block of memory without gaps or overlaps, in any
    dim order (``TensorImpl::compute_non_overlapping_and_dense``; empty tensors too)."""
    if 0 in shape:
        return True
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def infer_dense_strides(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """Dense strides with the dim order of ``strides`` (PyTorch's ``infer_dense_strides``,
    TensorIterator's ordering: a 0 stride compares as ambiguous, equal strides put the
    smaller dim inside)."""
    n = len(shape)
    if n == 0:
        return ()
    if n == 1:
        return (1,)

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    perm = list(range(n - 1, -1, -1))  # innermost first
    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * n
    cur = 1
    for d in perm:
        out[d] = cur
        if shape[d] > 1:
            cur *= shape[d]
    return tuple(out)


def preserve_strides(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """``preserve_format``'s strides: the input's own when it is dense and non-overlapping,
    else dense strides in its dim order (``empty_like`` / ``clone`` / ``to``)."""
    if non_overlapping_and_dense(shape, strides):
        return tuple(strides)
    return infer_dense_strides(shape, strides)


def target_strides(t: Tensor, fmt: Any, op: str) -> tuple[int, ...]:
    """The strides a copy of ``t`` gets in format ``fmt`` (``None`` = preserve)."""
    shape = tuple(t.shape)
    if fmt is None or fmt is preserve_format:
        return preserve_strides(shape, t.stride())
    return format_strides(shape, check_format(fmt, op))


def suggest_format(shape: Sequence[int], strides: Sequence[int]) -> memory_format:
    """PyTorch's ``suggest_memory_format()``: ``channels_last(_3d)`` when the strides
    look like that format (``is_channels_last_strides_2d_s4`` / ``_3d_s5``: the sizes
    taken channels first then inwards from the last dim have non-decreasing strides, an
    ``N111``-like ambiguous case counting as contiguous), else ``contiguous_format``."""
    n = len(shape)
    if n not in (4, 5) or strides[1] == 0:
        return contiguous_format
    lowest = 0
    for d in (1, 3, 2, 0) if n == 4 else (1, 4, 3, 2, 0):
        if shape[d] == 0 or strides[d] < lowest:
            return contiguous_format
        if d == 0 and lowest == strides[1]:
            return contiguous_format
        lowest = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return channels_last if n == 4 else channels_last_3d


def memory_order(t: Tensor) -> list[int] | None:
    """The dim order (outermost first) of a non-contiguous ``t``'s memory, by
    ``preserve_format``'s rule; ``None`` when that is the row-major order. An elementwise
    op run on ``t.permute(order)`` and permuted back keeps ``t``'s layout, as PyTorch's
    TensorIterator does (dropout uses this)."""
    if t.ndim < 2 or t.is_contiguous():
        return None
    shape = tuple(t.shape)
    perm = order_for(shape, preserve_strides(shape, t.stride()))
    return None if perm == sorted(perm) else perm


def order_for(shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    """The dim order (outermost first) whose row-major strides are ``strides``, as far as
    that is possible: larger strides outside; on a tie a size-1 dim inside."""
    return sorted(range(len(shape)), key=lambda d: (-strides[d], shape[d] <= 1))


def inverse(perm: Sequence[int]) -> list[int]:
    """The permutation that undoes ``perm``."""
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def restrided(t: Tensor, strides: tuple[int, ...], clone: Any) -> Tensor:
    """A differentiable copy of ``t`` with exactly ``strides`` (dense ones): ``clone``
    (the native, row-major one) of ``t`` permuted into the order of ``strides``, permuted
    back; an empty tensor or an odd stride of a size-1 dim goes through ``copy_`` into
    ``empty_strided`` instead (slower, exact)."""
    shape = tuple(t.shape)
    if t.numel() != 0:
        perm = order_for(shape, strides)
        out = clone(t.permute(perm)).permute(inverse(perm))
        if out.stride() == strides:
            return out
    from ._torch_more_creation import empty_strided

    out = empty_strided(shape, strides, dtype=t.dtype)
    out.copy_(t)
    return out
