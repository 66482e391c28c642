"""The fused recurrent layer op (``_core._rnn_layer``, one graph node per layer and
direction) against the composed step loop it replaces: values and gradients in float64
to 1e-12, gradcheck, and gradgradcheck through the composed create_graph fallback."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, nn
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.nn import rnn as rnn_mod

RNG = np.random.default_rng(11)


def _t(shape, grad=True):
    return fg.tensor(RNG.standard_normal(shape) * 0.5, dtype="float64", requires_grad=grad)


def _run(layer, x, hx, fused, monkeypatch):
    """Output, final states and all parameter/input gradients of ``layer``."""
    with monkeypatch.context() as m:
        if not fused:
            m.setattr(rnn_mod, "_fusable", lambda mode, gx: False)
        for p in layer.parameters():
            p.grad = None
        x.grad = None
        out, fin = layer(x, hx)
        states = fin if isinstance(fin, tuple) else (fin,)
        loss = (out * out).sum() + sum((s * s * 0.5).sum() for s in states)
        loss.backward()
    grads = [p.grad.numpy().copy() for p in layer.parameters()] + [x.grad.numpy().copy()]
    return [out.numpy()] + [s.numpy() for s in states], grads


@pytest.mark.parametrize(
    "cls,kw",
    [
        (nn.LSTM, {}),
        (nn.LSTM, {"bidirectional": True, "num_layers": 2}),
        (nn.LSTM, {"batch_first": True, "bias": False}),
        (nn.GRU, {"num_layers": 2, "bidirectional": True}),
        (nn.GRU, {"bias": False}),
        (nn.RNN, {"nonlinearity": "tanh", "num_layers": 2}),
        (nn.RNN, {"nonlinearity": "relu", "bidirectional": True}),
    ],
)
def test_fused_matches_composed(cls, kw, monkeypatch):
    layer = cls(4, 5, dtype="float64", **kw)
    shape = [3, 6, 4] if kw.get("batch_first") else [6, 3, 4]
    x = _t(shape)
    v_f, g_f = _run(layer, x, None, True, monkeypatch)
    v_c, g_c = _run(layer, x, None, False, monkeypatch)
    for a, b in zip(v_f + g_f, v_c + g_c):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "cls,kw",
    [
        (nn.LSTM, {"bidirectional": True, "num_layers": 2}),
        (nn.GRU, {"bidirectional": True}),
        (nn.RNN, {"nonlinearity": "tanh", "bidirectional": True}),
    ],
)
@pytest.mark.parametrize("steps", [1, 2])
def test_fused_short_sequences_with_initial_states_match_composed(cls, kw, steps, monkeypatch):
    # dW_hh reads the previous states in place, the states shifted by one step, and adds
    # the first step's h0 term after (kernels/rnn.rs, dw_hh): one step is the h0 term
    # alone, two steps one shifted step; both directions, initial states given
    layer = cls(4, 5, dtype="float64", **kw)
    n = layer.num_layers * 2
    h = _t([n, 3, 5], grad=False)
    hx = (h, _t([n, 3, 5], grad=False)) if cls is nn.LSTM else h
    x = _t([steps, 3, 4])
    v_f, g_f = _run(layer, x, hx, True, monkeypatch)
    v_c, g_c = _run(layer, x, hx, False, monkeypatch)
    for a, b in zip(v_f + g_f, v_c + g_c):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "cls,hidden,kw", [(nn.LSTM, 182, {}), (nn.RNN, 364, {"bidirectional": True})]
)
def test_fused_with_the_batch_split_over_threads_matches_composed(cls, hidden, kw, monkeypatch):
    # batch 8 with these hidden sizes makes each step big enough (B * G*H * H >= 2**20)
    # that, with two or more pool threads, the fused kernel cuts every step's batch into
    # blocks run as separate tasks (GEMM and gates per block; kernels/rnn_step.rs)
    layer = cls(6, hidden, dtype="float64", **kw)
    x = _t([3, 8, 6])
    v_f, g_f = _run(layer, x, None, True, monkeypatch)
    v_c, g_c = _run(layer, x, None, False, monkeypatch)
    for a, b in zip(v_f + g_f, v_c + g_c):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-11)


def test_fused_is_one_node_per_layer_and_direction():
    layer = nn.LSTM(3, 4, dtype="float64")
    out, _ = layer(_t([5, 2, 3]))
    names = set()
    todo = [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node.name() in names:
            continue
        names.add(node.name())
        todo.extend(f for f, _ in node.next_functions)
    assert "RnnLayerBackward0" in names
    assert not names & {"SigmoidBackward0", "TanhBackward0", "StackBackward0"}


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck_and_gradgradcheck(mode, reverse):
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    xp, w = _t([3, 2, 3 * g]), _t([3 * g, 3])
    h0 = _t([2, 3])
    extra = {"LSTM": _t([2, 3]), "GRU": _t([3 * g])}.get(mode)
    args = (xp, w, h0) if extra is None else (xp, w, h0, extra)

    def f(*a):
        return _core._rnn_layer(a[0], a[1], a[2], a[3] if len(a) > 3 else None, mode, reverse)

    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


def test_bad_input_is_a_clear_error():
    xp, w, h0 = _t([3, 2, 8]), _t([8, 2]), _t([2, 2])
    with pytest.raises(ValueError, match="c0"):
        _core._rnn_layer(xp, w, h0, None, "LSTM", False)
    with pytest.raises(ValueError, match="mode"):
        _core._rnn_layer(xp, w, h0, None, "LSTM_X", False)
    with pytest.raises(ValueError, match="w_hh"):
        _core._rnn_layer(xp, _t([8, 3]), h0, h0, "LSTM", False)
    with pytest.raises(ValueError, match="b_hh"):
        _core._rnn_layer(_t([3, 2, 6]), _t([6, 2]), h0, h0, "GRU", False)
    with pytest.raises(TypeError, match="float"):
        _core._rnn_layer(xp.astype("int64"), w, h0, h0, "LSTM", False)
