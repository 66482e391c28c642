"""ferrograd.sparse, part 1: building COO / CSR tensors in both dialects, conversions
(to_dense, coalesce, to_sparse, to_sparse_csr), queries, validation errors, and what
``.grad`` of a sparse leaf is. References: scipy.sparse and NumPy in float64."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
import scipy.sparse as sp
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(15)
# an uncoalesced pattern: (0, 2) appears twice, entries out of order
IDX = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 3]])
VAL = np.array([1.0, 2.0, 3.0, 4.0, -5.0])
SHAPE = (3, 4)


def coo(values=VAL, requires_grad=False):
    return fg.sparse_coo_tensor(
        IDX, fg.tensor(values, dtype=fg.float64), SHAPE, requires_grad=requires_grad
    )


def scipy_dense(idx=IDX, val=VAL, shape=SHAPE):
    return sp.coo_matrix((val, (idx[0], idx[1])), shape=shape).toarray()


def test_coo_to_dense_sums_duplicates_like_scipy():
    s = coo()
    np.testing.assert_allclose(s.to_dense().numpy(), scipy_dense())
    assert s.layout is fg.sparse_coo and s.is_sparse and s.is_sparse() and s.is_sparse_coo()
    assert not s.is_sparse_csr and s.is_sparse_csr() is False
    assert s.shape == [3, 4] and s.size() == [3, 4] and s.size(1) == 4 and s.ndim == 2
    assert s.nnz() == s._nnz() == 5 and s.sparse_dim() == 2 and s.dense_dim() == 0
    assert s.dtype == fg.float64 and not s.is_coalesced()


def test_coalesce_sorts_and_sums():
    c = coo().coalesce()
    ref = sp.coo_matrix((VAL, (IDX[0], IDX[1])), shape=SHAPE)
    ref.sum_duplicates()  # sorted row-major, duplicates summed
    assert c.is_coalesced() and c.coalesce() is c
    np.testing.assert_array_equal(c.indices().numpy(), np.stack([ref.row, ref.col]))
    np.testing.assert_allclose(c.values().numpy(), ref.data)
    assert fg.sparse.coalesce(coo()).nnz() == 4


def test_paddle_spelling_and_inferred_shape():
    import ferrograd as paddle

    s = paddle.sparse.sparse_coo_tensor(IDX.tolist(), VAL.tolist(), stop_gradient=False)
    assert s.shape == [3, 4] and not s.stop_gradient and s.is_leaf
    assert s.dtype == paddle.float32
    s2 = paddle.sparse.sparse_coo_tensor(IDX, VAL, shape=[5, 6], dtype="float64")
    assert s2.shape == [5, 6] and s2.dtype == paddle.float64 and s2.stop_gradient


def test_hybrid_coo_construction_and_to_dense():
    vals = RNG.standard_normal((5, 2))
    s = fg.sparse_coo_tensor(IDX, fg.tensor(vals), (3, 4, 2))
    assert s.sparse_dim() == 2 and s.dense_dim() == 1
    ref = np.zeros((3, 4, 2))
    np.add.at(ref, (IDX[0], IDX[1]), vals)
    np.testing.assert_allclose(s.to_dense().numpy(), ref)
    np.testing.assert_allclose(s.coalesce().to_dense().numpy(), ref)


def test_dense_to_sparse_and_back():
    d = RNG.standard_normal((3, 4)) * (RNG.random((3, 4)) < 0.5)
    x = fg.tensor(d)
    s = x.to_sparse()
    ref = sp.coo_matrix(d)
    assert s.is_coalesced() and s.nnz() == ref.nnz
    np.testing.assert_array_equal(s.indices().numpy(), np.stack([ref.row, ref.col]))
    np.testing.assert_allclose(s.values().numpy(), ref.data)
    np.testing.assert_allclose(s.to_dense().numpy(), d)
    assert x.to_dense() is x and x.layout is fg.strided and not x.is_sparse
    assert x.is_sparse() is False and x.is_sparse_coo() is False
    # Paddle's hybrid form: rows with any nonzero
    h = x.to_sparse_coo(1)
    assert h.sparse_dim() == 1 and h.values().shape == [int((d != 0).any(1).sum()), 4]
    np.testing.assert_allclose(h.to_dense().numpy(), d)


def test_csr_matches_scipy_both_ways():
    d = scipy_dense()
    ref = sp.csr_matrix(d)
    for c in (
        coo().to_sparse_csr(),
        fg.tensor(d).to_sparse_csr(),
        fg.tensor(d).to_sparse(layout=fg.sparse_csr),
    ):
        assert c.layout is fg.sparse_csr and c.is_sparse_csr and c.is_sparse_csr()
        np.testing.assert_array_equal(c.crow_indices().numpy(), ref.indptr)
        np.testing.assert_array_equal(c.col_indices().numpy(), ref.indices)
        np.testing.assert_allclose(c.values().numpy(), ref.data)
        np.testing.assert_allclose(c.to_dense().numpy(), d)
    built = fg.sparse_csr_tensor(ref.indptr, ref.indices, fg.tensor(ref.data), ref.shape)
    np.testing.assert_allclose(built.to_dense().numpy(), d)
    back = built.to_sparse_coo()
    assert back.is_coalesced()
    np.testing.assert_allclose(back.to_dense().numpy(), d)
    import ferrograd as paddle

    p = paddle.sparse.sparse_csr_tensor(ref.indptr, ref.indices, ref.data, list(ref.shape))
    np.testing.assert_array_equal(p.crows().numpy(), ref.indptr)
    np.testing.assert_array_equal(p.cols().numpy(), ref.indices)


@pytest.mark.parametrize(
    "args, kwargs, err, match",
    [
        (([[0, 3]], [1.0, 2.0], (3,)), {}, IndexError, "out of range"),
        (([[0, -1]], [1.0, 2.0]), {}, IndexError, "non-negative"),
        (([[0.0, 1.0]], [1.0, 2.0]), {}, TypeError, "integers"),
        (([0, 1], [1.0, 2.0]), {}, ValueError, "2-D"),
        (([[0, 1]], [1.0, 2.0, 3.0]), {}, ValueError, "nnz"),
        (([[0, 1]], [[1.0], [2.0]], (3, 2)), {}, ValueError, "does not fit"),
        (([[0, 1]], [1.0, 2.0]), {"size": (3,), "shape": (3,)}, TypeError, "once"),
        (([[1, 0]], [1.0, 2.0], (3,)), {"is_coalesced": True}, ValueError, "sorted"),
    ],
)
def test_coo_validation_errors(args, kwargs, err, match):
    with pytest.raises(err, match=match):
        fg.sparse_coo_tensor(*args, **kwargs)


@pytest.mark.parametrize(
    "crow, col, size, err, match",
    [
        ([1, 2], [0], (1, 2), ValueError, "start at 0"),
        ([0, 2, 1], [0, 1], (2, 2), ValueError, "never decrease"),
        ([0, 1], [5], (1, 2), IndexError, "column"),
        ([0, 2], [1, 0], (1, 2), ValueError, "strictly increasing"),
        ([0, 2], [1, 1], (1, 2), ValueError, "strictly increasing"),
        ([0, 1, 1], [0], (3, 2), ValueError, "entries"),
        ([[0, 1], [0, 1]], [0, 0], (2, 1, 2), ValueError, "same batch dims"),
    ],
)
def test_csr_validation_errors(crow, col, size, err, match):
    n = len(col)
    with pytest.raises(err, match=match):
        fg.sparse_csr_tensor(crow, col, [1.0] * n, size)


def test_leaf_grad_is_sparse_with_the_coalesced_pattern():
    # as torch: S.grad has the pattern of S (duplicates merged) and d loss / d S there
    s = coo(requires_grad=True)
    assert s.is_leaf and s.requires_grad and s.grad is None
    w = RNG.standard_normal(SHAPE)
    (s.to_dense() * fg.tensor(w)).sum().backward()
    g = s.grad
    assert g.layout is fg.sparse_coo and g.nnz() == 4
    expect = np.where(scipy_dense(val=np.ones(5)) > 0, w, 0.0)
    np.testing.assert_allclose(g.to_dense().numpy(), expect)
    # the per-entry gradient: each stored value, duplicates included
    np.testing.assert_allclose(s.values().grad.numpy(), w[IDX[0], IDX[1]])
    s.grad = None
    assert s.grad is None and s.values().grad is None


def test_csr_leaf_grad_and_non_leaf_values_path():
    d = scipy_dense()
    c = fg.tensor(d).to_sparse_csr().detach().requires_grad_()
    (c.to_dense() ** 2).sum().backward()
    assert c.grad.layout is fg.sparse_csr
    np.testing.assert_allclose(c.grad.to_dense().numpy(), 2 * d)
    # values that already require grad: the sparse tensor is a non-leaf result
    v = fg.tensor(VAL, requires_grad=True)
    s = fg.sparse_coo_tensor(IDX, v, SHAPE)
    assert not s.is_leaf and s.requires_grad and s.grad is None and s.grad_fn is not None
    s.to_dense().sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.ones(5))
    with pytest.raises(RuntimeError, match="only a leaf"):
        s.requires_grad_(False)
    # requires_grad=True as well keeps the graph to v (PyTorch: a non-leaf result)
    v.grad = None
    s2 = fg.sparse_coo_tensor(IDX, v, SHAPE, requires_grad=True)
    assert not s2.is_leaf
    (s2.to_dense() * 2).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), 2 * np.ones(5))


def test_gradcheck_to_dense_coalesce_and_dense_to_sparse():
    idx = fg.tensor(IDX)
    v = fg.tensor(VAL, requires_grad=True)
    assert gradcheck(lambda v: fg.sparse_coo_tensor(idx, v, SHAPE).to_dense(), (v,))
    assert gradcheck(lambda v: fg.sparse_coo_tensor(idx, v, SHAPE).coalesce().values(), (v,))
    # the pattern of dense -> sparse depends on which entries are zero, so finite
    # differences need an input without zeros; the zeros' gradient is checked by hand
    full = fg.tensor(RNG.standard_normal((2, 3)) + 5.0, requires_grad=True)
    assert gradcheck(lambda x: x.to_sparse().values() * 2, (full,))
    assert gradcheck(lambda x: x.to_sparse_csr().to_dense(), (full,))
    x = fg.tensor(scipy_dense(), requires_grad=True)
    (x.to_sparse().values() * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * (scipy_dense() != 0))


def test_conversions_and_misuse_name_the_fix():
    s = coo()
    assert s.double().dtype == fg.float64 and s.to(fg.float32).dtype == fg.float32
    assert s.astype("float32").dtype == fg.float32 and s.detach().nnz() == 5
    with pytest.raises(TypeError, match="to_dense"):
        s.numpy()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(s)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fg.zeros([3]).to_sparse_csr()
    with pytest.raises(ValueError, match="sparse_dim"):
        fg.zeros([2, 2]).to_sparse(3)
    assert "indices=" in repr(s) and "sparse_coo" in repr(s)
    assert "crow_indices=" in repr(s.to_sparse_csr())
    empty = fg.sparse_coo_tensor(np.zeros((2, 0), dtype=np.int64), fg.zeros([0]), (2, 2))
    assert empty.nnz() == 0 and empty.to_dense().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert empty.coalesce().nnz() == 0 and empty.to_sparse_csr().crow_indices().tolist() == [
        0,
        0,
        0,
    ]


def test_missing_peer_names_raise_a_clear_attribute_error():
    with pytest.raises(AttributeError, match="does not implement torch.sparse.to_sparse_semi"):
        fg.sparse.to_sparse_semi_structured  # noqa: B018
    with pytest.raises(AttributeError, match="does not implement paddle.sparse.nn.SyncBatchNorm"):
        fg.sparse.nn.SyncBatchNorm  # noqa: B018


def test_legacy_constructors_and_spmm_as_pygcn_writes_them():
    import ferrograd as torch

    i = torch.tensor(IDX)
    s = torch.sparse.FloatTensor(i, torch.tensor(VAL.astype(np.float32)), torch.Size(SHAPE))
    assert s.dtype == torch.float32 and s.layout is torch.sparse_coo
    np.testing.assert_allclose(s.to_dense().numpy(), scipy_dense(), rtol=1e-6)
    x = RNG.standard_normal((4, 2))
    np.testing.assert_allclose(
        torch.spmm(s.double(), torch.tensor(x)).numpy(), scipy_dense() @ x, rtol=1e-6
    )
    empty = torch.sparse.DoubleTensor(2, 3)
    assert empty.shape == [2, 3] and empty.nnz() == 0 and empty.dtype == torch.float64
    with pytest.raises(TypeError, match="sparse"):
        torch.spmm(torch.ones(2, 2), torch.ones(2, 2))


def test_pca_lowrank_is_the_dense_one():
    d = RNG.standard_normal((6, 4)) * (RNG.random((6, 4)) < 0.6)
    fg.manual_seed(0)
    u, s, v = fg.sparse.pca_lowrank(fg.tensor(d).to_sparse(), q=2)
    fg.manual_seed(0)
    u2, s2, v2 = fg.linalg.pca_lowrank(fg.tensor(d), q=2)
    np.testing.assert_allclose(s.numpy(), s2.numpy())
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(v2.numpy()))
