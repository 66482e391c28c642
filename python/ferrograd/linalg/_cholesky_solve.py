"""Solves and inverses from a Cholesky factor: ``torch.cholesky_solve(B, L, upper=False)``
/ ``paddle.linalg.cholesky_solve(x, y, upper=False)`` and ``torch.cholesky_inverse(L,
upper=False)`` / ``paddle.linalg.cholesky_inverse(x, upper=False)`` (also ``Tensor``
methods in both). Two triangular solves each, so differentiable to any order in both
arguments; only the factor's ``upper``/lower triangle is read, and only it gets a
gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ._common import check_matrix, const, float_or_complex, mH, np_dtype, pick
from ._triangular import solve_tri

Tensor = _core.Tensor


def _factor(L: Any, upper: Any, op: str) -> tuple[Tensor, bool]:
    Lt = float_or_complex(L, op)
    check_matrix(Lt, op, square=True)
    if not isinstance(upper, (bool, np.bool_)):
        raise TypeError(f"{op}: upper must be a bool, got {type(upper).__name__}")
    return Lt, bool(upper)


def _solve_with(Lt: Tensor, upper: bool, B: Tensor) -> Tensor:
    """``(L Lᴴ)⁻¹ B`` (``upper``: ``(Uᴴ U)⁻¹ B``) by two triangular solves."""
    if upper:
        return solve_tri(Lt, solve_tri(mH(Lt), B, upper=False), upper=True)
    return solve_tri(mH(Lt), solve_tri(Lt, B, upper=False), upper=True)


def cholesky_solve(
    input: Any = None,
    input2: Any = None,
    upper: bool = False,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``torch.cholesky_solve(B, L, upper=False)`` / ``paddle.linalg.cholesky_solve(x, y,
    upper=False)``: ``X`` with ``A X = B`` where ``A = L Lᵀ`` (``upper``: ``A = Uᵀ U``)
    and ``L`` (``y``) is ``A``'s Cholesky factor. ``B`` is ``[..., n, k]``; batch dims
    broadcast."""
    op = "cholesky_solve"
    Bt = float_or_complex(pick(input, x, "input/x", op), op)
    Lt, up = _factor(pick(input2, y, "input2/y", op), upper, op)
    if Bt.ndim < 2:
        raise ValueError(
            f"{op}: B must have at least 2 dimensions ([..., n, k]), got shape {list(Bt.shape)}"
        )
    n = Lt.shape[-1]
    if Bt.shape[-2] != n:
        raise ValueError(
            f"{op}: each factor is {n} x {n} but each B matrix is {Bt.shape[-2]} x {Bt.shape[-1]}"
        )
    if np_dtype(Bt) != np_dtype(Lt):
        raise TypeError(f"{op}: B is {Bt.dtype} but the factor is {Lt.dtype}; use one dtype")
    return _solve_with(Lt, up, Bt)


def cholesky_inverse(
    input: Any = None,
    upper: bool = False,
    *,
    x: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``torch.cholesky_inverse(L, upper=False)`` / ``paddle.linalg.cholesky_inverse(x,
    upper=False)``: ``A⁻¹`` for ``A = L Lᵀ`` (``upper``: ``Uᵀ U``) from its Cholesky
    factor, as ``L⁻ᵀ L⁻¹`` (exactly symmetric). Batched."""
    op = "cholesky_inverse"
    Lt, up = _factor(pick(input, x, "input/x", op), upper, op)
    n = Lt.shape[-1]
    eye = const(np.broadcast_to(np.eye(n), tuple(Lt.shape)), Lt)
    Y = solve_tri(mH(Lt), eye, upper=False) if up else solve_tri(Lt, eye, upper=False)
    return mH(Y) @ Y
