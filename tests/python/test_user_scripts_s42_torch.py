"""Session 42's PyTorch user scripts (docs/user-scripts.md, "Session 42"): what they broke,
pinned, and the values they print that can be checked exactly (hand-set inputs, closed
forms). The scripts themselves live outside the repository; each scenario's idiom is
reproduced here at its smallest.

The module imports ferrograd as ``torch`` on purpose: the calls below are PyTorch code, and
where the two dialects differ the import line decides (docs/dialects.md).
"""

import copy
import math

import ferrograd as torch
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import ferrograd.nn.utils.parametrize as parametrize
import numpy as np
import pytest
from ferrograd.distributions import MultivariateNormal, Normal, kl_divergence
from ferrograd.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from ferrograd.utils.checkpoint import checkpoint, checkpoint_sequential

# --- findings ----------------------------------------------------------------------------


def _ema_pair():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    return model, copy.deepcopy(model)


def test_foreach_ema_update_regression():
    # timm's ModelEmaV3.update (timm/utils/model_ema.py) and swa_utils'
    # get_ema_multi_avg_fn update an EMA copy with torch._foreach_lerp_ /
    # _foreach_mul_(scalar=) + _foreach_add_(alpha=); PyTorch documents the _foreach_ ops
    # ("Foreach Operations", docs/source/torch.rst; overloads in native_functions.yaml:
    # _foreach_lerp_.Scalar(self, tensors1, weight), _foreach_mul_.Scalar(self, scalar),
    # _foreach_add_.List(self, other, *, alpha=1)). They were missing (AttributeError).
    model, ema = _ema_pair()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
    decay = 0.9
    ema_v = [v for v in ema.state_dict().values() if v.is_floating_point()]
    model_v = [v for v in model.state_dict().values() if v.is_floating_point()]
    want = [e * decay + m * (1 - decay) for e, m in zip(ema_v, model_v)]
    ema_a = [v.clone() for v in ema_v]
    with torch.no_grad():
        assert torch._foreach_lerp_(ema_a, model_v, weight=1.0 - decay) is None
        ema_b = [v.clone() for v in ema_v]
        torch._foreach_mul_(ema_b, scalar=decay)
        torch._foreach_add_(ema_b, model_v, alpha=1.0 - decay)
    for a, b, w in zip(ema_a, ema_b, want):
        np.testing.assert_allclose(a.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(b.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)
    # the state_dict tensors share memory with the module: the EMA copy moved
    ema_sd = ema.state_dict()
    with torch.no_grad():
        torch._foreach_lerp_(
            [v for v in ema_sd.values() if v.is_floating_point()], model_v, 1.0 - decay
        )
    np.testing.assert_allclose(
        ema[0].weight.detach().numpy(), want[0].numpy(), rtol=1e-6, atol=1e-7
    )
    # and AveragedModel with get_ema_multi_avg_fn gives the same second update
    model2, _ = _ema_pair()
    avg = AveragedModel(model2, multi_avg_fn=get_ema_multi_avg_fn(decay))
    avg.update_parameters(model2)
    start = [p.detach().clone() for p in model2.parameters()]
    with torch.no_grad():
        for p in model2.parameters():
            p.add_(1.0)
    avg.update_parameters(model2)
    for a, s in zip(avg.module.parameters(), start):
        np.testing.assert_allclose(a.detach().numpy(), (s + 0.1).numpy(), rtol=1e-6)


def test_foreach_values_and_overloads():
    # each _foreach_ op is the single-tensor op at every list position
    a = [torch.tensor([1.0, 2.0]), torch.tensor([4.0])]
    b = [torch.tensor([3.0, 6.0]), torch.tensor([0.0])]
    out = torch._foreach_add(a, b, alpha=2.0)
    assert isinstance(out, tuple) and [t.tolist() for t in out] == [[7.0, 14.0], [4.0]]
    assert [t.tolist() for t in torch._foreach_add(a, 1.0)] == [[2.0, 3.0], [5.0]]
    assert [t.tolist() for t in torch._foreach_sub(a, [1.0, 2.0])] == [[0.0, 1.0], [2.0]]
    assert [t.tolist() for t in torch._foreach_mul(a, torch.tensor(3.0))] == [[3.0, 6.0], [12.0]]
    assert [t.tolist() for t in torch._foreach_div(a, scalars=[2.0, 4.0])] == [[0.5, 1.0], [1.0]]
    assert [t.tolist() for t in torch._foreach_lerp(a, b, 0.25)] == [[1.5, 3.0], [3.0]]
    lw = torch._foreach_lerp(a, b, [torch.tensor([0.5, 1.0]), torch.tensor(0.5)])
    assert [t.tolist() for t in lw] == [[2.0, 6.0], [2.0]]
    assert [t.tolist() for t in torch._foreach_maximum(a, 1.5)] == [[1.5, 2.0], [4.0]]
    assert [t.tolist() for t in torch._foreach_minimum(a, b)] == [[1.0, 2.0], [0.0]]
    assert [t.tolist() for t in torch._foreach_clamp_max(a, [1.0, 3.0])] == [[1.0, 1.0], [3.0]]
    assert [t.tolist() for t in torch._foreach_pow(a, 2)] == [[1.0, 4.0], [16.0]]
    assert [t.tolist() for t in torch._foreach_pow(2.0, a)] == [[2.0, 4.0], [16.0]]
    assert [t.tolist() for t in torch._foreach_sqrt(a)][1] == [2.0]
    assert [t.item() for t in torch._foreach_norm([torch.tensor([3.0, -4.0])] * 2)] == [5.0, 5.0]
    assert torch._foreach_norm([torch.tensor([3.0, -4.0])], ord=math.inf)[0].item() == 4.0
    assert torch._foreach_norm([torch.tensor([3.0, -4.0])], 1)[0].item() == 7.0
    assert [t.item() for t in torch._foreach_max(a)] == [2.0, 4.0]
    # Adam-style in-place updates
    exp_avg = [torch.zeros(2), torch.zeros(1)]
    g = [torch.ones(2), 2 * torch.ones(1)]
    torch._foreach_addcmul_(exp_avg, g, g, value=0.5)
    assert [t.tolist() for t in exp_avg] == [[0.5, 0.5], [2.0]]
    denom = [torch.full((2,), 4.0), torch.full((1,), 4.0)]
    torch._foreach_addcdiv_(exp_avg, g, denom, torch.tensor([1.0, 2.0]))
    assert [t.tolist() for t in exp_avg] == [[0.75, 0.75], [3.0]]
    torch._foreach_addcdiv_(exp_avg, g, denom, scalars=[-1.0, -2.0])
    assert [t.tolist() for t in exp_avg] == [[0.5, 0.5], [2.0]]
    torch._foreach_zero_(exp_avg)
    assert [t.tolist() for t in exp_avg] == [[0.0, 0.0], [0.0]]
    torch._foreach_copy_(exp_avg, g)
    assert [t.tolist() for t in exp_avg] == [[1.0, 1.0], [2.0]]
    # out-of-place forms are differentiable like the single ops
    w = [torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0], requires_grad=True)]
    prods = torch._foreach_mul(w, [torch.tensor([2.0, 3.0]), torch.tensor(4.0)])
    sum(p.sum() for p in prods).backward()
    assert [t.grad.tolist() for t in w] == [[2.0, 3.0], [4.0]]
    # integer tensors promote as the single op does
    assert torch._foreach_mul([torch.tensor([1, 2])], 0.5)[0].tolist() == [0.5, 1.0]


