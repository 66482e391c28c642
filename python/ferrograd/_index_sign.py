"""Negative indices in the index-taking ops, by the calling code's dialect.

PyTorch refuses an index below 0 in ``gather`` / ``scatter`` / ``scatter_add`` /
``scatter_reduce`` / ``take_along_dim`` (aten/src/ATen/native/cpu/ScatterGatherKernel.cpp,
``cpu_scatter_gather_base_kernel``), ``index_select`` / ``index_add``
(TensorAdvancedIndexing.cpp: "index out of range in self") and ``index_copy``
(cpu/IndexKernel.cpp ``index_copy_kernel``). Paddle 3.x counts ``[-size, 0)`` from the
end in all its index ops (gather, index_select, index_add, scatter, take_along_axis,
put_along_axis), as ferrograd's kernels do. So PyTorch code (``import ferrograd as
torch``) gets PyTorch's IndexError from these ops' PyTorch spellings; Paddle code and code
of no dialect keep counting from the end (docs/dialects.md).

The dialect is that of the first frame above the op that is not one of the op's own
wrappers (registered with :func:`see_through`: an in-place variant calling the
out-of-place function, ``take_along_dim`` calling ``gather``, ...). ferrograd's own
modules have no dialect, so library code that calls these ops is never refused.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, TypeVar

from . import _core
from ._dialect import caller_dialect

F = TypeVar("F", bound=Callable[..., Any])

#: code objects of the frames the rule looks through (the ops' own functions and
#: wrappers), with the op name an error shows for a call entering there: None keeps the
#: name found so far, ``LOCAL_NAME`` reads the frame's local variable ``name`` (the
#: in-place wrappers of ``_ops_index_put``)
_SEE_THROUGH: dict[Any, Optional[str]] = {}
LOCAL_NAME = "<local name>"


def see_through(fn: F, op: Optional[str] = "") -> F:
    """Registers ``fn``'s frames as part of an index op, looked through to find the
    calling code; ``op`` is the op name shown for a call entering through ``fn``
    (default: ``fn``'s name; None: the name found below it; ``LOCAL_NAME``: the frame's
    local ``name``). Returns ``fn``."""
    _SEE_THROUGH[fn.__code__] = fn.__name__ if op == "" else op
    return fn


def _torch_caller(op: str) -> Optional[str]:
    """The op name to show when the code that called the op (above the frames registered
    with :func:`see_through`) is PyTorch code; None otherwise (only called by
    :func:`refuse_negative`, whose caller is the op)."""
    depth = 2  # 0: here, 1: refuse_negative, 2: the op's function that checks
    frame = sys._getframe(depth)
    while frame.f_code in _SEE_THROUGH and frame.f_back is not None:
        shown = _SEE_THROUGH[frame.f_code]
        if shown == LOCAL_NAME:
            shown = frame.f_locals.get("name")
        op = op if shown is None else str(shown)
        frame = frame.f_back
        depth += 1
    # caller_dialect's depth counts from its own frame, one below this function's
    return op if caller_dialect(depth + 1) == "torch" else None


def refuse_negative(index: Any, size: int, dim: int, op: str) -> None:
    """In PyTorch code, an IndexError naming ``op`` when ``index`` (a Tensor; anything
    else is left to the op) has a value below 0; ``size`` and ``dim``: the indexed
    dimension's, for the message. Elsewhere nothing: the op counts it from the end."""
    if not isinstance(index, _core.Tensor) or index.numel() == 0:
        return
    shown = _torch_caller(op)
    if shown is None:
        return
    lo = int(index.min())
    if lo < 0:
        raise IndexError(
            f"{shown}: index {lo} is out of bounds for dimension {dim} with size {size}: "
            f"PyTorch's {shown} takes indices in [0, {size}) (negative ones are not counted "
            "from the end; add the size first)"
        )
