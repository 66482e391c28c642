"""The factorizations of ``_core._linalg`` for complex64 / complex128 inputs, with the
same outputs (``run`` in ``_common`` sends complex tensors here). The Rust kernels (faer)
are real-only; these run NumPy's LAPACK routines (``zgetrf``/``zgesv``, ``zpotrf``,
``zgeqrf``, ``zheevd``, ``zgesdd``, ``zgeev``) batched over the leading dims, which is
what PyTorch calls for complex inputs too, so values and conventions (eigh's real
ascending eigenvalues, ``Vh`` the conjugate transpose) are LAPACK's. No history is
recorded here: ``ferrograd.linalg`` adds the gradients.

Failures follow the real kernels' messages: an exactly singular matrix (a zero pivot of
its LU factorization) or one that is not positive-definite is a ``RuntimeError`` naming
the (flat) batch index, which ``run`` turns into ``LinAlgError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _core

Tensor = _core.Tensor

_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def _np(t: Tensor) -> np.ndarray:
    """A NumPy copy of ``t`` (complex)."""
    return np.ascontiguousarray(np.asarray(t.detach().numpy()))


def _t(a: Any, dtype: Any = None) -> Tensor:
    """A tensor holding the array ``a`` (cast to ``dtype`` when given)."""
    arr = np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype)
    return _core.from_numpy(np.ascontiguousarray(arr))


def _note(b: int, batched: bool) -> str:
    return f" at (flat) batch index {b}" if batched else ""


def _first_bad(a: np.ndarray, f: Callable[[np.ndarray], Any]) -> int:
    """The flat batch index of the first matrix of ``a`` on which ``f`` raises."""
    flat = a.reshape(-1, *a.shape[-2:])
    for b in range(flat.shape[0]):
        try:
            f(flat[b])
        except np.linalg.LinAlgError:
            return b
    return 0


def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK getf2 (partial pivoting) of a batch ``[B, m, n]``: the packed ``LU``, the
    1-based int32 pivots ``[B, min(m, n)]`` and int32 ``info`` (``i`` for the first
    exactly zero ``U[i-1, i-1]``), vectorized over the batch."""
    lu = a.copy()
    B, m, n = lu.shape
    k = min(m, n)
    piv = np.zeros((B, k), dtype=np.int32)
    info = np.zeros(B, dtype=np.int32)
    rows = np.arange(B)
    for j in range(k):
        col = lu[:, j:, j]
        p = j + np.argmax(np.abs(col.real) + np.abs(col.imag), axis=1)  # izamax's measure
        piv[:, j] = p + 1
        swap = lu[rows, p, :].copy()
        lu[rows, p, :] = lu[:, j, :]
        lu[:, j, :] = swap
        d = lu[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, d)
        mult = np.where(zero[:, None], 0, lu[:, j + 1 :, j] / safe[:, None])
        lu[:, j + 1 :, j] = np.where(zero[:, None], lu[:, j + 1 :, j], mult)
        lu[:, j + 1 :, j + 1 :] -= mult[:, :, None] * lu[:, j, None, j + 1 :]
    return lu, piv, info


def _inv(a: np.ndarray, op: str) -> np.ndarray:
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        b = _first_bad(a, np.linalg.inv)
        flat = a.reshape(-1, *a.shape[-2:])
        i = int(_getrf(flat[b : b + 1])[2][0]) - 1
        raise RuntimeError(
            f"{op}: the matrix{_note(b, a.ndim > 2)} is singular (U[{i}, {i}] of its LU "
            "factorization is exactly zero), so it has no inverse; use linalg.pinv or "
            "linalg.lstsq for singular systems"
        ) from None


def _chol_order(m: np.ndarray) -> int:
    """The order of the first leading minor of ``m`` that is not positive-definite
    (LAPACK potrf's ``info``; leading minors fail monotonically, so bisect)."""
    lo, hi = 1, m.shape[-1]
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            np.linalg.cholesky(m[:mid, :mid])
            lo = mid + 1
        except np.linalg.LinAlgError:
            hi = mid
    return lo


