"""Building compressed tensors from their arrays: ``torch.sparse_compressed_tensor`` and
``sparse_csc_tensor`` / ``sparse_bsr_tensor`` / ``sparse_bsc_tensor`` (and batched or
hybrid ``sparse_csr_tensor``), validated: a bad pointer or index is an error, never a
wrong tensor (PyTorch checks these only with ``check_invariants=True``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import SparseTensor
from ._compressed import SparseCompressedTensor
from ._layout import BLOCKED, ROW_MAJOR, sparse_bsc, sparse_bsr, sparse_csc, sparse_csr


def sparse_compressed_tensor(
    compressed_indices: Any,
    plain_indices: Any,
    values: Any,
    size: Any = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: Any = None,
    check_invariants: Any = None,
    pin_memory: bool = False,
) -> SparseTensor:
    """A compressed sparse tensor of ``layout`` (CSR, CSC, BSR or BSC).

    ``compressed_indices`` [*batch, n_compressed + 1] (row pointers for CSR / BSR, column
    pointers for CSC / BSC), ``plain_indices`` [*batch, nnz] and ``values`` [*batch, nnz,
    *block, *dense] (``block = (bh, bw)`` for BSR / BSC). Every batch holds the same nnz.
    Checked: pointers start at 0, never decrease and end at nnz; plain indices in range
    and strictly increasing within each compressed slice; ``size`` consistent.
    """
    from ._create import _grad_flag, _index_tensor, _own_values, _values_tensor

    what = f"sparse_compressed_tensor({layout!r})"
    if layout not in (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc):
        raise ValueError(f"{what}: layout must be sparse_csr / csc / bsr / bsc")
    cidx = _index_tensor(compressed_indices, what, "compressed_indices")
    pidx = _index_tensor(plain_indices, what, "plain_indices")
    vals = _values_tensor(values, dtype)
    if device is not None:
        vals = vals.to(device)
    nb = cidx.ndim - 1
    if nb < 0 or pidx.ndim != cidx.ndim or list(cidx.shape[:nb]) != list(pidx.shape[:nb]):
        raise ValueError(
            f"{what}: compressed_indices [*batch, n + 1] and plain_indices [*batch, nnz] need "
            f"the same batch dims, got {list(cidx.shape)} and {list(pidx.shape)}"
        )
    batch, nnz = [int(s) for s in cidx.shape[:nb]], int(pidx.shape[-1])
    nblk = 2 if layout in BLOCKED else 0
    if vals.ndim < nb + 1 + nblk or list(vals.shape[: nb + 1]) != [*batch, nnz]:
        raise ValueError(
            f"{what}: values must be [*batch, nnz{', bh, bw' if nblk else ''}, *dense] with "
            f"batch {batch} and nnz {nnz}, got {list(vals.shape)}"
        )
    block = [int(s) for s in vals.shape[nb + 1 : nb + 1 + nblk]]
    dense = [int(s) for s in vals.shape[nb + 1 + nblk :]]
    if nblk and (dense or min(block) < 1):
        raise ValueError(f"{what}: BSR / BSC values are [*batch, nnz, bh, bw] (bh, bw >= 1)")
    bh, bw = block if nblk else (1, 1)
    batches = int(np.prod(batch, dtype=np.int64))
    # one row per batch (spelled out: -1 cannot be inferred when nnz or a batch size is 0)
    c = cidx.numpy().reshape(batches, int(cidx.shape[-1]))
    p = pidx.numpy().reshape(batches, nnz)
    nc = c.shape[1] - 1
    if nc < 0:
        raise ValueError(f"{what}: compressed_indices must have at least one entry (0)")
    if c.size and ((c[:, 0] != 0).any() or (c[:, -1] != nnz).any() or (np.diff(c) < 0).any()):
        raise ValueError(
            f"{what}: compressed_indices must start at 0, never decrease and end at nnz = "
            f"{nnz} in every batch"
        )
    row_major = layout in ROW_MAJOR
    sizes = None if size is None else [int(s) for s in size]
    npl_max = int(p.max()) + 1 if p.size else 0
    if sizes is None:
        grid = (nc, npl_max) if row_major else (npl_max, nc)
        sizes = [*batch, grid[0] * bh, grid[1] * bw, *dense]
    if len(sizes) != nb + 2 + len(dense) or sizes[:nb] != batch or sizes[nb + 2 :] != dense:
        raise ValueError(
            f"{what}: size {sizes} does not fit batch dims {batch}, 2 sparse dims and the "
            f"values' dense dims {dense}"
        )
    rows, cols = sizes[nb], sizes[nb + 1]
    if rows % bh or cols % bw:
        raise ValueError(f"{what}: blocksize {(bh, bw)} does not divide the size {(rows, cols)}")
    ncomp, nplain = (rows // bh, cols // bw) if row_major else (cols // bw, rows // bh)
    if nc != ncomp:
        raise ValueError(
            f"{what}: compressed_indices has {nc + 1} entries per batch; size {sizes} needs "
            f"{ncomp + 1}"
        )
    if p.size and (int(p.min()) < 0 or int(p.max()) >= nplain):
        raise IndexError(f"{what}: a plain index is outside [0, {nplain})")
    if p.size:
        slice_of = np.concatenate([np.repeat(np.arange(nc), np.diff(cb)) for cb in c])
        same = slice_of[1:] == slice_of[:-1]
        inside = np.ones(p.shape, bool)
        inside[:, 0] = False  # a batch's first entry starts a new slice
        flat_inside = inside.reshape(-1)[1:] & same
        if (flat_inside & (p.reshape(-1)[1:] <= p.reshape(-1)[:-1])).any():
            raise ValueError(
                f"{what}: plain indices must be strictly increasing within each compressed "
                "slice (sort them, or build a COO tensor and convert it)"
            )
    vals, leaf = _own_values(vals, _grad_flag(requires_grad, True), what)
    if layout is sparse_csr and nb == 0 and not dense:
        from ._csr import SparseCsrTensor

        return SparseCsrTensor(cidx, pidx, vals, tuple(sizes), leaf=leaf)
    return SparseCompressedTensor(cidx, pidx, vals, tuple(sizes), layout, leaf=leaf)


def _named(layout: Any, cname: str, pname: str) -> Any:
    def build(
        compressed: Any,
        plain: Any,
        values: Any,
        size: Any = None,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: Any = None,
        check_invariants: Any = None,
        pin_memory: bool = False,
    ) -> SparseTensor:
        return sparse_compressed_tensor(
            compressed, plain, values, size, dtype=dtype, layout=layout, device=device,
            requires_grad=requires_grad,
        )  # fmt: skip

    name = repr(layout).replace("ferrograd.sparse_", "")
    build.__name__ = build.__qualname__ = f"sparse_{name}_tensor"
    build.__doc__ = (
        f"``torch.sparse_{name}_tensor({cname}, {pname}, values, size=None, *, dtype, "
        f"requires_grad)``: :func:`sparse_compressed_tensor` with layout {layout!r}."
    )
    return build


#: ``torch.sparse_csc_tensor(ccol_indices, row_indices, values, size)``
sparse_csc_tensor = _named(sparse_csc, "ccol_indices", "row_indices")
#: ``torch.sparse_bsr_tensor(crow_indices, col_indices, values [nnz, bh, bw], size)``
sparse_bsr_tensor = _named(sparse_bsr, "crow_indices", "col_indices")
#: ``torch.sparse_bsc_tensor(ccol_indices, row_indices, values [nnz, bh, bw], size)``
sparse_bsc_tensor = _named(sparse_bsc, "ccol_indices", "row_indices")
