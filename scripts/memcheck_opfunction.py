"""Calls every path of `OpFunction` (src/python/static_graph/dispatch.rs), for a memory check:

    PYTHONMALLOC=malloc valgrind --tool=memcheck python scripts/memcheck_opfunction.py

Compare the reports with those of a script that only imports ferrograd: the loader and
CPython report the same contexts for both (docs/static.md, "Memory check")."""

import gc
import ferrograd as fg
import ferrograd.static as static

x = fg.ones([3])
for _ in range(200):
    fg.tanh(x)
    fg.add(x, x)
    fg.add(x, other=x)
    fg.concat([x, x])
    fg.stack((x, x))
    try:
        fg.tanh("nope")  # slow path, eager error
    except TypeError:
        pass
    try:
        fg.tanh()  # no arguments
    except TypeError:
        pass
    repr(fg.tanh)
    fg.tanh.__name__
    fg.tanh.__doc__
    fg.tanh.__wrapped__
try:
    type(fg.tanh)()  # tp_new refuses
except TypeError:
    pass
f = fg._core._op_function(lambda *a, **k: ("called", a, k), "myop", "doc")
for _ in range(100):
    f(1, 2, k=3)
    f(x)
    repr(f)
del f
try:
    fg._core._op_function(3, "bad", None)
except TypeError:
    pass


class Claims:
    @staticmethod
    def __ferrograd_function__(name, args, kwargs):
        return (name, len(args), dict(kwargs))


c = Claims()
for _ in range(100):
    assert fg.tanh(c) == ("tanh", 1, {})
    assert fg.add(c, x, alpha=2)[0] == "add"
    assert fg.concat([c, x])[0] == "concat"


class Raises:
    @staticmethod
    def __ferrograd_function__(name, args, kwargs):
        raise ValueError("from handler")


for _ in range(50):
    try:
        fg.tanh(Raises())
    except ValueError:
        pass

fg.enable_static()
main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    v = static.data("v", [3], "float32")
    y = fg.tanh(v) + fg.add(v, v)
exe = static.Executor()
exe.run(startup)
import numpy as np

for _ in range(20):
    exe.run(main, feed={"v": np.ones(3, np.float32)}, fetch_list=[y])
fg.disable_static()
gc.collect()
print("ok")
