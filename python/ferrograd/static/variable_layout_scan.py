"""``Variable`` methods for the everyday layout, scan and selection ops: flip, roll,
tile, tril/triu, masked_fill, cumsum, sort/argsort/topk, bmm/dot/outer.

Each is composed from ops a static program already records (slices, concat, where,
gather, add, matmul), so the program's backward differentiates it with no new gradient
code, and the eager function's argument names are accepted. Two compositions are worth
knowing about:

- ``cumsum`` is a log-step prefix sum (``ceil(log2 n)`` slice/concat/add steps along the
  axis), so its values equal the eager ``cumsum`` up to rounding (the additions happen
  in another order). Its axis must have a size known when building.
- ``sort``/``argsort``/``topk`` compute the positions with the eager kernel in a
  ``py_func`` (positions have no gradient) and gather the values with them, so values and
  positions equal the eager ones exactly and the gradient flows to the gathered elements.
  The ``py_func`` calls back into Python each time the program runs.
"""

from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core

if TYPE_CHECKING:
    from .program import Block
    from .variable import Variable


def _dims(args: tuple[Any, ...], kwargs: dict[str, Any], names: tuple[str, ...], op: str) -> Any:
    from .._ops_shape import _dims_arg

    kwargs.pop("name", None)
    dims = _dims_arg(args, kwargs, names, op)
    if kwargs:
        raise TypeError(f"{op}() got unexpected keyword arguments {sorted(kwargs)}")
    return dims


