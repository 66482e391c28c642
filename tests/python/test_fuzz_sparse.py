"""Differential fuzzer for ``ferrograd.sparse``: COO (with duplicates, empty, hybrid
dense dims), CSR (empty rows, batched, hybrid), CSC and BSR tensors built from indices or
converted from dense tensors, in both dialects' spellings (``torch.sparse_coo_tensor``,
``x.to_sparse()``, ``paddle.sparse.sparse_coo_tensor``, ``x.to_sparse_coo(sparse_dim)``,
``paddle.sparse.add`` ...), checked against scipy.sparse and the dense float64 NumPy
equivalent: structure (indices, row pointers, values, shape, dtype, layout, nnz,
``is_coalesced``), ``coalesce`` (duplicates summed, indices sorted), arithmetic, products
(``sparse.mm`` / ``addmm`` / ``matmul`` / ``masked_matmul`` / ``sampled_addmm`` / sparse @
sparse), ``sum``, ``softmax`` / ``log_softmax`` over the stored entries, ``transpose``,
value-wise math, reshape / slice / indexing, and the gradients w.r.t. the values and the
dense operands with ``gradcheck`` on small float64 inputs. Invalid input must raise a
Python exception (never a panic). The references follow docs/sparse.md where ferrograd
takes a side (``csr.t()`` is CSR, sparse sums over every dim are dense 0-d, binary ops of
CSR with CSR stay CSR, others are COO). Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.sparse as sp
from fuzz_support import CALLS, FUZZ, assert_scaled, grad_ok, promote
from hypothesis import given
from hypothesis import strategies as st

torch = fg  # PyTorch spellings
paddle = fg  # Paddle spellings (the same module)

TOL = {"float64": (1e-12, 1e-12), "float32": (2e-6, 2e-6)}
DTYPES = ["int32", "int64", "float32", "float64"]
FLOATS = ["float32", "float64"]


def check(got, want, dtype, what, scale=1.0, tol=None):
    """A dense ferrograd tensor against a float64 reference, exact for integers
    (`tol`: the dtype whose tolerance applies, when a lower precision took part)."""
    assert got.layout == fg.strided, f"{what}: layout {got.layout}, expected dense"
    if dtype in ("int32", "int64"):
        assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
        np.testing.assert_array_equal(got.numpy(), np.asarray(want), err_msg=what)
        return
    assert_scaled(got, want, dtype, what, scale, TOL[tol if tol in TOL else dtype])


def vals_strategy(dtype, shape, lo=-4.0, hi=4.0):
    if dtype in ("int32", "int64"):
        el = st.integers(-9, 9)
    else:
        el = st.floats(lo, hi, width=32 if dtype == "float32" else 64)
    return hnp.arrays(dtype, tuple(shape), elements=el)


@st.composite
def coo_parts(draw, dtypes=DTYPES, max_sparse=3, max_dense=1, min_size=0, max_nnz=9):
    """``(indices [sd, nnz] int64, values [nnz, *dense], shape)``: random positions,
    duplicates likely, empty tensors and zero sizes included."""
    sd = draw(st.integers(1, max_sparse))
    dd = draw(st.integers(0, max_dense))
    sizes = [draw(st.integers(min_size, 4)) for _ in range(sd)]
    dense = [draw(st.integers(1, 3)) for _ in range(dd)]
    nnz = draw(st.integers(0, max_nnz)) if min(sizes) > 0 else 0
    idx = np.array(
        [[draw(st.integers(0, s - 1)) for _ in range(nnz)] for s in sizes], dtype=np.int64
    ).reshape(sd, nnz)
    dtype = draw(st.sampled_from(dtypes))
    vals = draw(vals_strategy(dtype, (nnz, *dense)))
    return idx, vals, tuple(sizes + dense)


def ref_dense(idx, vals, shape):
    out = np.zeros(shape, dtype=np.float64)
    np.add.at(out, tuple(idx), vals.astype(np.float64))
    return out


def ref_coalesce(idx, vals, shape):
    """Sorted unique indices and the summed values (float64)."""
    sd = idx.shape[0]
    if idx.shape[1] == 0:
        return idx, vals.astype(np.float64)
    keys = np.ravel_multi_index(tuple(idx), shape[:sd])
    uniq, inv = np.unique(keys, return_inverse=True)
    out = np.zeros((len(uniq), *vals.shape[1:]))
    np.add.at(out, inv.reshape(-1), vals.astype(np.float64))
    return np.array(np.unravel_index(uniq, shape[:sd]), dtype=np.int64).reshape(sd, -1), out


def build_coo(data, idx, vals, shape):
    """The COO tensor through one of the dialects' spellings."""
    how = data.draw(st.sampled_from(["torch", "torch_nosize", "paddle", "legacy"]))
    sizes_inferred = tuple(int(m) + 1 for m in idx.max(1)) if idx.shape[1] else None
    if how == "torch_nosize" and sizes_inferred == tuple(shape[: idx.shape[0]]):
        return torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals))
    if how == "paddle":
        return paddle.sparse.sparse_coo_tensor(
            paddle.to_tensor(idx), paddle.to_tensor(vals), shape=list(shape)
        )
    if how == "legacy" and vals.dtype.name in FLOATS and vals.ndim == 1:
        ctor = (
            torch.sparse.DoubleTensor if vals.dtype.name == "float64" else torch.sparse.FloatTensor
        )
        return ctor(torch.tensor(idx), torch.tensor(vals), shape)
    return torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), shape)


def assert_coo_structure(s, idx, vals, shape, dtype, what, coalesced=None):
    CALLS["sparse structure"] += 1
    assert s.layout == torch.sparse_coo, f"{what}: layout {s.layout}"
    assert s.is_sparse and s.is_sparse_coo() and not s.is_sparse_csr, what
    assert list(s.shape) == list(shape), f"{what}: shape {s.shape} != {shape}"
    assert s.dtype.name == dtype, f"{what}: dtype {s.dtype.name} != {dtype}"
    assert s.nnz() == s._nnz() == idx.shape[1], f"{what}: nnz {s.nnz()} != {idx.shape[1]}"
    assert s.sparse_dim() == idx.shape[0], what
    assert s.dense_dim() == len(shape) - idx.shape[0], what
    assert s.indices().dtype == fg.int64, f"{what}: indices dtype {s.indices().dtype}"
    np.testing.assert_array_equal(s.indices().numpy().reshape(idx.shape), idx, err_msg=what)
    v = s.values()
    assert list(v.shape) == list(vals.shape), f"{what}: values shape {v.shape}"
    check(v, vals, dtype, what + " values", 1 + np.abs(vals).max(initial=0))
    if coalesced is not None:
        assert s.is_coalesced() == coalesced, f"{what}: is_coalesced {s.is_coalesced()}"


