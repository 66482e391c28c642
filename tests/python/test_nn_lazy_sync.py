"""Issue 17: ``nn.LazyLinear`` (in_features from the first input; ``state_dict``
loading materializes it) and ``nn.SyncBatchNorm`` in one process (PyTorch's and Paddle's
flavours, ``convert_sync_batchnorm``): values against NumPy float64 references, bad
input."""

from __future__ import annotations

import pickle

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(3)

# ---- LazyLinear -------------------------------------------------------------------------


def test_lazy_linear_infers_in_features_and_becomes_linear():
    fg.manual_seed(0)
    lazy = nn.LazyLinear(4)
    assert lazy.has_uninitialized_params() and lazy.in_features == 0
    assert isinstance(lazy.weight, nn.UninitializedParameter)
    assert [list(p.shape) for p in lazy.parameters()] == [[0], [0]]
    x = RNG.standard_normal((2, 3, 7))
    y = lazy(fg.tensor(x, dtype=fg.float32))
    assert type(lazy) is nn.Linear and lazy.in_features == 7
    assert list(lazy.weight.shape) == [4, 7] and list(lazy.bias.shape) == [4]
    assert not isinstance(lazy.weight, nn.UninitializedParameter)
    w, b = lazy.weight.detach().numpy(), lazy.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)
    bound = 1 / np.sqrt(7)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # the same draws as a Linear built with in_features=7
    fg.manual_seed(0)
    ref = nn.Linear(7, 4)
    np.testing.assert_array_equal(ref.weight.detach().numpy(), w)


def test_lazy_linear_options_and_grad():
    lazy = nn.LazyLinear(3, bias=False, dtype=fg.float64)
    assert lazy.bias is None
    lazy.initialize_parameters(fg.zeros([5, 2], dtype=fg.float64))
    assert lazy.weight.dtype == fg.float64 and list(lazy.weight.shape) == [3, 2]
    assert type(lazy) is nn.Linear  # as in torch, no lazy methods are left
    x = fg.tensor(RNG.standard_normal((4, 2)), requires_grad=True)
    assert gradcheck(lambda v: lazy(v), (x,))


def test_lazy_linear_state_dict_and_optimizer():
    src = nn.Sequential(nn.LazyLinear(5), nn.ReLU(), nn.LazyLinear(2))
    # an optimizer over placeholders would never see the real parameters: refused
    with pytest.raises(ValueError, match="dry run"):
        fg.optim.SGD(src.parameters(), lr=0.1)
    src(fg.rand([1, 3]))
    dst = nn.Sequential(nn.LazyLinear(5), nn.ReLU(), nn.LazyLinear(2))
    dst.load_state_dict(src.state_dict())
    assert type(dst[0]) is nn.Linear and dst[0].in_features == 3 and dst[2].in_features == 5
    for k, v in src.state_dict().items():
        np.testing.assert_array_equal(dst.state_dict()[k].numpy(), v.numpy())
    fg.optim.SGD(dst.parameters(), lr=0.1)
    bad = nn.LazyLinear(6)
    with pytest.raises(ValueError, match=r"\[6, in_features\]"):
        bad.load_state_dict({"weight": fg.zeros([5, 3]), "bias": fg.zeros([6])})


@pytest.mark.parametrize("n", [-1, 1.5, True, "3"])
def test_lazy_linear_bad_out_features(n):
    with pytest.raises((TypeError, ValueError)):
        nn.LazyLinear(n)


def test_lazy_linear_bad_first_input():
    lazy = nn.LazyLinear(2)
    with pytest.raises(ValueError, match="at least one dimension"):
        lazy(fg.tensor(1.0))
    with pytest.raises(TypeError, match="eager Tensor"):
        lazy.initialize_parameters([1.0, 2.0])
    assert lazy.has_uninitialized_params()


def test_lazy_linear_huge_out_features_allocate_nothing_until_called():
    lazy = nn.LazyLinear(2**63 - 1)
    assert lazy.has_uninitialized_params()
    with pytest.raises((ValueError, MemoryError, OverflowError, RuntimeError)):
        lazy(fg.zeros([1, 2**20]))


# ---- SyncBatchNorm ----------------------------------------------------------------------


def ref_bn(x, w, b, eps):
    axes = tuple(i for i in range(x.ndim) if i != 1)
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    shape = [1, -1] + [1] * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * w.reshape(shape) + b.reshape(shape)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
def test_sync_batchnorm_torch_flavour(shape):
    x = RNG.standard_normal(shape)
    bn = nn.SyncBatchNorm(3, dtype=fg.float64)
    assert sorted(bn.state_dict()) == [
        "bias", "num_batches_tracked", "running_mean", "running_var", "weight",
    ]  # fmt: skip
    with fg.no_grad():
        bn.weight.copy_(fg.tensor([0.5, 1.0, 2.0], dtype=fg.float64))
        bn.bias.copy_(fg.tensor([0.1, -0.2, 0.3], dtype=fg.float64))
    out = bn(fg.tensor(x))
    w, b = np.array([0.5, 1.0, 2.0]), np.array([0.1, -0.2, 0.3])
    np.testing.assert_allclose(out.detach().numpy(), ref_bn(x, w, b, 1e-5), rtol=1e-10)
    axes = tuple(i for i in range(x.ndim) if i != 1)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean(axes), rtol=1e-10)
    unbiased = x.var(axes, ddof=1)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * unbiased, rtol=1e-10)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    out = bn(fg.tensor(x)).detach().numpy()
    shp = [1, -1] + [1] * (x.ndim - 2)
    rm, rv = bn.running_mean.numpy().reshape(shp), bn.running_var.numpy().reshape(shp)
    want = (x - rm) / np.sqrt(rv + 1e-5) * w.reshape(shp) + b.reshape(shp)
    np.testing.assert_allclose(out, want, rtol=1e-10)


