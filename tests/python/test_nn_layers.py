"""The layers of ``ferrograd.nn`` against NumPy formulas, their parameters, and their
gradients against finite differences."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn
from nn_check import check_grads

RNG = np.random.default_rng(1)


def test_linear_layout_init_and_forward():
    fg.seed(0)
    m = nn.Linear(4, 3)
    assert m.weight.shape == [3, 4] and m.bias.shape == [3]  # torch layout [out, in]
    assert list(dict(m.named_parameters())) == ["weight", "bias"]
    bound = 1 / math.sqrt(4)
    for p in (m.weight, m.bias):
        assert p.requires_grad and float(p.abs().max()) <= bound
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    ref = x @ m.weight.numpy().T + m.bias.numpy()
    np.testing.assert_allclose(m(fg.tensor(x)).numpy(), ref, rtol=1e-5, atol=1e-6)
    assert nn.Linear(4, 3, bias=False).bias is None
    assert nn.Linear(4, 3, bias_attr=False).bias is None  # Paddle's spelling
    assert nn.Linear(2, 2, dtype=fg.float64).weight.dtype == fg.float64


def test_linear_seeded_init_is_reproducible():
    fg.seed(3)
    a = nn.Linear(5, 5).weight.numpy()
    fg.seed(3)
    np.testing.assert_array_equal(a, nn.Linear(5, 5).weight.numpy())


def test_linear_gradients():
    m = nn.Linear(3, 2, dtype=fg.float64)
    x = RNG.standard_normal((4, 3))

    def f(x, w, b):
        with fg.no_grad():
            m.weight.copy_(w)
            m.bias.copy_(b)
        # route the gradient through the layer's own forward
        return nn.functional.linear(x, w, b)

    check_grads(f, [x, m.weight.numpy(), m.bias.numpy()])
    out = m(fg.tensor(x)).sum()
    out.backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), np.ones((2, 4)) @ x, rtol=1e-12)
    np.testing.assert_allclose(m.bias.grad.numpy(), [4.0, 4.0])


def test_sequential_runs_in_order_and_indexes():
    seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    x = fg.randn(4, 2)
    ref = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).detach().numpy(), ref.detach().numpy())
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert len(seq[:2]) == 2
    assert [type(m).__name__ for m in seq] == ["Linear", "Tanh", "Linear"]
    seq.append(nn.Sigmoid())
    assert list(dict(seq.named_children())) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError):
        seq[7]
    named = nn.Sequential(("fc", nn.Linear(1, 1)), ("act", nn.ReLU()))  # Paddle's pairs
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"]
    assert isinstance(named["act"], nn.ReLU)


def test_module_list():
    layers = nn.LayerList([nn.Linear(1, 1) for _ in range(3)])
    assert len(layers) == 3 and len(layers.parameters()) == 6
    layers.extend([nn.ReLU()])
    assert isinstance(layers[3], nn.ReLU)


ERF = np.vectorize(math.erf)
ACTIVATION_LAYERS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + ERF(x / math.sqrt(2)))),
    (
        nn.GELU(approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    (nn.Identity(), lambda x: x),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (nn.LogSoftmax(axis=1), lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
]


@pytest.mark.parametrize("layer,ref", ACTIVATION_LAYERS, ids=lambda v: type(v).__name__)
def test_activation_layers(layer, ref):
    x = RNG.standard_normal((3, 4)) + 0.05
    np.testing.assert_allclose(layer(fg.tensor(x)).numpy(), ref(x), rtol=1e-12, atol=1e-12)
    check_grads(layer, [x])


def test_dropout_layer_train_and_eval():
    d = nn.Dropout(0.5)
    x = fg.ones(1000)
    fg.seed(0)
    y = d(x).numpy()
    assert set(np.unique(y)) == {0.0, 2.0}
    d.eval()
    assert d(x) is x
    assert repr(d) == "Dropout(p=0.5)"
    with pytest.raises(ValueError, match="probability"):
        nn.Dropout(2)


def test_layer_norm_layer():
    ln = nn.LayerNorm(4, dtype=fg.float64)
    assert list(dict(ln.named_parameters())) == ["weight", "bias"]
    np.testing.assert_array_equal(ln.weight.numpy(), np.ones(4))
    x = RNG.standard_normal((3, 4))
    mu, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    np.testing.assert_allclose(ln(fg.tensor(x)).numpy(), (x - mu) / np.sqrt(var + 1e-5), rtol=1e-10)
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    check_grads(lambda x, w, b: nn.functional.layer_norm(x, [4], w, b, ln.eps), [x, w, b])
    no_affine = nn.LayerNorm([2, 2], elementwise_affine=False)
    assert no_affine.parameters() == []
    assert nn.LayerNorm(4, epsilon=1e-3).eps == 1e-3  # Paddle's name


def test_embedding_layer():
    fg.seed(0)
    emb = nn.Embedding(10, 3, padding_idx=0)
    assert emb.weight.shape == [10, 3]
    np.testing.assert_array_equal(emb.weight.numpy()[0], np.zeros(3))
    ids = fg.tensor([[0, 4], [9, 4]])
    out = emb(ids)
    assert out.shape == [2, 2, 3]
    np.testing.assert_array_equal(out.detach().numpy(), emb.weight.numpy()[[[0, 4], [9, 4]]])
    out.sum().backward()
    g = emb.weight.grad.numpy()
    np.testing.assert_array_equal(g[0], 0)
    np.testing.assert_array_equal(g[4], 2)
    np.testing.assert_array_equal(g[9], 1)
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(3, 2, padding_idx=5)


def test_loss_modules_match_functional():
    x = fg.tensor(RNG.standard_normal((4, 3)))
    y = fg.tensor([0, 2, 1, 1])
    F = nn.functional
    np.testing.assert_allclose(nn.CrossEntropyLoss()(x, y).numpy(), F.cross_entropy(x, y).numpy())
    np.testing.assert_allclose(
        nn.NLLLoss(reduction="sum")(x.log_softmax(1), y).numpy(),
        F.nll_loss(x.log_softmax(1), y, reduction="sum").numpy(),
    )
    t = fg.tensor(RNG.standard_normal((4, 3)))
    np.testing.assert_allclose(nn.MSELoss()(x, t).numpy(), ((x - t) ** 2).mean().numpy())


def test_small_model_trains_with_plain_sgd():
    # the whole stack: layers, loss, backward, parameters(), in-place updates
    fg.seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    xt, yt = fg.tensor(x), fg.tensor(y)
    first = None
    for _ in range(200):
        loss = nn.functional.cross_entropy(model(xt), yt)
        first = first if first is not None else float(loss)
        model.zero_grad()
        loss.backward()
        with fg.no_grad():
            for p in model.parameters():
                p -= 0.5 * p.grad
    assert float(loss) < 0.5 * first


@pytest.mark.parametrize("default", ["float64", "float32"])
def test_layers_create_parameters_in_the_default_dtype(default):
    # torch.set_default_dtype / paddle.set_default_dtype: layers follow it (both peers do),
    # an explicit dtype= still wins
    fg.set_default_dtype(default)
    try:
        layers = [
            nn.Linear(2, 3), nn.Conv2d(1, 2, 3), nn.Conv2DTranspose(1, 2, 3),
            nn.BatchNorm2D(2), nn.BatchNorm1d(2), nn.LayerNorm(4), nn.GroupNorm(1, 2),
            nn.Embedding(5, 2), nn.PReLU(), nn.LSTM(2, 3), nn.GRUCell(2, 3),
            nn.MultiHeadAttention(4, 2), nn.InstanceNorm2D(2),
        ]  # fmt: skip
        for layer in layers:
            for name, t in [*layer.named_parameters(), *layer.named_buffers()]:
                if "num_batches_tracked" not in name:
                    assert t.dtype.name == default, (type(layer).__name__, name, t.dtype)
        if default == "float64":
            assert nn.Linear(2, 3, dtype="float32").weight.dtype.name == "float32"
    finally:
        fg.set_default_dtype("float32")
