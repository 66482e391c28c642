"""Calls both peers spell the same way and answer differently: ``max`` / ``min`` with a
dimension (Paddle's values, PyTorch's ``(values, indices)``) and ``equal`` (Paddle's
elementwise comparison, PyTorch's one bool). Keywords only one peer has decide first; for a
shared spelling the calling module's import line does (``ferrograd._dialect``;
docs/dialects.md, "Which dialect a call speaks").

``paddle.max(x, 1)`` is the largest value of each row; ``torch.max(x, 1)`` is a pair, and
``_, pred = torch.max(out, 1)`` (the PyTorch tutorials' idiom) unpacks it. Answering with
the values alone broke PyTorch code — silently when the first dimension has length 2,
which unpacks two values. The rule for ``max`` / ``min``:

- ``dim=`` (a PyTorch keyword; Paddle refuses it on ``max``): the pair.
- a dimension given positionally or as ``axis=``: the pair in code that names ferrograd
  ``torch``, the values otherwise (ferrograd's default is Paddle's, as it was before the
  rule).
- a Tensor where the dimension goes (``torch.max(a, b)``): the elementwise maximum, except
  in Paddle code, where Paddle reads a Tensor there as the axes.
- no dimension, or several: the values (both peers agree).

The values of the pair are gathered at the indices, so the gradient goes to the chosen
element only (PyTorch's rule; the values-only reduction shares it among ties). Indices
are those of the first extreme element, or of the first NaN in a line that has one.

``equal(x, y)`` in code that names ferrograd ``torch`` is PyTorch's: ``True`` when the two
tensors have the same shape and equal elements (a NaN equals nothing); elsewhere it is
Paddle's elementwise ``x == y`` (``equal_all`` is the one-bool form in every dialect).

``histogram(x, 3)``: Paddle's int64 counts over ``[min, max]`` (the data's range for the
default 0, 0), PyTorch's ``(hist, bin_edges)`` in the input's dtype. PyTorch's form is
taken with its ``range=`` keyword, with bin edges given as a tensor or list, or in PyTorch
code.

``split(x, 2)``: Paddle's 2 equal sections, PyTorch's sections of size 2; its rule is in
``_split_spelling.py`` (re-exported here).

``nonzero(x, as_tuple=True)``: in Paddle code Paddle 3.3.1's pieces, each a ``[z, 1]``
column of the ``[z, ndim]`` result (none for a 0-d tensor); elsewhere PyTorch's 1-D ``[z]``
pieces (one-argument ``where(c)``, the core's, still gives PyTorch's: a wrapper would hide
the caller's dialect from the core's 0-d rule of ``where(c, x, y)``). (``numel(x)`` /
``x.numel()``,
Paddle's 0-d int64 Tensor in Paddle code, is the core's own rule: ``Tensor.numel``.)

Not a dialect rule but Paddle's argument check, kept with the wrappers here: ``argmax`` /
``argmin`` take ``dtype=`` int32 or int64 only (Paddle's ``ArgMinMaxInferMeta``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import _core
from ._core import _caller_dialect  # (the rule in Rust)
from ._dialect import caller_dialect
from ._methods import as_method
from ._sort_scan import _ValuesIndices
from ._sort_scan import histogram as _paddle_histogram
from ._split_spelling import _split_method, split

Tensor = _core.Tensor

# the reduction table's values-only ops (Rust; src/op_defs/reduce.rs), captured before
# install_tensor_methods() puts the dialect-aware methods in their place
_VALUES = {"max": Tensor.max, "min": Tensor.min}
_ARG = {"max": Tensor.argmax, "min": Tensor.argmin}
_ELEMENTWISE = {"max": Tensor.maximum, "min": Tensor.minimum}
_EQ = Tensor.equal
_NONZERO = Tensor.nonzero
_ARGMAX, _ARGMIN = Tensor.argmax, Tensor.argmin


class MaxResult(_ValuesIndices):
    """``(values, indices)`` of PyTorch's ``max(x, dim)`` (``torch.return_types.max``)."""

    __slots__ = ()


class MinResult(_ValuesIndices):
    """``(values, indices)`` of PyTorch's ``min(x, dim)`` (``torch.return_types.min``)."""

    __slots__ = ()


_RESULT = {"max": MaxResult, "min": MinResult}


def _one_int(d: Any) -> bool:
    return isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_))


def _pair(op: str, x: Tensor, d: int, keep: bool) -> Any:
    d = int(d)
    if x.ndim == 0:
        if d not in (0, -1):
            raise IndexError(
                f"{op}(): dimension {d} is out of range for a 0-d tensor (expected 0 or -1)"
            )
        return _RESULT[op](x.clone(), _core.zeros([], dtype="int64"))
    # argmax, take_along_axis and the squeezes in one core call (the same ops recorded)
    return _RESULT[op](*x._extreme_pair(d, keep, op == "max"))


