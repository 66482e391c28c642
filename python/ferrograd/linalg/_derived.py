"""Linear-algebra functions composed of the factorizations (``_factor``) and other
differentiable ops: pinv, lstsq, matrix_power, matrix_rank, cond, multi_dot. Their
gradients come from the compositions."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _core
from ._common import (
    check_matrix,
    float_or_complex,
    float_tensor,
    mH,
    needs_grad,
    np_dtype,
    pick,
    run,
)
from ._factor import _SVD, inv, svdvals

Tensor = _core.Tensor


def _svd_for(t: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    U, S, Vh = _SVD.apply(t, False) if needs_grad(t) else run("svd", t, None, False)
    return U, S, Vh


def _cutoff(S: Tensor, atol: Any, rtol: Any, m: int, n: int) -> Tensor:
    """max(atol, rtol * S_max) per matrix, torch's rule (rtol defaults to eps * max(m, n)
    when neither is given)."""
    eps = float(np.finfo(np_dtype(S)).eps)
    if atol is None and rtol is None:
        rtol = eps * max(m, n)
    smax = (
        S.detach().amax(-1, keepdim=True) if S.shape[-1] > 0 else S.detach().sum(-1, keepdim=True)
    )
    tol = smax * float(rtol or 0.0)
    if atol is not None:
        tol = tol.maximum(atol if isinstance(atol, Tensor) else float(atol))
    return tol


def pinv(
    A: Any = None,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    x: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Moore-Penrose pseudo-inverse through the SVD: singular values at or below
    ``max(atol, rtol * S_max)`` count as zero (``rcond``: Paddle's and ``torch.pinverse``'s
    name for ``rtol``). The gradient is that of the composition: defined while the rank
    stays constant and the kept singular values are distinct."""
    op = "linalg.pinv"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    if rcond is not None:
        rtol = rcond
    m, n = t.shape[-2], t.shape[-1]
    U, S, Vh = _svd_for(t)
    keep = S > _cutoff(S, atol, rtol, m, n)
    safe = _core.where(keep, S, S.detach() * 0 + 1)
    sinv = _core.where(keep, 1.0 / safe, S.detach() * 0)
    return mH(Vh) @ (sinv.unsqueeze(-1) * mH(U))


def pinverse(input: Any = None, rcond: float = 1e-15, *, x: Any = None, name: Any = None) -> Tensor:
    """``torch.pinverse``: ``pinv`` with a relative cutoff ``rcond``."""
    return pinv(pick(input, x, "input/x", "pinverse"), rtol=rcond)


class LstsqResult(NamedTuple):
    """``(solution, residuals, rank, singular_values)`` of ``lstsq``."""

    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


def lstsq(
    A: Any = None,
    B: Any = None,
    rcond: Any = None,
    *,
    driver: str | None = None,
    x: Any = None,
    y: Any = None,
    name: Any = None,
) -> LstsqResult:
    """Least-squares solution of ``A X ≈ B`` through the SVD pseudo-inverse (the result of
    LAPACK's gelsd). As torch: ``residuals`` (squared residual norms per column) only when
    m > n and every matrix has full rank, else empty; ``rank`` for every driver but
    'gels'; ``singular_values`` for 'gelsd'/'gelss', else empty."""
    op = "linalg.lstsq"
    At = float_or_complex(pick(A, x, "A/x", op), op)
    Bt = float_or_complex(pick(B, y, "B/y", op), op)
    if Bt.dtype != At.dtype:
        raise TypeError(f"{op}: A is {At.dtype} but B is {Bt.dtype}; give both the same dtype")
    check_matrix(At, op)
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise ValueError(f"{op}: driver must be one of gels, gelsy, gelsd, gelss, got {driver!r}")
    vector = Bt.ndim == At.ndim - 1
    if vector:
        Bt = Bt.unsqueeze(-1)
    m, n = At.shape[-2], At.shape[-1]
    if Bt.ndim < 2 or Bt.shape[-2] != m:
        raise ValueError(
            f"{op}: A of shape {list(At.shape)} needs B of shape [..., {m}, k], got "
            f"{list(Bt.shape)}"
        )
    U, S, Vh = _svd_for(At)
    eps = float(np.finfo(np_dtype(At)).eps)
    rtol = eps * max(m, n) if rcond is None or rcond < 0 else rcond
    keep = S > _cutoff(S, None, rtol, m, n)
    safe = _core.where(keep, S, S.detach() * 0 + 1)
    sinv = _core.where(keep, 1.0 / safe, S.detach() * 0)
    X = mH(Vh) @ (sinv.unsqueeze(-1) * (mH(U) @ Bt))
    rank = keep.astype(_core.int64).sum(-1)
    empty = _core.zeros(0, dtype=S.dtype)  # real, as torch's residuals
    full_rank = bool((rank.numpy() == min(m, n)).all()) if rank.numel() else True
    if m > n and full_rank:
        r = At @ X - Bt
        residuals = (r.real**2 + r.imag**2 if r.is_complex() else r**2).sum(-2)
    else:
        residuals = empty
    svals = S if driver in ("gelsd", "gelss") else empty
    if driver == "gels":
        rank = _core.zeros(0, dtype=_core.int64)
    if vector:
        X = X.squeeze(-1)
        if residuals.numel():
            residuals = residuals.squeeze(-1)
    return LstsqResult(X, residuals, rank, svals)


