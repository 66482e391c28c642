"""More ``Variable`` methods: indexing, split/chunk/unbind, gather/index_select (the
shape table's ops are in ``variable_shapes.py``).

Each records one op (shape and dtype inferred in Rust when it is recorded) with the
eager method's signature, both dialects' argument names included."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .. import _core
from .._errors import AxisError

if TYPE_CHECKING:
    from .program import Block
    from .variable import Variable


def _pick(primary: Any, alias: Any) -> Any:
    """Paddle's ``axis`` or torch's ``dim`` (whichever was given)."""
    return alias if alias is not None else primary


def _is_index_like(value: Any) -> bool:
    from .variable import Variable

    return isinstance(value, (Variable, _core.Tensor)) or hasattr(value, "__array__")


def _is_int(value: Any) -> bool:
    """A plain integer (not a tensor / variable / array that converts to one)."""
    if isinstance(value, bool) or _is_index_like(value) or isinstance(value, (list, tuple)):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


class VariableOpsMixin:
    """Methods mixed into ``Variable`` (see the module docstring)."""

    __slots__ = ()

    if TYPE_CHECKING:
        block: Block
        id: int
        name: str
        shape: list[int]

        @property
        def ndim(self) -> int: ...
        @property
        def dtype(self) -> Any: ...
        def reshape(self, *sizes: Any, shape: Any = None, name: str | None = None) -> Variable: ...

    def _me(self) -> Variable:
        return cast("Variable", self)

    # ------------------------------------------------------------------ helpers
    def _one(self, op: str, inputs: Sequence[Variable], **attrs: Any) -> Variable:
        return self.block._append(op, inputs, attrs)

    def _many(self, op: str, **attrs: Any) -> list[Variable]:
        ids = self.block.program._core.append_op_multi(op, [self.id], **attrs)
        self.block.program._calls.append(  # (static/program_log.py)
            {"call": "op_multi", "op": op, "inputs": [self.id], "attrs": attrs, "out": list(ids)}
        )
        return [self.block._derived(self.block._wrap(i), [self._me()]) for i in ids]

    def _index_var(self, index: Any) -> Variable:
        """An index as a variable of this program (lists/arrays/tensors become int64 or
        bool constants)."""
        from .variable import Variable

        if isinstance(index, Variable):
            return self.block._as_variable(index)
        t = index if isinstance(index, _core.Tensor) else _core.to_tensor(index)
        return self.block._as_variable(t)

    def _dim_size(self, axis: int, op: str) -> int:
        if not self.shape:
            raise ValueError(f"{op}: cannot split the 0-d variable '{self.name}'")
        nd = len(self.shape)
        if not -nd <= axis < nd:
            raise AxisError(
                f"{op}: axis {axis} is out of range for a variable of {nd} dimensions "
                f"('{self.name}' with shape {self.shape})"
            )
        n = self.shape[axis]
        if n < 0:
            raise ValueError(
                f"{op}: axis {axis} of '{self.name}' (shape {self.shape}) has a size known only "
                "at run time, so the number of pieces is unknown; give section sizes "
                "(one of them may be -1) or a fixed size for that dimension"
            )
        return n

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key: Any) -> Variable:
        """``x[key]`` as in eager: ints, slices (negative steps too), ``None``, ``...``,
        and integer / bool index variables, tensors or lists (advanced indexing)."""
        items = key if isinstance(key, tuple) else (key,)
        spec: list[tuple[Any, ...]] = []
        index_vars: list[Variable] = []
        for it in items:
            if it is None:
                spec.append(("newaxis",))
            elif it is Ellipsis:
                spec.append(("ellipsis",))
            elif isinstance(it, slice):
                parts = [
                    None if p is None else operator.index(p) for p in (it.start, it.stop, it.step)
                ]
                spec.append(("slice", *parts))
            elif _is_int(it):
                spec.append(("int", operator.index(it)))
            elif isinstance(it, bool) or not (_is_index_like(it) or isinstance(it, (list, tuple))):
                raise TypeError(
                    f"getitem: unsupported index {it!r}; use ints, slices, None, ..., or integer/"
                    "bool variables, tensors or lists"
                )
            else:
                spec.append(("var",))
                index_vars.append(self._index_var(it))
        return self._one("getitem", [self._me(), *index_vars], items=spec)

    def __iter__(self) -> Any:
        if not self.shape or self.shape[0] < 0:
            raise TypeError(
                f"cannot iterate over static variable '{self.name}' with shape {self.shape}: its "
                "first dimension is not known while building"
            )
        return iter([self[i] for i in range(self.shape[0])])

    def index_select(
        self, index: Any, axis: Any = None, name: str | None = None, *, dim: Any = None
    ) -> Variable:
        """Slices along ``axis`` picked by a 1-D integer index (Paddle order;
        torch's ``index_select(dim, index)`` too — an index variable/tensor in the second
        slot is always the index)."""
        if axis is not None and _is_int(index) and not _is_int(axis):
            index, axis = axis, index
        ax = axis if axis is not None else (dim if dim is not None else 0)
        return self._one(
            "index_select", [self._me(), self._index_var(index)], axis=operator.index(ax)
        )

    def gather(
        self,
        a: Any = None,
        b: Any = None,
        *,
        axis: Any = None,
        dim: Any = None,
        index: Any = None,
    ) -> Variable:
        """torch ``gather(dim, index)``, or Paddle ``gather(index, axis=None)``
        (= ``index_select``)."""
        if _is_int(a) or dim is not None:
            d = operator.index(a) if _is_int(a) else operator.index(dim)
            idx = b if _is_int(a) else a
            idx = idx if idx is not None else index
            if idx is None:
                raise TypeError("gather() needs an index")
            return self._one("gather", [self._me(), self._index_var(idx)], axis=d)
        idx = a if a is not None else index
        if idx is None:
            raise TypeError("gather() needs an index")
        ax = b if b is not None else (axis if axis is not None else 0)
        iv = self._index_var(idx)
        if iv.ndim == 0:
            iv = iv.reshape([1])
        return self._one("index_select", [self._me(), iv], axis=operator.index(ax))

    def take_along_axis(self, indices: Any, axis: int, broadcast: bool = True) -> Variable:
        """Elementwise gather along ``axis`` (Paddle ``take_along_axis``, torch ``gather``)."""
        return self._one(
            "gather", [self._me(), self._index_var(indices)], axis=operator.index(axis)
        )

    # ------------------------------------------------------------------ splitting
    def split(
        self,
        split_size_or_sections: Any = None,
        dim: Any = None,
        *,
        num_or_sections: Any = None,
        axis: Any = None,
    ) -> list[Variable]:
        """torch ``split(size or sizes, dim)``, or Paddle with ``num_or_sections=``
        (an int is that many equal sections) / ``axis=``. A list of sizes may hold one
        ``-1`` (the rest), which also works on a dimension known only at run time."""
        d = operator.index(dim if dim is not None else (axis if axis is not None else 0))
        if num_or_sections is not None:
            return self._split_sections(num_or_sections, d, count_means_sections=True)
        if split_size_or_sections is None:
            raise TypeError("split() needs a size or a list of sections")
        return self._split_sections(split_size_or_sections, d, count_means_sections=False)

    def _split_sections(self, arg: Any, axis: int, count_means_sections: bool) -> list[Variable]:
        if isinstance(arg, (list, tuple)):
            sections = [operator.index(s) for s in arg]
            return self._many("split", axis=axis, sections=sections)
        n = operator.index(arg)
        if n <= 0:
            raise ValueError(f"split: the number or size of sections must be positive, got {n}")
        total = self._dim_size(axis, "split")
        if count_means_sections:
            if total % n != 0:
                raise ValueError(
                    f"split: a dimension of size {total} cannot be split into {n} equal sections"
                )
            sizes = [total // n] * n
        else:
            sizes = [min(n, total - k) for k in range(0, total, n)] or [0]
        return self._many("split", axis=axis, sections=sizes)

    def chunk(
        self, chunks: int, axis: int = 0, name: str | None = None, *, dim: Any = None
    ) -> list[Variable]:
        """``chunks`` nearly equal pieces along ``axis`` (the last one smaller; fewer
        pieces when the size does not allow ``chunks``), as in eager."""
        ax = operator.index(_pick(axis, dim))
        chunks = operator.index(chunks)
        if chunks <= 0:
            raise ValueError(f"chunk: the number of chunks must be positive, got {chunks}")
        total = self._dim_size(ax, "chunk")
        if total == 0:
            return self._many("split", axis=ax, sections=[0] * chunks)
        size = -(-total // chunks)
        sizes = [min(size, total - k) for k in range(0, total, size)]
        return self._many("split", axis=ax, sections=sizes)

    def unbind(self, axis: int = 0, *, dim: Any = None) -> list[Variable]:
        """The slices along ``axis`` (whose size must be known when building)."""
        ax = operator.index(_pick(axis, dim))
        nd = len(self.shape)
        if nd and not -nd <= ax < nd:
            raise AxisError(
                f"unbind: axis {ax} is out of range for a variable of {nd} dimensions "
                f"('{self.name}' with shape {self.shape})"
            )
        count = self.shape[ax] if nd else 0
        return self._many("unbind", axis=ax, count=max(count, 0))
