"""Complex64/complex128 inputs to the LU family (``lu_factor``, ``lu_factor_ex``, ``lu``,
``lu_unpack``, ``lu_solve``, ``solve_ex``; torch's ``lu``/``lu_solve``/``lu_unpack``,
Paddle's ``linalg.lu``/``lu_solve``), ``householder_product``/``orgqr``, ``ormqr``, the
triangular solves of Paddle and old torch, ``matrix_sqrth``, ``polar``, ``svd_lowrank`` and
``pca_lowrank``: values against SciPy's LAPACK (``zgetrf``/``zgetrs`` through
``scipy.linalg.lu_factor``/``lu_solve``, ``zungqr``, ``zunmqr``, ``sqrtm``, ``polar``),
batched, and gradients under PyTorch's complex convention checked by ``gradcheck``.

Peer references:
- torch/csrc/autograd/FunctionsManual.cpp ``linalg_lu_backward`` (``L.mH()``, ``U.mH()``:
  the real formula with conjugate transposes) and ``lu_factor_ex_backward``; torch's
  ``linalg.lu_solve`` docs: ``adjoint=True`` solves ``Aᴴ X = B`` (``X Aᴴ = B`` with
  ``left=False``).
- Paddle paddle/phi/kernels/cpu/lu_solve_kernel.cc ``LuSolveKernel``: ``trans`` goes to
  LAPACK getrs as is ('N', 'T', 'C'), registered for complex64/complex128.
- aten/src/ATen/native/BatchLinearAlgebra.cpp ``triangular_solve_out_impl``:
  ``transpose ? TransposeType::Transpose`` (the plain transpose, also for complex).
- torch.ormqr / paddle.linalg.ormqr docs: ``transpose=True`` is the conjugate transpose
  for complex input (LAPACK unmqr's 'C').
"""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest
import scipy.linalg as sla
from ferrograd.autograd import gradcheck, gradgradcheck
from scipy.linalg import lapack

L = torch.linalg
RNG = np.random.default_rng(7)
DTYPES = [np.complex128, np.complex64]
TOL = {np.complex128: 1e-10, np.complex64: 2e-4}


def _c(*shape: int, dtype: type = np.complex128) -> np.ndarray:
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _t(a: np.ndarray, grad: bool = False) -> torch.Tensor:
    return torch.tensor(a, requires_grad=grad)


def _H(a: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(a, -1, -2))


def _close(got: torch.Tensor, want: np.ndarray, tol: float) -> None:
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def _gc(f, *xs: np.ndarray) -> bool:  # type: ignore[no-untyped-def]
    return gradcheck(f, [_t(x, grad=True) for x in xs], eps=1e-6, atol=1e-5, rtol=1e-3)


# ---- values ----


@pytest.mark.parametrize("dt", DTYPES)
def test_lu_factor_matches_scipy(dt: type) -> None:
    a = _c(2, 3, 5, 5, dtype=dt)
    tol = TOL[dt]
    LU, piv, info = L.lu_factor_ex(_t(a))
    assert LU.dtype == _t(a).dtype and piv.dtype == torch.int32 and info.dtype == torch.int32
    assert list(piv.shape) == [2, 3, 5] and info.tolist() == [[0] * 3] * 2
    for i in range(2):
        for j in range(3):
            lu_s, piv_s = sla.lu_factor(a[i, j])
            _close(LU[i, j], lu_s, tol)
            assert (piv.numpy()[i, j] == piv_s + 1).all()  # LAPACK's 1-based pivots
    LU2, piv2 = L.lu_factor(_t(a))
    _close(LU2, LU.numpy(), 0)
    # torch.lu (the old spelling) and Paddle's linalg.lu(x=) give the same
    LU3, piv3 = torch.lu(_t(a))
    assert (piv3.numpy() == piv.numpy()).all()
    LU4, piv4, info4 = L.lu(x=_t(a), get_infos=True)
    _close(LU4, LU.numpy(), 0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5), (5, 3)])
def test_lu_and_unpack_reconstruct(dt: type, shape: tuple[int, ...]) -> None:
    a = _c(*shape, dtype=dt)
    P, Lm, U = L.lu(_t(a))
    assert P.dtype == Lm.dtype == U.dtype == _t(a).dtype  # torch: P has A's dtype
    _close(P @ Lm @ U, a, 10 * TOL[dt])
    k = min(shape[-2:])
    assert np.allclose(np.diagonal(Lm.numpy(), axis1=-2, axis2=-1), 1)
    assert Lm.shape[-1] == k and U.shape[-2] == k
    LU, piv = L.lu_factor(_t(a))
    P2, L2, U2 = torch.lu_unpack(LU, piv)
    _close(P2, P.numpy(), 0)
    _close(L2, Lm.numpy(), 0)
    _close(U2, U.numpy(), 0)
    if len(shape) == 2:  # SciPy's P L U for one matrix
        Ps, Ls, Us = sla.lu(a)
        _close(Lm, Ls, 10 * TOL[dt])
        _close(U, Us, 10 * TOL[dt])


