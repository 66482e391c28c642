"""Session 42's second round of PyTorch user scripts (docs/user-scripts.md, "Session 42: a
second round of PyTorch scripts"): what they broke, pinned, and the values they print that
can be checked exactly (hand-set inputs, closed forms, brute force). The scripts live
outside the repository; each scenario's idiom is reproduced here at its smallest.

The module imports ferrograd as ``torch`` on purpose: the calls below are PyTorch code, and
where the two dialects differ the import line decides (docs/dialects.md).
"""

import itertools
import math

import ferrograd as torch
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest

# --- findings ----------------------------------------------------------------------------


def _complex_pair(seed=1):
    torch.manual_seed(seed)
    wc = nn.Parameter(torch.randn(3, 2, dtype=torch.cfloat))
    wr = nn.Parameter(torch.view_as_real(wc.detach()).clone())
    return wc, wr


def _complex_loss(z):
    target = torch.tensor([[1 + 1j, -2j], [0.5, 1], [2 - 1j, 0]], dtype=torch.cfloat)
    # not a function of |z - target| alone, so real and imaginary parts move differently
    return ((z - target).abs() ** 2).sum() + 0.1 * (z.real**3).sum() - 0.2 * z.imag.sum()


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("NAdam", {"lr": 0.1, "weight_decay": 0.01}),
        ("RAdam", {"lr": 0.1}),
        ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
        ("ASGD", {"lr": 0.05, "t0": 2}),
        ("Rprop", {"lr": 0.1}),
    ],
)
def test_python_optimizers_complex_params_regression(name, kwargs):
    # FNO-style complex weights trained with NAdam / RAdam / ASGD / Rprop raised
    # "TypeError: NAdam: complex parameters are not supported". PyTorch 2.x runs them on
    # torch.view_as_real of the parameter, gradient and state (torch/optim/nadam.py
    # _single_tensor_nadam, radam.py _single_tensor_radam, asgd.py _single_tensor_asgd,
    # rprop.py _single_tensor_rprop: `if torch.is_complex(param): param =
    # torch.view_as_real(param)` ...; Rprop starts complex step sizes at complex(lr, lr)),
    # so a complex parameter moves exactly as its real view would.
    wc, wr = _complex_pair()
    opt_c = getattr(torch.optim, name)([wc], **kwargs)
    opt_r = getattr(torch.optim, name)([wr], **kwargs)
    for _ in range(6):
        opt_c.zero_grad()
        opt_r.zero_grad()
        _complex_loss(wc).backward()
        _complex_loss(torch.view_as_complex(wr)).backward()
        opt_c.step()
        opt_r.step()
    np.testing.assert_allclose(
        torch.view_as_real(wc.detach()).numpy(), wr.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    # the state of a complex parameter is complex and shaped like it, as PyTorch's
    for v in opt_c.state[wc].values():
        if isinstance(v, torch.Tensor) and v.dim() > 0:
            assert v.dtype == torch.cfloat and list(v.shape) == [3, 2]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_complex_params_regression(line_search_fn):
    # Style transfer / FNO code may hand LBFGS a complex parameter. PyTorch's LBFGS flattens
    # the gradient of a complex parameter with torch.view_as_real and steps the real view
    # (torch/optim/lbfgs.py: LBFGS._gather_flat_grad, _add_grad, _numel counts 2 * numel).
    # ferrograd flattened the complex gradient itself: `float(y.dot(s))` kept the real part
    # of a non-conjugated complex dot product (sum of re*re - im*im), so the curvature
    # pairs and steps were silently wrong (1.98 away from the real-view run after 4 steps).
    wc, wr = _complex_pair()
    opt_c = torch.optim.LBFGS([wc], lr=0.5, line_search_fn=line_search_fn)
    opt_r = torch.optim.LBFGS([wr], lr=0.5, line_search_fn=line_search_fn)

    def closure_c():
        opt_c.zero_grad()
        loss = _complex_loss(wc)
        loss.backward()
        return loss

    def closure_r():
        opt_r.zero_grad()
        loss = _complex_loss(torch.view_as_complex(wr))
        loss.backward()
        return loss

    for _ in range(3):
        opt_c.step(closure_c)
        opt_r.step(closure_r)
    np.testing.assert_allclose(
        torch.view_as_real(wc.detach()).numpy(), wr.detach().numpy(), rtol=1e-4, atol=1e-5
    )


def test_float_of_complex_tensor_regression():
    # float(t) / int(t) on a one-element complex tensor returned the real part even when the
    # imaginary part is not zero. PyTorch's Tensor.__float__ goes through item<double>(),
    # whose checked conversion treats complex -> real with a non-zero imaginary part as an
    # overflow (c10/util/TypeCast.h, `overflows` for complex From: "casts from complex to
    # real are considered to overflow if the imaginary component is non-zero"):
    # RuntimeError "value cannot be converted to type double without overflow".
    assert float(torch.tensor(2 + 0j)) == 2.0  # a zero imaginary part converts
    assert int(torch.tensor(3 + 0j, dtype=torch.cdouble)) == 3
    with pytest.raises(RuntimeError, match="without overflow"):
        float(torch.tensor(1 + 2j))
    with pytest.raises(RuntimeError, match="without overflow"):
        int(torch.tensor(1 - 1j))


def test_module_to_complex_dtype_casts_complex_params_regression():
    # An FNO moved to double precision with model.to(torch.cdouble) kept its cfloat spectral
    # weights complex64 while the real layers became complex128, so the einsum mixed
    # precisions. PyTorch's Module.to casts every floating *or complex* tensor
    # (torch/nn/modules/module.py, Module.to.convert: `dtype if t.is_floating_point() or
    # t.is_complex() else None`); .double() / .float() leave complex tensors alone
    # (Module.double: `t.double() if t.is_floating_point() else t`).
    m = nn.Module()
    m.w = nn.Parameter(torch.randn(2, dtype=torch.cfloat))
    m.lin = nn.Linear(2, 2)
    m.double()
    assert m.w.dtype == torch.cfloat and m.lin.weight.dtype == torch.float64
    m.to(torch.cdouble)
    assert m.lin.weight.dtype == torch.cdouble
    assert m.w.dtype == torch.cdouble


# --- Fourier neural operator ---------------------------------------------------------------


def test_fno_spectral_conv_complex_autograd_and_adam():
    # SpectralConv2d: rfft2 -> einsum with a cfloat nn.Parameter into a zero cfloat buffer
    # (slice assignment) -> irfft2(s=...). PyTorch's gradient of a real loss with respect to
    # a complex leaf is dL/dRe + i dL/dIm (docs/source/notes/autograd.rst, "Autograd for
    # Complex Numbers"); check it against central differences in float64.
    torch.manual_seed(0)
    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    w = torch.randn(3, 2, 2, 2, dtype=torch.complex128, requires_grad=True)

    def loss(w):
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(2, 2, 6, 4, dtype=torch.complex128)
        out_ft[:, :, :2, :2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :2, :2], w)
        y = torch.fft.irfft2(out_ft, s=(6, 6))
        return (y**2).sum() + y[:, 0].sum()

    loss(w).backward()
    wd = w.detach()
    for idx in [(0, 0, 0, 0), (1, 1, 0, 1), (2, 0, 1, 1)]:
        e = torch.zeros_like(wd)
        e[idx] = 1e-6
        d_re = (loss(wd + e) - loss(wd - e)).item() / 2e-6
        d_im = (loss(wd + 1j * e) - loss(wd - 1j * e)).item() / 2e-6
        got = complex(w.grad[idx].item())
        assert abs(got - complex(d_re, d_im)) < 1e-5 * (1 + abs(got))
    # Adam on a complex parameter equals Adam on its real view (torch/optim/adam.py)
    wc, wr = _complex_pair()
    oc, orr = torch.optim.Adam([wc], lr=0.1), torch.optim.Adam([wr], lr=0.1)
    for _ in range(4):
        oc.zero_grad()
        orr.zero_grad()
        _complex_loss(wc).backward()
        _complex_loss(torch.view_as_complex(wr)).backward()
        oc.step()
        orr.step()
    np.testing.assert_allclose(torch.view_as_real(wc.detach()).numpy(), wr.detach().numpy())


