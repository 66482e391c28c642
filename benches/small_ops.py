#!/usr/bin/env python3
"""The per-call cost of everyday ops on small tensors, from Python: time and instructions.

The guide's goal is "an op on a small tensor costs about a microsecond from Python, graph
recording included". Each case is one statement on 8-element float32 tensors (``x``,
``y``), a ``[2, 4]`` matrix ``m`` and the like, run in a loop compiled in one of four
namespaces:

* ``fg``     -- ``import ferrograd as fg`` (code of no dialect)
* ``torch``  -- ``import ferrograd as torch`` (PyTorch code: the dialect rules apply)
* ``paddle`` -- ``import ferrograd as paddle`` (Paddle code)
* ``grad``   -- as ``fg``, on leaves that require grad (the op records a graph node)

    python benches/small_ops.py                      # µs per call (timeit, best of 5)
    python benches/small_ops.py --count              # callgrind instructions per call
    python benches/small_ops.py --count --cases sum,cat --json out.json
    python benches/small_ops.py --count --compare before.json   # + the before column

``--count`` runs the cases in ONE ``valgrind --tool=callgrind`` process, with a dump at
each ``os.getppid()`` (``--dump-before=getppid``): the process warms every case up, then
before each case's N calls calls ``getppid``, so dump ``i`` holds the instructions of case
``i``'s N calls. An empty loop (the statement ``x``) is measured the same way and taken
off, so the figures are the statement's own instructions, independent of the machine's
load (the same count ``callgrind_steps.py`` makes with one process per N). The ratio column
is against ``x + y`` in the same namespace kind (``fg``). ``--cases`` keeps cases whose
label contains any of the comma-separated words.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import timeit

# (namespace, statement). The label is "namespace: statement".
CASES: list[tuple[str, str]] = [
    # arithmetic and comparison dunders, tensors and Python scalars
    ("fg", "x + y"),
    ("fg", "x - y"),
    ("fg", "x * y"),
    ("fg", "x / y"),
    ("fg", "x + 1.0"),
    ("fg", "x * 2.0"),
    ("fg", "2.0 - x"),
    ("fg", "x ** 2"),
    ("fg", "-x"),
    ("fg", "x > 0"),
    ("fg", "x == y"),
    ("fg", "x < y"),
    ("fg", "m @ k"),
    # unary math
    ("fg", "x.exp()"),
    ("fg", "x.abs()"),
    ("fg", "x.tanh()"),
    ("fg", "x.sigmoid()"),
    ("fg", "x.sqrt()"),
    ("fg", "fg.exp(x)"),
    # reductions
    ("fg", "x.sum()"),
    ("fg", "x.mean()"),
    ("fg", "m.sum(0)"),
    ("fg", "m.sum(dim=1)"),
    ("fg", "m.sum(1, keepdim=True)"),
    ("fg", "m.mean(1)"),
    ("fg", "x.max()"),
    ("fg", "m.max(1)"),
    ("fg", "x.argmax()"),
    ("fg", "x.var()"),
    ("fg", "fg.sum(x)"),
    ("fg", "fg.sum(m, 1)"),
    # shape ops
    ("fg", "x.reshape(2, 4)"),
    ("fg", "x.reshape([2, 4])"),
    ("fg", "x.view(2, 4)"),
    ("fg", "m.permute(1, 0)"),
    ("fg", "m.transpose(0, 1)"),
    ("fg", "m.t()"),
    ("fg", "x.unsqueeze(0)"),
    ("fg", "u.squeeze(0)"),
    ("fg", "m.flatten()"),
    ("fg", "x.expand(3, 8)"),
    ("fg", "fg.cat([x, y])"),
    ("fg", "fg.stack([x, y])"),
    ("fg", "x.split(4)"),
    ("fg", "x.chunk(2)"),
    # indexing
    ("fg", "x[2]"),
    ("fg", "x[1:5]"),
    ("fg", "m[0, 1:3]"),
    ("fg", "x[idx]"),
    ("fg", "x[mask]"),
    ("fg", "z[2] = 1.0"),
    ("fg", "z[1:3] = 0.0"),
    # creation
    ("fg", "fg.zeros(8)"),
    ("fg", "fg.ones(2, 4)"),
    ("fg", "fg.full([8], 2.0)"),
    ("fg", "fg.arange(8)"),
    ("fg", "fg.tensor([1.0, 2.0, 3.0])"),
    ("fg", "fg.zeros_like(x)"),
    # copies, casts, misc
    ("fg", "x.clone()"),
    ("fg", "x.detach()"),
    ("fg", "x.to(fg.float64)"),
    ("fg", "x.float()"),
    ("fg", "fg.where(mask, x, y)"),
    ("fg", "x.clamp(0, 1)"),
    ("fg", "m.softmax(1)"),
    ("fg", "F.softmax(m, dim=1)"),
    ("fg", "m.softmax(0)"),
    ("fg", "m.log_softmax(1)"),
    ("fg", "x.relu()"),
    ("fg", "F.relu(x)"),
    ("fg", "F.linear(m, w, b)"),
    ("fg", "fg.matmul(m, k)"),
    # PyTorch code
    ("torch", "x + y"),
    ("torch", "torch.add(x, y)"),
    ("torch", "torch.sum(m, dim=1)"),
    ("torch", "x.sum()"),
    ("torch", "m.max(1)"),
    ("torch", "torch.cat([x, y], dim=0)"),
    ("torch", "x.reshape(2, 4)"),
    ("torch", "x.unsqueeze(0)"),
    ("torch", "x.split(4)"),
    ("torch", "x.clamp(0, 1)"),
    ("torch", "torch.where(mask, x, y)"),
    ("torch", "torch.softmax(m, dim=1)"),
    ("torch", "F.linear(m, w, b)"),
    ("torch", "torch.tensor([1.0, 2.0, 3.0])"),
    ("torch", "torch.zeros(8)"),
    ("torch", "x.to(torch.float64)"),
    # Paddle code
    ("paddle", "x + y"),
    ("paddle", "paddle.add(x, y)"),
    ("paddle", "paddle.sum(m, axis=1)"),
    ("paddle", "x.sum(axis=0)"),
    ("paddle", "m.max(1)"),
    ("paddle", "paddle.concat([x, y])"),
    ("paddle", "paddle.concat([x, y], axis=0)"),
    ("paddle", "paddle.reshape(x, [2, 4])"),
    ("paddle", "paddle.transpose(m, [1, 0])"),
    ("paddle", "paddle.unsqueeze(x, 0)"),
    ("paddle", "paddle.split(x, 2)"),
    ("paddle", "x.split(2)"),
    ("paddle", "paddle.where(mask, x, y)"),
    ("paddle", "paddle.clip(x, 0, 1)"),
    ("paddle", "F.softmax(m, axis=1)"),
    ("paddle", "F.linear(m, wp, b)"),
    ("paddle", "paddle.matmul(m, k)"),
    ("paddle", "paddle.to_tensor([1.0, 2.0, 3.0])"),
    ("paddle", "paddle.zeros([8])"),
    ("paddle", "x.astype('float64')"),
    # graph recording (leaves that require grad)
    ("grad", "x + y"),
    ("grad", "x * 2.0"),
    ("grad", "x.exp()"),
    ("grad", "x.sum()"),
    ("grad", "x.mean()"),
    ("grad", "m.sum(1)"),
    ("grad", "x.reshape(2, 4)"),
    ("grad", "m.transpose(0, 1)"),
    ("grad", "x.unsqueeze(0)"),
    ("grad", "x[2]"),
    ("grad", "x[1:5]"),
    ("grad", "fg.cat([x, y])"),
    ("grad", "fg.where(mask, x, y)"),
    ("grad", "x.clamp(0, 1)"),
    ("grad", "m.softmax(1)"),
    ("grad", "x.relu()"),
    ("grad", "m @ k"),
    ("grad", "F.linear(m, w, b)"),
]

#: the case the ratio column divides by
REFERENCE = ("fg", "x + y")
#: the statement measured as the loop's own cost (taken off every count)
EMPTY = "x"
#: calls per case under callgrind, and the warm-up calls before any is counted
COUNT_N = 2000
WARMUP = 20


def label(ns: str, stmt: str) -> str:
    """The case's name in the report and in ``--cases`` / ``--json``."""
    return f"{ns}: {stmt}"


