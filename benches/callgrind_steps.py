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
    return events_per_step(argv, n)["instructions"]


#: callgrind's summary lines with cache and branch simulation on, and the names we give them
SIMULATED = {
    "I   refs": "instructions",
    "I1  misses": "I1 misses",
    "D1  misses": "D1 misses",
    "LL misses": "LL misses",
    "Mispredicts": "mispredicts",
}


def events_per_step(argv: Callable[[int], list[str]], n: int, simulate: bool = False) -> dict:
    """Events of one step, as ``instructions_per_step``; with ``simulate`` also callgrind's
    simulated first-level instruction and data cache misses, last-level misses and branch
    mispredictions (``--cache-sim=yes --branch-sim=yes``). The simulation models a simple
    cache and predictor, not the machine's: its numbers compare steps with each other
    (why one step runs slower per instruction than another), not with real counters."""
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
            if simulate:
                cmd += ["--cache-sim=yes", "--branch-sim=yes"]
            r = subprocess.run(cmd + argv(k), capture_output=True, text=True, env=env, check=True)
            totals.append(_summary(r.stderr, simulate))
    return {name: (totals[1][name] - totals[0][name]) / n for name in totals[0]}


def _summary(stderr: str, simulate: bool) -> dict:
    """The event totals of one callgrind run, read from its summary on stderr."""
    if not simulate:
        m = re.search(r"Collected : (\d+)", stderr)
        if m is None:
            raise RuntimeError(f"no callgrind total in:\n{stderr[-2000:]}")
        return {"instructions": int(m.group(1))}
    out = {}
    for line, name in SIMULATED.items():
        m = re.search(re.escape(line) + r":\s+([\d,]+)", stderr)
        if m is None:
            raise RuntimeError(f"no callgrind '{line}' in:\n{stderr[-2000:]}")
        out[name] = int(m.group(1).replace(",", ""))
    return out