# --- BiLSTM-CRF --------------------------------------------------------------------------


def _crf_pieces(seed=0, T=4, K=3):
    torch.manual_seed(seed)
    em = torch.randn(T, K, dtype=torch.float64)
    trans = torch.randn(K, K, dtype=torch.float64)
    start = torch.randn(K, dtype=torch.float64)
    end = torch.randn(K, dtype=torch.float64)
    return em, trans, start, end


def _path_score(em, trans, start, end, path):
    s = start[path[0]] + em[0, path[0]]
    for i in range(1, len(path)):
        s = s + trans[path[i - 1], path[i]] + em[i, path[i]]
    return s + end[path[-1]]


def test_crf_forward_algorithm_and_viterbi_equal_brute_force():
    # pytorch-crf's _compute_normalizer (logsumexp over broadcast score + transitions +
    # emissions) and _viterbi_decode (max(dim=1) with back-pointers) against enumerating
    # all K**T tag paths.
    em, trans, start, end = _crf_pieces()
    T, K = em.shape
    paths = list(itertools.product(range(K), repeat=T))
    scores = torch.stack([_path_score(em, trans, start, end, p) for p in paths])
    score = start + em[0]
    vscore, history = start + em[0], []
    for i in range(1, T):
        score = torch.logsumexp(score.unsqueeze(1) + trans + em[i].unsqueeze(0), dim=0)
        vscore, idx = (vscore.unsqueeze(1) + trans + em[i].unsqueeze(0)).max(dim=0)
        history.append(idx)
    log_z = torch.logsumexp(score + end, dim=0)
    assert abs(log_z.item() - torch.logsumexp(scores, 0).item()) < 1e-12
    best = [int((vscore + end).argmax())]
    for idx in reversed(history):
        best.append(int(idx[best[-1]]))
    assert tuple(reversed(best)) == paths[int(scores.argmax())]
    # the vectorised back-tracking with gather gives the same path
    last = (vscore + end).argmax().reshape(1, 1)
    path = [last]
    for idx in reversed(history):
        last = idx.unsqueeze(0).gather(1, last)
        path.append(last)
    assert [int(p) for p in reversed(path)] == list(reversed(best))


