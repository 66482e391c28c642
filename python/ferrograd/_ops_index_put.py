"""Masked and multi-index writes and reads, in both dialects: ``masked_fill``,
``masked_scatter``, ``index_put`` (``accumulate``), ``take`` (Paddle's ``mode``),
Paddle's ``gather_nd``, ``scatter_nd`` and ``scatter_nd_add``, and the in-place
variants of every scatter-family op (installed on ``Tensor`` by :func:`install`).

A tuple of index tensors over the leading ``k`` dimensions is turned into one row
index into ``x`` seen as ``[prod(shape[:k]), *shape[k:]]``; the write is then a row
scatter (``_scatter_set`` / ``_scatter_add``), the read an ``index_select``, so
gradients come from those differentiable primitives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from . import _ops_scatter as _sc
from ._dialect import caller_dialect
from ._index_sign import LOCAL_NAME, see_through

Tensor = _core.Tensor


def _check_mask(mask: Any, op: str) -> Tensor:
    if not isinstance(mask, Tensor):
        mask = _core.tensor(mask)
    if mask.dtype != _core.bool:
        raise TypeError(f"{op}: the mask must be a bool tensor, got {mask.dtype}")
    return mask


def masked_fill(x: Tensor, mask: Any, value: Any, name: Any = None) -> Tensor:
    """``value`` (a number or 0-d tensor; differentiable) where the bool ``mask``
    (broadcast to ``x``'s shape) is True, ``x`` elsewhere. In Paddle code (docs/dialects.md)
    ``value`` may be a tensor of any shape that broadcasts with ``x`` and ``mask``."""
    op = "masked_fill"
    mask = _check_mask(mask, op)
    if isinstance(value, Tensor):
        if value.ndim != 0 and caller_dialect(2) == "paddle":
            # Paddle's masked_fill is where(mask, value, x): the value broadcasts too
            # (test_masked_fill.py: a value of shape [1]); PyTorch wants a 0-d value
            v = value if value.dtype == x.dtype else value.astype(x.dtype)
            return _core.where(mask, v, x)
        if value.ndim != 0:
            raise ValueError(
                f"{op}: the value must be a number or a 0-d tensor, got shape {list(value.shape)}"
            )
        v = value if value.dtype == x.dtype else value.astype(x.dtype)
    else:
        v = _core.tensor(value, dtype=x.dtype)
    return x._masked_fill(mask, v)


def masked_scatter(
    x: Tensor, mask: Any, value: Any = None, name: Any = None, *, source: Any = None
) -> Tensor:
    """The elements of ``value`` (PyTorch: ``source``; row-major, as many as ``mask`` has
    True entries) written where the bool ``mask`` is True; ``x`` elsewhere. ``x`` and
    ``mask`` broadcast together (the in-place form needs the result in ``x``'s shape)."""
    op = "masked_scatter"
    if value is None:
        value = source
    mask = _check_mask(mask, op)
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: the source must be a Tensor, got {type(value).__name__}")
    try:
        shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    except ValueError:
        raise ValueError(
            f"{op}: the mask's shape {list(mask.shape)} does not broadcast with the "
            f"tensor's {list(x.shape)}"
        ) from None
    if shape != tuple(x.shape):
        # out of place, the tensor broadcasts with the mask too (PyTorch's expand_outplace,
        # Paddle's where(mask, value, x)); the in-place form then refuses the new shape
        x = x.broadcast_to(list(shape))
    m = np.broadcast_to(mask.numpy(), shape)
    pos = np.flatnonzero(m)
    if pos.size > value.numel():
        raise ValueError(
            f"{op}: the mask selects {pos.size} element(s) but the source has only "
            f"{value.numel()}; it needs at least as many elements as the mask has True entries"
        )
    if value.dtype != x.dtype:
        raise TypeError(f"{op}: the source has dtype {value.dtype}, the tensor {x.dtype}")
    vals = value.reshape([-1])[: pos.size]
    flat = x.reshape([-1])._scatter_set(0, _core.tensor(pos.astype(np.int64)), vals)
    return flat.reshape(list(x.shape))


def _rows(x: Tensor, indices: list[Any], op: str) -> tuple[np.ndarray, list[int]]:
    """Row numbers into ``x`` seen as ``[prod(shape[:k]), *rest]`` for ``k`` index
    tensors (broadcast together, negatives wrapped), and the broadcast index shape."""
    arrays: list[np.ndarray] = []
    for i in indices:  # (the dtypes first, as Paddle checks them)
        a = i.numpy() if isinstance(i, Tensor) else np.asarray(i)
        if a.dtype == np.bool_:
            # a bool mask over dimensions d.. stands for the coordinates of its True
            # entries, one integer index per dimension it covers (NumPy's rule, and
            # Paddle's index_put / PyTorch's index_put_ with bool indices)
            d = len(arrays)
            want = list(x.shape[d : d + a.ndim])
            if a.ndim == 0 or list(a.shape) != want:
                raise IndexError(
                    f"{op}: the bool index of shape {list(a.shape)} does not match the "
                    f"tensor's dimensions {want} from dimension {d} (shape {list(x.shape)})"
                )
            arrays.extend(c.astype(np.int64) for c in np.nonzero(a))
            continue
        if a.size and not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"{op}: index tensors must be int32 or int64, got {a.dtype}")
        arrays.append(a.astype(np.int64))
    k = len(arrays)
    if k > x.ndim:
        raise IndexError(f"{op}: {k} index tensors for a tensor of {x.ndim} dimension(s)")
    try:
        arrays = list(np.broadcast_arrays(*arrays)) if arrays else []
    except ValueError:
        shapes = [list(a.shape) for a in arrays]
        raise ValueError(f"{op}: the index shapes {shapes} do not broadcast together") from None
    bshape = list(arrays[0].shape) if arrays else []
    rows = np.zeros(bshape, dtype=np.int64)
    for d, a in enumerate(arrays):
        size = x.shape[d]
        bad = (a < -size) | (a >= size)
        if bad.any():
            i = int(a[bad].flat[0])
            raise IndexError(f"{op}: index {i} is out of bounds for dimension {d} with size {size}")
        rows = rows * size + np.where(a < 0, a + size, a)
    return rows.reshape(-1), bshape


def _is_bool(index: Any) -> bool:
    a = index if isinstance(index, (Tensor, np.ndarray)) else np.asarray(index)
    return bool(a.dtype in (np.bool_, _core.bool))


def _dims_covered(index: Any) -> int:
    a = index if isinstance(index, (Tensor, np.ndarray)) else np.asarray(index)
    return int(a.ndim) if _is_bool(a) else 1


def _put_rows(x: Tensor, indices: list[Any], values: Any, accumulate: bool, op: str) -> Tensor:
    rows, bshape = _rows(x, indices, op)
    # (the dimensions indexed: a bool mask covers as many as it has)
    k = sum(_dims_covered(i) for i in indices)
    rest = list(x.shape[k:])
    lead = int(np.prod(x.shape[:k], dtype=np.int64))
    flat = x.reshape([lead, *rest])
    if rows.size == 0 and any(_is_bool(i) for i in indices):
        # bool indices with no True entry select nothing: Paddle then leaves x as it is
        # whatever the value's shape (test_index_put_op.py all-false case, whose value
        # gets a zero gradient); an empty slice of the value keeps it in the graph
        v = values if isinstance(values, Tensor) else _core.tensor(values, dtype=x.dtype)
        vals = v.astype(x.dtype).reshape([-1])[:0].reshape([0, *rest])
    else:
        vals = _sc._values(x, values, bshape + rest).reshape([rows.size, *rest])
    idx = _core.tensor(rows.reshape([rows.size] + [1] * len(rest))).expand([rows.size, *rest])
    out = flat._scatter_add(0, idx, vals) if accumulate else flat._scatter_set(0, idx, vals)
    return out.reshape(list(x.shape))


def index_put(
    x: Tensor, indices: Any, values: Any, accumulate: bool = False, name: Any = None
) -> Tensor:
    """``x`` with ``values`` (broadcast) written at ``x[indices]`` for a tuple of integer
    index tensors (broadcast together); ``accumulate=True`` adds instead, duplicates
    adding up (without it the last duplicate wins)."""
    return _put_rows(x, list(indices), values, bool(accumulate), "index_put")


def take(x: Tensor, index: Any, mode: str = "raise", name: Any = None) -> Tensor:
    """The elements of ``x`` (seen as 1-D, row-major) at ``index``; the result has the
    index's shape. Paddle's ``mode``: ``raise`` (negatives count from the end, out of
    range is an IndexError), ``wrap`` (modulo the size) or ``clip`` (to the ends)."""
    op = "take"
    index = _sc._index(index, op)
    n = x.numel()
    a = index.numpy().astype(np.int64)
    if mode == "raise":
        bad = (a < -n) | (a >= n)
        if bad.any():
            raise IndexError(
                f"{op}: index {int(a[bad].flat[0])} is out of range for a tensor of {n} element(s)"
            )
        a = np.where(a < 0, a + n, a)
    elif mode == "wrap":
        a = np.mod(a, n) if n else a
    elif mode == "clip":
        a = np.clip(a, 0, max(n - 1, 0))
    else:
        raise ValueError(f"{op}: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if n == 0 and a.size:
        raise IndexError(f"{op}: cannot take from an empty tensor")
    flat = _core.tensor(a.reshape(-1))
    return x.reshape([-1]).index_select(0, flat).reshape(list(index.shape))


def _nd_split(index: Any, op: str) -> list[Any]:
    a = index.numpy() if isinstance(index, Tensor) else np.asarray(index)
    if a.ndim == 0:
        raise ValueError(
            f"{op}: the index needs at least one dimension (its last holds coordinates)"
        )
    if a.dtype == np.bool_ or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise TypeError(f"{op}: the index must be int32 or int64, got {a.dtype}")
    return [a[..., j] for j in range(a.shape[-1])]


def gather_nd(x: Tensor, index: Any, name: Any = None) -> Tensor:
    """Paddle's ``gather_nd``: for an index of shape ``[..., k]`` the slices
    ``x[i_0, ..., i_{k-1}]``; the result has shape ``index.shape[:-1] + x.shape[k:]``."""
    op = "gather_nd"
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    cols = _nd_split(index, op)
    if len(cols) > x.ndim:
        # Paddle's wording (GatherNdInferMeta), which its tests look for
        raise IndexError(
            f"{op}: an index of last dimension {len(cols)} for a tensor of {x.ndim} "
            "dimension(s): Input(Index).shape[-1] should be no greater than Input(X).rank"
        )
    rows, bshape = _rows(x, cols, op)
    k = len(cols)
    rest = list(x.shape[k:])
    lead = int(np.prod(x.shape[:k], dtype=np.int64))
    if k == 0:
        return x.expand(bshape + rest) if bshape else x
    picked = x.reshape([lead, *rest]).index_select(0, _core.tensor(rows))
    return picked.reshape(bshape + rest)


def scatter_nd_add(x: Tensor, index: Any, updates: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``scatter_nd_add``: ``x`` with ``updates[..., :]`` added at the
    coordinates ``index[..., :k]`` (duplicates add up); ``updates`` has shape
    ``index.shape[:-1] + x.shape[k:]``."""
    op = "scatter_nd_add"
    cols = _nd_split(index, op)
    k = len(cols)
    want = list(np.asarray(index.shape if isinstance(index, Tensor) else np.shape(index))[:-1])
    want = [int(s) for s in want] + list(x.shape[k:])
    if list(updates.shape) != want:
        raise ValueError(
            f"{op}: updates have shape {list(updates.shape)}, expected {want} "
            f"(index.shape[:-1] + x.shape[{k}:])"
        )
    return _put_rows(x, cols, updates, True, op)


def scatter_nd(index: Any, updates: Tensor, shape: Any, name: Any = None) -> Tensor:
    """Paddle's ``scatter_nd``: ``scatter_nd_add`` into zeros of ``shape``."""
    return scatter_nd_add(_core.zeros(list(shape), dtype=updates.dtype), index, updates)


#: The in-place ops here that write one value, so an expanded view (whose elements share
#: memory) can take them, as in PyTorch: every element sharing memory gets that value.
_FILLS = frozenset({"masked_fill_", "index_fill_", "index_put_"})

#: Same-width integer dtypes: comparing through them compares bits (NaN, -0.0).
_BITS = {2: _core.int16, 4: _core.int32, 8: _core.int64}


def _expanded(t: Tensor) -> bool:
    """True when ``t`` repeats memory along a broadcast (stride-0) dimension: the rule of
    ``Layout::broadcast_dim`` (src/layout.rs), which the other in-place ops check in Rust;
    a tensor without elements shares nothing."""
    return t.numel() > 0 and any(s == 0 and n > 1 for n, s in zip(t.shape, t.stride()))


def _bits(t: Tensor) -> Tensor:
    if t.dtype.is_complex:
        t = _core.stack([t.real, t.imag], -1)
    if t.dtype.is_floating_point:
        return t.view(_BITS[t.element_size()])
    return t


def _fill_expanded(self: Tensor, result: Tensor, name: str) -> None:
    """Writes ``result`` (a fill's out-of-place result) into ``self``, an expanded view:
    the elements whose bits changed all got the fill's one value, which then goes to
    their memory; a write of several values is refused as PyTorch refuses it."""
    changed = _bits(result) != _bits(self)
    if changed.ndim > self.ndim:  # the complex parts
        changed = changed.any(-1)
    vals = result[changed]
    if vals.numel() == 0:
        return
    first = vals[:1]
    if bool((_bits(vals) != _bits(first.expand(vals.shape))).any()):
        raise RuntimeError(
            f"{name}: unsupported operation: more than one element of the written-to tensor "
            "refers to a single memory location (an expanded view) and the values written "
            "differ. Please clone() the tensor before performing the operation"
        )
    self[changed] = first.reshape([])


def _any_requires_grad(args: tuple, kwargs: dict) -> bool:
    """Whether a tensor among the arguments requires grad."""
    return any(isinstance(a, Tensor) and a.requires_grad for a in (*args, *kwargs.values()))


def _inplace(fn: Any, name: str) -> Any:
    """The in-place variant of ``fn``: computes the result, copies it into the tensor
    (rebasing its history) and returns the tensor."""
    fills = name in _FILLS

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        # a copy, so that nodes of the result that save the input do not see the write:
        # also when only a source requires grad (scatter_reduce_'s amax / prod nodes save
        # the old values of a target that does not)
        src = self.clone() if self.requires_grad or _any_requires_grad(args, kwargs) else self
        result = fn(src, *args, **kwargs)
        if fills and not self.requires_grad and _expanded(self):
            _fill_expanded(self, result, name)
            return self
        try:
            self.copy_(result)
        except RuntimeError as e:
            if str(e).startswith("copy_: unsupported operation"):
                raise RuntimeError(name + str(e)[len("copy_") :]) from None
            raise
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``: writes the result into this tensor and returns it."
    return see_through(method, LOCAL_NAME)  # (an index op's error names the in-place op)


#: Out-of-place functions: (function, Tensor method names, in-place method names).
_METHODS: list[tuple[Any, tuple[str, ...], tuple[str, ...]]] = [
    (_sc.scatter, ("scatter",), ("scatter_",)),
    (_sc.scatter_add, ("scatter_add",), ("scatter_add_",)),
    (_sc.scatter_reduce, ("scatter_reduce",), ("scatter_reduce_",)),
    (_sc.index_add, ("index_add",), ("index_add_",)),
    (_sc.index_reduce, ("index_reduce",), ("index_reduce_",)),
    (_sc.index_fill, ("index_fill",), ("index_fill_",)),
    (_sc.put_along_axis, ("put_along_axis",), ("put_along_axis_",)),
    (masked_fill, ("masked_fill",), ("masked_fill_",)),
    (masked_scatter, ("masked_scatter",), ("masked_scatter_",)),
    (index_put, ("index_put",), ("index_put_",)),
    (take, ("take",), ()),
    (gather_nd, ("gather_nd",), ()),
    (scatter_nd_add, ("scatter_nd_add",), ()),
]


def install() -> None:
    """Attaches the scatter-family methods (and their in-place variants) to ``Tensor``,
    and the top-level functions the package's import list does not name."""
    for fn, names, inplace_names in _METHODS:
        for n in names:
            setattr(Tensor, n, fn)
        for n in inplace_names:
            setattr(Tensor, n, _inplace(fn, n))
