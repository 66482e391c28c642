"""``Variable`` methods for the shape table's ops (squeeze, unsqueeze, flatten, reshape,
permute, transpose, expand, broadcast_to, expand_as).

The block below is generated from the shape table (``src/op_defs/shape.rs``) by
``scripts/gen_op_bindings.py`` and checked for freshness in the tests: edit the table,
not this file. Each method records one op with the eager method's signature; the
arguments go as given to the table's parser, and its rule infers the shape (dimensions
known only at run time included)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .program import Block
    from .variable import Variable


class VariableShapesMixin:
    """The shape-table methods mixed into ``Variable``."""

    __slots__ = ()

    if TYPE_CHECKING:
        block: Block

        def _op(self, op: str, inputs: Sequence[Any], **attrs: Any) -> Variable: ...

    def _second(self, op: str, *values: Any) -> Variable:
        """The second input of a table op of arity 2 (``expand_as``): the first of
        ``values`` (its spellings) given, as a variable of this program."""
        value = next((v for v in values if v is not None), None)
        if value is None:
            raise TypeError(
                f"{op}() needs the tensor whose shape is the target (other=, or Paddle's y=)"
            )
        return self.block._as_variable(value, like=self)  # type: ignore[arg-type]

    # BEGIN generated: shape Variable methods (scripts/gen_op_bindings.py from src/op_defs/shape.rs)
    def squeeze(self, axis: Any = None, name: str | None = None, *, dim: Any = None) -> Variable:
        """Removes size-1 dims: all of them, or those in ``axis``/``dim`` (a listed dim that is not 1 is left alone)."""
        return self._op("squeeze", [self], axis=axis, dim=dim)

    def unsqueeze(self, axis: Any = None, name: str | None = None, *, dim: Any = None) -> Variable:
        """Inserts size-1 dims at ``axis``/``dim`` (an int or a list; positions in the result)."""
        return self._op("unsqueeze", [self], axis=axis, dim=dim)

    def flatten(
        self,
        start_axis: Any = None,
        stop_axis: Any = None,
        name: str | None = None,
        *,
        start_dim: Any = None,
        end_dim: Any = None,
    ) -> Variable:
        """Flattens dims ``start_axis..=stop_axis`` (torch ``start_dim..=end_dim``) into one."""
        return self._op(
            "flatten",
            [self],
            start_axis=start_axis,
            stop_axis=stop_axis,
            start_dim=start_dim,
            end_dim=end_dim,
        )

    def reshape(self, *sizes: Any, shape: Any = None, name: str | None = None) -> Variable:
        """Same elements in a new shape (one dim may be -1): ``reshape(2, 3)``, ``reshape([2, 3])`` or ``reshape(shape=[2, 3])``."""
        return self._op("reshape", [self], sizes=sizes, shape=shape)

    def permute(self, *args: Any, dims: Any = None) -> Variable:
        """Reorders dims (``permute(1, 0)``, ``permute([1, 0])`` or torch's ``permute(dims=[1, 0])``)."""
        return self._op("permute", [self], args=args, dims=dims)

    def transpose(
        self,
        *args: Any,
        perm: Any = None,
        dim0: Any = None,
        dim1: Any = None,
        name: str | None = None,
    ) -> Variable:
        """``transpose(perm)`` (Paddle: a full permutation, also ``perm=``) or ``transpose(d0, d1)`` (torch, also ``dim0=``, ``dim1=``)."""
        return self._op("transpose", [self], args=args, perm=perm, dim0=dim0, dim1=dim1)

    def expand(
        self, *sizes: Any, shape: Any = None, size: Any = None, name: str | None = None
    ) -> Variable:
        """Broadcast view to a shape (``expand(2, -1, 3)``, ``expand([2, -1, 3])``, Paddle's ``shape=``); -1 keeps a dimension."""
        return self._op("expand", [self], sizes=sizes, shape=shape, size=size)

    def broadcast_to(
        self, shape: Any = None, name: str | None = None, *, size: Any = None
    ) -> Variable:
        """Broadcast view to ``shape`` (torch: ``size``); -1 keeps a dimension."""
        return self._op("broadcast_to", [self], shape=shape, size=size)

    def expand_as(self, other: Any = None, name: str | None = None, *, y: Any = None) -> Variable:
        """Broadcast view to the shape of ``other`` (Paddle: ``y``)."""
        return self._op("expand_as", [self, self._second("expand_as", other, y)])

    # END generated: shape Variable methods

    def view(self, *shape: Any, name: str | None = None) -> Variable:
        """Same as ``reshape`` (a static program has no views to keep)."""
        return self.reshape(*shape)  # type: ignore[attr-defined,no-any-return]
