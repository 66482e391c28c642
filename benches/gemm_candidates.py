"""The peers' side of ``examples/gemm_candidates.rs``: GFLOP/s of NumPy (its BLAS, usually
OpenBLAS), PyTorch (where installed) and ferrograd's ``matmul`` from Python on the same
shapes and layouts, the best of ``rounds`` calls each, each library in its own process
(in one process, OpenBLAS's threads spin for a while after each call and slow whatever
library runs next: PyTorch measured 6-20 GFLOP/s on the MLP's shapes that way).

    python benches/gemm_candidates.py [rounds]

Run ``cargo run --release --example gemm_candidates`` for the Rust candidates (the
``gemm`` crate with and without its threading, ferrograd's tiled entry point, ``faer``).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from typing import Any, Callable

import numpy as np

# (m, k, n, layout): NN is a @ b, NT is a @ b.T, TN is a.T @ b (as in the Rust example)
SHAPES = [
    (64, 64, 64, "NN"),
    (1024, 1024, 1024, "NN"),
    (256, 1024, 1024, "NN"),
    (256, 1024, 1024, "NT"),
    (1024, 256, 1024, "TN"),
    (128, 784, 256, "NN"),
    (784, 128, 256, "TN"),
    (128, 256, 784, "NT"),
    (128, 256, 10, "NN"),
    (32, 256, 1024, "NN"),
    (64, 1024, 4096, "NN"),
]


def _operands(m: int, k: int, n: int, layout: str, dtype: Any) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((k, m) if layout == "TN" else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if layout == "NT" else (k, n)).astype(dtype)
    return a, b


def _product(lib: Any, a: Any, b: Any, layout: str) -> Callable[[], Any]:
    if lib is np:
        x, y = a, b
    elif lib.__name__ == "torch":
        x, y = lib.from_numpy(a), lib.from_numpy(b)
    else:
        x, y = lib.to_tensor(a), lib.to_tensor(b)
    if layout == "TN":
        x = x.T
    if layout == "NT":
        y = y.T
    return lambda: x @ y


def _run(lib_name: str, rounds: int) -> dict[str, float]:
    """GFLOP/s of ``lib_name`` on every case, in this process."""
    if lib_name == "numpy":
        lib: Any = np
    else:
        lib = importlib.import_module(lib_name)
    out = {}
    for dtype, shapes in ((np.float32, SHAPES), (np.float64, SHAPES[:3])):
        for m, k, n, layout in shapes:
            a, b = _operands(m, k, n, layout, dtype)
            f = _product(lib, a, b, layout)
            best = float("inf")
            for _ in range(rounds):
                t = time.perf_counter()
                f()
                best = min(best, time.perf_counter() - t)
            out[f"{np.dtype(dtype).name} {m}x{k}x{n} {layout}"] = 2.0 * m * k * n / best / 1e9
    return out


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(_run(sys.argv[2], int(sys.argv[3]))))
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    names = ["numpy", "torch", "ferrograd"]
    results = {}
    for name in names:
        r = subprocess.run(
            [sys.executable, __file__, "--child", name, str(rounds)], capture_output=True, text=True
        )
        if r.returncode == 0:
            results[name] = json.loads(r.stdout.strip().splitlines()[-1])
    print(
        f"GFLOP/s, best of {rounds} calls, each library in its own process; load {os.getloadavg()}"
    )
    for case in results["numpy"]:
        cells = ", ".join(f"{nm} {res[case]:.1f}" for nm, res in results.items())
        print(f"{case}: {cells}")


if __name__ == "__main__":
    main()