def test_foreach_bad_arguments_raise():
    # PyTorch's checks (ForeachUtils.h): non-empty lists of one length
    with pytest.raises(RuntimeError, match="at least one tensor"):
        torch._foreach_add([], 1.0)
    with pytest.raises(RuntimeError, match="same number of tensors, got 1 and 2"):
        torch._foreach_add([torch.ones(2)], [torch.ones(2), torch.ones(2)])
    with pytest.raises(RuntimeError, match="same number of elements as scalar list"):
        torch._foreach_mul([torch.ones(2)], [1.0, 2.0])
    with pytest.raises(TypeError, match="alpha"):
        torch._foreach_add([torch.ones(2)], 1.0, alpha=2.0)  # no .Scalar overload with alpha
    with pytest.raises(TypeError, match="list or tuple of Tensors"):
        torch._foreach_exp(torch.ones(2))
    with pytest.raises(RuntimeError, match="leaf"):
        torch._foreach_mul_([torch.ones(2, requires_grad=True)], 2.0)


def test_load_state_dict_result_prints_all_keys_matched_regression():
    # `print(model.load_state_dict(sd))` prints "<All keys matched successfully>" in PyTorch
    # (torch/nn/modules/module.py, _IncompatibleKeys.__repr__); ferrograd printed
    # "_IncompatibleKeys(missing_keys=[], unexpected_keys=[])". With keys it is the
    # namedtuple's repr, and the fields / unpacking are unchanged.
    m = nn.Linear(2, 2)
    res = m.load_state_dict(m.state_dict())
    assert repr(res) == str(res) == "<All keys matched successfully>"
    assert res.missing_keys == [] and res.unexpected_keys == [] and tuple(res) == ([], [])
    res = m.load_state_dict({"weight": torch.zeros(2, 2), "extra": torch.zeros(1)}, strict=False)
    assert repr(res) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])"
    missing, unexpected = res
    assert missing == ["bias"] and unexpected == ["extra"]


