"""The COO sparse tensor: ``indices`` ([sparse_dim, nnz], int64) and ``values``
([nnz, *dense_shape]), with coalescing and densifying written as differentiable dense ops.

Positions are handled as *linear keys* (the row-major offset over the sparse
dimensions): coalescing is ``unique`` over the keys plus an ``index_add`` of the values,
densifying an ``index_add`` into a flat buffer. No Python loop visits the entries.
"""

from __future__ import annotations

from typing import Any

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._layout import Flag, sparse_coo

Tensor = _core.Tensor
_INT64_MAX = 2**63 - 1


def row_major_strides(sizes: tuple[int, ...], what: str) -> list[int]:
    """Row-major strides of ``sizes``; refuses a product that int64 keys cannot hold."""
    strides = [1] * len(sizes)
    acc = 1
    for d in range(len(sizes) - 1, -1, -1):
        strides[d] = acc
        acc *= max(sizes[d], 1)
    if acc > _INT64_MAX:
        raise ValueError(
            f"{what}: the sparse dimensions {list(sizes)} hold more than 2**63 positions; "
            "ferrograd addresses them with int64 keys"
        )
    return strides


def linear_keys(indices: Tensor, sizes: tuple[int, ...], what: str) -> Tensor:
    """The row-major offset of every entry over the sparse dimensions (int64, [nnz])."""
    nnz = int(indices.shape[1])
    if not sizes:
        return _core.zeros([nnz], dtype=_core.int64)
    strides = _core.tensor(row_major_strides(sizes, what), dtype=_core.int64)
    return (indices * strides.unsqueeze(1)).sum(0)


