"""Complex64/complex128 inputs to ferrograd.linalg: values against NumPy's LAPACK
(``np.linalg``), batching, errors, and gradients under PyTorch's convention (conjugate
Wirtinger: ``z.grad = dL/dx + i dL/dy``) checked with ``autograd.gradcheck``, which
perturbs the real and imaginary parts of complex inputs separately.

Peer references: PyTorch's backward formulas for complex inputs are in
torch/csrc/autograd/FunctionsManual.cpp (``linalg_det_backward``, ``slogdet_backward``,
``cholesky_backward``, ``linalg_qr_backward``, ``linalg_eig_backward`` with
``is_hermitian``, ``svd_backward``), including the phase checks ("The eigenvectors in the
complex case are specified up to multiplication by e^{i phi}") reproduced here.
"""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

L = torch.linalg
RNG = np.random.default_rng(42)


def _c(*shape: int, dtype: type = np.complex128) -> np.ndarray:
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _herm(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


def _t(a: np.ndarray, grad: bool = False) -> torch.Tensor:
    return torch.tensor(a, requires_grad=grad)


TOL = {np.complex128: 1e-10, np.complex64: 2e-4}
DTYPES = [np.complex128, np.complex64]


@pytest.mark.parametrize("dt", DTYPES)
def test_inv_solve_det_values(dt: type) -> None:
    a, b = _c(2, 3, 4, 4, dtype=dt), _c(2, 3, 4, 2, dtype=dt)
    tol = TOL[dt]
    assert L.inv(_t(a)).dtype == (torch.complex128 if dt is np.complex128 else torch.complex64)
    np.testing.assert_allclose(L.inv(_t(a)).numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(
        L.solve(_t(a), _t(b)).numpy(), np.linalg.solve(a, b), rtol=tol, atol=tol
    )
    np.testing.assert_allclose(L.det(_t(a)).numpy(), np.linalg.det(a), rtol=tol, atol=tol)
    sign, logabs = L.slogdet(_t(a))
    s_np, l_np = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy(), s_np, rtol=tol, atol=tol)
    np.testing.assert_allclose(logabs.numpy(), l_np, rtol=tol, atol=tol)
    assert not logabs.is_complex()
    # vector right-hand side and left=False (X A = B, no conjugates)
    v = _c(4, dtype=dt)
    np.testing.assert_allclose(
        L.solve(_t(a[0, 0]), _t(v)).numpy(), np.linalg.solve(a[0, 0], v), rtol=tol, atol=tol
    )
    x = L.solve(_t(a), _t(np.swapaxes(b, -1, -2)), left=False).numpy()
    np.testing.assert_allclose(x @ a, np.swapaxes(b, -1, -2), rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("dt", DTYPES)
def test_cholesky_eigh_values(dt: type) -> None:
    h = _herm(_c(3, 4, 4)).astype(dt)
    tol = TOL[dt] * 10
    Lc = L.cholesky(_t(h)).numpy()
    np.testing.assert_allclose(Lc, np.linalg.cholesky(h), rtol=tol, atol=tol)
    U = L.cholesky(_t(h), upper=True).numpy()  # A = Uᴴ U
    np.testing.assert_allclose(np.conj(np.swapaxes(U, -1, -2)) @ U, h, rtol=tol, atol=tol)
    # only the lower triangle is read
    junk = np.tril(h) + np.triu(_c(4, 4, dtype=dt), 1)
    np.testing.assert_allclose(L.cholesky(_t(junk)).numpy(), Lc, rtol=tol, atol=tol)
    w, V = L.eigh(_t(h))
    assert not w.is_complex() and V.is_complex()
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(h), rtol=tol, atol=tol)
    Vn = V.numpy()
    np.testing.assert_allclose(h @ Vn, Vn * w.numpy()[..., None, :], rtol=tol, atol=tol)
    np.testing.assert_allclose(
        L.eigvalsh(_t(h), UPLO="U").numpy(), np.linalg.eigvalsh(h, UPLO="U"), rtol=tol, atol=tol
    )


@pytest.mark.parametrize("dt", DTYPES)
def test_eig_svd_qr_values(dt: type) -> None:
    a = _c(2, 4, 4, dtype=dt)
    tol = TOL[dt] * 10
    w, V = L.eig(_t(a))
    Vn, wn = V.numpy(), w.numpy()
    np.testing.assert_allclose(a @ Vn, Vn * wn[..., None, :], rtol=tol, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(Vn, axis=-2), 1.0, rtol=tol)
    np.testing.assert_allclose(
        np.sort_complex(L.eigvals(_t(a)).numpy().ravel()),
        np.sort_complex(np.linalg.eigvals(a).ravel()),
        rtol=tol,
        atol=tol,
    )
    for shape in [(2, 5, 3), (2, 3, 5)]:
        m = _c(*shape, dtype=dt)
        U, S, Vh = L.svd(_t(m), full_matrices=False)
        assert not S.is_complex()
        np.testing.assert_allclose(
            S.numpy(), np.linalg.svd(m, compute_uv=False), rtol=tol, atol=tol
        )
        np.testing.assert_allclose(
            (U.numpy() * S.numpy()[..., None, :]) @ Vh.numpy(), m, rtol=tol, atol=tol
        )
        np.testing.assert_allclose(L.svdvals(_t(m)).numpy(), S.numpy(), rtol=tol, atol=tol)
        Q, R = L.qr(_t(m))
        np.testing.assert_allclose(Q.numpy() @ R.numpy(), m, rtol=tol, atol=tol)
        np.testing.assert_allclose(np.triu(R.numpy()), R.numpy())
        np.testing.assert_allclose(
            L.pinv(_t(m)).numpy(), np.linalg.pinv(m), rtol=tol * 10, atol=tol * 10
        )
        assert L.matrix_rank(_t(m)).tolist() == [3, 3]
    np.testing.assert_allclose(L.cond(_t(a)).numpy(), np.linalg.cond(a), rtol=tol * 10)
    np.testing.assert_allclose(
        L.cond(_t(a), "fro").numpy(), np.linalg.cond(a, "fro"), rtol=tol * 10
    )
    np.testing.assert_allclose(
        L.matrix_norm(_t(a), "nuc").numpy(), np.linalg.norm(a, "nuc", axis=(-2, -1)), rtol=tol
    )
    np.testing.assert_allclose(
        L.vector_norm(_t(a)).numpy(), np.linalg.norm(a.reshape(-1)), rtol=tol
    )


def test_more_functions_values() -> None:
    a, b = _c(2, 4, 4), _c(2, 4, 2)
    h = _herm(a)
    x = L.lstsq(_t(_c(6, 3)), _t(_c(6, 2)))
    assert x.solution.shape == [3, 2]
    lhs, rhs = _c(6, 3), _c(6, 2)
    np.testing.assert_allclose(
        L.lstsq(_t(lhs), _t(rhs)).solution.numpy(),
        np.linalg.lstsq(lhs, rhs, rcond=None)[0],
        atol=1e-10,
    )
    up = np.triu(a)
    np.testing.assert_allclose(
        L.solve_triangular(_t(up), _t(b), upper=True).numpy(), np.linalg.solve(up, b), atol=1e-10
    )
    Lc = np.linalg.cholesky(h)
    np.testing.assert_allclose(
        torch.cholesky_solve(_t(b), _t(Lc)).numpy(), np.linalg.solve(h, b), atol=1e-10
    )
    np.testing.assert_allclose(torch.cholesky_inverse(_t(Lc)).numpy(), np.linalg.inv(h), atol=1e-10)
    np.testing.assert_allclose(
        L.matrix_power(_t(a), -2).numpy(), np.linalg.matrix_power(np.linalg.inv(a), 2), atol=1e-9
    )
    d = np.array([1 + 2j, -0.5j, 0.3])
    vecs = RNG.standard_normal((3, 3)) + 0j
    m = vecs @ np.diag(d) @ np.linalg.inv(vecs)
    expm = vecs @ np.diag(np.exp(d)) @ np.linalg.inv(vecs)
    np.testing.assert_allclose(L.matrix_exp(_t(m)).numpy(), expm, atol=1e-10)
    Y, info = L.inv_ex(_t(a))
    np.testing.assert_allclose(Y.numpy(), np.linalg.inv(a), atol=1e-10)
    assert info.tolist() == [0, 0]
    Lx, info = L.cholesky_ex(_t(h))
    np.testing.assert_allclose(Lx.numpy(), np.linalg.cholesky(h), atol=1e-10)


def test_errors() -> None:
    sing = np.array([[1, 1j], [1j, -1]])  # rank 1
    with pytest.raises(L.LinAlgError, match="singular"):
        L.inv(_t(sing))
    with pytest.raises(L.LinAlgError, match="batch index 1"):
        L.solve(_t(np.stack([np.eye(2) + 0j, sing])), _t(np.ones((2, 2, 1)) + 0j))
    assert abs(L.det(_t(sing)).item()) == 0
    sign, logabs = L.slogdet(_t(sing))
    assert sign.item() == 0 and logabs.item() == -np.inf
    with pytest.raises(L.LinAlgError, match="order 2"):
        L.cholesky(_t(np.array([[1, 2j], [-2j, 1]])))
    Y, info = L.inv_ex(_t(np.stack([np.eye(2) + 0j, sing])))
    assert info.tolist() == [0, 2] and np.isnan(Y.numpy()[1]).all()
    _, info = L.cholesky_ex(_t(np.array([[1, 2j], [-2j, 1]])))
    assert info.item() == 2
    with pytest.raises(TypeError, match="same dtype"):
        L.solve(_t(_c(2, 2)), torch.tensor(np.ones((2, 1))))
    with pytest.raises(RuntimeError, match="NaN or inf"):
        L.eig(_t(np.array([[np.nan, 0], [0, 1]]) + 0j))
    # the functions that still refuse complex say so (the LU family, householder_product
    # and ormqr take complex since; see test_linalg_complex_lu.py)
    with pytest.raises(TypeError, match="complex input is not supported"):
        L.ldl_factor(_t(_c(2, 2)))


def _gc(f, *xs: np.ndarray) -> bool:  # type: ignore[no-untyped-def]
    return gradcheck(f, [_t(x, grad=True) for x in xs], eps=1e-6, atol=1e-5, rtol=1e-3)


def _H(x: torch.Tensor) -> torch.Tensor:
    return x @ x.mH + 3 * torch.tensor(np.eye(x.shape[-1]) + 0j)


GRADS = {
    "inv": (lambda a: L.inv(a), [(2, 3, 3)]),
    "solve": (lambda a, b: L.solve(a, b), [(2, 3, 3), (2, 3, 2)]),
    "solve_left_false": (lambda a, b: L.solve(a, b.mT, left=False), [(3, 3), (3, 2)]),
    "det": (lambda a: L.det(a), [(2, 3, 3)]),
    "slogdet": (lambda a: L.slogdet(a), [(2, 3, 3)]),
    "cholesky": (lambda a: L.cholesky(_H(a)), [(2, 3, 3)]),
    "cholesky_upper": (lambda a: L.cholesky(_H(a), upper=True), [(3, 3)]),
    "qr_tall": (lambda a: L.qr(a), [(2, 4, 3)]),
    "qr_wide": (lambda a: L.qr(a), [(3, 4)]),
    "eigvalsh": (lambda a: L.eigvalsh(_H(a)), [(2, 3, 3)]),
    "eigh_invariant": (
        lambda a: (lambda w, V: (w, V.abs(), V[..., :1] @ V[..., :1].mH))(*L.eigh(_H(a))),
        [(3, 3)],
    ),
    "eigvals": (lambda a: L.eigvals(a), [(2, 3, 3)]),
    "eig_abs": (lambda a: L.eig(a)[1].abs(), [(3, 3)]),
    "svdvals": (lambda a: L.svdvals(a), [(2, 4, 3)]),
    "svd_tall": (
        lambda a: (lambda U, S, Vh: (U.abs(), S, Vh.abs(), U @ Vh))(*L.svd(a, full_matrices=False)),
        [(4, 3)],
    ),
    "svd_wide": (
        lambda a: (lambda U, S, Vh: (U.abs(), S, Vh.abs()))(*L.svd(a, full_matrices=False)),
        [(3, 4)],
    ),
    "svd_square": (lambda a: (lambda U, S, Vh: U @ Vh)(*L.svd(a)), [(2, 3, 3)]),
    "pinv": (lambda a: L.pinv(a), [(4, 3)]),
    "lstsq": (lambda a, b: L.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    "matrix_norms": (lambda a: (L.matrix_norm(a, 2), L.matrix_norm(a, "nuc"), L.norm(a)), [(3, 3)]),
    "cond": (lambda a: L.cond(a), [(3, 3)]),
    "solve_triangular": (
        lambda a, b: L.solve_triangular(a.triu() + 3 * torch.tensor(np.eye(3) + 0j), b, upper=True),
        [(3, 3), (3, 2)],
    ),
    "cholesky_solve": (lambda a, b: torch.cholesky_solve(b, L.cholesky(_H(a))), [(3, 3), (3, 2)]),
    "matrix_exp": (lambda a: L.matrix_exp(a * 0.5), [(3, 3)]),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients_complex128(name: str) -> None:
    f, shapes = GRADS[name]
    assert _gc(f, *[_c(*s) for s in shapes])


def test_gradient_of_real_loss_matches_finite_difference_by_hand() -> None:
    # PyTorch's convention, by hand: grad = dL/dRe + i dL/dIm for L = |det(A)|^2
    a = _c(3, 3)
    t = _t(a, grad=True)
    d = L.det(t)
    (d * d.conj()).real.backward()
    h = 1e-6
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        for unit in (1, 1j):
            e = np.zeros_like(a)
            e[idx] = h * unit
            f = lambda m: abs(np.linalg.det(m)) ** 2  # noqa: E731
            num[idx] += unit * (f(a + e) - f(a - e)) / (2 * h)
    np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-6, atol=1e-6)


def test_phase_dependent_losses_raise() -> None:
    # a loss that changes when an eigenvector / singular vector is multiplied by e^{iφ}
    # has no gradient: PyTorch raises, and so does ferrograd (never a silent value)
    a = _t(_c(3, 3), grad=True)
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        L.eigh(_H(a))[1].real.sum().backward()
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        L.svd(a)[0].real.sum().backward()
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        L.eig(a)[1].real.sum().backward()


def test_paddle_names_take_complex() -> None:
    a = _c(3, 3)
    np.testing.assert_allclose(L.inv(x=_t(a)).numpy(), np.linalg.inv(a), atol=1e-10)
    np.testing.assert_allclose(L.det(x=_t(a)).numpy(), np.linalg.det(a), atol=1e-10)
    np.testing.assert_allclose(torch.inverse(_t(a)).numpy(), np.linalg.inv(a), atol=1e-10)


def test_legacy_torch_svd_returns_conjugate_transposed_v() -> None:
    # torch.svd (torch/_torch_docs.py): A = U diag(S) Vᴴ, V = Vhᴴ for complex input
    a = _c(4, 3)
    U, S, V = torch.svd(_t(a))
    rebuilt = (U.numpy() * S.numpy()) @ np.conj(V.numpy()).T
    np.testing.assert_allclose(rebuilt, a, atol=1e-10)
