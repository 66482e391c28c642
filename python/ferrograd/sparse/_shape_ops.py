"""Shape ops on sparse tensors: Paddle's ``sparse.reshape`` / ``sparse.slice`` and
PyTorch's ``s[i]`` / ``s.select(dim, i)`` / ``s.index_select(dim, index)`` on COO.

Each keeps the stored values as the values of the result, moved by ``index_select``
(entries dropped or repeated) or untouched (``reshape`` only renumbers the indices), so
gradients reach the input's values. Index arithmetic uses the same linear keys as
coalescing; no Python loop visits the entries.
"""

from __future__ import annotations

import builtins
from typing import Any

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor, linear_keys, unravel

Tensor = _core.Tensor


def _as_coo(x: Any, what: str) -> SparseCooTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{what}: expected a sparse tensor, got {type(x).__name__}")
    return x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()  # type: ignore[return-value]


def _back(x: SparseTensor, out: SparseCooTensor) -> SparseTensor:
    """``out`` in ``x``'s layout (COO stays COO; CSR and the others convert back)."""
    if isinstance(x, SparseCooTensor):
        return out
    return out.to_sparse(layout=x.layout, blocksize=getattr(x, "blocksize", None))  # type: ignore[attr-defined]


def _resolve_shape(shape: Any, old: tuple[int, ...], what: str) -> list[int]:
    dims = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
    dims = [old[i] if d == 0 and i < len(old) else d for i, d in enumerate(dims)]  # Paddle: 0
    total = 1
    for s in old:
        total *= s
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValueError(f"{what}: shape {list(shape)} may hold one -1 and sizes >= 0")
    known = 1
    for d in dims:
        known *= d if d != -1 else 1
    if -1 in dims:
        if known == 0 or total % known:
            raise ValueError(f"{what}: cannot infer -1 in {list(shape)} for {total} elements")
        dims[dims.index(-1)] = total // known
    return dims


def _prod(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return n


def reshape(x: SparseTensor, shape: Any, name: Any = None) -> SparseTensor:
    """Paddle's ``sparse.reshape(x, shape)``: the same entries under a new shape.

    Only the sparse dimensions change: a hybrid tensor keeps its trailing dense
    dimensions (the new shape must end with them). ``0`` copies the input's size and one
    ``-1`` is inferred. COO stays COO; CSR (and the other compressed layouts) convert back
    (a 3-D result is batched CSR, which needs the same nnz per batch). The values are the
    input's (gradients pass unchanged).
    """
    what = "sparse.reshape"
    c = _as_coo(x, what)
    sd, dd = c.sparse_dim(), c.dense_dim()
    dense = list(c.shape[sd:])
    new = list(shape.tolist() if isinstance(shape, Tensor) else shape)
    if dd and [int(s) for s in new[len(new) - dd :]] != dense:
        raise ValueError(
            f"{what}: a hybrid tensor's dense dims {dense} cannot change; the new shape "
            f"{new} must end with them"
        )
    sizes = _resolve_shape(new[: len(new) - dd], tuple(c.shape[:sd]), what)
    if _prod(sizes) != _prod(c.shape[:sd]) or not sizes:  # -1 inferred; checked here
        raise ValueError(f"{what}: cannot reshape the sparse dims {list(c.shape[:sd])} to {sizes}")
    keys = linear_keys(c.indices(), tuple(c.shape[:sd]), what)
    out = SparseCooTensor(
        unravel(keys, tuple(sizes)), c.values(), (*sizes, *dense), coalesced=c.is_coalesced()
    )
    return _back(x, out)


def slice(  # noqa: A001  (paddle.sparse.slice)
    x: SparseTensor, axes: Any, starts: Any, ends: Any, name: Any = None
) -> SparseTensor:
    """Paddle's ``sparse.slice(x, axes, starts, ends)``: ``x[start:end]`` along each axis.

    Starts and ends follow Python's rules (negative counts from the end, clamped to the
    size). Entries outside are dropped (an ``index_select`` of the values, so gradients
    reach the kept ones); dense axes slice the values. The layout is kept.
    """
    what = "sparse.slice"
    c = _as_coo(x, what)

    def ints(v: Any) -> list[int]:
        v = v.tolist() if isinstance(v, Tensor) else v
        return [int(s) for s in (v if isinstance(v, (list, tuple)) else [v])]

    axes, starts, ends = ints(axes), ints(starts), ints(ends)
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"{what}: axes, starts and ends need the same length")
    sd = c.sparse_dim()
    idx, vals, shape = c.indices(), c.values(), list(c.shape)
    keep = None
    for a, s, e in zip(axes, starts, ends):
        if not -c.ndim <= a < c.ndim:
            raise IndexError(f"{what}: axis {a} is out of range for {c.ndim} dims")
        a %= c.ndim
        s, e, _ = builtins.slice(s, e).indices(shape[a])
        e = max(e, s)
        if a < sd:
            inside = (idx[a] >= s) & (idx[a] < e)
            keep = inside if keep is None else keep & inside
            shift = _core.zeros([sd, 1], dtype=_core.int64)
            shift[a, 0] = s
            idx = idx - shift
        else:
            vals = vals.narrow(a - sd + 1, s, e - s)
        shape[a] = e - s
    if keep is not None:
        sel = keep.nonzero().reshape([-1])
        idx, vals = idx.index_select(1, sel), vals.index_select(0, sel)
    out = SparseCooTensor(idx, vals, tuple(shape), coalesced=c.is_coalesced())
    return _back(x, out)


