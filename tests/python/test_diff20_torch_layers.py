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
