"""Randomized low-rank SVD and PCA (Halko, Martinsson and Tropp 2011, "Finding structure
with randomness", Algorithms 4.4 and 5.1): ``torch.svd_lowrank`` / ``torch.pca_lowrank``
and ``paddle.linalg.svd_lowrank`` / ``pca_lowrank`` (also ``Tensor`` methods in Paddle).

``svd_lowrank`` draws a Gaussian ``n x q`` test matrix from ferrograd's global generator
(``manual_seed`` makes it reproducible), builds an orthonormal basis ``Q`` of the range of
``A`` with ``niter`` subspace (power) iterations, each re-orthonormalized by QR, and
returns the SVD of the small ``Q^T A``. With ``rank(A) <= q`` the result is exact (up to
rounding); otherwise ``U diag(S) Vᵀ`` approximates ``A``, the better the larger ``niter``
and the faster the singular values decay. Everything is a composition of differentiable
ops (matmul, ``linalg.qr``, ``linalg.svd``), so the results are differentiable, with the
random matrix a constant. Complex input works the same way with conjugate transposes
(``A - M ≈ U diag(S) Vᴴ``, ``S`` real, a complex Gaussian test matrix), as torch's
``_lowrank`` (its ``transjugate``).
"""

from __future__ import annotations

import operator
from typing import Any

from .. import _core
from ._common import check_matrix, float_or_complex, mH, pick
from ._factor import qr, svd

Tensor = _core.Tensor


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An ``m x q`` matrix with orthonormal columns spanning (about) the range of
    ``A - M`` (Halko et al., Algorithm 4.4, with QR after each product)."""
    R = _core.randn(A.shape[-1], q, dtype=A.dtype)

    def times(X: Tensor, At: Tensor, Mt: Tensor | None) -> Tensor:
        Y = At @ X
        return Y if Mt is None else Y - Mt @ X

    Q = qr(times(R, A, M)).Q
    for _ in range(niter):
        Q = qr(times(Q, mH(A), None if M is None else mH(M))).Q
        Q = qr(times(Q, A, M)).Q
    return Q


def _svd_lowrank(A: Tensor, q: int, niter: int, M: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = M.expand(*A.shape) if list(M.shape) != list(A.shape) else M
    if m < n:  # work with the tall one: fewer random columns to orthonormalize
        A = mH(A)
        M = None if M is None else mH(M)
    Q = _approximate_basis(A, q, niter, M)
    B = mH(Q) @ A
    if M is not None:
        B = B - mH(Q) @ M
    U, S, Vh = svd(B, full_matrices=False)
    U = Q @ U
    V = mH(Vh)
    if m < n:
        U, V = V, U
    return U, S, V


def _check_int(v: Any, what: str, op: str) -> int:
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{op}: {what} must be an int, got {type(v).__name__}")
    i = operator.index(v)
    if i < 0:
        raise ValueError(f"{op}: {what}(={i}) must be a non-negative integer")
    return i


def _check_M(M: Any, A: Tensor, op: str) -> Tensor | None:
    if M is None:
        return None
    Mt = float_or_complex(M, op)
    if Mt.dtype != A.dtype:
        raise TypeError(
            f"{op}: M is {Mt.dtype} but the input is {A.dtype}; give both the same dtype"
        )
    ok = Mt.ndim <= A.ndim and all(
        a == b or a == 1 for a, b in zip(reversed(list(Mt.shape)), reversed(list(A.shape)))
    )
    if not ok:
        raise ValueError(
            f"{op}: M of shape {list(Mt.shape)} does not broadcast to the input's shape "
            f"{list(A.shape)}"
        )
    return Mt


def svd_lowrank(
    A: Any = None,
    q: Any = 6,
    niter: Any = 2,
    M: Any = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.svd_lowrank(A, q=6, niter=2, M=None)``: ``(U, S, V)`` with
    ``A - M ≈ U diag(S) Vᵀ`` of rank ``min(q, m, n)`` (``U`` ``[..., m, q]``, ``S``
    ``[..., q]``, ``V`` ``[..., n, q]``; ``M`` broadcasts to ``A``'s shape), computed by
    the randomized algorithm of Halko et al. (see the module docstring). Exact when
    ``rank(A - M) <= q``; seed with ``manual_seed`` to reproduce."""
    op = "svd_lowrank"
    t = float_or_complex(pick(A, None, "A", op), op)
    check_matrix(t, op)
    qq = 6 if q is None else _check_int(q, "q", op)
    it = 2 if niter is None else _check_int(niter, "niter", op)
    return _svd_lowrank(t, qq, it, _check_M(M, t, op))


def svd_lowrank_paddle(
    x: Any = None, q: Any = None, niter: Any = 2, M: Any = None, name: Any = None
) -> tuple[Tensor, Tensor, Tensor]:
    """``paddle.linalg.svd_lowrank(x, q=None, niter=2, M=None)`` (and ``Tensor``'s): as
    ``torch.svd_lowrank`` but ``q`` defaults to ``min(6, m, n)`` and must be at most
    ``min(m, n)``, as Paddle checks."""
    op = "linalg.svd_lowrank"
    t = float_or_complex(pick(x, None, "x", op), op)
    check_matrix(t, op)
    k = min(t.shape[-2], t.shape[-1])
    qq = min(6, k) if q is None else _check_int(q, "q", op)
    if k != 0 and qq > k:
        raise ValueError(f"{op}: q(={qq}) must not be greater than min(m, n)={k}")
    return _svd_lowrank(t, qq, _check_int(niter, "niter", op), _check_M(M, t, op))


def pca_lowrank(
    A: Any = None,
    q: Any = None,
    center: bool = True,
    niter: Any = 2,
    *,
    x: Any = None,
    name: Any = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.pca_lowrank(A, q=None, center=True, niter=2)`` /
    ``paddle.linalg.pca_lowrank(x, q=None, center=True, niter=2)``: ``(U, S, V)``, the
    randomized ``svd_lowrank`` of ``A`` minus its column means (``center=True``; rows are
    samples), so ``V``'s columns are the principal directions and ``S² / (m - 1)`` the
    variances along them. ``q`` defaults to ``min(6, m, n)`` and must be at most
    ``min(m, n)``."""
    op = "pca_lowrank"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    m, n = t.shape[-2], t.shape[-1]
    qq = min(6, m, n) if q is None else _check_int(q, "q", op)
    if qq > min(m, n):
        raise ValueError(
            f"{op}: q(={qq}) must be non-negative integer and not greater than "
            f"min(m, n)={min(m, n)}"
        )
    it = _check_int(niter, "niter", op)
    if not isinstance(center, bool):
        raise TypeError(f"{op}: center must be a bool, got {type(center).__name__}")
    if center:
        t = t - t.mean(-2, keepdim=True)
    return _svd_lowrank(t, qq, it, None)
