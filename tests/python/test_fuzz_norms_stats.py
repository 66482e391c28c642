"""Differential fuzzer for norms, distances and statistics against NumPy / SciPy:
``linalg.vector_norm`` / ``matrix_norm`` / ``norm``, ``torch.norm``, ``dist``, ``cdist``
(every compute mode), ``pdist``, ``F.pairwise_distance`` / ``cosine_similarity`` /
``normalize``, ``renorm``, ``var`` / ``std`` (complex too) / ``var_mean`` / ``std_mean``,
``cov`` / ``corrcoef``, ``logsumexp``, ``softmax`` / ``log_softmax``, ``nansum`` /
``nanmean``, ``aminmax``, ``amax`` / ``amin`` / ``max`` gradients with ties, ``mean`` /
``sum`` over empty dims, ``count_nonzero``, and the Paddle spellings (``paddle.norm``,
``paddle.var`` / ``std`` with ``unbiased``, ``paddle.dist``) called from Paddle code.

Inputs are often non-contiguous views (fuzz_support.viewed) and hold NaN, +-inf, -0.0,
huge and tiny magnitudes where the op is defined for them. Values are computed in float64
by NumPy/SciPy (float32 results compared with float32 tolerances; where float32
arithmetic over- or underflows in an intermediate that PyTorch also computes in float32,
the element is not compared); gradients by float64 gradcheck away from the
non-differentiable points, and at them the peers' subgradients (cited per test). This
module names ferrograd ``torch``, so its calls are PyTorch code; the Paddle calls run in
code whose globals name it ``paddle``. Bugs found are pinned by the regression tests at
the end. Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager

import ferrograd as torch
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.special as sps
from fuzz_support import CALLS, FUZZ, assert_scaled, elements, grad_ok, viewed
from hypothesis import assume, given
from hypothesis import strategies as st

F = torch.nn.functional
INF = math.inf
FLOATS = ["float32", "float64"]
# (rtol, atol-per-scale) of a float result
TOL = {"float32": (5e-5, 2e-6), "float64": (1e-11, 1e-13)}
F32_MAX, F32_TINY = float(np.finfo(np.float32).max), float(np.finfo(np.float32).tiny)
small = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`).
_PADDLE_SRC = """
def norm(x, **kw):
    return paddle.norm(x, **kw)

def var(x, **kw):
    return paddle.var(x, **kw)

def std(x, **kw):
    return paddle.std(x, **kw)

def dist(x, y, p):
    return paddle.dist(x, y, p)

def renorm(x, p, axis, max_norm):
    return paddle.renorm(x, p, axis, max_norm)
"""
PADDLE: dict = {"paddle": torch, "__name__": "fuzz_paddle_norms_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)  # Paddle code: `paddle = fg`


@contextmanager
def quiet():
    """NumPy's warnings (empty slices, 0/0, overflow) silenced: the values are compared."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def check(got, want, dtype, what, scale=0.0, skip=None):
    """`got` equals float64 `want` (rounded to `dtype`) up to TOL; `skip` marks elements
    not compared (their value depends on float32 over/underflow inside the op)."""
    want = np.array(want, dtype=np.float64)
    if skip is not None and np.any(skip):
        g = got.numpy().astype(np.float64)
        want = np.where(np.broadcast_to(skip, want.shape), g, want)
    assert_scaled(got, want, dtype, what, scale, TOL[dtype])


def raises(call, what, empty_ok=False):
    """The peers refuse this call: a Python exception (subclass of Exception), or with
    `empty_ok` an empty result (no value to be wrong)."""
    CALLS["refused"] += 1
    try:
        out = call()
    except Exception:
        return
    outs = out if isinstance(out, tuple) else (out,)
    if empty_ok and all(o.numel() == 0 for o in outs):
        return
    raise AssertionError(f"{what}: expected an error, got {out}")


def dims_of(data, nd, tuples=True):
    """None, one dim, or a tuple of distinct dims (negative ones too)."""
    kinds = ["none", "int", "tuple"] if nd and tuples else ["none", "int"] if nd else ["none"]
    kind = data.draw(st.sampled_from(kinds))
    if kind == "none":
        return None
    if kind == "int":
        return data.draw(st.integers(-nd, nd - 1))
    picked = data.draw(st.lists(st.integers(0, nd - 1), unique=True, min_size=1, max_size=nd))
    return tuple(d - nd if data.draw(st.booleans()) else d for d in picked)


def axes_of(dim, nd):
    """NumPy's axis tuple of `dim` (None: all)."""
    if dim is None:
        return tuple(range(nd))
    return tuple(sorted(d % nd for d in ((dim,) if isinstance(dim, int) else dim)))


def np_vnorm(a, ord, axes, keepdim=False):
    """The vector `ord`-norm of float64 `a` over `axes` (PyTorch's definition: 0 counts
    the non-zeros, NaN counting as non-zero; +-inf the max/min of |a|)."""
    x = np.abs(np.asarray(a, np.float64))
    with quiet():
        if ord == 0:
            return (np.asarray(a) != 0).sum(axis=axes, keepdims=keepdim).astype(np.float64)
        if ord == INF:
            return np.max(x, axis=axes, keepdims=keepdim)
        if ord == -INF:
            return np.min(x, axis=axes, keepdims=keepdim)
        return np.sum(x**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)


def f32_unsafe(a, ord, axes, keepdim=False):
    """Elements of a float32 `ord`-norm whose value depends on float32 over/underflow of
    `|x|^ord` or of its sum (PyTorch's CPU kernel accumulates float32 in float32)."""
    x = np.abs(np.asarray(a, np.float64))
    if ord == 1:  # only the sum can overflow
        with quiet():
            return np.sum(np.where(np.isfinite(x), x, 0.0), axis=axes, keepdims=keepdim) > F32_MAX
    if ord in (0, INF, -INF):
        return None
    with quiet():
        pw = np.where((x == 0) | ~np.isfinite(x), 1.0, x**ord)
        bad = (pw > F32_MAX / 8) | (pw < F32_TINY * 2**24)
        s = np.sum(np.where(np.isfinite(x), x**ord, 0.0), axis=axes, keepdims=keepdim)
    s_bad = (s > F32_MAX / 8) | ((s < F32_TINY * 2**24) & (s > 0))
    return bad.any(axis=axes, keepdims=keepdim) | s_bad


def empty_slice(shape, axes):
    return any(shape[d] == 0 for d in axes)


# --- vector norms ------------------------------------------------------------------------

VORDS = [0, 1, 2, INF, -INF, 0.5, 3, 1.5, -1, -2.5]


