"""Large kernels and backward run with the GIL released, so other Python threads run
meanwhile. With a huge switch interval the interpreter never takes the GIL away from the
main thread, so the ticker (which yields it back voluntarily) can only make progress
while ferrograd has released it."""

from __future__ import annotations

import sys
import threading
import time

import ferrograd as fg


def _ticks_during(work) -> int:
    state = {"ticks": 0, "stop": False, "ready": threading.Event()}

    def ticker():
        state["ready"].set()
        while not state["stop"]:
            state["ticks"] += 1
            time.sleep(0)  # hand the GIL straight back whenever the main thread wants it

    old = sys.getswitchinterval()
    t = threading.Thread(target=ticker)
    t.start()
    state["ready"].wait()
    sys.setswitchinterval(10.0)
    try:
        before = state["ticks"]
        work()
        during = state["ticks"] - before
    finally:
        sys.setswitchinterval(old)
        state["stop"] = True
        t.join()
    return during


def test_large_matmul_releases_the_gil():
    a = fg.randn(1024, 1024)
    b = fg.randn(1024, 1024)
    assert _ticks_during(lambda: [a @ b for _ in range(3)]) > 0


def test_large_elementwise_releases_the_gil():
    a = fg.randn(1 << 22)
    assert _ticks_during(lambda: [(a * a).exp() for _ in range(3)]) > 0


def test_backward_releases_the_gil():
    x = fg.randn(512, 512, requires_grad=True)

    def work():
        for _ in range(3):
            (x @ x).tanh().sum().backward()

    assert _ticks_during(work) > 0