def test_crf_gold_score_gradient_counts_transitions():
    # transitions[tags[i - 1], tags[i]] with repeated pairs accumulates the gradient once per
    # use (advanced-index backward is index_put with accumulate=True)
    trans = torch.zeros(3, 3, requires_grad=True)
    tags = torch.tensor([0, 1, 1, 1, 2])
    trans[tags[:-1], tags[1:]].sum().backward()
    assert trans.grad.tolist() == [[0, 1, 0], [0, 2, 1], [0, 0, 0]]


def test_packed_bilstm_equals_per_sequence():
    # pack_padded_sequence(enforce_sorted=False) -> bidirectional LSTM -> pad_packed_sequence:
    # each sequence's outputs and final states equal running it alone; padding is zero
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 4, bidirectional=True, batch_first=True)
    seqs = [torch.randn(5, 3), torch.randn(2, 3), torch.randn(4, 3)]
    padded = nn.utils.rnn.pad_sequence(seqs, batch_first=True)
    packed = nn.utils.rnn.pack_padded_sequence(
        padded, torch.tensor([5, 2, 4]), batch_first=True, enforce_sorted=False
    )
    assert packed.batch_sizes.tolist() == [3, 3, 2, 2, 1]
    out, (h, _) = lstm(packed)
    out, lengths = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=6)
    assert lengths.tolist() == [5, 2, 4] and list(out.shape) == [3, 6, 8]
    for i, s in enumerate(seqs):
        oi, (hi, _) = lstm(s.unsqueeze(0))
        np.testing.assert_allclose(
            out[i, : len(s)].detach().numpy(), oi[0].detach().numpy(), atol=1e-6
        )
        np.testing.assert_allclose(h[:, i].detach().numpy(), hi[:, 0].detach().numpy(), atol=1e-6)
        assert out[i, len(s) :].abs().max().item() == 0.0


