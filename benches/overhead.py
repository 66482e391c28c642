#!/usr/bin/env python3
"""The overhead-bound goals of issue 23 item 4, as time ratios and as instruction counts.

Workloads (the same as ``benches/compare.py``'s rows of those names):

* ``small``   -- ``y = (a*b + a).sum(); y.backward()`` on 1-element leaves
* ``chain``   -- 10,000 ``y = y + 1.0`` from a 1-element leaf, ``y.sum().backward()``
* ``custom``  -- a custom tanh layer (saves its output) ``Tanh.apply(x).sum().backward()``
* ``builtin`` -- ``x.tanh().sum().backward()``, 16 elements
* ``hooked``  -- ``small`` under identity ``saved_tensors_hooks`` (a new context per step)

and the parts that tell what of the ``custom`` and ``hooked`` goals the library can reach:

* ``layer_ops``  -- the custom layer's own backward formula ``dy * (1 - y * y)`` alone
  (three ops on 16 elements, no graph): ``custom - builtin - layer_ops`` is what the
  custom-layer machinery costs (ctx, the two Python calls, the save, the node)
* ``hooks_in``   -- ``small`` with the identity hooks entered once around the whole timing
  (no ``with`` statement per step): ``hooks_in - small`` is the packs and unpacks
* ``with_hooks`` -- ``with saved_tensors_hooks(ident, ident): pass``, the statement alone
* ``with_py``    -- the same ``with`` over a pure-Python class with ``__slots__`` and the
  same methods: the interpreter's floor for that statement

    python benches/overhead.py --time [--python-torch PATH]    # interleaved timeit ratios
    python benches/overhead.py --count [--python-torch PATH]   # callgrind instructions/step
    python benches/overhead.py --misses --cases builtin,custom  # + simulated misses/step
    PYTHONPATH=python TORCH_PYTHON benches/overhead.py --time-inproc   # both in one process
    python benches/overhead.py --lib ferrograd --case small --n 100   # one run (internal)

``--count`` runs ``valgrind --tool=callgrind`` on a process doing the case N times and on
one doing it 0 times (each after 3 warm-up steps) and prints the difference / N: the
instructions of one step, independent of the machine's load. ``--misses`` does the same
with callgrind's cache and branch simulation on and prints, per step, the instructions and
the simulated I1/D1/last-level cache misses and branch mispredictions: why one step takes
longer per instruction than another (a simple model of a cache, not the machine's). ``--time`` times both
libraries' steps in turn (each library in its own process, several rounds) and prints the
medians; under load only the ratios mean anything. ``--time-inproc`` (run by an interpreter
that has torch, with ferrograd on ``PYTHONPATH``) imports both in one process and alternates
them step batch by step batch, so both see the same load; it prints the median ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import timeit

from callgrind_steps import events_per_step, instructions_per_step

CASES = ["small", "chain", "custom", "builtin", "hooked"]
PARTS = ["layer_ops", "hooks_in", "with_hooks", "with_py"]
# steps per measurement: instruction counts (--count) and timeit numbers (--time)
COUNT_N = {"small": 2000, "chain": 3, "custom": 1000, "builtin": 1000, "hooked": 1000}
COUNT_N.update({"layer_ops": 2000, "hooks_in": 1000, "with_hooks": 2000, "with_py": 2000})
TIME_N = {"small": 2000, "chain": 3, "custom": 1000, "builtin": 2000, "hooked": 1000}
TIME_N.update({"layer_ops": 2000, "hooks_in": 1000, "with_hooks": 4000, "with_py": 4000})


def make_steps(lib: str) -> dict:
    """The step function of each case for ``lib`` (``ferrograd`` or ``torch``)."""
    import numpy as np

    if lib == "ferrograd":
        import ferrograd as fg

        def leaf(x):
            return fg.tensor(x, requires_grad=True)

        base = fg.autograd.PyLayer
        hooks = fg.autograd.saved_tensors_hooks

        def saved(ctx):
            return ctx.saved_tensor()

        no_grad = fg.no_grad
    else:
        import torch

        torch.set_num_threads(1)

        def leaf(x):
            return torch.tensor(x, requires_grad=True)

        base = torch.autograd.Function
        hooks = torch.autograd.graph.saved_tensors_hooks

        def saved(ctx):
            return ctx.saved_tensors

        no_grad = torch.no_grad
    rng = np.random.default_rng(0)
    a = leaf(rng.normal(size=1).astype(np.float32))
    b = leaf(rng.normal(size=1).astype(np.float32))
    x16 = leaf(rng.normal(size=16).astype(np.float32))
    x1 = leaf(np.ones(1, dtype=np.float32))

    class Tanh(base):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx, x):
            y = x.tanh()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            (y,) = saved(ctx)
            return dy * (1 - y * y)

    def ident(t):
        return t

    class PyHooks:
        """A pure-Python context of the same shape as ``saved_tensors_hooks``."""

        __slots__ = ("pack", "unpack")

        def __init__(self, pack, unpack):
            self.pack, self.unpack = pack, unpack

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    with no_grad():
        y16 = x16.tanh()
        dy16 = y16 * 0.5

    def small():
        y = (a * b + a).sum()
        y.backward()

    def hooked():
        with hooks(ident, ident):
            y = (a * b + a).sum()
        y.backward()

    def custom():
        y = Tanh.apply(x16).sum()
        y.backward()

    def builtin():
        y = x16.tanh().sum()
        y.backward()

    def chain():
        y = x1
        for _ in range(10_000):
            y = y + 1.0
        y.sum().backward()

    def layer_ops():
        # (dy16 and y16 do not require grad: nothing is recorded, as in the engine's call
        # of the layer's backward; a `with no_grad()` here would add its own ~1 µs)
        return dy16 * (1 - y16 * y16)

    def with_hooks():
        with hooks(ident, ident):
            pass

    def with_py():
        with PyHooks(ident, ident):
            pass

    steps = dict(small=small, chain=chain, custom=custom, builtin=builtin, hooked=hooked)
    steps.update(layer_ops=layer_ops, hooks_in=small, with_hooks=with_hooks, with_py=with_py)
    # the context each case's steps run in (entered once, around all of its steps)
    steps["_context"] = {"hooks_in": lambda: hooks(ident, ident)}
    return steps


def context_of(steps: dict, case: str):
    """The context ``case``'s steps run in: the hooks of ``hooks_in``, else none."""
    make = steps["_context"].get(case)
    return make() if make else contextlib.nullcontext()


