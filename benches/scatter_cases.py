"""Scatter / masked workloads of ``compare.py`` (issue 19): 16M float32 elements, a
random int64 index over the whole tensor, out of place in every library. NumPy's
stand-ins are ``np.add.at`` (scatter-add), ``np.put`` (overwriting scatter) and
``np.where`` (masked fill), each on a fresh copy so that all libraries do the same work.
"""

from __future__ import annotations

from typing import Any, Callable

N = 1 << 24

WORKLOADS = ["scatter_add_16M_ms", "scatter_16M_ms", "masked_fill_16M_ms"]


def _inputs(data: Any) -> tuple:
    np = data.np
    x = data.normal(N)
    src = data.normal(N)
    idx = data.rng.integers(0, N, N, dtype=np.int64)
    mask = data.rng.random(N) < 0.5
    return x, src, idx, mask


def cases(case_cls: Callable, lib: str, mod: Any) -> dict:
    """Factories for ``lib`` (``ferrograd``, ``numpy`` or ``torch``; ``mod`` is the module)."""

    def make(op: str) -> Callable:
        def factory(data: Any) -> Any:
            x, src, idx, mask = _inputs(data)
            np = data.np
            if lib == "numpy":
                fns = {
                    "add": lambda: _np_add_at(np, x, idx, src),
                    "set": lambda: _np_put(np, x, idx, src),
                    "fill": lambda: np.where(mask, np.float32(0.0), x),
                }
            else:
                const = mod.from_numpy
                tx, ts, ti, tm = const(x), const(src), const(idx), const(mask)
                fns = {
                    "add": lambda: tx.scatter_add(0, ti, ts),
                    "set": lambda: tx.scatter(0, ti, ts),
                    "fill": lambda: tx.masked_fill(tm, 0.0),
                }
            fn = fns[op]

            def run(n: int) -> Any:
                out = None
                for _ in range(n):
                    out = fn()
                return out

            return case_cls(run, "ms")

        return factory

    return {
        "scatter_add_16M_ms": make("add"),
        "scatter_16M_ms": make("set"),
        "masked_fill_16M_ms": make("fill"),
    }


def _np_add_at(np: Any, x: Any, idx: Any, src: Any) -> Any:
    out = x.copy()
    np.add.at(out, idx, src)
    return out


def _np_put(np: Any, x: Any, idx: Any, src: Any) -> Any:
    out = x.copy()
    np.put(out, idx, src)
    return out
