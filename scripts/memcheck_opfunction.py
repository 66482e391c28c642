"""Calls every path of `OpFunction` (src/python/static_graph/dispatch.rs), for a memory check:

    PYTHONMALLOC=malloc valgrind --tool=memcheck python scripts/memcheck_opfunction.py

Compare the reports with those of a script that only imports ferrograd: the loader and
CPython report the same contexts for both (docs/static.md, "Memory check").
"""

import gc

import ferrograd as fg
import ferrograd.static as static
import numpy as np


class Claims:
    """An argument type that takes the call over (returns what it was given)."""

    @staticmethod
    def __ferrograd_function__(name, args, kwargs):
        return (name, len(args), dict(kwargs))


class Raises:
    """An argument type whose handler raises."""

    @staticmethod
    def __ferrograd_function__(name, args, kwargs):
        raise ValueError("from handler")


def expect(error, call, *args):
    try:
        call(*args)
    except error:
        return
    raise AssertionError(f"{call} did not raise {error.__name__}")


def eager_paths(x):
    for _ in range(200):
        fg.tanh(x)
        fg.add(x, x)
        fg.add(x, other=x)
        fg.concat([x, x])
        fg.stack((x, x))
        expect(TypeError, fg.tanh, "nope")  # slow path, no handler: the eager error
        expect(TypeError, fg.tanh)  # no arguments
        _ = (repr(fg.tanh), fg.tanh.__name__, fg.tanh.__doc__, fg.tanh.__wrapped__)
    expect(TypeError, type(fg.tanh))  # tp_new refuses
    expect(TypeError, fg._core._op_function, 3, "bad", None)
    f = fg._core._op_function(lambda *a, **k: ("called", a, k), "myop", "doc")
    for _ in range(100):
        f(1, 2, k=3)
        f(x)
        repr(f)
    del f  # dealloc


def handler_paths(x):
    c = Claims()
    for _ in range(100):
        assert fg.tanh(c) == ("tanh", 1, {})
        assert fg.add(c, x, alpha=2)[0] == "add"
        assert fg.concat([c, x])[0] == "concat"
    for _ in range(50):
        expect(ValueError, fg.tanh, Raises())


def static_paths():
    fg.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        v = static.data("v", [3], "float32")
        y = fg.tanh(v) + fg.add(v, v)
    exe = static.Executor()
    exe.run(startup)
    for _ in range(20):
        exe.run(main, feed={"v": np.ones(3, np.float32)}, fetch_list=[y])
    fg.disable_static()


if __name__ == "__main__":
    t = fg.ones([3])
    eager_paths(t)
    handler_paths(t)
    static_paths()
    gc.collect()
    print("ok")
