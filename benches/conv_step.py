"""Convolution workloads for ``compare.py``, the same in ferrograd and in PyTorch:

- ``conv2d_3x3_64_fwdbwd_ms``: ResNet-style 3x3 convolution, 64 -> 64 channels, 32x32,
  batch 32, padding 1, float32: forward, ``sum()``, backward (input, weight, bias grads);
- ``depthwise3x3_fwdbwd_ms``: the same with ``groups=64`` (depthwise);
- ``digits_cnn_step_ms``: one training step (forward, cross-entropy, backward, Adam) of
  the CNN demo's model (``ferrograd._demo_cnn.make_model``) on a batch of 64 8x8 images.

Each factory takes ``(np, rng)`` and returns a step function.
"""

from __future__ import annotations

from typing import Any, Callable

CONV = dict(batch=32, channels=64, size=32)


def _conv_data(np: Any, rng: Any, depthwise: bool) -> tuple:
    c = CONV["channels"]
    x = rng.standard_normal((CONV["batch"], c, CONV["size"], CONV["size"])).astype(np.float32)
    w = (rng.standard_normal((c, 1 if depthwise else c, 3, 3)) * 0.1).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    return x, w, b


def ferrograd_conv(depthwise: bool) -> Callable[[Any, Any], Callable[[], Any]]:
    """conv2d forward + backward in ferrograd."""

    def make(np: Any, rng: Any) -> Callable[[], Any]:
        import ferrograd as fg

        xa, wa, ba = _conv_data(np, rng, depthwise)
        x, w, b = (fg.tensor(a, requires_grad=True) for a in (xa, wa, ba))
        groups = CONV["channels"] if depthwise else 1
        conv2d = fg.nn.functional.conv2d

        def step() -> Any:
            y = conv2d(x, w, b, padding=1, groups=groups).sum()
            y.backward()
            x.grad = w.grad = b.grad = None
            return y

        return step

    return make


def torch_conv(depthwise: bool) -> Callable[[Any, Any], Callable[[], Any]]:
    """conv2d forward + backward in PyTorch."""

    def make(np: Any, rng: Any) -> Callable[[], Any]:
        import torch

        xa, wa, ba = _conv_data(np, rng, depthwise)
        x, w, b = (torch.tensor(a, requires_grad=True) for a in (xa, wa, ba))
        groups = CONV["channels"] if depthwise else 1
        conv2d = torch.nn.functional.conv2d

        def step() -> Any:
            y = conv2d(x, w, b, padding=1, groups=groups).sum()
            y.backward()
            x.grad = w.grad = b.grad = None
            return y

        return step

    return make


def _digits_batch(np: Any, rng: Any) -> tuple:
    x = rng.uniform(0, 1, (64, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    return x, y


def ferrograd_digits_step(np: Any, rng: Any) -> Callable[[], Any]:
    """The CNN demo's training step in ferrograd."""
    import ferrograd as fg
    from ferrograd._demo_cnn import make_model

    fg.seed(0)
    model = make_model()
    xa, ya = _digits_batch(np, rng)
    x, y = fg.tensor(xa), fg.tensor(ya)
    opt = fg.optim.Adam(model.parameters(), lr=3e-3)
    ce = fg.nn.functional.cross_entropy

    def step() -> Any:
        loss = ce(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def torch_digits_step(np: Any, rng: Any) -> Callable[[], Any]:
    """The same step in PyTorch."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )
    xa, ya = _digits_batch(np, rng)
    x, y = torch.from_numpy(xa), torch.from_numpy(ya)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    ce = nn.functional.cross_entropy

    def step() -> Any:
        loss = ce(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def main() -> None:
    """Times the three workloads in ferrograd and PyTorch, interleaved in one process
    (the order alternating per round; medians of ``--rounds`` rounds, wall time per step,
    or CPU time with ``--cpu``, steadier on a loaded machine with one thread each), and
    prints the ratios:

        python benches/conv_step.py [--threads N] [--rounds R] [--cpu] [conv depthwise digits]

    ``compare.py``'s conv rows run the same step functions (float32, NCHW, bias, all
    three gradients), but each library in its own process one after the other, on the
    threads ``--threads`` gives them (2 in the README): its ratios agree with this
    script's only at the same thread count and on a quiet machine.
    """
    import argparse
    import os
    import statistics
    import time

    p = argparse.ArgumentParser(description="conv workloads, ferrograd vs PyTorch")
    p.add_argument("--threads", type=int, default=None, help="threads for both libraries")
    p.add_argument("--rounds", type=int, default=7, help="timed rounds per library")
    p.add_argument("--cpu", action="store_true", help="CPU time (process_time), not wall")
    p.add_argument("which", nargs="*", default=["conv", "depthwise", "digits"])
    args = p.parse_args()
    if args.threads:
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    cases = {
        "conv": (ferrograd_conv(False), torch_conv(False), 5),
        "depthwise": (ferrograd_conv(True), torch_conv(True), 20),
        "digits": (ferrograd_digits_step, torch_digits_step, 200),
    }
    for name in args.which:
        make_fg, make_torch, reps = cases[name]
        steps = [make_fg(np, np.random.default_rng(0)), make_torch(np, np.random.default_rng(0))]
        times: list[list[float]] = [[], []]
        clock = time.process_time if args.cpu else time.perf_counter
        for s in steps:
            s()
        for r in range(args.rounds):
            for i in (0, 1) if r % 2 == 0 else (1, 0):
                t0 = clock()
                for _ in range(reps):
                    steps[i]()
                times[i].append((clock() - t0) / reps * 1e3)
        a, b = (statistics.median(v) for v in times)
        print(f"{name:10s} ferrograd {a:8.2f} ms  torch {b:8.2f} ms  ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