def unravel(keys: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """The inverse of :func:`linear_keys`: indices [len(sizes), n] from keys [n]."""
    strides = row_major_strides(sizes, "unravel")
    rows = [(keys // st) % max(sz, 1) for st, sz in zip(strides, sizes)]
    if not rows:
        return _core.zeros([0, int(keys.shape[0])], dtype=_core.int64)
    return _core.stack(rows, 0)


class SparseCooTensor(SparseTensor):
    """A sparse tensor in coordinate format (``torch.sparse_coo`` / Paddle's COO).

    Build one with :func:`ferrograd.sparse_coo_tensor` (both dialects' signatures) or
    ``dense.to_sparse()`` / ``dense.to_sparse_coo(sparse_dim)``. ``values`` may have
    trailing dense dimensions (a *hybrid* tensor: ``values`` [nnz, d] for shape
    [n, m, d]). Duplicate indices are allowed until :meth:`coalesce` sums them.
    """

    layout = sparse_coo

    def __init__(
        self,
        indices: Tensor,
        values: Tensor,
        shape: tuple[int, ...],
        *,
        coalesced: bool = False,
        leaf: bool = False,
    ) -> None:
        # trusted: the public constructors validate (see _create.py)
        self._idx = indices
        self._vals = values
        self._shape = tuple(int(s) for s in shape)
        self._coalesced = bool(coalesced)
        self._leaf = bool(leaf)

    # -- structure ------------------------------------------------------------------------
    @property
    def is_sparse_coo(self) -> Flag:
        """True: ``x.is_sparse_coo()`` (Paddle's method; also a property)."""
        return Flag(True)

    @property
    def is_sparse_csr(self) -> Flag:
        """False: ``x.is_sparse_csr`` (PyTorch) or ``x.is_sparse_csr()`` (Paddle)."""
        return Flag(False)

    def sparse_dim(self) -> int:
        """How many leading dimensions are indexed."""
        return int(self._idx.shape[0])

    def dense_dim(self) -> int:
        """How many trailing dimensions each stored value has."""
        return len(self._shape) - self.sparse_dim()

    def indices(self) -> Tensor:
        """The int64 indices, [sparse_dim, nnz].

        PyTorch raises on an uncoalesced tensor and Paddle does not; ferrograd returns
        them as stored (duplicates included): call :meth:`coalesce` first for unique,
        sorted indices.
        """
        return self._idx

    def values(self) -> Tensor:
        """The stored values, [nnz, *dense_shape] (as stored; see :meth:`indices`).

        For a leaf this is the tensor that collects the per-entry gradient, so
        ``optimizer(params=[x.values()])`` trains the entries of ``x``.
        """
        return self._vals

    def _indices(self) -> Tensor:
        """The indices without coalescing (PyTorch's ``_indices()``)."""
        return self._idx

    def _values(self) -> Tensor:
        """The values without coalescing (PyTorch's ``_values()``)."""
        return self._vals

    def is_coalesced(self) -> bool:
        """Whether the indices are known to be sorted and unique."""
        return self._coalesced

    def _sparse_sizes(self) -> tuple[int, ...]:
        return self._shape[: self.sparse_dim()]

    def _keys(self, what: str) -> Tensor:
        return linear_keys(self._idx, self._sparse_sizes(), what)

    def _with_values(self, values: Tensor) -> SparseCooTensor:
        return SparseCooTensor(self._idx, values, self._shape, coalesced=self._coalesced)

    # -- conversions --------------------------------------------------------------------
    def coalesce(self) -> SparseCooTensor:
        """Sorted, unique indices; the values of duplicates summed (differentiably)."""
        if self._coalesced:
            return self
        keys = self._keys("coalesce")
        uniq, inverse = fg.unique(keys, return_inverse=True)
        dense = list(self._vals.shape[1:])
        vals = _core.zeros([int(uniq.shape[0]), *dense], dtype=self.dtype)
        vals = vals.index_add(0, inverse, self._vals)
        return SparseCooTensor(
            unravel(uniq, self._sparse_sizes()), vals, self._shape, coalesced=True
        )

    def to_dense(self) -> Tensor:
        """The dense tensor (duplicates summed); differentiable w.r.t. the values."""
        sizes = self._sparse_sizes()
        count = 1
        for s in sizes:
            count *= s
        flat = _core.zeros([count, *self._vals.shape[1:]], dtype=self.dtype)
        flat = flat.index_add(0, self._keys("to_dense"), self._vals)
        return flat.reshape(list(self._shape))

    def to_sparse_coo(self, sparse_dim: Any = None) -> SparseCooTensor:
        """Itself (changing ``sparse_dim`` is not supported: go through ``to_dense()``)."""
        if sparse_dim is not None and int(sparse_dim) != self.sparse_dim():
            raise ValueError(
                f"to_sparse: this tensor has sparse_dim {self.sparse_dim()}; changing it "
                f"to {sparse_dim} is not supported (go through .to_dense())"
            )
        return self

    def _grad_from_values(self, g: Tensor) -> SparseCooTensor:
        if self._coalesced:
            return SparseCooTensor(self._idx, g, self._shape, coalesced=True)
        keys = self._keys("grad")
        uniq, inverse = fg.unique(keys, return_inverse=True)
        if int(uniq.shape[0]) == int(keys.shape[0]):
            return SparseCooTensor(self._idx, g, self._shape)
        # duplicates: every copy of a position got the same d loss / d x there; keep one
        vals = _core.zeros([int(uniq.shape[0]), *g.shape[1:]], dtype=g.dtype)
        vals = fg.index_put(vals, (inverse,), g)
        return SparseCooTensor(
            unravel(uniq, self._sparse_sizes()), vals, self._shape, coalesced=True
        )

    # -- in place (a sparse ``.grad``: ``zero_grad(set_to_none=False)``, gradient clipping)
    def zero_(self) -> SparseCooTensor:
        """Drops every entry in place (the shape stays), as PyTorch's sparse ``zero_()``."""
        self._idx = _core.zeros([int(self._idx.shape[0]), 0], dtype=self._idx.dtype)
        self._vals = _core.zeros([0, *self._vals.shape[1:]], dtype=self._vals.dtype)
        self._coalesced = True
        return self

    def mul_(self, other: Any) -> SparseCooTensor:
        """Scales the values in place by the number ``other``."""
        if isinstance(other, (Tensor, SparseTensor)):
            raise TypeError("sparse mul_: only a number is supported")
        self._vals.mul_(other)
        return self

    def __repr__(self) -> str:
        pad = " " * len("tensor(indices=")
        idx = repr(self._idx).replace("\n", "\n" + pad)
        vals = repr(self._vals).replace("\n", "\n" + " " * len("       values="))
        size = (
            "("
            + ", ".join(str(s) for s in self._shape)
            + ("," if len(self._shape) == 1 else "")
            + ")"
        )
        return (
            f"tensor(indices={idx},\n       values={vals},\n       size={size}, "
            f"nnz={self.nnz()}, dtype={self.dtype}, layout={self.layout})"
        )
