"""ModuleDict/LayerDict, ParameterList/ParameterDict, parameters_to_vector,
summary, and Paddle's metric.accuracy / metric.Accuracy."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def test_module_dict_registers_children():
    md = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.ReLU()})
    md["c"] = nn.Linear(3, 1)
    assert list(md.keys()) == ["a", "b", "c"] and len(md) == 3 and "b" in md
    assert len(list(md.parameters())) == 4
    assert set(md.state_dict()) == {"a.weight", "a.bias", "c.weight", "c.bias"}
    x = fg.ones([1, 2])
    y = md["c"](md["b"](md["a"](x)))
    assert list(y.shape) == [1, 1]
    popped = md.pop("a")
    assert isinstance(popped, nn.Linear) and len(list(md.parameters())) == 2
    del md["c"]
    assert list(md.keys()) == ["b"]
    md.update([("d", nn.Tanh())])
    assert list(md) == ["b", "d"]
    md.clear()
    assert len(md) == 0
    assert nn.LayerDict is nn.ModuleDict
    ld = nn.LayerDict(sublayers={"x": nn.Linear(1, 1)})
    assert len(ld.parameters()) == 2
    with pytest.raises(TypeError, match="pairs"):
        nn.ModuleDict([nn.ReLU()])


def test_parameter_list_and_dict():
    pl = nn.ParameterList([fg.ones([2]), nn.Parameter(fg.zeros([3]))])
    assert len(pl) == 2 and all(isinstance(p, nn.Parameter) for p in pl)
    assert pl[0].requires_grad
    pl.append(fg.ones([1]))
    assert len(list(pl.parameters())) == 3 and list(pl.state_dict()) == ["0", "1", "2"]
    pl[1] = fg.full([3], 2.0)
    assert pl[1].tolist() == [2.0, 2.0, 2.0]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = nn.ParameterList([fg.ones([2, 2]) for _ in range(2)])
            self.extra = nn.ParameterDict({"scale": fg.full([1], 3.0)})

        def forward(self, x):
            for w in self.ws:
                x = x.matmul(w)
            return x * self.extra["scale"]

    net = Net()
    assert set(net.state_dict()) == {"ws.0", "ws.1", "extra.scale"}
    net(fg.ones([1, 2])).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    opt = fg.optim.SGD(net.parameters(), lr=0.1)
    opt.step()
    pd = nn.ParameterDict()
    pd["a"] = fg.ones([1])
    assert "a" in pd and pd.get("b") is None and len(pd) == 1
    assert pd.pop("a").tolist() == [1.0] and len(pd) == 0
    with pytest.raises(TypeError, match="Parameters or Tensors"):
        nn.ParameterList([1.0])


def test_parameters_to_vector_round_trip_and_gradient():
    lin = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert list(vec.shape) == [8]
    np.testing.assert_array_equal(
        vec.detach().numpy(),
        np.concatenate([lin.weight.detach().numpy().ravel(), lin.bias.detach().numpy()]),
    )
    (vec * vec).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), 2 * lin.weight.detach().numpy())
    nn.utils.vector_to_parameters(fg.arange(8).astype("float32"), lin.parameters())
    assert lin.weight.tolist() == [[0, 1, 2], [3, 4, 5]] and lin.bias.tolist() == [6, 7]
    assert lin.weight.is_leaf and lin.weight.requires_grad
    with pytest.raises(ValueError, match="must match"):
        nn.utils.vector_to_parameters(fg.zeros([7]), lin.parameters())
    with pytest.raises(TypeError, match="Tensor"):
        nn.utils.vector_to_parameters([0.0] * 8, lin.parameters())


def test_summary(capsys):
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    net.train()
    info = fg.summary(net, (1, 4))
    assert info == {"total_params": 58, "trainable_params": 58}
    out = capsys.readouterr().out
    key = f"Linear-{int(net[0].full_name().split('_')[-1]) + 1}"
    assert key in out and "[1, 8]" in out and "Total params: 58" in out
    assert net.training  # restored
    net[0].weight.requires_grad_(False)
    info = fg.summary(net, input=fg.ones([3, 4]))
    assert info["trainable_params"] == 58 - 32
    assert "[3, 2]" in capsys.readouterr().out
    with pytest.raises(ValueError, match="input_size"):
        fg.summary(net)


def test_metric_accuracy_function_and_class():
    import ferrograd as paddle

    scores = paddle.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    label = paddle.to_tensor([[1], [2], [2], [1]])
    acc = paddle.metric.accuracy(scores, label)
    assert acc.dtype == paddle.float32 and acc.item() == pytest.approx(0.5)
    assert paddle.metric.accuracy(scores, label, k=2).item() == pytest.approx(0.75)
    correct, total = paddle.zeros([1], dtype="int64"), paddle.zeros([1], dtype="int64")
    paddle.metric.accuracy(scores, label, k=2, correct=correct, total=total)
    assert correct.tolist() == [3] and total.tolist() == [4]

    m = paddle.metric.Accuracy(topk=(1, 2))
    hits = m.compute(scores, label)
    assert list(hits.shape) == [4, 2]
    assert m.update(hits) == pytest.approx([0.5, 0.75])
    m.update(m.compute(scores[:2], paddle.to_tensor([1, 0])))  # 1-D labels: both top-1 hits
    assert m.accumulate() == pytest.approx([4 / 6, 5 / 6])
    assert m.name() == ["acc_top1", "acc_top2"]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    single = paddle.metric.Accuracy()
    single.update(single.compute(scores, label))
    assert single.accumulate() == pytest.approx(0.5) and single.name() == ["acc"]
    with pytest.raises(ValueError, match="k=4"):
        paddle.metric.accuracy(scores, label, k=4)


def test_sequential_concatenation_and_repetition():
    # PyTorch 2.x's Sequential.__add__ / __iadd__ / __mul__ / __rmul__ / __imul__: the
    # same layer objects (not copies), renumbered "0", "1", ...
    lin, act, out = nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)
    a, b = nn.Sequential(lin, act), nn.Sequential(out)
    c = a + b
    assert list(c._modules) == ["0", "1", "2"] and list(c) == [lin, act, out]
    assert list(a) == [lin, act]  # + makes a new Sequential
    x = fg.tensor([[1.0, -2.0]])
    np.testing.assert_allclose(c(x).numpy(), out(act(lin(x))).numpy())
    d = a * 3
    assert list(d) == [lin, act] * 3 and list(2 * a) == [lin, act] * 2
    assert len(list(d.parameters())) == 2  # shared, listed once
    np.testing.assert_allclose(d(x).numpy(), a(a(a(x))).numpy())
    a += b
    assert list(a) == [lin, act, out] and list(a._modules) == ["0", "1", "2"]
    s = nn.Sequential(lin)
    s *= 3
    assert list(s) == [lin, lin, lin]
    with pytest.raises(ValueError, match="only another Sequential"):
        a + [act]
    with pytest.raises(ValueError, match="Non-positive"):
        a * 0
    with pytest.raises(TypeError, match="unsupported operand"):
        a * 1.5
