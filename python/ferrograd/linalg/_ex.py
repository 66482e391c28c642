"""``linalg.cholesky_ex``, ``linalg.inv_ex`` and ``linalg.solve_ex``: the factorizations
of ``cholesky``, ``inv`` and ``solve`` that report a failure per matrix in an int32
``info`` instead of raising (the failed matrices' results are NaN, or inf/NaN for
``solve_ex``). Same gradients as ``cholesky`` / ``inv``; ``solve_ex`` is a composition of
``lu_factor_ex`` and ``lu_solve``."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _core
from ..autograd.py_layer import Function
from ._common import LinAlgError, float_or_complex, mH, pick, run
from ._factor import _broadcast_batch, _Cholesky, _Inv, _is_vector_rhs, _square
from ._lu import lu_factor_ex, lu_solve

Tensor = _core.Tensor


def _ex_function(op: str, plain: Any, name: str) -> Any:
    """A ``Function`` class (named ``name``) running the kernel ``op``, which returns a
    result and its int32 ``info``; ``info`` is not differentiable and the result has the
    gradient of ``plain`` (a ``Function`` whose backward reads the saved result)."""

    class _Ex(Function):
        @staticmethod
        def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
            out, info = run(op, A)
            ctx.mark_non_differentiable(info)
            ctx.save_for_backward(out)
            return out, info

        @staticmethod
        def backward(ctx: Any, g: Tensor, ginfo: Any) -> Tensor:
            return plain.backward(ctx, g)  # type: ignore[no-any-return]

    _Ex.__name__ = _Ex.__qualname__ = name
    return _Ex


_CholeskyEx = _ex_function("cholesky_ex", _Cholesky, "_CholeskyEx")
_InvEx = _ex_function("inv_ex", _Inv, "_InvEx")


class CholeskyExResult(NamedTuple):
    """``(L, info)`` of ``cholesky_ex``."""

    L: Tensor
    info: Tensor


class InvExResult(NamedTuple):
    """``(inverse, info)`` of ``inv_ex``."""

    inverse: Tensor
    info: Tensor


def _raise_first_failure(info: Tensor, message: str) -> None:
    """Raises ``LinAlgError`` for the first nonzero ``info`` value, if any: ``message``
    formatted with ``where`` (a note saying which matrix of the batch, or empty) and
    ``code`` (the value)."""
    flat = info.numpy().reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        where = "" if info.ndim == 0 else f" at (flat) batch index {int(bad[0])}"
        raise LinAlgError(message.format(where=where, code=int(flat[bad[0]])))


def cholesky_ex(
    A: Any = None, *, upper: bool = False, check_errors: bool = False, out: Any = None
) -> CholeskyExResult:
    """``torch.linalg.cholesky_ex``: ``(L, info)``; ``info`` (int32, one per matrix) is 0
    or the order of the leading minor that is not positive-definite (``L`` is NaN then).
    ``check_errors=True`` raises ``LinAlgError`` instead."""
    op = "linalg.cholesky_ex"
    L, info = _CholeskyEx.apply(_square(A, None, op))
    if check_errors:
        _raise_first_failure(
            info,
            op + ": the input{where} is not positive-definite (the leading minor of "
            "order {code} is not positive-definite)",
        )
    return CholeskyExResult(mH(L) if upper else L, info)


def inv_ex(A: Any = None, *, check_errors: bool = False, out: Any = None) -> InvExResult:
    """``torch.linalg.inv_ex``: ``(inverse, info)``; ``info`` (int32, one per matrix) is 0
    or ``i`` when ``U[i-1, i-1]`` of the LU factorization is exactly zero (the matrix is
    singular; its inverse is NaN then). ``check_errors=True`` raises ``LinAlgError``."""
    op = "linalg.inv_ex"
    Y, info = _InvEx.apply(_square(A, None, op))
    if check_errors:
        _raise_first_failure(
            info,
            op + ": the input{where} is singular (diagonal element {code} of U in its LU "
            "factorization is exactly zero)",
        )
    return InvExResult(Y, info)


class SolveExResult(NamedTuple):
    """``(result, info)`` of ``solve_ex``."""

    result: Tensor
    info: Tensor


def solve_ex(
    A: Any = None,
    B: Any = None,
    *,
    left: bool = True,
    check_errors: bool = False,
    out: Any = None,
) -> SolveExResult:
    """``torch.linalg.solve_ex``: ``(X, info)`` with ``A X = B`` (``left=False``:
    ``X A = B``), through ``lu_factor_ex`` and ``lu_solve``; ``info`` (int32, one per
    matrix) is 0, or ``i`` when ``U[i-1, i-1]`` is exactly zero (then ``X`` holds inf/NaN).
    ``B`` may be a (batch of) vector(s) as in ``solve``; batch dims broadcast.
    ``check_errors=True`` raises ``LinAlgError`` for a singular ``A``."""
    op = "linalg.solve_ex"
    At = _square(A, None, op)
    Bt = float_or_complex(pick(B, None, "B", op), op)
    vector = left and _is_vector_rhs(At, Bt)
    if vector:
        Bt = Bt.unsqueeze(-1)
    if Bt.ndim < 2:
        raise ValueError(f"{op}: B must be a matrix or a batch of them, got {list(Bt.shape)}")
    batch = _broadcast_batch(list(At.shape[:-2]), list(Bt.shape[:-2]), op)
    n = At.shape[-1]
    if list(At.shape[:-2]) != batch:
        At = At.expand(*batch, n, n)
    LU, piv, info = lu_factor_ex(At, check_errors=check_errors)
    X = lu_solve(LU, piv, Bt, left=left)
    return SolveExResult(X.squeeze(-1) if vector else X, info)
