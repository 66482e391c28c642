"""The peers' side of ``examples/gemm_candidates.rs``: GFLOP/s of NumPy (its BLAS, usually
OpenBLAS), PyTorch (where installed) and ferrograd's ``matmul`` from Python on the same
shapes and layouts, the best of ``rounds`` calls each, the libraries interleaved call by
call so that a busy machine slows them alike.

    python benches/gemm_candidates.py [rounds]

Run ``cargo run --release --example gemm_candidates`` for the Rust candidates (the
``gemm`` crate with and without its threading, ferrograd's tiled entry point, ``faer``).
"""

from __future__ import annotations

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


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    libs: list[Any] = [np]
    try:
        import torch

        libs.append(torch)
    except ImportError:
        pass
    import ferrograd

    libs.append(ferrograd)
    names = [getattr(lib, "__name__", "?") for lib in libs]
    print(f"GFLOP/s, best of {rounds} interleaved calls: {', '.join(names)}")
    for dtype, shapes in ((np.float32, SHAPES), (np.float64, SHAPES[:3])):
        for m, k, n, layout in shapes:
            a, b = _operands(m, k, n, layout, dtype)
            fns = [_product(lib, a, b, layout) for lib in libs]
            best = [float("inf")] * len(fns)
            for _ in range(rounds):
                for i, f in enumerate(fns):
                    t = time.perf_counter()
                    f()
                    best[i] = min(best[i], time.perf_counter() - t)
            flop = 2.0 * m * k * n
            cells = ", ".join(f"{nm} {flop / s / 1e9:.1f}" for nm, s in zip(names, best))
            print(f"{np.dtype(dtype).name} {m}x{k}x{n} {layout}: {cells}")


if __name__ == "__main__":
    main()
