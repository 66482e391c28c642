"""Products with sparse operands: sparse @ dense (2-D, and batched 3-D COO), dense @
sparse, sparse @ sparse, ``addmm``, Paddle's ``masked_matmul`` / ``mv`` and PyTorch's
``sampled_addmm``.

sparse @ dense is ``index_add`` of ``values * dense[cols]`` into the output rows: the
gradient w.r.t. the dense operand is an ``index_add`` back (through ``index_select``'s
backward) and w.r.t. the values ``(grad[rows] * dense[cols]).sum(-1)``, both from
ferrograd's engine. sparse @ sparse expands each entry of the left operand over the
matching row of the right one (``repeat_interleave`` over row lengths) and coalesces.
"""

from __future__ import annotations

from typing import Any

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor
from ._csr import SparseCsrTensor, coo_to_csr

Tensor = _core.Tensor


def _coo(s: SparseTensor) -> SparseCooTensor:
    return s if isinstance(s, SparseCooTensor) else s.to_sparse_coo()  # type: ignore[return-value]


def _no_hybrid(s: SparseTensor, what: str) -> None:
    if s.dense_dim():
        raise NotImplementedError(
            f"{what}: products of hybrid sparse tensors (dense_dim {s.dense_dim()}, shape "
            f"{list(s.shape)}) are not defined; PyTorch refuses them too. Use a sparse_dim == "
            "ndim tensor, or .to_dense()"
        )


def _dense(y: Any, what: str) -> Tensor:
    if not isinstance(y, Tensor):
        raise TypeError(f"{what}: expected a Tensor or a sparse tensor, got {type(y).__name__}")
    return y


def sparse_dense(s: SparseTensor, y: Tensor, what: str) -> Tensor:
    """``s @ y`` for sparse ``s`` (2-D, or 3-D batched COO) and dense ``y``: a dense result."""
    _no_hybrid(s, what)
    c = _coo(s)
    idx, vals = c.indices(), c.values()
    if s.ndim == 2:
        vec = y.ndim == 1
        mat = y.unsqueeze(1) if vec else y
        if mat.ndim != 2 or mat.shape[0] != s.shape[1]:
            raise ValueError(
                f"{what}: cannot multiply a sparse {list(s.shape)} matrix by a dense "
                f"{list(y.shape)} operand (expected [{s.shape[1]}, k] or [{s.shape[1]}])"
            )
        rows, cols, n = idx[0], idx[1], s.shape[0]
    elif s.ndim == 3:
        b, n, m = s.shape
        if y.ndim != 3 or y.shape[0] != b or y.shape[1] != m:
            raise ValueError(
                f"{what}: a batched sparse {list(s.shape)} tensor needs a dense [{b}, {m}, k] "
                f"operand, got {list(y.shape)}"
            )
        vec = False
        mat = y.reshape([b * m, y.shape[2]])
        rows, cols = idx[0] * n + idx[1], idx[0] * m + idx[2]
        n = b * n
    else:
        raise ValueError(f"{what}: the sparse operand must be 2-D or 3-D, got {s.ndim}-D")
    contrib = vals.unsqueeze(1) * mat.index_select(0, cols)
    out = fg.zeros([n, mat.shape[1]], dtype=contrib.dtype).index_add(0, rows, contrib)
    if s.ndim == 3:
        return out.reshape([s.shape[0], s.shape[1], y.shape[2]])
    return out.squeeze(1) if vec else out


def sparse_sparse(a: SparseTensor, b: SparseTensor, what: str) -> SparseTensor:
    """``a @ b`` for two 2-D sparse matrices: sparse (CSR when both are CSR, else COO)."""
    _no_hybrid(a, what)
    _no_hybrid(b, what)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(
            f"{what}: cannot multiply sparse {list(a.shape)} by sparse {list(b.shape)}"
        )
    ca = _coo(a).coalesce()
    cb = b if isinstance(b, SparseCsrTensor) else coo_to_csr(_coo(b))
    ra, ka = ca.indices()[0], ca.indices()[1]
    crow = cb.crow_indices()
    per_entry = (crow[1:] - crow[:-1]).index_select(0, ka)  # entries of b's row ka
    total = int(per_entry.sum()) if per_entry.shape[0] else 0
    a_of = fg.repeat_interleave(fg.arange(int(ka.shape[0]), dtype=fg.int64), per_entry)
    first = per_entry.cumsum(0) - per_entry
    offset = fg.arange(total, dtype=fg.int64) - first.index_select(0, a_of)
    b_of = crow.index_select(0, ka.index_select(0, a_of)) + offset
    vals = ca.values().index_select(0, a_of) * cb.values().index_select(0, b_of)
    indices = fg.stack([ra.index_select(0, a_of), cb.col_indices().index_select(0, b_of)], 0)
    out = SparseCooTensor(indices, vals, (a.shape[0], b.shape[1])).coalesce()
    if isinstance(a, SparseCsrTensor) and isinstance(b, SparseCsrTensor):
        return coo_to_csr(out)
    return out


