"""Ctrl-C stops long backward passes and kernels with KeyboardInterrupt; fork() after the
thread pool ran does not deadlock; a Rust panic becomes a Python exception. The process
survives each and the next operation works."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and fork")

NOTE = "stopped by Ctrl-C"


def stopped_by_us(exc: BaseException) -> bool:
    """True when the KeyboardInterrupt came out of a ferrograd loop (not a bytecode check)."""
    return any(NOTE in n for n in getattr(exc, "__notes__", []))


@pytest.fixture(autouse=True)
def default_sigint_handler():
    """Python's default SIGINT handler with our counter chained in front of it."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    assert _core._install_sigint_hook()
    yield
    signal.signal(signal.SIGINT, old)
    _core._install_sigint_hook()


def send_sigint_when(event: threading.Event) -> threading.Thread:
    def run():
        if event.wait(timeout=30):
            os.kill(os.getpid(), signal.SIGINT)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


def test_ctrl_c_stops_a_long_backward():
    x = fg.ones(256, requires_grad=True)
    y = x
    for _ in range(60_000):
        y = y * 1.0
    started = threading.Event()
    # the hook on the last node runs first in backward: then the long chain follows
    y.register_hook(lambda g: started.set())
    th = send_sigint_when(started)
    with pytest.raises(KeyboardInterrupt) as info:
        y.sum().backward()
    th.join()
    assert stopped_by_us(info.value)
    assert x.grad is None  # stopped before reaching the leaf
    # the process survives and the next operations work
    z = (x * 3.0).sum()
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(256, 3.0, np.float32))


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="kernels stop between parallel chunks")
def test_ctrl_c_stops_a_long_kernel():
    a = fg.ones(20_000_000)
    go = threading.Event()
    stops = 0
    for _ in range(5):  # a signal may land between kernels (then Python raises it there)
        th = send_sigint_when(go)
        try:
            go.set()
            while True:
                a.exp()
        except KeyboardInterrupt as e:
            stops += stopped_by_us(e)
        th.join()
        go.clear()
        if stops:
            break
    assert stops >= 1
    np.testing.assert_allclose((fg.ones(3) * 2).numpy(), [2, 2, 2])


@pytest.mark.parametrize("axis", [None, 0, 1], ids=["full", "outer", "inner"])
def test_ctrl_c_stops_a_long_reduction(axis):
    # also on one thread: the reduction loops look for the signal between blocks
    a = fg.ones([4000, 5000])
    go = threading.Event()
    stops = 0
    for _ in range(5):  # a signal may land between calls (then Python raises it there)
        th = send_sigint_when(go)
        try:
            go.set()
            while True:
                a.sum() if axis is None else a.sum(axis)
        except KeyboardInterrupt as e:
            stops += stopped_by_us(e)
        th.join()
        go.clear()
        if stops:
            break
    assert stops >= 1
    assert float(fg.ones([3, 4]).sum()) == 12.0


def send_sigint_after(seconds: float) -> threading.Thread:
    """A signal timer: SIGINT to this process after `seconds`."""
    th = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    th.daemon = True
    th.start()
    return th


def test_ctrl_c_stops_a_single_huge_matmul():
    # one 3000^3 float64 product is a single gemm call (~0.5 s on two cores): it is cut
    # into row blocks and the signal is noticed between them
    a = fg.ones([3000, 3000], dtype="float64")
    stops = 0
    for _ in range(5):  # a signal may land just before or after the call
        th = send_sigint_after(0.05)
        try:
            a @ a
            th.join()  # the product finished first: Python raises the signal here
        except KeyboardInterrupt as e:
            stops += stopped_by_us(e)
        th.join()
        if stops:
            break
    assert stops >= 1
    # the process survives and the next product is right
    m = fg.ones([600, 300], dtype="float64") @ fg.full([300, 2], 2.0, dtype="float64")
    np.testing.assert_array_equal(m.numpy(), np.full((600, 2), 600.0))


def test_ctrl_c_leaves_in_place_ops_complete():
    a = fg.zeros(5_000_000)
    go = threading.Event()
    th = send_sigint_when(go)
    with pytest.raises(KeyboardInterrupt):
        go.set()
        while True:
            a.add_(1.0)
    th.join()
    v = a.numpy()
    assert (v == v[0]).all(), "an in-place op was cut in the middle"


def test_custom_sigint_handler_still_works():
    hits = []
    signal.signal(signal.SIGINT, lambda *_: hits.append(1))
    _core._install_sigint_hook()
    signal.raise_signal(signal.SIGINT)
    assert hits == [1]


# ---------------------------------------------------------------------------------------
# fork
# ---------------------------------------------------------------------------------------


def _warm_up_the_thread_pool():
    """Runs parallel kernels so rayon's worker threads exist in the parent."""
    (fg.ones(1 << 20) * 3.0).exp()
    _ = fg.ones(512, 512) @ fg.ones(512, 512)
    (fg.ones(1 << 20) * 3.0).sum().item()


def _child_kernels_and_backward(q):
    a = fg.ones(1 << 20)
    b = (a * 2.0 + 1.0)[7].item()  # parallel elementwise kernels
    m = fg.ones(256, 256) @ fg.ones(256, 256)  # parallel gemm
    x = fg.ones(1 << 17, requires_grad=True)  # parallel elementwise in backward too
    (x * x).sum().backward()
    q.put((b, m[0, 0].item(), x.grad[0].item()))


def _child_large_reduction(q):
    q.put(fg.ones(1 << 20).sum().item())


def run_in_forked_child(target, timeout):
    _warm_up_the_thread_pool()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(q,))
    p.start()
    p.join(timeout=timeout)
    if p.is_alive():
        p.kill()
        p.join()
        pytest.fail("the forked child deadlocked")
    assert p.exitcode == 0
    return q.get(timeout=5)


needs_fork = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="no fork")


@needs_fork
def test_fork_after_the_thread_pool_ran_does_not_deadlock():
    assert run_in_forked_child(_child_kernels_and_backward, 60) == (3.0, 256.0, 2.0)
    # the parent still runs in parallel
    assert (fg.ones(1 << 20) * 2.0)[5].item() == 2.0


@needs_fork
def test_large_reduction_in_a_forked_child():
    assert run_in_forked_child(_child_large_reduction, 8) == float(1 << 20)


# ---------------------------------------------------------------------------------------
# panics
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["here", "worker", "detached"])
def test_rust_panics_become_python_exceptions(where):
    with pytest.raises(BaseException, match="deliberate panic") as info:
        _core._debug_panic("deliberate panic", where)
    assert type(info.value).__name__ == "PanicException"
    np.testing.assert_array_equal((fg.ones(2) + 1).numpy(), [2, 2])


def test_debug_panic_checks_its_argument():
    with pytest.raises(ValueError, match="where_"):
        _core._debug_panic("x", "nowhere")
