"""linalg.matrix_exp, vecdot, tensorinv, tensorsolve, householder_product and the _ex
variants (cholesky_ex, inv_ex): values against SciPy/NumPy float64, batching, both
dialects' spellings, gradcheck / gradgradcheck, failures reported in ``info``, bad
arguments (huge ints included)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
import scipy.linalg as sl
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.linalg import LinAlgError

RNG = np.random.default_rng(23)


def t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, fg.Tensor) else np.asarray(a)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---- matrix_exp ----


@pytest.mark.parametrize("scale", [1e-3, 0.5, 3.0, 40.0])
def test_matrix_exp_matches_scipy(scale):
    A = RNG.standard_normal((3, 4, 4)) * scale
    E = fg.linalg.matrix_exp(t(A))
    for i in range(3):
        want = sl.expm(A[i])
        np.testing.assert_allclose(E[i].numpy(), want, rtol=1e-11, atol=1e-12 * np.abs(want).max())


def test_matrix_exp_spellings_float32_and_edge_cases():
    A = RNG.standard_normal((3, 3))
    close(fg.matrix_exp(t(A)), sl.expm(A))
    close(t(A).matrix_exp(), sl.expm(A))
    close(fg.linalg.matrix_exp(x=t(A)), sl.expm(A))
    E32 = fg.linalg.matrix_exp(t(A).float())
    assert E32.dtype == fg.float32
    close(E32, sl.expm(A), tol=1e-5)
    close(fg.linalg.matrix_exp(t(np.zeros((2, 2)))), np.eye(2))
    assert fg.linalg.matrix_exp(fg.zeros([2, 0, 0], dtype=fg.float64)).shape == [2, 0, 0]
    assert np.isnan(fg.linalg.matrix_exp(t([[np.nan, 0.0], [0.0, 1.0]])).numpy()).any()
    with pytest.raises(ValueError, match="square"):
        fg.linalg.matrix_exp(t(np.ones((2, 3))))


def test_matrix_exp_gradients():
    A = t(RNG.standard_normal((2, 3, 3)), True)
    assert gradcheck(fg.linalg.matrix_exp, (A,))
    assert gradgradcheck(fg.linalg.matrix_exp, (A,))
    B = t(RNG.standard_normal((3, 3)) * 5, True)  # needs squarings
    assert gradcheck(fg.linalg.matrix_exp, (B,), rtol=1e-4)
    # d/dt tr exp(tA) at t=1 = tr(A exp(A))
    C = RNG.standard_normal((3, 3))
    s = t(1.0, True)
    fg.linalg.matrix_exp(t(C) * s).diagonal().sum().backward()
    close(s.grad, np.trace(C @ sl.expm(C)), tol=1e-9)


# ---- vecdot ----


def test_vecdot_both_dialects_and_complex():
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4))
    close(fg.linalg.vecdot(t(x), t(y)), (x * y).sum(-1))
    close(fg.linalg.vecdot(t(x), t(y), dim=1), (x * y).sum(1))
    close(fg.linalg.vecdot(t(x), t(y), axis=-2), (x * y).sum(-2))
    z = fg.tensor(np.array([1 + 2j, 3 - 1j]))
    w = fg.tensor(np.array([2 - 1j, 1j]))
    got = fg.linalg.vecdot(z, w).item()
    assert abs(got - np.vdot([1 + 2j, 3 - 1j], [2 - 1j, 1j])) < 1e-12
    a, b = t(x, True), t(y, True)
    assert gradcheck(fg.linalg.vecdot, (a, b))
    with pytest.raises(IndexError):
        fg.linalg.vecdot(t(x), t(y), dim=2**63 - 1)
    with pytest.raises(TypeError):
        fg.linalg.vecdot(t(x), t(y), dim=1.5)


# ---- tensorinv / tensorsolve ----


def test_tensorinv_and_tensorsolve_match_numpy():
    A = RNG.standard_normal((4, 6, 8, 3)) + 0.0
    A = (A.reshape(24, 24) + 6 * np.eye(24)).reshape(4, 6, 8, 3)
    close(fg.linalg.tensorinv(t(A), ind=2), np.linalg.tensorinv(A, ind=2))
    B = RNG.standard_normal((4, 6))
    close(fg.linalg.tensorsolve(t(A), t(B)), np.linalg.tensorsolve(A, B))
    A2 = np.moveaxis(A, 3, 0)  # [3, 4, 6, 8]: dims=(0,) moves dim 0 back to the end
    close(
        fg.linalg.tensorsolve(t(np.moveaxis(A, 1, 0)), t(B.T)),
        np.linalg.tensorsolve(np.moveaxis(A, 1, 0), B.T),
    )
    close(fg.linalg.tensorsolve(t(A2), t(B), dims=(0,)), np.linalg.tensorsolve(A2, B, axes=(0,)))
    a = t(np.eye(6).reshape(2, 3, 6) * 2 + RNG.standard_normal((2, 3, 6)) * 0.1, True)
    assert gradcheck(lambda m: fg.linalg.tensorinv(m, ind=2), (a,))


def test_tensor_solves_errors():
    with pytest.raises(ValueError, match="product"):
        fg.linalg.tensorinv(t(np.ones((2, 3, 4))), ind=1)
    for bad in (0, -1, 2**40, 2**63 - 1):
        with pytest.raises(ValueError, match="ind"):
            fg.linalg.tensorinv(t(np.ones((2, 2))), ind=bad)
    with pytest.raises(IndexError):
        fg.linalg.tensorsolve(t(np.ones((2, 2))), t(np.ones(2)), dims=(2**63 - 1,))
    with pytest.raises(ValueError):
        fg.linalg.tensorsolve(t(np.ones((2, 3))), t(np.ones(2)))
    with pytest.raises(LinAlgError):
        fg.linalg.tensorinv(t(np.zeros((2, 2))), ind=1)


# ---- householder_product ----


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 6, 2)])
def test_householder_product_rebuilds_numpy_qr(shape):
    A = RNG.standard_normal(shape)
    flat = A.reshape(-1, *shape[-2:])
    hs, taus, qs = [], [], []
    for a in flat:
        h, tau = np.linalg.qr(a, mode="raw")
        hs.append(h.T)
        taus.append(tau)
        qs.append(np.linalg.qr(a)[0])
    H = np.stack(hs).reshape(shape)
    tau = np.stack(taus).reshape(shape[:-2] + (shape[-1],))
    Q = fg.linalg.householder_product(t(H), t(tau))
    close(Q, np.stack(qs).reshape(shape))
    close(fg.orgqr(t(H), t(tau)), np.stack(qs).reshape(shape))


def test_householder_product_grads_and_errors():
    A, tau = t(RNG.standard_normal((4, 3)), True), t(RNG.uniform(1.0, 2.0, 2), True)
    assert gradcheck(fg.linalg.householder_product, (A, tau))
    assert gradgradcheck(fg.linalg.householder_product, (A, tau))
    with pytest.raises(ValueError, match="rows"):
        fg.linalg.householder_product(t(np.ones((2, 3))), t(np.ones(2)))
    with pytest.raises(ValueError, match="tau"):
        fg.linalg.householder_product(t(np.ones((3, 2))), t(np.ones(3)))
    with pytest.raises(ValueError, match="tau"):
        fg.linalg.householder_product(t(np.ones((3, 2))), t(np.ones((1, 2))))


# ---- cholesky_ex / inv_ex ----


def test_cholesky_ex_and_inv_ex_report_info():
    good = np.array([[4.0, 2.0], [2.0, 5.0]])
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    L, info = fg.linalg.cholesky_ex(t(np.stack([good, bad])))
    assert info.dtype == fg.int32 and info.numpy().tolist() == [0, 2]
    close(L[0], np.linalg.cholesky(good))
    assert np.isnan(L[1].numpy()).all()
    U, _ = fg.linalg.cholesky_ex(t(good), upper=True)
    close(U, np.linalg.cholesky(good).T)
    with pytest.raises(LinAlgError, match="order 2"):
        fg.linalg.cholesky_ex(t(bad), check_errors=True)
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    Y, info = fg.linalg.inv_ex(t(np.stack([good, sing])))
    assert info.numpy().tolist() == [0, 2]
    close(Y[0], np.linalg.inv(good))
    with pytest.raises(LinAlgError, match="singular"):
        fg.linalg.inv_ex(t(sing), check_errors=True)
    assert fg.linalg.inv_ex(t(good)).info.ndim == 0


def test_ex_gradients():
    A = t(RNG.standard_normal((3, 3)) * 0.3 + 2 * np.eye(3), True)
    assert gradcheck(lambda a: fg.linalg.inv_ex(a).inverse, (A,))
    assert gradgradcheck(lambda a: fg.linalg.inv_ex(a).inverse, (A,))
    S = t(np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]), True)

    def chol(a):
        return fg.linalg.cholesky_ex((a + a.mT) * 0.5).L

    assert gradcheck(chol, (S,))
    assert gradgradcheck(chol, (S,))


def test_solve_ex_matches_solve_and_reports_info():
    A = np.stack([np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([[1.0, 2.0], [2.0, 4.0]])])
    b = np.array([1.0, 2.0])
    X, info = fg.linalg.solve_ex(t(A), t(b))
    assert info.numpy().tolist() == [0, 2] and X.shape == [2, 2]
    close(X[0], np.linalg.solve(A[0], b))
    with pytest.raises(LinAlgError):
        fg.linalg.solve_ex(t(A), t(b), check_errors=True)
    B = RNG.standard_normal((3, 2))
    Xr, _ = fg.linalg.solve_ex(t(A[0]), t(B), left=False)
    close(Xr, B @ np.linalg.inv(A[0]))
    a, bb = t(A[0], True), t(RNG.standard_normal((2, 3)), True)
    assert gradcheck(lambda x, y: fg.linalg.solve_ex(x, y).result, (a, bb))
