"""Memory and time of one training step of a deep tanh MLP under each way of keeping
what forward saves for backward (issues 5 and 22), ferrograd and PyTorch side by side.

Model: ``layers`` x (Linear(width, width) + tanh), loss = mean of the output. Each
strategy runs in its own process, so every peak is its own:

* ``plain``: saved tensors stay in memory;
* ``ckpt1`` / ``ckpt5``: ``utils.checkpoint`` around every layer / every 5 layers;
* ``bf16``: ``autograd.graph.save_compressed("bfloat16")``;
* ``lossless``: ``autograd.graph.save_lossless()`` (tanh outputs are dense: little gain);
* ``disk``: ``autograd.graph.save_on_disk()``;
* ``budget``: regions of 5 layers under ``memory_budget`` of half the activations'
  bytes (the first regions stay in memory, the later ones recompute);
* ``torch-plain`` / ``torch-ckpt1`` / ``torch-ckpt5``: the same model in PyTorch with
  ``torch.utils.checkpoint`` (non-reentrant), when torch is installed.

Reported per strategy, in MB above the baseline (parameters, their gradients and the
input allocated; ferrograd's buffer cache emptied and glibc's free heap trimmed before):
``held`` = what the forward keeps for backward (RSS after the forward, heap trimmed),
``peak`` = peak RSS during that forward + backward (the kernel's VmHWM, reset at the
step's start); and the median step time over ``--steps`` steps after one warm-up step
(measured separately from the memory step). Usage:
``python benches/saved_rss.py [--layers 20] [--width 1024] [--batch 256 4096] [--steps 3]``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import resource
import statistics
import subprocess
import sys
import time

FG_MODES = ("plain", "ckpt1", "ckpt5", "bf16", "lossless", "disk", "budget")
TORCH_MODES = ("torch-plain", "torch-ckpt1", "torch-ckpt5")


def _rss_now_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _regions(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _fg_step(mode: str, layers: int, width: int, batch: int):
    import ferrograd as fg
    from ferrograd.autograd import graph
    from ferrograd.utils.checkpoint import checkpoint

    fg.seed(0)
    ws = [(fg.randn(width, width) * (1.0 / width**0.5)).requires_grad_() for _ in range(layers)]
    bs = [fg.zeros(width).requires_grad_() for _ in range(layers)]
    x = fg.randn(batch, width)
    for p in ws + bs:  # gradient buffers exist before we measure
        p.grad = fg.zeros(list(p.shape))

    def run(h, idx):
        for i in idx:
            h = (h @ ws[i] + bs[i]).tanh()
        return h

    size = {"ckpt1": 1, "ckpt5": 5, "budget": 5}.get(mode)
    hooks = {"bf16": lambda: graph.save_compressed("bfloat16"), "disk": graph.save_on_disk}
    hooks["lossless"] = graph.save_lossless
    hooks["budget"] = lambda: graph.memory_budget(layers * batch * width * 4 // 2)

    def forward():
        with hooks[mode]() if mode in hooks else contextlib.nullcontext():
            h = x
            for r in _regions(layers, size or layers):
                h = checkpoint(run, h, r) if size else run(h, r)
            return h.mean()

    return forward, lambda loss: loss.backward()


def _torch_step(mode: str, layers: int, width: int, batch: int):
    import torch
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    ws = [(torch.randn(width, width) / width**0.5).requires_grad_() for _ in range(layers)]
    bs = [torch.zeros(width).requires_grad_() for _ in range(layers)]
    x = torch.randn(batch, width)
    for p in ws + bs:
        p.grad = torch.zeros_like(p)

    def run(h, idx):
        for i in idx:
            h = (h @ ws[i] + bs[i]).tanh()
        return h

    size = {"torch-ckpt1": 1, "torch-ckpt5": 5}.get(mode)

    def forward():
        h = x
        for r in _regions(layers, size or layers):
            h = checkpoint(run, h, r, use_reentrant=False) if size else run(h, r)
        return h.mean()

    return forward, lambda loss: loss.backward()


def _libc_trim() -> None:
    """Returns freed heap memory to the kernel (glibc), so RSS shows live memory only."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _reset_peak() -> bool:
    """Resets the kernel's peak-RSS mark (VmHWM) of this process; False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _hwm_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return _peak_mb()


def child(mode: str, layers: int, width: int, batch: int, steps: int) -> dict:
    torch_mode = mode.startswith("torch")
    make = _torch_step if torch_mode else _fg_step
    forward, backward = make(mode, layers, width, batch)
    times = []
    for _ in range(steps + 1):  # the first step warms up
        t0 = time.perf_counter()
        backward(forward())
        times.append(time.perf_counter() - t0)
    # one more step for memory: base = parameters, gradients and input only
    if not torch_mode:
        import ferrograd as fg

        fg.empty_buffer_cache()
    _libc_trim()
    exact_peak = _reset_peak()
    base = _rss_now_mb()
    loss = forward()
    _libc_trim()
    held = _rss_now_mb() - base
    backward(loss)
    peak = (_hwm_mb() if exact_peak else _peak_mb()) - base
    return {
        "mode": mode,
        "baseline_mb": base,
        "held_mb": held,
        "peak_mb": peak,
        "step_s": statistics.median(times[1:]),
    }


def timing(modes: list, layers: int, width: int, batch: int, rounds: int) -> dict:
    """Median step time per strategy, all in this process and interleaved round by round
    (A B C A B C ...), so that a change in machine load hits every strategy alike."""
    steps = {}
    for m in modes:
        make = _torch_step if m.startswith("torch") else _fg_step
        forward, backward = make(m, layers, width, batch)
        backward(forward())  # warm-up
        steps[m] = (forward, backward)
    times: dict[str, list] = {m: [] for m in modes}
    for _ in range(rounds):
        for m in modes:
            forward, backward = steps[m]
            t0 = time.perf_counter()
            backward(forward())
            times[m].append(time.perf_counter() - t0)
    return {m: statistics.median(t) for m, t in times.items()}


def _have_torch() -> bool:
    try:
        import torch  # noqa: F401
    except Exception:
        return False
    return True


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--layers", type=int, default=20)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, nargs="+", default=[256, 4096])
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--modes", nargs="+", default=None, help="subset of the strategies")
    p.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="also time all strategies interleaved in one process, this many rounds",
    )
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--timing-child", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.layers, a.width, a.batch[0], a.steps)))
        return
    if a.timing_child:
        args = (a.timing_child, a.layers, a.width, a.batch[0], a.rounds)
        print(json.dumps(timing(*args)))
        return
    modes = a.modes or list(FG_MODES) + (list(TORCH_MODES) if _have_torch() else [])
    if not _have_torch():
        print("(torch is not installed: PyTorch columns skipped)")
    for batch in a.batch:
        act_mb = a.layers * batch * a.width * 4 / 2**20
        print(
            f"\n{a.layers} x (Linear({a.width}) + tanh), batch {batch}, float32 "
            f"(one activation per layer = {act_mb:.0f} MB in all)"
        )
        print(f"  {'strategy':<12} {'held MB':>8} {'peak MB':>8} {'step s':>7}  vs plain")
        ref: dict[str, dict] = {}
        for mode in modes:
            cmd = [sys.executable, __file__, "--child", mode, "--layers", str(a.layers)]
            cmd += ["--width", str(a.width), "--batch", str(batch), "--steps", str(a.steps)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                print(f"  {mode:<12} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            key = "torch-plain" if mode.startswith("torch") else "plain"
            ref.setdefault(key, r)
            b = ref[key]
            print(
                f"  {mode:<12} {r['held_mb']:8.0f} {r['peak_mb']:8.0f} {r['step_s']:7.3f}  "
                f"held {100 * (r['held_mb'] / max(b['held_mb'], 1e-9) - 1):+.0f} %, "
                f"peak {100 * (r['peak_mb'] / max(b['peak_mb'], 1e-9) - 1):+.0f} %, "
                f"time x{r['step_s'] / b['step_s']:.2f}"
            )
        if a.rounds:
            cmd = [sys.executable, __file__, "--timing-child", *modes, "--layers", str(a.layers)]
            cmd += ["--width", str(a.width), "--batch", str(batch), "--rounds", str(a.rounds)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                print(f"  interleaved timing failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            t = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"  interleaved step times, median of {a.rounds} rounds in one process:")
            for mode in modes:
                b = t["torch-plain" if mode.startswith("torch") else "plain"]
                print(f"  {mode:<12} {t[mode]:7.3f} s  x{t[mode] / b:.2f}")


if __name__ == "__main__":
    main()
