"""The top-level (``ferrograd.xxx``) and ``Tensor`` method names of the linear-algebra
ops, as torch and Paddle spell them outside their ``linalg`` modules; each one is the
``ferrograd.linalg`` function or a thin adapter of its arguments."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from .. import _core
from .._methods import as_method as _as_method
from ._cholesky_solve import cholesky_inverse, cholesky_solve
from ._common import float_or_complex, mH, pick
from ._derived import matrix_power, pinverse
from ._factor import _SVD, cholesky, det, inv, logdet, qr, slogdet
from ._lowrank import pca_lowrank, svd_lowrank_paddle
from ._lu import lu_legacy, lu_solve_legacy
from ._matfn import householder_product, matrix_exp
from ._norms import dist, tensor_norm
from ._ormqr import ormqr_method
from ._paddle_names import corrcoef_method, cov_method, matrix_transpose
from ._products import addmm, addmv, baddbmm, cross, ger, inner, kron, mv
from ._triangular import triangular_solve_legacy

Tensor = _core.Tensor


def inverse(input: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """``torch.inverse`` / ``paddle.inverse``: the same as ``linalg.inv``."""
    return inv(pick(input, x, "input/x", "inverse"))


class SVDLegacyResult(NamedTuple):
    """``(U, S, V)`` of ``torch.svd`` (note ``V``, not ``Vh``)."""

    U: Tensor
    S: Tensor
    V: Tensor


def svd(
    input: Any = None, some: bool = True, compute_uv: bool = True, *, out: Any = None
) -> SVDLegacyResult:
    """``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) Vᵀ``; ``some=False`` gives the
    full square ``U`` and ``V``; ``compute_uv=False`` gives zero-filled ``U`` and ``V``."""
    op = "svd"
    t = float_or_complex(input, op)
    U, S, Vh = _SVD.apply(t, not some)
    if not compute_uv:
        return SVDLegacyResult(U.detach() * 0, S, mH(Vh).detach() * 0)
    return SVDLegacyResult(U, S, mH(Vh))  # V = Vhᴴ (torch.svd's)


def qr_legacy(input: Any = None, some: bool = True, *, out: Any = None) -> Any:
    """``torch.qr``: ``(Q, R)``, reduced unless ``some=False``."""
    return qr(input, "reduced" if some else "complete")


def install_tensor_methods() -> None:
    """Adds the linear-algebra methods to ``Tensor`` (``x.norm()``, ``x.det()``, ...)."""
    methods: dict[str, Callable[..., Any]] = {
        "norm": tensor_norm,
        "dist": dist,
        "det": det,
        "logdet": logdet,
        "slogdet": slogdet,
        "inverse": inverse,
        "cholesky": cholesky,
        "matrix_power": matrix_power,
        "pinverse": pinverse,
        "svd": svd,
        "qr": qr_legacy,
        "mv": mv,
        "cross": cross,
        "kron": kron,
        "inner": inner,
        "ger": ger,
        "addmm": addmm,
        "baddbmm": baddbmm,
        "addmv": addmv,
        "matrix_exp": matrix_exp,
        "lu": lu_legacy,
        "lu_solve": lu_solve_legacy,
        "triangular_solve": triangular_solve_legacy,
        "orgqr": householder_product,
        "ormqr": ormqr_method,
        "pca_lowrank": pca_lowrank,
        "svd_lowrank": svd_lowrank_paddle,
        "cholesky_solve": cholesky_solve,
        "cholesky_inverse": cholesky_inverse,
        "matrix_transpose": matrix_transpose,
        "cov": cov_method,
        "corrcoef": corrcoef_method,
    }
    for meth, fn in methods.items():
        setattr(Tensor, meth, _as_method(fn))
