"""``ferrograd.linalg``: linear algebra with gradients, as ``torch.linalg`` and
``paddle.linalg`` spell it.

Factorizations run in Rust (the ``faer`` crate, float32/float64, batched over leading
dims); their gradients are the published formulas written with differentiable ops, so
higher derivatives work. Norms, pinv, lstsq, matrix_power and the matmul family are
compositions of differentiable ops, and so are matrix_exp, householder_product, lu_solve
and the tensor solves; so are ldl_solve, ormqr, vander and the randomized
svd_lowrank / pca_lowrank. See docs/linalg.md.
"""

from __future__ import annotations

from .._core import Tensor as _Tensor
from ._cholesky_solve import cholesky_inverse as cholesky_inverse
from ._cholesky_solve import cholesky_solve as cholesky_solve
from ._common import LinAlgError as LinAlgError
from ._derived import LstsqResult as LstsqResult
from ._derived import cond as cond
from ._derived import lstsq as lstsq
from ._derived import matrix_power as matrix_power
from ._derived import matrix_rank as matrix_rank
from ._derived import multi_dot as multi_dot
from ._derived import pinv as pinv
from ._eig import EigResult as EigResult
from ._eig import eig as eig
from ._eig import eigvals as eigvals
from ._ex import CholeskyExResult as CholeskyExResult
from ._ex import InvExResult as InvExResult
from ._ex import SolveExResult as SolveExResult
from ._ex import cholesky_ex as cholesky_ex
from ._ex import inv_ex as inv_ex
from ._ex import solve_ex as solve_ex
from ._factor import EighResult as EighResult
from ._factor import QRResult as QRResult
from ._factor import SlogdetResult as SlogdetResult
from ._factor import SVDResult as SVDResult
from ._factor import cholesky as cholesky
from ._factor import det as det
from ._factor import eigh as eigh
from ._factor import eigvalsh as eigvalsh
from ._factor import inv as inv
from ._factor import qr as qr
from ._factor import slogdet as slogdet
from ._factor import solve as solve
from ._factor import svd as svd
from ._factor import svdvals as svdvals
from ._ldl import LDLFactorExResult as LDLFactorExResult
from ._ldl import LDLFactorResult as LDLFactorResult
from ._ldl import ldl_factor as ldl_factor
from ._ldl import ldl_factor_ex as ldl_factor_ex
from ._ldl import ldl_solve as ldl_solve
from ._lowrank import pca_lowrank as pca_lowrank
from ._lowrank import svd_lowrank_paddle as svd_lowrank
from ._lu import LUFactorExResult as LUFactorExResult
from ._lu import LUFactorResult as LUFactorResult
from ._lu import LUResult as LUResult
from ._lu import lu as lu
from ._lu import lu_factor as lu_factor
from ._lu import lu_factor_ex as lu_factor_ex
from ._lu import lu_solve as lu_solve
from ._lu import lu_unpack as lu_unpack
from ._matfn import householder_product as householder_product
from ._matfn import matrix_exp as matrix_exp
from ._matfn import tensorinv as tensorinv
from ._matfn import tensorsolve as tensorsolve
from ._matfn import vecdot as vecdot
from ._norms import matrix_norm as matrix_norm
from ._norms import norm as norm
from ._norms import vector_norm as vector_norm
from ._ormqr import ormqr as ormqr
from ._paddle_names import corrcoef as corrcoef
from ._paddle_names import cov as cov
from ._paddle_names import matrix_transpose as matrix_transpose
from ._products import linalg_cross as cross
from ._sqrth_polar import PolarResult as PolarResult
from ._sqrth_polar import matrix_sqrth as matrix_sqrth
from ._sqrth_polar import polar as polar
from ._triangular import solve_triangular as solve_triangular
from ._triangular import triangular_solve as triangular_solve
from ._vander_diagonal import diagonal as diagonal
from ._vander_diagonal import vander as vander

#: ``torch.linalg.matmul``: the same op as ``ferrograd.matmul``.
matmul = _Tensor.matmul

__all__ = [
    "LinAlgError",
    "LstsqResult",
    "EighResult",
    "QRResult",
    "SlogdetResult",
    "SVDResult",
    "inv",
    "solve",
    "det",
    "slogdet",
    "cholesky",
    "qr",
    "eigh",
    "eigvalsh",
    "svd",
    "svdvals",
    "pinv",
    "lstsq",
    "matrix_power",
    "matrix_rank",
    "cond",
    "multi_dot",
    "norm",
    "vector_norm",
    "matrix_norm",
    "cross",
    "matmul",
    "EigResult",
    "CholeskyExResult",
    "InvExResult",
    "LUFactorResult",
    "LUFactorExResult",
    "LUResult",
    "eig",
    "eigvals",
    "cholesky_ex",
    "inv_ex",
    "SolveExResult",
    "solve_ex",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "lu_unpack",
    "householder_product",
    "matrix_exp",
    "tensorinv",
    "tensorsolve",
    "vecdot",
    "solve_triangular",
    "triangular_solve",
    "LDLFactorResult",
    "LDLFactorExResult",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "vander",
    "diagonal",
    "ormqr",
    "pca_lowrank",
    "svd_lowrank",
    "cholesky_solve",
    "cholesky_inverse",
    "matrix_transpose",
    "cov",
    "corrcoef",
    "PolarResult",
    "polar",
    "matrix_sqrth",
]

# torch.linalg / paddle.linalg names ferrograd lacks raise an AttributeError that says so
from .._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)

from .._out_arg import wrap_out_functions as _wrap_out_functions  # noqa: E402

_wrap_out_functions(globals(), __all__)  # PyTorch's out= (see _out_arg.py)