# --- object detection: box IoU, GIoU, focal loss, matching ---------------------------------


def _box_iou(b1, b2):
    area1 = (b1[:, 2] - b1[:, 0]) * (b1[:, 3] - b1[:, 1])
    area2 = (b2[:, 2] - b2[:, 0]) * (b2[:, 3] - b2[:, 1])
    lt = torch.max(b1[:, None, :2], b2[:, :2])
    rb = torch.min(b1[:, None, 2:], b2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    lti = torch.min(b1[:, None, :2], b2[:, :2])
    rbi = torch.max(b1[:, None, 2:], b2[:, 2:])
    hull = (rbi - lti).clamp(min=0)
    hull = hull[:, :, 0] * hull[:, :, 1]
    return inter / union, inter / union - (hull - union) / hull


def test_box_iou_giou_and_matching_exact():
    b1 = torch.tensor([[0.0, 0.0, 2.0, 2.0], [10.0, 10.0, 11.0, 11.0]])
    b2 = torch.tensor([[1.0, 1.0, 3.0, 3.0]])
    iou, giou = _box_iou(b1, b2)
    assert iou[0, 0].item() == pytest.approx(1 / 7)
    assert giou[0, 0].item() == pytest.approx(1 / 7 - 2 / 9)
    assert iou[1, 0].item() == 0.0  # disjoint: hull 10x10, union 5
    assert giou[1, 0].item() == pytest.approx(-(100 - 5) / 100)
    # matcher idioms: per-anchor best gt, thresholds by boolean masks, low-quality matches
    anchors = torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0], [5.0, 5.0, 6.0, 6.0]])
    gt = torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.5, 1.5, 3.0, 3.0]])
    q, _ = _box_iou(gt, anchors)
    vals, matches = q.max(dim=0)
    matches[vals < 0.4] = -1
    highest, _ = q.max(dim=1)
    _, cols = torch.where(q == highest[:, None])
    matches[cols] = q.argmax(dim=0)[cols]
    assert matches.tolist() == [0, 1, -1]
    # focal loss (RetinaNet) equals the formula at a hand-set logit
    x, t = torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.0])
    p = torch.sigmoid(x)
    ce = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    p_t = p * t + (1 - p) * (1 - t)
    loss = (0.25 * t + 0.75 * (1 - t)) * ce * (1 - p_t) ** 2
    s = 1 / (1 + math.exp(-2.0))
    want = [0.25 * math.log(2) * 0.25, 0.75 * -math.log(1 - s) * s**2]
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-6)


