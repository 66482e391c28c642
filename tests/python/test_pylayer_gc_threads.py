"""Custom layers and memory: ctx lifetime, reference cycles through ctx, resident memory
over many rounds; and one layer used from several threads at once.

``docs/semantics.md`` (G, memory): saving an output creates no cycle; attribute cycles are
collectable by ``gc``; nothing leaks when backward never runs.
"""

from __future__ import annotations

import gc
import os
import threading
import weakref

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer

LAST_CTX = []  # a weak reference to the ctx of the latest forward


def remember(ctx):
    LAST_CTX[:] = [weakref.ref(ctx)]


def last_ctx_alive():
    return LAST_CTX[0]() is not None


def make_layer(base, variant):
    """``x * 2`` whose forward keeps what ``variant`` says on its ctx."""

    def forward(ctx, x):
        y = x * 2
        if variant == "save_output":
            ctx.save_for_backward(y)
        elif variant == "save_input":
            ctx.save_for_backward(x)
        elif variant == "everything":
            ctx.save_for_backward(x, y)
        if variant in ("attr_output", "everything"):
            ctx.y = y  # cycle: y -> node -> ctx -> y
        if variant in ("attr_input", "everything"):
            ctx.x = x
        if variant == "attr_self":
            ctx.me = ctx  # cycle: ctx -> ctx
        remember(ctx)
        return y

    def backward(ctx, g):
        return g * 2

    return type(
        f"Keep_{variant}",
        (base,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )


VARIANTS = [
    "nothing",
    "save_input",
    "save_output",
    "attr_input",
    "attr_output",
    "attr_self",
    "everything",
]


@pytest.fixture
def gc_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.fixture
def gc_disabled():
    """Reference counting only: anything still alive after ``del`` is held by a cycle."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


@pytest.mark.parametrize("base", [PyLayer, Function], ids=["paddle", "torch"])
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("run_backward", [True, False], ids=["backward", "no-backward"])
def test_ctx_is_freed_after_del_and_collect(base, variant, run_backward, gc_enabled):
    layer = make_layer(base, variant)
    x = fg.tensor(np.ones((4, 4)), requires_grad=True)
    y = layer.apply(x)
    assert last_ctx_alive()
    out_ref = weakref.ref(y)
    if run_backward:
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.full((4, 4), 2.0))
    del y
    gc.collect()
    assert not last_ctx_alive(), f"ctx of {variant} survived gc.collect()"
    assert out_ref() is None


@pytest.mark.parametrize("base", [PyLayer, Function], ids=["paddle", "torch"])
@pytest.mark.parametrize("variant", ["nothing", "save_input", "save_output", "attr_input"])
@pytest.mark.parametrize("run_backward", [True, False], ids=["backward", "no-backward"])
def test_no_cycle_without_attribute_cycles(base, variant, run_backward, gc_disabled):
    """Saving an output (or an input, or nothing) creates no reference cycle: the ctx dies by
    reference counting alone, the moment the output is dropped."""
    layer = make_layer(base, variant)
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = layer.apply(x)
    if run_backward:
        y.sum().backward()
    del y
    assert not last_ctx_alive(), f"{variant}: the ctx is held by a reference cycle"


def test_ctx_survives_while_the_output_is_alive(gc_enabled):
    layer = make_layer(PyLayer, "save_output")
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = layer.apply(x)
    gc.collect()
    assert last_ctx_alive(), "the graph still needs the ctx"
    (y * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    del y
    gc.collect()
    assert not last_ctx_alive()


@pytest.mark.parametrize(
    "variant",
    [
        "nothing",
        "save_input",
        "save_output",
        "attr_input",
        "attr_self",
        "attr_output",
        "everything",
    ],
)
@pytest.mark.parametrize("run_backward", [True, False], ids=["backward", "no-backward"])
def test_ctx_of_a_chain_is_freed_by_one_collection(variant, run_backward, gc_enabled):
    layer = make_layer(PyLayer, variant)
    refs = []
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    h = x
    for _ in range(20):
        h = layer.apply(h)
        refs.append(LAST_CTX[0])
    assert all(r() is not None for r in refs)
    if run_backward:
        h.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [2.0**20] * 2)
    del h
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive == 0, f"{alive} of 20 ctx objects survived one gc.collect()"


def test_ctx_of_a_chain_with_output_attributes_is_freed_eventually(gc_enabled):
    layer = make_layer(PyLayer, "attr_output")
    refs = []
    h = fg.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(20):
        h = layer.apply(h)
        refs.append(LAST_CTX[0])
    del h
    for _ in range(25):
        gc.collect()
    assert all(r() is None for r in refs)


def test_rss_is_bounded_for_chains_with_output_attributes(gc_enabled):
    layer = make_layer(PyLayer, "attr_output")
    x = fg.ones([64, 1024])  # 256 KiB of float32
    x.stop_gradient = False

    def chain():
        h = x
        for _ in range(10):
            h = layer.apply(h)
        h.sum().backward()
        x.grad = None

    for _ in range(5):
        chain()
    gc.collect()
    before = rss_bytes()
    for _ in range(100):  # 250 MiB of outputs if none were freed
        chain()
    grown = rss_bytes() - before
    assert grown < 60 * MiB, f"RSS grew by {grown / MiB:.1f} MiB over 100 chains of 10 layers"


def test_ctx_is_freed_when_forward_raises(gc_enabled):
    class Fails(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(x, y)
            ctx.y = y
            remember(ctx)
            raise KeyError("boom")

        @staticmethod
        def backward(ctx, g):
            return g

    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(KeyError):
        Fails.apply(x)
    gc.collect()
    assert not last_ctx_alive()


def test_ctx_is_freed_when_backward_raises(gc_enabled):
    class FailsBack(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(x, y)
            ctx.y = y
            remember(ctx)
            return y

        @staticmethod
        def backward(ctx, g):
            raise KeyError("boom")

    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = FailsBack.apply(x)
    with pytest.raises(KeyError):
        y.sum().backward()
    del y
    gc.collect()
    assert not last_ctx_alive()


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


MiB = 1024 * 1024


@pytest.mark.parametrize(
    "variant, collect_each_round",
    [("save_output", False), ("attr_input", False), ("everything", True)],
)
def test_nothing_leaks_when_backward_never_runs(variant, collect_each_round, gc_enabled):  # [G1]
    """Paddle 3.3.1 keeps every ctx that saved or attached its output alive for good when
    backward never runs (+96 MiB here)."""
    layer = make_layer(PyLayer, variant)
    x = fg.ones([256, 1024])  # 1 MiB of float32
    x.stop_gradient = False
    for _ in range(5):  # warm up the allocator
        y = layer.apply(x)
        del y
        gc.collect()
    before = rss_bytes()
    refs = []
    for _ in range(100):  # 100 MiB of outputs if they leaked
        y = layer.apply(x)
        refs.append(LAST_CTX[0])
        del y
        if collect_each_round:
            gc.collect()
        else:
            assert not last_ctx_alive()
    gc.collect()
    grown = rss_bytes() - before
    assert all(r() is None for r in refs)
    assert grown < 40 * MiB, f"RSS grew by {grown / MiB:.1f} MiB over 100 x 1 MiB outputs"


class Saver(PyLayer):
    @staticmethod
    def forward(ctx, x, w):
        y = x * w
        ctx.save_for_backward(x, w, y)
        ctx.y = y  # an attribute cycle too, for the collector
        ctx.tag = "saver"
        return y

    @staticmethod
    def backward(ctx, g):
        x, w, y = ctx.saved_tensor()
        return g * w, g * x


def test_rss_is_flat_over_many_rounds(gc_enabled):
    x = fg.tensor(np.ones((64, 64)), requires_grad=True)
    w = fg.tensor(np.full((64, 64), 3.0), requires_grad=True)

    def round_trip():
        y = Saver.apply(x, w)
        (y * y).sum().backward()
        x.grad = None
        w.grad = None

    for _ in range(1000):
        round_trip()
    gc.collect()
    first = rss_bytes()
    for _ in range(9000):
        round_trip()
    gc.collect()
    grown = rss_bytes() - first
    # 9000 rounds of 32 KiB saved tensors: a leak would be hundreds of MiB
    assert grown < 20 * MiB, f"RSS grew by {grown / MiB:.1f} MiB over 9000 rounds"


# ---------------------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------------------


class ScaledTanh(PyLayer):
    @staticmethod
    def forward(ctx, x, scale):
        y = fg.tanh(x) * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        ctx.grad_mode = fg.is_grad_enabled()
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensor()
        s = ctx.scale
        assert ctx.grad_mode is False
        return g * (s - y * y / s)


class ScaledTanhT(Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = fg.tanh(x) * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (ctx.scale - y * y / ctx.scale), None


def workload(layer, seed, rounds=150):
    """Forward, backward and double backward of ``layer`` on random inputs; returns the
    values seen and whether grad mode stayed on outside the layer."""
    rng = np.random.default_rng(seed)
    results = []
    grad_mode_on = True
    for _ in range(rounds):
        x = fg.tensor(rng.standard_normal((6, 5)), requires_grad=True)
        y = layer.apply(x, 1.0 + seed)
        grad_mode_on &= fg.is_grad_enabled()
        (y * y).sum().backward()
        (g,) = fg.grad(layer.apply(x, 2.0).sum(), x, create_graph=True)
        (gg,) = fg.grad(g.sum(), x)
        grad_mode_on &= fg.is_grad_enabled()
        results.append((y.numpy().copy(), x.grad.numpy().copy(), gg.numpy().copy()))
    return results, grad_mode_on


def run_in_threads(fn, n=4):
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = []

    def target(i):
        try:
            barrier.wait()
            results[i] = fn(i)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert errors == [], errors
    return results


@pytest.mark.parametrize("layer", [ScaledTanh, ScaledTanhT], ids=["paddle", "torch"])
def test_four_threads_match_the_sequential_run(layer):
    sequential = [workload(layer, seed) for seed in range(4)]
    threaded = run_in_threads(lambda i: workload(layer, i))
    for seed in range(4):
        seq_values, seq_mode = sequential[seed]
        thr_values, thr_mode = threaded[seed]
        assert seq_mode and thr_mode, "grad mode leaked out of a layer's forward"
        assert len(seq_values) == len(thr_values)
        for a, b in zip(seq_values, thr_values):
            for u, v in zip(a, b):
                np.testing.assert_array_equal(u, v)


def test_threads_accumulating_into_one_leaf():
    w = fg.tensor(np.ones((3, 3)), requires_grad=True)

    class Weighted(PyLayer):
        @staticmethod
        def forward(ctx, w, k):
            ctx.k = k
            return w * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k

    def work(i):
        for _ in range(100):
            Weighted.apply(w, float(i + 1)).sum().backward()

    run_in_threads(work)
    # every value is a small integer, so the sum is exact whatever the order
    np.testing.assert_array_equal(w.grad.numpy(), np.full((3, 3), 100.0 * (1 + 2 + 3 + 4)))


def test_grad_mode_in_one_thread_does_not_leak_into_a_layer_in_another():
    """A thread holding no_grad() does not stop another thread's layer from recording."""
    entered = threading.Event()
    release = threading.Event()
    seen = {}

    def holder(_):
        with fg.no_grad():
            entered.set()
            release.wait(timeout=30)
            seen["holder"] = fg.is_grad_enabled()

    def user(_):
        try:
            entered.wait(timeout=30)
            x = fg.tensor([1.0, 2.0], requires_grad=True)
            y = ScaledTanh.apply(x, 1.0)
            seen["recorded"] = y.requires_grad
            y.sum().backward()
            seen["grad"] = x.grad is not None
        finally:
            release.set()

    run_in_threads(lambda i: (holder if i == 0 else user)(i), n=2)
    assert seen == {"holder": False, "recorded": True, "grad": True}


@pytest.mark.parametrize("base", [Function, PyLayer])
def test_a_stashed_ctx_loses_its_saved_tensors_with_the_graph(base):
    """PyTorch's test_naughty_autograd_function_stashing_ctx: a ctx kept by user code
    must not keep what forward saved once the graph is gone (reading it raises)."""
    stash = []
    inner = []

    class Twice(base):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            inner.append(weakref.ref(y))
            ctx.save_for_backward(x, y)
            return y + 0

        @staticmethod
        def backward(ctx, g):
            stash.append(ctx)
            saved = ctx.saved_tensors if base is Function else ctx.saved_tensor()
            return g * 2 + 0 * saved[1]

    def saved_of(ctx):
        return ctx.saved_tensors if base is Function else ctx.saved_tensor()

    p = fg.zeros([3], dtype=fg.float64, requires_grad=True)
    loss = Twice.apply(p).sum()
    loss.backward(retain_graph=True)
    ctx = stash[0]
    assert len(saved_of(ctx)) == 2  # the graph is alive: still readable
    del loss
    with pytest.raises(RuntimeError, match="freed"):
        saved_of(ctx)
    assert inner[0]() is None  # the saved intermediate went with the graph
    np.testing.assert_array_equal(p.grad.numpy(), [2.0, 2.0, 2.0])
