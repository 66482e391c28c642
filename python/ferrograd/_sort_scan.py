"""Scans, sorting, searching and counting under both dialects' names (issue #19).

The work happens in the Rust core (``cumsum``, ``cumprod``, ``logcumsumexp`` and
``argsort`` are ``Tensor`` methods there; the ``_sort_topk``, ``_select``,
``_cum_extreme`` and ``_searchsorted`` primitives find positions, and values that need a
gradient are gathered at them). This module spells the two dialects' signatures and return
types around those primitives. ``unique``, ``unique_consecutive``, ``histc`` and
``histogram`` return no gradient and data-dependent sizes; they run on NumPy.

Where the dialects disagree, the keyword decides (as Paddle's own aliases do), and for a
shared spelling the calling module's import line (``ferrograd._dialect``): ``sort``
returns PyTorch's ``(values, indices)`` unless Paddle's ``axis=`` is given or the code is
Paddle code; ``median`` / ``nanmedian`` are Paddle's (the mean of the two middle values,
values only) unless PyTorch's ``dim=`` is given or the code is PyTorch code (the lower
middle value, with its index along a dimension).
"""

from __future__ import annotations

import builtins
from typing import Any, NamedTuple, Optional

import numpy as np

from . import _core, _median_axes, _median_grad
from ._dialect import caller_dialect
from ._errors import ArgumentCheckError
from ._histc import _check_tensor, _int_k, _np_values  # (shared argument checks)
from ._histc import histc as histc  # (counting: _histc.py)
from ._histc import histogram as histogram
from ._methods import as_method as _as_method
from ._ops_shape import _norm as _axis_in_range

Tensor = _core.Tensor

__all__ = [
    "cumsum",
    "cumprod",
    "logcumsumexp",
    "cummax",
    "cummin",
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "median",
    "nanmedian",
    "mode",
    "unique",
    "unique_consecutive",
    "searchsorted",
    "bucketize",
    "histc",
    "histogram",
]


class _ValuesIndices(NamedTuple):
    values: Tensor
    indices: Tensor


class SortResult(_ValuesIndices):
    """``(values, indices)`` of ``sort`` (PyTorch's ``torch.return_types.sort``)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"ferrograd.sort returned (values, indices), PyTorch's result, which has no "
            f"attribute {name!r}; pass axis= (Paddle's spelling) to get the sorted values "
            f"alone, or take .values"
        )


class TopkResult(_ValuesIndices):
    """``(values, indices)`` of ``topk``."""

    __slots__ = ()


class KthvalueResult(_ValuesIndices):
    """``(values, indices)`` of ``kthvalue``."""

    __slots__ = ()


class MedianResult(_ValuesIndices):
    """``(values, indices)`` of ``median`` / ``nanmedian`` with ``dim=`` or ``mode='min'``."""

    __slots__ = ()


class ModeResult(_ValuesIndices):
    """``(values, indices)`` of ``mode``."""

    __slots__ = ()


class CumResult(_ValuesIndices):
    """``(values, indices)`` of ``cummax`` / ``cummin`` (Paddle calls them out, indices)."""

    __slots__ = ()


def _one_dim(axis: Any, dim: Any, default: Any, op: str) -> Any:
    """``axis`` (Paddle) or ``dim`` (PyTorch), at most one given; a 1-element Tensor or
    a one-int list is accepted."""
    if axis is not None and dim is not None:
        raise TypeError(f"{op}(): pass either axis= or dim=, not both")
    d = axis if axis is not None else dim
    if d is None:
        return default
    if isinstance(d, Tensor):
        d = d.item()
    if isinstance(d, (list, tuple)):
        if len(d) != 1:
            raise ValueError(f"{op}(): expects a single dimension, got {d!r}")
        d = d[0]
    if isinstance(d, builtins.bool) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"{op}(): the dimension must be an int, got {type(d).__name__}")
    return int(d)


def _index_dtype(t: Tensor, dtype: Any) -> Tensor:
    return t if dtype is None or str(dtype).endswith("int64") else t.astype(dtype)


# --- scans -------------------------------------------------------------------------------


def cumsum(
    x: Tensor, axis: Any = None, dtype: Any = None, name: Any = None, *, dim: Any = None
) -> Tensor:
    """Cumulative sum along ``axis``/``dim`` (None: of the flattened tensor)."""
    _check_tensor(x, "cumsum")
    return x.cumsum(_one_dim(axis, dim, None, "cumsum"), dtype)


def cumprod(
    x: Tensor, dim: Any = None, dtype: Any = None, name: Any = None, *, axis: Any = None
) -> Tensor:
    """Cumulative product along ``dim``/``axis`` (None: flattened); exact gradient with
    zeros."""
    _check_tensor(x, "cumprod")
    return x.cumprod(_one_dim(axis, dim, None, "cumprod"), dtype)


def logcumsumexp(
    x: Tensor, axis: Any = None, dtype: Any = None, name: Any = None, *, dim: Any = None
) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``axis``/``dim`` (None: flattened), without overflow."""
    _check_tensor(x, "logcumsumexp")
    return x.logcumsumexp(_one_dim(axis, dim, None, "logcumsumexp"), dtype)


