"""ferrograd.sparse, part 3: the CSC, BSR and BSC layouts and batched / hybrid CSR:
construction (validated), conversions between every layout, products with dense
operands and gradients to the values. References: scipy.sparse and NumPy in float64."""

from __future__ import annotations

import itertools

import ferrograd as fg
import numpy as np
import pytest
import scipy.sparse as sp
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(16)
# a 4 x 6 matrix whose 2 x 2 blocks at columns 2-3 are zero (two empty columns)
A = np.array(
    [
        [0.0, 1.5, 0.0, 0.0, 2.0, 0.0],
        [3.0, 0.0, 0.0, 0.0, 0.0, -1.0],
        [0.0, 0.0, 0.0, 0.0, 4.0, 0.0],
        [-2.0, 0.5, 0.0, 0.0, 0.0, 0.0],
    ]
)
LAYOUTS = [
    (fg.sparse_coo, None),
    (fg.sparse_csr, None),
    (fg.sparse_csc, None),
    (fg.sparse_bsr, (2, 2)),
    (fg.sparse_bsc, (2, 3)),
    (fg.sparse_bsr, (1, 2)),
]


def dense(a=A, requires_grad=False):
    return fg.tensor(a, dtype=fg.float64, requires_grad=requires_grad)


def test_csc_matches_scipy():
    s = dense().to_sparse_csc()
    ref = sp.csc_matrix(A)
    assert s.layout is fg.sparse_csc and not s.is_sparse_csr and s.is_sparse
    np.testing.assert_array_equal(s.ccol_indices().numpy(), ref.indptr)
    np.testing.assert_array_equal(s.row_indices().numpy(), ref.indices)
    np.testing.assert_allclose(s.values().numpy(), ref.data)
    np.testing.assert_allclose(s.to_dense().numpy(), A)
    assert s.nnz() == ref.nnz and s.sparse_dim() == 2 and s.dense_dim() == 0
    with pytest.raises(RuntimeError, match="crow_indices"):
        s.crow_indices()


@pytest.mark.parametrize("layout, fmt", [(fg.sparse_bsr, "bsr"), (fg.sparse_bsc, "bsc")])
def test_block_layouts_match_scipy_bsr(layout, fmt):
    s = dense().to_sparse(layout=layout, blocksize=(2, 2))
    assert s.layout is layout and s.blocksize == (2, 2) and s.values().shape == [4, 2, 2]
    # scipy stores BSR only; BSC of A is BSR of A.T with every block transposed
    ref = sp.bsr_matrix(A if fmt == "bsr" else A.T, blocksize=(2, 2))
    ref.sort_indices()
    blocks = ref.data if fmt == "bsr" else ref.data.transpose(0, 2, 1)
    cidx = s.crow_indices() if fmt == "bsr" else s.ccol_indices()
    pidx = s.col_indices() if fmt == "bsr" else s.row_indices()
    np.testing.assert_array_equal(cidx.numpy(), ref.indptr)
    np.testing.assert_array_equal(pidx.numpy(), ref.indices)
    np.testing.assert_allclose(s.values().numpy(), blocks)
    np.testing.assert_allclose(s.to_dense().numpy(), A)


@pytest.mark.parametrize(
    "src, dst", list(itertools.product(LAYOUTS, LAYOUTS)), ids=lambda p: repr(p)
)
def test_conversions_between_every_layout(src, dst):
    s = dense().to_sparse(layout=src[0], blocksize=src[1])
    t = s.to_sparse(layout=dst[0], blocksize=dst[1])
    assert t.layout is dst[0]
    np.testing.assert_allclose(t.to_dense().numpy(), A)


@pytest.mark.parametrize("layout, blocksize", LAYOUTS[1:])
def test_products_and_gradients_to_the_values(layout, blocksize):
    s = dense().to_sparse(layout=layout, blocksize=blocksize)
    x = RNG.standard_normal((6, 3))
    for out in (fg.sparse.mm(s, dense(x)), fg.mm(s, dense(x)), s @ dense(x), s.matmul(dense(x))):
        np.testing.assert_allclose(out.numpy(), A @ x)
    np.testing.assert_allclose((s @ dense(x[:, 0])).numpy(), A @ x[:, 0])
    vals = s.values().detach().clone().requires_grad_(True)
    X = dense(x, requires_grad=True)
    assert gradcheck(lambda v, b: fg.sparse.mm(s._with_values(v), b), (vals, X))
    assert gradcheck(lambda v: s._with_values(v).to_dense(), (vals,))


def test_block_values_take_gradient_at_stored_zeros():
    # a stored block element that is zero is a value like any other (torch's rule)
    x = dense(requires_grad=True)
    s = x.to_sparse_bsr((2, 2))
    (s.to_dense() * dense(np.arange(24.0).reshape(4, 6))).sum().backward()
    mask = np.kron(np.array([[1, 0, 1], [1, 0, 1]]), np.ones((2, 2)))
    np.testing.assert_allclose(x.grad.numpy(), mask * np.arange(24.0).reshape(4, 6))


