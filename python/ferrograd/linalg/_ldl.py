"""The LDLᵀ factorization of symmetric (possibly indefinite) matrices with Bunch–Kaufman
pivoting: ``torch.linalg.ldl_factor`` / ``ldl_factor_ex`` / ``ldl_solve``.

The factor is LAPACK ``sytrf``'s compact format (``uplo='L'``), which torch returns:
``LD`` holds the unit-lower ``L`` below the diagonal blocks and the block-diagonal ``D``
(1x1 and symmetric 2x2 blocks) on the diagonal and, for a 2x2 block at ``k, k+1``, in
``LD[k+1, k]``; the upper triangle is zero. ``pivots`` are 1-based int32: ``p[k] > 0``
means rows/columns ``k+1`` and ``p[k]`` were swapped and ``D[k, k]`` is a 1x1 block;
``p[k] = p[k+1] = -r < 0`` means a 2x2 block at ``k, k+1`` and rows/columns ``k+2`` and
``r`` were swapped. ``A = P(1) L(1) P(2) L(2) ... D ... ᵀ``: each column of ``LD`` is
stored as it was when its step ran, before the later swaps.

The forward pass is LAPACK's unblocked ``dsytf2`` (lower) in NumPy, step by step (the
same pivot choices as ``dsytrf``; the blocked ``dlasyf`` LAPACK uses above 64 columns
makes the same choices, up to rounding in near ties).

Gradients (torch has none for ``ldl_factor``): with the pivots held fixed,
``M = Πᵀ sym(tril A) Π = L D Lᵀ`` is differentiable; with ``X = L⁻¹ dM L⁻ᵀ`` the
differentials are ``dD = blockdiag(X)``, ``dL = L · blocktril₋(X) D⁻¹``, so the backward
pass is ``gX = blocktril₋(Lᵀ gL D⁻¹) + blockdiag(gD)``, ``gM = L⁻ᵀ gX L⁻¹``, written with
differentiable ops (higher derivatives work). Only the lower triangle of ``A`` is read,
and only it gets a gradient. ``ldl_solve`` is a composition of differentiable ops
(gathers, triangular solves, the explicit inverse of the 1x1/2x2 blocks), so it is
differentiable in ``LD`` and ``B``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import _core
from ..autograd.py_layer import Function
from ._common import LinAlgError, check_matrix, const, float_tensor, mT, np_dtype
from ._triangular import solve_tri

Tensor = _core.Tensor

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch–Kaufman's threshold, as LAPACK


def _swap(a: np.ndarray, i: Any, j: Any) -> None:
    """Swaps the entries (or slices) ``a[i]`` and ``a[j]``."""
    t = a[i].copy()
    a[i] = a[j]
    a[j] = t


def _sytf2_lower(a: np.ndarray) -> tuple[np.ndarray, int]:
    """LAPACK ``?sytf2`` with ``uplo='L'`` on ``a`` (n x n, overwritten with the factor;
    only its lower triangle is read or meaningful): returns ``(ipiv, info)``."""
    n = a.shape[0]
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        imax, colmax = k, 0.0
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
            colmax = abs(a[imax, k])
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            # a zero column (or NaN): D[k, k] is zero, nothing to eliminate
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                # largest off-diagonal entry of row/column imax of the trailing matrix
                rowmax = np.abs(a[imax, k:imax]).max()
                if imax < n - 1:
                    rowmax = max(rowmax, np.abs(a[imax + 1 :, imax]).max())
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:  # swap rows and columns kk and kp of the trailing matrix
                if kp < n - 1:
                    _swap(a, (slice(kp + 1, None), kk), (slice(kp + 1, None), kp))
                _swap(a, (slice(kk + 1, kp), kk), (kp, slice(kk + 1, kp)))
                _swap(a, (kk, kk), (kp, kp))
                if kstep == 2:
                    _swap(a, (k + 1, k), (kp, k))
            if kstep == 1:
                if k < n - 1:  # A22 -= x (1/d) xᵀ (as dsyr: x_i * (d⁻¹ x_j)), then L = x / d
                    d11 = 1.0 / a[k, k]
                    x = a[k + 1 :, k].copy()
                    a[k + 1 :, k + 1 :] -= np.outer(x, d11 * x)
                    a[k + 1 :, k] = x * d11
            elif k < n - 2:  # 2x2 pivot: the update and L's two columns, as dsytf2
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                d21 = (1.0 / (d11 * d22 - 1.0)) / d21
                c0 = a[k + 2 :, k].copy()
                c1 = a[k + 2 :, k + 1].copy()
                wk = d21 * (d11 * c0 - c1)
                wkp1 = d21 * (d22 * c1 - c0)
                a[k + 2 :, k + 2 :] -= np.outer(c0, wk) + np.outer(c1, wkp1)
                a[k + 2 :, k] = wk
                a[k + 2 :, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _factor_np(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LD, pivots, info)`` of a batch ``[..., n, n]`` (NumPy, in A's dtype)."""
    n = A.shape[-1]
    lead = A.shape[:-2]
    nb = int(np.prod(lead, dtype=np.int64))
    flat = np.tril(A).reshape((nb, n, n)).copy()
    piv = np.zeros((flat.shape[0], n), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    with np.errstate(all="ignore"):  # inf/NaN input gives inf/NaN output, as LAPACK
        for b in range(flat.shape[0]):
            piv[b], info[b] = _sytf2_lower(flat[b])
    LD = np.tril(flat)
    return LD.reshape(A.shape), piv.reshape(lead + (n,)), info.reshape(lead)


class _Structure:
    """What the pivots say about a batch of factors, as NumPy index arrays: the
    permutation ``π`` with ``A[π][:, π] = L D Lᵀ`` (``L`` unit lower in standard form),
    where each entry of ``L`` sits in ``LD``, and which entries are 2x2 blocks of ``D``."""

    def __init__(self, piv: np.ndarray, n: int) -> None:
        flat = piv.reshape((-1, n)).astype(np.int64)
        nb = flat.shape[0]
        self.n = n
        src = np.zeros((nb, n, n), np.int64)  # L[b, i, c] = LD.flat[b, src[b, i, c]]
        lmask = np.zeros((nb, n, n), bool)
        block = np.zeros((nb, n), np.int64)  # the block of D each row belongs to
        start2 = np.zeros((nb, max(n - 1, 0)), bool)  # a 2x2 block starts at row j
        perm = np.zeros((nb, n), np.int64)
        for b in range(nb):
            p = flat[b]
            steps = []
            k = 0
            while k < n:
                if p[k] > 0:
                    steps.append((k, k, p[k] - 1))
                    k += 1
                else:
                    if k + 1 >= n or p[k + 1] != p[k]:
                        raise ValueError(
                            "ldl_solve: the pivots are not LAPACK sytrf's: a negative "
                            f"pivot at {k} must be repeated at {k + 1}"
                        )
                    steps.append((k, k + 1, -p[k] - 1))
                    start2[b, k] = True
                    k += 2
            for s, (k0, kk, _) in enumerate(steps):
                block[b, k0 : kk + 1] = s
            cur = np.arange(n)  # cur[i]: the row of LD that row i of L comes from
            for k0, kk, kp in reversed(steps):
                rows = np.arange(kk + 1, n)
                for c in range(k0, kk + 1):
                    src[b, rows, c] = cur[rows] * n + c
                    lmask[b, rows, c] = True
                # then this step's swap applies to the earlier columns as well
                cur = np.where(cur == kk, kp, np.where(cur == kp, kk, cur))
            perm[b] = cur
        lead = piv.shape[:-1]
        self.src = src.reshape(lead + (n, n))
        self.lmask = lmask.reshape(lead + (n, n))
        self.perm = perm.reshape(lead + (n,))
        self.start2 = start2.reshape(lead + (max(n - 1, 0),))
        self.block = block.reshape(lead + (n,))

    def L(self, LD: Tensor) -> Tensor:
        """The unit-lower ``L`` in standard form (differentiable in ``LD``)."""
        n = self.n
        lead = list(LD.shape[:-2])
        idx = _core.from_numpy(self.src.reshape(lead + [n * n]))
        g = LD.reshape(lead + [n * n]).gather(-1, idx).reshape(lead + [n, n])
        return g * const(self.lmask, LD) + const(np.eye(n), LD)

    def P(self, like: Tensor) -> Tensor:
        """The constant permutation matrices with ``(P @ B) = B[π]``."""
        eye = np.eye(self.n)
        return const(eye[self.perm], like)

    def masks(self, like: Tensor) -> tuple[Tensor, Tensor]:
        """``(blockdiag, strictly block-lower)`` masks of ``D``'s blocks."""
        bi = self.block[..., :, None]
        bj = self.block[..., None, :]
        return const(bi == bj, like), const(bi > bj, like)

    def apply_dinv(self, LD: Tensor, Z: Tensor) -> Tensor:
        """``D⁻¹ Z`` from ``D``'s 1x1 and 2x2 blocks held in ``LD`` (differentiable;
        a zero 1x1 block gives inf/NaN, as LAPACK's sytrs)."""
        n = self.n
        d = LD.diagonal(0, -2, -1)
        if n == 1:
            return Z / d.unsqueeze(-1)
        s = LD.diagonal(-1, -2, -1)  # n - 1 sub-diagonal entries
        m2 = const(self.start2, LD)  # [..., n-1]
        in2 = np.zeros(self.perm.shape, bool)
        in2[..., :-1] |= self.start2
        in2[..., 1:] |= self.start2
        m1 = const(~in2, LD)
        d1 = d * m1 + (1 - m1)  # 1 where not a 1x1 block (no division by a 2x2 entry)
        b = s * m2 + (1 - m2)
        a_b = d[..., :-1] / b  # LAPACK's AKM1 = a / b, AK = c / b
        c_b = d[..., 1:] / b
        den = b * (a_b * c_b - 1)
        den = den * m2 + (1 - m2)
        first, second, off = c_b / den * m2, a_b / den * m2, -m2 / den
        zero = (d[..., :1] * 0).detach()
        p = m1 / d1 + _core.concat([first, zero], -1) + _core.concat([zero, second], -1)
        zr = (Z[..., :1, :] * 0).detach()
        up = _core.concat([Z[..., 1:, :], zr], -2)  # row i holds Z[i + 1]
        down = _core.concat([zr, Z[..., :-1, :]], -2)  # row i holds Z[i - 1]
        o_up = _core.concat([off, zero], -1).unsqueeze(-1)
        o_down = _core.concat([zero, off], -1).unsqueeze(-1)
        return p.unsqueeze(-1) * Z + o_up * up + o_down * down


class _LDLFactor(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        LD, piv, info = _factor_np(A.detach().numpy())
        # clone: a saved output made by from_numpy does not come back linked to this node
        # in backward (double backward would see a constant)
        out = (const(LD, A).clone(), _core.from_numpy(piv), _core.from_numpy(info))
        ctx.mark_non_differentiable(out[1], out[2])
        ctx.set_materialize_grads(False)
        ctx.piv = piv
        ctx.save_for_backward(out[0])
        return out

    @staticmethod
    def backward(ctx: Any, gLD: Tensor | None, gp: Any, gi: Any) -> Tensor | None:
        if gLD is None:
            return None
        (LD,) = ctx.saved_tensors
        st = _Structure(ctx.piv, LD.shape[-1])
        bd, sbl = st.masks(LD)
        L = st.L(LD)
        gL = st.L(gLD) - const(np.eye(st.n), LD)  # the same entries of the gradient
        gD = gLD * bd.tril()  # D's lower entries (a 2x2 block's off-diagonal in LD[k+1, k])
        Y = mT(st.apply_dinv(LD, mT(mT(L) @ gL)))  # Lᵀ gL D⁻¹ (D symmetric)
        gX = Y * sbl + gD
        # gM = L⁻ᵀ gX L⁻¹
        gM = solve_tri(mT(L), gX, upper=True, unit=True)
        gM = mT(solve_tri(mT(L), mT(gM), upper=True, unit=True))
        P = st.P(LD)
        G = mT(P) @ gM @ P  # back to A's ordering
        # A enters through sym(tril A): the lower triangle collects both halves
        return (G + mT(G)).tril() - G * const(np.eye(st.n), LD)


class LDLFactorResult(NamedTuple):
    """``(LD, pivots)`` of ``linalg.ldl_factor``."""

    LD: Tensor
    pivots: Tensor


class LDLFactorExResult(NamedTuple):
    """``(LD, pivots, info)`` of ``linalg.ldl_factor_ex``."""

    LD: Tensor
    pivots: Tensor
    info: Tensor


def _real_only(x: Any, op: str) -> Tensor:
    """``x`` as a float32/float64 tensor; complex input gets a TypeError saying why."""
    if isinstance(x, Tensor) and x.is_complex():
        raise TypeError(
            f"{op}: complex input is not supported yet (LAPACK's complex Bunch-Kaufman "
            "factorizations zsytrf / zhetrf are not implemented here); for a complex "
            "system use linalg.solve, or linalg.lu_factor and linalg.lu_solve"
        )
    return float_tensor(x, op)


def _ldl(A: Any, hermitian: bool, op: str) -> tuple[Tensor, Tensor, Tensor]:
    t = _real_only(A, op)
    check_matrix(t, op, square=True)
    if not isinstance(hermitian, bool):
        raise TypeError(f"{op}: hermitian must be a bool, got {type(hermitian).__name__}")
    # hermitian only matters for complex input (ferrograd's linalg is real)
    LD, piv, info = _LDLFactor.apply(t)
    return LD, piv, info


def ldl_factor_ex(
    A: Any = None, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
) -> LDLFactorExResult:
    """``torch.linalg.ldl_factor_ex(A, *, hermitian=False, check_errors=False)``:
    ``(LD, pivots, info)``, LAPACK sytrf's compact Bunch–Kaufman factor of the lower
    triangle of each symmetric ``A`` (see the module docstring). ``info`` (int32, one per
    matrix) is ``i > 0`` when ``D[i-1, i-1]`` is exactly zero (``D`` singular; the factor
    is still complete); ``check_errors=True`` raises ``LinAlgError`` then."""
    op = "linalg.ldl_factor_ex"
    LD, piv, info = _ldl(A, hermitian, op)
    if check_errors:
        _raise_on_info(info, op)
    return LDLFactorExResult(LD, piv, info)


def _raise_on_info(info: Tensor, op: str) -> None:
    bad = info.numpy()
    if bad.size and bad.max() > 0:
        where = np.argwhere(bad > 0)[0]
        at = f" (batch element {tuple(int(i) for i in where)})" if bad.ndim else ""
        i = int(bad[tuple(where)])
        raise LinAlgError(
            f"{op}: the factorization has an exactly zero diagonal block D[{i - 1}, {i - 1}]"
            f"{at}: the matrix is singular (ldl_factor_ex reports this in info instead)"
        )


def ldl_factor(A: Any = None, *, hermitian: bool = False, out: Any = None) -> LDLFactorResult:
    """``torch.linalg.ldl_factor(A, *, hermitian=False)``: ``(LD, pivots)``, LAPACK
    sytrf's compact LDLᵀ factor with Bunch–Kaufman pivoting of each symmetric ``A``
    (only its lower triangle is read). A singular ``D`` raises ``LinAlgError``."""
    op = "linalg.ldl_factor"
    LD, piv, info = _ldl(A, hermitian, op)
    _raise_on_info(info, op)
    return LDLFactorResult(LD, piv)


def _check_ldl_pivots(piv: Any, lead: list[int], n: int, op: str) -> np.ndarray:
    if not isinstance(piv, Tensor) or piv.is_floating_point() or piv.is_complex():
        raise TypeError(f"{op}: pivots must be an integer tensor (int32, as ldl_factor gives)")
    p = piv.numpy().astype(np.int64)
    if list(p.shape) != lead + [n]:
        raise ValueError(f"{op}: pivots must have shape {lead + [n]}, got {list(p.shape)}")
    if p.size and (np.abs(p).min() < 1 or np.abs(p).max() > n):
        raise ValueError(f"{op}: the pivots must be ±1..{n} (LAPACK sytrf's 1-based format)")
    return p


def ldl_solve(
    LD: Any = None, pivots: Any = None, B: Any = None, *, hermitian: bool = False, out: Any = None
) -> Tensor:
    """``torch.linalg.ldl_solve(LD, pivots, B, *, hermitian=False)``: ``X`` with
    ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)`` (what LAPACK's sytrs computes).
    ``B`` is ``[..., n, k]``; batch dims broadcast. Differentiable in ``LD`` and ``B``."""
    op = "linalg.ldl_solve"
    LDt = _real_only(LD, op)
    Bt = _real_only(B, op)
    check_matrix(LDt, op, square=True)
    if Bt.ndim < 2:
        raise ValueError(
            f"{op}: B must be a matrix or a batch of matrices [..., n, k], got shape {list(Bt.shape)}"
        )
    if not isinstance(hermitian, bool):
        raise TypeError(f"{op}: hermitian must be a bool, got {type(hermitian).__name__}")
    n = LDt.shape[-1]
    if Bt.shape[-2] != n:
        raise ValueError(
            f"{op}: each LD matrix is {n} x {n} but each B matrix is "
            f"{Bt.shape[-2]} x {Bt.shape[-1]}"
        )
    if np_dtype(LDt) != np_dtype(Bt):
        raise TypeError(f"{op}: LD is {LDt.dtype} but B is {Bt.dtype}; give both the same dtype")
    p = _check_ldl_pivots(pivots, list(LDt.shape[:-2]), n, op)
    try:
        lead = list(np.broadcast_shapes(tuple(LDt.shape[:-2]), tuple(Bt.shape[:-2])))
    except ValueError:
        raise ValueError(
            f"{op}: the batch dims of LD {list(LDt.shape[:-2])} and B "
            f"{list(Bt.shape[:-2])} do not broadcast"
        ) from None
    if n == 0 or Bt.shape[-1] == 0 or 0 in lead:
        return _core.zeros(lead + [n, Bt.shape[-1]], dtype=Bt.dtype) + Bt.sum() * 0
    p = np.broadcast_to(p, tuple(lead) + (n,))
    LDt = LDt.expand(*lead, n, n) if list(LDt.shape[:-2]) != lead else LDt
    Bt = Bt.expand(*lead, n, Bt.shape[-1]) if list(Bt.shape[:-2]) != lead else Bt
    st = _Structure(p, n)
    P = st.P(LDt)
    L = st.L(LDt)
    Z = solve_tri(L, P @ Bt, upper=False, unit=True)
    W = st.apply_dinv(LDt, Z)
    return mT(P) @ solve_tri(mT(L), W, upper=True, unit=True)