@FUZZ
@given(st.data())
def test_vector_norm_against_numpy(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(small)
    a, t = data.draw(viewed(dtype, shape))
    nd = a.ndim
    ord = data.draw(st.sampled_from(VORDS))
    dim = dims_of(data, nd)
    keepdim = data.draw(st.booleans())
    cast = data.draw(st.sampled_from([None, None, "float64"]))
    kw = {"dim": dim, "keepdim": keepdim} | ({"dtype": torch.float64} if cast else {})
    what = f"vector_norm({dtype}{list(shape)}, {ord}, {kw})"
    axes = axes_of(dim, nd)
    CALLS["vector_norm"] += 1
    if (ord == INF or ord < 0) and empty_slice(shape, axes):
        # linalg.vector_norm: "cannot compute the {ord} norm on an empty tensor because the
        # operation does not have an identity" (LinearAlgebra.cpp linalg_vector_norm)
        raises(lambda: torch.linalg.vector_norm(t, ord, **kw), what)
        return
    got = torch.linalg.vector_norm(t, ord, **kw)
    out = cast or dtype
    want = np_vnorm(a.astype(np.float64), ord, axes, keepdim)
    skip = f32_unsafe(a, ord, axes, keepdim) if out == "float32" else None
    check(got, want, out, what, skip=skip)


@FUZZ
@given(st.data())
def test_vector_norm_gradients(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    ord = data.draw(st.sampled_from([1, 2, 3, 1.5, 0.5, -2, INF, -INF]))
    # away from 0 (|x|^p is not differentiable there for p <= 1) and without ties of |x|
    n = int(np.prod(shape))
    mags = data.draw(st.lists(st.floats(0.5, 3.0), min_size=n, max_size=n, unique=True))
    mags = np.array(mags)
    assume(np.min(np.diff(np.sort(mags))) > 1e-3 if n > 1 else True)
    signs = np.array(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    a = (mags * signs).reshape(shape)
    dim = dims_of(data, a.ndim)
    keepdim = data.draw(st.booleans())
    grad_ok(lambda x: torch.linalg.vector_norm(x, ord, dim=dim, keepdim=keepdim), a)


def test_vector_norm_subgradients_at_zero_and_ties():
    """PyTorch's linalg_vector_norm_backward (FunctionsManual.cpp): 0 where the norm is 0
    (every p), 0 where x is 0 for p < 1; the inf norm splits the gradient evenly among the
    entries reaching the max (`mask / mask.sum()`), with their signs."""
    for ord in (2, 3, 1.5, 0.5, -1):
        x = torch.zeros([2, 3], dtype=torch.float64, requires_grad=True)
        torch.linalg.vector_norm(x, ord, dim=1).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)), err_msg=f"p={ord}")
    x = torch.tensor([[0.0, 3.0, -4.0]], dtype=torch.float64, requires_grad=True)
    torch.linalg.vector_norm(x, 0.5, dim=1).sum().backward()
    assert x.grad.numpy()[0, 0] == 0
    x = torch.tensor([[2.0, -2.0, 1.0], [0.5, 3.0, -3.0]], dtype=torch.float64)
    x.requires_grad = True
    torch.linalg.vector_norm(x, INF, dim=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, -0.5, 0], [0, 0.5, -0.5]])
    CALLS["subgradient"] += 7


# --- matrix norms --------------------------------------------------------------------------

MORDS = ["fro", "nuc", 1, -1, 2, -2, INF, -INF]


def np_mnorm(a, ord, r, c, keepdim=False):
    """NumPy's matrix norm of float64 `a` over dims (r, c) (batched)."""
    with quiet():
        m = np.moveaxis(a, (r, c), (-2, -1))
        if m.size == 0:
            out = np.zeros(m.shape[:-2])
        else:
            out = np.linalg.norm(m, ord, axis=(-2, -1))
    if keepdim:
        for d in sorted((r, c)):
            out = np.expand_dims(out, d)
    return out


def mnorm_refused(shape, ord, r, c):
    """PyTorch's matrix_norm has no value: amax/amin over a size-0 dim (the column sums
    of a matrix without columns for +-1, the row sums for +-inf, the singular values for
    +-2), as the OpInfo sample skips in common_methods_invocations.py note."""
    rows, cols = shape[r], shape[c]
    if ord in (1, -1):
        return cols == 0
    if ord in (INF, -INF):
        return rows == 0
    if ord in (2, -2):
        return min(rows, cols) == 0
    return False


@FUZZ
@given(st.data())
def test_matrix_norm_against_numpy(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4))
    ord = data.draw(st.sampled_from(MORDS))
    svd = ord in ("nuc", 2, -2)
    # (LAPACK's SVD of a matrix holding NaN or inf has no defined result)
    a, t = data.draw(viewed(dtype, shape, special=not svd))
    nd = a.ndim
    r, c = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2))
    assume(r % nd != c % nd)
    keepdim = data.draw(st.booleans())
    what = f"matrix_norm({dtype}{list(shape)}, {ord!r}, ({r}, {c}), keepdim={keepdim})"
    CALLS["matrix_norm"] += 1
    if mnorm_refused(shape, ord, r % nd, c % nd):
        raises(lambda: torch.linalg.matrix_norm(t, ord, (r, c), keepdim), what)
        return
    got = torch.linalg.matrix_norm(t, ord, (r, c), keepdim)
    a64 = a.astype(np.float64)
    want = np_mnorm(a64, ord, r % nd, c % nd, keepdim)
    # (the largest |a| of each matrix times its size: no squares to underflow)
    scale = np_mnorm(np.nan_to_num(a64, posinf=0, neginf=0), INF, r % nd, c % nd, keepdim)
    scale = scale * (max(shape[r], shape[c]) if min(shape[r], shape[c]) else 0)
    skip = None
    if dtype == "float32" and ord == "fro":
        skip = f32_unsafe(a, 2, tuple(sorted((r % nd, c % nd))), keepdim)
    check(got, want, dtype, what, scale=scale * (10 if svd else 1), skip=skip)


@FUZZ
@given(st.data())
def test_norm_dispatch_against_numpy(data):
    """linalg.norm's and torch.norm's choice between vector and matrix norms (PyTorch's
    torch/functional.py `norm` and torch/linalg `norm` docs): linalg.norm(ord=None,
    dim=None) is the 2-norm of all elements, with ord and dim=None a 1-D input's vector
    norm or a 2-D input's matrix norm; an int dim a vector norm, two dims a matrix norm.
    torch.norm: 'fro' is the 2-norm over dim (all), 'nuc' the nuclear norm, a number the
    vector norm over dim (even two dims)."""
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    a, t = data.draw(viewed(dtype, shape, special=False))
    if dtype == "float32" and (np.abs(a) < 1e-15).any():
        # (no squares that float32 would flush to 0: test_vector_norm covers those)
        a = np.where(np.abs(a) < 1e-15, np.float32(0), a)
        t = torch.tensor(a)
    a64, nd = a.astype(np.float64), a.ndim
    keepdim = data.draw(st.booleans())
    kind = data.draw(st.sampled_from(["linalg", "torch", "method"]))
    CALLS["norm"] += 1
    if kind == "linalg":
        form = data.draw(st.sampled_from(["none", "ord", "int", "pair"]))
        if form == "none":
            got = torch.linalg.norm(t, keepdim=keepdim)
            want = np_vnorm(a64, 2, tuple(range(nd)), keepdim)
        elif form == "ord" and nd == 1:
            o = data.draw(st.sampled_from([1, 2, INF, -INF, 0, 3]))
            got, want = torch.linalg.norm(t, o, keepdim=keepdim), np_vnorm(a64, o, (0,), keepdim)
        elif form == "ord" and nd == 2:
            o = data.draw(st.sampled_from(MORDS))
            got, want = torch.linalg.norm(t, o, keepdim=keepdim), np_mnorm(a64, o, 0, 1, keepdim)
        elif form in ("ord", "int"):
            d = data.draw(st.integers(-nd, nd - 1))
            o = data.draw(st.sampled_from([None, 1, 2, INF, 0, 0.5]))
            got = torch.linalg.norm(t, o, d, keepdim)
            want = np_vnorm(a64, 2 if o is None else o, (d % nd,), keepdim)
        else:
            assume(nd >= 2)
            r, c = data.draw(st.lists(st.integers(0, nd - 1), min_size=2, max_size=2, unique=True))
            o = data.draw(st.sampled_from([None, *MORDS]))
            got = torch.linalg.norm(t, o, (r, c), keepdim)
            want = np_mnorm(a64, "fro" if o is None else o, r, c, keepdim)
        what = f"linalg.norm({dtype}{list(shape)}, {form})"
    else:
        p = data.draw(st.sampled_from(["fro", "nuc", 1, 2, 3, INF, 0, 0.5]))
        dim = dims_of(data, nd)
        if p == "nuc":
            assume(nd == 2)
            dim = data.draw(st.sampled_from([None, (0, 1), (1, 0)]))
        elif p == "fro" and isinstance(dim, tuple):
            assume(len(dim) <= 2)
        axes = axes_of(dim, nd)
        call = torch.norm if kind == "torch" else torch.Tensor.norm
        got = call(t, p, dim, keepdim)
        if p == "nuc":
            d = (0, 1) if dim is None else dim
            want = np_mnorm(a64, "nuc", d[0], d[1], keepdim)
        else:
            want = np_vnorm(a64, 2 if p == "fro" else p, axes, keepdim)
        what = f"{kind} norm({dtype}{list(shape)}, {p!r}, {dim})"
    check(got, want, dtype, what, scale=np.max(np.abs(a64)) * a64.size)


