"""A systematic argument fuzzer for every public entry point: calls each public function
and Tensor method with odd arguments (0-d, 0-size and offset zero-size views, negative and
huge dims, wrong types, None) and records every call that raised something that is not a
normal ``Exception`` subclass (a Rust panic reaches Python as ``PanicException``, a
``BaseException``). Used by ``test_crashes_no_panic.py`` with a small budget; run by hand
with a large one::

    FERROGRAD_PANIC_FUZZ_CALLS=200000 python tests/python/panic_fuzz.py
"""

from __future__ import annotations

import itertools
import os
import random
import sys
from typing import Any, Callable

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np

# Functions that change process-wide state or touch files: driven by their own tests.
SKIP = frozenset(
    [
        "enable_static",
        "disable_static",
        "set_grad_enabled",
        "install_tensor_aliases",
        "save",
        "load",
        "set_buffer_cache_limit",
        "empty_buffer_cache",
        "manual_seed",
        "seed",
        "no_grad",
        "enable_grad",
        "inference_mode",
        "Tensor",
        "Size",
        "dtype",
        "register_hook",
        "backward",
        "copy_",
        "data_ptr",
        # process-wide print options: a huge precision left by one call broke repr in
        # later tests once the call sequence shifted (a new public function moved it)
        "set_printoptions",
        # process-wide too: anomaly mode left on by a random call made a later test's
        # intended NaN gradient raise (test_fuzz_low_precision's GradScaler run)
        "set_anomaly_enabled",
        "set_default_dtype",
        "set_num_threads",
        "set_flags",
        "set_warn_always",
        "set_rng_state",
    ]
)

# Huge sizes stay where the product of two of them overflows 64 bits or exceeds any
# machine's memory, so an allocation is refused rather than attempted.
HUGE = [2**40, 2**62, 2**63 - 1, 2**64, -(2**63)]
SCALARS: list[Any] = [0, 1, -1, 2, 3, -4, 1.5, float("nan"), float("inf"), True, None]
SCALARS += HUGE
OTHERS: list[Any] = [
    "x",
    "float32",
    "int64",
    [],
    [0],
    [-1],
    [0, -1],
    [1, 1],
    [2, 0],
    [2**40, 2**40],
    (),
    (0, 2**62),
    [[1, 2], [3]],
    object(),
    slice(None),
    slice(1, None),
    Ellipsis,
    np.int64(-1),
    np.zeros(0),
    np.zeros((2, 0)),
]


def tensors() -> list[Any]:
    """A fresh pool of odd tensors (fresh each time: in-place methods may change them)."""
    z30 = fg.zeros([3, 0])
    return [
        fg.to_tensor(1.5),  # 0-d
        fg.to_tensor(3, dtype="int64"),
        fg.zeros([0]),
        z30,
        z30[2],  # zero-size view with a storage offset
        z30[1:],
        fg.zeros([2, 3, 0])[1:, 1:],
        fg.arange(6, dtype="float32").reshape([2, 3]),
        fg.arange(6, dtype="float32").reshape([2, 3]).t(),
        fg.arange(4, dtype="int32"),
        fg.to_tensor([True, False]),
        fg.to_tensor([1 + 2j, -1j]),
        fg.arange(3, dtype="float64").astype("float16"),
        fg.ones([1, 2], dtype="float64").expand([3, 2]),
        fg.to_tensor([1.0, 2.0], stop_gradient=False),
    ]


def public_functions() -> list[tuple[str, Callable]]:
    """Every public callable of ``ferrograd`` and ``ferrograd.nn.functional``."""
    out = []
    for mod, prefix in ((fg, "fg."), (F, "F.")):
        for name in sorted(dir(mod)):
            obj = getattr(mod, name)
            if name.startswith("_") or name in SKIP or not callable(obj) or isinstance(obj, type):
                continue
            if getattr(obj, "__module__", "ferrograd").split(".")[0] not in (
                "ferrograd",
                "builtins",
            ):
                continue
            out.append((prefix + name, obj))
    return out


def public_methods() -> list[str]:
    """Names of every public Tensor method."""
    return [
        n
        for n in sorted(dir(fg.Tensor))
        if not n.startswith("_") and n not in SKIP and callable(getattr(fg.Tensor, n))
    ] + ["__getitem__", "__setitem__", "__add__", "__pow__", "__matmul__", "__repr__"]


def _arg(rng: random.Random, pool: list[Any]) -> Any:
    r = rng.random()
    if r < 0.35:
        return rng.choice(pool)
    if r < 0.75:
        return rng.choice(SCALARS)
    return rng.choice(OTHERS)


def _is_panic(e: BaseException) -> bool:
    return not isinstance(e, Exception)


def _touch(result: Any) -> None:
    """Reads what a call returned (repr and numpy), where panics of bad views show up."""
    items = result if isinstance(result, (list, tuple)) else [result]
    for r in items[:4]:
        if isinstance(r, fg.Tensor):
            repr(r)
            r.numpy()
            (r + 1) if r.dtype.name != "bool" else r.logical_not()


def run(
    calls: int, seed: int = 0, trace: Any = None, on_panic: Callable[[str], None] | None = None
) -> tuple[int, list[str]]:
    """Makes about ``calls`` fuzzed calls; returns (calls made, descriptions of panics).
    ``trace``, a writable file, holds the call under way (to name a call that aborts the
    process); ``on_panic`` is told of each panic as it is found."""
    rng = random.Random(seed)
    funcs = public_functions()
    methods = public_methods()
    targets = len(funcs) + len(methods)
    per = max(1, calls // targets)
    found: list[str] = []
    made = 0
    for i in itertools.count():
        if made >= calls:
            break
        k = i % targets
        pool = tensors()
        for _ in range(per):
            nargs = rng.randint(0, 3)
            if k < len(funcs):
                name, fn = funcs[k]
                args = [rng.choice(pool)] + [_arg(rng, pool) for _ in range(nargs)]
                if rng.random() < 0.15:
                    args[0] = _arg(rng, pool)
            else:
                name = "Tensor." + methods[k - len(funcs)]
                t = rng.choice(pool)
                fn = getattr(t, methods[k - len(funcs)])
                args = [_arg(rng, pool) for _ in range(nargs)]
            made += 1
            if trace is not None:
                trace.seek(0)
                trace.write(f"{name}{tuple(_short(a) for a in args)}\n")
                trace.truncate()
                trace.flush()
            try:
                _touch(fn(*args))
            except BaseException as e:  # noqa: BLE001 - the point is to see everything
                if isinstance(e, KeyboardInterrupt):
                    raise
                if _is_panic(e):
                    found.append(f"{name}{tuple(_short(a) for a in args)}: {type(e).__name__}: {e}")
                    if on_panic is not None:
                        on_panic(found[-1])
    return made, found


def _short(a: Any) -> str:
    if isinstance(a, fg.Tensor):
        return f"Tensor(shape={list(a.shape)}, dtype={a.dtype.name})"
    return repr(a)[:40]


if __name__ == "__main__":
    n = int(os.environ.get("FERROGRAD_PANIC_FUZZ_CALLS", "20000"))
    trace_path = os.environ.get("FERROGRAD_PANIC_FUZZ_TRACE")
    trace = open(trace_path, "w") if trace_path else None  # noqa: SIM115
    made, found = run(
        n,
        int(os.environ.get("FERROGRAD_PANIC_FUZZ_SEED", "0")),
        trace,
        lambda f: print(f, flush=True),
    )
    print(f"{made} calls, {len(found)} panics", file=sys.stderr)
    sys.exit(1 if found else 0)
