"""Session 22's nn names (checked on torch 2.15 / Paddle 3.3.1): nn.Buffer, the RNN base
classes, Module.type / share_memory / extra state, Paddle's Layer.full_name /
get_sublayer / set_sublayer / load_dict / float16 / bfloat16(excluded_layers), the
*_with_indices pools, Paddle's padding layers, Maxout, Softmax2D, log_loss, zeropad2d,
swiglu, nn.init.sparse_ and the legacy *Initializer names."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest


def _run(code: str, dialect: str) -> dict:
    ns = {dialect: fg}
    exec(compile(code, f"<{dialect} code>", "exec"), ns)
    return ns


class _WithState(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Buffer(fg.ones(2))
        self.c = nn.Buffer(fg.zeros(1), persistent=False)
        self.fc = nn.Linear(2, 2)
        self.got = None

    def get_extra_state(self):
        return {"step": 3}

    def set_extra_state(self, state):
        self.got = state


def test_buffer_registers_and_extra_state_round_trips():
    m = _WithState()
    assert isinstance(m.b, nn.Buffer) and not isinstance(fg.ones(1), nn.Buffer)
    assert dict(m.named_buffers()).keys() == {"b", "c"}
    sd = m.state_dict()
    assert list(sd) == ["b", "_extra_state", "fc.weight", "fc.bias"]  # torch's order
    assert sd["_extra_state"] == {"step": 3}
    assert m.load_state_dict(sd) == ([], []) and m.got == {"step": 3}
    del sd["_extra_state"]
    with pytest.raises(RuntimeError, match="_extra_state"):
        m.load_state_dict(sd)
    plain = nn.Linear(2, 2)
    assert "_extra_state" not in plain.state_dict()
    with pytest.raises(RuntimeError, match="get_extra_state"):
        plain.get_extra_state()
    keys = plain.load_state_dict({**plain.state_dict(), "_extra_state": 1}, strict=False)
    assert keys.unexpected_keys == ["_extra_state"]


def test_rnn_base_classes():
    assert isinstance(nn.LSTM(2, 3), nn.RNNBase) and isinstance(nn.GRU(2, 3), nn.RNNBase)
    assert isinstance(nn.GRUCell(2, 3), nn.RNNCellBase)
    assert isinstance(nn.SimpleRNNCell(2, 3), nn.RNNCellBase)
    assert not isinstance(nn.Linear(2, 3), (nn.RNNBase, nn.RNNCellBase))


def test_module_type_share_memory_and_paddle_names():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert m.share_memory() is m
    assert m.type(fg.float64) is m
    assert m[0].weight.dtype == fg.float64
    assert m[1].num_batches_tracked.dtype == fg.float64  # integers too, as PyTorch
    ns = _run(
        """
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 3)
        self.bn = paddle.nn.BatchNorm(3)