def test_anchor_grid_and_box_masked_assignment():
    # int32 shifts + float32 base anchors -> float32 (torchvision AnchorGenerator's idiom)
    ratios = torch.as_tensor([0.5, 1.0, 2.0])
    h_r = torch.sqrt(ratios)
    ws = ((1 / h_r)[:, None] * torch.as_tensor([8.0])[None, :]).view(-1)
    hs = (h_r[:, None] * torch.as_tensor([8.0])[None, :]).view(-1)
    base = (torch.stack([-ws, -hs, ws, hs], dim=1) / 2).round()
    sy, sx = torch.meshgrid(
        torch.arange(0, 2, dtype=torch.int32) * 8,
        torch.arange(0, 2, dtype=torch.int32) * 8,
        indexing="ij",
    )
    shifts = torch.stack((sx.reshape(-1), sy.reshape(-1), sx.reshape(-1), sy.reshape(-1)), 1)
    anchors = (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)
    assert anchors.dtype == torch.float32 and tuple(anchors.shape) == (12, 4)
    assert anchors[0].tolist() == [-6.0, -3.0, 6.0, 3.0]
    assert anchors[-1].tolist() == [5.0, 2.0, 11.0, 14.0]
    # torchvision's generalized_box_iou_loss writes the intersection through a mask
    inter = torch.zeros(2)
    mask = torch.tensor([True, False])
    inter[mask] = torch.tensor([3.0, 4.0])[mask] * 2
    assert inter.tolist() == [6.0, 0.0]


# --- LoRA ---------------------------------------------------------------------------------


class _LoRA(nn.Module):
    def __init__(self, fan_in, fan_out, rank=2, alpha=4):
        super().__init__()
        self.lora_A = nn.Parameter(torch.arange(rank * fan_in, dtype=torch.float32).view(rank, -1))
        self.lora_B = nn.Parameter(torch.full((fan_out, rank), 0.5))
        self.scale = alpha / rank

    def forward(self, w):
        return w + (self.lora_B @ self.lora_A).view(w.shape) * self.scale


def test_lora_parametrization_merge_and_state_dict_exact():
    lin = nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.zero_()
    parametrize.register_parametrization(lin, "weight", _LoRA(3, 2))
    assert list(lin.state_dict()) == [
        "bias",
        "parametrizations.weight.original",
        "parametrizations.weight.0.lora_A",
        "parametrizations.weight.0.lora_B",
    ]
    # B @ A = 0.5 * column sums of A = [1.5, 2.5, 3.5] per row; scale 2
    assert lin.weight.tolist() == [[3.0, 5.0, 7.0], [3.0, 5.0, 7.0]]
    for n, p in lin.named_parameters():
        p.requires_grad_("lora_" in n)
    lin(torch.ones(1, 3)).sum().backward()
    assert lin.parametrizations.weight.original.grad is None
    # d/dB sum(x W^T) with x = ones: scale * A.sum(1) per row
    assert lin.parametrizations.weight[0].lora_B.grad.tolist() == [[6.0, 24.0], [6.0, 24.0]]
    parametrize.remove_parametrizations(lin, "weight", leave_parametrized=True)
    assert list(lin.state_dict()) == ["bias", "weight"]
    assert lin.weight.tolist() == [[3.0, 5.0, 7.0], [3.0, 5.0, 7.0]]


def test_lora_wrapper_strict_false_and_full_backward_hook():
    class LoRALinear(nn.Module):
        def __init__(self, base):
            super().__init__()
            self.base = base
            self.lora_A = nn.Parameter(torch.ones(1, base.in_features))
            self.lora_B = nn.Parameter(torch.zeros(base.out_features, 1))

        def forward(self, x):
            return self.base(x) + x @ self.lora_A.T @ self.lora_B.T

    torch.manual_seed(0)
    net = nn.Sequential(LoRALinear(nn.Linear(2, 2)), nn.Tanh())
    lora_sd = {k: v for k, v in net.state_dict().items() if "lora_" in k}
    res = net.load_state_dict(lora_sd, strict=False)
    assert res.missing_keys == ["0.base.weight", "0.base.bias"] and res.unexpected_keys == []
    seen = {}
    h = net[0].register_full_backward_hook(
        lambda m, gin, gout: seen.update(gin=gin[0], gout=gout[0])
    )
    x = torch.ones(1, 2, requires_grad=True)
    net(x).sum().backward()
    h.remove()
    out = net[0](x).detach()
    np.testing.assert_allclose(seen["gout"].numpy(), (1 - out.tanh() ** 2).numpy(), rtol=1e-6)
    np.testing.assert_allclose(seen["gin"].numpy(), x.grad.numpy(), rtol=1e-6)
    vec = nn.utils.parameters_to_vector([net[0].lora_A, net[0].lora_B])
    assert vec.tolist() == [1.0, 1.0, 0.0, 0.0]


