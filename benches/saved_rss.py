"""Memory and time of one training step under each way of keeping what forward saves
for backward (issues 5 and 22), ferrograd and PyTorch side by side.

Models (``--model``):

* ``mlp``: ``layers`` x (Linear(width, width) + tanh), loss = mean of the output, at each
  ``--batch``;
* ``encoder``: ``nn.TransformerEncoder`` of 4 ``TransformerEncoderLayer(256, nhead=4,
  dim_feedforward=1024, dropout=0.0, batch_first=True)`` on a ``[16, 128, 256]`` input
  (the encoder of issue 20), loss = mean of the squared output.

Strategies; each runs in its own process, so every peak is its own:

* ``plain``: saved tensors stay in memory;
* ``ckpt1`` / ``ckpt5``: ``utils.checkpoint`` around every layer / every 5 layers (MLP);
* ``bf16``: ``autograd.graph.save_compressed("bfloat16")``;
* ``lossless``: ``autograd.graph.save_lossless()`` (tanh outputs are dense: little gain);
* ``disk``: ``autograd.graph.save_on_disk()``;
* ``budget``: the regions of ``ckpt5`` (MLP) / ``ckpt1`` (encoder) under
  ``memory_budget`` of half of what the plain forward saves (the first regions stay in
  memory, the later ones recompute);
* ``torch-plain`` / ``torch-ckpt1`` / ``torch-ckpt5``: the same model in PyTorch with
  ``torch.utils.checkpoint`` (non-reentrant); ``torch-bf16``: PyTorch with
  ``saved_tensors_hooks`` casting float32 saves to bfloat16 and back (PyTorch has no
  built-in compressing hook), when torch is installed.

Reported per strategy, in MB above the baseline (parameters, their gradients and the
input allocated; ferrograd's buffer cache emptied and glibc's free heap trimmed before):
``held`` = what the forward keeps for backward (RSS after the forward, heap trimmed,
ferrograd's buffer cache not counted: free buffers kept for reuse, reported as
``cache``), ``peak`` = peak RSS during that forward + backward (the kernel's VmHWM, reset
at the step's start; everything counted, the cache included); and the median step time
over ``--steps`` steps after one warm-up step (measured separately from the memory
step; ``--steps 0``: memory only, after the warm-up step). ``--rounds N`` also times every strategy interleaved in one process (ratios to
plain that survive a changing machine load). The whole table, torch included (PyTorch
runs when the interpreter can import it, e.g. a venv with torch and ferrograd on
``PYTHONPATH``): ``python benches/saved_rss.py --steps 1 --rounds 2``. Usage:
``python benches/saved_rss.py [--model mlp encoder] [--layers 20] [--width 1024]
[--batch 256 4096] [--steps 3] [--rounds 0] [--modes ...]``.

``--count N`` (ferrograd modes only) instead counts the instructions of one step with
``valgrind --tool=callgrind`` (``RAYON_NUM_THREADS=1``), which no machine load changes:
each mode runs in its own process, one warm-up step and then N steps, with callgrind
dumping its counters at every step boundary; the median step is reported, with the
ratio to plain. The mode ``fwd`` counts the plain forward alone (grad mode on, graph
freed unused), so ``plain + fwd`` is what a step that recomputes every layer once would
cost with no overhead. ``--count 2 --modes plain fwd ckpt5 ckpt1`` takes about 5 minutes
of one core at batch 256 (far more under load).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

FG_MODES = ("plain", "ckpt1", "ckpt5", "bf16", "lossless", "disk", "budget")
TORCH_MODES = ("torch-plain", "torch-ckpt1", "torch-ckpt5", "torch-bf16")
# the encoder has 4 layers: regions of 5 would be one region around the whole model
ENCODER_MODES = ("plain", "ckpt1", "bf16", "budget", "torch-plain", "torch-ckpt1", "torch-bf16")
ENC_D, ENC_HEADS, ENC_FF, ENC_LAYERS, ENC_SEQ, ENC_BATCH = 256, 4, 1024, 4, 128, 16


def _rss_now_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _regions(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _saved_bytes(fg, forward) -> int:
    """Bytes the forward saves for backward as ``memory_budget`` counts them (each
    tensor once, parameters not counted; one dry run)."""
    n = 0

    def pack(t):
        nonlocal n
        n += t.numel() * t.element_size()
        return t

    hooks = fg.autograd.graph.saved_tensors_hooks(pack, lambda t: t)
    hooks._pack_once = hooks._keep_leaves = True
    with hooks:
        forward()
    return n


def _model(lib, model: str, layers: int, width: int, batch: int):
    """The model's layers (callables from tensor to tensor) and its input, in ``lib``."""
    lib.manual_seed(0)
    if model == "encoder":
        layer = lib.nn.TransformerEncoderLayer(
            ENC_D, ENC_HEADS, ENC_FF, dropout=0.0, batch_first=True
        )
        extra = {"enable_nested_tensor": False} if lib.__name__ == "torch" else {}
        enc = lib.nn.TransformerEncoder(layer, ENC_LAYERS, **extra)
        params = list(enc.parameters())
        x = lib.randn(ENC_BATCH, ENC_SEQ, ENC_D)
        fns = list(enc.layers)
    else:
        ws = [
            (lib.randn(width, width) * (1.0 / width**0.5)).requires_grad_() for _ in range(layers)
        ]
        bs = [lib.zeros(width).requires_grad_() for _ in range(layers)]
        params = ws + bs
        x = lib.randn(batch, width)
        fns = [lambda h, w=w, b=b: (h @ w + b).tanh() for w, b in zip(ws, bs)]
    for p in params:  # gradient buffers exist before we measure
        p.grad = lib.zeros(list(p.shape))
    return fns, x


