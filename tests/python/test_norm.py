"""Normalisation: batch norm (torch's and Paddle's running statistics), instance, group,
layer and RMS norm. Values against NumPy in float64, gradcheck / gradgradcheck, running
statistics checked against each peer's update formula, train / eval, state_dict."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)


def _bn_ref(x, axes, mean=None, var=None, w=None, b=None, eps=1e-5, cdim=1):
    if mean is None:
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
    else:
        shape = [1] * x.ndim
        shape[cdim] = -1
        mean, var = mean.reshape(shape), var.reshape(shape)
    out = (x - mean) / np.sqrt(var + eps)
    shape = [1] * x.ndim
    shape[cdim] = -1
    if w is not None:
        out = out * w.reshape(shape)
    if b is not None:
        out = out + b.reshape(shape)
    return out


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6), (2, 3, 4, 5), (2, 3, 2, 2, 3)])
def test_batch_norm_training_values_and_torch_running_stats(shape):
    a = RNG.standard_normal(shape) * 3 + 1
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    rm, rv = fg.zeros([3], dtype="float64"), fg.ones([3], dtype="float64")
    out = F.batch_norm(fg.tensor(a), rm, rv, fg.tensor(w), fg.tensor(b), training=True)
    axes = tuple(d for d in range(a.ndim) if d != 1)
    np.testing.assert_allclose(out.numpy(), _bn_ref(a, axes, w=w, b=b), rtol=1e-12, atol=1e-12)
    n = a.size // 3
    np.testing.assert_allclose(rm.numpy(), 0.1 * a.mean(axis=axes), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * a.var(axis=axes) * n / (n - 1), rtol=1e-12)
    # evaluation uses the running statistics and leaves them alone
    before = rm.numpy().copy()
    out = F.batch_norm(fg.tensor(a), rm, rv, fg.tensor(w), fg.tensor(b), training=False)
    ref = _bn_ref(a, axes, rm.numpy(), rv.numpy(), w, b)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(rm.numpy(), before)


def test_batch_norm_paddle_style_call_uses_paddle_momentum():
    a = RNG.standard_normal((6, 2, 3))
    rm, rv = fg.zeros([2], dtype="float64"), fg.ones([2], dtype="float64")
    F.batch_norm(fg.tensor(a), rm, rv, training=True, momentum=0.8, epsilon=1e-5)
    axes = (0, 2)
    np.testing.assert_allclose(rm.numpy(), 0.2 * a.mean(axis=axes), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.8 + 0.2 * a.var(axis=axes), rtol=1e-12)  # biased
    # channel-last data_format
    nhwc = RNG.standard_normal((2, 3, 3, 4))
    out = F.batch_norm(fg.tensor(nhwc), None, None, training=True, data_format="NHWC")
    np.testing.assert_allclose(
        out.numpy(), _bn_ref(nhwc, (0, 1, 2), cdim=3), rtol=1e-12, atol=1e-12
    )
    # use_global_stats=True: the running statistics even in training
    rm2, rv2 = fg.tensor([0.5, -0.5]), fg.tensor([2.0, 0.5])
    out = F.batch_norm(fg.tensor(a), rm2, rv2, training=True, use_global_stats=True)
    ref = _bn_ref(a, axes, np.array([0.5, -0.5]), np.array([2.0, 0.5]))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)
    np.testing.assert_array_equal(rm2.numpy(), np.float32([0.5, -0.5]))


def test_batch_norm_gradcheck_and_gradgradcheck():
    a = RNG.standard_normal((4, 3, 2))
    x = fg.tensor(a, requires_grad=True)
    w = fg.tensor(RNG.standard_normal(3), requires_grad=True)
    b = fg.tensor(RNG.standard_normal(3), requires_grad=True)

    def train(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True)

    assert gradcheck(train, (x, w, b))
    assert gradgradcheck(train, (x, w, b))
    rm, rv = fg.tensor(RNG.standard_normal(3)), fg.tensor(RNG.uniform(0.5, 2, 3))

    def evaluate(x, w, b):
        return F.batch_norm(x, rm, rv, w, b, training=False)

    assert gradcheck(evaluate, (x, w, b))
    assert gradgradcheck(evaluate, (x, w, b))


def test_batch_norm_bad_input():
    with pytest.raises(ValueError, match="more than 1 value"):
        F.batch_norm(fg.ones([1, 3]), None, None, training=True)
    with pytest.raises(ValueError, match="running_mean"):
        F.batch_norm(fg.ones([2, 3]), None, None, training=False)
    with pytest.raises(ValueError, match=r"weight must have shape \[3\]"):
        F.batch_norm(fg.ones([2, 3]), None, None, fg.ones([4]), training=True)
    with pytest.raises(ValueError, match="at least 2-d"):
        F.batch_norm(fg.ones([3]), None, None, training=True)
    with pytest.raises(ValueError, match="data_format"):
        F.batch_norm(fg.ones([2, 3]), None, None, training=True, data_format="HWCN")


def test_torch_batchnorm_layers_train_and_eval():
    torch = fg
    for cls, shape in ((torch.nn.BatchNorm1d, (8, 3)), (torch.nn.BatchNorm2d, (4, 3, 2, 2))):
        layer = cls(3, dtype="float64")
        assert list(layer.state_dict()) == [
            "weight",
            "bias",
            "running_mean",
            "running_var",
            "num_batches_tracked",
        ]
        axes = tuple(d for d in range(len(shape)) if d != 1)
        n = int(np.prod(shape)) // 3
        rm, rv = np.zeros(3), np.ones(3)
        for _ in range(3):
            a = RNG.standard_normal(shape) * 2 + 0.5
            out = layer(fg.tensor(a))
            np.testing.assert_allclose(out.numpy(), _bn_ref(a, axes), rtol=1e-10, atol=1e-10)
            rm = 0.9 * rm + 0.1 * a.mean(axis=axes)
            rv = 0.9 * rv + 0.1 * a.var(axis=axes) * n / (n - 1)
        np.testing.assert_allclose(layer.running_mean.numpy(), rm, rtol=1e-10)
        np.testing.assert_allclose(layer.running_var.numpy(), rv, rtol=1e-10)
        assert int(layer.num_batches_tracked) == 3
        layer.eval()
        a = RNG.standard_normal(shape)
        np.testing.assert_allclose(
            layer(fg.tensor(a)).numpy(), _bn_ref(a, axes, rm, rv), rtol=1e-10, atol=1e-10
        )
        np.testing.assert_allclose(layer.running_mean.numpy(), rm, rtol=1e-10)


def test_torch_batchnorm_cumulative_average_and_options():
    layer = nn.BatchNorm1d(2, momentum=None, dtype="float64")
    batches = [RNG.standard_normal((5, 2)) for _ in range(4)]
    for a in batches:
        layer(fg.tensor(a))
    np.testing.assert_allclose(
        layer.running_mean.numpy(), np.mean([a.mean(0) for a in batches], 0), rtol=1e-12
    )
    np.testing.assert_allclose(
        layer.running_var.numpy(), np.mean([a.var(0, ddof=1) for a in batches], 0), rtol=1e-12
    )
    # no running statistics: batch statistics in eval too, no buffers in state_dict
    plain = nn.BatchNorm1d(2, affine=False, track_running_stats=False, dtype="float64")
    assert list(plain.state_dict()) == []
    plain.eval()
    a = batches[0]
    np.testing.assert_allclose(plain(fg.tensor(a)).numpy(), _bn_ref(a, (0,)), rtol=1e-12)
    with pytest.raises(ValueError, match="4-d"):
        nn.BatchNorm2d(2)(fg.ones([2, 2]))
    # the learned affine parameters get gradients
    x = fg.tensor(RNG.standard_normal((4, 2, 3)), requires_grad=True)
    layer = nn.BatchNorm1d(2, dtype="float64")
    (layer(x) * fg.tensor(RNG.standard_normal((4, 2, 3)))).sum().backward()
    assert layer.weight.grad is not None and layer.bias.grad is not None and x.grad is not None
    assert "BatchNorm1d(2, eps=1e-05, momentum=0.1" in repr(layer)


def test_paddle_batchnorm_layers():
    import ferrograd as paddle

    layer = paddle.nn.BatchNorm1D(3, momentum=0.8, dtype="float64")
    assert list(layer.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    rm, rv = np.zeros(3), np.ones(3)
    for _ in range(2):
        a = RNG.standard_normal((6, 3, 2))
        out = layer(paddle.to_tensor(a))
        np.testing.assert_allclose(out.numpy(), _bn_ref(a, (0, 2)), rtol=1e-10, atol=1e-10)
        rm = 0.8 * rm + 0.2 * a.mean(axis=(0, 2))
        rv = 0.8 * rv + 0.2 * a.var(axis=(0, 2))
    np.testing.assert_allclose(layer._mean.numpy(), rm, rtol=1e-10)
    np.testing.assert_allclose(layer._variance.numpy(), rv, rtol=1e-10)
    layer.eval()
    a = RNG.standard_normal((6, 3, 2))
    np.testing.assert_allclose(
        layer(paddle.to_tensor(a)).numpy(), _bn_ref(a, (0, 2), rm, rv), rtol=1e-10
    )
    # channel-last, and use_global_stats
    nhwc = RNG.standard_normal((2, 2, 2, 3))
    l2 = paddle.nn.BatchNorm2D(3, data_format="NHWC", dtype="float64")
    np.testing.assert_allclose(
        l2(paddle.to_tensor(nhwc)).numpy(), _bn_ref(nhwc, (0, 1, 2), cdim=3), rtol=1e-10, atol=1e-10
    )
    frozen = paddle.nn.BatchNorm3D(3, use_global_stats=True, dtype="float64")
    a5 = RNG.standard_normal((2, 3, 2, 2, 2))
    np.testing.assert_allclose(frozen(paddle.to_tensor(a5)).numpy(), a5 / np.sqrt(1 + 1e-5))
    np.testing.assert_array_equal(frozen._mean.numpy(), np.zeros(3))
    # nn.BatchNorm with act, and weight_attr=False
    bn = paddle.nn.BatchNorm(3, act="relu", dtype="float64")
    assert (bn(paddle.to_tensor(a)).numpy() >= 0).all()
    assert paddle.nn.BatchNorm2D(3, weight_attr=False).weight is None
    with pytest.raises(ValueError, match="data_format"):
        paddle.nn.BatchNorm2D(3, data_format="NCL")


def test_batchnorm_state_dict_round_trip():
    a, b = nn.BatchNorm2d(2), nn.BatchNorm2d(2)
    a(fg.tensor(RNG.standard_normal((3, 2, 2, 2)).astype("float32")))
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(b.running_mean.numpy(), a.running_mean.numpy())
    assert int(b.num_batches_tracked) == 1


def _inst_ref(x, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    return (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def test_instance_norm_function_and_layers():
    a = RNG.standard_normal((2, 3, 4, 5))
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    want = _inst_ref(a) * w[None, :, None, None] + b[None, :, None, None]
    got = F.instance_norm(fg.tensor(a), weight=fg.tensor(w), bias=fg.tensor(b))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    x = fg.tensor(a[:, :, :2, :3], requires_grad=True)
    wt, bt = fg.tensor(w, requires_grad=True), fg.tensor(b, requires_grad=True)

    def fn(x, w, b):
        return F.instance_norm(x, weight=w, bias=b)

    assert gradcheck(fn, (x, wt, bt))
    assert gradgradcheck(fn, (x, wt, bt))
    # torch: no affine, no buffers by default; Paddle: scale and bias
    t = nn.InstanceNorm2d(3)
    assert list(t.state_dict()) == []
    np.testing.assert_allclose(t(fg.tensor(a)).numpy(), _inst_ref(a), rtol=1e-12, atol=1e-12)
    p = nn.InstanceNorm2D(3, dtype="float64")
    assert list(p.state_dict()) == ["scale", "bias"]
    np.testing.assert_allclose(p(fg.tensor(a)).numpy(), _inst_ref(a), rtol=1e-12, atol=1e-12)
    a1 = RNG.standard_normal((2, 3, 6))
    np.testing.assert_allclose(
        nn.InstanceNorm1D(3, dtype="float64")(fg.tensor(a1)).numpy(), _inst_ref(a1), rtol=1e-12
    )
    nlc = np.transpose(a1, (0, 2, 1))
    got = nn.InstanceNorm1D(3, data_format="NLC", dtype="float64")(fg.tensor(nlc)).numpy()
    np.testing.assert_allclose(np.transpose(got, (0, 2, 1)), _inst_ref(a1), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="3-d"):
        nn.InstanceNorm1d(3)(fg.ones([3]))  # (a 2-d [C, L] is PyTorch's unbatched input)


def test_instance_norm_running_stats():
    layer = nn.InstanceNorm1d(2, track_running_stats=True, dtype="float64")
    a = RNG.standard_normal((3, 2, 5))
    layer(fg.tensor(a))
    np.testing.assert_allclose(layer.running_mean.numpy(), 0.1 * a.mean(axis=2).mean(0))
    np.testing.assert_allclose(
        layer.running_var.numpy(), 0.9 + 0.1 * a.var(axis=2, ddof=1).mean(0), rtol=1e-12
    )
    layer.eval()
    rm, rv = layer.running_mean.numpy(), layer.running_var.numpy()
    want = (a - rm[None, :, None]) / np.sqrt(rv[None, :, None] + 1e-5)
    np.testing.assert_allclose(layer(fg.tensor(a)).numpy(), want, rtol=1e-12)


def _group_ref(x, g, eps=1e-5):
    n, c = x.shape[:2]
    r = x.reshape(n, g, -1)
    out = (r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True) + eps)
    return out.reshape(x.shape)


def test_group_norm():
    a = RNG.standard_normal((2, 6, 3, 2))
    w, b = RNG.standard_normal(6), RNG.standard_normal(6)
    want = _group_ref(a, 3) * w[None, :, None, None] + b[None, :, None, None]
    got = F.group_norm(fg.tensor(a), 3, fg.tensor(w), fg.tensor(b))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    # Paddle's positional order (x, num_groups, epsilon, weight, bias)
    got = F.group_norm(fg.tensor(a), 3, 1e-5, fg.tensor(w), fg.tensor(b))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    nhwc = np.transpose(a, (0, 2, 3, 1))
    got = F.group_norm(fg.tensor(nhwc), 3, data_format="NHWC").numpy()
    np.testing.assert_allclose(
        np.transpose(got, (0, 3, 1, 2)), _group_ref(a, 3), rtol=1e-12, atol=1e-12
    )
    x = fg.tensor(a[:, :, :1], requires_grad=True)
    wt, bt = fg.tensor(w, requires_grad=True), fg.tensor(b, requires_grad=True)

    def fn(x, w, b):
        return F.group_norm(x, 2, w, b)

    assert gradcheck(fn, (x, wt, bt))
    assert gradgradcheck(fn, (x, wt, bt))
    for layer in (
        nn.GroupNorm(3, 6, dtype="float64"),
        nn.GroupNorm(3, 6, epsilon=1e-5, dtype="float64"),
    ):
        assert list(layer.state_dict()) == ["weight", "bias"]
        np.testing.assert_allclose(
            layer(fg.tensor(a)).numpy(), _group_ref(a, 3), rtol=1e-12, atol=1e-12
        )
    assert nn.GroupNorm(2, 4, affine=False).weight is None
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="equal groups"):
        F.group_norm(fg.ones([2, 6]), 4)


def test_layer_norm_over_several_trailing_dims():
    a = RNG.standard_normal((2, 3, 4))
    w, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    mean = a.mean(axis=(1, 2), keepdims=True)
    var = a.var(axis=(1, 2), keepdims=True)
    want = (a - mean) / np.sqrt(var + 1e-5) * w + b
    got = F.layer_norm(fg.tensor(a), [3, 4], fg.tensor(w), fg.tensor(b))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    layer = nn.LayerNorm([3, 4], dtype="float64")
    np.testing.assert_allclose(
        layer(fg.tensor(a)).numpy(), (a - mean) / np.sqrt(var + 1e-5), rtol=1e-12
    )


def test_rms_norm():
    a = RNG.standard_normal((2, 3, 4))
    w = RNG.standard_normal(4)
    eps64 = np.finfo(np.float64).eps
    want = a / np.sqrt((a * a).mean(-1, keepdims=True) + eps64) * w
    np.testing.assert_allclose(
        F.rms_norm(fg.tensor(a), [4], fg.tensor(w)).numpy(), want, rtol=1e-12
    )
    want2 = a / np.sqrt((a * a).mean(axis=(1, 2), keepdims=True) + 1e-6)
    np.testing.assert_allclose(
        F.rms_norm(fg.tensor(a), [3, 4], eps=1e-6).numpy(), want2, rtol=1e-12
    )
    x = fg.tensor(a, requires_grad=True)
    wt = fg.tensor(w, requires_grad=True)
    assert gradcheck(lambda x, w: F.rms_norm(x, 4, w, 1e-3), (x, wt))
    assert gradgradcheck(lambda x, w: F.rms_norm(x, 4, w, 1e-3), (x, wt))
    layer = nn.RMSNorm([3, 4], dtype="float64")
    assert list(layer.state_dict()) == ["weight"]
    np.testing.assert_allclose(
        layer(fg.tensor(a)).numpy(), a / np.sqrt((a * a).mean(axis=(1, 2), keepdims=True) + eps64)
    )
    assert nn.RMSNorm(4, elementwise_affine=False).weight is None
    with pytest.raises(ValueError, match="normalized_shape"):
        F.rms_norm(fg.tensor(a), [5])


def test_norm_layers_train_a_small_net():
    torch = fg
    fg.seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 1)
    )
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = fg.tensor(RNG.standard_normal((32, 4)).astype("float32"))
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(30):
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    net.eval()
    assert net(x).shape == [32, 1]


def test_one_value_per_channel_torch_raises_paddle_passes_through():
    import ferrograd as paddle

    x = fg.tensor([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="more than 1 value"):
        nn.BatchNorm1d(3)(x)
    layer = paddle.nn.BatchNorm1D(3)
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())  # Paddle: y = x
    np.testing.assert_array_equal(layer._mean.numpy(), np.zeros(3, np.float32))
    out = F.batch_norm(x, None, None, training=True, epsilon=1e-5)
    np.testing.assert_array_equal(out.numpy(), x.numpy())


def test_instance_norm_paddle_style_running_stats_and_eval():
    a = RNG.standard_normal((3, 2, 5))
    rm, rv = fg.zeros([2], dtype="float64"), fg.ones([2], dtype="float64")
    F.instance_norm(fg.tensor(a), rm, rv, momentum=0.8, data_format="NCL")
    np.testing.assert_allclose(rm.numpy(), 0.2 * a.mean(axis=2).mean(0), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.8 + 0.2 * a.var(axis=2).mean(0), rtol=1e-12)
    out = F.instance_norm(fg.tensor(a), rm, rv, use_input_stats=False)
    want = (a - rm.numpy()[None, :, None]) / np.sqrt(rv.numpy()[None, :, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="at least 3-d"):
        F.instance_norm(fg.ones([2, 3]))
