"""Bit shifts of integer tensors: PyTorch's ``bitwise_left_shift`` /
``bitwise_right_shift`` (and ``<<`` / ``>>``, the methods, the ``_`` forms), Paddle's
``bitwise_left_shift(x, y, is_arithmetic=True)`` / ``bitwise_right_shift``.

Computed with NumPy on the values (integer results carry no gradient). The result has
the promoted integer dtype of the operands by PyTorch's rule (``int_result_dtype``, which
``gcd`` / ``lcm`` use too: a Python int or a 0-d tensor keeps the dimensioned tensor's
dtype, and must fit it), and the
peers' answers at the edges: a shift by a negative amount or by at least the dtype's
width gives 0 to the left and the sign fill (-1 or 0) to the right; a left shift wraps
in the dtype. Paddle's ``is_arithmetic=False`` right shift is logical (zeros come in from
the left of a negative number's two's complement).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core

Tensor = _core.Tensor


def _int_array(op: str, v: Any) -> np.ndarray:
    if isinstance(v, Tensor):
        d = v.dtype
        if d.is_floating_point or d.is_complex or d == _core.bool:
            raise TypeError(f"{op}: expects integer tensors, got {d}")
        return v.numpy()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}: expects an integer tensor or int, got {type(v).__name__}")
    return np.asarray(int(v), dtype=np.int64)


def int_result_dtype(op: str, x: Any, y: Any, a: np.ndarray, b: np.ndarray) -> np.dtype:
    """The dtype of an integer op's result on ``x`` and ``y`` (tensors or Python ints; ``a``
    and ``b`` their NumPy values), by PyTorch's promotion, as ``+`` promotes: a Python int,
    or a 0-d tensor beside a dimensioned one of the same kind, takes the dimensioned
    tensor's dtype; otherwise the common dtype. The value so narrowed must fit the dtype
    (PyTorch would wrap a 0-d ``2**40`` to 0 silently): ValueError otherwise."""
    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    same_kind = (a.dtype == np.bool_) == (b.dtype == np.bool_)
    if xt and yt and not ((x.ndim == 0) != (y.ndim == 0) and same_kind):
        return np.result_type(a.dtype, b.dtype)
    if xt and yt:
        dtype, narrowed = (a.dtype, b) if x.ndim else (b.dtype, a)
    else:
        dtype, narrowed = (a.dtype, b) if xt else (b.dtype, a)
    if narrowed.ndim == 0 and dtype != np.bool_ and narrowed.dtype != np.bool_:
        info, v = np.iinfo(dtype), int(narrowed)
        if not info.min <= v <= info.max:
            raise ValueError(
                f"{op}: the 0-d operand {v} is outside the range of {dtype}, the dtype of "
                "the result (a Python int or 0-d tensor takes the dimensioned tensor's "
                "dtype, PyTorch's rule); cast the tensor explicitly (e.g. x.astype('int64'))"
            )
    return dtype


def shift(op: str, x: Any, y: Any, left: bool, arithmetic: bool = True) -> Tensor:
    """``x << y`` (``left``) or ``x >> y`` elementwise, as the module docs say."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise TypeError(f"{op}: expects at least one Tensor")
    a = _int_array(op, x)
    b = _int_array(op, y)
    dtype = int_result_dtype(op, x, y, a, b)
    a = a.astype(dtype)
    a, b = np.broadcast_arrays(a, b.astype(np.int64))
    bits = dtype.itemsize * 8
    outside = (b < 0) | (b >= bits)
    s = np.where(outside, 0, b).astype(dtype)
    if left:
        r = np.where(outside, 0, np.left_shift(a, s))
    elif arithmetic or dtype.kind == "u":
        r = np.where(outside, np.where(a < 0, -1, 0), np.right_shift(a, s))
    else:
        unsigned = np.dtype(f"u{dtype.itemsize}")
        r = np.where(outside, 0, np.right_shift(a.view(unsigned), s.view(unsigned)).view(dtype))
    return _core.tensor(np.asarray(r, dtype=dtype))