# ------------------------------------------------------------------ construction / coalesce
@FUZZ
@given(st.data())
def test_coo_build_coalesce_to_dense(data):
    idx, vals, shape = data.draw(coo_parts())
    dtype = vals.dtype.name
    s = build_coo(data, idx, vals, shape)
    assert_coo_structure(s, idx, vals, shape, dtype, "built", coalesced=False)
    want = ref_dense(idx, vals, shape)
    scale = 1 + np.abs(vals).sum()
    CALLS["to_dense"] += 1
    check(s.to_dense(), want, dtype, "to_dense", scale)
    ci, cv = ref_coalesce(idx, vals, shape)
    for c in (s.coalesce(), paddle.sparse.coalesce(s)):
        CALLS["coalesce"] += 1
        assert_coo_structure(c, ci, cv.astype(dtype), shape, dtype, "coalesce", coalesced=True)
        check(c.values(), cv, dtype, "coalesce values", scale)
        assert c.coalesce() is c or c.coalesce().nnz() == c.nnz()
        check(c.to_dense(), want, dtype, "coalesced to_dense", scale)
    # the constructor's is_coalesced=True on sorted unique indices
    CALLS["coalesce"] += 1
    t = torch.sparse_coo_tensor(torch.tensor(ci), torch.tensor(cv.astype(dtype)), shape,
                                is_coalesced=True)  # fmt: skip
    assert t.is_coalesced()
    check(t.to_dense(), want, dtype, "is_coalesced=True to_dense", scale)
    if len(shape) == 2 and idx.shape[0] == 2:
        CALLS["scipy coo"] += 1
        ref = sp.coo_matrix((vals.astype(np.float64), (idx[0], idx[1])), shape=shape)
        ref.sum_duplicates()
        c = s.coalesce()
        np.testing.assert_array_equal(c.indices().numpy(), np.stack([ref.row, ref.col]))
        np.testing.assert_allclose(c.values().numpy().astype(np.float64), ref.data, rtol=1e-6)
    # casts keep the structure
    CALLS["cast"] += 1
    d = s.double()
    assert d.dtype == fg.float64 and not d.is_coalesced()
    check(d.to_dense(), want, "float64", "double()", scale)
    f = paddle.sparse.cast(s, value_dtype="float32")
    assert f.dtype == fg.float32 and f.is_coalesced()
    check(f.to_dense(), want, "float32", "sparse.cast", scale)


