#!/usr/bin/env python3
"""Everyday ops on large tensors, ferrograd beside PyTorch: a sweep for ops that fall
short of memory bandwidth (issue 23; docs/performance-memory-bound.md).

Each library runs in its own process, one after the other, 2 threads, best of
``--repeat`` calls per op after one warm-up; the table gives milliseconds and the ratio
ferrograd / PyTorch (above 1: ferrograd slower). The two runs do not see the same load;
run it on a quiet machine, or read only large ratios.

    PYTHONPATH=python python3 benches/ops_sweep.py --python-torch /path/to/python-with-torch
    python3 benches/ops_sweep.py --lib ferrograd        # one library, JSON (internal)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any, Callable

N = 4096


def make_ops(lib: str) -> dict[str, Callable[[], Any]]:
    """The ops, on 4096 x 4096 float32 inputs (and a few image / embedding shapes)."""
    import numpy as np

    if lib == "torch":
        import torch as T

        T.set_num_threads(2)
    else:
        import ferrograd as T
    F = T.nn.functional
    rng = np.random.default_rng(0)
    a = T.from_numpy(rng.standard_normal((N, N)).astype(np.float32))
    b = T.from_numpy(rng.standard_normal((N, N)).astype(np.float32))
    pos = T.from_numpy(np.abs(rng.standard_normal((N, N))).astype(np.float32) + 0.1)
    idx = T.from_numpy(rng.integers(0, N, N).astype(np.int64))
    gidx = T.from_numpy(rng.integers(0, N, (N, N)).astype(np.int64))
    emb = T.from_numpy(rng.standard_normal((50000, 256)).astype(np.float32))
    tok = T.from_numpy(rng.integers(0, 50000, (64, 512)).astype(np.int64))
    lab = T.from_numpy(rng.integers(0, N, N).astype(np.int64))
    img = T.from_numpy(rng.standard_normal((32, 64, 64, 64)).astype(np.float32))
    w, bias = T.ones(N), T.zeros(N)
    out = T.zeros(N, N)
    return {
        "sum": lambda: a.sum(),
        "sum(1)": lambda: a.sum(1),
        "sum(0)": lambda: a.sum(0),
        "mean": lambda: a.mean(),
        "norm": lambda: a.norm(),
        "std": lambda: a.std(),
        "max(1)": lambda: a.max(1),
        "argmax(1)": lambda: a.argmax(1),
        "logsumexp(1)": lambda: a.logsumexp(1),
        "a + b": lambda: a + b,
        "a * 2.0": lambda: a * 2.0,
        "a + b[0]": lambda: a + b[0],
        "where": lambda: T.where(a > 0, a, b),
        "clamp": lambda: a.clamp(-0.5, 0.5),
        "abs": lambda: a.abs(),
        "exp": lambda: a.exp(),
        "log": lambda: pos.log(),
        "sqrt": lambda: pos.sqrt(),
        "tanh": lambda: a.tanh(),
        "sigmoid": lambda: a.sigmoid(),
        "erf": lambda: T.erf(a),
        "relu": lambda: F.relu(a),
        "gelu": lambda: F.gelu(a),
        "gelu tanh": lambda: F.gelu(a, approximate="tanh"),
        "silu": lambda: F.silu(a),
        "pow(2)": lambda: a.pow(2),
        "pow(3)": lambda: a.pow(3),
        "pow(0.5)": lambda: pos.pow(0.5),
        "pow(2.5)": lambda: pos.pow(2.5),
        "softmax": lambda: F.softmax(a, -1),
        "log_softmax": lambda: F.log_softmax(a, -1),
        "layer_norm": lambda: F.layer_norm(a, (N,), w, bias),
        "cross_entropy": lambda: F.cross_entropy(a, lab),
        "t().contiguous()": lambda: a.t().contiguous(),
        "permute(0,2,1)": lambda: a.reshape(64, 64, N).permute(0, 2, 1).contiguous(),
        "permute(2,0,1)": lambda: a.reshape(64, 64, N).permute(2, 0, 1).contiguous(),
        "a.t() + b": lambda: a.t() + b,
        "a.t().exp()": lambda: a.t().exp(),
        "out.t().copy_(a)": lambda: out.t().copy_(a),
        "index_select(0)": lambda: a.index_select(0, idx),
        "gather(1)": lambda: a.gather(1, gidx),
        "embedding": lambda: F.embedding(tok, emb),
        "interpolate nearest": lambda: F.interpolate(img, scale_factor=2, mode="nearest"),
        "max_pool2d": lambda: F.max_pool2d(img, 2),
        "avg_pool2d": lambda: F.avg_pool2d(img, 2),
        "cat(0)": lambda: T.cat([a, b], 0),
        "cat(1)": lambda: T.cat([a, b], 1),
        "stack": lambda: T.stack([a, b]),
        "flip(0)": lambda: a.flip(0),
        "roll": lambda: a.roll(5, 1),
        "tril": lambda: a.tril(),
        "masked_select": lambda: a[a > 1.0],
        "sort(1)": lambda: a.sort(1),
        "topk(10, 1)": lambda: a.topk(10, 1),
        "cumsum(1)": lambda: a.cumsum(1),
    }


def run_lib(lib: str, repeat: int, only: list[str]) -> dict[str, float | str]:
    """Best-of-``repeat`` milliseconds per op (an error's text where the op failed); only
    the ops named in ``only`` when it is not empty."""
    res: dict[str, float | str] = {}
    for name, f in make_ops(lib).items():
        if only and name not in only:
            continue
        try:
            f()
            best = float("inf")
            for _ in range(repeat):
                t = time.perf_counter()
                f()
                best = min(best, time.perf_counter() - t)
            res[name] = best * 1e3
        except Exception as e:  # noqa: BLE001 - a missing op is reported, not fatal
            res[name] = f"{type(e).__name__}: {e}"[:60]
    return res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lib", choices=["ferrograd", "torch"])
    p.add_argument("--python-torch", default=sys.executable)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument(
        "--only", action="append", default=[], help="run only this op (repeatable), e.g. 'gelu'"
    )
    a = p.parse_args()
    if a.lib:
        print(json.dumps(run_lib(a.lib, a.repeat, a.only)))
        return
    got = {}
    for lib, py in (("ferrograd", sys.executable), ("torch", a.python_torch)):
        cmd = [py, __file__, "--lib", lib, "--repeat", str(a.repeat)]
        cmd += [arg for name in a.only for arg in ("--only", name)]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        got[lib] = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()}")
    print(f"{'op':22} {'ferrograd ms':>13} {'torch ms':>10} {'ratio':>7}")
    for name, x in got["ferrograd"].items():
        y = got["torch"].get(name)
        if isinstance(x, float) and isinstance(y, float):
            print(f"{name:22} {x:13.2f} {y:10.2f} {x / y:7.2f}")
        else:
            print(f"{name:22} {x!s:>13} {y!s:>10}")


if __name__ == "__main__":
    main()
