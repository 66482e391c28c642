"""Differential fuzzer for linear algebra (``fg.linalg.*`` and the top-level names)
against numpy.linalg / scipy.linalg on random batched shapes (0-2 batch dims, size-0
batches, 0x0 and 1x1 matrices where NumPy allows them), random views (transposed,
reversed/stepped slices of a larger buffer), well- and ill-conditioned matrices, in
float64 and float32. What is unique is compared: singular values, sorted eigenvalues,
reconstructions (``Q R = A``, ``U S Vh = A``, ``L Lᵀ = A``, ``P L U = A``), residuals of
solutions, never sign-ambiguous factors. Tolerances scale with the dtype's epsilon, the
size, the magnitudes and the condition number. Gradients are checked with
``ferrograd.autograd.gradcheck`` (and ``gradgradcheck`` where cheap) on small float64
inputs away from singular points. Singular inputs to ``inv``/``solve``/``cholesky`` must
raise an Exception (``LinAlgError``), as torch. The bugs found are pinned by the
regression tests at the end. Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
import scipy.linalg as sla
from ferrograd.autograd import gradcheck, gradgradcheck
from fuzz_support import CALLS, FLOATS, FUZZ, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

LA = fg.linalg
EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}
batches = st.lists(st.integers(0, 3), min_size=0, max_size=2).map(tuple)


def rng_of(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))


def as_view(data, a, dtype):
    """A ferrograd tensor equal to `a` (cast to `dtype`) seen through a random view."""
    a = np.asarray(a, dtype=dtype)
    kind = data.draw(st.sampled_from(["plain", "transposed", "sliced"]))
    nd = a.ndim
    if kind == "transposed" and nd >= 2:
        perm = list(range(nd))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return fg.tensor(a.transpose(perm).copy(), dtype=dtype).permute(*perm)
    if kind == "sliced" and nd >= 1:
        big = np.zeros(tuple(max(2 * d - 1, 0) for d in a.shape), dtype=dtype)
        idx = tuple(slice(None, None, -2) for _ in a.shape)
        big[idx] = a
        return fg.tensor(big, dtype=dtype)[idx]
    return fg.tensor(a.copy(), dtype=dtype)


def conditioned(rng, batch, m, n, cond):
    """float64 `batch + (m, n)` matrices `U diag(s) Vᵀ`, s from 1 down to 1/`cond`."""
    k = min(m, n)
    u = np.linalg.qr(rng.standard_normal(batch + (m, m)))[0]
    v = np.linalg.qr(rng.standard_normal(batch + (n, n)))[0]
    s = np.sort(np.logspace(0, -np.log10(cond), k) if k > 1 else np.ones(k))[::-1]
    s = s * rng.uniform(0.5, 2.0)
    mid = np.zeros(batch + (m, n))
    mid[..., range(k), range(k)] = s
    return u @ mid @ np.swapaxes(v, -1, -2)


def draw_matrix(data, dtype, square=True, spd=False, lo=0):
    """(`a` float64 as stored in `dtype`, tensor, condition bound) of a random shape."""
    rng = rng_of(data)
    batch = data.draw(batches)
    m = data.draw(st.integers(lo, 4))
    n = m if square else data.draw(st.integers(lo, 4))
    cond = data.draw(st.sampled_from([1.0, 10.0, 1e3] + ([1e6] if dtype == "float64" else [])))
    a = conditioned(rng, batch, m, n, cond)
    if spd:
        a = a @ np.swapaxes(a, -1, -2)
        a = (a + np.swapaxes(a, -1, -2)) / 2
        cond = cond**2
    a = a.astype(dtype).astype(np.float64)
    return a, as_view(data, a, dtype), cond


def close(got, want, dtype, scale=1.0, what=""):
    """`got` (tensor or array) within `scale` * eps * 100 of `want`, relative to max|want|."""
    g = np.asarray(got.numpy() if hasattr(got, "numpy") else got, dtype=np.complex128)
    w = np.asarray(want, dtype=np.complex128)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    mag = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    tol = 100 * EPS[dtype] * scale * mag
    err = float(np.abs(g - w).max()) if w.size else 0.0
    assert err <= tol, f"{what}: max error {err:.3g} > {tol:.3g}\n{g}\n{w}"


def mT(x):
    return np.swapaxes(x, -1, -2)


def orthonormal(q, dtype, what):
    """The columns of `q` (a batch) are orthonormal."""
    q = np.asarray(q, dtype=np.complex128)
    eye = np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2)
    close(mT(q).conj() @ q, eye, dtype, 10 * (q.shape[-2] + 1), what)


@FUZZ
@given(st.sampled_from(FLOATS), st.data())
def test_inv_det_slogdet_solve(dtype, data):
    a, t, cond = draw_matrix(data, dtype)
    n = a.shape[-1]
    k = n + 1
    CALLS["inv/det/solve"] += 4
    inv = LA.inv(t)
    assert inv.dtype.name == dtype
    eye = np.broadcast_to(np.eye(n), a.shape)
    close(a @ inv.numpy().astype(np.float64), eye, dtype, k * cond, "A inv(A)")
    close(LA.det(t), np.linalg.det(a), dtype, k * cond, "det")
    sign, logabs = LA.slogdet(t)
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.numpy(), ws)
    close(logabs, wl, dtype, k * cond, "slogdet")
    rhs = data.draw(st.sampled_from(["matrix", "vector", "batched_vector", "left_false"]))
    rng = rng_of(data)
    b = rng.standard_normal(a.shape[:-2][1:] + (n, 2))
    if rhs == "matrix" and b.shape == a.shape[:-1]:
        rhs = "batched_vector"  # torch's rule: B of shape A.shape[:-1] is a batch of vectors
    if rhs == "vector":
        b = rng.standard_normal(n)
        x = LA.solve(t, as_view(data, b, dtype)).numpy()
        res = (a @ x[..., None])[..., 0] - b
    elif rhs == "batched_vector":
        b = rng.standard_normal(a.shape[:-1])
        x = LA.solve(t, as_view(data, b, dtype)).numpy()
        res = (a @ x[..., None])[..., 0] - b
    elif rhs == "left_false":
        b = rng.standard_normal(a.shape[:-2] + (2, n))
        x = LA.solve(t, as_view(data, b, dtype), left=False).numpy()
        res = x @ a - b
    else:
        x = LA.solve(t, as_view(data, b, dtype)).numpy()
        res = a @ x - b
    assert x.dtype == np.dtype(dtype)
    # backward stable: the residual is eps * |A| |x|, whatever the condition
    scale = max(1.0, float(np.abs(x).max())) if x.size else 1.0
    close(res, np.zeros_like(res), dtype, k * scale, f"solve {rhs}")


@FUZZ
@given(st.sampled_from(FLOATS), st.booleans(), st.data())
def test_cholesky_family(dtype, upper, data):
    a, t, cond = draw_matrix(data, dtype, spd=True)
    n = a.shape[-1]
    CALLS["cholesky"] += 4
    f = LA.cholesky(t, upper=upper).numpy().astype(np.float64)
    assert np.allclose(f, np.triu(f) if upper else np.tril(f))
    close(mT(f) @ f if upper else f @ mT(f), a, dtype, n + 1, "cholesky reconstruction")
    L = np.linalg.cholesky(a)
    fac = as_view(data, mT(L) if upper else L, dtype)
    b = rng_of(data).standard_normal(a.shape[:-1] + (2,))
    x = fg.cholesky_solve(as_view(data, b, dtype), fac, upper).numpy()
    scale = max(1.0, float(np.abs(x).max())) if x.size else 1.0
    close(a @ x - b, np.zeros_like(b), dtype, (n + 1) * scale * np.sqrt(cond), "cholesky_solve")
    ci = fg.cholesky_inverse(fac, upper).numpy()
    close(ci, np.linalg.inv(a), dtype, (n + 1) * cond, "cholesky_inverse")
    info = LA.cholesky_ex(t)[1].numpy()
    assert (info == 0).all()


@FUZZ
@given(st.sampled_from(FLOATS), st.sampled_from(["reduced", "complete", "r"]), st.data())
def test_qr(dtype, mode, data):
    shape = data.draw(batches) + (data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4)))
    a, t = data.draw(viewed(dtype, shape, special=False, lo=-2.0, hi=2.0))
    a = np.asarray(a, dtype=np.float64)
    m, n = a.shape[-2:]
    CALLS["qr"] += 1
    q, r = LA.qr(t, mode=mode)
    wq, wr = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    assert r.numpy().shape == wr.shape and r.dtype.name == dtype
    rr = r.numpy().astype(np.float64)
    assert np.array_equal(rr, np.triu(rr))
    k = min(m, n)
    sv = np.linalg.svd(a[..., :k], compute_uv=False) if a.size else np.ones(1)
    if (sv.min(axis=-1, initial=1) > 1e-2).all():
        # with independent leading columns R is unique up to the signs of its rows
        # (rank deficient: not unique, torch's docs say so too)
        close(np.abs(rr), np.abs(wr), dtype, 100, "|R|")
    if mode == "r":
        assert q.numpy().size == 0
        return
    qq = q.numpy().astype(np.float64)
    assert qq.shape == wq.shape
    orthonormal(qq, dtype, "QᵀQ")
    close(qq @ rr, a, dtype, 10, "QR")


@FUZZ
@given(st.sampled_from(FLOATS), st.booleans(), st.data())
def test_svd_svdvals_pinv_rank(dtype, full, data):
    a, t, cond = draw_matrix(data, dtype, square=False)
    m, n = a.shape[-2:]
    CALLS["svd"] += 4
    ws = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (min(m, n),))
    close(LA.svdvals(t), ws, dtype, 10, "svdvals")
    u, s, vh = LA.svd(t, full_matrices=full)
    k = min(m, n)
    assert u.numpy().shape == a.shape[:-2] + (m, m if full else k)
    assert vh.numpy().shape == a.shape[:-2] + (n if full else k, n)
    close(s, ws, dtype, 10, "svd S")
    uu, vv = u.numpy()[..., :k].astype(np.float64), vh.numpy()[..., :k, :].astype(np.float64)
    close((uu * s.numpy()[..., None, :]) @ vv, a, dtype, 10, "U S Vh")
    orthonormal(u.numpy(), dtype, "UᵀU")
    orthonormal(mT(vh.numpy()), dtype, "V Vᵀ")
    # rank: the drawn singular values span [1/cond, 2]: no value near the threshold
    rank = LA.matrix_rank(t).numpy()
    want = (
        (ws > (ws[..., :1] if k else 0) * max(m, n) * EPS[dtype]).sum(-1)
        if k
        else np.zeros(a.shape[:-2])
    )
    np.testing.assert_array_equal(rank, want)
    close(
        LA.pinv(t),
        np.linalg.pinv(a) if a.size else np.zeros(a.shape[:-2] + (n, m)),
        dtype,
        10 * cond,
        "pinv",
    )


@FUZZ
@given(st.sampled_from(FLOATS), st.sampled_from(["L", "U"]), st.data())
def test_eigh_eigvalsh(dtype, uplo, data):
    shape = data.draw(batches) + (data.draw(st.integers(0, 4)),) * 2
    a, t = data.draw(viewed(dtype, shape, special=False, lo=-2.0, hi=2.0))
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[-1]
    CALLS["eigh"] += 2
    # only the UPLO triangle is read: the matrix is deliberately not symmetric
    tri = np.tril(a) if uplo == "L" else np.triu(a)
    sym = tri + mT(tri) - a * np.eye(n) if n else tri
    wl = np.linalg.eigvalsh(sym) if a.size else np.zeros(a.shape[:-1])
    close(LA.eigvalsh(t, UPLO=uplo), wl, dtype, 10 * (n + 1), "eigvalsh")
    w, v = LA.eigh(t, UPLO=uplo)
    close(w, wl, dtype, 10 * (n + 1), "eigh values")
    vv = v.numpy().astype(np.float64)
    close(sym @ vv, vv * w.numpy()[..., None, :], dtype, 10 * (n + 1), "A v = λ v")
    orthonormal(vv, dtype, "VᵀV")


def match(got, want):
    """`got` eigenvalues reordered to pair with `want` (each row of a batch)."""
    if got.size == 0:
        return got
    g, w = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
    out = np.empty_like(g)
    for i in range(len(g)):
        r, c = linear_sum_assignment(np.abs(w[i][:, None] - g[i][None, :]))
        out[i][r] = g[i][c]
    return out.reshape(got.shape)


@FUZZ
@given(st.sampled_from(FLOATS), st.data())
def test_eig_eigvals(dtype, data):
    shape = data.draw(batches) + (data.draw(st.integers(0, 4)),) * 2
    a, t = data.draw(viewed(dtype, shape, special=False, lo=-2.0, hi=2.0))
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[-1]
    wl, wv = np.linalg.eig(a) if a.size else (np.zeros(a.shape[:-1]), a)
    # eigenvalue sensitivity is 1/|yᴴx|: keep the eigenvector basis well conditioned
    # and the eigenvalues apart (a defective multiple one moves by sqrt(eps))
    gaps = np.abs(wl[..., :, None] - wl[..., None, :]) + np.eye(n) * 9
    assume(not a.size or (np.linalg.cond(wv).max() < 1e3 and gaps.min() > 1e-2))
    scale = (np.linalg.cond(wv).max() if a.size else 1) * 10 * (n + 1)
    CALLS["eig"] += 2
    ev = LA.eigvals(t)
    assert ev.dtype.name == ("complex64" if dtype == "float32" else "complex128")
    close(match(ev.numpy(), wl), wl, dtype, scale, "eigvals")
    w, v = LA.eig(t)
    vv = v.numpy().astype(np.complex128)
    close(a @ vv, vv * w.numpy()[..., None, :], dtype, scale, "A v = λ v")
    if a.size:
        np.testing.assert_allclose(np.linalg.norm(vv, axis=-2), 1, rtol=1e3 * EPS[dtype])


@FUZZ
@given(st.sampled_from(FLOATS), st.data())
def test_lstsq(dtype, data):
    # full column rank tall/square A: the solution is unique
    rng = rng_of(data)
    batch = data.draw(batches)
    n = data.draw(st.integers(1, 3))
    m = data.draw(st.integers(n, 5))
    cond = data.draw(st.sampled_from([1.0, 100.0]))
    a = conditioned(rng, batch, m, n, cond).astype(dtype).astype(np.float64)
    b = rng.standard_normal(batch + (m, 2)).astype(dtype).astype(np.float64)
    CALLS["lstsq"] += 1
    got = LA.lstsq(as_view(data, a, dtype), as_view(data, b, dtype))
    want = np.linalg.pinv(a) @ b
    scale = cond * cond * (1 + float(np.abs(want).max(initial=0)))
    close(got.solution, want, dtype, 10 * m * scale, "lstsq solution")


MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")]
VECTOR_ORDS = [2, 1, 0, 3, 0.5, 1.5, float("inf"), -float("inf"), -1, -2]


@FUZZ
@given(st.sampled_from(FLOATS), st.sampled_from(MATRIX_ORDS), st.booleans(), st.data())
def test_matrix_norm_cond(dtype, ord, keepdim, data):
    shape = data.draw(batches) + (data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)))
    a, t = data.draw(viewed(dtype, shape, special=False, lo=-4.0, hi=4.0))
    a = np.asarray(a, dtype=np.float64)
    CALLS["matrix_norm"] += 2
    want = np.linalg.norm(a, ord, axis=(-2, -1), keepdims=keepdim)
    got = LA.matrix_norm(t, ord, keepdim=keepdim)
    assert got.dtype.name == dtype
    close(got, want, dtype, 10, f"matrix_norm {ord}")
    close(LA.norm(t, ord, dim=(-2, -1), keepdim=keepdim), want, dtype, 10, f"norm {ord}")
    if a.shape[-1] == a.shape[-2] and ord in (2, "fro", 1, float("inf")):
        # cond of a well conditioned matrix (a singular one's is inf:
        # test_cond_of_singular_matrix_regression)
        b = a + 3 * a.shape[-1] * np.eye(a.shape[-1])
        CALLS["cond"] += 1
        close(LA.cond(as_view(data, b, dtype), ord), np.linalg.cond(b, ord), dtype, 100, "cond")


@FUZZ
@given(st.sampled_from(FLOATS), st.sampled_from(VECTOR_ORDS), st.booleans(), st.data())
def test_vector_norm(dtype, ord, keepdim, data):
    shape = data.draw(batches) + (data.draw(st.integers(0, 4)),)
    a, t = data.draw(viewed(dtype, shape, special=False, lo=-4.0, hi=4.0))
    a = np.asarray(a, dtype=np.float64)
    dim = data.draw(st.sampled_from([None, -1, tuple(range(a.ndim))]))
    whole = not isinstance(dim, int)
    # an empty reduction of inf / -inf / negative orders raises in torch and NumPy
    assume((a.size if whole else a.shape[-1]) or ord in (0, 1, 2, 3, 0.5, 1.5))
    CALLS["vector_norm"] += 2
    with np.errstate(divide="ignore"):
        want = np.linalg.norm(a.reshape(-1) if whole else a, ord, axis=-1, keepdims=keepdim)
    if keepdim and whole:
        want = want.reshape((1,) * a.ndim)
    close(fg.norm(t, ord, dim=dim, keepdim=keepdim), want, dtype, 10, f"norm {ord} dim={dim}")
    got = LA.vector_norm(t, ord, dim=dim, keepdim=keepdim)
    close(got, want, dtype, 10, f"vector_norm {ord} dim={dim}")


@FUZZ
@given(st.sampled_from(FLOATS), st.integers(-3, 4), st.data())
def test_matrix_power_exp(dtype, p, data):
    a, t, cond = draw_matrix(data, dtype)
    n = a.shape[-1]
    CALLS["matrix_power"] += 1
    want = np.linalg.matrix_power(a, p) if a.size else a
    close(LA.matrix_power(t, p), want, dtype, (n + 1) * 3 * cond ** max(-p, 0), f"power {p}")
    CALLS["matrix_exp"] += 1
    a2 = a * data.draw(st.sampled_from([0.1, 1.0, 3.0]))
    want = sla.expm(a2) if a.size else a2
    close(LA.matrix_exp(as_view(data, a2, dtype)), want, dtype, 100 * (n + 1), "matrix_exp")


@FUZZ
@given(st.sampled_from(FLOATS), st.booleans(), st.data())
def test_lu_family(dtype, adjoint, data):
    a, t, cond = draw_matrix(data, dtype, square=False)
    m, n = a.shape[-2:]
    CALLS["lu"] += 3
    p, lo, u = LA.lu(t)
    pp, ll, uu = (x.numpy().astype(np.float64) for x in (p, lo, u))
    assert ll.shape == a.shape[:-2] + (m, min(m, n)) and uu.shape == a.shape[:-2] + (min(m, n), n)
    assert np.array_equal(np.tril(ll), ll) and np.array_equal(np.triu(uu), uu)
    assert (np.abs(ll) <= 1 + 1e-6).all()  # partial pivoting
    close(pp @ ll @ uu, a, dtype, 10 * (n + 1), "P L U")
    lu, piv = LA.lu_factor(t)
    p2, l2, u2 = fg.lu_unpack(lu, piv)
    close(p2.numpy() @ l2.numpy() @ u2.numpy(), a, dtype, 10 * (n + 1), "lu_unpack")
    if m == n:
        b = rng_of(data).standard_normal(a.shape[:-1] + (2,))
        x = LA.lu_solve(lu, piv, as_view(data, b, dtype), adjoint=adjoint).numpy()
        scale = (n + 1) * max(1.0, float(np.abs(x).max(initial=0))) * 10
        close((mT(a) if adjoint else a) @ x - b, np.zeros_like(b), dtype, scale, "lu_solve")


@FUZZ
@given(st.sampled_from(FLOATS), st.booleans(), st.booleans(), st.booleans(), st.data())
def test_triangular_solve(dtype, upper, left, unit, data):
    rng = rng_of(data)
    batch = data.draw(batches)
    n = data.draw(st.integers(0, 4))
    # a unit-ish diagonal keeps the triangle well conditioned; the other triangle is junk
    a = rng.uniform(-0.5, 0.5, batch + (n, n)) + np.eye(n) * rng.choice([-1.5, 1.5], n)
    a = a.astype(dtype).astype(np.float64)
    tri = np.triu(a) if upper else np.tril(a)
    if unit:
        tri = tri - tri * np.eye(n) + np.eye(n)
    b = rng.standard_normal(batch + ((n, 2) if left else (2, n)))
    t, tb = as_view(data, a, dtype), as_view(data, b, dtype)
    CALLS["solve_triangular"] += 2
    x = LA.solve_triangular(t, tb, upper=upper, left=left, unitriangular=unit).numpy()
    want = np.linalg.solve(tri, b) if left else mT(np.linalg.solve(mT(tri), mT(b)))
    close(x, want, dtype, 100 * (n + 1) * (1 + np.abs(want).max(initial=0)), "solve_triangular")
    if left:
        # old torch spelling: triangular_solve(b, A) -> (solution, cloned_coefficient)
        sol, coef = fg.triangular_solve(tb, t, upper=upper, unitriangular=unit)
        close(
            sol, want, dtype, 100 * (n + 1) * (1 + np.abs(want).max(initial=0)), "triangular_solve"
        )
        close(coef, a, dtype, 0, "cloned coefficient")


@FUZZ
@given(st.sampled_from(FLOATS), st.data())
def test_products(dtype, data):
    rng = rng_of(data)
    batch = data.draw(batches)
    # cross along a random dim of size 3
    nd = len(batch) + 1
    d = data.draw(st.integers(0, nd - 1))
    shape = batch[:d] + (3,) + batch[d:]
    x, y = rng.standard_normal(shape), rng.standard_normal(shape)
    tx, ty = as_view(data, x, dtype), as_view(data, y, dtype)
    CALLS["products"] += 6
    want = np.cross(x.astype(dtype), y.astype(dtype), axis=d)
    close(LA.cross(tx, ty, dim=d), want, dtype, 10, "linalg.cross")
    close(fg.cross(tx, ty, dim=d - nd), want, dtype, 10, "cross")
    # kron of two random shapes of the same rank
    s1 = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple))
    s2 = tuple(data.draw(st.integers(0, 3)) for _ in s1)
    k1, k2 = rng.standard_normal(s1).astype(dtype), rng.standard_normal(s2).astype(dtype)
    got = fg.kron(as_view(data, k1, dtype), as_view(data, k2, dtype))
    close(got, np.kron(k1, k2), dtype, 10, "kron")
    # tensordot over the last `dims` of a and the first of b
    dims = data.draw(st.integers(0, 2))
    sa = data.draw(st.lists(st.integers(0, 3), min_size=dims, max_size=3).map(tuple))
    sb = sa[len(sa) - dims :] + tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    p, q = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    got = fg.tensordot(as_view(data, p, dtype), as_view(data, q, dtype), dims=dims)
    close(got, np.tensordot(p, q, axes=dims), dtype, 10 * (1 + sum(sa)), f"tensordot {dims}")
    # multi_dot of a chain, first/last may be vectors
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=3, max_size=5))
    mats = [rng.standard_normal(mn).astype(dtype) for mn in zip(sizes, sizes[1:])]
    if data.draw(st.booleans()):
        mats[0] = mats[0][0]
    if data.draw(st.booleans()):
        mats[-1] = mats[-1][:, 0]
    got = LA.multi_dot([as_view(data, m, dtype) for m in mats])
    close(got, np.linalg.multi_dot(mats), dtype, 100, "multi_dot")
    # vander: torch's increasing powers, and the top-level NumPy order
    # torch raises for N < 2 (the default N is the size of the last dim)
    v = rng.uniform(-1.5, 1.5, batch + (data.draw(st.integers(2, 4)),)).astype(dtype)
    N = data.draw(st.sampled_from([None, 2, 3, 5]))
    want = np.power.outer(v, np.arange(v.shape[-1] if N is None else N)).astype(np.float64)
    close(LA.vander(as_view(data, v, dtype), N=N), want, dtype, 10, "linalg.vander")
    if not batch:
        close(fg.vander(as_view(data, v, dtype), N), want[..., ::-1], dtype, 10, "vander")


@FUZZ
@given(st.sampled_from(FLOATS), st.data())
def test_householder_product(dtype, data):
    rng = rng_of(data)
    batch = data.draw(batches)
    n = data.draw(st.integers(1, 4))
    m = data.draw(st.integers(n, 5))
    k = data.draw(st.integers(0, n))
    a = rng.standard_normal(batch + (m, n)).astype(dtype)
    tau = rng.uniform(0, 2, batch + (k,)).astype(dtype)
    want = np.broadcast_to(np.eye(m), batch + (m, m)).copy()
    for i in range(k):
        v = a[..., :, i].astype(np.float64).copy()
        v[..., :i] = 0
        v[..., i] = 1
        h = np.eye(m) - tau[..., i, None, None] * v[..., :, None] * v[..., None, :]
        want = want @ h
    CALLS["householder_product"] += 1
    got = LA.householder_product(as_view(data, a, dtype), as_view(data, tau, dtype))
    close(got, want[..., :n], dtype, 100, "householder_product")


@st.composite
def einsum_case(draw):
    """(equation, operand shapes) with repeated labels, ellipsis, permuted outputs."""
    labels = draw(st.lists(st.sampled_from("abcde"), min_size=1, max_size=4, unique=True))
    size = {c: draw(st.integers(1, 3)) for c in labels}
    nops = draw(st.integers(1, 3))
    ell = draw(st.booleans())
    eshape = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    terms, shapes = [], []
    for _ in range(nops):
        term = draw(st.lists(st.sampled_from(labels), max_size=4))
        shape = [size[c] for c in term]
        if ell and draw(st.booleans()):
            # broadcast the ellipsis: drop leading dims or make some 1
            es = eshape[draw(st.integers(0, len(eshape))) :]
            es = tuple(1 if draw(st.booleans()) else s for s in es)
            pos = draw(st.integers(0, len(term)))
            term = term[:pos] + ["..."] + term[pos:]
            shape = shape[:pos] + list(es) + shape[pos:]
        terms.append("".join(term))
        shapes.append(tuple(shape))
    used = sorted(set("".join(terms).replace(".", "")))
    out = draw(st.permutations(used)).copy()
    out = out[: draw(st.integers(0, len(out)))]
    if any("..." in t for t in terms):
        out.insert(draw(st.integers(0, len(out))), "...")
    eq = ",".join(terms) + "->" + "".join(out)
    return eq, shapes


@FUZZ
@given(st.sampled_from(FLOATS), einsum_case(), st.booleans(), st.data())
def test_einsum(dtype, case, implicit, data):
    eq, shapes = case
    rng = rng_of(data)
    ops = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if implicit and "..." not in eq:
        eq = eq.split("->")[0]
    CALLS["einsum"] += 1
    want = np.einsum(eq, *[o.astype(np.float64) for o in ops])
    got = fg.einsum(eq, *[as_view(data, o, dtype) for o in ops])
    assert got.dtype.name == dtype
    close(got, want, dtype, 100, eq)


def leaf(a):
    t = fg.tensor(np.array(a, dtype=np.float64), dtype="float64")
    t.requires_grad = True
    return t


def spd(x):
    return x @ x.mT + x.shape[-1] * fg.eye(x.shape[-1], dtype="float64")


def symm(x):
    return (x + x.mT) / 2


# (function of the drawn square matrix, its second argument, cheap double backward?)
GRAD_OPS = {
    "inv": (lambda x: LA.inv(x), True),
    "det": (lambda x: LA.det(x), True),
    "slogdet": (lambda x: LA.slogdet(x)[1], True),
    "solve": (lambda x, b: LA.solve(x, b), True),
    "solve_left_false": (lambda x, b: LA.solve(x, b.mT, left=False), False),
    "cholesky": (lambda x: LA.cholesky(spd(x)), False),
    "cholesky_upper": (lambda x: LA.cholesky(spd(x), upper=True), False),
    "cholesky_solve": (lambda x, b: fg.cholesky_solve(b, LA.cholesky(spd(x))), False),
    "cholesky_inverse": (lambda x: fg.cholesky_inverse(LA.cholesky(spd(x))), False),
    "qr_R_abs": (lambda x: LA.qr(x)[0] @ LA.qr(x)[1], False),
    "qr_Q": (
        lambda x: (lambda q, r: q * fg.sign(fg.diagonal(r, 0, -2, -1)).unsqueeze(-2))(*LA.qr(x)),
        False,
    ),
    "svdvals": (lambda x: LA.svdvals(x), False),
    "svd_usv": (
        lambda x: (lambda u, s, v: (u * s.unsqueeze(-2)) @ v)(*LA.svd(x, full_matrices=False)),
        False,
    ),
    "eigvalsh": (lambda x: LA.eigvalsh(symm(x)), False),
    "eigh_proj": (lambda x: (lambda w, v: v @ (w.unsqueeze(-1) * v.mT))(*LA.eigh(symm(x))), False),
    "pinv": (lambda x: LA.pinv(x), False),
    "matrix_norm_fro": (lambda x: LA.matrix_norm(x), True),
    "matrix_norm_nuc": (lambda x: LA.matrix_norm(x, "nuc"), False),
    "matrix_norm_2": (lambda x: LA.matrix_norm(x, 2), False),
    "vector_norm_3": (lambda x: LA.vector_norm(x, 3, dim=-1), True),
    "cond": (lambda x: LA.cond(x), False),
    "matrix_power_m2": (lambda x: LA.matrix_power(x, -2), False),
    "matrix_power_3": (lambda x: LA.matrix_power(x, 3), True),
    "matrix_exp": (lambda x: LA.matrix_exp(x), False),
    "lu_solve": (lambda x, b: LA.lu_solve(*LA.lu_factor(x), b), False),
    "lu_PLU": (lambda x: (lambda p, lo, u: lo @ u)(*LA.lu(x)), False),
    "solve_triangular": (lambda x, b: LA.solve_triangular(x, b, upper=True), True),
    "householder_product": (lambda x, b: LA.householder_product(x, b[..., 0]), False),
    "lstsq": (lambda x, b: LA.lstsq(x, b).solution, False),
    "kron": (lambda x, b: fg.kron(x, b), True),
    "tensordot": (lambda x, b: fg.tensordot(x, b, dims=([x.ndim - 1], [b.ndim - 2])), True),
    "multi_dot": (lambda x, b: LA.multi_dot([b.mT, x, x, b]), True),
    "einsum": (lambda x, b: fg.einsum("...ij,...jk,...ii->...k", x, b, x), True),
}


@FUZZ
@given(st.sampled_from(sorted(GRAD_OPS)), st.data())
def test_gradcheck(name, data):
    fn, twice = GRAD_OPS[name]
    rng = rng_of(data)
    batch = data.draw(st.sampled_from([(), (2,)]))
    n = data.draw(st.integers(1, 3))
    # well conditioned, distinct singular values and eigenvalues: away from singular
    # points of every op above (diag 1.5, 2.5, 3.5 plus a small perturbation)
    a = conditioned(rng, batch, n, n, 1.0) * 0.1 + np.diag(np.arange(n) + 1.5)
    if name in ("eigvalsh", "eigh_proj"):
        a = a + rng.uniform(-0.05, 0.05, a.shape)
    b = rng.standard_normal(batch + (n, 2)) * 0.5
    x = leaf(a)
    args = (x,) if fn.__code__.co_argcount == 1 else (x, leaf(b))
    CALLS["gradcheck"] += 1
    assert gradcheck(fn, args, eps=1e-6, atol=1e-6, rtol=1e-4), name
    if twice:
        CALLS["gradgradcheck"] += 1
        assert gradgradcheck(fn, args, eps=1e-6, atol=1e-5, rtol=1e-3), name


@FUZZ
@given(st.sampled_from(FLOATS), st.data())
def test_singular_inputs_raise(dtype, data):
    rng = rng_of(data)
    batch = data.draw(st.sampled_from([(), (1,), (3,), (2, 2)]))
    n = data.draw(st.integers(1, 4))
    kind = data.draw(st.sampled_from(["zero_col", "zero", "not_pd"]))
    a = rng.standard_normal(batch + (n, n))
    if kind == "zero":
        a[...] = 0
    elif kind == "zero_col":
        col = data.draw(st.integers(0, n - 1))
        a[..., col] = 0
    else:
        a = a @ mT(a) + np.eye(n)
        a[..., n - 1, n - 1] = -1.0  # last leading minor negative: not positive-definite
    t = as_view(data, a, dtype)
    b = as_view(data, rng.standard_normal(batch + (n, 1)), dtype)
    ops = {"cholesky": lambda: LA.cholesky(t)}
    if kind != "not_pd":
        ops["inv"] = lambda: LA.inv(t)
        ops["solve"] = lambda: LA.solve(t, b)
        ops["lu_factor"] = lambda: LA.lu_factor(t)
    for name, call in ops.items():
        CALLS["singular raises"] += 1
        with pytest.raises(Exception) as info:
            out = call()
            raise AssertionError(f"{name} of a singular ({kind}) matrix returned {out}")
        assert not isinstance(info.value, AssertionError), info.value
        assert isinstance(info.value, LA.LinAlgError), f"{name}: {type(info.value)}"
    # documented: det 0, slogdet (0, -inf), also with an exactly zero pivot before the
    # last step (test_det_of_singular_matrix_regression)
    if kind != "not_pd":
        sign, logabs = LA.slogdet(t)
        assert (LA.det(t).numpy() == 0).all() and (sign.numpy() == 0).all()
        assert (logabs.numpy() == -np.inf).all()
    # the _ex variants report it in info instead
    _, inf = LA.cholesky_ex(t) if kind == "not_pd" else LA.inv_ex(t)
    assert (inf.numpy() != 0).all()


# op: (ferrograd, NumPy, the power of the scale the result scales by: "n" for det)
SCALED = {
    "svdvals": (LA.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), 1),
    "eigvalsh": (LA.eigvalsh, np.linalg.eigvalsh, 1),
    "det": (LA.det, np.linalg.det, "n"),
    "inv": (LA.inv, np.linalg.inv, -1),
    "solve": (lambda x: LA.solve(x, x[..., :1]), lambda a: np.linalg.solve(a, a[..., :1]), 0),
    "cholesky": (LA.cholesky, np.linalg.cholesky, 0.5),
    "qr_r": (lambda x: LA.qr(x, mode="r")[1].abs(), lambda a: abs(np.linalg.qr(a, mode="r")), 1),
    "matrix_norm_2": (lambda x: LA.matrix_norm(x, 2), lambda a: np.linalg.norm(a, 2, (-2, -1)), 1),
    "pinv": (LA.pinv, np.linalg.pinv, -1),
    "cond": (LA.cond, np.linalg.cond, 0),
}


@FUZZ
@given(st.sampled_from(FLOATS), st.sampled_from(sorted(SCALED)), st.integers(-30, 30), st.data())
def test_scale_equivariance(dtype, op, k, data):
    # op(s A) from op(A) for s = 2^e: exact scaling, so relative tolerances hold at any
    # magnitude (the other tests compare with an absolute floor of 1)
    e = k * (33 if dtype == "float64" else 4) * (2 if op == "cholesky" else 1)
    fi = np.finfo(dtype)
    assume(fi.minexp + 10 < e < fi.maxexp - 10)  # s A representable
    a, _, cond = draw_matrix(data, dtype, spd=op == "cholesky", lo=1)
    assume(a.size)
    n = a.shape[-1]
    fn, ref, pw = SCALED[op]
    pw = n if pw == "n" else pw
    assume(fi.minexp + 10 < e * pw < fi.maxexp - 10)  # det(s A) = s^n det(A) in range
    CALLS["scale"] += 1
    got = fn(as_view(data, a * 2.0**e, dtype)).numpy().astype(np.float64) / 2.0 ** (e * pw)
    want = ref(a)
    mag = float(np.abs(want).max())
    close(got / mag, want / mag, dtype, 10 * cond * (n + 1), f"{op} at scale 2^{e}")


# regression tests for the bugs the fuzzers above found


@pytest.mark.parametrize(
    "dtype, s", [("float64", 1e-200), ("float32", 1e-25), ("float64", 1e160), ("float32", 1e20)]
)
def test_svd_of_tiny_or_huge_matrix_regression(dtype, s):
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    # (tiny: were [3.162, 0.632], not [5.465, 0.366]; huge: LinAlgError; now scaled first)
    got = LA.svdvals(fg.tensor(a * s, dtype=dtype)).numpy() / s
    np.testing.assert_allclose(got, np.linalg.svd(a, compute_uv=False), rtol=1e-5)


@pytest.mark.parametrize("dtype, v", [("float64", 1e-310), ("float32", 1e-40)])
def test_eigh_of_subnormal_matrix_regression(dtype, v):
    a = np.full((3, 3), v, dtype=dtype)
    got = LA.eigvalsh(fg.tensor(a, dtype=dtype)).numpy()
    np.testing.assert_allclose(got, np.linalg.eigvalsh(a), atol=1e-5 * v)


@pytest.mark.parametrize("dtype", FLOATS)
def test_det_of_singular_matrix_regression(dtype):
    t = fg.tensor([[0.0, 1.0], [0.0, 2.0]], dtype=dtype)
    assert LA.det(t).item() == 0  # was NaN
    sign, logabs = LA.slogdet(t)  # was (1, NaN)
    assert (sign.item(), logabs.item()) == (0.0, -np.inf)


@pytest.mark.parametrize("p", [1, -1, float("inf"), -float("inf"), "fro", "nuc"])
def test_cond_of_singular_matrix_regression(p):
    got = LA.cond(fg.tensor([[1.0, 2.0], [2.0, 4.0]], dtype="float64"), p)
    assert got.item() == float("inf")


@pytest.mark.parametrize("p", [None, 2, 1, float("inf")])  # "fro" works
def test_cond_of_empty_matrix_regression(p):
    got = LA.cond(fg.tensor(np.zeros((2, 0, 0)), dtype="float64"), p)
    np.testing.assert_array_equal(got.numpy(), np.zeros(2))
