"""ferrograd.linalg factorizations and the ops built on them: values against numpy.linalg
in float64 (batched, 0-size batch, float32), gradcheck and gradgradcheck on
well-conditioned random matrices, the degenerate cases (singular, not positive-definite),
bad shapes and dtypes, and both dialects' names."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.linalg import LinAlgError

RNG = np.random.default_rng(5)


def well(*shape, grad=False):
    """Random well-conditioned square matrices (identity-dominated)."""
    n = shape[-1]
    a = RNG.standard_normal(shape) * 0.3 + 2.0 * np.eye(n)
    return fg.tensor(a, requires_grad=grad)


def spd(*shape, grad=False):
    """Random symmetric positive-definite matrices ``[*batch, n, n]`` for ``shape = (*batch, n)``."""
    n = shape[-1]
    a = RNG.standard_normal(shape + (n,))
    m = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return fg.tensor(m, requires_grad=grad)


def rnd(*shape, grad=False):
    return fg.tensor(RNG.standard_normal(shape), requires_grad=grad)


def sym(x):
    return (x + x.mT) * 0.5


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


BATCHES = [(), (3,), (2, 2), (0,)]


# ---- values ----------------------------------------------------------------------------


@pytest.mark.parametrize("batch", BATCHES)
def test_inv_det_slogdet_match_numpy(batch):
    A = well(*batch, 3, 3)
    a = A.numpy()
    close(fg.linalg.inv(A).numpy(), np.linalg.inv(a))
    close(fg.linalg.det(A).numpy(), np.linalg.det(a))
    s, ld = fg.linalg.slogdet(A)
    ws, wl = np.linalg.slogdet(a)
    close(s.numpy(), ws)
    close(ld.numpy(), wl)
    assert fg.linalg.inv(A).shape == list(batch) + [3, 3]


@pytest.mark.parametrize("batch", BATCHES)
def test_solve_matches_numpy(batch):
    A, B = well(*batch, 3, 3), rnd(*batch, 3, 2)
    close(fg.linalg.solve(A, B).numpy(), np.linalg.solve(A.numpy(), B.numpy()))
    b = rnd(*batch, 3)
    want = np.linalg.solve(A.numpy(), b.numpy()[..., None])[..., 0]
    close(fg.linalg.solve(A, b).numpy(), want)


def test_solve_broadcasts_batches_and_left_false():
    A, B = well(2, 1, 3, 3), rnd(4, 3, 2)
    close(fg.linalg.solve(A, B).numpy(), np.linalg.solve(A.numpy(), B.numpy()))
    b1 = rnd(3)
    close(fg.linalg.solve(A, b1).numpy(), np.linalg.solve(A.numpy(), b1.numpy()[:, None])[..., 0])
    X = rnd(2, 3)
    A2 = well(3, 3)
    got = fg.linalg.solve(A2, X, left=False).numpy()
    close(got @ A2.numpy(), X.numpy())


@pytest.mark.parametrize("batch", BATCHES)
def test_cholesky_matches_numpy(batch):
    A = spd(*batch, 4)
    close(fg.linalg.cholesky(A).numpy(), np.linalg.cholesky(A.numpy()))
    close(
        fg.linalg.cholesky(A, upper=True).numpy(),
        np.swapaxes(np.linalg.cholesky(A.numpy()), -1, -2),
    )


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("m,n", [(4, 3), (3, 3), (3, 5), (4, 0), (0, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_reconstructs_and_is_orthonormal(batch, m, n, mode):
    A = rnd(*batch, m, n)
    Q, R = fg.linalg.qr(A, mode)
    q, r = Q.numpy(), R.numpy()
    wq, wr = np.linalg.qr(A.numpy(), mode)
    assert q.shape == wq.shape and r.shape == wr.shape
    close(q @ r, A.numpy())
    k = q.shape[-1]
    close(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)))
    close(np.tril(r, -1), np.zeros_like(r))
    # up to the signs of R's rows, it is LAPACK's factorization
    kk = min(m, n)
    if kk:
        sgn = np.sign(
            np.diagonal(r, axis1=-2, axis2=-1)[..., :kk]
            * np.diagonal(wr, axis1=-2, axis2=-1)[..., :kk]
        )
        close(r[..., :kk, :] * sgn[..., :, None], wr[..., :kk, :])


def test_qr_mode_r():
    A = rnd(4, 3)
    Q, R = fg.linalg.qr(A, mode="r")
    assert Q.numel() == 0
    close(np.abs(R.numpy()), np.abs(np.linalg.qr(A.numpy(), "r")))


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("UPLO", ["L", "U"])
def test_eigh_matches_numpy(batch, UPLO):
    A = rnd(*batch, 4, 4)
    a = A.numpy()
    w, V = fg.linalg.eigh(A, UPLO)
    ww, wv = np.linalg.eigh(a, UPLO)
    close(w.numpy(), ww)
    # eigenvectors up to sign: |v^T w| = 1 column by column
    dots = np.abs(np.sum(V.numpy() * wv, axis=-2))
    close(dots, np.ones_like(dots), tol=1e-8)
    close(fg.linalg.eigvalsh(A, UPLO).numpy(), ww)


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("m,n", [(4, 3), (3, 3), (2, 5), (3, 0)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_matches_numpy(batch, m, n, full):
    A = rnd(*batch, m, n)
    U, S, Vh = fg.linalg.svd(A, full_matrices=full)
    wu, ws, wvh = np.linalg.svd(A.numpy(), full_matrices=full)
    assert U.shape == list(wu.shape) and S.shape == list(ws.shape) and Vh.shape == list(wvh.shape)
    close(S.numpy(), ws)
    k = min(m, n)
    u, vh = U.numpy()[..., :, :k], Vh.numpy()[..., :k, :]
    close((u * S.numpy()[..., None, :]) @ vh, A.numpy())
    close(fg.linalg.svdvals(A).numpy(), ws)


def test_pinv_lstsq_matrix_power_rank_cond():
    A = rnd(5, 3)
    a = A.numpy()
    close(fg.linalg.pinv(A).numpy(), np.linalg.pinv(a))
    B = rnd(5, 2)
    sol, res, rank, sv = fg.linalg.lstsq(A, B, driver="gelsd")
    wsol, wres, wrank, wsv = np.linalg.lstsq(a, B.numpy(), rcond=None)
    close(sol.numpy(), wsol)
    close(res.numpy(), wres)
    assert rank.item() == wrank
    close(sv.numpy(), wsv)
    sq = well(2, 3, 3)
    for p in (0, 1, 2, 5, -1, -3):
        close(fg.linalg.matrix_power(sq, p).numpy(), np.linalg.matrix_power(sq.numpy(), p))
    low = fg.tensor(np.outer([1.0, 2, 3], [1.0, 0, 1]))
    assert fg.linalg.matrix_rank(low).item() == 1
    close(fg.linalg.pinv(low).numpy(), np.linalg.pinv(low.numpy()))
    for p in (None, 2, -2, "fro", "nuc", 1, np.inf):
        close(fg.linalg.cond(sq, p).numpy(), np.linalg.cond(sq.numpy(), p), tol=1e-9)


def test_logdet_and_top_level_names():
    A = well(3, 3)
    a = A.numpy()
    close(fg.logdet(A).item(), np.log(np.linalg.det(a)))
    neg = fg.tensor(np.diag([-1.0, 2.0]))
    assert np.isnan(fg.logdet(neg).item())
    close(fg.inverse(A).numpy(), np.linalg.inv(a))
    close(A.inverse().numpy(), np.linalg.inv(a))
    close(A.det().item(), np.linalg.det(a))
    close(fg.det(A).item(), np.linalg.det(a))
    U, S, V = fg.svd(A)
    close((U.numpy() * S.numpy()) @ V.numpy().T, a)
    Q, R = fg.qr(A)
    close(Q.numpy() @ R.numpy(), a)
    close(fg.cholesky(spd(3) * 1).numpy().shape, (3, 3))
    close(fg.pinverse(A).numpy(), np.linalg.pinv(a))
    close(A.matrix_power(2).numpy(), a @ a)


def test_paddle_dialect_names():
    import ferrograd as paddle

    x = paddle.to_tensor(np.eye(3) * 2.0)
    close(paddle.linalg.inv(x=x).numpy(), np.eye(3) / 2)
    close(paddle.inverse(x).numpy(), np.eye(3) / 2)
    close(
        paddle.linalg.solve(x=x, y=paddle.to_tensor(np.ones((3, 1)))).numpy(), np.ones((3, 1)) / 2
    )
    close(paddle.linalg.det(x).item(), 8.0)
    close(paddle.linalg.cholesky(x, upper=False).numpy(), np.eye(3) * np.sqrt(2))
    w, _ = paddle.linalg.eigh(x, UPLO="U")
    close(w.numpy(), [2.0, 2.0, 2.0])
    close(paddle.linalg.svd(x, full_matrices=False)[1].numpy(), [2.0, 2.0, 2.0])
    close(paddle.linalg.pinv(x, rcond=1e-15).numpy(), np.eye(3) / 2)
    close(paddle.linalg.matrix_power(x, -1).numpy(), np.eye(3) / 2)
    close(paddle.linalg.multi_dot([x, x, x]).numpy(), np.eye(3) * 8)


def test_float32_inputs_stay_float32():
    A = well(3, 3).astype(fg.float32)
    for out in (fg.linalg.inv(A), fg.linalg.det(A), fg.linalg.eigh(sym(A))[0], fg.linalg.svd(A)[1]):
        assert out.dtype == fg.float32
    close(fg.linalg.inv(A).numpy(), np.linalg.inv(A.numpy()), tol=1e-5)


# ---- degenerate cases and errors --------------------------------------------------------


def test_singular_matrix():
    s = fg.tensor(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(LinAlgError, match="singular"):
        fg.linalg.inv(s)
    with pytest.raises(RuntimeError, match="singular"):  # LinAlgError is a RuntimeError
        fg.linalg.solve(s, fg.tensor(np.ones(2)))
    assert fg.linalg.det(s).item() == 0.0
    sign, logabs = fg.linalg.slogdet(s)
    assert sign.item() == 0.0 and logabs.item() == -np.inf
    batch = fg.tensor(np.stack([np.eye(2), s.numpy()]))
    with pytest.raises(LinAlgError, match="batch index 1"):
        fg.linalg.inv(batch)


def test_cholesky_not_positive_definite():
    with pytest.raises(LinAlgError, match="not positive-definite"):
        fg.linalg.cholesky(fg.tensor(np.array([[1.0, 2.0], [2.0, 1.0]])))


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: fg.linalg.inv(rnd(2, 3)), ValueError, "square"),
        (lambda: fg.linalg.det(rnd(3)), ValueError, "at least 2"),
        (lambda: fg.linalg.inv(fg.tensor([[1, 0], [0, 1]])), TypeError, "float32 or float64"),
        (lambda: fg.linalg.solve(well(3, 3), rnd(4, 2)), ValueError, "needs B"),
        (lambda: fg.linalg.solve(well(2, 3, 3), rnd(4, 3, 1)), ValueError, "broadcast"),
        (lambda: fg.linalg.qr(rnd(3, 3), "bad"), ValueError, "mode"),
        (lambda: fg.linalg.eigh(rnd(3, 3), "X"), ValueError, "UPLO"),
        (lambda: fg.linalg.matrix_power(rnd(3, 3), 1.5), TypeError, "int"),
        (lambda: fg.linalg.inv(), TypeError, "missing"),
        (lambda: fg.linalg.inv(rnd(2, 2), x=rnd(2, 2)), TypeError, "twice"),
        (lambda: fg.linalg.solve(well(3, 3), rnd(3).astype(fg.float32)), TypeError, "dtype"),
    ],
)
def test_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---- gradients --------------------------------------------------------------------------


def _gg(fn, *inputs):
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_grad_inv_det_slogdet_solve(batch):
    A = well(*batch, 3, 3, grad=True)
    _gg(fg.linalg.inv, A)
    _gg(fg.linalg.det, A)
    _gg(lambda a: fg.linalg.slogdet(a)[1], A)
    _gg(fg.logdet, A)
    B = rnd(*batch, 3, 2, grad=True)
    _gg(fg.linalg.solve, A, B)
    b = rnd(3, grad=True)
    _gg(fg.linalg.solve, A, b)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_grad_cholesky(batch):
    A = spd(*batch, 3, grad=True)
    _gg(lambda a: fg.linalg.cholesky(sym(a)), A)
    _gg(lambda a: fg.linalg.cholesky(sym(a), upper=True), A)


@pytest.mark.parametrize("m,n", [(4, 3), (3, 3), (3, 5)])
def test_grad_qr(m, n):
    A = rnd(2, m, n, grad=True)
    _gg(lambda a: fg.linalg.qr(a)[0], A)
    _gg(lambda a: fg.linalg.qr(a)[1], A)
    _gg(lambda a: fg.linalg.qr(a), A)


def test_grad_qr_complete_tall_is_an_error():
    A = rnd(4, 3, grad=True)
    Q, R = fg.linalg.qr(A, "complete")
    with pytest.raises(RuntimeError, match="not differentiable"):
        Q.sum().backward()


def test_grad_eigh():
    A = rnd(2, 4, 4, grad=True)
    _gg(lambda a: fg.linalg.eigh(sym(a))[0], A)
    # eigenvectors are defined up to sign: compare a sign-invariant function of them, as
    # torch's own tests do (the finite differences would jump where the sign flips)
    _gg(lambda a: fg.linalg.eigh(sym(a))[1].abs(), A)
    _gg(lambda a: fg.linalg.eigvalsh(sym(a), "U"), A)


def test_eigvalsh_grad_at_repeated_eigenvalues_is_finite():
    A = fg.tensor(np.eye(3) * 2.0, requires_grad=True)
    fg.linalg.eigvalsh(A).sum().backward()
    close(A.grad.numpy(), np.eye(3))


@pytest.mark.parametrize("m,n", [(4, 3), (3, 3), (3, 5)])
def test_grad_svd(m, n):
    A = rnd(m, n, grad=True)
    _gg(lambda a: fg.linalg.svdvals(a), A)

    # singular vectors are defined up to sign (pairs of columns of U and rows of Vh flip
    # together): compare sign-invariant functions of them, as torch's own tests do
    def usv(a, full):
        U, S, Vh = fg.linalg.svd(a, full_matrices=full)
        k = min(m, n)
        return U[..., :, :k].abs(), S, Vh[..., :k, :].abs()

    _gg(lambda a: usv(a, False), A)
    # full_matrices=True: only the first min(m, n) columns carry gradient (as torch)
    _gg(lambda a: usv(a, True), A)
    # a gauge-invariant product of the vectors
    _gg(
        lambda a: (
            fg.linalg.svd(a, full_matrices=False)[0] @ fg.linalg.svd(a, full_matrices=False)[2]
        ),
        A,
    )


def test_grad_pinv_lstsq_matrix_power_norms():
    A = rnd(4, 3, grad=True)
    _gg(fg.linalg.pinv, A)
    B = rnd(4, 2, grad=True)
    _gg(lambda a, b: fg.linalg.lstsq(a, b).solution, A, B)
    S = well(3, 3, grad=True)
    _gg(lambda s: fg.linalg.matrix_power(s, 3), S)
    _gg(lambda s: fg.linalg.matrix_power(s, -2), S)
    _gg(lambda s: fg.linalg.cond(s), S)


def test_det_gradient_at_a_singular_matrix_is_the_adjugate():
    A = fg.tensor(np.array([[1.0, 2.0], [2.0, 4.0]]), requires_grad=True)
    fg.linalg.det(A).backward()
    close(A.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]])
    B = fg.tensor(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), requires_grad=True)
    fg.linalg.det(B).backward()
    b = B.detach().numpy()
    adj_t = np.array(
        [
            [np.linalg.det(np.delete(np.delete(b, i, 0), j, 1)) * (-1) ** (i + j) for j in range(3)]
            for i in range(3)
        ]
    )
    close(B.grad.numpy(), adj_t)


def test_missing_linalg_names_say_so():
    from ferrograd._missing import peer_names

    names = peer_names("ferrograd.linalg")
    assert names
    for name in names:
        assert name not in vars(fg.linalg)
        with pytest.raises(AttributeError, match=f"has no attribute '{name}'.*does not implement"):
            getattr(fg.linalg, name)
    with pytest.raises(AttributeError, match="^module 'ferrograd.linalg' has no attribute 'nope'$"):
        fg.linalg.nope  # noqa: B018


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:

    @settings(max_examples=30, deadline=None)
    @given(st.integers(0, 3), st.integers(0, 5), st.integers(0, 4), st.integers(0, 10**6))
    def test_random_shapes_match_numpy(batch, m, n, seed):
        rng = np.random.default_rng(seed)
        sq = rng.standard_normal((batch, m, m)) * 0.3 + 2.0 * np.eye(m)
        close(fg.linalg.inv(fg.tensor(sq)).numpy(), np.linalg.inv(sq))
        close(fg.linalg.det(fg.tensor(sq)).numpy(), np.linalg.det(sq))
        a = rng.standard_normal((batch, m, n))
        close(fg.linalg.svdvals(fg.tensor(a)).numpy(), np.linalg.svd(a, compute_uv=False))
        s = a @ np.swapaxes(a, -1, -2)
        close(fg.linalg.eigvalsh(fg.tensor(s)).numpy(), np.linalg.eigvalsh(s))
        Q, R = fg.linalg.qr(fg.tensor(a))
        close(Q.numpy() @ R.numpy(), a)
