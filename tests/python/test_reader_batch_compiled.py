"""Paddle's ``paddle.batch`` (a reader decorator grouping samples into lists) and
``paddle.static.CompiledProgram`` (a program an Executor runs as the program itself on
ferrograd's one CPU device), checked against plain Python / NumPy results."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static


def _reader():
    yield from range(7)


def test_batch_groups_samples_and_keeps_the_last_short_batch():
    r = fg.batch(_reader, batch_size=3)
    assert list(r()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(r()) == [[0, 1, 2], [3, 4, 5], [6]]  # a new pass each call


def test_batch_drop_last():
    assert list(fg.batch(_reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("size", [0, -2, 1.5, "3"])
def test_batch_size_must_be_a_positive_int(size):
    with pytest.raises(ValueError, match="batch_size"):
        fg.batch(_reader, size)


def test_compiled_program_runs_as_its_program():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, startup), static.scope_guard(static.Scope()):
            x = static.data("x", [-1, 2], "float64")
            y = fg.mean(x * 3.0)
            compiled = static.CompiledProgram(main)
            assert compiled._program is main
            exe = static.Executor()
            xv = np.array([[1.0, 2.0], [3.0, 5.0]])
            (a,) = exe.run(compiled, feed={"x": xv}, fetch_list=[y.name])
            (b,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
    finally:
        fg.disable_static()
    np.testing.assert_allclose(a, (xv * 3.0).mean())
    np.testing.assert_allclose(a, b)


def test_compiled_program_needs_a_program():
    with pytest.raises(TypeError, match="Program"):
        static.CompiledProgram(object())
