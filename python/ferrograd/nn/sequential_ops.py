"""PyTorch's ``Sequential`` arithmetic: ``a + b``, ``a += b``, ``a * n``, ``n * a`` and
``a *= n`` (a base class of ``Sequential``).

As in PyTorch 2.x the results hold the same layer objects, not copies: ``s * 2`` runs
each layer twice with shared parameters. ``+`` takes only another ``Sequential``
(``ValueError`` otherwise), ``*`` only a positive ``int``.
"""

from __future__ import annotations

import operator
from typing import Any, Self


class SequentialArithmetic:
    """Mixin: concatenation and repetition of a ``Sequential``'s layers."""

    # provided by Sequential
    append: Any
    __iter__: Any

    def _empty(self) -> Any:
        from .layers import Sequential

        return Sequential()

    @staticmethod
    def _other_sequential(other: object, op: str) -> list[Any]:
        from .layers import Sequential

        if not isinstance(other, Sequential):
            raise ValueError(
                f"Sequential {op} supports only another Sequential, got "
                f"{type(other).__name__}; wrap the layers: Sequential(*layers)"
            )
        return list(other)

    @staticmethod
    def _factor(other: object) -> int:
        if isinstance(other, bool) or not hasattr(type(other), "__index__"):
            raise TypeError(
                f"unsupported operand type(s) for *: 'Sequential' and '{type(other).__name__}'"
            )
        n = operator.index(other)  # type: ignore[arg-type]
        if n <= 0:
            raise ValueError(f"Non-positive multiplication factor {n} for Sequential")
        return n

    def __add__(self, other: object) -> Any:
        """A new ``Sequential`` of this one's layers, then ``other``'s (renumbered)."""
        layers = [*self, *self._other_sequential(other, "+")]
        out = self._empty()
        for layer in layers:
            out.append(layer)
        return out

    def __iadd__(self, other: object) -> Self:
        """Appends ``other``'s layers to this ``Sequential``."""
        for layer in self._other_sequential(other, "+="):
            self.append(layer)
        return self

    def __mul__(self, other: object) -> Any:
        """A new ``Sequential`` running this one's layers ``other`` times."""
        n, layers = self._factor(other), list(self)
        out = self._empty()
        for _ in range(n):
            for layer in layers:
                out.append(layer)
        return out

    def __rmul__(self, other: object) -> Any:
        """``n * s`` is ``s * n``."""
        return self.__mul__(other)

    def __imul__(self, other: object) -> Self:
        """Repeats this ``Sequential``'s layers ``other`` times in place."""
        n, layers = self._factor(other), list(self)
        for _ in range(n - 1):
            for layer in layers:
                self.append(layer)
        return self
