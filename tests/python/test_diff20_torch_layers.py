"""Session-20 differential run, PyTorch code: layers' state against torch 2.15."""

import collections
import os
import tempfile

import ferrograd as torch
import numpy as np
import pytest

nn = torch.nn


def test_batchnorm_state_dict_order_survives_double():
    # torch 2.15: weight, bias, running_mean, running_var, num_batches_tracked
    want = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    for m in (
        nn.BatchNorm1d(3).double(),
        nn.BatchNorm2d(3).to(torch.float16),
        nn.BatchNorm3d(2).float(),
    ):
        assert list(m.state_dict().keys()) == want
    assert list(nn.BatchNorm2d(3, affine=False).double().state_dict()) == want[2:]


def test_instance_norm_does_not_count_batches():
    m = nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3)
    x = torch.tensor(np.random.default_rng(0).standard_normal((2, 3, 4, 5)))
    for _ in range(3):
        m(x)
    assert int(m.num_batches_tracked.item()) == 0  # torch 2.15 leaves it at 0
    # the running mean still moves with momentum 0.3 per step
    mean = x.numpy().mean(axis=(2, 3)).mean(0)
    np.testing.assert_allclose(m.running_mean.numpy(), mean * (1 - 0.7**3), rtol=1e-6)


def test_torch_load_gives_an_ordered_dict():
    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.pt")
        torch.save(m.state_dict(), path)
        torch.save({"b": 1, "a": 2}, path + "2")
        sd = torch.load(path)
        plain = torch.load(path + "2")
    assert type(sd) is collections.OrderedDict  # torch 2.15
    assert list(sd) == list(m.state_dict())
    assert type(plain) is dict and list(plain) == ["b", "a"]


