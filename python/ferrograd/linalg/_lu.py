"""LU with partial pivoting as torch and Paddle spell it: ``linalg.lu_factor`` /
``lu_factor_ex`` (packed ``LU`` and LAPACK's 1-based int32 ``pivots``), ``linalg.lu``
(torch's ``(P, L, U)``; Paddle's ``(LU, pivots[, infos])``), ``lu_unpack`` and
``lu_solve``. The factorization runs in Rust (faer, ``_core._linalg("lu_factor")``);
complex64 / complex128 input goes through ``_complex_kernels._getrf`` (LAPACK's getf2,
vectorized over the batch in NumPy), with the same pivots and ``info``.

Backward: PyTorch's ``linalg_lu_backward`` (square, wide and tall cases) as
``lu_factor_ex_backward`` applies it to the packed factor, written with differentiable
ops (triangular solves and matmuls), so higher derivatives work; e.g. for square ``A``

    gA = P L⁻ᵀ [tril₋₁(Lᵀ gL) + triu(gU Uᵀ)] U⁻ᵀ

(``ᵀ`` read as ``ᴴ`` for complex input, as PyTorch's formula).

``lu_unpack`` and ``lu_solve`` are compositions of differentiable ops (masks, matmul with
the constant permutation matrix, triangular solves), so their gradients need no formula.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numpy as np

from .. import _core
from .._dialect import caller_dialect
from ..autograd.py_layer import Function
from ._common import LinAlgError, check_matrix, const, float_or_complex, mH, mT, pick, run
from ._triangular import solve_tri

Tensor = _core.Tensor


def _perm(piv: np.ndarray, m: int) -> np.ndarray:
    """Row order after LAPACK's swaps: ``perm[..., i]`` is the row of ``A`` at row ``i``
    of ``L U``."""
    perm = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
    for i in range(piv.shape[-1]):
        j = (piv[..., i] - 1)[..., None]
        pi = perm[..., i].copy()
        perm[..., i] = np.take_along_axis(perm, j, -1)[..., 0]
        np.put_along_axis(perm, j, pi[..., None], -1)
    return perm


def _check_pivots(piv: Any, lead: list[int], k: int, m: int, op: str) -> np.ndarray:
    """The pivots as a NumPy int array of shape ``lead + [k]`` with values in 1..m."""
    if not isinstance(piv, Tensor) or piv.is_floating_point() or piv.is_complex():
        raise TypeError(f"{op}: the pivots must be an integer tensor (int32, as lu_factor gives)")
    p = piv.numpy().astype(np.int64)
    if list(p.shape) != lead + [k]:
        raise ValueError(f"{op}: the pivots must have shape {lead + [k]}, got {list(p.shape)}")
    if p.size and (p.min() < 1 or p.max() > m):
        raise ValueError(f"{op}: the pivots must lie in 1..{m} (LAPACK's 1-based row numbers)")
    return p


def _P(piv: np.ndarray, m: int, like: Tensor) -> Tensor:
    """The permutation matrix ``P`` with ``A = P L U``."""
    if m and int(np.prod(piv.shape[:-1], dtype=object)) * m * m > sys.maxsize // 8:
        raise MemoryError(f"the {m} x {m} permutation matrices P do not fit in memory")
    eye = np.eye(m)[_perm(piv, m)]
    return const(np.swapaxes(eye, -1, -2), like)


def _lu_backward(gL: Tensor | None, gU: Tensor | None, P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """PyTorch's ``linalg_lu_backward`` for ``A = P L U`` (L m x k unit lower, U k x n);
    for complex inputs every transpose is the conjugate transpose, as there."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)

    def right_solve_Ut(Ut: Tensor, X: Tensor) -> Tensor:
        # X Ut⁻ᴴ, i.e. the solution Y of Y Utᴴ = X for upper Ut (Ut Yᴴ = Xᴴ)
        return mH(solve_tri(Ut, mH(X), upper=True))

    if m == n:
        gA = None if gL is None else (mH(L) @ gL).tril(-1)
        if gU is not None:
            t = (gU @ mH(U)).triu()
            gA = t if gA is None else gA + t
        assert gA is not None
        gA = right_solve_Ut(U, gA)
        gA = solve_tri(mH(L), gA, upper=True, unit=True)
    elif m < n:
        U1 = U[..., :, :k]
        gA = None if gL is None else mH(L) @ gL
        if gU is not None:
            t = gU.triu() @ mH(U)
            gA = -t if gA is None else gA - t
        assert gA is not None
        gA = right_solve_Ut(U1, gA.tril(-1))
        if gU is not None:
            gA = _core.concat([gA + gU[..., :, :k].triu(), gU[..., :, k:]], -1)
        gA = solve_tri(mH(L), gA, upper=True, unit=True)
        if gU is None:
            gA = _core.concat([gA, (U[..., :, k:] * 0).detach()], -1)
    else:
        L1 = L[..., :k, :]
        gA = None if gU is None else gU @ mH(U)
        if gL is not None:
            t = mH(L) @ gL.tril(-1)
            gA = -t if gA is None else gA - t
        assert gA is not None
        gA = solve_tri(mH(L1), gA.triu(), upper=True, unit=True)
        if gL is not None:
            gA = _core.concat([gA + gL[..., :k, :].tril(-1), gL[..., k:, :]], -2)
        gA = right_solve_Ut(U, gA)
        if gL is None:
            gA = _core.concat([gA, (L[..., k:, :] * 0).detach()], -2)
    return P @ gA


