"""The CSR sparse tensor (2-D): ``crow_indices`` [n + 1], ``col_indices`` [nnz] and
``values`` [nnz]. Ops run on its COO view (the row of each entry expanded from
``crow_indices`` with ``repeat_interleave``), which shares the values tensor, so
gradients reach the CSR values unchanged.
"""

from __future__ import annotations

from typing import Any

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor
from ._layout import Flag, sparse_csr

Tensor = _core.Tensor


class SparseCsrTensor(SparseTensor):
    """A 2-D compressed-sparse-row tensor (``torch.sparse_csr`` / Paddle's CSR).

    Build one with :func:`ferrograd.sparse_csr_tensor` or ``x.to_sparse_csr()``. Column
    indices are sorted and unique within each row (checked when built).
    """

    layout = sparse_csr

    def __init__(
        self,
        crow: Tensor,
        col: Tensor,
        values: Tensor,
        shape: tuple[int, ...],
        *,
        leaf: bool = False,
    ) -> None:
        # trusted: the public constructors validate (see _create.py)
        self._crow = crow
        self._col = col
        self._vals = values
        self._shape = tuple(int(s) for s in shape)
        self._leaf = bool(leaf)
        self._row_cache: Tensor | None = None

    @property
    def is_sparse_coo(self) -> Flag:
        """False: ``x.is_sparse_coo()`` (Paddle's method; also a property)."""
        return Flag(False)

    @property
    def is_sparse_csr(self) -> Flag:
        """True: ``x.is_sparse_csr`` (PyTorch) or ``x.is_sparse_csr()`` (Paddle)."""
        return Flag(True)

    def sparse_dim(self) -> int:
        """2: both dimensions are compressed/indexed."""
        return 2

    def dense_dim(self) -> int:
        """0: CSR values are scalars here."""
        return 0

    def crow_indices(self) -> Tensor:
        """Row pointers, [n + 1]: row ``i`` holds entries ``crow[i]:crow[i + 1]``."""
        return self._crow

    def col_indices(self) -> Tensor:
        """The column of every entry, [nnz]."""
        return self._col

    crows = crow_indices  # Paddle's names
    cols = col_indices

    def values(self) -> Tensor:
        """The stored values, [nnz] (for a leaf, the tensor collecting the gradient)."""
        return self._vals

    def _rows(self) -> Tensor:
        if self._row_cache is None:
            counts = self._crow[1:] - self._crow[:-1]
            self._row_cache = fg.repeat_interleave(
                _core.arange(self._shape[0], dtype=_core.int64), counts
            )
        return self._row_cache

    def _with_values(self, values: Tensor) -> SparseCsrTensor:
        out = SparseCsrTensor(self._crow, self._col, values, self._shape)
        out._row_cache = self._row_cache
        return out

    def _grad_from_values(self, g: Tensor) -> SparseCsrTensor:
        return self._with_values(g)

    # -- conversions --------------------------------------------------------------------
    def to_sparse_coo(self, sparse_dim: Any = None) -> SparseCooTensor:
        """The COO form (coalesced; shares the values)."""
        if sparse_dim is not None and int(sparse_dim) != 2:
            raise ValueError("to_sparse_coo: a CSR tensor converts to sparse_dim=2 only")
        indices = _core.stack([self._rows(), self._col], 0)
        return SparseCooTensor(indices, self._vals, self._shape, coalesced=True)

    def to_sparse_csr(self, dense_dim: Any = None) -> SparseCsrTensor:
        """Itself."""
        if dense_dim:
            raise ValueError(
                "to_sparse_csr: changing dense_dim of a sparse tensor is not supported"
            )
        return self

    def to_dense(self) -> Tensor:
        """The dense matrix; differentiable w.r.t. the values."""
        return self.to_sparse_coo().to_dense()

    def __repr__(self) -> str:
        def sub(t: Tensor, label: str) -> str:
            return repr(t).replace("\n", "\n" + " " * (7 + len(label) + 1))

        return (
            f"tensor(crow_indices={sub(self._crow, 'crow_indices')},\n"
            f"       col_indices={sub(self._col, 'col_indices')},\n"
            f"       values={sub(self._vals, 'values')}, size=({self._shape[0]}, "
            f"{self._shape[1]}), nnz={self.nnz()}, dtype={self.dtype}, layout={self.layout})"
        )


def coo_to_csr(coo: SparseCooTensor) -> Any:
    """The CSR form of a COO tensor (coalesced first): a :class:`SparseCsrTensor` for a
    2-D one without dense dimensions, batched / hybrid CSR otherwise."""
    if coo.sparse_dim() != 2 or coo.dense_dim() != 0:
        from ._compressed import coo_to_compressed
        from ._layout import sparse_csr

        return coo_to_compressed(coo, sparse_csr)
    c = coo.coalesce()
    rows, cols = c.indices()[0], c.indices()[1]
    counts = fg.bincount(rows, minlength=coo.shape[0]) if rows.shape[0] else None
    if counts is None:
        counts = _core.zeros([coo.shape[0]], dtype=_core.int64)
    crow = _core.concat([_core.zeros([1], dtype=_core.int64), counts.cumsum(0)], 0)
    out = SparseCsrTensor(crow, cols, c.values(), c._shape)
    out._row_cache = rows
    return out
