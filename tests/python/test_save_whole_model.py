"""``torch.save(model, path)`` / ``torch.load(path, weights_only=False)``: PyTorch's
"Save/Load Entire Model" (docs/nn-optim.md, "Checkpoint format").

Whole models, optimizers and other objects the JSON manifest cannot hold are pickled into
the ``.npz`` file with their tensors stored as the file's tensors
(python/ferrograd/_pickled_objects.py). As PyTorch >= 2.6 (torch/serialization.py,
``load``: ``weights_only`` defaults to True, and a refused file is a
``pickle.UnpicklingError`` built by ``_get_wo_message`` around ``UNSAFE_MESSAGE``), the
default ``load`` refuses such a file and unpickles nothing; ``weights_only=False`` loads it.
State dicts are written exactly as before.

This module is PyTorch code (``import ferrograd as torch``); the Paddle calls run in
functions compiled with a ``paddle`` global only (``PADDLE``), so they are Paddle code.
"""

from __future__ import annotations

import io
import math
import pickle
import zipfile

import ferrograd as torch
import numpy as np
import pytest

nn = torch.nn

_PADDLE_SRC = """
def save(obj, f, **kw):
    paddle.save(obj, f, **kw)

def load(f, **kw):
    return paddle.load(f, **kw)

def conv_block():
    return paddle.nn.Sequential(paddle.nn.Conv2D(1, 2, 3), paddle.nn.BatchNorm2D(2))

def linear(i, o):
    return paddle.nn.Linear(i, o)

def sgd(layer):
    return paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
"""
PADDLE: dict = {"paddle": torch, "__name__": "paddle_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)


class SeqNet(nn.Module):
    """An LSTM and a Linear head (a user class at module level, so pickle finds it)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(self.lstm(x)[0][:, -1])


class ConvNet(nn.Module):
    """Conv, batch norm, pooling and a Linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


class TiedLM(nn.Module):
    """An Embedding and an output Linear sharing one weight."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.head = nn.Linear(6, 10, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        return self.head(self.emb(ids))


class PaddleNet(nn.Layer):
    """A Paddle layer whose sublayers are made in Paddle code (Paddle's layouts)."""

    def __init__(self) -> None:
        super().__init__()
        self.block = PADDLE["conv_block"]()
        self.fc = PADDLE["linear"](2 * 6 * 6, 3)

    def forward(self, x):
        return self.fc(torch.flatten(self.block(x), 1))


TRIPPED: list = []


def _trip() -> str:
    TRIPPED.append(1)
    return "ran"


class Tripwire:
    """Unpickling it runs ``_trip``: a weights-only load must not."""

    def __reduce__(self):
        return (_trip, ())


def _roundtrip(obj, path, **load_kw):
    torch.save(obj, path)
    return torch.load(path, weights_only=False, **load_kw)


def _sgd_step(model, opt, x):
    opt.zero_grad()
    model(x).float().pow(2).mean().backward()
    opt.step()


def _same_params(a, b):
    pa, pb = dict(a.named_parameters()), dict(b.named_parameters())
    assert pa.keys() == pb.keys()
    return all(torch.equal(pa[k], pb[k]) for k in pa)


@pytest.mark.parametrize("cls,shape", [(SeqNet, (2, 5, 4)), (ConvNet, (3, 1, 8, 8))])
def test_whole_model_loads_works_and_trains(tmp_path, cls, shape):
    torch.manual_seed(0)
    model = cls()
    x = torch.randn(*shape)
    model.eval()
    back = _roundtrip(model, tmp_path / "model.pt")
    assert type(back) is cls and not back.training
    assert np.array_equal(back(x).detach().numpy(), model(x).detach().numpy())
    params = list(back.parameters())
    assert params and all(isinstance(p, nn.Parameter) and p.requires_grad for p in params)
    assert _same_params(model, back)
    # both train one SGD step alike
    model.train()
    back.train()
    before = [p.detach().clone() for p in back.parameters()]
    for m in (model, back):
        _sgd_step(m, torch.optim.SGD(m.parameters(), lr=0.1), x)
    assert any(not torch.equal(p, q) for p, q in zip(back.parameters(), before))
    assert _same_params(model, back)


def test_tied_weights_stay_one_object(tmp_path):
    torch.manual_seed(1)
    back = _roundtrip(TiedLM(), tmp_path / "tied.pt")
    assert back.head.weight is back.emb.weight
    assert len(list(back.parameters())) == 1
    _sgd_step(back, torch.optim.SGD(back.parameters(), lr=0.5), torch.tensor([[1, 2, 3]]))
    assert back.head.weight is back.emb.weight
    # one storage in the file for the shared weight
    with zipfile.ZipFile(tmp_path / "tied.pt") as z:
        assert sorted(n for n in z.namelist() if n.startswith("t")) == ["t0.npy"]


def test_optimizer_and_scheduler_saved_whole(tmp_path):
    torch.manual_seed(2)
    model = SeqNet()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = torch.randn(2, 5, 4)
    _sgd_step(model, opt, x)
    sched.step()
    back = _roundtrip({"model": model, "opt": opt, "sched": sched, "epoch": 1}, tmp_path / "c.pt")
    m2, o2, s2 = back["model"], back["opt"], back["sched"]
    assert back["epoch"] == 1 and type(o2) is type(opt)
    # one pickle for the whole object: what its parts share stays shared, as torch.save's
    assert s2.optimizer is o2
    assert all(p is q for p, q in zip(o2.param_groups[0]["params"], m2.parameters()))
    sd, sd2 = opt.state_dict(), o2.state_dict()
    assert sd2["param_groups"] == sd["param_groups"]
    for i, st in sd["state"].items():
        assert st.keys() == sd2["state"][i].keys()
        assert all(
            torch.equal(torch.as_tensor(st[k]), torch.as_tensor(sd2["state"][i][k])) for k in st
        )
    for m, o, s in ((model, opt, sched), (m2, o2, s2)):
        _sgd_step(m, o, x)
        s.step()
    assert _same_params(model, m2)
    assert o2.param_groups[0]["lr"] == opt.param_groups[0]["lr"] == 0.05 * 0.25


def test_optimizer_alone(tmp_path):
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    _sgd_step(model, opt, torch.ones(4, 3))
    o2 = _roundtrip(opt, tmp_path / "opt.pt")
    assert torch.equal(o2.state_dict()["state"][0]["momentum_buffer"],
                       opt.state_dict()["state"][0]["momentum_buffer"])  # fmt: skip
    assert isinstance(o2.param_groups[0]["params"][0], nn.Parameter)


@pytest.mark.parametrize("weights_only", [None, True])
def test_default_load_refuses_and_unpickles_nothing(tmp_path, weights_only):
    path = tmp_path / "m.pt"
    torch.save({"model": SeqNet(), "trip": Tripwire()}, path)
    kw = {} if weights_only is None else {"weights_only": weights_only}
    with pytest.raises(pickle.UnpicklingError) as info:
        torch.load(path, **kw)
    msg = str(info.value)
    assert msg.startswith("Weights only load failed. Re-running `torch.load` with `weights_only`")
    assert (
        "set to `False` will likely succeed, but it can result in arbitrary code execution" in msg
    )
    assert "Do it only if you got the file from a trusted source." in msg
    assert "test_save_whole_model.SeqNet" in msg
    assert TRIPPED == []
    back = torch.load(path, weights_only=False)
    assert back["trip"] == "ran" and TRIPPED == [1]
    TRIPPED.clear()


def test_paddle_save_and_load_whole_layer(tmp_path):
    torch.manual_seed(3)
    net = PaddleNet()
    x = torch.randn([2, 1, 8, 8])
    path = tmp_path / "net.pdparams"
    PADDLE["save"](net, path)
    # Paddle's paddle.load has no weights_only; ferrograd asks for it, in Paddle's words
    with pytest.raises(pickle.UnpicklingError, match=r"paddle\.load\(path, weights_only=False\)"):
        PADDLE["load"](path)
    back = PADDLE["load"](path, weights_only=False)
    assert type(back) is PaddleNet
    assert list(back.fc.weight.shape) == [72, 3]  # Paddle's [in, out] layout kept
    net.eval()
    back.eval()
    assert np.array_equal(back(x).detach().numpy(), net(x).detach().numpy())
    net.train()
    back.train()
    for layer in (net, back):
        opt = PADDLE["sgd"](layer)
        layer(x).pow(2).mean().backward()
        opt.step()
    assert _same_params(net, back)


def test_state_dicts_write_the_same_manifest_as_before(tmp_path):
    """The manifests below were written by serialization.py before pickle nodes existed
    (the change keeps them byte for byte), with the state dicts' ``metadata`` added
    since."""
    emb = nn.Embedding(4, 3)
    head = nn.Linear(3, 4, bias=False)
    head.weight = emb.weight
    x = torch.arange(6.0).reshape(2, 3)
    mixed = {
        "a": np.arange(3),
        1: [1.5, math.inf, None, True, "s"],
        "bf": torch.ones(2, dtype=torch.bfloat16),
        "views": (x, x.T),
        "sp": torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)),
    }
    head_ = '{"format": "ferrograd.npz", "version": 2, "root": '
    t = '"kind": "tensor", "storage": "t%d", "dtype": "%s", "shape": %s, "strides": %s, '
    t += '"offset": 0, "requires_grad": false, "object": %d}'
    # state_dict()'s _metadata (the modules' versions) is the one addition since then
    meta = '"metadata": %s'
    want = [
        head_ + '{"kind": "dict", "items": [[["str", "weight"], {' + t % (0, "float32", [2, 3], [3, 1], 0)
        + '], [["str", "bias"], {' + t % (1, "float32", [2], [1], 1) + ']], "ordered": true, '
        + meta % '[["", {"version": 1}]]' + "}}",
        head_ + '{"kind": "dict", "items": [[["str", "0.weight"], {' + t % (0, "float32", [4, 3], [3, 1], 0)
        + '], [["str", "1.weight"], {' + t % (0, "float32", [4, 3], [3, 1], 1) + ']], "ordered": true, '
        + meta % '[["", {"version": 1}], ["0", {"version": 1}], ["1", {"version": 1}]]' + "}}",
        head_ + '{"kind": "dict", "items": [[["str", "a"], {"kind": "ndarray", "key": "t0"}], '
        '[["int", 1], {"kind": "list", "items": [{"kind": "value", "value": 1.5}, {"kind": '
        '"float", "value": "inf"}, {"kind": "value", "value": null}, {"kind": "value", "value":'
        ' true}, {"kind": "value", "value": "s"}]}], [["str", "bf"], {'
        + t % (1, "bfloat16", [2], [1], 0) + '], [["str", "views"], {"kind": "tuple", "items": [{'
        + t % (2, "float32", [2, 3], [3, 1], 1) + ", {" + t % (2, "float32", [3, 2], [1, 3], 2)
        + ']}], [["str", "sp"], {"kind": "sparse", "layout": "sparse_coo", "shape": [3], '
        '"coalesced": false, "requires_grad": false, "parts": [{' + t % (3, "int64", [1, 2], [2, 1], 3)
        + ", {" + t % (4, "float32", [2], [1], 4) + "]}]]}}",
    ]  # fmt: skip
    objs = [nn.Linear(3, 2).state_dict(), nn.Sequential(emb, head).state_dict(), mixed]
    for obj, expected in zip(objs, want):
        buf = io.BytesIO()
        torch.save(obj, buf)
        with zipfile.ZipFile(buf) as z:
            assert not any(n.startswith("p") for n in z.namelist())
            raw = np.load(io.BytesIO(z.read("__ferrograd__.npy")))
        assert raw.tobytes().decode() == expected


