"""What a pack hook returns is released when the backward that freed it returns.

The engine runs detached from the interpreter and frees each node's saves after the
node's backward; the packed Python objects it drops there are released (their reference
dropped) before ``backward()`` / ``grad()`` returns, with the collector off: no cycle
collection and no later interpreter entry is needed. A failed backward keeps them.
"""

from __future__ import annotations

import gc
import threading
import weakref

import ferrograd as fg
import numpy as np
import pytest


class Packed:
    """A pack hook's result that a weak reference can watch."""

    __slots__ = ("t", "__weakref__")

    def __init__(self, t):
        self.t = t


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def hooked_step(packs: list, backward) -> None:
    """``(a*b + a).sum()`` under hooks that box each save; ``backward(y, a)`` runs it."""
    a = fg.tensor(np.array([1.5, -2.0]), requires_grad=True)
    b = fg.tensor(np.array([0.5, 3.0]), requires_grad=True)

    def pack(t):
        p = Packed(t)
        packs.append(weakref.ref(p))
        return p

    with fg.autograd.graph.saved_tensors_hooks(pack, lambda p: p.t):
        y = (a * b + a).sum()
    assert packs and all(r() is not None for r in packs)
    g = backward(y, a)
    np.testing.assert_allclose(np.asarray(g), np.array([0.5, 3.0]) + 1.0)


def by_backward(y, a):
    y.backward()
    return a.grad


def by_autograd_backward(y, a):
    fg.autograd.backward([y])
    return a.grad


def by_grad(y, a):
    return fg.autograd.grad([y], [a])[0]


@pytest.mark.parametrize("backward", [by_backward, by_autograd_backward, by_grad])
def test_packs_are_released_when_backward_returns(no_gc, backward):
    packs: list = []
    hooked_step(packs, backward)
    assert [r() for r in packs] == [None] * len(packs)


def test_a_backward_on_another_thread_releases_its_packs(no_gc):
    packs: list = []
    errors: list = []

    def run():
        try:
            hooked_step(packs, by_backward)
        except BaseException as e:  # reported on the main thread
            errors.append(e)

    th = threading.Thread(target=run)
    th.start()
    th.join()
    assert not errors
    assert [r() for r in packs] == [None] * len(packs)


def test_a_release_that_runs_a_backward_releases_both(no_gc):
    """A packed object whose ``__del__`` runs another hooked backward."""
    inner: list = []

    class Reentrant(Packed):
        __slots__ = ()

        def __del__(self):
            packs: list = []
            hooked_step(packs, by_backward)
            inner.extend(packs)

    outer: list = []
    a = fg.tensor(np.array([2.0]), requires_grad=True)

    def pack(t):
        p = Reentrant(t)
        outer.append(weakref.ref(p))
        return p

    with fg.autograd.graph.saved_tensors_hooks(pack, lambda p: p.t):
        y = (a * a).sum()
    y.backward()
    np.testing.assert_allclose(np.asarray(a.grad), [4.0])
    assert outer and [r() for r in outer] == [None] * len(outer)
    assert inner and [r() for r in inner] == [None] * len(inner)


def test_a_failed_backward_keeps_the_packs_for_the_next_try(no_gc):
    packs: list = []
    a = fg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    fail = [True]

    def pack(t):
        p = Packed(t)
        packs.append(weakref.ref(p))
        return p

    def unpack(p):
        if fail[0]:
            raise ValueError("unpack failed")
        return p.t

    with fg.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (a * a).sum()
    with pytest.raises(ValueError, match="unpack failed"):
        y.backward()
    assert packs and all(r() is not None for r in packs)
    fail[0] = False
    y.backward()
    np.testing.assert_allclose(np.asarray(a.grad), [2.0, 4.0])
    assert [r() for r in packs] == [None] * len(packs)


def test_retain_graph_keeps_the_packs_until_the_graph_goes(no_gc):
    packs: list = []
    a = fg.tensor(np.array([3.0]), requires_grad=True)

    def pack(t):
        p = Packed(t)
        packs.append(weakref.ref(p))
        return p

    with fg.autograd.graph.saved_tensors_hooks(pack, lambda p: p.t):
        y = (a * a).sum()
    y.backward(retain_graph=True)
    assert packs and all(r() is not None for r in packs)
    y.backward()
    np.testing.assert_allclose(np.asarray(a.grad), [12.0])
    assert [r() for r in packs] == [None] * len(packs)