# --- Mixture of Experts -------------------------------------------------------------------


def test_moe_topk_dispatch_with_index_add_equals_dense_mixture():
    torch.manual_seed(0)
    n_exp, d = 3, 4
    gate = nn.Linear(d, n_exp, bias=False)
    experts = nn.ModuleList([nn.Linear(d, d) for _ in range(n_exp)])
    x = torch.randn(6, d)
    logits = gate(x)
    w = F.softmax(logits, dim=1, dtype=torch.float)
    top_w, sel = torch.topk(w, n_exp, dim=-1)  # top_k = all experts: the dense mixture
    top_w /= top_w.sum(dim=-1, keepdim=True)
    out = torch.zeros_like(x)
    mask = F.one_hot(sel, num_classes=n_exp).permute(2, 1, 0)
    for e in range(n_exp):
        idx, tok = torch.where(mask[e])
        out.index_add_(0, tok, experts[e](x[None, tok].reshape(-1, d)) * top_w[tok, idx, None])
    dense = sum(w[:, e : e + 1] * experts[e](x) for e in range(n_exp))
    np.testing.assert_allclose(out.detach().numpy(), dense.detach().numpy(), atol=1e-6)
    # Switch's load-balancing loss with bincount: uniform routing gives exactly 1
    sel1 = torch.tensor([0, 1, 2, 0, 1, 2])
    frac = torch.bincount(sel1, minlength=n_exp).float() / sel1.numel()
    aux = n_exp * (frac * torch.full((n_exp,), 1 / n_exp)).sum()
    assert aux.item() == pytest.approx(1.0)
    # capacity positions by cumsum over one-hot assignments
    locs = torch.cumsum(F.one_hot(sel1, n_exp), dim=0) - 1
    assert (locs * F.one_hot(sel1, n_exp)).sum(1).tolist() == [0, 0, 0, 1, 1, 1]


def test_sdpa_causal_equals_masks():
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    keep = torch.ones(5, 5, dtype=torch.bool).tril()
    b = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    c = F.scaled_dot_product_attention(
        q, k, v, attn_mask=torch.zeros(5, 5).masked_fill(~keep, float("-inf"))
    )
    np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-6)
    np.testing.assert_allclose(a.numpy(), c.numpy(), atol=1e-6)
    # the first query sees only the first key: its output is v[..., 0, :]
    np.testing.assert_allclose(a[..., 0, :].numpy(), v[..., 0, :].numpy(), atol=1e-6)
    # L != S: PyTorch's is_causal is the top-left aligned tril (torch/nn/functional.py doc)
    q2 = torch.randn(1, 1, 2, 4)
    a2 = F.scaled_dot_product_attention(q2, k[:1, :1], v[:1, :1], is_causal=True)
    b2 = F.scaled_dot_product_attention(
        q2, k[:1, :1], v[:1, :1], attn_mask=torch.ones(2, 5, dtype=torch.bool).tril()
    )
    np.testing.assert_allclose(a2.numpy(), b2.numpy(), atol=1e-6)


# --- Gaussian-process regression ---------------------------------------------------------


