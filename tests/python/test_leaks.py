"""Nothing leaks: tensors, hook callbacks, saved-tensor hook payloads and custom-layer
contexts are freed once unreachable (weakref + gc), and resident memory stays flat over
long loops of backward, ``grad(create_graph=True)`` and graphs dropped without backward.
(test_pylayer_gc_threads.py covers ctx cycles and the PyLayer apply/backward loop.)"""

from __future__ import annotations

import gc
import os
import weakref

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import PyLayer, saved_tensors_hooks

MiB = 1 << 20


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="no /proc")


class Token:
    """A weak-referenceable object to hang on callbacks and ctx."""


def assert_freed(ref, what):
    gc.collect()
    assert ref() is None, f"{what} is still alive"


def test_tensors_of_a_dropped_graph_are_freed():
    x = fg.ones(3, requires_grad=True)
    y = (x * 2).exp()
    ry = weakref.ref(y)
    del y
    assert ry() is None  # no cycle: freed without gc
    z = (x * 3).sum()
    rz = weakref.ref(z)
    z.backward()
    del z
    assert rz() is None


def test_tensor_hooks_are_freed_with_their_tensor():
    tok = Token()
    rt = weakref.ref(tok)
    x = fg.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g, tok=tok: g)
    x.register_hook(lambda g, tok=tok: g)
    del tok
    y.sum().backward()
    del y
    gc.collect()
    assert rt() is not None  # still held by the hook on the leaf x
    del x
    assert_freed(rt, "a hook's closure")


def test_removed_hooks_are_freed():
    tok = Token()
    rt = weakref.ref(tok)
    x = fg.ones(2, requires_grad=True)
    h = x.register_hook(lambda g, tok=tok: g)
    del tok
    h.remove()
    assert_freed(rt, "a removed hook")
    assert x is not None


def test_saved_tensor_hook_payloads_are_freed_after_backward_and_when_dropped():
    refs = []

    def pack(t):
        tok = Token()
        tok.array = t.numpy()
        refs.append(weakref.ref(tok))
        return tok

    def unpack(tok):
        return fg.tensor(tok.array)

    x = fg.ones(4, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sin().sum()
    assert refs
    y.backward()
    assert all(r() is None for r in refs), "payloads kept after backward"
    refs.clear()
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sin().sum()
    del y
    assert all(r() is None for r in refs), "payloads kept by a dropped graph"


class Keep(PyLayer):
    @staticmethod
    def forward(ctx, x, tok):
        ctx.tok = tok
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_ctx_and_what_it_holds_are_freed_when_backward_raises_in_a_hook():
    tok = Token()
    rt = weakref.ref(tok)
    x = fg.ones(2, requires_grad=True)
    y = Keep.apply(x, tok)
    del tok

    def boom(g):
        raise RuntimeError("hook failed")

    y.register_hook(boom)
    with pytest.raises(RuntimeError, match="hook failed"):
        y.sum().backward()
    del y
    assert_freed(rt, "the ctx of a layer whose backward failed")


def test_grad_fn_nodes_are_freed():
    x = fg.ones(2, requires_grad=True)
    tok = Token()
    rt = weakref.ref(tok)
    y = Keep.apply(x, tok)
    node = y.grad_fn
    del tok, y
    gc.collect()
    assert rt() is not None  # the node object keeps its ctx alive
    del node
    assert_freed(rt, "a node's ctx after its last handle went")


def rss_growth(step, warmup=200, rounds=2500):
    for _ in range(warmup):
        step()
    gc.collect()
    before = rss()
    for _ in range(rounds):
        step()
    gc.collect()
    return rss() - before


@needs_proc
def test_rss_flat_over_backward_loops():
    x = fg.tensor(np.random.default_rng(0).standard_normal(2000), requires_grad=True)

    def step():
        (x.tanh() * x).sum().backward()
        x.grad = None

    assert rss_growth(step) < 8 * MiB


@needs_proc
def test_rss_flat_over_create_graph_loops():
    x = fg.tensor(np.random.default_rng(1).standard_normal(2000), requires_grad=True)

    def step():
        (g,) = fg.grad((x.sin() * x).sum(), x, create_graph=True)
        (gg,) = fg.grad(g.sum(), x)
        assert gg.shape == [2000]

    assert rss_growth(step) < 8 * MiB


@needs_proc
def test_rss_flat_over_graphs_dropped_without_backward():
    x = fg.tensor(np.random.default_rng(2).standard_normal(2000), requires_grad=True)

    def step():
        y = Keep.apply(x.exp(), Token())
        z = (y * x).sum()
        del z, y

    assert rss_growth(step) < 8 * MiB


@needs_proc
def test_rss_flat_over_dlpack_and_buffer_exports():
    t = fg.ones(50_000, dtype="float64")

    def step():
        a = np.from_dlpack(t)
        b = np.asarray(t)
        c = fg.from_dlpack(np.ones(50_000))
        assert a.shape == b.shape == tuple(c.shape)

    assert rss_growth(step, rounds=1000) < 8 * MiB