def test_lu_factor_singular_info() -> None:
    sing = np.array([[1 + 1j, 2 - 1j], [2 + 2j, 4 - 2j]])  # row 2 = 2 * row 1
    a = np.stack([np.eye(2) + 0j, sing])
    _, _, info = L.lu_factor_ex(_t(a))
    assert info.tolist() == [0, 2]
    with pytest.raises(torch.linalg.LinAlgError, match=r"U\[1, 1\] is exactly zero"):
        L.lu_factor(_t(a))
    X, info = L.solve_ex(_t(a), _t(np.ones((2, 2, 1)) + 0j))
    assert info.tolist() == [0, 2]
    with pytest.raises(torch.linalg.LinAlgError):
        L.solve_ex(_t(a), _t(np.ones((2, 2, 1)) + 0j), check_errors=True)


@pytest.mark.parametrize("dt", DTYPES)
def test_lu_solve_matches_scipy(dt: type) -> None:
    a, b = _c(3, 4, 4, dtype=dt), _c(3, 4, 2, dtype=dt)
    tol = 10 * TOL[dt]
    LU, piv = L.lu_factor(_t(a))
    for i in range(3):
        fac = sla.lu_factor(a[i])
        for adjoint, trans in ((False, 0), (True, 2)):  # adjoint: Aᴴ X = B (getrs 'C')
            X = L.lu_solve(LU, piv, _t(b), adjoint=adjoint)
            _close(X[i], sla.lu_solve(fac, b[i], trans=trans), tol)
    bt = np.swapaxes(b, -1, -2)
    X = L.lu_solve(LU, piv, _t(bt), left=False)  # X A = B
    _close(X @ _t(a), bt, tol)
    X = L.lu_solve(LU, piv, _t(bt), left=False, adjoint=True)  # X Aᴴ = B
    _close(X @ _t(_H(a)), bt, tol)
    # Paddle's lu_solve(b, lu, pivots, trans): getrs' 'N', 'T' (plain), 'C' (conjugate)
    for trans, op in (("N", a), ("T", np.swapaxes(a, -1, -2)), ("C", _H(a))):
        X = L.lu_solve(_t(b), LU, piv, trans=trans)
        _close(_t(op) @ X, b, tol)
    # torch.lu_solve(b, LU_data, LU_pivots) and Tensor.lu_solve
    _close(torch.lu_solve(_t(b), LU, piv), np.linalg.solve(a, b), tol)
    _close(_t(b).lu_solve(LU, piv), np.linalg.solve(a, b), tol)


@pytest.mark.parametrize("dt", DTYPES)
def test_solve_ex_values(dt: type) -> None:
    a, b = _c(2, 4, 4, dtype=dt), _c(2, 4, 3, dtype=dt)
    X, info = L.solve_ex(_t(a), _t(b))
    assert info.tolist() == [0, 0]
    _close(X, np.linalg.solve(a, b), 10 * TOL[dt])
    v = _c(2, 4, dtype=dt)  # a batch of vectors
    _close(L.solve_ex(_t(a), _t(v))[0], np.linalg.solve(a, v[..., None])[..., 0], 10 * TOL[dt])
    bt = np.swapaxes(b, -1, -2)
    _close(L.solve_ex(_t(a), _t(bt), left=False)[0] @ _t(a), bt, 10 * TOL[dt])


@pytest.mark.parametrize("dt", DTYPES)
def test_householder_product_and_ormqr_match_lapack(dt: type) -> None:
    tol = 10 * TOL[dt]
    qr, tau, _, info = lapack.zgeqrf(_c(5, 3))
    assert info == 0
    qr, tau = qr.astype(dt), tau.astype(dt)
    Q = lapack.zungqr(qr.astype(np.complex128), tau.astype(np.complex128))[0]
    _close(L.householder_product(_t(qr), _t(tau)), Q, tol)
    _close(torch.orgqr(_t(qr), _t(tau)), Q, tol)
    qr128, tau128 = qr.astype(np.complex128), tau.astype(np.complex128)
    for left, c in ((True, _c(5, 4, dtype=dt)), (False, _c(4, 5, dtype=dt))):
        for transpose in (False, True):
            want = lapack.zunmqr(
                "L" if left else "R", "C" if transpose else "N", qr128, tau128, c, lwork=64
            )[0]
            got = torch.ormqr(_t(qr), _t(tau), _t(c), left, transpose)
            _close(got, want, tol)
    # Paddle's ormqr: the thin m x k Q of householder_product
    y = _c(3, 2, dtype=dt)
    _close(L.ormqr(_t(qr), _t(tau), _t(y)), Q[:, :3] @ y, tol)
    y = _c(5, 2, dtype=dt)
    _close(L.ormqr(_t(qr), _t(tau), _t(y), transpose=True), _H(Q[:, :3]) @ y, tol)
    # batched
    qb, tb = _c(2, 4, 4, dtype=dt), _c(2, 4, dtype=dt)
    Qb = L.householder_product(_t(qb), _t(tb)).numpy()
    cb = _c(2, 4, 3, dtype=dt)
    _close(torch.ormqr(_t(qb), _t(tb), _t(cb), True, True), _H(Qb) @ cb, tol)


