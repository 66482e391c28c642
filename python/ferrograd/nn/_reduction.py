"""PyTorch's ``torch.nn._reduction``: the mapping of the deprecated ``size_average`` /
``reduce`` loss arguments to a ``reduction`` string, and ``reduction``'s enum.

Older PyTorch code still passes ``size_average=False`` and the like; PyTorch 2.x maps
them with a ``UserWarning`` (torch/nn/_reduction.py, ``legacy_get_string``), and so does
every loss here that PyTorch gives these arguments. Code that imports the module itself
(``import torch.nn._reduction as _Reduction``) finds the same two functions.
"""

from __future__ import annotations

import warnings
from typing import Optional

_WARNING = "size_average and reduce args will be deprecated, please use reduction='{}' instead."


def get_enum(reduction: str) -> int:
    """The ATen enum of ``reduction``: ``'none'`` 0, ``'mean'`` 1, ``'sum'`` 2 (and the
    long-deprecated ``'elementwise_mean'`` 1, with a warning); anything else raises
    ``ValueError``."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=2,
        )
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(
    size_average: Optional[bool], reduce: Optional[bool], emit_warning: bool = True
) -> str:
    """The ``reduction`` that PyTorch reads from the deprecated pair: ``None`` counts as
    ``True``; ``reduce=False`` gives ``'none'`` (whatever ``size_average`` is), else
    ``size_average=False`` gives ``'sum'`` and both true ``'mean'``. Warns (a
    ``UserWarning``) with PyTorch's text unless ``emit_warning=False``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        # stacklevel 3: the warning names the user's call of the loss, not the loss
        warnings.warn(_WARNING.format(ret), UserWarning, stacklevel=3)
    return ret


def legacy_get_enum(
    size_average: Optional[bool], reduce: Optional[bool], emit_warning: bool = True
) -> int:
    """``get_enum(legacy_get_string(size_average, reduce, emit_warning))``."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))


__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]
