"""A custom backward that calls backward on its own graph, recursively, stops with a
RecursionError at a bounded depth instead of overflowing the native stack (issue 16
item 13). Run in a child process: before the fix the child segfaulted."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import sys, threading
    import ferrograd as fg
    from ferrograd.autograd import PyLayer

    sys.setrecursionlimit(1_000_000)
    threading.stack_size(64 << 20)  # a big Python stack: the native one must not overflow

    class Again(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            with fg.enable_grad():  # backward runs with grad mode off
                x = fg.randn(2, requires_grad=True)
                Again.apply(x).sum().backward()  # re-enters the engine, without end
            return g

    def main():
        try:
            Again.apply(fg.randn(2, requires_grad=True)).sum().backward()
        except RecursionError as e:
            print("RecursionError", "re-entrant" in str(e))
        # the engine is usable afterwards
        y = fg.to_tensor([1.0, 2.0], stop_gradient=False)
        (y * y).sum().backward()
        print("after", y.grad.numpy().tolist())

    t = threading.Thread(target=main)
    t.start()
    t.join()
    """
)


def test_recursive_reentrant_backward_raises_recursion_error():
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-3000:]}"
    assert "RecursionError True" in r.stdout, r.stdout + r.stderr[-3000:]
    assert "after [2.0, 4.0]" in r.stdout