def test_gp_cholesky_pieces_exact():
    A = torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=torch.float64)
    assert torch.cdist(A, A).tolist() == [[0.0, 5.0], [5.0, 0.0]]
    K = torch.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=torch.float64)
    L = torch.linalg.cholesky(K)
    np.testing.assert_allclose(L.numpy(), [[2.0, 0.0], [1.0, math.sqrt(2)]])
    alpha = torch.cholesky_solve(torch.tensor([[1.0], [1.0]], dtype=torch.float64), L)
    np.testing.assert_allclose(alpha.squeeze().numpy(), [1 / 8, 1 / 4])
    # the GP marginal likelihood by hand equals MultivariateNormal(scale_tril=L).log_prob
    y = torch.tensor([1.0, 1.0], dtype=torch.float64)
    by_hand = -0.5 * (y * alpha.squeeze()).sum() - L.diagonal().log().sum() - math.log(2 * math.pi)
    mvn = MultivariateNormal(torch.zeros(2, dtype=torch.float64), scale_tril=L)
    assert mvn.log_prob(y).item() == pytest.approx(by_hand.item(), abs=1e-12)
    # det K = 8: -0.5 * 3/8 - 0.5 * log 8 - log(2 pi)
    assert by_hand.item() == pytest.approx(-3 / 16 - 0.5 * math.log(8) - math.log(2 * math.pi))


