"""A sparse COO ``.grad`` on a dense tensor (PyTorch code): assignment and accumulation by
backward, against NumPy float64."""

import ferrograd as torch
import numpy as np
import pytest


def _sp(idx, vals, size, dtype=torch.float64):
    return torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals, dtype=dtype), size)


def _param(vals=(1.5, 1.5)):
    return torch.tensor(list(vals), dtype=torch.float64).requires_grad_()


def _dense(g):
    return np.asarray(g.to_dense().tolist() if not isinstance(g, torch.Tensor) else g.tolist())


# ---- assignment ------------------------------------------------------------------------


def test_assigned_sparse_grad_is_the_same_object_and_none_clears_it():
    p = _param()
    s = _sp([[1]], [2.0], (2,))
    p.grad = s
    assert p.grad is s
    assert p.grad is p.grad
    p.grad = None
    assert p.grad is None
    p.grad = s
    d = torch.tensor([1.0, 2.0], dtype=torch.float64)
    p.grad = d  # a dense one replaces it
    assert p.grad is d


def test_assigned_sparse_grad_checks_shape_dtype_and_layout():
    p = _param()
    with pytest.raises(RuntimeError, match=r"size '\[3\]' to a tensor of size '\[2\]'"):
        p.grad = _sp([[1]], [2.0], (3,))
    with pytest.raises(RuntimeError, match="dtype"):
        p.grad = _sp([[1]], [2.0], (2,), dtype=torch.float32)
    with pytest.raises(TypeError, match="COO"):
        p.grad = torch.tensor([[0.0, 1.0]], dtype=torch.float64).to_sparse_csr()
    with pytest.raises(TypeError, match="must be a Tensor or None"):
        p.grad = [1.0, 2.0]
    assert p.grad is None


def test_paddle_code_cannot_assign_a_sparse_grad():
    p = _param()
    s = _sp([[1]], [2.0], (2,))
    with pytest.raises(TypeError, match="Paddle has no sparse gradient"):
        exec("p.grad = s", {"paddle": torch, "p": p, "s": s})
    assert p.grad is None


# ---- accumulation (PyTorch's test_accumulate_grad_tensor_reference cases) -------------


@pytest.mark.parametrize("create_graph", [False, True])
def test_sparse_grad_plus_dense_is_a_new_dense_grad(create_graph):
    p = _param()
    saved = _sp([[1]], [2.0], (2,))
    p.grad = saved
    p.backward(torch.tensor([1.0, 3.0], dtype=torch.float64), create_graph=create_graph)
    assert p.grad is not saved
    assert isinstance(p.grad, torch.Tensor)
    np.testing.assert_allclose(p.grad.tolist(), [1.0, 5.0])
    np.testing.assert_allclose(_dense(saved), [0.0, 2.0])  # the old one untouched


@pytest.mark.parametrize("create_graph", [False, True])
def test_sparse_grad_plus_sparse_is_in_place_unless_create_graph(create_graph):
    p = _param()
    saved = _sp([[1]], [2.0], (2,))
    p.grad = saved
    p.backward(_sp([[0, 1]], [4.0, 5.0], (2,)), create_graph=create_graph)
    assert (p.grad is saved) == (not create_graph)
    assert not isinstance(p.grad, torch.Tensor)
    np.testing.assert_allclose(_dense(p.grad), [4.0, 7.0])
    assert p.grad.is_coalesced()


@pytest.mark.parametrize("create_graph", [False, True])
def test_dense_grad_plus_dense_reference(create_graph):
    p = _param()
    saved = torch.tensor([1.0, 1.0], dtype=torch.float64)
    p.grad = saved
    p.backward(torch.tensor([1.0, 3.0], dtype=torch.float64), create_graph=create_graph)
    assert (p.grad is saved) == (not create_graph)


def test_dense_grad_plus_sparse_is_in_place():
    p = _param()
    saved = torch.tensor([0.0, 1.0], dtype=torch.float64)
    p.grad = saved
    p.backward(_sp([[0, 0]], [5.0, 1.0], (2,)))
    assert p.grad is saved
    np.testing.assert_allclose(saved.tolist(), [6.0, 1.0])


def test_first_sparse_backward_keeps_a_copy():
    p = _param()
    g = _sp([[1]], [2.0], (2,))
    p.backward(g)
    assert p.grad is not g and not isinstance(p.grad, torch.Tensor)
    p.backward(g)
    np.testing.assert_allclose(_dense(p.grad), [0.0, 4.0])
    np.testing.assert_allclose(_dense(g), [0.0, 2.0])


def test_graph_backward_into_a_sparse_grad_and_hooks_see_the_result():
    p = _param([1.0, 2.0])
    p.grad = _sp([[0]], [10.0], (2,))
    seen = []
    p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad))
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.tolist(), [12.0, 4.0])
    assert seen[0] is p.grad


def test_non_leaf_backward_with_a_sparse_gradient_is_densified():
    p = _param([1.0, 2.0])
    (p * 3.0).backward(_sp([[1, 1]], [1.0, 2.0], (2,)))
    np.testing.assert_allclose(p.grad.tolist(), [0.0, 9.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (p * 3.0).backward(_sp([[1]], [1.0], (3,)))


def test_autograd_grad_leaves_a_sparse_grad_alone():
    p = _param([1.0, 2.0])
    s = _sp([[0]], [1.0], (2,))
    p.grad = s
    (g,) = torch.autograd.grad((p * p).sum(), [p])
    np.testing.assert_allclose(g.tolist(), [2.0, 4.0])
    assert p.grad is s
    np.testing.assert_allclose(_dense(s), [1.0, 0.0])
