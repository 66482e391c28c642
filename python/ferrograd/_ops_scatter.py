"""Scatter along a dimension, in both dialects: ``scatter`` / ``scatter_add`` /
``scatter_reduce`` / ``index_add`` / ``index_reduce`` / ``index_fill`` (PyTorch's, with
``dim``) and Paddle's ``scatter(x, index, updates, overwrite)`` (rows), ``index_add(x,
index, axis, value)``, ``index_fill(x, index, axis, value)`` and ``put_along_axis``.

Where the two peers give one name two meanings the call is told apart by its arguments:
an integer in the first place after the tensor (or ``dim=``) is PyTorch's ``dim``; a
tensor or list there is Paddle's ``index``.

Everything is built on three Rust primitives (``src/autograd/ops/scatter.rs``): the
differentiable ``_scatter_add`` and ``_scatter_set`` (last duplicate wins), and
``_scatter_reduce_raw`` for ``prod`` / ``amax`` / ``amin``, whose gradients are the
custom functions below. In-place variants (``scatter_``, ...) compute the result and
``copy_`` it into the tensor, which rebases its history.

PyTorch code's PyTorch spellings refuse an index below 0 (``_index_sign``): each op
decides once per call (``refusal``) and passes the op name as ``refuse`` to the
primitives that first read the user's index; the kernels check it in their own pass.
Later reads of the same index (counts, gradients) need no check.
"""

from __future__ import annotations

import operator
from typing import Any

from . import _core
from ._dialect import caller_dialect
from ._index_sign import refusal, see_through
from .autograd.py_layer import Function, once_differentiable

Tensor = _core.Tensor
_INT_DTYPES = (_core.int32, _core.int64)


def _is_int(a: Any) -> bool:
    """Whether ``a`` is a plain integer (a dim), not a tensor or a bool."""
    if isinstance(a, (Tensor, bool)):
        return False
    try:
        operator.index(a)
    except TypeError:
        return False
    return True


def _index(index: Any, op: str) -> Tensor:
    """``index`` as an int tensor (lists and arrays are converted); TypeError otherwise."""
    if not isinstance(index, Tensor):
        index = _core.tensor(index)
        if index.dtype not in _INT_DTYPES and index.numel() == 0:
            index = index.astype(_core.int64)
    if index.dtype not in _INT_DTYPES:
        raise TypeError(f"{op}: the index must be an int32 or int64 tensor, got {index.dtype}")
    return index


def _values(x: Tensor, value: Any, shape: Any) -> Tensor:
    """``value`` (a number or tensor) in ``x``'s dtype, broadcast to ``shape``."""
    if isinstance(value, Tensor):
        v = value if value.dtype == x.dtype else value.astype(x.dtype)
    else:
        v = _core.tensor(value, dtype=x.dtype)
    return v.expand(list(shape))


def _dim(dim: Any, ndim: int, op: str) -> int:
    """``dim`` normalised to ``0..ndim`` (a 0-d tensor takes 0 or -1); IndexError if out of range."""
    n = max(ndim, 1)
    d = operator.index(dim)
    if not -n <= d < n:
        raise IndexError(
            f"{op}: dimension {d} is out of range for a tensor with {ndim} dimension(s) "
            f"(expected a value in [{-n}, {n - 1}])"
        )
    return d % n


def _pad_corner(t: Tensor, shape: list[int]) -> Tensor:
    """``t`` padded with zeros at the end of each dimension to ``shape`` (differentiable)."""
    for d, (have, want) in enumerate(zip(t.shape, shape)):
        if have < want:
            extra = list(t.shape)
            extra[d] = want - have
            t = _core.concat([t, _core.zeros(extra, dtype=t.dtype)], d)
    return t


def _corner(src: Tensor, shape: Any) -> Tensor:
    """The leading corner of ``src`` of ``shape`` (the part a scatter with that index uses)."""
    if list(src.shape) == list(shape):
        return src
    return src[tuple(slice(0, n) for n in shape)]