def ref_paddle_stats(bn, xc, momentum):
    np.testing.assert_allclose(bn._mean.numpy(), (1 - momentum) * xc.mean((0, 2, 3)), rtol=1e-10)
    want_var = momentum + (1 - momentum) * xc.var((0, 2, 3))  # the biased batch variance
    np.testing.assert_allclose(bn._variance.numpy(), want_var, rtol=1e-10)


@pytest.mark.parametrize(
    "make",
    [
        lambda: nn.SyncBatchNorm(2, momentum=0.8, data_format="NHWC"),
        lambda: nn.SyncBatchNorm(2, 0.8, 1e-5, None, None, "NHWC"),
    ],
)
def test_sync_batchnorm_paddle_flavour_channels_last(make):
    x = RNG.standard_normal((4, 5, 3, 2))
    bn = make().to(fg.float64)
    assert sorted(bn.state_dict()) == ["_mean", "_variance", "bias", "weight"]
    out = bn(fg.tensor(x, dtype=fg.float64)).detach().numpy()
    xc = x.transpose(0, 3, 1, 2)
    want = ref_bn(xc, np.ones(2), np.zeros(2), 1e-5).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(out, want, rtol=1e-10)
    ref_paddle_stats(bn, xc, 0.8)


def test_sync_batchnorm_paddle_flavour_positional_momentum():
    x = RNG.standard_normal((4, 2, 3, 3))
    bn = nn.SyncBatchNorm(2, 0.9).to(fg.float64)  # a second argument >= 0.5: Paddle's momentum
    assert sorted(bn.state_dict()) == ["_mean", "_variance", "bias", "weight"]
    out = bn(fg.tensor(x, dtype=fg.float64)).detach().numpy()
    np.testing.assert_allclose(out, ref_bn(x, np.ones(2), np.zeros(2), 1e-5), rtol=1e-10)
    ref_paddle_stats(bn, x, 0.9)


def test_sync_batchnorm_wrong_channels_and_rank():
    with pytest.raises(ValueError):
        nn.SyncBatchNorm(2, 0.8)(fg.rand([4, 5, 3, 2]))
    with pytest.raises(ValueError, match="at least 2D"):
        nn.SyncBatchNorm(3)(fg.rand([3]))
    with pytest.raises(ValueError, match="at least 2D"):
        nn.SyncBatchNorm(3, epsilon=1e-5)(fg.rand([3]))
    with pytest.raises(ValueError, match="num_features"):
        nn.SyncBatchNorm(0)
    with pytest.raises(ValueError, match="data_format"):
        nn.SyncBatchNorm(3, data_format="NCW")


def test_convert_sync_batchnorm_shares_state_and_keeps_the_flavour():
    model = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm1d(4)))
    model.eval()
    old = model[1]
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group="ignored")
    assert conv is model
    new = model[1]
    assert isinstance(new, nn.SyncBatchNorm) and isinstance(model[2][0], nn.SyncBatchNorm)
    assert new.weight is old.weight and new.running_var is old.running_var
    assert not new.training and new.process_group == "ignored"
    assert isinstance(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3d(2)), nn.SyncBatchNorm)
    p = nn.BatchNorm2D(4, data_format="NHWC", weight_attr=False)
    sp = nn.SyncBatchNorm.convert_sync_batchnorm(p)
    assert sorted(sp.state_dict()) == ["_mean", "_variance", "bias"]
    assert sp._mean is p._mean and sp._data_format == "NHWC" and sp.weight is None
    x = fg.rand([2, 3, 3, 4])
    np.testing.assert_array_equal(sp(x).detach().numpy(), p(x).detach().numpy())
    relu = nn.ReLU()
    assert nn.SyncBatchNorm.convert_sync_batchnorm(relu) is relu
    with pytest.raises(TypeError, match="Module"):
        nn.SyncBatchNorm.convert_sync_batchnorm("model")


def test_sync_batchnorm_repr_pickle_and_grad():
    bn = nn.SyncBatchNorm(3)
    assert repr(bn).startswith("SyncBatchNorm(3, eps=")
    clone = pickle.loads(pickle.dumps(bn))
    assert isinstance(clone, nn.SyncBatchNorm) and sorted(clone.state_dict()) == sorted(
        bn.state_dict()
    )
    bn = nn.SyncBatchNorm(3, dtype=fg.float64)
    x = fg.tensor(RNG.standard_normal((4, 3, 2)), requires_grad=True)
    assert gradcheck(lambda v: bn(v), (x,))
