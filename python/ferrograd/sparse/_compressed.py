"""Compressed sparse layouts beyond 2-D CSR: CSC, BSR, BSC, and batched or hybrid CSR
(``torch.sparse_csc`` / ``sparse_bsr`` / ``sparse_bsc`` / batched ``sparse_csr``).

A :class:`SparseCompressedTensor` holds ``compressed_indices`` [*batch, n_compressed + 1],
``plain_indices`` [*batch, nnz] and ``values`` [*batch, nnz, *block, *dense] (``block`` is
``(bh, bw)`` for BSR / BSC, absent otherwise). Every batch holds the same ``nnz``
(PyTorch's rule). Ops run on the COO view (:meth:`SparseCompressedTensor.to_sparse_coo`),
whose values are a reshape of the stored ones, so gradients reach them unchanged.

Conversions into these layouts (:func:`coo_to_compressed`, :func:`dense_to_compressed`)
sort entries by linear keys ``(batch, compressed, plain)`` with ``argsort`` / ``unique``
and count them per compressed slice with ``bincount``: no Python loop visits the entries.
"""

from __future__ import annotations

from typing import Any

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor, linear_keys, unravel
from ._layout import BLOCKED, ROW_MAJOR, Flag, sparse_bsc, sparse_bsr, sparse_csc, sparse_csr

Tensor = _core.Tensor


