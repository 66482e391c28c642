#!/usr/bin/env python3
"""The floor under issue 23's identity-hooks goal: what CPython itself costs per step.

Identity ``saved_tensors_hooks(ident, ident)`` around the small step (``overhead.py``'s
``hooked`` minus ``small``) needs, whatever the library does, a ``with`` block on a
freshly made object of a native type (``__enter__`` / ``__exit__`` in C) and four calls
of a Python function with one argument made from native code (two packs, two unpacks),
each through ``PyObject_Call`` with a one-element tuple, as a limited-API extension on
CPython 3.11 must call (no ``PyObject_Vectorcall`` / ``PyObject_CallOneArg`` there).
This script counts those pieces without ferrograd, in callgrind instructions per step:

* ``empty``  -- ``x`` read and dropped (the step function's own call; subtracted)
* ``with``   -- ``with memoryview(b""): pass`` (a native type: C ``__enter__``/``__exit__``)
* ``lock``   -- ``with allocate_lock(): pass`` (another native context manager)
* ``calls``  -- four ``ident(*(x,))``: ``CALL_FUNCTION_EX`` hands the tuple to
  ``PyObject_Call``, the path a C caller's ``PyObject_Call(f, (x,), NULL)`` takes
* ``floor``  -- ``with`` and ``calls`` together

    PYTHONHASHSEED=0 python3 benches/hooks_floor.py --count       # all cases
    PYTHONPATH=python python3 benches/hooks_floor.py --time         # in time, beside ferrograd's steps
    python3 benches/hooks_floor.py --case floor --n 100             # one run (internal)

Counted as in ``overhead.py --count``: callgrind of N steps minus callgrind of 0 steps, / N.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit

from callgrind_steps import instructions_per_step

CASES = ["empty", "with", "lock", "calls", "floor"]
N = 5000


def make_steps() -> dict:
    """The step function of each case."""
    from _thread import allocate_lock

    x = object()
    empty_bytes = b""

    def ident(t):
        return t

    def empty():
        y = x
        return y

    def with_():
        with memoryview(empty_bytes):
            y = x
        return y

    def lock():
        with allocate_lock():
            y = x
        return y

    def calls():
        p = ident(*(x,))
        q = ident(*(x,))
        y = ident(*(p,))
        y = ident(*(q,))
        return y

    def floor():
        with memoryview(empty_bytes):
            p = ident(*(x,))
            q = ident(*(x,))
        y = ident(*(p,))
        y = ident(*(q,))
        return y

    return {"empty": empty, "with": with_, "lock": lock, "calls": calls, "floor": floor}


def count(case: str, n: int) -> float:
    """Instructions of one step: callgrind of N steps minus callgrind of 0 steps, / N."""
    return instructions_per_step(
        lambda k: [sys.executable, __file__, "--case", case, "--n", str(k)], n
    )


def time_floor(rounds: int) -> None:
    """The pieces in time beside ferrograd's ``small`` and ``hooked`` steps
    (``overhead.py``), all in one process, batch by batch in turn; medians of ``rounds``."""
    import overhead

    steps = overhead.make_steps("ferrograd")
    cases = {"small": steps["small"], "hooked": steps["hooked"], **make_steps()}
    for f in cases.values():
        for _ in range(200):
            f()
    times: dict = {k: [] for k in cases}
    for _ in range(rounds):
        for k, f in cases.items():
            times[k].append(timeit.timeit(f, number=1000) / 1000 * 1e6)
    m = {k: statistics.median(v) for k, v in times.items()}
    for k, v in m.items():
        print(f"{k:7} {v:7.3f} µs per step")
    print(
        f"hooked - small {m['hooked'] - m['small']:.3f} µs (goal <= 0.5); "
        f"floor - empty {m['floor'] - m['empty']:.3f} µs"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", action="store_true", help="callgrind instructions per step")
    p.add_argument("--case", choices=CASES)
    p.add_argument("--n", type=int, default=N)
    p.add_argument("--time", action="store_true", help="in time, beside ferrograd's steps")
    p.add_argument("--rounds", type=int, default=40)
    a = p.parse_args()
    if a.time:
        return time_floor(a.rounds)
    if a.count:
        got = {c: count(c, a.n) for c in CASES}
        for c in CASES:
            print(f"{c:6} {got[c]:9.1f} instructions per step ({got[c] - got['empty']:.1f} net)")
        return
    step = make_steps()[a.case]
    for _ in range(3):
        step()
    for _ in range(a.n):
        step()


if __name__ == "__main__":
    main()