def _cholesky(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower Cholesky factors (NaN for a failed matrix) and potrf's int32 ``info``."""
    lower = np.tril(a)  # only the lower triangle is read (LAPACK's uplo='L')
    herm = lower + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
    try:
        return np.linalg.cholesky(herm), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        pass
    flat = herm.reshape(-1, *a.shape[-2:])
    out = np.full_like(flat, np.nan)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    for b in range(flat.shape[0]):
        try:
            out[b] = np.linalg.cholesky(flat[b])
        except np.linalg.LinAlgError:
            info[b] = _chol_order(flat[b])
    return out.reshape(a.shape), info.reshape(a.shape[:-2])


def _eig(a: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """``np.linalg.eig`` with each eigenvector of unit norm and its largest-modulus
    component real and positive (the real kernel's convention)."""
    if not np.all(np.isfinite(a)):
        raise RuntimeError(
            f"{op}: the input contains NaN or inf; the eigenvalue algorithm needs finite entries"
        )
    w, V = np.linalg.eig(a)
    idx = np.argmax(np.abs(V), axis=-2)[..., None, :]
    top = np.take_along_axis(V, idx, axis=-2)
    phase = np.where(top == 0, 1, top / np.where(top == 0, 1, np.abs(top)))
    return w, V / phase


def _tri_solve(a: np.ndarray, b: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    """``A X = B`` for triangular ``A`` (its ``upper``/lower triangle; ``unit``: ones on
    the diagonal) by substitution, batched; a zero diagonal gives inf/NaN as LAPACK's
    trtrs would not check (torch's behaviour)."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            js = slice(i + 1, n) if upper else slice(0, i)
            r = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, js], x[..., js, :])
            x[..., i, :] = r if unit else r / a[..., i, i, None]
    return x


def run_complex(op: str, a: Tensor, b: Tensor | None, flag: bool) -> list[Tensor]:
    """``_core._linalg(op, a, b, flag)`` for complex ``a`` (and ``b``): the same outputs,
    computed with NumPy's LAPACK. ``flag`` as there: complete Q (qr), lower triangle
    (eigh), full matrices (svd), unit diagonal (the triangular solves)."""
    A = _np(a)
    real = _REAL_OF[A.dtype]
    name = "linalg." + op
    if op in ("solve", "solve_tril", "solve_triu"):
        if b is None:
            raise ValueError(f"_linalg: {op!r} needs a right-hand side")
        Bm = _np(b).astype(A.dtype)
        if op != "solve":
            return [_t(_tri_solve(A, Bm, op == "solve_triu", flag), A.dtype)]
        try:
            return [_t(np.linalg.solve(A, Bm), A.dtype)]
        except np.linalg.LinAlgError:
            _inv(A, name)  # raises naming the batch index and the zero pivot
            raise
    if op == "inv":
        return [_t(_inv(A, name), A.dtype)]
    if op == "inv_ex":
        flat = A.reshape(-1, *A.shape[-2:])
        info = _getrf(flat)[2]
        Y = np.full_like(flat, np.nan)
        ok = info == 0
        if ok.any():
            Y[ok] = np.linalg.inv(flat[ok])
        return [_t(Y.reshape(A.shape)), _t(info.reshape(A.shape[:-2]))]
    if op == "det":
        sign, logabs = np.linalg.slogdet(A)
        return [_t(np.linalg.det(A), A.dtype), _t(sign, A.dtype), _t(logabs, real)]
    if op in ("cholesky", "cholesky_ex"):
        L, info = _cholesky(A)
        if op == "cholesky_ex":
            return [_t(L, A.dtype), _t(info)]
        bad = np.flatnonzero(info.reshape(-1))
        if bad.size:
            raise RuntimeError(
                f"linalg.cholesky: the input{_note(int(bad[0]), A.ndim > 2)} is not "
                "positive-definite (the leading minor of order "
                f"{int(info.reshape(-1)[bad[0]])} is not positive-definite); Cholesky "
                "needs a Hermitian positive-definite matrix"
            )
        return [_t(L, A.dtype)]
    if op == "qr":
        Q, R = np.linalg.qr(A, mode="complete" if flag else "reduced")
        return [_t(Q, A.dtype), _t(R, A.dtype)]
    if op in ("eigh", "eigvalsh"):
        try:
            w, V = np.linalg.eigh(A, UPLO="L" if flag else "U")
        except np.linalg.LinAlgError:
            raise RuntimeError(f"{name}: the eigenvalue algorithm did not converge") from None
        return [_t(w, real), _t(V, A.dtype)] if op == "eigh" else [_t(w, real)]
    if op in ("svd", "svdvals"):
        try:
            if op == "svdvals":
                return [_t(np.linalg.svd(A, compute_uv=False), real)]
            U, S, Vh = np.linalg.svd(A, full_matrices=flag)
        except np.linalg.LinAlgError:
            raise RuntimeError(f"{name}: the SVD algorithm did not converge") from None
        return [_t(U, A.dtype), _t(S, real), _t(Vh, A.dtype)]
    if op in ("eig", "eigvals"):
        w, V = _eig(A, name)
        return [_t(w, A.dtype), _t(V, A.dtype)] if op == "eig" else [_t(w, A.dtype)]
    if op == "lu_factor":
        flat = A.reshape(-1, *A.shape[-2:])
        lu, piv, info = _getrf(flat)
        lead = A.shape[:-2]
        return [_t(lu.reshape(A.shape)), _t(piv.reshape(*lead, -1)), _t(info.reshape(lead))]
    raise ValueError(f"_linalg: unknown factorization {op!r} for complex input")