def cummax(
    x: Tensor, axis: Any = None, dtype: Any = "int64", name: Any = None, *, dim: Any = None
) -> CumResult:
    """Running maximum along ``axis``/``dim`` (None: flattened): ``(values, indices)``.
    Ties take the later index; a NaN propagates."""
    _check_tensor(x, "cummax")
    v, i = x._cum_extreme(_one_dim(axis, dim, None, "cummax"), True)
    return CumResult(v, _index_dtype(i, dtype))


def cummin(
    x: Tensor, axis: Any = None, dtype: Any = "int64", name: Any = None, *, dim: Any = None
) -> CumResult:
    """Running minimum along ``axis``/``dim`` (None: flattened): ``(values, indices)``."""
    _check_tensor(x, "cummin")
    v, i = x._cum_extreme(_one_dim(axis, dim, None, "cummin"), False)
    return CumResult(v, _index_dtype(i, dtype))


# --- sorting and selection ------------------------------------------------------------


def sort(
    x: Tensor,
    dim: Any = -1,
    descending: builtins.bool = False,
    stable: builtins.bool = False,
    name: Any = None,
    *,
    axis: Any = None,
) -> Any:
    """Sorts along ``dim`` (NaN last ascending, first descending; equal elements keep
    their order). Returns PyTorch's ``(values, indices)``; with Paddle's ``axis=`` keyword,
    or in Paddle code (``import ferrograd as paddle``: the second positional argument is
    then Paddle's ``axis``), the sorted values alone, as ``paddle.sort`` does."""
    _check_tensor(x, "sort")
    if axis is not None or caller_dialect(2) == "paddle":
        d = _one_dim(dim if axis is None else axis, None, -1, "sort")
        return x._sort_topk(d, None, builtins.bool(descending), "sort")[0]
    d = _one_dim(None, dim, -1, "sort")
    return SortResult(*x._sort_topk(d, None, builtins.bool(descending), "sort"))


def argsort(
    x: Tensor,
    axis: Any = -1,
    descending: builtins.bool = False,
    stable: builtins.bool = False,
    name: Any = None,
    *,
    dim: Any = None,
) -> Tensor:
    """Positions (int64) that sort ``x`` along ``axis``/``dim`` (always stable)."""
    _check_tensor(x, "argsort")
    if dim is not None:
        axis = None
    return x.argsort(_one_dim(axis, dim, -1, "argsort"), builtins.bool(descending))


def topk(
    x: Tensor,
    k: Any,
    axis: Any = None,
    largest: builtins.bool = True,
    sorted: builtins.bool = True,
    name: Any = None,
    *,
    dim: Any = None,
) -> TopkResult:
    """The ``k`` largest (``largest=False``: smallest) elements along ``axis``/``dim``
    (default: the last), in order, with their positions. NaN counts as the largest."""
    _check_tensor(x, "topk")
    d = _one_dim(axis, dim, -1, "topk")
    kk = _int_k(k, "topk")
    if x.ndim == 0 and kk == 0:
        kk = 1  # PyTorch's topk_out_cpu: a 0-d input is copied (index 0) for k 0 or 1
    return TopkResult(*x._sort_topk(d, kk, builtins.bool(largest), "topk"))


