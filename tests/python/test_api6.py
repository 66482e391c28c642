"""``Tensor.set_`` and ``gather(..., sparse_grad=True)`` (PyTorch), checked against
PyTorch's behaviour."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.sparse._coo import SparseCooTensor


def test_set_shares_source_memory_and_keeps_identity():
    x = torch.rand(2, requires_grad=True)
    x.grad = torch.ones(2)
    out = x.clone()
    y = torch.tensor([1.0, 2.0, 3.0])
    with torch.no_grad():
        r = x.set_(y)
    assert r is x and list(x.shape) == [3] and x.requires_grad and x.is_leaf
    y[0] = 5.0
    np.testing.assert_allclose(x.detach().numpy(), [5.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    # a graph recorded before no longer reaches the new x (PyTorch's rule) ...
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        torch.autograd.grad(out.sum(), x)
    del out


def test_set_old_graph_accumulates_into_grad():
    x = torch.rand(2, requires_grad=True)
    x.grad = torch.ones(2)
    out = x.clone()
    with torch.no_grad():
        x.set_(torch.rand(2))
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_set_refusals_and_empty():
    x = torch.rand(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.set_(torch.rand(2))
    with pytest.raises(RuntimeError, match="not differentiable"):
        (x * 2).set_(torch.rand(2))
    with pytest.raises(RuntimeError, match="type"):
        torch.rand(2).set_(torch.rand(2, dtype=torch.float64))
    with pytest.raises(TypeError):
        torch.rand(2).set_([1.0])
    with pytest.raises(TypeError, match="only set_"):
        torch.rand(4).set_(torch.rand(4), 0, (2,), (1,))
    a = torch.rand(3)
    assert a.set_() is a and list(a.shape) == [0]


def test_gather_sparse_grad_matches_torch():
    leaf = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = leaf.gather(0, torch.tensor([[0, 0]]), sparse_grad=True)
    out.sum().backward()
    g = leaf.grad
    assert isinstance(g, SparseCooTensor)
    # PyTorch: indices [[0, 0], [0, 1]], values [1, 1]
    np.testing.assert_array_equal(g.indices().numpy(), [[0, 0], [0, 1]])
    np.testing.assert_allclose(g.values().numpy(), [1.0, 1.0])


def test_gather_sparse_grad_dim1_duplicates_and_function_form():
    z = torch.tensor([[1.0, 2, 3], [4, 5, 6]], requires_grad=True)
    idx = torch.tensor([[2, 0], [1, 1]])
    (torch.gather(z, 1, idx, sparse_grad=True) ** 2).sum().backward()
    g = z.grad
    assert isinstance(g, SparseCooTensor)
    # PyTorch: uncoalesced, one entry per index element in row-major order
    np.testing.assert_array_equal(g.indices().numpy(), [[0, 0, 1, 1], [2, 0, 1, 1]])
    np.testing.assert_allclose(g.values().numpy(), [6.0, 2.0, 10.0, 10.0])
    zn = z.detach().numpy()
    dense = np.zeros_like(zn)
    for i in range(2):
        for j in range(2):
            k = int(idx.numpy()[i, j])
            dense[i, k] += 2 * zn[i, k]
    np.testing.assert_allclose(g.to_dense().numpy(), dense)


def test_gather_sparse_grad_mixed_with_dense_use_is_dense():
    leaf = torch.rand(2, 2, dtype=torch.float64, requires_grad=True)
    ind = torch.tensor([[0, 0]])
    out2 = leaf.gather(0, ind, sparse_grad=True)
    out1 = leaf.clone()
    g1 = torch.rand_like(out1)
    g1_orig = g1.clone()
    g2 = torch.rand_like(out2)
    torch.autograd.backward((out1, out2), (g1, g2))
    np.testing.assert_array_equal(g1.numpy(), g1_orig.numpy())
    expect = g1_orig.numpy().copy()
    expect[0] += g2.numpy()[0]
    np.testing.assert_allclose(leaf.grad.numpy(), expect)
    assert torch.autograd.gradcheck(
        lambda t: t.gather(1, torch.tensor([[1, 0], [0, 0]]), sparse_grad=True),
        (torch.rand(2, 2, dtype=torch.float64, requires_grad=True),),
    )


def test_gather_without_sparse_grad_unchanged():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(x.gather(1, torch.tensor([[1], [0]])).numpy(), [[2.0], [3.0]])
    with pytest.raises(TypeError, match="sparse_grad"):
        x.gather(torch.tensor([0]), sparse_grad=True)


def test_gather_sparse_grad_negative_index_and_dim():
    # PyTorch code: PyTorch's gather refuses an index below 0 (ScatterGatherKernel.cpp
    # cpu_scatter_gather_base_kernel; see test_edges_s40.py)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        x.gather(-1, torch.tensor([[-1], [0]]), sparse_grad=True)
    # code of no dialect reads it from the end (Paddle's rule); the sparse indices are >= 0
    g = {"__name__": "user_script", "fg": torch, "x": x}
    exec("fg.gather(x, -1, fg.tensor([[-1], [0]]), sparse_grad=True).sum().backward()", g)
    np.testing.assert_array_equal(x.grad.indices().numpy(), [[0, 1], [1, 0]])
    np.testing.assert_allclose(x.grad.to_dense().numpy(), [[0.0, 1.0], [1.0, 0.0]])
