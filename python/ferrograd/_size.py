"""``Size``: the type of ``Tensor.shape``.

A tuple that also compares equal to lists, so both dialects hold:
``x.shape == [2, 3]`` (Paddle, where shapes are lists) and ``x.shape == (2, 3)`` (PyTorch).
Adding a list gives a list, adding a tuple gives a ``Size``.
"""

from __future__ import annotations

import operator
from math import prod
from typing import Any

from ._dialect import caller_dialect


class Size(tuple):
    """Dimensions of a tensor."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            return list(self) == other
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def __add__(self, other):  # type: ignore[override]
        if isinstance(other, list):
            return list(self) + other
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        if isinstance(other, list):
            return other + list(self)
        return Size(tuple(other) + tuple(self))

    def __getitem__(self, key):  # type: ignore[override]
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def numel(self) -> int:
        """Number of elements of a tensor of this shape."""
        return prod(self)

    def __repr__(self) -> str:
        # Paddle's shape is a plain list, printed as one (`[2, 3]`) in Paddle code
        if caller_dialect(2) == "paddle":
            return repr(list(self))
        return f"ferrograd.Size({list(self)})"


class SizeOrNumel(int):
    """``Tensor.size``: Paddle's property, the number of elements (an ``int``), that can
    also be called as PyTorch's method: ``x.size()`` is the shape (a ``Size``) and
    ``x.size(d)`` (or ``x.size(dim=d)``) one dimension. The two peers spell different
    things with the same name; this one object answers both."""

    _shape: Size

    def __new__(cls, shape: Size) -> SizeOrNumel:
        self = int.__new__(cls, prod(shape))
        self._shape = shape
        return self

    def __call__(self, dim: Any = None) -> Any:
        if dim is None:
            return self._shape
        d = operator.index(dim)
        n = len(self._shape)
        if n == 0:
            raise IndexError(f"size: a 0-d tensor has no dimension {d}; reshape it to 1-d first")
        if not -n <= d < n:
            raise IndexError(
                f"size: dimension {d} is out of range for a tensor with {n} dimension(s) "
                f"(expected a value in [{-n}, {n - 1}])"
            )
        return self._shape[d]

    def __reduce__(self) -> tuple[Any, ...]:  # pickles (and copies) as the plain number
        return (int, (int(self),))

    def __repr__(self) -> str:
        return int.__repr__(self)

    __str__ = __repr__
