"""``paddle.jit.save`` / ``jit.load`` and ``torch.jit.trace`` / ``save`` / ``load``: the
layer's evaluation-mode forward captured as a static program, written in ferrograd's own
format and run back by a ``TranslatedLayer`` with the eager layer's outputs.

Peer references: Paddle's ``python/paddle/jit/api.py`` (``save``: ``path`` is a
``dirname/file_prefix`` and an empty prefix is an error; ``<prefix>.pdmodel`` and
``<prefix>.pdiparams``; ``input_spec`` of InputSpecs or example tensors, else the one given
to ``to_static``; unknown configs a ValueError) and ``translated_layer.py``
(``TranslatedLayer.program()``); PyTorch's ``torch/jit/_serialization.py`` (``save(m, f,
_extra_files)``, ``load(f, map_location, _extra_files)`` filling ``_extra_files`` with
bytes; ``f`` a path or a file object) and ``torch/jit/_trace.py`` (``trace(func,
example_inputs)``).

This module is Paddle code (``import ferrograd as paddle``); the PyTorch-dialect cases
run in a namespace that names ferrograd ``torch`` (``_torch_code``)."""

import io
import json
import os
import zipfile

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.static import InputSpec


def _mlp():
    paddle.seed(3)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


class SmallCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.MaxPool2D(2)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        y = self.pool(paddle.nn.functional.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(paddle.flatten(y, 1)))


def _close(got, want):
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def _state(layer):
    return {k: v.numpy().copy() for k, v in layer.state_dict().items()}


def test_mlp_round_trip_with_dynamic_batch(tmp_path):
    net = _mlp()
    prefix = str(tmp_path / "sub" / "mlp")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    assert sorted(os.listdir(tmp_path / "sub")) == ["mlp.pdiparams", "mlp.pdmodel"]
    with open(prefix + ".pdmodel", encoding="utf-8") as f:
        doc = json.load(f)  # ferrograd's JSON, not Paddle's protobuf
    assert doc["format"] == "ferrograd.jit.program" and doc["inputs"][0]["name"] == "x"
    params = paddle.load(prefix + ".pdiparams")
    assert sorted(params) == sorted(net.state_dict())
    loaded = paddle.jit.load(prefix)
    for batch in (1, 5):
        x = paddle.randn([batch, 4])
        _close(loaded(x), net(x))
    assert [k for k, _ in loaded.named_parameters()] == [k for k, _ in net.named_parameters()]
    for k, v in loaded.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), net.state_dict()[k].numpy())
    assert loaded.program().global_block().ops  # Paddle's TranslatedLayer.program()


def test_small_cnn_with_trained_batch_norm(tmp_path):
    paddle.seed(0)
    net = SmallCNN()
    net(paddle.randn([6, 3, 8, 8]))  # training mode: the running statistics move
    net.eval()
    before = _state(net)
    paddle.jit.save(net, str(tmp_path / "cnn"), input_spec=[InputSpec([None, 3, 8, 8])])
    assert not net.training and all(not m.training for m in net.sublayers())
    loaded = paddle.jit.load(str(tmp_path / "cnn"))
    x = paddle.randn([2, 3, 8, 8])
    _close(loaded(x), net(x))
    for k, v in _state(net).items():  # saving changed nothing in the layer
        np.testing.assert_array_equal(v, before[k])


def test_saves_the_eval_forward_and_restores_training_mode(tmp_path):
    paddle.seed(1)
    net = SmallCNN()  # in training mode: dropout active, batch norm on batch statistics
    before = _state(net)
    paddle.jit.save(net, str(tmp_path / "cnn"), input_spec=[InputSpec([None, 3, 8, 8])])
    assert net.training and all(m.training for m in net.sublayers())
    for k, v in _state(net).items():
        np.testing.assert_array_equal(v, before[k])
    loaded = paddle.jit.load(str(tmp_path / "cnn"))
    assert not loaded.training
    x = paddle.randn([3, 3, 8, 8])
    got = loaded(x)
    net.eval()
    _close(got, net(x))


def test_to_static_input_spec_is_used(tmp_path):
    net = _mlp()
    assert paddle.jit.to_static(net, input_spec=[InputSpec([None, 4], "float32")]) is net
    paddle.jit.save(net, str(tmp_path / "m"))
    x = paddle.randn([2, 4])
    _close(paddle.jit.load(str(tmp_path / "m"))(x), net(x))

    @paddle.jit.to_static(input_spec=[InputSpec([None, 3]), InputSpec([None, 3])])
    def f(a, b):
        return paddle.tanh(a) * b + 1.0

    paddle.jit.save(f, str(tmp_path / "f"))
    g = paddle.jit.load(str(tmp_path / "f"))
    a, b = paddle.randn([4, 3]), paddle.randn([4, 3])
    _close(g(a, b), f(a, b))
    _close(g(b=b, a=a), f(a, b))
    assert g.parameters() == []
    # a Python value in input_spec is fixed in the program (Paddle allows non-tensor specs)
    paddle.jit.save(lambda x, k: x * k, str(tmp_path / "k"), input_spec=[InputSpec([2]), 3.0])
    _close(paddle.jit.load(str(tmp_path / "k"))(a[0, :2]), a[0, :2] * 3.0)