def _extreme(op: str, x: Any, axis: Any, keepdim: Any, name: Any, dim: Any, keepdims: Any) -> Any:
    if isinstance(axis, Tensor) and dim is None and isinstance(x, Tensor):
        if _caller_dialect(3) != "paddle":
            if keepdim is not None or keepdims is not None:
                raise TypeError(
                    f"{op}(x, other) is the elementwise {op}imum of two tensors and takes no "
                    f"keepdim; pass a dimension (an int) to reduce, or call "
                    f"{op}imum(x, other)"
                )
            return _ELEMENTWISE[op](x, axis)
        axis = axis.tolist()  # Paddle's axes given as a Tensor
    if isinstance(x, Tensor):
        keep = bool(keepdim if keepdim is not None else keepdims)
        if dim is not None and _one_int(dim):
            if axis is not None:
                raise TypeError(f"{op}(): got both axis= (Paddle) and dim= (PyTorch); pass one")
            return _pair(op, x, dim, keep)
        if dim is None and _one_int(axis) and _caller_dialect(3) == "torch":
            return _pair(op, x, axis, keep)
    return _VALUES[op](x, axis, keepdim, name, dim=dim, keepdims=keepdims)


def max(
    x: Any,
    axis: Any = None,
    keepdim: Any = None,
    name: Any = None,
    *,
    dim: Any = None,
    keepdims: Any = None,
) -> Any:
    """Maximum over ``axis``/``dim`` (all elements by default). Paddle's values; PyTorch's
    ``(values, indices)`` with ``dim=`` or in code that names ferrograd ``torch``; with a
    Tensor in place of the dimension, the elementwise maximum (``torch.max(a, b)``)."""
    if axis is None and dim is None:  # no dimension: the values in every dialect
        if keepdim is None and name is None and keepdims is None:
            return _VALUES["max"](x)
        return _VALUES["max"](x, None, keepdim, name, keepdims=keepdims)
    return _extreme("max", x, axis, keepdim, name, dim, keepdims)


def min(
    x: Any,
    axis: Any = None,
    keepdim: Any = None,
    name: Any = None,
    *,
    dim: Any = None,
    keepdims: Any = None,
) -> Any:
    """Minimum over ``axis``/``dim`` (all elements by default). Paddle's values; PyTorch's
    ``(values, indices)`` with ``dim=`` or in code that names ferrograd ``torch``; with a
    Tensor in place of the dimension, the elementwise minimum (``torch.min(a, b)``)."""
    if axis is None and dim is None:  # no dimension: the values in every dialect
        if keepdim is None and name is None and keepdims is None:
            return _VALUES["min"](x)
        return _VALUES["min"](x, None, keepdim, name, keepdims=keepdims)
    return _extreme("min", x, axis, keepdim, name, dim, keepdims)


def equal(x: Any, other: Any = None, name: Any = None, *, y: Any = None) -> Any:
    """Paddle's elementwise ``x == y`` (a bool tensor); in code that names ferrograd
    ``torch``, PyTorch's ``equal``: one ``bool``, whether the shapes and all elements agree."""
    if isinstance(x, Tensor) and _caller_dialect(2) == "torch":
        o = y if other is None else other
        if not isinstance(o, Tensor):
            raise TypeError(
                f"equal(): PyTorch's equal compares two tensors, got {type(o).__name__}; "
                f"compare with a number elementwise as `x == value`"
            )
        return list(x.shape) == list(o.shape) and bool(_EQ(x, o).all())
    return _EQ(x, other, name, y=y)


class HistogramResult(NamedTuple):
    """``(hist, bin_edges)`` of PyTorch's ``histogram`` (``torch.return_types.histogram``)."""

    hist: Tensor
    bin_edges: Tensor