@FUZZ
@given(st.data())
def test_matrix_norm_gradients(data):
    """gradcheck of the matrix norms at matrices with distinct singular values and no
    ties among the row/column sums (their non-differentiable points)."""
    m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    ord = data.draw(st.sampled_from(MORDS))
    a = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=m * n, max_size=m * n)))
    a = a.reshape(m, n)
    s = np.linalg.svd(a, compute_uv=False)
    assume(np.min(np.abs(a)) > 0.1)
    assume(len(s) < 2 or np.min(np.diff(s[::-1])) > 0.1)
    assume(s.min() > 0.1)
    for sums in (np.abs(a).sum(0), np.abs(a).sum(1)):
        assume(len(sums) < 2 or np.min(np.diff(np.sort(sums))) > 0.1)
    grad_ok(lambda x: torch.linalg.matrix_norm(x, ord), a)


# --- distances ---------------------------------------------------------------------------

DORDS = [0, 1, 2, INF, 0.5, 3, 1.5]


def np_pairdist(diff, p):
    """The p-norms of row differences along the last dim as cdist / pdist compute them:
    PyTorch's zdist kernel (DistanceOpsKernel.cpp `min(ceil(|d|), 1)`) makes p = 0 NaN
    where a difference is NaN."""
    if diff.shape[-1] == 0:
        return np.zeros(diff.shape[:-1])
    out = np_vnorm(diff, p, (diff.ndim - 1,))
    if p == 0:
        out = np.where(np.isnan(diff).any(-1), np.nan, out)
    return out


def np_cdist(x1, x2, p):
    """cdist of float64 batches (broadcast): the p-norms of the row differences."""
    return np_pairdist(x1[..., :, None, :] - x2[..., None, :, :], p)


@FUZZ
@given(st.data())
def test_cdist_pdist_dist_against_numpy(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    p = data.draw(st.sampled_from(DORDS))
    mode = data.draw(
        st.sampled_from(
            [
                "use_mm_for_euclid_dist_if_necessary",
                "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist",
            ]
        )
    )
    mm = p == 2 and mode == "use_mm_for_euclid_dist"
    P, R, M = (data.draw(st.integers(0, 4)) for _ in range(3))
    batch = data.draw(st.sampled_from([(), (2,), (1,)]))
    batch2 = data.draw(st.sampled_from([batch, batch[1:], (2,) if batch == (1,) else batch]))
    # (the matmul form rounds |x|^2 + |y|^2 - 2xy: no inf/NaN, which it turns into NaN)
    x1, t1 = data.draw(viewed(dtype, (*batch, P, M), special=not mm))
    x2, t2 = data.draw(viewed(dtype, (*batch2, R, M), special=not mm))
    what = f"cdist({dtype}{list(x1.shape)}, {list(x2.shape)}, p={p}, {mode})"
    CALLS["cdist"] += 1
    got = torch.cdist(t1, t2, p, compute_mode=mode)
    a64, b64 = x1.astype(np.float64), x2.astype(np.float64)
    want = np_cdist(a64, b64, p)
    skip = None
    if dtype == "float32":
        skip = f32_unsafe(a64[..., :, None, :] - b64[..., None, :, :], p, (-1,))
        skip = None if skip is None else skip.reshape(want.shape)
    if mm:
        # error of the matmul form: sqrt(eps * (|x|^2 + |y|^2)) (PyTorch's _euclidean_dist)
        n1, n2 = (a64**2).sum(-1)[..., :, None], (b64**2).sum(-1)[..., None, :]
        eps = 1e-15 if dtype == "float64" else 1e-6
        scale = np.sqrt(eps * (n1 + n2) + 1e-300) / TOL[dtype][1] * 4
        check(got, want, dtype, what, scale=scale, skip=skip)
    else:
        check(got, want, dtype, what, skip=skip)
    # pdist of x1's first matrix (PyTorch: 2-D input only) and dist of x1 and x2's rows
    m = x1.reshape(-1, P, M)[0] if x1.size else np.zeros((P, M), dtype)
    tm = torch.tensor(m, dtype=dtype)
    i, j = np.triu_indices(P, 1)
    CALLS["pdist"] += 1
    got = torch.pdist(tm, p)
    m64 = m.astype(np.float64)
    want = np_pairdist(m64[i] - m64[j], p)
    skip = f32_unsafe(m64[i] - m64[j], p, (1,)) if dtype == "float32" and M else None
    check(got, want, dtype, f"pdist({dtype}{list(m.shape)}, {p})", skip=skip)
    if x1.size and x2.size and x1.shape[-1:] == x2.shape[-1:]:
        dp = data.draw(st.sampled_from([*DORDS, -INF, -1]))
        y = x2.reshape(-1, R, M)[0][-1:] if R else x2.reshape(-1)[:0]
        ty = torch.tensor(y, dtype=dtype)
        assume(np.broadcast_shapes(x1.shape, y.shape) == x1.shape)
        diff = a64 - y.astype(np.float64)
        CALLS["dist"] += 1
        wd = f"dist({dtype}{list(x1.shape)}, {list(y.shape)}, {dp})"
        if dp < 0 or dp == INF:
            assume(diff.size)
        got = torch.dist(t1, ty, dp)
        skip = f32_unsafe(diff, dp, None) if dtype == "float32" else None
        check(got, np_vnorm(diff, dp, None), dtype, wd, skip=skip)


@FUZZ
@given(st.data())
def test_distance_gradients(data):
    """gradcheck of cdist / pdist / dist / pairwise_distance / cosine_similarity /
    normalize / renorm at points where no distance, coordinate difference or norm is 0 and
    the inf norm has no ties."""
    name = data.draw(
        st.sampled_from(["cdist", "pdist", "dist", "pairwise", "cosine", "normalize", "renorm"])
    )
    p = data.draw(st.sampled_from([1, 2, 3, 1.5, INF]))
    P, R, M = (data.draw(st.integers(1, 3)) for _ in range(3))
    k = (P + R) * M
    vals = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=k, max_size=k, unique=True)))
    a, b = vals[: P * M].reshape(P, M), vals[P * M :].reshape(R, M)
    d = np.abs(a[:, None, :] - b[None, :, :])
    assume(d.min() > 0.05 and np.abs(vals).min() > 0.05)
    if p == INF:
        # no ties for the max: the largest two differences at least 0.05 apart
        for rows in (d, np.abs(a[:, None, :] - a[None, :, :])):
            s = np.sort(rows.reshape(-1, M), axis=-1)
            assume(M == 1 or np.min(s[:, -1] - s[:, -2]) > 0.05)
    CALLS[f"grad {name}"] += 1
    if name == "cdist":
        grad_ok(lambda x, y: torch.cdist(x, y, p), a, b)
    elif name == "pdist":
        assume(P >= 2 and (p != INF or M == 1))
        grad_ok(lambda x: torch.pdist(x, p), a)
    elif name == "dist":
        grad_ok(lambda x, y: torch.dist(x, y, p), a, b[:1])
    elif name == "pairwise":
        grad_ok(lambda x, y: F.pairwise_distance(x, y, p), a, b[:1])
    elif name == "cosine":
        grad_ok(lambda x, y: F.cosine_similarity(x, y, dim=-1), a, b[:1])
    elif name == "normalize":
        grad_ok(lambda x: F.normalize(x, p=p, dim=-1), a)
    else:
        assume(P >= 2 and M >= 2 and p != INF)
        norms = np_vnorm(a, p, (1,))
        maxnorm = float(np.median(norms))
        assume(np.min(np.abs(norms - maxnorm)) > 0.05)
        grad_ok(lambda x: torch.renorm(x, p, 0, maxnorm), a)


