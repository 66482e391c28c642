"""A sparse COO ``.grad`` on a dense tensor (PyTorch code): assignment, accumulation by
backward, optimizers, zero_grad / clear_grad and clipping, against NumPy float64."""

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


# ---- optimizers ------------------------------------------------------------------------


def _rows_param():
    w0 = np.arange(12, dtype=np.float64).reshape(4, 3) / 10.0
    return w0, torch.tensor(w0.tolist(), dtype=torch.float64).requires_grad_()


def _rows_grad():
    # rows 1 and 3 (row 3 twice: summed by coalescing), row 1 all zeros: still an entry
    idx = [[3, 1, 3]]
    vals = [[1.0, -2.0, 0.5], [0.0, 0.0, 0.0], [0.5, 1.0, 1.0]]
    dense = np.zeros((4, 3))
    for i, v in zip(idx[0], vals):
        dense[i] += v
    return _sp(idx, vals, (4, 3)), dense


@pytest.mark.parametrize("maximize", [False, True])
def test_sgd_sparse_step_changes_only_the_entries(maximize):
    w0, w = _rows_param()
    s, dense = _rows_grad()
    other = _param([1.0, -1.0])
    other.grad = torch.tensor([0.5, 0.5], dtype=torch.float64)
    opt = torch.optim.SGD([w, other], lr=0.1, maximize=maximize)
    w.grad = s
    opt.step()
    sign = 1.0 if maximize else -1.0
    np.testing.assert_allclose(w.tolist(), w0 + sign * 0.1 * dense, rtol=1e-12)
    np.testing.assert_allclose(other.tolist(), [1.0 + sign * 0.05, -1.0 + sign * 0.05])
    assert w.grad is s


def test_sgd_momentum_with_sparse_grads_matches_numpy():
    w0, w = _rows_param()
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, nesterov=True)
    ref, buf = w0.copy(), None
    for _ in range(3):
        s, dense = _rows_grad()
        w.grad = s
        opt.step()
        buf = dense.copy() if buf is None else 0.9 * buf + dense
        ref = ref - 0.1 * (dense + 0.9 * buf)
    np.testing.assert_allclose(w.tolist(), ref, rtol=1e-12)
    assert not isinstance(w.grad, torch.Tensor)


def test_sgd_weight_decay_refuses_sparse_grads_before_any_update():
    w0, w = _rows_param()
    other = _param([1.0, -1.0])
    other.grad = torch.tensor([0.5, 0.5], dtype=torch.float64)
    opt = torch.optim.SGD([other, w], lr=0.1, weight_decay=0.01)
    w.grad = _rows_grad()[0]
    with pytest.raises(RuntimeError, match="weight_decay does not support sparse gradients"):
        opt.step()
    np.testing.assert_allclose(w.tolist(), w0)
    np.testing.assert_allclose(other.tolist(), [1.0, -1.0])


def test_adagrad_with_sparse_grads_matches_numpy():
    w0, w = _rows_param()
    opt = torch.optim.Adagrad([w], lr=0.5, lr_decay=0.1, initial_accumulator_value=0.2)
    ref, acc = w0.copy(), np.full_like(w0, 0.2)
    for t in range(1, 3):
        s, dense = _rows_grad()
        w.grad = s
        opt.step()
        acc += dense * dense
        ref = ref - 0.5 / (1 + (t - 1) * 0.1) * dense / (np.sqrt(acc) + 1e-10)
    np.testing.assert_allclose(w.tolist(), ref, rtol=1e-12)


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_updates_exactly_the_stored_rows(maximize):
    w0, w = _rows_param()
    opt = torch.optim.SparseAdam([w], lr=0.1, betas=(0.8, 0.9), eps=1e-8, maximize=maximize)
    ref, m, v = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    rows = [1, 3]
    for t in range(1, 4):
        s, dense = _rows_grad()
        if maximize:
            dense = -dense
        w.grad = s
        opt.step()
        m[rows] = 0.8 * m[rows] + 0.2 * dense[rows]
        v[rows] = 0.9 * v[rows] + 0.1 * dense[rows] ** 2
        size = 0.1 * np.sqrt(1 - 0.9**t) / (1 - 0.8**t)
        ref[rows] -= size * m[rows] / (np.sqrt(v[rows]) + 1e-8)
    np.testing.assert_allclose(w.tolist(), ref, rtol=1e-12)
    st = opt.state[w]
    np.testing.assert_allclose(st["exp_avg"].tolist(), m, rtol=1e-12)
    np.testing.assert_allclose(st["exp_avg_sq"].tolist(), v, rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda ps: torch.optim.Adam(ps), "Adam"),
        (lambda ps: torch.optim.AdamW(ps), "AdamW"),
        (lambda ps: torch.optim.RMSprop(ps), "RMSprop"),
        (lambda ps: torch.optim.Adamax(ps), "Adamax"),
        (lambda ps: torch.optim.Adadelta(ps), "Adadelta"),
        (lambda ps: torch.optim.NAdam(ps), "NAdam"),
        (lambda ps: torch.optim.LBFGS(ps), "LBFGS"),
    ],
)
def test_dense_only_optimizers_refuse_a_sparse_grad(make, name):
    w0, w = _rows_param()
    opt = make([w])
    w.grad = _rows_grad()[0]
    with pytest.raises(RuntimeError, match=f"{name} does not support sparse gradients"):
        opt.step(lambda: (w * w).sum()) if name == "LBFGS" else opt.step()
    np.testing.assert_allclose(w.tolist(), w0)


