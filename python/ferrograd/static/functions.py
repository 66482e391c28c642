"""Module functions whose first argument is not a single tensor (``concat``, ``stack``,
Paddle's ``split``, ``where``), recording into the program of the static Variables they
are given (``dispatch.record_call`` calls them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .variable import Variable


def first_variable(values: Sequence[Any]) -> Variable | None:
    """The first static Variable among ``values``, or None."""
    for v in values:
        if isinstance(v, Variable):
            return v
    return None


def concat(
    x: Sequence[Any], axis: int = 0, name: str | None = None, *, dim: int | None = None
) -> Variable:
    """Joins the variables (tensors and arrays become constants) along ``axis``."""
    items = list(x)
    var = first_variable(items)
    if var is None:
        raise TypeError("concat: expected at least one static Variable")
    vs = [var.block._as_variable(v, like=var) for v in items]
    return var.block._append("concat", vs, {"axis": dim if dim is not None else axis})


def stack(
    x: Sequence[Any], axis: int = 0, name: str | None = None, *, dim: int | None = None
) -> Variable:
    """Stacks the variables (tensors and arrays become constants) along a new axis."""
    items = list(x)
    var = first_variable(items)
    if var is None:
        raise TypeError("stack: expected at least one static Variable")
    vs = [var.block._as_variable(v, like=var) for v in items]
    return var.block._append("stack", vs, {"axis": dim if dim is not None else axis})


def split(
    x: Variable,
    num_or_sections: Any = None,
    axis: int = 0,
    name: str | None = None,
    *,
    split_size_or_sections: Any = None,
    dim: int | None = None,
) -> list[Variable]:
    """Paddle ``split(x, num_or_sections, axis)`` (an int is that many equal sections);
    torch's meaning with its keywords ``split_size_or_sections=`` / ``dim=``."""
    d = dim if dim is not None else axis
    if split_size_or_sections is not None or dim is not None:
        return x.split(
            split_size_or_sections if split_size_or_sections is not None else num_or_sections, d
        )
    return x.split(num_or_sections=num_or_sections, axis=d)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Variable:
    """``condition ? x : y`` elementwise with broadcasting (gradients flow to ``x`` and
    ``y``). The one-argument form (indices of non-zero elements) has a data-dependent
    shape and is not available in static programs."""
    if x is None or y is None:
        raise ValueError(
            "where(condition) without x and y returns data-dependent indices, which static "
            "programs do not support; use where(condition, x, y)"
        )
    var = first_variable([condition, x, y])
    if var is None:
        raise TypeError("where: expected a static Variable")
    like = first_variable([x, y])  # scalars are typed like x or y (float32 otherwise, as eager)
    block = var.block
    c, a, b = (block._as_variable(v, like=like) for v in (condition, x, y))
    return block._append("where", [c, a, b], {})


#: name -> static implementation of the module function of that name
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "concat": concat,
    "stack": stack,
    "split": split,
    "where": where,
}