# --- DQN ---------------------------------------------------------------------------------


def test_dqn_update_pieces():
    # Q(s, a) by gather, the TD target under no_grad, SmoothL1Loss (beta=1), and
    # clip_grad_value_; the gradient only reaches the taken actions
    q = torch.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], requires_grad=True)
    actions = torch.tensor([[1], [0], [0]])
    target = torch.tensor([[4.0], [0.25], [3.5]])
    sa = q.gather(1, actions)
    loss = nn.SmoothL1Loss()(sa, target)
    # |d| = 2, 0.25, 0.5: (2 - 0.5 + 0.5 * 0.25**2 + 0.5 * 0.5**2) / 3
    assert abs(loss.item() - (1.5 + 0.03125 + 0.125) / 3) < 1e-7
    loss.backward()
    want = [[0, -1 / 3], [0.25 / 3, 0], [-0.5 / 3, 0]]
    np.testing.assert_allclose(q.grad.numpy(), want, rtol=1e-6)
    nn.utils.clip_grad_value_([q], 0.1)
    np.testing.assert_allclose(q.grad.numpy(), [[0, -0.1], [0.25 / 3, 0], [-0.1, 0]], rtol=1e-6)
    assert F.smooth_l1_loss(torch.tensor([2.0]), torch.zeros(1), beta=0.5).item() == 1.75


def test_dqn_soft_target_update_through_state_dict():
    # the tutorial's soft update: target_sd[k] = policy_sd[k] * tau + target_sd[k] * (1 - tau)
    # then target_net.load_state_dict(target_sd)
    torch.manual_seed(0)
    policy, target = nn.Linear(3, 2), nn.Linear(3, 2)
    target.load_state_dict(policy.state_dict())
    with torch.no_grad():
        policy.weight.add_(1.0)
    before = target.weight.detach().clone()
    tsd, psd = target.state_dict(), policy.state_dict()
    for key in psd:
        tsd[key] = psd[key] * 0.25 + tsd[key] * 0.75
    target.load_state_dict(tsd)
    np.testing.assert_allclose(target.weight.detach().numpy(), (before + 0.25).numpy(), atol=1e-6)
    assert target.weight.requires_grad and target.weight.grad_fn is None


# --- neural style transfer -----------------------------------------------------------------