def _seq(chunk):
    def run(h):
        for f in chunk:
            h = f(h)
        return h

    return run


def _loss(model: str, h):
    return h.square().mean() if model == "encoder" else h.mean()


def _fg_step(mode: str, model: str, layers: int, width: int, batch: int):
    import ferrograd as fg
    from ferrograd.autograd import graph
    from ferrograd.utils.checkpoint import checkpoint

    fns, x = _model(fg, model, layers, width, batch)
    size = {"ckpt1": 1, "ckpt5": 5, "budget": 1 if model == "encoder" else 5}.get(mode)
    chunks = [_seq(fns[r.start : r.stop]) for r in _regions(len(fns), size or len(fns))]

    def run():
        h = x
        for c in chunks:
            h = checkpoint(c, h) if size else c(h)
        return _loss(model, h)

    hooks = {"bf16": lambda: graph.save_compressed("bfloat16"), "disk": graph.save_on_disk}
    hooks["lossless"] = graph.save_lossless
    if mode == "budget":
        half = _saved_bytes(fg, lambda: _loss(model, _seq(fns)(x))) // 2
        hooks["budget"] = lambda: graph.memory_budget(half)

    def forward():
        with hooks[mode]() if mode in hooks else contextlib.nullcontext():
            return run()

    return forward, lambda loss: loss.backward()


def _torch_step(mode: str, model: str, layers: int, width: int, batch: int):
    import torch
    from torch.utils.checkpoint import checkpoint

    fns, x = _model(torch, model, layers, width, batch)
    size = {"torch-ckpt1": 1, "torch-ckpt5": 5}.get(mode)
    chunks = [_seq(fns[r.start : r.stop]) for r in _regions(len(fns), size or len(fns))]

    def pack(t):
        if t.dtype == torch.float32:
            return t.to(torch.bfloat16), t.dtype
        return t, None

    def unpack(p):
        t, dtype = p
        return t if dtype is None else t.to(dtype)

    def forward():
        bf16 = mode == "torch-bf16"
        with (
            torch.autograd.graph.saved_tensors_hooks(pack, unpack)
            if bf16
            else contextlib.nullcontext()
        ):
            h = x
            for c in chunks:
                h = checkpoint(c, h, use_reentrant=False) if size else c(h)
            return _loss(model, h)

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


