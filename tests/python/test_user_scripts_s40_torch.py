"""Session 40's PyTorch user scripts (docs/user-scripts.md, "Session 40"): what they broke,
pinned, and the values they print that can be checked exactly (hand-set inputs, closed
forms). The scripts themselves live outside the repository; each scenario's idiom is
reproduced here at its smallest.

The module imports ferrograd as ``torch`` on purpose: the calls below are PyTorch code, and
where the two dialects differ the import line decides (docs/dialects.md).
"""

import math

import ferrograd as torch
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.distributions import Beta, MultivariateNormal, kl_divergence

# --- findings ----------------------------------------------------------------------------


def test_index_reduce_amax_pools_graphs_regression():
    # a hand-written GNN's global max pool: `zeros(G, C).index_reduce_(0, batch, h, "amax",
    # include_self=False)`. PyTorch: aten/src/ATen/native/TensorAdvancedIndexing.cpp,
    # index_reduce_func_impl (targets reset to the reduction's identity when not
    # include_self, untouched rows kept; mean divides by the count, floor for ints).
    h = torch.tensor([[1.0, -2.0], [5.0, -7.0], [3.0, 4.0]], requires_grad=True)
    batch = torch.tensor([0, 0, 1])
    out = torch.zeros(3, 2).index_reduce_(0, batch, h, "amax", include_self=False)
    assert out.tolist() == [[5.0, -2.0], [3.0, 4.0], [0.0, 0.0]]
    out.sum().backward()
    assert h.grad.tolist() == [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    # with the old values taking part (include_self=True, the default)
    x = torch.ones(2, 2)
    assert x.index_reduce(0, batch[1:], h[1:].detach(), "amin").tolist() == [
        [1.0, -7.0],
        [1.0, 1.0],
    ]
    mean = torch.index_reduce(x, 0, batch, h.detach(), "mean")
    np.testing.assert_allclose(mean.numpy(), [[7 / 3, -8 / 3], [2.0, 2.5]], rtol=1e-6)
    assert torch.ones(2).index_reduce(
        0, torch.tensor([0, 0]), torch.tensor([2.0, 3.0]), "prod"
    ).tolist() == [6.0, 1.0]
    ints = torch.tensor([0, 0]).index_reduce(
        0, torch.tensor([0, 0]), torch.tensor([2, -5]), "mean", include_self=False
    )
    assert ints.tolist() == [-2, 0]  # floor(-3 / 2)
    # along dim 1, and a 1-D target
    y = torch.zeros(2, 3).index_reduce(
        1, torch.tensor([2, 0]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), "amax", include_self=False
    )
    assert y.tolist() == [[2.0, 0.0, 1.0], [4.0, 0.0, 3.0]]
    with pytest.raises(ValueError, match="prod, mean, amax or amin"):
        torch.zeros(2).index_reduce(0, torch.tensor([0]), torch.tensor([1.0]), "sum")
    with pytest.raises(ValueError, match="source"):
        torch.zeros(2, 2).index_reduce(0, torch.tensor([0]), torch.ones(2, 3), "amax")


def test_scatter_reduce_inplace_amax_into_a_plain_target_regression():
    # PyG-style pooling in plain torch: `out = zeros(...); out.scatter_reduce_(0, idx, src,
    # "amax", include_self=False)` with only `src` requiring grad. The backward raised "modified
    # by an inplace operation": the amax / prod node saved the target, which the in-place
    # write then changed. PyTorch differentiates it (the target is a leaf without grad).
    src = torch.tensor(
        [[1.0, -2.0], [5.0, -7.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True
    )
    idx = torch.tensor([0, 0, 1]).unsqueeze(1).expand(3, 2)
    for reduce, grad in [
        ("amax", [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]),
        ("amin", [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ("prod", [[5.0, -7.0], [1.0, -2.0], [1.0, 1.0]]),
    ]:
        out = torch.zeros(3, 2, dtype=torch.float64).scatter_reduce_(
            0, idx, src, reduce, include_self=False
        )
        out.sum().backward()
        assert src.grad.tolist() == grad, reduce
        src.grad = None
    assert torch.autograd.gradcheck(
        lambda t: torch.ones(2, 2, dtype=torch.float64).index_reduce_(
            0, torch.tensor([1, 1, 0]), t, "amax"
        ),
        (src,),
    )


def test_tensor_from_list_of_numpy_scalars_regression():
    # RL buffers: `torch.tensor(rewards)` with np.float32 rewards, `torch.tensor(actions)`
    # with np.int64 actions. PyTorch (torch/csrc/utils/tensor_new.cpp, infer_scalar_type):
    # a NumPy scalar keeps its dtype and the items' dtypes are promoted with torch's rule
    # (a Python float counting as the default float32).
    assert torch.tensor([np.float32(1.5), np.float32(2.0)]).dtype == torch.float32
    assert torch.tensor([np.int64(1), np.int64(2)]).tolist() == [1, 2]
    assert torch.tensor([np.int32(1), np.int32(2)]).dtype == torch.int32
    assert torch.tensor([np.int32(1), 5]).dtype == torch.int64
    assert torch.tensor([[np.float32(1.0)], [2.0]]).dtype == torch.float32  # NumPy: float64
    assert torch.tensor([np.float16(1.0), np.int64(2)]).dtype == torch.float16
    assert torch.tensor([np.bool_(True), np.bool_(False)]).dtype == torch.bool
    assert torch.tensor([np.float64(1e300), 2.0]).dtype == torch.float64
    assert torch.tensor([np.float32(1.0)], dtype=torch.float64).dtype == torch.float64
    assert torch.as_tensor([np.float32(0.25)]).tolist() == [0.25]
    # 0-d tensors in a list follow the same rule (they were float64: NumPy's assembly)
    assert torch.tensor([torch.tensor(1.0), 2.0]).dtype == torch.float32
    assert torch.tensor([torch.tensor(1, dtype=torch.int32), 2]).dtype == torch.int64


def test_tensor_from_range_and_range_index_regression():
    # `torch.tensor(range(n))`, and RKD's pdist: `res[range(n), range(n)] = 0`.
    # PyTorch reads any Python sequence (PySequence_Check) as data and as an index
    # (torch/csrc/autograd/python_variable_indexing.cpp, applySlicing: sequenceToVariable).
    assert torch.tensor(range(3)).tolist() == [0, 1, 2]
    assert torch.tensor(range(3)).dtype == torch.int64
    assert torch.tensor([range(2), range(2, 4)]).tolist() == [[0, 1], [2, 3]]
    assert torch.tensor(range(0)).dtype == torch.float32
    x = torch.arange(9.0).view(3, 3)
    assert x[range(2)].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x[range(3), range(3)].tolist() == [0.0, 4.0, 8.0]
    assert x[:, range(1, 3)].tolist() == [[1.0, 2.0], [4.0, 5.0], [7.0, 8.0]]
    y = x.clone()
    y[range(3), range(3)] = 0
    assert torch.diagonal(y).tolist() == [0.0, 0.0, 0.0] and y.sum().item() == 36.0 - 12.0


def test_kl_div_legacy_size_average_regression():
    # torch/nn/functional.py, kl_div: `if size_average is not None or reduce is not None:
    # reduction_enum = _Reduction.legacy_get_string(size_average, reduce)` (torch/nn/
    # _reduction.py: size_average=False -> "sum", reduce=False -> "none", with a UserWarning)
    logp = F.log_softmax(torch.tensor([[2.0, 1.0, 0.0]]), dim=1)
    p = F.softmax(torch.tensor([[1.0, 2.0, 0.0]]), dim=1)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        legacy = F.kl_div(logp, p, size_average=False)
    assert legacy.item() == pytest.approx(F.kl_div(logp, p, reduction="sum").item())


# --- exact values the scripts print -------------------------------------------------------


def _nt_xent(z1, z2, temperature):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.T / temperature
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def test_nt_xent_closed_form():
    # two orthogonal unit pairs, T = 1: each row's positive has similarity 1, the two
    # negatives 0, so the loss is log(e + 2) - 1
    z = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    assert _nt_xent(z, z.clone(), 1.0).item() == pytest.approx(math.log(math.e + 2) - 1, rel=1e-6)


def test_kl_div_batchmean_value_and_gradient():
    s = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], requires_grad=True)
    t = torch.tensor([[3.0, 2.0, 1.0], [1.0, 0.0, -1.0]])
    kl = F.kl_div(F.log_softmax(s, dim=1), F.softmax(t, dim=1), reduction="batchmean")
    kl.backward()
    sn, tn = s.detach().numpy().astype(np.float64), t.numpy().astype(np.float64)
    p = np.exp(tn) / np.exp(tn).sum(1, keepdims=True)
    q = np.exp(sn) / np.exp(sn).sum(1, keepdims=True)
    assert kl.item() == pytest.approx((p * np.log(p / q)).sum() / 2, rel=1e-6)
    np.testing.assert_allclose(s.grad.numpy(), (q - p) / 2, atol=1e-7)


def test_gcn_symmetric_normalisation_on_a_path():
    # 0 - 1 - 2 with self loops: degrees 2, 3, 2; weight 1/sqrt(d_i d_j) per edge
    ei = torch.tensor([[0, 1, 1, 2, 0, 1, 2], [1, 0, 2, 1, 0, 1, 2]])
    row, col = ei
    deg = torch.zeros(3).scatter_add_(0, col, torch.ones(ei.size(1)))
    w = deg.pow(-0.5)[row] * deg.pow(-0.5)[col]
    h = torch.tensor([[1.0], [2.0], [3.0]])
    out = torch.zeros_like(h).index_add_(0, col, h[row] * w.unsqueeze(-1))
    r6 = 1 / math.sqrt(6)
    expected = [0.5 + 2 * r6, r6 + 2 / 3 + 3 * r6, 2 * r6 + 1.5]
    np.testing.assert_allclose(out.squeeze(1).numpy(), expected, rtol=1e-6)
    a = torch.sparse_coo_tensor(torch.stack([col, row]), w, (3, 3))
    np.testing.assert_allclose(torch.sparse.mm(a, h).squeeze(1).numpy(), expected, rtol=1e-6)


def test_cdist_values_and_gradient_with_a_zero_distance():
    a = torch.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
    b = torch.tensor([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0]])
    d = torch.cdist(a, b)
    np.testing.assert_allclose(
        d.detach().numpy(), [[0, math.sqrt(2), 3], [5, math.sqrt(13), 4]], rtol=1e-6
    )
    assert torch.cdist(a, b, p=1).tolist() == [[0.0, 2.0, 3.0], [7.0, 5.0, 4.0]]
    d.sum().backward()
    # the zero distance contributes no gradient (PyTorch's cdist backward)
    r2, r13 = 1 / math.sqrt(2), 1 / math.sqrt(13)
    expected = [[-r2 - 1, -r2], [0.6 + 2 * r13, 0.8 + 3 * r13 + 1]]
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)


def test_straight_through_and_fsq_round_gradients():
    z = torch.tensor([[-3.0, 0.1, 0.9]], requires_grad=True)
    half = torch.tensor([2.0, 2.0, 1.0])
    bounded = torch.tanh(z) * half
    q = (bounded + (bounded.round() - bounded).detach()) / half
    assert q.tolist() == [[-1.0, 0.0, 1.0]]
    q.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 1 - np.tanh([[-3.0, 0.1, 0.9]]) ** 2, rtol=1e-5)