class VariableLayoutScanMixin:
    """Methods mixed into ``Variable`` (see the module docstring)."""

    __slots__ = ()

    if TYPE_CHECKING:
        block: Block
        name: str
        shape: list[int]

        @property
        def ndim(self) -> int: ...
        @property
        def dtype(self) -> Any: ...
        def __getitem__(self, key: Any) -> Variable: ...
        def reshape(self, *sizes: Any, shape: Any = None, name: str | None = None) -> Variable: ...
        def unsqueeze(
            self, axis: Any = None, name: str | None = None, *, dim: Any = None
        ) -> Variable: ...
        def flatten(
            self,
            start_axis: Any = None,
            stop_axis: Any = None,
            name: str | None = None,
            *,
            start_dim: Any = None,
            end_dim: Any = None,
        ) -> Variable: ...
        def astype(self, dtype: Any) -> Variable: ...
        def matmul(self, y: Any) -> Variable: ...
        def take_along_axis(self, indices: Any, axis: int, broadcast: bool = True) -> Variable: ...

    # ------------------------------------------------------------------ helpers
    def _me(self) -> Variable:
        return self  # type: ignore[return-value]

    def _axis(self, d: Any, op: str) -> int:
        from .._ops_shape import _norm

        return int(_norm(operator.index(d), max(self.ndim, 1), op))

    def _known(self, d: int, op: str) -> int:
        n = self.shape[d]
        if n < 0:
            raise ValueError(
                f"{op}: dimension {d} of '{self.name}' (shape {self.shape}) has a size known "
                f"only at run time; static {op} needs it when the program is built (give that "
                "dimension a fixed size in static.data)"
            )
        return n

    def _traced(self, op: str, *args: Any) -> Variable:
        """The eager ``Tensor.<op>`` recorded as a traced op (it runs on the values when
        the program runs): for sizes known only at run time."""
        from .eager_ops import record_eager

        fn = getattr(_core.Tensor, op)
        return record_eager(op, fn, (self._me(), *args), {}, export=("method", op))  # type: ignore[no-any-return]

    def _along(self, d: int, start: int | None, stop: int | None) -> Variable:
        return self[tuple([slice(None)] * d + [slice(start, stop)])]

    def _concat(self, parts: list[Variable], d: int) -> Variable:
        return self.block._append("concat", parts, {"axis": d})

    # ------------------------------------------------------------------ layout
    def flip(self, *args: Any, **kwargs: Any) -> Variable:
        """Reversed along ``dims`` (torch) / ``axis`` (Paddle)."""
        from .._ops_shape import _unique_dims

        dims = _unique_dims(_dims(args, kwargs, ("dims", "axis"), "flip"), self.ndim, "flip")
        if self.ndim == 0:
            return self._me()
        return self[
            tuple(slice(None, None, -1) if d in dims else slice(None) for d in range(self.ndim))
        ]

    def _roll_dim(self, shift: int, d: int) -> Variable:
        n = self._known(d, "roll")
        if n == 0 or shift % n == 0:
            return self._me()
        s = shift % n
        return self._concat([self._along(d, n - s, None), self._along(d, 0, n - s)], d)

    def roll(
        self, shifts: Any, dims: Any = None, *, axis: Any = None, name: Any = None
    ) -> Variable:
        """Elements shifted by ``shifts`` along ``dims``/``axis``, wrapping around; without
        dims over the flattened variable (whose shape must then be known)."""
        from .._ops_shape import _int_list

        dims = axis if dims is None else dims
        sh = _int_list(shifts)
        if dims is None:
            if len(sh) != 1:
                raise ValueError(f"roll: {len(sh)} shifts need as many dims")
            if any(n < 0 for n in self.shape):  # sizes known only at run time
                return self._traced("roll", sh[0])
            flat = self.flatten()
            return flat._roll_dim(sh[0], 0).reshape(
                [self._known(d, "roll") for d in range(self.ndim)]
            )
        ds = _int_list(dims)
        if len(ds) != len(sh):
            raise ValueError(
                f"roll: {len(sh)} shift(s) for {len(ds)} dim(s); give one shift per dim"
            )
        axes = [self._axis(d, "roll") for d in ds]
        if any(self.shape[d] < 0 for d in axes):  # sizes known only at run time
            return self._traced("roll", sh, axes)
        out = self._me()
        for s, d in zip(sh, axes):
            out = out._roll_dim(s, d)
        return out

    def tile(self, *args: Any, **kwargs: Any) -> Variable:
        """Repeated ``reps`` times along each dimension (torch ``tile(dims)``, Paddle
        ``tile(repeat_times)``); fewer counts than dimensions repeat the trailing ones."""
        reps = [operator.index(r) for r in _dims(args, kwargs, ("dims", "repeat_times"), "tile")]
        if any(r < 0 for r in reps):
            raise ValueError(f"tile: repeat counts must be non-negative, got {reps}")
        x = self._me()
        if len(reps) > x.ndim:
            x = x.unsqueeze(list(range(len(reps) - x.ndim)))
        reps = [1] * (x.ndim - len(reps)) + reps
        for d, r in enumerate(reps):
            if r == 0:
                x = x._along(d, 0, 0)
            elif r > 1:
                x = x._concat([x] * r, d)
        return x

    def _tri(self, diagonal: int, lower: bool, op: str) -> Variable:
        from .._ops_shape import _tri_diagonal

        k = _tri_diagonal(diagonal, self.ndim, op)
        if self.shape[-2] < 0 or self.shape[-1] < 0:
            # the matrix size is known only at run time
            return self._traced(op, k)
        r, c = self.shape[-2], self.shape[-1]
        mask = np.tri(r, c, k, dtype=bool) if lower else ~np.tri(r, c, k - 1, dtype=bool)
        return self.masked_fill(~mask, 0)

    def tril(self, diagonal: int = 0, name: Any = None) -> Variable:
        """The lower triangle of the last two dimensions; zeros elsewhere."""
        return self._tri(diagonal, True, "tril")

    def triu(self, diagonal: int = 0, name: Any = None) -> Variable:
        """The upper triangle of the last two dimensions; zeros elsewhere."""
        return self._tri(diagonal, False, "triu")

    def masked_fill(self, mask: Any, value: Any, name: Any = None) -> Variable:
        """``value`` (a number or 0-d variable) where the bool ``mask`` is True, the
        variable elsewhere (``where(mask, value, x)``)."""
        from .variable import Variable

        block = self.block
        if isinstance(mask, Variable):
            m = block._as_variable(mask)
        else:
            m = block._as_variable(
                mask if isinstance(mask, _core.Tensor) else _core.tensor(np.asarray(mask))
            )
        if m._dtype_name != "bool":
            raise TypeError(f"masked_fill: the mask must be bool, got {m._dtype_name}")
        v = block._as_variable(value, like=self._me())
        if v._dtype_name != self._me()._dtype_name:
            v = v.astype(self.dtype)
        return block._append("where", [m, v, self._me()], {})

    # ------------------------------------------------------------------ scans
    def cumsum(
        self, axis: Any = None, dtype: Any = None, name: Any = None, *, dim: Any = None
    ) -> Variable:
        """Running sum along ``axis``/``dim`` (None: the flattened variable), as a
        log-step prefix sum (see the module docstring)."""
        x = self._me()
        if dtype is not None:
            x = x.astype(dtype)
        elif x._dtype_name in ("bool", "int32", "int64"):
            x = x.astype("int64")  # (eager: integer sums are int64)
        d = axis if axis is not None else dim
        if d is None:
            x, d = x.flatten(), 0
        d = x._axis(d, "cumsum")
        n = x._known(d, "cumsum")
        k = 1
        while k < n:
            x = x._concat([x._along(d, 0, k), x._along(d, k, None) + x._along(d, 0, n - k)], d)
            k *= 2
        return x

    # ------------------------------------------------------------------ sorting
    def _positions(self, d: int, k: int | None, descending: bool, op: str) -> Variable:
        from . import nn as static_nn

        shape = list(self.shape)
        if k is not None:
            shape[d] = k

        def positions(t: Any) -> Any:
            return t._sort_topk(d, k, descending, op)[1]

        out = self.block.create_var(dtype="int64", shape=shape)
        static_nn.py_func(positions, self._me(), out)
        return out

    def argsort(
        self,
        axis: Any = -1,
        descending: builtins.bool = False,
        stable: builtins.bool = False,
        name: Any = None,
        *,
        dim: Any = None,
    ) -> Variable:
        """Positions (int64, no gradient) that sort along ``axis``/``dim`` (stable)."""
        d = self._axis(dim if dim is not None else axis, "argsort")
        return self._positions(d, None, builtins.bool(descending), "sort")

    def sort(
        self,
        dim: Any = -1,
        descending: builtins.bool = False,
        stable: builtins.bool = False,
        name: Any = None,
        *,
        axis: Any = None,
    ) -> Any:
        """Sorted along ``dim``: PyTorch's ``(values, indices)``; with Paddle's ``axis=``
        keyword, or called from Paddle code, the values alone, as in eager."""
        from .._dialect import caller_dialect
        from .._sort_scan import SortResult

        d = self._axis(axis if axis is not None else dim, "sort")
        idx = self._positions(d, None, builtins.bool(descending), "sort")
        values = self.take_along_axis(idx, d)
        # (through_layers: the module function reaches here through static/dispatch.py)
        if axis is not None or caller_dialect(2, through_layers=True) == "paddle":
            return values
        return SortResult(values, idx)  # type: ignore[arg-type]

    def topk(
        self,
        k: Any,
        axis: Any = None,
        largest: builtins.bool = True,
        sorted: builtins.bool = True,
        name: Any = None,
        *,
        dim: Any = None,
    ) -> Any:
        """The ``k`` largest (``largest=False``: smallest) along ``axis``/``dim`` (default:
        the last) and their positions."""
        from .._sort_scan import TopkResult

        d = self._axis(axis if axis is not None else (dim if dim is not None else -1), "topk")
        kk = operator.index(k)
        n = self.shape[d]
        if kk < 0 or (n >= 0 and kk > n):
            raise ValueError(f"topk: k={kk} is out of range for a dimension of size {n}")
        idx = self._positions(d, kk, builtins.bool(largest), "topk")
        return TopkResult(self.take_along_axis(idx, d), idx)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ products
    def bmm(self, y: Any, name: Any = None) -> Variable:
        """Batched matrix product of two 3-D variables."""
        yv = self.block._as_variable(y, like=self._me())
        if self.ndim != 3 or yv.ndim != 3:
            raise ValueError(f"bmm: expects two 3-D variables, got {self.ndim}-D and {yv.ndim}-D")
        return self.matmul(yv)

    def dot(self, y: Any, name: Any = None) -> Variable:
        """Inner product of two 1-D variables."""
        yv = self.block._as_variable(y, like=self._me())
        if self.ndim != 1 or yv.ndim != 1:
            raise ValueError(f"dot: expects two 1-D variables, got {self.ndim}-D and {yv.ndim}-D")
        return (self._me() * yv).sum()

    def outer(self, y: Any, name: Any = None) -> Variable:
        """Outer product of two vectors (flattened first)."""
        yv = self.block._as_variable(y, like=self._me())
        return self.flatten().unsqueeze(1) * yv.flatten().unsqueeze(0)