def _dim(d: Any, ndim: int, what: str) -> int:
    d = int(d)
    if not -ndim <= d < ndim:
        raise IndexError(f"{what}: dimension {d} is out of range for {ndim} dimensions")
    return d % ndim


def _coo_only(x: SparseTensor, what: str) -> SparseCooTensor:
    if not isinstance(x, SparseCooTensor):
        raise NotImplementedError(
            f"{what}: indexing is implemented for COO tensors; call .to_sparse_coo() first"
        )
    return x


def select(x: SparseTensor, dim: Any, index: Any) -> Any:
    """``x.select(dim, i)``: the slice at ``i`` along ``dim``, without that dimension.

    A sparse dimension gives a sparse tensor with one sparse dimension less (a dense one,
    duplicates summed, when none would remain); a dense dimension selects in the values.
    """
    what = "select"
    c = _coo_only(x, what)
    d = _dim(dim, c.ndim, what)
    i = int(index)
    if not -c.shape[d] <= i < c.shape[d]:
        raise IndexError(f"{what}: index {i} is out of range for size {c.shape[d]} (dim {d})")
    i %= c.shape[d]
    sd = c.sparse_dim()
    shape = tuple(s for k, s in enumerate(c._shape) if k != d)
    if d >= sd:
        vals = c.values().select(d - sd + 1, i)
        return SparseCooTensor(c.indices(), vals, shape, coalesced=c.is_coalesced())
    sel = (c.indices()[d] == i).nonzero().reshape([-1])
    vals = c.values().index_select(0, sel)
    if sd == 1:  # no sparse dimension would remain: the dense slice
        # in x's dtype, as PyTorch's select_sparse (TensorShape.cpp) sums with
        # dtype=values.scalar_type() (the core's sum returns the dtype asked for)
        return vals.sum(0, dtype=vals.dtype)
    others = _core.tensor([k for k in range(sd) if k != d], dtype=_core.int64)
    idx = c.indices().index_select(0, others).index_select(1, sel)
    return SparseCooTensor(idx, vals, shape, coalesced=c.is_coalesced())


def index_select(x: SparseTensor, dim: Any, index: Any) -> SparseTensor:
    """``x.index_select(dim, index)``: a sparse tensor whose ``dim`` lists ``x``'s slices
    at ``index`` (repeats allowed); entries are repeated by ``index_select`` of the values.
    """
    what = "index_select"
    c = _coo_only(x, what)
    d = _dim(dim, c.ndim, what)
    index = index if isinstance(index, Tensor) else _core.tensor(index, dtype=_core.int64)
    if index.ndim != 1 or index.is_floating_point():
        raise ValueError(f"{what}: index must be a 1-D integer tensor, got {list(index.shape)}")
    index = index.to(_core.int64)
    m = int(index.shape[0])
    if m and (int(index.amin()) < 0 or int(index.amax()) >= c.shape[d]):
        raise IndexError(f"{what}: an index is out of range for size {c.shape[d]} (dim {d})")
    sd = c.sparse_dim()
    shape = list(c._shape)
    shape[d] = m
    if d >= sd:
        vals = c.values().index_select(d - sd + 1, index)
        return SparseCooTensor(c.indices(), vals, tuple(shape), coalesced=c.is_coalesced())
    order = fg.argsort(index)
    ranked = index.index_select(0, order)
    coord = c.indices()[d]
    lo = fg.searchsorted(ranked, coord)
    count = fg.searchsorted(ranked, coord, right=True) - lo
    ent = fg.repeat_interleave(_core.arange(c.nnz(), dtype=_core.int64), count)
    start = (count.cumsum(0) - count).index_select(0, ent)
    offset = _core.arange(int(ent.shape[0]), dtype=_core.int64) - start
    pos = order.index_select(0, lo.index_select(0, ent) + offset)
    idx = c.indices().index_select(1, ent)
    rows = [pos.unsqueeze(0) if k == d else idx[k].unsqueeze(0) for k in range(sd)]
    out_idx = _core.concat(rows, 0)
    return SparseCooTensor(out_idx, c.values().index_select(0, ent), tuple(shape))


def getitem(x: SparseTensor, key: Any) -> Any:
    """``x[key]`` for COO: ints (``select``), slices with step 1 (``slice``) and a 1-D
    integer tensor or list on the first dimension (``index_select``)."""
    what = "sparse indexing"
    keys = key if isinstance(key, tuple) else (key,)
    if len(keys) > x.ndim:
        raise IndexError(f"{what}: {len(keys)} indices for a {x.ndim}-D tensor")
    out: Any = x
    d = 0
    for pos, k in enumerate(keys):
        if not isinstance(out, SparseTensor):  # a dense slice: index the rest densely
            return out[tuple(keys[pos:])]
        if isinstance(k, bool) or k is None or k is Ellipsis:
            raise NotImplementedError(f"{what}: {k!r} is not supported on a sparse tensor")
        if isinstance(k, int) or (isinstance(k, Tensor) and k.ndim == 0):
            out = select(out, d, int(k))
        elif isinstance(k, builtins.slice):
            start, stop, step = k.indices(out.shape[d])
            if step != 1:
                raise NotImplementedError(f"{what}: slices with a step other than 1")
            out = slice(_coo_only(out, what), [d], [start], [max(stop, start)])
            d += 1
        elif isinstance(k, (list, Tensor)) and len(keys) == 1:
            out = index_select(out, 0, k)
            d += 1
        else:
            raise NotImplementedError(
                f"{what}: index {k!r} is not supported (ints, slices, or one 1-D index list)"
            )
    return out
