"""linalg.eig / linalg.eigvals of general real matrices: complex results against NumPy
(A V = V diag(w), the eigenvalues as a set), normalization, batching, both dialects'
spellings, non-finite input, and gradcheck / gradgradcheck of phase-invariant losses."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(31)


def t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def sorted_c(w):
    return np.sort_complex(np.asarray(w))


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (1, 1)])
def test_eig_matches_numpy(shape):
    A = RNG.standard_normal(shape)
    w, V = fg.linalg.eig(t(A))
    assert w.dtype == fg.complex128 and V.dtype == fg.complex128
    assert w.shape == list(shape[:-1]) and V.shape == list(shape)
    wn, Vn = w.numpy(), V.numpy()
    np.testing.assert_allclose(A @ Vn, Vn * wn[..., None, :], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(Vn, axis=-2), 1.0, atol=1e-12)
    flat_w = wn.reshape(-1, shape[-1])
    for i, a in enumerate(A.reshape(-1, *shape[-2:])):
        np.testing.assert_allclose(sorted_c(flat_w[i]), sorted_c(np.linalg.eigvals(a)), atol=1e-10)
    wv = fg.linalg.eigvals(t(A))
    np.testing.assert_allclose(
        np.sort_complex(wv.numpy().reshape(-1)), np.sort_complex(wn.reshape(-1)), atol=1e-10
    )


def test_eig_float32_paddle_names_and_rotation():
    R = np.array([[0.0, -2.0], [2.0, 0.0]])
    w = fg.linalg.eigvals(x=t(R).float())
    assert w.dtype == fg.complex64
    np.testing.assert_allclose(sorted_c(w.numpy()), [-2j, 2j], atol=1e-6)
    w, V = fg.linalg.eig(x=t(R))
    assert np.abs(V.numpy().imag).max() > 0.1  # complex eigenvectors
    assert fg.linalg.eig(fg.zeros([3, 0, 0], dtype=fg.float64)).eigenvectors.shape == [3, 0, 0]


def test_eig_errors():
    with pytest.raises(RuntimeError, match="NaN or inf"):
        fg.linalg.eig(t([[np.inf, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        fg.linalg.eigvals(t(np.ones((2, 3))))
    with pytest.raises(TypeError):
        fg.linalg.eig(fg.tensor(np.eye(2, dtype=np.int64)))


def _gap_matrix(n, complex_pair=True):
    """A real matrix with well-separated eigenvalues (a complex pair when asked)."""
    D = np.diag(np.arange(1.0, n + 1) * 1.5)
    if complex_pair:
        D[0, 1], D[1, 0] = 1.0, -1.0
    Q = np.linalg.qr(RNG.standard_normal((n, n)))[0] + 0.5 * np.eye(n)
    return Q @ D @ np.linalg.inv(Q)


@pytest.mark.parametrize("pair", [False, True])
def test_eig_gradients_match_finite_differences(pair):
    A = t(_gap_matrix(4, pair), True)

    def vals(a):
        w = fg.linalg.eigvals(a)
        return w.real, w.imag

    def vecs(a):
        w, V = fg.linalg.eig(a)
        return (V * V.conj()).real, (w * w).real

    assert gradcheck(vals, (A,))
    assert gradcheck(vecs, (A,))
    assert gradgradcheck(vals, (A,))


def test_eigvals_gradient_is_the_trace_rule():
    # d sum(w) / dA = I (the trace)
    A = t(_gap_matrix(3), True)
    fg.linalg.eigvals(A).real.sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), np.eye(3), atol=1e-10)