def run_once(lib: str, case: str, n: int) -> None:
    steps = make_steps(lib)
    step = steps[case]
    with context_of(steps, case):
        for _ in range(3):
            step()
        for _ in range(n):
            step()


def time_lib(lib: str, rounds: int) -> dict:
    """Median over ``rounds`` of the per-step time (µs) of each case."""
    steps = make_steps(lib)
    out = {}
    for case in CASES + PARTS:
        f = steps[case]
        with context_of(steps, case):
            for _ in range(3):
                f()
            n = TIME_N[case]
            runs = [timeit.timeit(f, number=n) / n * 1e6 for _ in range(rounds)]
        out[case] = statistics.median(runs)
    return out


def time_inproc(rounds: int) -> None:
    """Both libraries in this process, alternated batch by batch; median time ratios."""
    fg, tc = make_steps("ferrograd"), make_steps("torch")
    for steps in (fg, tc):
        for case in CASES + PARTS:
            with context_of(steps, case):
                for _ in range(3):
                    steps[case]()
    ratios: dict = {c: [] for c in CASES + PARTS}
    times: dict = {c: ([], []) for c in CASES + PARTS}
    for _ in range(rounds):
        for case in CASES + PARTS:
            n = max(1, TIME_N[case] // 4)
            with context_of(fg, case):
                a = timeit.timeit(fg[case], number=n) / n * 1e6
            with context_of(tc, case):
                b = timeit.timeit(tc[case], number=n) / n * 1e6
            ratios[case].append(a / b)
            times[case][0].append(a)
            times[case][1].append(b)
    print(f"load average (1, 5, 15 min): {os.getloadavg()}; {rounds} rounds, interleaved")
    print(f"{'case':10} {'ferrograd':>10} {'torch':>10} {'median ratio':>13}   (µs per step)")
    for case in CASES + PARTS:
        fa, tb = (statistics.median(v) for v in times[case])
        print(f"{case:10} {fa:10.2f} {tb:10.2f} {statistics.median(ratios[case]):13.3f}")
    cb = [a / b for a, b in zip(times["custom"][0], times["builtin"][0])]
    hs = [a - b for a, b in zip(times["hooked"][0], times["small"][0])]
    print(
        f"ferrograd custom / builtin: {statistics.median(cb):.3f} (goal <= 1.3); "
        f"hooked - small: {statistics.median(hs):.3f} µs (goal <= 0.5)"
    )
    med = {c: (statistics.median(v[0]), statistics.median(v[1])) for c, v in times.items()}
    print_parts({c: v[0] for c, v in med.items()}, {c: v[1] for c, v in med.items()}, "µs")


def count(python: str, lib: str, case: str, n: int) -> float:
    """Instructions of one step: callgrind of N steps minus callgrind of 0 steps, / N."""
    return instructions_per_step(
        lambda k: [python, __file__, "--lib", lib, "--case", case, "--n", str(k)], n
    )


def misses(python: str, lib: str, cases: list[str]) -> None:
    """Prints the simulated events of one step of each case (``--misses``)."""
    names = None
    for case in cases:
        n = COUNT_N[case]
        ev = events_per_step(
            lambda k, case=case: [python, __file__, "--lib", lib, "--case", case, "--n", str(k)],
            n,
            simulate=True,
        )
        if names is None:
            names = list(ev)
            print(f"{lib}, per step: {'case':10} " + " ".join(f"{x:>13}" for x in names))
        per_instr = 1000 * ev["I1 misses"] / ev["instructions"]
        print(
            f"{'':{len(lib) + 11}}{case:10} "
            + " ".join(f"{ev[x]:13.1f}" for x in names)
            + f"   (I1 misses per 1k instructions {per_instr:.1f})"
        )


def run_in(python: str, lib: str, rounds: int) -> dict:
    r = subprocess.run(
        [python, __file__, "--lib", lib, "--time-rounds", str(rounds)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(r.stdout.strip().splitlines()[-1])


def report(fg: dict, torch: dict | None, unit: str) -> None:
    print(f"{'case':10} {'ferrograd':>12} {'torch':>12} {'ratio':>7}   ({unit} per step)")
    for case in CASES + PARTS:
        if fg.get(case, float("nan")) != fg.get(case, float("nan")):
            continue  # (not measured in this run)
        t = torch.get(case) if torch else None
        ratio = f"{fg[case] / t:7.3f}" if t else "      -"
        ts = f"{t:12.6g}" if t else "           -"
        print(f"{case:10} {fg[case]:12.6g} {ts} {ratio}")
    print(
        f"custom / builtin: {fg['custom'] / fg['builtin']:.3f} (goal <= 1.3); "
        f"hooked - small: {fg['hooked'] - fg['small']:.5g} {unit}"
    )
    print_parts(fg, torch, unit)


def print_parts(fg: dict, torch: dict | None, unit: str) -> None:
    """What the custom layer's and the hooks' extra cost is made of, per library."""
    libs = [("ferrograd", fg)] + ([("torch", torch)] if torch else [])
    for name, r in libs:
        if not all(c in r and r[c] == r[c] for c in CASES + PARTS):
            continue  # (a count run of some cases only: NaN or missing)
        print(
            f"{name}: custom - builtin = {r['custom'] - r['builtin']:.5g} {unit} = the layer's "
            f"own ops {r['layer_ops']:.5g} + machinery "
            f"{r['custom'] - r['builtin'] - r['layer_ops']:.5g}; built-in step + its ops = "
            f"{(r['builtin'] + r['layer_ops']) / r['builtin']:.3f} x built-in"
        )
        print(
            f"{name}: hooked - small = {r['hooked'] - r['small']:.5g} {unit} = packs and "
            f"unpacks {r['hooks_in'] - r['small']:.5g} + the with statement "
            f"{r['hooked'] - r['hooks_in']:.5g} (alone {r['with_hooks']:.5g}; over a "
            f"pure-Python class {r['with_py']:.5g})"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lib", choices=["ferrograd", "torch"])
    p.add_argument("--case", choices=CASES + PARTS)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--time-rounds", type=int, default=0)
    p.add_argument("--time", action="store_true", help="interleaved timeit ratios")
    p.add_argument(
        "--time-inproc", action="store_true", help="both libraries in this process, alternated"
    )
    p.add_argument("--count", action="store_true", help="callgrind instructions per step")
    p.add_argument(
        "--misses", action="store_true", help="callgrind simulated cache misses per step"
    )
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cases", default=",".join(CASES + PARTS))
    p.add_argument("--python-torch", default=None, help="interpreter with torch installed")
    a = p.parse_args()
    if a.lib and a.case:
        return run_once(a.lib, a.case, a.n)
    if a.lib and a.time_rounds:
        print(json.dumps(time_lib(a.lib, a.time_rounds)))
        return None
    if a.time_inproc:
        return time_inproc(a.rounds)
    torch_py = a.python_torch
    if a.misses:
        misses(sys.executable, "ferrograd", a.cases.split(","))
        if torch_py:
            misses(torch_py, "torch", a.cases.split(","))
        return None
    if a.count:
        cases = a.cases.split(",")
        fg = {c: count(sys.executable, "ferrograd", c, COUNT_N[c]) for c in cases}
        tc = None
        if torch_py:
            tc = {c: count(torch_py, "torch", c, max(1, COUNT_N[c] // 4)) for c in cases}
        fg.update({c: float("nan") for c in CASES + PARTS if c not in fg})
        return report(fg, tc, "instructions")
    # --time: alternate the two libraries' processes, one round each, and keep medians
    fg_runs, tc_runs = [], []
    for _ in range(a.rounds):
        fg_runs.append(run_in(sys.executable, "ferrograd", 1))
        if torch_py:
            tc_runs.append(run_in(torch_py, "torch", 1))
    med = lambda runs: {c: statistics.median(r[c] for r in runs) for c in CASES + PARTS}  # noqa: E731
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")
    report(med(fg_runs), med(tc_runs) if tc_runs else None, "µs")
    return None


if __name__ == "__main__":
    main()
