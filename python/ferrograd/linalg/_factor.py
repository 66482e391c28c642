"""The factorizations with their gradients: inv, solve, det/slogdet, cholesky, qr, eigh,
svd. The forward passes run in Rust (faer, ``_core._linalg``); each backward is the
published formula written with differentiable ops (matmul, the ops of this module), so
``create_graph=True`` and ``gradgradcheck`` work.

Formulas (real case): inv/solve/det — matrix cookbook; cholesky — Murray (2016), as
PyTorch's ``cholesky_backward``; qr — Liao, Liu, Wang & Xiang (2019); eigh and svd —
Giles (2008), Townsend (2016), as PyTorch's ``linalg_eig_backward`` / ``svd_backward``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import _core
from ..autograd.py_layer import Function
from ._common import (
    LinAlgError,
    check_matrix,
    diag_embed,
    diagonal,
    eye,
    float_or_complex,
    mH,
    mT,
    needs_grad,
    pick,
    run,
    tril_mask,
)

Tensor = _core.Tensor


def _check_phase(im_diag: Tensor, where: str, what: str) -> None:
    """PyTorch's check that a loss of complex eigen/singular vectors does not depend on
    their arbitrary phases ``e^{iφ}`` (``im_diag`` ≈ 0, its lax 1e-2 tolerances): else
    the gradient is ill-defined and this raises instead of returning one."""
    if float(im_diag.detach().abs().max().item() if im_diag.numel() else 0.0) > 1e-2:
        raise RuntimeError(
            f"{where}: The {what} in the complex case are specified up to multiplication "
            "by e^{i phi}. The specified loss function depends on this phase term, making "
            "it ill-defined."
        )


class _Inv(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        (Y,) = run("inv", A)
        ctx.save_for_backward(Y)
        return Y

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (Y,) = ctx.saved_tensors
        Yt = mH(Y)
        return -(Yt @ g @ Yt)


class _Solve(Function):
    # A [..., n, n] and B [..., n, k] with the same batch shape (broadcast by the caller)
    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor) -> Tensor:
        (X,) = run("solve", A, B)
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor, Tensor]:
        A, X = ctx.saved_tensors
        gB = _Solve.apply(mH(A), g)
        return -(gB @ mH(X)), gB


class _Det(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        d, _, _ = run("det", A)
        ctx.save_for_backward(A, d)
        return d

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        A, d = ctx.saved_tensors
        try:
            # d det / dA = det(A) A^{-T}; complex: g conj(det) A^{-H} (det is holomorphic)
            return (g * d.conj()).unsqueeze(-1).unsqueeze(-1) * mH(_Inv.apply(A))
        except LinAlgError:
            # a singular matrix: the adjugate's transpose through the SVD,
            # det(U) det(Vh) U diag(prod_{j != i} s_j) Vh
            return g.unsqueeze(-1).unsqueeze(-1) * _det_grad_svd(A)


def _det_grad_svd(A: Tensor) -> Tensor:
    """d det(A) / dA for any square A (singular included), through A = U diag(s) Vh."""
    U, S, Vh = _SVD.apply(A, False)
    n = A.shape[-1]
    one = eye(n, A)
    others = (S.unsqueeze(-2) * (1.0 - one) + one).prod(-1)
    sign = (run("det", U.detach())[0] * run("det", Vh.detach())[0]).conj()
    return sign.unsqueeze(-1).unsqueeze(-1) * ((U * others.unsqueeze(-2)) @ Vh)


class _Slogdet(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
        _, sign, logabs = run("det", A)
        ctx.save_for_backward(A, sign)
        if not A.is_complex():  # a complex sign moves with A's phase: differentiable
            ctx.mark_non_differentiable(sign)
        ctx.set_materialize_grads(False)
        return sign, logabs

    @staticmethod
    def backward(ctx: Any, gsign: Tensor | None, glog: Tensor | None) -> Tensor | None:
        A, sign = ctx.saved_tensors
        g: Any = glog
        if A.is_complex() and gsign is not None:
            # as PyTorch's slogdet_backward: d sign = i Im(tr(A⁻¹ dA)) sign, so the sign's
            # cotangent adds i Im(gsign conj(sign)) to log|det|'s
            im = (gsign * sign.conj()).imag
            phase = _core.complex(im * 0.0, im)
            g = phase if g is None else g + phase
        if g is None:
            return None
        return g.unsqueeze(-1).unsqueeze(-1) * mH(_Inv.apply(A))


class _Cholesky(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        (L,) = run("cholesky", A)
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx: Any, gL: Tensor) -> Tensor:
        (L,) = ctx.saved_tensors
        n = L.shape[-1]
        # P = Φ(Lᴴ gL) made Hermitian; gA = L^{-H} P L^{-1}
        T = (mH(L) @ gL) * tril_mask(n, L)
        P = 0.5 * (T + mH(T * tril_mask(n, L, -1)))
        Linv = _Inv.apply(L)
        return mH(Linv) @ P @ Linv


def _qr_grad_tall(Q: Tensor, R: Tensor, gQ: Tensor, gR: Tensor) -> Tensor:
    """Gradient of A = QR for m >= n (Q m x n, R n x n): [gQ + Q copyltu(M)] R^{-H}.
    Complex: R's diagonal is real (LAPACK's geqrf), so copyltu keeps Re(diag M) only
    (then ``Q^H dQ`` has the imaginary diagonal and ``dR R⁻¹`` the real one)."""
    n = R.shape[-1]
    M = R @ mH(gR) - mH(gQ) @ Q
    low = M * tril_mask(n, M, -1)
    diag = M * eye(n, M)
    copyltu = low + mH(low) + (diag.real if M.is_complex() else diag)
    b = gQ + Q @ copyltu
    return mH(_Solve.apply(R, mH(b)))


class _QR(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor, complete: bool) -> tuple[Tensor, Tensor]:
        Q, R = run("qr", A, None, complete)
        ctx.complete = complete
        ctx.save_for_backward(A, Q, R)
        return Q, R

    @staticmethod
    def backward(ctx: Any, gQ: Tensor, gR: Tensor) -> tuple[Tensor, None]:
        A, Q, R = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        if ctx.complete and m > n:
            raise RuntimeError(
                "linalg.qr: mode='complete' with more rows than columns is not "
                "differentiable (as in PyTorch): Q's extra columns are not unique; use "
                "mode='reduced'"
            )
        if m >= n:
            return _qr_grad_tall(Q, R, gQ, gR), None
        # wide: A = [X | Y], R = [U | V] with X = QU square (Liao et al., section 3.3)
        Y, U = A[..., :, m:], R[..., :, :m]
        gU, gV = gR[..., :, :m], gR[..., :, m:]
        gX = _qr_grad_tall(Q, U, gQ + Y @ mH(gV), gU)
        return _core.concat([gX, Q @ gV], -1), None


class _Eigh(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor, lower: bool) -> tuple[Tensor, Tensor]:
        w, V = run("eigh", A, None, lower)
        ctx.save_for_backward(w, V)
        ctx.set_materialize_grads(False)
        return w, V

    @staticmethod
    def backward(ctx: Any, gw: Tensor | None, gV: Tensor | None) -> tuple[Tensor | None, None]:
        w, V = ctx.saved_tensors
        if gw is None and gV is None:
            return None, None
        n = w.shape[-1]
        inner = diag_embed(gw) if gw is not None else None
        if gV is not None:
            # off-diagonal part: skew(Vᴴ gV) / (w_j - w_i); repeated eigenvalues divide by 0
            S = mH(V) @ gV
            if S.is_complex():
                _check_phase(diagonal(S).imag, "linalg_eigh_backward", "eigenvectors")
            E = w.unsqueeze(-2) - w.unsqueeze(-1) + eye(n, w)
            K = (S - mH(S)) * 0.5 / E * (1.0 - eye(n, w))
            inner = K if inner is None else inner + K
        assert inner is not None
        return V @ inner @ mH(V), None


class _SVD(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor, full: bool) -> tuple[Tensor, Tensor, Tensor]:
        U, S, Vh = run("svd", A, None, full)
        ctx.full = full
        ctx.save_for_backward(U, S, Vh)
        ctx.set_materialize_grads(False)
        return U, S, Vh

    @staticmethod
    def backward(
        ctx: Any, gU: Tensor | None, gS: Tensor | None, gVh: Tensor | None
    ) -> tuple[Tensor | None, None]:
        U, S, Vh = ctx.saved_tensors
        if gU is None and gS is None and gVh is None:
            return None, None
        m, n = U.shape[-2], Vh.shape[-1]
        k = min(m, n)
        if ctx.full:
            # the columns past k are arbitrary bases: their gradients are ignored (as torch)
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :, :k]
            gVh = None if gVh is None else gVh[..., :k, :]
        if gU is None and gVh is None:
            assert gS is not None
            return U @ (gS.unsqueeze(-1) * Vh), None
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, S)
        ret = None
        UtgU = VtgV = None
        if gU is not None:
            UtgU = mH(U) @ gU
            UtgU = UtgU - mH(UtgU)
            ret = UtgU * S.unsqueeze(-2)
        if gVh is not None:
            VtgV = Vh @ mH(gVh)
            VtgV = VtgV - mH(VtgV)
            term = S.unsqueeze(-1) * VtgV
            ret = term if ret is None else ret + term
        assert ret is not None
        if U.is_complex():
            # PyTorch's svd_backward: the loss must not depend on the singular vectors'
            # common phases, i.e. Im(diag(Uᴴ gU)) + Im(diag(Vᴴ gV)) = 0
            zero = S * 0.0
            im_u = zero if UtgU is None else diagonal(UtgU).imag
            im_v = zero if VtgV is None else diagonal(VtgV).imag
            _check_phase(im_u + im_v, "svd_backward", "singular vectors")
        ret = ret / E
        if gS is not None:
            ret = ret + diag_embed(gS)
        if U.is_complex() and UtgU is not None and VtgV is not None:
            ret = ret + diag_embed(diagonal(UtgU) / (2.0 * S))
        if m > n and gU is not None:
            gUSinv = gU / S.unsqueeze(-2)
            gA = U @ ret + gUSinv - U @ (mH(U) @ gUSinv)
            return gA @ Vh, None
        if m < n and gVh is not None:
            SinvgVh = gVh / S.unsqueeze(-1)
            gA = ret @ Vh + SinvgVh - (SinvgVh @ mH(Vh)) @ Vh
            return U @ gA, None
        return U @ ret @ Vh, None


# ---- results (namedtuples: unpack like tuples in either dialect) ----


class SlogdetResult(NamedTuple):
    """``(sign, logabsdet)`` of ``slogdet``."""

    sign: Tensor
    logabsdet: Tensor


class QRResult(NamedTuple):
    """``(Q, R)`` of ``qr``."""

    Q: Tensor
    R: Tensor


class EighResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of ``eigh``."""

    eigenvalues: Tensor
    eigenvectors: Tensor