def _rewrite(path, out, **members):
    """A copy of the archive at ``path`` with some members replaced (arrays by name)."""
    with zipfile.ZipFile(path) as z:
        arrays = {n[:-4]: np.load(io.BytesIO(z.read(n))) for n in z.namelist()}
    arrays.update(members)
    with open(out, "wb") as f:
        np.savez(f, **arrays)


def _manifest(path):
    import json

    with zipfile.ZipFile(path) as z:
        return json.loads(np.load(io.BytesIO(z.read("__ferrograd__.npy"))).tobytes())


def _with_manifest(manifest):
    import json

    return np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)


def test_malformed_pickle_nodes_are_value_errors(tmp_path):
    good = tmp_path / "good.pt"
    torch.save(nn.Linear(2, 2), good)
    bad = tmp_path / "bad.pt"
    _rewrite(good, bad, p0=np.frombuffer(b"not a pickle at all", dtype=np.uint8))
    with pytest.raises(ValueError, match="cannot be unpickled"):
        torch.load(bad, weights_only=False)
    _rewrite(good, bad, p0=np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match="float32 array"):
        torch.load(bad, weights_only=False)
    # a truncated pickle
    with zipfile.ZipFile(good) as z:
        raw = np.load(io.BytesIO(z.read("p0.npy")))
    _rewrite(good, bad, p0=raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="cannot be unpickled"):
        torch.load(bad, weights_only=False)
    # a pickle naming a tensor the node does not list
    m = _manifest(good)
    m["root"]["tensors"] = m["root"]["tensors"][:1]
    _rewrite(good, bad, __ferrograd__=_with_manifest(m))
    with pytest.raises(ValueError, match="names tensor 1 of 1"):
        torch.load(bad, weights_only=False)
    # node structure: checked before the weights-only refusal
    for change in ({"tensors": {}}, {"key": 3}, {"tensors": [{"kind": "dict"}]}, {"type": 5}):
        m = _manifest(good)
        m["root"].update(change)
        _rewrite(good, bad, __ferrograd__=_with_manifest(m))
        for kw in ({}, {"weights_only": False}):
            with pytest.raises(ValueError, match="pickle node at root"):
                torch.load(bad, **kw)
    # a missing member
    m = _manifest(good)
    m["root"]["key"] = "p9"
    _rewrite(good, bad, __ferrograd__=_with_manifest(m))
    with pytest.raises(ValueError, match="does not hold"):
        torch.load(bad, weights_only=False)