net = Net()
name, fc_name = net.full_name(), net.fc.full_name()
same = net.get_sublayer("fc") is net.fc
net.set_sublayer("fc", paddle.nn.Linear(2, 4))
net.float16()
""",
        "paddle",
    )
    net = ns["net"]
    assert ns["name"].startswith("net_") and ns["fc_name"].startswith("linear_")
    assert ns["same"] and net.fc.weight.shape == [2, 4]
    assert net.fc.weight.dtype == fg.float16 and net.bn.weight.dtype == fg.float32
    with pytest.raises(AttributeError, match="nope"):
        net.get_sublayer("nope")
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    na, nb = int(a.full_name().rsplit("_", 1)[1]), int(b.full_name().rsplit("_", 1)[1])
    assert nb == na + 1  # numbered at construction, per name scope
    assert nn.Layer("my_scope").full_name().startswith("my_scope_")
    src = nn.Linear(2, 2)
    dst = nn.Linear(2, 2)
    assert dst.load_dict(src.state_dict()) == ([], [])
    np.testing.assert_array_equal(dst.weight.numpy(), src.weight.numpy())
    bf = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1D(2))
    bf.bfloat16(excluded_layers=[nn.BatchNorm1D])
    assert bf[0].weight.dtype == fg.bfloat16 and bf[1].weight.dtype == fg.float32
    with pytest.raises(TypeError, match="excluded_layers"):
        bf.float16(excluded_layers="x")


def test_pools_with_indices():
    x = fg.arange(16.0).reshape(1, 1, 4, 4)
    out, idx = F.max_pool2d_with_indices(x, 2)
    assert out.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert idx.tolist() == [[[[5, 7], [13, 15]]]]
    out1, idx1 = F.max_pool1d_with_indices(fg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    assert out1.tolist() == [[[3.0, 2.0]]] and idx1.tolist() == [[[1, 2]]]
    out3, _ = F.max_pool3d_with_indices(fg.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    assert out3.tolist() == [[[[[7.0]]]]]
    a, ai = F.adaptive_max_pool1d_with_indices(fg.arange(4.0).reshape(1, 1, 4), 2)
    assert a.tolist() == [[[1.0, 3.0]]] and ai.tolist() == [[[1, 3]]]
    a2, _ = F.adaptive_max_pool2d_with_indices(x, 1)
    a3, _ = F.adaptive_max_pool3d_with_indices(fg.arange(8.0).reshape(1, 1, 2, 2, 2), 1)
    assert a2.item() == 15.0 and a3.item() == 7.0


def test_paddle_padding_layers():
    row = fg.tensor([[[1.0, 2.0, 3.0]]])
    assert nn.ConstantPad1D([1, 2], 3.0)(fg.ones(1, 1, 2)).tolist() == [[[3, 1, 1, 3, 3]]]
    assert nn.ReflectionPad1D([1, 1])(row).tolist() == [[[2, 1, 2, 3, 2]]]
    assert nn.CircularPad1D(1)(row).tolist() == [[[3, 1, 2, 3, 1]]]
    assert nn.ReplicationPad1D(1)(row).tolist() == [[[1, 1, 2, 3, 3]]]
    img = np.arange(4.0).reshape(1, 1, 2, 2)
    for cls, mode in ((nn.ReflectionPad2D, "reflect"), (nn.ReplicationPad2D, "edge"),
                      (nn.CircularPad2D, "wrap")):  # fmt: skip
        got = cls([1, 1, 1, 0])(fg.tensor(img)).numpy()
        np.testing.assert_array_equal(got, np.pad(img, ((0, 0), (0, 0), (1, 0), (1, 1)), mode))
    got = nn.ConstantPad2D(1, 0.5)(fg.ones(1, 1, 1, 1)).numpy()
    assert got.shape == (1, 1, 3, 3) and got.sum() == 1 + 8 * 0.5
    vol = np.arange(8.0).reshape(1, 1, 2, 2, 2)
    for cls, mode in ((nn.ReflectionPad3D, "reflect"), (nn.ReplicationPad3D, "edge"),
                      (nn.CircularPad3D, "wrap")):  # fmt: skip
        got = cls(1)(fg.tensor(vol)).numpy()
        np.testing.assert_array_equal(got, np.pad(vol, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode))  # fmt: skip
    assert nn.ConstantPad3D(1, 2.0)(fg.zeros(1, 1, 1, 1, 1)).numpy().sum() == 26 * 2.0
    assert isinstance(nn.ConstantPad2D(1, 0.0), nn.Pad2D)
    assert "value=0.5" in repr(nn.ConstantPad2D(1, 0.5))
    with pytest.raises(ValueError, match="3-D"):
        nn.ReflectionPad1D(1)(fg.ones(3))


def test_maxout_softmax2d():
    x = np.arange(16.0).reshape(1, 4, 2, 2)
    want = x.reshape(1, 2, 2, 2, 2).max(2)
    np.testing.assert_array_equal(F.maxout(fg.tensor(x), 2).numpy(), want)
    np.testing.assert_array_equal(nn.Maxout(2)(fg.tensor(x)).numpy(), want)
    y = np.arange(16.0).reshape(1, 2, 2, 4)
    np.testing.assert_array_equal(
        F.maxout(fg.tensor(y), 2, axis=-1).numpy(), y.reshape(1, 2, 2, 2, 2).max(-1)
    )
    xg = fg.tensor(np.random.default_rng(0).normal(size=(1, 4, 2, 2)), requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: F.maxout(t, 2), (xg,))
    with pytest.raises(ValueError, match="divisible"):
        F.maxout(fg.ones(1, 3, 2, 2), 2)
    s = np.arange(8.0).reshape(2, 2, 2)
    e = np.exp(s - s.max(0))
    np.testing.assert_allclose(nn.Softmax2D()(fg.tensor(s)).numpy(), e / e.sum(0), rtol=1e-12)
    with pytest.raises(ValueError, match="3D or 4D"):
        nn.Softmax2D()(fg.ones(2, 2))


def test_log_loss_zeropad2d_swiglu():
    p = np.array([[0.2], [0.8]])
    lab = np.array([[0.0], [1.0]])
    want = -lab * np.log(p + 1e-4) - (1 - lab) * np.log(1 - p + 1e-4)
    got = F.log_loss(fg.tensor(p), fg.tensor(lab))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    pg = fg.tensor(p, requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: F.log_loss(t, fg.tensor(lab)), (pg,))
    with pytest.warns(UserWarning, match="ZeroPad2D"):
        z = F.zeropad2d(fg.ones(1, 1, 2, 2), [1, 0, 0, 1])
    assert z.numpy()[0, 0].tolist() == [[0, 1, 1], [0, 1, 1], [0, 0, 0]]
    v = np.array([1.0, 2.0, 3.0, 4.0])
    silu = v[:2] / (1 + np.exp(-v[:2]))
    np.testing.assert_allclose(F.swiglu(fg.tensor(v)).numpy(), silu * v[2:], rtol=1e-12)
    np.testing.assert_allclose(
        F.swiglu(fg.tensor(v[:2]), fg.tensor(v[2:])).numpy(), silu * v[2:], rtol=1e-12
    )
    vg = fg.tensor(v, requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: F.swiglu(t), (vg,))
    with pytest.raises(ValueError, match="even"):
        F.swiglu(fg.ones(3))


def test_sparse_init_and_legacy_initializers():
    fg.manual_seed(0)
    w = fg.empty(10, 6)
    assert nn.init.sparse_(w, 0.3, std=0.5) is w
    zeros = (w.numpy() == 0).sum(0)
    assert zeros.tolist() == [3] * 6  # ceil(0.3 * 10) per column
    with pytest.raises(ValueError, match="2 dimensions"):
        nn.init.sparse_(fg.empty(3), 0.1)
    I = nn.initializer  # noqa: E741
    p = fg.empty(3, 4)
    I.ConstantInitializer(2.5)(p)
    assert (p.numpy() == 2.5).all()
    I.NumpyArrayInitializer(np.ones((3, 4)))(p)
    assert (p.numpy() == 1).all()
    big = fg.empty(200, 200)
    I.XavierInitializer(fan_in=3, fan_out=5)(big)
    assert np.abs(big.numpy()).max() <= np.sqrt(6 / 8) and np.abs(big.numpy()).max() > 0.8
    I.MSRAInitializer(fan_in=12)(big)
    assert np.abs(big.numpy()).max() <= np.sqrt(2) * np.sqrt(3 / 12) + 1e-6
    I.UniformInitializer(-0.1, 0.1)(big)
    assert np.abs(big.numpy()).max() <= 0.1
    I.NormalInitializer(0.0, 2.0)(big)
    assert abs(big.numpy().std() - 2.0) < 0.05
    I.TruncatedNormalInitializer(0.0, 1.0, a=-0.5, b=0.5)(big)
    assert np.abs(big.numpy()).max() <= 0.5
    I.XavierInitializer(uniform=False)(big)
    assert abs(big.numpy().std() - np.sqrt(2 / 400)) < 0.005


# torch 2.15's indices for these inputs and samples (F.fractional_max_pool2d/3d with
# _random_samples; the inputs are permutations of 0..n-1 from numpy's default_rng(7))
I2 = [[[[1, 14, 16], [20, 32, 35], [37, 32, 35], [55, 49, 62]], [[11, 5, 15], [18, 13, 24], [29, 30, 33], [54, 57, 61]]], [[[11, 5, 8], [11, 21, 15], [27, 31, 43], [54, 48, 61]], [[11, 3, 16], [19, 23, 35], [38, 48, 51], [55, 48, 51]]]]  # fmt: skip
I3 = [[[[[49, 52, 11, 6], [15, 16, 61, 61], [70, 72, 74, 34], [70, 72, 82, 82]], [[92, 94, 95, 47], [99, 108, 61, 61], [70, 72, 74, 117], [70, 72, 82, 82]], [[134, 170, 130, 173], [190, 142, 194, 146], [190, 156, 200, 202], [155, 164, 200, 167]]], [[[1, 9, 11, 13], [14, 9, 60, 13], [14, 17, 60, 26], [29, 72, 39, 33]], [[91, 51, 94, 97], [57, 51, 60, 97], [105, 108, 108, 110], [120, 122, 122, 124]], [[126, 129, 129, 138], [133, 142, 185, 188], [189, 191, 151, 194], [204, 199, 199, 201]]]]]  # fmt: skip


def test_fractional_max_pool_matches_torch():
    rng = np.random.default_rng(7)
    x = rng.permutation(2 * 2 * 7 * 9).astype(np.float64).reshape(2, 2, 7, 9)
    s = np.array([[[0.3, 0.8], [0.9, 0.1]], [[0.05, 0.6], [0.5, 0.5]]])
    out, idx = F.fractional_max_pool2d(
        fg.tensor(x), (2, 3), output_size=(4, 3), return_indices=True, _random_samples=fg.tensor(s)
    )
    assert idx.tolist() == I2
    np.testing.assert_array_equal(
        out.numpy(),
        np.take_along_axis(x.reshape(2, 2, -1), np.array(I2).reshape(2, 2, -1), 2).reshape(
            2, 2, 4, 3
        ),  # fmt: skip
    )
    x3 = rng.permutation(2 * 5 * 6 * 7).astype(np.float64).reshape(1, 2, 5, 6, 7)
    s3 = np.array([[[0.2, 0.7, 0.4], [0.95, 0.0, 0.33]]])
    _, idx3 = F.fractional_max_pool3d_with_indices(
        fg.tensor(x3), 2, output_size=(3, 4, 4), _random_samples=fg.tensor(s3)
    )
    assert idx3.tolist() == I3
    t = fg.tensor(np.random.default_rng(1).normal(size=(1, 1, 6, 6)), requires_grad=True)
    half = fg.full([1, 1, 2], 0.5, dtype=fg.float64)
    assert fg.autograd.gradcheck(
        lambda v: F.fractional_max_pool2d(v, 2, output_size=3, _random_samples=half), (t,)
    )
    assert list(nn.FractionalMaxPool2d(2, output_ratio=0.5)(fg.randn(1, 1, 9, 7)).shape) == [
        1, 1, 4, 3,
    ]  # fmt: skip
    assert list(F.fractional_max_pool2d(fg.randn(1, 5, 5), 2, output_size=2).shape) == [1, 2, 2]
    m3 = nn.FractionalMaxPool3d(2, output_size=(3, 4, 4), return_indices=True)
    o3, i3 = m3(fg.randn(1, 2, 5, 6, 7))
    assert list(o3.shape) == list(i3.shape) == [1, 2, 3, 4, 4]
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="only one of"):
        nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)
    with pytest.raises(RuntimeError, match="too large"):
        F.fractional_max_pool2d(fg.ones(1, 1, 7, 9), 3, output_size=(6, 3))
    with pytest.raises(ValueError, match="either an output_size"):
        F.fractional_max_pool2d(fg.ones(1, 1, 7, 9), 3)


def test_set_global_initializer_as_paddle():
    init = nn.initializer
    try:
        ns = _run(
            """
