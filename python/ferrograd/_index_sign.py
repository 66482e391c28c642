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

The refusal itself happens in the Rust kernels, in their own pass over the index (no
extra op): :func:`refusal` decides once per call, and the op passes its answer to the
raw core methods as ``refuse`` (``_scatter_add`` / ``_scatter_set`` /
``_scatter_reduce_raw`` / ``gather``; ``index_select``'s binding decides for itself).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, TypeVar

from ._dialect import frame_dialect

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


def refusal(op: str) -> Optional[str]:
    """For the op's function ``op`` calling it: the op name PyTorch's IndexError shows
    when the code that called the op (above the frames registered with
    :func:`see_through`) is PyTorch code, to pass as the raw methods' ``refuse``; None
    (indices below 0 count from the end) otherwise."""
    frame = sys._getframe(1)  # the op's function
    see = _SEE_THROUGH
    while frame.f_code in see and frame.f_back is not None:
        shown = see[frame.f_code]
        if shown is LOCAL_NAME:
            shown = frame.f_locals.get("name")
        if shown is not None:
            op = str(shown)
        frame = frame.f_back
    return op if frame_dialect(frame) == "torch" else None
