"""PyTorch 2.x norm layers with ``bias=False`` (issue #17): ``BatchNorm1d/2d/3d``,
``InstanceNorm1d/2d/3d``, ``GroupNorm``, ``SyncBatchNorm`` and the lazy batch / instance
norms keep ``weight`` without ``bias`` (``bias`` None, no ``bias`` in the state_dict),
as in PyTorch 2.x; values against NumPy float64, gradients by gradcheck."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

nn = torch.nn
RNG = np.random.default_rng(17)


def ref_norm(x, axes, w, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * w over ``axes`` (biased variance), w per channel."""
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    shape = [1, -1] + [1] * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * w.reshape(shape)


LAYERS = [
    (lambda: nn.BatchNorm1d(3, bias=False), (5, 3), (0,)),
    (lambda: nn.BatchNorm2d(3, bias=False), (4, 3, 2, 2), (0, 2, 3)),
    (lambda: nn.BatchNorm3d(3, bias=False), (2, 3, 2, 2, 2), (0, 2, 3, 4)),
    (lambda: nn.InstanceNorm1d(3, affine=True, bias=False), (2, 3, 6), (2,)),
    (lambda: nn.InstanceNorm2d(3, affine=True, bias=False), (2, 3, 3, 2), (2, 3)),
    (lambda: nn.InstanceNorm3d(3, affine=True, bias=False), (2, 3, 2, 2, 2), (2, 3, 4)),
    (lambda: nn.SyncBatchNorm(3, bias=False), (4, 3, 2), (0, 2)),
]


@pytest.mark.parametrize("make, shape, axes", LAYERS)
def test_norm_without_bias_state_values_gradients(make, shape, axes):
    m = make().double()
    assert m.bias is None
    assert "bias" not in m.state_dict() and "weight" in m.state_dict()
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    assert "affine=True, bias=False" in repr(m)
    w = RNG.uniform(0.5, 2.0, 3)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(w))
    x = RNG.standard_normal(shape)
    out = m(torch.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), ref_norm(x, axes, w), rtol=1e-9, atol=1e-12)
    xt = torch.tensor(x, requires_grad=True)
    assert gradcheck(lambda x: m(x), (xt,))


def test_group_norm_without_bias():
    m = nn.GroupNorm(2, 4, bias=False).double()
    assert m.bias is None and list(m.state_dict()) == ["weight"]
    assert repr(m) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=False)"
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    w = RNG.uniform(0.5, 2.0, 4)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(w))
    x = RNG.standard_normal((3, 4, 5))
    grouped = x.reshape(3, 2, 10)
    mean, var = grouped.mean(-1, keepdims=True), grouped.var(-1, keepdims=True)
    want = ((grouped - mean) / np.sqrt(var + 1e-5)).reshape(3, 4, 5) * w.reshape(1, 4, 1)
    np.testing.assert_allclose(m(torch.tensor(x)).detach().numpy(), want, rtol=1e-9, atol=1e-12)
    wt = torch.tensor(w, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    assert gradcheck(lambda x, w: torch.nn.functional.group_norm(x, 2, w, None), (xt, wt))
    no_affine = nn.GroupNorm(2, 4, affine=False, bias=False)
    assert no_affine.weight is None and no_affine.bias is None and not no_affine.state_dict()


def test_batch_norm_without_bias_reset_load_and_affine_false():
    m = nn.BatchNorm1d(3, bias=False)
    m.reset_parameters()  # no bias to zero
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(3))
    with pytest.raises(RuntimeError, match="unexpected keys \\['bias'\\]"):
        m.load_state_dict(nn.BatchNorm1d(3).state_dict())
    m.load_state_dict(nn.BatchNorm1d(3, bias=False).state_dict())
    plain = nn.BatchNorm1d(3, affine=False, bias=False)
    assert plain.weight is None and plain.bias is None
    assert list(plain.state_dict()) == ["running_mean", "running_var", "num_batches_tracked"]
    # the running statistics are those of the biased layer
    x = torch.tensor(RNG.standard_normal((6, 3)))
    a, b = nn.BatchNorm1d(3).double(), nn.BatchNorm1d(3, bias=False).double()
    a(x), b(x)
    np.testing.assert_allclose(a.running_var.numpy(), b.running_var.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "lazy, shape, regular",
    [
        (lambda: nn.LazyBatchNorm1d(bias=False), (4, 3), nn.BatchNorm1d),
        (lambda: nn.LazyBatchNorm2d(bias=False), (2, 3, 2, 2), nn.BatchNorm2d),
        (lambda: nn.LazyBatchNorm3d(bias=False), (2, 3, 1, 2, 2), nn.BatchNorm3d),
        (lambda: nn.LazyInstanceNorm1d(affine=True, bias=False), (2, 3, 4), nn.InstanceNorm1d),
        (
            lambda: nn.LazyInstanceNorm2d(affine=True, bias=False),
            (2, 3, 2, 2),
            nn.InstanceNorm2d,
        ),
        (
            lambda: nn.LazyInstanceNorm3d(affine=True, bias=False),
            (2, 3, 1, 2, 2),
            nn.InstanceNorm3d,
        ),
    ],
)
def test_lazy_norm_without_bias(lazy, shape, regular):
    m = lazy()
    assert m.bias is None and "bias" not in m.state_dict()
    m(torch.randn(*shape))
    assert type(m) is regular and m.bias is None and list(m.weight.shape) == [3]
    assert "bias" not in m.state_dict()
    # a fresh lazy layer takes its size from a bias-less state_dict
    fresh = lazy()
    fresh.load_state_dict(m.state_dict())
    assert type(fresh) is regular and fresh.bias is None


def test_lazy_norm_without_affine_has_none_entries():
    m = nn.LazyInstanceNorm1d(affine=False)
    assert m.weight is None and m.bias is None