I = paddle.nn.initializer
I.set_global_initializer(I.Constant(2.0), I.Constant(3.0))
lin = paddle.nn.Linear(2, 2)
bn = paddle.nn.BatchNorm1D(2)
conv = paddle.nn.Conv2D(1, 1, 2)
cell = paddle.nn.GRUCell(2, 2)
ln = paddle.nn.LayerNorm(2)
own = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=I.Constant(5.0)))
layer = paddle.nn.Layer()
w = layer.create_parameter([2, 2])
b = layer.create_parameter([2], is_bias=True)
I.set_global_initializer(None)
after = paddle.nn.Linear(2, 2)
""",
            "paddle",
        )
    finally:
        init.set_global_initializer(None)
    for name in ("lin", "conv", "own"):
        assert (ns[name].bias.numpy() == 3.0).all(), name
    assert (ns["lin"].weight.numpy() == 2.0).all() and (ns["conv"].weight.numpy() == 2.0).all()
    assert (ns["bn"].weight.numpy() == 2.0).all() and (ns["bn"].bias.numpy() == 3.0).all()
    assert (ns["bn"]._mean.numpy() == 0.0).all()  # buffers are not parameters
    assert (ns["cell"].weight_ih.numpy() == 2.0).all() and (ns["cell"].bias_ih.numpy() == 3).all()
    assert (ns["ln"].weight.numpy() == 2.0).all() and (ns["ln"].bias.numpy() == 3.0).all()
    assert (ns["own"].weight.numpy() == 5.0).all()  # the ParamAttr's initializer first
    assert (ns["w"].numpy() == 2.0).all() and (ns["b"].numpy() == 3.0).all()
    assert (ns["after"].bias.numpy() == 0.0).all()
    with pytest.raises(TypeError, match="initializer"):
        init.set_global_initializer(3)


def test_layer_norm_applies_its_param_attrs():
    ln = nn.LayerNorm(
        2,
        weight_attr=fg.ParamAttr(initializer=nn.initializer.Constant(4.0)),
        bias_attr=fg.ParamAttr(name="lnb"),
    )
    assert ln.weight.detach().numpy().tolist() == [4.0, 4.0] and ln.bias.name == "lnb"


# Paddle 3.3.1's masks for these inputs (F.fractional_max_pool2d/3d with random_u; the
# inputs are permutations from numpy's default_rng(11))
P2 = [[[[1, 2, 6, 19, 21], [22, 35, 26, 30, 42], [66, 47, 59, 62, 65], [88, 80, 94, 85, 86]], [[11, 3, 17, 18, 20], [34, 36, 27, 30, 43], [55, 68, 70, 74, 53], [77, 79, 93, 84, 87]]]]  # fmt: skip
P2K = [[[[2, 6, 21], [35, 38, 52], [66, 59, 63], [88, 94, 85]], [[11, 17, 20], [34, 48, 53], [68, 70, 74], [77, 93, 87]]]]  # fmt: skip
P3 = [[[[[2, 10, 12], [99, 59, 62], [65, 32, 75], [120, 38, 124]], [[126, 172, 138], [182, 185, 145], [147, 151, 159], [204, 165, 209]]]]]  # fmt: skip


def test_paddle_fractional_max_pool_matches_paddle():
    rng = np.random.default_rng(11)
    x = fg.tensor(rng.permutation(2 * 9 * 11).astype(np.float64).reshape(1, 2, 9, 11))
    ns = {"paddle": fg, "x": x}
    code = """
