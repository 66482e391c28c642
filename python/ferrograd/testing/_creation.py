"""``torch.testing.make_tensor``: a random tensor of a given shape and dtype.

PyTorch's rules (``torch/testing/_creation.py``, ``make_tensor``): values are drawn
uniformly from ``[low, high)``, by default ``[0, 2)`` for bool, ``[0, 10)`` for uint8,
``[-9, 10)`` for the other integers and ``[-9, 9)`` for floating and complex dtypes (real
and imaginary parts alike); bounds are clamped to the dtype's finite range, and integer
bounds rounded up. The draws come from ferrograd's generator (``manual_seed`` repeats them;
the streams are not PyTorch's).
"""

from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any, Optional

from .. import _core

__all__ = ["make_tensor"]

_INTEGRAL = (_core.uint8, _core.int8, _core.int16, _core.int32, _core.int64)
_FLOATING = (_core.float16, _core.bfloat16, _core.float32, _core.float64)
_COMPLEX = (_core.complex64, _core.complex128)


def _bounds(
    dtype: Any,
    low: Optional[float],
    high: Optional[float],
    lowest: float,
    highest: float,
    default: tuple[float, float],
) -> tuple[Any, Any]:
    """``[low, high)`` checked and clamped to ``[lowest, highest)``; integers rounded up."""
    low = default[0] if low is None else low
    high = default[1] if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
            "types is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` "
            "instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), "
            f"but {dtype} only supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype == _core.bool or dtype in _INTEGRAL:
        # low rounds up (no value below it); high rounds up too, randint's bound is exclusive
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(t: Any, low: float, high: float) -> Any:
    """``t.uniform_(low, high)``, halving a range wider than the dtype's largest value."""
    from .._dtype_info import finfo

    if high - low >= finfo(t.dtype).max:
        t.uniform_(low / 2, high / 2)
        return t.mul_(2)
    return t.uniform_(low, high)


def make_tensor(
    *shape: Any,
    dtype: Any,
    device: Any,
    low: Optional[float] = None,
    high: Optional[float] = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Any:
    """A tensor of ``shape`` (ints, or one sequence) and ``dtype`` on ``device`` (the CPU)
    with values drawn uniformly from ``[low, high)`` (``torch.testing.make_tensor``).

    Defaults: bool ``[0, 2)``, uint8 ``[0, 10)``, other integers ``[-9, 10)``, floating and
    complex ``[-9, 9)``. ``noncontiguous=True`` returns a strided view (tensors of two or
    more elements); ``memory_format=`` lays it out so (``torch.channels_last`` ...);
    ``exclude_zero=True`` replaces zeros by 1 (bool, integers) or the
    dtype's smallest normal number; ``requires_grad`` is for floating and complex dtypes.
    """
    from .._dropin import device as _device
    from .._dtype_info import finfo, iinfo

    _device(device)  # only the CPU exists: another device raises, naming the fix
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
            f"but got {noncontiguous=} and {memory_format=}"
        )
    if requires_grad and (dtype == _core.bool or dtype in _INTEGRAL):
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, "
            f"but got {dtype=}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dimension, then every other element from index 1
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype == _core.bool:
        lo, hi = _bounds(dtype, low, high, 0, 2, (0, 2))
        result = _core.randint(lo, hi, list(shape), dtype=dtype)
    elif dtype in _INTEGRAL:
        ii = iinfo(dtype)
        # randint cannot draw int64's largest value (its bound would overflow)
        top = ii.max + (0 if dtype == _core.int64 else 1)
        lo, hi = _bounds(dtype, low, high, ii.min, top, (-9, 10))
        result = _core.randint(lo, hi, list(shape), dtype=dtype)
    elif dtype in _FLOATING or dtype in _COMPLEX:
        real = _core.float32 if dtype == _core.complex64 else dtype
        real = _core.float64 if dtype == _core.complex128 else real
        info = finfo(real)
        lo, hi = _bounds(dtype, low, high, info.min, info.max, (-9, 9))
        parts = [_uniform(_core.full(list(shape), 0.0, dtype=real), lo, hi)]
        if dtype in _COMPLEX:
            from .._complex_ops import complex as make_complex

            parts.append(_uniform(_core.full(list(shape), 0.0, dtype=real), lo, hi))
            result = make_complex(*parts)
        else:
            result = parts[0]
    else:
        raise TypeError(
            f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
        )

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:  # PyTorch's: a clone in that layout (channels_last ...)
        from .._memory_format_api import clone

        result = clone(result, memory_format=memory_format)
    if exclude_zero:
        zeros = result == 0
        if dtype == _core.bool or dtype in _INTEGRAL:
            result[zeros] = 1
        else:
            tiny = finfo(real).tiny
            result[zeros] = complex(tiny, tiny) if dtype in _COMPLEX else tiny
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad_(requires_grad)
    return result
