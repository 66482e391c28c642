"""PyTorch's lazy convolution / normalization modules (nn/lazy_more.py), as torch 2.15:
the channel count read from the first input (or a loaded state_dict), the object turned
into the regular module, hooks and the training mode kept."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest


@pytest.mark.parametrize(
    ("lazy", "regular", "shape", "weight"),
    [
        (lambda: nn.LazyConv1d(4, 3), nn.Conv1d, (2, 3, 7), [4, 3, 3]),
        (lambda: nn.LazyConv2d(4, 3, padding=1), nn.Conv2d, (2, 3, 5, 5), [4, 3, 3, 3]),
        (lambda: nn.LazyConv3d(2, 2), nn.Conv3d, (1, 3, 3, 3, 3), [2, 3, 2, 2, 2]),
        (
            lambda: nn.LazyConvTranspose1d(4, 3, groups=2),
            nn.ConvTranspose1d,
            (2, 6, 5),
            [6, 2, 3],
        ),  # fmt: skip
        (lambda: nn.LazyConvTranspose2d(2, 3), nn.ConvTranspose2d, (1, 3, 4, 4), [3, 2, 3, 3]),
        (
            lambda: nn.LazyConvTranspose3d(2, 2),
            nn.ConvTranspose3d,
            (1, 3, 2, 2, 2),
            [3, 2, 2, 2, 2],
        ),  # fmt: skip
    ],
)
def test_lazy_convolutions_become_the_regular_module(lazy, regular, shape, weight):
    m = lazy()
    assert m.has_uninitialized_params() and isinstance(m.weight, nn.UninitializedParameter)
    x = fg.randn(*shape, dtype=fg.float64)
    m.double()  # before the first call: the parameters are created as float64
    y = m(x)
    assert type(m) is regular and list(m.weight.shape) == weight
    assert m.weight.dtype == fg.float64 and not hasattr(m, "has_uninitialized_params")
    nd = len(shape) - 2
    fn = getattr(F, f"conv_transpose{nd}d" if "Transpose" in regular.__name__ else f"conv{nd}d")
    kw = {"groups": m.groups} if m.groups != 1 else {}
    want = fn(x, m.weight, m.bias, stride=m.stride, padding=m.padding, **kw)  # fmt: skip
    np.testing.assert_allclose(y.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_lazy_conv_unbatched_input_and_state_dict():
    u = nn.LazyConv1d(2, 3)
    assert list(u(fg.ones(3, 7)).shape) == [2, 5] and u.in_channels == 3
    src = nn.Conv2d(3, 4, 3, groups=1)
    dst = nn.LazyConv2d(4, 3)
    dst.load_state_dict(src.state_dict())
    assert type(dst) is nn.Conv2d and dst.in_channels == 3
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())
    g = nn.LazyConv2d(4, 1, groups=2)
    g.load_state_dict(nn.Conv2d(6, 4, 1, groups=2).state_dict())
    assert g.in_channels == 6
    with pytest.raises(TypeError, match="eager Tensor"):
        nn.LazyConv2d(4, 3)([1.0])


def test_lazy_norms():
    b = nn.LazyBatchNorm1d()
    assert list(b.state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked",
    ]  # fmt: skip
    assert isinstance(b.running_mean, nn.UninitializedBuffer)
    calls = []
    b.register_forward_hook(lambda m, i, o: calls.append(1))
    b.eval()
    x = fg.randn(4, 3, dtype=fg.float64)
    y = b(x)
    assert type(b) is nn.BatchNorm1d and b.num_features == 3 and calls == [1]
    assert not b.training
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    # no parameters at all: still becomes InstanceNorm2d
    i = nn.LazyInstanceNorm2d(affine=False, track_running_stats=False)
    a = np.random.default_rng(0).normal(size=(2, 3, 4, 4))
    out = i(fg.tensor(a))
    assert type(i) is nn.InstanceNorm2d and i.num_features == 3
    mu, var = a.mean((2, 3), keepdims=True), a.var((2, 3), keepdims=True)
    np.testing.assert_allclose(out.numpy(), (a - mu) / np.sqrt(var + 1e-5), rtol=1e-6)
    bn3 = nn.LazyBatchNorm3d()
    bn3.load_state_dict(nn.BatchNorm3d(5).state_dict())
    assert type(bn3) is nn.BatchNorm3d and bn3.num_features == 5
    for cls in (nn.LazyBatchNorm2d, nn.LazyInstanceNorm1d, nn.LazyInstanceNorm3d):
        assert cls().has_uninitialized_params()  # PyTorch's defaults: affine, running stats
    j = nn.LazyInstanceNorm1d()
    j(fg.randn(2, 3, 5))
    assert j.weight.shape == [3] and j.running_mean.shape == [3] and j.track_running_stats
    k = nn.LazyInstanceNorm1d(affine=False)
    assert k.weight is None and isinstance(k.running_mean, nn.UninitializedBuffer)
    assert nn.LazyBatchNorm1d(bias=False).bias is None  # built since session 23
