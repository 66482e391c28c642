"""Triangular solves: ``linalg.solve_triangular`` (torch), ``linalg.triangular_solve``
(Paddle) and the old ``torch.triangular_solve``. The forward runs in Rust (faer's
triangular solves, ``_core._linalg("solve_tril"/"solve_triu")``); the backward is
PyTorch's ``linalg_solve_triangular`` derivative written with differentiable ops (itself
and matmul), so higher derivatives work:

    X = A⁻¹ B:  gB = A⁻ᵀ g,  gA = -(gB Xᵀ) restricted to A's triangle (strictly, when the
    diagonal is taken as ones).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import _core
from ..autograd.py_layer import Function
from ._common import check_matrix, float_or_complex, mH, mT, pick, run

Tensor = _core.Tensor


class _SolveTriangular(Function):
    # A [..., n, n] triangular and B [..., n, k] with the same batch shape
    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor, upper: bool, unit: bool) -> Tensor:
        (X,) = run("solve_triu" if upper else "solve_tril", A, B, unit)
        ctx.upper, ctx.unit = upper, unit
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor, Tensor, None, None]:
        A, X = ctx.saved_tensors
        gB = _SolveTriangular.apply(mH(A), g, not ctx.upper, ctx.unit)
        gA = -(gB @ mH(X))
        k = 1 if ctx.unit else 0
        gA = gA.triu(k) if ctx.upper else gA.tril(-k)
        return gA, gB, None, None


def _broadcast(A: Tensor, B: Tensor, op: str) -> tuple[Tensor, Tensor]:
    """``A`` [..., n, n] and ``B`` [..., n, k] expanded to one batch shape."""
    import numpy as np

    check_matrix(A, op, square=True)
    if B.ndim < 2:
        raise ValueError(f"{op}: B must be a matrix or a batch of them, got shape {list(B.shape)}")
    if B.dtype != A.dtype:
        raise TypeError(f"{op}: A is {A.dtype} but B is {B.dtype}; give both the same dtype")
    n = A.shape[-1]
    if B.shape[-2] != n:
        raise ValueError(
            f"{op}: A of shape {list(A.shape)} needs B with {n} rows, got shape {list(B.shape)}"
        )
    try:
        batch = list(np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    except ValueError:
        raise ValueError(
            f"{op}: the batch dims of {list(A.shape)} and {list(B.shape)} do not broadcast"
        ) from None
    if list(A.shape[:-2]) != batch:
        A = A.expand(*batch, n, n)
    if list(B.shape[:-2]) != batch:
        B = B.expand(*batch, n, B.shape[-1])
    return A, B


def solve_tri(A: Tensor, B: Tensor, upper: bool, unit: bool = False, op: str = "") -> Tensor:
    """``A⁻¹ B`` for triangular ``A`` (batch dims broadcast), differentiable."""
    A, B = _broadcast(A, B, op or "linalg.solve_triangular")
    return _SolveTriangular.apply(A, B, bool(upper), bool(unit))


def solve_triangular(
    A: Any,
    B: Any,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Any = None,
) -> Tensor:
    """``torch.linalg.solve_triangular``: the solution ``X`` of ``A X = B`` (``left=False``:
    ``X A = B``) for an upper (``upper=True``) or lower triangular ``A``; only that
    triangle is read, and with ``unitriangular=True`` its diagonal is taken as ones. Batch
    dims broadcast. A zero on the diagonal gives inf/NaN (no error), as in PyTorch."""
    op = "linalg.solve_triangular"
    At, Bt = float_or_complex(A, op), float_or_complex(B, op)
    if left:
        return solve_tri(At, Bt, upper, unitriangular, op)
    if Bt.ndim < 2:
        raise ValueError(f"{op}: B must be a matrix or a batch of them, got shape {list(Bt.shape)}")
    return mT(solve_tri(mT(At), mT(Bt), not upper, unitriangular, op))


def triangular_solve(
    x: Any = None,
    y: Any = None,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    name: Any = None,
) -> Tensor:
    """``paddle.linalg.triangular_solve(x, y)``: the solution of ``x X = y`` (``transpose``:
    ``xᵀ X = y``, the plain transpose also for complex ``x``, as Paddle's and torch's
    trsm call) for triangular ``x`` (``upper`` or lower)."""
    op = "linalg.triangular_solve"
    A = float_or_complex(pick(x, None, "x", op), op)
    B = float_or_complex(pick(y, None, "y", op), op)
    if transpose:
        return solve_tri(mT(A), B, not upper, unitriangular, op)
    return solve_tri(A, B, upper, unitriangular, op)


class TriangularSolveResult(NamedTuple):
    """``(solution, cloned_coefficient)`` of the old ``torch.triangular_solve``."""

    solution: Tensor
    cloned_coefficient: Tensor


def triangular_solve_legacy(
    input: Any = None,
    A: Any = None,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: Any = None,
) -> TriangularSolveResult:
    """``torch.triangular_solve(b, A, upper=True, transpose=False, unitriangular=False)``:
    ``(X, A.clone())`` with ``A X = b`` (``transpose``: ``Aᵀ X = b``)."""
    op = "triangular_solve"
    b = float_or_complex(pick(input, None, "input", op), op)
    At = float_or_complex(pick(A, None, "A", op), op)
    X = triangular_solve(At, b, upper, transpose, unitriangular)
    return TriangularSolveResult(X, At.clone())