def kthvalue(
    x: Tensor,
    k: Any,
    axis: Any = None,
    keepdim: builtins.bool = False,
    name: Any = None,
    *,
    dim: Any = None,
) -> KthvalueResult:
    """The ``k``-th smallest element (``k`` counts from 1) along ``axis``/``dim`` (default:
    the last) and its position."""
    _check_tensor(x, "kthvalue")
    d = _one_dim(axis, dim, -1, "kthvalue")
    _axis_in_range(d, x.ndim, "kthvalue")  # AxisError: Paddle's ValueError, PyTorch's IndexError
    return KthvalueResult(*x._select(d, "kth", _int_k(k, "kthvalue"), builtins.bool(keepdim)))


def _median(x: Tensor, axis: Any, keepdim: Any, mode: Any, dim: Any, nan: builtins.bool) -> Any:
    op = "nanmedian" if nan else "median"
    _check_tensor(x, op)
    torch = dim is not None  # PyTorch's semantics (gradients: ferrograd/_median_grad.py)
    if mode is None and dim is None and caller_dialect(3) == "torch":
        dim, axis, torch = axis, None, True  # its positional dim, the lower middle value
        if dim is None:
            mode = "min"
    if mode is None:
        mode = "min" if dim is not None else "avg"
    if mode not in ("avg", "min"):
        raise ValueError(f"{op}(): mode must be 'avg' or 'min', got {mode!r}")
    if nan:  # Paddle's nanmedian: several axes, its checks (ferrograd/_median_axes.py)
        _median_axes.check_dtype(x, op)
        _median_axes.check_axis(axis if dim is None else dim, x.ndim, op)
        if isinstance(axis, (list, tuple)) and len(axis) != 1 and dim is None:
            src, shape = _median_axes.flatten_axes(x, axis, builtins.bool(keepdim), op)
            value = _median(src, -1, False, mode, None, True)
            return (value[0] if isinstance(value, tuple) else value).reshape(shape)
        if axis is None and dim is None and x.numel() == 0:
            return _median_axes.empty_median(x, builtins.bool(keepdim), mode)
    d = _one_dim(axis, dim, None, op)
    keepdim = builtins.bool(keepdim)
    prefix = "nanmedian_" if nan else "median_"
    src = x.reshape([-1]) if d is None else x
    sd = 0 if d is None else d
    kd = keepdim and d is not None
    if mode == "min":
        value, idx = src._select(sd, prefix + "low", 1, kd)
    else:
        if src.dtype != _core.float64:
            src = src.astype("float32")  # Paddle: float64 stays, all else gives float32
        lo = src._select(sd, prefix + "low", 1, kd)[0]
        hi = src._select(sd, prefix + "high", 1, kd)[0]
        value, idx = (lo + hi) * 0.5, None
    if torch and d is None:
        value = _median_grad.evenly_distributed(x, value)
    elif nan and not torch:
        value, idx = _median_grad.paddle_all_nan(src, sd, kd, value, idx)
    if d is None:
        return value.reshape([1] * x.ndim) if keepdim else value
    if idx is not None:  # mode "min"
        return MedianResult(value, idx)
    return value


def median(
    x: Tensor,
    axis: Any = None,
    keepdim: builtins.bool = False,
    mode: Optional[str] = None,
    name: Any = None,
    *,
    dim: Any = None,
) -> Any:
    """The median along ``axis``/``dim`` (None: of all elements); a NaN propagates.

    Paddle's meaning by default (``mode='avg'``: the mean of the two middle values of an
    even count, values only, float32 for non-float64 inputs). With PyTorch's ``dim=`` (or
    ``mode='min'``) it is the lower middle value, and along a dimension
    ``(values, indices)``."""
    return _median(x, axis, keepdim, mode, dim, False)


