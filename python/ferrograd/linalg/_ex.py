"""``linalg.cholesky_ex`` and ``linalg.inv_ex``: the factorizations of ``cholesky`` and
``inv`` that report a failure per matrix in an int32 ``info`` instead of raising (the
failed matrices' results are NaN). Same gradients as ``cholesky`` / ``inv``."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _core
from ..autograd.py_layer import Function
from ._common import LinAlgError, mT, run
from ._factor import _Cholesky, _Inv, _square

Tensor = _core.Tensor


class _CholeskyEx(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
        L, info = run("cholesky_ex", A)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(L)
        return L, info

    @staticmethod
    def backward(ctx: Any, gL: Tensor, ginfo: Any) -> Tensor:
        return _Cholesky.backward(ctx, gL)


class _InvEx(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
        Y, info = run("inv_ex", A)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(Y)
        return Y, info

    @staticmethod
    def backward(ctx: Any, g: Tensor, ginfo: Any) -> Tensor:
        return _Inv.backward(ctx, g)


class CholeskyExResult(NamedTuple):
    """``(L, info)`` of ``cholesky_ex``."""

    L: Tensor
    info: Tensor


class InvExResult(NamedTuple):
    """``(inverse, info)`` of ``inv_ex``."""

    inverse: Tensor
    info: Tensor


def _first_failure(info: Tensor) -> tuple[int, str] | None:
    """The first nonzero ``info`` value and a note saying where it is, or None."""
    flat = info.numpy().reshape(-1)
    bad = np.flatnonzero(flat)
    if not bad.size:
        return None
    where = "" if info.ndim == 0 else f" at (flat) batch index {int(bad[0])}"
    return int(flat[bad[0]]), where


def cholesky_ex(
    A: Any = None, *, upper: bool = False, check_errors: bool = False, out: Any = None
) -> CholeskyExResult:
    """``torch.linalg.cholesky_ex``: ``(L, info)``; ``info`` (int32, one per matrix) is 0
    or the order of the leading minor that is not positive-definite (``L`` is NaN then).
    ``check_errors=True`` raises ``LinAlgError`` instead."""
    op = "linalg.cholesky_ex"
    L, info = _CholeskyEx.apply(_square(A, None, op))
    if check_errors:
        f = _first_failure(info)
        if f is not None:
            raise LinAlgError(
                f"{op}: the input{f[1]} is not positive-definite (the leading minor of "
                f"order {f[0]} is not positive-definite)"
            )
    return CholeskyExResult(mT(L) if upper else L, info)


def inv_ex(A: Any = None, *, check_errors: bool = False, out: Any = None) -> InvExResult:
    """``torch.linalg.inv_ex``: ``(inverse, info)``; ``info`` (int32, one per matrix) is 0
    or ``i`` when ``U[i-1, i-1]`` of the LU factorization is exactly zero (the matrix is
    singular; its inverse is NaN then). ``check_errors=True`` raises ``LinAlgError``."""
    op = "linalg.inv_ex"
    Y, info = _InvEx.apply(_square(A, None, op))
    if check_errors:
        f = _first_failure(info)
        if f is not None:
            raise LinAlgError(
                f"{op}: the input{f[1]} is singular (diagonal element {f[0]} of U in its LU "
                "factorization is exactly zero)"
            )
    return InvExResult(Y, info)