def test_dkd_decoupled_kd_closed_form():
    ls = torch.tensor([[2.0, 1.0, 0.0]])
    lt = torch.tensor([[1.0, 2.0, 0.0]])
    gt = torch.zeros_like(ls).scatter_(1, torch.tensor([[0]]), 1).bool()
    ps, pt = F.softmax(ls, dim=1), F.softmax(lt, dim=1)
    b_s = torch.cat([(ps * gt).sum(1, keepdim=True), (ps * ~gt).sum(1, keepdim=True)], 1)
    b_t = torch.cat([(pt * gt).sum(1, keepdim=True), (pt * ~gt).sum(1, keepdim=True)], 1)
    tckd = F.kl_div(torch.log(b_s), b_t, reduction="sum")
    nckd = F.kl_div(
        F.log_softmax(ls - 1000.0 * gt, dim=1), F.softmax(lt - 1000.0 * gt, dim=1), reduction="sum"
    )

    def kl(p, q):
        return sum(a * math.log(a / b) for a, b in zip(p, q))

    e = np.exp([2.0, 1.0, 0.0])
    pn = e / e.sum()
    assert tckd.item() == pytest.approx(kl([pn[1], 1 - pn[1]], [pn[0], 1 - pn[0]]), rel=1e-5)
    s2, t2 = np.exp([1.0, 0.0]), np.exp([2.0, 0.0])
    assert nckd.item() == pytest.approx(kl(t2 / t2.sum(), s2 / s2.sum()), rel=1e-5)