def histogram(
    input: Any,
    bins: Any = 100,
    min: Any = 0,
    max: Any = 0,
    weight: Any = None,
    density: Any = False,
    name: Any = None,
    *,
    range: Any = None,
) -> Any:
    """Paddle's ``histogram(input, bins, min, max, weight, density)`` (int64 counts; float
    with ``weight`` or ``density``), or PyTorch's ``histogram(input, bins, *, range,
    weight, density)`` -> ``(hist, bin_edges)`` with ``range=``, with ``bins`` given as
    edges (a tensor or list), or in PyTorch code. Neither has a gradient."""
    edges = isinstance(bins, (Tensor, list, tuple))
    if not (range is not None or edges or caller_dialect(2) == "torch"):
        return _paddle_histogram(input, bins, min, max, weight, density, name)
    if not isinstance(input, Tensor) or not input.dtype.is_floating_point:
        raise TypeError("histogram(): PyTorch's form takes a floating-point tensor")
    if (min, max) != (0, 0):
        raise TypeError(
            "histogram(): PyTorch's form takes the bounds as range=(min, max); Paddle's "
            "histogram(input, bins, min, max) is the form without range= in Paddle code"
        )
    a = input.detach().numpy().astype(np.float64).reshape(-1)
    w = None if weight is None else weight.detach().numpy().astype(np.float64).reshape(-1)
    if w is not None and w.shape != a.shape:
        raise ValueError(f"histogram(): weight must have the input's shape {list(input.shape)}")
    b = np.asarray(bins.tolist() if isinstance(bins, Tensor) else bins, dtype=np.float64)
    try:
        hist, bin_edges = np.histogram(
            a, bins=b if edges else int(bins), range=range, weights=w, density=bool(density)
        )
    except ValueError as e:
        raise ValueError(f"histogram(): {e}") from None
    dt = input.dtype
    return HistogramResult(
        _core.tensor(hist.astype(np.float64)).astype(dt), _core.tensor(bin_edges).astype(dt)
    )


def _paddle_pieces(x: Tensor) -> tuple[Tensor, ...]:
    # Paddle's as_tuple: the columns of the [z, ndim] result, sliced ([z, 1] each)
    idx = _NONZERO(x)
    return tuple(idx[:, i : i + 1] for i in range(x.ndim))


def nonzero(self: Any, as_tuple: Any = False) -> Any:
    """Indices of the non-zero elements: ``[z, ndim]`` int64, or with ``as_tuple`` one
    index tensor per dimension: PyTorch's 1-D ``[z]`` pieces, or in Paddle code
    Paddle's ``[z, 1]`` pieces."""
    # (the first parameter is named as the method's: this one function is both
    # Tensor.nonzero and the module function, and the stub reads it as a method)
    if as_tuple and isinstance(self, Tensor) and caller_dialect(2) == "paddle":
        return _paddle_pieces(self)
    return _NONZERO(self, as_tuple)


def _index_dtype(op: str, dtype: Any, out: Tensor) -> Tensor:
    if dtype is not None and out.dtype not in (_core.int32, _core.int64):
        raise TypeError(
            f"{op}(): dtype must be int32 or int64 (the dtype of the indices), got {dtype!r}"
        )
    return out


# (two plain functions, not one closure: as_method copies a function's code, which a
# closure cannot give)
def argmax(
    x: Any,
    axis: Any = None,
    keepdim: Any = None,
    dtype: Any = None,
    name: Any = None,
    *,
    dim: Any = None,
    keepdims: Any = None,
) -> Any:
    if dtype is None and dim is None and keepdims is None:  # (the common call, kept cheap)
        return _ARGMAX(x, axis, keepdim)
    out = _ARGMAX(x, axis, keepdim, dtype, name, dim=dim, keepdims=keepdims)
    return _index_dtype("argmax", dtype, out)


def argmin(
    x: Any,
    axis: Any = None,
    keepdim: Any = None,
    dtype: Any = None,
    name: Any = None,
    *,
    dim: Any = None,
    keepdims: Any = None,
) -> Any:
    if dtype is None and dim is None and keepdims is None:  # (the common call, kept cheap)
        return _ARGMIN(x, axis, keepdim)
    out = _ARGMIN(x, axis, keepdim, dtype, name, dim=dim, keepdims=keepdims)
    return _index_dtype("argmin", dtype, out)


# the table's docs (ops with a Paddle argument check, the same op otherwise)
argmax.__doc__ = _ARGMAX.__doc__
argmin.__doc__ = _ARGMIN.__doc__


def install_tensor_methods() -> None:
    """Makes ``x.max(...)`` / ``x.min(...)`` / ``x.equal(y)`` / ``x.split(...)`` follow the
    same rules as the functions."""
    Tensor.max = as_method(max)  # type: ignore[method-assign]
    Tensor.min = as_method(min)  # type: ignore[method-assign]
    Tensor.equal = as_method(equal)  # type: ignore[method-assign]
    Tensor.histogram = as_method(histogram)  # type: ignore[method-assign]
    # (the function itself, as for gather: the module function wraps the method)
    Tensor.nonzero = nonzero  # type: ignore[method-assign,assignment]
    Tensor.argmax = as_method(argmax)  # type: ignore[method-assign]
    Tensor.argmin = as_method(argmin)  # type: ignore[method-assign]
    _split_method.__name__ = "split"
    _split_method.__qualname__ = "Tensor.split"
    Tensor.split = _split_method  # type: ignore[method-assign]


__all__ = [
    "max",
    "min",
    "equal",
    "split",
    "histogram",
    "nonzero",
    "argmax",
    "argmin",
    "MaxResult",
    "MinResult",
    "HistogramResult",
    "install_tensor_methods",
]