def test_max_bytes_counts_the_pickle(tmp_path):
    path = tmp_path / "big.pt"
    torch.save({"blob": b"x" * 5000}, path)  # bytes need pickle; no tensors at all
    with pytest.raises(ValueError, match="max_bytes"):
        torch.load(path, weights_only=False, max_bytes=1000)
    assert torch.load(path, weights_only=False, max_bytes=10_000) == {"blob": b"x" * 5000}


def test_what_pickle_cannot_store_is_a_clear_error(tmp_path):
    with pytest.raises(TypeError, match="lambda") as info:
        torch.save({"model": nn.Linear(2, 2), "fn": lambda x: x}, tmp_path / "f.pt")
    assert isinstance(info.value, pickle.PicklingError)  # what torch.save raises
    assert "save: obj" in str(info.value)


def test_pickle_protocol_and_module(tmp_path):
    path = tmp_path / "p.pt"
    torch.save(nn.Linear(2, 2), path, pickle_protocol=2)
    with zipfile.ZipFile(path) as z:
        assert np.load(io.BytesIO(z.read("p0.npy"))).tobytes()[:2] == b"\x80\x02"
    PADDLE["save"](nn.Linear(2, 2), path, protocol=3)
    with zipfile.ZipFile(path) as z:
        assert np.load(io.BytesIO(z.read("p0.npy"))).tobytes()[:2] == b"\x80\x03"
    with pytest.raises(ValueError, match="pickle protocol 1"):
        torch.save(nn.Linear(2, 2), path, pickle_protocol=1)
    # torch.load: an explicit pickle_module means weights_only=False, and cannot be both
    assert isinstance(torch.load(path, pickle_module=pickle), nn.Linear)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        torch.load(path, weights_only=True, pickle_module=pickle)