# ---------------------------------------------------------------- scatter-reduce gradients
class _ScatterExtreme(Function):
    """``scatter_reduce`` with ``amax`` / ``amin``: the gradient is shared evenly between
    the values equal to the result (as in PyTorch). The backward is linear in the
    incoming gradient with constant masks, so it is exact at every order."""

    @staticmethod
    def forward(ctx, x, src, dim, index, reduce, include_self, refuse):  # type: ignore[override]
        out = x._scatter_reduce_raw(dim, index, src, reduce, include_self, refuse)
        ctx.dim, ctx.include_self, ctx.src_shape = dim, include_self, list(src.shape)
        ctx.save_for_backward(x, src, index, out)
        return out

    @staticmethod
    def backward(ctx, g):  # type: ignore[override]
        x, src, index, out = ctx.saved_tensors
        dim = ctx.dim
        dt = g.dtype
        src_sel = _corner(src, index.shape)
        hit = src_sel == out.gather(dim, index)
        if ctx.include_self:
            mself = x == out
        else:
            touched = _core.zeros(list(x.shape), dtype=dt)._scatter_set(
                dim, index, _core.ones(list(index.shape), dtype=dt)
            )
            mself = touched == 0
        cnt = mself.astype(dt)._scatter_add(dim, index, hit.astype(dt)).clip(min=1)
        gn = g / cnt
        zero = _core.zeros([], dtype=dt)
        gx = _core.where(mself, gn, zero)
        gsrc = _pad_corner(_core.where(hit, gn.gather(dim, index), zero), ctx.src_shape)
        return gx, gsrc, None, None, None, None, None


def _prod_others(v: Tensor, zeros: Tensor, nz: Tensor) -> Tensor:
    """For a member ``v`` of a product group with ``zeros`` zero members and product of
    its non-zero members ``nz``: the product of the *other* members."""
    zero = _core.zeros([], dtype=v.dtype)
    safe = _core.where(v == 0, _core.ones([], dtype=v.dtype), v)
    lone_zero = _core.where(zeros == 1, nz, zero)
    no_zero = _core.where(zeros == 0, nz / safe, zero)
    return _core.where(v == 0, lone_zero, no_zero)


class _ScatterProd(Function):
    """``scatter_reduce`` with ``prod``; zeros are handled exactly (the gradient of a
    member is the product of the other members). First order only: differentiating the
    gradient again raises."""

    @staticmethod
    def forward(ctx, x, src, dim, index, include_self, refuse):  # type: ignore[override]
        out = x._scatter_reduce_raw(dim, index, src, "prod", include_self, refuse)
        ctx.dim, ctx.include_self, ctx.src_shape = dim, include_self, list(src.shape)
        ctx.save_for_backward(x, src, index)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, g):  # type: ignore[override]
        x, src, index = ctx.saved_tensors
        dim, inc = ctx.dim, ctx.include_self
        dt = g.dtype
        one = _core.ones([], dtype=dt)
        src_sel = _corner(src, index.shape)
        base_zeros = (x == 0).astype(dt) if inc else _core.zeros(list(x.shape), dtype=dt)
        nzeros = base_zeros._scatter_add(dim, index, (src_sel == 0).astype(dt))
        x_nz = _core.where(x == 0, one, x)
        nz = x_nz._scatter_reduce_raw(
            dim, index, _core.where(src_sel == 0, one, src_sel), "prod", inc
        )
        if inc:
            gx = g * _prod_others(x, nzeros, nz)
        else:
            touched = _core.zeros(list(x.shape), dtype=dt)._scatter_set(
                dim, index, _core.ones(list(index.shape), dtype=dt)
            )
            gx = _core.where(touched == 0, g, _core.zeros([], dtype=dt))
        others = _prod_others(src_sel, nzeros.gather(dim, index), nz.gather(dim, index))
        gsrc = _pad_corner(g.gather(dim, index) * others, ctx.src_shape)
        return gx, gsrc, None, None, None, None


def _scatter_sum(
    x: Tensor, dim: int, index: Tensor, src: Tensor, include_self: bool, refuse: Any = None
) -> Tensor:
    """``x`` with ``src`` summed in at ``index`` along ``dim`` (``include_self=False``: the
    targeted elements' old values left out); ``refuse``: as the primitives'."""
    if not include_self:
        x = x._scatter_set(dim, index, _core.zeros(list(index.shape), dtype=x.dtype), refuse)
    return x._scatter_add(dim, index, src, refuse)