@st.composite
def sparse_dense_array(draw, dtypes=DTYPES, min_dims=1, max_dims=3, min_side=0, max_side=4):
    """A dense array with many zeros."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                  max_side=max_side))  # fmt: skip
    a = draw(vals_strategy(dtype, shape))
    mask = draw(hnp.arrays(bool, shape))
    return np.where(mask, a, np.zeros((), dtype)).astype(dtype)


@FUZZ
@given(st.data())
def test_dense_to_coo(data):
    a = data.draw(sparse_dense_array())
    dtype = a.dtype.name
    sd = data.draw(st.integers(1, a.ndim))
    x = fg.tensor(a)
    how = data.draw(st.sampled_from(["to_sparse", "to_sparse_coo", "layout"]))
    if how == "to_sparse":
        s = x.to_sparse() if sd == a.ndim and data.draw(st.booleans()) else x.to_sparse(sd)
    elif how == "to_sparse_coo":
        s = x.to_sparse_coo(sd)
    else:
        s = x.to_sparse(layout=torch.sparse_coo) if sd == a.ndim else x.to_sparse(sd)
    nzmask = a != 0
    if sd < a.ndim:  # (the trailing size spelled out: -1 is ambiguous at size 0)
        nzmask = nzmask.reshape(*a.shape[:sd], int(np.prod(a.shape[sd:]))).any(-1)
    idx = np.array(np.nonzero(nzmask), dtype=np.int64).reshape(sd, -1)
    vals = a[tuple(idx)]
    assert_coo_structure(s, idx, vals, a.shape, dtype, f"{how}({sd})", coalesced=True)
    CALLS["to_dense"] += 1
    check(s.to_dense(), a, dtype, "round trip")


def scipy_of(a, layout):
    return {"csr": sp.csr_matrix, "csc": sp.csc_matrix}[layout](a.astype(np.float64))


@FUZZ
@given(st.data())
def test_dense_to_compressed(data):
    a = data.draw(sparse_dense_array(min_dims=2, max_dims=2, max_side=5))
    dtype = a.dtype.name
    x = fg.tensor(a)
    for layout in ("csr", "csc"):
        s = x.to_sparse_csr() if layout == "csr" else x.to_sparse_csc()
        ref = scipy_of(a, layout)
        ref.sort_indices()
        CALLS["to compressed"] += 1
        assert s.layout == getattr(torch, f"sparse_{layout}"), s.layout
        ptr, ind = (
            (s.crow_indices(), s.col_indices())
            if layout == "csr"
            else (s.ccol_indices(), s.row_indices())
        )
        assert ptr.dtype == fg.int64 and ind.dtype == fg.int64
        np.testing.assert_array_equal(ptr.numpy(), ref.indptr, err_msg=layout)
        np.testing.assert_array_equal(ind.numpy(), ref.indices, err_msg=layout)
        check(s.values(), ref.data, dtype, f"{layout} values")
        assert s.nnz() == ref.nnz
        check(s.to_dense(), a, dtype, f"{layout} to_dense")
        coo = s.to_sparse_coo() if layout == "csr" else s.to_sparse()
        check(coo.to_dense(), a, dtype, f"{layout} -> coo")
        back = x.to_sparse().to_sparse(layout=s.layout)
        np.testing.assert_array_equal(back.values().numpy(), s.values().numpy())
    if layout == "csr":
        assert s.crows().tolist() == ref.indptr.tolist()  # Paddle's names
    # block layouts, where the block size divides the matrix
    bh = data.draw(st.sampled_from([d for d in (1, 2, 3) if a.shape[0] % d == 0] or [1]))
    bw = data.draw(st.sampled_from([d for d in (1, 2, 3) if a.shape[1] % d == 0] or [1]))
    if a.shape[0] % bh == 0 and a.shape[1] % bw == 0 and min(a.shape) > 0:
        CALLS["to bsr"] += 1
        b = x.to_sparse_bsr((bh, bw))
        ref = sp.bsr_matrix(sp.csr_matrix(a.astype(np.float64)), blocksize=(bh, bw))
        ref.sort_indices()
        assert b.layout == torch.sparse_bsr and tuple(b.blocksize) == (bh, bw)
        np.testing.assert_array_equal(b.crow_indices().numpy(), ref.indptr)
        np.testing.assert_array_equal(b.col_indices().numpy(), ref.indices)
        check(b.values(), ref.data, dtype, "bsr blocks")
        check(b.to_dense(), a, dtype, "bsr to_dense")
        check(b.to_sparse_csr().to_dense(), a, dtype, "bsr -> csr")
        check(x.to_sparse_bsc((bh, bw)).to_dense(), a, dtype, "bsc to_dense")


@st.composite
def csr_parts(draw, dtypes=DTYPES, max_rows=5, max_cols=5):
    """A scipy CSR matrix (sorted, unique columns; empty rows likely) and its dtype."""
    n, m = draw(st.integers(0, max_rows)), draw(st.integers(0, max_cols))
    dtype = draw(st.sampled_from(dtypes))
    mask = draw(hnp.arrays(bool, (n, m)))
    vals = draw(vals_strategy(dtype, (n, m)))
    dense = np.where(mask, vals, 0).astype(dtype)
    ref = sp.csr_matrix(mask.astype(np.float64))  # the pattern of the mask, zeros kept
    ref.sort_indices()
    rows = np.repeat(np.arange(n), np.diff(ref.indptr))
    ref.data = dense[rows, ref.indices].astype(np.float64)
    return ref, dtype


@FUZZ
@given(st.data())
def test_csr_build(data):
    ref, dtype = data.draw(csr_parts())
    crow, col = ref.indptr.astype(np.int64), ref.indices.astype(np.int64)
    vals = ref.data.astype(dtype)
    if data.draw(st.booleans()):
        s = torch.sparse_csr_tensor(torch.tensor(crow), torch.tensor(col), torch.tensor(vals),
                                    ref.shape)  # fmt: skip
    else:
        s = paddle.sparse.sparse_csr_tensor(crow.tolist(), col.tolist(), paddle.to_tensor(vals),
                                            list(ref.shape))  # fmt: skip
    CALLS["csr structure"] += 1
    assert s.layout == torch.sparse_csr and s.is_sparse_csr and s.is_sparse_csr()
    assert not s.is_sparse_coo() and list(s.shape) == list(ref.shape)
    assert s.nnz() == ref.nnz and s.dtype.name == dtype
    np.testing.assert_array_equal(s.crow_indices().numpy(), crow)
    np.testing.assert_array_equal(s.col_indices().numpy(), col)
    check(s.values(), ref.data, dtype, "csr values")
    want = ref.toarray()
    check(s.to_dense(), want, dtype, "csr to_dense")
    c = s.to_sparse_coo()
    coo = ref.tocoo()
    assert c.is_coalesced()
    np.testing.assert_array_equal(c.indices().numpy(), np.stack([coo.row, coo.col]))
    csc = s.to_sparse_csc()
    rc = ref.tocsc()
    rc.sort_indices()
    np.testing.assert_array_equal(csc.ccol_indices().numpy(), rc.indptr)
    np.testing.assert_array_equal(csc.row_indices().numpy(), rc.indices)
    check(csc.values(), rc.data, dtype, "csr -> csc values")
    check(csc.to_sparse_csr().to_dense(), want, dtype, "csc -> csr")
    CALLS["csc structure"] += 1
    t = torch.sparse_csc_tensor(torch.tensor(rc.indptr.astype(np.int64)),
                                torch.tensor(rc.indices.astype(np.int64)),
                                torch.tensor(rc.data.astype(dtype)), ref.shape)  # fmt: skip
    assert t.layout == torch.sparse_csc and t.nnz() == ref.nnz
    check(t.to_dense(), want, dtype, "sparse_csc_tensor")


@FUZZ
@given(st.data())
def test_batched_and_hybrid_csr(data):
    b, n, m = (data.draw(st.integers(1, 3)) for _ in range(3))
    k = data.draw(st.integers(0, n * m))
    dtype = data.draw(st.sampled_from(FLOATS))
    # every batch holds k entries (PyTorch's rule for batched CSR)
    a = np.zeros((b, n, m), dtype=dtype)
    for i in range(b):
        pos = data.draw(st.permutations(range(n * m)))[:k]
        a[i].reshape(-1)[pos] = data.draw(vals_strategy(dtype, (k,), 0.5, 4.0))
    x = fg.tensor(a)
    s = x.to_sparse_csr()
    CALLS["batched csr"] += 1
    crow = np.stack([sp.csr_matrix(a[i].astype(np.float64)).indptr for i in range(b)])
    np.testing.assert_array_equal(s.crow_indices().numpy(), crow)
    assert list(s.values().shape) == [b, k] and s.nnz() == k
    check(s.to_dense(), a, dtype, "batched csr to_dense")
    t = torch.sparse_csr_tensor(s.crow_indices(), s.col_indices(), s.values(), (b, n, m))
    check(t.to_dense(), a, dtype, "batched sparse_csr_tensor")
    y = data.draw(vals_strategy(dtype, (b, m, 2)))
    CALLS["batched csr matmul"] += 1
    check(torch.bmm(s, fg.tensor(y)), a.astype(np.float64) @ y, dtype, "bmm", 1 + 16 * m)
    c3 = x.to_sparse()  # 3-D COO @ 3-D dense
    check(paddle.sparse.matmul(c3, fg.tensor(y)), a.astype(np.float64) @ y, dtype, "3-D coo",
          1 + 16 * m)  # fmt: skip
    # hybrid CSR: [n, m, d] with values [nnz, d]
    h = np.repeat(a[0][:, :, None], 2, axis=2) * np.array([1, -2], dtype=dtype)
    hs = fg.tensor(h).to_sparse_csr(dense_dim=1)
    CALLS["hybrid csr"] += 1
    assert hs.dense_dim() == 1 and list(hs.values().shape) == [k, 2]
    check(hs.to_dense(), h, dtype, "hybrid csr to_dense")
    check(hs.to_sparse_coo().to_dense(), h, dtype, "hybrid csr -> coo")


def stored_mask(a, layout, block):
    """Where a layout built from dense `a` stores entries: its nonzeros, or every element
    of a block holding a nonzero (BSR / BSC)."""
    if layout in ("csr", "csc"):
        return a != 0
    bh, bw = block
    n, m = a.shape
    blk = (a != 0).reshape(n // bh, bh, m // bw, bw).any(axis=(1, 3))
    return np.repeat(np.repeat(blk, bh, axis=0), bw, axis=1)


@FUZZ
@given(st.data())
def test_compressed_layout_ops(data):
    bh, bw = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    n, m = bh * data.draw(st.integers(1, 3)), bw * data.draw(st.integers(1, 3))
    a = data.draw(sparse_dense_array(dtypes=FLOATS, min_dims=2, max_dims=2))
    a = np.resize(a, (n, m)) if a.size else np.zeros((n, m), a.dtype)
    dtype = a.dtype.name
    layout = data.draw(st.sampled_from(["csr", "csc", "bsr", "bsc"]))
    lay = getattr(torch, f"sparse_{layout}")
    block = (bh, bw) if layout[0] == "b" else None
    x = fg.tensor(a)
    s = x.to_sparse(layout=lay, blocksize=block)
    assert s.layout == lay
    A = a.astype(np.float64)
    mask = stored_mask(a, layout, block or (1, 1))
    sc = 1 + np.abs(A).sum() * 4
    y = data.draw(vals_strategy(dtype, (m, 2)))
    CALLS["compressed ops"] += 1
    check(s @ fg.tensor(y), A @ y, dtype, f"{layout} @ dense", sc)
    check(torch.sparse.mm(s, fg.tensor(y)), A @ y, dtype, f"{layout} sparse.mm", sc)
    check(fg.tensor(y.T.copy()) @ s.t(), (A @ y).T, dtype, f"dense @ {layout}.t()", sc)
    CALLS["compressed ops"] += 1
    check((s + s).to_dense(), 2 * A, dtype, f"{layout} + {layout}")
    check((s * s).to_dense(), A * A, dtype, f"{layout} * {layout}", sc * sc)
    check((s * 3).to_dense(), 3 * A, dtype, f"{layout} * 3")
    assert (s * 3).layout == lay  # * number keeps every layout
    check(s.t().to_dense(), A.T, dtype, f"{layout}.t()")
    check(torch.sparse.sum(s, 0).to_dense(), A.sum(0), dtype, f"{layout} sum(0)", sc)
    check(torch.sparse.sum(s), A.sum(), dtype, f"{layout} sum()", sc)
    r = s.relu()
    assert r.layout == lay
    check(r.to_dense(), np.maximum(A, 0), dtype, f"{layout} relu")
    # softmax over the stored entries of each row (a block's zeros are stored)
    CALLS["compressed softmax"] += 1
    sm = torch.sparse.softmax(s, 1)
    assert sm.layout == lay
    with np.errstate(all="ignore"):
        e = np.where(mask, np.exp(A - np.where(mask, A, -np.inf).max(1, keepdims=True)), 0)
        want = np.where(mask, e / e.sum(1, keepdims=True), 0)
    check(sm.to_dense(), want, dtype, f"{layout} softmax")
    # sampled_addmm / masked_matmul at the stored pattern
    u = data.draw(vals_strategy(dtype, (n, 2)))
    CALLS["compressed sampled_addmm"] += 1
    got = torch.sparse.sampled_addmm(s, fg.tensor(u), fg.tensor(y.T.copy()), beta=0.5)
    assert got.layout == lay
    check(got.to_dense(), (0.5 * A + u.astype(np.float64) @ y.T) * mask, dtype,
          f"{layout} sampled_addmm", 1 + np.abs(A) + 32)  # fmt: skip
    # conversions between layouts keep the dense tensor
    to = data.draw(st.sampled_from(["csr", "csc", "bsr", "bsc", "coo"]))
    CALLS["compressed conversion"] += 1
    if to == "coo":
        c = s.to_sparse()
    else:
        c = s.to_sparse(layout=getattr(torch, f"sparse_{to}"),
                        blocksize=(bh, bw) if to[0] == "b" else None)  # fmt: skip
    check(c.to_dense(), A, dtype, f"{layout} -> {to}")
    if dtype == "float64" and mask.any():
        CALLS["compressed grad"] += 1
        v0 = s.values().numpy()
        ptr, ind = (
            (s.crow_indices(), s.col_indices())
            if layout in ("csr", "bsr")
            else (s.ccol_indices(), s.row_indices())
        )

        def fn(vals, yy):
            t = torch.sparse_compressed_tensor(ptr, ind, vals, (n, m), layout=lay)
            return (t @ yy) + torch.sparse.softmax(t, 1).to_dense()[:, :1]

        grad_ok(fn, v0, y)


# ------------------------------------------------------------------------ arithmetic
def pattern_keys(idx, vals, shape):
    ci, cv = ref_coalesce(idx, vals, shape)
    keys = np.ravel_multi_index(tuple(ci), shape[: idx.shape[0]]) if ci.shape[1] else ci[0]
    return ci, cv, keys


def make_sparse(data, idx, vals, shape, allow_csr=True):
    """COO (maybe with duplicates), or its CSR form when 2-D without dense dims."""
    s = build_coo(data, idx, vals, shape)
    if allow_csr and len(shape) == 2 and idx.shape[0] == 2 and data.draw(st.booleans()):
        return s.to_sparse_csr(), "csr"
    return s, "coo"


@FUZZ
@given(st.data())
def test_add_sub_mul_div(data):
    idx, va, shape = data.draw(coo_parts())
    sd = idx.shape[0]
    dense = list(shape[sd:])
    nb = data.draw(st.integers(0, 9)) if min(shape[:sd]) > 0 else 0
    idx_b = np.array(
        [[data.draw(st.integers(0, s - 1)) for _ in range(nb)] for s in shape[:sd]],
        dtype=np.int64,
    ).reshape(sd, nb)
    dtb = data.draw(st.sampled_from([va.dtype.name, *DTYPES]))
    vb = data.draw(vals_strategy(dtb, (nb, *dense)))
    a, la = make_sparse(data, idx, va, shape)
    b, lb = make_sparse(data, idx_b, vb, shape)
    da, db = ref_dense(idx, va, shape), ref_dense(idx_b, vb, shape)
    dta = va.dtype.name
    out_dt = promote(dta, dtb)
    scale = 1 + np.abs(va).sum() + np.abs(vb).sum()
    want_layout = torch.sparse_csr if la == lb == "csr" else torch.sparse_coo
    # an operand may be coalesced in its own dtype first (float32 sums of duplicates)
    low = "float32" if "float32" in (dta, dtb) else None
    alpha = data.draw(st.sampled_from([1, 2, -3]))
    for name, got, want in (
        ("a + b", a + b, da + db),
        ("a - b", a - b, da - db),
        ("a.add(b, alpha)", a.add(b, alpha), da + alpha * db),
        ("sparse.add", paddle.sparse.add(a, b), da + db),
        ("sparse.subtract", paddle.sparse.subtract(a, b), da - db),
    ):
        CALLS["sparse +- sparse"] += 1
        assert got.layout == want_layout, f"{name}: layout {got.layout}"
        if got.layout == torch.sparse_coo:
            assert got.is_coalesced(), name
        check(got.to_dense(), want, out_dt, name, scale * 3, tol=low)
    # a * b: the intersection of the two (coalesced) patterns
    _, _, ka = pattern_keys(idx, va, shape)
    _, _, kb = pattern_keys(idx_b, vb, shape)
    both = np.intersect1d(ka, kb)
    for name, got in (("a * b", a * b), ("sparse.multiply", paddle.sparse.multiply(a, b))):
        CALLS["sparse * sparse"] += 1
        assert got.layout == want_layout, f"{name}: layout {got.layout}"
        assert got.nnz() == len(both), f"{name}: nnz {got.nnz()} != {len(both)}"
        check(got.to_dense(), da * db, out_dt, name, scale * scale, tol=low)
        c = got.to_sparse_coo() if got.layout == torch.sparse_csr else got
        if len(both):
            ki = np.ravel_multi_index(tuple(c.indices().numpy()), shape[:sd])
            np.testing.assert_array_equal(ki, both, err_msg=f"{name}: pattern")
    # by a number, by a 0-d tensor, by a dense tensor, negation
    k = data.draw(st.sampled_from([2, -1, 0.5, 3.0]))
    kdt = promote(dta, "float32") if isinstance(k, float) else dta
    for name, got, want, dt in (
        ("s * k", a * k, da * k, kdt),
        ("k * s", k * a, da * k, kdt),
        ("s * 0-d", a * fg.tensor(k), da * k, promote(dta, fg.tensor(k).dtype.name, b_0d=True)),
        ("-s", -a, -da, dta),
        ("sparse.neg", paddle.sparse.neg(a), -da, dta),
    ):
        CALLS["sparse * number"] += 1
        assert got.layout == a.layout, f"{name}: layout {got.layout}"
        check(got.to_dense(), want, dt, name, scale * 4)
    if dta in FLOATS:
        CALLS["sparse / number"] += 1
        check((a / k).to_dense(), da / k, dta, "s / k", scale * 4)
    w = data.draw(vals_strategy(dtb, shape))
    CALLS["sparse * dense"] += 1
    got = a * fg.tensor(w)
    assert got.layout == a.layout and got.nnz() == a.nnz()
    check(got.to_dense(), da * w, out_dt, "s * dense", scale * 9, tol=low)
    CALLS["sparse + dense"] += 1
    check(a + fg.tensor(w), da + w, out_dt, "s + dense", scale + 9, tol=low)
    check(fg.tensor(w) + a, da + w, out_dt, "dense + s", scale + 9, tol=low)
    # divide: the same pattern, nonzero divisors
    ca = a.coalesce() if la == "coo" else a
    nz = data.draw(vals_strategy(dta, tuple(ca.values().shape), 0.5, 4.0))
    nz = np.where(nz == 0, 1, np.abs(nz)).astype(dta)
    same = ca.to_sparse_coo() if la == "csr" else ca
    d = torch.sparse_coo_tensor(same.indices(), fg.tensor(nz), shape)
    if la == "csr":
        d = d.to_sparse_csr()
    CALLS["sparse / sparse"] += 1
    got = paddle.sparse.divide(ca, d)
    dd = ref_dense(same.indices().numpy(), nz, shape)
    want = np.divide(da, dd, out=np.zeros_like(da), where=dd != 0)
    check(got.to_dense(), want, got.dtype.name, "sparse.divide", scale)


# -------------------------------------------------------------------------- products
@st.composite
def matrix_parts(draw, n=None, m=None, dtypes=FLOATS, dups=True):
    n = draw(st.integers(0, 4)) if n is None else n
    m = draw(st.integers(0, 4)) if m is None else m
    nnz = draw(st.integers(0, 8)) if n and m else 0
    idx = np.array(
        [[draw(st.integers(0, s - 1)) for _ in range(nnz)] for s in (n, m)], dtype=np.int64
    ).reshape(2, nnz)
    if not dups and nnz:
        keys = np.unique(np.ravel_multi_index(tuple(idx), (n, m)))
        idx = np.array(np.unravel_index(keys, (n, m)), dtype=np.int64)
    dtype = draw(st.sampled_from(dtypes))
    vals = draw(vals_strategy(dtype, (idx.shape[1],)))
    return idx, vals, (n, m)


@FUZZ
@given(st.data())
def test_products(data):
    idx, va, (n, m) = data.draw(matrix_parts())
    dtype = va.dtype.name
    a, la = make_sparse(data, idx, va, (n, m))
    A = ref_dense(idx, va, (n, m))
    k = data.draw(st.integers(0, 3))
    y = data.draw(vals_strategy(dtype, (m, k)))
    Y = fg.tensor(y)
    sc = 1 + np.abs(A).sum() * 4
    for name, got in (
        ("sparse.mm", torch.sparse.mm(a, Y)),
        ("torch.mm", torch.mm(a, Y)),
        ("matmul", torch.matmul(a, Y)),
        ("@", a @ Y),
        ("s.mm", a.mm(Y)),
        ("paddle.sparse.matmul", paddle.sparse.matmul(a, Y)),
        ("spmm", torch.spmm(a, Y)),
    ):
        CALLS["sparse @ dense"] += 1
        check(got, A @ y, dtype, f"{la} {name}", sc)
    v = data.draw(vals_strategy(dtype, (m,)))
    CALLS["sparse @ vector"] += 1
    check(a @ fg.tensor(v), A @ v, dtype, "s @ vec", sc)
    check(paddle.sparse.mv(a, fg.tensor(v)), A @ v, dtype, "sparse.mv", sc)
    z = data.draw(vals_strategy(dtype, (k, n)))
    CALLS["dense @ sparse"] += 1
    check(fg.tensor(z) @ a, z @ A, dtype, "dense @ s", 1 + np.abs(A).sum() * 4 * max(k, 1))
    check(torch.mm(fg.tensor(z), a), z @ A, dtype, "mm(dense, s)", 1 + np.abs(A).sum() * 16)
    # addmm: beta * input + alpha * (a @ y)
    beta = data.draw(st.sampled_from([0.0, 1.0, 0.5, -2.0]))
    alpha = data.draw(st.sampled_from([1.0, 2.0, -0.5]))
    c = data.draw(vals_strategy(dtype, (n, k)))
    if beta == 0.0:
        c[...] = np.nan if dtype in FLOATS else 0  # beta=0 ignores the input (even NaN)
    want = alpha * (A @ y) + (0 if beta == 0 else beta * c)
    CALLS["addmm"] += 1
    check(torch.sparse.addmm(fg.tensor(c), a, Y, beta=beta, alpha=alpha), want, dtype,
          "sparse.addmm", sc * 2 + 8)  # fmt: skip
    check(paddle.sparse.addmm(fg.tensor(c), a, Y, beta, alpha), want, dtype,
          "paddle.sparse.addmm", sc * 2 + 8)  # fmt: skip
    # sparse @ sparse against scipy
    idx2, v2, _ = data.draw(matrix_parts(m, data.draw(st.integers(0, 4)), dtypes=[dtype]))
    p = data.draw(st.integers(0, 4)) if m == 0 else (max(idx2[1].max(initial=-1) + 1, 1))
    p = max(p, 1)
    b, lb = make_sparse(data, idx2, v2, (m, p))
    B = sp.coo_matrix((v2.astype(np.float64), (idx2[0], idx2[1])), shape=(m, p))
    Aref = sp.coo_matrix((va.astype(np.float64), (idx[0], idx[1])), shape=(n, m))
    want = (Aref.tocsr() @ B.tocsr()).toarray()
    for name, got in (
        ("sparse.mm(s, s)", torch.sparse.mm(a, b)),
        ("s @ s", a @ b),
        ("paddle.sparse.matmul(s, s)", paddle.sparse.matmul(a, b)),
    ):
        CALLS["sparse @ sparse"] += 1
        lay = torch.sparse_csr if la == lb == "csr" else torch.sparse_coo
        assert got.layout == lay, f"{name}: layout {got.layout} ({la} @ {lb})"
        if lay == torch.sparse_coo:
            assert got.is_coalesced(), name
        check(got.to_dense(), want, dtype, name, 1 + np.abs(A).sum() * np.abs(v2).sum())


@FUZZ
@given(st.data())
def test_masked_and_sampled_matmul(data):
    idx, vm, (n, m) = data.draw(matrix_parts(dups=data.draw(st.booleans())))
    dtype = vm.dtype.name
    mask, lm = make_sparse(data, idx, vm, (n, m))
    k = data.draw(st.integers(0, 3))
    x = data.draw(vals_strategy(dtype, (n, k)))
    y = data.draw(vals_strategy(dtype, (k, m)))
    full = x.astype(np.float64) @ y
    ci, cv, _ = pattern_keys(idx, vm, (n, m))
    at = np.zeros((n, m))
    at[tuple(ci)] = 1.0
    CALLS["masked_matmul"] += 1
    got = paddle.sparse.masked_matmul(fg.tensor(x), fg.tensor(y), mask)
    assert got.layout == mask.layout and got.nnz() == ci.shape[1]
    check(got.to_dense(), full * at, dtype, "masked_matmul", 1 + 16 * k)
    if lm == "csr":
        beta = data.draw(st.sampled_from([1.0, 0.5, 0.0]))
        alpha = data.draw(st.sampled_from([1.0, -2.0]))
        CALLS["sampled_addmm"] += 1
        got = torch.sparse.sampled_addmm(mask, fg.tensor(x), fg.tensor(y), beta=beta, alpha=alpha)
        assert got.layout == torch.sparse_csr and got.nnz() == mask.nnz()
        want = (beta * ref_dense(idx, vm, (n, m)) + alpha * full) * at
        check(got.to_dense(), want, dtype, "sampled_addmm", 8 + 32 * k)


@FUZZ
@given(st.data())
def test_product_gradients(data):
    idx, v, (n, m) = data.draw(matrix_parts(n=data.draw(st.integers(1, 3)),
                                            m=data.draw(st.integers(1, 3)), dtypes=["float64"]))  # fmt: skip
    k = data.draw(st.integers(1, 2))
    y = data.draw(vals_strategy("float64", (m, k)))
    csr = data.draw(st.booleans())
    I = fg.tensor(idx)  # noqa: E741

    def mat(vals):
        s = torch.sparse_coo_tensor(I, vals, (n, m))
        return s.to_sparse_csr() if csr else s

    grad_ok(lambda vals, yy: torch.sparse.mm(mat(vals), yy), v, y, second=True)
    grad_ok(lambda vals, zz: zz @ mat(vals), v, data.draw(vals_strategy("float64", (k, n))))
    c = data.draw(vals_strategy("float64", (n, k)))
    grad_ok(lambda vals, yy, cc: torch.sparse.addmm(cc, mat(vals), yy, beta=0.5, alpha=2.0),
            v, y, c)  # fmt: skip
    x = data.draw(vals_strategy("float64", (n, k)))
    grad_ok(lambda xx, yy: paddle.sparse.masked_matmul(xx, yy.t(), mat(fg.tensor(v))).to_dense(),
            x, y)  # fmt: skip
    # sparse @ sparse: gradients of both value tensors
    w = data.draw(vals_strategy("float64", (idx.shape[1],)))
    J = fg.tensor(idx[::-1].copy())

    def ss(va, vb):
        bb = torch.sparse_coo_tensor(J, vb, (m, n))
        return (mat(va) @ (bb.to_sparse_csr() if csr else bb)).to_dense()

    grad_ok(ss, v, w)
    # a leaf's sparse .grad: the dense gradient at the coalesced pattern
    s = torch.sparse_coo_tensor(I, fg.tensor(v), (n, m), requires_grad=True)
    assert s.is_leaf and s.requires_grad
    wgt = data.draw(vals_strategy("float64", (n, m)))
    (s.to_dense() * fg.tensor(wgt)).sum().backward()
    CALLS["sparse .grad"] += 1
    g = s.grad
    assert g is not None and g.layout == torch.sparse_coo
    gi = g.indices().numpy()
    np.testing.assert_array_equal(g.values().numpy(), wgt[tuple(gi)])
    ci, _, _ = pattern_keys(idx, v, (n, m))
    assert sorted(map(tuple, gi.T.tolist())) == sorted(map(tuple, ci.T.tolist()))


# ------------------------------------------------------------------------ reductions
def densify(x):
    return x.to_dense() if getattr(x, "is_sparse", False) else x


@FUZZ
@given(st.data())
def test_sum(data):
    idx, vals, shape = data.draw(coo_parts(max_sparse=3, max_dense=2))
    dtype = vals.dtype.name
    is_int = dtype in ("int32", "int64")
    s, _ = make_sparse(data, idx, vals, shape)
    sd = s.sparse_dim()
    A = ref_dense(idx, vals, shape)
    scale = 1 + np.abs(vals).sum()
    CALLS["sparse.sum"] += 1
    total = torch.sparse.sum(s)
    assert total.layout == fg.strided and total.ndim == 0
    # integer sums are int64 (PyTorch's dense rule; torch.sparse.sum(int32) is int64 too)
    check(total, A.sum(), "int64" if is_int else dtype, "sum()", scale)
    kept = paddle.sparse.sum(s, keepdim=True)
    assert kept.is_sparse and list(kept.shape) == [1] * len(shape)
    check(kept.to_dense(), A.sum(keepdims=True), kept.dtype.name, "sum(keepdim)", scale)
    assert not is_int or kept.dtype.name in ("int32", "int64")
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape),
                              unique=True))  # fmt: skip
    spec = dims[0] - len(shape) if len(dims) == 1 and data.draw(st.booleans()) else dims
    CALLS["sparse.sum"] += 1
    got = torch.sparse.sum(s, spec)
    want = A.sum(axis=tuple(dims))
    every_sparse = all(d in dims for d in range(sd))
    # PyTorch: a sparse result keeps an int32 dtype, a dense one is int64 (a hybrid
    # tensor summed over a dense dim: PyTorch raises; ferrograd sums the values, int64)
    out_dt = dtype
    if is_int and (every_sparse or any(d >= sd for d in dims)):
        out_dt = "int64"
    if every_sparse:
        assert got.layout == fg.strided, f"sum({dims}) of sparse_dim {sd}: {got.layout}"
        check(got, want, out_dt, f"sum({dims})", scale)
    else:
        assert got.is_sparse, f"sum({dims}): dense result"
        assert got.sparse_dim() == sd - len([d for d in dims if d < sd])
        assert got.is_coalesced() or not any(d < sd for d in dims)
        check(got.to_dense(), want, out_dt, f"sum({dims})", scale)
    CALLS["sparse.sum"] += 1
    got = densify(paddle.sparse.sum(s, axis=dims, keepdim=True))
    wk = A.sum(axis=tuple(dims), keepdims=True)
    check(got, wk, got.dtype.name if is_int else dtype, f"sum({dims}, keepdim)", scale)
    if is_int:
        CALLS["sparse.sum"] += 1
        got = densify(torch.sparse.sum(s, dims, dtype=fg.float64))
        check(got, want, "float64", "sum(dtype)", scale)
    if dtype == "float64" and vals.size:
        I = fg.tensor(idx)  # noqa: E741
        grad_ok(lambda v: densify(torch.sparse.sum(torch.sparse_coo_tensor(I, v, shape), dims)),
                vals)  # fmt: skip


def ref_softmax(idx, vals, shape, dim, log):
    """Softmax over the stored (coalesced) entries along `dim`: (indices, values)."""
    ci, cv = ref_coalesce(idx, vals, shape)
    sd = idx.shape[0]
    out = np.empty_like(cv)
    if dim >= sd:
        ax = dim - sd + 1
        m = cv.max(axis=ax, keepdims=True) if cv.size else cv
        e = np.exp(cv - m)
        z = e.sum(axis=ax, keepdims=True)
        out = (cv - m - np.log(z)) if log else e / z
        return ci, out
    others = [d for d in range(sd) if d != dim]
    groups = {}
    for j in range(ci.shape[1]):
        groups.setdefault(tuple(ci[others, j]), []).append(j)
    for js in groups.values():
        g = cv[js]
        m = g.max(axis=0, keepdims=True)
        e = np.exp(g - m)
        z = e.sum(axis=0, keepdims=True)
        out[js] = (g - m - np.log(z)) if log else e / z
    return ci, out


@FUZZ
@given(st.data())
def test_softmax(data):
    idx, vals, shape = data.draw(coo_parts(dtypes=FLOATS, max_sparse=3, max_dense=1))
    dtype = vals.dtype.name
    vals = (vals * 3).astype(dtype)
    s, lay = make_sparse(data, idx, vals, shape)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    log = data.draw(st.booleans())
    ci, want = ref_softmax(idx, vals, shape, dim % len(shape), log)
    if log:
        got = torch.sparse.log_softmax(s, dim)
    else:
        how = data.draw(st.sampled_from(["torch", "paddle", "layer"]))
        if how == "torch":
            got = torch.sparse.softmax(s, dim)
        elif how == "paddle":
            got = paddle.sparse.nn.functional.softmax(s, axis=dim)
        else:
            got = paddle.sparse.nn.Softmax(axis=dim)(s)
    CALLS["sparse softmax"] += 1
    assert got.layout == s.layout, f"softmax: layout {got.layout}"
    c = got.to_sparse_coo() if lay == "csr" else got
    np.testing.assert_array_equal(c.indices().numpy(), ci, err_msg="softmax pattern")
    check(c.values(), want, dtype, f"{'log_' if log else ''}softmax(dim={dim})", 40)
    if dtype == "float64" and vals.size:
        I = fg.tensor(idx)  # noqa: E741
        fn = torch.sparse.log_softmax if log else torch.sparse.softmax
        grad_ok(lambda v: fn(torch.sparse_coo_tensor(I, v, shape), dim).to_dense(), vals,
                second=len(shape) == 2)  # fmt: skip


# ---------------------------------------------------------------------- shape, math
@FUZZ
@given(st.data())
def test_transpose(data):
    idx, vals, shape = data.draw(coo_parts(max_sparse=3, max_dense=2))
    dtype = vals.dtype.name
    s, lay = make_sparse(data, idx, vals, shape)
    A = ref_dense(idx, vals, shape)
    sd = s.sparse_dim()
    nd = len(shape)
    group = data.draw(st.sampled_from(["sparse", "dense"] if nd > sd else ["sparse"]))
    lo, hi = (0, sd - 1) if group == "sparse" else (sd, nd - 1)
    d0, d1 = data.draw(st.integers(lo, hi)), data.draw(st.integers(lo, hi))
    CALLS["sparse transpose"] += 1
    got = s.transpose(d0, d1)
    assert got.layout == s.layout, f"transpose: layout {got.layout}"
    check(got.to_dense(), np.swapaxes(A, d0, d1), dtype, f"transpose({d0}, {d1})")
    if lay == "coo" and s.is_coalesced() and d0 == d1:
        assert got.is_coalesced()
    if nd == 2 and sd == 2:
        check(s.t().to_dense(), A.T, dtype, "t()")
        assert s.t().layout == s.layout
    perm = list(data.draw(st.permutations(range(sd)))) + list(
        sd + np.array(data.draw(st.permutations(range(nd - sd))), dtype=int)
    )
    CALLS["sparse transpose"] += 1
    got = paddle.sparse.transpose(s, perm)
    check(got.to_dense(), np.transpose(A, perm), dtype, f"sparse.transpose({perm})")
    if sd < nd and sd >= 1:
        bad = list(range(nd))
        bad[0], bad[-1] = bad[-1], bad[0]
        with pytest.raises(ValueError):
            paddle.sparse.transpose(s, bad)


def _leaky(x):
    return np.where(x > 0, x, 0.01 * x)


VALUE_OPS = {
    # name: (call, reference, domain)
    "abs": (lambda s: s.abs(), np.abs, None),
    "neg": (lambda s: paddle.sparse.neg(s), np.negative, None),
    "square": (lambda s: paddle.sparse.square(s), np.square, None),
    "sqrt": (lambda s: s.sqrt(), np.sqrt, "pos"),
    "sin": (lambda s: paddle.sparse.sin(s), np.sin, None),
    "tanh": (lambda s: s.tanh(), np.tanh, None),
    "atan": (lambda s: paddle.sparse.atan(s), np.arctan, None),
    "asinh": (lambda s: paddle.sparse.asinh(s), np.arcsinh, None),
    "sinh": (lambda s: paddle.sparse.sinh(s), np.sinh, None),
    "expm1": (lambda s: paddle.sparse.expm1(s), np.expm1, None),
    "log1p": (lambda s: paddle.sparse.log1p(s), np.log1p, "pos"),
    "pow3": (lambda s: paddle.sparse.pow(s, 3), lambda x: x**3, None),
    "pow**2": (lambda s: s**2, np.square, None),
    "relu": (lambda s: paddle.sparse.nn.functional.relu(s), lambda x: np.maximum(x, 0), None),
    "ReLU": (lambda s: paddle.sparse.nn.ReLU()(s), lambda x: np.maximum(x, 0), None),
    "relu6": (lambda s: paddle.sparse.nn.functional.relu6(s), lambda x: np.clip(x, 0, 6), None),
    "leaky_relu": (lambda s: paddle.sparse.nn.functional.leaky_relu(s), _leaky, None),
    "LeakyReLU": (
        lambda s: paddle.sparse.nn.LeakyReLU(0.2)(s),
        lambda x: np.where(x > 0, x, 0.2 * x),
        None,
    ),  # fmt: skip
    "deg2rad": (lambda s: paddle.sparse.deg2rad(s), np.deg2rad, None),
    "relu_method": (lambda s: s.relu(), lambda x: np.maximum(x, 0), None),
}


@FUZZ
@given(st.sampled_from(sorted(VALUE_OPS)), st.data())
def test_value_wise(name, data):
    call, ref, domain = VALUE_OPS[name]
    idx, vals, shape = data.draw(coo_parts(dtypes=FLOATS, max_sparse=3, max_dense=1))
    dtype = vals.dtype.name
    if domain == "pos":
        vals = np.abs(vals)
    s, lay = make_sparse(data, idx, vals, shape)
    ci, cv = ref_coalesce(idx, vals, shape)  # nonlinear ops see the summed duplicates
    with np.errstate(all="ignore"):
        want = ref(cv)
    CALLS["value-wise"] += 1
    got = call(s)
    assert got.layout == s.layout and got.dtype.name == dtype, f"{name}: {got.layout}"
    c = got.to_sparse_coo() if lay == "csr" else got
    np.testing.assert_array_equal(c.indices().numpy(), ci, err_msg=f"{name} pattern")
    check(c.values(), want, dtype, name, 1 + np.abs(want))
    out = np.zeros(shape)
    out[tuple(ci)] = want
    check(got.to_dense(), out, dtype, f"{name} to_dense", 1 + np.abs(out))


@FUZZ
@given(st.data())
def test_reshape_slice_index(data):
    idx, vals, shape = data.draw(coo_parts(max_sparse=3, max_dense=1, min_size=1))
    dtype = vals.dtype.name
    s = build_coo(data, idx, vals, shape)
    A = ref_dense(idx, vals, shape)
    sd = idx.shape[0]
    sparse_shape, dense = list(shape[:sd]), list(shape[sd:])
    # reshape the sparse dims (a hybrid tensor's dense dims stay)
    n = int(np.prod(sparse_shape))
    split = data.draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
    new = [split, n // split] if data.draw(st.booleans()) else [n]
    CALLS["sparse reshape"] += 1
    got = paddle.sparse.reshape(s, new + dense)
    check(got.to_dense(), A.reshape(new + dense), dtype, f"reshape({new + dense})")
    # slice along a random axis
    ax = data.draw(st.integers(0, len(shape) - 1))
    st0 = data.draw(st.integers(-shape[ax] - 1, shape[ax]))
    en = data.draw(st.integers(-shape[ax] - 1, shape[ax] + 1))
    CALLS["sparse slice"] += 1
    got = paddle.sparse.slice(s, [ax], [st0], [en])
    sl = [slice(None)] * len(shape)
    sl[ax] = slice(st0, en)
    check(got.to_dense(), A[tuple(sl)], dtype, f"slice(axis {ax}, {st0}:{en})")
    # select / index_select / []
    d = data.draw(st.integers(0, len(shape) - 1))
    i = data.draw(st.integers(-shape[d], shape[d] - 1))
    CALLS["sparse select"] += 1
    got = densify(s.select(d, i))
    check(got, np.take(A, i, axis=d), dtype, f"select({d}, {i})")
    index = data.draw(st.lists(st.integers(0, shape[d] - 1), max_size=5))
    CALLS["sparse index_select"] += 1
    got = s.index_select(d, fg.tensor(index, dtype=fg.int64))
    check(got.to_dense(), np.take(A, index, axis=d).reshape(
        [len(index) if k == d else shape[k] for k in range(len(shape))]), dtype,
        f"index_select({d}, {index})")  # fmt: skip
    CALLS["sparse getitem"] += 1
    got = densify(s[i % shape[0]])
    check(got, A[i % shape[0]], dtype, "s[i]")


# ------------------------------------------------------------------------ bad input
def _bad_coo(data):
    idx, vals, shape = data.draw(coo_parts(min_size=1, max_dense=0))
    sd, nnz = idx.shape
    kind = data.draw(st.sampled_from(
        ["range", "negative", "nnz", "float_index", "bool_index", "size_rank", "dense_dims",
         "coalesced_flag", "index_1d"]))  # fmt: skip
    if kind in ("range", "negative", "coalesced_flag") and nnz == 0:
        kind = "nnz"
    if kind == "range":
        d = data.draw(st.integers(0, sd - 1))
        idx[d, data.draw(st.integers(0, nnz - 1))] = shape[d] + data.draw(st.integers(0, 3))
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), shape)
    if kind == "negative":
        idx[data.draw(st.integers(0, sd - 1)), data.draw(st.integers(0, nnz - 1))] = -1
        size = shape if data.draw(st.booleans()) else None
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), size)
    if kind == "nnz":
        extra = vals.tolist() + [1] * data.draw(st.integers(1, 2))
        v = torch.tensor(extra[: nnz - 1] if nnz and data.draw(st.booleans()) else extra,
                         dtype=vals.dtype.name)  # fmt: skip
        if v.shape[0] == nnz:
            v = torch.tensor(vals.tolist() + [1], dtype=vals.dtype.name)
        return lambda: paddle.sparse.sparse_coo_tensor(torch.tensor(idx), v, list(shape))
    if kind == "float_index":
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx.astype(np.float32)),
                                               torch.tensor(vals), shape)  # fmt: skip
    if kind == "bool_index":
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx > 0), torch.tensor(vals), shape)
    if kind == "size_rank":
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals),
                                               shape[1:] if sd > 1 else (*shape, 2))  # fmt: skip
    if kind == "dense_dims":
        v2 = np.zeros((nnz, 2), dtype=vals.dtype)
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(v2), (*shape, 3))
    if kind == "index_1d":
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx.reshape(-1)), torch.tensor(vals))
    # is_coalesced=True on indices that are not sorted and unique
    keys = np.ravel_multi_index(tuple(idx), shape)
    if nnz > 1 and (np.diff(keys) <= 0).any():
        return lambda: torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), shape,
                                               is_coalesced=True)  # fmt: skip
    return lambda: torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), shape[:-1])


def _bad_csr(data):
    ref, dtype = data.draw(csr_parts())
    crow, col, vals = ref.indptr.astype(np.int64), ref.indices.astype(np.int64), ref.data
    n, m = ref.shape
    kinds = ["crow_start", "crow_end", "float_col", "short_crow", "values_len"]
    if ref.nnz:
        kinds += ["col_range", "col_negative"]
    if n and ref.nnz:
        kinds += ["crow_decrease"]
    if (np.diff(crow) >= 2).any():
        kinds += ["col_unsorted"]
    kind = data.draw(st.sampled_from(kinds))
    crow, col = crow.copy(), col.copy()
    vals = vals.astype(dtype)
    size = ref.shape
    if kind == "crow_start":
        crow = crow + 1
    elif kind == "crow_end":
        crow[-1] += 1
    elif kind == "crow_decrease":
        r = data.draw(st.integers(1, n))
        crow[r] = crow[r - 1] - 1 if crow[r - 1] > 0 else crow[-1] + 1
    elif kind == "col_range":
        col[data.draw(st.integers(0, len(col) - 1))] = m + data.draw(st.integers(0, 2))
    elif kind == "col_negative":
        col[data.draw(st.integers(0, len(col) - 1))] = -1
    elif kind == "col_unsorted":
        r = int(np.argmax(np.diff(crow) >= 2))
        col[crow[r]], col[crow[r] + 1] = col[crow[r] + 1], col[crow[r]]
    elif kind == "short_crow":
        size = (n + 1, m)
    elif kind == "values_len":
        vals = np.concatenate([vals, np.ones(1, dtype)])
    if kind == "float_col":
        return lambda: torch.sparse_csr_tensor(torch.tensor(crow),
                                               torch.tensor(col.astype(np.float64)),
                                               torch.tensor(vals), size)  # fmt: skip
    return lambda: torch.sparse_csr_tensor(torch.tensor(crow), torch.tensor(col),
                                           torch.tensor(vals), size)  # fmt: skip


@FUZZ
@given(st.data())
def test_invalid_input_raises(data):
    make = _bad_coo(data) if data.draw(st.booleans()) else _bad_csr(data)
    CALLS["invalid input"] += 1
    with pytest.raises((ValueError, IndexError, TypeError, RuntimeError)) as info:
        make()
    assert str(info.value), "an error without a message"
    # ops on mismatched operands: shapes, inner sizes
    idx, vals, shape = data.draw(coo_parts(dtypes=FLOATS, max_dense=0, min_size=1))
    s = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), shape)
    other = torch.sparse_coo_tensor(torch.zeros([len(shape), 0], dtype=fg.int64),
                                    torch.zeros([0], dtype=vals.dtype.name),
                                    tuple(d + 1 for d in shape))  # fmt: skip
    CALLS["invalid input"] += 1
    with pytest.raises((ValueError, RuntimeError)):
        s + other
    with pytest.raises((ValueError, RuntimeError)):
        paddle.sparse.multiply(s, other)
    with pytest.raises(TypeError):
        s + 1.0  # would fill the implicit zeros
    if len(shape) == 2:
        CALLS["invalid input"] += 1
        with pytest.raises((ValueError, RuntimeError)):
            torch.sparse.mm(s, torch.ones(shape[1] + 1, 2, dtype=s.dtype))
        with pytest.raises(ValueError):
            paddle.sparse.pow(s, 0)


# ------------------------------------------------------------------------ regressions
def test_compressed_constructor_no_entries_regression():
    # PyTorch's _validate_sparse_compressed_tensor_args_worker (aten/src/ATen/native/sparse/
    # SparseCsrTensor.cpp) accepts nnz == 0 for every layout and batch shape; without a size,
    # _estimate_sparse_compressed_tensor_size gives compressed = (len(ptr) - 1) * block,
    # plain = 0 (no index), the BSR / BSC block taken from values [*batch, 0, bh, bw]
    empty = torch.zeros([0], dtype=fg.int64)
    csc = torch.sparse_csc_tensor(torch.tensor([0, 0, 0]), empty, torch.zeros([0]), (2, 2))
    assert csc.nnz() == 0 and csc.to_dense().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    crow, col = torch.zeros([2, 3], dtype=fg.int64), torch.zeros([2, 0], dtype=fg.int64)
    batched = torch.sparse_csr_tensor(crow, col, torch.zeros([2, 0]), (2, 2, 2))
    assert batched.nnz() == 0 and list(batched.to_dense().shape) == [2, 2, 2]
    ptr32, empty32 = torch.tensor([0, 0, 0], dtype=fg.int32), torch.zeros([0], dtype=fg.int32)
    for build, grid in ((torch.sparse_bsr_tensor, [4, 0]), (torch.sparse_bsc_tensor, [0, 6])):
        t = build(ptr32, empty32, torch.zeros([0, 2, 3]), (4, 6))
        assert t.nnz() == 0 and t.blocksize == (2, 3) and not t.to_dense().any()
        assert list(build(ptr32, empty32, torch.zeros([0, 2, 3])).shape) == grid
    hybrid = torch.sparse_csr_tensor(ptr32, empty32, torch.zeros([0, 3]), (2, 2, 3))
    assert hybrid.dense_dim() == 1 and list(hybrid.to_dense().shape) == [2, 2, 3]
    no_batch = torch.sparse_csr_tensor(crow[:0], col[:0], torch.zeros([0, 0]), (0, 2, 2))
    assert list(no_batch.to_sparse_coo().shape) == [0, 2, 2]
    with pytest.raises(ValueError, match="divide"):  # the block still has to tile the size
        torch.sparse_bsr_tensor(ptr32, empty32, torch.zeros([0, 2, 3]), (4, 5))


DTYPES_ALL = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128"]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES_ALL)
def test_select_last_sparse_dim_keeps_dtype_regression(dtype):
    # PyTorch's select_sparse (aten/src/ATen/native/TensorShape.cpp) sums the selected
    # values with dtype=values.scalar_type(): x's dtype, never the int64 of a plain sum
    d = getattr(fg, dtype)
    raw = [True, True, False] if dtype == "bool" else [5, 6, 7]
    vals = torch.tensor(raw).to(d)
    s = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1]]), vals, (3,))
    for i in range(3):
        for got in (s.select(0, i), s[i]):
            assert got.dtype == d and got.tolist() == s.to_dense()[i].tolist()
    hybrid = torch.sparse_coo_tensor(torch.tensor([[0, 0]]), torch.ones([2, 2], dtype=d), (2, 2))
    assert hybrid[0].dtype == d and hybrid[0].tolist() == hybrid.to_dense()[0].tolist()
    if dtype == "int32":
        assert int(s.select(0, 0)) == 11
    if dtype == "int8":  # wraps as an int8 sum does
        big = torch.sparse_coo_tensor(torch.tensor([[0, 0]]), torch.tensor([100, 100], dtype=d))
        assert int(big[0]) == -56


def test_to_sparse_hybrid_empty_regression():
    # PyTorch's dense_to_sparse (aten/src/ATen/native/TensorConversions.cpp) returns
    # new_with_dims_sparse(sparse_dim, dims - sparse_dim, sizes) when nothing is nonzero,
    # whatever the sizes (zero ones included)
    s = torch.zeros(0, 3).to_sparse(1)
    assert list(s.shape) == [0, 3] and s.nnz() == 0 and list(s.values().shape) == [0, 3]
    assert s.is_coalesced() and list(s.indices().shape) == [1, 0]
    c = torch.zeros(0, 2, 2).to_sparse_csr(dense_dim=1)
    assert list(c.shape) == [0, 2, 2] and c.nnz() == 0
    for shape in [(2, 0, 3), (0, 2, 2), (2, 3, 0), (2, 2, 0, 2)]:
        x = torch.zeros(*shape)
        for sd in range(1, len(shape) + 1):
            s = x.to_sparse(sd)
            assert s.sparse_dim() == sd and list(s.values().shape) == [0, *shape[sd:]]
            assert list(s.to_dense().shape) == list(shape)
        for dd in range(len(shape) - 1):
            for c in (x.to_sparse_csr(dense_dim=dd), x.to_sparse_csc(dense_dim=dd)):
                assert c.dense_dim() == dd and c.nnz() == 0
                assert list(c.to_dense().shape) == list(shape)
        s = x.to_sparse(len(shape) - 1)  # sparse * dense with a zero-size dense dim
        assert list((s * torch.ones(*shape)).to_dense().shape) == list(shape)