def test_zero_grad_and_clear_grad_with_a_sparse_grad():
    _, w = _rows_param()
    opt = torch.optim.SGD([w], lr=0.1)
    s = _rows_grad()[0]
    w.grad = s
    opt.zero_grad(set_to_none=False)
    assert w.grad is s and s.nnz() == 0 and list(s.shape) == [4, 3]
    np.testing.assert_allclose(_dense(s), np.zeros((4, 3)))
    opt.zero_grad()
    assert w.grad is None
    s = _rows_grad()[0]
    w.grad = s
    w.clear_grad()
    assert w.grad is s and s.nnz() == 0
    w.clear_grad(set_to_zero=False)
    assert w.grad is None


def test_clip_grad_norm_with_a_sparse_grad():
    _, w = _rows_param()
    s, dense = _rows_grad()
    w.grad = s
    other = _param([3.0, 4.0])
    other.grad = torch.tensor([3.0, 4.0], dtype=torch.float64)
    total = torch.nn.utils.clip_grad_norm_([w, other], 1.0)
    want = np.sqrt((dense**2).sum() + 25.0)
    assert float(total) == pytest.approx(want, rel=1e-12)
    coef = 1.0 / (want + 1e-6)
    assert w.grad is s
    np.testing.assert_allclose(_dense(s), dense * coef, rtol=1e-12)
    np.testing.assert_allclose(other.grad.tolist(), [3.0 * coef, 4.0 * coef], rtol=1e-12)


# ---- nn.Embedding(sparse=True) / F.embedding / EmbeddingBag ----------------------------


def _emb_case():
    w0 = np.arange(15, dtype=np.float64).reshape(5, 3) / 7.0
    ids = np.array([[1, 3], [3, 0]])
    up = np.arange(12, dtype=np.float64).reshape(2, 2, 3) - 4.0  # d loss / d out
    return w0, ids, up


def _dense_embedding_grad(ids, up, n, padding_idx=None):
    g = np.zeros((n, up.shape[-1]))
    for i, row in zip(ids.reshape(-1), up.reshape(-1, up.shape[-1])):
        if i != padding_idx:
            g[i] += row
    return g


@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_sparse_gives_pytorchs_sparse_gradient(padding_idx):
    w0, ids, up = _emb_case()
    emb = torch.nn.Embedding(5, 3, padding_idx=padding_idx, sparse=True, dtype=torch.float64)
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(w0.tolist(), dtype=torch.float64))
    out = emb(torch.tensor(ids.tolist()))
    np.testing.assert_allclose(out.tolist(), w0[ids])
    (out * torch.tensor(up.tolist(), dtype=torch.float64)).sum().backward()
    g = emb.weight.grad
    assert not isinstance(g, torch.Tensor) and g.layout == torch.sparse_coo
    flat = ids.reshape(-1)
    kept = flat != padding_idx if padding_idx is not None else np.ones(flat.size, bool)
    assert g._indices().tolist() == [flat[kept].tolist()]
    np.testing.assert_allclose(g._values().tolist(), up.reshape(-1, 3)[kept])
    want = _dense_embedding_grad(ids, up, 5, padding_idx)
    np.testing.assert_allclose(g.coalesce().to_dense().tolist(), want)
    # a second pass accumulates into the same sparse object
    (
        emb(torch.tensor(ids.tolist())) * torch.tensor(up.tolist(), dtype=torch.float64)
    ).sum().backward()
    assert emb.weight.grad is g
    np.testing.assert_allclose(g.to_dense().tolist(), 2 * want)
    assert "sparse=True" in repr(emb)