def pw_ref(x1, x2, p, eps, keepdim):
    """PyTorch's pairwise_distance (Distance.cpp): norm(x1 - x2 + eps, p, last dim)."""
    diff = x1 - x2 + eps
    if diff.ndim == 0:
        return np_vnorm(diff, p, None)
    return np_vnorm(diff, p, (diff.ndim - 1,), keepdim)


def cos_ref(x1, x2, dim, eps):
    """PyTorch 2.x's cosine_similarity (Distance.cpp): each side divided by its 2-norm
    clamped to eps, then the sum of the products."""
    a, b = np.broadcast_arrays(x1, x2)
    with quiet():
        na = np.maximum(np.sqrt(np.sum(a * a, axis=dim, keepdims=True)), eps)
        nb = np.maximum(np.sqrt(np.sum(b * b, axis=dim, keepdims=True)), eps)
        return np.sum((a / na) * (b / nb), axis=dim)


@FUZZ
@given(st.data())
def test_pairwise_cosine_normalize_against_formula(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    name = data.draw(st.sampled_from(["pairwise", "cosine", "normalize"]))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x1, t1 = data.draw(viewed(dtype, shape))
    # the second operand: the same shape, or one broadcast against it
    shape2 = data.draw(st.sampled_from([shape, shape[1:], (1,) * len(shape)]))
    x2, t2 = data.draw(viewed(dtype, shape2))
    a, b = x1.astype(np.float64), x2.astype(np.float64)
    nd = len(shape)
    CALLS[name] += 1
    if name == "pairwise":
        p = data.draw(st.sampled_from(DORDS))
        eps = data.draw(st.sampled_from([1e-6, 0.0, 0.5]))
        keepdim = data.draw(st.booleans())
        got = F.pairwise_distance(t1, t2, p, eps, keepdim)
        with quiet():
            diff = (a - b + eps).astype(dtype).astype(np.float64)
        want = pw_ref(a, b, p, eps, keepdim)
        skip = f32_unsafe(diff, p, (nd - 1,), keepdim) if dtype == "float32" else None
        check(
            got,
            want,
            dtype,
            f"pairwise_distance({list(shape)}, {list(shape2)}, {p}, {eps})",
            skip=skip,
        )
    elif name == "cosine":
        dim = data.draw(st.integers(-nd, nd - 1))
        eps = data.draw(st.sampled_from([1e-8, 0.5]))
        got = F.cosine_similarity(t1, t2, dim, eps)
        want = cos_ref(a, b, dim, eps)
        aa, bb = np.broadcast_arrays(a, b)
        skip = None
        if dtype == "float32":
            skip = f32_unsafe(aa, 2, (dim % nd,)) | f32_unsafe(bb, 2, (dim % nd,))
        check(
            got,
            want,
            dtype,
            f"cosine_similarity({list(shape)}, {list(shape2)}, {dim}, {eps})",
            scale=1.0,
            skip=skip,
        )
    else:
        p = data.draw(st.sampled_from([1, 2, INF, 0.5, 3]))
        dim = data.draw(st.integers(-nd, nd - 1))
        eps = data.draw(st.sampled_from([1e-12, 0.5]))
        got = F.normalize(t1, p, dim, eps)
        with quiet():
            want = a / np.maximum(np_vnorm(a, p, (dim % nd,), True), eps)
        skip = None
        if dtype == "float32":
            skip = np.broadcast_to(f32_unsafe(a, p, (dim % nd,), True), shape)
        check(
            got, want, dtype, f"normalize({list(shape)}, {p}, {dim}, {eps})", scale=1.0, skip=skip
        )


def renorm_ref(a, p, dim, maxnorm):
    """PyTorch's renorm (Normalization.cpp renorm_out / renorm_scale_factor): each slice
    along `dim` times maxnorm / (norm + 1e-7) where its p-norm exceeds maxnorm."""
    others = tuple(i for i in range(a.ndim) if i != dim)
    n = np_vnorm(a, p, others, True)
    with quiet():
        return a * np.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0), n


@FUZZ
@given(st.data())
def test_renorm_against_formula(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4))
    a, t = data.draw(viewed(dtype, shape, special=data.draw(st.booleans())))
    p = data.draw(st.sampled_from([1, 2, 3, 0.5, INF]))
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    maxnorm = data.draw(st.sampled_from([0.0, 0.5, 1.0, 5.0, 100.0]))
    what = f"renorm({dtype}{list(shape)}, {p}, {dim}, {maxnorm})"
    CALLS["renorm"] += 1
    got = torch.renorm(t, p, dim, maxnorm)
    a64 = a.astype(np.float64)
    want, n = renorm_ref(a64, p, dim % a.ndim, maxnorm)
    skip = None
    if dtype == "float32":
        others = tuple(i for i in range(a.ndim) if i != dim % a.ndim)
        unsafe = f32_unsafe(a, p, others, True)
        skip = None if unsafe is None else np.broadcast_to(unsafe, shape)
    # a slice whose norm is within rounding of maxnorm may go either way
    near = np.broadcast_to(np.abs(n - maxnorm) <= 1e-4 * maxnorm + 1e-30, shape)
    skip = near if skip is None else skip | near
    check(got, want, dtype, what, scale=np.abs(np.nan_to_num(a64, posinf=0, neginf=0)), skip=skip)


# --- variance, covariance ----------------------------------------------------------------


def np_var(a, axes, correction, keepdim):
    """Variance of `a` over `axes` (PyTorch's: mean |x - mean|^2 times n / max(0, n - c);
    complex input gives a real result)."""
    with quiet():
        m = np.mean(a, axis=axes, keepdims=True)
        s = np.sum(np.abs(a - m) ** 2, axis=axes, keepdims=keepdim)
        n = int(np.prod([a.shape[d] for d in axes]))
        return s / max(0.0, n - correction), np.mean(a, axis=axes, keepdims=keepdim)


CDTYPES = ["float32", "float64", "complex64", "complex128"]
REAL_OF = {"complex64": "float32", "complex128": "float64"}


def complex_viewed(data, dtype, shape):
    """A complex array and tensor (real and imaginary parts drawn as float views)."""
    part = "float32" if dtype == "complex64" else "float64"
    re, _ = data.draw(viewed(part, shape))
    im = np.array(data.draw(hnp.arrays(part, shape, elements=elements(part))))
    a = (re + 1j * im).astype(dtype)
    t = torch.tensor(np.array(a))  # (ascontiguousarray makes a 0-d array 1-d)
    if a.ndim >= 2 and data.draw(st.booleans()):
        return a, t.transpose(0, 1).contiguous().transpose(0, 1)
    return a, t