class _LUFactor(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        LU, piv, info = run("lu_factor", A)
        ctx.mark_non_differentiable(piv, info)
        ctx.set_materialize_grads(False)
        ctx.piv = piv.numpy()
        ctx.save_for_backward(LU)
        return LU, piv, info

    @staticmethod
    def backward(ctx: Any, gLU: Tensor | None, gp: Any, gi: Any) -> Tensor | None:
        if gLU is None:
            return None
        (LU,) = ctx.saved_tensors
        m, n = LU.shape[-2], LU.shape[-1]
        k = min(m, n)
        P = _P(ctx.piv, m, LU)
        L, U = _unpack_LU(LU)
        return _lu_backward(gLU.tril(-1)[..., :, :k], gLU.triu()[..., :k, :], P, L, U)


def _unpack_LU(LU: Tensor) -> tuple[Tensor, Tensor]:
    """The unit-lower ``L`` (m x k) and upper ``U`` (k x n) packed in ``LU`` (differentiable)."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    if k == 0:  # empty factors (and no m x k masks: m may be huge)
        return LU[..., :, :0], LU[..., :0, :]
    L = LU.tril(-1)[..., :, :k] + const(np.eye(m, k), LU)
    return L, LU.triu()[..., :k, :]


# ---- results ----


class LUFactorResult(NamedTuple):
    """``(LU, pivots)`` of ``lu_factor``."""

    LU: Tensor
    pivots: Tensor


class LUFactorExResult(NamedTuple):
    """``(LU, pivots, info)`` of ``lu_factor_ex`` (and of ``torch.lu(get_infos=True)``)."""

    LU: Tensor
    pivots: Tensor
    info: Tensor


class LUResult(NamedTuple):
    """``(P, L, U)`` of ``linalg.lu`` and ``lu_unpack``: ``A = P L U``."""

    P: Tensor
    L: Tensor
    U: Tensor


def _factor(A: Any, pivot: bool, op: str) -> tuple[Tensor, Tensor, Tensor]:
    t = float_or_complex(A, op)
    check_matrix(t, op)
    if not pivot:
        raise RuntimeError(
            f"{op}: LU without pivoting is not implemented on the CPU (as in PyTorch); "
            "use pivot=True"
        )
    return _LUFactor.apply(t)


def _raise_on_info(info: Tensor, op: str) -> None:
    bad = np.flatnonzero(info.numpy())
    if bad.size:
        i = int(info.numpy().reshape(-1)[bad[0]])
        where = "" if info.ndim == 0 else f" (at flat batch index {int(bad[0])})"
        raise LinAlgError(
            f"{op}: U[{i - 1}, {i - 1}] is exactly zero{where}: the matrix is singular and "
            "solving with this factorization would divide by zero; lu_factor_ex / "
            "lu(get_infos=True) return info instead of raising"
        )


def lu_factor_ex(
    A: Any = None, *, pivot: bool = True, check_errors: bool = False, out: Any = None
) -> LUFactorExResult:
    """``torch.linalg.lu_factor_ex``: ``(LU, pivots, info)`` with LAPACK's conventions —
    ``LU`` packs the unit-lower ``L`` (diagonal not stored) and ``U``; ``pivots`` are
    1-based int32 row swaps; ``info`` (int32, one per matrix) is 0, or ``i`` when
    ``U[i-1, i-1]`` is exactly zero. ``check_errors=True`` raises ``LinAlgError`` then."""
    op = "linalg.lu_factor_ex"
    LU, piv, info = _factor(A, pivot, op)
    if check_errors:
        _raise_on_info(info, op)
    return LUFactorExResult(LU, piv, info)


def lu_factor(A: Any = None, *, pivot: bool = True, out: Any = None) -> LUFactorResult:
    """``torch.linalg.lu_factor``: ``(LU, pivots)`` (see ``lu_factor_ex``); a singular
    matrix (an exactly zero pivot) raises ``LinAlgError``, as in PyTorch."""
    op = "linalg.lu_factor"
    LU, piv, info = _factor(A, pivot, op)
    _raise_on_info(info, op)
    return LUFactorResult(LU, piv)


def lu_unpack(
    LU_data: Any = None,
    LU_pivots: Any = None,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    x: Any = None,
    y: Any = None,
    unpack_ludata: Any = None,
    out: Any = None,
    name: Any = None,
) -> LUResult:
    """``torch.lu_unpack`` / ``paddle.linalg.lu_unpack(x, y)``: ``(P, L, U)`` with
    ``A = P L U`` from a packed factorization and its pivots. Differentiable in
    ``LU_data``. An unpacked-away part is an empty tensor."""
    op = "lu_unpack"
    LU = float_or_complex(pick(LU_data, x, "LU_data/x", op), op)
    piv = pick(LU_pivots, y, "LU_pivots/y", op)
    check_matrix(LU, op)
    if unpack_ludata is not None:
        unpack_data = bool(unpack_ludata)
    m, n = LU.shape[-2], LU.shape[-1]
    empty = _core.zeros(0, dtype=LU.dtype)
    if unpack_data:
        L, U = _unpack_LU(LU)
    else:
        L = U = empty
    P = empty
    if unpack_pivots:
        p = _check_pivots(piv, list(LU.shape[:-2]), min(m, n), m, op)
        P = _P(p, m, LU)
    return LUResult(P, L, U)


def _called_as_paddle(depth: int = 2) -> bool:
    """Whether the calling code is Paddle code (``import ferrograd as paddle``; see
    ``ferrograd._dialect``): the tie-break for a call both peers spell the same way but
    answer differently."""
    return caller_dialect(depth + 1) == "paddle"


def lu(
    A: Any = None,
    *args: Any,
    pivot: bool = True,
    get_infos: Any = None,
    x: Any = None,
    out: Any = None,
    name: Any = None,
) -> Any:
    """``torch.linalg.lu(A, *, pivot=True)``: ``(P, L, U)`` with ``A = P L U``, or
    ``paddle.linalg.lu(x, pivot=True, get_infos=False)``: ``(LU, pivots[, infos])``.

    Paddle's form is chosen when an argument only Paddle has is given (``x=``,
    ``get_infos=``, ``name=``, ``pivot`` positionally); for a bare ``lu(A)`` it is chosen
    when the calling module names ferrograd ``paddle`` (``import ferrograd as paddle``)
    and not ``torch``."""
    op = "linalg.lu"
    if len(args) > 2:
        raise TypeError(f"{op}() takes at most 3 positional arguments")
    paddle = bool(args) or x is not None or get_infos is not None or name is not None
    if args:
        pivot = bool(args[0])
        if len(args) == 2:
            get_infos = args[1]
    if not paddle:
        paddle = _called_as_paddle()
    t = pick(A, x, "A/x", op)
    LU, piv, info = _factor(t, pivot, op)
    if paddle:
        # Paddle reports a singular matrix in infos (when asked) and does not raise
        return LUFactorExResult(LU, piv, info) if get_infos else LUFactorResult(LU, piv)
    return lu_unpack(LU, piv)


def lu_legacy(
    A: Any = None, pivot: bool = True, get_infos: bool = False, *, out: Any = None
) -> Any:
    """``torch.lu`` / ``paddle.lu``: ``(LU, pivots)``, or with ``get_infos=True``
    ``(LU, pivots, infos)``; without ``get_infos`` a singular matrix raises
    ``LinAlgError`` (PyTorch's rule)."""
    op = "lu"
    LU, piv, info = _factor(A, pivot, op)
    if get_infos:
        return LUFactorExResult(LU, piv, info)
    _raise_on_info(info, op)
    return LUFactorResult(LU, piv)


def _solve_packed(LU: Tensor, piv: Any, B: Tensor, left: bool, trans: str, op: str) -> Tensor:
    """``op(A)⁻¹ B`` for ``A = P L U`` given packed, ``op`` by LAPACK getrs' ``trans``:
    ``'N'`` ``A``, ``'T'`` ``Aᵀ``, ``'C'`` ``Aᴴ`` (the same as ``'T'`` for real input);
    ``left=False``: ``B op(A)⁻¹`` (``'N'`` / ``'C'`` only)."""
    check_matrix(LU, op, square=True)
    if B.dtype != LU.dtype:
        raise TypeError(f"{op}: LU is {LU.dtype} but B is {B.dtype}; give both the same dtype")
    if B.ndim < 2:
        raise ValueError(f"{op}: B must be a matrix or a batch of them, got shape {list(B.shape)}")
    n = LU.shape[-1]
    P = _P(_check_pivots(piv, list(LU.shape[:-2]), n, n, op), n, LU)
    if not left:
        # X A = B  <=>  Aᴴ Xᴴ = Bᴴ;  X Aᴴ = B  <=>  A Xᴴ = Bᴴ
        return mH(_solve_packed(LU, piv, mH(B), True, "N" if trans == "C" else "C", op))
    if B.shape[-2] != n:
        raise ValueError(
            f"{op}: LU of shape {list(LU.shape)} needs B with {n} rows, got {list(B.shape)}"
        )
    L, U = _unpack_LU(LU)
    if trans == "N":
        Y = solve_tri(L, mT(P) @ B, upper=False, unit=True, op=op)
        return solve_tri(U, Y, upper=True, op=op)
    t = mH if trans == "C" else mT  # Aᴴ = Uᴴ Lᴴ Pᵀ, Aᵀ = Uᵀ Lᵀ Pᵀ (P is real)
    Y = solve_tri(t(U), B, upper=False, op=op)
    return P @ solve_tri(t(L), Y, upper=True, unit=True, op=op)


def _is_int_tensor(t: Any) -> bool:
    return isinstance(t, Tensor) and not t.is_floating_point() and not t.is_complex()


def _bind(
    order: tuple[str, ...], args: tuple[Any, ...], kw: dict[str, Any], op: str
) -> dict[str, Any]:
    """``args`` and ``kw`` bound to the parameter names ``order`` (a TypeError as Python's)."""
    if len(args) > len(order):
        raise TypeError(f"{op}() takes at most {len(order)} positional arguments")
    bound = dict(zip(order, args))
    for k, v in kw.items():
        if k not in order:
            raise TypeError(f"{op}() got an unexpected keyword argument {k!r}")
        if k in bound:
            raise TypeError(f"{op}() got multiple values for argument {k!r}")
        bound[k] = v
    for k in order:
        if bound.get(k) is None:
            raise TypeError(f"{op}() missing required argument: {k!r}")
    return bound


def lu_solve(
    *args: Any,
    left: bool = True,
    adjoint: bool = False,
    trans: Any = None,
    out: Any = None,
    name: Any = None,
    **kwargs: Any,
) -> Tensor:
    """``torch.linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False)``: ``X`` with
    ``A X = B`` (``adjoint``: ``Aᴴ X = B``; ``left=False``: ``X A = B``) given ``A``'s
    ``lu_factor``; or ``paddle.linalg.lu_solve(b, lu, pivots, trans='N')`` (``'T'``:
    ``Aᵀ X = b``, ``'C'``: ``Aᴴ X = b``, as LAPACK getrs). The two orders are told apart by the keywords, or else by whether the
    second argument is the integer pivots tensor (torch) or not (Paddle). Differentiable
    in ``LU`` and ``B``."""
    op = "linalg.lu_solve"
    paddle = (
        "b" in kwargs
        or "lu" in kwargs
        or trans is not None
        or (len(args) >= 2 and not _is_int_tensor(args[1]))
    )
    if paddle:
        a = _bind(("b", "lu", "pivots"), args, kwargs, op)
        t = "N" if trans is None else trans
        if t not in ("N", "T", "C"):
            raise ValueError(f"{op}: trans must be 'N', 'T' or 'C', got {t!r}")
        fac, rhs = float_or_complex(a["lu"], op), float_or_complex(a["b"], op)
        return _solve_packed(fac, a["pivots"], rhs, True, t, op)
    a = _bind(("LU", "pivots", "B"), args, kwargs, op)
    LUt, Bt = float_or_complex(a["LU"], op), float_or_complex(a["B"], op)
    return _solve_packed(LUt, a["pivots"], Bt, bool(left), "C" if adjoint else "N", op)


def lu_solve_legacy(
    input: Any = None, LU_data: Any = None, LU_pivots: Any = None, *, out: Any = None
) -> Tensor:
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``X`` with ``A X = b``."""
    op = "lu_solve"
    return _solve_packed(
        float_or_complex(LU_data, op), LU_pivots, float_or_complex(input, op), True, "N", op
    )