def matrix_power(
    A: Any = None, n: int | None = None, *, x: Any = None, out: Any = None, name: Any = None
) -> Tensor:
    """``A`` multiplied by itself ``n`` times (``n = 0``: the identity, ``n < 0``: powers
    of ``inv(A)``), by repeated squaring."""
    op = "linalg.matrix_power"
    t = pick(A, x, "A/x", op)
    if not isinstance(t, Tensor):
        t = float_tensor(t, op)
    check_matrix(t, op, square=True)
    if n is None or isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{op}: n must be an int, got {n!r}")
    k = t.shape[-1]
    if n == 0:
        # the identity in every batch slot (a fresh tensor, not connected to A)
        return _core.eye(k, dtype=t.dtype) + _core.zeros(list(t.shape), dtype=t.dtype)
    base = inv(t) if n < 0 else t
    e = abs(int(n))
    result: Tensor | None = None
    while True:
        if e & 1:
            result = base if result is None else result @ base
        e >>= 1
        if not e:
            break
        base = base @ base
    assert result is not None
    return result


def matrix_rank(
    A: Any = None,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    x: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Number of singular values above ``max(atol, rtol * S_max)`` (``tol``: an absolute
    cutoff, Paddle's name), as int64."""
    op = "linalg.matrix_rank"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    if tol is not None:
        atol = tol
        rtol = 0.0 if rtol is None else rtol
    S = run("svdvals", t.detach())[0]
    return (S > _cutoff(S, atol, rtol, t.shape[-2], t.shape[-1])).astype(_core.int64).sum(-1)


def cond(
    A: Any = None, p: Any = None, *, x: Any = None, out: Any = None, name: Any = None
) -> Tensor:
    """Condition number: ``S_max / S_min`` for ``p`` None or 2 (``-2``: the inverse),
    else ``norm(A, p) * norm(inv(A), p)`` (square ``A``), ``inf`` for a singular ``A``
    (as PyTorch and NumPy); 0 for each 0 x 0 matrix (PyTorch's)."""
    from ._ex import inv_ex
    from ._norms import matrix_norm

    op = "linalg.cond"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    if p is not None and p != 2 and p != -2:
        check_matrix(t, op, square=True)
    if t.shape[-1] == 0 or t.shape[-2] == 0:
        return _core.zeros(list(t.shape[:-2]), dtype=svdvals(t).dtype)
    if p is None or p == 2 or p == -2:
        S = svdvals(t)
        hi, lo = S[..., 0], S[..., -1]
        return lo / hi if p == -2 else hi / lo
    Ainv, info = inv_ex(t)
    # (a singular matrix's inverse is NaN: zeros instead, so the norm of it, whose result
    # is replaced by inf below, raises nothing: 'nuc' would run an SVD of NaN)
    singular = (info > 0).reshape(list(info.shape) + [1, 1])
    Ainv = _core.where(singular, _core.zeros([], dtype=Ainv.dtype), Ainv)
    c = matrix_norm(t, p) * matrix_norm(Ainv, p)
    return _core.where(info > 0, _core.full([], float("inf"), dtype=c.dtype), c)


def multi_dot(tensors: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """Product of a list of matrices (the first may be 1-D: a row vector; the last 1-D: a
    column vector), multiplied left to right."""
    op = "linalg.multi_dot"
    ts = list(pick(tensors, x, "tensors/x", op))
    if not ts:
        raise ValueError(f"{op}: expected at least one tensor, got none")
    if len(ts) == 1:
        raise ValueError(f"{op}: expected at least 2 tensors, got 1")
    out_t = ts[0]
    for t in ts[1:]:
        out_t = out_t @ t
    return out_t
