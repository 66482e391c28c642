"""``ferrograd.linalg``: linear algebra with gradients, as ``torch.linalg`` and
``paddle.linalg`` spell it.

Factorizations run in Rust (the ``faer`` crate, float32/float64, batched over leading
dims); their gradients are the published formulas written with differentiable ops, so
higher derivatives work. Norms, pinv, lstsq, matrix_power and the matmul family are
compositions of differentiable ops. See docs/linalg.md.
"""

from __future__ import annotations

from .._core import Tensor as _Tensor
from ._common import LinAlgError as LinAlgError
from ._derived import LstsqResult as LstsqResult
from ._derived import cond as cond
from ._derived import lstsq as lstsq
from ._derived import matrix_power as matrix_power
from ._derived import matrix_rank as matrix_rank
from ._derived import multi_dot as multi_dot
from ._derived import pinv as pinv
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
from ._norms import matrix_norm as matrix_norm
from ._norms import norm as norm
from ._norms import vector_norm as vector_norm
from ._products import linalg_cross as cross

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
]

# torch.linalg / paddle.linalg names ferrograd lacks raise an AttributeError that says so
from .._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
