"""linalg.ldl_factor / ldl_factor_ex / ldl_solve: LAPACK sytrf's compact Bunch–Kaufman
factor (checked against SciPy's dsytrf/ssytrf, the ground truth torch also calls), solves
against dsytrs and NumPy, gradients (gradcheck / gradgradcheck) with the pivots fixed,
singular D in info, and bad arguments."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.linalg import LinAlgError

la = pytest.importorskip("scipy.linalg.lapack")

# pivots [-4, -4, 4, 4]: a 2x2 block with a swap, then 1x1 blocks (one swapped)
MIXED4 = np.array(
    [[-0.5, -0.5, 0.0, -2.5], [-0.5, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, -1.0], [-2.5, 1.0, -1.0, 0.5]]
)
# pivots [4, 4, -4, -4, 5]: swapped 1x1 blocks before a 2x2 block
MIXED5 = np.array(
    [
        [0.5, 1.0, -1.0, 1.5, 0.5],
        [1.0, 0.0, -1.0, -0.5, -1.0],
        [-1.0, -1.0, -0.5, 0.5, 0.0],
        [1.5, -0.5, 0.5, 1.0, 0.0],
        [0.5, -1.0, 0.0, 0.0, 0.0],
    ]
)


def _sym(rng, n, zero_diag=False):
    x = rng.standard_normal((n, n))
    a = x + x.T
    if zero_diag:
        np.fill_diagonal(a, 0.0)
    return a


def _cases():
    rng = np.random.default_rng(0)
    mats = [MIXED4, MIXED5, np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])]
    for n in (1, 2, 3, 6, 11, 70):  # 70 > 64: where LAPACK's blocked dsytrf takes over
        mats += [_sym(rng, n), _sym(rng, n, zero_diag=True)]
        mats.append(_sym(rng, n) + 3 * n * np.eye(n))  # positive-definite: no pivoting
    return mats


def test_matches_lapack_dsytrf_values_and_pivots():
    for a in _cases():
        LD, piv, info = fg.linalg.ldl_factor_ex(fg.tensor(a))
        ref, rpiv, rinfo = la.dsytrf(a, lower=1)
        assert piv.dtype == fg.int32 and info.dtype == fg.int32
        np.testing.assert_array_equal(piv.numpy(), rpiv)
        assert int(info) == rinfo
        np.testing.assert_allclose(LD.numpy(), np.tril(ref), rtol=1e-9, atol=1e-11)
    # 2x2 pivots appear (negative, repeated entries)
    assert fg.linalg.ldl_factor(fg.tensor(MIXED4)).pivots.tolist() == [-4, -4, 4, 4]
    assert fg.linalg.ldl_factor(fg.tensor(MIXED5)).pivots.tolist() == [4, 4, -4, -4, 5]


def test_float32_matches_ssytrf_and_only_the_lower_triangle_is_read():
    rng = np.random.default_rng(1)
    a = _sym(rng, 7, zero_diag=True).astype(np.float32)
    LD, piv = fg.linalg.ldl_factor(fg.tensor(a))
    ref, rpiv, _ = la.ssytrf(a, lower=1)
    assert LD.dtype == fg.float32
    np.testing.assert_array_equal(piv.numpy(), rpiv)
    np.testing.assert_allclose(LD.numpy(), np.tril(ref), rtol=1e-5, atol=1e-5)
    junk = np.tril(a) + np.triu(rng.standard_normal((7, 7)).astype(np.float32), 1)
    LD2, piv2 = fg.linalg.ldl_factor(fg.tensor(junk), hermitian=True)
    np.testing.assert_array_equal(LD2.numpy(), LD.numpy())
    np.testing.assert_array_equal(piv2.numpy(), piv.numpy())
    assert not np.triu(LD.numpy(), 1).any()  # torch's LD has a zero upper triangle


def test_batched_factor_and_solve_match_dsytrs_and_numpy():
    rng = np.random.default_rng(2)
    A = np.stack(
        [np.stack([_sym(rng, 5, zero_diag=True), MIXED5]), np.stack([MIXED5.T, _sym(rng, 5)])]
    )
    B = rng.standard_normal((2, 2, 5, 3))
    LD, piv = fg.linalg.ldl_factor(fg.tensor(A))
    assert list(LD.shape) == [2, 2, 5, 5] and list(piv.shape) == [2, 2, 5]
    X = fg.linalg.ldl_solve(LD, piv, fg.tensor(B)).numpy()
    for i in range(2):
        for j in range(2):
            ref, rpiv, _ = la.dsytrf(A[i, j], lower=1)
            np.testing.assert_array_equal(piv.numpy()[i, j], rpiv)
            xr, info = la.dsytrs(ref, rpiv, B[i, j], lower=1)
            np.testing.assert_allclose(X[i, j], xr, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(X, np.linalg.solve(A, B), rtol=1e-9, atol=1e-10)
    # B's batch dims broadcast against LD's
    X1 = fg.linalg.ldl_solve(LD, piv, fg.tensor(B[0, 0])).numpy()
    np.testing.assert_allclose(X1, np.linalg.solve(A, B[0, 0]), rtol=1e-9, atol=1e-10)


def test_singular_d_is_reported_in_info():
    z = fg.zeros(3, 3, dtype=fg.float64)
    LD, piv, info = fg.linalg.ldl_factor_ex(z)
    assert int(info) == 1 and piv.tolist() == [1, 2, 3] and not LD.numpy().any()
    with pytest.raises(LinAlgError, match=r"zero diagonal block D\[0, 0\].*singular"):
        fg.linalg.ldl_factor(z)
    with pytest.raises(LinAlgError, match="batch element"):
        fg.linalg.ldl_factor_ex(
            fg.tensor(np.stack([np.eye(2), np.zeros((2, 2))])), check_errors=True
        )
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    _, rpiv, rinfo = la.dsytrf(a, lower=1)
    _, piv, info = fg.linalg.ldl_factor_ex(fg.tensor(a))
    assert int(info) == rinfo == 2 and piv.tolist() == rpiv.tolist()


def test_empty_inputs():
    LD, piv = fg.linalg.ldl_factor(fg.zeros(0, 0, dtype=fg.float64))
    assert list(LD.shape) == [0, 0] and list(piv.shape) == [0]
    LD, piv, info = fg.linalg.ldl_factor_ex(fg.zeros(2, 0, 0))
    assert list(piv.shape) == [2, 0] and list(info.shape) == [2]
    LD, piv = fg.linalg.ldl_factor(fg.tensor(MIXED4))
    assert list(fg.linalg.ldl_solve(LD, piv, fg.zeros(4, 0, dtype=fg.float64)).shape) == [4, 0]


def test_ldl_factor_gradients_with_fixed_pivots():
    # non-symmetric input: only the lower triangle is read, and only it gets a gradient
    a = fg.tensor(MIXED4 + 0.1 * np.triu(np.ones((4, 4)), 1), requires_grad=True)
    assert gradcheck(lambda x: fg.linalg.ldl_factor(x).LD, (a,))
    assert gradgradcheck(lambda x: fg.linalg.ldl_factor(x).LD, (a,))
    fg.linalg.ldl_factor(a).LD.sum().backward()
    assert not np.triu(a.grad.numpy(), 1).any()
    b = fg.tensor(np.stack([MIXED5, MIXED5 + 4 * np.eye(5)]), requires_grad=True)
    assert gradcheck(lambda x: fg.linalg.ldl_factor_ex(x).LD, (b,))


def test_ldl_solve_gradients_and_solve_through_the_factor():
    rng = np.random.default_rng(3)
    LD, piv = fg.linalg.ldl_factor(fg.tensor(MIXED5))
    ld = LD.detach().requires_grad_(True)
    B = fg.tensor(rng.standard_normal((5, 2)), requires_grad=True)
    assert gradcheck(lambda L, b: fg.linalg.ldl_solve(L, piv, b), (ld, B))
    assert gradgradcheck(lambda L, b: fg.linalg.ldl_solve(L, piv, b), (ld, B))
    # through the factorization, the gradient of A^{-1} B for symmetric A
    a = fg.tensor(MIXED4, requires_grad=True)
    B4 = fg.tensor(rng.standard_normal((4, 2)))
    fg.linalg.ldl_solve(*fg.linalg.ldl_factor(a), B4).sum().backward()
    Ainv = np.linalg.inv(MIXED4)
    G = -Ainv.T @ np.ones((4, 2)) @ (Ainv @ B4.numpy()).T  # d/dA of sum(A^-1 B)
    np.testing.assert_allclose(a.grad.numpy(), np.tril(G + G.T) - np.diag(np.diag(G)), atol=1e-10)


def test_bad_arguments_raise_clear_errors():
    LD, piv = fg.linalg.ldl_factor(fg.tensor(MIXED4))
    with pytest.raises(ValueError, match="square"):
        fg.linalg.ldl_factor(fg.zeros(2, 3, dtype=fg.float64))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fg.linalg.ldl_factor(fg.zeros(3, dtype=fg.float64))
    with pytest.raises(TypeError, match="float32 or float64"):
        fg.linalg.ldl_factor(fg.tensor([[1, 2], [2, 1]]))
    with pytest.raises(ValueError, match="each LD matrix is 4 x 4 but each B matrix is 3 x 2"):
        fg.linalg.ldl_solve(LD, piv, fg.zeros(3, 2, dtype=fg.float64))
    with pytest.raises(ValueError, match=r"B must be a matrix"):
        fg.linalg.ldl_solve(LD, piv, fg.zeros(4, dtype=fg.float64))
    with pytest.raises(TypeError, match="same dtype"):
        fg.linalg.ldl_solve(LD, piv, fg.zeros(4, 1))
    with pytest.raises(TypeError, match="integer tensor"):
        fg.linalg.ldl_solve(LD, piv.double(), fg.zeros(4, 1, dtype=fg.float64))
    with pytest.raises(ValueError, match="pivots must have shape"):
        fg.linalg.ldl_solve(LD, piv[:3], fg.zeros(4, 1, dtype=fg.float64))
    with pytest.raises(ValueError, match="sytrf's 1-based format"):
        fg.linalg.ldl_solve(LD, piv * 0, fg.zeros(4, 1, dtype=fg.float64))
    bad = fg.tensor(np.array([-4, 1, 3, 4], dtype=np.int32))
    with pytest.raises(ValueError, match="must be repeated"):
        fg.linalg.ldl_solve(LD, bad, fg.zeros(4, 1, dtype=fg.float64))
    with pytest.raises(TypeError, match="hermitian must be a bool"):
        fg.linalg.ldl_factor(fg.tensor(MIXED4), hermitian=1)
