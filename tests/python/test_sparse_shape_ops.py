"""ferrograd.sparse, part 4: Paddle's sparse.reshape / sparse.slice, PyTorch's indexing
(s[i], select, index_select), spdiags, check_sparse_tensor_invariants,
as_sparse_gradcheck, and save / load of sparse tensors. References: NumPy / SciPy in
float64 (the expected patterns were compared once with Paddle 3.3.1 and torch 2.15)."""

from __future__ import annotations

import io

import ferrograd as fg
import numpy as np
import pytest
import scipy.sparse as sp
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(17)
BASE = np.arange(24.0).reshape(2, 3, 4)
D = BASE * (BASE % 3 == 0)  # 7 nonzeros (0 is not stored)


def t(a, requires_grad=False):
    return fg.tensor(a, dtype=fg.float64, requires_grad=requires_grad)


def test_reshape_coo_matches_paddle_and_numpy():
    x = t(D).to_sparse_coo(3)
    y = fg.sparse.reshape(x, [4, 6])
    # Paddle 3.3.1 gives these indices for the same call
    assert y.indices().tolist() == [[0, 1, 1, 2, 2, 3, 3], [3, 0, 3, 0, 3, 0, 3]]
    np.testing.assert_allclose(y.to_dense().numpy(), D.reshape(4, 6))
    np.testing.assert_allclose(fg.sparse.reshape(x, [0, -1]).to_dense().numpy(), D.reshape(2, 12))
    hybrid = fg.sparse.reshape(t(D).to_sparse_coo(2), [3, 2, 4])
    assert hybrid.sparse_dim() == 2 and hybrid.shape == [3, 2, 4]
    np.testing.assert_allclose(hybrid.to_dense().numpy(), D.reshape(3, 2, 4))
    v = x.values().detach().clone().requires_grad_(True)
    assert gradcheck(lambda w: fg.sparse.reshape(x._with_values(w), [6, 4]).to_dense(), (v,))
    with pytest.raises(ValueError, match="dense dims"):
        fg.sparse.reshape(t(D).to_sparse_coo(2), [6, 2, 2])
    with pytest.raises(ValueError, match="cannot"):
        fg.sparse.reshape(x, [5, 5])


def test_reshape_and_slice_keep_csr():
    c = t(D[0]).to_sparse_csr()
    r = fg.sparse.reshape(c, [2, 6])
    assert r.layout is fg.sparse_csr and r.crow_indices().tolist() == [0, 1, 3]
    np.testing.assert_allclose(r.to_dense().numpy(), D[0].reshape(2, 6))
    s = fg.sparse.slice(c, [1], [1], [3])
    assert s.layout is fg.sparse_csr and s.shape == [3, 2]
    assert s.crow_indices().tolist() == [0, 0, 1, 2] and s.col_indices().tolist() == [1, 0]
    b = fg.sparse.slice(t(D[0]).to_sparse_bsr((1, 2)), [0], [1], [3])
    assert b.layout is fg.sparse_bsr
    np.testing.assert_allclose(b.to_dense().numpy(), D[0, 1:3])


def test_slice_coo_python_rules_and_gradients():
    x = t(D).to_sparse_coo(3)
    s = fg.sparse.slice(x, [0, 2], [0, 1], [1, -1])
    assert s.shape == [1, 3, 2] and s.indices().tolist() == [[0, 0], [1, 2], [1, 0]]
    np.testing.assert_allclose(s.to_dense().numpy(), D[0:1, :, 1:-1])
    np.testing.assert_allclose(
        fg.sparse.slice(x, [1], [-2], [100]).to_dense().numpy(), D[:, -2:100]
    )
    h = fg.sparse.slice(t(D).to_sparse_coo(2), [2, 0], [1, 1], [3, 2])  # a dense axis too
    np.testing.assert_allclose(h.to_dense().numpy(), D[1:2, :, 1:3])
    v = x.values().detach().clone().requires_grad_(True)
    assert gradcheck(
        lambda w: fg.sparse.slice(x._with_values(w), [1, 2], [1, 0], [3, 2]).to_dense(), (v,)
    )


