"""Recurrent and transformer training steps in ferrograd and in PyTorch, for
``compare.py``'s ``lstm_step_ms`` and ``encoder_step_ms`` workloads (issue #20's speed
table).

- ``lstm_step_ms``: ``nn.LSTM(256, 256, num_layers=2)`` on a ``[64, 32, 256]`` float32
  batch (seq 64, batch 32): forward, ``out.square().mean()``, backward.
- ``encoder_step_ms``: ``nn.TransformerEncoder`` of 4 ``TransformerEncoderLayer(256,
  nhead=4, dim_feedforward=1024, dropout=0.0, batch_first=True)`` on ``[16, 128, 256]``
  (batch 16, seq 128): forward, ``square().mean()``, backward, SGD step.

Each library draws its own initial weights (timing only; no cross-check of values). In
ferrograd both layers are compositions of differentiable ops (a Python loop over time
steps for the LSTM), with no fused Rust kernels yet.
"""

from __future__ import annotations

from typing import Any, Callable

LSTM_SIZE, LSTM_LAYERS, LSTM_SEQ, LSTM_BATCH = 256, 2, 64, 32
ENC_D, ENC_HEADS, ENC_FF, ENC_LAYERS, ENC_SEQ, ENC_BATCH = 256, 4, 1024, 4, 128, 16


def lstm_step(lib: Any, x_np: Any) -> Callable[[], Any]:
    """One LSTM forward + backward in ``lib`` (ferrograd or torch)."""
    lstm = lib.nn.LSTM(LSTM_SIZE, LSTM_SIZE, LSTM_LAYERS)
    x = lib.from_numpy(x_np)
    params = list(lstm.parameters())

    def step():
        for p in params:
            p.grad = None
        out, _ = lstm(x)
        loss = out.square().mean()
        loss.backward()
        return loss

    return step


def encoder_step(lib: Any, x_np: Any) -> Callable[[], Any]:
    """One transformer-encoder training step in ``lib`` (ferrograd or torch)."""
    layer = lib.nn.TransformerEncoderLayer(
        ENC_D, ENC_HEADS, ENC_FF, dropout=0.0, batch_first=True
    )
    extra = {"enable_nested_tensor": False} if lib.__name__ == "torch" else {}
    enc = lib.nn.TransformerEncoder(layer, ENC_LAYERS, **extra)
    opt = lib.optim.SGD(enc.parameters(), lr=0.01)
    x = lib.from_numpy(x_np)

    def step():
        opt.zero_grad()
        loss = enc(x).square().mean()
        loss.backward()
        opt.step()
        return loss

    return step
