"""The fused float32 LSTM/RNN/GRU (gates in float32 lanes, kernels/fastmath_gates.rs)
against the float64 layer with the same weights: values and gradients within float32
rounding, with the edge cases of the kernel's loops (one step, one batch row, a hidden
size that is not a multiple of the 8 SIMD lanes, two layers, both directions, initial
states given). The float32 LSTM/RNN steps also run their products on the packed AVX2
kernel (kernels/rnn_gemm.rs: blocks of up to 6 rows, 16-column panels): the cases below
include batches cut into uneven row blocks (7 = 4 + 3, 5), gate widths that end in a
short panel, and a batch large enough to be split over the pool's threads."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def _grads(layer, x, hx):
    for p in layer.parameters():
        p.grad = None
    out, fin = layer(x, hx)
    states = fin if isinstance(fin, tuple) else (fin,)
    loss = (out * out).sum() + sum((s * s * 0.5).sum() for s in states)
    loss.backward()
    vals = [out.numpy()] + [s.numpy() for s in states]
    return vals + [p.grad.numpy() for p in layer.parameters()] + [x.grad.numpy()]


@pytest.mark.parametrize(
    "cls,steps,batch,hidden,kw,given",
    [
        (nn.LSTM, 1, 1, 13, {}, False),
        (nn.LSTM, 7, 3, 13, {"num_layers": 2, "bidirectional": True}, True),
        (nn.LSTM, 5, 1, 8, {}, True),
        (nn.LSTM, 4, 9, 33, {"num_layers": 2}, False),
        (nn.GRU, 6, 2, 11, {"bidirectional": True}, True),
        (nn.RNN, 6, 2, 11, {"num_layers": 2}, True),
        (nn.LSTM, 2, 7, 1, {}, True),
        (nn.RNN, 3, 5, 25, {"bidirectional": True}, True),
        (nn.RNN, 3, 5, 48, {"nonlinearity": "relu"}, False),
        # 4H = 520 (32 panels + 8 columns), batch 16 split over threads (B*4H*H >= 2^20)
        (nn.LSTM, 3, 16, 130, {"bidirectional": True}, True),
    ],
)
def test_float32_matches_float64_within_float32_rounding(cls, steps, batch, hidden, kw, given):
    rng = np.random.default_rng(5)
    # large enough inputs that the gates reach both of tanh's branches (|x| < 0.9, above)
    xa = rng.standard_normal((steps, batch, 6)) * 2.0
    layer64 = cls(6, hidden, dtype="float64", **kw)
    layer32 = cls(6, hidden, dtype="float32", **kw)
    with fg.no_grad():
        for p32, p64 in zip(layer32.parameters(), layer64.parameters()):
            p64.mul_(3.0)  # gate pre-activations of a few units, not only near 0
            p32.copy_(p64.float())
    n = layer64.num_layers * (2 if kw.get("bidirectional") else 1)
    hx64 = hx32 = None
    if given:
        h = rng.standard_normal((n, batch, hidden)) * 0.5
        if cls is nn.LSTM:
            c = rng.standard_normal((n, batch, hidden)) * 0.5
            hx64 = (fg.tensor(h, dtype="float64"), fg.tensor(c, dtype="float64"))
            hx32 = (fg.tensor(h, dtype="float32"), fg.tensor(c, dtype="float32"))
        else:
            hx64, hx32 = fg.tensor(h, dtype="float64"), fg.tensor(h, dtype="float32")
    x64 = fg.tensor(xa, dtype="float64", requires_grad=True)
    x32 = fg.tensor(xa, dtype="float32", requires_grad=True)
    got = _grads(layer32, x32, hx32)
    want = _grads(layer64, x64, hx64)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        scale = max(np.abs(w).max(), 1.0)
        np.testing.assert_allclose(g, w, rtol=0, atol=2e-5 * scale)
