"""ferrograd.sparse, part 2: products (sparse @ dense, batched, dense @ sparse, sparse @
sparse, addmm, masked_matmul), elementwise ops, sum and softmax over stored entries, in
both dialects' spellings. Values against scipy.sparse / NumPy in float64, gradients of
the values and dense operands with gradcheck."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
import scipy.sparse as sp
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1515)
IDX = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 3]])  # (0, 2) twice
VAL = np.array([1.0, 2.0, 3.0, 4.0, -5.0])
SHAPE = (3, 4)
REF = sp.coo_matrix((VAL, (IDX[0], IDX[1])), shape=SHAPE)


def coo(values=None, idx=IDX, shape=SHAPE):
    v = fg.tensor(VAL) if values is None else values
    return fg.sparse_coo_tensor(idx, v, shape)


def layouts():
    return [coo(), coo().to_sparse_csr()]


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_times_dense_matches_scipy_every_spelling(layout):
    s = coo() if layout == "coo" else coo().to_sparse_csr()
    x = RNG.standard_normal((4, 2))
    ref = REF @ x
    X = fg.tensor(x)
    import ferrograd as paddle
    import ferrograd as torch

    for out in (
        torch.sparse.mm(s, X), torch.mm(s, X), torch.matmul(s, X), s @ X, s.mm(X),
        paddle.sparse.matmul(s, X), paddle.matmul(s, X),
    ):  # fmt: skip
        assert out.layout is fg.strided
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    v = RNG.standard_normal(4)
    np.testing.assert_allclose((s @ fg.tensor(v)).numpy(), REF @ v)
    np.testing.assert_allclose(paddle.sparse.mv(s, fg.tensor(v)).numpy(), REF @ v)
    np.testing.assert_allclose(fg.matmul(fg.tensor(x.T), s.t()).numpy(), x.T @ REF.T.toarray())
    y = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(fg.mm(fg.tensor(y), s).numpy(), y @ REF.toarray())


def test_gradients_of_sparse_mm_values_and_dense_operand():
    idx = fg.tensor(IDX)
    v = fg.tensor(VAL, requires_grad=True)
    x = fg.tensor(RNG.standard_normal((4, 2)), requires_grad=True)

    def f(v, x):
        return fg.sparse.mm(fg.sparse_coo_tensor(idx, v, SHAPE), x)

    assert gradcheck(f, (v, x))
    assert gradcheck(lambda v, x: f(v, x).sum(), (v, x))
    assert gradgradcheck(f, (v, x))
    # torch's result: values.grad[i] = sum_k g[row_i, k] * x[col_i, k]
    f(v, x).sum().backward()
    xs = x.detach().numpy()
    np.testing.assert_allclose(v.grad.numpy(), xs[IDX[1]].sum(1))
    np.testing.assert_allclose(x.grad.numpy(), REF.T @ np.ones((3, 2)))
    # a sparse leaf: .grad is sparse with the (coalesced) pattern
    s = fg.sparse_coo_tensor(IDX, fg.tensor(VAL), SHAPE, requires_grad=True)
    fg.sparse.mm(s, fg.tensor(xs)).sum().backward()
    c = REF.tocsr()
    c.sum_duplicates()
    assert s.grad.nnz() == c.nnz
    np.testing.assert_allclose(s.grad.to_dense().numpy(), (c != 0).toarray() * xs.sum(1))


def test_csr_gradcheck_and_batched_coo():
    ref = REF.tocsr()
    ref.sum_duplicates()
    crow, col = fg.tensor(ref.indptr), fg.tensor(ref.indices)
    v = fg.tensor(ref.data, requires_grad=True)
    x = fg.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    assert gradcheck(lambda v, x: fg.sparse_csr_tensor(crow, col, v, SHAPE) @ x, (v, x))
    # batched: [2, 3, 4] sparse @ [2, 4, 2] dense (torch.bmm / paddle.sparse.matmul)
    d = RNG.standard_normal((2, 3, 4)) * (RNG.random((2, 3, 4)) < 0.4)
    y = RNG.standard_normal((2, 4, 2))
    s = fg.tensor(d).to_sparse()
    np.testing.assert_allclose(fg.bmm(s, fg.tensor(y)).numpy(), d @ y, rtol=1e-12)
    bi = s.indices()
    bv = fg.tensor(s.values().numpy(), requires_grad=True)
    Y = fg.tensor(y, requires_grad=True)
    assert gradcheck(
        lambda v, y: fg.sparse.matmul(fg.sparse_coo_tensor(bi, v, (2, 3, 4)), y), (bv, Y)
    )


def test_sparse_times_sparse_and_addmm():
    b = sp.random(4, 3, density=0.5, random_state=3, format="coo")
    sb = fg.sparse_coo_tensor(np.stack([b.row, b.col]), fg.tensor(b.data), b.shape)
    out = fg.sparse.mm(coo(), sb)
    assert out.layout is fg.sparse_coo and out.is_coalesced()
    np.testing.assert_allclose(out.to_dense().numpy(), (REF @ b).toarray(), rtol=1e-12)
    both = fg.sparse.matmul(coo().to_sparse_csr(), sb.to_sparse_csr())
    assert both.layout is fg.sparse_csr
    np.testing.assert_allclose(both.to_dense().numpy(), (REF @ b).toarray(), rtol=1e-12)
    bi, bvals = sb.indices(), fg.tensor(b.data, requires_grad=True)
    va = fg.tensor(VAL, requires_grad=True)
    assert gradcheck(
        lambda va, vb: fg.sparse.mm(coo(va), fg.sparse_coo_tensor(bi, vb, b.shape)).to_dense(),
        (va, bvals),
    )
    x = RNG.standard_normal((4, 2))
    m = RNG.standard_normal((3, 2))
    expect = 0.5 * m + 2.0 * (REF @ x)
    for fn in (fg.sparse.addmm, fg.addmm):
        got = fn(fg.tensor(m), coo(), fg.tensor(x), beta=0.5, alpha=2.0)
        np.testing.assert_allclose(got.numpy(), expect, rtol=1e-12)
    nan = fg.full([3, 2], float("nan"), dtype=fg.float64)
    assert not np.isnan(fg.sparse.addmm(nan, coo(), fg.tensor(x), beta=0).numpy()).any()


def test_masked_matmul_and_sampled_addmm():
    x, y = RNG.standard_normal((3, 5)), RNG.standard_normal((5, 4))
    mask = coo()
    out = fg.sparse.masked_matmul(fg.tensor(x), fg.tensor(y), mask)
    pattern = REF.toarray() != 0
    np.testing.assert_allclose(out.to_dense().numpy(), (x @ y) * pattern, rtol=1e-12)
    got = fg.sparse.sampled_addmm(mask.to_sparse_csr(), fg.tensor(x), fg.tensor(y), beta=2.0)
    np.testing.assert_allclose(got.to_dense().numpy(), 2 * REF.toarray() + (x @ y) * pattern)
    X = fg.tensor(x, requires_grad=True)
    Y = fg.tensor(y, requires_grad=True)
    assert gradcheck(lambda a, b: fg.sparse.masked_matmul(a, b, mask).values(), (X, Y))


def test_product_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"\[4, k\]"):
        fg.sparse.mm(coo(), fg.zeros([3, 2], dtype=fg.float64))
    hybrid = fg.sparse_coo_tensor(IDX, fg.zeros([5, 2]), (3, 4, 2))
    with pytest.raises(NotImplementedError, match="hybrid"):
        fg.sparse.mm(hybrid, fg.zeros([4, 2]))
    with pytest.raises(NotImplementedError, match="reduce"):
        fg.sparse.mm(coo(), fg.zeros([4, 2]), reduce="amax")


def test_add_subtract_multiply_divide():
    a = REF.toarray()
    other = sp.random(3, 4, density=0.5, random_state=7, format="coo")
    o = fg.sparse_coo_tensor(np.stack([other.row, other.col]), fg.tensor(other.data), SHAPE)
    b = other.toarray()
    import ferrograd as paddle

    for x, y in ((coo(), o), (coo().to_sparse_csr(), o.to_sparse_csr())):
        layout = x.layout
        for got, want in (
            (x + y, a + b), (paddle.sparse.add(x, y), a + b), (x - y, a - b),
            (paddle.sparse.subtract(x, y), a - b), (paddle.sparse.multiply(x, y), a * b),
            (x * y, a * b), (x * 3.0, 3 * a), (2 * x, 2 * a), (x / 4.0, a / 4), (-x, -a),
        ):  # fmt: skip
            assert got.layout is layout
            np.testing.assert_allclose(got.to_dense().numpy(), want, rtol=1e-12)
    # same pattern division (Paddle), sparse * dense (sparse result), sparse + dense (dense)
    c = coo().coalesce()
    np.testing.assert_allclose(paddle.sparse.divide(c, c * 2.0).values().numpy(), 0.5)
    d = RNG.standard_normal((3, 4))
    np.testing.assert_allclose((coo() * fg.tensor(d)).to_dense().numpy(), a * d)
    np.testing.assert_allclose((coo() + fg.tensor(d)).numpy(), a + d)
    row = fg.tensor(d[0])
    np.testing.assert_allclose((coo() * row).to_dense().numpy(), a * d[0])
    with pytest.raises(TypeError, match="implicit zero"):
        coo() + 1.0
    with pytest.raises(ValueError, match="same sparsity"):
        fg.sparse.divide(coo(), o)
    with pytest.raises(ValueError, match="same shape"):
        coo() + fg.tensor([[1.0]]).to_sparse()


def test_elementwise_gradients():
    v = fg.tensor(VAL, requires_grad=True)
    w = fg.tensor(RNG.standard_normal(4), requires_grad=True)
    idx = fg.tensor(IDX)
    oi = fg.tensor([[0, 2, 1], [2, 3, 3]])

    def f(v, w):
        s = fg.sparse_coo_tensor(idx, v, SHAPE)
        o = fg.sparse_coo_tensor(oi, w[:3], SHAPE)
        return ((s + o) * s * 0.5).to_dense() + (s * w).to_dense()

    assert gradcheck(f, (v, w))


@pytest.mark.parametrize("name", ["abs", "sin", "tanh", "sqrt", "square", "expm1", "relu", "neg"])
def test_value_wise_ops_coalesce_first_and_keep_zeros(name):
    a = REF.toarray()
    special = {"relu": lambda z: np.maximum(z, 0), "neg": np.negative}
    fn = special[name] if name in special else getattr(np, name)
    arg = coo().abs() if name == "sqrt" else coo()
    ref_in = np.abs(a) if name == "sqrt" else a
    op = fg.sparse.nn.functional.relu if name == "relu" else getattr(fg.sparse, name)
    for out in (op(arg), getattr(arg, name)(), op(arg.to_sparse_csr())):
        np.testing.assert_allclose(out.to_dense().numpy(), fn(ref_in), rtol=1e-12)
    v = fg.tensor(np.abs(VAL) + 0.5, requires_grad=True)
    assert gradcheck(lambda v: op(coo(v)).values(), (v,))


def test_pow_cast_transpose_and_layers():
    a = REF.toarray()
    np.testing.assert_allclose(fg.sparse.pow(coo(), 3).to_dense().numpy(), a**3)
    with pytest.raises(ValueError, match="positive"):
        fg.sparse.pow(coo(), 0)
    assert fg.sparse.cast(coo(), "int64", "float32").dtype == fg.float32
    t = fg.sparse.transpose(coo(), [1, 0])
    assert not t.is_coalesced() and t.shape == [4, 3]
    np.testing.assert_allclose(t.to_dense().numpy(), a.T)
    np.testing.assert_allclose(coo().t().to_dense().numpy(), a.T)
    np.testing.assert_allclose(coo().to_sparse_csr().t().to_dense().numpy(), a.T)
    h = fg.sparse_coo_tensor(IDX, fg.tensor(RNG.standard_normal((5, 2, 3))), (3, 4, 2, 3))
    np.testing.assert_allclose(
        fg.sparse.transpose(h, [1, 0, 3, 2]).to_dense().numpy(),
        h.to_dense().numpy().transpose(1, 0, 3, 2),
    )
    with pytest.raises(ValueError, match="mixes"):
        fg.sparse.transpose(h, [2, 1, 0, 3])
    np.testing.assert_allclose(fg.sparse.nn.ReLU()(coo()).to_dense().numpy(), np.maximum(a, 0))
    lk = fg.sparse.nn.LeakyReLU(0.1)(coo())
    np.testing.assert_allclose(lk.to_dense().numpy(), np.where(a > 0, a, 0.1 * a))


def test_sum_both_dialects():
    a = REF.toarray()
    s = coo()
    total = fg.sparse.sum(s)
    assert total.layout is fg.strided and total.ndim == 0
    assert total.item() == pytest.approx(a.sum())
    for dim in (0, 1, -1):
        r = fg.sparse.sum(s, dim)
        assert r.layout is fg.sparse_coo and r.is_coalesced()
        np.testing.assert_allclose(r.to_dense().numpy(), a.sum(dim))
    both = fg.sparse.sum(s, (0, 1))
    assert both.layout is fg.strided and both.item() == pytest.approx(a.sum())
    kept = fg.sparse.sum(s, axis=1, keepdim=True)
    assert kept.shape == [3, 1]
    np.testing.assert_allclose(kept.to_dense().numpy(), a.sum(1, keepdims=True))
    assert fg.sparse.sum(s, keepdim=True).shape == [1, 1]
    assert s.sum(dim=0).shape == [4]
    h = fg.sparse_coo_tensor(IDX, fg.tensor(RNG.standard_normal((5, 2))), (3, 4, 2))
    hd = h.to_dense().numpy()
    np.testing.assert_allclose(fg.sparse.sum(h, 0).to_dense().numpy(), hd.sum(0))
    np.testing.assert_allclose(fg.sparse.sum(h, 2).to_dense().numpy(), hd.sum(2))
    np.testing.assert_allclose(fg.sparse.sum(h, [0, 1]).numpy(), hd.sum((0, 1)))
    assert fg.sparse.sum(coo().to_sparse_csr(), 1).shape == [3]
    v = fg.tensor(VAL, requires_grad=True)
    assert gradcheck(lambda v: fg.sparse.sum(coo(v), 1).to_dense(), (v,))


def _np_sparse_softmax(dense, present, axis, log=False):
    top = np.max(dense, axis, keepdims=True, initial=-np.inf, where=present)
    z = np.where(present, dense - np.where(np.isfinite(top), top, 0.0), -np.inf)
    e = np.where(present, np.exp(z), 0.0)
    out = e / np.where(present, e.sum(axis, keepdims=True), 1.0)
    if log:
        return np.where(present, np.log(np.where(present, out, 1.0)), 0.0)
    return out


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_over_stored_entries(dim):
    c = coo().coalesce()
    dense = c.to_dense().numpy()
    present = c.to_dense().numpy() != 0
    for got in (fg.sparse.softmax(coo(), dim), fg.sparse.nn.functional.softmax(c, axis=dim)):
        np.testing.assert_allclose(got.to_dense().numpy(), _np_sparse_softmax(dense, present, dim))
    lg = fg.sparse.log_softmax(coo(), dim)
    np.testing.assert_allclose(lg.to_dense().numpy(), _np_sparse_softmax(dense, present, dim, True))
    csr = fg.sparse.nn.Softmax(axis=dim)(c.to_sparse_csr())
    assert csr.layout is fg.sparse_csr
    np.testing.assert_allclose(csr.to_dense().numpy(), _np_sparse_softmax(dense, present, dim))
    v = fg.tensor(c.values().numpy(), requires_grad=True)
    ci = c.indices()

    def soft(v):
        return fg.sparse.softmax(fg.sparse_coo_tensor(ci, v, SHAPE), dim).values()

    assert gradcheck(soft, (v,)) and gradgradcheck(soft, (v,))


def test_softmax_of_a_hybrid_tensor_and_large_values():
    h = fg.sparse_coo_tensor(IDX, fg.tensor(RNG.standard_normal((5, 3)) * 800), (3, 4, 3))
    c = h.coalesce()
    d = c.to_dense().numpy()
    present = np.broadcast_to((d != 0).any(-1, keepdims=True), d.shape)
    np.testing.assert_allclose(
        fg.sparse.softmax(h, 0).to_dense().numpy(), _np_sparse_softmax(d, present, 0)
    )
    np.testing.assert_allclose(
        fg.sparse.softmax(h, 2).to_dense().numpy(), _np_sparse_softmax(d, present, 2)
    )


def test_top_level_products_take_both_dialects_arguments_with_a_sparse_operand():
    a = REF.toarray()
    x = RNG.standard_normal((4, 3))
    m = RNG.standard_normal((3, 3))
    s, X, M = coo(), fg.tensor(x), fg.tensor(m)
    # paddle.addmm(input, x, y, beta, alpha) positionally and with x= / y=
    np.testing.assert_allclose(fg.addmm(M, s, X, 0.5, 2.0).numpy(), 0.5 * m + 2 * a @ x)
    np.testing.assert_allclose(fg.addmm(M, x=s, y=X).numpy(), m + a @ x)
    # paddle.matmul(x, y, transpose_x, transpose_y)
    np.testing.assert_allclose(fg.matmul(s, fg.tensor(x.T), False, True).numpy(), a @ x)
    np.testing.assert_allclose(
        fg.matmul(X, s, transpose_x=True, transpose_y=True).numpy(), x.T @ a.T
    )
    # dense calls still reach the dense functions
    assert fg.matmul(M, M).tolist() == (M @ M).tolist()


def test_method_spellings_and_devices():
    a = REF.toarray()
    s = coo()
    np.testing.assert_allclose(s.add(s, alpha=2).to_dense().numpy(), 3 * a)
    np.testing.assert_allclose(s.sub(s).to_dense().numpy(), 0 * a)
    np.testing.assert_allclose(s.mul(2.0).to_dense().numpy(), 2 * a)
    np.testing.assert_allclose(s.div(2.0).to_dense().numpy(), a / 2)
    np.testing.assert_allclose(s.multiply(s).to_dense().numpy(), a * a)
    assert s.cpu() is s and not s.is_cuda
    assert fg.sparse_coo_tensor(IDX, VAL, SHAPE, device="cpu").nnz() == 5
    with pytest.raises(ValueError, match="CPU only"):
        fg.sparse_coo_tensor(IDX, VAL, SHAPE, device="cuda")
    with pytest.raises(RuntimeError, match="CPU only"):
        s.cuda()


@pytest.mark.parametrize(
    "shape, sd", [((5,), 1), ((3, 4), 1), ((3, 4), 2), ((2, 3, 4), 2), ((2, 3, 4), 3)]
)
@pytest.mark.parametrize("nnz", [0, 1, 7])
def test_random_patterns_against_numpy(shape, sd, nnz):
    # empty tensors, single entries, duplicates, hybrid dims: every op against np.add.at
    rng = np.random.default_rng(nnz * 10 + sd)
    idx = np.stack([rng.integers(0, s, nnz) for s in shape[:sd]])
    vals = rng.standard_normal((nnz, *shape[sd:]))
    s = fg.sparse_coo_tensor(idx, vals, shape)
    d = np.zeros(shape)
    np.add.at(d, tuple(idx), vals)

    def dense(t):
        return t.to_dense().numpy() if isinstance(t, fg.sparse.SparseTensor) else t.numpy()

    np.testing.assert_allclose(s.to_dense().numpy(), d)
    np.testing.assert_allclose(s.coalesce().to_dense().numpy(), d)
    np.testing.assert_allclose(fg.tensor(d).to_sparse(sd).to_dense().numpy(), d)
    assert fg.sparse.sum(s).item() == pytest.approx(d.sum())
    for dim in range(len(shape)):
        np.testing.assert_allclose(dense(fg.sparse.sum(s, dim)), d.sum(dim), atol=1e-12)
        kept = fg.sparse.sum(s, axis=dim, keepdim=True)
        np.testing.assert_allclose(dense(kept), d.sum(dim, keepdims=True), atol=1e-12)
        assert fg.sparse.softmax(s, dim).nnz() == s.coalesce().nnz()
    perm = list(range(sd))[::-1] + list(range(sd, len(shape)))
    np.testing.assert_allclose(fg.sparse.transpose(s, perm).to_dense().numpy(), d.transpose(perm))
    if len(shape) == sd == 2:
        x = rng.standard_normal((shape[1], 3))
        np.testing.assert_allclose((s @ fg.tensor(x)).numpy(), d @ x, atol=1e-12)
        np.testing.assert_allclose(s.to_sparse_csr().to_dense().numpy(), d)
        np.testing.assert_allclose(fg.sparse.mm(s, s.t()).to_dense().numpy(), d @ d.T, atol=1e-12)
        np.testing.assert_allclose((s * s).to_dense().numpy(), d * d)
    if len(shape) == sd == 3:
        x = rng.standard_normal((shape[0], shape[2], 2))
        np.testing.assert_allclose(fg.bmm(s, fg.tensor(x)).numpy(), d @ x, atol=1e-12)