def test_embedding_max_norm_renormalises_used_rows():
    w0 = np.arange(18, dtype=np.float64).reshape(6, 3) / 4.0
    m = nn.Embedding(6, 3, max_norm=1.0)
    m.load_state_dict({"weight": torch.tensor(w0)})
    ids = torch.tensor(np.array([0, 3, 3, 5]))
    y = m(ids)
    want = w0.copy()
    for r in (0, 3, 5):  # PyTorch's rule: scale max_norm / (norm + 1e-7) when norm > max_norm
        n = np.linalg.norm(w0[r])
        if n > 1.0:
            want[r] = w0[r] * (1.0 / (n + 1e-7))
    np.testing.assert_allclose(m.weight.detach().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(y.detach().numpy(), want[[0, 3, 3, 5]], rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy()[:, 0], [1, 0, 0, 2, 0, 1])
    # the functional form, norm_type 1
    w = torch.tensor(w0.copy())
    torch.nn.functional.embedding(torch.tensor(np.array([4])), w, max_norm=2.0, norm_type=1.0)
    np.testing.assert_allclose(w.numpy()[4], w0[4] * 2.0 / (np.abs(w0[4]).sum() + 1e-7))


def test_get_total_norm():
    ts = [torch.tensor(np.array([3.0, 4.0])), torch.tensor(np.array([12.0]))]
    assert float(nn.utils.get_total_norm(ts)) == 13.0  # torch 2.15
    assert float(nn.utils.get_total_norm(ts, norm_type=1)) == 19.0
    assert float(nn.utils.get_total_norm(ts, norm_type=float("inf"))) == 12.0


def test_layer_norm_multi_dim_parameters_keep_the_shape():
    m = nn.LayerNorm((2, 3))
    assert list(m.weight.shape) == [2, 3]  # torch 2.15 (Paddle's are flat)


def _np_mha(m, q, k, v, mask, zero_attn):
    """NumPy float64 reference of PyTorch's add_bias_kv / add_zero_attn (batch_first)."""
    sd = {n: t.detach().numpy().astype(np.float64) for n, t in m.state_dict().items()}
    e, h = m.embed_dim, m.num_heads
    w, b = sd["in_proj_weight"], sd["in_proj_bias"]
    qp, kp, vp = (
        x @ w[i * e : (i + 1) * e].T + b[i * e : (i + 1) * e] for i, x in enumerate((q, k, v))
    )
    n = q.shape[0]
    kp = np.concatenate([kp, np.broadcast_to(sd["bias_k"], (n, 1, e))], 1)
    vp = np.concatenate([vp, np.broadcast_to(sd["bias_v"], (n, 1, e))], 1)
    mask = np.concatenate([mask, np.zeros((mask.shape[0], 1), bool)], 1)

    def split(x):
        return x.reshape(n, x.shape[1], h, e // h).transpose(0, 2, 1, 3)

    qh, kh, vh = split(qp), split(kp), split(vp)
    if zero_attn:
        z = np.zeros((n, h, 1, e // h))
        kh, vh = np.concatenate([kh, z], 2), np.concatenate([vh, z], 2)
        mask = np.concatenate([mask, np.zeros((mask.shape[0], 1), bool)], 1)
    s = qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(e // h)
    s = np.where(mask, -np.inf, s)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    o = (a @ vh).transpose(0, 2, 1, 3).reshape(n, -1, e)
    return o @ sd["out_proj.weight"].T + sd["out_proj.bias"], a.mean(1)


def test_multihead_attention_bias_kv_and_zero_attn():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    mask = np.array([[False, True, False], [False, False, True], [True, False, False]])
    for zero_attn in (False, True):
        m = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=zero_attn, batch_first=True)
        m = m.double()
        # torch 2.15's state_dict keys
        assert list(m.state_dict()) == [
            "in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
            "out_proj.bias",
        ]  # fmt: skip
        assert list(m.bias_k.shape) == [1, 1, 4]
        out, w = m(torch.tensor(q), torch.tensor(k), torch.tensor(v), attn_mask=torch.tensor(mask))
        want_o, want_w = _np_mha(m, q, k, v, mask, zero_attn)
        np.testing.assert_allclose(out.detach().numpy(), want_o, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(w.detach().numpy(), want_w, rtol=1e-10, atol=1e-12)
        out.sum().backward()
        assert m.bias_k.grad is not None and m.bias_v.grad is not None


def test_interpolate_antialias_matches_torch():
    x = torch.tensor(np.arange(20, dtype=np.float64).reshape(1, 1, 5, 4) ** 1.5)
    F = torch.nn.functional
    # torch 2.15, rounded to 10 digits
    cases = [
        ({"size": (2, 3), "mode": "bilinear"}, [11.1610445787, 14.8196306358, 19.0575325443, 44.4493574621, 50.8525406214, 57.5506530612]),
        ({"size": (2, 3), "mode": "bicubic"}, [8.4331591212, 12.1852662438, 16.6448633989, 46.1613401034, 53.3653469538, 60.8879724772]),
        ({"size": (3, 2), "mode": "bicubic", "align_corners": True}, [7.1230980249, 11.7758208174, 40.1898221973, 48.7911266085, 70.7608962443, 81.2528282301]),
    ]  # fmt: skip
    for kw, want in cases:
        y = F.interpolate(x, antialias=True, **kw)
        np.testing.assert_allclose(y.numpy().ravel(), want, rtol=1e-9)


def test_interpolate_antialias_gradient_and_errors():
    from ferrograd.autograd import gradcheck

    x = torch.tensor(np.random.default_rng(5).standard_normal((1, 2, 6, 5)), requires_grad=True)
    F = torch.nn.functional
    assert gradcheck(lambda t: F.interpolate(t, size=(3, 4), mode="bicubic", antialias=True), (x,))
    with pytest.raises(ValueError, match="antialias"):
        F.interpolate(x, size=(3, 4), mode="nearest", antialias=True)


def test_embedding_from_pretrained_and_positional_norm_type():
    w0 = np.arange(18, dtype=np.float64).reshape(6, 3) / 4.0
    e = nn.Embedding.from_pretrained(torch.tensor(w0), padding_idx=1)
    assert e.weight.requires_grad is False  # torch 2.15: frozen, the padding row as given
    np.testing.assert_allclose(e(torch.tensor(np.array([1, 2]))).numpy(), w0[[1, 2]])
    e = nn.Embedding.from_pretrained(torch.tensor(w0), freeze=False)
    assert e.weight.requires_grad is True
    with pytest.raises(ValueError, match="2-dimensional"):
        nn.Embedding.from_pretrained(torch.tensor(np.ones(3)))
    # both peers: F.embedding(x, weight, padding_idx, max_norm, norm_type, ...)
    w = torch.tensor(w0.copy())
    torch.nn.functional.embedding(torch.tensor(np.array([4])), w, None, 1.0, 1.0)
    np.testing.assert_allclose(w.numpy()[4], w0[4] / (np.abs(w0[4]).sum() + 1e-7))


def test_dotted_module_access():
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.BatchNorm1d(3), nn.ReLU()))
    assert type(m.get_submodule("1.0")) is nn.BatchNorm1d and m.get_submodule("") is m
    assert m.get_parameter("0.weight") is m[0].weight
    assert m.get_buffer("1.0.running_mean") is m[1][0].running_mean
    # torch 2.15's messages
    with pytest.raises(AttributeError, match="Sequential has no attribute `2`"):
        m.get_submodule("2")
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        m.get_submodule("0.weight")
    with pytest.raises(AttributeError, match="`running_mean` is not an nn.Parameter"):
        m.get_parameter("1.0.running_mean")
    with pytest.raises(AttributeError, match="`bias` is not a buffer"):
        m.get_buffer("0.bias")
    m.set_submodule("1.1", nn.Tanh())
    assert type(m[1][1]) is nn.Tanh
    with pytest.raises(ValueError, match="without a target name"):
        m.set_submodule("", nn.ReLU())
    with pytest.raises(AttributeError, match="has no attribute `5`"):
        m.set_submodule("1.5", nn.ReLU(), strict=True)


def test_clip_grads_with_norm():
    a = nn.Parameter(torch.tensor(np.ones(3)))
    a.grad = torch.tensor(np.array([3.0, -4.0, 1.0]))
    total = nn.utils.get_total_norm([a.grad])
    nn.utils.clip_grads_with_norm_([a], 1.5, total)
    # torch 2.15 (float32 there): [0.8825..., -1.1767..., 0.2941...]
    np.testing.assert_allclose(
        a.grad.numpy(), np.array([3.0, -4.0, 1.0]) * 1.5 / (np.sqrt(26) + 1e-6)
    )
    a.grad = torch.tensor(np.array([0.3, -0.4, 0.1]))
    nn.utils.clip_grads_with_norm_([a], 1.5, 0.5)  # a coefficient above 1: unchanged
    np.testing.assert_allclose(a.grad.numpy(), [0.3, -0.4, 0.1])
