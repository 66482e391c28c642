"""Reductions over sparse tensors: ``sum`` (both dialects) and ``softmax`` /
``log_softmax`` over the stored entries (implicit zeros are absent, not ``exp(0)``).

Grouping entries that share every coordinate but the reduced one uses the same linear
keys as coalescing: ``unique`` gives each entry its group, ``index_add`` sums per group,
``scatter_reduce(amax)`` takes the (detached) per-group maximum for a stable softmax.
"""

from __future__ import annotations

from typing import Any

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor, linear_keys
from ._csr import SparseCsrTensor, coo_to_csr
from ._elementwise import canonical

Tensor = _core.Tensor


def _dims(spec: Any, ndim: int, what: str) -> list[int]:
    items = [spec] if isinstance(spec, int) else list(spec)
    out = []
    for d in items:
        d = int(d)
        if not -ndim <= d < ndim:
            raise IndexError(f"{what}: dimension {d} is out of range for {ndim} dimensions")
        out.append(d % ndim)
    return sorted(set(out))


def sum(  # noqa: A001  (torch.sparse.sum / paddle.sparse.sum)
    x: SparseTensor,
    axis: Any = None,
    dtype: Any = None,
    keepdim: bool = False,
    name: Any = None,
    *,
    dim: Any = None,
) -> Any:
    """Sum of a sparse tensor over ``axis`` / ``dim`` (all dimensions by default).

    Over everything: a dense 0-d tensor (PyTorch; Paddle returns a 1-element sparse
    tensor, which ferrograd gives with ``keepdim=True``). Over some dimensions: a sparse
    tensor over the remaining sparse dimensions (duplicates summed), or a dense tensor
    when every sparse dimension is reduced (PyTorch's rule). ``keepdim`` (Paddle) keeps
    the reduced dimensions with size 1. Differentiable w.r.t. the values.
    """
    what = "sparse.sum"
    spec = axis if dim is None else dim
    c: SparseCooTensor = x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()  # type: ignore[assignment]
    v = c.values() if dtype is None else c.values().to(dtype)
    sd = c.sparse_dim()
    if spec is None:
        total = v.sum()
        if not keepdim:
            return total
        ones = tuple(1 for _ in c.shape)
        idx = fg.zeros([len(ones), 1], dtype=fg.int64)
        return SparseCooTensor(idx, total.reshape([1]), ones, coalesced=True)
    dims = _dims(spec, c.ndim, what)
    dense_red = [d - sd + 1 for d in dims if d >= sd]
    if dense_red:
        v = v.sum(dense_red, keepdim=keepdim)
    sparse_red = [d for d in dims if d < sd]
    kept = [d for d in range(sd) if d not in sparse_red]
    if not kept and not keepdim:
        return v.sum(0)  # every sparse dimension reduced: dense, as PyTorch
    if keepdim:
        idx = c.indices() * fg.tensor(
            [0 if d in sparse_red else 1 for d in range(sd)], dtype=fg.int64
        ).unsqueeze(1)
        shape = tuple(1 if d in dims else s for d, s in enumerate(c._shape))
    else:
        idx = c.indices().index_select(0, fg.tensor(kept, dtype=fg.int64))
        shape = tuple(s for d, s in enumerate(c._shape) if d not in dims)
    out = SparseCooTensor(idx, v, shape, coalesced=c.is_coalesced() and not sparse_red)
    if sparse_red:
        out = out.coalesce()
    if isinstance(x, SparseCsrTensor) and out.ndim == 2 and out.dense_dim() == 0:
        return coo_to_csr(out)
    return out


def _softmax(x: SparseTensor, dim: Any, dtype: Any, axis: Any, log: bool) -> SparseTensor:
    what = "sparse.log_softmax" if log else "sparse.softmax"
    spec = axis if dim is None else dim
    if spec is None:
        spec = -1
    c0 = canonical(x)
    c: SparseCooTensor = c0 if isinstance(c0, SparseCooTensor) else c0.to_sparse_coo()  # type: ignore[assignment]
    d = _dims(spec, c.ndim, what)[0]
    v = c.values() if dtype is None else c.values().to(dtype)
    if not v.is_floating_point():
        raise TypeError(f"{what}: needs floating values, got {v.dtype} (pass dtype=)")
    sd = c.sparse_dim()
    if d >= sd:  # a dense dimension: an ordinary softmax of each stored block
        fn = fg.nn.functional.log_softmax if log else fg.nn.functional.softmax
        return c0._with_values(fn(v, d - sd + 1).reshape(list(c0.values().shape)))
    others = [k for k in range(sd) if k != d]
    sizes = tuple(c._shape[k] for k in others)
    rows = c.indices().index_select(0, fg.tensor(others, dtype=fg.int64))
    _, group = fg.unique(linear_keys(rows, sizes, what), return_inverse=True)
    n_groups = int(group.amax()) + 1 if group.shape[0] else 0
    idx = group.reshape([-1] + [1] * (v.ndim - 1)).expand(list(v.shape))
    block = [n_groups, *v.shape[1:]]
    top = fg.scatter_reduce(
        fg.zeros(block, dtype=v.dtype), 0, idx, v.detach(), "amax", include_self=False
    )
    shifted = v - top.index_select(0, group)  # the shift is a constant: exact gradients
    e = shifted.exp()
    total = fg.zeros(block, dtype=v.dtype).index_add(0, group, e)
    if log:
        out = shifted - total.log().index_select(0, group)
    else:
        out = e / total.index_select(0, group)
    # a compressed tensor's COO view lists its values in stored order: reshape back
    return c0._with_values(out.reshape(list(c0.values().shape)))


def softmax(
    x: SparseTensor, dim: Any = None, dtype: Any = None, *, axis: Any = None, name: Any = None
) -> SparseTensor:
    """Softmax over the stored entries along ``dim`` / ``axis`` (default the last).

    ``torch.sparse.softmax(input, dim, dtype=None)`` and Paddle's
    ``sparse.nn.functional.softmax(x, axis=-1)``: implicit zeros take no part (they stay
    absent, not ``exp(0)``); the result has the input's pattern (coalesced).
    """
    return _softmax(x, dim, dtype, axis, log=False)


def log_softmax(
    x: SparseTensor, dim: Any = None, dtype: Any = None, *, axis: Any = None, name: Any = None
) -> SparseTensor:
    """``torch.sparse.log_softmax``: log of :func:`softmax` over the stored entries."""
    return _softmax(x, dim, dtype, axis, log=True)
