"""``paddle.tensor.creation``: Paddle's creation helpers that are reached through the
``paddle.tensor`` package rather than the top-level namespace."""

from __future__ import annotations

import operator
import types
from typing import Any, Optional

import numpy as np

from .. import _core
from ..grad_mode import no_grad

__all__ = ["fill_constant"]


def _dims(shape: Any) -> list[int]:
    """Paddle's ``shape`` argument (an int, a list or tuple of ints or one-element
    tensors, a 1-D integer tensor or array) as a list of non-negative ints."""
    if isinstance(shape, (_core.Tensor, np.ndarray)):
        shape = np.asarray(shape.numpy() if isinstance(shape, _core.Tensor) else shape).tolist()
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    dims = []
    for d in shape:
        try:
            n = operator.index(d) if not isinstance(d, _core.Tensor) else int(d.item())
        except TypeError:
            raise TypeError(f"fill_constant: shape entries must be integers, got {d!r}") from None
        if n < 0:
            raise ValueError(
                f"fill_constant: each value of shape must be no less than 0, got shape {list(shape)}"
            )
        dims.append(n)
    return dims


def fill_constant(
    shape: Any,
    dtype: Any,
    value: Any,
    force_cpu: bool = False,
    out: Optional[Any] = None,
    place: Any = None,
    name: Optional[str] = None,
) -> Any:
    """A tensor of ``shape`` and ``dtype`` whose every element is ``value`` (a number or
    a one-element tensor), as Paddle's ``paddle.tensor.fill_constant``; it does not
    require grad. With ``out``, whose dtype must be ``dtype`` (Paddle's TypeError), the
    values are written into ``out`` (re-shaped to ``shape`` if it differs, as in Paddle),
    which is returned and stops gradients. ``force_cpu`` and ``place`` change nothing:
    ferrograd computes on the CPU."""
    del force_cpu, place, name
    if isinstance(value, _core.Tensor):
        if value.numel() != 1:
            raise ValueError(
                f"fill_constant: value must be a number or a one-element tensor, got shape {list(value.shape)}"
            )
        value = value.item()
    result = _core.full(_dims(shape), value, dtype=dtype)
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise TypeError(
            f"fill_constant: out.dtype must be dtype when out is given, got {out.dtype} != {result.dtype}"
        )
    with no_grad():
        if list(out.shape) == list(result.shape):
            out.copy_(result)
        else:
            out.data = result
    out.stop_gradient = True
    return out


def __getattr__(name: str) -> Any:
    """Paddle's other creation functions (``paddle.tensor.creation.zeros_like``, ...):
    the top-level function of that name, as ``paddle.tensor.<name>`` gives."""
    if not name.startswith("_"):
        import ferrograd

        obj = getattr(ferrograd, name, None)
        if callable(obj) and not isinstance(obj, (type, types.ModuleType)):
            return obj
    raise AttributeError(f"module 'paddle.tensor.creation' has no attribute {name!r}")