F = paddle.nn.functional
_, m1 = F.fractional_max_pool2d(x, (4, 5), random_u=0.37, return_mask=True)
_, m2 = F.fractional_max_pool2d(x, (4, 3), (2, 3), 0.81, True)  # Paddle's order in Paddle code
layer = paddle.nn.FractionalMaxPool2D(output_size=(4, 5), random_u=0.37, return_mask=True)
out, m3 = layer(x)
"""
    exec(compile(code, "<paddle code>", "exec"), ns)
    assert ns["m1"].tolist() == P2 and ns["m1"].dtype == fg.int32
    assert ns["m2"].tolist() == P2K and ns["m3"].tolist() == P2
    np.testing.assert_array_equal(
        ns["out"].numpy(),
        np.take_along_axis(x.numpy().reshape(1, 2, -1), np.array(P2).reshape(1, 2, -1), 2).reshape(
            1, 2, 4, 5
        ),  # fmt: skip
    )
    x3 = fg.tensor(rng.permutation(5 * 6 * 7).astype(np.float64).reshape(1, 1, 5, 6, 7))
    _, m3d = F.fractional_max_pool3d(x3, output_size=(2, 4, 3), random_u=0.6, return_mask=True)
    assert m3d.tolist() == P3
    assert list(nn.FractionalMaxPool3D(2)(x3).shape) == [1, 1, 2, 2, 2]
    assert list(F.fractional_max_pool2d(x, output_size=[3, None], random_u=0.5).shape) == [
        1, 2, 3, 11,
    ]  # fmt: skip
    t = fg.tensor(np.random.default_rng(2).normal(size=(1, 1, 7, 6)), requires_grad=True)
    assert fg.autograd.gradcheck(lambda v: F.fractional_max_pool2d(v, output_size=3, random_u=0.3), (t,))  # fmt: skip
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(x, output_size=3, random_u=1.0)
    with pytest.raises(ValueError, match="less than valid"):
        F.fractional_max_pool2d(x, output_size=9, kernel_size=2, random_u=0.5)
    with pytest.raises(ValueError, match="4-D"):
        F.fractional_max_pool2d(x=fg.ones(1, 5, 5), output_size=3)