def child(mode: str, model: str, layers: int, width: int, batch: int, steps: int) -> dict:
    torch_mode = mode.startswith("torch")
    make = _torch_step if torch_mode else _fg_step
    forward, backward = make(mode, model, layers, width, batch)
    times = []
    for _ in range(steps + 1):  # the first step warms up (--steps 0: memory only)
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
    cache = 0.0 if torch_mode else fg.buffer_cache_info()["bytes"] / 2**20
    held = _rss_now_mb() - base - cache
    backward(loss)
    peak = (_hwm_mb() if exact_peak else _peak_mb()) - base
    return {
        "mode": mode,
        "baseline_mb": base,
        "held_mb": held,
        "cache_mb": cache,
        "peak_mb": peak,
        "step_s": statistics.median(times[1:]) if steps else float("nan"),
    }


def timing(modes: list, model: str, layers: int, width: int, batch: int, rounds: int) -> dict:
    """Median step time per strategy, all in this process and interleaved round by round
    (A B C A B C ...), so that a change in machine load hits every strategy alike: wall
    seconds and the process's CPU seconds (all threads, kernel time such as page faults
    included; less sensitive to other processes than wall time)."""
    steps = {}
    for m in modes:
        make = _torch_step if m.startswith("torch") else _fg_step
        forward, backward = make(m, model, layers, width, batch)
        backward(forward())  # warm-up
        steps[m] = (forward, backward)
    times: dict[str, list] = {m: [] for m in modes}
    cpu: dict[str, list] = {m: [] for m in modes}
    for _ in range(rounds):
        for m in modes:
            forward, backward = steps[m]
            t0, c0 = time.perf_counter(), time.process_time()
            backward(forward())
            times[m].append(time.perf_counter() - t0)
            cpu[m].append(time.process_time() - c0)
    return {m: (statistics.median(times[m]), statistics.median(cpu[m])) for m in modes}


def count_child(mode: str, model: str, layers: int, width: int, batch: int, n: int) -> None:
    """Runs one warm-up step and ``n`` steps of ``mode``, calling ``os.getppid()`` (the
    marker ``--dump-before=getppid`` makes callgrind dump its counters at) after each."""
    forward, backward = _fg_step("plain" if mode == "fwd" else mode, model, layers, width, batch)
    backward(forward())
    os.getppid()
    for _ in range(n):
        if mode == "fwd":
            forward()  # the graph is freed unused
        else:
            backward(forward())
        os.getppid()


def count(modes: list, model: str, layers: int, width: int, batch: int, n: int) -> dict:
    """Instructions per step of each mode (callgrind, one thread): the median of ``n``
    steps, each one callgrind dump between two step boundaries."""
    out = {}
    env = dict(os.environ, RAYON_NUM_THREADS="1", OMP_NUM_THREADS="1")
    common = ["--model", model, "--layers", str(layers), "--width", str(width)]
    common += ["--batch", str(batch), "--steps", str(n)]
    for mode in modes:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid"]
            cmd += [f"--callgrind-out-file={tmp}/cg", sys.executable, __file__]
            subprocess.run(
                cmd + ["--count-child", mode, *common], env=env, check=True, capture_output=True
            )
            steps = []
            # dump 1 = start-up and warm-up; dumps 2 .. n+1 = one step each
            for k in range(2, n + 2):
                with open(f"{tmp}/cg.{k}") as f:
                    m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
                if m is None:
                    raise RuntimeError(f"no callgrind total in dump {k} of {mode}")
                steps.append(int(m.group(1)))
        out[mode] = statistics.median(steps)
    return out


def _have_torch() -> bool:
    try:
        import torch  # noqa: F401
    except Exception:
        return False
    return True