def bitwise_left_shift(
    x: Any = None,
    y: Any = None,
    is_arithmetic: bool = True,
    out: Any = None,
    name: Any = None,
    *,
    input: Any = None,
    other: Any = None,
) -> Tensor:
    """``x << y`` (PyTorch: ``bitwise_left_shift(input, other)``; Paddle: ``(x, y,
    is_arithmetic)``, the same for a left shift)."""
    r = shift("bitwise_left_shift", input if x is None else x, other if y is None else y, True)
    return r if out is None else out.copy_(r)


def bitwise_right_shift(
    x: Any = None,
    y: Any = None,
    is_arithmetic: bool = True,
    out: Any = None,
    name: Any = None,
    *,
    input: Any = None,
    other: Any = None,
) -> Tensor:
    """``x >> y``: arithmetic (PyTorch; Paddle's default), or logical with Paddle's
    ``is_arithmetic=False``."""
    x = input if x is None else x
    y = other if y is None else y
    r = shift("bitwise_right_shift", x, y, False, bool(is_arithmetic))
    return r if out is None else out.copy_(r)


def _lshift(self: Tensor, other: Any) -> Tensor:
    """``self << other``."""
    return shift("<<", self, other, True)


def _rshift(self: Tensor, other: Any) -> Tensor:
    """``self >> other`` (arithmetic)."""
    return shift(">>", self, other, False)


def _rlshift(self: Tensor, other: Any) -> Tensor:
    """``other << self``."""
    return shift("<<", other, self, True)


def _rrshift(self: Tensor, other: Any) -> Tensor:
    """``other >> self``."""
    return shift(">>", other, self, False)


def _left_method(self: Tensor, other: Any, is_arithmetic: bool = True, name: Any = None) -> Tensor:
    """``self << other``."""
    return shift("bitwise_left_shift", self, other, True)


def _right_method(self: Tensor, other: Any, is_arithmetic: bool = True, name: Any = None) -> Tensor:
    """``self >> other`` (logical with ``is_arithmetic=False``)."""
    return shift("bitwise_right_shift", self, other, False, bool(is_arithmetic))


def _left_inplace(self: Tensor, other: Any, is_arithmetic: bool = True, name: Any = None) -> Tensor:
    """``self << other`` written into this tensor (returns it)."""
    from ._inplace_math import write_inplace

    return write_inplace(self, _left_method, (other,), {}, "bitwise_left_shift_")


def _right_inplace(
    self: Tensor, other: Any, is_arithmetic: bool = True, name: Any = None
) -> Tensor:
    """``self >> other`` written into this tensor (returns it)."""
    from ._inplace_math import write_inplace

    return write_inplace(self, _right_method, (other, is_arithmetic), {}, "bitwise_right_shift_")


def install_tensor_methods() -> None:
    """Adds the shift methods and operators to ``Tensor`` (the stub lists them)."""
    Tensor.__lshift__ = _lshift  # type: ignore[method-assign,assignment]
    Tensor.__rshift__ = _rshift  # type: ignore[method-assign,assignment]
    Tensor.__rlshift__ = _rlshift  # type: ignore[method-assign,assignment,attr-defined]
    Tensor.__rrshift__ = _rrshift  # type: ignore[method-assign,assignment,attr-defined]
    Tensor.bitwise_left_shift = _left_method  # type: ignore[method-assign,assignment,attr-defined]
    Tensor.bitwise_right_shift = _right_method  # type: ignore[method-assign,assignment,attr-defined]
    Tensor.bitwise_left_shift_ = _left_inplace  # type: ignore[method-assign,assignment,attr-defined]
    Tensor.bitwise_right_shift_ = _right_inplace  # type: ignore[method-assign,assignment,attr-defined]


__all__ = ["bitwise_left_shift", "bitwise_right_shift"]
