"""linalg.vander, linalg.diagonal, ormqr (torch's full Q against LAPACK's dormqr,
Paddle's thin Q) and the randomized svd_lowrank / pca_lowrank (exact for rank <= q,
orthonormal factors, reproducible with manual_seed), with gradients and bad arguments."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

la = pytest.importorskip("scipy.linalg.lapack")


# -- vander ---------------------------------------------------------------------------


def test_vander_increasing_powers_batched_and_integer():
    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, 1.5]])
    out = fg.linalg.vander(fg.tensor(x), N=4).numpy()
    assert out.shape == (2, 3, 4)
    for i in range(2):
        np.testing.assert_allclose(out[i], np.vander(x[i], 4, increasing=True), rtol=1e-15)
    np.testing.assert_allclose(
        fg.linalg.vander(fg.tensor(x[0])).numpy(), np.vander(x[0], increasing=True)
    )
    xi = fg.tensor([1, 2, 3, 5])
    v = fg.linalg.vander(xi)
    assert v.dtype == xi.dtype
    assert v.tolist() == np.vander([1, 2, 3, 5], increasing=True).tolist()
    # the top-level vander keeps numpy's (decreasing) order
    assert fg.vander(xi).tolist() == np.vander([1, 2, 3, 5]).tolist()


def test_vander_gradients_including_zero():
    x = fg.tensor([0.0, 1.5, -0.7], dtype=fg.float64, requires_grad=True)
    assert gradcheck(lambda t: fg.linalg.vander(t, N=4), (x,))
    assert gradgradcheck(lambda t: fg.linalg.vander(t, N=4), (x,))
    fg.linalg.vander(x, N=4).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[0], 1.0)  # d(1 + x + x² + x³)/dx at 0


def test_vander_bad_arguments():
    x = fg.tensor([1.0, 2.0])
    for N in (1, 0, -1):
        with pytest.raises(ValueError, match="N must be greater than 1"):
            fg.linalg.vander(x, N=N)
    with pytest.raises(TypeError):
        fg.linalg.vander(x, 3)  # N is keyword-only, as torch
    with pytest.raises(TypeError, match="N must be an int"):
        fg.linalg.vander(x, N=2.0)
    with pytest.raises(ValueError, match="at least 1 dimension"):
        fg.linalg.vander(fg.tensor(2.0))
    with pytest.raises(TypeError, match="floating point and integer"):
        fg.linalg.vander(fg.tensor([True, False]))


# -- diagonal -------------------------------------------------------------------------


def test_diagonal_torch_defaults_are_the_last_two_dims():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = fg.tensor(a)
    np.testing.assert_array_equal(fg.linalg.diagonal(t).numpy(), np.diagonal(a, 0, -2, -1))
    np.testing.assert_array_equal(
        fg.linalg.diagonal(t, offset=1).numpy(), np.diagonal(a, 1, -2, -1)
    )
    np.testing.assert_array_equal(
        fg.linalg.diagonal(t, offset=-1, dim1=0, dim2=2).numpy(), np.diagonal(a, -1, 0, 2)
    )
    x = fg.tensor(np.random.default_rng(0).standard_normal((3, 3, 2)), requires_grad=True)
    assert gradcheck(lambda v: fg.linalg.diagonal(v, offset=1, dim1=0, dim2=1), (x,))


def test_diagonal_paddle_spelling_uses_axes_0_and_1():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = fg.tensor(a)
    np.testing.assert_array_equal(fg.linalg.diagonal(t, 1).numpy(), np.diagonal(a, 1, 0, 1))
    np.testing.assert_array_equal(fg.linalg.diagonal(x=t).numpy(), np.diagonal(a, 0, 0, 1))
    np.testing.assert_array_equal(
        fg.linalg.diagonal(t, axis1=1, axis2=2).numpy(), np.diagonal(a, 0, 1, 2)
    )
    # a bare call in a module that names ferrograd `paddle` takes Paddle's defaults
    ns = {"paddle": fg, "t": t}
    exec("r = paddle.linalg.diagonal(t)", ns)
    np.testing.assert_array_equal(ns["r"].numpy(), np.diagonal(a, 0, 0, 1))
    with pytest.raises(TypeError, match="use one dialect"):
        fg.linalg.diagonal(t, 0, dim1=0)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fg.linalg.diagonal(fg.tensor([1.0]))


# -- ormqr ----------------------------------------------------------------------------


def _geqrf(x):
    qr, tau, _, _ = la.dgeqrf(x)
    return qr, tau


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_torch_ormqr_matches_lapack_dormqr(shape):
    rng = np.random.default_rng(1)
    a, tau = _geqrf(rng.standard_normal(shape))
    mn = shape[0]
    r = tau.shape[0]
    for left in (True, False):
        for trans in (False, True):
            c = rng.standard_normal((mn, 2) if left else (2, mn))
            ref, _, info = la.dormqr(
                "L" if left else "R", "T" if trans else "N", a[:, :r], tau, c, lwork=64
            )
            assert info == 0
            got = fg.ormqr(fg.tensor(a), fg.tensor(tau), fg.tensor(c), left, trans).numpy()
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
            meth = fg.tensor(a).ormqr(fg.tensor(tau), fg.tensor(c), left, trans).numpy()
            np.testing.assert_allclose(meth, ref, rtol=1e-12, atol=1e-13)


def test_paddle_ormqr_multiplies_by_householder_product():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 3))
    tau = rng.standard_normal((2, 3))
    Q = fg.linalg.householder_product(fg.tensor(x), fg.tensor(tau)).numpy()  # 5 x 3
    X, T = fg.tensor(x), fg.tensor(tau)
    y3 = rng.standard_normal((2, 3, 4))
    y5 = rng.standard_normal((2, 5, 4))
    close = np.testing.assert_allclose
    close(fg.linalg.ormqr(X, T, fg.tensor(y3)).numpy(), Q @ y3, atol=1e-13)
    close(
        fg.linalg.ormqr(X, T, fg.tensor(y5), transpose=True).numpy(),
        Q.transpose(0, 2, 1) @ y5,
        atol=1e-13,
    )
    yr5 = rng.standard_normal((2, 4, 5))
    yr3 = rng.standard_normal((2, 4, 3))
    close(fg.linalg.ormqr(X, T, fg.tensor(yr5), left=False).numpy(), yr5 @ Q, atol=1e-13)
    close(
        fg.linalg.ormqr(X, T, fg.tensor(yr3), left=False, transpose=True).numpy(),
        yr3 @ Q.transpose(0, 2, 1),
        atol=1e-13,
    )
    # Tensor.ormqr in a module that names ferrograd `paddle`: Paddle's thin Q
    ns = {"paddle": fg, "X": X, "T": T, "y": fg.tensor(y3)}
    exec("r = X.ormqr(T, y)", ns)
    close(ns["r"].numpy(), Q @ y3, atol=1e-13)
    close(X.ormqr(T, y=fg.tensor(y3)).numpy(), Q @ y3, atol=1e-13)


def test_ormqr_gradients():
    rng = np.random.default_rng(3)
    x = fg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    tau = fg.tensor(rng.standard_normal(3), requires_grad=True)
    y = fg.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    assert gradcheck(lambda a, t, c: fg.ormqr(a, t, c, True, True), (x, tau, y))
    yr = fg.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert gradgradcheck(lambda a, t, c: fg.ormqr(a, t, c, False, False), (x, tau, yr))
    y3 = fg.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert gradcheck(lambda a, t, c: fg.linalg.ormqr(a, t, c), (x, tau, y3))


def test_ormqr_bad_arguments():
    x = fg.zeros(5, 3, dtype=fg.float64)
    tau = fg.zeros(3, dtype=fg.float64)
    with pytest.raises(ValueError, match=r"other.shape\[-2\] must be equal to input.shape\[-2\]"):
        fg.ormqr(x, tau, fg.zeros(4, 2, dtype=fg.float64))
    with pytest.raises(ValueError, match=r"tau.shape\[-1\] must be equal to"):
        fg.ormqr(x, tau[:2], fg.zeros(5, 2, dtype=fg.float64))
    with pytest.raises(ValueError, match="as many dimensions"):
        fg.ormqr(x, tau, fg.zeros(2, 5, 2, dtype=fg.float64))
    with pytest.raises(TypeError, match="same dtype"):
        fg.ormqr(x, tau, fg.zeros(5, 2))
    with pytest.raises(ValueError, match=r"for Q y .* must be 3"):
        fg.linalg.ormqr(x, tau, fg.zeros(5, 2, dtype=fg.float64))
    with pytest.raises(ValueError, match="at least as many rows as columns"):
        fg.linalg.ormqr(fg.zeros(2, 3, dtype=fg.float64), tau, fg.zeros(3, 2, dtype=fg.float64))
    with pytest.raises(TypeError, match="left must be a bool"):
        fg.linalg.ormqr(x, tau, fg.zeros(3, 2, dtype=fg.float64), left="yes")


# -- svd_lowrank / pca_lowrank --------------------------------------------------------


def _recon(U, S, V):
    return U.numpy() @ (S.numpy()[..., None] * np.swapaxes(V.numpy(), -1, -2))


def _orthonormal(U):
    u = U.numpy()
    eye = np.eye(u.shape[-1])
    np.testing.assert_allclose(
        np.swapaxes(u, -1, -2) @ u, np.broadcast_to(eye, u.shape[:-2] + eye.shape), atol=1e-12
    )


@pytest.mark.parametrize("shape", [(2, 12, 9), (9, 12)])
def test_svd_lowrank_is_exact_for_rank_at_most_q(shape):
    rng = np.random.default_rng(4)
    *lead, m, n = shape
    a = rng.standard_normal((*lead, m, 4)) @ rng.standard_normal((*lead, 4, n))  # rank 4
    fg.manual_seed(0)
    U, S, V = fg.svd_lowrank(fg.tensor(a), q=5)
    assert (
        list(U.shape) == [*lead, m, 5]
        and list(S.shape) == [*lead, 5]
        and list(V.shape) == [*lead, n, 5]
    )
    np.testing.assert_allclose(_recon(U, S, V), a, atol=1e-12)
    _orthonormal(U)
    _orthonormal(V)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False)[..., :5], atol=1e-12)
    # the same seed, the same draw; the reconstruction does not depend on the draw
    fg.manual_seed(0)
    U2, S2, V2 = fg.svd_lowrank(fg.tensor(a), q=5)
    np.testing.assert_array_equal(U2.numpy(), U.numpy())
    U3, S3, V3 = fg.linalg.svd_lowrank(fg.tensor(a), q=5)
    np.testing.assert_allclose(_recon(U3, S3, V3), a, atol=1e-12)


def test_svd_lowrank_approximates_a_full_rank_matrix_and_takes_M():
    rng = np.random.default_rng(5)
    u, _ = np.linalg.qr(rng.standard_normal((30, 10)))
    v, _ = np.linalg.qr(rng.standard_normal((20, 10)))
    s = 2.0 ** -np.arange(10)  # fast decay
    a = u @ np.diag(s) @ v.T
    fg.manual_seed(1)
    U, S, V = fg.svd_lowrank(fg.tensor(a), q=4, niter=2)
    best = np.linalg.norm(s[4:])  # Eckart–Young: the best rank-4 error
    assert np.linalg.norm(_recon(U, S, V) - a) < 1.5 * best
    np.testing.assert_allclose(S.numpy(), s[:4], rtol=1e-3)
    # M: the decomposition of A - M
    M = rng.standard_normal((1, 20))  # broadcasts over the rows
    fg.manual_seed(2)
    U, S, V = fg.svd_lowrank(fg.tensor(a + M), q=4, M=fg.tensor(M))
    assert np.linalg.norm(_recon(U, S, V) - a) < 1.5 * best
    # q beyond min(m, n) is capped in torch's spelling, refused in Paddle's
    U, S, V = fg.svd_lowrank(fg.tensor(a[:5, :3]), q=6)
    assert list(S.shape) == [3]
    with pytest.raises(ValueError, match="not be greater than min"):
        fg.linalg.svd_lowrank(fg.tensor(a[:5, :3]), q=6)
    assert list(fg.linalg.svd_lowrank(fg.tensor(a[:5, :3]))[1].shape) == [3]  # min(6, m, n)


def test_pca_lowrank_centers_and_matches_numpy():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((40, 3)) @ rng.standard_normal((3, 8)) + rng.standard_normal(8)
    fg.manual_seed(3)
    U, S, V = fg.pca_lowrank(fg.tensor(a), q=3)
    c = a - a.mean(0)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(c, compute_uv=False)[:3], rtol=1e-10)
    np.testing.assert_allclose(_recon(U, S, V), c, atol=1e-10)
    _orthonormal(V)
    U, S, V = fg.linalg.pca_lowrank(fg.tensor(a), q=4, center=False)
    np.testing.assert_allclose(_recon(U, S, V), a, atol=1e-10)
    U, S, V = fg.tensor(a).pca_lowrank()  # Paddle's method; q = min(6, m, n)
    assert list(S.shape) == [6]
    with pytest.raises(ValueError, match="not greater than min"):
        fg.pca_lowrank(fg.tensor(a), q=9)
    with pytest.raises(ValueError, match="niter"):
        fg.pca_lowrank(fg.tensor(a), niter=-1)


def test_lowrank_gradients_with_a_fixed_seed():
    a = fg.tensor(np.random.default_rng(7).standard_normal((5, 3)), requires_grad=True)

    def svals(t):
        fg.manual_seed(0)  # the same random draw on every call
        return fg.svd_lowrank(t, q=3, niter=1)[1]

    assert gradcheck(svals, (a,))
    (g,) = fg.autograd.grad(svals(a).sum(), a)
    u, _, vt = np.linalg.svd(a.detach().numpy(), full_matrices=False)
    np.testing.assert_allclose(g.numpy(), u @ vt, atol=1e-10)  # d sum(σ) / dA = U Vᵀ


def test_lowrank_bad_arguments():
    a = fg.zeros(4, 3, dtype=fg.float64)
    with pytest.raises(TypeError, match="float32 or float64"):
        fg.svd_lowrank(fg.zeros(4, 3, dtype=fg.int64))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fg.svd_lowrank(fg.zeros(4, dtype=fg.float64))
    with pytest.raises(ValueError, match="q"):
        fg.svd_lowrank(a, q=-1)
    with pytest.raises(TypeError, match="q must be an int"):
        fg.svd_lowrank(a, q=2.5)
    with pytest.raises(ValueError, match="does not broadcast"):
        fg.svd_lowrank(a, M=fg.zeros(2, 3, dtype=fg.float64))
    with pytest.raises(TypeError, match="center must be a bool"):
        fg.pca_lowrank(a, center=None)