def test_indexing_select_and_index_select_on_coo():
    x = t(D).to_sparse_coo(3)
    assert x[1].layout is fg.sparse_coo and x[1].shape == [3, 4]
    np.testing.assert_allclose(x[1].to_dense().numpy(), D[1])
    np.testing.assert_allclose(x[1, 2].to_dense().numpy(), D[1, 2])
    np.testing.assert_allclose(x[-1, 1:3].to_dense().numpy(), D[-1, 1:3])
    np.testing.assert_allclose(x[1, 2, 3].numpy(), D[1, 2, 3])  # no sparse dim left: dense
    np.testing.assert_allclose(x.select(2, 3).to_dense().numpy(), D[:, :, 3])
    np.testing.assert_allclose(x[[1, 0, 1]].to_dense().numpy(), D[[1, 0, 1]])
    idx = fg.tensor([3, 0, 3, 2])
    got = x.index_select(2, idx)
    np.testing.assert_allclose(got.to_dense().numpy(), D[:, :, [3, 0, 3, 2]])
    hybrid = t(D).to_sparse_coo(1)
    np.testing.assert_allclose(hybrid.select(2, 1).to_dense().numpy(), D[:, :, 1])
    np.testing.assert_allclose(
        hybrid.index_select(1, fg.tensor([2, 2])).to_dense().numpy(), D[:, [2, 2]]
    )
    v = x.values().detach().clone().requires_grad_(True)
    assert gradcheck(lambda w: x._with_values(w).index_select(2, idx[:3]).to_dense(), (v,))
    with pytest.raises(IndexError, match="out of range"):
        x[2]
    with pytest.raises(IndexError, match="out of range"):
        x.index_select(0, fg.tensor([0, 2]))
    with pytest.raises(NotImplementedError, match="step"):
        x[::2]
    with pytest.raises(NotImplementedError, match="to_sparse_coo"):
        t(D[0]).to_sparse_csr()[0]


def test_spdiags_matches_scipy_and_torch():
    d = np.arange(1.0, 13.0).reshape(3, 4)
    s = fg.sparse.spdiags(t(d), fg.tensor([0, -1, 2]), (4, 4))
    np.testing.assert_allclose(s.to_dense().numpy(), sp.spdiags(d, [0, -1, 2], 4, 4).toarray())
    # torch 2.15's order: diagonal by diagonal, uncoalesced
    assert not s.is_coalesced() and s.values().tolist() == [1, 2, 3, 4, 5, 6, 7, 11, 12]
    c = fg.sparse.spdiags(t(d[:2]), [0, 1], (3, 5), layout=fg.sparse_csr)
    assert c.layout is fg.sparse_csr
    np.testing.assert_allclose(c.to_dense().numpy(), sp.spdiags(d[:2], [0, 1], 3, 5).toarray())
    assert gradcheck(lambda w: fg.sparse.spdiags(w, [1, -2], (5, 3)).to_dense(), (t(d[:2], True),))
    with pytest.raises(ValueError, match="does not match"):
        fg.sparse.spdiags(t(d), [0, 1], (4, 4))
    with pytest.raises(ValueError, match="duplicate"):
        fg.sparse.spdiags(t(d[:2]), [1, 1], (4, 4))


def test_check_sparse_tensor_invariants_is_always_on():
    inv = fg.sparse.check_sparse_tensor_invariants
    assert inv.is_enabled()
    inv.disable()
    assert inv.is_enabled()  # ferrograd cannot skip the checks
    with inv(False):
        with pytest.raises(ValueError, match="start at 0"):
            fg.sparse_csr_tensor([1, 1], [0], [1.0], (1, 1))

    @inv()
    def build():
        return fg.sparse_coo_tensor([[0, 3]], [1.0, 2.0], (3,))

    with pytest.raises(IndexError, match="out of range"):
        build()


def test_as_sparse_gradcheck_checks_stored_and_implicit_entries():
    check = fg.sparse.as_sparse_gradcheck(gradcheck)
    x = t([[0.0, 1.0], [2.0, 3.0]]).to_sparse_coo().requires_grad_(True)
    assert check(lambda s: s.to_sparse_csr(), x)
    w = t(RNG.standard_normal((2, 3)))
    assert check(lambda s: fg.sparse.mm(s, w), x)
    assert check(lambda s: fg.sparse.mm(s, w), x, masked=True)
    b = t(np.eye(4)).to_sparse_bsr(2).requires_grad_(True)
    assert check(lambda s: fg.sparse.sin(s), b)
    # a wrong gradient is caught: relu's value-wise kink at an implicit zero is fine, but
    # a function that is not what its gradient says fails
    with pytest.raises(Exception, match=r"(?i)jacobian|gradient"):
        check(lambda s: _wrong(s), x)


