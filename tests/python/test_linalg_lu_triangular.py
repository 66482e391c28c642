"""Triangular solves and LU (linalg.solve_triangular / triangular_solve, lu_factor(_ex),
lu, lu_unpack, lu_solve and the old torch.lu / lu_solve / triangular_solve): values
against SciPy/NumPy float64 (LAPACK's pivots), batching, both dialects' spellings,
gradcheck / gradgradcheck, singular inputs and bad arguments."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
import scipy.linalg as sl
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.linalg import LinAlgError

RNG = np.random.default_rng(17)


def t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def well(*shape):
    n = shape[-1]
    return RNG.standard_normal(shape) * 0.3 + 2.0 * np.eye(n)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, fg.Tensor) else np.asarray(a)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---- solve_triangular ----


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("left", [False, True])
def test_solve_triangular_matches_scipy(upper, unit, left):
    A = well(2, 3, 4, 4)
    B = RNG.standard_normal((2, 3, 4, 5) if left else (2, 3, 5, 4))
    X = fg.linalg.solve_triangular(t(A), t(B), upper=upper, left=left, unitriangular=unit)
    for i in range(2):
        for j in range(3):
            a = np.triu(A[i, j]) if upper else np.tril(A[i, j])
            if unit:
                np.fill_diagonal(a, 1.0)
            want = np.linalg.solve(a, B[i, j]) if left else np.linalg.solve(a.T, B[i, j].T).T
            close(X[i, j], want)


def test_solve_triangular_broadcasts_and_float32():
    A, B = well(4, 4), RNG.standard_normal((3, 4, 2))
    X = fg.linalg.solve_triangular(t(A), t(B), upper=False)
    assert X.shape == [3, 4, 2]
    close(X[1], sl.solve_triangular(A, B[1], lower=True))
    X32 = fg.linalg.solve_triangular(t(A).float(), t(B).float(), upper=True)
    assert X32.dtype == fg.float32
    close(X32[0], sl.solve_triangular(A, B[0]), tol=1e-4)


@pytest.mark.parametrize("upper,unit,left", [(False, False, True), (True, True, False)])
def test_solve_triangular_gradcheck(upper, unit, left):
    A, B = t(well(2, 3, 3), True), t(RNG.standard_normal((2, 3, 2) if left else (2, 2, 3)), True)

    def f(a, b):
        return fg.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)

    assert gradcheck(f, (A, B))
    assert gradgradcheck(f, (A, B))


def test_paddle_and_old_torch_triangular_solve():
    A, B = well(3, 3), RNG.standard_normal((3, 2))
    close(fg.linalg.triangular_solve(t(A), t(B)), sl.solve_triangular(A, B))
    close(
        fg.linalg.triangular_solve(t(A), t(B), upper=False, transpose=True),
        sl.solve_triangular(np.tril(A).T, B),
    )
    X, Ac = fg.triangular_solve(t(B), t(A), upper=True)
    close(X, sl.solve_triangular(A, B))
    close(Ac, A)
    close(t(B).triangular_solve(t(A), False).solution, sl.solve_triangular(A, B, lower=True))


def test_solve_triangular_errors():
    with pytest.raises(TypeError):
        fg.linalg.solve_triangular(t(well(3, 3)), t(np.ones((3, 1))))  # upper is required
    with pytest.raises(ValueError, match="rows"):
        fg.linalg.solve_triangular(t(well(3, 3)), t(np.ones((2, 1))), upper=True)
    with pytest.raises(ValueError, match="square"):
        fg.linalg.solve_triangular(t(np.ones((2, 3))), t(np.ones((2, 1))), upper=True)
    with pytest.raises(ValueError, match="matrix"):
        fg.linalg.solve_triangular(t(well(3, 3)), t(np.ones(3)), upper=True)
    with pytest.raises(TypeError, match="dtype"):
        fg.linalg.solve_triangular(t(well(2, 2)), t(np.ones((2, 1))).float(), upper=True)
    # a zero diagonal is inf/NaN, not an error (LAPACK's trsm)
    X = fg.linalg.solve_triangular(t(np.zeros((2, 2))), t(np.ones((2, 1))), upper=True)
    assert not np.isfinite(X.numpy()).any()


# ---- LU ----


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 4, 4), (2, 4, 6)])
def test_lu_factor_matches_lapack(shape):
    A = RNG.standard_normal(shape)
    LU, piv = fg.linalg.lu_factor(t(A))
    assert piv.dtype == fg.int32 and LU.shape == list(shape)
    flat = A.reshape(-1, *shape[-2:])
    for b in range(flat.shape[0]):
        lu_ref, piv_ref = sl.lu_factor(flat[b]) if shape[-1] == shape[-2] else (None, None)
        got_lu = LU.numpy().reshape(flat.shape)[b]
        got_piv = piv.numpy().reshape(flat.shape[0], -1)[b]
        if lu_ref is not None:
            close(got_lu, lu_ref)
            np.testing.assert_array_equal(got_piv, piv_ref + 1)
        P, L, U = sl.lu(flat[b])
        # rebuild P L U from the packed result
        fP, fL, fU = fg.lu_unpack(t(got_lu), fg.tensor(got_piv.astype(np.int32)))
        close(fP @ fL @ fU, flat[b])
        close(fL, L)
        close(fU, U)


def test_lu_returns_torch_plu_and_paddle_packed():
    A = RNG.standard_normal((2, 4, 3))
    P, L, U = fg.linalg.lu(t(A))
    close(P @ L @ U, A)
    assert L.shape == [2, 4, 3] and U.shape == [2, 3, 3]
    LU, piv = fg.linalg.lu(t(A), True)  # Paddle: pivot positionally
    LU2, piv2, info = fg.linalg.lu(x=t(A), get_infos=True)
    close(LU, LU2.numpy())
    assert info.dtype == fg.int32 and info.shape == [2] and info.numpy().tolist() == [0, 0]
    LU3, piv3 = fg.lu(t(A))  # torch.lu
    np.testing.assert_array_equal(piv3.numpy(), piv.numpy())
    LU4, _, info4 = t(A).lu(get_infos=True)
    close(LU4, LU.numpy())


def test_bare_lu_follows_the_name_the_caller_gives_ferrograd():
    ns: dict = {}
    exec("import ferrograd as paddle\nr = paddle.linalg.lu(paddle.eye(3))", ns)
    assert len(ns["r"]) == 2  # Paddle's (LU, pivots)
    ns = {}
    exec("import ferrograd as torch\nr = torch.linalg.lu(torch.eye(3))", ns)
    assert ns["r"]._fields == ("P", "L", "U")


def test_singular_lu_gives_info_and_raises_where_torch_does():
    A = t([[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
    LU, piv, info = fg.linalg.lu_factor_ex(A)
    assert info.numpy().tolist() == [1, 2, 0]
    assert np.isfinite(LU.numpy()).all()
    np.testing.assert_array_equal(piv.numpy()[0], [1, 2])
    with pytest.raises(LinAlgError, match="batch index 0"):
        fg.linalg.lu_factor(A)
    with pytest.raises(LinAlgError):
        fg.linalg.lu_factor_ex(A, check_errors=True)
    with pytest.raises(LinAlgError):
        fg.lu(A)
    P, L, U = fg.linalg.lu(A)  # linalg.lu does not raise
    close(P @ L @ U, A.numpy())


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_matches_numpy(left, adjoint):
    A = well(3, 4, 4)
    B = RNG.standard_normal((3, 4, 2) if left else (3, 2, 4))
    LU, piv = fg.linalg.lu_factor(t(A))
    X = fg.linalg.lu_solve(LU, piv, t(B), left=left, adjoint=adjoint)
    M = np.swapaxes(A, -1, -2) if adjoint else A
    want = (
        np.linalg.solve(M, B)
        if left
        else np.swapaxes(np.linalg.solve(np.swapaxes(M, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    )
    close(X, want)


def test_lu_solve_paddle_order_and_old_torch():
    A, b = well(4, 4), RNG.standard_normal((4, 3))
    LU, p = fg.linalg.lu(t(A), True)
    close(fg.linalg.lu_solve(t(b), LU, p), np.linalg.solve(A, b))
    close(fg.linalg.lu_solve(t(b), LU, p, trans="T"), np.linalg.solve(A.T, b))
    close(fg.linalg.lu_solve(b=t(b), lu=LU, pivots=p), np.linalg.solve(A, b))
    close(fg.lu_solve(t(b), LU, p), np.linalg.solve(A, b))
    close(t(b).lu_solve(LU, p), np.linalg.solve(A, b))
    with pytest.raises(ValueError, match="trans"):
        fg.linalg.lu_solve(t(b), LU, p, trans="X")


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
def test_lu_gradcheck(shape):
    A = t(RNG.standard_normal(shape) + 2 * np.eye(*shape[-2:]), True)

    def plu(a):
        P, L, U = fg.linalg.lu(a)
        return L, U

    assert gradcheck(plu, (A,))
    assert gradcheck(lambda a: fg.linalg.lu_factor(a).LU, (A,))
    assert gradcheck(lambda a: fg.linalg.lu(a)[1], (A,))  # L alone
    assert gradcheck(lambda a: fg.linalg.lu(a)[2], (A,))  # U alone


def test_lu_gradgradcheck_and_lu_solve_grads():
    A = t(well(3, 3), True)
    assert gradgradcheck(lambda a: fg.linalg.lu_factor(a).LU, (A,))
    B = t(RNG.standard_normal((3, 2)), True)

    def f(a, b):
        LU, piv = fg.linalg.lu_factor(a)
        return fg.linalg.lu_solve(LU, piv, b, adjoint=True)

    assert gradcheck(f, (A, B))
    assert gradgradcheck(f, (A, B))


def test_lu_unpack_options_and_paddle_names():
    A = well(3, 3)
    LU, piv = fg.linalg.lu_factor(t(A))
    P, L, U = fg.linalg.lu_unpack(x=LU, y=piv, unpack_ludata=False)
    assert L.numel() == 0 and U.numel() == 0 and P.shape == [3, 3]
    P, L, U = fg.lu_unpack(LU, piv, unpack_pivots=False)
    assert P.numel() == 0
    close(L @ U, sl.lu(A, permute_l=False)[1] @ sl.lu(A)[2])


def test_lu_errors():
    LU, piv = fg.linalg.lu_factor(t(well(3, 3)))
    B = t(np.ones((3, 1)))
    with pytest.raises(ValueError, match="1..3"):
        fg.linalg.lu_solve(LU, fg.tensor(np.array([1, 2, 9], dtype=np.int32)), B)
    with pytest.raises(ValueError, match="shape"):
        fg.linalg.lu_solve(LU, fg.tensor(np.array([1, 2], dtype=np.int32)), B)
    with pytest.raises(ValueError, match="1..3"):
        fg.lu_unpack(LU, fg.tensor(np.array([2**40, 1, 1], dtype=np.int64)))
    with pytest.raises(RuntimeError, match="pivoting"):
        fg.linalg.lu_factor(t(well(3, 3)), pivot=False)
    with pytest.raises(TypeError):
        fg.linalg.lu_factor(fg.tensor(np.ones((2, 2), dtype=np.int64)))
    with pytest.raises(ValueError):
        fg.linalg.lu_factor(t(np.ones(3)))
    # empty and zero-size matrices
    LU, piv, info = fg.linalg.lu_factor_ex(fg.zeros([2, 0, 3], dtype=fg.float64))
    assert LU.shape == [2, 0, 3] and piv.shape == [2, 0] and info.shape == [2]
