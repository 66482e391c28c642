"""``nn.Parameter`` and ``nn.Module`` / ``nn.Layer``: registration, traversal, modes,
state dicts, hooks, both dialects."""

from __future__ import annotations

import copy
import pickle

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = nn.Parameter(fg.ones(2))
        self.register_buffer("steps", fg.zeros(1))
        self.register_buffer("scratch", fg.zeros(1), persistent=False)

    def forward(self, x):
        return self.fc(x) * self.scale


class Net(nn.Layer):  # Paddle's name for the same base class
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()
        self.head = nn.Linear(2, 1, bias=False)

    def forward(self, x):
        return self.head(self.a(x) + self.b(x))


# ------------------------------------------------------------------------------- Parameter


def test_parameter_requires_grad_even_under_no_grad():
    with fg.no_grad():
        a = nn.Parameter(fg.rand(10))
    assert a.requires_grad is True
    assert a.is_leaf
    assert isinstance(a, fg.Tensor) and isinstance(a, nn.Parameter)


def test_parameter_flags_and_trainable():
    p = nn.Parameter(fg.zeros(3), requires_grad=False)
    assert not p.requires_grad and not p.trainable and p.stop_gradient
    p.trainable = True
    assert p.requires_grad and not p.stop_gradient
    assert not nn.Parameter(fg.zeros(2), trainable=False).requires_grad


def test_parameter_is_a_detached_alias():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    p = nn.Parameter(y)
    assert p.is_leaf and p.grad_fn is None
    np.testing.assert_array_equal(p.numpy(), [2.0, 4.0])
    assert p.dtype == fg.float32
    assert nn.Parameter(np.ones(2)).dtype == fg.float64
    assert nn.Parameter([1.0]).shape == [1]
    # PyTorch's: the Parameter shares the tensor's memory, dtype and strides
    w = fg.zeros(2, 3, dtype=fg.float64)
    q = nn.Parameter(w.T)
    assert q.dtype == fg.float64 and q.stride() == (1, 3) and q.data_ptr() == w.data_ptr()
    w.add_(1.0)
    assert q.sum().item() == 6.0
    a = np.ones(2)
    r = nn.Parameter(a)  # a NumPy array is copied, as PyTorch's tensor(a)
    a[0] = 5.0
    assert r[0].item() == 1.0


def test_tensor_constructor_of_a_tensor_is_an_alias():
    # PyTorch's legacy constructor: torch.Tensor(t) keeps t's memory and dtype
    t = fg.arange(3)
    u = fg.Tensor(t)
    assert u.dtype == fg.int64 and u.data_ptr() == t.data_ptr()
    v = fg.Tensor(t, dtype=fg.float32)  # another dtype: a converted copy
    assert v.dtype == fg.float32 and v.tolist() == [0.0, 1.0, 2.0]


def test_parameter_ops_give_plain_tensors_and_grads_accumulate():
    p = nn.Parameter(fg.tensor([1.0, 2.0]))
    y = p * 3
    assert type(y) is fg.Tensor
    y.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 3.0])


def test_parameter_of_integers_is_refused():
    with pytest.raises(TypeError, match="floating point"):
        nn.Parameter(fg.tensor([1, 2]))
    assert nn.Parameter(fg.tensor([1, 2]), requires_grad=False).dtype == fg.int64


def test_parameter_repr_and_deepcopy():
    p = nn.Parameter(fg.tensor([1.0]))
    assert repr(p).startswith("Parameter containing:\ntensor(")
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    np.testing.assert_array_equal(q.numpy(), [1.0])
    with fg.no_grad():
        q.fill_(5.0)
    np.testing.assert_array_equal(p.numpy(), [1.0])
    r = pickle.loads(pickle.dumps(nn.Parameter(fg.tensor([2.0], dtype=fg.bfloat16), False)))
    assert isinstance(r, nn.Parameter) and r.dtype == fg.bfloat16 and not r.requires_grad


# ---------------------------------------------------------------------------- registration


def test_named_parameters_in_registration_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    # a module's own parameters first, then its children's (as torch and Paddle)
    assert names == [
        "a.scale",
        "a.fc.weight",
        "a.fc.bias",
        "b.scale",
        "b.fc.weight",
        "b.fc.bias",
        "head.weight",
    ]
    assert len(net.parameters()) == 7
    params = net.parameters()
    assert next(params) is net.a.scale and next(params) is net.a.fc.weight  # torch's iterator use
    assert params[0] is net.a.scale and isinstance(params, list)  # Paddle's list
    assert all(isinstance(p, nn.Parameter) for p in net.parameters())
    assert [n for n, _ in net.named_parameters(recurse=False)] == []
    assert [n for n, _ in net.a.named_parameters(prefix="x")][1] == "x.fc.weight"


