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
    python3 benches/hooks_floor.py --case floor --n 100             # one run (internal)

Counted as in ``overhead.py --count``: callgrind of N steps minus callgrind of 0 steps, / N.
"""

from __future__ import annotations

import argparse
import sys

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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", action="store_true", help="callgrind instructions per step")
    p.add_argument("--case", choices=CASES)
    p.add_argument("--n", type=int, default=N)
    a = p.parse_args()
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
