"""Cost of argument-type dispatch on the eager path, in one run: each module function
(``ferrograd.tanh``, an ``OpFunction``) against the ``Tensor`` method descriptor it wraps
(what ``ferrograd.tanh`` was before dispatch), and the method call ``x.tanh()``.

    python benches/static_dispatch.py [--number N] [--repeat R]

Prints ns per call (the best of R repeats of N calls) for a 4-element float32 tensor.
"""

from __future__ import annotations

import argparse
import timeit

import ferrograd as fg


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--number", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    x = fg.to_tensor([0.1, 0.2, 0.3, 0.4])
    y = fg.to_tensor([1.0, 2.0, 3.0, 4.0])
    # every case calls a name bound in the same globals, so only the callee differs
    env = {
        "x": x,
        "y": y,
        "fg_tanh": fg.tanh,
        "desc_tanh": fg.Tensor.tanh,
        "fg_add": fg.add,
        "desc_add": fg.Tensor.add,
    }
    cases = [
        ("fg.tanh(x)       [dispatching]", "fg_tanh(x)"),
        ("Tensor.tanh(x)   [descriptor]", "desc_tanh(x)"),
        ("x.tanh()         [method]", "x.tanh()"),
        ("fg.add(x, y)     [dispatching]", "fg_add(x, y)"),
        ("Tensor.add(x, y) [descriptor]", "desc_add(x, y)"),
        ("x.add(y)         [method]", "x.add(y)"),
    ]
    # interleaved rounds, so that drift in machine load hits every case alike
    best = {label: float("inf") for label, _ in cases}
    for _ in range(args.repeat):
        for label, stmt in cases:
            t = timeit.timeit(stmt, number=args.number, globals=env)
            best[label] = min(best[label], t / args.number * 1e9)
    for label, _ in cases:
        print(f"{label:32s} {best[label]:8.1f} ns/call")


if __name__ == "__main__":
    main()