def test_lazy_module_saved_before_its_first_call(tmp_path):
    back = _roundtrip(nn.LazyLinear(3), tmp_path / "lazy.pt")
    assert back.has_uninitialized_params()
    assert list(back(torch.ones(2, 5)).shape) == [2, 3]


def test_transformer_layer_with_functional_activation_regression(tmp_path):
    # its activation is F.relu, an OpFunction wrapping a function the module no longer
    # holds by name: pickle refused it before _op_functions pickled it by name
    torch.manual_seed(4)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    layer.eval()
    back = _roundtrip(layer, tmp_path / "t.pt")
    x = torch.randn(3, 2, 8)
    assert back.activation is torch.nn.functional.relu
    assert np.allclose(back(x).detach().numpy(), layer(x).detach().numpy())


def test_one_sparse_tensor_saved_twice_regression(tmp_path):
    # the writer numbered its detached parts by id(); a freed part's id reused by the
    # next part made the file unloadable (or, with matching layouts, silently wrong)
    s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    torch.save([s, s, s], tmp_path / "s.pt")
    back = torch.load(tmp_path / "s.pt")
    assert all(b.to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]] for b in back)


def test_other_objects_shared_with_tensors_and_sets(tmp_path):
    w = torch.ones(3, requires_grad=True)
    sp = torch.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,))
    obj = {"set": {1, 2}, "pair": (w, [w, 1 + 2j]), (1, 2): w[1:], "sp": [sp, sp]}
    back = _roundtrip(obj, tmp_path / "o.pt")
    assert back["set"] == {1, 2} and back["pair"][1][1] == 1 + 2j
    assert back["sp"][0] is back["sp"][1] and back["sp"][0].to_dense().tolist() == [1, 0, 2]
    assert back["pair"][0] is back["pair"][1][0] and back["pair"][0].requires_grad
    # a view keeps sharing memory with its base
    with torch.no_grad():
        back["pair"][0][1] = 5.0
    assert back[(1, 2)].tolist() == [5.0, 1.0]