def test_hook_assigned_weights_are_restored(tmp_path):
    # weight_norm's pre-hook sets layer.weight inside forward: a static variable during
    # the capture, the layer's own tensor again afterwards
    paddle.seed(4)
    layer = paddle.nn.utils.weight_norm(nn.Linear(3, 2))
    x = paddle.randn([2, 3])
    want = layer(x)
    paddle.jit.save(layer, str(tmp_path / "w"), input_spec=[InputSpec([None, 3])])
    assert isinstance(layer.weight, paddle.Tensor)
    _close(paddle.jit.load(str(tmp_path / "w"))(x), want)
    _close(layer(x), want)


class TwoHeads(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.b = nn.Linear(3, 4)
        self.register_buffer("scale", paddle.to_tensor([2.0]), persistable=False)
        self.offset = paddle.to_tensor([0.5])  # a plain tensor attribute: a constant

    def forward(self, x, y):
        return {"a": self.a(x) * self.scale, "b": paddle.concat([self.b(y), x], 1) + self.offset}


def test_two_inputs_dict_outputs_buffers_and_constants(tmp_path):
    paddle.seed(5)
    net = TwoHeads()
    example = [paddle.randn([2, 3]), paddle.randn([2, 3])]
    paddle.jit.save(net, str(tmp_path / "two"), input_spec=example)  # example tensors
    loaded = paddle.jit.load(str(tmp_path / "two"))
    got, want = loaded(*example), net(*example)
    assert sorted(got) == ["a", "b"]
    for k in got:
        _close(got[k], want[k])
    assert "scale" not in loaded.state_dict()  # non-persistent, as in the layer
    # an example tensor fixes the shapes
    with pytest.raises(ValueError, match=r"shape \[2, 3\]"):
        loaded(paddle.randn([3, 3]), paddle.randn([3, 3]))


def test_tied_weights_and_state_changes(tmp_path):
    class Tied(nn.Layer):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(4, 4)
            self.dec = nn.Linear(4, 4)
            self.dec.weight = self.enc.weight

        def forward(self, x):
            return self.dec(paddle.tanh(self.enc(x)))

    paddle.seed(2)
    net = Tied()
    paddle.jit.save(net, str(tmp_path / "t"), input_spec=[InputSpec([None, 4])])
    loaded = paddle.jit.load(str(tmp_path / "t"))
    x = paddle.randn([3, 4])
    _close(loaded(x), net(x))
    assert loaded.enc.weight is loaded.dec.weight
    shared = nn.Linear(4, 4)  # one sublayer at two places: both keys, one tensor
    seq = nn.Sequential(shared, nn.Tanh(), shared)
    paddle.jit.save(seq, str(tmp_path / "s"), input_spec=[InputSpec([None, 4])])
    again = paddle.jit.load(str(tmp_path / "s"))
    assert sorted(again.state_dict()) == sorted(seq.state_dict())
    assert getattr(again, "0").weight is getattr(again, "2").weight
    _close(again(x), seq(x))
    # the loaded layer computes with its current parameters
    state = {k: paddle.zeros_like(v) for k, v in loaded.state_dict().items()}
    state["dec.bias"] = paddle.full([4], 7.0)
    loaded.set_state_dict(state)
    np.testing.assert_array_equal(loaded(x).numpy(), np.full([3, 4], 7.0, "float32"))


def test_loaded_layer_is_inference_only(tmp_path):
    net = _mlp()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4])])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    assert loaded.eval() is loaded and not loaded.training
    with pytest.raises(RuntimeError, match="cannot train"):
        loaded.train()
    loaded._set_training_flags(True)  # (a parent's Paddle-style walk sets the flag only)
    with pytest.raises(RuntimeError, match="cannot train"):
        loaded(paddle.randn([2, 4]))
    loaded.eval()
    x = paddle.randn([2, 4])
    x.stop_gradient = False
    out = loaded(x)
    assert out.stop_gradient  # no gradient flows through a loaded program
    with pytest.raises(TypeError, match="float32, got float64"):
        loaded(paddle.randn([2, 4]).astype("float64"))
    with pytest.raises(ValueError, match="shape"):
        loaded(paddle.randn([2, 5]))
    with pytest.raises(TypeError, match="takes 1 input"):
        loaded(x, x)
    _close(loaded(x.numpy()), net(x))  # arrays are accepted