@pytest.mark.parametrize("dt", DTYPES)
def test_triangular_solves_plain_transpose(dt: type) -> None:
    tol = 10 * TOL[dt]
    U = np.triu(_c(2, 4, 4, dtype=dt)) + 4 * np.eye(4, dtype=dt)
    b = _c(2, 4, 3, dtype=dt)
    _close(_t(U) @ L.triangular_solve(_t(U), _t(b)), b, tol)
    X = L.triangular_solve(_t(U), _t(b), transpose=True)
    _close(_t(np.swapaxes(U, -1, -2)) @ X, b, tol)  # Uᵀ, not Uᴴ, as both peers' trsm
    X, Acl = torch.triangular_solve(_t(b), _t(np.tril(U.swapaxes(-1, -2))), upper=False)
    _close(Acl @ X, b, tol)
    X2 = L.triangular_solve(_t(U), _t(b), transpose=True, unitriangular=True)
    Uu = np.triu(U, 1) + np.eye(4)
    _close(_t(np.swapaxes(Uu, -1, -2)) @ X2, b, tol)


@pytest.mark.parametrize("dt", DTYPES)
def test_matrix_sqrth_and_polar_match_scipy(dt: type) -> None:
    tol = 100 * TOL[dt]
    g = _c(4, 4)
    h = (g @ _H(g) + np.eye(4)).astype(dt)
    X = L.matrix_sqrth(_t(h))
    _close(X, sla.sqrtm(h.astype(np.complex128)), tol)
    _close(X @ X, h, tol)
    a = _c(2, 5, 3, dtype=dt)
    U, Hm = L.polar(_t(a))
    for i in range(2):
        Us, Hs = sla.polar(a[i].astype(np.complex128))
        _close(U[i], Us, tol)
        _close(Hm[i], Hs, tol)


@pytest.mark.parametrize("dt", DTYPES)
def test_lowrank_complex(dt: type) -> None:
    tol = 100 * TOL[dt]
    x = (_c(30, 3) @ _c(3, 8)).astype(dt)  # rank 3
    torch.manual_seed(0)
    for A in (x, x.T):
        U, S, V = torch.svd_lowrank(_t(A), q=3)
        assert not S.is_complex() and U.is_complex() and V.is_complex()
        _close(U @ torch.diag(S).astype(U.dtype) @ V.mH, A, tol)
        _close(S, np.linalg.svd(A.astype(np.complex128), compute_uv=False)[:3], tol)
        _close(U.mH @ U, np.eye(3), tol)
    U, S, V = L.svd_lowrank(_t(x), q=3)
    _close(U @ torch.diag(S).astype(U.dtype) @ V.mH, x, tol)
    U, S, V = torch.pca_lowrank(_t(x), q=3)
    xc = (x - x.mean(0)).astype(np.complex128)
    _close(S, np.linalg.svd(xc, compute_uv=False)[:3], tol)


# ---- errors ----


def test_errors() -> None:
    LU, piv = L.lu_factor(_t(_c(3, 3)))
    with pytest.raises(TypeError, match="same dtype"):
        L.lu_solve(LU, piv, torch.tensor(np.ones((3, 1))))
    with pytest.raises(TypeError, match="integer tensor"):
        L.lu_solve(LU=LU, pivots=_t(_c(3)), B=_t(_c(3, 1)), adjoint=True)
    with pytest.raises(TypeError, match="same dtype"):
        torch.ormqr(_t(_c(3, 3)), _t(np.ones(3)), _t(_c(3, 2)))
    # LDLᵀ of complex input (zsytrf / zhetrf) is not implemented: a clear TypeError
    for f in (
        lambda: L.ldl_factor(_t(_c(2, 2))),
        lambda: L.ldl_factor_ex(_t(_c(2, 2)), hermitian=True),
        lambda: L.ldl_solve(_t(_c(2, 2)), torch.tensor([1, 2], dtype=torch.int32), _t(_c(2, 1))),
    ):
        with pytest.raises(TypeError, match="complex input is not supported"):
            f()


