"""Small ``Tensor`` queries and aliases both peers' code calls: ``greater`` / ``less``
(PyTorch's and Paddle 3's aliases of ``gt`` / ``lt``), ``get_device()`` (-1: the CPU, as
both peers answer for a CPU tensor), ``is_signed()``, ``is_integer()`` (Paddle) and
``is_pinned()`` (False: ferrograd has no pinned memory), the methods ``bincount`` /
``diagflat``; Paddle's ``assign``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core

Tensor = _core.Tensor


def greater(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x > other`` elementwise (bool): PyTorch's and Paddle's alias of ``gt``."""
    if out is not None:
        raise TypeError("greater: out= is not supported; assign the result instead")
    return x.gt(other)


def less(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x < other`` elementwise (bool): PyTorch's and Paddle's alias of ``lt``."""
    if out is not None:
        raise TypeError("less: out= is not supported; assign the result instead")
    return x.lt(other)


def _get_device(self: Tensor) -> int:
    """-1: the tensor is in CPU memory (both peers' answer for a CPU tensor)."""
    return -1


def _is_signed(self: Tensor) -> bool:
    """Whether the dtype holds negative values (False for bool and uint8)."""
    d = self.dtype
    return d not in (_core.bool, _core.uint8)


def is_integer(x: Tensor) -> bool:
    """Paddle: whether ``x``'s dtype is an integer one (bool excluded)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"is_integer: expected a Tensor, got {type(x).__name__}")
    d = x.dtype
    return not (d == _core.bool or d.is_floating_point or d.is_complex)


def _is_pinned(self: Tensor) -> bool:
    """False: ferrograd has no pinned (page-locked) memory."""
    return False


def assign(x: Any, output: Any = None) -> Any:
    """Paddle's ``assign``: a copy of ``x`` (a Tensor, recorded by autograd, or a NumPy
    array, list or number, as Paddle converts them: NumPy keeps its dtype, Python floats
    give float64, ints int64, a number a ``[1]`` tensor), written into ``output`` (which
    is returned) when given. As in Paddle 3.3.1, ``output`` takes the copy's shape and
    dtype when they differ (it stays the same object and keeps its version counter,
    which the write bumps once)."""
    if isinstance(x, Tensor):
        value = x.clone()
    else:
        if isinstance(x, str) or x is None:
            raise TypeError(f"assign: expected a Tensor, array, list or number, got {x!r}")
        a = np.asarray(x)
        if a.dtype == object:
            raise TypeError(f"assign: cannot convert {type(x).__name__} of mixed items")
        value = _core.tensor(a.reshape(1) if a.ndim == 0 else a)
    if output is None:
        return value
    if not isinstance(output, Tensor):
        raise TypeError(f"assign: output must be a Tensor, got {type(output).__name__}")
    if list(output.shape) != list(value.shape) or output.dtype != value.dtype:
        # Paddle re-creates `output` with the value's shape and dtype: re-point it at new
        # memory of that kind (keeping its identity, autograd state and version counter),
        # then write the value in, which records the copy and bumps the version once
        fresh = _core.empty(list(value.shape), dtype=value.dtype)
        output._repoint_data(fresh, keep_version=True)
    return output.copy_(value)


def _bincount(self: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    """``bincount(self, weights, minlength)``: counts of each non-negative integer."""
    from ._ops_stats import bincount

    return bincount(self, weights, minlength)


def _diagflat(self: Tensor, offset: int = 0) -> Tensor:
    """``diagflat(self, offset)``: a 2-D tensor with the flattened input on a diagonal."""
    from ._ops_more_math import diagflat

    return diagflat(self, offset)


def install_tensor_methods() -> None:
    """Adds the methods to ``Tensor`` (the stub lists them)."""
    Tensor.greater = greater  # type: ignore[method-assign]
    Tensor.less = less  # type: ignore[method-assign]
    Tensor.get_device = _get_device  # type: ignore[method-assign]
    Tensor.is_signed = _is_signed  # type: ignore[method-assign]
    Tensor.is_integer = is_integer  # type: ignore[method-assign]
    Tensor.is_pinned = _is_pinned  # type: ignore[method-assign]
    Tensor.bincount = _bincount  # type: ignore[method-assign]
    Tensor.diagflat = _diagflat  # type: ignore[method-assign]
    # Paddle's bitwise_invert / bucketize methods: _paddle_docex_names.py
    from . import _paddle_docex_names

    _paddle_docex_names.install_tensor_methods()
    # session 22's methods, and the top-level spellings of the in-place methods (all of
    # which exist by now): _tensor_peer_names.py
    import sys

    from . import _tensor_peer_names

    _tensor_peer_names.install_tensor_methods()
    _tensor_peer_names.install_top_level(vars(sys.modules[__package__]))
    # PyTorch's memory formats and memory_format= keywords: _memory_format_api.py
    from . import _memory_format_api

    _memory_format_api.install()


__all__ = ["greater", "less", "is_integer", "assign"]