def test_gram_matrix_gradient_and_hook_capture():
    # gram = F F^T / (a b c d); d mse(gram, G) / d input through a forward-hook capture
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 3, 1, bias=False)
    feats = {}
    handle = conv.register_forward_hook(lambda m, i, o: feats.__setitem__("x", o))
    img = torch.rand(1, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    conv.double()(img)
    handle.remove()
    f = feats["x"].view(3, 9)
    gram = f @ f.t() / 27
    target = torch.eye(3, dtype=torch.float64)
    F.mse_loss(gram, target).backward()
    # closed form: dL/dF = (2 / 9) (G - T) (2 / 27) F, then through the 1x1 conv
    dfe = (2 / 9) * (2 / 27) * ((gram - target).detach() @ f.detach())
    want = torch.einsum("oc,ohw->chw", conv.weight.detach()[:, :, 0, 0], dfe.view(3, 3, 3))
    np.testing.assert_allclose(img.grad[0].numpy(), want.numpy(), atol=1e-12)
    conv(img)
    assert len(conv._forward_hooks) == 0 and len(feats) == 1


def test_lbfgs_on_the_image_with_clamp_in_closure():
    # optimising the input image with LBFGS and clamp_ under no_grad inside the closure: a
    # quadratic whose minimiser lies inside [0, 1] is found exactly
    target = torch.tensor([[0.2, 0.9], [0.5, 0.1]], dtype=torch.float64)
    img = torch.full((2, 2), 0.5, dtype=torch.float64).requires_grad_()
    opt = torch.optim.LBFGS([img], line_search_fn="strong_wolfe")

    def closure():
        with torch.no_grad():
            img.clamp_(0, 1)
        opt.zero_grad()
        loss = ((img - target) ** 2).sum() * 3.0
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(img.detach().numpy(), target.numpy(), atol=1e-9)


# --- PixelCNN ------------------------------------------------------------------------------


class _MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kh, kw = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kh // 2, kw // 2 + (mask_type == "B") :] = 0
        self.mask[:, :, kh // 2 + 1 :] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super().forward(x)


def test_pixelcnn_masks_and_causality():
    torch.manual_seed(0)
    a = _MaskedConv2d("A", 1, 4, 5, 1, 2, bias=False)
    b = _MaskedConv2d("B", 4, 4, 3, 1, 1, bias=False)
    assert a.mask[0, 0].tolist() == [[1] * 5, [1] * 5, [1, 1, 0, 0, 0], [0] * 5, [0] * 5]
    assert b.mask[0, 0].tolist() == [[1, 1, 1], [1, 1, 0], [0, 0, 0]]
    assert "mask" in dict(a.named_buffers()) and "mask" in a.state_dict()
    x = torch.rand(1, 1, 6, 6, requires_grad=True)
    b(torch.relu(a(x)))[0, :, 3, 2].sum().backward()
    g = x.grad[0, 0].flatten()
    assert g[3 * 6 + 2 :].abs().max().item() == 0.0  # the pixel itself and later ones
    assert g[: 3 * 6 + 2].abs().max().item() > 0.0
    assert (a.weight.detach() * (1 - a.mask)).abs().max().item() == 0.0


def test_cross_entropy_over_256_levels_nchw():
    torch.manual_seed(0)
    logits = torch.randn(2, 256, 3, 3, dtype=torch.float64)
    target = torch.randint(0, 256, (2, 3, 3))
    want = -F.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).mean()
    assert abs(F.cross_entropy(logits, target).item() - want.item()) < 1e-12


# --- WaveNet -------------------------------------------------------------------------------


def test_mu_law_encoding_equals_bucketize():
    # torchaudio.functional.mu_law_encoding (sign, log1p, +0.5, to int64) equals bucketize of
    # the companded signal on the mid-points (right=True); decoding inverts the companding
    x = torch.linspace(-1, 1, 2001)
    mu = 255.0
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / math.log1p(mu)
    codes = ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)
    bounds = (torch.arange(1, 256, dtype=torch.float32) - 0.5) / mu * 2 - 1
    assert torch.equal(codes, torch.bucketize(x_mu, bounds, right=True))
    assert codes.min().item() == 0 and codes.max().item() == 255
    y = codes.float() / mu * 2 - 1
    dec = torch.sign(y) * (torch.exp(torch.abs(y) * math.log1p(mu)) - 1.0) / mu
    # at most half the widest step, the one between codes 254 and 255
    widest = 1.0 - (math.exp((253 / 255) * math.log1p(mu)) - 1.0) / mu
    assert (dec - x).abs().max().item() <= widest / 2 + 1e-6
    assert codes[1000].item() == 128 and abs(dec[-1].item() - 1.0) < 1e-6  # x = 0, x = 1


def test_dilated_causal_conv_receptive_field():
    # F.pad(x, (left, 0)) then a dilated Conv1d: output t sees inputs t - 6 .. t only
    torch.manual_seed(0)
    convs = [nn.Conv1d(2, 2, 2, dilation=d) for d in (1, 2, 4)]
    x = torch.randn(1, 2, 20, requires_grad=True)
    h = x
    for c in convs:
        h = c(F.pad(h, ((2 - 1) * c.dilation[0], 0)))
    assert list(h.shape) == [1, 2, 20]
    h[0, :, 12].sum().backward()
    nz = (x.grad[0].abs().sum(0) > 0).nonzero().flatten().tolist()
    assert nz == list(range(5, 13))
    assert F.pad(torch.ones(1, 1, 2), (3, 0)).tolist() == [[[0, 0, 0, 1, 1]]]


# --- metric learning -----------------------------------------------------------------------


