#!/usr/bin/env python3
"""Micro-benchmark of the fused network ops: forward + backward of ``F.layer_norm``,
``F.cross_entropy``, ``F.dropout``, ``F.gelu(approximate="tanh")`` and ``F.linear``, each
on a small and a large float32 input. Prints one line per case (median µs per step).

Run it against two builds to compare (e.g. the package before and after a change):

    python benches/fused_ops.py
    PYTHONPATH=/tmp/before/python python benches/fused_ops.py
"""

from __future__ import annotations

import statistics
import time

import ferrograd as fg
import numpy as np

F = fg.nn.functional


def bench(step, reps: int) -> float:
    for _ in range(3):
        step()
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(reps):
            step()
        times.append((time.perf_counter() - t0) / reps)
    return statistics.median(times) * 1e6


def cases(n: int, d: int):
    rng = np.random.default_rng(0)
    x = fg.tensor(rng.normal(size=(n, d)).astype(np.float32), requires_grad=True)
    w = fg.tensor(rng.normal(size=d).astype(np.float32), requires_grad=True)
    b = fg.tensor(rng.normal(size=d).astype(np.float32), requires_grad=True)
    lin_w = fg.tensor(rng.normal(size=(d, d)).astype(np.float32), requires_grad=True)
    t = fg.tensor(rng.integers(0, d, size=n))

    def run(f):
        def step():
            f().sum().backward()
            x.grad = None
            for p in (w, b, lin_w):
                p.grad = None

        return step

    return {
        "layer_norm": run(lambda: F.layer_norm(x, [d], w, b)),
        "cross_entropy": run(lambda: F.cross_entropy(x, t)),
        "dropout": run(lambda: F.dropout(x, 0.1)),
        "gelu_tanh": run(lambda: F.gelu(x, approximate="tanh")),
        "linear": run(lambda: F.linear(x, lin_w, b)),
    }


def main() -> None:
    for label, (n, d), reps in [("small 4x16", (4, 16), 2000), ("large 256x512", (256, 512), 50)]:
        for name, step in cases(n, d).items():
            print(f"{name:14s} {label:14s} {bench(step, reps):10.1f} us")


if __name__ == "__main__":
    main()