def test_shared_parameters_listed_once():
    net = Net()
    net.b.fc = net.a.fc
    assert len(net.parameters()) == 5
    assert len(net.state_dict()) == 7 + 4 - 2  # state dicts keep every name


def test_children_modules_sublayers():
    net = Net()
    assert [type(c).__name__ for c in net.children()] == ["Block", "Block", "Linear"]
    assert [n for n, _ in net.named_children()] == ["a", "b", "head"]
    assert len(list(net.modules())) == 6
    assert [n for n, _ in net.named_modules()] == ["", "a", "a.fc", "b", "b.fc", "head"]
    assert len(net.sublayers()) == 5
    assert net.sublayers(include_self=True)[0] is net


def test_reassignment_and_deletion_update_the_registries():
    m = Block()
    m.scale = None
    assert "scale" not in [n for n, _ in m.named_parameters()]
    m.scale = nn.Parameter(fg.ones(2))
    del m.fc
    assert [n for n, _ in m.named_parameters()] == ["scale"]
    assert not hasattr(m, "fc")
    m.fc = 3  # a plain attribute now
    assert m.fc == 3 and len(list(m.children())) == 0
    del m.fc
    with pytest.raises(AttributeError):
        del m.fc
    with pytest.raises(TypeError, match="Parameter"):
        m.scale = fg.ones(2)


def test_module_or_buffer_over_a_parameter_name_is_refused():
    # PyTorch's Module.__setattr__ (and Paddle's Layer.__setattr__) test the parameter
    # registry before the Module and Buffer branches: a parameter's name takes only a
    # Parameter or None. ferrograd used to register the Module beside the parameter.
    m = nn.Linear(2, 3)
    with pytest.raises(TypeError, match="parameter 'weight'"):
        m.weight = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="parameter 'weight'"):
        m.weight = nn.Buffer(fg.ones(3, 2))
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert not list(m.children()) and isinstance(m.weight, nn.Parameter)
    lin = nn.Linear(2, 3, bias=False)  # a None parameter entry is a parameter name too
    with pytest.raises(TypeError, match="parameter 'bias'"):
        lin.bias = nn.Linear(1, 1)
    m.weight = None  # None is allowed, as the peers
    assert m.weight is None and [n for n, _ in m.named_parameters()] == ["bias"]
    del m.weight  # deleting frees the name for a sub-module
    m.weight = nn.Linear(2, 2)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight.weight", "weight.bias"]
    b = Block()
    with pytest.raises(TypeError, match="child module 'fc'"):
        b.fc = nn.Buffer(fg.ones(1))  # PyTorch: a child's name takes a Module or None


def test_assignment_before_init_is_explained():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(fg.ones(1))

    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_register_checks():
    m = nn.Module()
    with pytest.raises(TypeError, match="Parameter"):
        m.register_parameter("w", fg.ones(1))
    with pytest.raises(KeyError, match="'.'"):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="Module"):
        m.add_module("x", 3)
    m.add_sublayer("lin", nn.Linear(1, 1))
    assert isinstance(m.lin, nn.Linear)
    p = m.create_parameter([2, 3])
    assert isinstance(p, nn.Parameter) and p.shape == [2, 3] and p.requires_grad
    b = m.create_parameter([3], is_bias=True)
    np.testing.assert_array_equal(b.numpy(), np.zeros(3))


def test_buffers():
    m = Block()
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    assert "steps" in m.state_dict() and "scratch" not in m.state_dict()
    m.steps = fg.ones(1)
    assert float(m.state_dict()["steps"]) == 1.0


# ---------------------------------------------------------------------------- calling, modes


def test_call_runs_forward_and_hooks():
    m = nn.Linear(2, 2)
    x = fg.ones(1, 2)
    seen = []
    h1 = m.register_forward_pre_hook(lambda mod, args: seen.append("pre"))
    h2 = m.register_forward_post_hook(lambda mod, args, out: out * 0)
    assert float(m(x).abs().sum()) == 0.0
    assert seen == ["pre"]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(m(x).numpy(), m.forward(x).numpy())
    assert seen == ["pre"]


def test_forward_missing_is_explained():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


def test_train_eval_propagate():
    net = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.Dropout(0.1)))
    assert net.training
    assert net.eval() is net
    assert all(not m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="bool"):
        net.train("yes")