def _table(a, model: str, batch: int, modes: list) -> None:
    """One model at one batch size: every strategy in its own process, then (with
    ``--rounds``) all of them interleaved in one process."""
    common = ["--model", model, "--layers", str(a.layers), "--width", str(a.width)]
    common += ["--batch", str(batch)]
    if model == "encoder":
        print(
            f"\nTransformerEncoder: {ENC_LAYERS} x TransformerEncoderLayer({ENC_D}, "
            f"nhead={ENC_HEADS}, ff={ENC_FF}), input [{ENC_BATCH}, {ENC_SEQ}, {ENC_D}], float32"
        )
    else:
        act_mb = a.layers * batch * a.width * 4 / 2**20
        print(
            f"\n{a.layers} x (Linear({a.width}) + tanh), batch {batch}, float32 "
            f"(one activation per layer = {act_mb:.0f} MB in all)"
        )
    print(f"  {'strategy':<12} {'held MB':>8} {'peak MB':>8} {'step s':>7}  vs plain")
    ref: dict[str, dict] = {}
    for mode in modes:
        cmd = [sys.executable, __file__, "--child", mode, *common, "--steps", str(a.steps)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            print(f"  {mode:<12} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        key = "torch-plain" if mode.startswith("torch") else "plain"
        ref.setdefault(key, r)
        b = ref[key]
        cache = f" (+{r['cache_mb']:.0f} MB cache)" if r["cache_mb"] >= 1 else ""
        print(
            f"  {mode:<12} {r['held_mb']:8.0f} {r['peak_mb']:8.0f} {r['step_s']:7.3f}  "
            f"held {100 * (r['held_mb'] / max(b['held_mb'], 1e-9) - 1):+.0f} %, "
            f"peak {100 * (r['peak_mb'] / max(b['peak_mb'], 1e-9) - 1):+.0f} %, "
            f"time x{r['step_s'] / b['step_s']:.2f}{cache}"
        )
    if a.rounds:
        cmd = [sys.executable, __file__, "--timing-child", *modes, *common]
        out = subprocess.run(cmd + ["--rounds", str(a.rounds)], capture_output=True, text=True)
        if out.returncode:
            print(f"  interleaved timing failed: {out.stderr.strip().splitlines()[-1:]}")
            return
        t = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  interleaved, median of {a.rounds} rounds in one process: wall s, CPU s")
        for mode in modes:
            (w, c), (bw, bc) = t[mode], t["torch-plain" if mode.startswith("torch") else "plain"]
            print(f"  {mode:<12} {w:7.3f} s  x{w / bw:.2f}   CPU {c:7.3f} s  x{c / bc:.2f}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", nargs="+", choices=["mlp", "encoder"], default=["mlp", "encoder"])
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
    p.add_argument(
        "--count",
        type=int,
        default=0,
        help="count instructions per step under callgrind instead, median of this many steps",
    )
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--count-child", help=argparse.SUPPRESS)
    p.add_argument("--timing-child", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    model = a.model[0]
    if a.child:
        print(json.dumps(child(a.child, model, a.layers, a.width, a.batch[0], a.steps)))
        return
    if a.count_child:
        count_child(a.count_child, model, a.layers, a.width, a.batch[0], a.steps)
        return
    if a.count:
        modes = a.modes or ["plain", "fwd", "ckpt5", "ckpt1", "bf16"]
        if any(m.startswith("torch") for m in modes):
            raise SystemExit("--count measures ferrograd modes only")
        print(f"callgrind, RAYON_NUM_THREADS=1, median of {a.count} steps; instructions per step")
        for batch in a.batch:
            c = count(modes, model, a.layers, a.width, batch, a.count)
            ref = c.get("plain")
            print(f"{model}, batch {batch}")
            for mode in modes:
                rel = f"  x{c[mode] / ref:.3f}" if ref else ""
                print(f"  {mode:<10} {c[mode] / 1e9:8.3f} G{rel}")
            if ref and "fwd" in c:
                print(f"  plain + fwd {(ref + c['fwd']) / 1e9:7.3f} G  x{1 + c['fwd'] / ref:.3f}")
        return
    if a.timing_child:
        args = (a.timing_child, model, a.layers, a.width, a.batch[0], a.rounds)
        print(json.dumps(timing(*args)))
        return
    torch_ok = _have_torch()
    if not torch_ok:
        print("(torch is not installed: PyTorch columns skipped)")
    for model in a.model:
        default = ENCODER_MODES if model == "encoder" else FG_MODES + TORCH_MODES
        modes = a.modes or [m for m in default if torch_ok or not m.startswith("torch")]
        for batch in a.batch if model == "mlp" else [ENC_BATCH]:
            _table(a, model, batch, modes)


if __name__ == "__main__":
    main()