def matmul(x: Any, y: Any, name: Any = None) -> Any:
    """``x @ y`` where one or both operands are sparse (``paddle.sparse.matmul``).

    sparse @ dense and dense @ sparse give dense results, sparse @ sparse a sparse one.
    The sparse operand is 2-D (a dense vector or matrix on the other side) or, for
    sparse @ dense, a 3-D batched COO tensor with a 3-D dense operand.
    """
    what = "sparse.matmul"
    xs, ys = isinstance(x, SparseTensor), isinstance(y, SparseTensor)
    if xs and ys:
        return sparse_sparse(x, y, what)
    if xs:
        return sparse_dense(x, _dense(y, what), what)
    if ys:
        x = _dense(x, what)
        if y.ndim != 2 or x.ndim not in (1, 2):
            raise ValueError(
                f"{what}: dense @ sparse needs a 1-D/2-D dense and a 2-D sparse operand"
            )
        yt = y.t()
        if x.ndim == 1:
            return sparse_dense(yt, x, what)
        return sparse_dense(yt, x.t(), what).t()
    return fg.matmul(x, y)


def mm(mat1: Any, mat2: Any, reduce: Any = None) -> Any:
    """``torch.sparse.mm``: a 2-D matrix product with a sparse operand.

    sparse @ dense is dense, sparse @ sparse sparse. PyTorch's ``reduce=`` other than
    ``"sum"`` is not implemented.
    """
    if reduce not in (None, "sum"):
        raise NotImplementedError(f"sparse.mm: reduce={reduce!r} is not implemented (only 'sum')")
    for t in (mat1, mat2):
        if isinstance(t, SparseTensor):
            _no_hybrid(t, "sparse.mm")
        if getattr(t, "ndim", 2) != 2:
            raise ValueError(f"sparse.mm: expects 2-D operands, got shape {list(t.shape)}")
    return matmul(mat1, mat2)


def spmm(input: Any, mat2: Any) -> Any:
    """``torch.spmm(sparse, dense)``: a sparse 2-D matrix times a dense one (dense result)."""
    if not isinstance(input, SparseTensor):
        raise TypeError("spmm: the first operand must be a sparse matrix (use mm / matmul)")
    return mm(input, mat2)


def addmm(
    input: Any, mat1: Any, mat2: Any, beta: float = 1.0, alpha: float = 1.0, name: Any = None
) -> Any:
    """``beta * input + alpha * (mat1 @ mat2)`` with a sparse ``mat1`` and/or ``mat2``.

    ``torch.sparse.addmm(mat, mat1, mat2, *, beta, alpha)`` / ``paddle.sparse.addmm(input,
    x, y, beta, alpha)``. ``beta=0`` ignores ``input`` (NaN in it does not propagate).
    """
    prod = matmul(mat1, mat2)
    scaled = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return scaled
    base = input if beta == 1 else input * beta
    if isinstance(scaled, SparseTensor) and not isinstance(base, SparseTensor):
        scaled = scaled.to_dense()
    if isinstance(base, SparseTensor) and not isinstance(scaled, SparseTensor):
        base = base.to_dense()
    return base + scaled


def mv(x: SparseTensor, vec: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``sparse.mv``: a 2-D sparse matrix times a dense vector."""
    if not isinstance(x, SparseTensor) or getattr(vec, "ndim", 0) != 1:
        raise ValueError("sparse.mv: expects a 2-D sparse matrix and a 1-D dense vector")
    return sparse_dense(x, vec, "sparse.mv")


def masked_matmul(x: Tensor, y: Tensor, mask: SparseTensor, name: Any = None) -> SparseTensor:
    """Paddle's ``sparse.masked_matmul``: ``x @ y`` evaluated only at ``mask``'s entries.

    ``x`` [n, k] and ``y`` [k, m] are dense; the result has ``mask``'s layout and pattern.
    Differentiable w.r.t. ``x`` and ``y``.
    """
    what = "sparse.masked_matmul"
    _no_hybrid(mask, what)
    if x.ndim != 2 or y.ndim != 2 or list(mask.shape) != [x.shape[0], y.shape[1]]:
        raise ValueError(
            f"{what}: needs 2-D x [n, k], y [k, m] and a mask of shape [n, m]; got "
            f"{list(x.shape)}, {list(y.shape)}, mask {list(mask.shape)}"
        )
    # an uncoalesced COO mask is coalesced first, so each position is computed once
    c = mask.coalesce() if isinstance(mask, SparseCooTensor) else mask
    idx = _coo(c).indices()
    vals = (x.index_select(0, idx[0]) * y.t().index_select(0, idx[1])).sum(-1)
    # the COO view lists a compressed tensor's entries in stored order (BSR: per block)
    return c._with_values(vals.reshape(list(c.values().shape)))


def sampled_addmm(
    input: SparseTensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1.0, alpha: float = 1.0
) -> SparseTensor:
    """``torch.sparse.sampled_addmm``: ``beta * input + alpha * (mat1 @ mat2)`` at the
    entries of the sparse ``input`` (same layout and pattern)."""
    c = input.coalesce() if isinstance(input, SparseCooTensor) else input
    prod = masked_matmul(mat1, mat2, c).values()
    return c._with_values(beta * c.values() + alpha * prod)