def test_functional_embedding_sparse_and_a_dense_use_of_the_weight():
    w0, ids, up = _emb_case()
    w = torch.tensor(w0.tolist(), dtype=torch.float64).requires_grad_()
    out = torch.nn.functional.embedding(torch.tensor(ids.tolist()), w, sparse=True)
    loss = (out * torch.tensor(up.tolist(), dtype=torch.float64)).sum() + (w * w).sum()
    loss.backward()
    # the weight's gradients are summed by the pass: a dense .grad (as PyTorch's)
    assert isinstance(w.grad, torch.Tensor)
    np.testing.assert_allclose(w.grad.tolist(), _dense_embedding_grad(ids, up, 5) + 2 * w0)


def test_embedding_sparse_then_sparse_adam_steps_match_numpy():
    w0, ids, up = _emb_case()
    emb = torch.nn.Embedding(5, 3, sparse=True, dtype=torch.float64)
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(w0.tolist(), dtype=torch.float64))
    opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
    ref, m, v = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    rows = [0, 1, 3]  # the looked-up ids
    for t in range(1, 3):
        if t == 2:
            up = up.copy()
            up[0, 0] = 0.0  # id 1 looked up with a zero gradient: its moments still decay
        opt.zero_grad()
        out = emb(torch.tensor(ids.tolist()))
        (out * torch.tensor(up.tolist(), dtype=torch.float64)).sum().backward()
        opt.step()
        g = _dense_embedding_grad(ids, up, 5)
        m[rows] = 0.9 * m[rows] + 0.1 * g[rows]
        v[rows] = 0.999 * v[rows] + 0.001 * g[rows] ** 2
        size = 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        ref[rows] -= size * m[rows] / (np.sqrt(v[rows]) + 1e-8)
    np.testing.assert_allclose(emb.weight.tolist(), ref, rtol=1e-12)


def test_embedding_sparse_in_paddle_code_keeps_a_dense_gradient():
    w0, ids, _ = _emb_case()
    ns = {"paddle": torch, "w0": w0.tolist(), "ids": ids.tolist()}
    exec(
        "emb = paddle.nn.Embedding(5, 3, sparse=True)\n"
        "out = emb(paddle.to_tensor(ids))\n"
        "out.sum().backward()\n"
        "g = emb.weight.grad\n",
        ns,
    )
    assert isinstance(ns["g"], torch.Tensor)
    np.testing.assert_allclose(ns["g"].tolist(), _dense_embedding_grad(ids, np.ones((2, 2, 3)), 5))


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_sparse_gradient(mode):
    w0 = np.arange(15, dtype=np.float64).reshape(5, 3) / 7.0
    bag = torch.nn.EmbeddingBag(5, 3, mode=mode, sparse=True, padding_idx=2, dtype=torch.float64)
    with torch.no_grad():
        bag.weight.copy_(torch.tensor(w0.tolist(), dtype=torch.float64))
    bag(torch.tensor([[1, 2], [2, 4], [4, 4]])).sum().backward()
    g = bag.weight.grad
    assert not isinstance(g, torch.Tensor)
    assert g._indices().tolist() == [[1, 4, 4, 4]]
    scale = {"sum": [1.0, 1.0, 1.0, 1.0], "mean": [1.0, 1.0, 0.5, 0.5]}[mode]
    np.testing.assert_allclose(g._values().tolist(), np.outer(scale, np.ones(3)))
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        torch.nn.EmbeddingBag(5, 3, mode="max", sparse=True)(torch.tensor([[1, 2]]))


def test_grad_scaler_unscales_a_sparse_grad():
    _, w = _rows_param()
    s, dense = _rows_grad()
    w.grad = s
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler(init_scale=4.0)
    scaler.unscale_(opt)
    assert not isinstance(w.grad, torch.Tensor)
    np.testing.assert_allclose(_dense(w.grad), dense / 4.0)
