"""Call cost of the reductions from Python, counted in machine instructions (load-
independent), and the bandwidth of a large ``sum``.

    python benches/reduce_calls.py                   # both figures (needs valgrind)
    python benches/reduce_calls.py --python OTHER    # the same, another interpreter/build
    python benches/reduce_calls.py --bandwidth       # only the 16M float32 sum (GB/s)

Per call: callgrind's total instructions for N = 20,000 calls minus N = 0, over 20,000, on
one thread, for a 1-element float32 tensor: ``x.sum()``, ``x.sum(0)``, ``x.mean()``,
``x.max(0)`` (ferrograd), ``torch.sum`` likewise when run under PyTorch's interpreter with
``--lib torch``. ``--case EXPR`` (repeatable) counts other calls on the same ``x``
instead, e.g. ``--case "x.count_nonzero()" --case "x.reshape([1])"``, and ``--shape 4,6``
makes ``x`` a float32 tensor of that shape (e.g. the shape-table call cost in
``docs/performance.md``: ``--shape 4,6 --case "x.permute(1, 0)" --case "x.transpose(0, 1)"``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

CASES = ["x.sum()", "x.sum(0)", "x.mean()", "x.max(0)"]


def _run_calls(lib: str, case: str, n: int, shape: list[int]) -> None:
    if lib == "torch":
        import torch as m

        torch_case = case.replace("x.max(0)", "x.amax(0)")
        x = m.ones(shape)
        code = compile(torch_case, "<case>", "eval")
    else:
        import ferrograd as m

        x = m.ones(shape)
        code = compile(case, "<case>", "eval")
    env = {"x": x}
    for _ in range(n):
        eval(code, env)


def _instructions(python: str, lib: str, case: str, n: int, shape: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python]
        cmd += [__file__, "--calls", case, str(n), "--lib", lib, "--shape", shape]
        env = {**os.environ, "RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
        m = re.search(r"Collected : (\d+)", res.stderr)
        if m is None:
            raise SystemExit(res.stderr[-2000:])
        return int(m.group(1))


def _bandwidth() -> float:
    import ferrograd as fg
    import numpy as np

    x = fg.tensor(np.ones(1 << 24, dtype=np.float32))
    best = float("inf")
    for _ in range(10):
        t = time.perf_counter()
        x.sum()
        best = min(best, time.perf_counter() - t)
    return 4 * (1 << 24) / best / 1e9


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--lib", default="ferrograd", choices=["ferrograd", "torch"])
    ap.add_argument("--calls", nargs=2, metavar=("CASE", "N"))
    ap.add_argument("--bandwidth", action="store_true")
    ap.add_argument("-n", type=int, default=20_000)
    ap.add_argument("--case", action="append", help="a call on x to count (repeatable)")
    ap.add_argument("--shape", default="1", help="x's shape, comma-separated (default 1)")
    a = ap.parse_args()
    if a.calls:
        _run_calls(a.lib, a.calls[0], int(a.calls[1]), [int(d) for d in a.shape.split(",")])
        return
    if not a.bandwidth:
        cases = a.case or CASES
        # N = 0 runs the same start-up for every case: counted once
        base = _instructions(a.python, a.lib, cases[0], 0, a.shape)
        for case in cases:
            full = _instructions(a.python, a.lib, case, a.n, a.shape)
            print(f"{a.lib:9} {case:18} {(full - base) / a.n:8.0f} instructions per call")
    if a.bandwidth or a.lib == "ferrograd":
        print(
            f"sum of 16M float32: {_bandwidth():.1f} GB/s (best of 10; timing, so load-dependent)"
        )


if __name__ == "__main__":
    main()