def _scatter_mean(
    x: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    include_self: bool,
    trunc: bool = False,
    refuse: Any = None,
) -> Tensor:
    """The mean of the values landing on each element; of ints, rounded down (PyTorch's
    ``scatter_reduce``) or with ``trunc`` toward zero (Paddle's ``put_along_axis``, which
    divides in the int type). ``refuse``: as the primitives'."""
    total = _scatter_sum(x, dim, index, src, include_self, refuse)
    # counts: 1 for self (or for an untouched element), +1 per value landing there
    cnt = _core.ones(list(x.shape), dtype=x.dtype)
    if not include_self:
        cnt = cnt._scatter_set(dim, index, _core.zeros(list(index.shape), dtype=x.dtype))
    cnt = cnt._scatter_add(dim, index, _core.ones(list(index.shape), dtype=x.dtype))
    if x.dtype in _INT_DTYPES:
        q = total.floor_divide(cnt)
        if trunc:  # a negative quotient with a remainder: one up, toward zero
            q = q + ((total - q * cnt != 0) & (total < 0)).astype(x.dtype)
        return q
    return total / cnt


_REDUCE_ALIASES = {"add": "sum", "multiply": "prod", "mul": "prod"}


def scatter_reduce(
    x: Tensor,
    dim: int,
    index: Any,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """PyTorch's ``scatter_reduce``: ``x`` with the values ``src[m]`` combined into
    ``x[m with m[dim] = index[m]]`` by ``reduce`` (``sum``, ``prod``, ``mean``, ``amax``,
    ``amin``); ``include_self=False`` leaves the old values of the targeted elements out."""
    op = "scatter_reduce"
    index = _index(index, op)
    if not isinstance(src, Tensor):
        src = _values(x, src, index.shape)
    dim = _dim(dim, x.ndim, op)
    r = _REDUCE_ALIASES.get(reduce, reduce)
    if r not in ("sum", "mean", "amax", "amin", "prod"):
        raise ValueError(
            f"{op}: reduce must be one of 'sum', 'prod', 'mean', 'amax', 'amin', got {reduce!r}"
        )
    refuse = refusal(op)
    if r == "sum":
        return _scatter_sum(x, dim, index, src, include_self, refuse)
    if r == "mean":
        return _scatter_mean(x, dim, index, src, include_self, refuse=refuse)
    if r in ("amax", "amin"):
        return _ScatterExtreme.apply(x, src, dim, index, r, bool(include_self), refuse)
    return _ScatterProd.apply(x, src, dim, index, bool(include_self), refuse)


def scatter_add(x: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """PyTorch's ``scatter_add``: ``x`` with ``src[m]`` added at ``m with m[dim] =
    index[m]`` for each position ``m`` of ``index`` (duplicates add up)."""
    index = _index(index, "scatter_add")
    d = _dim(dim, x.ndim, "scatter_add")
    return x._scatter_add(d, index, src, refusal("scatter_add"))


def _torch_scatter(
    x: Tensor, dim: Any, index: Any, src: Any = None, value: Any = None, reduce: Any = None
) -> Tensor:
    op = "scatter"
    index = _index(index, op)
    if src is None and value is None:
        raise TypeError("scatter() needs a source: scatter(dim, index, src) or value=")
    s = src if src is not None else value
    if not isinstance(s, Tensor):
        s = _values(x, s, index.shape)
    d = _dim(dim, x.ndim, op)
    if reduce is None:
        return x._scatter_set(d, index, s, refusal(op))
    if reduce not in ("add", "multiply"):
        raise ValueError(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r}")
    # (scatter_reduce decides the refusal, looking through this frame for the name)
    return scatter_reduce(x, d, index, s, reduce, include_self=True)


def _row_index(x: Tensor, index: Tensor, like: Tensor, dim: int) -> Tensor:
    """A 1-D ``index`` along ``dim`` broadcast over ``like``'s shape (for row ops)."""
    shape = [1] * like.ndim
    shape[dim] = -1
    return index.reshape(shape).expand(list(like.shape))


def _paddle_scatter(x: Tensor, index: Any, updates: Tensor, overwrite: bool = True) -> Tensor:
    op = "scatter"
    index = _index(index, op)
    if index.ndim == 0:
        index = index.reshape([1])
        updates = updates.unsqueeze(0)
    if index.ndim == 2 and index.shape[1] == 1:
        index = index.reshape([-1])  # Paddle also takes an [N, 1] index
    if index.ndim != 1:
        raise ValueError(
            f"{op}: Paddle's scatter takes an index of shape [N] or [N, 1], got shape "
            f"{list(index.shape)}"
        )
    if list(updates.shape[1:]) != list(x.shape[1:]) or updates.shape[0] != index.shape[0]:
        raise ValueError(
            f"{op}: updates of shape {list(updates.shape)} do not match index of shape "
            f"{list(index.shape)} and x of shape {list(x.shape)}; updates must have shape "
            f"[len(index)] + x.shape[1:]"
        )
    idx = _row_index(x, index, updates, 0)
    if overwrite:
        return x._scatter_set(0, idx, updates)
    cleared = x._scatter_set(0, idx, _core.zeros(list(updates.shape), dtype=x.dtype))
    return cleared._scatter_add(0, idx, updates)


def scatter(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """PyTorch ``scatter(x, dim, index, src | value, reduce=None)`` (elementwise along
    ``dim``; last duplicate wins) or Paddle ``scatter(x, index, updates, overwrite=True)``
    (rows of ``x`` replaced, or with ``overwrite=False`` zeroed and then summed)."""
    kwargs.pop("name", None)
    torch_form = "dim" in kwargs or (args and _is_int(args[0]) and "index" not in kwargs)
    if torch_form and "updates" not in kwargs and "overwrite" not in kwargs:
        return _torch_scatter(x, *args, **kwargs)
    return _paddle_scatter(x, *args, **kwargs)


def _index_add_torch(
    x: Tensor, dim: Any, index: Any, source: Tensor, alpha: Any = 1, *, torch_form: bool = True
) -> Tensor:
    """``index_add`` in either spelling; ``torch_form``: PyTorch's (its index rule)."""
    op = "index_add"
    index = _index(index, op)
    if index.ndim > 1:
        raise ValueError(f"{op}: the index must be 1-D, got shape {list(index.shape)}")
    index = index.reshape([-1])
    if x.ndim == 0:
        flat = x.reshape([1])
        out = _index_add_torch(flat, 0, index, source.reshape([-1]), alpha, torch_form=torch_form)
        return out.reshape([])
    d = _dim(dim, x.ndim, op)
    want = list(x.shape)
    want[d] = index.shape[0]
    if list(source.shape) != want:
        raise ValueError(
            f"{op}: the source has shape {list(source.shape)}, expected {want} (x's shape "
            f"with dimension {d} of the index's length {index.shape[0]})"
        )
    refuse = refusal(op) if torch_form else None
    if alpha != 1:
        source = source * alpha
    return x._scatter_add(d, _row_index(x, index, source, d), source, refuse)


def index_add(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """PyTorch ``index_add(x, dim, index, source, alpha=1)`` or Paddle ``index_add(x,
    index, axis, value)``: the slices ``source[..., i, ...]`` added to
    ``x[..., index[i], ...]`` along the dimension (duplicates add up)."""
    kwargs.pop("name", None)
    if "axis" in kwargs or "value" in kwargs or (args and not _is_int(args[0])):
        names = ("index", "axis", "value")
        p = dict(zip(names, args))
        p.update(kwargs)
        return _index_add_torch(x, p["axis"], p["index"], p["value"], torch_form=False)
    if "source" not in kwargs and len(args) < 3 and "src" in kwargs:
        kwargs["source"] = kwargs.pop("src")
    return _index_add_torch(x, *args, **kwargs)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(
    x: Tensor, dim: Any, index: Any, source: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """PyTorch's ``index_reduce``: the slices ``source[..., i, ...]`` combined into
    ``x[..., index[i], ...]`` along ``dim`` by ``reduce`` (``prod``, ``mean``, ``amax``,
    ``amin``); ``include_self=False`` leaves the old values of the targeted slices out
    (untouched slices keep theirs). The ``mean`` of ints rounds down, as PyTorch's."""
    op = "index_reduce"
    if reduce not in _INDEX_REDUCTIONS:
        raise ValueError(
            f"{op}: expected reduce to be one of prod, mean, amax or amin, got {reduce!r} "
            "(for a sum use index_add)"
        )
    index = _index(index, op)
    if index.ndim > 1:
        raise ValueError(f"{op}: the index must be 1-D, got shape {list(index.shape)}")
    index = index.reshape([-1])
    if x.ndim == 0:
        flat = x.reshape([1])
        out = index_reduce(flat, 0, index, source.reshape([-1]), reduce, include_self=include_self)
        return out.reshape([])
    d = _dim(dim, x.ndim, op)
    want = list(x.shape)
    want[d] = index.shape[0]
    if list(source.shape) != want:
        raise ValueError(
            f"{op}: the source has shape {list(source.shape)}, expected {want} (x's shape "
            f"with dimension {d} of the index's length {index.shape[0]})"
        )
    # (scatter_reduce decides the refusal, looking through this frame for the name)
    return scatter_reduce(
        x, d, _row_index(x, index, source, d), source, reduce, include_self=include_self
    )


def _index_fill_torch(x: Tensor, dim: Any, index: Any, value: Any) -> Tensor:
    op = "index_fill"
    index = _index(index, op)
    if index.ndim > 1:
        raise ValueError(f"{op}: the index must be 1-D, got shape {list(index.shape)}")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise ValueError(
            f"{op}: the value must be a number or a 0-d tensor, got shape {list(value.shape)}"
        )
    index = index.reshape([-1])
    if x.ndim == 0:
        return _index_fill_torch(x.reshape([1]), 0, index, value).reshape([])
    d = _dim(dim, x.ndim, op)
    shape = list(x.shape)
    shape[d] = index.shape[0]
    src = _values(x, value, shape)
    ones_like_src = _core.zeros(shape, dtype=_core.bool)
    return x._scatter_set(d, _row_index(x, index, ones_like_src, d), src)


def index_fill(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """PyTorch ``index_fill(x, dim, index, value)`` or Paddle ``index_fill(x, index, axis,
    value)``: the slices at ``index`` along the dimension set to ``value``."""
    kwargs.pop("name", None)
    if "axis" in kwargs or (args and not _is_int(args[0])):
        p = dict(zip(("index", "axis", "value"), args))
        p.update(kwargs)
        return _index_fill_torch(x, p["axis"], p["index"], p["value"])
    return _index_fill_torch(x, *args, **kwargs)


def put_along_axis(
    arr: Tensor,
    indices: Any,
    values: Any,
    axis: int,
    reduce: str = "assign",
    include_self: bool = True,
    broadcast: bool = True,
    name: Any = None,
) -> Tensor:
    """Paddle's ``put_along_axis``: ``values`` put into ``arr`` along ``axis`` at
    ``indices`` with ``reduce`` = ``assign`` (last wins), ``add``, ``mul`` / ``multiply``,
    ``mean``, ``amax`` or ``amin``. With ``broadcast`` the indices are broadcast to
    ``arr``'s shape except along ``axis``, and the values to the indices' shape. The
    ``mean`` of ints rounds toward zero in Paddle code (Paddle divides in the int type)
    and down elsewhere (PyTorch's ``scatter_reduce``)."""
    op = "put_along_axis"
    indices = _index(indices, op)
    d = _dim(axis, arr.ndim, op)
    if broadcast and arr.ndim > 0:
        if indices.ndim != arr.ndim:
            indices = indices.reshape([1] * (arr.ndim - indices.ndim) + list(indices.shape))
        shape = list(arr.shape)
        shape[d] = indices.shape[d]
        indices = indices.expand(shape)
    if isinstance(values, Tensor) and values.dtype != arr.dtype:
        values = values.astype(arr.dtype)
    values = _values(arr, values, indices.shape) if broadcast else values
    if not isinstance(values, Tensor):
        values = _values(arr, values, indices.shape)
    if reduce == "assign":
        return arr._scatter_set(d, indices, values)
    reduce = {"add": "sum", "mul": "prod", "multiply": "prod"}.get(reduce, reduce)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise ValueError(
            f"{op}: reduce must be 'assign', 'add', 'mul', 'multiply', 'mean', 'amax' or "
            f"'amin', got {reduce!r}"
        )
    if reduce == "mean" and arr.dtype in _INT_DTYPES:
        # (through ferrograd's own frames: put_along_axis_ calls this for Paddle code)
        trunc = caller_dialect(2, through_layers=True) == "paddle"
        return _scatter_mean(arr, d, indices, values, include_self, trunc)
    return scatter_reduce(arr, d, indices, values, reduce, include_self=include_self)


# the PyTorch spellings' frames, looked through to find the calling code (_index_sign)
see_through(scatter)
see_through(_torch_scatter, "scatter")
see_through(index_add)
see_through(_index_add_torch, "index_add")
see_through(scatter_add)
see_through(scatter_reduce)
see_through(index_reduce)
