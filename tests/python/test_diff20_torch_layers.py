"""Session-20 differential run, PyTorch code: layers' state against torch 2.15."""

import collections
import os
import tempfile

import ferrograd as torch
import numpy as np

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
