"""The instruction count of one step, shared by the overhead benches (``overhead.py``,
``custom_floor.py``, ``hooks_floor.py``): ``valgrind --tool=callgrind`` on a process that
runs the step N times and on one that runs it 0 times (each after its warm-up), and the
difference / N, which does not move with the machine's load."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from typing import Callable


def instructions_per_step(argv: Callable[[int], list[str]], n: int) -> float:
    """Instructions of one step: ``argv(k)`` is the command that runs the step ``k`` times
    (called with 0 and with ``n``)."""
    totals = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in (0, n):
            # a fixed string hash: with a random one the interpreter's dict probes differ
            # from run to run by ~1.6M instructions, which is noise in (N-run - 0-run) / N;
            # one BLAS thread: NumPy's idle BLAS threads would be counted too
            env = dict(
                os.environ,
                RAYON_NUM_THREADS="1",
                OMP_NUM_THREADS="1",
                OPENBLAS_NUM_THREADS="1",
                PYTHONHASHSEED="0",
            )
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.{k}"]
            r = subprocess.run(cmd + argv(k), capture_output=True, text=True, env=env, check=True)
            m = re.search(r"Collected : (\d+)", r.stderr)
            if m is None:
                raise RuntimeError(f"no callgrind total in:\n{r.stderr[-2000:]}")
            totals.append(int(m.group(1)))
    return (totals[1] - totals[0]) / n