# ---- gradients (complex128, PyTorch's convention) ----


def _herm(a: torch.Tensor) -> torch.Tensor:
    return a @ a.mH + 3 * torch.tensor(np.eye(a.shape[-1]) + 0j)


def _lr(a: torch.Tensor) -> torch.Tensor:
    torch.manual_seed(3)  # the same test matrix on every evaluation
    U, S, V = torch.svd_lowrank(a, q=2, niter=1)
    return U @ torch.diag(S).astype(U.dtype) @ V.mH


_PIV = torch.tensor([[3, 3, 3], [2, 3, 4]], dtype=torch.int32)

GRADS = {
    "lu_factor_square": (lambda a: L.lu_factor(a).LU, [(2, 3, 3)]),
    "lu_factor_wide": (lambda a: L.lu_factor_ex(a).LU, [(3, 5)]),
    "lu_factor_tall": (lambda a: L.lu_factor_ex(a).LU, [(5, 3)]),
    "lu_square": (lambda a: L.lu(a)[1:], [(2, 3, 3)]),
    "lu_wide": (lambda a: L.lu(a)[1:], [(3, 5)]),
    "lu_tall": (lambda a: L.lu(a)[1:], [(5, 3)]),
    "lu_tall_L_only": (lambda a: L.lu(a)[1], [(5, 3)]),
    "lu_wide_U_only": (lambda a: L.lu(a)[2], [(3, 5)]),
    # differentiable in LU_data (the pivots are a constant)
    "lu_unpack": (lambda lu: torch.lu_unpack(lu, _PIV)[1:], [(2, 4, 3)]),
    "lu_solve": (lambda a, b: L.lu_solve(*L.lu_factor(a), b), [(2, 3, 3), (2, 3, 2)]),
    "lu_solve_adjoint": (
        lambda a, b: L.lu_solve(*L.lu_factor(a), b, adjoint=True),
        [(3, 3), (3, 2)],
    ),
    "lu_solve_right": (
        lambda a, b: L.lu_solve(*L.lu_factor(a), b.mT, left=False),
        [(3, 3), (3, 2)],
    ),
    "lu_solve_right_adjoint": (
        lambda a, b: L.lu_solve(*L.lu_factor(a), b.mT, left=False, adjoint=True),
        [(3, 3), (3, 2)],
    ),
    "lu_solve_paddle_T": (lambda a, b: L.lu_solve(b, *L.lu_factor(a), trans="T"), [(3, 3), (3, 2)]),
    "solve_ex": (lambda a, b: L.solve_ex(a, b).result, [(2, 3, 3), (2, 3, 2)]),
    "householder_product": (lambda a, t: L.householder_product(a, t), [(2, 4, 3), (2, 3)]),
    "ormqr_torch": (lambda a, t, c: torch.ormqr(a, t, c, True, True), [(4, 3), (3,), (4, 2)]),
    "ormqr_right": (lambda a, t, c: torch.ormqr(a, t, c, False, False), [(4, 3), (3,), (2, 4)]),
    "ormqr_paddle": (lambda a, t, c: L.ormqr(a, t, c), [(4, 3), (3,), (3, 2)]),
    "triangular_solve_T": (
        lambda a, b: L.triangular_solve(
            a.triu() + 3 * torch.eye(3).astype(a.dtype), b, transpose=True
        ),
        [(3, 3), (3, 2)],
    ),
    "triangular_solve_legacy": (
        lambda a, b: torch.triangular_solve(b, a.tril() + 3 * torch.eye(3).astype(a.dtype), False)[
            0
        ],
        [(3, 3), (3, 2)],
    ),
    "matrix_sqrth": (lambda a: L.matrix_sqrth(_herm(a)), [(2, 3, 3)]),
    "polar": (lambda a: L.polar(a), [(4, 3)]),
    "polar_H_only": (lambda a: L.polar(a).H, [(2, 3, 3)]),
    "svd_lowrank": (_lr, [(5, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck_complex(name: str) -> None:
    f, shapes = GRADS[name]
    assert _gc(f, *[_c(*s) for s in shapes])


def test_gradgradcheck_lu_and_polar() -> None:
    a, b = _t(_c(3, 3), grad=True), _t(_c(3, 2), grad=True)
    assert gradgradcheck(lambda a, b: L.lu_solve(*L.lu_factor(a), b, adjoint=True), [a, b])
    assert gradgradcheck(lambda a: L.lu(a)[2], [_t(_c(3, 4), grad=True)])
    assert gradgradcheck(lambda a: L.polar(a).U, [_t(_c(3, 2), grad=True)])
