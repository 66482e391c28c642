"""Recurrent and transformer training steps in ferrograd and in PyTorch, for
``compare.py``'s ``lstm_step_ms`` and ``encoder_step_ms`` workloads (issue #20's speed
table).

- ``lstm_step_ms``: ``nn.LSTM(256, 256, num_layers=2)`` on a ``[64, 32, 256]`` float32
  batch (seq 64, batch 32): forward, ``out.square().mean()``, backward.
- ``encoder_step_ms``: ``nn.TransformerEncoder`` of 4 ``TransformerEncoderLayer(256,
  nhead=4, dim_feedforward=1024, dropout=0.0, batch_first=True)`` on ``[16, 128, 256]``
  (batch 16, seq 128): forward, ``square().mean()``, backward, SGD step.

Each library draws its own initial weights (timing only; no cross-check of values). In
ferrograd the LSTM runs one fused Rust op per layer (time loop and backward through time
in Rust); the encoder's attention is one fused Rust op per layer (memory-saving
backward), the rest a composition of differentiable ops.
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
    layer = lib.nn.TransformerEncoderLayer(ENC_D, ENC_HEADS, ENC_FF, dropout=0.0, batch_first=True)
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


def main(rounds: int = 5, threads: int = 1) -> None:
    """Both libraries' steps interleaved in one process (``threads`` threads each),
    medians printed: fairer than separate runs on a machine whose load changes."""
    import os
    import statistics
    import time

    # ferrograd sizes its pool from this variable when it is first imported
    os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
    import ferrograd as fg
    import numpy as np
    import torch

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    xl = rng.standard_normal((LSTM_SEQ, LSTM_BATCH, LSTM_SIZE)).astype(np.float32)
    xe = rng.standard_normal((ENC_BATCH, ENC_SEQ, ENC_D)).astype(np.float32)
    steps = {
        (lib.__name__, name): make(lib, x)
        for lib in (fg, torch)
        for name, make, x in (
            ("lstm_step_ms", lstm_step, xl),
            ("encoder_step_ms", encoder_step, xe),
        )
    }
    times: dict = {k: [] for k in steps}
    for f in steps.values():
        f()  # warm-up
    for _ in range(rounds):
        for k, f in steps.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    for name in ("lstm_step_ms", "encoder_step_ms"):
        a = statistics.median(times[("ferrograd", name)]) * 1e3
        b = statistics.median(times[("torch", name)]) * 1e3
        print(f"{name}: ferrograd {a:.0f} ms, torch {b:.0f} ms, ratio {a / b:.2f}")


if __name__ == "__main__":
    import sys

    # usage: python benches/sequence_steps.py [ROUNDS] [THREADS]
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 5,
        int(sys.argv[2]) if len(sys.argv) > 2 else 1,
    )
