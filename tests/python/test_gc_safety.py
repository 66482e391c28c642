"""Regression tests: the garbage collector may run while a Tensor or ctx object is being
allocated (on CPython 3.11/3.12 the eager instance ``__dict__`` allocation can trigger it)
and must never see half-initialised objects; cycles through custom layers are collected."""

from __future__ import annotations

import gc
import weakref

import ferrograd as fg
from ferrograd.autograd import PyLayer


class Double(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.y = y  # attribute cycle: y -> node -> ctx -> y
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_gc_during_every_allocation_is_safe():
    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)  # a collection on (almost) every container allocation
    try:
        for _ in range(300):
            x = fg.tensor([1.0, 2.0], requires_grad=True)
            y = Double.apply(x)
            z = (y * x).sum()
            z.backward()
            cycle = [x, y]
            cycle.append(cycle)
    finally:
        gc.set_threshold(*old)
    gc.collect()


def test_attribute_cycle_through_ctx_is_collected():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = Double.apply(x)
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None
