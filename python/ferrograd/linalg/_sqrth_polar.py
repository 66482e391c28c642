"""``torch.linalg.matrix_sqrth`` (the principal square root of a symmetric
positive-(semi)definite matrix) and ``torch.linalg.polar`` (``A = U H``, ``U`` with
orthonormal columns, ``H`` symmetric positive-semidefinite).

Forward: through ``eigh`` (``X = V diag(√max(w, 0)) Vᵀ``, negative eigenvalues clamped to
zero as torch) and the thin SVD (``A = W S Vᵀ``: ``U = W Vᵀ``, ``H = V S Vᵀ``), faer's
kernels.

Backward: the Sylvester equations, not the ``eigh`` / ``svd`` gradients, so repeated
eigenvalues / singular values (the identity, an orthogonal ``A``) are fine at first
order. ``X² = A`` gives ``X dX + dX X = dA``, so ``gA = S⁻¹(gX)`` with
``S⁻¹(G) = V [(Vᵀ G V) / (s_i + s_j)] Vᵀ`` in the eigenbasis of ``X`` (symmetrized, as
``eigh``'s gradient). For ``polar``, ``H² = AᵀA`` and ``dU = (dA - U dH) H⁻¹`` give
``gA = gU H⁻¹ + A (K + Kᵀ)``, ``K = S_H⁻¹(gH - Uᵀ gU H⁻¹)``. The backward passes are
written with differentiable ops (the eigenbasis through ``eigh`` of the saved output), so
second derivatives work where the eigenvalues are distinct and are inf/NaN where they
repeat, as in torch.

Complex input (Hermitian ``A`` for ``matrix_sqrth``): the same with every ``ᵀ`` read as
``ᴴ`` (``H`` Hermitian, ``U`` with orthonormal columns in the complex sense); the
gradients are PyTorch's convention (``z.grad = dL/dx + i dL/dy``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import _core
from ..autograd.py_layer import Function
from ._common import check_matrix, float_or_complex, mH, pick, run
from ._factor import eigh

Tensor = _core.Tensor


def _sylvester_inverse(s: Tensor, V: Tensor, G: Tensor) -> Tensor:
    """``Y`` with ``X Y + Y X = G`` for ``X = V diag(s) Vᴴ`` (``Vᵀ`` for real input)."""
    denom = s.unsqueeze(-1) + s.unsqueeze(-2)
    return V @ ((mH(V) @ G @ V) / denom) @ mH(V)


class _MatrixSqrth(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        w, V = run("eigh", A, None, True)
        s = w.clamp(min=0.0).sqrt()
        # clone: keep the saved output linked to this node for double backward
        X = ((V * s.unsqueeze(-2)) @ mH(V)).clone()
        ctx.save_for_backward(X)
        return X

    @staticmethod
    def backward(ctx: Any, gX: Tensor) -> Tensor:
        (X,) = ctx.saved_tensors
        s, V = eigh(X)
        G = _sylvester_inverse(s, V, gX)
        return (G + mH(G)) * 0.5


def matrix_sqrth(A: Any = None, *, out: Any = None) -> Tensor:
    """``torch.linalg.matrix_sqrth(A)``: the symmetric positive-semidefinite ``X`` with
    ``X X = A`` for each symmetric positive-(semi)definite ``A`` of a batch (only its
    lower triangle is read; negative eigenvalues are taken as zero, as torch).
    Differentiable; the gradient is symmetric, as ``eigh``'s."""
    op = "linalg.matrix_sqrth"
    t = float_or_complex(A, op)
    check_matrix(t, op, square=True)
    return _MatrixSqrth.apply(t)


class PolarResult(NamedTuple):
    """``(U, H)`` of ``linalg.polar``."""

    U: Tensor
    H: Tensor


class _Polar(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
        W, S, Vh = run("svd", A, None, False)
        U = (W @ Vh).clone()
        H = ((mH(Vh) * S.unsqueeze(-2)) @ Vh).clone()
        ctx.save_for_backward(A, U, H)
        ctx.set_materialize_grads(False)
        return U, H

    @staticmethod
    def backward(ctx: Any, gU: Tensor | None, gH: Tensor | None) -> Tensor | None:
        if gU is None and gH is None:
            return None
        A, U, H = ctx.saved_tensors
        s, V = eigh(H)
        Hinv = (V / s.unsqueeze(-2)) @ mH(V)
        C = gH
        gA = None
        if gU is not None:
            gA = gU @ Hinv
            t = mH(U) @ gA
            C = -t if C is None else C - t
        assert C is not None
        K = _sylvester_inverse(s, V, C)
        g = A @ (K + mH(K))
        return g if gA is None else gA + g


def polar(A: Any = None, *, out: Any = None) -> PolarResult:
    """``torch.linalg.polar(A)``: ``(U, H)`` with ``A = U H``, ``U`` (``m x n``) with
    orthonormal columns (the closest such matrix to ``A`` in the Frobenius norm) and ``H``
    (``n x n``) symmetric positive-semidefinite, for ``A`` of shape ``[..., m, n]`` with
    ``m >= n``. Differentiable where ``A`` has full column rank."""
    op = "linalg.polar"
    t = float_or_complex(pick(A, None, "A", op), op)
    check_matrix(t, op)
    m, n = t.shape[-2], t.shape[-1]
    if m < n:
        raise ValueError(
            f"{op}: input must have at least as many rows as columns, but got {m} by {n} "
            "matrices (for a wide A, take polar(A.mT) and transpose)"
        )
    U, H = _Polar.apply(t)
    return PolarResult(U, H)
