"""``Variable``'s Python operators (``+ - * / // % ** @``, comparisons, ``& | ^ ~``,
unary ``-`` and ``abs``): each records the op of the same name as the eager operator;
and Paddle's in-place method names (``x.clip_()``), which are the op itself in static mode.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .variable import Variable


class VariableOperatorsMixin:
    """Operators mixed into ``Variable``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _binary(self, op: str, other: Any) -> Variable: ...
        def _rbinary(self, op: str, other: Any) -> Variable: ...
        def _op(self, op: str, inputs: Any, **attrs: Any) -> Variable: ...

    def __getattr__(self, name: str) -> Any:
        # Paddle's in-place methods in static mode (``x.clip_()``, ``x.flatten_()``): the
        # op itself, with Paddle's warning (python/paddle/utils/inplace_utils.py,
        # _inplace_apis_in_dygraph_only_: "... is the same as clip() and does not perform
        # inplace operation")
        if name.endswith("_") and not name.startswith("_"):
            method = getattr(type(self), name[:-1], None)
            if callable(method):
                warnings.warn(
                    f"In static graph mode, {name}() is the same as {name[:-1]}() and does not "
                    "perform inplace operation.",
                    stacklevel=2,
                )
                return method.__get__(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __and__(self, o: Any) -> Variable:
        return self._binary("bitwise_and", o)

    def __rand__(self, o: Any) -> Variable:
        return self._rbinary("bitwise_and", o)

    def __or__(self, o: Any) -> Variable:
        return self._binary("bitwise_or", o)

    def __ror__(self, o: Any) -> Variable:
        return self._rbinary("bitwise_or", o)

    def __xor__(self, o: Any) -> Variable:
        return self._binary("bitwise_xor", o)

    def __rxor__(self, o: Any) -> Variable:
        return self._rbinary("bitwise_xor", o)

    def __add__(self, o: Any) -> Variable:
        return self._binary("add", o)

    def __radd__(self, o: Any) -> Variable:
        return self._rbinary("add", o)

    def __sub__(self, o: Any) -> Variable:
        return self._binary("subtract", o)

    def __rsub__(self, o: Any) -> Variable:
        return self._rbinary("subtract", o)

    def __mul__(self, o: Any) -> Variable:
        return self._binary("multiply", o)

    def __rmul__(self, o: Any) -> Variable:
        return self._rbinary("multiply", o)

    def __truediv__(self, o: Any) -> Variable:
        return self._binary("divide", o)

    def __rtruediv__(self, o: Any) -> Variable:
        return self._rbinary("divide", o)

    def __floordiv__(self, o: Any) -> Variable:
        return self._binary("floor_divide", o)

    def __mod__(self, o: Any) -> Variable:
        return self._binary("remainder", o)

    def __pow__(self, o: Any) -> Variable:
        return self._binary("pow", o)

    def __rpow__(self, o: Any) -> Variable:
        return self._rbinary("pow", o)

    def __matmul__(self, o: Any) -> Variable:
        return self._binary("matmul", o)

    def __rmatmul__(self, o: Any) -> Variable:
        return self._rbinary("matmul", o)

    def __neg__(self) -> Variable:
        return self._op("neg", [self])

    def __abs__(self) -> Variable:
        return self._op("abs", [self])

    def __invert__(self) -> Variable:
        """``~self``: bitwise NOT of integers, logical NOT of bools (``bitwise_not``)."""
        return self._op("bitwise_not", [self])

    def __eq__(self, o: Any) -> Variable:  # type: ignore[override]
        return self._binary("equal", o)

    def __ne__(self, o: Any) -> Variable:  # type: ignore[override]
        return self._binary("not_equal", o)

    def __lt__(self, o: Any) -> Variable:
        return self._binary("less_than", o)

    def __le__(self, o: Any) -> Variable:
        return self._binary("less_equal", o)

    def __gt__(self, o: Any) -> Variable:
        return self._binary("greater_than", o)

    def __ge__(self, o: Any) -> Variable:
        return self._binary("greater_equal", o)