def nanmedian(
    x: Tensor,
    axis: Any = None,
    keepdim: builtins.bool = False,
    mode: Optional[str] = None,
    name: Any = None,
    *,
    dim: Any = None,
) -> Any:
    """``median`` ignoring NaNs (a line of only NaNs gives NaN)."""
    return _median(x, axis, keepdim, mode, dim, True)


def mode(
    x: Tensor,
    axis: Any = -1,
    keepdim: builtins.bool = False,
    name: Any = None,
    *,
    dim: Any = None,
) -> ModeResult:
    """The most frequent value along ``axis``/``dim`` (the smallest of equally frequent
    ones) and the last position holding it."""
    _check_tensor(x, "mode")
    if dim is not None:
        axis = None
    d = _one_dim(axis, dim, -1, "mode")
    return ModeResult(*x._select(d, "mode", 1, builtins.bool(keepdim)))


# --- searching ----------------------------------------------------------------------------


def _as_tensor(v: Any, like: Tensor) -> Tensor:
    if isinstance(v, Tensor):
        return v
    return _core.tensor(v, dtype=like.dtype)


def searchsorted(
    sorted_sequence: Tensor,
    values: Any,
    out_int32: builtins.bool = False,
    right: builtins.bool = False,
    name: Any = None,
    *,
    side: Optional[str] = None,
    sorter: Optional[Tensor] = None,
) -> Tensor:
    """For every value, the index where it would be inserted into ``sorted_sequence``
    (sorted along its last dimension) to keep it sorted: before equal elements, or after
    them with ``right=True`` / ``side='right'``. ``sorted_sequence`` is 1-D or has the
    values' leading dimensions; ``sorter`` holds positions that sort it."""
    _check_tensor(sorted_sequence, "searchsorted")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted(): right=True and side='left' contradict each other")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = seq.take_along_axis(sorter, -1)
    vals = _as_tensor(values, seq)
    if seq.ndim != 1 and list(seq.shape[:-1]) != list(vals.shape[:-1]):
        # both peers' RuntimeError (test_searchsorted_op.py; ATen BucketizationUtils.h)
        raise ArgumentCheckError(
            f"searchsorted: the sorted sequence has shape {list(seq.shape)} and the values "
            f"{list(vals.shape)}; all but the last dimension must match (or pass a 1-D "
            "sorted sequence)"
        )
    out = seq._searchsorted(vals, builtins.bool(right))
    return out.astype("int32") if out_int32 else out


def bucketize(
    x: Any,
    sorted_sequence: Optional[Tensor] = None,
    out_int32: builtins.bool = False,
    right: builtins.bool = False,
    name: Any = None,
    *,
    boundaries: Optional[Tensor] = None,
) -> Tensor:
    """The bucket of every element of ``x`` among the 1-D ``boundaries`` (Paddle:
    ``sorted_sequence``): ``searchsorted(boundaries, x, right=right)``."""
    b = boundaries if boundaries is not None else sorted_sequence
    if b is None:
        raise TypeError("bucketize() needs the boundaries (a 1-D sorted Tensor)")
    _check_tensor(b, "bucketize")
    if b.ndim != 1:
        raise ValueError(f"bucketize(): the boundaries must be 1-D, got shape {list(b.shape)}")
    return searchsorted(b, x, out_int32=out_int32, right=right)


# --- unique ----------------------------------------------------------------------------


def _from_np(a: np.ndarray, like: Tensor) -> Tensor:
    return _core.tensor(np.ascontiguousarray(a)).astype(like.dtype)