@FUZZ
@given(st.data())
def test_var_std_against_numpy(data):
    dtype = data.draw(st.sampled_from(CDTYPES))
    shape = data.draw(small)
    if dtype in REAL_OF:
        a, t = complex_viewed(data, dtype, shape)
    else:
        a, t = data.draw(viewed(dtype, shape))
    nd = a.ndim
    dim = dims_of(data, nd)
    keepdim = data.draw(st.booleans())
    form = data.draw(st.sampled_from(["correction", "unbiased", "default"]))
    kw: dict = {"keepdim": keepdim}
    corr = 1
    if form == "correction":
        corr = data.draw(st.sampled_from([0, 1, 2]))
        kw["correction"] = corr
    elif form == "unbiased":
        unbiased = data.draw(st.booleans())
        kw["unbiased"], corr = unbiased, int(unbiased)
    name = data.draw(st.sampled_from(["var", "std", "var_mean", "std_mean"]))
    what = f"{name}({dtype}{list(shape)}, dim={dim}, {kw})"
    axes = axes_of(dim, nd)
    wide = a.astype(np.complex128 if dtype in REAL_OF else np.float64)
    v, m = np_var(wide, axes, corr, keepdim)
    out = REAL_OF.get(dtype, dtype)
    mag = np.abs(np.nan_to_num(wide, posinf=0, neginf=0))
    scale = np.max(mag) ** 2 if mag.size else 0.0
    CALLS["var/std"] += 1
    got = getattr(torch, name)(t, dim, **kw)
    val = got[0] if name.endswith("_mean") else got
    skip = None
    if out == "float32":  # a float32 square beyond float32's range
        with quiet():
            skip = np.broadcast_to(np.max(mag, initial=0.0) > 1e18, np.shape(v))
    if name.startswith("std"):
        with quiet():
            check(val, np.sqrt(v), out, what, scale=np.sqrt(scale), skip=skip)
    else:
        check(val, v, out, what, scale=scale, skip=skip)
    if name.endswith("_mean"):
        mean = got[1]
        assert mean.dtype.name == dtype, f"{what}: mean dtype {mean.dtype.name}"
        mw = np.asarray(m)
        g = mean.numpy()
        assert g.shape == mw.shape, what
        for part in (np.real, np.imag):
            gp, wp = part(g).astype(np.float64), part(mw)
            assert (np.isnan(gp) == np.isnan(wp)).all(), f"{what}: mean NaN\n{g}\n{mw}"
            fin = np.isfinite(wp)
            np.testing.assert_allclose(
                gp[fin],
                wp[fin],
                rtol=TOL[out][0],
                atol=np.max(mag, initial=0) * TOL[out][1] + 1e-30,
            )