def _wrong(s):
    v = s.values()
    return s._with_values(v.detach() * v.detach() + v)  # gradient of v*v is missing


def test_save_and_load_round_trip_every_layout():
    x = t(RNG.standard_normal((4, 6)) * (RNG.random((4, 6)) < 0.4))
    objs = {
        "coo": t(D).to_sparse_coo(2),
        "uncoalesced": fg.sparse_coo_tensor([[0, 0, 1]], [1.0, 2.0, 3.0], (2,)),
        "csr": x.to_sparse_csr(),
        "csc": x.to_sparse_csc(),
        "bsr": [x.to_sparse_bsr((2, 3))],
        "bsc": (x.to_sparse_bsc(2),),
        "batched": t(np.stack([np.eye(3), 2 * np.eye(3)])).to_sparse_csr(),
        "leaf": x.to_sparse().requires_grad_(True),
        "dense": x,
    }
    buf = io.BytesIO()
    fg.save(objs, buf)
    buf.seek(0)
    back = fg.load(buf)
    for key, obj in objs.items():
        a = obj[0] if isinstance(obj, (list, tuple)) else obj
        b = back[key][0] if isinstance(obj, (list, tuple)) else back[key]
        assert type(back[key]) is type(obj)
        assert a.layout is b.layout and list(a.shape) == list(b.shape)
        np.testing.assert_array_equal(a.to_dense().detach().numpy(), b.to_dense().numpy())
    assert back["leaf"].is_leaf and back["leaf"].requires_grad
    assert not back["uncoalesced"].is_coalesced() and back["uncoalesced"].nnz() == 3
    assert back["coo"].is_coalesced() and back["bsr"][0].blocksize == (2, 3)


def test_load_revalidates_sparse_parts(tmp_path):
    import json
    import zipfile

    path = tmp_path / "s.npz"
    fg.save({"s": fg.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,))}, path)
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(np.load(io.BytesIO(members["__ferrograd__.npy"])).tobytes())
    manifest["root"]["items"][0][1]["shape"] = [1]  # index 1 no longer fits
    raw = io.BytesIO()
    np.save(raw, np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8))
    members["__ferrograd__.npy"] = raw.getvalue()
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in members.items():
            zf.writestr(n, data)
    with pytest.raises(ValueError, match="sparse tensor at"):
        fg.load(path)


def test_mask_as_takes_the_dense_values_at_the_pattern():
    csr = fg.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1.0] * 5, [3, 4])
    x = t(np.arange(12.0).reshape(3, 4), True)
    out = fg.sparse.mask_as(x, csr)
    assert out.layout is fg.sparse_csr and out.values().tolist() == [1.0, 3.0, 6.0, 8.0, 9.0]
    bsr = t(np.eye(4)).to_sparse_bsr(2)
    np.testing.assert_allclose(
        fg.sparse.mask_as(t(np.ones((4, 4)) * 2), bsr).to_dense().numpy(),
        2 * np.kron(np.eye(2), np.ones((2, 2))),
    )
    coo = fg.sparse_coo_tensor([[1, 0, 1]], [1.0, 1.0, 1.0], (3,))  # uncoalesced
    got = fg.sparse.mask_as(t([5.0, 6.0, 7.0]), coo)
    assert got.is_coalesced() and got.values().tolist() == [5.0, 6.0]
    assert gradcheck(lambda a: fg.sparse.mask_as(a, csr).values(), (x,))
    with pytest.raises(ValueError, match="differ in shape"):
        fg.sparse.mask_as(t(np.ones((2, 2))), csr)


def test_spsolve_is_the_dense_solve():
    a = np.array([[4.0, 0.0, 1.0], [0.0, 3.0, 0.0], [1.0, 0.0, 2.0]])
    b = RNG.standard_normal(3)
    s = t(a).to_sparse_csr()
    np.testing.assert_allclose(fg.sparse.spsolve(s, t(b)).numpy(), np.linalg.solve(a, b))
    vals = s.values().detach().clone().requires_grad_(True)
    assert gradcheck(lambda v, y: fg.sparse.spsolve(s._with_values(v), y), (vals, t(b, True)))
    with pytest.raises(NotImplementedError, match="left=True"):
        fg.sparse.spsolve(s, t(b), left=False)
