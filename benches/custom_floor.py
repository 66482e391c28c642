#!/usr/bin/env python3
"""What a custom layer's step cannot avoid: the floor under issue 23's custom-layer goal.

``benches/overhead.py``'s ``custom`` step is ``Tanh.apply(x).sum().backward()`` with a
Python ``Tanh`` layer (forward ``y = x.tanh()``, saves ``y``; backward
``dy * (1 - y * y)``). Whatever the layer machinery costs, the step also runs the layer's
own Python: two frames (``forward``, ``backward``), a save, a read of what was saved and
the three tensor ops of ``backward``. This script counts those pieces on their own, with
a plain Python object as the context and no graph (no layer machinery at all), so that

    floor = builtin - tanh_node + frames - tanh_op

where ``builtin`` is ``x.tanh().sum().backward()`` (``overhead.py``'s case), ``frames``
is ``forward(ctx, x)`` followed by ``backward(ctx, dy)`` on tensors that need no grad,
``tanh_op`` is the one ``x.tanh()`` that ``frames`` and ``builtin`` both contain (``bare``:
``frames`` without any context, forward's output handed to backward, for a floor that
charges nothing to saving and reading; ``frames_native``: ``frames`` with ``forward`` and
``backward`` entered from native code, through ``operator.call``, as a layer's ``apply``
and the engine must enter them — CPython runs a Python-to-Python call inside the running
evaluation loop, but a call from C starts a new one), and ``tanh_node`` is the built-in step's
``TanhBackward`` node, which a custom step replaces by the user's ``backward``: it cannot
be run on its own, so it is read off a profile of the built-in step (the engine's
``apply_then_release`` of that node, inclusive; docs/performance-overhead-floors.md, session 24).

    PYTHONPATH=python PYTHONHASHSEED=0 python benches/custom_floor.py   # callgrind counts
    PYTHONPATH=python python benches/custom_floor.py --time   # the floor in time, in one process
    python benches/custom_floor.py --case frames --n 100              # one run (internal)
"""

from __future__ import annotations

import argparse
import operator
import statistics
import sys
import timeit

from callgrind_steps import instructions_per_step

CASES = ["frames", "frames_native", "bare", "tanh_op"]
COUNT_N = 1000


def make_steps() -> dict:
    """The step function of each case."""
    import ferrograd as fg
    import numpy as np

    rng = np.random.default_rng(0)
    x = fg.tensor(rng.normal(size=16).astype(np.float32))
    dy = fg.ones(16)

    class Ctx:
        """A plain context: the save and the read are ordinary Python calls."""

        __slots__ = ("saved",)

        def save_for_backward(self, *ts):
            self.saved = ts

        def saved_tensor(self):
            return self.saved

    def saved(ctx):
        return ctx.saved_tensor()

    # the same bodies as overhead.py's Tanh layer
    def forward(ctx, x):
        y = x.tanh()
        ctx.save_for_backward(y)
        return y

    def backward(ctx, dy):
        (y,) = saved(ctx)
        return dy * (1 - y * y)

    def frames():
        ctx = Ctx()
        forward(ctx, x)
        backward(ctx, dy)

    call = operator.call  # a C function: the frames below start from native code

    def frames_native():
        ctx = Ctx()
        call(forward, ctx, x)
        call(backward, ctx, dy)

    # the same, with no context at all: forward's output handed to backward directly
    def forward_bare(x):
        return x.tanh()

    def backward_bare(y, dy):
        return dy * (1 - y * y)

    def bare():
        backward_bare(forward_bare(x), dy)

    def tanh_op():
        x.tanh()

    return dict(frames=frames, frames_native=frames_native, bare=bare, tanh_op=tanh_op)


def run_once(case: str, n: int) -> None:
    step = make_steps()[case]
    for _ in range(3):
        step()
    for _ in range(n):
        step()


def count(case: str, n: int) -> float:
    """Instructions of one step: callgrind of N steps minus callgrind of 0 steps, / N."""
    return instructions_per_step(
        lambda k: [sys.executable, __file__, "--case", case, "--n", str(k)], n
    )


# the built-in step's TanhBackward node, in instructions (a 200-step profile of the built-in
# step, session 24: docs/performance-overhead-floors.md) and as a share of that step
TANH_NODE_INSTR = 3424
BUILTIN_INSTR = 27865


def time_floor(rounds: int) -> None:
    """The floor in time: the built-in and custom steps of ``overhead.py`` and this
    script's pieces, timed in one process, batch by batch in turn, medians of ``rounds``.
    The ``TanhBackward`` node cannot run alone; its time is taken as its share of the
    built-in step's instructions."""
    import overhead

    steps = overhead.make_steps("ferrograd")
    cases = {"builtin": steps["builtin"], "custom": steps["custom"], **make_steps()}
    for f in cases.values():
        for _ in range(100):
            f()
    times: dict = {k: [] for k in cases}
    for _ in range(rounds):
        for k, f in cases.items():
            times[k].append(timeit.timeit(f, number=500) / 500 * 1e6)
    m = {k: statistics.median(v) for k, v in times.items()}
    for k, v in m.items():
        print(f"{k:14} {v:8.3f} µs per step")
    node = TANH_NODE_INSTR / BUILTIN_INSTR * m["builtin"]
    print(f"custom / builtin {m['custom'] / m['builtin']:.3f} (goal <= 1.3)")
    for piece in ("frames", "frames_native", "bare"):
        floor = m["builtin"] - node + m[piece] - m["tanh_op"]
        print(f"floor with {piece:14} {floor:7.3f} µs = {floor / m['builtin']:.3f} x builtin")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", choices=CASES)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--time", action="store_true", help="the floor in time (one process)")
    p.add_argument("--rounds", type=int, default=40)
    a = p.parse_args()
    if a.time:
        return time_floor(a.rounds)
    if a.case:
        return run_once(a.case, a.n)
    for case in CASES:
        print(f"{case:8} {count(case, COUNT_N):10.6g} instructions per step")
    return None


if __name__ == "__main__":
    main()
