"""Many Python threads at once, each with its own grad mode and saved-tensor hooks, custom
layers among the ops and large kernels that release the GIL: every thread's results equal
those of the same work run alone. Each stress run is bounded in time (a few seconds),
never in the number of rounds it must reach."""

from __future__ import annotations

import threading
import time

import ferrograd as fg
import numpy as np
from ferrograd.autograd import PyLayer, saved_tensors_hooks

N_THREADS = 6
TIME_BUDGET_S = 3.0


class Cube(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return g * 3.0 * x * x


def one_round(seed: int):
    """A deterministic mixed workload; returns every value it computes, as NumPy."""
    rng = np.random.default_rng(seed)
    big = seed % 3 == 0  # some rounds use kernels big enough to release the GIL
    n = 300_000 if big else 40
    x = fg.tensor(rng.standard_normal(n), requires_grad=True)
    w = fg.tensor(rng.standard_normal((8, 8)), requires_grad=True)
    packed = []

    def pack(t):
        packed.append(seed)
        return t.numpy()

    def unpack(a):
        return fg.tensor(a)

    mode = seed % 2 == 0  # threads alternate grad modes around a no-grad side computation
    with saved_tensors_hooks(pack, unpack):
        y = Cube.apply(fg.tanh(x)) + x.exp() * 0.1
        with fg.set_grad_enabled(not mode):
            side = (x * 2.0).sum()
        z = (w @ w.t()).sigmoid()
        loss = y.sum() + (z * z).mean() * 3.0
    assert side.requires_grad == (not mode)
    loss.backward()
    (gx,) = fg.grad((Cube.apply(x[:5]) * 2.0).sum(), x, create_graph=True)
    (ggx,) = fg.grad(gx.sum(), x)
    assert packed and all(p == seed for p in packed), "another thread's hooks ran"
    return [loss.numpy(), x.grad.numpy(), w.grad.numpy(), gx.numpy(), ggx.numpy()]


def test_threads_match_the_sequential_results_under_time_bound():
    seeds = list(range(N_THREADS * 3))
    expected = {s: one_round(s) for s in seeds}
    errors: list[BaseException] = []
    checked = [0] * N_THREADS
    stop_at = time.monotonic() + TIME_BUDGET_S
    barrier = threading.Barrier(N_THREADS)

    def worker(i):
        try:
            barrier.wait()
            k = i
            while time.monotonic() < stop_at or checked[i] == 0:
                s = seeds[k % len(seeds)]
                got = one_round(s)
                for a, b in zip(got, expected[s]):
                    np.testing.assert_array_equal(a, b)
                checked[i] += 1
                k += N_THREADS
            assert fg.is_grad_enabled()
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors[0]
    assert all(c >= 1 for c in checked)


def test_threads_sharing_leaves_and_a_graph_with_retain_graph():
    """Threads run backward through one shared graph (retain_graph) and accumulate into the
    same leaves: the total is the sum of the per-thread gradients."""
    x = fg.tensor(np.linspace(-1, 1, 50), requires_grad=True)
    y = (Cube.apply(x) + x.sin()).sum()
    per_call = 3 * np.linspace(-1, 1, 50) ** 2 + np.cos(np.linspace(-1, 1, 50))
    calls = 25
    errors: list[BaseException] = []

    def worker():
        try:
            for _ in range(calls):
                y.backward(retain_graph=True)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors[0]
    np.testing.assert_allclose(x.grad.numpy(), per_call * calls * 4, rtol=1e-10)


def test_grad_mode_is_per_thread_under_contention():
    flips = 2000
    errors: list[BaseException] = []

    def flipper(mode):
        try:
            for _ in range(flips):
                with fg.set_grad_enabled(mode):
                    t = fg.ones(2, requires_grad=True) * 2.0
                    assert t.requires_grad == mode
                    assert fg.is_grad_enabled() == mode
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=flipper, args=(i % 2 == 0,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors[0]
    assert fg.is_grad_enabled()
