"""The top-level linear-algebra names (``torch.norm``, ``qr``, ``lu``, ``outer`` ...),
bound here so that ``ferrograd/__init__.py`` stays short; the package imports this
module with ``*``. Importing it also installs the linalg Tensor methods. See
docs/linalg.md.

The legacy spellings keep their PyTorch signatures: ``qr(input, some=True)``,
``lu(A, pivot=True, get_infos=False)``, ``lu_solve(b, LU_data, LU_pivots)``,
``triangular_solve(b, A)`` and ``ormqr(input, tau, other, left, transpose)``;
``linalg.*`` has the modern ones.
"""

from __future__ import annotations

from . import _dialect_aliases
from . import linalg as linalg
from ._op_functions import dispatching as _dispatching
from .linalg._lu import lu_legacy as _lu_legacy
from .linalg._lu import lu_solve_legacy as _lu_solve_legacy
from .linalg._matfn import householder_product as _householder_product
from .linalg._norms import tensor_norm as _tensor_norm
from .linalg._ormqr import ormqr_torch as _ormqr_torch
from .linalg._products import outer as _outer
from .linalg._toplevel import install_tensor_methods as _install_linalg_methods
from .linalg._toplevel import qr_legacy as _qr_legacy
from .linalg._triangular import triangular_solve_legacy as _triangular_solve

norm = _tensor_norm  # torch.norm / paddle.norm (linalg.norm is the other rule set)
qr = _qr_legacy  # torch.qr(input, some=True)
lu = _lu_legacy  # torch.lu(A, pivot=True, get_infos=False): (LU, pivots[, infos])
lu_solve = _lu_solve_legacy  # torch.lu_solve(b, LU_data, LU_pivots)
triangular_solve = _triangular_solve  # torch.triangular_solve(b, A): (X, A.clone())
orgqr = _householder_product  # torch.orgqr(A, tau)
ormqr = _ormqr_torch  # torch.ormqr(input, tau, other, left, transpose): the full Q
# outer: Paddle's flattens its operands in Paddle code (docs/dialects.md), as the core's
# method x.outer(y) does. The package's `outer` and the dialect alias are one object.
outer = _dialect_aliases.outer = _dispatching(_outer, "outer")  # type: ignore[assignment]

_install_linalg_methods()

__all__ = [
    "linalg", "norm", "qr", "lu", "lu_solve", "orgqr", "triangular_solve", "ormqr", "outer",
]  # fmt: skip