def namespaces() -> dict[str, dict]:
    """The globals of each namespace kind: the import name and the operand tensors."""
    import ferrograd as fg
    import numpy as np

    rng = np.random.default_rng(0)

    def t(*shape: int, grad: bool = False):
        a = fg.from_numpy(rng.standard_normal(shape).astype(np.float32))
        return a.requires_grad_() if grad else a

    out = {}
    for kind in ("fg", "torch", "paddle", "grad"):
        g = kind == "grad"
        ns: dict = {"__name__": f"small_ops_{kind}", "F": fg.nn.functional}
        ns["fg" if kind in ("fg", "grad") else kind] = fg
        ns.update(x=t(8, grad=g), y=t(8, grad=g), m=t(2, 4, grad=g), k=t(4, 2, grad=g))
        ns.update(w=t(3, 4, grad=g), wp=t(4, 3, grad=g), b=t(3, grad=g), u=t(1, 8, grad=g))
        ns.update(z=t(8), idx=fg.tensor([0, 3, 5]), mask=ns["x"].detach() > 0)
        out[kind] = ns
    return out


OPERANDS = ("x", "y", "m", "k", "w", "wp", "b", "u", "z", "idx", "mask")


def loop(ns: dict, stmt: str):
    """``run(n)``: ``stmt`` n times, compiled in ``ns`` (its frame's globals are ``ns``,
    so the dialect rules see the namespace's import name); the operands are locals."""
    params = ", ".join(f"{o}={o}" for o in OPERANDS)
    src = f"def run(n, {params}):\n    for _ in range(n):\n        {stmt}\n"
    exec(compile(src, f"<{ns['__name__']}>", "exec"), ns)
    return ns.pop("run")


