"""cholesky_solve / cholesky_inverse (torch's top-level and Paddle's linalg spellings, the
methods), Paddle's linalg.matrix_transpose / cov / corrcoef and torch's linalg.matrix_sqrth /
polar: values against NumPy / SciPy, gradients (also at repeated eigenvalues), bad
arguments."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
_X = RNG.standard_normal((2, 4, 4))
SPD = _X @ _X.transpose(0, 2, 1) + 4 * np.eye(4)
L = np.linalg.cholesky(SPD)


def test_cholesky_solve_matches_numpy_in_both_spellings():
    B = RNG.standard_normal((2, 4, 3))
    ref = np.linalg.solve(SPD, B)
    got = fg.cholesky_solve(fg.tensor(B), fg.tensor(L)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    up = fg.linalg.cholesky_solve(fg.tensor(B), fg.tensor(L.transpose(0, 2, 1)), upper=True)
    np.testing.assert_allclose(up.numpy(), ref, rtol=1e-10, atol=1e-12)
    meth = fg.tensor(B).cholesky_solve(fg.tensor(L))
    np.testing.assert_allclose(meth.numpy(), ref, rtol=1e-10, atol=1e-12)
    # B's batch dims broadcast; only L's lower triangle is read
    junk = L[0] + np.triu(np.ones((4, 4)), 1)
    np.testing.assert_allclose(
        fg.cholesky_solve(fg.tensor(B[0]), fg.tensor(junk)).numpy(),
        np.linalg.solve(SPD[0], B[0]),
        rtol=1e-10,
    )


def test_cholesky_inverse_matches_numpy():
    inv = fg.cholesky_inverse(fg.tensor(L)).numpy()
    np.testing.assert_allclose(inv, np.linalg.inv(SPD), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(inv, inv.transpose(0, 2, 1))
    up = fg.linalg.cholesky_inverse(fg.tensor(L[0].T), upper=True).numpy()
    np.testing.assert_allclose(up, np.linalg.inv(SPD[0]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fg.tensor(L).cholesky_inverse().numpy(), inv)


def test_cholesky_solve_and_inverse_gradients():
    lt = fg.tensor(L[0], requires_grad=True)
    b = fg.tensor(RNG.standard_normal((4, 2)), requires_grad=True)
    assert gradcheck(lambda f, x: fg.cholesky_solve(x, f), (lt, b))
    assert gradgradcheck(lambda f, x: fg.cholesky_solve(x, f), (lt, b))
    assert gradcheck(
        lambda f: fg.cholesky_inverse(f, upper=True), (fg.tensor(L[1].T, requires_grad=True),)
    )
    # through the factorization: d sum(A⁻¹ b) / db = A⁻ᵀ 1
    a = fg.tensor(SPD[0])
    bb = fg.tensor(np.ones((4, 1)), requires_grad=True)
    fg.cholesky_solve(bb, fg.linalg.cholesky(a)).sum().backward()
    np.testing.assert_allclose(bb.grad.numpy(), np.linalg.inv(SPD[0]).T @ np.ones((4, 1)))


def test_cholesky_solve_bad_arguments():
    f = fg.tensor(L[0])
    with pytest.raises(ValueError, match="each factor is 4 x 4 but each B matrix is 3 x 1"):
        fg.cholesky_solve(fg.zeros(3, 1, dtype=fg.float64), f)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fg.cholesky_solve(fg.zeros(4, dtype=fg.float64), f)
    with pytest.raises(ValueError, match="square"):
        fg.cholesky_inverse(fg.zeros(3, 4, dtype=fg.float64))
    with pytest.raises(TypeError, match="upper must be a bool"):
        fg.cholesky_inverse(f, upper="no")
    with pytest.raises(TypeError, match="use one dtype"):
        fg.cholesky_solve(fg.zeros(4, 1), f)


def test_paddle_matrix_transpose_cov_corrcoef():
    x = RNG.standard_normal((5, 3))
    t = fg.tensor(x)
    assert list(fg.linalg.matrix_transpose(fg.ones(2, 3, 4)).shape) == [2, 4, 3]
    np.testing.assert_array_equal(fg.matrix_transpose(t).numpy(), x.T)
    np.testing.assert_array_equal(t.matrix_transpose().numpy(), x.T)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fg.linalg.matrix_transpose(fg.ones(3))
    np.testing.assert_allclose(fg.linalg.cov(t).numpy(), np.cov(x), rtol=1e-12)
    np.testing.assert_allclose(
        fg.linalg.cov(t, rowvar=False, ddof=False).numpy(),
        np.cov(x, rowvar=False, ddof=0),
        rtol=1e-12,
    )
    fw = np.array([1, 2, 1])
    aw = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(
        fg.linalg.cov(t, fweights=fg.tensor(fw), aweights=fg.tensor(aw)).numpy(),
        np.cov(x, fweights=fw, aweights=aw),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        fg.linalg.corrcoef(t, rowvar=False).numpy(), np.corrcoef(x, rowvar=False), rtol=1e-12
    )
    tg = fg.tensor(x, requires_grad=True)
    assert gradcheck(lambda v: fg.linalg.cov(v, rowvar=False), (tg,))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        fg.linalg.cov(fg.ones(2, 2, 2, dtype=fg.float64))
    with pytest.raises(TypeError, match="rowvar must be a bool"):
        fg.linalg.corrcoef(t, rowvar=0)


# -- matrix_sqrth / polar (torch 2.15's linalg additions) ------------------------------

scipy_linalg = pytest.importorskip("scipy.linalg")


def test_matrix_sqrth_matches_scipy_and_clamps_negative_eigenvalues():
    X = fg.linalg.matrix_sqrth(fg.tensor(SPD)).numpy()
    for i in range(2):
        np.testing.assert_allclose(X[i], scipy_linalg.sqrtm(SPD[i]).real, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(X @ X, SPD, rtol=1e-10)
    junk = SPD[0] + np.triu(np.ones((4, 4)), 1)  # only the lower triangle is read
    np.testing.assert_allclose(fg.linalg.matrix_sqrth(fg.tensor(junk)).numpy(), X[0], atol=1e-12)
    neg = fg.linalg.matrix_sqrth(fg.tensor(np.diag([4.0, -1.0]))).numpy()
    np.testing.assert_array_equal(neg, np.diag([2.0, 0.0]))  # as torch


def test_matrix_sqrth_gradients_including_repeated_eigenvalues():
    a = fg.tensor(SPD[0], requires_grad=True)
    sym = lambda t: fg.linalg.matrix_sqrth((t + t.mT) / 2)  # noqa: E731
    assert gradcheck(sym, (a,))
    assert gradgradcheck(sym, (a,))
    # the identity (all eigenvalues equal): the Sylvester form stays finite; the
    # derivative of sqrt(c I + E) at E = 0 is E / (2 sqrt(c))
    e = fg.tensor(4 * np.eye(3), requires_grad=True)
    R = RNG.standard_normal((3, 3))
    (fg.linalg.matrix_sqrth(e) * fg.tensor(R)).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), (R + R.T) / 2 / 4, atol=1e-12)


def test_polar_matches_scipy_and_differentiates():
    A = RNG.standard_normal((2, 5, 3))
    U, H = fg.linalg.polar(fg.tensor(A))
    for i in range(2):
        u, h = scipy_linalg.polar(A[i])
        np.testing.assert_allclose(U.numpy()[i], u, atol=1e-12)
        np.testing.assert_allclose(H.numpy()[i], h, atol=1e-12)
    a = fg.tensor(A[0], requires_grad=True)
    assert gradcheck(lambda t: tuple(fg.linalg.polar(t)), (a,))
    assert gradgradcheck(lambda t: fg.linalg.polar(t).U, (a,))
    # orthonormal columns (all singular values 1): still differentiable
    q, _ = np.linalg.qr(RNG.standard_normal((4, 3)))
    assert gradcheck(lambda t: tuple(fg.linalg.polar(t)), (fg.tensor(q, requires_grad=True),))


def test_sqrth_polar_bad_arguments():
    with pytest.raises(ValueError, match="at least as many rows as columns"):
        fg.linalg.polar(fg.zeros(2, 3, dtype=fg.float64))
    with pytest.raises(ValueError, match="square"):
        fg.linalg.matrix_sqrth(fg.zeros(2, 3, dtype=fg.float64))
    with pytest.raises(TypeError, match="float32 or float64"):
        fg.linalg.matrix_sqrth(fg.tensor([[1, 0], [0, 1]]))
