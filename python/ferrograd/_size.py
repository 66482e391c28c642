"""``Size``: the type of ``Tensor.shape``.

A tuple that also compares equal to lists, so both dialects hold:
``x.shape == [2, 3]`` (Paddle, where shapes are lists) and ``x.shape == (2, 3)`` (PyTorch).
Adding a list gives a list, adding a tuple gives a ``Size``.
"""

from __future__ import annotations

from math import prod


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
        return f"ferrograd.Size({list(self)})"