class Branchy(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:  # Python control flow on a tensor value
            return y
        return -y


class Unsupported(nn.Layer):
    def forward(self, x):
        return paddle.nan_to_num(x)  # no static op


def test_uncapturable_forwards_are_refused_and_write_nothing(tmp_path):
    spec = [InputSpec([None, 3])]
    with pytest.raises(TypeError, match="truth value of static variable"):
        paddle.jit.save(Branchy(), str(tmp_path / "a"), input_spec=spec)
    with pytest.raises(TypeError, match="nan_to_num"):
        paddle.jit.save(Unsupported(), str(tmp_path / "b"), input_spec=spec)

    class WithPyFunc(nn.Layer):
        def forward(self, x):
            out = x.block.create_var(name="o", dtype="float32", shape=[-1, 3])
            paddle.static.py_func(lambda t: t, x, out)
            return out

    with pytest.raises(NotImplementedError, match="py_func"):
        paddle.jit.save(WithPyFunc(), str(tmp_path / "c"), input_spec=spec)

    class ReturnsNumber(nn.Layer):
        def forward(self, x):
            return 3

    with pytest.raises(TypeError, match="returned int"):
        paddle.jit.save(ReturnsNumber(), str(tmp_path / "d"), input_spec=spec)
    assert os.listdir(tmp_path) == []


def test_bad_arguments_are_clear(tmp_path):
    net = _mlp()
    with pytest.raises(ValueError, match="input_spec"):
        paddle.jit.save(net, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="file_prefix"):
        paddle.jit.save(net, str(tmp_path) + os.sep, input_spec=[InputSpec([None, 4])])
    with pytest.raises(ValueError, match="not supported"):
        paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4])], foo=1)
    with pytest.raises(FileNotFoundError):
        paddle.jit.load(str(tmp_path / "missing"))
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match="dynamic mode"):
            paddle.jit.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 4])])
    finally:
        paddle.disable_static()
    assert os.listdir(tmp_path) == []


def test_foreign_files_are_refused(tmp_path):
    # Paddle's protobuf program (any non-JSON bytes) and PyTorch's TorchScript zip
    (tmp_path / "pb.pdmodel").write_bytes(b"\x0a\x05\x12\x03abc\xff")
    (tmp_path / "pb.pdiparams").write_bytes(b"\x00")
    with pytest.raises(ValueError, match="protobuf"):
        paddle.jit.load(str(tmp_path / "pb"))
    with zipfile.ZipFile(tmp_path / "ts.pt", "w") as z:
        z.writestr("archive/data.pkl", b"x")
        z.writestr("archive/code/__torch__/m.py", "")
    with pytest.raises(ValueError, match="TorchScript"):
        paddle.jit.load(str(tmp_path / "ts.pt"))
    paddle.save({"w": paddle.ones([2])}, str(tmp_path / "state.pt"))
    with pytest.raises(ValueError, match="not a program saved by jit.save"):
        paddle.jit.load(str(tmp_path / "state.pt"))


_TORCH_CODE = """
import io
import ferrograd as torch
from ferrograd import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


class NoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2, 2))

    def forward(self):
        return self.w * 3


def run(path):
    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(3, 4)
    traced = torch.jit.trace(net, x)
    torch.jit.save(traced, path, _extra_files={"note.txt": b"hello"})
    extra = {"note.txt": ""}
    loaded = torch.jit.load(path, map_location="cpu", _extra_files=extra)
    buf = io.BytesIO()
    torch.jit.save(traced, buf)
    buf.seek(0)
    from_buffer = torch.jit.load(buf)
    script_error = None
    try:
        torch.jit.save(torch.jit.script(Net()), path + ".script")
    except ValueError as e:
        script_error = str(e)
    torch.jit.save(torch.jit.script(NoInputs()), path + ".noinputs")
    return net, x, loaded, from_buffer, extra, script_error, torch.jit.load(path + ".noinputs")
"""


def _torch_code():
    ns = {"__name__": "torch_user_code"}
    exec(compile(_TORCH_CODE, "torch_user_code", "exec"), ns)
    return ns


def test_torch_trace_save_load(tmp_path):
    path = str(tmp_path / "net")  # PyTorch code: one file, whatever its name
    net, x, loaded, from_buffer, extra, script_error, noinputs = _torch_code()["run"](path)
    assert sorted(os.listdir(tmp_path)) == ["net", "net.noinputs"]
    _close(loaded(x), net(x))
    _close(from_buffer(x), net(x))
    assert extra == {"note.txt": b"hello"}
    assert "torch.jit.trace" in script_error and "example inputs" in script_error
    np.testing.assert_array_equal(noinputs().numpy(), np.full([2, 2], 3.0, "float32"))
    with pytest.raises(ValueError, match="shape"):  # traced with the example's shape
        loaded(paddle.randn([5, 4]))


def test_paddle_layout_linear_weights(tmp_path):
    # Paddle code: Linear weights are [in, out] and F.linear is x @ w + b
    net = _mlp()
    assert list(net[0].weight.shape) == [4, 8]
    buf = io.BytesIO()  # a file object: the single-file layout
    paddle.jit.save(net, buf, input_spec=[InputSpec([None, 4])])
    buf.seek(0)
    loaded = paddle.jit.load(buf)
    assert list(loaded.state_dict()["0.weight"].shape) == [4, 8]
    x = paddle.randn([2, 4])
    _close(loaded(x), net(x))