def unique(
    x: Tensor,
    return_index: builtins.bool = False,
    return_inverse: builtins.bool = False,
    return_counts: builtins.bool = False,
    axis: Any = None,
    dtype: Any = "int64",
    name: Any = None,
    *,
    sorted: builtins.bool = True,
    dim: Any = None,
) -> Any:
    """The sorted unique elements (or slices along ``axis``/``dim``), and as asked the
    index of each one's first occurrence (Paddle's ``return_index``), the inverse (for
    every element / slice, its position among the unique ones; without an axis the
    input's shape, as PyTorch gives it, or 1-D ``[numel]`` in Paddle code, as Paddle
    gives it) and the counts. NaNs count as one value (NumPy's rule). Returns a Tensor,
    or a tuple in the order out, index, inverse, counts."""
    _check_tensor(x, "unique")
    d = _one_dim(axis, dim, None, "unique")
    a = _np_values(x)
    if d is not None:
        if a.ndim == 0:
            raise ValueError("unique(): a 0-d tensor has no dimension to take slices along")
        d = d + a.ndim if d < 0 else d
        if not 0 <= d < a.ndim:
            raise IndexError(f"unique(): dimension {d} is out of range for {a.ndim} dimension(s)")
    out, index, inverse, counts = np.unique(
        a, return_index=True, return_inverse=True, return_counts=True, axis=d
    )
    flat = d is not None or (return_inverse and caller_dialect(2) == "paddle")
    inverse = inverse.reshape(-1) if flat else inverse.reshape(a.shape)
    res = [_from_np(out, x)]
    idx_dtype = "int32" if str(dtype).endswith("int32") else "int64"
    if return_index:
        res.append(_core.tensor(index.astype(np.int64)).astype(idx_dtype))
    if return_inverse:
        res.append(_core.tensor(inverse.astype(np.int64)).astype(idx_dtype))
    if return_counts:
        res.append(_core.tensor(counts.astype(np.int64)).astype(idx_dtype))
    return res[0] if len(res) == 1 else tuple(res)


def unique_consecutive(
    x: Tensor,
    return_inverse: builtins.bool = False,
    return_counts: builtins.bool = False,
    axis: Any = None,
    dtype: Any = "int64",
    name: Any = None,
    *,
    dim: Any = None,
) -> Any:
    """Collapses runs of equal consecutive elements (or slices along ``axis``/``dim``);
    optionally with the inverse and the run lengths. Returns a Tensor, or a tuple in the
    order out, inverse, counts."""
    _check_tensor(x, "unique_consecutive")
    d = _one_dim(axis, dim, None, "unique_consecutive")
    a = _np_values(x)
    if d is None:
        rows = a.reshape(-1, 1)
    else:
        if a.ndim == 0:
            raise ValueError(
                "unique_consecutive(): a 0-d tensor has no dimension to take slices along"
            )
        d = d + a.ndim if d < 0 else d
        if not 0 <= d < a.ndim:
            raise IndexError(
                f"unique_consecutive(): dimension {d} is out of range for {a.ndim} dimension(s)"
            )
        # (the slice size spelled out: -1 is ambiguous when dim d has size 0)
        rest = int(np.prod([s for i, s in enumerate(a.shape) if i != d]))
        rows = np.moveaxis(a, d, 0).reshape(a.shape[d], rest)
    n = rows.shape[0]
    starts = np.ones(n, dtype=bool)
    if n > 1:
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1) if rows.shape[1] else False
    pos = np.flatnonzero(starts)
    counts = np.diff(np.append(pos, n))
    inverse = np.cumsum(starts) - 1
    if d is None:
        out = a.reshape(-1)[pos]
        inverse = inverse.reshape(a.shape)
    else:
        out = np.take(a, pos, axis=d)
    res = [_from_np(out, x)]
    idx_dtype = "int32" if str(dtype).endswith("int32") else "int64"
    if return_inverse:
        res.append(_core.tensor(inverse.astype(np.int64)).astype(idx_dtype))
    if return_counts:
        res.append(_core.tensor(counts.astype(np.int64)).astype(idx_dtype))
    return res[0] if len(res) == 1 else tuple(res)


def install_tensor_methods() -> None:
    """Adds the Python-level methods (``x.sort()``, ``x.topk(k)``, ...) to ``Tensor``; the
    Rust core already has ``cumsum``, ``cumprod``, ``logcumsumexp`` and ``argsort``."""
    names = "cummax cummin sort topk kthvalue median nanmedian mode unique unique_consecutive"
    for fname in (*names.split(), "histc"):
        setattr(Tensor, fname, _as_method(globals()[fname]))