@FUZZ
@given(st.data())
def test_var_std_gradients(data):
    """gradcheck of var / std / var_mean / std_mean; at a constant slice std's gradient is
    0 (PyTorch's std_backward: `(grad / (result * 2)).masked_fill_(result == 0, 0)`,
    FunctionsManual.cpp)."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    a = data.draw(hnp.arrays("float64", shape, elements=st.floats(-3, 3)))
    dim = dims_of(data, a.ndim)
    corr = data.draw(st.sampled_from([0, 1]))
    axes = axes_of(dim, a.ndim)
    n = int(np.prod([a.shape[d] for d in axes]))
    assume(n - corr > 0)
    name = data.draw(st.sampled_from(["var", "std", "var_mean", "std_mean"]))
    if name.startswith("std"):
        assume(np.min(np.std(a, axis=axes)) > 0.05)
    fn = getattr(torch, name)
    if name.endswith("_mean"):
        grad_ok(lambda x: fn(x, dim, correction=corr), a)
    else:
        grad_ok(lambda x: fn(x, dim, correction=corr), a, second=True)
    # std of a constant slice: a zero gradient (n > correction)
    x = torch.ones([3, 2], dtype=torch.float64, requires_grad=True)
    torch.std(x, 0, correction=corr).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.zeros((3, 2))), f"std at 0: {x.grad.numpy()}"


@FUZZ
@given(st.data())
def test_cov_corrcoef_against_numpy(data):
    dtype = data.draw(st.sampled_from(["float32", "float64", "complex128"]))
    nv, no = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 5))
    rank = data.draw(st.sampled_from([1, 2, 2]))
    shape = (nv, no) if rank == 2 else (no,)
    if dtype == "complex128":
        a, t = complex_viewed(data, dtype, shape)
    else:
        a, t = data.draw(viewed(dtype, shape, special=data.draw(st.booleans())))
    corr = data.draw(st.sampled_from([0, 1, 2]))
    fw = data.draw(st.sampled_from([None, "fw"]))
    aw = data.draw(st.sampled_from([None, "aw"]))
    kw: dict = {"correction": corr}
    npkw: dict = {"ddof": corr}
    if fw:
        f = np.array(data.draw(st.lists(st.integers(0, 3), min_size=no, max_size=no)))
        kw["fweights"], npkw["fweights"] = torch.tensor(f), f
    if aw:
        # in the input's real dtype (PyTorch would promote a float32 input to float64)
        wdt = "float32" if dtype == "float32" else "float64"
        w = np.array(data.draw(st.lists(st.floats(0.0, 4.0), min_size=no, max_size=no)), wdt)
        kw["aweights"], npkw["aweights"] = torch.tensor(w, dtype=wdt), w.astype(np.float64)
    what = f"cov({dtype}{list(shape)}, {kw})"
    CALLS["cov"] += 1
    wts = npkw.get("fweights", np.ones(no)) * npkw.get("aweights", np.ones(no))
    if (fw or aw) and wts.sum() == 0:
        # Correlation.cpp cov: "cov(): weights sum to zero, can't be normalized"
        raises(lambda: torch.cov(t, **kw), what)
        return
    fact = wts.sum() - corr * (np.sum(wts * npkw["aweights"]) / wts.sum() if aw else 1)
    if aw and corr:
        # a factor w_sum - c * sum(w * a) / w_sum within rounding of 0: either side of it
        assume(abs(fact) > 1e-9 * wts.sum())
    # (complex / 0 is inf or NaN by the division's formula: no value to compare)
    assume(dtype != "complex128" or fact > 0)
    got = torch.cov(t, **kw)
    wide = a.astype(np.complex128 if dtype == "complex128" else np.float64)
    with quiet():
        want = np.cov(wide, **npkw)  # (squeezed, as PyTorch's `.squeeze()`)
    assert got.numpy().shape == np.shape(want), f"{what}: shape {got.numpy().shape}"
    mag = np.abs(np.nan_to_num(wide, posinf=0, neginf=0))
    assume(not (dtype != "float64" and np.max(mag) > 1e15))  # float32/complex: squares overflow
    scale = np.max(mag) ** 2 * max(
        1.0, np.max(npkw.get("aweights", 1.0)) * np.max(npkw.get("fweights", 1))
    )
    if dtype == "complex128":
        for part in (np.real, np.imag):
            g, w = part(got.numpy()), part(want)
            assert (np.isnan(g) == np.isnan(w)).all(), f"{what}\n{got.numpy()}\n{want}"
            fin = np.isfinite(w)
            np.testing.assert_allclose(g[fin], w[fin], rtol=1e-10, atol=1e-11 * scale + 1e-300)
        return
    skip = None
    if fact > 0:  # the rounding of the sums is divided by the factor
        scale = scale * max(1.0, wts.sum() / fact)
    else:
        # a zero covariance over a zero factor is NaN, a rounded one +-inf: either
        with quiet():
            c0 = np.cov(wide, **(npkw | {"ddof": 0}))
        skip = np.abs(c0) <= 1e-5 * scale
    check(got, want, dtype, what, scale=scale, skip=skip)
    if not fw and not aw and corr == 1:
        CALLS["corrcoef"] += 1
        got = torch.corrcoef(t)
        with quiet():
            want = np.corrcoef(wide)
        check(got, want, dtype, f"corrcoef({dtype}{list(shape)})", scale=1.0)


# --- logsumexp, softmax ------------------------------------------------------------------


def softmax_ref(a, dim, log):
    """PyTorch's CPU softmax / log_softmax (SoftMaxKernel.cpp `_vec_softmax_lastdim`,
    `_vec_log_softmax_lastdim`): shifted by the row max, unmasked, so a row holding +inf
    or only -inf is NaN throughout."""
    with quiet():
        m = np.max(a, axis=dim, keepdims=True)
        z = a - m
        s = np.sum(np.exp(z), axis=dim, keepdims=True)
        return z - np.log(s) if log else np.exp(z) / s


@FUZZ
@given(st.data())
def test_logsumexp_softmax_against_reference(data):
    dtype = data.draw(st.sampled_from(["float32", "float64", "int32"]))
    shape = data.draw(small)
    a, t = data.draw(viewed(dtype, shape, lo=-30.0, hi=30.0))
    if dtype == "int32":
        a, t = np.clip(a, -50, 50), t.clip(-50, 50)
    out = "float32" if dtype == "int32" else dtype
    a64 = a.astype(np.float64)
    nd = a.ndim
    name = data.draw(st.sampled_from(["logsumexp", "softmax", "log_softmax"]))
    CALLS[name] += 1
    if name == "logsumexp":
        dim = dims_of(data, nd)
        dim = 0 if dim is None else dim
        keepdim = data.draw(st.booleans())
        got = torch.logsumexp(t, dim, keepdim)
        axes = axes_of(dim, max(nd, 1)) if nd else None
        with quiet():
            if nd == 0:
                want = a64  # one element: itself
            elif a64.size == 0:
                want = np.log(np.sum(np.exp(a64), axis=axes, keepdims=keepdim))
            else:
                want = sps.logsumexp(a64, axis=axes, keepdims=keepdim)
        what = f"logsumexp({dtype}{list(shape)}, {dim}, {keepdim})"
        # (log of a float32 sum >= 1: an absolute error of its rounding)
        check(got, want, out, what, scale=1 + np.abs(np.nan_to_num(want, posinf=0, neginf=0)))
        return
    dim = data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))
    got = getattr(torch, name)(t, dim)
    if a.size == 0:
        check(got, np.zeros(a.shape), out, f"{name} of an empty tensor")
        return
    want = softmax_ref(np.atleast_1d(a64), dim, name == "log_softmax").reshape(a.shape)
    what = f"{name}({dtype}{list(shape)}, {dim})"
    check(got, want, out, what, scale=1.0)


# --- NaN-ignoring and selecting reductions ----------------------------------------------


@FUZZ
@given(st.data())
def test_nan_reductions_and_counts_against_numpy(data):
    dtype = data.draw(st.sampled_from(["float32", "float64", "int64"]))
    shape = data.draw(small)
    a, t = data.draw(viewed(dtype, shape))
    nd = a.ndim
    name = data.draw(
        st.sampled_from(["nansum", "nanmean", "aminmax", "mean", "sum", "count_nonzero", "amax"])
    )
    dim = dims_of(data, nd, tuples=name != "aminmax")
    keepdim = data.draw(st.booleans())
    axes = axes_of(dim, nd) if nd else None
    what = f"{name}({dtype}{list(shape)}, {dim}, {keepdim})"
    CALLS[name] += 1
    if name in ("nanmean", "mean"):
        assume(dtype != "int64")  # PyTorch: floating input only
    if name == "count_nonzero":
        got = torch.count_nonzero(t, dim)
        want = np.count_nonzero(a, axis=axes)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=what)
        assert got.dtype.name == "int64"
        return
    if name in ("aminmax", "amax"):
        if axes is None or dim is None:
            empty = a.size == 0
        else:
            empty = empty_slice(shape, axes)
        if empty:
            # amax/aminmax: "Expected reduction dim to have non-zero size" only when a
            # reduced dim is empty (ReduceOpsUtils.h zero_numel_check_dims)
            f = (
                (lambda: torch.aminmax(t, dim=dim, keepdim=keepdim))
                if name == "aminmax"
                else (lambda: torch.amax(t, () if dim is None else dim, keepdim))
            )
            raises(f, what, empty_ok=True)
            return
        with quiet():
            lo = np.min(a, axis=axes, keepdims=keepdim)
            hi = np.max(a, axis=axes, keepdims=keepdim)
        if name == "amax":
            got = torch.amax(t, () if dim is None else dim, keepdim)
            check_exact(got, hi, dtype, what)
            return
        kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
        if dim is None:
            lo, hi = np.min(a), np.max(a)
        mn, mx = torch.aminmax(t, **kw)
        check_exact(mn, lo, dtype, what + " min")
        check_exact(mx, hi, dtype, what + " max")
        return
    fn = getattr(torch, name)
    got = fn(t, dim, keepdim) if dim is not None else fn(t)
    with quiet():
        ref = {"nansum": np.nansum, "nanmean": np.nanmean, "mean": np.mean, "sum": np.sum}[name]
        kdim = keepdim if dim is not None else False
        want = ref(a.astype(np.float64) if dtype != "int64" else a, axis=axes, keepdims=kdim)
    if dtype == "int64":
        np.testing.assert_array_equal(got.numpy(), want, err_msg=what)
        assert got.dtype.name == "int64", what
        return
    mag = np.abs(np.nan_to_num(a.astype(np.float64), nan=0, posinf=0, neginf=0))
    scale = np.sum(mag, axis=axes, keepdims=kdim) if mag.size else 0.0
    skip = None
    if dtype == "float32":  # a float32 partial sum past float32's range
        skip = np.broadcast_to(np.max(mag, initial=0) > 1e37, np.shape(want))
    check(got, want, dtype, what, scale=scale, skip=skip)


def check_exact(got, want, dtype, what):
    """Selections: the exact value (NaN where NaN)."""
    g, w = got.numpy(), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}"
    if g.dtype.kind == "f":
        assert (np.isnan(g) == np.isnan(w)).all(), f"{what}\n{g}\n{w}"
        g, w = g[~np.isnan(g)], w[~np.isnan(w)]
    np.testing.assert_array_equal(g, w, err_msg=what)


@FUZZ
@given(st.data())
def test_amax_amin_max_gradients_with_ties(data):
    """amax/amin (and aminmax, max() / min() without a dim) spread the gradient evenly
    among the tied extremes (PyTorch's derivatives.yaml: amax/amin use
    `scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(
    result, dim, keepdim) == self, dim)`, max()/min() `evenly_distribute_backward`);
    max(dim) / min(dim) send it to the one index they return."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    a = data.draw(hnp.arrays("float64", shape, elements=st.sampled_from([-1.0, 0.0, 2.0, 2.0])))
    w = data.draw(hnp.arrays("float64", shape, elements=st.floats(0.5, 2.0)))
    nd = a.ndim
    name = data.draw(st.sampled_from(["amax", "amin", "aminmax", "max", "min", "max_dim"]))
    x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    CALLS[f"ties {name}"] += 1
    if name == "max_dim":
        d = data.draw(st.integers(-nd, nd - 1))
        vals, idx = torch.max(x, d, keepdim=True)
        g = np.array(data.draw(hnp.arrays("float64", vals.shape, elements=st.floats(0.5, 2))))
        vals.backward(torch.tensor(g, dtype=torch.float64))
        want = np.zeros_like(a)
        np.put_along_axis(want, idx.numpy(), g, d % nd)
        np.testing.assert_allclose(x.grad.numpy(), want, err_msg=f"max(dim={d})")
        assert (np.take_along_axis(a, idx.numpy(), d % nd) == a.max(d % nd, keepdims=True)).all()
        return
    if name in ("max", "min"):
        dim = None
        out = getattr(torch, name)(x)
    else:
        dim = dims_of(data, nd)
        if name == "aminmax":
            dim = None if dim is None else (dim if isinstance(dim, int) else dim[0])
            kw = {} if dim is None else {"dim": dim, "keepdim": True}
            out = torch.aminmax(x, **kw)[data.draw(st.integers(0, 1))]
        else:
            out = getattr(torch, name)(x, () if dim is None else dim, True)
    axes = axes_of(dim, nd)
    # the weight of each output: sum over the reduced dims of w, as one gradient value
    gout = np.sum(w, axis=axes, keepdims=True)
    (out * torch.tensor(gout.reshape(out.shape), dtype=torch.float64)).sum().backward()
    ext = out.detach().numpy().reshape(gout.shape)
    mask = a == ext
    want = gout * mask / mask.sum(axis=axes, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), want, err_msg=f"{name} dim={dim}")