class SVDResult(NamedTuple):
    """``(U, S, Vh)`` of ``svd``."""

    U: Tensor
    S: Tensor
    Vh: Tensor


# ---- public functions (torch's argument names; Paddle's ``x`` as a keyword alias) ----


def _square(A: Any, x: Any, op: str) -> Tensor:
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op, square=True)
    return t


def inv(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """Inverse of a square matrix or a batch of them (``torch.linalg.inv``,
    ``paddle.linalg.inv``). An exactly singular matrix raises ``LinAlgError``."""
    t = _square(A, x, "linalg.inv")
    return _Inv.apply(t)


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    # torch's rule: B is a (batch of) vector(s) when it is 1-D or has A's shape minus its
    # last dim
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and list(B.shape) == list(A.shape[:-1]))


def _broadcast_batch(a: list[int], b: list[int], op: str) -> list[int]:
    import numpy as np

    try:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise ValueError(
            f"{op}: the batch dims {a} and {b} do not broadcast against each other"
        ) from None


def solve(
    A: Any = None,
    B: Any = None,
    *,
    left: bool = True,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``) for square ``A``;
    batch dims broadcast and ``B`` may be a (batch of) vector(s) (``torch.linalg.solve``,
    ``paddle.linalg.solve(x, y)``). A singular ``A`` raises ``LinAlgError``."""
    op = "linalg.solve"
    At = _square(A, x, op)
    Bt = float_or_complex(pick(B, y, "B/y", op), op)
    if Bt.dtype != At.dtype:
        raise TypeError(f"{op}: A is {At.dtype} but B is {Bt.dtype}; give both the same dtype")
    if not left:
        if Bt.ndim < 2:
            raise ValueError(f"{op}: left=False needs B to be a matrix, got shape {list(Bt.shape)}")
        return mT(solve(mT(At), mT(Bt)))  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ (no conjugates)
    vector = _is_vector_rhs(At, Bt)
    if vector:
        Bt = Bt.unsqueeze(-1)
    n = At.shape[-1]
    if Bt.ndim < 2 or Bt.shape[-2] != n:
        raise ValueError(
            f"{op}: A of shape {list(At.shape)} needs B of shape [..., {n}, k] or [..., {n}]"
            f", got {list(Bt.shape if not vector else Bt.shape[:-1])}"
        )
    batch = _broadcast_batch(list(At.shape[:-2]), list(Bt.shape[:-2]), op)
    At = At.expand(*batch, n, n) if list(At.shape[:-2]) != batch else At
    Bt = Bt.expand(*batch, n, Bt.shape[-1]) if list(Bt.shape[:-2]) != batch else Bt
    X = _Solve.apply(At, Bt)
    return X.squeeze(-1) if vector else X


def det(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """Determinant of a square matrix or a batch of them (``torch.linalg.det``,
    ``paddle.linalg.det``); differentiable at singular matrices too (the adjugate)."""
    return _Det.apply(_square(A, x, "linalg.det"))


def slogdet(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> SlogdetResult:
    """``(sign, log|det|)``: sign 0 and ``-inf`` for a singular matrix (torch's
    namedtuple; Paddle returns the two stacked, here index ``[0]``/``[1]`` alike)."""
    sign, logabs = _Slogdet.apply(_square(A, x, "linalg.slogdet"))
    return SlogdetResult(sign, logabs)


def logdet(A: Any = None, *, x: Any = None, name: Any = None) -> Tensor:
    """``log(det(A))``: NaN for a negative determinant, ``-inf`` for zero (``torch.logdet``)."""
    sign, logabs = slogdet(A, x=x)
    return logabs + sign.log()


def cholesky(
    A: Any = None, upper: bool = False, *, x: Any = None, out: Any = None, name: Any = None
) -> Tensor:
    """Cholesky factor of a symmetric positive-definite matrix (batch): lower ``L`` with
    ``A = L Lᵀ`` (``upper=True``: ``Lᵀ``). Only the lower triangle is read; a matrix that
    is not positive-definite raises ``LinAlgError``."""
    L = _Cholesky.apply(_square(A, x, "linalg.cholesky"))
    return mH(L) if upper else L


def qr(
    A: Any = None, mode: str = "reduced", *, x: Any = None, out: Any = None, name: Any = None
) -> QRResult:
    """QR factorization ``A = Q R`` (``mode``: ``'reduced'``, ``'complete'`` or ``'r'``,
    which returns an empty Q as torch does)."""
    op = "linalg.qr"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"{op}: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    Q, R = _QR.apply(t, mode == "complete")
    if mode == "r":
        Q = _core.zeros(0, dtype=t.dtype)
    return QRResult(Q, R)


def _uplo(UPLO: str, op: str) -> bool:
    if UPLO not in ("L", "U"):
        raise ValueError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "L"


def eigh(
    A: Any = None, UPLO: str = "L", *, x: Any = None, out: Any = None, name: Any = None
) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix (batch),
    reading its ``UPLO`` triangle. The eigenvector gradient divides by eigenvalue gaps:
    with repeated eigenvalues it is not defined (inf/NaN), as in PyTorch."""
    op = "linalg.eigh"
    w, V = _Eigh.apply(_square(A, x, op), _uplo(UPLO, op))
    return EighResult(w, V)


