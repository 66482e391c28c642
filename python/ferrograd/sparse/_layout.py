"""Tensor layouts (``torch.strided`` / ``sparse_coo`` / ``sparse_csr``) and the
sparse-query flag that reads both as PyTorch's property and as Paddle's method.
"""

from __future__ import annotations

__all__ = [
    "layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
    "COMPRESSED", "ROW_MAJOR", "BLOCKED", "Flag",
]  # fmt: skip


class layout:  # noqa: N801  (torch.layout is lower-case)
    """A memory layout: ``strided`` (dense), ``sparse_coo``, ``sparse_csr``,
    ``sparse_csc``, ``sparse_bsr`` or ``sparse_bsc``."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"ferrograd.{self._name}"

    def __reduce__(self) -> str:
        # pickled by name, so the unpickled object is the module's singleton
        return self._name


#: dense tensors (every ferrograd ``Tensor``)
strided = layout("strided")
#: coordinate-format sparse tensors (``SparseCooTensor``)
sparse_coo = layout("sparse_coo")
#: compressed-sparse-row tensors (``SparseCsrTensor``)
sparse_csr = layout("sparse_csr")
#: compressed-sparse-column tensors (``SparseCompressedTensor``)
sparse_csc = layout("sparse_csc")
#: block compressed-sparse-row tensors (values are [nnz_blocks, bh, bw] blocks)
sparse_bsr = layout("sparse_bsr")
#: block compressed-sparse-column tensors
sparse_bsc = layout("sparse_bsc")

#: the compressed layouts, those compressing rows, and those storing blocks
COMPRESSED = (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
ROW_MAJOR = (sparse_csr, sparse_bsr)
BLOCKED = (sparse_bsr, sparse_bsc)


class Flag:
    """A yes/no answer usable both as a property and as a method.

    PyTorch spells the query ``x.is_sparse`` (a ``bool`` property) and Paddle
    ``x.is_sparse()`` (a method). This object is truthy or falsy like the ``bool`` and
    calling it returns that ``bool``, so both spellings work. ``x.is_sparse is True``
    does not (it is not the ``bool`` object itself): compare with ``==`` or use ``bool()``.
    """

    __slots__ = ("_value",)

    def __init__(self, value: bool) -> None:
        self._value = bool(value)

    def __bool__(self) -> bool:
        return self._value

    def __call__(self) -> bool:
        return self._value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (bool, Flag)):
            return self._value == bool(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return repr(self._value)
