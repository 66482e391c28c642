"""``inplace=True`` on activations and dropout (``F.relu(x, inplace=True)``,
``nn.ReLU(inplace=True)``, ...): the result is written into the input, which is returned,
its version counter moves, views share the write, and gradients are those of the
out-of-place form (PyTorch's semantics; ferrograd computes from a copy, see
``nn/_inplace.py``)."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest

FUNCS = [
    ("relu", F.relu, {}),
    ("relu6", F.relu6, {}),
    ("mish", F.mish, {}),
    ("silu", F.silu, {}),
    ("hardswish", F.hardswish, {}),
    ("hardsigmoid", F.hardsigmoid, {}),
    ("elu", F.elu, {"alpha": 0.7}),
    ("celu", F.celu, {"alpha": 1.3}),
    ("selu", F.selu, {}),
    ("leaky_relu", F.leaky_relu, {"negative_slope": 0.2}),
    ("hardtanh", F.hardtanh, {"min_val": -0.5, "max_val": 0.8}),
    ("rrelu", F.rrelu, {"lower": 0.1, "upper": 0.3}),
    ("threshold", F.threshold, {"threshold": 0.1, "value": -2.0}),
]


def _input() -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.uniform(-3, 3, (3, 4))


@pytest.mark.parametrize("name,fn,kw", FUNCS, ids=[f[0] for f in FUNCS])
def test_functional_inplace_writes_into_input_with_the_same_values_and_gradients(name, fn, kw):
    x_ref = fg.tensor(_input(), requires_grad=True)
    want = fn(x_ref * 1.0, **kw)
    want.sum().backward()

    x = fg.tensor(_input(), requires_grad=True)
    y = x * 1.0
    version = y._version
    out = fn(y, **kw, inplace=True)
    assert out is y
    assert y._version > version
    np.testing.assert_allclose(y.numpy(), want.detach().numpy(), rtol=0, atol=0)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x_ref.grad.numpy(), rtol=0, atol=0)


def test_inplace_through_a_view_updates_the_base_and_its_gradient():
    # PyTorch's test_inplace_view_saved_output: F.relu(view, inplace=True)
    a = fg.tensor(_input(), requires_grad=True)
    base = a * 2.0
    view = base[:2]
    F.relu(view, inplace=True)
    expected = _input() * 2.0
    expected[:2] = np.maximum(expected[:2], 0.0)
    np.testing.assert_allclose(base.numpy(), expected)
    (base * base).sum().backward()
    grad = 2.0 * expected * 2.0
    grad[:2] *= _input()[:2] > 0
    np.testing.assert_allclose(a.grad.numpy(), grad)


def test_layers_with_inplace_true_write_into_their_input():
    layers = [
        fg.nn.ReLU(inplace=True),
        fg.nn.ReLU6(inplace=True),
        fg.nn.LeakyReLU(0.1, inplace=True),
        fg.nn.ELU(inplace=True),
        fg.nn.SiLU(inplace=True),
        fg.nn.Hardtanh(inplace=True),
        fg.nn.Threshold(0.5, 0.0, inplace=True),
    ]
    for layer in layers:
        x = fg.tensor(_input())
        out = layer(x)
        assert out is x, type(layer).__name__
        fresh = type(layer).__new__(type(layer))
        fresh.__dict__.update(layer.__dict__)
        fresh.inplace = False
        np.testing.assert_allclose(x.numpy(), fresh(fg.tensor(_input())).numpy())
    # without inplace the input is left alone
    x = fg.tensor(_input())
    fg.nn.ReLU()(x)
    np.testing.assert_allclose(x.numpy(), _input())


def test_dropout_inplace_draws_the_same_mask_and_writes_it():
    for fn, layer in (
        (lambda t, **k: F.dropout(t, 0.4, True, **k), fg.nn.Dropout(0.4, inplace=True)),
        (lambda t, **k: F.dropout2d(t, 0.4, True, **k), fg.nn.Dropout2d(0.4, inplace=True)),
    ):
        x4 = _input().reshape(1, 3, 2, 2)
        fg.manual_seed(3)
        want = fn(fg.tensor(x4)).numpy()
        fg.manual_seed(3)
        t = fg.tensor(x4)
        assert fn(t, inplace=True) is t
        np.testing.assert_allclose(t.numpy(), want)
        fg.manual_seed(3)
        t2 = fg.tensor(x4)
        assert layer(t2) is t2
        np.testing.assert_allclose(t2.numpy(), want)
    # eval mode: nothing to write, the input comes back unchanged
    t = fg.tensor(_input())
    assert F.dropout(t, 0.5, False, inplace=True) is t
    np.testing.assert_allclose(t.numpy(), _input())


def test_inplace_refusals_are_clear():
    leaf = fg.tensor(_input(), requires_grad=True)
    with pytest.raises(RuntimeError):
        F.relu(leaf, inplace=True)  # a leaf that requires grad, as in PyTorch
    ints = fg.tensor([[1, -2], [3, -4]])
    with pytest.raises(TypeError, match="elu: inplace=True cannot write a ferrograd.float32"):
        F.elu(ints, inplace=True)
    with pytest.raises(TypeError, match="needs a Tensor input"):
        F.relu([1.0, -1.0], inplace=True)
    # Paddle's second positional argument is ``name``, not inplace
    x = fg.tensor(_input())
    out = F.relu(x, "my_relu")
    assert out is not x
    np.testing.assert_allclose(x.numpy(), _input())


def test_inplace_under_no_grad_modifies_the_tensor():
    x = fg.tensor(_input())
    with fg.no_grad():
        assert F.relu(x, inplace=True) is x
    np.testing.assert_allclose(x.numpy(), np.maximum(_input(), 0.0))
