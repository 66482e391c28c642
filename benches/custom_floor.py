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
charges nothing to saving and reading), and ``tanh_node`` is the built-in step's
``TanhBackward`` node, which a custom step replaces by the user's ``backward``: it cannot
be run on its own, so it is read off a profile of the built-in step (the engine's
``apply_then_release`` of that node, inclusive; docs/performance-overhead-floors.md, session 24).

    PYTHONPATH=python PYTHONHASHSEED=0 python benches/custom_floor.py   # callgrind counts
    python benches/custom_floor.py --case frames --n 100              # one run (internal)
"""

from __future__ import annotations

import argparse
import sys

from callgrind_steps import instructions_per_step

CASES = ["frames", "bare", "tanh_op"]
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

    # the same, with no context at all: forward's output handed to backward directly
    def forward_bare(x):
        return x.tanh()

    def backward_bare(y, dy):
        return dy * (1 - y * y)

    def bare():
        backward_bare(forward_bare(x), dy)

    def tanh_op():
        x.tanh()

    return dict(frames=frames, bare=bare, tanh_op=tanh_op)


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", choices=CASES)
    p.add_argument("--n", type=int, default=100)
    a = p.parse_args()
    if a.case:
        return run_once(a.case, a.n)
    for case in CASES:
        print(f"{case:8} {count(case, COUNT_N):10.6g} instructions per step")
    return None


if __name__ == "__main__":
    main()