def test_distribution_closed_forms():
    mvn = MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 2.0]]))
    # L z = x: z = (1, 0.25); log det Sigma = 2 log 2
    lp = -math.log(2 * math.pi) - math.log(2) - 0.5 * (1 + 0.0625)
    assert mvn.log_prob(torch.tensor([1.0, 1.0])).item() == pytest.approx(lp, rel=1e-6)
    assert mvn.entropy().item() == pytest.approx(1 + math.log(2 * math.pi) + math.log(2), rel=1e-6)
    other = MultivariateNormal(torch.zeros(2), torch.diag(torch.tensor([1.0, 4.0])))
    assert kl_divergence(mvn, other).item() == pytest.approx(0.5 * (1 + 4.25 / 4 - 2), rel=1e-5)
    beta = Beta(torch.tensor([2.0]), torch.tensor([3.0]))
    assert beta.log_prob(torch.tensor([0.4])).item() == pytest.approx(
        math.log(12 * 0.4 * 0.36), rel=1e-6
    )


def test_gae_closed_form_with_unit_discounts():
    rewards, values = [1.0, 2.0, 3.0], torch.tensor([0.5, 0.5, 0.5])
    adv, last = torch.zeros(3), 0.0
    for t in reversed(range(3)):
        next_v = 1.0 if t == 2 else values[t + 1]
        last = rewards[t] + next_v - values[t] + last
        adv[t] = last
    assert adv.tolist() == [6.5, 5.5, 3.5]