def test_gp_hyperparameters_by_lbfgs_strong_wolfe_reach_a_stationary_point():
    torch.manual_seed(0)
    X = torch.rand(20, 1, dtype=torch.float64) * 6 - 3
    y = torch.sin(2 * X).squeeze(-1) + 0.1 * torch.randn(20, dtype=torch.float64)
    raw = nn.Parameter(torch.tensor([0.0, 0.0, -1.0], dtype=torch.float64))

    def nll():
        ls, sf2, sn2 = F.softplus(raw[0]), F.softplus(raw[1]), F.softplus(raw[2]) + 1e-6
        K = sf2 * torch.exp(-0.5 * torch.cdist(X / ls, X / ls).pow(2))
        L = torch.linalg.cholesky(K + sn2 * torch.eye(20, dtype=torch.float64))
        return -MultivariateNormal(torch.zeros(20, dtype=torch.float64), scale_tril=L).log_prob(y)

    opt = torch.optim.LBFGS([raw], lr=1, max_iter=100, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = nll()
        loss.backward()
        return loss

    first = opt.step(closure)
    assert first.item() == pytest.approx(nll().item(), abs=100)  # the first evaluation
    (g,) = torch.autograd.grad(nll(), [raw])
    assert g.abs().max().item() < 1e-4


# --- NeRF volume rendering ----------------------------------------------------------------


def _render_weights(sigma, z):
    dists = z[..., 1:] - z[..., :-1]
    dists = torch.cat([dists, torch.Tensor([1e10]).expand(dists[..., :1].shape)], -1)
    alpha = 1.0 - torch.exp(-F.relu(sigma) * dists)
    ones = torch.ones((alpha.shape[0], 1))
    return alpha * torch.cumprod(torch.cat([ones, 1.0 - alpha + 1e-10], -1), -1)[:, :-1]


def test_volume_rendering_weights_closed_form():
    z = torch.linspace(0, 1, 5).expand(1, 5)
    w = _render_weights(torch.full((1, 5), 2.0), z)
    # sample i: exp(-2 * i/4) * (1 - exp(-0.5)); the last one absorbs the rest
    want = [math.exp(-0.5 * i) * (1 - math.exp(-0.5)) for i in range(4)] + [math.exp(-2.0)]
    np.testing.assert_allclose(w[0].numpy(), want, rtol=1e-5)
    assert w[0, :4].sum().item() == pytest.approx(1 - math.exp(-2.0), rel=1e-6)


def test_importance_sampling_searchsorted_exact():
    cdf = torch.tensor([[0.0, 0.25, 0.5, 1.0], [0.0, 0.1, 0.2, 1.0]])
    u = torch.tensor([[0.25, 0.6], [0.1, 0.05]])
    assert torch.searchsorted(cdf, u, right=True).tolist() == [[2, 3], [2, 1]]
    assert torch.searchsorted(cdf, u, side="right").tolist() == [[2, 3], [2, 1]]
    assert torch.searchsorted(cdf, u).tolist() == [[1, 3], [1, 1]]
    # nerf-pytorch's sample_pdf, deterministic: inverse CDF of a piecewise-uniform pdf
    bins = torch.tensor([[0.0, 1.0, 2.0, 3.0]])
    pdf = torch.tensor([[0.25, 0.25, 0.5]])
    c = torch.cat([torch.zeros(1, 1), torch.cumsum(pdf, -1)], -1)
    us = torch.linspace(0.0, 1.0, steps=5).expand(1, 5).contiguous()
    inds = torch.searchsorted(c, us, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((c.shape[-1] - 1) * torch.ones_like(inds), inds)
    g = torch.stack([below, above], -1)
    shape = [g.shape[0], g.shape[1], c.shape[-1]]
    cdf_g = torch.gather(c.unsqueeze(1).expand(shape), 2, g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(shape), 2, g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (us - cdf_g[..., 0]) / denom
    samples = bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])
    np.testing.assert_allclose(samples.numpy(), [[0.0, 1.0, 2.0, 2.5, 3.0]], atol=1e-6)


# --- gradient checkpointing ---------------------------------------------------------------


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm, self.fc, self.drop = nn.LayerNorm(6), nn.Linear(6, 6), nn.Dropout(0.2)

    def forward(self, x):
        return x + self.drop(F.gelu(self.fc(self.norm(x))))


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_gradients_equal_the_plain_model(reentrant):
    torch.manual_seed(0)
    blocks = nn.ModuleList([_Block() for _ in range(4)])
    x = torch.randn(5, 6)

    def run(ck):
        blocks.zero_grad()
        torch.manual_seed(7)
        h = x
        for b in blocks:
            h = checkpoint(b, h, use_reentrant=reentrant) if ck else b(h)
        h.pow(2).sum().backward()
        return [p.grad.clone() for p in blocks.parameters()]

    for a, b in zip(run(False), run(True)):  # dropout masks replayed (preserve_rng_state)
        assert torch.equal(a, b)
    seq = nn.Sequential(*[_Block() for _ in range(6)]).eval()
    xi = x.clone().requires_grad_(True)
    seq(xi).sum().backward()
    g_plain = xi.grad.clone()
    xi.grad = None
    checkpoint_sequential(seq, 3, xi, use_reentrant=reentrant).sum().backward()
    assert torch.equal(g_plain, xi.grad)


def test_checkpoint_recompute_updates_batchnorm_again_as_pytorch():
    # PyTorch recomputes the region in training mode, so BatchNorm's running statistics
    # are updated twice (pytorch/pytorch#96136, open); ferrograd does the same
    bn = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    checkpoint(bn, torch.randn(8, 3), use_reentrant=False).sum().backward()
    assert bn[1].num_batches_tracked.item() == 2


# --- EBM / Bayesian NN --------------------------------------------------------------------


def test_langevin_step_on_a_quadratic_energy_and_normal_kl():
    x = torch.tensor([[1.0, -2.0]])
    x = x.clone().detach().requires_grad_(True)
    (g,) = torch.autograd.grad((0.5 * (x**2).sum(-1)).sum(), [x])
    assert g.tolist() == [[1.0, -2.0]]
    x.data.add_(-0.1 * g)
    x.data.clamp_(-1.5, 1.5)
    np.testing.assert_allclose(x.detach().numpy(), [[0.9, -1.5]], rtol=1e-6)
    kl = kl_divergence(Normal(torch.tensor(1.0), torch.tensor(2.0)), Normal(0.0, 1.0))
    assert kl.item() == pytest.approx(math.log(0.5) + 2.5 - 0.5, rel=1e-6)
    # reparameterised weights: the gradient through mu + softplus(rho) * eps
    mu, rho = torch.tensor(0.5, requires_grad=True), torch.tensor(0.0, requires_grad=True)
    eps = torch.tensor(2.0)
    (mu + F.softplus(rho) * eps).backward()
    assert mu.grad.item() == 1.0 and rho.grad.item() == pytest.approx(2.0 * 0.5)