def test_constructors_and_leaf_grads():
    s = fg.sparse_csc_tensor([0, 2, 3, 3], [0, 2, 1], [1.0, 2.0, 3.0], (3, 3), dtype=fg.float64)
    ref = sp.csc_matrix((np.array([1.0, 2.0, 3.0]), [0, 2, 1], [0, 2, 3, 3]), shape=(3, 3))
    np.testing.assert_allclose(s.to_dense().numpy(), ref.toarray())
    blocks = RNG.standard_normal((2, 2, 3))
    b = fg.sparse_bsr_tensor([0, 1, 2], [1, 0], blocks, requires_grad=True)
    assert b.shape == [4, 6] and b.is_leaf and b.layout is fg.sparse_bsr
    ref = sp.bsr_matrix((blocks, [1, 0], [0, 1, 2]), shape=(4, 6)).toarray()
    np.testing.assert_allclose(b.to_dense().numpy(), ref)
    w = RNG.standard_normal((4, 6))
    (b.to_dense() * dense(w)).sum().backward()
    assert b.grad.layout is fg.sparse_bsr
    np.testing.assert_allclose(b.grad.to_dense().numpy(), np.where(ref != 0, w, 0.0))
    c = fg.sparse_bsc_tensor([0, 1, 1], [1], blocks[:1], (4, 6))
    np.testing.assert_allclose(c.to_dense().numpy()[2:, :3], blocks[0])
    g = fg.sparse_compressed_tensor([0, 1], [0], [5.0], (1, 1), layout=fg.sparse_csc)
    assert g.layout is fg.sparse_csc and g.to_dense().tolist() == [[5.0]]


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: fg.sparse_csc_tensor([1, 1], [0], [1.0], (1, 1)), "start at 0"),
        (lambda: fg.sparse_csc_tensor([0, 2], [1, 0], [1.0, 2.0], (2, 1)), "strictly"),
        (lambda: fg.sparse_csc_tensor([0, 1], [3], [1.0], (2, 1)), "plain index"),
        (lambda: fg.sparse_csc_tensor([0, 1], [0], [1.0], (2, 2)), "needs 3"),
        (lambda: fg.sparse_bsr_tensor([0, 1], [0], np.ones((1, 2, 2)), (3, 2)), "divide"),
        (lambda: fg.sparse_bsr_tensor([0, 1], [0], np.ones((1, 2)), (2, 2)), "bh, bw"),
        (lambda: fg.sparse_csr_tensor([[0, 1], [0, 2]], [[0], [0]], [[1.0], [1.0]]), "end at"),
        (lambda: fg.zeros([3, 4]).to_sparse_bsr((2, 3)), "does not divide"),
        (lambda: fg.zeros([3, 4]).to_sparse(layout=fg.sparse_bsr), "blocksize"),
        (lambda: fg.zeros([4, 4]).to_sparse_csc().to_sparse(layout="x"), "unknown layout"),
    ],
)
def test_validation_errors(build, match):
    with pytest.raises((ValueError, IndexError, TypeError), match=match):
        build()


def test_batched_csr_follows_torchs_equal_nnz_rule():
    b = np.stack([A, A[::-1] * 2])  # the same nnz in each batch
    s = dense(b).to_sparse_csr()
    assert s.layout is fg.sparse_csr and s.is_sparse_csr and s.shape == [2, 4, 6]
    assert s.crow_indices().shape == [2, 5] and s.values().shape == [2, s.nnz()]
    for k in range(2):
        ref = sp.csr_matrix(b[k])
        np.testing.assert_array_equal(s.crow_indices()[k].numpy(), ref.indptr)
        np.testing.assert_array_equal(s.col_indices()[k].numpy(), ref.indices)
    np.testing.assert_allclose(s.to_dense().numpy(), b)
    x = RNG.standard_normal((2, 6, 2))
    np.testing.assert_allclose(fg.bmm(s, dense(x)).numpy(), b @ x)
    again = fg.sparse_csr_tensor(s.crow_indices(), s.col_indices(), s.values(), (2, 4, 6))
    np.testing.assert_allclose(again.to_dense().numpy(), b)
    vals = s.values().detach().clone().requires_grad_(True)
    assert gradcheck(lambda v: fg.bmm(s._with_values(v), dense(x)), (vals,))
    with pytest.raises(ValueError, match="same number of specified elements"):
        dense(np.stack([A, np.zeros_like(A)])).to_sparse_csr()
    assert dense(b).to_sparse_csc().layout is fg.sparse_csc  # batched CSC too


def test_hybrid_csr_and_value_wise_ops_keep_the_layout():
    h = RNG.standard_normal((4, 6, 2)) * (A != 0)[..., None]
    s = dense(h).to_sparse_csr(dense_dim=1)
    assert s.dense_dim() == 1 and s.values().shape == [s.nnz(), 2]
    np.testing.assert_allclose(s.to_dense().numpy(), h)
    b = dense().to_sparse_bsr((2, 2))
    r = fg.sparse.sin(b)
    assert r.layout is fg.sparse_bsr
    np.testing.assert_allclose(r.to_dense().numpy(), np.sin(A))
    np.testing.assert_allclose((b * 2).to_dense().numpy(), 2 * A)
    np.testing.assert_allclose(fg.sparse.sum(b, 1).to_dense().numpy(), A.sum(1))
    np.testing.assert_allclose((b + b).to_dense().numpy(), 2 * A)
    assert "ccol_indices=" in repr(dense().to_sparse_csc()) and "sparse_bsr" in repr(b)