def _prod(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return n


class SparseCompressedTensor(SparseTensor):
    """A CSC, BSR or BSC tensor, or a batched / hybrid CSR one (2-D CSR without dense
    dimensions is :class:`SparseCsrTensor`).

    Build one with ``torch.sparse_csc_tensor`` / ``sparse_bsr_tensor`` /
    ``sparse_bsc_tensor`` / ``sparse_compressed_tensor`` or ``x.to_sparse_csc()``,
    ``x.to_sparse_bsr(blocksize)``, ``x.to_sparse(layout=..., blocksize=...)``.
    """

    def __init__(
        self,
        compressed: Tensor,
        plain: Tensor,
        values: Tensor,
        shape: tuple[int, ...],
        layout: Any,
        *,
        leaf: bool = False,
    ) -> None:
        # trusted: the public constructors validate (see _create_compressed.py)
        self._cidx = compressed
        self._pidx = plain
        self._vals = values
        self._shape = tuple(int(s) for s in shape)
        self._layout = layout
        self._leaf = bool(leaf)

    @property
    def layout(self) -> Any:
        """``sparse_csr``, ``sparse_csc``, ``sparse_bsr`` or ``sparse_bsc``."""
        return self._layout

    @property
    def is_sparse_coo(self) -> Flag:
        """False (a property that is also callable, as Paddle's method)."""
        return Flag(False)

    @property
    def is_sparse_csr(self) -> Flag:
        """True for the (batched / hybrid) CSR layout."""
        return Flag(self._layout is sparse_csr)

    def _batch(self) -> tuple[int, ...]:
        return self._shape[: int(self._cidx.ndim) - 1]

    def _block(self) -> tuple[int, int] | None:
        if self._layout not in BLOCKED:
            return None
        nb = len(self._batch())
        return int(self._vals.shape[nb + 1]), int(self._vals.shape[nb + 2])

    @property
    def blocksize(self) -> tuple[int, int] | None:
        """``(bh, bw)`` for BSR / BSC, None otherwise."""
        return self._block()

    def sparse_dim(self) -> int:
        """2: the compressed and plain dimensions (batch dimensions are not counted)."""
        return 2

    def dense_dim(self) -> int:
        """Trailing dimensions stored per entry (or per block element)."""
        return len(self._shape) - len(self._batch()) - 2

    def nnz(self) -> int:
        """Stored entries (blocks for BSR / BSC) per batch, as PyTorch counts them."""
        return int(self._pidx.shape[-1])

    _nnz = nnz

    def _need(self, layouts: tuple, name: str) -> None:
        if self._layout not in layouts:
            raise RuntimeError(
                f"{name}: not defined for layout {self._layout!r} (crow_indices / col_indices "
                "are CSR / BSR names, ccol_indices / row_indices CSC / BSC ones)"
            )

    def crow_indices(self) -> Tensor:
        """Row pointers [*batch, rows + 1] (CSR; block rows for BSR)."""
        self._need(ROW_MAJOR, "crow_indices")
        return self._cidx

    def col_indices(self) -> Tensor:
        """Column (block column) of every entry, [*batch, nnz] (CSR / BSR)."""
        self._need(ROW_MAJOR, "col_indices")
        return self._pidx

    def ccol_indices(self) -> Tensor:
        """Column pointers [*batch, cols + 1] (CSC; block columns for BSC)."""
        self._need((sparse_csc, sparse_bsc), "ccol_indices")
        return self._cidx

    def row_indices(self) -> Tensor:
        """Row (block row) of every entry, [*batch, nnz] (CSC / BSC)."""
        self._need((sparse_csc, sparse_bsc), "row_indices")
        return self._pidx

    crows = crow_indices  # Paddle's names
    cols = col_indices

    def values(self) -> Tensor:
        """The stored values, [*batch, nnz, *block, *dense] (for a leaf, the tensor that
        collects the gradient)."""
        return self._vals

    def _with_values(self, values: Tensor) -> SparseCompressedTensor:
        return SparseCompressedTensor(self._cidx, self._pidx, values, self._shape, self._layout)

    def _grad_from_values(self, g: Tensor) -> SparseCompressedTensor:
        return self._with_values(g)

    # -- conversions --------------------------------------------------------------------
    def to_sparse_coo(self, sparse_dim: Any = None) -> SparseCooTensor:
        """The COO form: sparse dims = batch + 2, the dense dims stay dense. Its values are
        a reshape of the stored ones, in the stored order (block elements row-major), so
        zeros stored inside a block stay stored."""
        nb = len(self._batch())
        if sparse_dim is not None and int(sparse_dim) != nb + 2:
            raise ValueError(f"to_sparse_coo: this tensor converts to sparse_dim={nb + 2} only")
        batches, nnz = _prod(self._batch()), self.nnz()
        nc = int(self._cidx.shape[-1]) - 1
        counts = (self._cidx[..., 1:] - self._cidx[..., :-1]).reshape([-1])
        g = fg.repeat_interleave(_core.arange(batches * nc, dtype=_core.int64), counts)
        comp, b = g % max(nc, 1), g // max(nc, 1)
        plain = self._pidx.reshape([-1])
        r, c = (comp, plain) if self._layout in ROW_MAJOR else (plain, comp)
        block = self._block()
        dense = list(self._shape[nb + 2 :])
        if block is not None:
            bh, bw = block
            e = _core.arange(batches * nnz * bh * bw, dtype=_core.int64)
            blk, inner = e // (bh * bw), e % (bh * bw)
            r = r.index_select(0, blk) * bh + inner // bw
            c = c.index_select(0, blk) * bw + inner % bw
            b = b.index_select(0, blk)
        rows = [unravel(b, self._batch())] if nb else []
        indices = _core.concat([*rows, r.unsqueeze(0), c.unsqueeze(0)], 0)
        per = _prod(block) if block is not None else 1  # (explicit: -1 fails at size 0)
        vals = self._vals.reshape([batches * nnz * per, *dense])
        sorted_rows = self._layout is sparse_csr  # (batch, row, col) order already
        return SparseCooTensor(indices, vals, self._shape, coalesced=sorted_rows)

    def to_dense(self) -> Tensor:
        """The dense tensor; differentiable w.r.t. the values."""
        return self.to_sparse_coo().to_dense()

    def __repr__(self) -> str:
        names = (
            ("crow_indices", "col_indices")
            if self._layout in ROW_MAJOR
            else ("ccol_indices", "row_indices")
        )

        def sub(t: Tensor, label: str) -> str:
            return repr(t).replace("\n", "\n" + " " * (7 + len(label) + 1))

        size = ", ".join(str(s) for s in self._shape)
        return (
            f"tensor({names[0]}={sub(self._cidx, names[0])},\n"
            f"       {names[1]}={sub(self._pidx, names[1])},\n"
            f"       values={sub(self._vals, 'values')}, size=({size}), nnz={self.nnz()}, "
            f"dtype={self.dtype}, layout={self._layout})"
        )


def norm_blocksize(blocksize: Any, what: str) -> tuple[int, int]:
    """``(bh, bw)`` from an int or a pair of positive ints."""
    if blocksize is None:
        raise TypeError(f"{what}: the BSR / BSC layouts need blocksize=(bh, bw)")
    bs = (int(blocksize), int(blocksize)) if isinstance(blocksize, int) else tuple(blocksize)
    if len(bs) != 2 or min(int(v) for v in bs) < 1:
        raise ValueError(f"{what}: blocksize must be two positive ints, got {blocksize!r}")
    return int(bs[0]), int(bs[1])


def check_blocksize(blocksize: Any, rows: int, cols: int, what: str) -> tuple[int, int]:
    """``(bh, bw)`` from ``blocksize``, checked to divide ``rows`` and ``cols``."""
    bh, bw = norm_blocksize(blocksize, what)
    if rows % bh or cols % bw:
        raise ValueError(
            f"{what}: blocksize {(bh, bw)} does not divide the matrix size {(rows, cols)}"
        )
    return bh, bw


def _assemble(
    keys: Tensor, vals: Tensor, shape: tuple[int, ...], nb: int, grid: tuple[int, int], layout: Any
) -> SparseTensor:
    """A compressed tensor from entries sorted by unique keys ``(batch * nc + comp) * np +
    plain`` and their values [n, ...]."""
    from ._csr import SparseCsrTensor

    batch = shape[:nb]
    batches = _prod(batch)
    nc, npl = grid
    n = int(keys.shape[0])
    g, plain = keys // max(npl, 1), keys % max(npl, 1)
    if n:
        counts = fg.bincount(g, minlength=batches * nc)
    else:
        counts = _core.zeros([batches * nc], dtype=_core.int64)
    counts = counts.reshape([batches, nc])
    per_batch = counts.sum(1).tolist()
    if len(set(per_batch)) > 1:
        raise ValueError(
            f"to_sparse: a batched compressed tensor needs the same number of specified "
            f"elements in every batch (PyTorch's rule); these batches hold {per_batch}. "
            "Use a COO tensor, or convert each batch separately"
        )
    per = n // batches if batches else 0
    zero = _core.zeros([batches, 1], dtype=_core.int64)
    cidx = _core.concat([zero, counts.cumsum(1)], 1).reshape([*batch, nc + 1])
    pidx = plain.reshape([*batch, per])
    vals = vals.reshape([*batch, per, *vals.shape[1:]])
    if layout is sparse_csr and nb == 0 and vals.ndim == 1:
        return SparseCsrTensor(cidx, pidx, vals, shape)
    return SparseCompressedTensor(cidx, pidx, vals, shape, layout)


def coo_to_compressed(coo: SparseCooTensor, layout: Any, blocksize: Any = None) -> SparseTensor:
    """The ``layout`` form of a COO tensor: batch dims are its sparse dims but the last two,
    dense dims stay dense (BSR / BSC take none). Differentiable w.r.t. the values."""
    what = f"to_sparse({layout!r})"
    sd, dd = coo.sparse_dim(), coo.dense_dim()
    if sd < 2:
        raise ValueError(
            f"{what}: needs at least 2 sparse dimensions (got sparse_dim {sd}, shape "
            f"{list(coo.shape)})"
        )
    nb = sd - 2
    rows, cols = coo.shape[nb], coo.shape[nb + 1]
    block = layout in BLOCKED
    c = coo.coalesce()
    idx, v = c.indices(), c.values()
    bflat = (
        linear_keys(idx[:nb], tuple(coo.shape[:nb]), what)
        if nb
        else _core.zeros([int(idx.shape[1])], dtype=_core.int64)
    )
    r, col = idx[nb], idx[nb + 1]
    if block:
        if dd:
            raise NotImplementedError(f"{what}: hybrid BSR / BSC tensors are not implemented")
        bh, bw = check_blocksize(blocksize, rows, cols, what)
        br, bc, grid_r, grid_c = r // bh, col // bw, rows // bh, cols // bw
    else:
        if blocksize is not None:
            raise ValueError(f"{what}: blocksize is for the BSR / BSC layouts only")
        br, bc, grid_r, grid_c = r, col, rows, cols
    if layout in ROW_MAJOR:
        comp, plain, nc, npl = br, bc, grid_r, grid_c
    else:
        comp, plain, nc, npl = bc, br, grid_c, grid_r
    key = (bflat * nc + comp) * npl + plain
    if block:
        uniq, inverse = fg.unique(key, return_inverse=True)
        nu = int(uniq.shape[0])
        inner = (r % bh) * bw + col % bw
        flat = _core.zeros([nu * bh * bw], dtype=v.dtype).index_add(
            0, inverse * (bh * bw) + inner, v
        )
        return _assemble(uniq, flat.reshape([nu, bh, bw]), coo._shape, nb, (nc, npl), layout)
    perm = fg.argsort(key)
    keys = key.index_select(0, perm)
    return _assemble(keys, v.index_select(0, perm), coo._shape, nb, (nc, npl), layout)


def dense_to_compressed(
    x: Tensor, layout: Any, blocksize: Any = None, dense_dim: Any = None
) -> SparseTensor:
    """The ``layout`` form of a dense tensor [*batch, rows, cols, *dense]: entries (or
    blocks) holding any nonzero. Block values are gathered from ``x`` whole, so the
    gradient reaches every element of a stored block."""
    what = f"to_sparse({layout!r})"
    dd = int(dense_dim or 0)
    nb = x.ndim - 2 - dd
    if nb < 0 or dd < 0:
        raise ValueError(
            f"{what}: needs a tensor of at least {2 + dd} dimensions, got shape {list(x.shape)}"
        )
    batch, rows, cols = list(x.shape[:nb]), int(x.shape[nb]), int(x.shape[nb + 1])
    block = layout in BLOCKED
    if block:
        if dd:
            raise NotImplementedError(f"{what}: hybrid BSR / BSC tensors are not implemented")
        bh, bw = check_blocksize(blocksize, rows, cols, what)
        g = x.reshape([*batch, rows // bh, bh, cols // bw, bw])
        g = g.permute([*range(nb), nb, nb + 2, nb + 1, nb + 3])
        mask = (g != 0).reshape([*batch, rows // bh, cols // bw, bh * bw]).any(-1)
    else:
        if blocksize is not None:
            raise ValueError(f"{what}: blocksize is for the BSR / BSC layouts only")
        g = x
        mask = x != 0
        if dd:
            # the trailing size spelled out: -1 cannot be inferred when a leading size is 0
            mask = mask.reshape([*batch, rows, cols, _prod(x.shape[nb + 2 :])]).any(-1)
    if layout not in ROW_MAJOR:
        g, mask = g.transpose(nb, nb + 1), mask.transpose(nb, nb + 1)
    nc, npl = int(mask.shape[nb]), int(mask.shape[nb + 1])
    idx = mask.nonzero().t()
    vals = g[tuple(idx[d] for d in range(nb + 2))]
    bflat = (
        linear_keys(idx[:nb], tuple(batch), what)
        if nb
        else _core.zeros([int(idx.shape[1])], dtype=_core.int64)
    )
    keys = (bflat * nc + idx[nb]) * npl + idx[nb + 1]
    return _assemble(keys, vals, tuple(int(s) for s in x.shape), nb, (nc, npl), layout)


def to_layout(x: Any, layout: Any, blocksize: Any = None, dense_dim: Any = None) -> Any:
    """``x`` (dense or sparse) in ``layout`` (any sparse layout or ``strided``)."""
    from ._csr import SparseCsrTensor
    from ._layout import sparse_coo, strided

    if layout is strided:
        return x.to_dense() if isinstance(x, SparseTensor) else x
    if not isinstance(x, SparseTensor):
        if layout is None or layout is sparse_coo:
            from ._create import dense_to_coo

            return dense_to_coo(x, None if dense_dim is None else x.ndim - int(dense_dim))
        if layout not in (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc):
            raise ValueError(f"to_sparse: unknown layout {layout!r}")
        return dense_to_compressed(x, layout, blocksize, dense_dim)
    if layout is None or layout is sparse_coo:
        return x.to_sparse_coo()
    if layout not in (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc):
        raise ValueError(f"to_sparse: unknown layout {layout!r}")
    current = x.layout  # type: ignore[attr-defined]
    same_block = blocksize is None or (
        current in BLOCKED and x.blocksize == norm_blocksize(blocksize, "to_sparse")  # type: ignore[attr-defined]
    )
    if current is layout and same_block:
        return x
    if dense_dim is not None and int(dense_dim) != x.dense_dim():
        raise ValueError(
            f"to_sparse: changing dense_dim ({x.dense_dim()} -> {dense_dim}) of a sparse "
            "tensor is not supported (go through .to_dense())"
        )
    coo = x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()
    if isinstance(x, SparseCsrTensor) and layout is sparse_csr:
        return x
    return coo_to_compressed(coo, layout, blocksize)