def selected(words: str | None) -> list[tuple[str, str]]:
    """The cases whose label contains one of the comma-separated ``words`` (all: None)."""
    if not words:
        return CASES
    ws = [w.strip() for w in words.split(",") if w.strip()]
    picked = [c for c in CASES if any(w in label(*c) for w in ws)]
    # the reference of the ratio column comes along
    return picked if REFERENCE in picked else [REFERENCE, *picked]


def child(cases: list[tuple[str, str]], n: int) -> None:
    """Under callgrind: warm every case up, then ``getppid`` + N calls per case."""
    nss = namespaces()
    runs = [loop(nss["fg"], EMPTY)] + [loop(nss[k], s) for k, s in cases]
    for r in runs:
        r(WARMUP)
    for r in runs:
        os.getppid()  # the dump boundary (--dump-before=getppid)
        r(n)
    os.getppid()


def count(cases: list[tuple[str, str]], n: int) -> dict[str, float]:
    """Instructions per call of each case (the empty loop's taken off)."""
    env = dict(os.environ, RAYON_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.update(OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid"]
        cmd += [f"--callgrind-out-file={out}", sys.executable, __file__, "--child"]
        cmd += ["--n", str(n), "--cases-json", json.dumps(cases)]
        subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
        totals = {}
        for path in glob.glob(out + ".*"):
            with open(path) as f:
                m = re.search(r"^totals: (\d+)", f.read(), re.M)
            if m:
                totals[int(path.rsplit(".", 1)[1])] = int(m.group(1))
    # dump 1: import and warm-up; dump 2: the empty loop; dump 3 + i: case i
    if len(totals) != len(cases) + 2:
        raise RuntimeError(f"expected {len(cases) + 2} callgrind dumps, got {len(totals)}")
    empty = totals[2]
    return {label(*c): (totals[3 + i] - empty) / n for i, c in enumerate(cases)}


def time_cases(cases: list[tuple[str, str]]) -> dict[str, float]:
    """µs per call of each case: timeit, best of 5 (the empty loop's time taken off)."""
    nss = namespaces()

    def best(run) -> float:
        run(50)
        n = 2000
        return min(timeit.repeat(lambda: run(n), number=1, repeat=5)) / n * 1e6

    empty = best(loop(nss["fg"], EMPTY))
    return {label(k, s): best(loop(nss[k], s)) - empty for k, s in cases}


def report(res: dict[str, float], unit: str, before: dict | None) -> None:
    """One line per case: the figure, its ratio to ``fg: x + y`` and the before column."""
    base = res.get(label(*REFERENCE))
    head = f"{'case':42} {unit:>10} {'/ x+y':>6}"
    print(head + (f" {'before':>10} {'change':>7}" if before else ""))
    for name, v in res.items():
        line = f"{name:42} {v:10.6g} {v / base if base else float('nan'):6.2f}"
        if before and name in before:
            line += f" {before[name]:10.6g} {v / before[name] - 1:+7.1%}"
        print(line)


def main() -> None:
    """Command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", action="store_true", help="callgrind instructions per call")
    p.add_argument("--cases", default=None, help="comma-separated words a label contains")
    p.add_argument("--n", type=int, default=COUNT_N)
    p.add_argument("--json", default=None, help="write the figures to this file")
    p.add_argument("--compare", default=None, help="a --json file to print beside")
    p.add_argument("--list", action="store_true", help="print the case labels")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--cases-json", default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        return child([tuple(c) for c in json.loads(a.cases_json)], a.n)
    cases = selected(a.cases)
    if a.list:
        print("\n".join(label(*c) for c in cases))
        return None
    if a.count:
        res, unit = count(cases, a.n), "instr"
    else:
        res, unit = time_cases(cases), "µs"
        print(f"load average (1, 5, 15 min): {os.getloadavg()}")
    before = None
    if a.compare:
        with open(a.compare) as f:
            before = json.load(f)
    report(res, unit, before)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return None


if __name__ == "__main__":
    main()