# --- Paddle spellings --------------------------------------------------------------------


@FUZZ
@given(st.data())
def test_paddle_spellings_against_numpy(data):
    """paddle.norm (p='fro' / numbers, axis int / list / None), paddle.var / paddle.std
    with `unbiased` (Paddle's stat.py: the divisor is n - 1 where n > 1, else 1),
    paddle.dist and paddle.renorm, called from Paddle code."""
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    a, t = data.draw(viewed(dtype, shape, special=data.draw(st.booleans())))
    a64, nd = a.astype(np.float64), a.ndim
    name = data.draw(st.sampled_from(["norm", "var", "std", "dist"]))
    keepdim = data.draw(st.booleans())
    CALLS[f"paddle {name}"] += 1
    if name == "norm":
        p = data.draw(st.sampled_from(["fro", 1, 2, 3, INF, -INF, 0, 0.5]))
        axis = data.draw(st.sampled_from([None, "int", "list1", "list2"]))
        if axis == "list2":
            assume(nd >= 2 and p in ("fro", 1, 2, INF, -INF))
            ax = data.draw(st.lists(st.integers(0, nd - 1), min_size=2, max_size=2, unique=True))
            assume(p not in (2, -2) or np.isfinite(a64).all())  # (LAPACK: no NaN/inf)
            got = PADDLE["norm"](t, p=p, axis=ax, keepdim=keepdim)
            want = np_mnorm(a64, p, ax[0], ax[1], keepdim)
            scale = np.max(np.abs(np.nan_to_num(a64, posinf=0, neginf=0))) * a64.size
            check(got, want, dtype, f"paddle.norm({list(shape)}, {p!r}, {ax})", scale=scale)
            return
        if axis is None:
            axes, kw = tuple(range(nd)), {}
        else:
            d = data.draw(st.integers(-nd, nd - 1))
            axes, kw = (d % nd,), {"axis": d if axis == "int" else [d]}
        if p in (INF, -INF) and empty_slice(shape, axes):
            return
        got = PADDLE["norm"](t, p=p, keepdim=keepdim, **kw)
        o = 2 if p == "fro" else p
        want = np_vnorm(a64, o, axes, keepdim)
        skip = f32_unsafe(a, o, axes, keepdim) if dtype == "float32" else None
        check(got, want, dtype, f"paddle.norm({list(shape)}, {p!r}, {kw})", skip=skip)
    elif name in ("var", "std"):
        axis = dims_of(data, nd)
        unbiased = data.draw(st.booleans())
        kw = {"unbiased": unbiased, "keepdim": keepdim}
        if axis is not None:
            kw["axis"] = list(axis) if isinstance(axis, tuple) else axis
        axes = axes_of(axis, nd)
        n = int(np.prod([shape[d] for d in axes]))
        # Paddle: divide by n - 1 where n > 1, else by 1 (no NaN for one element)
        corr = (1 if n > 1 else n - 1) if unbiased else 0
        v, _ = np_var(a64, axes, corr, keepdim)
        mag = np.abs(np.nan_to_num(a64, posinf=0, neginf=0))
        assume(dtype == "float64" or np.max(mag) < 1e18)
        got = PADDLE[name](t, **kw)
        with quiet():
            want = np.sqrt(v) if name == "std" else v
        sc = np.max(mag) ** (1 if name == "std" else 2)
        check(got, want, dtype, f"paddle.{name}({dtype}{list(shape)}, {kw})", scale=sc)
    else:
        p = data.draw(st.sampled_from([0, 1, 2, 3, INF, -INF, 0.5]))
        y, ty = data.draw(viewed(dtype, shape[1:], special=False))
        diff = a64 - y.astype(np.float64)
        got = PADDLE["dist"](t, ty, p)
        skip = f32_unsafe(diff, p, None) if dtype == "float32" else None
        check(got, np_vnorm(diff, p, None), dtype, f"paddle.dist({list(shape)}, {p})", skip=skip)


# --- regressions -------------------------------------------------------------------------


def test_vector_norm_negative_ord_on_empty_slice_regression():
    """A negative ord over an empty slice has no identity: PyTorch refuses it
    (LinearAlgebra.cpp linalg_vector_norm: "cannot compute the -1 norm on an empty
    tensor"); ferrograd gave inf. Over a non-empty dim of an empty tensor: empty."""
    with pytest.raises(ValueError, match="empty slice"):
        torch.linalg.vector_norm(torch.zeros([0, 3]), -1, dim=0)
    assert torch.linalg.vector_norm(torch.zeros([0, 3]), -1, dim=1).shape == (0,)


def test_matrix_norm_empty_matrices_regression():
    """PyTorch's matrix_norm is amax/amin of the column sums (1), row sums (inf) or
    singular values (2): a (0, 3) matrix has 1-norm 0 and a (3, 0) one inf-norm 0; only an
    empty max/min is refused (ferrograd refused all, and ord=2 with an IndexError)."""
    assert torch.linalg.matrix_norm(torch.zeros([0, 3]), 1).item() == 0
    assert torch.linalg.matrix_norm(torch.zeros([3, 0]), -INF).item() == 0
    for shape, ord in (([3, 0], 1), ([0, 3], INF), ([0, 3], 2), ([2, 0], -2)):
        with pytest.raises(ValueError, match="not defined"):
            torch.linalg.matrix_norm(torch.zeros(shape), ord)


def test_matrix_norm_2_tied_singular_values_gradient_regression():
    """matrix_norm(A, 2) is amax(svdvals(A)) in PyTorch, so tied largest singular values
    share the gradient (I: 0.5 I); ferrograd took s[0] (gradient [[1, 0], [0, 0]])."""
    x = torch.eye(2, dtype=torch.float64)
    x.requires_grad = True
    torch.linalg.matrix_norm(x, 2).backward()
    np.testing.assert_allclose(x.grad.numpy(), 0.5 * np.eye(2), atol=1e-12)


