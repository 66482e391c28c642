"""PyTorch's spellings of a few creation and complex functions that its docstring
examples call (session 41): ``linspace(start, end, steps=...)``, the deprecated
``range`` (end included) and ``conj_physical``."""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any

from . import _core
from ._core import Tensor

__all__ = ["linspace", "range", "conj_physical"]

_builtin_range = range


def linspace(
    start: Any,
    end: Any = None,
    steps: Any = None,
    dtype: Any = None,
    name: Any = None,
    *,
    stop: Any = None,
    num: Any = None,
    **options: Any,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive. PyTorch spells
    the arguments ``(start, end, steps)``, Paddle ``(start, stop, num)``; either set of
    keywords is taken (``torch.linspace(0, 1, steps=5)``, ``paddle.linspace(0, 1, num=5)``)."""
    if stop is not None:
        if end is not None:
            raise TypeError(
                "linspace: pass the end point once, as end= (PyTorch) or stop= (Paddle)"
            )
        end = stop
    if num is not None:
        if steps is not None:
            raise TypeError("linspace: pass the count once, as steps= (PyTorch) or num= (Paddle)")
        steps = num
    if end is None or steps is None:
        raise TypeError("linspace() missing required arguments: 'end' and 'steps'")
    return _core.linspace(start, end, steps, dtype, name, **options)


def range(  # noqa: A001 - PyTorch's name
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    device: Any = None,
    **options: Any,
) -> Tensor:
    """PyTorch's deprecated ``torch.range``: ``start, start + step, ...`` up to ``end``
    *included*, in the default float dtype unless ``dtype`` is given (``range(1, 4)`` is
    ``[1., 2., 3., 4.]``). ``range(end)`` starts at 0. Warns, as PyTorch does; prefer
    ``arange``, which leaves ``end`` out."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    lo, hi, st = (float(v) for v in (start, end, step))
    if st == 0 or not all(math.isfinite(v) for v in (lo, hi, st)):
        raise ValueError(f"range: step must be nonzero and all bounds finite, got {lo}, {hi}, {st}")
    if (hi - lo) * st < 0:
        raise ValueError(
            f"range: upper bound and larger bound inconsistent with step sign "
            f"(start {lo}, end {hi}, step {st})"
        )
    n = operator.index(math.floor((hi - lo) / st)) + 1
    values = [lo + i * st for i in _builtin_range(n)]
    from . import get_default_dtype

    d = dtype if dtype is not None else get_default_dtype()
    return _core.tensor(values, dtype=d, requires_grad=requires_grad, device=device, **options)


def conj_physical(input: Tensor, *, out: Any = None) -> Tensor:
    """The complex conjugate computed at once (PyTorch's ``conj_physical``; ferrograd's
    ``conj`` already materialises it); a real tensor comes back as a copy."""
    if out is not None:
        raise TypeError("conj_physical: out= is not supported; assign the result instead")
    if not isinstance(input, Tensor):
        raise TypeError(f"conj_physical: expected a Tensor, got {type(input).__name__}")
    return input.conj() if input.is_complex() else input.clone()