def eigvalsh(
    A: Any = None, UPLO: str = "L", *, x: Any = None, out: Any = None, name: Any = None
) -> Tensor:
    """Eigenvalues (ascending) of a symmetric matrix (batch); differentiable also at
    repeated eigenvalues."""
    op = "linalg.eigvalsh"
    t = _square(A, x, op)
    lower = _uplo(UPLO, op)
    if needs_grad(t):
        return _Eigh.apply(t, lower)[0]
    return run("eigvalsh", t, None, lower)[0]


def svd(
    A: Any = None,
    full_matrices: Any = None,
    *,
    x: Any = None,
    driver: Any = None,
    out: Any = None,
    name: Any = None,
) -> SVDResult:
    """``A = U diag(S) Vh`` with singular values descending (``torch.linalg.svd``).
    ``full_matrices`` defaults to torch's True, and to Paddle's False in Paddle code (a
    module that imports ferrograd as ``paddle``) or with Paddle's ``x=`` / ``name=``.
    Gradients of ``U``/``Vh`` divide by gaps between singular values (not defined for
    repeated ones, as torch)."""
    op = "linalg.svd"
    if full_matrices is None:
        from .._dialect import caller_dialect

        paddle_call = x is not None or name is not None or caller_dialect() == "paddle"
        full_matrices = not paddle_call
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    U, S, Vh = _SVD.apply(t, bool(full_matrices))
    return SVDResult(U, S, Vh)


def svdvals(
    A: Any = None, *, x: Any = None, driver: Any = None, out: Any = None, name: Any = None
) -> Tensor:
    """Singular values, descending; differentiable also at repeated values."""
    op = "linalg.svdvals"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op)
    if needs_grad(t):
        return _SVD.apply(t, False)[1]
    return run("svdvals", t)[0]