def test_zero_grad_and_clear_gradients():
    m = nn.Linear(2, 1)
    m(fg.ones(1, 2)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in m.parameters())
    m(fg.ones(1, 2)).sum().backward()
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m(fg.ones(1, 2)).sum().backward()
    m.clear_gradients()
    assert all(p.grad is not None and float(p.grad.abs().sum()) == 0 for p in m.parameters())


def test_requires_grad_and_apply_and_to():
    net = Net()
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    names = []
    net.apply(lambda m: names.append(type(m).__name__))
    assert names[-1] == "Net" and names.count("Linear") == 3
    net.double()
    assert all(p.dtype == fg.float64 for p in net.parameters())
    assert net.to(fg.float32) is net
    assert all(p.dtype == fg.float32 for p in net.parameters())
    assert net(fg.ones(1, 3)).dtype == fg.float32
    with pytest.raises(ValueError, match="CPU"):
        net.to(device="cuda")
    with pytest.raises(ValueError, match="CPU"):
        net.to("cuda:0")
    assert net.to("cpu") is net


def test_repr_lists_children():
    text = repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    assert text == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)"
    )


# ------------------------------------------------------------------------------ state dicts


def test_state_dict_round_trip():
    fg.seed(0)
    src, dst = Net(), Net()
    x = fg.randn(4, 3)
    assert not np.allclose(src(x).detach().numpy(), dst(x).detach().numpy())
    sd = src.state_dict()
    assert list(sd) == [
        "a.scale", "a.steps", "a.fc.weight", "a.fc.bias",
        "b.scale", "b.steps", "b.fc.weight", "b.fc.bias", "head.weight",
    ]  # fmt: skip
    assert all(not t.requires_grad for t in sd.values())
    result = dst.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(src(x).detach().numpy(), dst(x).detach().numpy())
    # loading copies values in place: the parameter objects stay the same
    p = dst.head.weight
    dst.load_state_dict({k: v * 0 for k, v in sd.items()})
    assert dst.head.weight is p and float(p.abs().sum()) == 0


def test_state_dict_shares_memory_and_keep_vars():
    m = nn.Linear(2, 2)
    sd = m.state_dict()
    with fg.no_grad():
        m.weight.fill_(3.0)
    assert float(sd["weight"][0, 0]) == 3.0
    assert m.state_dict(keep_vars=True)["weight"] is m.weight


def test_load_state_dict_strict_and_set_state_dict():
    m = nn.Linear(2, 2)
    sd = dict(m.state_dict())
    extra = dict(sd, other=fg.ones(1))
    with pytest.raises(RuntimeError, match="unexpected keys \\['other'\\]"):
        m.load_state_dict(extra)
    del sd["bias"]
    with pytest.raises(RuntimeError, match="missing keys \\['bias'\\]"):
        m.load_state_dict(sd)
    missing, unexpected = m.set_state_dict(extra)
    assert missing == [] and unexpected == ["other"]
    assert m.load_state_dict(sd, strict=False).missing_keys == ["bias"]


def test_load_state_dict_shape_and_dtype():
    m = nn.Linear(3, 2)
    with pytest.raises(ValueError, match=r"'weight' has shape \[3, 2\].*transpose"):
        m.load_state_dict({"weight": fg.ones(3, 2), "bias": fg.ones(2)})
    m.load_state_dict({"weight": np.ones((2, 3)), "bias": fg.ones(2, dtype=fg.float64)})
    assert m.weight.dtype == fg.float32 and float(m.weight.sum()) == 6.0
    with pytest.raises(TypeError, match="mapping"):
        m.load_state_dict([1, 2])


def test_dialects_share_one_class():
    assert nn.Layer is nn.Module
    assert nn.LayerList is nn.ModuleList
    assert fg.nn.initializer is fg.nn.init


def test_plain_attributes_use_property_setters_and_registries_are_readable():
    class WithProperty(nn.Module):
        def __init__(self):
            super().__init__()
            self._scale = 1.0
            self.scale = 2.0

        @property
        def scale(self):
            return self._scale

        @scale.setter
        def scale(self, v):
            self._scale = v * 10

    m = WithProperty()
    assert m.scale == 20.0
    m._parameters["direct"] = nn.Parameter(fg.ones(1))  # registered without setattr
    assert m.direct is m._parameters["direct"]
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = m.missing


def test_deepcopy_and_pickle_of_a_model():
    fg.seed(0)
    m = nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3))
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert c[0].weight is c._modules["0"]._parameters["weight"]
        assert c[0].weight is not m[0].weight and c[0].weight.requires_grad
        x = fg.randn(4, 2)
        np.testing.assert_array_equal(c(x).detach().numpy(), m(x).detach().numpy())
