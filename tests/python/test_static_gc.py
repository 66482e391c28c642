"""Garbage collection of static programs: a ``py_func`` whose callbacks refer to the
program itself forms a cycle through the Rust-held program; the collector must see the
callbacks (``__traverse__``) and break the cycle (``__clear__``)."""

from __future__ import annotations

import gc
import weakref

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static


@pytest.fixture(autouse=True)
def static_mode():
    fg.enable_static()
    yield
    fg.disable_static()


def _program_with_self_referencing_py_func() -> tuple[weakref.ref, weakref.ref]:
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 2], "float64")
        out = main.current_block().create_var(name="out", dtype="float64", shape=[-1, 2])

        def forward(a):
            assert main is not None  # the callback refers to the program: a cycle
            return np.asarray(a) * 2.0

        def backward(a, o, g):
            _ = main
            return np.asarray(g) * 2.0

        static.py_func(forward, x, out, backward_func=backward)
        (got,) = static.Executor().run(main, feed={"x": np.ones((3, 2))}, fetch_list=[out])
        np.testing.assert_array_equal(got, np.full((3, 2), 2.0))
    return weakref.ref(main), weakref.ref(forward)


def test_cycle_through_py_func_is_collected():
    gc.collect()
    program_ref, func_ref = _program_with_self_referencing_py_func()
    assert program_ref() is not None  # only the cycle keeps them alive
    gc.collect()
    assert program_ref() is None
    assert func_ref() is None


def test_program_without_cycle_frees_its_callbacks_at_once():
    gc.collect()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float64")
        out = main.current_block().create_var(name="o", dtype="float64", shape=[2])

        def forward(a):
            return np.asarray(a)

        static.py_func(forward, x, out)
    func_ref = weakref.ref(forward)
    del forward
    assert func_ref() is not None  # held by the program
    del main, x, out
    gc.collect()
    assert func_ref() is None


def test_live_program_keeps_working_after_collection():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float64")
        out = main.current_block().create_var(name="o", dtype="float64", shape=[2])
        static.py_func(lambda a: np.asarray(a) + 1.0, x, out)
    gc.collect()
    (got,) = static.Executor().run(main, feed={"x": np.zeros(2)}, fetch_list=[out])
    np.testing.assert_array_equal(got, np.ones(2))