def test_triplet_and_cosine_embedding_losses_closed_form():
    torch.manual_seed(0)
    a, p, n = (torch.randn(5, 4, dtype=torch.float64) for _ in range(3))
    d = F.pairwise_distance
    # TripletMarginWithDistanceLoss: default distance is pairwise_distance; swap uses
    # min(d(a, n), d(p, n)) (torch/nn/functional.py triplet_margin_with_distance_loss)
    ref = torch.clamp(d(a, p) - torch.minimum(d(a, n), d(p, n)) + 1.0, min=0).mean()
    got = nn.TripletMarginWithDistanceLoss(margin=1.0, swap=True)(a, p, n)
    assert abs(got.item() - ref.item()) < 1e-12
    cos_d = lambda u, v: 1.0 - F.cosine_similarity(u, v)  # noqa: E731
    ref = torch.clamp(cos_d(a, p) - cos_d(a, n) + 0.5, min=0).sum()
    got = nn.TripletMarginWithDistanceLoss(distance_function=cos_d, margin=0.5, reduction="sum")
    assert abs(got(a, p, n).item() - ref.item()) < 1e-12
    # CosineEmbeddingLoss: 1 - cos for y = 1, max(0, cos - margin) for y = -1
    y = torch.tensor([1, -1, 1, -1, -1])
    cos = F.cosine_similarity(a, p)
    ref = torch.where(y == 1, 1 - cos, torch.clamp(cos - 0.2, min=0)).mean()
    assert abs(nn.CosineEmbeddingLoss(margin=0.2)(a, p, y).item() - ref.item()) < 1e-12
    # pairwise_distance adds eps to the difference; cdist does not
    assert abs(d(a, p)[0].item() - (a[0] - p[0] + 1e-6).norm().item()) < 1e-12
    np.testing.assert_allclose(d(a, p, eps=0).numpy(), torch.cdist(a, p).diagonal().numpy())


def test_batch_hard_mining_with_cdist():
    emb = torch.tensor([[0.0, 0.0], [1.2, 0.0], [0.0, 3.0], [0.5, 0.0], [0.0, 2.0]])
    labels = torch.tensor([0, 0, 1, 0, 1])
    dist = torch.cdist(emb, emb)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(5, dtype=torch.bool)
    hardest_pos = dist.masked_fill(~same | eye, float("-inf")).argmax(1)
    hardest_neg = dist.masked_fill(same, float("inf")).argmin(1)
    assert hardest_pos.tolist() == [1, 0, 4, 1, 2]
    assert hardest_neg.tolist() == [4, 4, 0, 4, 0]


# --- Set Transformer -----------------------------------------------------------------------


def test_set_attention_key_padding_mask():
    # nn.MultiheadAttention(batch_first=True) with key_padding_mask (True = padding): bool
    # and additive float masks agree, padded keys get zero weight, and changing padded
    # values or permuting the set leaves a pooled (PMA-style) output unchanged
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    seeds = torch.randn(2, 1, 8)
    x = torch.randn(2, 5, 8)
    mask = torch.tensor([[False, False, False, True, True], [False] * 5])
    out, w = mha(seeds, x, x, key_padding_mask=mask)
    fmask = torch.zeros(2, 5).masked_fill(mask, float("-inf"))
    out_f, _ = mha(seeds, x, x, key_padding_mask=fmask)
    assert (out - out_f).abs().max().item() == 0.0
    assert w[0, 0, 3:].abs().max().item() == 0.0
    assert abs(w.sum(-1) - 1).max().item() < 1e-6
    x2 = x.clone()
    x2[mask] = 99.0
    perm = torch.tensor([4, 2, 0, 3, 1])
    out2, _ = mha(seeds, x2[:, perm], x2[:, perm], key_padding_mask=mask[:, perm])
    assert (out2 - out).abs().max().item() < 1e-6
    _, wh = mha(seeds, x, x, key_padding_mask=mask, average_attn_weights=False)
    assert list(wh.shape) == [2, 2, 1, 5]
    assert (wh.mean(1) - w).abs().max().item() < 1e-7