def test_var_std_of_complex_input_is_real_regression():
    """var/std of complex input: the real mean of |x - mean|^2 (PyTorch), float32 for
    complex64; ferrograd squared the complex deviations (var([1+2j, 3-1j, 2+2j]) gave a
    complex number)."""
    a = np.array([[1 + 2j, 3 - 1j], [0j, 2 + 2j]], np.complex64)
    t = torch.tensor(a)
    v = torch.var(t)
    assert v.dtype.name == "float32"
    np.testing.assert_allclose(v.numpy(), np.var(a, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(torch.std(t, 1).numpy(), np.std(a, axis=1, ddof=1), rtol=1e-6)
    vm, m = torch.var_mean(t, 0)
    np.testing.assert_allclose(vm.numpy(), np.var(a, axis=0, ddof=1), rtol=1e-6)
    assert m.dtype.name == "complex64"


def test_std_gradient_at_a_constant_slice_regression():
    """PyTorch's std_backward masks the gradient to 0 where the std is 0
    (FunctionsManual.cpp: `(grad / (result * 2)).masked_fill_(result == 0, 0)`);
    ferrograd's sqrt(var) gave NaN (inf * 0)."""
    x = torch.tensor([[1.0, 1.0], [1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    torch.std(x, 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0], [-0.7071067811865476, 0.7071067811865476]])
    x = torch.tensor([2.0, 2.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.std_mean(x)[0].backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))


def test_cov_weights_and_shape_regression():
    """Correlation.cpp cov: negative fweights / aweights and weights summing to zero are
    refused ("fweights cannot be negative", "weights sum to zero"), the result is
    squeezed (one variable in a [1, n] input: 0-d, as NumPy), complex input takes real
    aweights. ferrograd computed with negative weights, kept [1, 1], and raised a
    TypeError for complex input with aweights."""
    y = torch.tensor([[3.0, -4.0, 0.0], [-0.0, 1.0, 2.0]], dtype=torch.float64)
    for kw in (
        {"fweights": torch.tensor([1, -2, 0])},
        {"aweights": torch.tensor([1.0, -2.0, 0.0])},
        {"fweights": torch.tensor([0, 0, 0])},
    ):
        with pytest.raises(ValueError):
            torch.cov(y, **kw)
    assert torch.cov(y[:1]).shape == ()
    c = np.array([[1 + 2j, 3 - 1j, 0j], [0j, 2 + 2j, 1]])
    w = np.array([1.0, 2.0, 3.0])
    got = torch.cov(torch.tensor(c), aweights=torch.tensor(w, dtype=torch.float64))
    np.testing.assert_allclose(got.numpy(), np.cov(c, aweights=w), rtol=1e-12, atol=1e-15)


def test_renorm_checks_and_inf_norm_regression():
    """renorm: PyTorch refuses p <= 0, maxnorm < 0 and 1-D input (Normalization.cpp
    TORCH_META_FUNC(renorm)) and supports p = inf; ferrograd raised ZeroDivisionError for
    p = 0, returned the input for p < 0, flipped signs for maxnorm < 0 and left an
    inf-norm slice unchanged (|x|^inf summed, to the power 0: a norm of 1)."""
    a = np.array([[0.0, 1.0, 2.0], [3.0, -1.0, 0.5]])
    t = torch.tensor(a, dtype=torch.float64)
    for args in ((0, 0, 1.0), (-1, 0, 1.0), (2, 0, -1.0)):
        with pytest.raises(ValueError):
            torch.renorm(t, *args)
    with pytest.raises(ValueError):
        torch.renorm(torch.tensor([1.0, 2.0]), 2, 0, 1.0)
    got = torch.renorm(t, INF, 0, 1.0)
    np.testing.assert_allclose(got.numpy(), renorm_ref(a, INF, 0, 1.0)[0], rtol=1e-12)


def test_softmax_rows_holding_inf_regression():
    """PyTorch's CPU softmax / log_softmax shift by the row max unmasked
    (SoftMaxKernel.cpp `_vec_softmax_lastdim`, `_vec_log_softmax_lastdim`), so a row
    holding +inf is NaN throughout; ferrograd masked the max to 0 (logsumexp's rule) and
    gave [nan, 0] / [nan, -inf]."""
    x = torch.tensor([[INF, 1.0], [-INF, 1.0], [-INF, -INF]])
    np.testing.assert_array_equal(
        torch.softmax(x, 1).numpy(), [[np.nan, np.nan], [0, 1], [np.nan, np.nan]]
    )
    np.testing.assert_array_equal(
        torch.log_softmax(x, 1).numpy(), [[np.nan, np.nan], [-INF, 0], [np.nan, np.nan]]
    )
    # logsumexp keeps its own rule (ReduceOps.cpp logsumexp: an infinite max is masked)
    np.testing.assert_array_equal(torch.logsumexp(x, 1).numpy(), [INF, 1.0, -INF])


def test_aminmax_of_empty_tensor_over_non_empty_dim_regression():
    """aminmax(dim=d) of an empty tensor is refused only when dim d is empty (PyTorch's
    zero_numel_check_dims); over a non-empty dim the result is empty. ferrograd refused
    every empty tensor."""
    lo, hi = torch.aminmax(torch.zeros([0, 3]), dim=1)
    assert lo.shape == (0,) and hi.shape == (0,)
    with pytest.raises(ValueError):
        torch.aminmax(torch.zeros([0, 3]), dim=0)


def test_cdist_pdist_zero_and_inf_norms_with_non_finite_regression():
    """cdist / pdist p = 0 use PyTorch's zdist kernel (min(ceil(|d|), 1)): NaN for a NaN
    difference, 1 for an infinite one; p = inf of an infinite difference is inf.
    ferrograd's cdist counted NaN as 1, its pdist gave NaN for inf differences (inf * 0)."""
    a = torch.tensor([[np.nan, 1.0], [0.0, 1.0], [INF, 0.0]])
    np.testing.assert_array_equal(torch.cdist(a, a[1:2], 0).numpy(), [[np.nan], [0], [2]])
    np.testing.assert_array_equal(torch.pdist(a, 0).numpy(), [np.nan, np.nan, 2])
    np.testing.assert_array_equal(torch.pdist(a[1:], INF).numpy(), [INF])


def test_cdist_inf_norm_ties_gradient_regression():
    """PyTorch's cdist backward for p = inf (idist_calc::backward, DistanceOpsKernel.cpp)
    gives every coordinate reaching the max the whole gradient, as pdist; ferrograd's cdist
    split it evenly (amax)."""
    x = torch.tensor([[1.0, -1.0]], dtype=torch.float64, requires_grad=True)
    torch.cdist(x, torch.zeros([1, 2], dtype=torch.float64), INF).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, -1.0]])


def test_pairwise_distance_of_0d_tensors_regression():
    """PyTorch's pairwise_distance takes the norm over dim -1 of the output, which a 0-d
    difference allows (|x1 - x2 + eps|); ferrograd raised ValueError."""
    got = F.pairwise_distance(torch.tensor(1.0), torch.tensor(3.0))
    assert got.shape == () and abs(got.item() - (2.0 - 1e-6)) < 1e-6


def test_paddle_var_std_of_one_element_regression():
    """Paddle's unbiased var/std divide by n - 1 where n > 1 and else by 1 (stat.py var:
    `n = where(n > one_const, n - 1.0, one_const)`), so one element gives 0, not NaN
    (PyTorch's NaN stays in PyTorch code)."""
    x = torch.tensor([[3.0], [5.0]], dtype=torch.float64)
    assert np.array_equal(PADDLE["var"](x, axis=1).numpy(), [0.0, 0.0])
    assert np.array_equal(PADDLE["std"](x, axis=1, unbiased=True).numpy(), [0.0, 0.0])
    assert np.isnan(torch.var(x, 1).numpy()).all()


def test_normalize_pairwise_cosine_keep_nan_norms_regression():
    """A NaN in a slice makes its norm NaN, and PyTorch's normalize / pairwise_distance /
    cosine_similarity NaN (clamp_min keeps NaN); ferrograd's helper tested `sum > 0`,
    so a NaN norm became 0: normalize gave 0 beside the NaN and pairwise_distance 0."""
    x = torch.tensor([[0.0, np.nan], [3.0, 4.0]])
    np.testing.assert_allclose(F.normalize(x, dim=1).numpy(), [[np.nan, np.nan], [0.6, 0.8]])
    d = F.pairwise_distance(x, torch.zeros([2, 2]), eps=0.0)
    np.testing.assert_array_equal(d.numpy(), [np.nan, 5.0])
    c = F.cosine_similarity(x, torch.ones([2, 2]), dim=1)
    assert np.isnan(c.numpy()[0]) and abs(c.numpy()[1] - 0.98994949) < 1e-6
