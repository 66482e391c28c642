"""Sparse tensors: ``torch.sparse`` and ``paddle.sparse`` (COO, CSR, CSC, BSR, BSC).

A sparse tensor is a Python object over dense ferrograd tensors (int64 indices and a
``values`` tensor); every op is a composition of differentiable dense ops, so gradients
flow to the values and to dense operands through ferrograd's engine. See docs/sparse.md.
"""

from __future__ import annotations

from .._missing import missing_attribute as _missing_attribute
from . import nn as nn
from ._base import SparseTensor as SparseTensor
from ._compressed import SparseCompressedTensor as SparseCompressedTensor
from ._coo import SparseCooTensor as SparseCooTensor
from ._create import DoubleTensor as DoubleTensor
from ._create import FloatTensor as FloatTensor
from ._create import sparse_coo_tensor as sparse_coo_tensor
from ._create import sparse_csr_tensor as sparse_csr_tensor
from ._csr import SparseCsrTensor as SparseCsrTensor
from ._elementwise import VALUE_WISE as _VALUE_WISE
from ._elementwise import add as add
from ._elementwise import divide as divide
from ._elementwise import multiply as multiply
from ._elementwise import subtract as subtract
from ._elementwise import transpose as transpose
from ._extras import as_sparse_gradcheck as as_sparse_gradcheck
from ._extras import check_sparse_tensor_invariants as check_sparse_tensor_invariants
from ._extras import mask_as as mask_as
from ._extras import spdiags as spdiags
from ._extras import spsolve as spsolve
from ._products import addmm as addmm
from ._products import masked_matmul as masked_matmul
from ._products import matmul as matmul
from ._products import mm as mm
from ._products import mv as mv
from ._products import sampled_addmm as sampled_addmm
from ._reduce import log_softmax as log_softmax
from ._reduce import softmax as softmax
from ._reduce import sum as sum  # noqa: A004
from ._shape_ops import reshape as reshape
from ._shape_ops import slice as slice  # noqa: A004

abs = _VALUE_WISE["abs"]  # noqa: A001
sin = _VALUE_WISE["sin"]
tan = _VALUE_WISE["tan"]
asin = _VALUE_WISE["asin"]
atan = _VALUE_WISE["atan"]
sinh = _VALUE_WISE["sinh"]
tanh = _VALUE_WISE["tanh"]
asinh = _VALUE_WISE["asinh"]
atanh = _VALUE_WISE["atanh"]
sqrt = _VALUE_WISE["sqrt"]
square = _VALUE_WISE["square"]
log1p = _VALUE_WISE["log1p"]
expm1 = _VALUE_WISE["expm1"]
deg2rad = _VALUE_WISE["deg2rad"]
rad2deg = _VALUE_WISE["rad2deg"]
isnan = _VALUE_WISE["isnan"]
neg = _VALUE_WISE["neg"]
pow = _VALUE_WISE["pow"]  # noqa: A001
cast = _VALUE_WISE["cast"]


def coalesce(x: SparseCooTensor, name: object = None) -> SparseCooTensor:
    """Paddle's ``sparse.coalesce(x)``: ``x.coalesce()``."""
    return x.coalesce()


def pca_lowrank(
    x: SparseTensor, q: object = None, center: bool = True, niter: int = 2, name: object = None
) -> tuple:
    """Paddle's ``sparse.pca_lowrank``: ``linalg.pca_lowrank`` of the dense form of ``x``
    (the same ``(U, S, V)``; it densifies, so it costs what the dense call costs)."""
    from .. import linalg

    return linalg.pca_lowrank(x.to_dense(), q=q, center=center, niter=niter)


def is_same_shape(x: object, y: object) -> bool:
    """Paddle's ``sparse.is_same_shape``: whether two (sparse or dense) tensors' shapes match."""
    return list(x.shape) == list(y.shape)  # type: ignore[attr-defined]


__all__ = [
    "SparseTensor", "SparseCooTensor", "SparseCsrTensor", "SparseCompressedTensor", "sparse_coo_tensor",
    "sparse_csr_tensor", "add", "subtract", "multiply", "divide", "transpose", "addmm",
    "masked_matmul", "matmul", "mm", "mv", "sampled_addmm", "sum", "softmax",
    "log_softmax", "coalesce", "is_same_shape", "pca_lowrank", "abs", "sin", "tan", "asin", "atan",
    "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p", "expm1", "deg2rad",
    "rad2deg", "isnan", "neg", "pow", "cast", "nn", "FloatTensor", "DoubleTensor",
    "SparseCompressedTensor", "reshape", "slice", "spdiags", "check_sparse_tensor_invariants",
    "as_sparse_gradcheck", "mask_as", "spsolve",
]  # fmt: skip

# PyTorch / Paddle names this module lacks raise an AttributeError that says so
__getattr__ = _missing_attribute(__name__)
