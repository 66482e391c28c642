"""The top-level sparse names (``torch.sparse_coo_tensor``, the layouts ``torch.sparse_csr``
/ ``sparse_csc`` / ``sparse_bsr`` / ``sparse_bsc``, ...), re-exported from
``ferrograd.sparse`` so that ``ferrograd/__init__.py`` stays short. Each name is imported
as ``name as name`` (an explicit re-export) and listed in ``__all__``; the package imports
this module with ``*``. See docs/sparse.md.
"""

from __future__ import annotations

from . import sparse as sparse
from .sparse import sparse_coo_tensor as sparse_coo_tensor
from .sparse import sparse_csr_tensor as sparse_csr_tensor
from .sparse._create_compressed import sparse_bsc_tensor as sparse_bsc_tensor
from .sparse._create_compressed import sparse_bsr_tensor as sparse_bsr_tensor
from .sparse._create_compressed import sparse_compressed_tensor as sparse_compressed_tensor
from .sparse._create_compressed import sparse_csc_tensor as sparse_csc_tensor
from .sparse._layout import layout as layout
from .sparse._layout import sparse_bsc as sparse_bsc
from .sparse._layout import sparse_bsr as sparse_bsr
from .sparse._layout import sparse_coo as sparse_coo
from .sparse._layout import sparse_csc as sparse_csc
from .sparse._layout import sparse_csr as sparse_csr
from .sparse._layout import strided as strided
from .sparse._products import spmm as spmm

__all__ = [
    "sparse", "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor",
    "sparse_bsr_tensor", "sparse_bsc_tensor", "sparse_compressed_tensor", "layout",
    "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "spmm",
]  # fmt: skip
