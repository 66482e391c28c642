"""The kernels' thread pool with the importing thread as a worker: kernels give the same
results from the main thread, from other threads, when the importing thread has exited,
with the feature turned off, and with one thread."""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import threading
    import numpy as np

    mods = {}

    def load():
        import ferrograd
        mods["fg"] = ferrograd
        ferrograd.ones([1 << 20]).exp().sum()

    # import from a thread that then exits: it was the pool's worker 0
    t = threading.Thread(target=load)
    t.start()
    t.join()
    fg = mods["fg"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1 << 20).astype(np.float32)
    m = rng.standard_normal((300, 300))
    results = []

    def work():
        x = fg.from_numpy(a)
        y = fg.from_numpy(m)
        results.append((float(x.tanh().sum()), float((y @ y).sum())))

    work()
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first = results[0]
    assert all(r == first for r in results), results
    np.testing.assert_allclose(first[0], np.tanh(a.astype(np.float64)).sum(), rtol=1e-4)
    np.testing.assert_allclose(first[1], (m @ m).sum(), rtol=1e-9)
    print("ok", repr(first))
    """
)


def _run(env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")
    return out.stdout


@pytest.mark.parametrize(
    "env",
    [{}, {"FERROGRAD_CALLER_IN_POOL": "0"}, {"RAYON_NUM_THREADS": "1"}, {"RAYON_NUM_THREADS": "3"}],
    ids=["default", "off", "one-thread", "three-threads"],
)
def test_kernels_from_any_thread_give_the_same_results(env):
    _run(env)


def test_the_pool_setting_does_not_change_results():
    assert _run({}) == _run({"FERROGRAD_CALLER_IN_POOL": "0"})
